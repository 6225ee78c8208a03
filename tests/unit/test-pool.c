/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the starting host's side of a fix spread over the pool (lib/pool.c), with small
 * shell scripts standing in for the servers' workers: the hello handshake, progress and done
 * lines, workers that fail, hang, speak another protocol or die half-way, what they send to
 * the terminal, and the commands they are sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

/* Each worker is `sh -c SCRIPT`. */
static int start(const char *const *scripts, size_t n, int timeout_ms, struct lctl_pool **p,
		 struct lctl_error *err)
{
	static char *argv[8][4];
	static char words[8][3][512];
	static struct lctl_worker_spec spec[8];
	static char names[8][16];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "server%zu", i + 1);
		snprintf(words[i][0], sizeof(words[i][0]), "sh");
		snprintf(words[i][1], sizeof(words[i][1]), "-c");
		snprintf(words[i][2], sizeof(words[i][2]), "%s", scripts[i]);
		argv[i][0] = words[i][0];
		argv[i][1] = words[i][1];
		argv[i][2] = words[i][2];
		argv[i][3] = NULL;
		spec[i].server = names[i];
		spec[i].argv = argv[i];
	}
	return lctl_pool_start(spec, n, timeout_ms, p, err);
}

static void run_to_end(struct lctl_pool *p)
{
	int i;

	for (i = 0; i < 100 && !lctl_pool_poll(p, 100); i++)
		;
	assert_true(i < 100);
}

/* Two workers that do their share: counts arrive, both done, the pool complete. */
static void test_two_workers_done(void **state)
{
	const char *const s[] = {
		"echo 'hello 1 a'; read go; echo 'progress 1 2 0 0 100'; "
		"echo 'done 3 5 1 0 4096 0'",
		"echo 'hello 1 b'; read go; case \"$go\" in go*) ;; *) exit 9;; esac; "
		"echo 'done 7 11 0 0 8192 0'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	lctl_pool_send(p, "go force=0 layout=gluster scope=2f");
	run_to_end(p);
	assert_int_equal(lctl_pool_progress(p, sp, LCTL_POOL_MAX), 2);
	assert_string_equal(sp[0].name, "server1");
	assert_string_equal(sp[0].state, "done");
	assert_int_equal(sp[0].dirs, 3);
	assert_int_equal(sp[0].migrated, 5);
	assert_int_equal(sp[0].skipped, 1);
	assert_int_equal(sp[0].bytes, 4096);
	assert_string_equal(sp[1].state, "done");
	assert_int_equal(sp[1].migrated, 11);
	assert_true(lctl_pool_server_done(p, 0) && lctl_pool_server_done(p, 1));
	assert_false(lctl_pool_server_done(p, 2));
	assert_true(lctl_pool_complete(p));
	lctl_pool_free(p);
}

/* A worker that cannot start (a remote shell that fails): refused, the server named. */
static void test_refused_before_hello(void **state)
{
	const char *const s[] = { "echo 'hello 1 a'; read go", "exit 255" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p = (void *)1;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), -LCTL_ECONNECT);
	assert_null(p);
	assert_non_null(strstr(err.msg, "server2"));
	assert_non_null(strstr(err.msg, "status 255"));
}

/* A worker that never answers: refused after the timeout. */
static void test_refused_on_timeout(void **state)
{
	const char *const s[] = { "sleep 30" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 1, 1000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "did not answer"));
}

/* Another protocol version, and an error line: refused with the worker's words, printable. */
static void test_refused_proto_and_error(void **state)
{
	const char *const s1[] = { "echo 'hello 2 a'; sleep 5" };
	const char *const s2[] = { "printf 'error no brick \\033]0;x\\007 here\\n'; exit 3" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s1, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "protocol 2"));
	assert_int_equal(start(s2, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "no brick"));
	assert_null(strchr(err.msg, '\033'));
	assert_null(strchr(err.msg, '\007'));
}

/* A worker that dies half-way is lost, with its last counts; the pool is not complete. */
static void test_lost_worker(void **state)
{
	const char *const s[] = {
		"echo 'hello 1 a'; read go; echo 'done 1 1 0 0 1 0'",
		"echo 'hello 1 b'; read go; echo 'progress 2 4 0 0 10'; kill -9 $$",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	lctl_pool_send(p, "go");
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "done");
	assert_string_equal(sp[1].state, "lost");
	assert_int_equal(sp[1].migrated, 4);
	assert_non_null(strstr(sp[1].error, "signal 9"));
	assert_false(lctl_pool_server_done(p, 1));
	assert_false(lctl_pool_complete(p));
	lctl_pool_free(p);
}

/* "stop" reaches a worker (it ends with its own code), and one with failed files fails. */
static void test_stop_and_failed(void **state)
{
	const char *const s[] = {
		"echo 'hello 1 a'; read go; read cmd; [ \"$cmd\" = stop ] && echo 'done 0 0 0 0 0 130'",
		"echo 'hello 1 b'; read go; echo 'done 1 0 0 2 0 1'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	lctl_pool_send(p, "go");
	lctl_pool_send(p, "stop");
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "stopped");
	assert_string_equal(sp[1].state, "failed");
	assert_non_null(strstr(sp[1].error, "2 files failed"));
	assert_false(lctl_pool_complete(p));
	lctl_pool_free(p);
}

/* Freeing the pool ends workers that are still running (end of file, then SIGKILL). */
static void test_free_ends_workers(void **state)
{
	const char *const s[] = { "echo 'hello 1 a'; exec sleep 60" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	time_t t0 = time(NULL);

	(void)state;
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	lctl_pool_free(p);
	assert_true(time(NULL) - t0 < 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_workers_done),
		cmocka_unit_test(test_refused_before_hello),
		cmocka_unit_test(test_refused_on_timeout),
		cmocka_unit_test(test_refused_proto_and_error),
		cmocka_unit_test(test_lost_worker),
		cmocka_unit_test(test_stop_and_failed),
		cmocka_unit_test(test_free_ends_workers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
