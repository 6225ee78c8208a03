/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The minimal-movement layout planner (GlusterFS's own assignment is plan.c's).
 *
 * lctl_plan_minmove(). DHT needs one contiguous range per subvolume, so a new subvolume
 * can only take hash space from (at most) its two neighbours; giving every subvolume
 * exactly its share then forces a cascade of boundary shifts whose cost grows with the
 * square of the chain length (adding 1 subvolume to 16 moves ~26% of the space instead of
 * the 5.9% that has to move). Balance and movement have to be traded, so the planner:
 * - keeps the current ranges of the active subvolumes in their current order, and inserts
 *   the subvolumes that have no range into the gaps of that order;
 * - for a given order and a tolerance t (every share within [1-t, 1+t] x its target),
 *   finds the boundaries that keep the most of each current range exactly, as a convex
 *   chain problem solved with the "slope trick" (two heaps of breakpoints, O(M log M)):
 *   the data lost by a subvolume is (stop_old - b_right)+ + (b_left - start_old)+, which is
 *   convex and separable in the boundaries, and the size bounds are differences of
 *   consecutive boundaries (a sliding-window minimum, i.e. a shift of the two heaps);
 * - improves the insertion points by local search (move one new subvolume to another gap
 *   while that lowers the moved space), within a fixed work budget;
 * - searches the smallest t for which the moved space stays within (1 + move_slack) x the
 *   minimum any exactly balanced layout must move, capped by max_imbalance: order search
 *   at t = 0 and at the cap, bisection on t with the cap's order, a final order search at
 *   the t found. Adding k to n balanced subvolumes then moves 1.1 x k/(n+k) at 10-20%
 *   imbalance (n <= 16).
 *
 * Nothing here keeps state; every function is safe to call from any thread.
 */
#include "layoutctl.h"
#include "internal.h"
#include "planinput.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HASH_SPACE ((int64_t)1 << 32)

/* ------------------------------------------------------------------------------------------ */
/* Minimal-movement planner                                                                   */

/*
 * A binary heap of breakpoints with multiplicities and a lazy offset added to every value.
 * sign +1 makes it a max-heap, -1 a min-heap (keys stored negated).
 */
struct hnode {
	int64_t key;
	int64_t count;
};

struct heap {
	struct hnode *v;
	size_t n;
	int64_t add;
	int sign;
};

static void heap_push(struct heap *h, int64_t x, int64_t count)
{
	size_t i = h->n++;
	int64_t k = h->sign * (x - h->add);

	while (i) {
		size_t p = (i - 1) / 2;

		if (h->v[p].key >= k)
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i].key = k;
	h->v[i].count = count;
}

static int64_t heap_top(const struct heap *h)
{
	return h->sign * h->v[0].key + h->add;
}

/* Remove one unit of the top breakpoint and return its value. */
static int64_t heap_pop(struct heap *h)
{
	int64_t top = heap_top(h);
	struct hnode last;
	size_t i = 0, c;

	if (h->v[0].count > 1) {
		h->v[0].count--;
		return top;
	}
	last = h->v[--h->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].key > h->v[c].key)
			c++;
		if (h->v[c].key <= last.key)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

struct item {
	int64_t target, lo, hi; /* share and its bounds for the current tolerance */
	int64_t as, ae;		/* anchor [as, ae), or -1 -1 */
	size_t idx;		/* subvolume index */
};

struct mm {
	size_t m;	    /* active subvolumes */
	size_t nold, nnew;  /* items with / without an anchor */
	struct item *old;   /* [nold] by anchor start */
	struct item *fresh; /* [nnew] by name */
	struct item **seq;  /* [m] the order being evaluated */
	size_t *gap;	    /* [nnew] scratch: fresh item q goes right before old[gap[q]] */
	size_t *best_gap;   /* [nnew] best gaps of the last order search */
	size_t *sol_gap;    /* [nnew] the solution kept */
	int64_t *b;	    /* [m + 1] boundaries of the last evaluation */
	int64_t *best_b;    /* [m + 1] boundaries for best_gap */
	int64_t *sol_b;	    /* [m + 1] boundaries of the solution kept */
	int64_t *opt;	    /* [m] argmin of each partial cost function */
	struct heap lh, rh; /* slope trick: breakpoints left and right of the minimum */
	int64_t evals_left; /* work budget */
};

