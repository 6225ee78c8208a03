/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/layout.c: xattr codecs, commit hashes, the anomaly check and the search.
 *
 * The check and the search are also compared, on random garbage, with a reference written
 * straight from DHT's code path: the in-memory entries sorted with glibc's own qsort() and
 * DHT's comparator, then dht_layout_anomalies()'s walk and dht_layout_search()'s scan.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "layoutctl.h"

#define SPACE ((uint64_t)1 << 32)

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static struct lctl_layout_entry ent(int subvol, uint32_t commit, uint32_t start, uint32_t stop)
{
	struct lctl_layout_entry e = { subvol, 0, { commit, LCTL_LAYOUT_TYPE_NORMAL, 0, 0 } };

	e.r.start = start;
	e.r.stop = stop;

	return e;
}

static struct lctl_layout_entry bad(int subvol, int err)
{
	struct lctl_layout_entry e = { subvol, err, { 0, 0, 0, 0 } };

	return e;
}

/* ------------------------------------------------------------------------------------------ */
/* Codecs                                                                                     */

static void test_layout_codec(void **state)
{
	static const unsigned char root[16] = { 0, 0, 0, 1, 0,	  0,	0,    0,
						0, 0, 0, 0, 0x3f, 0xff, 0xff, 0xfe };
	static const unsigned char reb[16] = { 0x58, 0x7f, 0xc5, 0x42, 0,    0,	   0,	 0,
					       0x7f, 0xff, 0xff, 0xfe, 0xaa, 0xaa, 0xaa, 0xa7 };
	unsigned char buf[16], b2[17];
	struct lctl_range r;
	size_t i;

	(void)state;
	assert_int_equal(lctl_layout_decode(root, 16, &r), 0);
	assert_int_equal(r.commit, 1);
	assert_int_equal(r.type, LCTL_LAYOUT_TYPE_NORMAL);
	assert_int_equal(r.start, 0);
	assert_int_equal(r.stop, 0x3ffffffe);
	assert_int_equal(lctl_layout_decode(reb, 16, &r), 0);
	assert_int_equal(r.commit, 0x587fc542);
	assert_int_equal(r.commit, 1484768578);
	assert_int_equal(r.start, 0x7ffffffe);
	assert_int_equal(r.stop, 0xaaaaaaa7);
	lctl_layout_encode(&r, buf);
	assert_memory_equal(buf, reb, 16);

	/* random round trips, user type included */
	for (i = 0; i < 10000; i++) {
		struct lctl_range a = { (uint32_t)rnd(), (uint32_t)(rnd() & 1), (uint32_t)rnd(),
					(uint32_t)rnd() },
				  b;

		lctl_layout_encode(&a, buf);
		assert_int_equal(lctl_layout_decode(buf, 16, &b), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}

	/* rejects */
	memcpy(b2, reb, 16);
	b2[16] = 0;
	assert_int_equal(lctl_layout_decode(b2, 17, &r), -LCTL_EINVAL);
	assert_int_equal(lctl_layout_decode(reb, 15, &r), -LCTL_EINVAL);
	assert_int_equal(lctl_layout_decode(reb, 0, &r), -LCTL_EINVAL);
	assert_int_equal(lctl_layout_decode(NULL, 16, &r), -LCTL_EINVAL);
	assert_int_equal(lctl_layout_decode(reb, 16, NULL), -LCTL_EINVAL);
	memcpy(b2, reb, 16);
	b2[7] = 2;
	assert_int_equal(lctl_layout_decode(b2, 16, &r), -LCTL_EINVAL);
	b2[7] = 0;
	b2[4] = 1; /* type 0x01000000: the words are big-endian */
	assert_int_equal(lctl_layout_decode(b2, 16, &r), -LCTL_EINVAL);
	b2[4] = 0;
	b2[7] = 1;
	assert_int_equal(lctl_layout_decode(b2, 16, &r), 0);
	assert_int_equal(r.type, LCTL_LAYOUT_TYPE_USER);
}

static void test_commithash_codec(void **state)
{
	char buf[LCTL_COMMITHASH_MAXLEN];
	uint32_t v;
	size_t i;
	static const char *const rejects[] = { "",   "4294967296", "99999999999", "-1",
					       "+1", " 1",	   "1 ",	  "010",
					       "00", "0x10",	   "12a",	  "1.5" };

	(void)state;
	assert_int_equal(lctl_commithash_decode("1484768578", 11, &v), 0); /* with NUL */
	assert_int_equal(v, 0x587fc542);
	assert_int_equal(lctl_commithash_decode("1484768578", 10, &v), 0); /* without */
	assert_int_equal(v, 1484768578);
	assert_int_equal(lctl_commithash_decode("0", 2, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(lctl_commithash_decode("4294967295", 10, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	for (i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		if (lctl_commithash_decode(rejects[i], strlen(rejects[i]), &v) != -LCTL_EINVAL)
			fail_msg("accepted \"%s\"", rejects[i]);
		if (lctl_commithash_decode(rejects[i], strlen(rejects[i]) + 1, &v) != -LCTL_EINVAL)
			fail_msg("accepted \"%s\\0\"", rejects[i]);
	}
	assert_int_equal(lctl_commithash_decode("\0", 1, &v), -LCTL_EINVAL);
	assert_int_equal(lctl_commithash_decode("1\0\0", 3, &v), -LCTL_EINVAL);
	assert_int_equal(lctl_commithash_decode("1\0"
						"2",
						3, &v),
			 -LCTL_EINVAL);
	assert_int_equal(lctl_commithash_decode(NULL, 3, &v), -LCTL_EINVAL);

	assert_int_equal(lctl_commithash_encode(1484768578, buf, sizeof(buf)), 11);
	assert_memory_equal(buf, "1484768578", 11);
	assert_int_equal(lctl_commithash_encode(0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0", 2);
	assert_int_equal(lctl_commithash_encode(UINT32_MAX, buf, sizeof(buf)), 11);
	assert_int_equal(lctl_commithash_encode(UINT32_MAX, buf, 10), -LCTL_EINVAL);
	assert_int_equal(lctl_commithash_encode(7, buf, 1), -LCTL_EINVAL);
	assert_int_equal(lctl_commithash_encode(7, NULL, 0), -LCTL_EINVAL);
	for (i = 0; i < 10000; i++) {
		uint32_t x = (uint32_t)rnd() >> (rnd() % 32);
		int n = lctl_commithash_encode(x, buf, sizeof(buf));

		assert_true(n >= 2);
		assert_int_equal(lctl_commithash_decode(buf, (size_t)n, &v), 0);
		assert_int_equal(v, x);
	}
}

static void test_commit_hash_new(void **state)
{
	struct timespec ts;
	uint32_t h;
	int i;

	(void)state;
	/* gd_set_commit_hash(): (uint32)(sec << 3) | 1 << ((usec >> 10) % 3) */
	ts.tv_sec = 185596072;
	ts.tv_nsec = 0; /* (0 >> 10) % 3 = 0 -> bit 0 */
	assert_int_equal(lctl_commit_hash_new(&ts), (185596072u << 3) | 1);
	ts.tv_nsec = 1024 * 1000; /* usec 1024 -> 1 % 3 -> bit 1 */
	assert_int_equal(lctl_commit_hash_new(&ts), (185596072u << 3) | 2);
	ts.tv_nsec = 2048 * 1000; /* bit 2 */
	assert_int_equal(lctl_commit_hash_new(&ts), (185596072u << 3) | 4);
	ts.tv_sec = 1484768578; /* the high bits fall off 32 bits */
	ts.tv_nsec = 0;
	assert_int_equal(lctl_commit_hash_new(&ts), (uint32_t)(1484768578ull << 3) | 1);
	/* sec a multiple of 2^29: glusterd would make 1 ("invalid"); we never do */
	ts.tv_sec = (time_t)1 << 29;
	ts.tv_nsec = 0;
	h = lctl_commit_hash_new(&ts);
	assert_true(h != 0 && h != 1);
	ts.tv_sec = 0;
	for (i = 0; i < 3000; i++) {
		ts.tv_nsec = (long)i * 1024 * 1000 % 1000000000;
		h = lctl_commit_hash_new(&ts);
		assert_true(h == 2 || h == 4);
	}
	h = lctl_commit_hash_new(NULL);
	assert_true(h > 1);
	/* garbage times do not crash */
	ts.tv_sec = -5;
	ts.tv_nsec = -7;
	h = lctl_commit_hash_new(&ts);
	assert_true(h > 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Reference: DHT's code path with glibc's qsort()                                           */

struct ref_entry { /* dht_layout_entry_t, the parts that matter */
	int err;
	uint32_t start, stop;
	int subvol;
};

static int ref_cmp(const void *p, const void *q) /* dht_layout_entry_cmp() */
{
	const struct ref_entry *x = p, *y = q;
	int64_t diff;

	if (!y->start && !y->stop)
		diff = (int64_t)x->stop - (int64_t)y->stop;
	else
		diff = (int64_t)x->start - (int64_t)y->start;
	return diff == 0 ? 0 : (diff < 0 ? -1 : 1);
}

/* dht_layout_merge()'s in-memory entry, then dht_layout_sort(). */
static void ref_sorted(const struct lctl_layout_entry *e, size_t n, struct ref_entry *r)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].subvol = e[i].subvol;
		r[i].start = r[i].stop = 0;
		if (e[i].err == 0) {
			r[i].err = 0;
			r[i].start = e[i].r.start;
			r[i].stop = e[i].r.stop;
		} else if (e[i].err == ENODATA) {
			r[i].err = 0;
		} else if (e[i].err == EINVAL) {
			r[i].err = -1;
		} else {
			r[i].err = e[i].err;
		}
	}
	qsort(r, n, sizeof(*r), ref_cmp);
}

static void ref_anomalies(const struct ref_entry *l, size_t n, uint32_t *holes, uint32_t *overlaps)
{
	uint32_t last_stop = l[0].start - 1, prev_stop = last_stop, h = 0, o = 0;
	int virgin = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (l[i].err == 0 && l[i].start == l[i].stop)
			continue;
		if (l[i].err != 0)
			continue;
		virgin = 0;
		if ((prev_stop + 1) < l[i].start)
			h++;
		if ((prev_stop + 1) > l[i].start)
			o++;
		prev_stop = l[i].stop;
	}
	if ((last_stop - prev_stop) || virgin)
		h++;
	*holes = h;
	*overlaps = o;
}

static int ref_search(const struct ref_entry *l, size_t n, uint32_t hash)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].start <= hash && l[i].stop >= hash)
			return l[i].subvol;
	return -1;
}

/* A random entry from a small pool of boundary-ish values, so that ties and garbage happen. */
static struct lctl_layout_entry random_entry(int subvol)
{
	static const int errs[] = { 0,	      0,      0,      0,   0,	   0,  ENOENT, ENODATA,
				    ENOTCONN, EINVAL, ESTALE, EIO, ENOSPC, -1, 12345 };
	static const uint32_t vals[] = { 0,	     1,		 2,	     0x3ffffffe,
					 0x3fffffff, 0x7ffffffd, 0x7ffffffe, 0x80000000,
					 0xbffffffc, 0xbffffffd, 0xfffffffe, 0xffffffff };
	struct lctl_layout_entry e;
	uint64_t r = rnd();

	e.subvol = subvol;
	e.err = errs[r % (sizeof(errs) / sizeof(errs[0]))];
	r >>= 8;
	e.r.commit = (uint32_t)(r % 3);
	e.r.type = (uint32_t)(rnd() % 2);
	if (rnd() % 3) {
		e.r.start = vals[rnd() % (sizeof(vals) / sizeof(vals[0]))];
		e.r.stop = vals[rnd() % (sizeof(vals) / sizeof(vals[0]))];
	} else {
		e.r.start = (uint32_t)rnd();
		/* X-0 entries are the ones DHT's comparator gets wrong */
		e.r.stop = rnd() % 4 ? (uint32_t)rnd() : 0;
	}
	return e;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Coverage by elementary segments between all range bounds, for the exact sizes. */
static void check_sizes(const struct lctl_layout_entry *e, size_t n,
			const struct lctl_layout_report *rep)
{
	uint64_t total = 0, uni = 0, bounds[2 * 64 + 2];
	size_t nb = 0, i, j;

	assert_true(n <= 64);
	bounds[nb++] = 0;
	bounds[nb++] = SPACE;
	for (i = 0; i < n; i++) {
		if (e[i].err || e[i].r.start >= e[i].r.stop)
			continue;
		total += (uint64_t)e[i].r.stop - e[i].r.start + 1;
		bounds[nb++] = e[i].r.start;
		bounds[nb++] = (uint64_t)e[i].r.stop + 1;
	}
	qsort(bounds, nb, sizeof(bounds[0]), u64_cmp);
	for (i = 0; i + 1 < nb; i++) {
		for (j = 0; j < n; j++)
			if (!e[j].err && e[j].r.start < e[j].r.stop && e[j].r.start <= bounds[i] &&
			    bounds[i] <= e[j].r.stop)
				break;
		if (j < n)
			uni += bounds[i + 1] - bounds[i];
	}
	assert_int_equal(rep->hole_size, SPACE - uni);
	assert_int_equal(rep->overlap_size, total - uni);
}

static void test_against_reference(void **state)
{
	struct lctl_layout_entry e[200];
	struct ref_entry r[200];
	struct lctl_layout_report rep;
	size_t n, i, k, hk;
	uint32_t holes, overlaps, hash;

	(void)state;
	for (k = 0; k < 20000; k++) {
		n = 1 + (size_t)(rnd() % (k % 10 == 0 ? 200 : 12));
		for (i = 0; i < n; i++)
			e[i] = random_entry((int)i);
		ref_sorted(e, n, r);
		ref_anomalies(r, n, &holes, &overlaps);
		assert_int_equal(lctl_layout_check(e, n, 0, &rep), 0);
		if (rep.holes != holes || rep.overlaps != overlaps)
			fail_msg("#%zu n=%zu: holes %u/%u overlaps %u/%u", k, n, rep.holes, holes,
				 rep.overlaps, overlaps);
		assert_int_equal(rep.missing + rep.down + rep.no_xattr + rep.malformed + rep.other +
					 rep.zero + rep.degenerate + rep.ranged,
				 n);
		if (n <= 64)
			check_sizes(e, n, &rep);
		for (hk = 0; hk < 8; hk++) {
			hash = hk < 2 ? (uint32_t)hk * 0xffffffffu
				      : (hk < 5 ? e[rnd() % n].r.start + (uint32_t)(hk - 3)
						: (uint32_t)rnd());
			if (lctl_layout_search(e, n, hash) != ref_search(r, n, hash))
				fail_msg("#%zu n=%zu hash 0x%x: %d, reference %d", k, n, hash,
					 lctl_layout_search(e, n, hash), ref_search(r, n, hash));
		}
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Anomalies                                                                                  */

/* /d1 on the 4-brick volume (dht-facts.md 1.1): b3, b4, b1, b2 from 0. */
static void d1_layout(struct lctl_layout_entry *e, uint32_t commit)
{
	e[0] = ent(0, commit, 0x7ffffffe, 0xbffffffc);
	e[1] = ent(1, commit, 0xbffffffd, 0xffffffff);
	e[2] = ent(2, commit, 0x00000000, 0x3ffffffe);
	e[3] = ent(3, commit, 0x3fffffff, 0x7ffffffd);
}

static struct lctl_layout_report check(const struct lctl_layout_entry *e, size_t n, uint32_t vol)
{
	struct lctl_layout_report rep;

	assert_int_equal(lctl_layout_check(e, n, vol, &rep), 0);
	assert_int_equal(rep.nentries, n);
	return rep;
}

static void test_check_complete(void **state)
{
	struct lctl_layout_entry e[6];
	struct lctl_layout_report rep;

	(void)state;
	d1_layout(e, 0);
	rep = check(e, 4, 0);
	assert_int_equal(rep.holes, 0);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.hole_size, 0);
	assert_int_equal(rep.overlap_size, 0);
	assert_int_equal(rep.ranged, 4);
	assert_false(rep.virgin);
	assert_false(rep.user_layout);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_CLEAN);
	assert_true(rep.commit_agree);

	/* new bricks after add-brick: 0-0 entries are skipped, not holes */
	e[4] = ent(4, 0, 0, 0);
	e[5] = bad(5, ENODATA);
	rep = check(e, 6, 0);
	assert_int_equal(rep.holes, 0);
	assert_int_equal(rep.zero, 1);
	assert_int_equal(rep.no_xattr, 1);

	/* a single full-range entry is a complete layout */
	e[0] = ent(0, 7, 0, 0xffffffff);
	e[1] = ent(1, 7, 0, 0);
	rep = check(e, 2, 7);
	assert_int_equal(rep.holes, 0);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.hole_size, 0);
	rep = check(e, 1, 7);
	assert_int_equal(rep.holes, 0);
}

static void test_check_hole_overlap(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_layout_report rep;

	(void)state;
	/* hole: b4's range gone */
	d1_layout(e, 0);
	e[3] = ent(3, 0, 0, 0);
	rep = check(e, 4, 0);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.hole_size, 0x7ffffffdull - 0x3fffffff + 1);
	assert_int_equal(rep.zero, 1);

	/* hole at the very start (the wrap check) and at the end */
	d1_layout(e, 0);
	e[2] = ent(2, 0, 0x10, 0x3ffffffe);
	rep = check(e, 4, 0);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.hole_size, 0x10);
	d1_layout(e, 0);
	e[1] = ent(1, 0, 0xbffffffd, 0xfffffff0);
	rep = check(e, 4, 0);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.hole_size, 0xf);

	/* overlap: b3 extended into b4 */
	d1_layout(e, 0);
	e[2] = ent(2, 0, 0, 0x40000010);
	rep = check(e, 4, 0);
	assert_int_equal(rep.holes, 0);
	assert_int_equal(rep.overlaps, 1);
	assert_int_equal(rep.overlap_size, 0x40000010ull - 0x3fffffff + 1);

	/* two entries with the same range: one overlap of the full size */
	d1_layout(e, 0);
	e[3] = ent(3, 0, 0x7ffffffe, 0xbffffffc);
	rep = check(e, 4, 0);
	assert_int_equal(rep.overlaps, 1);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.overlap_size, 0xbffffffcull - 0x7ffffffe + 1);
	assert_int_equal(rep.hole_size, 0x7ffffffdull - 0x3fffffff + 1);
}

