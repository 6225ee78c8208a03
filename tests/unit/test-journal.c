/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: the fix journal: round trip, and corrupt or truncated files refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "journal.h"
#include "tmpdir.h"

static void sample(struct lctl_journal *j)
{
	memset(j, 0, sizeof(*j));
	strcpy(j->volume, "vol1");
	strcpy(j->run, "1796215036-4242");
	j->started = 1796215036;
	strcpy(j->scope, "/a dir/\x01odd\\name/\xc3\xa9");
	j->mode = LCTL_FIX_LINKTO;
	j->planner = LCTL_PLANNER_MINMOVE;
	j->commit = 1484818361;
	strcpy(j->phase, "work");
}

static char *tmpdir(void)
{
	char *d = unit_tmpdir("journal");

	assert_non_null(d);
	return d;
}

static char *slurp(const char *dir, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf = calloc(1, 65536);

	snprintf(path, sizeof(path), "%s/journal", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void cleanup(char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/journal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/modes", dir);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_roundtrip(void **state)
{
	struct lctl_journal a, b;
	char *dir = tmpdir(), path[512];
	struct stat st;

	(void)state;
	sample(&a);
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	snprintf(path, sizeof(path), "%s/journal", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(lctl_journal_read(dir, &b, NULL), 0);
	assert_string_equal(b.volume, a.volume);
	assert_string_equal(b.run, a.run);
	assert_string_equal(b.scope, a.scope);
	assert_int_equal(b.started, a.started);
	assert_int_equal(b.mode, a.mode);
	assert_int_equal(b.planner, a.planner);
	assert_int_equal(b.commit, a.commit);
	assert_string_equal(b.phase, "work");
	assert_false(b.force_move);
	cleanup(dir);
}

/*
 * --force-move and --phase clean are kept by a line of their own each, absent otherwise
 * (journals written before them)
 */
static void test_flags(void **state)
{
	struct lctl_journal a, b;
	char *dir = tmpdir(), *text;
	size_t len;
	int i;

	(void)state;
	sample(&a);
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	text = slurp(dir, &len);
	assert_null(strstr(text, "force-move"));
	assert_null(strstr(text, "clean-only"));
	assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
	assert_false(b.force_move);
	assert_false(b.clean_only);
	free(text);
	for (i = 1; i < 4; i++) {
		a.force_move = i & 1;
		a.clean_only = i & 2;
		assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
		text = slurp(dir, &len);
		assert_int_equal(!!strstr(text, "\nforce-move 1\n"), a.force_move);
		assert_int_equal(!!strstr(text, "\nclean-only 1\n"), a.clean_only);
		assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
		assert_int_equal(b.force_move, a.force_move);
		assert_int_equal(b.clean_only, a.clean_only);
		assert_int_equal(b.commit, a.commit);
		assert_string_equal(b.phase, a.phase);
		free(text);
	}
	cleanup(dir);
}

/* every phase a run goes through round-trips, "place" (the pool's workers) too; others fail */
static void test_phases(void **state)
{
	static const char *const ok[] = { "dirty", "place", "work", "data", "done", "stopped" };
	struct lctl_journal a, b;
	char *dir = tmpdir(), *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sample(&a);
		strcpy(a.phase, ok[i]);
		assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
		text = slurp(dir, &len);
		assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
		assert_string_equal(b.phase, ok[i]);
		free(text);
	}
	sample(&a);
	strcpy(a.phase, "placing");
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	text = slurp(dir, &len);
	assert_int_not_equal(lctl_journal_parse(text, len, &b, NULL), 0);
	free(text);
	cleanup(dir);
}

/* every fix mode survives the journal by name; an unknown one is refused */
static void test_modes_by_name(void **state)
{
	static const enum lctl_fix_mode modes[] = { LCTL_FIX_MIGRATE, LCTL_FIX_LINKTO,
						    LCTL_FIX_CLEAN_FIRST };
	struct lctl_journal a, b;
	enum lctl_fix_mode m;
	char *dir = tmpdir(), *text, *p;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		sample(&a);
		a.mode = modes[i];
		assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
		text = slurp(dir, &len);
		assert_non_null(strstr(text, lctl_fix_mode_name(modes[i])));
		assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
		assert_int_equal(b.mode, modes[i]);
		assert_int_equal(lctl_fix_mode_parse(lctl_fix_mode_name(modes[i]), &m), 0);
		assert_int_equal(m, modes[i]);
		free(text);
	}
	assert_string_equal(lctl_fix_mode_name(LCTL_FIX_CLEAN_FIRST), "clean-first");
	assert_null(lctl_fix_mode_name(-1));
	assert_null(lctl_fix_mode_name(3));
	assert_int_equal(lctl_fix_mode_parse("clean", &m), -LCTL_EINVAL);
	assert_int_equal(lctl_fix_mode_parse("", &m), -LCTL_EINVAL);
	/* a journal naming a mode that does not exist does not parse (CRC recomputed) */
	sample(&a);
	a.mode = LCTL_FIX_CLEAN_FIRST;
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	text = slurp(dir, &len);
	p = strstr(text, "clean-first");
	assert_non_null(p);
	memcpy(p, "clean-fast!", 11);
	p = strstr(text, "crc32 ");
	assert_non_null(p);
	snprintf(p, len - (size_t)(p - text) + 1, "crc32 %08x\n",
		 (uint32_t)crc32_z(0, (const Bytef *)text, (size_t)(p - text)));
	assert_int_equal(lctl_journal_parse(text, len, &b, NULL), -LCTL_ECORRUPT);
	memcpy(strstr(text, "clean-fast!"), "clean-first", 11);
	p = strstr(text, "crc32 ");
	snprintf(p, len - (size_t)(p - text) + 1, "crc32 %08x\n",
		 (uint32_t)crc32_z(0, (const Bytef *)text, (size_t)(p - text)));
	assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0); /* the same bytes, valid */
	free(text);
	cleanup(dir);
}

/* a scope that leaves the volume (written by hand, CRC and all) is refused, as on the command line */
static void test_scope_checked(void **state)
{
	static const char *const bad[] = { "/../../etc", "/a/./b", "/a/..", "/.", "relative" };
	static const char *const ok[] = { "/", "/a/..b", "/.hidden", "/a b/c\\d" };
	struct lctl_journal a, b;
	char *dir = tmpdir(), *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sample(&a);
		snprintf(a.scope, sizeof(a.scope), "%s", bad[i]);
		assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
		text = slurp(dir, &len);
		assert_int_not_equal(lctl_journal_parse(text, len, &b, NULL), 0);
		free(text);
	}
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sample(&a);
		snprintf(a.scope, sizeof(a.scope), "%s", ok[i]);
		assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
		text = slurp(dir, &len);
		assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
		assert_string_equal(b.scope, ok[i]);
		free(text);
	}
	cleanup(dir);
}

