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
#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* a worker silent this long after hello is lost (start()) */
static unsigned silent_s = 30;

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
	return lctl_pool_start(spec, n, timeout_ms, silent_s, p, err);
}

static void go(struct lctl_pool *p)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_GO, .planner = LCTL_PLANNER_GLUSTER };

	snprintf(m.text, sizeof(m.text), "/");
	lctl_pool_send(p, &m);
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
		"echo 'hello 4 a'; read go; echo 'progress 1 2 0 0 100 0 0 0'; "
		"echo 'done 3 5 1 0 4096 9 65536 3 0'",
		"echo 'hello 4 b'; read go; case \"$go\" in 'go 0 gluster /') ;; *) exit 9;; esac; "
		"echo 'done 7 11 0 0 8192 0 0 0 0'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	go(p);
	run_to_end(p);
	assert_int_equal(lctl_pool_progress(p, sp, LCTL_POOL_MAX), 2);
	assert_string_equal(sp[0].name, "server1");
	assert_string_equal(sp[0].state, "done");
	assert_int_equal(sp[0].dirs, 3);
	assert_int_equal(sp[0].migrated, 5);
	assert_int_equal(sp[0].skipped, 1);
	assert_int_equal(sp[0].bytes, 4096);
	/* what its plans give it to move: the starting host's bytes left and ETA */
	assert_int_equal(sp[0].plan_files, 9);
	assert_int_equal(sp[0].plan_bytes, 65536);
	assert_int_equal(sp[0].plan_dirs, 3);
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
	const char *const s[] = { "echo 'hello 4 a'; read go", "exit 255" };
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
	const char *const s0[] = { "echo 'hello 3 a'; sleep 5" };
	const char *const s1[] = { "echo 'hello 1 a'; sleep 5" };
	const char *const s2[] = {
		"printf '%s\\n' 'error no\\x20brick\\x20\\x1b]0;x\\x07\\x20here'; "
		"exit 3"
	};
	const char *const s3[] = { "printf 'error no brick \\033]0;x\\007 here\\n'; exit 3" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s1, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "protocol 1"));
	assert_null(strchr(err.msg, '\n'));
	/* the version before the outcome message: refused, on one line */
	assert_int_equal(start(s0, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "protocol 3, not 4"));
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(start(s2, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "no brick"));
	assert_null(strchr(err.msg, '\033'));
	assert_null(strchr(err.msg, '\007'));
	/* the same sent raw, control characters and all, is no message */
	assert_int_equal(start(s3, 1, 5000, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "protocol error"));
	assert_null(strchr(err.msg, '\033'));
}

/* A worker that dies half-way is lost, with its last counts; the pool is not complete. */
static void test_lost_worker(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; echo 'done 1 1 0 0 1 0 0 0 0'",
		"echo 'hello 4 b'; read go; echo 'progress 2 4 0 0 10 0 0 0'; kill -9 $$",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	go(p);
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
		"echo 'hello 4 a'; read go; read cmd; [ \"$cmd\" = stop ] && echo 'done 0 0 0 0 0 0 0 0 130'",
		"echo 'hello 4 b'; read go; echo 'done 1 0 0 2 0 0 0 0 1'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 2, 5000, &p, &err), 0);
	go(p);
	lctl_pool_send_kind(p, LCTL_PM_STOP);
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
	const char *const s[] = { "echo 'hello 4 a'; exec sleep 60" };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	time_t t0 = time(NULL);

	(void)state;
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	lctl_pool_free(p);
	assert_true(time(NULL) - t0 < 20);
}

static int parse(const char *line, struct lctl_pool_msg *m)
{
	return lctl_pool_msg_parse(line, strlen(line), m);
}

