/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layout planners: what GlusterFS would assign (the minimal-movement alternative is minmove.c).
 *
 * All planners take a struct lctl_plan_in (n subvolumes, arrays indexed alike) and write n
 * struct lctl_range indexed the same way. Every output range is either a participating range
 * (start < stop) or 0-0, and the participating ranges tile 0..0xffffffff exactly once.
 *
 * GlusterFS's own assignment (dht-selfheal.c, GlusterFS 10.3), reproduced operation for
 * operation, including its floating point:
 * - dht_layout_sort_volname(): "slots" are the subvolumes sorted by name with strcmp;
 * - dht_selfheal_layout_alloc_start(): the first slot is dm_hash(munged key) % n, where n
 *   counts *all* slots, usable or not, and the key is the directory's path (or its gfid in
 *   canonical form when cluster.randomize-hash-range-by-gfid is on);
 * - dht_get_layout_count(): usable slots are the active ones; bricks_to_use is the spread
 *   count when set and not above the usable count, else the usable count;
 * - dht_selfheal_layout_new_directory(): weighting is used only if every one of the first
 *   bricks_to_use usable slots (in slot order, from slot 0, not from the start slot) has
 *   non-zero chunks; chunk = (double)0xffffffff / total (or / bricks_to_use), each range is
 *   (uint32)(chunk * chunks) wide, consecutive from 0 walking the slots from the start
 *   slot, and the last one used ends at 0xffffffff;
 * - dht_fix_layout_of_directory() + dht_selfheal_layout_maximize_overlap() +
 *   dht_should_fix_layout() for lctl_plan_gluster_fix(): the same new layout, then pairwise
 *   range swaps that increase the overlap with the old layout, computed with the same
 *   32-bit sums (a full 2^32 overlap counts as 0, as in dht_overlap_calc()), and finally
 *   DHT's decision whether to write anything at all.
 *
 * Nothing here keeps state; every function is safe to call from any thread.
 */
#include "layoutctl.h"
#include "internal.h"
#include "planinput.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Common input handling                                                                      */

struct named {
	const char *name;
	size_t idx;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

int lctl_plan_check_input(const struct lctl_plan_in *in, struct lctl_range *out, size_t **slotp,
			  struct lctl_error *err)
{
	struct named *nm;
	size_t *slot, i, nactive = 0;

	*slotp = NULL;
	if (!in || !out)
		return lctl_seterr(err, LCTL_EINVAL, 0, "planner: no input or output");
	if (in->n == 0 || in->n > INT32_MAX || !in->names)
		return lctl_seterr(err, LCTL_EINVAL, 0, "planner: bad subvolume count %zu", in->n);
	for (i = 0; i < in->n; i++) {
		if (!in->names[i])
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "planner: subvolume %zu has no name", i);
		if (in->weights && in->weights[i] > UINT32_MAX)
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "planner: weight of '%s' exceeds DHT's 32-bit chunks",
					   in->names[i]);
		nactive += lctl_plan_is_active(in, i);
	}
	if (!nactive)
		return lctl_seterr(err, LCTL_EINVAL, 0, "planner: no active subvolume");
	nm = malloc(in->n * sizeof(*nm));
	slot = malloc(in->n * sizeof(*slot));
	if (!nm || !slot) {
		free(nm);
		free(slot);
		return lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
	}
	for (i = 0; i < in->n; i++) {
		nm[i].name = in->names[i];
		nm[i].idx = i;
	}
	qsort(nm, in->n, sizeof(*nm), named_cmp);
	for (i = 0; i < in->n; i++) {
		if (i && !strcmp(nm[i - 1].name, nm[i].name)) {
			int ret = lctl_seterr(err, LCTL_EINVAL, 0,
					      "planner: subvolume name '%s' appears twice",
					      nm[i].name);
			free(nm);
			free(slot);
			return ret;
		}
		slot[i] = nm[i].idx;
	}
	free(nm);
	*slotp = slot;
	return 0;
}

