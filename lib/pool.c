/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix spread over the pool: the starting host's side of its workers.
 *
 * Each server runs one worker (`layoutctl worker`, started through a remote shell, or
 * directly for this host) that moves the files whose data sits on its own bricks. The link is
 * the worker's stdin and stdout, one socketpair per worker (so a worker that died makes a
 * write fail with EPIPE instead of a SIGPIPE here), carrying short text lines:
 *
 *   worker -> us:  hello PROTO NODE        connected, its bricks found, waiting for "go"
 *                  progress D M S F B      directories done, files migrated / skipped /
 *                                          failed, bytes migrated (about once a second)
 *                  done D M S F B CODE     finished (CODE: 0 all placed, 1 some failed,
 *                                          130 stopped); then it exits
 *                  error MESSAGE           it cannot go on (then it exits)
 *   us -> worker:  go force=0|1 layout=gluster|min-move scope=HEX   (what the journal says:
 *                  --force-move, the planner and the scope, hex-encoded)
 *                  pause | resume | stop; end of file means stop.
 *
 * A worker that ends without "done" is lost: what it did not move stays misplaced, the
 * starting host's verification leaves those directories dirty, and the run is resumable.
 */
#include "internal.h"
#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POOL_PROTO 1

struct worker {
	pid_t pid;
	int fd;		/* our end of its stdin and stdout */
	char buf[1024]; /* a partial line */
	size_t len;
	bool hello, ended;
	double go_at;
	struct lctl_server_progress pg;
};

