/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gfapi's log (--log-file) without the brick credentials.
 *
 * Every graph gfapi builds is dumped into its log file ("Final graph", at any log level), with
 * the client volfile's `option username` and `option password`; at level 9 its parser also
 * logs every option as "Option:XLATOR:KEY:VALUE". gfapi opens the log file itself, so it is
 * given a pipe instead (/proc/self/fd/N of the write end); a thread reads the pipe line by
 * line and writes each line to the real file with the value after any word ending in
 * "password" or "username" (followed by a space, ':' or '=') replaced by "<redacted>". What
 * is still in gfapi's stdio buffers or in the pipe when the process exits is copied by an
 * atexit() hook, which stops the thread. A line longer than the buffer is cut (and marked so): a value is never split.
 * The real file is opened by lctl_output_open() before the volume is contacted: root writes it,
 * so a link, another user's FIFO or a hard link under that name is refused (exit 3).
 */
#include "gfapi-log.h"
#include "layoutctl.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define LINE_MAX_LEN 65536

static struct {
	int rfd, wfd, out, stop[2];
	pthread_t tid;
	bool started;
	char path[64];
	char line[LINE_MAX_LEN];
	size_t len;
	bool cut; /* the current line was too long: skip to its end */
} glog = { .rfd = -1, .wfd = -1, .out = -1, .stop = { -1, -1 } };

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ':' || c == '=';
}

static bool ends_value(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ')' || c == ',' || c == ';' || c == '"' ||
	       c == '\'' || c == '\0';
}

size_t gfapi_log_redact(const char *in, size_t n, char *out, size_t size)
{
	static const char *const words[] = { "password", "username" };
	static const char mark[] = "<redacted>";
	size_t i = 0, o = 0, k;

	while (i < n && o + 1 < size) {
		size_t wl = 0;

		for (k = 0; k < sizeof(words) / sizeof(words[0]) && !wl; k++) {
			size_t l = strlen(words[k]);

			if (i + l < n && !strncasecmp(in + i, words[k], l) && is_sep(in[i + l]))
				wl = l;
		}
		if (!wl) {
			out[o++] = in[i++];
			continue;
		}
		/* the word and its separators, then the value (up to its end) becomes the mark */
		while (wl-- && o + 1 < size)
			out[o++] = in[i++];
		while (i < n && is_sep(in[i]) && o + 1 < size)
			out[o++] = in[i++];
		if (i < n && !ends_value(in[i])) {
			while (i < n && !ends_value(in[i]))
				i++;
			for (k = 0; mark[k] && o + 1 < size; k++)
				out[o++] = mark[k];
		}
	}
	out[o] = '\0';
	return o;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void emit_line(void)
{
	static char red[LINE_MAX_LEN + 64];
	size_t n = gfapi_log_redact(glog.line, glog.len, red, sizeof(red));

	write_all(glog.out, red, n);
	glog.len = 0;
}

/* Take @n bytes from the pipe: whole lines go out redacted, a partial one waits. */
static void feed(const char *p, size_t n)
{
	static const char cut[] = " [line cut]\n";

	for (; n; p++, n--) {
		if (glog.cut) {
			glog.cut = *p != '\n';
			continue;
		}
		glog.line[glog.len++] = *p;
		if (*p == '\n') {
			emit_line();
		} else if (glog.len == sizeof(glog.line) - sizeof(cut)) {
			memcpy(glog.line + glog.len, cut, sizeof(cut) - 1);
			glog.len += sizeof(cut) - 1;
			emit_line();
			glog.cut = true;
		}
	}
}

/* Copy what the pipe holds now; false at its end or on an error. */
static bool copy_pending(void)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = read(glog.rfd, buf, sizeof(buf));
		if (n > 0) {
			feed(buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

static void *copier(void *arg)
{
	struct pollfd p[2] = { { glog.rfd, POLLIN, 0 }, { glog.stop[0], POLLIN, 0 } };

	(void)arg;
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents && !copy_pending())
			break;
	}
	return NULL;
}

static void stop_copier(void)
{
	if (!glog.started)
		return;
	glog.started = false;
	/* gfapi writes its graph dumps unflushed: exit() would flush them after this hook */
	fflush(NULL);
	write_all(glog.stop[1], "x", 1);
	pthread_join(glog.tid, NULL);
	/* what gfapi wrote last, and a partial line */
	copy_pending();
	if (glog.len)
		emit_line();
	close(glog.out);
}

int gfapi_log_target(const char *path, const char **target)
{
	struct lctl_error err = { 0 };
	sigset_t all, old;
	int p[2];

	*target = NULL;
	if (!path)
		return 0;
	if (glog.started) {
		*target = glog.path;
		return 0;
	}
	/* as root, in a place others may write: lib/statedir.c's rules (no link, FIFO, hard link) */
	glog.out = lctl_output_open(path, 0, &err);
	if (glog.out < 0) {
		error("cannot open the gfapi log '%s': %s", path, err.msg);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) || pipe2(glog.stop, O_CLOEXEC)) {
		warning("cannot set up the gfapi log: %s; gfapi logs nowhere", strerror(errno));
		close(glog.out);
		return 0;
	}
	glog.rfd = p[0];
	glog.wfd = p[1];
	fcntl(glog.rfd, F_SETFL, O_NONBLOCK);
	snprintf(glog.path, sizeof(glog.path), "/proc/self/fd/%d", glog.wfd);
	/* the copier never takes a signal: the main thread handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	glog.started = !pthread_create(&glog.tid, NULL, copier, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!glog.started) {
		warning("cannot set up the gfapi log: no thread; gfapi logs nowhere");
		return 0;
	}
	atexit(stop_copier);
	*target = glog.path;
	return 0;
}