static void test_check_errors(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_layout_report rep;

	(void)state;
	d1_layout(e, 0);
	e[0] = bad(0, ENOENT);
	e[1] = bad(1, ENOTCONN);
	rep = check(e, 4, 0);
	assert_int_equal(rep.missing, 1);
	assert_int_equal(rep.down, 1);
	assert_int_equal(rep.ranged, 2);
	assert_int_equal(rep.holes, 1); /* b1 + b2's ranges form one hole up to the end */
	assert_int_equal(rep.hole_size, SPACE - 0x7ffffffe);

	d1_layout(e, 0);
	e[0] = bad(0, EINVAL);
	e[1] = bad(1, ENODATA);
	e[2] = bad(2, EIO);
	rep = check(e, 4, 0);
	assert_int_equal(rep.malformed, 1);
	assert_int_equal(rep.no_xattr, 1);
	assert_int_equal(rep.other, 1);
	assert_int_equal(rep.ranged, 1);
	/*
	 * One range left. The wrap check compares with list[0].start - 1, and list[0] is a
	 * 0-0 (failed) entry here, so DHT counts the space before and after the range as two
	 * holes; with the range alone it counts one.
	 */
	assert_int_equal(rep.holes, 2);
	assert_int_equal(rep.hole_size, SPACE - (0x7ffffffdull - 0x3fffffff + 1));
	rep = check(e + 3, 1, 0);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.hole_size, SPACE - (0x7ffffffdull - 0x3fffffff + 1));

	/* errors carry no range even when r holds garbage */
	d1_layout(e, 0);
	e[0].err = ENOTCONN;
	rep = check(e, 4, 0);
	assert_int_equal(rep.hole_size, 0xbffffffcull - 0x7ffffffe + 1);
}

