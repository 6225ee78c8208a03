/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl status VOLUME and layoutctl top VOLUME: a fix's progress from its state directory,
 * while it runs (the job rewrites progress.json every second) and after it ended.
 */
#include "cli.h"
#include "dashboard.h"
#include "msg.h"
#include "output.h"
#include "argvalues.h"
#include "progress.h"
#include "textview.h"
#include "statusview.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
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
					    "mode",
					    "directory_in_progress.path",
					    "directory_in_progress.entries_done",
					    "directory_in_progress.entries_seen" };
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

/* every string comes from a file: escaped like names from the volume (textview.c) */
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
	/* what the plans of the directories inspected so far move, projected over all of them */
	{ NULL, "to_move",
	  "To move:     ~{to_move.files_estimated} files, ~{to_move.bytes_estimated|bytes} "
	  "({to_move.files} files, {to_move.bytes|bytes} in the plans of the "
	  "{to_move.directories} directories inspected)" },
	{ NULL, "to_move",
	  "Left:        ~{files_left} files, ~{bytes_left|bytes}{eta_basis|set?, the "
	  "{eta_basis} left take longest at this rate~}" },
	/* --until, --max-runtime: the run stops at the window's end, the next run goes on */
	{ NULL, "window",
	  "Window:      ends {window.ends|localtime}{window.done_in_window? (all done before "
	  "it)~: ~{window.files_left_at_end} files, ~{window.bytes_left_at_end|bytes} "
	  "left then for the next run}" },
	{ NULL, "pace",
	  "Pace:        {pace.files_per_sec?{pace.files_per_sec} files/s~no file limit}, "
	  "{pace.bytes_per_sec?{pace.bytes_per_sec|bytes}/s~no byte limit}, {pace.migrations} "
	  "migrations a subvolume (layoutctl set changes it)" },
	{ NULL, "held", "Held:        {held.seconds} s: {held.reason}" },
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
	"status.servers[].plan_files",
	"status.servers[].plan_bytes",
	"status.servers[].plan_directories",
	"status.window.seconds_left",
	"status.window.directories_left_at_end",
	"status.workers",
	/* shown by the "Now:" line of a live run, in its phase only */
	"status.settle",
	"status.directory_in_progress",
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
	lctl_control_send(top_dir, pause ? LCTL_CONTROL_PAUSE : LCTL_CONTROL_RESUME, NULL, NULL);
}

static void top_stop(void *arg)
{
	(void)arg;
	lctl_control_send(top_dir, LCTL_CONTROL_STOP, NULL, NULL);
}

static int top_workers(void *arg, int delta)
{
	struct json_object *st = lctl_status_read(top_dir, NULL);
	struct lctl_control_arg ca = { 0 };

	(void)arg;
	if (!st)
		return -1;
	ca.workers = (int)js_int(st, "workers.active") + delta;
	json_object_put(st);
	if (ca.workers < 1 || ca.workers > 64)
		return -1;
	return lctl_control_send(top_dir, LCTL_CONTROL_WORKERS, &ca, NULL) ? -1 : 0;
}

/* the rate keys: the control file's "pace" word, as `layoutctl set VOL rate=N` sends it */
static int top_pace(void *arg, const struct lctl_pace *pace)
{
	struct lctl_control_arg ca = { 0 };

	(void)arg;
	ca.pace = *pace;
	return lctl_control_send(top_dir, LCTL_CONTROL_PACE, &ca, NULL) ? -1 : 0;
}

