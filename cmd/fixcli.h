/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `layoutctl fix` (cmd-fix.c) and `layoutctl drain` (cmd-drain.c) share: the parsed
 * command line, the options both take (declared once, below), and one fix run rendered.
 */
#ifndef LCTL_FIXCLI_H
#define LCTL_FIXCLI_H

#include "cli.h"
#include "dashboard.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct fix_cli {
	struct lctl_fix_opts o;
	const char *volume;
	const char *log;
	int log_fd; /* --log, opened before the volume (named_log_open()); -1: none */
	char state_dir[4096];
	char log_path[4200];
	bool task_check;
	bool dashboard;
	bool gfapi_only;
	const char *rsh;
	const char *remote_cmd;
	bool single_host;
	/* as the options give them, before parse_fix_args() puts them into o and above */
	int planner, mode, phase, brick_reads;
	bool mode_given, no_task_check, force_compat;
	unsigned settle, hang_timeout, hold_limit;
	uint64_t max_runtime;
	time_t until;
	double bandwidth;
	const char *state_dir_arg;
	bool settle_given;	  /* --settle given: no settle derived from the client caches */
	const char *metrics_file; /* --metrics-file: node_exporter textfile metrics (fixmetrics.c) */
	/* drain: the subvolumes or bricks to empty (the operands after VOLUME), and --commit */
	bool drain;
	bool drain_cmd; /* the command run is drain (drain stays true only for its drain passes) */
	const char *const *leaving;
	size_t nleaving;
	bool commit;
	/* fix --retry-failed, --files-from FILE (-0: NUL-separated): listed files only */
	bool retry_failed;
	const char *files_from;
	bool files_nul;
	/* what the last fix_run() ended with */
	uint64_t not_fixed, failed;
	bool stopped;
};

/* Filled by the option parser from cmd_fix_options or cmd_drain_options. */
extern struct fix_cli fc_args;

/*
 * The options fix and drain both take, in the places their help lists them: the workers
 * (first), the run's state, limits and checks (after the command's own), the dashboard (last).
 */
/* clang-format off */
#define FIX_COMMON_OPTIONS_WORKERS \
	OPT_UINT('p', "parallel", &fc_args.o.parallel, 1, 64, "N", "worker threads (default 4)"), \
	OPT_UINT(0, "migrations", &fc_args.o.migrations, 1, LCTL_FIX_MAX_MIGRATIONS, "N", \
		 "migrations at a time from or to one subvolume (default 1; 2 where\n" \
		 "the network between servers, not the bricks, is the limit)")

#define FIX_COMMON_OPTIONS_RUN \
	OPT_PATH(0, "state-dir", &fc_args.state_dir_arg, sizeof(fc_args.state_dir), "DIR", \
		 "journal and lock (default /var/lib/layoutctl/VOLUME)"), \
	{ .name = "settle", \
	  .kind = OPTK_UINT, \
	  .to.u = &fc_args.settle, \
	  .min = 0, \
	  .max = 3600, \
	  .what = "0-3600 seconds", \
	  .arg = "SECONDS", \
	  .given = &fc_args.settle_given, \
	  .help = "wait after making directories dirty (default 5, or longer\n" \
		  "when the clients cache longer: md-cache, nl-cache timeouts)" }, \
	{ .name = "hang-timeout", \
	  .kind = OPTK_UINT, \
	  .to.u = &fc_args.hang_timeout, \
	  .min = 0, \
	  .max = 86400, \
	  .what = "0-86400 seconds", \
	  .arg = "SECONDS", \
	  .help = "stop, resumably, when a GlusterFS call hangs this long (default 1800, 0: never)" }, \
	{ .name = "hold-limit", \
	  .kind = OPTK_UINT, \
	  .to.u = &fc_args.hold_limit, \
	  .min = 0, \
	  .max = 604800, \
	  .what = "0-604800 seconds", \
	  .arg = "SECONDS", \
	  .help = "wait this long for a subvolume that stops answering, then stop\n" \
		  "resumably (default 1800; 0: do not wait, leave its directories)" }, \
	OPT_DURATION(0, "max-runtime", &fc_args.max_runtime, "TIME", \
		     "stop cleanly after TIME (seconds, or with s, m, h suffix)"), \
	OPT_TIME(0, "until", &fc_args.until, "HH:MM", \
		 "stop cleanly at this local time (the end of a maintenance window)"), \
	{ .name = "rate", \
	  .kind = OPTK_DOUBLE, \
	  .to.d = &fc_args.o.files_per_sec, \
	  .what = "files per second", \
	  .arg = "FILES", \
	  .help = "at most FILES files per second" }, \
	{ .name = "bandwidth", \
	  .kind = OPTK_DOUBLE, \
	  .to.d = &fc_args.bandwidth, \
	  .what = "MB per second", \
	  .arg = "MB", \
	  .help = "at most MB megabytes (10^6 bytes) per second of migrated data" }, \
	{ .name = "log", \
	  .kind = OPTK_STRING, \
	  .to.s = &fc_args.log, \
	  .max = sizeof(fc_args.log_path), \
	  .arg = "FILE", \
	  .complete = "@file", \
	  .help = "per-file outcome log, JSON lines (default STATE_DIR/outcomes.jsonl)" }, \
	{ .name = "metrics-file", \
	  .kind = OPTK_PATH, \
	  .to.s = &fc_args.metrics_file, \
	  .max = 4096, \
	  .arg = "FILE", \
	  .complete = "@file", \
	  .help = "write node_exporter textfile metrics of the run to FILE\n" \
		  "(a .prom file, replaced whole every second)" }, \
	OPT_FLAG(0, "break-lock", &fc_args.o.break_lock, \
		 "take over the volume lock of a run that died on another host"), \
	OPT_FLAG(0, "no-task-check", &fc_args.no_task_check, \
		 "do not ask glusterd whether a rebalance or remove-brick runs,\n" \
		 "nor for the versions of the cluster and its clients"), \
	OPT_FLAG(0, "force-compat", &fc_args.force_compat, \
		 "start although clients older than GlusterFS 3.6 are connected\n" \
		 "or the cluster is older than GlusterFS 9 (their data is at risk)"), \
	OPT_ENUM(0, "brick-reads", &fc_args.brick_reads, brick_reads_words, "HOW", \
		 "auto (default): inspect this host's brick folders directly\n" \
		 "(pure distribute); gfapi: read everything through the bricks")

