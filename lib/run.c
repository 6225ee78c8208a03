/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a child process: the one helper (issue 24 item 10, issue 25).
 *
 * layoutctl runs as root, often under sudo or a unit whose environment and PATH it did not
 * choose. So a child gets nothing of it by accident:
 *  - the program is an absolute path, given or found in the system's directories
 *    (LCTL_RUN_PATH) before the spawn, never through the caller's PATH;
 *  - its environment is built here: PATH (LCTL_RUN_PATH), LC_ALL=C and only the variables the
 *    caller names (a remote shell's: lctl_run_rsh_env), plus, in a sanitizer build, the
 *    sanitizers' options (the tests' reports of a worker go where the test wants them);
 *  - stdin, stdout and stderr are what the caller asks (a descriptor of its own, a pipe or
 *    /dev/null); every other descriptor is closed in the child, whether or not it was opened
 *    with O_CLOEXEC (another thread may have opened one without it);
 *  - it leads a process group of its own, so that killing the group reaches what a wrapper
 *    (a remote shell, a script) started; once it is reaped, what is left of its group is
 *    killed too;
 *  - its signal mask is empty and SIGPIPE at its default (we ignore SIGPIPE; a child would
 *    inherit that).
 * Everything is prepared before posix_spawn() (no allocation in the child), which reports a
 * failed exec as its own error.
 */
#include "internal.h"
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *const lctl_run_rsh_env[] = { "HOME", "USER", "LOGNAME", "SSH_AUTH_SOCK", NULL };

#ifdef LCTL_SANITIZERS
static const char *const san_env[] = { "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
				       "TSAN_OPTIONS", NULL };
#else
static const char *const san_env[] = { NULL };
#endif

/* at most this many variables of the caller's are passed on */
#define RUN_KEEP_MAX 16

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int lctl_run_find(const char *name, char *out, size_t size)
{
	static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
	size_t i;
	int n;

	if (name[0] == '/') {
		n = snprintf(out, size, "%s", name);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		return executable(out) ? 0 : -ENOENT;
	}
	if (!name[0] || strchr(name, '/'))
		return -EINVAL; /* relative to wherever we were started: never */
	for (i = 0; i < LCTL_ARRAY_SIZE(dirs); i++) {
		n = snprintf(out, size, "%s/%s", dirs[i], name);
		if (n > 0 && (size_t)n < size && executable(out))
			return 0;
	}
	return -ENOENT;
}

/* The caller's "NAME=value" for @name, or NULL. */
static char *caller_var(const char *name)
{
	size_t len = strlen(name);
	char **e;

	for (e = environ; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e;
	return NULL;
}

/* PATH, LC_ALL and the kept variables into @env (room for RUN_KEEP_MAX + 3). */
static int child_env(const struct lctl_run *r, char **env)
{
	static char path_env[] = "PATH=" LCTL_RUN_PATH, lc_env[] = "LC_ALL=C";
	const char *const *lists[] = { r->keep_env, san_env };
	size_t n = 0, l, i;

	env[n++] = path_env;
	env[n++] = lc_env;
	for (l = 0; l < LCTL_ARRAY_SIZE(lists); l++)
		for (i = 0; lists[l] && lists[l][i]; i++) {
			char *v;

			if (!strcmp(lists[l][i], "PATH") || !strcmp(lists[l][i], "LC_ALL"))
				continue;
			if (!(v = caller_var(lists[l][i])))
				continue;
			if (n >= RUN_KEEP_MAX + 2)
				return -E2BIG;
			env[n++] = v;
		}
	env[n] = NULL;
	return 0;
}

#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 34)
#define RUN_CLOSEFROM 1
#endif
#endif

#ifndef RUN_CLOSEFROM
/* Without posix_spawn_file_actions_addclosefrom_np(): close each one open now. */
static int close_others(posix_spawn_file_actions_t *fa)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int self, ret = 0;

	if (!d)
		return -errno;
	self = dirfd(d);
	while (!ret && (de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd < 3 || fd == self)
			continue;
		ret = -posix_spawn_file_actions_addclose(fa, (int)fd);
	}
	closedir(d);
	return ret;
}
#else
static int close_others(posix_spawn_file_actions_t *fa)
{
	return -posix_spawn_file_actions_addclosefrom_np(fa, 3);
}
#endif

void lctl_run_close(struct lctl_run *r)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->fd[i] = -1;
	}
}

int lctl_run_start(struct lctl_run *r)
{
	char path[4096], *env[RUN_KEEP_MAX + 3];
	int child[3] = { -1, -1, -1 }, ret, i;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;

	r->pid = 0;
	for (i = 0; i < 3; i++)
		r->fd[i] = -1;
	if (!r->argv || !r->argv[0])
		return -EINVAL;
	ret = lctl_run_find(r->prog ? r->prog : r->argv[0], path, sizeof(path));
	if (!ret)
		ret = child_env(r, env);
	if (ret)
		return ret;
	/* the pipes: the child's end becomes its 0, 1 or 2; ours stays here */
	for (i = 0; i < 3; i++) {
		int p[2];

		if (r->io[i] != LCTL_RUN_PIPE)
			continue;
		if (pipe2(p, O_CLOEXEC)) {
			ret = -errno;
			lctl_run_close(r);
			for (i = 0; i < 3; i++)
				if (child[i] >= 0)
					close(child[i]);
			return ret;
		}
		r->fd[i] = i ? p[0] : p[1];
		child[i] = i ? p[1] : p[0];
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	for (i = 0; i < 3 && !ret; i++) {
		if (r->io[i] == LCTL_RUN_NULL)
			ret = posix_spawn_file_actions_addopen(&fa, i, "/dev/null",
							       i ? O_WRONLY : O_RDONLY, 0);
		else
			ret = posix_spawn_file_actions_adddup2(&fa,
							       r->io[i] == LCTL_RUN_PIPE ? child[i]
											 : r->io[i],
							       i);
	}
	ret = ret ? -ret : close_others(&fa);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	if (!ret)
		ret = -posix_spawnattr_setsigmask(&at, &none);
	if (!ret)
		ret = -posix_spawnattr_setsigdefault(&at, &def);
	if (!ret)
		ret = -posix_spawnattr_setpgroup(&at, 0);
	if (!ret)
		ret = -posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
							     POSIX_SPAWN_SETSIGMASK |
							     POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = -posix_spawn(&r->pid, path, &fa, &at, r->argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	for (i = 0; i < 3; i++)
		if (child[i] >= 0)
			close(child[i]);
	if (ret) {
		r->pid = 0;
		lctl_run_close(r);
	}
	return ret;
}

int lctl_run_wait(struct lctl_run *r, bool block, int *status)
{
	int st = 0;
	pid_t got;

	if (r->pid <= 0)
		return -ECHILD;
	while ((got = waitpid(r->pid, &st, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
		;
	if (got == 0)
		return 0;
	if (got < 0) {
		int e = errno;

		if (e == ECHILD)
			r->pid = 0;
		return -e;
	}
	/* what a wrapper left behind in its group (the group outlives its leader) */
	kill(-got, SIGKILL);
	r->pid = 0;
	if (status)
		*status = st;
	return 1;
}

void lctl_run_kill(const struct lctl_run *r, int sig)
{
	if (r->pid > 0)
		kill(-r->pid, sig);
}