int cmd_top(const struct cmd *cmd, int argc, char **argv)
{
	struct dash_ops ops = { top_pause, top_stop, top_workers, NULL, top_pace };
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

/* ---- set: the pace of the running fix, through its control file ------------------------------ */

const char *const cmd_set_usage[] = {
	"VOLUME KEY=VALUE...",
	"Change the pace of the running fix or drain of a volume, from now on.",
	"",
	"Keys: rate=FILES (files a second, 0: no limit), bandwidth=MB (megabytes a second,",
	"0: no limit), migrations=N (at a time from or to one subvolume, 1-8), workers=N (1-64).",
	"The run takes it within a second and passes it on to every server's worker of a pool",
	"run; `layoutctl status` shows the pace it runs at.",
	"Exit status: 0 taken, 1 not taken within 5 seconds, 2 usage, 3 no run of VOLUME runs.",
	NULL,
};

const struct lopt cmd_set_options[] = {
	OPT_PATH(0, "state-dir", &sc_args.state_dir_arg, sizeof(sc_args.state_dir), "DIR",
		 "the fix's state directory (default /var/lib/layoutctl/VOLUME)"),
	OPT_HELP(),
	OPT_END(),
};

/* A plain decimal number, as the control file takes it (lctl_decimal_parse()), in [0, max]. */
static bool set_number(const char *s, double max, double *out)
{
	return !lctl_decimal_parse(s, strlen(s), out) && *out <= max;
}

/* KEY=VALUE into @ca; false (said) for anything else. */
static bool set_key(const struct cmd *cmd, const char *kv, struct lctl_control_arg *ca)
{
	const char *eq = strchr(kv, '=');
	size_t k = eq ? (size_t)(eq - kv) : 0;
	double v;

	if (!eq || !k) {
		usage_error(cmd, "'%s' is not KEY=VALUE", kv);
		return false;
	}
	if (k == 4 && !strncmp(kv, "rate", k) && set_number(eq + 1, LCTL_PACE_RATE_MAX, &v) &&
	    !(ca->pace.set & LCTL_PACE_RATE)) {
		ca->pace.set |= LCTL_PACE_RATE;
		ca->pace.files_per_sec = v;
	} else if (k == 9 && !strncmp(kv, "bandwidth", k) &&
		   set_number(eq + 1, LCTL_PACE_BANDWIDTH_MAX / 1e6, &v) &&
		   !(ca->pace.set & LCTL_PACE_BANDWIDTH)) {
		ca->pace.set |= LCTL_PACE_BANDWIDTH;
		ca->pace.bytes_per_sec = v * 1e6;
	} else if (k == 10 && !strncmp(kv, "migrations", k) &&
		   set_number(eq + 1, LCTL_FIX_MAX_MIGRATIONS, &v) && v >= 1 && v == (unsigned)v &&
		   !(ca->pace.set & LCTL_PACE_MIGRATIONS)) {
		ca->pace.set |= LCTL_PACE_MIGRATIONS;
		ca->pace.migrations = (unsigned)v;
	} else if (k == 7 && !strncmp(kv, "workers", k) && set_number(eq + 1, 64, &v) && v >= 1 &&
		   v == (int)v && !ca->workers) {
		ca->workers = (int)v;
	} else {
		usage_error(cmd,
			    "'%s': rate=FILES, bandwidth=MB, migrations=1-%d or workers=1-64, "
			    "each once",
			    kv, LCTL_FIX_MAX_MIGRATIONS);
		return false;
	}
	return true;
}

/* Wait (at most @seconds) until no command is pending in @dir: the run took it. */
static bool control_taken(const char *dir, double seconds)
{
	char path[4200];
	double t0 = lctl_mono_seconds();

	snprintf(path, sizeof(path), "%s/%s", dir, LCTL_CONTROL_FILE);
	while (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		if (lctl_mono_seconds() - t0 > seconds)
			return false;
		usleep(50000);
	}
	return true;
}

/* Send @c (waiting for a command pending before it to be taken first), then wait for it. */
static int set_send(const char *dir, const char *volume, enum lctl_control c,
		    const struct lctl_control_arg *ca)
{
	struct lctl_error err = { 0 };

	if (!control_taken(dir, 5)) {
		error("the run of '%s' has not taken the command sent before this one", volume);
		return EXIT_PROBLEMS;
	}
	if (lctl_control_send(dir, c, ca, &err)) {
		error("cannot write the control file of '%s': %s", volume, err.msg);
		return EXIT_CANTRUN;
	}
	if (!control_taken(dir, 5)) {
		error("the run of '%s' has not taken it within 5 seconds", volume);
		return EXIT_PROBLEMS;
	}
	return EXIT_CLEAN;
}

int cmd_set(const struct cmd *cmd, int argc, char **argv)
{
	struct status_cli sc = sc_args;
	struct lctl_control_arg ca = { 0 };
	struct json_object *st;
	const char *state;
	bool dead;
	int i, ret;

	if (argc < 3)
		return usage_error(cmd, argc < 2 ? "missing VOLUME" : "missing KEY=VALUE");
	if (check_volume_name(argv[1]))
		return usage_error(cmd, "invalid volume name '%s'", argv[1]);
	for (i = 2; i < argc; i++)
		if (!set_key(cmd, argv[i], &ca))
			return EXIT_USAGE;
	if (sc.state_dir_arg)
		snprintf(sc.state_dir, sizeof(sc.state_dir), "%s", sc.state_dir_arg);
	else
		snprintf(sc.state_dir, sizeof(sc.state_dir), "/var/lib/layoutctl/%s", argv[1]);
	st = load(&sc, argv[1]);
	if (!st)
		return EXIT_CANTRUN;
	state = js_str(st, "state");
	dead = run_dead(st);
	ret = dead ||
	      (strcmp(state, "running") && strcmp(state, "paused") && strcmp(state, "held"));
	json_object_put(st);
	if (ret) {
		error("no run of '%s' is running (its last one is %s)", argv[1],
		      dead	 ? "dead"
		      : state[0] ? state
				 : "unknown");
		return EXIT_CANTRUN;
	}
	ret = ca.workers ? set_send(sc.state_dir, argv[1], LCTL_CONTROL_WORKERS, &ca) : EXIT_CLEAN;
	if (!ret && ca.pace.set)
		ret = set_send(sc.state_dir, argv[1], LCTL_CONTROL_PACE, &ca);
	return ret;
}
