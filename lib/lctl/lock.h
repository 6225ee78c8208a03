/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the locks of a run that writes (lib/lock.c).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_LOCK_H
#define LAYOUTCTL_LOCK_H

#include "base.h"
#include "volume.h"

/* ---- the locks of a run that writes (lock.c) ------------------------------------------- */

struct lctl_lock;

/**
 * lctl_volume_lock() - take the locks a fix takes (flock(@state_dir/lock) against runs of this
 * host, the volume lock against all others; @break_lock as for a fix), to hold them across
 * several runs: a drain holds them from its first pass through the remove-brick and the fix
 * after it (lctl_fix_opts.lock). When the first subvolume is leaving (lctl_subvol.leaving),
 * the first one that stays holds the volume lock too: runs look there once it is removed.
 * Return: 0 and *@out, or -LCTL_EBUSY (held by another run), another -LCTL_E*.
 */
int lctl_volume_lock(struct lctl_volume *vol, const char *state_dir, bool break_lock,
		     struct lctl_lock **out, struct lctl_error *err);
/** lctl_lock_held() - the volume lock still holds what we wrote (read again, not cached). */
bool lctl_lock_held(struct lctl_lock *l);
/**
 * lctl_lock_removed() - the leaving subvolumes are removed from the volume: a volume lock on
 * one of them (the first subvolume's) guards nothing any more; the one on the first that
 * stayed goes on alone.
 */
void lctl_lock_removed(struct lctl_lock *l);
/**
 * lctl_drain_unmark() - the drain's bricks are removed: the mark that refused every fix while
 * it stood goes (lock.c; a fix's first run of a drain writes it).
 */
void lctl_drain_unmark(struct lctl_volume *vol);
/** lctl_lock_free() - release the locks (the volume lock only while it is still ours). */
void lctl_lock_free(struct lctl_lock *l);

/* A copy of a running job's counters for a progress line or the dashboard. */

#endif /* LAYOUTCTL_LOCK_H */