/* Every message survives its own line: the scope with any bytes, as long as a path can be. */
static void test_codec_roundtrip(void **state)
{
	struct lctl_pool_msg m = { 0 }, back;
	char line[LCTL_POOL_LINE_MAX];
	int n, k;

	(void)state;
	m.kind = LCTL_PM_GO;
	m.force_move = true;
	m.planner = LCTL_PLANNER_MINMOVE;
	snprintf(m.text, sizeof(m.text), "/a b/\n\\x41/\xc3\xa9/\x01\x7f");
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_true(n > 0 && line[n - 1] == '\n');
	for (k = 0; k < n - 1; k++)
		assert_true(line[k] >= 0x20 && line[k] <= 0x7e);
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_int_equal(back.kind, LCTL_PM_GO);
	assert_true(back.force_move);
	assert_int_equal(back.planner, LCTL_PLANNER_MINMOVE);
	assert_string_equal(back.text, m.text);
	/* issue 24, item 9: a scope of 4095 bytes fits, even with every byte escaped */
	memset(m.text, '\xff', sizeof(m.text) - 1);
	m.text[0] = '/';
	m.text[sizeof(m.text) - 1] = '\0';
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_true(n > 0);
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_string_equal(back.text, m.text);

	memset(&m, 0, sizeof(m));
	m.kind = LCTL_PM_DONE;
	m.dirs = 1, m.migrated = 2, m.skipped = 3, m.failed = 4, m.bytes = LCTL_POOL_NUM_MAX;
	m.plan_files = 5, m.plan_bytes = LCTL_POOL_NUM_MAX - 1, m.plan_dirs = 6;
	m.code = 130;
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_int_equal(back.kind, LCTL_PM_DONE);
	assert_int_equal(back.bytes, LCTL_POOL_NUM_MAX);
	assert_int_equal(back.plan_files, 5);
	assert_int_equal(back.plan_bytes, LCTL_POOL_NUM_MAX - 1);
	assert_int_equal(back.plan_dirs, 6);
	assert_int_equal(back.code, 130);
	m.bytes = LCTL_POOL_NUM_MAX + 1;
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);

	memset(&m, 0, sizeof(m));
	m.kind = LCTL_PM_HELLO;
	m.proto = LCTL_POOL_PROTO;
	snprintf(m.node, sizeof(m.node), "node 1");
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_string_equal(back.node, "node 1");
	assert_int_equal(back.proto, LCTL_POOL_PROTO);

	/* the pace: thousandths of files a second, bytes a second, migrations */
	memset(&m, 0, sizeof(m));
	m.kind = LCTL_PM_PACE;
	m.pace = (struct lctl_pace){ .set = LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH |
					    LCTL_PACE_MIGRATIONS,
				     .files_per_sec = 2.5,
				     .bytes_per_sec = 1e6,
				     .migrations = 2 };
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_string_equal(line, "pace 2500 1000000 2\n");
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_int_equal(back.kind, LCTL_PM_PACE);
	assert_true(back.pace.files_per_sec == 2.5 && back.pace.bytes_per_sec == 1e6);
	assert_int_equal(back.pace.migrations, 2);
	/* only a whole pace in range is sent */
	m.pace.set = LCTL_PACE_RATE;
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);
	m.pace.set = LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH | LCTL_PACE_MIGRATIONS;
	m.pace.migrations = 0;
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);

	/* held: seconds, the reason as one word */
	memset(&m, 0, sizeof(m));
	m.kind = LCTL_PM_HELD;
	m.held_seconds = 12;
	snprintf(m.text, sizeof(m.text), "brick h:/b down");
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_string_equal(line, "held 12 brick\\x20h:/b\\x20down\n");
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_int_equal(back.kind, LCTL_PM_HELD);
	assert_int_equal(back.held_seconds, 12);
	assert_string_equal(back.text, "brick h:/b down");
}

/* Issue 24, item 8: what is not exactly a message is an error, never read another way. */
static void test_codec_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"progress -1 0 0 0 0 0 0 0", /* a sign: %llu took it, and the sums wrapped */
		"progress +1 0 0 0 0 0 0 0",
		"progress 1 0 0 0 0 0 0",     /* a field missing */
		"progress 1 0 0 0 0",	      /* protocol 3's progress */
		"progress 1 0 0 0 0 0 0 0 0", /* one too many */
		"progress 1  0 0 0 0 0 0 0",  /* an empty word */
		"progress 1 0 0 0 0 0 0 0 ",
		" progress 1 0 0 0 0 0 0 0",
		"progress 18446744073709551615 0 0 0 0 0 0 0", /* wraps a sum */
		"progress 4503599627370497 0 0 0 0 0 0 0",     /* LCTL_POOL_NUM_MAX + 1 */
		"progress 0 0 0 0 0 0 4503599627370497 0",     /* the same, in the plan's bytes */
		"progress 1x 0 0 0 0 0 0 0",
		"done 1 2 3 4 5 6 7 8 256",
		"done 1 2 3 4 5 6 7 8",
		"done 1 2 3 4 5 0", /* protocol 3's done */
		"hello 2",
		"hello x a",
		"hello 2 a\tb",
		"hello 2 \xc3\xa9", /* not ASCII */
		"error a\\x00b",    /* a NUL in an escape */
		"error a\\q",	    /* a backslash that starts no escape */
		"error",
		"go force=0 layout=gluster scope=2f", /* protocol 1's go */
		"go 2 gluster /",
		"go 1 other /",
		"go 1 gluster relative",
		"stop now",
		"STOP",
		"ping",
		"pace 1 2",
		"pace 1 2 0", /* no migration at a time */
		"pace 1 2 3 4",
		"pace -1 2 3",
		"pace 1000000001 0 1", /* more than a million files a second */
		"held 1",
		"held -1 x",
		"held 1 a b",
		"held x a",
	};
	struct lctl_pool_msg m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &m) != -1)
			fail_msg("parsed: '%s'", bad[i]);
	}
	assert_int_equal(lctl_pool_msg_parse("stop\0stop", 9, &m), -1); /* a NUL */
	assert_int_equal(parse("stop", &m), 0);
	assert_int_equal(m.kind, LCTL_PM_STOP);
	assert_int_equal(parse("error a\\x20b\\\\", &m), 0);
	assert_string_equal(m.text, "a b\\");
}

