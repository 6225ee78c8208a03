/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker protocol on the wire, for both of its ends: the starting host (pool.c) and a
 * server's worker (cmd/cmd-worker.c) format and parse every line here, and nowhere else.
 *
 * A line is printable ASCII (0x20-0x7e) and '\n', at most LCTL_POOL_LINE_MAX bytes with it.
 * Words are separated by exactly one space; a string travels as one word escaped by
 * lctl_escape_word_to() (the project's one escaping, in its ASCII form); a number is 1-16
 * decimal digits, at most LCTL_POOL_NUM_MAX (32 servers' sums cannot wrap). What is not
 * exactly a message below is a protocol error: a line too long, a NUL, a byte outside
 * printable ASCII, an unknown word, a missing or extra field, a sign, a number too big. The
 * reader never cuts a long line into pieces nor reads past a NUL as if a line ended there.
 *
 *   hello PROTO NODE                  the worker is connected and waits for go
 *   progress D M S F B PF PB PD       directories done, files migrated / skipped / failed,
 *                                     bytes migrated, files and bytes the plans of the PD
 *                                     directories inspected give it to move (at least once
 *                                     a second: a heartbeat)
 *   done D M S F B PF PB PD CODE      final; CODE: the worker's exit status (0-255)
 *   error MESSAGE                     final
 *   go FORCE PLANNER SCOPE            FORCE 0|1, PLANNER gluster|min-move, SCOPE a path
 *   pause | resume | stop
 *   pace RATE BANDWIDTH MIGRATIONS    the pace from now on: thousandths of files a second and
 *                                     bytes a second (0: no limit), migrations at a time
 *   outcome TIME PATH ACTION REASON ERRNO FROM TO SIZE
 *                                     one file of the worker's share: TIME in seconds since
 *                                     the epoch, PATH absolute, ACTION a file action's name
 *                                     (lctl_file_action_name()), REASON, FROM, TO at most
 *                                     LCTL_POOL_WORD_MAX - 1 bytes or "-" for none, ERRNO
 *                                     0-4095, SIZE in bytes
 *   held SECONDS REASON               the worker holds (its volume is not whole): sent before
 *                                     each progress line while it does
 *
 * Pure; safe from any thread.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORDS 10

static const char *const kind_word[] = {
	[LCTL_PM_HELLO] = "hello",   [LCTL_PM_PROGRESS] = "progress",
	[LCTL_PM_DONE] = "done",     [LCTL_PM_ERROR] = "error",
	[LCTL_PM_GO] = "go",	     [LCTL_PM_PAUSE] = "pause",
	[LCTL_PM_RESUME] = "resume", [LCTL_PM_STOP] = "stop",
	[LCTL_PM_PACE] = "pace",     [LCTL_PM_OUTCOME] = "outcome",
	[LCTL_PM_HELD] = "held",
};

/* words after the first, per kind */
static const unsigned kind_args[] = {
	[LCTL_PM_HELLO] = 2, [LCTL_PM_PROGRESS] = 8, [LCTL_PM_DONE] = 9,   [LCTL_PM_ERROR] = 1,
	[LCTL_PM_GO] = 3,    [LCTL_PM_PAUSE] = 0,    [LCTL_PM_RESUME] = 0, [LCTL_PM_STOP] = 0,
	[LCTL_PM_PACE] = 3,  [LCTL_PM_OUTCOME] = 8,  [LCTL_PM_HELD] = 2,
};

/* An optional string word: "-" for none; one of ours is never "-" itself. */
static void word_or_none(char *dst, const char *s)
{
	if (s[0])
		lctl_escape_word_to(dst, s);
	else
		strcpy(dst, "-");
}

/* An outcome line: "-1" when a field is out of range (lctl_pool_msg_format()). */
static int format_outcome(const struct lctl_pool_msg *m, char *buf, size_t size)
{
	const struct lctl_pool_outcome *o = &m->outcome;
	char path[4 * sizeof(m->text) + 1], reason[4 * LCTL_POOL_WORD_MAX + 1];
	char from[4 * LCTL_POOL_WORD_MAX + 1], to[4 * LCTL_POOL_WORD_MAX + 1];
	const char *action = lctl_file_action_name(o->action);

	if (!action || m->text[0] != '/' || o->time > LCTL_POOL_NUM_MAX ||
	    o->size > LCTL_POOL_NUM_MAX || o->err > 4095 ||
	    strnlen(m->text, sizeof(m->text)) == sizeof(m->text) ||
	    strnlen(o->reason, sizeof(o->reason)) == sizeof(o->reason) ||
	    strnlen(o->from, sizeof(o->from)) == sizeof(o->from) ||
	    strnlen(o->to, sizeof(o->to)) == sizeof(o->to) || !strcmp(o->reason, "-") ||
	    !strcmp(o->from, "-") || !strcmp(o->to, "-"))
		return -1;
	lctl_escape_word_to(path, m->text);
	word_or_none(reason, o->reason);
	word_or_none(from, o->from);
	word_or_none(to, o->to);
	return snprintf(buf, size, "outcome %llu %s %s %s %u %s %s %llu\n",
			(unsigned long long)o->time, path, action, reason, o->err, from, to,
			(unsigned long long)o->size);
}

int lctl_pool_msg_format(const struct lctl_pool_msg *m, char *buf, size_t size)
{
	char word[4 * sizeof(m->text) + 1];
	int n;

	if (size > LCTL_POOL_LINE_MAX)
		size = LCTL_POOL_LINE_MAX;
	switch (m->kind) {
	case LCTL_PM_HELLO:
		lctl_escape_word_to(word, m->node[0] ? m->node : "-");
		n = snprintf(buf, size, "hello %u %s\n", m->proto, word);
		break;
	case LCTL_PM_PROGRESS:
	case LCTL_PM_DONE:
		if (m->dirs > LCTL_POOL_NUM_MAX || m->migrated > LCTL_POOL_NUM_MAX ||
		    m->skipped > LCTL_POOL_NUM_MAX || m->failed > LCTL_POOL_NUM_MAX ||
		    m->bytes > LCTL_POOL_NUM_MAX || m->plan_files > LCTL_POOL_NUM_MAX ||
		    m->plan_bytes > LCTL_POOL_NUM_MAX || m->plan_dirs > LCTL_POOL_NUM_MAX ||
		    m->code > 255)
			return -1;
		n = snprintf(buf, size, "%s %llu %llu %llu %llu %llu %llu %llu %llu",
			     kind_word[m->kind], (unsigned long long)m->dirs,
			     (unsigned long long)m->migrated, (unsigned long long)m->skipped,
			     (unsigned long long)m->failed, (unsigned long long)m->bytes,
			     (unsigned long long)m->plan_files, (unsigned long long)m->plan_bytes,
			     (unsigned long long)m->plan_dirs);
		if (n > 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n,
				      m->kind == LCTL_PM_DONE ? " %u\n" : "\n", m->code);
		break;
	case LCTL_PM_ERROR:
		lctl_escape_word_to(word, m->text[0] ? m->text : "-");
		n = snprintf(buf, size, "error %s\n", word);
		break;
	case LCTL_PM_GO:
		if (!m->text[0])
			return -1;
		lctl_escape_word_to(word, m->text);
		n = snprintf(buf, size, "go %d %s %s\n", m->force_move ? 1 : 0,
			     lctl_planner_name(m->planner), word);
		break;
	case LCTL_PM_PAUSE:
	case LCTL_PM_RESUME:
	case LCTL_PM_STOP:
		n = snprintf(buf, size, "%s\n", kind_word[m->kind]);
		break;
	case LCTL_PM_HELD:
		if (m->held_seconds > LCTL_POOL_NUM_MAX)
			return -1;
		lctl_escape_word_to(word, m->text[0] ? m->text : "-");
		n = snprintf(buf, size, "held %llu %s\n", (unsigned long long)m->held_seconds,
			     word);
		break;
	case LCTL_PM_PACE:
		if (m->pace.set != (LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH | LCTL_PACE_MIGRATIONS) ||
		    lctl_pace_check(&m->pace))
			return -1;
		n = snprintf(buf, size, "pace %.0f %.0f %u\n", m->pace.files_per_sec * 1000,
			     m->pace.bytes_per_sec, m->pace.migrations);
		break;
	case LCTL_PM_OUTCOME:
		n = format_outcome(m, buf, size);
		break;
	default:
		return -1;
	}
	return n > 0 && (size_t)n < size ? n : -1;
}

/* 1-16 decimal digits, nothing else, at most LCTL_POOL_NUM_MAX */
static int number(const char *w, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; w[i]; i++) {
		if (w[i] < '0' || w[i] > '9' || i >= 16)
			return -1;
		x = x * 10 + (uint64_t)(w[i] - '0');
	}
	if (!i || x > LCTL_POOL_NUM_MAX)
		return -1;
	*v = x;
	return 0;
}

/* an escaped word into @out (@size bytes), strictly */
static int string(char *w, char *out, size_t size)
{
	if (!lctl_unescape_word(w) || strlen(w) >= size)
		return -1;
	memcpy(out, w, strlen(w) + 1);
	return 0;
}

/* an optional escaped word: "-" none ("") */
static int string_or_none(char *w, char *out, size_t size)
{
	if (!strcmp(w, "-")) {
		out[0] = '\0';
		return 0;
	}
	return string(w, out, size) || !strcmp(out, "-") ? -1 : 0;
}

static int parse_outcome(char **w, struct lctl_pool_msg *m)
{
	struct lctl_pool_outcome *o = &m->outcome;
	uint64_t t, e, sz;
	int a;

	if (number(w[1], &t) || string(w[2], m->text, sizeof(m->text)) || m->text[0] != '/' ||
	    string_or_none(w[4], o->reason, sizeof(o->reason)) || number(w[5], &e) || e > 4095 ||
	    string_or_none(w[6], o->from, sizeof(o->from)) ||
	    string_or_none(w[7], o->to, sizeof(o->to)) || number(w[8], &sz))
		return -1;
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		if (!strcmp(w[3], lctl_file_action_name(a)))
			break;
	if (a == LCTL_FILE_ACTION_COUNT)
		return -1;
	o->time = t;
	o->action = a;
	o->err = (unsigned)e;
	o->size = sz;
	return 0;
}

int lctl_pool_msg_parse(const char *line, size_t len, struct lctl_pool_msg *m)
{
	enum lctl_planner planner;
	char copy[LCTL_POOL_LINE_MAX], *w[MAX_WORDS + 1], *p;
	unsigned nw = 0, k, kind;
	uint64_t v[9];
	size_t i;

	if (!len || len >= sizeof(copy))
		return -1;
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
			return -1;
	memcpy(copy, line, len);
	copy[len] = '\0';
	/* words separated by exactly one space: no empty word anywhere */
	for (p = copy;; p++) {
		if (nw > MAX_WORDS)
			return -1;
		w[nw++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p = '\0';
	}
	for (k = 0; k < nw; k++)
		if (!w[k][0])
			return -1;
	for (kind = 0; kind < LCTL_ARRAY_SIZE(kind_word); kind++)
		if (!strcmp(w[0], kind_word[kind]))
			break;
	if (kind == LCTL_ARRAY_SIZE(kind_word) || nw != kind_args[kind] + 1)
		return -1;
	memset(m, 0, sizeof(*m));
	m->kind = (enum lctl_pool_kind)kind;
	switch (m->kind) {
	case LCTL_PM_HELLO:
		if (number(w[1], &v[0]) || v[0] > 1000000 || string(w[2], m->node, sizeof(m->node)))
			return -1;
		m->proto = (unsigned)v[0];
		break;
	case LCTL_PM_PROGRESS:
	case LCTL_PM_DONE:
		for (k = 0; k < kind_args[kind]; k++)
			if (number(w[k + 1], &v[k]))
				return -1;
		m->dirs = v[0];
		m->migrated = v[1];
		m->skipped = v[2];
		m->failed = v[3];
		m->bytes = v[4];
		m->plan_files = v[5];
		m->plan_bytes = v[6];
		m->plan_dirs = v[7];
		if (m->kind == LCTL_PM_DONE) {
			if (v[8] > 255)
				return -1;
			m->code = (unsigned)v[8];
		}
		break;
	case LCTL_PM_ERROR:
		if (string(w[1], m->text, sizeof(m->text)))
			return -1;
		break;
	case LCTL_PM_GO:
		if (strcmp(w[1], "0") && strcmp(w[1], "1"))
			return -1;
		m->force_move = w[1][0] == '1';
		if (lctl_planner_parse(w[2], &planner))
			return -1;
		m->planner = planner;
		if (string(w[3], m->text, sizeof(m->text)) || m->text[0] != '/')
			return -1;
		break;
	case LCTL_PM_PACE:
		for (k = 0; k < 3; k++)
			if (number(w[k + 1], &v[k]))
				return -1;
		m->pace.set = LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH | LCTL_PACE_MIGRATIONS;
		m->pace.files_per_sec = (double)v[0] / 1000;
		m->pace.bytes_per_sec = (double)v[1];
		m->pace.migrations = v[2] <= 1000 ? (unsigned)v[2] : 0;
		if (lctl_pace_check(&m->pace))
			return -1;
		break;
	case LCTL_PM_OUTCOME:
		if (parse_outcome(w, m))
			return -1;
		break;
	case LCTL_PM_HELD:
		if (number(w[1], &m->held_seconds) || string(w[2], m->text, sizeof(m->text)))
			return -1;
		break;
	default:
		break;
	}
	return 0;
}

long lctl_pool_read(struct lctl_pool_reader *r, int fd)
{
	ssize_t n;

	if (r->len >= sizeof(r->buf))
		return -ENOBUFS; /* lctl_pool_next() calls it a protocol error first */
	do
		n = read(fd, r->buf + r->len, sizeof(r->buf) - r->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (!n)
		r->eof = true;
	r->len += (size_t)n;
	return (long)n;
}

int lctl_pool_next(struct lctl_pool_reader *r, struct lctl_pool_msg *m)
{
	char *nl = memchr(r->buf, '\n', r->len);
	size_t k;
	int ret;

	if (!nl) {
		/* no line of ours is this long; one cut off by the end of the link is none */
		if (r->len >= sizeof(r->buf) || (r->eof && r->len))
			return -1;
		return 0;
	}
	k = (size_t)(nl - r->buf);
	ret = lctl_pool_msg_parse(r->buf, k, m);
	r->len -= k + 1;
	memmove(r->buf, nl + 1, r->len);
	return ret ? -1 : 1;
}
