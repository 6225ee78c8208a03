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
	return EXIT_CLEAN; /* running, paused, stopping */
}

static void print_text(struct json_object *st, bool dead)
{
	char b1[32], b2[32];
	struct json_object *eta;
	double elapsed = js_double(st, "elapsed");
	time_t started = (time_t)js_int(st, "started");

	/* every string comes from a file: escaped (out_esc()) like names from the volume */
	printf("Volume:      %s (path %s)\n", out_esc(js_str(st, "volume")), out_esc(js_str(st, "path")));
	printf("State:       %s%s, phase %s\n", dead ? "DIED (" : out_esc(js_str(st, "state")),
	       dead ? "process gone; run 'layoutctl fix --resume')" : "", out_esc(js_str(st, "phase")));
	if (!strcmp(js_str(st, "state"), "running") || !strcmp(js_str(st, "state"), "paused")) {
		char line[256];

		/* what the phase does, with its counters (the settle countdown, say) */
		status_phase_line(st, line, sizeof(line));
		printf("Now:         %s\n", line);
	}
	printf("Process:     pid %lld on %s, started %s", (long long)js_int(st, "pid"),
	       out_esc(js_str(st, "host")), ctime(&started));
	printf("Mode:        %s, layout %s%s\n", out_esc(js_str(st, "mode")), out_esc(js_str(st, "layout")),
	       js_int(st, "dry_run") ? ", dry run" : "");
	if (json_object_object_get_ex(st, "eta_seconds", &eta) && eta)
		snprintf(b1, sizeof(b1), "%.0f s", json_object_get_double(eta));
	else
		snprintf(b1, sizeof(b1), "-");
	printf("Elapsed:     %.0f s, ETA %s\n", elapsed, b1);
	printf("Directories: %lld done of %lld seen (~%lld total): %lld fixed, %lld were clean, %lld not fixed\n",
	       (long long)js_int(st, "directories.done"), (long long)js_int(st, "directories.seen"),
	       (long long)js_int(st, "directories.estimated_total"),
	       (long long)js_int(st, "directories.fixed"), (long long)js_int(st, "directories.was-clean"),
	       (long long)js_int(st, "directories.not-fixed"));
	if (json_object_object_get_ex(st, "clean_first", &eta) && eta) {
		time_t since = (time_t)js_int(st, "clean_first.clean_since");
		char when[32];

		if (js_int(st, "clean_first.all_clean") && since > 0) {
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&since));
			printf("Clean:       every directory, since %s (%.0f s after the start)\n", when,
			       js_double(st, "clean_first.clean_after_seconds"));
		} else {
			printf("Clean:       %lld directories so far\n",
			       (long long)js_int(st, "clean_first.directories_clean"));
		}
		printf("Data placed: %lld directories%s\n",
		       (long long)js_int(st, "clean_first.data_directories_placed"),
		       strcmp(js_str(st, "phase"), "data") ? "" : " (data phase running)");
	}
	printf("Files:       %lld migrated, %lld linked, %lld skipped, %lld failed, %lld linkto removed\n",
	       (long long)js_int(st, "files.migrated"), (long long)js_int(st, "files.linked"),
	       (long long)js_int(st, "files.skipped"), (long long)js_int(st, "files.failed"),
	       (long long)js_int(st, "files.linkto-removed"));
	printf("Moved:       %s (%s/s over the last minute)\n",
	       human_bytes((uint64_t)js_int(st, "bytes_moved"), b1, sizeof(b1)),
	       human_bytes((uint64_t)js_double(st, "rates.bytes_per_sec_60s"), b2, sizeof(b2)));
	if (json_object_object_get_ex(st, "exit_code", &eta))
		printf("Exit code:   %d\n", json_object_get_int(eta));
	status_print_servers(stdout, st);
}

static struct json_object *load(const struct status_cli *sc, const char *volume)
{
	struct lctl_error err = { 0 };
	struct json_object *st = status_read(sc->state_dir, &err);

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
	if (gopts.format == FMT_TEXT) {
		print_text(st, dead);
	} else {
		o = out_open(gopts.format, stdout, "status");
		json_object_object_add(st, "dead", json_object_new_boolean(dead));
		json_object_object_del(st, "format_version");
		json_object_object_del(st, "command");
		json_object_get(st);
		out_member(o, "status", st);
		out_close(o, 0, 0, NULL);
	}
	json_object_put(st);
	return finish_stdout(ret);
}

/* top's keys travel to the fix through its control file. */
static const char *top_dir;

static void top_pause(void *arg, bool pause)
{
	(void)arg;
	control_send(top_dir, pause ? "pause" : "resume");
}

static void top_stop(void *arg)
{
	(void)arg;
	control_send(top_dir, "stop");
}

static int top_workers(void *arg, int delta)
{
	struct json_object *st = status_read(top_dir, NULL);
	char buf[32];
	int n;

	(void)arg;
	if (!st)
		return -1;
	n = (int)js_int(st, "workers.active") + delta;
	json_object_put(st);
	if (n < 1 || n > 64)
		return -1;
	snprintf(buf, sizeof(buf), "workers %d", n);
	return control_send(top_dir, buf) ? -1 : 0;
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
		st = status_read(sc.state_dir, NULL);
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