/* Issue 26, item 6: a file's outcome travels intact, whatever bytes its name holds. */
static void test_codec_outcome(void **state)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_OUTCOME }, back;
	char line[LCTL_POOL_LINE_MAX];
	int n;

	(void)state;
	snprintf(m.text, sizeof(m.text), "/d ir/a\nb\x1b]0;x\x07\\c\xff 'q'");
	m.outcome = (struct lctl_pool_outcome){ .time = 1700000000,
						.size = 4096,
						.action = LCTL_FILE_FAILED,
						.err = 28,
						.reason = "",
						.from = "v-client-0",
						.to = "v-client-1" };
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_true(n > 0);
	/* one line of printable ASCII */
	assert_int_equal(strchr(line, '\n') - line, n - 1);
	for (int i = 0; i < n - 1; i++)
		assert_true(line[i] >= 0x20 && line[i] < 0x7f);
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_int_equal(back.kind, LCTL_PM_OUTCOME);
	assert_string_equal(back.text, m.text);
	assert_int_equal(back.outcome.time, 1700000000);
	assert_int_equal(back.outcome.size, 4096);
	assert_int_equal(back.outcome.action, LCTL_FILE_FAILED);
	assert_int_equal(back.outcome.err, 28);
	assert_string_equal(back.outcome.reason, "");
	assert_string_equal(back.outcome.from, "v-client-0");
	assert_string_equal(back.outcome.to, "v-client-1");

	/* the longest path and words fit a line */
	memset(m.text, '\n', sizeof(m.text) - 1);
	m.text[0] = '/';
	m.text[sizeof(m.text) - 1] = '\0';
	memset(m.outcome.reason, '\x1b', sizeof(m.outcome.reason) - 1);
	memset(m.outcome.from, '\x1b', sizeof(m.outcome.from) - 1);
	memset(m.outcome.to, '\x1b', sizeof(m.outcome.to) - 1);
	m.outcome.time = m.outcome.size = LCTL_POOL_NUM_MAX;
	n = lctl_pool_msg_format(&m, line, sizeof(line));
	assert_true(n > 0);
	assert_int_equal(lctl_pool_msg_parse(line, (size_t)n - 1, &back), 0);
	assert_memory_equal(&back.outcome, &m.outcome, sizeof(m.outcome));
	assert_string_equal(back.text, m.text);

	/* what does not fit the message is not sent */
	m.outcome.err = 4096;
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);
	m.outcome.err = 0;
	m.outcome.action = LCTL_FILE_ACTION_COUNT;
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);
	m.outcome.action = LCTL_FILE_MIGRATED;
	snprintf(m.text, sizeof(m.text), "relative");
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);
	snprintf(m.text, sizeof(m.text), "/a");
	snprintf(m.outcome.from, sizeof(m.outcome.from), "-"); /* the wire's none */
	assert_int_equal(lctl_pool_msg_format(&m, line, sizeof(line)), -1);
}

/* An outcome line from the link: exactly its fields, or nothing. */
static void test_codec_outcome_rejects(void **state)
{
	static const char *const bad[] = {
		"outcome 1 /a failed - 0 - -",	       /* a field missing */
		"outcome 1 /a failed - 0 - - 0 0",     /* one too many */
		"outcome 1 a failed - 0 - - 0",	       /* a relative path */
		"outcome 1 /a exploded - 0 - - 0",     /* no action of ours */
		"outcome 1 /a failed - 4096 - - 0",    /* no errno */
		"outcome 1 /a failed - -1 - - 0",      /* a sign */
		"outcome 1 /a\\x00b failed - 0 - - 0", /* a NUL in the path */
		"outcome 1 /a\\q failed - 0 - - 0",    /* a backslash that starts no escape */
		"outcome 1 /a failed \\x2d 0 - - 0",   /* "-" spelled out: ambiguous */
		"outcome 4503599627370497 /a failed - 0 - - 0",
		"outcome 1 /a failed - 0 - - 4503599627370497",
		"outcome 1 /a\tb failed - 0 - - 0",
	};
	char line[LCTL_POOL_LINE_MAX + 16];
	struct lctl_pool_msg m;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &m) != -1)
			fail_msg("parsed: '%s'", bad[i]);
	assert_int_equal(parse("outcome 1 /a failed - 0 - - 0", &m), 0);
	assert_int_equal(m.outcome.action, LCTL_FILE_FAILED);
	/* a word longer than its field */
	n = (size_t)snprintf(line, sizeof(line), "outcome 1 /a failed ");
	memset(line + n, 'r', LCTL_POOL_WORD_MAX);
	n += LCTL_POOL_WORD_MAX;
	n += (size_t)snprintf(line + n, sizeof(line) - n, " 0 - - 0");
	assert_int_equal(lctl_pool_msg_parse(line, n, &m), -1);
	/* a path of 4096 bytes: longer than any the worker sends */
	n = (size_t)snprintf(line, sizeof(line), "outcome 1 /");
	memset(line + n, 'p', 4095);
	n += 4095;
	n += (size_t)snprintf(line + n, sizeof(line) - n, " failed - 0 - - 0");
	assert_int_equal(lctl_pool_msg_parse(line, n, &m), -1);
}

