/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: the parallel walker on a synthetic tree (also run under TSan in CI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crawl.h"

/*
 * The wall clock as the crawler sees it (the test links with -Wl,--wrap=clock_gettime):
 * CLOCK_REALTIME is off by wall_skew seconds, as after the administrator or NTP set the time,
 * which CLOCK_MONOTONIC never is.
 */
int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
static _Atomic long wall_skew;

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	int ret = __real_clock_gettime(clk, ts);

	if (!ret && clk == CLOCK_REALTIME)
		ts->tv_sec += atomic_load(&wall_skew);
	return ret;
}

static double mono(void)
{
	struct timespec ts;

	__real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A synthetic tree: directory "/a/b/c" at depth d has fanout(d) children named 0..k-1. */
struct tree {
	unsigned fanout[8];
	unsigned levels;
	atomic_uint visits;
	atomic_uint *seen; /* per directory id, how often visited */
	unsigned ndirs;
	atomic_bool block; /* workers spin while set (pause/cancel tests) */
};

/* Directory id: breadth-first numbering computed from the path digits. */
static unsigned dir_id(const struct tree *t, const char *path)
{
	unsigned id = 0, width = 1, base = 0, d = 0;
	const char *p = path;

	while (*p == '/' && p[1]) {
		char *end;
		unsigned k = (unsigned)strtoul(p + 1, &end, 10);

		p = end;
		base += width;
		id = id * t->fanout[d] + k;
		width *= t->fanout[d];
		d++;
	}
	return base + id;
}

static void *visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct tree *t = arg;
	unsigned *res, i;

	while (atomic_load(&t->block))
		usleep(1000);
	atomic_fetch_add(&t->seen[dir_id(t, path)], 1);
	atomic_fetch_add(&t->visits, 1);
	if (depth < t->levels) {
		for (i = 0; i < t->fanout[depth]; i++) {
			char child[256];

			snprintf(child, sizeof(child), "%s/%u", strcmp(path, "/") ? path : "", i);
			assert_int_equal(lctl_crawl_push(w, child, depth + 1), 0);
		}
	}
	res = malloc(sizeof(*res));
	*res = depth;
	return res;
}

static void drop(void *arg, void *r)
{
	(void)arg;
	free(r);
}

static void tree_init(struct tree *t, unsigned levels, const unsigned *fan)
{
	unsigned d, width = 1;

	memset(t, 0, sizeof(*t));
	t->levels = levels;
	t->ndirs = 1;
	for (d = 0; d < levels; d++) {
		t->fanout[d] = fan[d];
		width *= fan[d];
		t->ndirs += width;
	}
	t->seen = calloc(t->ndirs, sizeof(*t->seen));
}

/* Take every result of @c until the walk is over: how many, and how many were >= 100. */
static unsigned consume(struct lctl_crawl *c, unsigned *big)
{
	unsigned results = 0;
	bool fin = false;

	*big = 0;
	while (!fin) {
		unsigned *r = lctl_crawl_next(c, 100, &fin);

		if (r) {
			results++;
			*big += *r >= 100;
			free(r);
		}
	}
	return results;
}

/* Walk the tree of @levels levels of @fan children each: every directory visited once. */
static void run_walk_tree(unsigned levels, const unsigned *fan, unsigned workers, size_t qcap,
			  size_t rcap)
{
	struct lctl_crawl_cfg cfg = { workers, qcap, rcap, visit, drop, NULL };
	struct lctl_crawl *c;
	struct lctl_crawl_stats st;
	struct tree t;
	unsigned results, big, i;

	tree_init(&t, levels, fan);
	cfg.arg = &t;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
	results = consume(c, &big);
	lctl_crawl_stats(c, &st);
	lctl_crawl_free(c);
	assert_int_equal(results, t.ndirs);
	assert_int_equal(big, 0);
	assert_int_equal(atomic_load(&t.visits), t.ndirs);
	for (i = 0; i < t.ndirs; i++)
		assert_int_equal(atomic_load(&t.seen[i]), 1);
	assert_int_equal(st.dirs_done, t.ndirs);
	assert_int_equal(st.dirs_seen, t.ndirs);
	assert_int_equal(st.pending, 0);
	free(t.seen);
}

static void run_walk(unsigned workers, size_t qcap, size_t rcap)
{
	static const unsigned fan[] = { 7, 5, 4, 3 };

	run_walk_tree(4, fan, workers, qcap, rcap);
}

static void test_walk_each_once(void **state)
{
	(void)state;
	run_walk(1, 0, 0);
	run_walk(4, 0, 0);
	/* tiny queues force the spill stacks and the result back-pressure */
	run_walk(3, 1, 1);
	run_walk(8, 2, 3);
}

/*
 * A wide directory over a tiny queue: the root's worker spills thousands of subdirectories,
 * shares them from the bottom of its stack while it walks the top, and pushes their children
 * onto the same stack meanwhile (taken from both ends; the room at the bottom given back once
 * it is as large as what is left). Every directory once, whatever the interleaving.
 */
