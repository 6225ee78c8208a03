/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix spread over the pool: the starting host's side of its workers.
 *
 * Each server runs one worker (`layoutctl worker`, started through a remote shell, or
 * directly for this host) that moves the files whose data sits on its own bricks. The link is
 * the worker's stdin and stdout, one socketpair per worker (so a worker that died makes a
 * write fail with EPIPE instead of a SIGPIPE here), carrying the lines of poolwire.c. Each
 * worker is started in a process group of its own, so that the remote shell's children go
 * with it when it is killed.
 *
 * The starting host's state machine per worker:
 *
 *   starting --hello--> ready --(our go)--> placing --done--> done | stopped | failed
 *   any state --error--> failed        ready, placing --progress--> the same (a heartbeat)
 *
 * Anything else (a second hello, progress before hello, done before go, a line that is no
 * message: poolwire.c) is a protocol error; so is silence: a worker that said hello sends a
 * line at least once a second, and one that sends nothing for the silence limit (the run's
 * hang timeout, at most POOL_SILENT_MAX_S) is stopped or caught in a dead link. A worker that
 * does not end within POOL_STOP_GRACE_S of our stop is stuck too. Any of these makes it lost:
 * its link closed, its process group killed, its state "lost" and why in its error. Nothing
 * it said before counts as done: what it did not move stays misplaced, the starting host's
 * verification leaves those directories dirty, and the run is resumable. done and error are
 * final: nothing read after them changes the state.
 *
 * A placing worker sends each file's outcome too ("outcome", between go and its final line):
 * it is appended to the run's one outcome log here (lctl_pool_set_outcome_log()), its line
 * marked with the server's name; the worker's own log on its server keeps its copy. Within
 * budgets of bytes (lctl/pool.h: per worker and per run, the failed lines apart with larger
 * ones): the lines past them are counted, and once the worker has ended one line of the log
 * (and a warning) says how many were dropped, and how many of those failed (note_dropped()).
 */
#include "internal.h"
#include "pool.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* two minutes without a line: no slow worker, a stopped process or a dead link */
#define POOL_SILENT_MAX_S 120
/* a worker told to stop finishes the migrations in flight within this, or is killed */
#define POOL_STOP_GRACE_S 10

enum wstate { W_STARTING, W_READY, W_PLACING, W_ENDED };

/* a line of a worker's stderr longer than this is passed on in pieces */
#define POOL_ERR_LINE 1024

struct worker {
	struct lctl_run run; /* its command: run.pid, also its process group */
	int fd;		     /* our end of its stdin and stdout */
	int errfd; /* our end of its stderr: passed on line by line, escaped (relay_err()) */
	char err[POOL_ERR_LINE];
	size_t errlen;
	char last_err[160]; /* its last line on stderr, escaped: why it ended, if it says */
	struct lctl_pool_reader *rd;
	enum wstate st;
	bool hello;
	bool held_beat;			  /* a held line came since the last progress line */
	uint64_t logged[2];		  /* bytes of outcome lines logged: [1] the failed ones */
	uint64_t dropped, dropped_failed; /* outcome lines past a budget; failed ones of those */
	bool dropped_noted;		  /* the line saying how many were dropped is written */
	double go_at, heard_at, stop_at;
	struct lctl_server_progress pg;
};

struct lctl_pool {
	struct worker *w;
	size_t n;
	double hello_by; /* every worker says hello by then, or the run refuses */
	int hello_ms;
	double silent_s;
	int outcome_fd;	     /* the run's outcome log, or -1 */
	bool outcome_failed; /* a line could not be written */
	struct lctl_pool_outcome_budget budget;
	uint64_t logged[2]; /* bytes of outcome lines logged, all workers: [1] the failed ones */
};

