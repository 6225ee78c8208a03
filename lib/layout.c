/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory layouts: the on-disk codecs and the checks DHT runs on a merged layout.
 *
 * A directory's layout is one struct lctl_layout_entry per subvolume, as read from that
 * subvolume. To answer questions the way DHT does, each entry is first turned into what
 * dht_layout_merge() (dht-layout.c, GlusterFS 10.3) would keep in memory for it:
 *
 *   our entry                  DHT in memory              anomaly bucket in DHT
 *   err 0 (xattr decoded)      err 0, start/stop/commit   range walk (skipped if start == stop)
 *   ENODATA (no xattr)         err 0, 0-0, commit 0       skipped like any 0-0 entry
 *   EINVAL / -1 (malformed)    err -1, 0-0                "missing"
 *   ENOENT, ESTALE             err, 0-0                   "missing"
 *   ENOTCONN                   err, 0-0                   "down"
 *   anything else              err, 0-0                   "misc" (ENOSPC: "no_space")
 *
 * DHT sorts that list with qsort() and dht_layout_entry_cmp(), a comparator that is not a
 * consistent order (a 0-0 entry compares "equal" to any entry starting at 0 one way round and
 * "less" the other way, and entries like 5-0 are worse). The result therefore depends on the
 * sort algorithm, which is glibc's stable top-down merge sort (msort.c). dht_order() replays
 * that merge sort comparison for comparison, so that for any input, garbage included, we get
 * the order DHT gets when the replies arrive in array order. For sane layouts the order is
 * simply: 0-0 and error entries first in array order, then the others by start, stably.
 *
 * lctl_layout_check() then runs dht_layout_anomalies() over that order, quirks included:
 * the wrap check compares against list[0].start - 1, and "prev_stop + 1" is 32-bit, so an
 * entry following one that ends at 0xffffffff is counted as a hole, not as an overlap. The
 * hole/overlap *sizes* are not DHT's (DHT does not report them): they are exact measures over
 * the participating ranges (err 0, start != stop; an inverted range start > stop covers
 * nothing).
 *
 * Nothing here keeps state; everything is safe to call from any thread.
 */
#include "layoutctl.h"
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ */
/* Codecs                                                                                     */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

int lctl_layout_decode(const void *buf, size_t len, struct lctl_range *out)
{
	const unsigned char *p = buf;
	uint32_t type;

	if (!p || !out || len != LCTL_LAYOUT_XATTR_LEN)
		return -LCTL_EINVAL;
	type = be32(p + 4);
	if (type != LCTL_LAYOUT_TYPE_NORMAL && type != LCTL_LAYOUT_TYPE_USER)
		return -LCTL_EINVAL;
	out->commit = be32(p);
	out->type = type;
	out->start = be32(p + 8);
	out->stop = be32(p + 12);
	return 0;
}

void lctl_layout_encode(const struct lctl_range *r, unsigned char out[LCTL_LAYOUT_XATTR_LEN])
{
	put_be32(out, r->commit);
	put_be32(out + 4, r->type);
	put_be32(out + 8, r->start);
	put_be32(out + 12, r->stop);
}

int lctl_commithash_decode(const void *buf, size_t len, uint32_t *out)
{
	const unsigned char *p = buf;
	uint64_t v = 0;
	size_t i;

	if (!p || !out)
		return -LCTL_EINVAL;
	if (len && p[len - 1] == '\0')
		len--;
	/* No sign, no blanks, no leading zero (DHT's strtoul(..., 0) would read octal). */
	if (len == 0 || len > 10 || (len > 1 && p[0] == '0'))
		return -LCTL_EINVAL;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -LCTL_EINVAL;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	if (v > UINT32_MAX)
		return -LCTL_EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int lctl_commithash_encode(uint32_t hash, char *buf, size_t bufsz)
{
	char tmp[LCTL_COMMITHASH_MAXLEN];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + hash % 10);
		hash /= 10;
	} while (hash);
	if (!buf || bufsz < n + 1)
		return -LCTL_EINVAL;
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return (int)n + 1;
}

