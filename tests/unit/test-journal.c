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

#include "journal.h"

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
	char tmpl[] = "/tmp/lctl-journal-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
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
	cleanup(dir);
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
	/* the standard check value of CRC-32/ISO-HDLC */
	assert_int_equal(lctl_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(lctl_crc32("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_crc32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
