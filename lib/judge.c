/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A directory's report judged, pure (no gfapi, no I/O): the names of its problems and of its
 * entries' states, what a read of a layout xattr means (lctl_note_layout()), the directory's
 * problems from its layout entries (lctl_judge_layout()), and the planner's layout for it
 * (lctl_plan_dir()), from the values it is given (no inspector). inspect.c reads what these
 * judge.
 */
#include "internal.h"
#include "judge.h"
#include "planinput.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const problem_names[LCTL_DIR_PROBLEM_COUNT] = {
	"missing",	    "not-a-directory", "incomplete", "hole",
	"overlap",	    "commit-mixed",    "unstamped",  "decommissioned-range",
	"malformed-layout", "subvolume-down",  "unreadable",
};

const char *lctl_dir_problem_name(unsigned bit)
{
	unsigned i;

	for (i = 0; i < LCTL_DIR_PROBLEM_COUNT; i++)
		if (bit == 1u << i)
			return problem_names[i];
	return NULL;
}

static const char *const state_names[LCTL_ENTRY_STATE_COUNT] = {
	[LCTL_ENTRY_PLACED] = "placed",
	[LCTL_ENTRY_LINKED] = "linked",
	[LCTL_ENTRY_MISPLACED] = "misplaced",
	[LCTL_ENTRY_STALE_LINKTO] = "stale-linkto",
	[LCTL_ENTRY_ORPHAN_LINKTO] = "orphan-linkto",
	[LCTL_ENTRY_DUPLICATE] = "duplicate",
	[LCTL_ENTRY_MIGRATION_LEFTOVER] = "migration-leftover",
	[LCTL_ENTRY_UNHASHED] = "unhashed",
};

const char *lctl_entry_state_name(int state)
{
	if (state < 0 || state >= LCTL_ENTRY_STATE_COUNT)
		return NULL;
	return state_names[state];
}

bool lctl_entry_state_ok(int state)
{
	return state == LCTL_ENTRY_PLACED || state == LCTL_ENTRY_LINKED;
}

bool lctl_dir_report_clean(const struct lctl_dir_report *r)
{
	int s;

	if (r->problems || r->err)
		return false;
	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		if (!lctl_entry_state_ok(s) && r->count[s])
			return false;
	return true;
}

void lctl_dir_report_drop_entries(struct lctl_dir_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nentries; i++)
		free(r->entries[i].name);
	free(r->entries);
	r->entries = NULL;
	r->nentries = 0;
}

void lctl_dir_report_free(struct lctl_dir_report *r)
{
	if (!r)
		return;
	lctl_dir_report_drop_entries(r);
	free(r->layout);
	free(r->planned);
	free(r->subvol_files);
	free(r->subvol_bytes);
	free(r->move_files);
	free(r->move_bytes);
	free(r->path);
	free(r);
}

void lctl_note_layout(struct lctl_layout_entry *le, unsigned *problems, const void *buf, ssize_t n,
		      int e)
{
	if (n < 0) {
		/* a failure without an errno (gfapi's getxattr on a brick that died) is not a read */
		memset(&le->r, 0, sizeof(le->r));
		le->err = e ? e : EIO;
		if (le->err == ENOTCONN)
			*problems |= LCTL_DIR_SUBVOL_DOWN;
		else if (le->err != ENODATA)
			*problems |= LCTL_DIR_UNREADABLE;
	} else if (lctl_layout_decode(buf, (size_t)n, &le->r)) {
		le->err = EINVAL;
		*problems |= LCTL_DIR_MALFORMED;
	}
}

static bool entry_ranged(const struct lctl_layout_entry *le)
{
	return le->err == 0 && !(le->r.start == 0 && le->r.stop == 0);
}

/*
 * A complete spread layout (see lctl_judge_layout()): the commit state of its ranged entries
 * and of the 0-0 ones with a commit word other than DHT's 0, into @lr.
 */
static int spread_commit(const struct lctl_dir_report *r, uint32_t vol_commit,
			 struct lctl_layout_report *lr)
{
	struct lctl_layout_entry *e = malloc(r->nsubvols * sizeof(*e));
	size_t i;
	int ret;

	if (!e)
		return -LCTL_ENOMEM;
	for (i = 0; i < r->nsubvols; i++) {
		e[i] = r->layout[i];
		if (e[i].err == 0 && !entry_ranged(&e[i]) && e[i].r.commit == 0)
			e[i].err = ENODATA; /* left out of the commit words */
	}
	ret = lctl_layout_check(e, r->nsubvols, vol_commit, lr);
	free(e);
	return ret;
}