static void test_check_virgin(void **state)
{
	struct lctl_layout_entry e[3];
	struct lctl_layout_report rep;

	(void)state;
	e[0] = ent(0, 0, 0, 0);
	e[1] = bad(1, ENODATA);
	e[2] = bad(2, ENOENT);
	rep = check(e, 3, 0);
	assert_true(rep.virgin);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.hole_size, SPACE);

	/* start == stop != 0 does not take part either */
	e[0] = ent(0, 0, 5, 5);
	rep = check(e, 1, 0);
	assert_true(rep.virgin);
	assert_int_equal(rep.degenerate, 1);

	/* n = 0 */
	assert_int_equal(lctl_layout_check(NULL, 0, 0, &rep), 0);
	assert_true(rep.virgin);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_NONE);
	assert_int_equal(lctl_layout_check(NULL, 1, 0, &rep), -LCTL_EINVAL);
	assert_int_equal(lctl_layout_check(e, 1, 0, NULL), -LCTL_EINVAL);
}

static void test_check_wrap(void **state)
{
	struct lctl_layout_entry e[2];
	struct lctl_layout_report rep;

	(void)state;
	/*
	 * A wrap-around range 0xc0000000-0x3fffffff next to 0x40000000-0xbfffffff: DHT's walk
	 * is satisfied (no hole, no overlap), yet dht_layout_search() can never match the
	 * wrapped entry, so half the space has no hashed subvolume.
	 */
	e[0] = ent(0, 0, 0xc0000000, 0x3fffffff);
	e[1] = ent(1, 0, 0x40000000, 0xbfffffff);
	rep = check(e, 2, 0);
	assert_int_equal(rep.holes, 0);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.degenerate, 1);
	assert_int_equal(rep.hole_size, SPACE / 2);
	assert_int_equal(lctl_layout_search(e, 2, 0x10), -1);
	assert_int_equal(lctl_layout_search(e, 2, 0xc0000001), -1);
	assert_int_equal(lctl_layout_search(e, 2, 0x40000000), 1);

	/*
	 * 32-bit quirk: after an entry that ends at 0xffffffff, prev_stop + 1 wraps to 0, so a
	 * second entry there counts as a hole, not an overlap.
	 */
	e[0] = ent(0, 0, 0, 0xffffffff);
	e[1] = ent(1, 0, 0x80000000, 0xffffffff);
	rep = check(e, 2, 0);
	assert_int_equal(rep.holes, 1);
	assert_int_equal(rep.overlaps, 0);
	assert_int_equal(rep.hole_size, 0);
	assert_int_equal(rep.overlap_size, SPACE / 2);
}