/*
 * Issue 26, item 6: the outcomes a placing worker sends go into the starting host's log,
 * marked with the server, escaped; one sent before go is a protocol error, the worker lost.
 */
static void test_outcomes_to_log(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; "
		"printf '%s\\n' 'outcome 7 /d/a\\x0ab\\x1b[2J failed - 28 v-client-0 v-client-1 10'; "
		"echo 'outcome 8 /d/c migrated - 0 v-client-0 v-client-1 20'; "
		"echo 'done 1 1 0 1 20 0 0 0 1'",
	};
	const char *const early[] = {
		"echo 'hello 4 b'; echo 'outcome 9 /x failed - 5 - - 0'; read go; sleep 5",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	char *dir = unit_tmpdir("pool-outcomes"), buf[4096], path[4200];
	int fd;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/outcomes.jsonl", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	/* (read with its hello, or after it) */
	if (!start(early, 1, 5000, &p, &err)) {
		run_to_end(p);
		lctl_pool_progress(p, sp, LCTL_POOL_MAX);
		assert_string_equal(sp[0].state, "lost");
		snprintf(err.msg, sizeof(err.msg), "%s", sp[0].error);
		lctl_pool_free(p);
	}
	assert_non_null(strstr(err.msg, "an outcome before go"));
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	lctl_pool_set_outcome_log(p, fd);
	go(p);
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "failed");
	assert_false(lctl_pool_outcome_log_failed(p));
	lctl_pool_free(p);
	close(fd);
	assert_int_equal(unit_read(dir, "outcomes.jsonl", buf, sizeof(buf)), 0);
	assert_string_equal(buf,
			    "{\"time\":7,\"path\":\"/d/a\\\\x0ab\\\\x1b[2J\",\"outcome\":\"failed\","
			    "\"errno\":28,\"error\":\"No space left on device\","
			    "\"from\":\"v-client-0\",\"to\":\"v-client-1\",\"size\":10,"
			    "\"server\":\"server1\"}\n"
			    "{\"time\":8,\"path\":\"/d/c\",\"outcome\":\"migrated\","
			    "\"from\":\"v-client-0\",\"to\":\"v-client-1\",\"size\":20,"
			    "\"server\":\"server1\"}\n");
	unit_rm_rf(dir);
	free(dir);
}

/* What a run's outcome log holds, per server (server1, server2) and failed or not. */
struct tally {
	uint64_t bytes[2][2], lines[2][2]; /* [server][failed] */
	unsigned long long dropped[2], dropped_failed[2];
	size_t other; /* lines of no server1 or server2 */
};

static void tally_log(const char *path, struct tally *t)
{
	char *line = NULL, *at;
	size_t cap = 0;
	ssize_t len;
	FILE *f = fopen(path, "r");
	int s, fl;

	memset(t, 0, sizeof(*t));
	assert_non_null(f);
	while ((len = getline(&line, &cap, f)) > 0) {
		s = strstr(line, "\"server\":\"server1\"")   ? 0
		    : strstr(line, "\"server\":\"server2\"") ? 1
							     : -1;
		if (s < 0) {
			t->other++;
		} else if ((at = strstr(line, "\"dropped\":")) && !strstr(line, "\"path\":")) {
			t->dropped[s] += strtoull(at + 10, NULL, 10);
			/* without "failed" (an older layoutctl): any of them may have failed */
			at = strstr(line, "\"failed\":") ? strstr(line, "\"failed\":") + 9
							 : at + 10;
			t->dropped_failed[s] += strtoull(at, NULL, 10);
		} else {
			fl = strstr(line, "\"outcome\":\"failed\"") != NULL;
			t->bytes[s][fl] += (uint64_t)len;
			t->lines[s][fl]++;
		}
	}
	free(line);
	fclose(f);
}

/* Run the workers of @s (@n of them) to their end, their outcomes into @path. */
static void run_outcomes(const char *const *s, size_t n, const char *path,
			 const struct lctl_pool_outcome_budget *b)
{
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	int fd, i;

	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(start(s, n, 5000, &p, &err), 0);
	lctl_pool_set_outcome_log(p, fd);
	if (b)
		lctl_pool_set_outcome_budget(p, b);
	go(p);
	for (i = 0; i < 600 && !lctl_pool_poll(p, 100); i++)
		;
	assert_true(i < 600);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "failed");
	assert_false(lctl_pool_outcome_log_failed(p));
	lctl_pool_free(p);
	close(fd);
}