static void mm_bounds(struct mm *s, double t)
{
	size_t i;

	for (i = 0; i < s->m; i++) {
		struct item *x = i < s->nold ? &s->old[i] : &s->fresh[i - s->nold];
		double tt = (double)x->target, flo = tt * (1.0 - t);
		/* ceil / floor of positive values without libm */
		int64_t lo = (int64_t)flo + ((double)(int64_t)flo < flo),
			hi = (int64_t)(tt * (1.0 + t));

		if (lo > x->target)
			lo = x->target;
		if (hi < x->target)
			hi = x->target;
		if (lo < 2)
			lo = 2;
		if (hi < lo)
			hi = lo;
		x->lo = lo;
		x->hi = hi;
	}
}

/* seq[] from gap[]: before each old item, the fresh items of that gap in name order. */
static void mm_sequence(struct mm *s, const size_t *gap)
{
	size_t g, q, k = 0;

	for (g = 0; g <= s->nold; g++) {
		for (q = 0; q < s->nnew; q++)
			if (gap[q] == g)
				s->seq[k++] = &s->fresh[q];
		if (g < s->nold)
			s->seq[k++] = &s->old[g];
	}
}

/* f += (a - x)+ */
static void add_right_penalty(struct mm *s, int64_t a)
{
	heap_push(&s->rh, a, 1);
	heap_push(&s->lh, heap_pop(&s->rh), 1);
}

/* f += (x - a)+ */
static void add_left_penalty(struct mm *s, int64_t a)
{
	heap_push(&s->lh, a, 1);
	heap_push(&s->rh, heap_pop(&s->lh), 1);
}

/*
 * Boundaries for the order in seq[]: b[0] = 0, b[m] = 2^32, lo <= b[j] - b[j-1] <= hi, and the
 * sum over anchored items of (ae - b[j])+ + (b[j-1] - as)+ minimal. F_j(x), the least cost of
 * the first j items with b[j] = x, is convex piecewise linear; F_j = penalties at x + the
 * minimum of F_{j-1} over [x - hi, x - lo], which in slope-trick form shifts the left
 * breakpoints by lo and the right ones by hi. Backwards, b[j] is the minimiser of F_j clamped
 * into the window the next boundary allows. Returns the hash space that changes owner.
 */
static int64_t mm_solve(struct mm *s)
{
	size_t j, m = s->m;
	int64_t kept = 0, lo, hi, wall = 2 * (int64_t)m + 2;

	/* F_0 is 0 at 0 and "infinite" elsewhere: a wall steeper than all penalties together. */
	s->lh.n = s->rh.n = 0;
	s->lh.add = s->rh.add = 0;
	heap_push(&s->lh, 0, wall);
	heap_push(&s->rh, 0, wall);
	for (j = 1; j < m; j++) {
		const struct item *x = s->seq[j - 1], *y = s->seq[j];

		s->lh.add += x->lo;
		s->rh.add += x->hi;
		if (x->as >= 0)
			add_right_penalty(s, x->ae);
		if (y->as >= 0)
			add_left_penalty(s, y->as);
		s->opt[j] = heap_top(&s->lh);
	}
	s->b[0] = 0;
	s->b[m] = HASH_SPACE;
	for (j = m - 1; j >= 1; j--) {
		lo = s->b[j + 1] - s->seq[j]->hi;
		hi = s->b[j + 1] - s->seq[j]->lo;
		s->b[j] = s->opt[j] < lo ? lo : (s->opt[j] > hi ? hi : s->opt[j]);
	}
	for (j = 0; j < m; j++) {
		const struct item *x = s->seq[j];
		int64_t a, z;

		if (x->as < 0)
			continue;
		a = x->as > s->b[j] ? x->as : s->b[j];
		z = x->ae < s->b[j + 1] ? x->ae : s->b[j + 1];
		if (z > a)
			kept += z - a;
	}
	s->evals_left--;
	return HASH_SPACE - kept;
}

static int64_t mm_eval(struct mm *s, const size_t *gap)
{
	mm_sequence(s, gap);
	return mm_solve(s);
}

#define GAP_WINDOW 16

/*
 * Local search over the insertion gaps, starting from best_gap: move one fresh item to another
 * gap (within GAP_WINDOW of its current one) while that lowers the moved space. Leaves the
 * best in best_gap / best_b and returns its moved space.
 */
