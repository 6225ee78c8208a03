/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the command lines that start the workers of a fix spread over the pool
 * (lib/workerline.c), from a made-up topology. What a remote shell's other side runs is
 * checked by handing the quoted words to /bin/sh and reading back what it passed on: hostile
 * bytes (quotes, newlines, $(), backquotes, a leading dash) arrive as they were, and nothing
 * in them runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layoutctl.h"

static char dir[64]; /* the shell's working directory: what a word ran would be made here */

/*
 * The words @q (each quoted for a shell) put on one command line after printf, run by
 * /bin/sh -c as the other side of ssh does: what it printed, each word NUL-terminated.
 */
static size_t through_sh(char *const *q, size_t n, char *out, size_t size)
{
	size_t len = strlen("printf '%s\\0'") + 1, i, got = 0;
	char *line;
	int pfd[2], status;
	ssize_t r;
	pid_t pid;

	for (i = 0; i < n; i++)
		len += strlen(q[i]) + 1;
	line = malloc(len);
	assert_non_null(line);
	strcpy(line, "printf '%s\\0'");
	for (i = 0; i < n; i++) {
		strcat(line, " ");
		strcat(line, q[i]);
	}
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		if (chdir(dir))
			_exit(126);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], out + got, size - got)) > 0)
		got += (size_t)r;
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(line);
	return got;
}

/* @n words @q, unquoted by the shell, are @want (each NUL-terminated in @want's order). */
static void assert_sh_reads(char *const *q, size_t n, const char *const *want)
{
	static char out[65536];
	size_t got = through_sh(q, n, out, sizeof(out)), off = 0, i;

	for (i = 0; i < n; i++) {
		assert_true(off < got);
		assert_string_equal(out + off, want[i]);
		off += strlen(out + off) + 1;
	}
	assert_int_equal(off, got);
}

