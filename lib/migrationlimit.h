/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A few migrations at a time per subvolume, one by default (see migrationlimit.c). Internal to lib/ and
 * the unit tests. */
#ifndef LCTL_MIGRATIONLIMIT_H
#define LCTL_MIGRATIONLIMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct lctl_slots {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t n;
	unsigned cap;	/* migrations at a time from or to one subvolume */
	unsigned *busy; /* per subvolume: how many are running from or to it */
};

/* @n subvolumes, at most @cap migrations at a time from or to each (0: 1) */
int lctl_slots_init(struct lctl_slots *s, size_t n, unsigned cap);
void lctl_slots_destroy(struct lctl_slots *s);

/*
 * Wait until neither subvolume @a nor @b is full (@cap migrations from or to it), then count
 * one more on both (atomically: two takers can never deadlock; @a == @b counts once). @stop,
 * if set, is asked without the lock held about every 200 ms while waiting; true from it ends
 * the wait with false and nothing taken. An index outside the set is ignored (nothing to wait
 * for).
 */
bool lctl_slots_take(struct lctl_slots *s, int a, int b, bool (*stop)(void *), void *arg);
void lctl_slots_put(struct lctl_slots *s, int a, int b);
/* A new @cap (0: 1) while migrations run: those above it finish, then it holds. */
void lctl_slots_set_cap(struct lctl_slots *s, unsigned cap);

#endif