/*
 * Parse a journal of the required lines (mode @mode, phase @phase) followed by @extra, with a
 * good checksum: what the parser says of @extra alone. @b receives the result.
 */
static int parse_with(const char *mode, const char *phase, const char *extra,
		      struct lctl_journal *b)
{
	char text[1024];
	size_t len;

	len = (size_t)snprintf(text, sizeof(text),
			       "layoutctl-journal 1\nvolume v\nrun r\nstarted 1\nscope /\n"
			       "mode %s\nlayout gluster\ncommit 7\nphase %s\n%s",
			       mode, phase, extra);
	len += (size_t)snprintf(text + len, sizeof(text) - len, "crc32 %08x\n",
				(uint32_t)crc32_z(0, (const Bytef *)text, len));
	return lctl_journal_parse(text, len, b, NULL);
}

/* a flag line with another value, or twice, is refused like any bad line */
static void test_flags_bad(void **state)
{
	static const char *const bad[] = {
		"force-move 0\n", "force-move yes\n", "force-move 1\nforce-move 1\n",
		"clean-only 0\n", "clean-only\n",     "clean-only 1\nclean-only 1\n"
	};
	struct lctl_journal b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_with("migrate", "work", bad[i], &b), -LCTL_ECORRUPT);
	/* the same text with good lines parses: the refusals above are the lines' */
	assert_int_equal(parse_with("migrate", "work", "force-move 1\nclean-only 1\n", &b), 0);
	assert_true(b.force_move);
	assert_true(b.clean_only);
}