/* Worker @w's outcome @m into the run's log, unless past a budget: then only counted. */
static void log_outcome(struct lctl_pool *p, struct worker *w, const struct lctl_pool_msg *m)
{
	int f = m->outcome.action == LCTL_FILE_FAILED;
	uint64_t wb = f ? p->budget.worker_failed : p->budget.worker;
	uint64_t rb = f ? p->budget.run_failed : p->budget.run;
	char *line;
	size_t len;

	if (p->outcome_fd < 0)
		return;
	line = lctl_outcome_msg_line(m, w->pg.name);
	if (!line) {
		p->outcome_failed = true;
		return;
	}
	len = strlen(line);
	if (w->logged[f] + len > wb || p->logged[f] + len > rb) {
		w->dropped++;
		w->dropped_failed += (uint64_t)f;
	} else {
		w->logged[f] += len;
		p->logged[f] += len;
		if (write(p->outcome_fd, line, len) != (ssize_t)len)
			p->outcome_failed = true;
	}
	free(line);
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

/*
 * Its command (lib/run.c: argv[0] absolute or found in the system's directories, a clean
 * environment but what a remote shell needs, a process group of its own), its stdin and
 * stdout our socket, its stderr a pipe: a remote shell's, the remote side's, never reaching
 * the terminal raw.
 */
static int spawn(struct worker *w, const struct lctl_worker_spec *spec)
{
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	w->run = (struct lctl_run){ .argv = spec->argv,
				    .keep_env = lctl_run_rsh_env,
				    .io = { sv[1], sv[1], LCTL_RUN_PIPE } };
	ret = lctl_run_start(&w->run);
	close(sv[1]);
	if (ret) {
		close(sv[0]);
		return ret;
	}
	w->fd = sv[0];
	w->errfd = w->run.fd[2];
	w->run.fd[2] = -1; /* ours now: relay_err() closes it */
	fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_NONBLOCK);
	fcntl(w->errfd, F_SETFL, fcntl(w->errfd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* One line of a worker's stderr, escaped (lib/escape.c), as a warning naming its server. */
static void err_line(struct worker *w, const char *line, size_t len)
{
	char buf[POOL_ERR_LINE + 1], *esc;

	memcpy(buf, line, len);
	buf[len] = '\0';
	if (!buf[0])
		return;
	esc = lctl_escape_dup(buf);
	lctl_log(LCTL_LOG_WARN, "server %s: %s", w->pg.name, esc ? esc : "?");
	snprintf(w->last_err, sizeof(w->last_err), "%s", esc ? esc : "?");
	free(esc);
}

/* a worker's stderr read per call of relay_err(): one that never stops writing cannot keep
 * the starting host's loop (liveness, the control file, a stop) from its other work */
#define POOL_ERR_PER_CALL (64 * 1024)

/* What a worker wrote on its stderr, passed on a line at a time; its end closes it. */
static void relay_err(struct worker *w)
{
	size_t taken = 0;
	ssize_t n;
	char *nl;

	while (w->errfd >= 0 && taken < POOL_ERR_PER_CALL) {
		n = read(w->errfd, w->err + w->errlen, sizeof(w->err) - w->errlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			err_line(w, w->err, w->errlen);
			w->errlen = 0;
			close(w->errfd);
			w->errfd = -1;
			return;
		}
		w->errlen += (size_t)n;
		taken += (size_t)n;
		while ((nl = memchr(w->err, '\n', w->errlen))) {
			size_t k = (size_t)(nl - w->err);

			err_line(w, w->err, k);
			w->errlen -= k + 1;
			memmove(w->err, nl + 1, w->errlen);
		}
		if (w->errlen == sizeof(w->err)) {
			err_line(w, w->err, w->errlen);
			w->errlen = 0;
		}
	}
}

static void close_link(struct worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->rd);
	w->rd = NULL;
}

/* The worker cannot be trusted any more: link closed, process group killed, state final. */
static void lose(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lose(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->pg.error, sizeof(w->pg.error), fmt, ap);
	va_end(ap);
	set_state(w, w->hello ? "lost" : "failed");
	if (w->go_at > 0)
		w->pg.seconds = lctl_mono_seconds() - w->go_at;
	w->st = W_ENDED;
	close_link(w);
	lctl_run_kill(&w->run, SIGKILL);
	lctl_log(LCTL_LOG_WARN, "server %s: %s", w->pg.name, w->pg.error);
}

static void counters(struct worker *w, const struct lctl_pool_msg *m)
{
	w->pg.dirs = m->dirs;
	w->pg.migrated = m->migrated;
	w->pg.skipped = m->skipped;
	w->pg.failed = m->failed;
	w->pg.bytes = m->bytes;
	w->pg.plan_files = m->plan_files;
	w->pg.plan_bytes = m->plan_bytes;
	w->pg.plan_dirs = m->plan_dirs;
}

static void handle(struct lctl_pool *p, struct worker *w, const struct lctl_pool_msg *m)
{
	struct lctl_server_progress *pg = &w->pg;

	switch (m->kind) {
	case LCTL_PM_HELLO:
		if (w->st != W_STARTING)
			return lose(w, "protocol error: a second hello");
		if (m->proto != LCTL_POOL_PROTO) {
			lose(w, "speaks protocol %u, not %d (another layoutctl version?)", m->proto,
			     LCTL_POOL_PROTO);
			return;
		}
		w->hello = true;
		w->st = W_READY;
		set_state(w, "ready");
		return;
	case LCTL_PM_PROGRESS:
		if (w->st != W_READY && w->st != W_PLACING)
			return lose(w, "protocol error: progress before hello");
		if (w->st == W_PLACING)
			counters(w, m);
		/* a progress line with no held line before it: the worker goes on */
		if (w->st == W_PLACING && !w->held_beat && pg->held[0]) {
			pg->held[0] = '\0';
			pg->held_seconds = 0;
			set_state(w, "placing");
		}
		w->held_beat = false;
		return;
	case LCTL_PM_HELD:
		if (w->st != W_PLACING)
			return lose(w, "protocol error: held before go");
		printable(pg->held, sizeof(pg->held), m->text);
		pg->held_seconds = m->held_seconds;
		w->held_beat = true;
		set_state(w, "held");
		return;
	case LCTL_PM_DONE:
		if (w->st != W_PLACING)
			return lose(w, "protocol error: done before go");
		counters(w, m);
		pg->seconds = lctl_mono_seconds() - w->go_at;
		set_state(w, m->code == 0 ? "done" : m->code == 130 ? "stopped" : "failed");
		if (m->code == 130 && pg->held[0])
			snprintf(pg->error, sizeof(pg->error), "stopped while held: %.170s",
				 pg->held);
		else if (m->code && m->code != 130)
			snprintf(pg->error, sizeof(pg->error), "%llu files failed (exit status %u)",
				 (unsigned long long)m->failed, m->code);
		if (m->code != 130)
			pg->held[0] = '\0'; /* kept only for a worker stopped while held */
		w->st = W_ENDED;
		close_link(w); /* final: it exits now; lctl_pool_free() reaps it */
		return;
	case LCTL_PM_OUTCOME:
		if (w->st != W_PLACING)
			return lose(w, "protocol error: an outcome before go");
		log_outcome(p, w, m);
		return;
	case LCTL_PM_ERROR:
		printable(pg->error, sizeof(pg->error), m->text);
		set_state(w, "failed");
		if (w->go_at > 0)
			pg->seconds = lctl_mono_seconds() - w->go_at;
		w->st = W_ENDED;
		close_link(w);
		return;
	default:
		return lose(w, "protocol error: a line only the starting host sends");
	}
}

static void relay_err(struct worker *w);

/*
 * Why a worker's link ended before its final line: its command's exit status when it has
 * exited by now (a remote shell that could not connect, no layoutctl there: 127), or not,
 * and the last line it wrote on stderr (ssh's "Connection refused", ip's "Cannot open
 * network namespace"), read to its end first.
 */
static void why_ended(struct worker *w)
{
	const char *what = w->hello ? "the worker ended without finishing"
				    : "the worker ended before it was ready";
	int status, i;

	for (i = 0; i < 20 && w->run.pid; i++) {
		if (lctl_run_wait(&w->run, false, &status) == 1) {
			relay_err(w); /* it has exited: what it wrote is all there */
			if (WIFEXITED(status))
				snprintf(w->pg.error, sizeof(w->pg.error),
					 "%s (its command exited with status %d%s%.110s)", what,
					 WEXITSTATUS(status), w->last_err[0] ? ": " : "",
					 w->last_err);
			else if (WIFSIGNALED(status))
				snprintf(w->pg.error, sizeof(w->pg.error),
					 "%s (its command was killed by signal %d%s%.110s)", what,
					 WTERMSIG(status), w->last_err[0] ? ": " : "", w->last_err);
			return;
		}
		usleep(10000);
	}
	snprintf(w->pg.error, sizeof(w->pg.error), "%s", what);
}

/* Once worker @w has ended (or the pool goes): the one line saying how many were not logged. */
static void note_dropped(struct lctl_pool *p, struct worker *w)
{
	if (!w->dropped || w->dropped_noted)
		return;
	w->dropped_noted = true;
	lctl_log(LCTL_LOG_WARN,
		 "server %s: %llu outcomes (%llu of them failed) past the outcome log's budget not "
		 "written to it here (the worker's own outcome log on that server has them)",
		 w->pg.name, (unsigned long long)w->dropped, (unsigned long long)w->dropped_failed);
	if (lctl_outcome_log_append_dropped(p->outcome_fd, w->pg.name, w->dropped,
					    w->dropped_failed, time(NULL)))
		p->outcome_failed = true;
}

static void receive_lines(struct lctl_pool *p, struct worker *w);

/* Read what worker @w sent, and act on each whole line. */
static void receive(struct lctl_pool *p, struct worker *w)
{
	receive_lines(p, w);
	if (w->st == W_ENDED)
		note_dropped(p, w);
}

static void receive_lines(struct lctl_pool *p, struct worker *w)
{
	struct lctl_pool_msg m;
	long n;
	int ret;

	while (w->st != W_ENDED) {
		n = lctl_pool_read(w->rd, w->fd);
		if (n == -EAGAIN)
			return;
		if (n > 0)
			w->heard_at = lctl_mono_seconds();
		while (w->st != W_ENDED && (ret = lctl_pool_next(w->rd, &m)) != 0) {
			if (ret < 0)
				return lose(w,
					    "protocol error: a line that is no message of "
					    "protocol %d",
					    LCTL_POOL_PROTO);
			handle(p, w, &m);
		}
		if (w->st == W_ENDED)
			return;
		if (n <= 0) {
			/* end of file or a broken link before the final line */
			set_state(w, w->hello ? "lost" : "failed");
			if (w->go_at > 0)
				w->pg.seconds = lctl_mono_seconds() - w->go_at;
			if (!w->pg.error[0])
				why_ended(w);
			w->st = W_ENDED;
			close_link(w);
			return;
		}
	}
}

/* Silence, or no end after a stop: the worker is lost. */
static void liveness(struct lctl_pool *p)
{
	double now = lctl_mono_seconds();
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		if (w->st == W_READY || w->st == W_PLACING) {
			if (now - w->heard_at > p->silent_s)
				lose(w, "sent nothing for %.0f s (stopped, or its link is dead)",
				     p->silent_s);
			else if (w->stop_at > 0 && now - w->stop_at > POOL_STOP_GRACE_S)
				lose(w, "did not stop within %d s of being told to",
				     POOL_STOP_GRACE_S);
			if (w->st == W_ENDED)
				note_dropped(p, w);
		}
	}
}

/* Wait up to @timeout_ms for something from any worker; read it. */
static void pool_wait(struct lctl_pool *p, int timeout_ms)
{
	struct pollfd pfd[2 * LCTL_POOL_MAX];
	size_t i, n = 0, map[2 * LCTL_POOL_MAX];

	for (i = 0; i < p->n; i++) {
		if (p->w[i].fd >= 0) {
			pfd[n] = (struct pollfd){ .fd = p->w[i].fd, .events = POLLIN };
			map[n++] = i;
		}
		if (p->w[i].errfd >= 0) {
			pfd[n] = (struct pollfd){ .fd = p->w[i].errfd, .events = POLLIN };
			map[n++] = i;
		}
	}
	if (!n) {
		if (timeout_ms > 0)
			usleep((useconds_t)timeout_ms * 1000u);
		return;
	}
	if (poll(pfd, n, timeout_ms) > 0)
		for (i = 0; i < n; i++) {
			struct worker *w = &p->w[map[i]];

			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == w->errfd)
				relay_err(w);
			else if (pfd[i].fd == w->fd)
				receive(p, w);
		}
	liveness(p);
}

