/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: DHT's free-space balance check as layoutctl predicts it to explain an EPERM from
 * a migration (GlusterFS 10.3 __dht_check_free_space(): whole percent of free 512-byte sectors,
 * the target's below the source's refuses).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "repair.h"

static struct statvfs fs(unsigned long frsize, fsblkcnt_t blocks, fsblkcnt_t bavail)
{
	struct statvfs s;

	memset(&s, 0, sizeof(s));
	s.f_frsize = frsize;
	s.f_bsize = frsize;
	s.f_blocks = blocks;
	s.f_bavail = bavail;
	s.f_bfree = bavail;
	return s;
}

static void test_fuller_target_refused(void **state)
{
	struct statvfs src = fs(4096, 1000, 820), dst = fs(4096, 1000, 250);

	(void)state;
	assert_true(lctl_dht_balance_refuses(&src, &dst));
	/* the other way round the target has more room: moved */
	assert_false(lctl_dht_balance_refuses(&dst, &src));
}

static void test_whole_percent(void **state)
{
	/* 82.0% and 81.9%: different whole percent, refused; 82.9% and 82.0%: same, moved */
	struct statvfs src = fs(4096, 1000, 820), dst = fs(4096, 1000, 819);
	struct statvfs a = fs(4096, 1000, 829), b = fs(4096, 1000, 820);

	(void)state;
	assert_true(lctl_dht_balance_refuses(&src, &dst));
	assert_false(lctl_dht_balance_refuses(&a, &b));
	/* equal: moved (bricks sharing one filesystem, nothing written between the statfs) */
	assert_false(lctl_dht_balance_refuses(&src, &src));
}

static void test_sizes_differ(void **state)
{
	/* percentages, not sizes: a small target half free against a big source 40% free */
	struct statvfs big = fs(4096, 1u << 30, (1u << 30) / 10 * 4), small = fs(1024, 8192, 4096);

	(void)state;
	assert_false(lctl_dht_balance_refuses(&big, &small));
	assert_true(lctl_dht_balance_refuses(&small, &big));
}

static void test_unknown(void **state)
{
	/* a filesystem that reports no size, or a fragment below one sector: no prediction */
	struct statvfs ok = fs(4096, 1000, 900), empty = fs(4096, 0, 0), tiny = fs(256, 1000, 10);

	(void)state;
	assert_false(lctl_dht_balance_refuses(&ok, &empty));
	assert_false(lctl_dht_balance_refuses(&ok, &tiny));
	assert_false(lctl_dht_balance_refuses(&empty, &ok));
}

/* the data phase of clean-first: what may move while its directory stays stamped */
static void test_clean_place(void **state)
{
	struct lctl_entry_report e = { .cached = 0, .hashed = 1, .target = 1 };
	const mode_t special[] = { S_IFLNK | 0777, S_IFCHR | 0600,  S_IFBLK | 0600,
				   S_IFIFO | 0600, S_IFSOCK | 0600, 0 };
	size_t i;

	(void)state;
	e.state = LCTL_ENTRY_PLACED;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_CLEAN);
	e.mode = S_IFREG | 0644;
	e.state = LCTL_ENTRY_LINKED;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_CLEAN);
	e.state = LCTL_ENTRY_MISPLACED;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_CLEAN);
	/*
	 * DHT removes the linkto before it makes a special file on the hashed subvolume: the
	 * directory goes dirty for it, after its regular files moved
	 */
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		e.mode = special[i];
		e.state = LCTL_ENTRY_LINKED;
		assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_DIRTY_AFTER);
		e.state = LCTL_ENTRY_MISPLACED;
		assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_DIRTY_AFTER);
	}
	e.mode = S_IFREG | 0644;
	e.state = LCTL_ENTRY_DUPLICATE;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_DIRTY);
	e.state = LCTL_ENTRY_STALE_LINKTO;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_DIRTY);
	e.cached = 1;
	assert_int_equal(lctl_repair_clean_place(&e), LCTL_PLACE_CLEAN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuller_target_refused), cmocka_unit_test(test_whole_percent),
		cmocka_unit_test(test_sizes_differ),	      cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_clean_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