static void test_check_user_type(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_layout_report rep;

	(void)state;
	d1_layout(e, 0);
	rep = check(e, 4, 0);
	assert_false(rep.user_layout);
	e[1].r.type = LCTL_LAYOUT_TYPE_USER;
	rep = check(e, 4, 0);
	assert_true(rep.user_layout);
	/* a failed entry's type does not count */
	d1_layout(e, 0);
	e[1].r.type = LCTL_LAYOUT_TYPE_USER;
	e[1].err = ENOENT;
	rep = check(e, 4, 0);
	assert_false(rep.user_layout);
}

static void test_check_commit(void **state)
{
	struct lctl_layout_entry e[6];
	struct lctl_layout_report rep;
	const uint32_t H = 0x587fc542, G = 0x587fc1c9;

	(void)state;
	/* clean, with the 0-0 entries stamped too */
	d1_layout(e, H);
	e[4] = ent(4, H, 0, 0);
	e[5] = bad(5, ENODATA); /* no xattr: no commit word to compare */
	rep = check(e, 6, H);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_CLEAN);
	assert_int_equal(rep.commit, H);
	assert_int_equal(rep.merged_commit, H);

	/* stale: all agree on another value */
	rep = check(e, 6, G);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_STALE);
	assert_true(rep.commit_agree);
	assert_int_equal(rep.commit, H);

	/* fresh volume: commit 0 everywhere, volume hash 0 */
	d1_layout(e, 0);
	rep = check(e, 4, 0);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_CLEAN);

	/* invalid: one entry is 1 */
	d1_layout(e, H);
	e[2].r.commit = LCTL_COMMIT_INVALID;
	rep = check(e, 4, H);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_INVALIDATED);
	assert_int_equal(rep.merged_commit, LCTL_COMMIT_INVALID);
	/* the root before any rebalance: all 1, volume hash 0 */
	d1_layout(e, LCTL_COMMIT_INVALID);
	rep = check(e, 4, 0);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_INVALIDATED);
	assert_true(rep.commit_agree);
	/* a volume hash of 1 matches (DHT compares for equality) */
	rep = check(e, 4, LCTL_COMMIT_INVALID);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_CLEAN);

	/* mixed: a new brick's 0-0 entry with commit 0 on a clean directory (dht-facts 4.6e) */
	d1_layout(e, H);
	e[4] = ent(4, 0, 0, 0);
	rep = check(e, 5, H);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_MIXED);
	assert_false(rep.commit_agree);
	/* dht_layout_merge(): the 0 arriving last makes it 1; arriving first, it is ignored */
	assert_int_equal(rep.merged_commit, LCTL_COMMIT_INVALID);
	assert_int_equal(lctl_layout_merged_commit(e, 5), LCTL_COMMIT_INVALID);
	e[5] = e[0];
	e[0] = e[4];
	e[4] = e[5];
	assert_int_equal(lctl_layout_merged_commit(e, 5), H);
	/* two different non-zero values */
	d1_layout(e, H);
	e[3].r.commit = G;
	rep = check(e, 4, H);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_MIXED);

	/* none: no readable xattr */
	e[0] = bad(0, ENODATA);
	e[1] = bad(1, ENOENT);
	rep = check(e, 2, H);
	assert_int_equal(rep.commit_state, LCTL_COMMIT_NONE);
	assert_int_equal(rep.merged_commit, 0);
}

