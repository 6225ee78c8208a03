/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A directory's report judged and its layout planned (lib/judge.c): pure, no gfapi, no I/O;
 * it knows no inspector, only the values it is given. inspect.c reads what these judge.
 * Internal to lib/.
 */
#ifndef LCTL_JUDGE_H
#define LCTL_JUDGE_H

#include "layoutctl.h"

#include <stdbool.h>
#include <sys/types.h>

/*
 * What a directory is planned with: the planner, the volume's munge, its subvolumes (names,
 * weights, the active ones, cluster.subvols-per-directory as @in.spread) and, for a drain,
 * the least movement (min-move: only the leaving subvolumes' ranges change owner). All
 * borrowed. inspect.c fills it from its inspector (lctl_inspector_planning()).
 */
struct lctl_dir_planning {
	enum lctl_planner planner;
	const struct lctl_munge *munge;
	struct lctl_plan_in in;
	bool least_move;
};

/*
 * Give back @r's entries (their names and the array), keeping its counts, layouts and plan:
 * what a report that has served its placing is still read for (struct lctl_repair_report.plan).
 * A huge directory's fix then holds one listing's entries at a time, not two.
 */
void lctl_dir_report_drop_entries(struct lctl_dir_report *r);

/* The planner's layout for @path over @p's active subvolumes, into planned[p->in.n]. Pure. */
int lctl_plan_dir(const struct lctl_dir_planning *p, const char *path,
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

#endif
