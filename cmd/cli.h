/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The layoutctl front end: command table, global options, exit codes. */
#ifndef LCTL_CLI_H
#define LCTL_CLI_H

#include "layoutctl.h"
#include "options.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Exit status of every command. Documented in layoutctl(8), EXIT STATUS; keep both in sync.
 */
enum lctl_exit {
	EXIT_CLEAN = 0,	   /* success; for scan: the volume is clean */
	EXIT_PROBLEMS = 1, /* finished, but found problems (scan) or some items failed (fix) */
	EXIT_USAGE = 2,	   /* bad command line */
	EXIT_CANTRUN = 3,  /* could not run: connection, permission, volume missing, internal */
	/* fix, drain: stopped on schedule at the end of --until or --max-runtime with nothing
	 * failed or left not fixed so far: resumable, and no failure for a timer to report */
	EXIT_WINDOW = 4,
	EXIT_INTERRUPTED = 130, /* interrupted (SIGINT/SIGTERM) after a clean shutdown */
};

enum out_format {
	FMT_TEXT = 1 << 0,
	FMT_JSON = 1 << 1,
	FMT_XML = 1 << 2,
	FMT_PROMETHEUS = 1 << 3,
};

enum cmd_flags {
	CMD_HIDDEN = 1 << 8,
	CMD_NEEDS_VOLUME = 1 << 9, /* first operand is a volume name */
	CMD_RAW_ARGS = 1 << 10,	   /* its arguments are not options (__complete) */
};

/*
 * The global options, accepted before and after the command. Filled once by main();
 * read-only afterwards.
 */
struct global_opts {
	const char **servers; /* --server, in order */
	size_t nservers;
	const char *transport;
	const char *log_file;
	int log_level;	      /* gfapi's */
	int verbosity;	      /* 0 quiet, 1 default, 2 info, 3 verbose, 4 debug */
	int format;	      /* enum out_format */
	const char *progress; /* auto|always|never */
	const char **nodes;   /* --node: the names this server's bricks are listed under */
	size_t nnodes;
	const char *glusterd_dir;
};

extern struct global_opts gopts;

/*
 * A command. main() parses its options (and the global ones) from its table and calls fn
 * with argv[0] the command's name and argv[1..] its operands.
 */
struct cmd {
	const char *name;
	int (*fn)(const struct cmd *cmd, int argc, char **argv);
	const char *const *usage;   /* operands, summary, "", description lines */
	const struct lopt *options; /* the command's own options: parser, help, completion */
	unsigned flags;		    /* enum out_format bits | enum cmd_flags */
};

extern const struct cmd commands[];

/* Values of options more than one command has. */
enum brick_reads { BRICK_READS_AUTO, BRICK_READS_GFAPI };
extern const struct opt_word planner_words[];	  /* --layout: enum lctl_planner */
extern const struct opt_word brick_reads_words[]; /* --brick-reads: enum brick_reads */

/* Helpers every command uses. */
void usage_print(const struct cmd *cmd, FILE *f, bool full);
/* Print the error and "try 'layoutctl CMD --help'"; return EXIT_USAGE (options.c). */
int usage_error(const struct cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Refuse a --format @cmd does not support: EXIT_USAGE, or -1 when it does. */
int check_format(const struct cmd *cmd);
/* Check the operands: exactly @want of them (named @names, as "VOLUME"); -1 when right. */
int operands_check(const struct cmd *cmd, int argc, int want, const char *names);
/* Open the volume named by the operand, printing a one-line error on failure. */
/* open_volume() flags */
enum {
	OPEN_SUBVOLS = 1,      /* the per-subvolume graphs (needs root) */
	OPEN_LOCAL_BRICKS = 2, /* read this host's brick folders directly where safe */
	OPEN_BRICK_HEALTH = 4, /* a graph per brick of each replica or disperse set (the hold) */
	OPEN_NO_GLUSTERD = 8,  /* the hold never asks glusterd (a pool worker: the starter does) */
};

int open_volume(const char *name, unsigned flags, struct lctl_volume **out);
/* The same for a drain: @leaving (lctl_open_opts.leaving) marked as leaving. */
int open_volume_leaving(const char *name, unsigned flags, const char *const *leaving,
			size_t nleaving, struct lctl_volume **out);
/* Map a library error to an exit code. */
int exit_for_error(int lctl_code);
/* Flush stdout and turn a write error into EXIT_CANTRUN. */
int finish_stdout(int code);

extern volatile sig_atomic_t interrupted;

/* Subcommands: one file each. */
int cmd_drain(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_drain_usage[];
extern const struct lopt cmd_drain_options[];
int cmd_explain(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_explain_usage[];
extern const struct lopt cmd_explain_options[];
int cmd_info(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_info_usage[];
extern const struct lopt cmd_info_options[];
int cmd_fix(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_fix_usage[];
extern const struct lopt cmd_fix_options[];
int cmd_status(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_status_usage[];
extern const struct lopt cmd_status_options[];
int cmd_top(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_top_usage[];
extern const struct lopt cmd_top_options[];
int cmd_set(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_set_usage[];
extern const struct lopt cmd_set_options[];
int cmd_worker(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_worker_usage[];
extern const struct lopt cmd_worker_options[];
int cmd_render(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_render_usage[];
extern const struct lopt cmd_render_options[];
int cmd_scan(const struct cmd *cmd, int argc, char **argv);
extern const char *const cmd_scan_usage[];
extern const struct lopt cmd_scan_options[];

#endif
