/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the pure parts of lib/explain.c: path splitting, the fan-out rule of a miss
 * (dht_lookup_cbk() / dht_should_lookup_everywhere(), dht-facts.md 4.3 and 4.5) and the
 * verdict on a name from what each subvolume holds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "layoutctl.h"

/* ------------------------------------------------------------------------------------------ */
/* Paths                                                                                      */

static void split_ok(const char *path, const char *want_parent, const char *want_name)
{
	char *p = NULL, *n = NULL;

	assert_int_equal(lctl_explain_split_path(path, &p, &n), 0);
	assert_string_equal(p, want_parent);
	assert_string_equal(n, want_name);
	free(p);
	free(n);
}

static void split_bad(const char *path)
{
	static char dummy;
	char *p = &dummy, *n = &dummy;

	assert_int_equal(lctl_explain_split_path(path, &p, &n), -LCTL_EINVAL);
	assert_null(p);
	assert_null(n);
}

static void test_split_path(void **state)
{
	char name[300];

	(void)state;
	split_ok("/a", "/", "a");
	split_ok("/a/b", "/a", "b");
	split_ok("//a///b//c/", "/a/b", "c");
	split_ok("/.hidden", "/", ".hidden");
	split_ok("/a/...", "/a", "...");
	split_ok("/d/.foo.txt.AbC123", "/d", ".foo.txt.AbC123");
	split_ok("/caf\xc3\xa9/\x01\t x\xff", "/caf\xc3\xa9", "\x01\t x\xff");
	split_bad(NULL);
	split_bad("");
	split_bad("a/b");
	split_bad("/");
	split_bad("///");
	split_bad("/a/./b");
	split_bad("/a/..");
	split_bad("/..");
	split_bad("/.");
	memset(name, 'x', 257);
	name[0] = '/';
	name[256] = '\0'; /* "/" + 255 bytes */
	split_ok(name, "/", name + 1);
	name[256] = 'x';
	name[257] = '\0'; /* 256 bytes */
	split_bad(name);
}

/* ------------------------------------------------------------------------------------------ */
/* Fan-out of a miss                                                                          */

/* Four subvolumes with a complete layout, all with commit word @c. */
static void layout4(struct lctl_layout_entry e[4], uint32_t c)
{
	static const uint32_t start[4] = { 0, 0x40000000u, 0x80000000u, 0xc0000000u };
	int i;

	for (i = 0; i < 4; i++) {
		e[i].subvol = i;
		e[i].err = 0;
		e[i].r.commit = c;
		e[i].r.type = LCTL_LAYOUT_TYPE_NORMAL;
		e[i].r.start = start[i];
		e[i].r.stop = i == 3 ? 0xffffffffu : start[i + 1] - 1;
	}
}

static struct lctl_miss miss(const struct lctl_layout_entry *e, size_t n, uint32_t hash,
			     uint32_t vol, bool consistent, bool optimize, const char *unhashed)
{
	struct lctl_miss m;

	assert_int_equal(lctl_miss_check(e, n, hash, vol, consistent, optimize, unhashed, &m), 0);
	return m;
}

static void test_miss_clean(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_miss m;

	(void)state;
	/* a fresh subdirectory: commit 0 = volume 0 */
	layout4(e, 0);
	m = miss(e, 4, 0x12345678u, 0, true, true, "on");
	assert_false(m.fans_out);
	assert_true(m.certain);
	assert_int_equal(m.lookups, 1);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_MATCH);
	/* after a rebalance: commit H = volume H */
	layout4(e, 0x587fc542u);
	m = miss(e, 4, 0, 0x587fc542u, true, true, "on");
	assert_false(m.fans_out);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_MATCH);
	/* the bricks disagree on the volume hash: probably, not certainly */
	m = miss(e, 4, 0, 0x587fc542u, false, true, "on");
	assert_false(m.fans_out);
	assert_false(m.certain);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_MATCH | LCTL_MISS_VOLUME_MIXED);
}