uint32_t lctl_du_chunks(uint64_t f_blocks, uint64_t f_bsize)
{
	uint32_t bpc;

	/* dht_du_info_cbk(); DHT would divide by zero for f_bsize 0 or above 1 MiB. */
	if (f_bsize == 0 || f_bsize > (1u << 20))
		return 0;
	bpc = (uint32_t)((1u << 20) / f_bsize);
	return (uint32_t)((f_blocks + bpc - 1) / bpc);
}

/* ------------------------------------------------------------------------------------------ */
/* GlusterFS's assignment                                                                     */

#define ERR_USABLE (-1) /* DHT's "give this one a range" marker */

static bool slot_usable(int e)
{
	return e == ERR_USABLE || e == ENOENT;
}

/*
 * dht_selfheal_layout_new_directory() on slots 0..n-1 (sorted by name). serr[] holds DHT's
 * per-entry err after dht_get_layout_count() (ERR_USABLE, ENOENT, EINVAL, ...). chunks is
 * NULL when weighting is off. Writes start/stop of every slot (0-0 when not assigned).
 */
static void dht_new_directory(size_t n, const int *serr, const uint32_t *chunks, unsigned spread,
			      uint32_t hash, uint32_t *start, uint32_t *stop)
{
	size_t i, real_i, count = 0, bricks_to_use, bricks_used = 0, start_slot;
	bool weight_by_size = chunks != NULL;
	uint64_t total = 0;
	uint32_t pos = 0, curr, range;
	double chunk, v;

	for (i = 0; i < n; i++)
		count += slot_usable(serr[i]);
	bricks_to_use = (spread && spread <= count) ? spread : (count ? count : 1);
	for (i = 0; weight_by_size && i < n; i++) {
		if (!slot_usable(serr[i]))
			continue;
		if (!chunks[i]) {
			weight_by_size = false;
			break;
		}
		total += chunks[i];
		if (++bricks_used >= bricks_to_use)
			break;
	}
	if (weight_by_size && total) {
		chunk = (double)0xffffffffu / (double)total;
	} else {
		weight_by_size = false;
		chunk = (double)0xffffffffu / (double)bricks_to_use;
	}
	start_slot = hash % (uint32_t)n;
	for (i = 0; i < n; i++)
		start[i] = stop[i] = 0;
	bricks_used = 0;
	for (real_i = 0; real_i < n; real_i++) {
		i = (real_i + start_slot) % n;
		if (!slot_usable(serr[i]))
			continue;
		if (weight_by_size) {
			curr = chunks[i];
			if (!curr)
				continue;
		} else {
			curr = 1;
		}
		v = chunk * curr;
		range = v >= 4294967295.0 ? 0xffffffffu : (uint32_t)v;
		start[i] = pos;
		stop[i] = pos + range - 1;
		if (++bricks_used >= bricks_to_use) {
			stop[i] = 0xffffffffu;
			break;
		}
		pos += range;
	}
}

struct gplan {
	size_t n;
	size_t *slot;		/* slot -> subvolume index */
	int *serr;		/* per slot */
	uint32_t *chunks;	/* per slot, or NULL */
	uint32_t *start, *stop; /* per slot */
};

static void gplan_free(struct gplan *g)
{
	free(g->slot);
	free(g->serr);
	free(g->chunks);
	free(g->start);
	free(g->stop);
}

