/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl status VOLUME and layoutctl top VOLUME: a fix's progress from its state directory,
 * while it runs (the job rewrites progress.json every second) and after it ended.
 */
#include "cli.h"
#include "dashboard.h"
#include "msg.h"
#include "output.h"
#include "parse.h"
#include "progress.h"
#include "render.h"
#include "status.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const cmd_status_usage[] = {
	"VOLUME",
	"Show the progress of the running fix of a volume, or the outcome of the last one.",
	"",
	"Reads STATE_DIR/progress.json, which a fix rewrites every second.",
	"Exit status, for monitoring: 0 running, or finished with every directory clean;",
	"1 finished with problems, stopped (resumable) or died; 2 usage; 3 no fix recorded.",
	NULL,
};

const char *const cmd_top_usage[] = {
	"VOLUME",
	"Attach the live dashboard to the running fix of a volume (from another terminal).",
	"",
	"Keys: p pause, r resume, + and - workers, q stop the fix gracefully (resumable),",
	"x leave the dashboard and let the fix run, ? help.",
	NULL,
};

struct status_cli {
	char state_dir[4096];
	const char *state_dir_arg;
	int iterations;
};

/* Filled by the option parser from cmd_status_options or cmd_top_options. */
static struct status_cli sc_args;

const struct lopt cmd_status_options[] = {
	OPT_PATH(0, "state-dir", &sc_args.state_dir_arg, sizeof(sc_args.state_dir), "DIR",
		 "the fix's state directory (default /var/lib/layoutctl/VOLUME)"),
	OPT_HELP(),
	OPT_END(),
};

const struct lopt cmd_top_options[] = {
	OPT_PATH(0, "state-dir", &sc_args.state_dir_arg, sizeof(sc_args.state_dir), "DIR",
		 "the fix's state directory (default /var/lib/layoutctl/VOLUME)"),
	OPT_INT(0, "iterations", &sc_args.iterations, 1, 1000000, "N",
		"redraw N times, then exit (for scripts and tests)"),
	OPT_HELP(),
	OPT_END(),
};

/* The options are parsed; check the operand. The volume is argv[1]. */
static int parse_args(const struct cmd *cmd, int argc, char **argv, struct status_cli *sc)
{
	int ret = operands_check(cmd, argc, 1, "VOLUME");

	if (ret >= 0)
		return ret;
	*sc = sc_args;
	if (check_volume_name(argv[1]))
		return usage_error(cmd, "invalid volume name '%s'", argv[1]);
	if (sc->state_dir_arg)
		snprintf(sc->state_dir, sizeof(sc->state_dir), "%s", sc->state_dir_arg);
	else
		snprintf(sc->state_dir, sizeof(sc->state_dir), "/var/lib/layoutctl/%s", argv[1]);
	return -1;
}

/* A "running" status whose process is gone (killed, host rebooted) is a dead run. */
static bool run_dead(struct json_object *st)
{
	const char *state = js_str(st, "state");
	char host[256] = "";
	pid_t pid = (pid_t)js_int(st, "pid");

	if (!strcmp(state, "finished") || !strcmp(state, "stopped") || !strcmp(state, "failed"))
		return false;
	gethostname(host, sizeof(host) - 1);
	if (strcmp(host, js_str(st, "host")))
		return time(NULL) - (time_t)js_int(st, "updated") > 60; /* another host: by age */
	return pid <= 0 || (kill(pid, 0) && errno == ESRCH);
}

static int exit_for_status(struct json_object *st, bool dead)
{
	const char *state = js_str(st, "state");

	if (dead)
		return EXIT_PROBLEMS;
	if (!strcmp(state, "finished"))
		return js_int(st, "exit_code") == 0 ? EXIT_CLEAN : EXIT_PROBLEMS;
	if (!strcmp(state, "stopped") || !strcmp(state, "failed"))
		return EXIT_PROBLEMS;
	return EXIT_CLEAN; /* running, paused, held, stopping */
}

/* ---- text: the same record through a table ------------------------------------------------- */