static void test_check_garbage(void **state)
{
	struct lctl_layout_entry *e = calloc(1024, sizeof(*e));
	struct lctl_layout_report rep;
	size_t n, i, k;

	(void)state;
	assert_non_null(e);
	for (k = 0; k < 300; k++) {
		n = (size_t)(rnd() % 1025);
		for (i = 0; i < n; i++) {
			e[i].subvol = (int)rnd();
			e[i].err = (int)rnd();
			if (rnd() % 2)
				e[i].err = 0;
			e[i].r.commit = (uint32_t)rnd();
			e[i].r.type = (uint32_t)rnd();
			e[i].r.start = (uint32_t)rnd();
			e[i].r.stop = (uint32_t)rnd();
		}
		assert_int_equal(lctl_layout_check(e, n, (uint32_t)rnd(), &rep), 0);
		assert_true(rep.hole_size <= SPACE);
		(void)lctl_layout_search(e, n, (uint32_t)rnd());
		(void)lctl_layout_merged_commit(e, n);
	}
	free(e);
}

/* ------------------------------------------------------------------------------------------ */
/* Search                                                                                     */

/* /d2 (dht-facts 2.2): b4 from 0, then b1, b2, b3; subvol = brick number. */
static void d2_layout(struct lctl_layout_entry *e)
{
	e[0] = ent(1, 0, 0x3fffffff, 0x7ffffffd);
	e[1] = ent(2, 0, 0x7ffffffe, 0xbffffffc);
	e[2] = ent(3, 0, 0xbffffffd, 0xffffffff);
	e[3] = ent(4, 0, 0x00000000, 0x3ffffffe);
}

