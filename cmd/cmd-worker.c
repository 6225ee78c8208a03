/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl worker VOLUME: one server's share of a fix spread over the pool.
 *
 * Started by `layoutctl fix` on the starting host, through a remote shell (or directly for
 * the starting host's own bricks), never by hand. Its stdin and stdout carry the line
 * protocol of lib/poolwire.c: it says "hello" once the volume is open and this server's
 * bricks are known, then "progress" once a second (a heartbeat) while it waits for "go" (which
 * carries what the run's journal decided: the scope, the planner and --force-move) and while
 * it moves the files whose data this server moves, sending each file's outcome ("outcome":
 * the starting host keeps the run's one outcome log), and ends with "done". "pause", "resume"
 * and "stop" are obeyed at once; end of file on stdin, or a line that is no message, stops
 * it: a worker never outlives the run that started it.
 */
#include "cli.h"
#include "msg.h"
#include "argvalues.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const cmd_worker_usage[] = {
	"VOLUME",
	"One server's share of a fix spread over the pool (started by 'layoutctl fix').",
	"",
	"Speaks a line protocol on stdin and stdout: says hello once the volume is open, waits",
	"for go, moves the misplaced files whose data this server's bricks hold (--node), and",
	"ends with a done line. End of file on stdin stops it.",
	NULL,
};

/* Filled by the option parser from cmd_worker_options. */
static struct worker_cli {
	unsigned parallel;
	unsigned migrations;
	const char *state_dir;
	const char *log;
	double files_per_sec;
	double bandwidth;
	int brick_reads;
	unsigned hang_timeout;
	unsigned hold_limit;
} wk_args = { .hang_timeout = 1800 };

const struct lopt cmd_worker_options[] = {
	OPT_UINT('p', "parallel", &wk_args.parallel, 1, 64, "N", "worker threads (default 4)"),
	OPT_UINT(0, "migrations", &wk_args.migrations, 1, LCTL_FIX_MAX_MIGRATIONS, "N",
		 "migrations at a time from or to one subvolume (default 1)"),
	OPT_PATH(0, "state-dir", &wk_args.state_dir, 4096, "DIR",
		 "its lock and kept modes (default /var/lib/layoutctl/VOLUME/worker)"),
	{ .name = "log",
	  .kind = OPTK_STRING,
	  .to.s = &wk_args.log,
	  .max = 4200,
	  .arg = "FILE",
	  .complete = "@file",
	  .help = "per-file outcome log, JSON lines (default STATE_DIR/outcomes.jsonl)" },
	{ .name = "rate",
	  .kind = OPTK_DOUBLE,
	  .to.d = &wk_args.files_per_sec,
	  .what = "files per second",
	  .arg = "FILES",
	  .help = "at most FILES files per second" },
	{ .name = "bandwidth",
	  .kind = OPTK_DOUBLE,
	  .to.d = &wk_args.bandwidth,
	  .what = "MB per second",
	  .arg = "MB",
	  .help = "at most MB megabytes (10^6 bytes) per second of migrated data" },
	{ .name = "hang-timeout",
	  .kind = OPTK_UINT,
	  .to.u = &wk_args.hang_timeout,
	  .min = 0,
	  .max = 86400,
	  .what = "0-86400 seconds",
	  .arg = "SECONDS",
	  .help = "stop when a GlusterFS call hangs this long, as for fix (default 1800)" },
	{ .name = "hold-limit",
	  .kind = OPTK_UINT,
	  .to.u = &wk_args.hold_limit,
	  .min = 0,
	  .max = 604800,
	  .what = "0-604800 seconds",
	  .arg = "SECONDS",
	  .help = "hold while the volume is not whole, at most this long, as fix does; each "
		  "second held, say so to the starting host (default 0: no hold)" },
	OPT_ENUM(0, "brick-reads", &wk_args.brick_reads, brick_reads_words, "HOW",
		 "auto (default) or gfapi, as for fix"),
	OPT_HELP(),
	OPT_END(),
};

/* A protocol line to the starting host (lib/poolwire.c): one write, flushed. */
static void say(const struct lctl_pool_msg *m)
{
	char line[LCTL_POOL_LINE_MAX];
	int n = lctl_pool_msg_format(m, line, sizeof(line));

	if (n > 0) {
		fwrite(line, 1, (size_t)n, stdout);
		fflush(stdout);
	}
}

/* "progress" (a heartbeat before go) or "done" with the counters of @p. */
static void say_counts(enum lctl_pool_kind kind, const struct lctl_progress *p, int code)
{
	struct lctl_pool_msg m = { .kind = kind, .code = (unsigned)code };

	if (p) {
		m.dirs = p->dirs_done;
		m.migrated = p->file_actions[LCTL_FILE_MIGRATED];
		m.skipped = p->file_actions[LCTL_FILE_SKIPPED];
		m.failed = p->file_actions[LCTL_FILE_FAILED];
		m.bytes = p->bytes_moved;
		m.plan_files = p->plan_files;
		m.plan_bytes = p->plan_bytes;
		m.plan_dirs = p->plan_dirs;
	}
	say(&m);
}

/* While the run holds: "held SECONDS REASON", right before the progress line of the beat. */
static void say_held(const struct lctl_progress *p)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_HELD };

	if (!p->held)
		return;
	m.held_seconds = p->held_seconds > 0 ? (uint64_t)p->held_seconds : 0;
	snprintf(m.text, sizeof(m.text), "%s", p->held_why[0] ? p->held_why : "-");
	say(&m);
}