/* a drain's subvolumes: kept by a line of its own; a malformed or repeated one is refused */
static void test_drain(void **state)
{
	static const char *const bad[] = { "drain \n",		 "drain a,,b\n",    "drain ,a\n",
					   "drain a,\n",	 "drain a b\n",	    "drain a\\b\n",
					   "drain a\ndrain b\n", "drain \xc3\xa9\n" };
	struct lctl_journal a, b;
	char *dir = tmpdir(), *t;
	size_t i, len;

	(void)state;
	sample(&a);
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	t = slurp(dir, &len);
	assert_null(strstr(t, "drain"));
	free(t);
	snprintf(a.drain, sizeof(a.drain), "v-client-2,v-replicate-10");
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	assert_int_equal(lctl_journal_read(dir, &b, NULL), 0);
	assert_string_equal(b.drain, "v-client-2,v-replicate-10");
	cleanup(dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_with("migrate", "work", bad[i], &b), -LCTL_ECORRUPT);
}

/* when every directory became clean: an optional line, written only once there is a time */
static void test_clean_since(void **state)
{
	static const char *const bad[] = { "clean-since 0\n",
					   "clean-since -5\n",
					   "clean-since +5\n",
					   "clean-since 12x\n",
					   "clean-since \n",
					   "clean-since 99999999999999999999\n",
					   "clean-since 5\nclean-since 6\n" };
	struct lctl_journal a, b;
	char *dir = tmpdir(), *t;
	size_t i, len;

	(void)state;
	sample(&a);
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	t = slurp(dir, &len);
	assert_null(strstr(t, "clean-since"));
	free(t);
	assert_int_equal(lctl_journal_read(dir, &b, NULL), 0);
	assert_int_equal(b.clean_since, 0);
	a.clean_since = 1796000000;
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	t = slurp(dir, &len);
	assert_non_null(strstr(t, "\nclean-since 1796000000\n"));
	free(t);
	assert_int_equal(lctl_journal_read(dir, &b, NULL), 0);
	assert_int_equal(b.clean_since, 1796000000);
	cleanup(dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_with("clean-first", "data", bad[i], &b), -LCTL_ECORRUPT);
	/* and a good one parses: the refusals are the lines' */
	assert_int_equal(parse_with("clean-first", "data", "clean-since 1796000000\n", &b), 0);
	assert_int_equal(b.clean_since, 1796000000);
}

static void test_truncated_and_corrupt(void **state)
{
	struct lctl_journal a, b;
	struct lctl_error err;
	char *dir = tmpdir(), *text;
	size_t len, cut;

	(void)state;
	sample(&a);
	assert_int_equal(lctl_journal_write(dir, &a, NULL), 0);
	text = slurp(dir, &len);
	/* every truncation is refused */
	for (cut = 0; cut < len; cut++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(lctl_journal_parse(text, cut, &b, &err), -LCTL_ECORRUPT);
		assert_int_equal(err.code, LCTL_ECORRUPT);
		assert_true(err.msg[0] != '\0');
	}
	/* every single flipped bit is refused */
	for (cut = 0; cut < len * 8; cut += 3) {
		text[cut / 8] ^= (char)(1 << (cut % 8));
		assert_int_equal(lctl_journal_parse(text, len, &b, NULL), -LCTL_ECORRUPT);
		text[cut / 8] ^= (char)(1 << (cut % 8));
	}
	assert_int_equal(lctl_journal_parse(text, len, &b, NULL), 0);
	free(text);
	cleanup(dir);
}

static void test_missing(void **state)
{
	struct lctl_journal b;
	char *dir = tmpdir();

	(void)state;
	assert_int_equal(lctl_journal_read(dir, &b, NULL), -LCTL_EINVAL);
	cleanup(dir);
}

static void test_crc32(void **state)
{
	(void)state;
	/* the journal's check is zlib's CRC-32/ISO-HDLC (journals of earlier builds read): its
	 * standard check value */
	assert_int_equal((uint32_t)crc32_z(0, (const Bytef *)"123456789", 9), 0xcbf43926u);
	assert_int_equal((uint32_t)crc32_z(0, (const Bytef *)"", 0), 0);
}