static void send_msg(struct worker *w, const struct lctl_pool_msg *m)
{
	char line[LCTL_POOL_LINE_MAX];
	int len = lctl_pool_msg_format(m, line, sizeof(line));

	if (len < 0 || w->fd < 0 || w->st == W_ENDED)
		return;
	if (send(w->fd, line, (size_t)len, MSG_NOSIGNAL) != (ssize_t)len)
		lctl_log(LCTL_LOG_DEBUG, "server %s: cannot send '%.*s': %s", w->pg.name, len - 1,
			 line, strerror(errno));
}

void lctl_pool_send(struct lctl_pool *p, const struct lctl_pool_msg *m)
{
	double now = lctl_mono_seconds();
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];

		if (w->st == W_ENDED)
			continue;
		if (m->kind == LCTL_PM_GO) {
			if (w->st != W_READY)
				continue;
			w->st = W_PLACING;
			w->go_at = now;
			w->heard_at = now;
			set_state(w, "placing");
		}
		if (m->kind == LCTL_PM_STOP && !w->stop_at)
			w->stop_at = now;
		send_msg(w, m);
	}
}

void lctl_pool_set_pace(struct lctl_pool *p, const struct lctl_pace *pace)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_PACE, .pace = *pace };

	/* (a message that does not format, a pace out of range, is not sent: send_msg()) */
	lctl_pool_send(p, &m);
}