/* "error MESSAGE" to the starting host, and the same on stderr. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_ERROR };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	say(&m);
	error("%s", m.text);
	return code;
}

/*
 * The next message from the starting host within @timeout_ms. Return: 1 (in @m), 0 nothing
 * yet, -1 end of file or a broken link (the starting host is gone), -2 a protocol error.
 */
static int next_msg(struct lctl_pool_reader *rd, struct lctl_pool_msg *m, int timeout_ms)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	int ret;
	long n;

	for (;;) {
		ret = lctl_pool_next(rd, m);
		if (ret)
			return ret > 0 ? 1 : -2;
		if (rd->eof)
			return -1;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return interrupted ? -1 : 0;
		n = lctl_pool_read(rd, 0);
		if (n < 0 && n != -EAGAIN)
			return -1;
		timeout_ms = 0;
	}
}

/*
 * Waiting for go: a heartbeat a second, so that the starting host knows we live; pause,
 * resume and the pace may come first (@o takes the pace, *@paused the last of pause and
 * resume). Return: -1 with @m the go, or the exit status (stopped, or a protocol error).
 */
static int wait_for_go(struct lctl_pool_reader *rd, struct lctl_pool_msg *m,
		       struct lctl_fix_opts *o, bool *paused)
{
	int ret;

	for (;;) {
		ret = next_msg(rd, m, 1000);
		if (ret == -1)
			return EXIT_INTERRUPTED; /* the starting host is gone before go: nothing moved */
		if (ret == -2 || (ret == 1 && m->kind != LCTL_PM_GO && m->kind != LCTL_PM_PAUSE &&
				  m->kind != LCTL_PM_RESUME && m->kind != LCTL_PM_STOP &&
				  m->kind != LCTL_PM_PACE))
			return fail(EXIT_CANTRUN,
				    "protocol error: not a message the starting host sends before go");
		if (ret == 1 && m->kind == LCTL_PM_STOP)
			return EXIT_INTERRUPTED;
		if (ret == 1 && m->kind == LCTL_PM_GO)
			return -1;
		if (ret == 1 && m->kind == LCTL_PM_PACE) {
			/* the pace changed before go: the run starts with it */
			o->files_per_sec = m->pace.files_per_sec;
			o->bytes_per_sec = m->pace.bytes_per_sec;
			o->migrations = m->pace.migrations;
		} else if (ret == 1) {
			*paused = m->kind == LCTL_PM_PAUSE;
		}
		say_counts(LCTL_PM_PROGRESS, NULL, 0);
	}
}

/*
 * The commands the starting host sent meanwhile: pause, resume, pace, stop. End of file stops
 * us; so does anything else (a second go, a line that is no message): the link cannot be
 * trusted any more. Return: whether the run was stopped.
 */
static bool take_commands(struct lctl_pool_reader *rd, struct lctl_fix *fix)
{
	struct lctl_pool_msg m;
	int ret;

	while ((ret = next_msg(rd, &m, 0)) != 0) {
		if (ret == 1 && (m.kind == LCTL_PM_PAUSE || m.kind == LCTL_PM_RESUME)) {
			lctl_fix_pause(fix, m.kind == LCTL_PM_PAUSE);
			continue;
		}
		if (ret == 1 && m.kind == LCTL_PM_PACE) {
			lctl_fix_set_pace(fix, &m.pace);
			continue;
		}
		if (ret == -2 || (ret == 1 && m.kind != LCTL_PM_STOP))
			warning("protocol error from the starting host: stopping");
		lctl_fix_cancel(fix);
		return true;
	}
	return false;
}

