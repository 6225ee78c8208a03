/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl worker VOLUME: one server's share of a fix spread over the pool.
 *
 * Started by `layoutctl fix` on the starting host, through a remote shell (or directly for
 * the starting host's own bricks), never by hand. Its stdin and stdout carry the line
 * protocol of lib/pool.c: it says "hello" once the volume is open and this server's bricks
 * are known, waits for "go" (which carries what the run's journal decided: the scope, the
 * planner and --force-move), moves the files whose data this server moves, reports
 * "progress" once a second and ends with "done". End of file on stdin stops it: a worker
 * never outlives the run that started it.
 */
#include "cli.h"
#include "msg.h"
#include "parse.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POOL_PROTO 1

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
} wk_args;

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
	OPT_ENUM(0, "brick-reads", &wk_args.brick_reads, brick_reads_words, "HOW",
		 "auto (default) or gfapi, as for fix"),
	OPT_HELP(),
	OPT_END(),
};

/* A protocol line to the starting host: one write, flushed. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* "error MESSAGE" on one line of printable ASCII, and the same on stderr. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] >= 0x7f)
			msg[i] = '?';
	say("error %s", msg);
	error("%s", msg);
	return code;
}

/*
 * Read one line from stdin within @timeout_ms. Return: 1 a line in @buf, 0 nothing yet,
 * -1 end of file or an error (the starting host is gone).
 */
static int read_line(char *buf, size_t size, size_t *len, int timeout_ms)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(buf, '\n', *len);
		if (nl) {
			*nl = '\0';
			return 1;
		}
		if (*len + 1 >= size)
			return -1;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return interrupted ? -1 : 0;
		n = read(0, buf + *len, size - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		*len += (size_t)n;
		timeout_ms = 0;
	}
}

/* Drop the first line (up to its NUL) from the buffer. */
static void consume_line(char *buf, size_t *len)
{
	size_t k = strlen(buf) + 1;

	memmove(buf, buf + k, *len - k);
	*len -= k;
}

static int unhex(const char *h, char *out, size_t size)
{
	size_t n = strlen(h), i;
	unsigned v;

	if (n % 2 || n / 2 >= size)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (char)v;
	}
	out[n / 2] = '\0';
	return strlen(out) == n / 2 ? 0 : -1;
}

/* "go force=0|1 layout=gluster|min-move scope=HEX" */
static int parse_go(char *line, struct lctl_fix_opts *o, char *scope, size_t size)
{
	char *tok, *save = NULL;
	bool have_scope = false;

	if (strncmp(line, "go ", 3))
		return -1;
	for (tok = strtok_r(line + 3, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "force=1"))
			o->force_move = true;
		else if (!strcmp(tok, "layout=min-move"))
			o->planner = LCTL_PLANNER_MINMOVE;
		else if (!strncmp(tok, "scope=", 6) && !unhex(tok + 6, scope, size) &&
			 !check_volume_path(scope))
			have_scope = true;
	}
	return have_scope ? 0 : -1;
}