static int64_t mm_order_search(struct mm *s)
{
	int64_t best = mm_eval(s, s->best_gap), v;
	size_t q, g, pass, lo, hi, cur;
	bool improved = true;

	memcpy(s->best_b, s->b, (s->m + 1) * sizeof(*s->b));
	memcpy(s->gap, s->best_gap, s->nnew * sizeof(*s->gap));
	for (pass = 0; improved && pass < 4; pass++) {
		improved = false;
		for (q = 0; q < s->nnew; q++) {
			cur = s->best_gap[q];
			lo = cur > GAP_WINDOW ? cur - GAP_WINDOW : 0;
			hi = cur + GAP_WINDOW < s->nold ? cur + GAP_WINDOW : s->nold;
			for (g = lo; g <= hi && s->evals_left > 0; g++) {
				if (g == cur)
					continue;
				s->gap[q] = g;
				v = mm_eval(s, s->gap);
				if (v < best) {
					best = v;
					s->best_gap[q] = g;
					memcpy(s->best_b, s->b, (s->m + 1) * sizeof(*s->b));
					improved = true;
				}
			}
			s->gap[q] = s->best_gap[q];
		}
	}
	return best;
}

static void mm_keep(struct mm *s)
{
	memcpy(s->sol_gap, s->best_gap, s->nnew * sizeof(*s->sol_gap));
	memcpy(s->sol_b, s->best_b, (s->m + 1) * sizeof(*s->sol_b));
}

static int item_anchor_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->as != y->as)
		return x->as < y->as ? -1 : 1;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static int item_name_cmp(const struct item *x, const struct item *y, const char *const *names)
{
	int c = strcmp(names[x->idx], names[y->idx]);

	return c ? c : (x->idx < y->idx ? -1 : (x->idx > y->idx));
}

/* Insertion sort by name: qsort() has no context argument and n is small. */
static void sort_by_name(struct item *v, size_t n, const char *const *names)
{
	size_t i, j;
	struct item t;

	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && item_name_cmp(&t, &v[j - 1], names) < 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

struct frac {
	uint64_t rem;
	size_t k;
};

static int frac_cmp(const void *a, const void *b)
{
	const struct frac *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->k < y->k ? -1 : (x->k > y->k);
}

/* Targets: 2^32 * w / W rounded by largest remainder, at least 2 each. */
static int mm_targets(const struct lctl_plan_in *in, struct item *all, size_t m)
{
	const uint64_t space = (uint64_t)1 << 32;
	bool weighted = in->weights != NULL;
	uint64_t wsum = 0, w, sum = 0;
	struct frac *fr;
	size_t k, big = 0;

	for (k = 0; weighted && k < m; k++)
		if (!in->weights[all[k].idx])
			weighted = false; /* a size is unknown: equal shares, as DHT does */
	for (k = 0; k < m; k++)
		wsum += weighted ? in->weights[all[k].idx] : 1;
	fr = malloc(m * sizeof(*fr));
	if (!fr)
		return -LCTL_ENOMEM;
	for (k = 0; k < m; k++) {
		/* w < 2^32, so (space % wsum) * w < 2^64 */
		w = weighted ? in->weights[all[k].idx] : 1;
		all[k].target = (int64_t)(space / wsum * w + (space % wsum) * w / wsum);
		fr[k].rem = (space % wsum) * w % wsum;
		fr[k].k = k;
		sum += (uint64_t)all[k].target;
	}
	qsort(fr, m, sizeof(*fr), frac_cmp);
	for (k = 0; sum < space; k = (k + 1) % m, sum++)
		all[fr[k].k].target++;
	free(fr);
	for (k = 0; k < m; k++)
		if (all[k].target > all[big].target)
			big = k;
	for (k = 0; k < m; k++) {
		if (all[k].target < 2) {
			all[big].target -= 2 - all[k].target;
			all[k].target = 2;
		}
	}
	return 0;
}

/*
 * First guess for the gaps: fresh items go where current space is free (ranges of removed
 * subvolumes, holes), biggest free gap first; the rest are spread evenly over the order.
 */
static void mm_initial_gaps(struct mm *s)
{
	int64_t *free_sp = s->opt; /* borrowed scratch, m >= nold + 1 when nnew > 0 */
	size_t g, q, bestg;

	for (g = 0; g <= s->nold; g++) {
		int64_t lo = g ? s->old[g - 1].ae : 0, hi = g < s->nold ? s->old[g].as : HASH_SPACE;

		free_sp[g] = hi - lo;
	}
	for (q = 0; q < s->nnew; q++) {
		bestg = 0;
		for (g = 1; g <= s->nold; g++)
			if (free_sp[g] > free_sp[bestg])
				bestg = g;
		if (free_sp[bestg] * 2 >= s->fresh[q].target) {
			s->best_gap[q] = bestg;
			free_sp[bestg] -= s->fresh[q].target;
		} else {
			s->best_gap[q] = s->nold ? (2 * q + 1) * s->nold / (2 * s->nnew) : 0;
		}
	}
}

static void mm_free(struct mm *s)
{
	free(s->old);
	free(s->fresh);
	free(s->seq);
	free(s->gap);
	free(s->best_gap);
	free(s->sol_gap);
	free(s->b);
	free(s->best_b);
	free(s->sol_b);
	free(s->opt);
	free(s->lh.v);
	free(s->rh.v);
}

static int mm_alloc(struct mm *s, size_t m)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->old = calloc(m, sizeof(*s->old));
	s->fresh = calloc(m, sizeof(*s->fresh));
	s->seq = calloc(m, sizeof(*s->seq));
	s->gap = calloc(m, sizeof(*s->gap));
	s->best_gap = calloc(m, sizeof(*s->best_gap));
	s->sol_gap = calloc(m, sizeof(*s->sol_gap));
	s->b = calloc(m + 1, sizeof(*s->b));
	s->best_b = calloc(m + 1, sizeof(*s->best_b));
	s->sol_b = calloc(m + 1, sizeof(*s->sol_b));
	s->opt = calloc(m + 1, sizeof(*s->opt));
	/* each step adds one breakpoint to each side, plus the walls */
	s->lh.v = calloc(2 * m + 2, sizeof(*s->lh.v));
	s->rh.v = calloc(2 * m + 2, sizeof(*s->rh.v));
	s->lh.sign = 1;
	s->rh.sign = -1;
	if (!s->old || !s->fresh || !s->seq || !s->gap || !s->best_gap || !s->sol_gap || !s->b ||
	    !s->best_b || !s->sol_b || !s->opt || !s->lh.v || !s->rh.v) {
		mm_free(s);
		return -LCTL_ENOMEM;
	}
	return 0;
}

