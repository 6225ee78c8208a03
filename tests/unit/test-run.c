/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: starting a child process (lib/run.c). What the child gets of the caller: its
 * environment (only PATH, LC_ALL and the names asked for), its PATH (never used to find the
 * program), its descriptors (only stdin, stdout and stderr); and that killing the child's
 * group reaches what the child started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "tmpdir.h"

static char dir[64];

/* Run @argv with stdout a pipe, keeping @keep; its whole output (NUL-terminated), its status. */
static char *output(char *const *argv, const char *const *keep, int *status)
{
	static char buf[65536];
	struct lctl_run r = { .argv = argv,
			      .keep_env = keep,
			      .io = { LCTL_RUN_NULL, LCTL_RUN_PIPE, LCTL_RUN_NULL } };
	size_t n = 0;
	ssize_t got;

	assert_int_equal(lctl_run_start(&r), 0);
	assert_true(r.pid > 0);
	assert_int_equal(r.fd[0], -1);
	assert_int_equal(r.fd[2], -1);
	while (n + 1 < sizeof(buf) && (got = read(r.fd[1], buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		assert_true(got > 0);
		n += (size_t)got;
	}
	buf[n] = '\0';
	lctl_run_close(&r);
	assert_int_equal(lctl_run_wait(&r, true, status), 1);
	assert_int_equal(r.pid, 0);
	return buf;
}

/* Whether @env (env's output) holds the line @line. */
static bool has_line(const char *env, const char *line)
{
	size_t len = strlen(line);
	const char *p;

	for (p = env; (p = strstr(p, line)); p += len)
		if ((p == env || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/*
 * The caller's environment does not reach the child: only PATH (the system's, whatever the
 * caller's is), LC_ALL=C, the variables asked for and, in a sanitizer build, the sanitizers'
 * options.
 */
static void test_environment(void **state)
{
	char a0[] = "env", *argv[] = { a0, NULL };
	const char *const keep[] = { "HOME", "LCTL_TEST_ABSENT", NULL };
	char *env, *line, *save = NULL;
	int status;

	(void)state;
	setenv("LCTL_TEST_SECRET", "hunter2", 1);
	setenv("LD_PRELOAD", "/nonexistent/lctl-test.so", 1);
	setenv("HOME", "/root/lctl-test-home", 1);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	setenv("PATH", dir, 1);
	env = output(argv, NULL, &status);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	assert_null(strstr(env, "LCTL_TEST_SECRET"));
	assert_null(strstr(env, "hunter2"));
	assert_null(strstr(env, "LD_PRELOAD"));
	assert_null(strstr(env, "HOME="));
	assert_true(has_line(env, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"));
	assert_true(has_line(env, "LC_ALL=C"));
	/* every line is one of those */
	for (line = strtok_r(env, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "PATH=", 5) && strncmp(line, "LC_ALL=", 7) &&
		    !strstr(line, "SAN_OPTIONS="))
			fail_msg("the child got '%s'", line);
	/* asked for: passed on (an absent one is no line), never twice, PATH never the caller's */
	env = output(argv, keep, &status);
	assert_true(has_line(env, "HOME=/root/lctl-test-home"));
	assert_null(strstr(env, "LCTL_TEST_ABSENT"));
	assert_null(strstr(env, "LCTL_TEST_SECRET"));
	assert_true(has_line(env, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"));
	/* what a remote shell is given */
	setenv("SSH_AUTH_SOCK", "/tmp/lctl-test-agent", 1);
	env = output(argv, lctl_run_rsh_env, &status);
	assert_true(has_line(env, "SSH_AUTH_SOCK=/tmp/lctl-test-agent"));
	assert_true(has_line(env, "HOME=/root/lctl-test-home"));
	assert_null(strstr(env, "LCTL_TEST_SECRET"));
	unsetenv("LCTL_TEST_SECRET");
	unsetenv("LD_PRELOAD");
	unsetenv("SSH_AUTH_SOCK");
	setenv("PATH", "/usr/bin:/bin", 1);
}

/*
 * A name is looked up in the system's directories, never in the caller's PATH: a fake
 * `gluster` first in PATH is not run, a name only it has is not found. A path is taken as
 * given, if it is an executable file; a relative one with a '/' never.
 */
static void test_no_path_lookup(void **state)
{
	char fake[128], mark[128], body[512], found[4096];
	char a0[] = "gluster", a1[] = "--version", *argv[] = { a0, a1, NULL };
	char u0[] = "lctl-test-run-fake", *uargv[] = { u0, NULL };
	struct lctl_run r = { .argv = argv, .io = { LCTL_RUN_NULL, LCTL_RUN_NULL, LCTL_RUN_NULL } };
	FILE *f;
	int status;

	(void)state;
	snprintf(mark, sizeof(mark), "%s/ran", dir);
	snprintf(body, sizeof(body), "#!/bin/sh\ntouch '%s'\n", mark);
	snprintf(fake, sizeof(fake), "%s/gluster", dir);
	f = fopen(fake, "w");
	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	snprintf(fake, sizeof(fake), "%s/%s", dir, u0);
	f = fopen(fake, "w");
	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	setenv("PATH", dir, 1);

	/* gluster: the system's, if it has one (run: not the fake), else not found */
	if (lctl_run_find("gluster", found, sizeof(found)) == 0) {
		assert_true(!strncmp(found, "/usr/sbin/", 10) || !strncmp(found, "/usr/bin/", 9) ||
			    !strncmp(found, "/sbin/", 6) || !strncmp(found, "/bin/", 5));
		assert_int_equal(lctl_run_start(&r), 0);
		assert_int_equal(lctl_run_wait(&r, true, &status), 1);
	} else {
		assert_int_equal(lctl_run_start(&r), -ENOENT);
	}
	assert_int_not_equal(access(mark, F_OK), 0);
	/* a name only the caller's PATH has: not found, nothing run */
	r.argv = uargv;
	assert_int_equal(lctl_run_start(&r), -ENOENT);
	assert_int_equal(r.pid, 0);
	assert_int_not_equal(access(mark, F_OK), 0);
	/* by its absolute path it runs */
	r.prog = fake;
	assert_int_equal(lctl_run_start(&r), 0);
	assert_int_equal(lctl_run_wait(&r, true, &status), 1);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	assert_int_equal(access(mark, F_OK), 0);
	unlink(mark);
	/* a relative path, a directory, a file not executable: refused */
	assert_int_equal(lctl_run_find("./gluster", found, sizeof(found)), -EINVAL);
	assert_int_equal(lctl_run_find("", found, sizeof(found)), -EINVAL);
	assert_int_equal(lctl_run_find(dir, found, sizeof(found)), -ENOENT);
	assert_int_equal(chmod(fake, 0644), 0);
	assert_int_equal(lctl_run_find(fake, found, sizeof(found)), -ENOENT);
	assert_int_equal(lctl_run_find("sh", found, sizeof(found)), 0);
	assert_int_equal(found[0], '/');
	setenv("PATH", "/usr/bin:/bin", 1);
}

/* Whether process @pid has ended (reaped by us: we are the subreaper) within @ms. */
static bool ended_within(pid_t pid, int ms)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i, status;

	for (i = 0; i < ms / 10; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid || (got < 0 && errno == ECHILD))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/*
 * A wrapper's child (a grandchild of ours) dies with the group kill: the child leads a
 * process group of its own, which the grandchild is in.
 */
static void test_group_kill(void **state)
{
	char a0[] = "sh", a1[] = "-c", a2[] = "sleep 300 & echo $!; wait";
	char *argv[] = { a0, a1, a2, NULL };
	struct lctl_run r = { .argv = argv, .io = { LCTL_RUN_NULL, LCTL_RUN_PIPE, LCTL_RUN_NULL } };
	char buf[32] = "";
	ssize_t n;
	pid_t grandchild;
	int status;

	(void)state;
	/* the grandchild, orphaned, is ours to reap and see ended */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(lctl_run_start(&r), 0);
	assert_int_equal(getpgid(r.pid), r.pid);
	assert_int_not_equal(getpgid(r.pid), getpgrp());
	n = read(r.fd[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	grandchild = (pid_t)atoi(buf);
	assert_true(grandchild > 0);
	assert_int_equal(getpgid(grandchild), r.pid);
	assert_int_equal(lctl_run_wait(&r, false, &status), 0); /* still running */
	lctl_run_kill(&r, SIGTERM);
	assert_int_equal(lctl_run_wait(&r, true, &status), 1);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_true(ended_within(grandchild, 5000));
	lctl_run_close(&r);
	lctl_run_kill(&r, SIGKILL); /* reaped: nothing to kill, no one else's group */
	assert_int_equal(lctl_run_wait(&r, true, &status), -ECHILD);

	/* a wrapper that ends by itself: what it left in its group goes when it is reaped */
	strcpy(a2, "sleep 300 & echo $!");
	assert_int_equal(lctl_run_start(&r), 0);
	n = read(r.fd[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	grandchild = (pid_t)atoi(buf);
	assert_int_equal(lctl_run_wait(&r, true, &status), 1);
	assert_true(WIFEXITED(status));
	assert_true(ended_within(grandchild, 5000));
	lctl_run_close(&r);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

/*
 * Only stdin, stdout and stderr reach the child: a descriptor the caller opened without
 * O_CLOEXEC does not; a descriptor given as its stdin does.
 */
static void test_descriptors(void **state)
{
	char a0[] = "sh", a1[] = "-c",
	     a2[] = "for f in 0 1 2 57; do [ -e /proc/$$/fd/$f ] && echo open $f; done; cat";
	char *argv[] = { a0, a1, a2, NULL };
	struct lctl_run r = { .argv = argv, .io = { -1, LCTL_RUN_PIPE, LCTL_RUN_NULL } };
	char buf[256];
	size_t n = 0;
	ssize_t got;
	int leak, in[2], status;

	(void)state;
	leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC */
	assert_true(leak >= 0);
	assert_int_equal(dup2(leak, 57), 57);
	close(leak);
	assert_int_equal(fcntl(57, F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(pipe(in), 0); /* no O_CLOEXEC either */
	r.io[0] = in[0];
	assert_int_equal(write(in[1], "from stdin\n", 11), 11);
	close(in[1]);
	assert_int_equal(lctl_run_start(&r), 0);
	close(in[0]);
	while (n + 1 < sizeof(buf) && (got = read(r.fd[1], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	lctl_run_close(&r);
	assert_int_equal(lctl_run_wait(&r, true, &status), 1);
	assert_string_equal(buf, "open 0\nopen 1\nopen 2\nfrom stdin\n");
	/* ours stays open */
	assert_int_equal(fcntl(57, F_GETFD) & FD_CLOEXEC, 0);
	close(57);
}

/* A program that cannot start: an error, nothing left open or running. */
static void test_start_fails(void **state)
{
	char a0[] = "/nonexistent/lctl-test", *argv[] = { a0, NULL };
	struct lctl_run r = { .argv = argv, .io = { LCTL_RUN_PIPE, LCTL_RUN_PIPE, LCTL_RUN_PIPE } };

	(void)state;
	assert_int_equal(lctl_run_start(&r), -ENOENT);
	assert_int_equal(r.pid, 0);
	assert_int_equal(r.fd[0], -1);
	assert_int_equal(r.fd[1], -1);
	assert_int_equal(r.fd[2], -1);
	r.argv = NULL;
	assert_int_equal(lctl_run_start(&r), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	return unit_mkdtemp(dir, sizeof(dir), "run");
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_environment), cmocka_unit_test(test_no_path_lookup),
		cmocka_unit_test(test_group_kill),  cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_start_fails),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