static void gfid_of(unsigned char g[16], unsigned i)
{
	uint64_t x = i * 0x9e3779b97f4a7c15ull + 1;
	unsigned k;

	for (k = 0; k < 16; k++) {
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
		g[k] = (unsigned char)(x >> 56);
	}
	g[0] = (unsigned char)i; /* distinct for i < 256 whatever the mixing does */
	g[1] = (unsigned char)(i >> 8);
}

/* Kept modes: what was synced is found again after a reopen; the newest record of a gfid wins. */
static void test_modes_roundtrip(void **state)
{
	struct lctl_modes m;
	struct lctl_error err;
	unsigned char g[16];
	char *dir = tmpdir();
	mode_t mode;
	unsigned i;

	(void)state;
	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	for (i = 1; i <= 1000; i++) {
		gfid_of(g, i);
		assert_int_equal(lctl_modes_keep(&m, g, i % 2 ? 02755 : 01644), 0);
	}
	gfid_of(g, 7);
	assert_int_equal(lctl_modes_keep(&m, g, 03750), 0);
	assert_int_equal(m.n, 1000);
	lctl_modes_close(&m, dir, false);

	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	assert_int_equal(m.n, 1000);
	for (i = 1; i <= 1000; i++) {
		gfid_of(g, i);
		assert_true(lctl_modes_find(&m, g, &mode));
		assert_int_equal(mode, i == 7 ? 03750 : i % 2 ? 02755 : 01644);
	}
	gfid_of(g, 1001);
	assert_false(lctl_modes_find(&m, g, &mode));
	/* forget: the file goes */
	lctl_modes_close(&m, dir, true);
	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	assert_int_equal(m.n, 0);
	lctl_modes_close(&m, dir, true);
	cleanup(dir);
}

/* A torn last line, a flipped bit and junk are skipped; the good records around them count. */
static void test_modes_torn(void **state)
{
	struct lctl_modes m;
	struct lctl_error err;
	unsigned char g[16];
	char *dir = tmpdir(), path[512], *buf;
	size_t len;
	mode_t mode;
	FILE *f;

	(void)state;
	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	gfid_of(g, 1);
	assert_int_equal(lctl_modes_keep(&m, g, 02755), 0);
	gfid_of(g, 2);
	assert_int_equal(lctl_modes_keep(&m, g, 02700), 0);
	lctl_modes_close(&m, dir, false);

	snprintf(path, sizeof(path), "%s/modes", dir);
	f = fopen(path, "r+");
	assert_non_null(f);
	buf = calloc(1, 4096);
	len = fread(buf, 1, 4095, f);
	assert_int_equal(len, 2 * 47);
	buf[47 + 34] ^= 1; /* the second record's mode: its CRC no longer matches */
	rewind(f);
	fwrite(buf, 1, len, f);
	fputs("junk line\n", f);
	fwrite(buf, 1, 20, f); /* torn: no newline */
	fclose(f);
	free(buf);

	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	assert_int_equal(m.n, 1);
	gfid_of(g, 1);
	assert_true(lctl_modes_find(&m, g, &mode));
	assert_int_equal(mode, 02755);
	gfid_of(g, 2);
	assert_false(lctl_modes_find(&m, g, &mode));
	/* a record appended after the torn line is read back whole */
	gfid_of(g, 3);
	assert_int_equal(lctl_modes_keep(&m, g, 01600), 0);
	lctl_modes_close(&m, dir, false);
	assert_int_equal(lctl_modes_open(&m, dir, &err), 0);
	assert_int_equal(m.n, 2);
	assert_true(lctl_modes_find(&m, g, &mode));
	assert_int_equal(mode, 01600);
	lctl_modes_close(&m, dir, true);
	cleanup(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_modes_by_name),
		cmocka_unit_test(test_scope_checked),
		cmocka_unit_test(test_flags_bad),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_clean_since),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_modes_roundtrip),
		cmocka_unit_test(test_modes_torn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