static int gplan_init(struct gplan *g, const struct lctl_plan_in *in, struct lctl_range *out,
		      struct lctl_error *err)
{
	size_t s, n;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = lctl_plan_check_input(in, out, &g->slot, err);
	if (ret)
		return ret;
	n = g->n = in->n;
	g->serr = malloc(n * sizeof(*g->serr));
	g->start = malloc(n * sizeof(*g->start));
	g->stop = malloc(n * sizeof(*g->stop));
	if (in->weights)
		g->chunks = malloc(n * sizeof(*g->chunks));
	if (!g->serr || !g->start || !g->stop || (in->weights && !g->chunks)) {
		gplan_free(g);
		return lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
	}
	for (s = 0; s < n; s++) {
		g->serr[s] = lctl_plan_is_active(in, g->slot[s]) ? ERR_USABLE : EINVAL;
		if (g->chunks)
			g->chunks[s] = (uint32_t)in->weights[g->slot[s]];
	}
	return 0;
}

static void gplan_output(const struct gplan *g, uint32_t commit, struct lctl_range *out)
{
	size_t s;

	for (s = 0; s < g->n; s++) {
		struct lctl_range *r = &out[g->slot[s]];

		r->commit = commit;
		r->type = LCTL_LAYOUT_TYPE_NORMAL;
		r->start = g->start[s];
		r->stop = g->stop[s];
	}
}

static uint32_t key_hash(const struct lctl_munge *m, const char *key)
{
	return lctl_name_hash(m, key);
}

int lctl_plan_gluster(const struct lctl_plan_in *in, const struct lctl_munge *m, const char *key,
		      uint32_t commit, struct lctl_range *out, struct lctl_error *err)
{
	struct gplan g;
	int ret;

	if (!key)
		return lctl_seterr(err, LCTL_EINVAL, 0, "planner: no directory path");
	ret = gplan_init(&g, in, out, err);
	if (ret)
		return ret;
	dht_new_directory(g.n, g.serr, g.chunks, in->spread, key_hash(m, key), g.start, g.stop);
	gplan_output(&g, commit, out);
	gplan_free(&g);
	return 0;
}

/* dht_overlap_calc(), 32-bit arithmetic included. */
static uint32_t overlap_calc(int oerr, uint32_t os, uint32_t oe, int nerr, uint32_t ns, uint32_t ne)
{
	if (oerr > 0 || nerr > 0)
		return 0;
	if (os == oe || ns == ne)
		return 0;
	if (os > ne || oe < ns)
		return 0;
	return (oe < ne ? oe : ne) - (os > ns ? os : ns) + 1;
}

/* dht_selfheal_layout_maximize_overlap(): new and old are both in slot order. */
static int maximize_overlap(size_t n, const int *nerr, uint32_t *ns, uint32_t *ne, const int *oerr,
			    const uint32_t *os, const uint32_t *oe)
{
	uint32_t *t, curr, ov, max_ov, tmp;
	size_t i, j, max_idx;

	if (n > SIZE_MAX / n / sizeof(*t))
		return -LCTL_ENOMEM;
	t = malloc(n * n * sizeof(*t));
	if (!t)
		return -LCTL_ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			t[i * n + j] = overlap_calc(oerr[j], os[j], oe[j], nerr[i], ns[i], ne[i]);
	for (i = 0; i < n; i++) {
		if (nerr[i] > 0)
			continue;
		max_ov = 0;
		max_idx = i;
		for (j = i + 1; j < n; j++) {
			if (nerr[j] > 0)
				continue;
			curr = t[i * n + i] + t[j * n + j];
			ov = t[i * n + j] + t[j * n + i];
			if (ov > curr) {
				ov -= curr;
				if (ov > max_ov) {
					max_ov = ov;
					max_idx = j;
				}
			}
		}
		if (max_idx != i) {
			tmp = ns[i];
			ns[i] = ns[max_idx];
			ns[max_idx] = tmp;
			tmp = ne[i];
			ne[i] = ne[max_idx];
			ne[max_idx] = tmp;
			for (j = 0; j < n; j++) {
				tmp = t[i * n + j];
				t[i * n + j] = t[max_idx * n + j];
				t[max_idx * n + j] = tmp;
			}
		}
	}
	free(t);
	return 0;
}

