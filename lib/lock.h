/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The locks of a run that writes to a volume (lock.c). Internal to lib/. */
#ifndef LCTL_LOCK_H
#define LCTL_LOCK_H

#include "layoutctl.h"

/**
 * lctl_lock_local() - flock(@state_dir/lock), a regular file of ours (statedir.c).
 * Return: 0 and *@out, or -LCTL_EBUSY (another run on this host has it), -LCTL_E*.
 */
int lctl_lock_local(struct lctl_volume *vol, const char *state_dir, struct lctl_lock **out,
		    struct lctl_error *err);
/**
 * lctl_lock_volume() - then the volume lock on the first subvolume's root, its value naming
 * this host, process and @run; a dead run's taken over, any with @break_lock.
 */
int lctl_lock_volume(struct lctl_lock *l, const char *run, bool break_lock, struct lctl_error *err);
/** lctl_lock_also() - the same value on subvolume @sv's root as well (a drain's). */
int lctl_lock_also(struct lctl_lock *l, size_t sv, struct lctl_error *err);

/* Who runs here, as a lock value names its holder (lock.c, lctl_lock_value_dead()). */
struct lctl_lock_ident {
	char host[256];
	char machine[40]; /* /etc/machine-id, "-" if none */
	char boot[40];	  /* the kernel's boot id */
	char pidns[64];	  /* /proc/self/ns/pid */
	long pid;
	unsigned long long start; /* its start time, clock ticks since boot */
};
void lctl_lock_ident(struct lctl_lock_ident *me);
/** lctl_proc_start() - when process @pid started (clock ticks since boot), 0 if none. */
unsigned long long lctl_proc_start(long pid);
/**
 * lctl_lock_value_dead() - the run the lock value @v names is dead, as far as @me can tell
 * (@start_of: a process's start time, 0 if there is none). Pure but for @start_of.
 */
bool lctl_lock_value_dead(const char *v, const struct lctl_lock_ident *me,
			  unsigned long long (*start_of)(long pid));

/*
 * The mark of a drain that stands (lock.c): lctl_drain_mark() writes it for the subvolumes
 * @leaving ("name,name"); lctl_drain_mark_read() reads it (1 and its value in @buf, 0 none,
 * -errno); lctl_drain_mark_stale() says none of the subvolumes it names is in the volume any
 * more (removed: the drain is over). lctl_drain_unmark() is in layoutctl.h.
 */
int lctl_drain_mark(struct lctl_volume *vol, const char *leaving, struct lctl_error *err);
int lctl_drain_mark_read(struct lctl_volume *vol, char *buf, size_t size);
bool lctl_drain_mark_stale(struct lctl_volume *vol, const char *value);

#endif