/* The failed files of the log at @path (lctl_outcome_failed()), and the servers it names. */
static size_t retried(const char *path, struct lctl_strv *inc)
{
	struct lctl_error err = { 0 };
	struct lctl_strv failed;
	size_t bad = 99, n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(lctl_outcome_failed(fd, &failed, &bad, inc, &err), 0);
	assert_int_equal(bad, 0);
	n = failed.n;
	lctl_strv_free(&failed);
	close(fd);
	return n;
}

/*
 * Failed outcomes are what fix --retry-failed reads: a worker's are all logged, however many
 * (before, the first 100,000 lines per worker were, failed or not: 100,007 distinct failed
 * files sent, 100,000 logged and retried, and only a "dropped" line said so).
 */
static void test_outcomes_failed_kept(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; awk 'BEGIN { for (i = 0; i < 100007; i++) "
		"printf \"outcome 1 /d/f%d failed - 5 - - 0\\n\", i }'; "
		"echo 'done 1 0 0 100007 0 0 0 0 1'",
	};
	char *dir = unit_tmpdir("pool-outcome-failed"), path[4200];
	struct lctl_strv inc;
	struct tally t;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/outcomes.jsonl", dir);
	run_outcomes(s, 1, path, NULL);
	tally_log(path, &t);
	assert_int_equal(t.lines[0][1], 100007);
	assert_int_equal(t.lines[0][0] + t.other + t.dropped[0], 0);
	assert_int_equal(retried(path, &inc), 100007);
	assert_int_equal(inc.n, 0);
	lctl_strv_free(&inc);
	unit_rm_rf(dir);
	free(dir);
}

/*
 * The log's budget is bytes, not lines: a worker sending lines as long as they get (a path of
 * 4000 control bytes, some 20 KB once escaped) has at most LCTL_POOL_OUTCOME_BYTES of them
 * logged, the rest counted, and its failed outcome after them still logged (before, all 4000
 * lines went in, some 80 MB: 100,000 of them would have been 2 GB). The one line saying how
 * many were dropped says none failed, so the retry list is whole.
 */
static void test_outcomes_bytes(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; awk 'BEGIN { p = \"/d/\"; for (j = 0; j < 4000; j++) "
		"p = p \"\\\\x01\"; for (i = 0; i < 4000; i++) print \"outcome 1 \" p i "
		"\" migrated - 0 - - 9\"; print \"outcome 1 /d/last failed - 5 - - 0\" }'; "
		"echo 'done 1 0 0 1 0 0 0 0 1'",
	};
	char *dir = unit_tmpdir("pool-outcome-bytes"), path[4200];
	struct lctl_strv inc;
	struct tally t;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/outcomes.jsonl", dir);
	run_outcomes(s, 1, path, NULL);
	tally_log(path, &t);
	assert_true(t.bytes[0][0] <= LCTL_POOL_OUTCOME_BYTES);
	assert_true(t.bytes[0][0] >
		    LCTL_POOL_OUTCOME_BYTES - 32768); /* filled, not stopped early */
	assert_true(t.dropped[0] > 0);
	assert_int_equal(t.lines[0][0] + t.dropped[0], 4000);
	assert_int_equal(t.dropped_failed[0], 0);
	assert_int_equal(t.lines[0][1], 1);
	assert_int_equal(retried(path, &inc), 1);
	assert_int_equal(inc.n, 0);
	lctl_strv_free(&inc);
	unit_rm_rf(dir);
	free(dir);
}

/*
 * The budgets per worker and per run, the failed lines apart (small ones set here): each
 * worker's lines and the run's stay within theirs, every line sent is logged or counted as
 * dropped, and the reader of the log names the servers whose failed outcomes were dropped.
 */
static void test_outcomes_budgets(void **state)
{
#define BUDGET_WORKER(D) \
	"echo 'hello 4 a'; read go; awk 'BEGIN { for (i = 0; i < 100; i++) { " \
	"print \"outcome 1 /" D "/m\" i \" migrated - 0 - - 9\"; " \
	"print \"outcome 1 /" D \
	"/f\" i \" failed - 5 - - 0\" } }'; echo 'done 1 0 0 100 0 0 0 0 1'"
	const char *const s[] = { BUDGET_WORKER("d1"), BUDGET_WORKER("d2") };
	const struct lctl_pool_outcome_budget b = { 2000, 5000, 3000, 8000 };
	char *dir = unit_tmpdir("pool-outcome-budgets"), path[4200];
	struct lctl_strv inc;
	struct tally t;
	int k;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/outcomes.jsonl", dir);
	run_outcomes(s, 2, path, &b);
	tally_log(path, &t);
	assert_int_equal(t.other, 0);
	for (k = 0; k < 2; k++) {
		assert_true(t.bytes[k][0] <= b.worker);
		assert_true(t.bytes[k][1] <= b.worker_failed);
		assert_int_equal(t.lines[k][0] + t.lines[k][1] + t.dropped[k], 200);
		assert_int_equal(t.lines[k][1] + t.dropped_failed[k], 100);
		assert_true(t.dropped_failed[k] > 0);
	}
	assert_true(t.bytes[0][0] + t.bytes[1][0] <= b.run);
	assert_true(t.bytes[0][1] + t.bytes[1][1] <= b.run_failed);
	/* the run's budget bound: the two workers' lines but failed ones fill it, not theirs */
	assert_true(t.bytes[0][0] + t.bytes[1][0] > b.run - 200);
	assert_int_equal(retried(path, &inc), t.lines[0][1] + t.lines[1][1]);
	assert_int_equal(inc.n, 2);
	assert_string_equal(inc.v[0], "server1");
	assert_string_equal(inc.v[1], "server2");
	lctl_strv_free(&inc);
	unit_rm_rf(dir);
	free(dir);
}