static void test_wide_directory(void **state)
{
	static const unsigned fan[] = { 5000, 3 };

	(void)state;
	run_walk_tree(2, fan, 4, 4, 8);
	run_walk_tree(2, fan, 2, 1, 1);
	run_walk_tree(2, fan, 1, 2, 4);
}

/* Each directory at depth 1 hands the consumer a second result (lctl_crawl_emit()). */
static void *visit_emit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	unsigned *extra;

	if (depth == 1) {
		extra = malloc(sizeof(*extra));
		*extra = 100 + depth;
		lctl_crawl_emit(w, extra);
	}
	return visit(arg, w, path, depth);
}

static void test_emit(void **state)
{
	static const unsigned fan[] = { 6, 3 };
	size_t rcap[] = { 0, 1, 2 };
	unsigned k;

	(void)state;
	for (k = 0; k < 3; k++) {
		struct lctl_crawl_cfg cfg = { 3, 0, rcap[k], visit_emit, drop, NULL };
		unsigned results, extras;
		struct lctl_crawl *c;
		struct tree t;

		tree_init(&t, 2, fan);
		cfg.arg = &t;
		assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
		results = consume(c, &extras);
		lctl_crawl_free(c);
		/* every extra result arrives, none in place of a visit's own */
		assert_int_equal(extras, fan[0]);
		assert_int_equal(results, t.ndirs + fan[0]);
		free(t.seen);
	}
}

static void test_cancel_and_pause(void **state)
{
	static const unsigned fan[] = { 50, 50 };
	struct lctl_crawl_cfg cfg = { 4, 8, 4, visit, drop, NULL };
	struct lctl_crawl *c;
	struct lctl_crawl_stats st;
	struct tree t;
	bool fin = false;
	unsigned got = 0, before;

	(void)state;
	tree_init(&t, 2, fan);
	cfg.arg = &t;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
	/* pause: no new directory is started while paused */
	while (got < 20) {
		void *r = lctl_crawl_next(c, 100, &fin);

		if (r) {
			got++;
			free(r);
		}
	}
	lctl_crawl_pause(c, true);
	usleep(50000); /* let in-flight items finish */
	before = atomic_load(&t.visits);
	usleep(100000);
	assert_int_equal(atomic_load(&t.visits), before);
	lctl_crawl_stats(c, &st);
	assert_true(st.paused);
	lctl_crawl_pause(c, false);
	/* more workers on the fly */
	assert_int_equal(lctl_crawl_set_workers(c, 6), 0);
	lctl_crawl_stats(c, &st);
	assert_int_equal(st.active_workers, 6);
	/* cancel stops early and frees everything (ASan checks the leaks) */
	lctl_crawl_cancel(c);
	lctl_crawl_free(c);
	assert_true(atomic_load(&t.visits) < t.ndirs);
	free(t.seen);
}

/*
 * A cancel with a one-slot result queue and many workers, freed without taking a result:
 * workers finishing their directory after the last drain must not wait for room for ever
 * (once seen as a hang of this test under TSan). alarm() turns a hang into a failure.
 */
static void test_cancel_full_results(void **state)
{
	static const unsigned fan[] = { 30, 30 };
	struct lctl_crawl_cfg cfg = { 8, 8, 1, visit, drop, NULL };
	struct lctl_crawl *c;
	struct tree t;
	int round;

	(void)state;
	alarm(120);
	for (round = 0; round < 50; round++) {
		tree_init(&t, 2, fan);
		cfg.arg = &t;
		assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
		usleep((useconds_t)(round % 5) * 200);
		lctl_crawl_cancel(c);
		lctl_crawl_free(c);
		free(t.seen);
	}
	alarm(0);
}

/*
 * Lowering the worker count while the worker that is parked holds spilled directories: it must
 * hand them back, or nobody walks them and the crawl never ends. Deterministic: the root has
 * two children, both visited at once (a barrier), each by its own worker; each pushes more
 * children than the one-slot queue holds (the rest spill), then the one of the two with the
 * higher index asks the consumer (as the dashboard's '-' would) to lower the worker count to
 * its index, which parks it, and waits until it has.
 */
struct park {
	pthread_barrier_t both;
	atomic_int want_lower; /* 1 asked, 2 done */
	atomic_uint visits;
	atomic_uint seen[3 + 2 * 20];
	atomic_uint idx[2]; /* the workers visiting /0 and /1 */
	atomic_uint target; /* the worker count asked for */
};

