/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: how a fix counts what it did (issue 28). A directory's placing rounds and a
 * clean-first run's two phases meet a file they cannot move again and again: a fix of 8
 * setgid+sticky files once printed "skipped 48", and "migrated 39" for the 41 names of one
 * hard-linked file. A name counts once per action in a directory (lctl_outcomes_unique()),
 * and the names of a hard-linked file are one file (lctl_outcomes_count_files()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outcomes.h"

#include <unistd.h>

static struct lctl_file_outcome out(const char *name, enum lctl_file_action a, nlink_t nlink,
				    uint64_t ino)
{
	struct lctl_file_outcome o;

	memset(&o, 0, sizeof(o));
	o.name = strdup(name);
	assert_non_null(o.name);
	o.action = a;
	o.from = o.to = -1;
	o.nlink = nlink;
	o.ino = ino;
	return o;
}

/* 8 leftovers skipped in each of 3 rounds, a failure then a move, a link made twice */
static void test_unique_rounds(void **state)
{
	struct lctl_file_outcome v[32];
	uint64_t count[LCTL_FILE_ACTION_COUNT] = { 0 }, dropped[LCTL_FILE_ACTION_COUNT] = { 0 };
	char name[16];
	size_t n = 0, k;
	int round, i;

	(void)state;
	for (round = 0; round < 3; round++)
		for (i = 1; i <= 8; i++) {
			snprintf(name, sizeof(name), "f%d", i);
			v[n++] = out(name, LCTL_FILE_SKIPPED, 1, 0);
			count[LCTL_FILE_SKIPPED]++;
		}
	v[n++] = out("g", LCTL_FILE_FAILED, 1, 0);
	v[n++] = out("g", LCTL_FILE_MIGRATED, 1, 0);
	v[n++] = out("h", LCTL_FILE_LINKED, 1, 0);
	v[n++] = out("h", LCTL_FILE_LINKED, 1, 0);
	count[LCTL_FILE_FAILED] = 1;
	count[LCTL_FILE_MIGRATED] = 1;
	count[LCTL_FILE_LINKED] = 2;
	k = lctl_outcomes_unique(v, n, count, dropped);
	assert_int_equal(k, 8 + 3);
	assert_int_equal(count[LCTL_FILE_SKIPPED], 8);
	assert_int_equal(dropped[LCTL_FILE_SKIPPED], 16);
	/* a failure then a move are two actions: both stay */
	assert_int_equal(count[LCTL_FILE_FAILED], 1);
	assert_int_equal(count[LCTL_FILE_MIGRATED], 1);
	assert_int_equal(count[LCTL_FILE_LINKED], 1);
	assert_int_equal(dropped[LCTL_FILE_LINKED], 1);
	/* the first of each kept, in their order */
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "f%d", i + 1);
		assert_string_equal(v[i].name, name);
	}
	assert_string_equal(v[8].name, "g");
	assert_int_equal(v[8].action, LCTL_FILE_FAILED);
	assert_string_equal(v[9].name, "g");
	assert_int_equal(v[9].action, LCTL_FILE_MIGRATED);
	assert_string_equal(v[10].name, "h");
	for (k = 0; k < 11; k++)
		free(v[k].name);
	/* nothing to drop, and no list */
	assert_int_equal(lctl_outcomes_unique(NULL, 0, NULL, NULL), 0);
	v[0] = out("a", LCTL_FILE_SKIPPED, 1, 0);
	v[1] = out("b", LCTL_FILE_SKIPPED, 1, 0);
	assert_int_equal(lctl_outcomes_unique(v, 2, NULL, NULL), 2);
	free(v[0].name);
	free(v[1].name);
}

/* 41 names of one hard-linked file, over two directories' reports, and files of their own */
static void test_count_files(void **state)
{
	struct lctl_repair_report a = { 0 }, b = { 0 };
	struct lctl_file_outcome va[40], vb[4];
	uint64_t files[LCTL_FILE_ACTION_COUNT] = { 0 };
	struct lctl_file_set seen = { 0 };
	char name[16];
	size_t i;

	(void)state;
	for (i = 0; i < 39; i++) {
		snprintf(name, sizeof(name), "n%zu", i);
		va[i] = out(name, LCTL_FILE_MIGRATED, 41, 0xfeed);
	}
	va[39] = out("single", LCTL_FILE_MIGRATED, 1, 0);
	a.files = va;
	a.nfiles = 40;
	a.count[LCTL_FILE_MIGRATED] = 40;
	vb[0] = out("n39", LCTL_FILE_SKIPPED, 41, 0xfeed);
	vb[1] = out("n40", LCTL_FILE_SKIPPED, 41, 0xfeed);
	/* another hard-linked file, and one whose gfid is unknown: each counted */
	vb[2] = out("other", LCTL_FILE_SKIPPED, 2, 0xbeef);
	vb[3] = out("unknown", LCTL_FILE_SKIPPED, 2, 0);
	b.files = vb;
	b.nfiles = 4;
	b.count[LCTL_FILE_SKIPPED] = 4 + 2; /* two outcomes whose detail was lost */
	lctl_outcomes_count_files(&a, &seen, files);
	assert_int_equal(files[LCTL_FILE_MIGRATED], 2); /* the hard-linked file, and "single" */
	lctl_outcomes_count_files(&b, &seen, files);
	assert_int_equal(files[LCTL_FILE_SKIPPED], 1 + 1 + 1 + 2);
	/* seen again in a later report: counted once per action over the run */
	lctl_outcomes_count_files(&a, &seen, files);
	assert_int_equal(files[LCTL_FILE_MIGRATED], 3); /* "single" is no hard link */
	lctl_file_set_free(&seen);
	for (i = 0; i < 40; i++)
		free(va[i].name);
	for (i = 0; i < 4; i++)
		free(vb[i].name);
}