/* Work budget of one plan, in item-steps of mm_solve(). */
#define MM_WORK 4000000

/*
 * The items of the active subvolumes of @in into @all, each anchored at its current range
 * [start, stop + 1) (@before: the current ranges, from @cur), in subvolume order.
 */
static void mm_anchors(const struct lctl_plan_in *in, const struct lctl_layout_entry *cur,
		       struct item *all, struct lctl_range *before)
{
	size_t i, k;

	for (i = 0; i < in->n; i++)
		if (cur && cur[i].err == 0)
			before[i] = cur[i].r;
	for (i = 0, k = 0; i < in->n; i++) {
		if (!lctl_plan_is_active(in, i))
			continue;
		all[k].idx = i;
		all[k].as = all[k].ae = -1;
		if (before[i].start < before[i].stop) {
			all[k].as = before[i].start;
			all[k].ae = (int64_t)before[i].stop + 1;
		}
		k++;
	}
}

/*
 * The anchors of @all[@m] made disjoint, in start order; then the anchored items into
 * @s->old, the others into @s->fresh. Return: what any exactly balanced layout must move
 * (each share's shortfall).
 */
static int64_t mm_split(struct mm *s, struct item *all, size_t m)
{
	int64_t lb = 0, v, prev_end = 0;
	size_t k;

	qsort(all, m, sizeof(*all), item_anchor_cmp);
	for (k = 0; k < m; k++) {
		if (all[k].as < 0)
			continue;
		if (all[k].as < prev_end)
			all[k].as = prev_end;
		if (all[k].as >= all[k].ae) {
			all[k].as = all[k].ae = -1;
			continue;
		}
		prev_end = all[k].ae;
	}
	for (k = 0; k < m; k++) {
		if (all[k].as >= 0)
			s->old[s->nold++] = all[k];
		else
			s->fresh[s->nnew++] = all[k];
		v = all[k].as >= 0 ? all[k].ae - all[k].as : 0;
		if (all[k].target > v)
			lb += all[k].target - v;
	}
	return lb;
}

/*
 * The tolerance of the plan, its order and boundaries kept in @s (sol_gap, sol_b): @o's
 * max_imbalance when move_slack is negative, else the smallest whose least movement fits
 * (1 + move_slack) x @lb.
 */