static void test_search_placement(void **state)
{
	static const struct {
		const char *name;
		int brick;
	} d2[] = {
		{ "foo.txt", 3 }, { ".foo.txt.AbC123", 3 }, { "x", 2 }, { ".x.y", 2 },
		{ ".bashrc", 3 }, { "h\xc3\xa9llo w\xc3\xb6rld", 2 },
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt", 2 }, { "a1", 4 }, { "a2", 2 },
		{ "README", 3 }, { "\xc3\xa9", 1 }, { "\xc3\xbc", 3 }, { "\xd0\xb6", 3 },
		{ "\xc3\xa9" "2", 4 },
	}, d1[] = {
		{ "f0", 1 }, { "f1", 2 }, { "f2", 2 }, { "f3", 1 }, { "f4", 3 },
	};
	struct lctl_layout_entry e[4];
	struct lctl_munge m;
	size_t i;

	(void)state;
	assert_int_equal(lctl_munge_init(&m, NULL, NULL, NULL), 0);
	d2_layout(e);
	for (i = 0; i < sizeof(d2) / sizeof(d2[0]); i++)
		if (lctl_layout_search(e, 4, lctl_name_hash(&m, d2[i].name)) != d2[i].brick)
			fail_msg("'%s' not on b%d", d2[i].name, d2[i].brick);
	/* the unmunged hash of .foo.txt.AbC123 would have gone to b4 */
	assert_int_equal(lctl_layout_search(e, 4, lctl_name_hash(NULL, ".foo.txt.AbC123")), 4);
	/* /d1: b3, b4, b1, b2 from 0 (subvol = brick number) */
	e[0] = ent(3, 0, 0x00000000, 0x3ffffffe);
	e[1] = ent(4, 0, 0x3fffffff, 0x7ffffffd);
	e[2] = ent(1, 0, 0x7ffffffe, 0xbffffffc);
	e[3] = ent(2, 0, 0xbffffffd, 0xffffffff);
	for (i = 0; i < sizeof(d1) / sizeof(d1[0]); i++)
		assert_int_equal(lctl_layout_search(e, 4, lctl_name_hash(&m, d1[i].name)),
				 d1[i].brick);
	lctl_munge_release(&m);
}