static void test_miss_fan_out(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_miss m;

	(void)state;
	/* the volume root of a fresh volume: commit 1, volume 0 */
	layout4(e, LCTL_COMMIT_INVALID);
	m = miss(e, 4, 0x9abcdef0u, 0, true, true, "on");
	assert_true(m.fans_out);
	assert_true(m.certain);
	assert_int_equal(m.lookups, 5);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_INVALID);
	/* after fix-layout: the directory keeps its old 0, the volume has H */
	layout4(e, 0);
	m = miss(e, 4, 0x9abcdef0u, 0x587fc542u, true, true, "on");
	assert_true(m.fans_out);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_STALE);
	/* lookup-optimize off: fans out whatever the commit, with unhashed on or off */
	m = miss(e, 4, 1, 0, true, false, "on");
	assert_true(m.fans_out);
	assert_int_equal(m.lookups, 5);
	assert_int_equal(m.reasons, LCTL_MISS_OPTIMIZE_OFF);
	m = miss(e, 4, 1, 0, true, false, "off");
	assert_true(m.fans_out);
	m = miss(e, 4, 1, 0, true, false, NULL);
	assert_true(m.fans_out);
	/* off with lookup-unhashed auto: one LOOKUP until readdirp sees a stray entry */
	m = miss(e, 4, 1, 0, true, false, "auto");
	assert_false(m.fans_out);
	assert_false(m.certain);
	assert_int_equal(m.lookups, 1);
	assert_int_equal(m.reasons, LCTL_MISS_OPTIMIZE_OFF | LCTL_MISS_UNHASHED_AUTO);
	m = miss(e, 4, 1, 0, true, false, "AUTO");
	assert_false(m.fans_out);
}

static void test_miss_hole_and_layoutless(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_miss m;

	(void)state;
	/* subvolume 2 lost its range: a hash in 0x80000000.. has no hashed subvolume */
	layout4(e, 0);
	e[2].r.start = e[2].r.stop = 0;
	m = miss(e, 4, 0x90000000u, 0, true, true, "on");
	assert_true(m.fans_out);
	assert_int_equal(m.lookups, 4); /* wound to all at once, no hashed LOOKUP first */
	assert_int_equal(m.reasons, LCTL_MISS_HOLE);
	/* outside the hole nothing changes */
	m = miss(e, 4, 0x10000000u, 0, true, true, "on");
	assert_false(m.fans_out);
	/* no layout xattr anywhere */
	for (int i = 0; i < 4; i++)
		e[i].err = i == 1 ? ENOENT : ENODATA;
	m = miss(e, 4, 0x10000000u, 0, true, true, "on");
	assert_true(m.fans_out);
	assert_int_equal(m.reasons, LCTL_MISS_NO_LAYOUT);
	assert_int_equal(m.lookups, 5);
	/* one subvolume: nothing to fan out to, whatever the layout */
	layout4(e, LCTL_COMMIT_INVALID);
	e[0].r.stop = 0xffffffffu;
	m = miss(e, 1, 0x10000000u, 0, true, false, "on");
	assert_false(m.fans_out);
	assert_int_equal(m.lookups, 1);
	assert_int_equal(m.reasons, LCTL_MISS_ONE_SUBVOL);
	assert_int_equal(lctl_miss_check(NULL, 4, 0, 0, true, true, "on", &m), -LCTL_EINVAL);
	assert_int_equal(lctl_miss_check(e, 4, 0, 0, true, true, "on", NULL), -LCTL_EINVAL);
}

