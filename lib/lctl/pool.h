/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a fix spread over the pool of servers: worker specs and the protocol (lib/pool.c).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_POOL_H
#define LAYOUTCTL_POOL_H

#include "base.h"

struct lctl_volume;

/* ---- a fix spread over the pool (pool.c) -------------------------------------------------- */

#define LCTL_POOL_MAX 32 /* servers in one spread run */
/*
 * Bytes of outcome lines the starting host appends to the run's outcome log, at most: a
 * worker (hostile, or broken) cannot fill the starting host's disk through it. Counted in
 * bytes (a line may be some 16.5 KiB), per worker and per run, the failed outcomes apart
 * with a larger budget of their own (they are what fix --retry-failed reads: other lines
 * never crowd them out). Past a budget the starting host counts the lines it drops and, once
 * the worker has ended, writes one line saying how many (lctl_outcome_log_append_dropped());
 * the worker's own log on its server has them. Not on the wire: the protocol is unchanged.
 */
#define LCTL_POOL_OUTCOME_BYTES (64ULL << 20)	   /* one worker's lines but failed ones */
#define LCTL_POOL_FAILED_BYTES (256ULL << 20)	   /* one worker's failed lines */
#define LCTL_POOL_OUTCOME_RUN_BYTES (512ULL << 20) /* all workers' lines but failed ones */
#define LCTL_POOL_FAILED_RUN_BYTES (2048ULL << 20) /* all workers' failed lines */

/* The budgets of the run's outcome log (lctl_pool_set_outcome_budget()), in bytes. */
struct lctl_pool_outcome_budget {
	uint64_t worker, worker_failed; /* per worker: other lines, failed ones */
	uint64_t run, run_failed;	/* all workers together */
};

/* How to start the worker of one server: a command whose stdin/stdout carry the protocol. */
struct lctl_worker_spec {
	const char *server; /* its name in reports */
	/* argv[0]: an absolute path, or a name looked up in the system's directories (/usr/sbin,
	 * /usr/bin, /sbin, /bin), never in the caller's PATH (lib/run.c) */
	char *const *argv;
};

/* ---- the command line that starts each server's worker (workerline.c) ------------------- */

/**
 * lctl_worker_state_dir() - the state directory on server @host of the worker of a run whose
 * state directory is @state_dir: @state_dir/server-HOST, HOST's bytes other than letters,
 * digits, '.' and '-' made '_' (its outcome log is LCTL_OUTCOME_LOG in it). Into @out
 * (@size bytes, cut to fit).
 */
void lctl_worker_state_dir(const char *state_dir, const char *host, char *out, size_t size);

/* What the workers are told, besides what the volume's topology says. */
struct lctl_worker_line_opts {
	const char *volume;
	const char *state_dir;	/* the run's: each worker's is STATE_DIR/server-HOST */
	const char *rsh;	/* the remote shell, split at spaces (NULL: "ssh") */
	const char *remote_cmd; /* layoutctl on the other servers (NULL: "layoutctl") */
	/* this host's worker: the volfile servers and glusterd directory this run was given */
	const char *const *servers;
	size_t nservers;
	const char *glusterd_dir;
	unsigned parallel;		     /* 0 = LCTL_FIX_DEFAULT_PARALLEL */
	unsigned migrations;		     /* 0 = the worker's default */
	double files_per_sec, bytes_per_sec; /* 0 = unlimited */
	unsigned hang_timeout_s;
	unsigned hold_limit_s; /* 0: the workers do not hold */
	bool gfapi_only;       /* --brick-reads gfapi */
};

/* The servers of a volume and its subvolumes (whose bricks name their server), as
 * lctl_volume_server_at() and lctl_volume_subvol() give them. */
struct lctl_pool_topology {
	const struct lctl_server *servers;
	size_t nservers;
	const struct lctl_subvol *subvols;
	size_t nsubvols;
};

/* One worker spec per server, in server order (lctl_fix_opts.workers), and their storage. */
struct lctl_worker_lines {
	struct lctl_worker_spec *spec;
	size_t n;
	char ***argv; /* owned: spec[i].argv */
};

/**
 * lctl_shell_quote() - @s as one word of a POSIX shell's command line: in single quotes, each
 * single quote as '\''; every other byte (newline, $, `, a leading '-') stands as it is.
 * Return: allocated, or NULL (out of memory).
 */
char *lctl_shell_quote(const char *s);
/**
 * lctl_worker_lines_build() - the command line of every server's worker of @vol (see
 * workerline.c): this host's run directly, every other's through the remote shell, each word
 * after the host quoted for the shell on the other side (lctl_shell_quote()).
 * lctl_worker_lines_from(): the same from a topology. Return: 0 and *@out (free it with
 * lctl_worker_lines_free()), or -LCTL_ENOMEM.
 */