uint32_t lctl_commit_hash_new(const struct timespec *now)
{
	struct timespec ts;
	uint64_t usec;
	uint32_t h;

	if (!now) {
		if (clock_gettime(CLOCK_REALTIME, &ts))
			ts.tv_sec = ts.tv_nsec = 0;
		now = &ts;
	}
	usec = (uint64_t)now->tv_nsec / 1000;
	h = (uint32_t)((uint64_t)now->tv_sec << 3);
	h |= 1u << ((usec >> 10) % 3);
	/* glusterd can produce 1 (every 2^29 s); 1 means "never clean", so use the next bit. */
	if (h == LCTL_COMMIT_INVALID)
		h = 2;
	return h;
}

/* ------------------------------------------------------------------------------------------ */
/* DHT's in-memory view of a layout                                                          */

struct mem {
	uint32_t start, stop;
	int err; /* as DHT has it: 0, -1 or an errno */
};

static struct mem mem_of(const struct lctl_layout_entry *e)
{
	struct mem m = { 0, 0, 0 };

	switch (e->err) {
	case 0:
		m.start = e->r.start;
		m.stop = e->r.stop;
		break;
	case ENODATA:
		break;
	case EINVAL:
	case -1:
		m.err = -1;
		break;
	default:
		m.err = e->err;
		break;
	}
	return m;
}

/* dht_layout_entry_cmp() */
static int dht_cmp(const struct mem *x, const struct mem *y)
{
	int64_t diff;

	if (!y->start && !y->stop)
		diff = (int64_t)x->stop - (int64_t)y->stop;
	else
		diff = (int64_t)x->start - (int64_t)y->start;
	return diff == 0 ? 0 : (diff < 0 ? -1 : 1);
}