/* dht_distribution_type(): true for "weighted". */
static bool weighted_distribution(size_t n, const uint32_t *start, const uint32_t *stop,
				  const size_t *order)
{
	uint32_t start_range = 0, range, diff;
	size_t i, k;

	for (i = 0; i < n; i++) {
		k = order ? order[i] : i;
		if (start_range == 0) {
			start_range = stop[k] - start[k];
			continue;
		}
		range = stop[k] - start[k];
		diff = range >= start_range ? range - start_range : start_range - range;
		if (range != 0 && diff > (uint32_t)n)
			return true;
	}
	return false;
}

/* Our entry -> DHT's in-memory err, as in layout.c. */
static int mem_err(int e)
{
	if (e == 0 || e == ENODATA)
		return 0;
	if (e == EINVAL || e == -1)
		return -1;
	return e;
}

int lctl_plan_gluster_fix(const struct lctl_plan_in *in, const struct lctl_munge *m,
			  const char *key, const struct lctl_layout_entry *old, uint32_t commit,
			  struct lctl_range *out, struct lctl_error *err)
{
	struct lctl_layout_report rep;
	uint32_t *os = NULL, *oe = NULL, *dstart = NULL, *dstop = NULL;
	int *oerr = NULL;
	size_t *order = NULL, s, i, n, span = 0, misc = 0, inactive = 0;
	bool maximize = true, keep = false;
	struct gplan g;
	int ret;

	if (!key || !old)
		return lctl_seterr(err, LCTL_EINVAL, 0, "planner: no directory path or old layout");
	ret = gplan_init(&g, in, out, err);
	if (ret)
		return ret;
	n = g.n;
	for (i = 0; i < n; i++) {
		if (old[i].err == ENOTCONN) {
			ret = lctl_seterr(err, LCTL_EDOWN, ENOTCONN,
					  "subvolume '%s' is down: DHT does not fix this layout",
					  in->names[i]);
			goto out;
		}
		if (old[i].err == 0 && old[i].r.type == LCTL_LAYOUT_TYPE_USER)
			keep = true;
	}
	ret = -LCTL_ENOMEM;
	os = malloc(n * sizeof(*os));
	oe = malloc(n * sizeof(*oe));
	oerr = malloc(n * sizeof(*oerr));
	dstart = malloc(n * sizeof(*dstart));
	dstop = malloc(n * sizeof(*dstop));
	order = malloc(n * sizeof(*order));
	if (!os || !oe || !oerr || !dstart || !dstop || !order) {
		lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		int e = mem_err(old[i].err);

		if (e != 0 && e != -1 && e != ENOENT && e != ESTALE && e != ENOSPC)
			misc++;
		if (e == 0 && old[i].err == 0 && old[i].r.start != old[i].r.stop)
			span++;
		inactive += !lctl_plan_is_active(in, i);
	}
	/* a user layout is left alone; an unexpected error makes dht_should_fix_layout() say no */
	if (keep || misc)
		goto keep;

	/* dht_fix_layout_of_directory(): new err = old err (ENOSPC -> -1), then
	 * dht_get_layout_count(): decommissioned -> EINVAL, 0 -> -1. A directory missing on a
	 * subvolume (ENOENT) is -1 as well: DHT fixes a layout only after a lookup of the
	 * directory, which makes it there first (dht_selfheal_dir_mkdir_cbk() sets err -1), so
	 * maximize_overlap() swaps that entry's range too (an err > 0 would be passed over). */
	for (s = 0; s < n; s++) {
		const struct lctl_layout_entry *o = &old[g.slot[s]];
		int e = mem_err(o->err);

		oerr[s] = e;
		os[s] = e == 0 && o->err == 0 ? o->r.start : 0;
		oe[s] = e == 0 && o->err == 0 ? o->r.stop : 0;
		if (e == ENOSPC || e == ENOENT)
			e = ERR_USABLE;
		if (!lctl_plan_is_active(in, g.slot[s]))
			e = EINVAL;
		else if (e == 0)
			e = ERR_USABLE;
		g.serr[s] = e;
	}
	for (s = 0; s < n && !slot_usable(g.serr[s]); s++)
		;
	if (s == n) {
		/* DHT would write 0-0 everywhere, a virgin layout: refuse instead */
		ret = lctl_seterr(err, LCTL_EINVAL, 0, "planner: no usable subvolume for '%s'",
				  key);
		goto out;
	}
	dht_new_directory(n, g.serr, g.chunks, in->spread, key_hash(m, key), g.start, g.stop);
	for (i = 1; in->weights && i < n; i++)
		if (in->weights[i] != in->weights[0])
			maximize = false;
	if (maximize) {
		ret = maximize_overlap(n, g.serr, g.start, g.stop, oerr, os, oe);
		if (ret) {
			lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
			goto out;
		}
	}