/* many hard-linked files: the set grows, and each is counted once */
static void test_count_many(void **state)
{
	struct lctl_file_outcome v[2];
	struct lctl_repair_report r = { 0 };
	uint64_t files[LCTL_FILE_ACTION_COUNT] = { 0 };
	struct lctl_file_set seen = { 0 };
	uint64_t ino;

	(void)state;
	v[0] = out("x", LCTL_FILE_SKIPPED, 2, 0);
	v[1] = out("y", LCTL_FILE_SKIPPED, 2, 0);
	r.files = v;
	r.nfiles = 2;
	r.count[LCTL_FILE_SKIPPED] = 2;
	for (ino = 1; ino <= 5000; ino++) {
		v[0].ino = v[1].ino = ino;
		lctl_outcomes_count_files(&r, &seen, files);
	}
	assert_int_equal(files[LCTL_FILE_SKIPPED], 5000);
	for (ino = 1; ino <= 5000; ino++) {
		v[0].ino = v[1].ino = ino;
		lctl_outcomes_count_files(&r, &seen, files);
	}
	assert_int_equal(files[LCTL_FILE_SKIPPED], 5000);
	lctl_file_set_free(&seen);
	free(v[0].name);
	free(v[1].name);
}

/*
 * Issue 26, item 6: the failed files of an outcome log, for fix --retry-failed: the latest
 * outcome of a path wins (failed then migrated is not retried, migrated then failed is), names
 * come back with their own bytes, and what is no outcome line (torn, not JSON, a path with
 * "..") is counted and left out.
 */
static void test_failed_of_log(void **state)
{
	static const char log[] =
		"{\"time\":1,\"path\":\"/d/a\",\"outcome\":\"failed\",\"errno\":28}\n"
		"{\"time\":2,\"path\":\"/d/b\",\"outcome\":\"migrated\"}\n"
		"{\"time\":3,\"path\":\"/d/nl\\\\x0aname\",\"outcome\":\"failed\",\"server\":\"s2\"}\n"
		"{\"time\":4,\"path\":\"/d/a\",\"outcome\":\"migrated\"}\n"
		"{\"time\":5,\"path\":\"/d/b\",\"outcome\":\"failed\"}\n"
		"{\"time\":6,\"path\":\"/d/../etc/passwd\",\"outcome\":\"failed\"}\n"
		"{\"time\":7,\"path\":\"relative\",\"outcome\":\"failed\"}\n"
		"not json\n"
		"{\"time\":8,\"path\":\"/e/c\",\"outcome\":\"failed\"}\n"
		"{\"time\":9,\"path\":\"/e/c\",\"outcome\":\"failed\"}\n"
		"{\"time\":10,\"path\":\"/torn\",\"outcome\":\"fai";
	/* lines saying how many of a pool worker's outcomes were dropped, and how many failed */
	static const char dropped[] =
		"{\"time\":1,\"server\":\"s1\",\"dropped\":5,\"failed\":0}\n"
		"{\"time\":1,\"server\":\"s3\",\"dropped\":5,\"failed\":2}\n"
		"{\"time\":1,\"server\":\"s2\",\"dropped\":7}\n"
		"{\"time\":2,\"server\":\"s3\",\"dropped\":1,\"failed\":1}\n"
		"{\"time\":3,\"path\":\"/d/x\",\"outcome\":\"failed\",\"server\":\"s1\"}\n";
	struct lctl_strv l, inc;
	struct lctl_error err = { 0 };
	char name[] = "/tmp/lctl-outcomes-XXXXXX", name2[] = "/tmp/lctl-outcomes-XXXXXX";
	size_t bad = 0;
	int fd = mkstemp(name);

	(void)state;
	assert_true(fd >= 0);
	unlink(name);
	assert_int_equal(write(fd, log, sizeof(log) - 1), (ssize_t)sizeof(log) - 1);
	assert_int_equal(lctl_outcome_failed(fd, &l, &bad, NULL, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "/d/b");
	assert_string_equal(l.v[1], "/d/nl\nname");
	assert_string_equal(l.v[2], "/e/c");
	assert_int_equal(bad, 4);
	lctl_strv_free(&l);
	close(fd);

	/* a pool worker's dropped outcomes: the servers whose failed ones may be missing, once */
	fd = mkstemp(name2);
	assert_true(fd >= 0);
	unlink(name2);
	assert_int_equal(write(fd, dropped, sizeof(dropped) - 1), (ssize_t)sizeof(dropped) - 1);
	assert_int_equal(lctl_outcome_failed(fd, &l, &bad, &inc, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(bad, 0);
	assert_int_equal(inc.n, 2);
	assert_string_equal(inc.v[0], "s2"); /* no "failed": an older layoutctl's, any may have */
	assert_string_equal(inc.v[1], "s3");
	lctl_strv_free(&inc);
	lctl_strv_free(&l);
	close(fd);

	assert_true(lctl_path_plain("/a/b"));
	assert_false(lctl_path_plain("/"));
	assert_false(lctl_path_plain("/a//b"));
	assert_false(lctl_path_plain("/a/./b"));
	assert_false(lctl_path_plain("/a/.."));
	assert_false(lctl_path_plain("a/b"));
	assert_false(lctl_path_plain("/a/"));
	assert_true(lctl_path_plain("/a/...b/.c"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unique_rounds),
		cmocka_unit_test(test_count_files),
		cmocka_unit_test(test_count_many),
		cmocka_unit_test(test_failed_of_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
