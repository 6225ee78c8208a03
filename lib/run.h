/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a child process (run.c), the one way layoutctl runs another program: the remote
 * shell of a worker (pool.c), the gluster CLI (cmd/tasks.c, on its way to lib/).
 */
#ifndef LCTL_RUN_H
#define LCTL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The directories a program named without a '/' is found in (and the child's PATH). */
#define LCTL_RUN_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

/* What a child's stdin, stdout or stderr (io[0..2]) is, when not a descriptor of ours. */
#define LCTL_RUN_NULL (-1) /* /dev/null */
#define LCTL_RUN_PIPE (-2) /* a pipe: our end in fd[] */

/* The caller's variables a remote shell needs: whose keys, and the agent holding them. */
extern const char *const lctl_run_rsh_env[];

struct lctl_run {
	/* in */
	char *const *argv;	     /* argv[0]: an absolute path, or a name (LCTL_RUN_PATH) */
	const char *prog;	     /* what to run instead of argv[0] (the same rules), or NULL */
	const char *const *keep_env; /* names of the caller's variables passed on, or NULL */
	int io[3];		     /* LCTL_RUN_NULL, LCTL_RUN_PIPE or a descriptor to give it */
	/* out */
	pid_t pid; /* its pid and process group; 0 once reaped (or never started) */
	int fd[3]; /* our end of each pipe (O_CLOEXEC), else -1 */
};

/**
 * lctl_run_find() - the program @name names: itself when absolute, else the first regular,
 * executable file of that name in LCTL_RUN_PATH's directories, never in the caller's PATH.
 * Return: 0 and the path in @out, or -errno (ENOENT; EINVAL for a relative path with a '/').
 */
int lctl_run_find(const char *name, char *out, size_t size);

/**
 * lctl_run_start() - start @r->argv: in a process group of its own, with stdin, stdout and
 * stderr as @r->io says and no other descriptor of ours, with an environment of PATH
 * (LCTL_RUN_PATH), LC_ALL=C and those of @r->keep_env the caller has (a sanitizer build also
 * passes its sanitizers' options), its signal mask empty and SIGPIPE at its default.
 * Return: 0 (@r->pid, @r->fd), or -errno with nothing left open or running. Thread safe.
 */
int lctl_run_start(struct lctl_run *r);

/**
 * lctl_run_wait() - reap @r (waiting for it with @block), and then kill what is left of its
 * process group (a remote shell's children). Return: 1 (reaped: @r->pid 0, *@status set if
 * not NULL), 0 (still running, without @block) or -errno (ECHILD: @r->pid is 0 now).
 */
int lctl_run_wait(struct lctl_run *r, bool block, int *status);

/** lctl_run_kill() - send @sig to @r's whole process group, if it was not reaped yet. */
void lctl_run_kill(const struct lctl_run *r, int sig);

/** lctl_run_close() - close our ends of its pipes (those still open: fd[i] >= 0). */
void lctl_run_close(struct lctl_run *r);

#endif