static const char *const hostile[] = {
	"plain",
	"",
	"it's",
	"'",
	"''\\''",
	"line\nbreak\n",
	"$(touch ran-dollar)",
	"`touch ran-backquote`",
	"; touch ran-semicolon",
	"-rf",
	"--",
	"--node=x",
	"a b\tc",
	"\\",
	"${HOME}*?[a]~",
	"\x01\x7f\xff bytes",
	"\"double\" 'single'",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void assert_nothing_ran(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/ran-dollar", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/ran-backquote", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/ran-semicolon", dir);
	assert_int_not_equal(access(path, F_OK), 0);
}

/* Each hostile word, quoted, reaches the program behind the shell as it was, and runs nothing. */
static void test_quote(void **state)
{
	char *q[NHOSTILE];
	size_t i;

	(void)state;
	for (i = 0; i < NHOSTILE; i++) {
		q[i] = lctl_shell_quote(hostile[i]);
		assert_non_null(q[i]);
		/* one word: it starts and ends quoted, so no byte of it is the shell's */
		assert_int_equal(q[i][0], '\'');
		assert_int_equal(q[i][strlen(q[i]) - 1], '\'');
	}
	assert_sh_reads(q, NHOSTILE, hostile);
	assert_nothing_ran();
	for (i = 0; i < NHOSTILE; i++)
		free(q[i]);
}

/*
 * A pool of three servers: this one (h1), h2 with bricks listed under two names (h2 and h2b),
 * and an IPv6 address. Subvolume 0: h1, h2; 1: h2b, fe80::7; 2: h1 (a second brick of it).
 */
static char h1[] = "h1", h2[] = "h2", h2b[] = "h2b", v6[] = "fe80::7", path[] = "/b", xl[] = "x";
static char id1[] = "id1", id2[] = "id2", id3[] = "id3";
static char sv0[] = "v-client-0", sv1[] = "v-client-1", sv2[] = "v-client-2";
static struct lctl_brick b0[] = { { h1, path, xl, 0, true }, { h2, path, xl, 1, false } };
static struct lctl_brick b1[] = { { h2b, path, xl, 1, false }, { v6, path, xl, 2, false } };
static struct lctl_brick b2[] = { { h1, path, xl, 0, true } };
static const struct lctl_server servers[] = { { id1, h1, 2, true },
					      { id2, h2, 2, false },
					      { id3, v6, 1, false } };
static struct lctl_subvol subvols[3];
static const struct lctl_pool_topology topo = { servers, 3, subvols, 3 };

static const char *const gservers[] = { "vf1:24007", "-vf2" };

static struct lctl_worker_line_opts opts(void)
{
	struct lctl_worker_line_opts o = { .volume = "-vol'$(touch ran-dollar)",
					   .state_dir = "/st ate/`touch ran-backquote`\n'",
					   .rsh = "/usr/bin/ssh  -q -p 22",
					   .remote_cmd = "/opt/lay out'ctl",
					   .servers = gservers,
					   .nservers = 2,
					   .glusterd_dir = "/gd",
					   .migrations = 2,
					   .files_per_sec = 1.5,
					   .bytes_per_sec = 2.5e6,
					   .hang_timeout_s = 30,
					   .gfapi_only = true };

	subvols[0] = (struct lctl_subvol){ .name = sv0, .bricks = b0, .nbricks = 2 };
	subvols[1] = (struct lctl_subvol){ .name = sv1, .bricks = b1, .nbricks = 2 };
	subvols[2] = (struct lctl_subvol){ .name = sv2, .bricks = b2, .nbricks = 1 };
	return o;
}

static size_t argc_of(char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

static void assert_argv(char *const *v, const char *const *want, size_t n)
{
	size_t i;

	assert_int_equal(argc_of(v), n);
	for (i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
}

/* The worker's options after its identity: every option the run passes on, and the volume. */
#define WORKER_TAIL(host_dir) \
	"worker", "--parallel", "4", "--migrations", "2", "--rate", "1.5", "--bandwidth", "2.5", \
		"--brick-reads", "gfapi", "--hang-timeout", "30", "--state-dir", \
		"/st ate/`touch ran-backquote`\n'/server-" host_dir, "--", \
		"-vol'$(touch ran-dollar)"

static void test_pool_lines(void **state)
{
	struct lctl_worker_line_opts o = opts();
	struct lctl_worker_lines wl;
	static const char *const local[] = {
		"/proc/self/exe", "--server", "vf1:24007", "--server", "-vf2",
		"--glusterd-dir", "/gd",      "--node",	   "h1",       WORKER_TAIL("h1")
	};
	static const char *const h2_rsh[] = { "/usr/bin/ssh",  "-q", "-p", "22", "-o",
					      "BatchMode=yes", "--", "h2" };
	static const char *const h2_remote[] = {
		"/opt/lay out'ctl", "--server", "h2", "--node", "h2", "--node", "h2b",
		WORKER_TAIL("h2")
	};
	static const char *const v6_remote[] = { "/opt/lay out'ctl", "--server",
						 "fe80::7",	     "--node",
						 "fe80::7",	     WORKER_TAIL("fe80__7") };

	(void)state;
	assert_int_equal(lctl_worker_lines_from(&topo, &o, &wl, NULL), 0);
	assert_int_equal(wl.n, 3);
	assert_string_equal(wl.spec[0].server, "h1");
	assert_string_equal(wl.spec[1].server, "h2");
	assert_string_equal(wl.spec[2].server, "fe80::7");
	/* this host's: run directly, nothing quoted (no shell between) */
	assert_argv(wl.spec[0].argv, local, sizeof(local) / sizeof(local[0]));
	/* another's: the remote shell's words, then what its other side runs, which the shell
	 * there reads back word for word */
	assert_int_equal(argc_of(wl.spec[1].argv), 8 + sizeof(h2_remote) / sizeof(h2_remote[0]));
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(wl.spec[1].argv[i], h2_rsh[i]);
	assert_sh_reads(wl.spec[1].argv + 8, sizeof(h2_remote) / sizeof(h2_remote[0]), h2_remote);
	assert_string_equal(wl.spec[2].argv[7], "fe80::7");
	assert_int_equal(argc_of(wl.spec[2].argv), 8 + sizeof(v6_remote) / sizeof(v6_remote[0]));
	assert_sh_reads(wl.spec[2].argv + 8, sizeof(v6_remote) / sizeof(v6_remote[0]), v6_remote);
	assert_nothing_ran();
	lctl_worker_lines_free(&wl);
	assert_null(wl.spec);
}

/* ssh is told BatchMode and "--" unless its words say so; another remote shell is left alone. */
static void test_rsh_words(void **state)
{
	static const struct {
		const char *rsh;
		const char *const words[6];
	} cases[] = {
		{ NULL, { "ssh", "-o", "BatchMode=yes", "--", "h2" } },
		{ "ssh -oBatchMode=no", { "ssh", "-oBatchMode=no", "--", "h2" } },
		{ "/bin/ssh -- ", { "/bin/ssh", "--", "h2" } },
		{ "rsh -l root", { "rsh", "-l", "root", "h2" } },
		{ "/usr/local/bin/my-ssh", { "/usr/local/bin/my-ssh", "h2" } },
	};
	size_t c, i;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct lctl_worker_line_opts o = opts();
		struct lctl_worker_lines wl;

		o.rsh = cases[c].rsh;
		o.remote_cmd = NULL;
		assert_int_equal(lctl_worker_lines_from(&topo, &o, &wl, NULL), 0);
		for (i = 0; cases[c].words[i]; i++)
			assert_string_equal(wl.spec[1].argv[i], cases[c].words[i]);
		assert_string_equal(wl.spec[1].argv[i], "'layoutctl'");
		lctl_worker_lines_free(&wl);
	}
}

/* The options left at their defaults give no words; the worker's parallel default is said. */
static void test_defaults(void **state)
{
	struct lctl_worker_line_opts o = { .volume = "v", .state_dir = "/s" };
	struct lctl_worker_lines wl;
	static const char *const local[] = { "/proc/self/exe", "--node",     "h1",
					     "worker",	       "--parallel", "4",
					     "--hang-timeout", "0",	     "--state-dir",
					     "/s/server-h1",   "--",	     "v" };

	(void)state;
	opts();
	assert_int_equal(lctl_worker_lines_from(&topo, &o, &wl, NULL), 0);
	assert_argv(wl.spec[0].argv, local, sizeof(local) / sizeof(local[0]));
	lctl_worker_lines_free(&wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_pool_lines),
		cmocka_unit_test(test_rsh_words),
		cmocka_unit_test(test_defaults),
	};
	int ret;

	snprintf(dir, sizeof(dir), "/tmp/test-workerline.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return ret;
}
