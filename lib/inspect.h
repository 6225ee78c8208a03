/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-directory inspection shared by scan, explain and fix. Internal to lib/. */
#ifndef LCTL_INSPECT_H
#define LCTL_INSPECT_H

#include "layoutctl.h"
#include "judge.h"
#include "verdict.h"
#include "nogfid.h"

#include <limits.h>
#include <stdatomic.h>

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
	 * reader would. 0 = before every read; N = at most every N ms per subvolume (scan and fix:
	 * 250; a brick lost half-way is reported from then on). The answer is a hint, never the
	 * guard: a brick can die right after any probe, and a fix's writes (the layout, the stamp)
	 * go to every subvolume through gfapi, where a brick that is down fails them; a folder is
	 * read directly only for a pure distribute subvolume, whose folder nobody else writes while
	 * its process is down. Per subvolume: when it was last asked (monotonic ms) and whether it
	 * was down.
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
	 * lctl_plan_dir() through lctl_inspector_planning())
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

/* What lctl_plan_dir() plans @in's directories with (@in's arrays borrowed). */
static inline struct lctl_dir_planning lctl_inspector_planning(const struct lctl_inspector *in)
{
	return (struct lctl_dir_planning){
		.planner = in->planner,
		.munge = &in->munge,
		.in = { .n = in->nsubvols,
			.names = in->names,
			.weights = in->weights,
			.active = in->active,
			.spread = in->spread },
		.least_move = in->least_move,
	};
}

/* Called for each subdirectory name found. */
struct lctl_inspect_children {
	int (*fn)(void *arg, const char *name);
	void *arg;
};

int lctl_inspect(struct lctl_inspector *in, const char *path, unsigned depth,
		 struct lctl_inspect_children *children, struct lctl_dir_report **out);

/*
 * The longest volume path gfapi can resolve: libglusterfs's inode_path() refuses a path of more
 * than PATH_MAX bytes, so a deeper directory cannot be read, healed or stamped through gfapi.
 * Such a directory is reported unreadable (ENAMETOOLONG), and its parent is never stamped.
 */
#define LCTL_VOL_PATH_MAX PATH_MAX

#endif