static double mm_tolerance(struct mm *s, const struct lctl_minmove_opts *o, int64_t lb)
{
	size_t m = s->m;
	int64_t budget, moved;
	double tlo, thi, tmid, t_sol;
	int it;

	if (o->move_slack < 0) {
		/* Fixed tolerance: the least movement within it. */
		t_sol = o->max_imbalance;
		mm_bounds(s, t_sol);
		mm_order_search(s);
		mm_keep(s);
		return t_sol;
	}
	/*
	 * The smallest tolerance whose least movement fits the budget: search the order
	 * at t = 0 and at the cap, bisect t with the order found at the cap, then polish
	 * the order at the tolerance found (which can only lower the movement).
	 */
	budget = (int64_t)((1.0 + o->move_slack) * (double)lb);
	if (budget < lb + (int64_t)m)
		budget = lb + (int64_t)m;
	t_sol = 0.0;
	mm_bounds(s, t_sol);
	moved = mm_order_search(s);
	mm_keep(s);
	if (moved > budget && o->max_imbalance > 0.0) {
		t_sol = thi = o->max_imbalance;
		mm_bounds(s, thi);
		moved = mm_order_search(s);
		mm_keep(s);
		tlo = 0.0;
		for (it = 0; moved <= budget && it < 20; it++) {
			tmid = (tlo + thi) / 2;
			mm_bounds(s, tmid);
			if (mm_eval(s, s->sol_gap) <= budget) {
				t_sol = thi = tmid;
				memcpy(s->sol_b, s->b, (m + 1) * sizeof(*s->sol_b));
			} else {
				tlo = tmid;
			}
		}
		if (moved <= budget && t_sol < o->max_imbalance) {
			mm_bounds(s, t_sol);
			memcpy(s->best_gap, s->sol_gap, s->nnew * sizeof(*s->best_gap));
			if (mm_order_search(s) <= budget)
				mm_keep(s);
		}
	}
	return t_sol;
}

/* The plan kept in @s at tolerance @t_sol into @out[@in->n], and what it costs into @stats. */
static void mm_output(struct mm *s, const struct lctl_plan_in *in, double t_sol, uint32_t commit,
		      const struct lctl_range *before, int64_t lb, struct lctl_range *out,
		      struct lctl_plan_stats *stats)
{
	size_t i, k, m = s->m;

	mm_bounds(s, t_sol);
	mm_sequence(s, s->sol_gap);
	for (i = 0; i < in->n; i++) {
		out[i].commit = commit;
		out[i].type = LCTL_LAYOUT_TYPE_NORMAL;
		out[i].start = out[i].stop = 0;
	}
	for (k = 0; k < m; k++) {
		struct lctl_range *r = &out[s->seq[k]->idx];

		r->start = (uint32_t)s->sol_b[k];
		r->stop = (uint32_t)(s->sol_b[k + 1] - 1);
	}
	if (stats) {
		stats->moved = lctl_layout_moved_fraction(before, out, in->n);
		stats->min_moved = (double)lb / 4294967296.0;
		stats->imbalance = 0.0;
		for (k = 0; k < m; k++) {
			const struct item *x = s->seq[k];
			int64_t d = s->sol_b[k + 1] - s->sol_b[k] - x->target;
			double rel = (double)(d < 0 ? -d : d) / (double)x->target;

			if (rel > stats->imbalance)
				stats->imbalance = rel;
		}
	}
}

int lctl_plan_minmove(const struct lctl_plan_in *in, const struct lctl_layout_entry *cur,
		      const struct lctl_minmove_opts *opts, uint32_t commit, struct lctl_range *out,
		      struct lctl_plan_stats *stats, struct lctl_error *err)
{
	struct lctl_minmove_opts o = { LCTL_MINMOVE_SLACK_DEFAULT, LCTL_MINMOVE_IMBALANCE_DEFAULT };
	struct lctl_range *before = NULL;
	struct item *all = NULL;
	size_t *slot = NULL, i, m = 0;
	int64_t lb;
	double t_sol;
	struct mm s;
	int ret;

