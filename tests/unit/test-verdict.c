/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the one rule set of entry verdicts (lib/verdict.c), used by scan and fix
 * (inspect.c) and by explain (lctl_explain_judge()): a table of copies per subvolume and the
 * verdict each must get, checked through both; for what a linkto xattr read says
 * (lctl_linkto_read_result()) and which copy a file is from its mode and that xattr
 * (lctl_copy_kind_of()); and for the directory-level judgement of a layout as it was read
 * (inspect.c: lctl_note_layout(), lctl_judge_layout()); and what a fix does first about a stale
 * linkto so judged (repair.c: lctl_repair_stale_fix()).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "inspect.h"
#include "repair.h"

#define NSV 4

/* What one subvolume holds: '.' nothing, 'D' data, 'M' migrating data (setgid+sticky),
 * 'L' a linkto, 'd' a directory, 'E' an unreadable subvolume. */
struct copy {
	char what;
	int target;   /* a linkto's target, -1 unknown */
	uint64_t ino; /* 0 unknown */
};

struct row {
	const char *what;
	int hashed;
	struct copy c[NSV];
	enum lctl_entry_state state;
	int cached, linkto_subvol, linkto_target;
	bool mismatch;
	uint64_t lazy_ino; /* what the data_ino callback answers (scan's direct reader) */
};

#define _ \
	{ \
		'.', -1, 0 \
	}
#define D(ino) \
	{ \
		'D', -1, ino \
	}
#define M(ino) \
	{ \
		'M', -1, ino \
	}
#define L(t, ino) \
	{ \
		'L', t, ino \
	}

static const struct row rows[] = {
	{ "placed", 2, { _, _, D(10), _ }, LCTL_ENTRY_PLACED, 2, -1, -1, false, 0 },
	{ "placed, subvolume 0", 0, { D(10), _, _, _ }, LCTL_ENTRY_PLACED, 0, -1, -1, false, 0 },
	{ "linked", 2, { D(10), _, L(0, 10), _ }, LCTL_ENTRY_LINKED, 0, 2, 0, false, 0 },
	{ "linked, gfids unknown", 2, { D(0), _, L(0, 0), _ }, LCTL_ENTRY_LINKED, 0, 2, 0, false, 0 },
	{ "linked, data gfid unknown",
	  2,
	  { D(0), _, L(0, 11), _ },
	  LCTL_ENTRY_LINKED,
	  0,
	  2,
	  0,
	  false,
	  0 },
	{ "linked: the lazy data gfid agrees",
	  2,
	  { D(0), _, L(0, 11), _ },
	  LCTL_ENTRY_LINKED,
	  0,
	  2,
	  0,
	  false,
	  11 },
	{ "stale: the lazy data gfid differs",
	  2,
	  { D(0), _, L(0, 11), _ },
	  LCTL_ENTRY_STALE_LINKTO,
	  0,
	  2,
	  0,
	  true,
	  12 },
	{ "stale: hashed linkto with another gfid",
	  2,
	  { D(10), _, L(0, 11), _ },
	  LCTL_ENTRY_STALE_LINKTO,
	  0,
	  2,
	  0,
	  true,
	  0 },
	{ "stale: hashed linkto names another subvolume",
	  2,
	  { D(10), _, L(3, 10), _ },
	  LCTL_ENTRY_STALE_LINKTO,
	  0,
	  2,
	  3,
	  false,
	  0 },
	{ "stale: hashed linkto names nothing",
	  2,
	  { D(10), _, L(-1, 10), _ },
	  LCTL_ENTRY_STALE_LINKTO,
	  0,
	  2,
	  -1,
	  false,
	  0 },
	{ "stale: a stray next to a correct linkto",
	  2,
	  { D(10), _, L(0, 10), L(0, 10) },
	  LCTL_ENTRY_STALE_LINKTO,
	  0,
	  3,
	  0,
	  false,
	  0 },
	{ "stale: a stray next to placed data",
	  2,
	  { _, _, D(10), L(2, 10) },
	  LCTL_ENTRY_STALE_LINKTO,
	  2,
	  3,
	  2,
	  false,
	  0 },
	{ "stale: the first of two strays",
	  2,
	  { L(1, 9), L(2, 9), D(9), _ },
	  LCTL_ENTRY_STALE_LINKTO,
	  2,
	  0,
	  1,
	  false,
	  0 },
	{ "misplaced", 2, { _, D(10), _, _ }, LCTL_ENTRY_MISPLACED, 1, -1, -1, false, 0 },
	{ "misplaced, a stray linkto elsewhere",
	  2,
	  { _, D(10), _, L(1, 10) },
	  LCTL_ENTRY_MISPLACED,
	  1,
	  3,
	  1,
	  false,
	  0 },
	{ "orphan linkto", 2, { _, _, L(0, 10), _ }, LCTL_ENTRY_ORPHAN_LINKTO, -1, 2, 0, false, 0 },
	{ "orphan linkto off the hashed subvolume",
	  2,
	  { _, L(0, 10), _, _ },
	  LCTL_ENTRY_ORPHAN_LINKTO,
	  -1,
	  1,
	  0,
	  false,
	  0 },
	{ "duplicate", 2, { _, D(10), D(10), _ }, LCTL_ENTRY_DUPLICATE, -1, -1, -1, false, 0 },
	{ "duplicate with a linkto",
	  2,
	  { D(10), D(11), L(0, 10), _ },
	  LCTL_ENTRY_DUPLICATE,
	  -1,
	  2,
	  0,
	  false,
	  0 },
	{ "migration leftover",
	  2,
	  { _, M(10), L(1, 10), _ },
	  LCTL_ENTRY_MIGRATION_LEFTOVER,
	  1,
	  2,
	  1,
	  false,
	  0 },
	{ "migration leftover beats duplicate",
	  2,
	  { M(10), _, D(10), _ },
	  LCTL_ENTRY_MIGRATION_LEFTOVER,
	  -1,
	  -1,
	  -1,
	  false,
	  0 },
	{ "unhashed", -1, { _, D(10), _, _ }, LCTL_ENTRY_UNHASHED, 1, -1, -1, false, 0 },
	{ "unhashed with a linkto",
	  -1,
	  { _, D(10), L(1, 10), _ },
	  LCTL_ENTRY_UNHASHED,
	  1,
	  2,
	  1,
	  false,
	  0 },
	{ "an unreadable subvolume does not count",
	  2,
	  { { 'E', -1, 0 }, _, D(10), _ },
	  LCTL_ENTRY_PLACED,
	  2,
	  -1,
	  -1,
	  false,
	  0 },
};