static void test_miss_commit_mixed(void **state)
{
	struct lctl_layout_entry e[4];
	struct lctl_miss m;

	(void)state;
	/* a clean directory after add-brick: a 0-0 entry with commit 0 next to H (4.6e): the merge
	 * gives H or 1 depending on the reply order */
	layout4(e, 0x587fc542u);
	e[1].r.start = e[1].r.stop = 0;
	e[1].r.commit = 0;
	e[0].r.stop = 0x7fffffffu;
	m = miss(e, 4, 0x10000000u, 0x587fc542u, true, true, "on");
	assert_true(m.fans_out);
	assert_false(m.certain);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_MIXED);
	/* the same with a volume hash nobody carries: certain, and stale */
	m = miss(e, 4, 0x10000000u, 0x11111112u, true, true, "on");
	assert_true(m.fans_out);
	assert_true(m.certain);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_STALE);
	/* two different non-zero words always merge into 1 */
	layout4(e, 0x587fc542u);
	e[3].r.commit = 0x11111112u;
	m = miss(e, 4, 0x10000000u, 0x587fc542u, true, true, "on");
	assert_true(m.fans_out);
	assert_true(m.certain);
	assert_int_equal(m.reasons, LCTL_MISS_COMMIT_MIXED);
	/* a single entry with 1 among H's */
	layout4(e, 0x587fc542u);
	e[2].r.commit = LCTL_COMMIT_INVALID;
	m = miss(e, 4, 0x10000000u, 0x587fc542u, true, true, "on");
	assert_true(m.fans_out);
	assert_true(m.certain);
	/* errors do not take part in the merge */
	layout4(e, 0);
	e[3].err = ENOTCONN;
	e[3].r.commit = 7;
	m = miss(e, 4, 0x10000000u, 0, true, true, "on");
	assert_false(m.fans_out);
}

/* ------------------------------------------------------------------------------------------ */
/* Verdicts                                                                                   */

struct fixture {
	struct lctl_explain e;
	struct lctl_explain_subvol sv[4];
};

static void fixture_init(struct fixture *f, int hashed)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->e.nsubvols = 4;
	f->e.subvols = f->sv;
	f->e.hashed = hashed;
	for (i = 0; i < 4; i++) {
		f->sv[i].parent.subvol = i;
		f->sv[i].linkto_target = -1;
	}
}

static void data(struct fixture *f, int i, uint64_t ino)
{
	f->sv[i].sight = LCTL_SIGHT_DATA;
	f->sv[i].ino = ino;
	f->sv[i].mode = S_IFREG | 0644;
}

static void linkto(struct fixture *f, int i, int target, uint64_t ino)
{
	f->sv[i].sight = LCTL_SIGHT_LINKTO;
	f->sv[i].linkto_target = target;
	f->sv[i].ino = ino;
	f->sv[i].mode = S_IFREG | S_ISVTX;
}

static void test_judge_files(void **state)
{
	struct fixture f;

	(void)state;
	fixture_init(&f, 2);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_ABSENT);
	assert_true(f.e.ok);
	assert_int_equal(f.e.cached, -1);

	fixture_init(&f, 2);
	data(&f, 2, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_FILE);
	assert_int_equal(f.e.state, LCTL_ENTRY_PLACED);
	assert_int_equal(f.e.cached, 2);
	assert_int_equal(f.e.linkto_subvol, -1);
	assert_true(f.e.ok);

	/* renamed: linkto on the hashed subvolume -> data */
	fixture_init(&f, 2);
	data(&f, 0, 10);
	linkto(&f, 2, 0, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_LINKED);
	assert_int_equal(f.e.cached, 0);
	assert_int_equal(f.e.linkto_subvol, 2);
	assert_int_equal(f.e.linkto_target, 0);
	assert_true(f.e.ok);

	/* the linkto's gfid is another file's */
	fixture_init(&f, 2);
	data(&f, 0, 10);
	linkto(&f, 2, 0, 11);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_STALE_LINKTO);
	assert_true(f.e.gfid_mismatch);
	assert_false(f.e.ok);

	/* unknown inode numbers are not a mismatch */
	fixture_init(&f, 2);
	data(&f, 0, 0);
	linkto(&f, 2, 0, 11);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_LINKED);

	/* linkto naming the wrong subvolume */
	fixture_init(&f, 2);
	data(&f, 0, 10);
	linkto(&f, 2, 3, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_STALE_LINKTO);
	assert_false(f.e.gfid_mismatch);

	/* a stray linkto next to a correct one, and next to placed data: the stale one shown is
	 * the stray, as scan reports it and fix removes it */
	fixture_init(&f, 2);
	data(&f, 0, 10);
	linkto(&f, 2, 0, 10);
	linkto(&f, 3, 0, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_STALE_LINKTO);
	assert_int_equal(f.e.linkto_subvol, 3);
	fixture_init(&f, 2);
	data(&f, 2, 10);
	linkto(&f, 3, 2, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_STALE_LINKTO);
	assert_int_equal(f.e.linkto_subvol, 3);

	/* misplaced: data elsewhere, nothing on the hashed subvolume */
	fixture_init(&f, 2);
	data(&f, 1, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_MISPLACED);
	assert_int_equal(f.e.cached, 1);
	assert_false(f.e.ok);

	/* orphan linkto, duplicate, migration, hole */
	fixture_init(&f, 2);
	linkto(&f, 2, 0, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_ORPHAN_LINKTO);
	assert_int_equal(f.e.cached, -1);
	fixture_init(&f, 2);
	data(&f, 1, 10);
	data(&f, 2, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_DUPLICATE);
	assert_int_equal(f.e.cached, -1);
	fixture_init(&f, 2);
	data(&f, 1, 10);
	f.sv[1].sight = LCTL_SIGHT_MIGRATING;
	linkto(&f, 2, 1, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_MIGRATION_LEFTOVER);
	fixture_init(&f, -1);
	data(&f, 1, 10);
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.state, LCTL_ENTRY_UNHASHED);
	assert_false(f.e.ok);
}