static void *park_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct park *pk = arg;
	unsigned id = 0, i, *res;
	char child[64];

	if (depth == 1)
		id = 1 + (unsigned)atoi(path + 1);
	else if (depth == 2)
		id = 3 + (unsigned)atoi(path + 1) * 20 + (unsigned)atoi(strchr(path + 1, '/') + 1);
	atomic_fetch_add(&pk->seen[id], 1);
	atomic_fetch_add(&pk->visits, 1);
	if (depth == 0) {
		for (i = 0; i < 2; i++) {
			snprintf(child, sizeof(child), "/%u", i);
			assert_int_equal(lctl_crawl_push(w, child, 1), 0);
		}
	} else if (depth == 1) {
		unsigned me = lctl_crawl_worker_index(w);

		atomic_store(&pk->idx[id - 1], me);
		pthread_barrier_wait(&pk->both);
		for (i = 0; i < 20; i++) {
			snprintf(child, sizeof(child), "%s/%u", path, i);
			assert_int_equal(lctl_crawl_push(w, child, 2), 0);
		}
		if (me > atomic_load(&pk->idx[2 - id])) {
			atomic_store(&pk->target, me);
			atomic_store(&pk->want_lower, 1);
			while (atomic_load(&pk->want_lower) != 2)
				usleep(1000);
		}
	}
	res = malloc(sizeof(*res));
	*res = depth;
	return res;
}

static void run_park(unsigned workers, bool pause)
{
	struct lctl_crawl_cfg cfg = { workers, 1, 4, park_visit, drop, NULL };
	struct lctl_crawl *c;
	struct lctl_crawl_stats st;
	struct park pk = { 0 };
	unsigned results = 0, i;
	time_t t0 = time(NULL);
	bool fin = false;

	pthread_barrier_init(&pk.both, NULL, 2);
	cfg.arg = &pk;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
	while (!fin && time(NULL) - t0 < 20) {
		unsigned *r = lctl_crawl_next(c, 50, &fin);

		if (r) {
			results++;
			free(r);
		}
		if (atomic_load(&pk.want_lower) == 1) {
			if (pause)
				lctl_crawl_pause(c, true);
			assert_int_equal(lctl_crawl_set_workers(c, atomic_load(&pk.target)), 0);
			atomic_store(&pk.want_lower, 2);
			if (pause) {
				usleep(20000);
				lctl_crawl_pause(c, false);
			}
		}
	}
	lctl_crawl_stats(c, &st);
	if (!fin)
		lctl_crawl_cancel(c);
	lctl_crawl_free(c);
	pthread_barrier_destroy(&pk.both);
	if (!fin)
		fail_msg("the crawl did not end after the worker count was lowered: %zu pending, "
			 "%u of 43 directories visited",
			 st.pending, atomic_load(&pk.visits));
	assert_int_equal(results, 43);
	assert_int_equal(atomic_load(&pk.visits), 43);
	for (i = 0; i < 43; i++)
		assert_int_equal(atomic_load(&pk.seen[i]), 1);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.active_workers, atomic_load(&pk.target));
}

static void test_lower_workers_with_spills(void **state)
{
	(void)state;
	run_park(2, false);
	run_park(2, true);
	/* the parked worker is not the only other one */
	run_park(3, false);
}

/*
 * lctl_crawl_next() waits its timeout whatever the wall clock does: a clock set back an hour
 * must not make the consumer (progress, signals, the dashboard) sleep an hour, nor one set
 * forward make it spin without waiting.
 */
static void test_next_timeout_clock_set(void **state)
{
	static const long skews[] = { -3600, 3600 };
	unsigned fan[1] = { 1 };
	struct lctl_crawl_cfg cfg = { 1, 8, 4, visit, drop, NULL };
	struct lctl_crawl *c;
	struct tree t;
	bool fin;
	size_t i;

	(void)state;
	tree_init(&t, 0, fan);
	atomic_store(&t.block, true); /* no result comes: every call waits its full timeout */
	cfg.arg = &t;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), 0);
	alarm(20); /* a wait for the wall clock's hour ends the test */
	for (i = 0; i < sizeof(skews) / sizeof(skews[0]); i++) {
		double t0, dt;

		atomic_store(&wall_skew, skews[i]);
		t0 = mono();
		assert_null(lctl_crawl_next(c, 300, &fin));
		dt = mono() - t0;
		atomic_store(&wall_skew, 0);
		assert_false(fin);
		if (dt < 0.25 || dt > 5)
			fail_msg("a 300 ms wait took %.3f s with the wall clock %+ld s off", dt,
				 skews[i]);
	}
	alarm(0);
	atomic_store(&t.block, false);
	lctl_crawl_cancel(c);
	lctl_crawl_free(c);
	free(t.seen);
}

static void test_bad_config(void **state)
{
	struct lctl_crawl_cfg cfg = { 0, 0, 0, visit, drop, NULL };
	struct lctl_crawl *c;

	(void)state;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), -LCTL_EINVAL);
	cfg.nworkers = LCTL_CRAWL_MAX_WORKERS + 1;
	assert_int_equal(lctl_crawl_start(&cfg, "/", &c, NULL), -LCTL_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_each_once),
		cmocka_unit_test(test_wide_directory),
		cmocka_unit_test(test_emit),
		cmocka_unit_test(test_cancel_and_pause),
		cmocka_unit_test(test_cancel_full_results),
		cmocka_unit_test(test_lower_workers_with_spills),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_next_timeout_clock_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