static struct json_object *f_data_phase(struct out_rctx *c, struct json_object *phase)
{
	(void)c;
	return json_object_new_boolean(
		!strcmp(json_object_get_string(phase) ? json_object_get_string(phase) : "",
			"data"));
}

/* what the phase does, with its counters (the settle countdown, say): status_phase_line() */
static struct json_object *f_now(struct out_rctx *c, struct json_object *phase)
{
	static const char *const used[] = { "step",
					    "directories.done",
					    "directories.seen",
					    "settle.remaining_seconds",
					    "settle.seconds",
					    "dry_run",
					    "mode" };
	char line[256];
	size_t i;

	(void)phase;
	for (i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		out_rget(c, used[i]); /* recorded as read */
	status_phase_line(out_rget(c, "."), line, sizeof(line));
	return json_object_new_string(line);
}

static struct json_object *f_live(struct out_rctx *c, struct json_object *state)
{
	const char *s = json_object_get_string(state);

	(void)c;
	return json_object_new_boolean(
		s && (!strcmp(s, "running") || !strcmp(s, "paused") || !strcmp(s, "held")));
}

static const struct out_filter status_filters[] = {
	{ "data_phase", f_data_phase },
	{ "now", f_now },
	{ "live", f_live },
	{ NULL, NULL },
};

/* every string comes from a file: escaped like names from the volume (render.c) */
static const struct out_line status_lines[] = {
	{ NULL, NULL, "Volume:      {volume} (path {path})" },
	{ NULL, NULL,
	  "State:       {dead?DIED (process gone; run 'layoutctl fix --resume')~{state}}, "
	  "phase {phase}" },
	{ NULL, "!dead&state|live", "Now:         {phase|now}" },
	{ NULL, NULL, "Process:     pid {pid} on {host}, started {started|ctime}" },
	{ NULL, NULL, "Mode:        {mode}, layout {layout}{dry_run?, dry run~}" },
	{ NULL, NULL, "Elapsed:     {elapsed:.0} s, ETA {eta_seconds|set?{eta_seconds:.0} s~-}" },
	{ NULL, NULL,
	  "Directories: {directories.done} done of {directories.seen} seen "
	  "(~{directories.estimated_total} total): {directories.fixed} fixed, "
	  "{directories.was-clean} were clean, {directories.not-fixed} not fixed" },
	{ NULL, "clean_first",
	  "Clean:       {clean_first.all_clean?{clean_first.clean_since?every "
	  "directory, since {clean_first.clean_since|localtime} "
	  "{clean_first.clean_after_seconds?({clean_first.clean_after_seconds:.0} s after the "
	  "start)~(an earlier run of this job)}~"
	  "{clean_first.directories_clean} directories so far}~"
	  "{clean_first.directories_clean} directories so far}" },
	{ NULL, "clean_first",
	  "Data placed: {clean_first.data_directories_placed} directories"
	  "{phase|data_phase? (data phase running)~}" },
	{ NULL, NULL,
	  "Files:       {files.migrated} migrated, {files.linked} linked, {files.skipped} "
	  "skipped, {files.failed} failed, {files.linkto-removed} linkto removed" },
	{ NULL, NULL,
	  "Moved:       {bytes_moved|bytes} ({rates.bytes_per_sec_60s|bytes}/s over the "
	  "last minute)" },
	{ NULL, "exit_code|set", "Exit code:   {exit_code}" },
	/* the servers of a fix spread over the pool: the one table (status.h) */
	{ NULL, "servers", STATUS_SERVER_HEADER },
	{ "servers", NULL, STATUS_SERVER_ROW },
	{ NULL, NULL, NULL },
};

static const struct out_block status_blocks[] = {
	{ "status", NULL, status_lines, false },
	{ NULL, NULL, NULL, false },
};

/* In JSON and XML only: the dashboard's material (rates, workers, shares, recent errors). */
static const char *const status_hidden[] = {
	"status.updated",
	"status.directories.not_clean",
	"status.directories.left-alone",
	"status.directories.planned",
	"status.directories.stopped",
	"status.directories.placed",
	"status.files.examined",
	"status.rates.dirs_per_sec_10s",
	"status.rates.dirs_per_sec_60s",
	"status.rates.files_per_sec_10s",
	"status.rates.files_per_sec_60s",
	"status.rates.bytes_per_sec_10s",
	"status.servers[].seconds",
	"status.workers",
	/* shown by the "Now:" line of a live run, in its phase only */
	"status.settle",
	"status.step",
	"status.subvolumes",
	"status.errors",
	"status.clean_first.directories_clean@status.clean_first.all_clean",
	"status.state@status.dead",
	NULL,
};

const struct out_view status_view = { "status", status_blocks, status_hidden, status_filters };

static struct json_object *load(const struct status_cli *sc, const char *volume)
{
	struct lctl_error err = { 0 };
	struct json_object *st = lctl_status_read(sc->state_dir, &err);

