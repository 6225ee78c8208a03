/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a fix spread over the pool of servers: worker specs and the protocol (lib/pool.c).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_POOL_H
#define LAYOUTCTL_POOL_H

#include "base.h"

/* ---- a fix spread over the pool (pool.c) -------------------------------------------------- */

#define LCTL_POOL_MAX 32 /* servers in one spread run */

/* How to start the worker of one server: a command whose stdin/stdout carry the protocol. */
struct lctl_worker_spec {
	const char *server; /* its name in reports */
	/* argv[0]: an absolute path, or a name looked up in the system's directories (/usr/sbin,
	 * /usr/bin, /sbin, /bin), never in the caller's PATH (lib/run.c) */
	char *const *argv;
};

/*
 * The worker protocol (lib/poolwire.c: both ends' codec, one parser): lines of printable
 * ASCII ending in '\n', at most LCTL_POOL_LINE_MAX bytes with it, words separated by one
 * space, strings as one escaped word (lctl_escape_word_to()), numbers in decimal digits
 * only, at most LCTL_POOL_NUM_MAX. Anything else is a protocol error, never reinterpreted.
 *
 *   worker -> starting host:  hello PROTO NODE | progress D M S F B | done D M S F B CODE |
 *                             error MESSAGE
 *   starting host -> worker:  go FORCE PLANNER SCOPE | pause | resume | stop
 */
#define LCTL_POOL_PROTO 2
#define LCTL_POOL_LINE_MAX (4 * 4096 + 64)
#define LCTL_POOL_NUM_MAX (1ULL << 52)

enum lctl_pool_kind {
	LCTL_PM_HELLO,
	LCTL_PM_PROGRESS,
	LCTL_PM_DONE,
	LCTL_PM_ERROR,
	LCTL_PM_GO,
	LCTL_PM_PAUSE,
	LCTL_PM_RESUME,
	LCTL_PM_STOP,
};

struct lctl_pool_msg {
	enum lctl_pool_kind kind;
	unsigned proto; /* hello */
	char node[128]; /* hello: the --node the worker was given */
	uint64_t dirs, migrated, skipped, failed, bytes; /* progress, done */
	unsigned code;	 /* done: the worker's exit status (0-255) */
	bool force_move; /* go */
	int planner;	 /* go: enum lctl_planner */
	char text[4096]; /* go: the scope; error: the message */
};

/**
 * lctl_pool_msg_format() - @m as one protocol line, '\n' included, into @buf.
 * Return: its length, or -1 when it does not fit @size or LCTL_POOL_LINE_MAX.
 */
int lctl_pool_msg_format(const struct lctl_pool_msg *m, char *buf, size_t size);

/**
 * lctl_pool_msg_parse() - the line @line (@len bytes, without its '\n') as a message.
 * Return: 0, or -1 for anything that is not exactly one of the messages above.
 */
int lctl_pool_msg_parse(const char *line, size_t len, struct lctl_pool_msg *m);

/* The reading end of a protocol link: what came in, cut into lines. */
struct lctl_pool_reader {
	char buf[LCTL_POOL_LINE_MAX];
	size_t len;
	bool eof;
};

/**
 * lctl_pool_read() - read what @fd has now (one read(); @fd may be non-blocking) into @r.
 * Return: the bytes read, 0 at end of file (r->eof), -EAGAIN nothing yet, else -errno.
 */
long lctl_pool_read(struct lctl_pool_reader *r, int fd);

/**
 * lctl_pool_next() - the next whole line of @r as a message.
 * Return: 1 (in @m), 0 (no whole line yet), -1 a protocol error (a line too long, a NUL,
 * a byte outside printable ASCII, not a message; an incomplete line at end of file).
 */
int lctl_pool_next(struct lctl_pool_reader *r, struct lctl_pool_msg *m);

/* One server's share of a spread fix, as its worker reports it. */
struct lctl_server_progress {
	char name[128];
	char state[16]; /* starting, ready, placing, done, stopped, failed, lost */
	uint64_t dirs, migrated, skipped, failed, bytes;
	double seconds;	 /* time spent placing so far */
	char error[200]; /* the worker's last error, printable ASCII */
};

#endif /* LAYOUTCTL_POOL_H */
