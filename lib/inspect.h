/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-directory inspection shared by scan, explain and fix. Internal to lib/. */
#ifndef LCTL_INSPECT_H
#define LCTL_INSPECT_H

#include "layoutctl.h"
#include "verdict.h"

#include <limits.h>
#include <stdatomic.h>

struct lctl_nogfid_marks;

/* Read-only context shared by all workers of a run (but for the locked marks below). */
struct lctl_inspector {
	struct lctl_volume *vol; /* borrowed */
	struct lctl_munge munge;
	char layout_key[128]; /* trusted.glusterfs.dht */
	char linkto_key[160]; /* trusted.glusterfs.dht.linkto */
	uint32_t vol_commit;
	bool all_entries;
	/*
	 * Before reading a brick folder directly, ask the brick process whether it is up (one
	 * STATFS): a directory on a subvolume clients cannot reach is reported down, as the gfapi
	 * reader would. 0 = before every read (fix: it must not work on such a directory);
	 * N = at most every N ms per subvolume (scan: a brick lost half-way is reported from then
	 * on). Per subvolume: when it was last asked (monotonic ms) and whether it was down.
	 */
	unsigned probe_ms;
	_Atomic int64_t *probed_at;
	atomic_bool *probed_down;
	enum lctl_planner planner;
	/* planner inputs, [nsubvols] */
	size_t nsubvols;
	/*
	 * cluster.subvols-per-directory (0 = all): a directory's layout counts as complete over
	 * that many subvolumes, and is planned over that many (lctl_judge_layout(),
	 * lctl_plan_dir())
	 */
	unsigned spread;
	const char **names;
	uint64_t *weights; /* NULL = equal shares */
	bool *active;	   /* up and not decommissioned */
	/*
	 * A drain: with the min-move planner, the least movement, however unbalanced (only the
	 * leaving subvolumes' ranges change owner, given to their neighbours); and hard-linked
	 * files that are not on a leaving subvolume are not counted as moves (they stay).
	 */
	bool least_move;
	/*
	 * Subdirectories a listing showed without a gfid, per subvolume: their inspection must
	 * not look them up by path, which would make the brick assign a random gfid (a different
	 * one on each brick). Own lock; see inspect.c.
	 */
	struct lctl_nogfid_marks *nogfid;
};

int lctl_inspector_init(struct lctl_inspector *in, struct lctl_volume *vol,
			enum lctl_planner planner, bool all_entries, struct lctl_error *err);
void lctl_inspector_release(struct lctl_inspector *in);

/* Called for each subdirectory name found. */
struct lctl_inspect_children {
	int (*fn)(void *arg, const char *name);
	void *arg;
};

int lctl_inspect(struct lctl_inspector *in, const char *path, unsigned depth,
		 struct lctl_inspect_children *children, struct lctl_dir_report **out);

/*
 * Before a walk that starts below the root at @path: on each subvolume where @path or one of
 * its ancestors has no gfid (found by listing each ancestor there), mark @path not to be read,
 * as a path lookup would assign gfids on the way. 0 or -LCTL_EINVAL (path too long).
 */
int lctl_inspect_guard_start(struct lctl_inspector *in, const char *path);

/* The planner's layout for @path over the active subvolumes, into planned[nsubvols]. */
int lctl_plan_dir(const struct lctl_inspector *in, const char *path,
		  const struct lctl_layout_entry *current, struct lctl_range *planned);
double lctl_plan_moved_fraction(const struct lctl_layout_entry *current,
				const struct lctl_range *planned, size_t n);

/*
 * How reading a subvolume's layout xattr ended: @n bytes of @buf, or -1 with errno @e (ENOTCONN
 * when the subvolume answered a probe as down). Fills @le->err and @le->r and adds the problem
 * it means to @problems: a failure is never a zero range read "ok" (an errno of 0 is EIO).
 */
void lctl_note_layout(struct lctl_layout_entry *le, unsigned *problems, const void *buf, ssize_t n,
		      int e);

/*
 * The directory-level problems and notes of @r from its layout entries, @subvols[r->nsubvols]
 * (their up and decommissioned flags), the volume's commit hash and its
 * cluster.subvols-per-directory @spread (0 = all). Pure. 0, or the error of
 * lctl_layout_check() (-LCTL_ENOMEM, -LCTL_EINVAL): then @r was not judged.
 *
 * Complete means: every subvolume that takes part (not decommissioned, not being drained) has
 * a range, or, with @spread below their number, exactly @spread of them have one and the
 * others are 0-0 or have no layout xattr, as DHT makes a directory with that option. Either
 * way the ranges must tile the hash space: a range lost or shrunk leaves a hole, reported as
 * such. Any other number of ranges is incomplete (more than @spread but not all: the option
 * was lowered; fewer: raised, or a range lost without a hole, e.g. a neighbour grown over it).
 * In such a spread layout the commit word 0 that DHT writes on the 0-0 entries is not
 * counted: a directory DHT made with the volume's hash on its ranged entries is not
 * commit-mixed. (DHT's own merge of those words depends on reply order, dht-facts 1.3: it
 * sees the hash or 1, never another hash, so nothing can be hidden by it.)
 */
int lctl_judge_layout(struct lctl_dir_report *r, const struct lctl_subvol *subvols,
		      uint32_t vol_commit, unsigned spread);

/*
 * The longest volume path gfapi can resolve: libglusterfs's inode_path() refuses a path of more
 * than PATH_MAX bytes, so a deeper directory cannot be read, healed or stamped through gfapi.
 * Such a directory is reported unreadable (ENAMETOOLONG), and its parent is never stamped.
 */
#define LCTL_VOL_PATH_MAX PATH_MAX

#endif