int cmd_worker(const struct cmd *cmd, int argc, char **argv)
{
	struct lctl_fix_opts o = { .mode = LCTL_FIX_MIGRATE, .place_only = true };
	struct lctl_volume *vol = NULL;
	struct lctl_fix *fix = NULL;
	struct lctl_error err = { 0 };
	struct lctl_progress p;
	struct lctl_pool_msg hello = { .kind = LCTL_PM_HELLO, .proto = LCTL_POOL_PROTO }, m;
	struct lctl_pool_reader *rd = NULL;
	char state_dir[4096] = "", log_path[4200] = "", scope[4096];
	struct lctl_error lerr = { 0 };
	const char *log_arg = NULL;
	size_t i, mine = 0;
	bool gfapi_only = false, fin = false, stopped = false, log_failed = false, paused = false;
	double last = -1;
	int log = -1, ret;

	ret = operands_check(cmd, argc, 1, "VOLUME");
	if (ret >= 0)
		return ret;
	o.parallel = wk_args.parallel;
	o.migrations = wk_args.migrations;
	o.files_per_sec = wk_args.files_per_sec;
	o.bytes_per_sec = wk_args.bandwidth * 1e6;
	o.hang_timeout_s = wk_args.hang_timeout;
	o.hold_limit_s = wk_args.hold_limit;
	gfapi_only = wk_args.brick_reads == BRICK_READS_GFAPI;
	log_arg = wk_args.log;
	if (wk_args.state_dir)
		snprintf(state_dir, sizeof(state_dir), "%s", wk_args.state_dir);
	if (check_volume_name(argv[1]))
		return usage_error(cmd, "invalid volume name '%s'", argv[1]);
	if (!state_dir[0])
		snprintf(state_dir, sizeof(state_dir), "/var/lib/layoutctl/%s/worker", argv[1]);
	snprintf(log_path, sizeof(log_path), "%s", log_arg ? log_arg : state_dir);
	if (!log_arg)
		snprintf(log_path, sizeof(log_path), "%s/outcomes.jsonl", state_dir);
	o.state_dir = state_dir;
	/* a --log before the volume: one that is refused stops the worker before anything */
	if (log_arg && (log = lctl_outcome_log_open(NULL, log_arg, &lerr)) < 0)
		return fail(EXIT_CANTRUN, "cannot open the outcome log '%s': %s", log_arg,
			    lerr.msg);

	ret = open_volume(argv[1],
			  (gfapi_only ? OPEN_SUBVOLS : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS) |
				  (o.hold_limit_s ? OPEN_BRICK_HEALTH | OPEN_NO_GLUSTERD : 0),
			  &vol);
	if (ret) {
		if (log >= 0)
			close(log);
		return fail(ret, "cannot open volume '%s' on this server", argv[1]);
	}
	for (i = 0; i < lctl_volume_nservers(vol); i++)
		mine += lctl_volume_server_at(vol, i)->mine;
	if (!mine) {
		ret = fail(EXIT_CANTRUN, "no brick of '%s' is on this server (--node %s)", argv[1],
			   gopts.nnodes ? gopts.nodes[0] : "not given");
		goto out;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		ret = fail(EXIT_CANTRUN, "out of memory");
		goto out;
	}
	snprintf(hello.node, sizeof(hello.node), "%s", gopts.nnodes ? gopts.nodes[0] : "-");
	say(&hello);

	ret = wait_for_go(rd, &m, &o, &paused);
	if (ret >= 0)
		goto out;
	if (check_volume_path(m.text)) {
		ret = fail(EXIT_CANTRUN, "protocol error: go names no path of the volume");
		goto out;
	}
	snprintf(scope, sizeof(scope), "%s", m.text);
	o.force_move = m.force_move;
	/* even-usage is refused over the pool (lctl_fix_start() says so) */
	o.planner = m.planner == LCTL_PLANNER_MINMOVE || m.planner == LCTL_PLANNER_EVEN_USAGE
			    ? (enum lctl_planner)m.planner
			    : LCTL_PLANNER_GLUSTER;
	o.path = scope;
	ret = lctl_fix_start(vol, &o, &fix, &err);
	if (ret) {
		ret = fail(EXIT_CANTRUN, "%s", err.msg[0] ? err.msg : lctl_strerror(ret));
		goto out;
	}
	if (!log_arg && (log = lctl_outcome_log_open(state_dir, NULL, &lerr)) < 0)
		warning("cannot open the outcome log '%s': %s", log_path, lerr.msg);
	if (paused)
		lctl_fix_pause(fix, true);
	while (!fin) {
		struct lctl_repair_report *rr = lctl_fix_next(fix, 200, &fin);

		if (rr) {
			if (lctl_outcome_log_append(log, vol, rr))
				log_failed = true;
			/* and to the starting host, for the run's one outcome log */
			if (lctl_outcome_msgs(vol, rr, time(NULL), say))
				warning("an outcome in '%s' is too long to send to the starting "
					"host: it is only in this server's log",
					log_path);
			lctl_repair_report_free(rr);
		}
		if (!stopped)
			stopped = take_commands(rd, fix);
		if (interrupted && !stopped) {
			stopped = true;
			lctl_fix_cancel(fix);
		}
		lctl_fix_progress(fix, &p);
		if (p.elapsed - last >= 1.0) {
			last = p.elapsed;
			say_held(&p);
			say_counts(LCTL_PM_PROGRESS, &p, 0);
		}
	}
	lctl_fix_progress(fix, &p);
	ret = lctl_fix_end(fix, &err);
	ret = ret < 0					  ? EXIT_CANTRUN
	      : stopped || lctl_fix_summary(fix)->stopped ? EXIT_INTERRUPTED
	      : ret					  ? EXIT_PROBLEMS
							  : EXIT_CLEAN;
	say_counts(LCTL_PM_DONE, &p, ret);
	if (lctl_fix_hung(fix)) {
		/* a thread is still inside GlusterFS: closing the volume could wait for ever */
		fflush(NULL);
		_exit(ret);
	}
out:
	free(rd);
	if (log >= 0 && (close(log) || log_failed))
		warning("cannot write the outcome log '%s'", log_path);
	lctl_fix_free(fix);
	lctl_volume_close(vol, false);
	return ret;
}