static void test_judge_dirs_and_errors(void **state)
{
	struct fixture f;
	int i;

	(void)state;
	fixture_init(&f, 1);
	for (i = 0; i < 4; i++)
		f.sv[i].sight = LCTL_SIGHT_DIR;
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_DIRECTORY);
	assert_true(f.e.ok);
	assert_false(f.e.incomplete);

	f.sv[3].sight = LCTL_SIGHT_ABSENT;
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_DIR_INCOMPLETE);
	assert_false(f.e.ok);

	f.sv[3].sight = LCTL_SIGHT_DATA;
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_TYPE_CONFLICT);
	assert_false(f.e.ok);

	/* a subvolume down: the rest is judged, but the answer is incomplete */
	f.sv[3].sight = LCTL_SIGHT_ERROR;
	f.sv[3].err = ENOTCONN;
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_DIRECTORY);
	assert_true(f.e.incomplete);
	fixture_init(&f, 1);
	f.sv[1].sight = LCTL_SIGHT_ERROR;
	lctl_explain_judge(&f.e);
	assert_int_equal(f.e.kind, LCTL_EXPLAIN_ABSENT);
	assert_true(f.e.incomplete);
}

static void test_names(void **state)
{
	unsigned b;
	int i;

	(void)state;
	for (i = 0; i < LCTL_SIGHT_COUNT; i++)
		assert_non_null(lctl_sight_name(i));
	assert_null(lctl_sight_name(LCTL_SIGHT_COUNT));
	assert_null(lctl_sight_name(-1));
	assert_string_equal(lctl_sight_name(LCTL_SIGHT_LINKTO), "linkto");
	for (i = 0; i < LCTL_EXPLAIN_KIND_COUNT; i++)
		assert_non_null(lctl_explain_kind_name(i));
	assert_null(lctl_explain_kind_name(LCTL_EXPLAIN_KIND_COUNT));
	for (b = 0; b < LCTL_MISS_REASON_COUNT; b++)
		assert_non_null(lctl_miss_reason_name(1u << b));
	assert_null(lctl_miss_reason_name(3));
	assert_null(lctl_miss_reason_name(1u << LCTL_MISS_REASON_COUNT));
	assert_string_equal(lctl_miss_reason_name(LCTL_MISS_COMMIT_INVALID), "commit-invalid");
	assert_string_equal(lctl_miss_reason_name(LCTL_MISS_COMMIT_MATCH), "commit-match");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_path),
		cmocka_unit_test(test_miss_clean),
		cmocka_unit_test(test_miss_fan_out),
		cmocka_unit_test(test_miss_hole_and_layoutless),
		cmocka_unit_test(test_miss_commit_mixed),
		cmocka_unit_test(test_judge_files),
		cmocka_unit_test(test_judge_dirs_and_errors),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
