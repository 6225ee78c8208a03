/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: N migrations at a time per subvolume (lib/migrationlimit.c; also run under TSan in CI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "migrationlimit.h"

#define NSUB 5

static void test_disjoint_pairs(void **state)
{
	struct lctl_slots s;

	(void)state;
	assert_int_equal(lctl_slots_init(&s, NSUB, 1), 0);
	assert_true(lctl_slots_take(&s, 0, 1, NULL, NULL));
	assert_true(lctl_slots_take(&s, 2, 3, NULL, NULL));
	/* an index outside the set waits for nothing */
	assert_true(lctl_slots_take(&s, -1, 4, NULL, NULL));
	lctl_slots_put(&s, -1, 4);
	lctl_slots_put(&s, 2, 3);
	lctl_slots_put(&s, 0, 1);
	/* everything free again: the same pairs cross over without waiting */
	assert_true(lctl_slots_take(&s, 0, 3, NULL, NULL));
	assert_true(lctl_slots_take(&s, 2, 1, NULL, NULL));
	lctl_slots_put(&s, 0, 3);
	lctl_slots_put(&s, 2, 1);
	lctl_slots_destroy(&s);
	lctl_slots_destroy(&s); /* twice is harmless */
}

static bool stop_now(void *arg)
{
	(void)arg;
	return true;
}

/* With a capacity of 2 a subvolume takes two migrations, not a third; the same index as source
 * and target counts once. */
static void test_capacity(void **state)
{
	struct lctl_slots s;

	(void)state;
	assert_int_equal(lctl_slots_init(&s, NSUB, 2), 0);
	assert_true(lctl_slots_take(&s, 0, 1, NULL, NULL));
	assert_true(lctl_slots_take(&s, 0, 2, NULL, NULL));
	/* 0 is full: the third waits, and gives up when asked to stop, holding nothing */
	assert_false(lctl_slots_take(&s, 3, 0, stop_now, NULL));
	assert_true(lctl_slots_take(&s, 3, 1, NULL, NULL)); /* 1 has room for one more */
	assert_false(lctl_slots_take(&s, 1, 4, stop_now, NULL));
	lctl_slots_put(&s, 0, 2);
	assert_true(lctl_slots_take(&s, 4, 0, NULL, NULL)); /* room again on 0 */
	lctl_slots_put(&s, 4, 0);
	lctl_slots_put(&s, 3, 1);
	lctl_slots_put(&s, 0, 1);
	/* all free: 2 holds two, even named twice in one take */
	assert_true(lctl_slots_take(&s, 2, 2, NULL, NULL));
	assert_true(lctl_slots_take(&s, 2, 3, NULL, NULL));
	assert_false(lctl_slots_take(&s, 2, 4, stop_now, NULL));
	lctl_slots_put(&s, 2, 2);
	lctl_slots_put(&s, 2, 3);
	lctl_slots_destroy(&s);

	/* the same with capacity 1: a second migration from 0 waits */
	assert_int_equal(lctl_slots_init(&s, NSUB, 1), 0);
	assert_true(lctl_slots_take(&s, 0, 1, NULL, NULL));
	assert_false(lctl_slots_take(&s, 0, 2, stop_now, NULL));
	lctl_slots_put(&s, 0, 1);
	lctl_slots_destroy(&s);
}

/* Many threads, random pairs: no subvolume is ever used by two holders at once. */
struct race {
	struct lctl_slots s;
	atomic_int users[NSUB];
	atomic_int overlaps;
	atomic_uint done;
};

static void *racer(void *arg)
{
	struct race *r = arg;
	unsigned seed = (unsigned)(uintptr_t)pthread_self(), i;

	for (i = 0; i < 300; i++) {
		int a = (int)(rand_r(&seed) % NSUB), b = (int)(rand_r(&seed) % NSUB);

		if (a == b)
			b = (a + 1) % NSUB;
		if (!lctl_slots_take(&r->s, a, b, NULL, NULL))
			continue;
		if (atomic_fetch_add(&r->users[a], 1) || atomic_fetch_add(&r->users[b], 1))
			atomic_fetch_add(&r->overlaps, 1);
		usleep(50);
		atomic_fetch_sub(&r->users[a], 1);
		atomic_fetch_sub(&r->users[b], 1);
		lctl_slots_put(&r->s, a, b);
		atomic_fetch_add(&r->done, 1);
	}
	return NULL;
}

static void test_exclusive(void **state)
{
	struct race r = { 0 };
	pthread_t t[8];
	int i;

	(void)state;
	assert_int_equal(lctl_slots_init(&r.s, NSUB, 0), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&t[i], NULL, racer, &r), 0);
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&r.overlaps), 0);
	assert_int_equal(atomic_load(&r.done), 8 * 300);
	lctl_slots_destroy(&r.s);
}

/* A waiter is released by a put, or gives up when its stop hook says so, taking nothing. */
struct waiter {
	struct lctl_slots *s;
	atomic_bool stop;
	atomic_int asked;
	atomic_int result; /* -1 running, 0 gave up, 1 took */
};

static bool ask_stop(void *arg)
{
	struct waiter *w = arg;

	atomic_fetch_add(&w->asked, 1);
	return atomic_load(&w->stop);
}

static void *wait_for(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->result, lctl_slots_take(w->s, 1, 2, ask_stop, w) ? 1 : 0);
	return NULL;
}

/* Until the waiter has asked its stop hook (it waits), or it finished (it did not wait). */
static void until_waiting(struct waiter *w)
{
	int i;

	for (i = 0; i < 500 && atomic_load(&w->asked) < 1 && atomic_load(&w->result) < 0; i++)
		usleep(10000);
}

static void test_wait_and_stop(void **state)
{
	struct lctl_slots s;
	struct waiter w = { .s = &s };
	pthread_t t;

	(void)state;
	alarm(60); /* a waiter that is never released fails the test instead of hanging it */
	assert_int_equal(lctl_slots_init(&s, NSUB, 1), 0);

	/* released by a put */
	atomic_store(&w.result, -1);
	assert_true(lctl_slots_take(&s, 2, 3, NULL, NULL));
	assert_int_equal(pthread_create(&t, NULL, wait_for, &w), 0);
	until_waiting(&w);
	assert_int_equal(atomic_load(&w.result), -1); /* still waiting for subvolume 2 */
	lctl_slots_put(&s, 2, 3);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&w.result), 1);
	lctl_slots_put(&s, 1, 2);

	/* stopped while waiting: gives up and holds nothing */
	atomic_store(&w.result, -1);
	atomic_store(&w.asked, 0);
	assert_true(lctl_slots_take(&s, 0, 1, NULL, NULL));
	assert_int_equal(pthread_create(&t, NULL, wait_for, &w), 0);
	until_waiting(&w);
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&w.result), 0);
	assert_true(lctl_slots_take(&s, 2, 3, NULL, NULL)); /* 2 was not left taken */
	lctl_slots_put(&s, 2, 3);
	lctl_slots_put(&s, 0, 1);
	lctl_slots_destroy(&s);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disjoint_pairs),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_wait_and_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