/*
 * The reader cuts lines at '\n' only: a line too long is an error (before, its tail was read
 * as a line of its own: 1023 x 'A' then a done counted as done), a partial line waits, and the
 * lines after go are read at once (before, a go's fields were read as two stale lines).
 */
static void test_reader(void **state)
{
	struct lctl_pool_reader *r = calloc(1, sizeof(*r));
	struct lctl_pool_msg m;
	int sv[2];
	char big[LCTL_POOL_LINE_MAX + 64];

	(void)state;
	assert_non_null(r);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], "go 0 gluster /a\\x20b\nsto", 24), 24);
	assert_int_equal(lctl_pool_read(r, sv[0]), 24);
	assert_int_equal(lctl_pool_next(r, &m), 1);
	assert_int_equal(m.kind, LCTL_PM_GO);
	assert_string_equal(m.text, "/a b");
	assert_int_equal(lctl_pool_next(r, &m), 0);
	assert_int_equal(write(sv[1], "p\npause\n", 8), 8);
	assert_true(lctl_pool_read(r, sv[0]) > 0);
	assert_int_equal(lctl_pool_next(r, &m), 1);
	assert_int_equal(m.kind, LCTL_PM_STOP);
	assert_int_equal(lctl_pool_next(r, &m), 1);
	assert_int_equal(m.kind, LCTL_PM_PAUSE);
	assert_int_equal(lctl_pool_next(r, &m), 0);
	/* a NUL does not end a line */
	assert_int_equal(write(sv[1], "stop\0\nstop\n", 11), 11);
	assert_true(lctl_pool_read(r, sv[0]) > 0);
	assert_int_equal(lctl_pool_next(r, &m), -1);
	assert_int_equal(lctl_pool_next(r, &m), 1);
	/* too long: an error however it ends */
	memset(big, 'A', sizeof(big));
	memcpy(big + sizeof(big) - 24, "done 7 7 0 0 0 0 0 0 0\n", 23);
	r->len = 0;
	assert_int_equal(write(sv[1], big, sizeof(big) - 1), (ssize_t)sizeof(big) - 1);
	while (r->len < sizeof(r->buf) && lctl_pool_read(r, sv[0]) > 0)
		;
	assert_int_equal(lctl_pool_next(r, &m), -1);
	/* a line cut off by the end of the link */
	free(r);
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(write(sv[1], "sto", 3), 3);
	close(sv[1]);
	while (lctl_pool_read(r, sv[0]) > 0)
		;
	/* what was still queued from above */
	while (lctl_pool_next(r, &m) == 1 || (r->len && !r->eof))
		;
	assert_true(r->eof);
	close(sv[0]);
	free(r);
}

/* A worker that sends garbage after go is lost, never done (issue 24, items 1 and 8). */
static void test_garbage_is_lost(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; "
		"head -c 20000 /dev/zero | tr '\\0' A; echo 'done 7 7 0 0 0 0 0 0 0'; sleep 5",
		"echo 'hello 4 b'; read go; echo 'done 1 1 0 0 1 0 0 0 0'; echo 'done 9 9 0 0 9 0 0 0 1'",
		"echo 'hello 4 c'; read go; echo 'progress 1 1 0 0 1 0 0 0'; echo 'hello 4 c'; sleep 5",
		"echo 'hello 4 d'; read go; printf '%s\\n' 'error no\\x20room'; echo 'hello 4 d'; "
		"echo 'done 1 1 0 0 1 0 0 0 0'",
		"echo 'hello 4 e'; read go; echo 'progress -1 0 0 0 0'; sleep 5",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 5, 5000, &p, &err), 0);
	go(p);
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "lost");
	assert_non_null(strstr(sp[0].error, "protocol error"));
	assert_int_equal(sp[0].migrated, 0);
	/* done is final: a second one changes nothing */
	assert_string_equal(sp[1].state, "done");
	assert_int_equal(sp[1].migrated, 1);
	assert_string_equal(sp[2].state, "lost");
	/* error is final: a hello after it does not make the worker ready again */
	assert_string_equal(sp[3].state, "failed");
	assert_non_null(strstr(sp[3].error, "no room"));
	assert_string_equal(sp[4].state, "lost");
	assert_false(lctl_pool_server_done(p, 0));
	assert_false(lctl_pool_server_done(p, 2));
	assert_false(lctl_pool_server_done(p, 3));
	assert_false(lctl_pool_complete(p));
	lctl_pool_free(p);
}