	if (st)
		return st;
	if (err.code == LCTL_EINVAL && err.sys_errno == ENOENT) {
		error("no fix of '%s' recorded in '%s'", volume, sc->state_dir);
	} else {
		char *m = out_name_dup(err.msg);

		error("cannot read the status of '%s': %s", volume, m ? m : "out of memory");
		free(m);
	}
	return NULL;
}

int cmd_status(const struct cmd *cmd, int argc, char **argv)
{
	struct status_cli sc = { 0 };
	struct json_object *st;
	struct out *o;
	bool dead;
	int ret;

	ret = parse_args(cmd, argc, argv, &sc);
	if (ret >= 0)
		return ret;
	st = load(&sc, argv[1]);
	if (!st)
		return EXIT_CANTRUN;
	dead = run_dead(st);
	ret = exit_for_status(st, dead);
	o = out_open_view(gopts.format, stdout, "status", &status_view);
	json_object_object_add(st, "dead", json_object_new_boolean(dead));
	json_object_object_del(st, "format_version");
	json_object_object_del(st, "command");
	json_object_get(st);
	out_member(o, "status", st);
	out_close(o, 0, 0, NULL);
	json_object_put(st);
	return finish_stdout(ret);
}

/* top's keys travel to the fix through its control file. */
static const char *top_dir;

static void top_pause(void *arg, bool pause)
{
	(void)arg;
	lctl_control_send(top_dir, pause ? LCTL_CONTROL_PAUSE : LCTL_CONTROL_RESUME, 0, NULL);
}

static void top_stop(void *arg)
{
	(void)arg;
	lctl_control_send(top_dir, LCTL_CONTROL_STOP, 0, NULL);
}

static int top_workers(void *arg, int delta)
{
	struct json_object *st = lctl_status_read(top_dir, NULL);
	int n;

	(void)arg;
	if (!st)
		return -1;
	n = (int)js_int(st, "workers.active") + delta;
	json_object_put(st);
	if (n < 1 || n > 64)
		return -1;
	return lctl_control_send(top_dir, LCTL_CONTROL_WORKERS, n, NULL) ? -1 : 0;
}

int cmd_top(const struct cmd *cmd, int argc, char **argv)
{
	struct dash_ops ops = { top_pause, top_stop, top_workers, NULL };
	struct status_cli sc = { 0 };
	struct json_object *st;
	struct dash *d;
	const char *why;
	int ret, i, key;

	ret = parse_args(cmd, argc, argv, &sc);
	if (ret >= 0)
		return ret;
	st = load(&sc, argv[1]);
	if (!st)
		return EXIT_CANTRUN;
	json_object_put(st);
	top_dir = sc.state_dir;
	d = dash_open(&why);
	if (!d) {
		error("top %s; use 'layoutctl status' in scripts", why);
		return EXIT_USAGE;
	}
	for (i = 0; !interrupted && (!sc.iterations || i < sc.iterations); i++) {
		st = lctl_status_read(sc.state_dir, NULL);
		dash_draw(d, st);
		json_object_put(st);
		/* keys for about a second, then redraw from the file */
		for (key = 0; key < 5 && !interrupted; key++) {
			int k = dash_key(d, 200, &ops);

			if (k == 'x' || k == 'q')
				break;
		}
		if (key < 5)
			break;
	}
	dash_close(d);
	return EXIT_CLEAN;
}