struct lctl_pool {
	struct worker *w;
	size_t n;
	double hello_by; /* every worker says hello by then, or the run refuses */
	int hello_ms;
};

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keep printable ASCII only: a worker's text ends up on a terminal and in JSON. */
static void printable(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

static void set_state(struct worker *w, const char *state)
{
	snprintf(w->pg.state, sizeof(w->pg.state), "%s", state);
}

static int spawn(struct worker *w, const struct lctl_worker_spec *spec)
{
	posix_spawn_file_actions_t fa;
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	ret = posix_spawnp(&w->pid, spec->argv[0], &fa, NULL, spec->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		w->pid = 0;
		return -ret;
	}
	w->fd = sv[0];
	fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static void handle_line(struct worker *w, char *line)
{
	struct lctl_server_progress *pg = &w->pg;
	unsigned long long d, m, s, f, b;
	int code, proto;
	char node[128];

	if (sscanf(line, "hello %d %127s", &proto, node) == 2) {
		if (proto != POOL_PROTO) {
			snprintf(pg->error, sizeof(pg->error),
				 "speaks protocol %d, not %d (another "
				 "layoutctl version?)",
				 proto, POOL_PROTO);
			set_state(w, "failed");
			w->ended = true;
			return;
		}
		w->hello = true;
		set_state(w, "ready");
	} else if (sscanf(line, "progress %llu %llu %llu %llu %llu", &d, &m, &s, &f, &b) == 5 ||
		   sscanf(line, "done %llu %llu %llu %llu %llu %d", &d, &m, &s, &f, &b, &code) ==
			   6) {
		pg->dirs = d;
		pg->migrated = m;
		pg->skipped = s;
		pg->failed = f;
		pg->bytes = b;
		if (line[0] == 'd') {
			w->ended = true;
			if (w->go_at > 0)
				pg->seconds = now_s() - w->go_at;
			set_state(w, code == 0 ? "done" : code == 130 ? "stopped" : "failed");
			if (code && code != 130 && !pg->error[0])
				snprintf(pg->error, sizeof(pg->error), "%llu files failed", f);
		}
	} else if (!strncmp(line, "error ", 6)) {
		printable(pg->error, sizeof(pg->error), line + 6);
		set_state(w, "failed");
	}
}

/*
 * Why a worker's link ended before its "done" line: its command's exit status when it has
 * exited by now (a remote shell that could not connect, no layoutctl there: 127), or not.
 */
static void why_ended(struct worker *w)
{
	const char *what = w->hello ? "the worker ended without finishing"
				    : "the worker ended before it was ready";
	int status, i;

	for (i = 0; i < 20 && w->pid; i++) {
		if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
			w->pid = 0;
			if (WIFEXITED(status))
				snprintf(w->pg.error, sizeof(w->pg.error),
					 "%s (its command exited with "
					 "status %d)",
					 what, WEXITSTATUS(status));
			else if (WIFSIGNALED(status))
				snprintf(w->pg.error, sizeof(w->pg.error),
					 "%s (its command was killed "
					 "by signal %d)",
					 what, WTERMSIG(status));
			return;
		}
		usleep(10000);
	}
	snprintf(w->pg.error, sizeof(w->pg.error), "%s", what);
}

/* Read what worker @w sent; false once it is gone. */
static void drain(struct worker *w)
{
	ssize_t n;
	char *nl;

	for (;;) {
		n = read(w->fd, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (!w->ended) {
				set_state(w, w->hello ? "lost" : "failed");
				if (w->go_at > 0)
					w->pg.seconds = now_s() - w->go_at;
				if (!w->pg.error[0])
					why_ended(w);
			}
			w->ended = true;
			close(w->fd);
			w->fd = -1;
			return;
		}
		w->len += (size_t)n;
		w->buf[w->len] = '\0';
		while ((nl = strchr(w->buf, '\n'))) {
			*nl = '\0';
			handle_line(w, w->buf);
			w->len -= (size_t)(nl + 1 - w->buf);
			memmove(w->buf, nl + 1, w->len + 1);
		}
		if (w->len == sizeof(w->buf) - 1)
			w->len = 0; /* a line this long is no line of ours */
	}
}

/* Wait up to @timeout_ms for something from any worker; read it. */
static void pool_wait(struct lctl_pool *p, int timeout_ms)
{
	struct pollfd pfd[LCTL_POOL_MAX];
	size_t i, n = 0, map[LCTL_POOL_MAX];

	for (i = 0; i < p->n; i++)
		if (p->w[i].fd >= 0) {
			pfd[n] = (struct pollfd){ .fd = p->w[i].fd, .events = POLLIN };
			map[n++] = i;
		}
	if (!n) {
		if (timeout_ms > 0)
			usleep((useconds_t)timeout_ms * 1000u);
		return;
	}
	if (poll(pfd, n, timeout_ms) <= 0)
		return;
	for (i = 0; i < n; i++)
		if (pfd[i].revents)
			drain(&p->w[map[i]]);
}

static void send_line(struct worker *w, const char *line)
{
	size_t len = strlen(line);

	if (w->fd >= 0 && !w->ended && send(w->fd, line, len, MSG_NOSIGNAL) != (ssize_t)len)
		lctl_log(LCTL_LOG_DEBUG, "server %s: cannot send '%.*s': %s", w->pg.name,
			 (int)len - 1, line, strerror(errno));
}

void lctl_pool_send(struct lctl_pool *p, const char *cmd)
{
	bool go = !strncmp(cmd, "go", 2) && (cmd[2] == ' ' || !cmd[2]);
	char *line;
	size_t i;

	if (asprintf(&line, "%s\n", cmd) < 0)
		return;
	for (i = 0; i < p->n; i++) {
		if (go && !p->w[i].ended) {
			p->w[i].go_at = now_s();
			set_state(&p->w[i], "placing");
		}
		send_line(&p->w[i], line);
	}
	free(line);
}

int lctl_pool_spawn(const struct lctl_worker_spec *specs, size_t n, int timeout_ms,
		    struct lctl_pool **out, struct lctl_error *err)
{
	struct lctl_pool *p;
	size_t i;
	int ret;

	*out = NULL;
	if (n > LCTL_POOL_MAX)
		return lctl_seterr(err, LCTL_EINVAL, 0, "more than %d servers", LCTL_POOL_MAX);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->w = calloc(n ? n : 1, sizeof(*p->w)))) {
		free(p);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	p->n = n;
	p->hello_ms = timeout_ms;
	p->hello_by = now_s() + timeout_ms / 1000.0;
	for (i = 0; i < n; i++) {
		struct worker *w = &p->w[i];

		w->fd = -1;
		printable(w->pg.name, sizeof(w->pg.name), specs[i].server);
		set_state(w, "starting");
		ret = spawn(w, &specs[i]);
		if (ret) {
			lctl_seterr(err, LCTL_ECONNECT, -ret,
				    "server %s: cannot start '%.100s': %s", w->pg.name,
				    specs[i].argv[0], strerror(-ret));
			lctl_pool_free(p);
			return -LCTL_ECONNECT;
		}
	}
	*out = p;
	return 0;
}