/*
 * A worker that says nothing for the silence limit is lost, and its process group (what its
 * remote shell started too) is killed (issue 24, items 2 and 10).
 */
static void test_silent_is_lost(void **state)
{
	char pidfile[] = "/tmp/test-pool-XXXXXX", script[512];
	const char *s[1] = { script };
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	unsigned saved = silent_s;
	time_t t0;
	FILE *f;
	long pid = 0;
	int fd = mkstemp(pidfile);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(script, sizeof(script),
		 "sleep 60 & echo $! > %s; echo 'hello 4 a'; read go; echo 'progress 0 0 0 0 0 0 0 0'; "
		 "exec sleep 60",
		 pidfile);
	silent_s = 2;
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	silent_s = saved;
	go(p);
	t0 = time(NULL);
	run_to_end(p);
	assert_true(time(NULL) - t0 <= 4);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "lost");
	assert_non_null(strstr(sp[0].error, "sent nothing"));
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	unlink(pidfile);
	lctl_pool_free(p);
	usleep(100000);
	/* the grandchild is gone (a zombie at most, where init does not reap) */
	assert_true(pid > 0);
	if (!kill((pid_t)pid, 0)) {
		char path[64], buf[512], *st;

		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		st = strrchr(buf, ')');
		assert_non_null(st);
		assert_int_equal(st[2], 'Z');
	}
}

/* pause and resume after go reach a worker, in order (issue 24, item 1). */
static void test_commands_after_go(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; read a; read b; read c; "
		"[ \"$a $b $c\" = 'pause resume stop' ] && echo 'done 0 0 0 0 0 0 0 0 130'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	go(p);
	lctl_pool_send_kind(p, LCTL_PM_PAUSE);
	lctl_pool_send_kind(p, LCTL_PM_RESUME);
	lctl_pool_send_kind(p, LCTL_PM_STOP);
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "stopped");
	lctl_pool_free(p);
}

/* The state of server 1 once a poll shows @state (or after 5 s). */
static void poll_until(struct lctl_pool *p, const char *state, struct lctl_server_progress *sp)
{
	int i;

	for (i = 0; i < 50; i++) {
		lctl_pool_poll(p, 100);
		lctl_pool_progress(p, sp, LCTL_POOL_MAX);
		if (!strcmp(sp[0].state, state))
			return;
	}
	fail_msg("server1 never %s (%s)", state, sp[0].state);
}

/*
 * A worker that holds (issue 26): "held" before each progress line shows the server held, why
 * and for how long; a progress line alone, placing again; stopped while held, it says so.
 */
static void test_held_worker(void **state)
{
	const char *const s[] = {
		"echo 'hello 4 a'; read go; echo 'held 7 brick\\x20h:/b\\x20down'; "
		"echo 'progress 1 0 0 0 0 0 0 0'; read a; echo 'progress 2 0 0 0 0 0 0 0'; read b; "
		"echo 'held 9 2\\x20heals\\x20pending'; echo 'progress 2 0 0 0 0 0 0 0'; read c; "
		"echo 'done 2 0 0 0 0 0 0 0 130'",
	};
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	go(p);
	poll_until(p, "held", sp);
	assert_string_equal(sp[0].held, "brick h:/b down");
	assert_int_equal(sp[0].held_seconds, 7);
	lctl_pool_send_kind(p, LCTL_PM_PAUSE);
	poll_until(p, "placing", sp);
	assert_string_equal(sp[0].held, "");
	assert_int_equal(sp[0].dirs, 2);
	lctl_pool_send_kind(p, LCTL_PM_RESUME);
	poll_until(p, "held", sp);
	assert_string_equal(sp[0].held, "2 heals pending");
	lctl_pool_send_kind(p, LCTL_PM_STOP);
	run_to_end(p);
	lctl_pool_progress(p, sp, LCTL_POOL_MAX);
	assert_string_equal(sp[0].state, "stopped");
	assert_string_equal(sp[0].error, "stopped while held: 2 heals pending");
	lctl_pool_free(p);
}