int lctl_judge_layout(struct lctl_dir_report *r, const struct lctl_subvol *subvols,
		      uint32_t vol_commit, unsigned spread)
{
	struct lctl_layout_report lr, slr;
	size_t i, taking = 0, ranged = 0, want;
	bool spread_complete;
	int ret;

	/* how many subvolumes take part, how many of them have a range, how many should */
	for (i = 0; i < r->nsubvols; i++) {
		if (subvols[i].decommissioned || subvols[i].leaving)
			continue;
		taking++;
		ranged += entry_ranged(&r->layout[i]);
	}
	want = spread && spread < taking ? spread : taking;
	spread_complete = want < taking && ranged == want;
	for (i = 0; i < r->nsubvols; i++) {
		const struct lctl_subvol *sv = &subvols[i];
		const struct lctl_layout_entry *le = &r->layout[i];
		bool has_range = entry_ranged(le);

		if (le->err == 0 && le->r.type == LCTL_LAYOUT_TYPE_USER)
			r->notes |= LCTL_DIR_NOTE_USER_LAYOUT;
		if ((sv->decommissioned || sv->leaving) && has_range)
			r->problems |= LCTL_DIR_DECOMMISSIONED;
		if (!sv->decommissioned && !sv->leaving && sv->up && !has_range &&
		    (le->err == 0 || le->err == ENODATA) && !spread_complete)
			r->problems |= LCTL_DIR_INCOMPLETE;
	}
	ret = lctl_layout_check(r->layout, r->nsubvols, vol_commit, &lr);
	if (ret)
		return ret; /* nothing judged: never taken for clean */
	if (spread_complete) {
		ret = spread_commit(r, vol_commit, &slr);
		if (ret)
			return ret;
		lr.commit_state = slr.commit_state;
		lr.commit = slr.commit;
	}
	if (lr.holes)
		r->problems |= LCTL_DIR_HOLE;
	if (lr.overlaps)
		r->problems |= LCTL_DIR_OVERLAP;
	switch (lr.commit_state) {
	case LCTL_COMMIT_CLEAN:
	case LCTL_COMMIT_NONE: /* no layout anywhere: reported as missing or incomplete */
		break;
	case LCTL_COMMIT_MIXED:
		r->problems |= LCTL_DIR_COMMIT_MIXED;
		break;
	default:
		r->problems |= LCTL_DIR_UNSTAMPED;
		break;
	}
	r->commit = lr.commit;
	return 0;
}

/*
 * The min-move planner knows no spread: with cluster.subvols-per-directory below the number
 * of active subvolumes it plans over @want of them, into @part[n]: the ones with the largest
 * current ranges first (so the least moves), then the ones GlusterFS would give this new
 * directory a range on. 0, or a planner error.
 */
static int spread_participants(const struct lctl_dir_planning *p, const char *path,
			       const struct lctl_layout_entry *current, size_t want, bool *part)
{
	const struct lctl_plan_in *pi = &p->in;
	struct lctl_range *g = calloc(pi->n, sizeof(*g));
	size_t i, k, chosen = 0;
	int ret;

	if (!g)
		return -LCTL_ENOMEM;
	memset(part, 0, pi->n * sizeof(*part));
	while (chosen < want) {
		uint64_t best_size = 0;
		size_t best = pi->n;

		for (i = 0; i < pi->n; i++) {
			uint64_t size;

			if (!lctl_plan_is_active(pi, i) || part[i] || !current || current[i].err ||
			    current[i].r.start >= current[i].r.stop)
				continue;
			size = (uint64_t)current[i].r.stop - current[i].r.start;
			if (best == pi->n || size > best_size) {
				best = i;
				best_size = size;
			}
		}
		if (best == pi->n)
			break;
		part[best] = true;
		chosen++;
	}
	ret = chosen < want ? lctl_plan_gluster(pi, p->munge, path, 0, g, NULL) : 0;
	/* GlusterFS's choice, in the order of its ranges */
	while (!ret && chosen < want) {
		for (i = 0, k = pi->n; i < pi->n; i++)
			if (lctl_plan_is_active(pi, i) && !part[i] && g[i].start < g[i].stop &&
			    (k == pi->n || g[i].start < g[k].start))
				k = i;
		for (i = 0; k == pi->n && i < pi->n; i++)
			if (lctl_plan_is_active(pi, i) && !part[i])
				k = i;
		if (k == pi->n)
			break;
		part[k] = true;
		chosen++;
	}
	free(g);
	return ret;
}

int lctl_plan_dir(const struct lctl_dir_planning *p, const char *path,
		  const struct lctl_layout_entry *current, struct lctl_range *planned)
{
	struct lctl_plan_in pi = p->in;
	bool *part = NULL;
	size_t i, nactive = 0;
	int ret;

	/* the ranges are written dirty (commit 1); the stamp comes after the files are placed */
	if (p->planner == LCTL_PLANNER_MINMOVE || p->planner == LCTL_PLANNER_EVEN_USAGE) {
		static const struct lctl_minmove_opts least = { .move_slack = -1,
								.max_imbalance = 0.9 };

		for (i = 0; i < pi.n; i++)
			nactive += lctl_plan_is_active(&pi, i);
		if (pi.spread && pi.spread < nactive) {
			part = calloc(pi.n, sizeof(*part));
			if (!part)
				return -LCTL_ENOMEM;
			ret = spread_participants(p, path, current, pi.spread, part);
			if (ret) {
				free(part);
				return ret;
			}
			pi.active = part;
		}
		ret = lctl_plan_minmove(&pi, current, p->least_move ? &least : NULL,
					LCTL_COMMIT_INVALID, planned, NULL, NULL);
		free(part);
	} else {
		ret = lctl_plan_gluster_fix(&pi, p->munge, path, current, LCTL_COMMIT_INVALID,
					    planned, NULL);
		if (ret == LCTL_PLAN_KEEP)
			ret = 0;
	}
	return ret < 0 ? ret : 0;
}

double lctl_plan_moved_fraction(const struct lctl_layout_entry *current,
				const struct lctl_range *planned, size_t n)
{
	struct lctl_range *before = calloc(n, sizeof(*before));
	double f;
	size_t i;

	if (!before)
		return 0.0;
	for (i = 0; i < n; i++)
		if (current[i].err == 0)
			before[i] = current[i].r;
	f = lctl_layout_moved_fraction(before, planned, n);
	free(before);
	return f;
}