void lctl_pool_send_kind(struct lctl_pool *p, enum lctl_pool_kind kind)
{
	struct lctl_pool_msg m = { .kind = kind };

	lctl_pool_send(p, &m);
}

int lctl_pool_spawn(const struct lctl_worker_spec *specs, size_t n, int timeout_ms,
		    unsigned silent_s, struct lctl_pool **out, struct lctl_error *err)
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
	p->outcome_fd = -1;
	p->budget = (struct lctl_pool_outcome_budget){ LCTL_POOL_OUTCOME_BYTES,
						       LCTL_POOL_FAILED_BYTES,
						       LCTL_POOL_OUTCOME_RUN_BYTES,
						       LCTL_POOL_FAILED_RUN_BYTES };
	p->hello_ms = timeout_ms;
	p->hello_by = lctl_mono_seconds() + timeout_ms / 1000.0;
	p->silent_s = silent_s && silent_s < POOL_SILENT_MAX_S ? silent_s : POOL_SILENT_MAX_S;
	/* all of them first: a failure frees the ones not started yet too (never fd 0) */
	for (i = 0; i < n; i++) {
		p->w[i].fd = -1;
		p->w[i].errfd = -1;
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &p->w[i];

		w->rd = calloc(1, sizeof(*w->rd));
		if (!w->rd) {
			lctl_pool_free(p);
			return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		}
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

			if (w->st == W_ENDED)
				return lctl_seterr(err, LCTL_ECONNECT, 0,
						   "server %s cannot take part: %s", w->pg.name,
						   w->pg.error[0] ? w->pg.error
								  : "its worker failed");
			ready += w->hello;
		}
		if (ready == p->n)
			return 1;
		if (lctl_mono_seconds() > p->hello_by) {
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
		    unsigned silent_s, struct lctl_pool **out, struct lctl_error *err)
{
	struct lctl_pool *p;
	int ret = lctl_pool_spawn(specs, n, timeout_ms, silent_s, &p, err);

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
		if (p->w[i].st != W_ENDED)
			return false;
	return true;
}