static uint64_t lazy(void *arg)
{
	const uint64_t *ino = arg;

	return *ino;
}

static void check(const struct row *r, const char *how, enum lctl_entry_state state, int cached,
		  int lsub, int ltgt, bool mismatch)
{
	if (state != r->state || cached != r->cached || lsub != r->linkto_subvol ||
	    ltgt != r->linkto_target || mismatch != r->mismatch)
		fail_msg("%s (%s): got %s cached %d linkto %d -> %d mismatch %d, want %s %d %d -> %d %d",
			 r->what, how, lctl_entry_state_name((int)state), cached, lsub, ltgt,
			 mismatch, lctl_entry_state_name((int)r->state), r->cached,
			 r->linkto_subvol, r->linkto_target, r->mismatch);
}

/* scan and fix: the copies in subvolume order, as inspect.c feeds them */
static void test_table_scan(void **state)
{
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		uint64_t ino = r->lazy_ino;
		struct lctl_verdict v;

		lctl_verdict_init(&v, r->hashed);
		for (k = 0; k < NSV; k++) {
			const struct copy *c = &r->c[k];

			if (c->what == 'D')
				lctl_verdict_add(&v, k, LCTL_COPY_DATA, -1, c->ino);
			else if (c->what == 'M')
				lctl_verdict_add(&v, k, LCTL_COPY_MIGRATING, -1, c->ino);
			else if (c->what == 'L')
				lctl_verdict_add(&v, k, LCTL_COPY_LINKTO, c->target, c->ino);
		}
		assert_true(lctl_verdict_end(&v, lazy, &ino));
		check(r, "scan", v.state, v.cached, v.linkto_subvol, v.linkto_target,
		      v.gfid_mismatch);
	}
}