/* A remote shell named without a '/' is looked up in the system's directories, not in PATH. */
static void test_no_path_lookup(void **state)
{
	char dir[] = "/tmp/test-pool-path-XXXXXX", prog[128], *old_path;
	char name[] = "lctl-test-pool-fake-rsh";
	struct lctl_worker_spec spec;
	char *argv[] = { name, NULL };
	struct lctl_error err = { 0 };
	struct lctl_pool *p = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/%s", dir, name);
	f = fopen(prog, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho 'hello 4 x'; read go\n", f);
	fclose(f);
	assert_int_equal(chmod(prog, 0755), 0);
	old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", dir, 1);
	spec.server = "fake";
	spec.argv = argv;
	assert_int_equal(lctl_pool_start(&spec, 1, 2000, 30, &p, &err), -LCTL_ECONNECT);
	assert_non_null(strstr(err.msg, "cannot start"));
	/* by its path it runs */
	argv[0] = prog;
	assert_int_equal(lctl_pool_start(&spec, 1, 5000, 30, &p, &err), 0);
	lctl_pool_free(p);
	if (old_path) {
		setenv("PATH", old_path, 1);
		free(old_path);
	}
	unlink(prog);
	rmdir(dir);
}

static char logged[4096];

static void capture(void *data, int level, const char *msg)
{
	(void)data;
	(void)level;
	if (strlen(logged) + strlen(msg) + 2 < sizeof(logged)) {
		strcat(logged, msg);
		strcat(logged, "\n");
	}
}

/*
 * What a worker (its remote shell, the remote side) writes on stderr never reaches the
 * terminal raw: each line is passed on escaped, naming the server (issue 24, item 10).
 */
static void test_stderr_escaped(void **state)
{
	const char *const s[] = {
		"printf 'bad \\033]0;title\\007 line\\nsecond\\n' >&2; echo 'hello 4 a'; read go; "
		"echo 'done 0 0 0 0 0 0 0 0 0'",
	};
	struct lctl_error err = { 0 };
	struct lctl_pool *p;

	(void)state;
	logged[0] = '\0';
	lctl_set_log(capture, NULL, LCTL_LOG_WARN);
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	go(p);
	run_to_end(p);
	lctl_pool_free(p);
	lctl_set_log(NULL, NULL, 0);
	assert_null(strchr(logged, '\033'));
	assert_null(strchr(logged, '\007'));
	assert_non_null(strstr(logged, "server server1: bad \\x1b]0;title\\x07 line\n"));
	assert_non_null(strstr(logged, "server server1: second\n"));
}

/* DIR/NAME's text into @buf (at most @size - 1 bytes), the file removed. */
static void take_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[128];

	assert_int_equal(unit_read(dir, name, buf, size), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/*
 * A worker's command gets nothing of ours by accident (issue 24, item 10; lib/run.c): of our
 * environment only PATH (the system's), LC_ALL=C and what a remote shell needs (HOME, USER,
 * LOGNAME, SSH_AUTH_SOCK); of our descriptors only its stdin, stdout and stderr.
 */
static void test_worker_environment(void **state)
{
	char dir[] = "/tmp/test-pool-env-XXXXXX", script[512], buf[8192];
	const char *s[1] = { script };
	struct lctl_error err = { 0 };
	struct lctl_pool *p;
	int leak;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof(script),
		 "env >%s/env; ls /proc/$$/fd >%s/fds; echo 'hello 4 a'; read go; "
		 "echo 'done 0 0 0 0 0 0 0 0 0'",
		 dir, dir);
	setenv("LCTL_TEST_SECRET", "hunter2", 1);
	setenv("HOME", "/root/lctl-test-home", 1);
	leak = open("/dev/null", O_RDONLY); /* without O_CLOEXEC, as a careless thread may */
	assert_true(leak >= 0);
	assert_int_equal(dup2(leak, 57), 57);
	close(leak);
	assert_int_equal(start(s, 1, 5000, &p, &err), 0);
	go(p);
	run_to_end(p);
	lctl_pool_free(p);
	close(57);
	unsetenv("LCTL_TEST_SECRET");
	take_file(dir, "env", buf, sizeof(buf));
	assert_null(strstr(buf, "LCTL_TEST_SECRET"));
	assert_non_null(strstr(buf, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n"));
	assert_non_null(strstr(buf, "HOME=/root/lctl-test-home\n"));
	take_file(dir, "fds", buf, sizeof(buf));
	/* ls's own descriptor of the directory it lists is 3 */
	assert_null(strstr(buf, "57\n"));
	rmdir(dir);
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
		cmocka_unit_test(test_codec_roundtrip),
		cmocka_unit_test(test_codec_rejects),
		cmocka_unit_test(test_codec_outcome),
		cmocka_unit_test(test_codec_outcome_rejects),
		cmocka_unit_test(test_outcomes_failed_kept),
		cmocka_unit_test(test_outcomes_bytes),
		cmocka_unit_test(test_outcomes_budgets),
		cmocka_unit_test(test_outcomes_to_log),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_garbage_is_lost),
		cmocka_unit_test(test_silent_is_lost),
		cmocka_unit_test(test_commands_after_go),
		cmocka_unit_test(test_held_worker),
		cmocka_unit_test(test_no_path_lookup),
		cmocka_unit_test(test_stderr_escaped),
		cmocka_unit_test(test_worker_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