int lctl_pool_hello(struct lctl_pool *p, int timeout_ms, struct lctl_error *err)
{
	size_t i, ready;
	bool looked = false;

	for (;;) {
		for (i = 0, ready = 0; i < p->n; i++) {
			struct worker *w = &p->w[i];

			if (w->ended || !strcmp(w->pg.state, "failed"))
				return lctl_seterr(err, LCTL_ECONNECT, 0,
						   "server %s cannot take part: %s", w->pg.name,
						   w->pg.error[0] ? w->pg.error
								  : "its worker failed");
			ready += w->hello;
		}
		if (ready == p->n)
			return 1;
		if (now_s() > p->hello_by) {
			for (i = 0; i < p->n && p->w[i].hello; i++)
				;
			return lctl_seterr(err, LCTL_ECONNECT, ETIMEDOUT,
					   "server %s: its worker did not answer within %d s",
					   p->w[i].pg.name, p->hello_ms / 1000);
		}
		if (looked && timeout_ms <= 0)
			return 0;
		pool_wait(p, timeout_ms <= 0 ? 0 : timeout_ms < 200 ? timeout_ms : 200);
		timeout_ms -= 200;
		looked = true;
	}
}

int lctl_pool_start(const struct lctl_worker_spec *specs, size_t n, int timeout_ms,
		    struct lctl_pool **out, struct lctl_error *err)
{
	struct lctl_pool *p;
	int ret = lctl_pool_spawn(specs, n, timeout_ms, &p, err);

	*out = NULL;
	while (!ret)
		ret = lctl_pool_hello(p, 200, err);
	if (ret < 0) {
		if (p)
			lctl_pool_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

bool lctl_pool_poll(struct lctl_pool *p, int timeout_ms)
{
	size_t i;

	pool_wait(p, timeout_ms);
	for (i = 0; i < p->n; i++)
		if (!p->w[i].ended)
			return false;
	return true;
}

size_t lctl_pool_progress(const struct lctl_pool *p, struct lctl_server_progress *out, size_t max)
{
	double now = now_s();
	size_t i;

	for (i = 0; i < p->n && i < max; i++) {
		out[i] = p->w[i].pg;
		if (p->w[i].go_at > 0 && !p->w[i].ended)
			out[i].seconds = now - p->w[i].go_at;
	}
	return i;
}

bool lctl_pool_server_done(const struct lctl_pool *p, size_t i)
{
	return i < p->n && !strcmp(p->w[i].pg.state, "done");
}

bool lctl_pool_complete(const struct lctl_pool *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->w[i].pg.state, "done"))
			return false;
	return true;
}

void lctl_pool_free(struct lctl_pool *p)
{
	double start, grace = 1;
	size_t i, left;
	int status;

	if (!p)
		return;
	/*
	 * End of file on its stdin stops a worker; one that is moving files may take a while to
	 * finish the migrations in flight, one that never got "go" has nothing to finish.
	 */
	for (i = 0; i < p->n; i++) {
		if (p->w[i].fd >= 0)
			shutdown(p->w[i].fd, SHUT_WR);
		if (p->w[i].go_at > 0 && !p->w[i].ended)
			grace = 10;
	}
	start = now_s();
	do {
		for (i = 0, left = 0; i < p->n; i++) {
			if (!p->w[i].pid)
				continue;
			if (waitpid(p->w[i].pid, &status, WNOHANG) == p->w[i].pid)
				p->w[i].pid = 0;
			else
				left++;
		}
		if (left)
			pool_wait(p, 50);
	} while (left && now_s() - start < grace);
	for (i = 0; i < p->n; i++) {
		if (p->w[i].pid) {
			kill(p->w[i].pid, SIGKILL);
			waitpid(p->w[i].pid, &status, 0);
		}
		if (p->w[i].fd >= 0)
			close(p->w[i].fd);
	}
	free(p->w);
	free(p);
}