/* explain: the same table through lctl_explain_judge() (no lazy gfid read there) */
static void test_table_explain(void **state)
{
	struct lctl_explain_subvol sv[NSV];
	struct lctl_explain e;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		if (r->lazy_ino)
			continue;
		memset(&e, 0, sizeof(e));
		memset(sv, 0, sizeof(sv));
		e.nsubvols = NSV;
		e.subvols = sv;
		e.hashed = r->hashed;
		for (k = 0; k < NSV; k++) {
			const struct copy *c = &r->c[k];

			sv[k].parent.subvol = k;
			sv[k].linkto_target = c->target;
			sv[k].ino = c->ino;
			sv[k].sight = c->what == 'D'   ? LCTL_SIGHT_DATA
				      : c->what == 'M' ? LCTL_SIGHT_MIGRATING
				      : c->what == 'L' ? LCTL_SIGHT_LINKTO
				      : c->what == 'E' ? LCTL_SIGHT_ERROR
						       : LCTL_SIGHT_ABSENT;
		}
		lctl_explain_judge(&e);
		assert_int_equal(e.kind, LCTL_EXPLAIN_FILE);
		check(r, "explain", e.state, e.cached, e.linkto_subvol, e.linkto_target,
		      e.gfid_mismatch);
		assert_int_equal(e.ok, lctl_entry_state_ok((int)r->state));
	}
}

/* The copies of one name, the verdict on them, and what a fix does first about it. */
struct stale_row {
	const char *what;
	int hashed;
	struct copy c[NSV];
	bool data_leaving;
	enum lctl_entry_state state;
	enum lctl_stale_fix fix;
};

static const struct stale_row stale_rows[] = {
	/*
	 * tests/bugs/distribute/bug-1161311.t: a file hard-linked while it moved from 2 to 1;
	 * the linkto of another name on its hashed subvolume 0 still names the source. DHT's
	 * lookup keeps it (same gfid), DHT will not move the file: only we can mend it.
	 */
	{ "hashed linkto names the source of a finished migration",
	  0,
	  { L(2, 10), D(10), _, _ },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_RETARGET },
	{ "hashed linkto names a subvolume without anything",
	  2,
	  { D(10), _, L(3, 10), _ },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_RETARGET },
	{ "hashed linkto names no subvolume",
	  2,
	  { D(10), _, L(-1, 10), _ },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_RETARGET },
	{ "hashed linkto names its own subvolume",
	  2,
	  { D(10), _, L(2, 10), _ },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_RETARGET },
	/* the stray is the next round's, once the hashed linkto is right */
	{ "a wrong hashed linkto and a stray",
	  2,
	  { D(10), _, L(3, 10), L(0, 10) },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_RETARGET },
	/* a drain leaves hard links on a leaving subvolume to DHT's decommission migration */
	{ "drain: data on a leaving subvolume",
	  0,
	  { L(2, 10), D(10), _, _ },
	  true,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_PLACE },
	{ "hashed linkto -> data, another gfid",
	  2,
	  { D(10), _, L(0, 11), _ },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_REMOVE_FOREIGN },
	{ "a stray next to placed data",
	  2,
	  { _, _, D(10), L(2, 10) },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_REMOVE_STRAY },
	{ "a stray next to a correct linkto",
	  2,
	  { D(10), _, L(0, 10), L(0, 10) },
	  false,
	  LCTL_ENTRY_STALE_LINKTO,
	  LCTL_STALE_REMOVE_THIRD },
	/* a correct linkto is a safe state: nothing to mend, the entry is placed as any other */
	{ "linked", 2, { D(10), _, L(0, 10), _ }, false, LCTL_ENTRY_LINKED, LCTL_STALE_PLACE },
	{ "misplaced", 2, { D(10), _, _, _ }, false, LCTL_ENTRY_MISPLACED, LCTL_STALE_PLACE },
	{ "placed", 2, { _, _, D(10), _ }, false, LCTL_ENTRY_PLACED, LCTL_STALE_PLACE },
};