	if (opts)
		o = *opts;
	/* (the comparisons are written so that NaN fails them) */
	if (!(o.max_imbalance >= 0.0 && o.max_imbalance <= 0.9) ||
	    !(o.move_slack < 0.0 || o.move_slack >= 0.0))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "planner: max_imbalance must be between 0 and 0.9");
	ret = lctl_plan_check_input(in, out, &slot, err);
	if (ret)
		return ret;
	free(slot);
	for (i = 0; i < in->n; i++)
		m += lctl_plan_is_active(in, i);
	all = calloc(m, sizeof(*all));
	before = calloc(in->n, sizeof(*before));
	if (!all || !before || mm_alloc(&s, m)) {
		free(all);
		free(before);
		return lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
	}

	/* Anchors: the current ranges [start, stop + 1) of active subvolumes, made disjoint. */
	mm_anchors(in, cur, all, before);
	if (mm_targets(in, all, m)) {
		ret = lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
		goto out;
	}
	lb = mm_split(&s, all, m);
	sort_by_name(s.fresh, s.nnew, in->names);
	mm_initial_gaps(&s);
	s.evals_left = MM_WORK / (int64_t)(m + 1) + 64;
	t_sol = mm_tolerance(&s, &o, lb);
	mm_output(&s, in, t_sol, commit, before, lb, out, stats);
	ret = 0;
out:
	free(all);
	free(before);
	mm_free(&s);
	return ret;
}

/*
 * The even-usage planner's shares (issue 26). DHT sets a layout per directory, but the fill
 * is the volume's: a brick at 91 % beside one at 7 % stays so under any share by size
 * (cluster.weighted-rebalance). The data the layouts place is the volume's own (@movable),
 * spread anew over the active subvolumes; the rest of what each one uses (other data on its
 * filesystem, and whatever a leaving subvolume does not take along) stays. The level f is the
 * one fill every subvolume can reach: sum over active i of max(0, f * size_i - fixed_i) = D,
 * D the volume's bytes; a subvolume already above f by its fixed part alone gets (almost)
 * nothing. f is found by bisection (monotone, piecewise linear); the shares are the targets.
 */
#define USAGE_WEIGHT_SCALE 2147483648.0 /* the weights' sum, at most: DHT's are 32-bit */

static double usage_need(size_t n, const bool *active, const struct lctl_usage *u,
			 const double *fixed, double f)
{
	double need = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if ((!active || active[i]) && f * (double)u[i].size > fixed[i])
			need += f * (double)u[i].size - fixed[i];
	return need;
}

int lctl_plan_usage_weights(size_t n, const bool *active, const struct lctl_usage *u,
			    uint64_t *weights, struct lctl_error *err)
{
	double *fixed, d = 0, size = 0, lo = 0, hi = 1, sum = 0;
	size_t i, nactive = 0;
	int it;

	if (!n || !u || !weights)
		return lctl_seterr(err, LCTL_EINVAL, 0, "no subvolumes");
	for (i = 0; i < n; i++) {
		if (active && !active[i])
			continue;
		if (!u[i].size)
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "the size of subvolume %zu is unknown", i);
		nactive++;
	}
	if (!nactive)
		return lctl_seterr(err, LCTL_EINVAL, 0, "no active subvolume");
	fixed = calloc(n, sizeof(*fixed));
	if (!fixed)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	for (i = 0; i < n; i++) {
		uint64_t used = u[i].size > u[i].free ? u[i].size - u[i].free : 0;
		uint64_t mv = u[i].movable < used ? u[i].movable : used;

		/* every subvolume's share of the volume moves: a leaving one's too */
		d += (double)mv;
		if (active && !active[i])
			continue;
		fixed[i] = (double)(used - mv);
		size += (double)u[i].size;
	}
	/* a (nearly) empty volume: new files to come, spread so that the fill evens out */
	if (d < size / 100)
		d = size / 100;
	while (usage_need(n, active, u, fixed, hi) < d && hi < 1e6)
		hi *= 2;
	for (it = 0; it < 200 && hi - lo > 1e-12; it++) {
		double mid = (lo + hi) / 2;

		if (usage_need(n, active, u, fixed, mid) < d)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < n; i++) {
		double t = (!active || active[i]) ? hi * (double)u[i].size - fixed[i] : 0;

		fixed[i] = t > 0 ? t : 0; /* now the target */
		sum += fixed[i];
	}
	for (i = 0; i < n; i++) {
		if (active && !active[i]) {
			weights[i] = 0;
			continue;
		}
		/* at least 1: a zero weight would mean "unknown", equal shares for all */
		weights[i] = 1 + (uint64_t)(fixed[i] / sum * (USAGE_WEIGHT_SCALE - (double)n));
	}
	free(fixed);
	return 0;
}