	/* The rest of dht_should_fix_layout(), on the on-disk layout. */
	ret = lctl_layout_check(old, n, 0, &rep);
	if (ret) {
		lctl_seterr(err, -ret, 0, "planner: cannot check the old layout");
		goto out;
	}
	if (!rep.holes && !rep.overlaps && !inactive && span == n) {
		/* The on-disk layout in DHT's sorted order, for dht_distribution_type(). */
		for (i = 0; i < n; i++) {
			bool has = old[i].err == 0;

			dstart[i] = has ? old[i].r.start : 0;
			dstop[i] = has ? old[i].r.stop : 0;
		}
		ret = lctl_layout_dht_order(old, n, order);
		if (ret) {
			lctl_seterr(err, LCTL_ENOMEM, ENOMEM, "planner: out of memory");
			goto out;
		}
		if (weighted_distribution(n, g.start, g.stop, NULL) ==
		    weighted_distribution(n, dstart, dstop, order))
			goto keep;
	}
	gplan_output(&g, commit, out);
	ret = 0;
	goto out;
keep:
	for (i = 0; i < n; i++) {
		if (old[i].err == 0) {
			out[i] = old[i].r;
		} else {
			memset(&out[i], 0, sizeof(out[i]));
		}
	}
	ret = LCTL_PLAN_KEEP;
out:
	free(os);
	free(oe);
	free(oerr);
	free(dstart);
	free(dstop);
	free(order);
	gplan_free(&g);
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Moved fraction                                                                             */

static bool covers(const struct lctl_range *r, uint64_t h)
{
	if (r->start > r->stop || (r->start == 0 && r->stop == 0))
		return false;
	return r->start <= h && h <= r->stop;
}

static int first_owner(const struct lctl_range *r, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (covers(&r[i], h))
			return (int)i;
	return -1;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double lctl_layout_moved_fraction(const struct lctl_range *before, const struct lctl_range *after,
				  size_t n)
{
	uint64_t *p, moved = 0;
	size_t np = 0, i;

	if (!n)
		return 0.0;
	if (!before || !after || n > (SIZE_MAX / sizeof(*p) - 2) / 4)
		return -1.0;
	p = malloc((4 * n + 2) * sizeof(*p));
	if (!p)
		return -1.0;
	p[np++] = 0;
	p[np++] = (uint64_t)1 << 32;
	for (i = 0; i < n; i++) {
		p[np++] = before[i].start;
		p[np++] = (uint64_t)before[i].stop + 1;
		p[np++] = after[i].start;
		p[np++] = (uint64_t)after[i].stop + 1;
	}
	qsort(p, np, sizeof(*p), u64_cmp);
	for (i = 0; i + 1 < np; i++) {
		if (p[i] == p[i + 1] || p[i] >= ((uint64_t)1 << 32))
			continue;
		if (first_owner(before, n, p[i]) != first_owner(after, n, p[i]))
			moved += p[i + 1] - p[i];
	}
	free(p);
	return (double)moved / 4294967296.0;
}