static void test_stale_fix(void **state)
{
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(stale_rows) / sizeof(stale_rows[0]); i++) {
		const struct stale_row *r = &stale_rows[i];
		struct lctl_entry_report e;
		struct lctl_verdict v;
		enum lctl_stale_fix got;
		char name[] = "f";

		lctl_verdict_init(&v, r->hashed);
		for (k = 0; k < NSV; k++) {
			const struct copy *c = &r->c[k];

			if (c->what == 'D')
				lctl_verdict_add(&v, k, LCTL_COPY_DATA, -1, c->ino);
			else if (c->what == 'L')
				lctl_verdict_add(&v, k, LCTL_COPY_LINKTO, c->target, c->ino);
		}
		assert_true(lctl_verdict_end(&v, NULL, NULL));
		memset(&e, 0, sizeof(e));
		e.name = name;
		e.state = v.state;
		e.hashed = v.hashed;
		e.cached = v.cached;
		e.linkto_subvol = v.linkto_subvol;
		e.linkto_target = v.linkto_target;
		e.nlink = 29;
		if (e.state != r->state)
			fail_msg("%s: verdict %s, want %s", r->what,
				 lctl_entry_state_name((int)e.state),
				 lctl_entry_state_name((int)r->state));
		got = lctl_repair_stale_fix(&e, r->data_leaving);
		if (got != r->fix)
			fail_msg("%s: fix %d, want %d", r->what, (int)got, (int)r->fix);
		/* the link count plays no part: a hard-linked file is mended as any other */
		e.nlink = 1;
		assert_int_equal(lctl_repair_stale_fix(&e, r->data_leaving), got);
	}
}

static void test_no_copy(void **state)
{
	struct lctl_verdict v;

	(void)state;
	lctl_verdict_init(&v, 1);
	assert_false(lctl_verdict_end(&v, NULL, NULL));
	assert_int_equal(v.cached, -1);
	assert_int_equal(v.linkto_subvol, -1);
}

/*
 * A linkto read that failed is neither a linkto nor data (scan once took any failure but
 * ERANGE for a data file: a false duplicate, or a misplaced file a fix would move).
 */
static void test_linkto_read(void **state)
{
	static const int unread[] = { EIO, ENOTCONN, ENAMETOOLONG, EACCES, 0 };
	size_t i;

	(void)state;
	assert_int_equal(lctl_linkto_read_result(0, 0), LCTL_LINKTO_VALUE);
	assert_int_equal(lctl_linkto_read_result(13, 0), LCTL_LINKTO_VALUE);
	/* errno is only looked at for a failure */
	assert_int_equal(lctl_linkto_read_result(13, EIO), LCTL_LINKTO_VALUE);
	assert_int_equal(lctl_linkto_read_result(-1, ERANGE), LCTL_LINKTO_TOO_LONG);
	assert_int_equal(lctl_linkto_read_result(-1, ENODATA), LCTL_LINKTO_NONE);
	/* removed or renamed since the listing: not there, as when the stat finds it gone */
	assert_int_equal(lctl_linkto_read_result(-1, ENOENT), LCTL_LINKTO_GONE);
	assert_int_equal(lctl_linkto_read_result(-1, ESTALE), LCTL_LINKTO_GONE);
	for (i = 0; i < sizeof(unread) / sizeof(unread[0]); i++)
		if (lctl_linkto_read_result(-1, unread[i]) != LCTL_LINKTO_UNREAD)
			fail_msg("errno %d: not taken for a failed read", unread[i]);
}

/*
 * Which copy a file is, from its mode and its linkto xattr (issue 28): a user's setgid and
 * sticky bits (chmod 3644, as GlusterFS's bug-1086228.t does) once made a migration leftover
 * of any file, which scan reported and fix refused to stamp, and whose bits a fix stripped.
 * Only DHT's xattr with the bits makes a linkto or a migration's source.
 */