int cmd_worker(const struct cmd *cmd, int argc, char **argv)
{
	struct lctl_fix_opts o = { .mode = LCTL_FIX_MIGRATE, .place_only = true };
	struct lctl_volume *vol = NULL;
	struct lctl_fix *fix = NULL;
	struct lctl_error err = { 0 };
	struct lctl_progress p;
	char state_dir[4096] = "", log_path[4200] = "", scope[4096], in[8192], node[256];
	char why[256];
	const char *log_arg = NULL;
	size_t inlen = 0, i, mine = 0;
	bool gfapi_only = false, fin = false, stopped = false, log_failed = false;
	double last = -1;
	int log = -1, ret;

	ret = operands_check(cmd, argc, 1, "VOLUME");
	if (ret >= 0)
		return ret;
	o.parallel = wk_args.parallel;
	o.migrations = wk_args.migrations;
	o.files_per_sec = wk_args.files_per_sec;
	o.bytes_per_sec = wk_args.bandwidth * 1e6;
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
	if (log_arg && (log = log_open(log_arg, NULL, why, sizeof(why))) < 0)
		return fail(EXIT_CANTRUN, "cannot open the outcome log '%s': %s", log_arg, why);

	ret = open_volume(argv[1], gfapi_only ? OPEN_SUBVOLS : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS,
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
	snprintf(node, sizeof(node), "%s", gopts.nnodes ? gopts.nodes[0] : "-");
	for (i = 0; node[i]; i++)
		if ((unsigned char)node[i] <= 0x20 || (unsigned char)node[i] >= 0x7f)
			node[i] = '?';
	say("hello %d %s", POOL_PROTO, node);

	for (;;) {
		ret = read_line(in, sizeof(in), &inlen, 1000);
		if (ret < 0) {
			ret = EXIT_INTERRUPTED; /* the starting host is gone before go: nothing moved */
			goto out;
		}
		if (ret == 0)
			continue;
		if (!parse_go(in, &o, scope, sizeof(scope)))
			break;
		consume_line(in, &inlen);
	}
	consume_line(in, &inlen);
	o.path = scope;
	ret = lctl_fix_start(vol, &o, &fix, &err);
	if (ret) {
		ret = fail(EXIT_CANTRUN, "%s", err.msg[0] ? err.msg : lctl_strerror(ret));
		goto out;
	}
	if (!log_arg && (log = log_open(log_path, state_dir, why, sizeof(why))) < 0)
		warning("cannot open the outcome log '%s': %s", log_path, why);
	while (!fin) {
		struct lctl_repair_report *rr = lctl_fix_next(fix, 200, &fin);

		if (rr) {
			log_outcomes(log, vol, rr, &log_failed);
			lctl_repair_report_free(rr);
		}
		/* a command from the starting host; end of file stops us */
		while (!stopped && (ret = read_line(in, sizeof(in), &inlen, 0)) != 0) {
			if (ret < 0 || !strcmp(in, "stop")) {
				stopped = true;
				lctl_fix_cancel(fix);
				break;
			}
			if (!strcmp(in, "pause") || !strcmp(in, "resume"))
				lctl_fix_pause(fix, !strcmp(in, "pause"));
			consume_line(in, &inlen);
		}
		if (interrupted && !stopped) {
			stopped = true;
			lctl_fix_cancel(fix);
		}
		lctl_fix_progress(fix, &p);
		if (p.elapsed - last >= 1.0) {
			last = p.elapsed;
			say("progress %llu %llu %llu %llu %llu", (unsigned long long)p.dirs_done,
			    (unsigned long long)p.file_actions[LCTL_FILE_MIGRATED],
			    (unsigned long long)p.file_actions[LCTL_FILE_SKIPPED],
			    (unsigned long long)p.file_actions[LCTL_FILE_FAILED],
			    (unsigned long long)p.bytes_moved);
		}
	}
	lctl_fix_progress(fix, &p);
	ret = lctl_fix_end(fix, &err);
	ret = ret < 0					  ? EXIT_CANTRUN
	      : stopped || lctl_fix_summary(fix)->stopped ? EXIT_INTERRUPTED
	      : ret					  ? EXIT_PROBLEMS
							  : EXIT_CLEAN;
	say("done %llu %llu %llu %llu %llu %d", (unsigned long long)p.dirs_done,
	    (unsigned long long)p.file_actions[LCTL_FILE_MIGRATED],
	    (unsigned long long)p.file_actions[LCTL_FILE_SKIPPED],
	    (unsigned long long)p.file_actions[LCTL_FILE_FAILED], (unsigned long long)p.bytes_moved,
	    ret);
out:
	if (log >= 0 && (close(log) || log_failed))
		warning("cannot write the outcome log '%s'", log_path);
	lctl_fix_free(fix);
	lctl_volume_close(vol, false);
	return ret;
}