int lctl_worker_lines_build(const struct lctl_volume *vol, const struct lctl_worker_line_opts *o,
			    struct lctl_worker_lines *out, struct lctl_error *err);
int lctl_worker_lines_from(const struct lctl_pool_topology *topo,
			   const struct lctl_worker_line_opts *o, struct lctl_worker_lines *out,
			   struct lctl_error *err);
void lctl_worker_lines_free(struct lctl_worker_lines *wl);

/*
 * struct lctl_pace - the pace of a run, changed while it runs: @set says which of the others
 * hold (LCTL_PACE_*). @files_per_sec and @bytes_per_sec 0: unlimited.
 */
struct lctl_pace {
	unsigned set;
	double files_per_sec;
	double bytes_per_sec;
	unsigned migrations; /* 1-LCTL_FIX_MAX_MIGRATIONS */
};
#define LCTL_PACE_RATE 1u
#define LCTL_PACE_BANDWIDTH 2u
#define LCTL_PACE_MIGRATIONS 4u
#define LCTL_PACE_RATE_MAX 1e6	     /* files a second */
#define LCTL_PACE_BANDWIDTH_MAX 1e12 /* bytes a second */

/*
 * The worker protocol (lib/poolwire.c: both ends' codec, one parser): lines of printable
 * ASCII ending in '\n', at most LCTL_POOL_LINE_MAX bytes with it, words separated by one
 * space, strings as one escaped word (lctl_escape_word_to()), numbers in decimal digits
 * only, at most LCTL_POOL_NUM_MAX. Anything else is a protocol error, never reinterpreted.
 *
 *   worker -> starting host:  hello PROTO NODE | progress D M S F B PF PB PD |
 *                             done D M S F B PF PB PD CODE | error MESSAGE |
 *                             outcome TIME PATH ACTION REASON ERRNO FROM TO SIZE |
 *                             held SECONDS REASON
 *   (D directories, M migrated, S skipped, F failed, B bytes moved; PF, PB the files and bytes
 *   the plans of its PD directories inspected so far give it to move)
 *   starting host -> worker:  go FORCE PLANNER SCOPE | pause | resume | stop |
 *                             pace RATE BANDWIDTH MIGRATIONS
 */
/* 3: the pace message; 4: the outcome and held messages, the plan's files and bytes in
 * progress and done */
#define LCTL_POOL_PROTO 4
/* the longest line: an outcome with a path of 4095 bytes and three 127-byte words, each byte
 * escaped ("\xHH") */
#define LCTL_POOL_LINE_MAX (4 * 4096 + 3 * 4 * LCTL_POOL_WORD_MAX + 128)
#define LCTL_POOL_WORD_MAX 128 /* an outcome's REASON, FROM and TO, with their NUL */
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
	LCTL_PM_PACE,
	LCTL_PM_OUTCOME,
	LCTL_PM_HELD,
};

/*
 * One file's outcome in a worker's share (its outcome log's line, lib/outcomelog.c), sent to
 * the starting host, which writes it into the run's one outcome log marked with the server.
 * The path is the message's @text: absolute in the volume, any bytes but NUL. An empty
 * @reason, @from or @to is none ("-" on the wire: none of ours is "-").
 */
struct lctl_pool_outcome {
	uint64_t time; /* seconds since the epoch */
	uint64_t size;
	int action;   /* enum lctl_file_action */
	unsigned err; /* errno, 0-4095 */
	char reason[LCTL_POOL_WORD_MAX];
	char from[LCTL_POOL_WORD_MAX], to[LCTL_POOL_WORD_MAX]; /* subvolumes */
};

struct lctl_pool_msg {
	enum lctl_pool_kind kind;
	unsigned proto; /* hello */
	char node[128]; /* hello: the --node the worker was given */
	uint64_t dirs, migrated, skipped, failed, bytes; /* progress, done */
	uint64_t plan_files, plan_bytes, plan_dirs;	 /* progress, done */
	unsigned code;			  /* done: the worker's exit status (0-255) */
	bool force_move;		  /* go */
	int planner;			  /* go: enum lctl_planner */
	char text[4096];		  /* go: the scope; error: the message; outcome: the path */
	struct lctl_pace pace;		  /* pace: all three fields, set */
	struct lctl_pool_outcome outcome; /* outcome */
	uint64_t held_seconds;		  /* held: for how long so far (the reason in text) */
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
	char state[16]; /* starting, ready, placing, held, done, stopped, failed, lost */
	uint64_t dirs, migrated, skipped, failed, bytes;
	/* what the plans of the directories it inspected move (its files only), and how many
	 * directories those are (protocol 4) */
	uint64_t plan_files, plan_bytes, plan_dirs;
	double seconds;	 /* time spent placing so far */
	char error[200]; /* the worker's last error, printable ASCII */
	char held[200];	 /* held: why, printable ASCII; "" when not held */
	uint64_t held_seconds;
};

#endif /* LAYOUTCTL_POOL_H */