static void test_copy_kind(void **state)
{
	static const struct {
		mode_t mode;
		bool gfid;
		enum lctl_linkto_read xattr;
		bool read; /* lctl_may_be_dht_file() */
		enum lctl_copy_kind kind;
	} k[] = {
		/* the user's modes, no linkto xattr: data, whatever the bits */
		{ S_IFREG | 0644, true, LCTL_LINKTO_NONE, false, LCTL_COPY_DATA },
		{ S_IFREG | 03644, true, LCTL_LINKTO_NONE, true, LCTL_COPY_DATA },
		{ S_IFREG | 07755, true, LCTL_LINKTO_NONE, true, LCTL_COPY_DATA },
		{ S_IFREG | 03000, true, LCTL_LINKTO_NONE, true, LCTL_COPY_DATA },
		{ S_IFREG | 02755, true, LCTL_LINKTO_NONE, false, LCTL_COPY_DATA },
		{ S_IFREG | 04755, true, LCTL_LINKTO_NONE, false, LCTL_COPY_DATA },
		{ S_IFREG | 01777, true, LCTL_LINKTO_NONE, false, LCTL_COPY_DATA },
		{ S_IFREG | 01000, true, LCTL_LINKTO_NONE, true, LCTL_COPY_DATA },
		/* DHT's: the bits and the xattr */
		{ S_IFREG | 01000, true, LCTL_LINKTO_VALUE, true, LCTL_COPY_LINKTO },
		{ S_IFREG | 01000, true, LCTL_LINKTO_TOO_LONG, true, LCTL_COPY_LINKTO },
		{ S_IFREG | 03644, true, LCTL_LINKTO_VALUE, true, LCTL_COPY_MIGRATING },
		{ S_IFREG | 03644, true, LCTL_LINKTO_TOO_LONG, true, LCTL_COPY_MIGRATING },
		{ S_IFREG | 07755, true, LCTL_LINKTO_VALUE, true, LCTL_COPY_MIGRATING },
		{ S_IFREG | 03000, true, LCTL_LINKTO_VALUE, true, LCTL_COPY_MIGRATING },
		/* the xattr without DHT's bits: data (a hard link marked by a decommission) */
		{ S_IFREG | 0644, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		{ S_IFREG | 02755, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		{ S_IFREG | 01777, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		{ S_IFREG | 01600, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		/* no gfid (made on the brick by hand): never DHT's, and not looked up */
		{ S_IFREG | 01000, false, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		{ S_IFREG | 03644, false, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		/* not a regular file */
		{ S_IFDIR | 03755, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
		{ S_IFIFO | 01000, true, LCTL_LINKTO_VALUE, false, LCTL_COPY_DATA },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (lctl_may_be_dht_file(k[i].mode, k[i].gfid) != k[i].read)
			fail_msg("mode %06o gfid %d: read its linkto xattr %d, want %d",
				 (unsigned)k[i].mode, k[i].gfid, !k[i].read, k[i].read);
		if (lctl_copy_kind_of(k[i].mode, k[i].gfid, k[i].xattr) != k[i].kind)
			fail_msg("mode %06o gfid %d xattr %d: kind %d, want %d",
				 (unsigned)k[i].mode, k[i].gfid, (int)k[i].xattr,
				 (int)lctl_copy_kind_of(k[i].mode, k[i].gfid, k[i].xattr),
				 (int)k[i].kind);
	}
}

/*
 * A linkto being made (mode S_ISVTX, empty, its gfid not set yet) is waited for by a brick-folder
 * reader; nothing else is: a file with content, other bits, a gfid, or not a regular file.
 */
static void test_linkto_being_made(void **state)
{
	static const struct {
		mode_t mode;
		uint64_t size;
		bool gfid, want;
	} k[] = {
		{ S_IFREG | 01000, 0, false, true },  { S_IFREG | 01000, 0, true, false },
		{ S_IFREG | 01000, 1, false, false }, { S_IFREG | 01644, 0, false, false },
		{ S_IFREG | 03000, 0, false, false }, { S_IFREG | 0, 0, false, false },
		{ S_IFDIR | 01000, 0, false, false }, { S_IFIFO | 01000, 0, false, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (lctl_linkto_being_made(k[i].mode, k[i].size, k[i].gfid) != k[i].want)
			fail_msg("mode %06o size %" PRIu64 " gfid %d: %d, want %d",
				 (unsigned)k[i].mode, k[i].size, k[i].gfid, !k[i].want, k[i].want);
}

/*
 * The verdict on a user's setgid+sticky file, its copies judged as inspect.c judges them: placed
 * where it hashes, misplaced elsewhere, linked behind a linkto; a leftover only with DHT's xattr.
 */
static void test_user_modes_verdict(void **state)
{
	static const struct {
		const char *what;
		mode_t mode;
		enum lctl_linkto_read xattr;
		int data, hashed;
		bool linkto_on_hashed;
		enum lctl_entry_state state;
	} r[] = {
		{ "3644 on its hashed subvolume", 03644, LCTL_LINKTO_NONE, 1, 1, false,
		  LCTL_ENTRY_PLACED },
		{ "3644 elsewhere", 03644, LCTL_LINKTO_NONE, 0, 1, false, LCTL_ENTRY_MISPLACED },
		{ "3644 behind a linkto", 03644, LCTL_LINKTO_NONE, 0, 1, true, LCTL_ENTRY_LINKED },
		{ "7755 elsewhere", 07755, LCTL_LINKTO_NONE, 0, 1, false, LCTL_ENTRY_MISPLACED },
		{ "3644 with DHT's linkto xattr", 03644, LCTL_LINKTO_VALUE, 0, 1, false,
		  LCTL_ENTRY_MIGRATION_LEFTOVER },
		{ "3644 with DHT's linkto xattr, in place", 03644, LCTL_LINKTO_VALUE, 1, 1, false,
		  LCTL_ENTRY_MIGRATION_LEFTOVER },
	};
	struct lctl_verdict v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		lctl_verdict_init(&v, r[i].hashed);
		lctl_verdict_add(&v, r[i].data,
				 lctl_copy_kind_of(S_IFREG | r[i].mode, true, r[i].xattr),
				 r[i].hashed, 7);
		if (r[i].linkto_on_hashed)
			lctl_verdict_add(&v, r[i].hashed,
					 lctl_copy_kind_of(S_IFREG | S_ISVTX, true,
							   LCTL_LINKTO_VALUE),
					 r[i].data, 7);
		assert_true(lctl_verdict_end(&v, NULL, NULL));
		if (v.state != r[i].state)
			fail_msg("%s: %s, want %s", r[i].what, lctl_entry_state_name((int)v.state),
				 lctl_entry_state_name((int)r[i].state));
	}
}

/* ------------------------------------------------------------------------------------------ */
/* A directory's layout as read                                                               */

static void subvols_init(struct lctl_subvol sv[NSV])
{
	int i;

	memset(sv, 0, NSV * sizeof(*sv));
	for (i = 0; i < NSV; i++)
		sv[i].up = true;
}

/* A complete layout over 4 subvolumes with commit @c, as read. */
static void report_init(struct lctl_dir_report *r, struct lctl_layout_entry le[NSV], uint32_t c)
{
	static const uint32_t start[NSV] = { 0, 0x40000000u, 0x80000000u, 0xc0000000u };
	unsigned char x[16];
	unsigned p;
	int i;

	memset(r, 0, sizeof(*r));
	r->nsubvols = NSV;
	r->layout = le;
	for (i = 0; i < NSV; i++) {
		struct lctl_range rg = { c, LCTL_LAYOUT_TYPE_NORMAL, start[i],
					 i == 3 ? 0xffffffffu : start[i + 1] - 1 };

		memset(&le[i], 0, sizeof(le[i]));
		le[i].subvol = i;
		lctl_layout_encode(&rg, x);
		p = 0;
		lctl_note_layout(&le[i], &p, x, sizeof(x), 0);
		assert_int_equal(p, 0);
		assert_int_equal(le[i].err, 0);
	}
}

static void test_layout_read_failures(void **state)
{
	struct lctl_layout_entry le;
	unsigned char junk[16] = { 0 };
	unsigned p;

	(void)state;
	/* gfapi's getxattr on a brick that died: -1 and errno 0. Not an "ok" zero range. */
	memset(&le, 0, sizeof(le));
	p = 0;
	lctl_note_layout(&le, &p, junk, -1, 0);
	assert_int_equal(le.err, EIO);
	assert_int_equal(p, LCTL_DIR_UNREADABLE);
	/* the probe said the subvolume is down */
	memset(&le, 0, sizeof(le));
	p = 0;
	lctl_note_layout(&le, &p, junk, -1, ENOTCONN);
	assert_int_equal(le.err, ENOTCONN);
	assert_int_equal(p, LCTL_DIR_SUBVOL_DOWN);
	/* no layout xattr: not a read failure, the layout judgement says what it means */
	memset(&le, 0, sizeof(le));
	p = 0;
	lctl_note_layout(&le, &p, junk, -1, ENODATA);
	assert_int_equal(le.err, ENODATA);
	assert_int_equal(p, 0);
	/* any other error */
	memset(&le, 0, sizeof(le));
	p = 0;
	lctl_note_layout(&le, &p, junk, -1, EACCES);
	assert_int_equal(le.err, EACCES);
	assert_int_equal(p, LCTL_DIR_UNREADABLE);
	/* a value that is not a layout */
	memset(&le, 0, sizeof(le));
	p = 0;
	lctl_note_layout(&le, &p, junk, 5, 0);
	assert_int_equal(le.err, EINVAL);
	assert_int_equal(p, LCTL_DIR_MALFORMED);
}

static void test_judge_layout(void **state)
{
	struct lctl_subvol sv[NSV];
	struct lctl_layout_entry le[NSV];
	struct lctl_dir_report r;
	unsigned char junk[1];

	(void)state;
	subvols_init(sv);
	report_init(&r, le, 7);
	assert_int_equal(lctl_judge_layout(&r, sv, 7, 0), 0);
	assert_int_equal(r.problems, 0);
	assert_int_equal(r.commit, 7);

	/* the brick of subvolume 2 died between the listing and the layout read (errno 0) */
	report_init(&r, le, 7);
	lctl_note_layout(&le[2], &r.problems, junk, -1, 0);
	assert_int_equal(lctl_judge_layout(&r, sv, 7, 0), 0);
	assert_true(r.problems & LCTL_DIR_UNREADABLE);
	assert_false(r.problems & LCTL_DIR_INCOMPLETE); /* not taken for a missing range */
	assert_true(r.problems & LCTL_DIR_HOLE);	/* its range is not known to anyone */
	assert_int_not_equal(le[2].err, 0);

	/* a subvolume up without a range: incomplete */
	report_init(&r, le, 7);
	le[2].r.start = le[2].r.stop = 0;
	assert_int_equal(lctl_judge_layout(&r, sv, 7, 0), 0);
	assert_true(r.problems & LCTL_DIR_INCOMPLETE);
}

/* One entry as read: commit, start, stop; ABSENT = no layout xattr (ENODATA). */
#define ABSENT 0xdeadu
static void set_entries(struct lctl_dir_report *r, struct lctl_layout_entry le[NSV],
			const uint32_t e[NSV][3])
{
	int i;

	memset(r, 0, sizeof(*r));
	r->nsubvols = NSV;
	r->layout = le;
	for (i = 0; i < NSV; i++) {
		memset(&le[i], 0, sizeof(le[i]));
		le[i].subvol = i;
		if (e[i][0] == ABSENT) {
			le[i].err = ENODATA;
			continue;
		}
		le[i].r.commit = e[i][0];
		le[i].r.type = LCTL_LAYOUT_TYPE_NORMAL;
		le[i].r.start = e[i][1];
		le[i].r.stop = e[i][2];
	}
}

/* judge @e over the 4 subvolumes @sv with volume hash 7 and @spread; the problems */
static unsigned judge(const struct lctl_subvol *sv, const uint32_t e[NSV][3], unsigned spread,
		      uint32_t *commit)
{
	struct lctl_layout_entry le[NSV];
	struct lctl_dir_report r;

	set_entries(&r, le, e);
	assert_int_equal(lctl_judge_layout(&r, sv, 7, spread), 0);
	if (commit)
		*commit = r.commit;
	return r.problems;
}

/*
 * cluster.subvols-per-directory (issue 28): a directory DHT made over 2 of 4 subvolumes,
 * its ranges tiling the hash space, the others 0-0 with commit word 0 (DHT's own, seen on
 * a real volume) or without a layout xattr, is complete with the option at 2, and clean when
 * its ranged entries carry the volume hash. A hole is still a hole; any other number of
 * ranges is incomplete.
 */
static void test_judge_spread(void **state)
{
	struct lctl_subvol sv[NSV];
	uint32_t commit = 0;
	/* what DHT writes on mkdir with the option at 2 (dht-selfheal.c) */
	static const uint32_t dht2[NSV][3] = { { 7, 0x7fffffffu, 0xffffffffu },
					       { 0, 0, 0 },
					       { 7, 0, 0x7ffffffeu },
					       { 0, 0, 0 } };
	static const uint32_t absent2[NSV][3] = { { 7, 0x7fffffffu, 0xffffffffu },
						  { ABSENT },
						  { 7, 0, 0x7ffffffeu },
						  { 0, 0, 0 } };
	/* a range lost: the other one does not cover the space */
	static const uint32_t hole[NSV][3] = { { 7, 0x80000000u, 0xffffffffu },
					       { 0, 0, 0 },
					       { 7, 0, 0x7ffffffeu },
					       { 0, 0, 0 } };
	/* the space covered, but over one subvolume only */
	static const uint32_t one[NSV][3] = { { 7, 0, 0xffffffffu },
					      { 0, 0, 0 },
					      { 0, 0, 0 },
					      { 0, 0, 0 } };
	static const uint32_t three[NSV][3] = {
		{ 7, 0, 0x55555554u },
		{ 7, 0x55555555u, 0xaaaaaaa9u },
		{ 7, 0xaaaaaaaau, 0xffffffffu },
		{ 0, 0, 0 },
	};
	/* the 0-0 entries with another commit word than DHT's 0: mixed indeed */
	static const uint32_t mixed[NSV][3] = { { 7, 0x7fffffffu, 0xffffffffu },
						{ 5, 0, 0 },
						{ 7, 0, 0x7ffffffeu },
						{ 0, 0, 0 } };
	static const uint32_t dirty[NSV][3] = { { 1, 0x7fffffffu, 0xffffffffu },
						{ 0, 0, 0 },
						{ 1, 0, 0x7ffffffeu },
						{ 0, 0, 0 } };
	struct lctl_layout_entry le[NSV];
	struct lctl_dir_report r;

	(void)state;
	subvols_init(sv);
	assert_int_equal(judge(sv, dht2, 2, &commit), 0);
	assert_int_equal(commit, 7);
	assert_int_equal(judge(sv, absent2, 2, NULL), 0);
	/* without the option (or with it at the subvolume count or above) all 4 must be ranged */
	assert_true(judge(sv, dht2, 0, NULL) & LCTL_DIR_INCOMPLETE);
	assert_true(judge(sv, dht2, 4, NULL) & LCTL_DIR_INCOMPLETE);
	assert_true(judge(sv, dht2, 9, NULL) & LCTL_DIR_INCOMPLETE);
	/* and without the option the 0 words make it commit-mixed, as before */
	assert_true(judge(sv, dht2, 0, NULL) & LCTL_DIR_COMMIT_MIXED);
	/* a hole is not a spread */
	assert_int_equal(judge(sv, hole, 2, NULL), LCTL_DIR_HOLE);
	/* fewer or more ranges than the option: incomplete */
	assert_true(judge(sv, one, 2, NULL) & LCTL_DIR_INCOMPLETE);
	assert_true(judge(sv, three, 2, NULL) & LCTL_DIR_INCOMPLETE);
	/* ...and complete with the option at their number */
	assert_int_equal(judge(sv, three, 3, NULL), 0);
	assert_int_equal(judge(sv, one, 1, NULL), 0);
	/* every subvolume ranged is complete whatever the option (DHT leaves it alone too) */
	report_init(&r, le, 7);
	assert_int_equal(lctl_judge_layout(&r, sv, 7, 2), 0);
	assert_int_equal(r.problems, 0);
	/* commit words: another word than 0 on a 0-0 entry is mixed; 1 is dirty */
	assert_int_equal(judge(sv, mixed, 2, NULL), LCTL_DIR_COMMIT_MIXED);
	assert_int_equal(judge(sv, dirty, 2, NULL), LCTL_DIR_UNSTAMPED);
	/* a subvolume being drained does not count: 2 of the other 3 is complete... */
	sv[1].leaving = true;
	assert_int_equal(judge(sv, dht2, 2, NULL), 0);
	/* ...but the range of a leaving one is decommissioned, and the rest incomplete */
	sv[1].leaving = false;
	sv[0].leaving = true;
	assert_true(judge(sv, dht2, 2, NULL) & LCTL_DIR_DECOMMISSIONED);
	assert_true(judge(sv, dht2, 2, NULL) & LCTL_DIR_INCOMPLETE);
	/* with 2 taking part, the option at 2 is all of them */
	sv[1].leaving = true;
	assert_true(judge(sv, dht2, 2, NULL) & LCTL_DIR_INCOMPLETE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_scan),
		cmocka_unit_test(test_table_explain),
		cmocka_unit_test(test_no_copy),
		cmocka_unit_test(test_layout_read_failures),
		cmocka_unit_test(test_judge_layout),
		cmocka_unit_test(test_linkto_read),
		cmocka_unit_test(test_stale_fix),
		cmocka_unit_test(test_copy_kind),
		cmocka_unit_test(test_linkto_being_made),
		cmocka_unit_test(test_user_modes_verdict),
		cmocka_unit_test(test_judge_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