#define FIX_COMMON_OPTION_DASHBOARD \
	OPT_FLAG(0, "dashboard", &fc_args.dashboard, \
		 "full-screen live view (keys: p pause, r resume, + - workers, q stop)")
/* clang-format on */

/* The options are parsed; check the operands and what goes together. -1 when all is well. */
int parse_fix_args(const struct cmd *cmd, int argc, char **argv, struct fix_cli *fc);
/* A --log, opened before the volume is; EXIT_CLEAN or EXIT_CANTRUN (said). */
int named_log_open(struct fix_cli *fc);
void named_log_close(struct fix_cli *fc);
/* The dashboard from the first second (--dashboard), or NULL. */
struct dash *dash_first(const struct fix_cli *fc, double t0);
/* One fix (or drain pass) on the opened @vol; it closes @dash. Return: the exit status;
 * what the run ended with in @fc->not_fixed, failed and stopped (nothing else written). */
int fix_run(struct fix_cli *fc, struct lctl_volume *vol, struct dash *dash, double t0);
/* A directory's report and the run's summary as records (fixjson.c); @resume_cmd is said
 * when the run stopped, or before its data phase. */
struct json_object *fix_dir_json(const struct lctl_repair_report *rr);
struct json_object *fix_summary_json(struct lctl_volume *vol, const struct lctl_fix_summary *s,
				     double elapsed, bool dry, const char *resume_cmd);
/*
 * fix --retry-failed, --files-from (fixlisted.c): the listed files, one run per directory.
 * listed_open() reads the list (EXIT_CLEAN, or the exit status, said); listed_next() sets
 * @o's scope and names for the next directory: 1, 0 when there is none left, -1 out of
 * memory; listed_close() frees it and clears @o's. exit_worse(): the worse of two runs' exit
 * statuses (interrupted, could not run, usage, problems, window, clean).
 */
struct listed_dir {
	const char *dir;
	char **names; /* sorted */
	size_t n;
};
struct listed_dirs {
	struct lctl_strv l; /* sorted by directory, then name */
	size_t next, dirs;
	char dir[4096];
	struct listed_dir cur;
};
int listed_open(const struct fix_cli *fc, struct listed_dirs *ld);
int listed_next(struct listed_dirs *ld, struct lctl_fix_opts *o);
void listed_close(struct listed_dirs *ld, struct lctl_fix_opts *o);
int exit_worse(int a, int b);
/*
 * Before a run (fixmetrics.c): the settle period from the client caches when --settle was not
 * given (a shorter one given is warned about), and the first --metrics-file write.
 * Return: EXIT_CLEAN, EXIT_USAGE or EXIT_CANTRUN (said).
 */
int fix_prelude(struct fix_cli *fc, struct lctl_volume *vol);
/* The metrics of the run (--metrics-file) at each status write and at the end. */
void fix_publish(const struct fix_cli *fc, const struct lctl_progress *p,
		 const struct lctl_status_info *si);
/* A run that ended before its last status write (refused at start): publish its end. */
void fix_publish_end(const struct fix_cli *fc, int ret);
/* Say why the check for a running rebalance (lctl_gluster_tasks_idle()) refuses to go on. */
void tasks_refused(int tasks, const char *gluster, const char *volume);
/* Before a run moves anything (preflight.c): no rebalance or remove-brick runs; the versions
 * of the cluster and its clients (unless forced). EXIT_CLEAN or EXIT_CANTRUN (said). */
int check_gluster_tasks(const char *volume);
int check_compat(const char *volume, bool force);

#endif