static void test_search_edges(void **state)
{
	struct lctl_layout_entry e[6];
	size_t order[6];

	(void)state;
	d2_layout(e);
	/* inclusive bounds */
	assert_int_equal(lctl_layout_search(e, 4, 0), 4);
	assert_int_equal(lctl_layout_search(e, 4, 0x3ffffffe), 4);
	assert_int_equal(lctl_layout_search(e, 4, 0x3fffffff), 1);
	assert_int_equal(lctl_layout_search(e, 4, 0xffffffff), 3);
	/* a hole */
	e[1] = ent(2, 0, 0, 0);
	assert_int_equal(lctl_layout_search(e, 4, 0x80000000), -1);
	assert_int_equal(lctl_layout_search(NULL, 0, 5), -1);

	/*
	 * Hash 0 with 0-0 entries: DHT's sort puts them (and failed entries, also 0-0 in
	 * memory) first and dht_layout_search() takes the first match, so hash 0 belongs to
	 * the first such entry in reply order, not to the range starting at 0.
	 */
	d2_layout(e);
	e[4] = bad(7, ENOTCONN);
	e[5] = ent(8, 0, 0, 0);
	assert_int_equal(lctl_layout_search(e, 6, 0), 7);
	assert_int_equal(lctl_layout_search(e, 6, 1), 4);
	assert_int_equal(lctl_layout_search(e + 5, 1, 0), 8);
	assert_int_equal(lctl_layout_dht_order(e, 6, order), 0);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 5);
	assert_int_equal(order[2], 3); /* then by start */
	assert_int_equal(order[5], 2);

	/* overlapping ranges: the lowest start wins, ties go to the earlier entry */
	e[0] = ent(10, 0, 0x100, 0x200);
	e[1] = ent(11, 0, 0x80, 0x180);
	e[2] = ent(12, 0, 0x80, 0x300);
	assert_int_equal(lctl_layout_search(e, 3, 0x150), 11);
	assert_int_equal(lctl_layout_search(e, 3, 0x250), 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_codec),	   cmocka_unit_test(test_commithash_codec),
		cmocka_unit_test(test_commit_hash_new),	   cmocka_unit_test(test_check_complete),
		cmocka_unit_test(test_check_hole_overlap), cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_check_virgin),	   cmocka_unit_test(test_check_wrap),
		cmocka_unit_test(test_check_user_type),	   cmocka_unit_test(test_check_commit),
		cmocka_unit_test(test_check_garbage),	   cmocka_unit_test(test_search_placement),
		cmocka_unit_test(test_search_edges),	   cmocka_unit_test(test_against_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