size_t lctl_pool_progress(const struct lctl_pool *p, struct lctl_server_progress *out, size_t max)
{
	double now = lctl_mono_seconds();
	size_t i;

	for (i = 0; i < p->n && i < max; i++) {
		out[i] = p->w[i].pg;
		if (p->w[i].go_at > 0 && p->w[i].st != W_ENDED)
			out[i].seconds = now - p->w[i].go_at;
	}
	return i;
}

void lctl_pool_set_outcome_log(struct lctl_pool *p, int fd)
{
	p->outcome_fd = fd;
}

void lctl_pool_set_outcome_budget(struct lctl_pool *p, const struct lctl_pool_outcome_budget *b)
{
	p->budget = *b;
}

bool lctl_pool_outcome_log_failed(const struct lctl_pool *p)
{
	return p->outcome_failed;
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

bool lctl_pool_held_out(const struct lctl_pool *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->w[i].pg.state, "stopped") && p->w[i].pg.held[0])
			return true;
	return false;
}

void lctl_pool_free(struct lctl_pool *p)
{
	double start, grace = 1;
	size_t i, left;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		note_dropped(p, &p->w[i]);
	/*
	 * End of file on its stdin stops a worker; one that is moving files may take a while to
	 * finish the migrations in flight, one that never got "go" has nothing to finish.
	 */
	for (i = 0; i < p->n; i++) {
		if (p->w[i].fd >= 0)
			shutdown(p->w[i].fd, SHUT_WR);
		if (p->w[i].st == W_PLACING)
			grace = POOL_STOP_GRACE_S;
	}
	start = lctl_mono_seconds();
	do {
		for (i = 0, left = 0; i < p->n; i++) {
			if (!p->w[i].run.pid)
				continue;
			/* reaped: what its remote shell left behind in its group is killed too */
			if (lctl_run_wait(&p->w[i].run, false, NULL) == 0)
				left++;
		}
		if (left)
			pool_wait(p, 50);
	} while (left && lctl_mono_seconds() - start < grace);
	for (i = 0; i < p->n; i++) {
		if (p->w[i].run.pid) {
			lctl_run_kill(&p->w[i].run, SIGKILL);
			lctl_run_wait(&p->w[i].run, true, NULL);
		}
		close_link(&p->w[i]);
		relay_err(&p->w[i]); /* its last words */
		if (p->w[i].errfd >= 0)
			close(p->w[i].errfd);
	}
	free(p->w);
	free(p);
}