/* glibc msort_with_tmp() on an index array: split n/2 | rest, merge taking left on <= 0. */
static void msort_idx(size_t *b, size_t n, size_t *tmp, const struct mem *m)
{
	size_t n1, n2, *b1, *b2, *t = tmp;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	b1 = b;
	b2 = b + n1;
	msort_idx(b1, n1, tmp, m);
	msort_idx(b2, n2, tmp, m);
	while (n1 > 0 && n2 > 0) {
		if (dht_cmp(&m[*b1], &m[*b2]) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(t, b1, n1 * sizeof(*t));
	memcpy(b, tmp, (n - n2) * sizeof(*b));
}

/* Fill m[] and order[] (DHT's post-lookup order); tmp has room for n indices. */
static void dht_order(const struct lctl_layout_entry *e, size_t n, struct mem *m, size_t *order,
		      size_t *tmp)
{
	size_t i;

	for (i = 0; i < n; i++) {
		m[i] = mem_of(&e[i]);
		order[i] = i;
	}
	msort_idx(order, n, tmp, m);
}

int lctl_layout_dht_order(const struct lctl_layout_entry *e, size_t n, size_t *order)
{
	struct mem *m;
	size_t *tmp;

	if (n && (!e || !order))
		return -LCTL_EINVAL;
	if (n > SIZE_MAX / sizeof(struct mem))
		return -LCTL_ENOMEM;
	m = malloc(n * sizeof(*m) + 1);
	tmp = malloc(n * sizeof(*tmp) + 1);
	if (!m || !tmp) {
		free(m);
		free(tmp);
		return -LCTL_ENOMEM;
	}
	dht_order(e, n, m, order, tmp);
	free(m);
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Search                                                                                     */

#define SEARCH_STACK 64

/*
 * Without an entry of the form X-0 (X > 0) DHT's comparator behaves like the key
 * (not 0-0, start) and the merge sort is stable, so the first match is: for hash 0, the first
 * 0-0 (or error) entry in array order if any; otherwise the matching entry with the lowest
 * start, ties to the lowest index. No memory needed.
 */
static int search_simple(const struct lctl_layout_entry *e, size_t n, uint32_t hash)
{
	size_t i, best = SIZE_MAX;
	struct mem m, bm = { 0, 0, 0 };

	for (i = 0; i < n; i++) {
		m = mem_of(&e[i]);
		if (hash == 0 && !m.start && !m.stop)
			return e[i].subvol;
		if (m.start <= hash && hash <= m.stop && (best == SIZE_MAX || m.start < bm.start)) {
			best = i;
			bm = m;
		}
	}
	return best == SIZE_MAX ? -1 : e[best].subvol;
}

int lctl_layout_search(const struct lctl_layout_entry *e, size_t n, uint32_t hash)
{
	size_t sorder[SEARCH_STACK], stmp[SEARCH_STACK], *order = sorder, *tmp = stmp, i;
	struct mem sm[SEARCH_STACK], *m = sm;
	int ret = -1;
	bool garbage = false;

	if (!e || !n)
		return -1;
	for (i = 0; i < n && !garbage; i++)
		garbage = e[i].err == 0 && e[i].r.start && !e[i].r.stop;
	if (!garbage)
		return search_simple(e, n, hash);
	if (n > SEARCH_STACK) {
		order = n < SIZE_MAX / sizeof(struct mem) ? malloc(n * sizeof(*order)) : NULL;
		tmp = order ? malloc(n * sizeof(*tmp)) : NULL;
		m = tmp ? malloc(n * sizeof(*m)) : NULL;
		if (!m) {
			/* Out of memory: the simple rule, exact but for these garbage entries. */
			free(order);
			free(tmp);
			return search_simple(e, n, hash);
		}
	}
	dht_order(e, n, m, order, tmp);
	for (i = 0; i < n; i++) {
		const struct mem *x = &m[order[i]];

		if (x->start <= hash && hash <= x->stop) {
			ret = e[order[i]].subvol;
			break;
		}
	}
	if (n > SEARCH_STACK) {
		free(order);
		free(tmp);
		free(m);
	}
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Commit hash                                                                                */

uint32_t lctl_layout_merged_commit(const struct lctl_layout_entry *e, size_t n)
{
	uint32_t c = 0;
	size_t i;

	for (i = 0; e && i < n; i++) {
		if (e[i].err != 0)
			continue;
		if (c == 0)
			c = e[i].r.commit;
		else if (c != e[i].r.commit)
			c = LCTL_COMMIT_INVALID;
	}
	return c;
}

static void commit_state(const struct lctl_layout_entry *e, size_t n, uint32_t vol_commit,
			 struct lctl_layout_report *out)
{
	bool any = false, agree = true, any_invalid = false;
	uint32_t first = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (e[i].err != 0)
			continue;
		if (!any)
			first = e[i].r.commit;
		else if (e[i].r.commit != first)
			agree = false;
		any = true;
		if (e[i].r.commit == LCTL_COMMIT_INVALID)
			any_invalid = true;
	}
	out->commit_agree = any && agree;
	out->commit = out->commit_agree ? first : 0;
	out->merged_commit = lctl_layout_merged_commit(e, n);
	if (!any)
		out->commit_state = LCTL_COMMIT_NONE;
	else if (any_invalid && vol_commit != LCTL_COMMIT_INVALID)
		out->commit_state = LCTL_COMMIT_INVALIDATED;
	else if (!agree)
		out->commit_state = LCTL_COMMIT_MIXED;
	else if (first == vol_commit)
		out->commit_state = LCTL_COMMIT_CLEAN;
	else
		out->commit_state = LCTL_COMMIT_STALE;
}

/* ------------------------------------------------------------------------------------------ */
/* Anomalies                                                                                  */

struct ival {
	uint64_t lo, hi; /* inclusive */
};

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return 0;
}

/* Exact uncovered and multiply-covered sizes of the participating ranges. */
static void coverage(const struct mem *m, size_t n, struct ival *iv, struct lctl_layout_report *out)
{
	uint64_t total = 0, uni = 0, cur_lo = 0, cur_hi = 0;
	size_t i, k = 0;
	bool open = false;

	for (i = 0; i < n; i++) {
		if (m[i].err || m[i].start >= m[i].stop)
			continue;
		iv[k].lo = m[i].start;
		iv[k].hi = m[i].stop;
		total += iv[k].hi - iv[k].lo + 1;
		k++;
	}
	qsort(iv, k, sizeof(*iv), ival_cmp);
	for (i = 0; i < k; i++) {
		if (open && iv[i].lo <= cur_hi + 1) {
			if (iv[i].hi > cur_hi)
				cur_hi = iv[i].hi;
			continue;
		}
		if (open)
			uni += cur_hi - cur_lo + 1;
		cur_lo = iv[i].lo;
		cur_hi = iv[i].hi;
		open = true;
	}
	if (open)
		uni += cur_hi - cur_lo + 1;
	out->hole_size = ((uint64_t)1 << 32) - uni;
	out->overlap_size = total - uni;
}

/* dht_layout_anomalies() over the sorted in-memory list. */
static void dht_anomalies(const struct mem *m, const size_t *order, size_t n,
			  struct lctl_layout_report *out)
{
	uint32_t last_stop, prev_stop;
	bool virgin = true;
	size_t i;

	last_stop = m[order[0]].start - 1;
	prev_stop = last_stop;
	for (i = 0; i < n; i++) {
		const struct mem *x = &m[order[i]];

		if (x->err != 0 || x->start == x->stop)
			continue;
		virgin = false;
		if (prev_stop + 1 < x->start)
			out->holes++;
		if (prev_stop + 1 > x->start)
			out->overlaps++;
		prev_stop = x->stop;
	}
	if ((last_stop - prev_stop) || virgin)
		out->holes++;
	out->virgin = virgin;
}

int lctl_layout_check(const struct lctl_layout_entry *e, size_t n, uint32_t vol_commit,
		      struct lctl_layout_report *out)
{
	struct mem *m = NULL;
	size_t *order = NULL, *tmp = NULL, i;
	struct ival *iv = NULL;
	int ret = -LCTL_ENOMEM;

	if (!out)
		return -LCTL_EINVAL;
	memset(out, 0, sizeof(*out));
	out->commit_state = LCTL_COMMIT_NONE;
	if (n && !e)
		return -LCTL_EINVAL;
	if (n > UINT32_MAX || n > SIZE_MAX / sizeof(struct ival))
		return -LCTL_EINVAL;
	out->nentries = (uint32_t)n;
	if (n == 0) {
		/* DHT never checks an empty layout; call it virgin: one hole, everything. */
		out->holes = 1;
		out->virgin = true;
		out->hole_size = (uint64_t)1 << 32;
		return 0;
	}
	m = malloc(n * sizeof(*m));
	order = malloc(n * sizeof(*order));
	tmp = malloc(n * sizeof(*tmp));
	iv = malloc(n * sizeof(*iv));
	if (!m || !order || !tmp || !iv)
		goto out;

	for (i = 0; i < n; i++) {
		const struct lctl_layout_entry *x = &e[i];

		switch (x->err) {
		case 0:
			if (x->r.type == LCTL_LAYOUT_TYPE_USER)
				out->user_layout = true;
			if (x->r.start == 0 && x->r.stop == 0)
				out->zero++;
			else if (x->r.start >= x->r.stop)
				out->degenerate++;
			else
				out->ranged++;
			break;
		case ENOENT:
		case ESTALE:
			out->missing++;
			break;
		case ENOTCONN:
			out->down++;
			break;
		case ENODATA:
			out->no_xattr++;
			break;
		case EINVAL:
		case -1:
			out->malformed++;
			break;
		default:
			out->other++;
			break;
		}
	}
	dht_order(e, n, m, order, tmp);
	dht_anomalies(m, order, n, out);
	coverage(m, n, iv, out);
	commit_state(e, n, vol_commit, out);
	ret = 0;
out:
	free(m);
	free(order);
	free(tmp);
	free(iv);
	return ret;
}
