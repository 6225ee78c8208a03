/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layoutctl fix VOLUME: repair layouts, place entries, verify, stamp clean. */
#include "cli.h"
#include "dashboard.h"
#include "fixcli.h"
#include "msg.h"
#include "output.h"
#include "argvalues.h"
#include "progress.h"
#include "textview.h"
#include "statusview.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const cmd_fix_usage[] = {
	"VOLUME",
	"Rewrite out-of-date layouts, place misplaced files, verify and stamp directories clean.",
	"",
	"Makes the directories dirty first (a new volume commit hash, or commit word 1 on each",
	"directory of --path), gives each a complete layout over the current subvolumes, links",
	"every misplaced file from its hashed subvolume, verifies from fresh reads and only then",
	"stamps it clean; the top directory last. Then, with every directory clean, moves the",
	"data behind those links with DHT's own migration (--mode clean-first, the default).",
	"Refuses to start when a subvolume is down, a remove-brick runs, or another fix holds",
	"the volume.",
	"Exit status: 0 all clean, 1 some directories or files not fixed, 2 usage, 3 could not",
	"run, 4 stopped at the end of --until/--max-runtime with nothing failed (resumable),",
	"130 interrupted.",
	NULL,
};

/* Filled by the option parser from cmd_fix_options or cmd_drain_options. */
struct fix_cli fc_args = { .mode = LCTL_FIX_CLEAN_FIRST,
			   .settle = 5,
			   .hang_timeout = 1800,
			   .hold_limit = 1800,
			   .log_fd = -1 };

static const struct opt_word mode_words[] = {
	{ "clean-first", LCTL_FIX_CLEAN_FIRST },
	{ "migrate", LCTL_FIX_MIGRATE },
	{ "linkto", LCTL_FIX_LINKTO },
	{ NULL, 0 },
};

static const struct opt_word phase_words[] = {
	{ "all", LCTL_FIX_PHASE_ALL },
	{ "clean", LCTL_FIX_PHASE_CLEAN },
	{ "data", LCTL_FIX_PHASE_DATA },
	{ NULL, 0 },
};

const struct lopt cmd_fix_options[] = {
	FIX_COMMON_OPTIONS_WORKERS,
	OPT_VOLPATH(0, "path", &fc_args.o.path, "SUBTREE",
		    "fix only this directory and what is below it"),
	OPT_ENUM(0, "layout", &fc_args.planner, planner_words, "PLANNER",
		 "gluster (GlusterFS's own assignment, default), min-move, or\n"
		 "even-usage (min-move sized so that the bricks' fill comes out even)"),
	{ .name = "mode",
	  .kind = OPTK_ENUM,
	  .to.i = &fc_args.mode,
	  .words = mode_words,
	  .given = &fc_args.mode_given,
	  .arg = "MODE",
	  .help = "clean-first (default: every directory clean first, then the data\n"
		  "moved), migrate (data moved before each directory is stamped) or\n"
		  "linkto (move nothing)" },
	OPT_ENUM(0, "phase", &fc_args.phase, phase_words, "PHASE",
		 "of a clean-first run: all (default), clean (stop once every\n"
		 "directory is clean) or data (only move data in clean directories)"),
	OPT_FLAG(0, "force-move", &fc_args.o.force_move,
		 "migrate also files DHT keeps because the target would be left with\n"
		 "less free space than the source (cluster.min-free-disk still holds)"),
	OPT_FLAG('n', "dry-run", &fc_args.o.dry_run,
		 "print the plan (files and bytes per source -> target); write nothing"),
	OPT_FLAG(0, "resume", &fc_args.o.resume,
		 "continue the run recorded in the state directory's journal"),
	FIX_COMMON_OPTIONS_RUN,
	{ .name = "rsh",
	  .kind = OPTK_STRING,
	  .to.s = &fc_args.rsh,
	  .flags = OPTF_NONBLANK,
	  .what = "a command",
	  .arg = "CMD",
	  .complete = "@command",
	  .help = "remote shell to start a worker on each other server of the pool\n"
		  "(default ssh; split at spaces, as rsync's -e)" },
	{ .name = "remote-cmd",
	  .kind = OPTK_STRING,
	  .to.s = &fc_args.remote_cmd,
	  .flags = OPTF_NONBLANK,
	  .what = "a command",
	  .arg = "PATH",
	  .complete = "@file",
	  .help = "layoutctl on the other servers (default layoutctl)" },
	OPT_FLAG(0, "single-host", &fc_args.single_host,
		 "move every file from this host (no workers on other servers)"),
	OPT_FLAG(0, "retry-failed", &fc_args.retry_failed,
		 "move only the files whose latest outcome in the outcome log is\n"
		 "failed, without a walk: each one's directory is placed, verified\n"
		 "and stamped as a walk does (migrate mode, from this host)"),
	{ .name = "files-from",
	  .kind = OPTK_STRING,
	  .to.s = &fc_args.files_from,
	  .flags = OPTF_NONBLANK,
	  .what = "a file",
	  .arg = "FILE",
	  .complete = "@file",
	  .help = "as --retry-failed, for the files FILE lists (- for stdin): one\n"
		  "path a line, relative to the volume root" },
	OPT_FLAG('0', "null", &fc_args.files_nul,
		 "the paths of --files-from end with a NUL byte, not a newline"),
	FIX_COMMON_OPTION_DASHBOARD,
	OPT_HELP(),
	OPT_END(),
};

/* The options are parsed (cmd_fix_options, cmd_drain_options); check the operands and what
 * goes together. */
int parse_fix_args(const struct cmd *cmd, int argc, char **argv, struct fix_cli *fc)
{
	int ret = !fc->drain ? operands_check(cmd, argc, 1, "VOLUME")
		  : argc < 3 ? usage_error(cmd, "missing %s",
					   argc < 2 ? "VOLUME" : "the SUBVOLUME or BRICK to drain")
			     : -1;

	if (ret >= 0)
		return ret;
	fc->volume = argv[1];
	fc->drain_cmd = fc->drain;
	if (fc->drain) {
		fc->leaving = (const char *const *)argv + 2;
		fc->nleaving = (size_t)argc - 2;
		if (fc->commit && fc->o.dry_run)
			return usage_error(cmd, "--commit and --dry-run do not go together");
	}
	fc->o.planner = fc->planner;
	fc->o.mode = fc->mode;
	fc->o.phase = fc->phase;
	fc->o.settle_ms = fc->settle * 1000;
	fc->o.hang_timeout_s = fc->hang_timeout;
	fc->o.hold_limit_s = fc->hold_limit;
	fc->o.bytes_per_sec = fc->bandwidth * 1e6;
	fc->task_check = !fc->no_task_check;
	fc->gfapi_only = fc->brick_reads == BRICK_READS_GFAPI;
	/* the earlier of --max-runtime and --until */
	if (fc->max_runtime)
		fc->o.deadline = time(NULL) + (time_t)fc->max_runtime;
	if (fc->until && (!fc->o.deadline || fc->until < fc->o.deadline))
		fc->o.deadline = fc->until;
	if (fc->state_dir_arg)
		snprintf(fc->state_dir, sizeof(fc->state_dir), "%s", fc->state_dir_arg);
	if (check_volume_name(fc->volume))
		return usage_error(cmd, "invalid volume name '%s'", fc->volume);
	if (fc->o.resume && fc->o.dry_run)
		return usage_error(cmd, "--resume and --dry-run do not go together");
	if (fc->o.phase != LCTL_FIX_PHASE_ALL && fc->o.mode != LCTL_FIX_CLEAN_FIRST)
		return usage_error(cmd, "--phase goes with --mode clean-first only");
	if (fc->o.phase != LCTL_FIX_PHASE_ALL && fc->o.dry_run)
		return usage_error(cmd, "--phase and --dry-run do not go together");
	if (fc->o.resume && fc->mode_given)
		return usage_error(cmd, "--resume goes on in the journal's mode: drop --mode");
	if (fc->files_nul && !fc->files_from)
		return usage_error(cmd, "--null goes with --files-from only");
	if (fc->retry_failed || fc->files_from) {
		const char *opt = fc->retry_failed ? "--retry-failed" : "--files-from";

		if (fc->retry_failed && fc->files_from)
			return usage_error(cmd,
					   "--retry-failed and --files-from do not go together");
		if (fc->o.resume || fc->o.path || fc->o.phase != LCTL_FIX_PHASE_ALL)
			return usage_error(cmd, "%s does not go with --resume, --path or --phase",
					   opt);
		if (fc->mode_given && fc->o.mode != LCTL_FIX_MIGRATE)
			return usage_error(cmd, "%s moves files in migrate mode only", opt);
		fc->o.mode = LCTL_FIX_MIGRATE;
		fc->single_host = true; /* from this host: no walk for the workers to share */
		fc->dashboard = false;
	}
	if (!fc->state_dir[0])
		snprintf(fc->state_dir, sizeof(fc->state_dir), "/var/lib/layoutctl/%s", fc->volume);
	fc->o.state_dir = fc->state_dir;
	if (fc->log)
		snprintf(fc->log_path, sizeof(fc->log_path), "%s", fc->log);
	else
		snprintf(fc->log_path, sizeof(fc->log_path), "%s/outcomes.jsonl", fc->state_dir);
	return -1;
}

/* ---- a fix spread over the pool: what each server's worker is told ------------------------ */

/* The workers' command lines (lib/workerline.c), from the volume and these options. */
static int build_workers(const struct fix_cli *fc, struct lctl_volume *vol,
			 struct lctl_worker_lines *wl)
{
	struct lctl_worker_line_opts wo = { .volume = fc->volume,
					    .state_dir = fc->state_dir,
					    .rsh = fc->rsh,
					    .remote_cmd = fc->remote_cmd,
					    .servers = gopts.servers,
					    .nservers = gopts.nservers,
					    .glusterd_dir = gopts.glusterd_dir,
					    .parallel = fc->o.parallel,
					    .migrations = fc->o.migrations,
					    .files_per_sec = fc->o.files_per_sec,
					    .bytes_per_sec = fc->o.bytes_per_sec,
					    .hang_timeout_s = fc->o.hang_timeout_s,
					    .hold_limit_s = fc->o.hold_limit_s,
					    .gfapi_only = fc->gfapi_only };
	struct lctl_error err = { 0 };

	if (!lctl_worker_lines_build(vol, &wo, wl, &err))
		return 0;
	error("cannot fix '%s': %s", fc->volume, err.msg);
	return EXIT_CANTRUN;
}

/* "Fix" or "Drain" in the summary, and the command line that resumes the run. */
static char resume_cmd[2048];

static void set_resume_cmd(const struct fix_cli *fc)
{
	size_t n, i;

	n = (size_t)snprintf(resume_cmd, sizeof(resume_cmd), "layoutctl %s --resume %s",
			     fc->drain ? "drain" : "fix", fc->volume);
	for (i = 0; i < fc->nleaving && n < sizeof(resume_cmd); i++)
		n += (size_t)snprintf(resume_cmd + n, sizeof(resume_cmd) - n, " %s",
				      fc->leaving[i]);
}

/* ---- text: the same records through a table ------------------------------------------------ */

static const struct out_line fix_dir_lines[] = {
	{ NULL, NULL,
	  "{outcome:-10} {path}{reason?: ~{phase?: ~}}{phase?data phase: ~}"
	  "{reason?{reason}~}" },
	{ NULL, NULL, NULL },
};

static const struct out_line fix_summary_lines[] = {
	{ NULL, "dry_run", "Dry run on {$volume.name}: nothing was written." },
	{ NULL, "dry_run",
	  "Directories: {directories}, {directory_outcomes.planned} to fix, "
	  "{directory_outcomes.was-clean} already clean" },
	{ NULL, "dry_run", "Plan (--mode migrate):" },
	{ "plan", NULL, "  {from:-28} -> {to:-28} {files:8} files {bytes|bytes:12}" },
	{ NULL, "dry_run", "  total {plan_total.files} files, {plan_total.bytes|bytes}" },
	{ NULL, "dry_run&space",
	  "Space after the plan (free now -> after, of the subvolume's size; inodes the same):" },
	{ "space", NULL,
	  "  {subvolume:-28} {known?{free_now|bytes:10} -> {free_after|bytes:10} of "
	  "{size|bytes}, keeps {min_free|bytes}~size unknown}{crosses_min_free?: below "
	  "cluster.min-free-disk, about {refused_files} files ({refused_bytes|bytes}) would "
	  "stay where they are~}{inodes_known?; inodes free {inodes_free_now} -> "
	  "{inodes_free_after}, keeps {inodes_min_free}~}{crosses_min_free_inodes?: below "
	  "cluster.min-free-inodes, {inodes_refused_files} files past it (DHT creates new files "
	  "elsewhere then; its migration does not check inodes)~}" },
	{ NULL, "!dry_run",
	  "{$command|title} of {$volume.name}{clean_first.data_phase_ran?{directories?: "
	  "{directories} directories~, data phase: {clean_first.data_directories} "
	  "directories}~: {directories} directories} in {seconds:.1} s, commit hash "
	  "{commit}" },
	{ "directory_outcomes", "!^dry_run&.", "  {@:-16} {.}" },
	{ NULL, "!dry_run&clean_first.clean_after_seconds",
	  "Directories clean: all, {clean_first.clean_after_seconds:.1} s after the start"
	  "{clean_first.repaired_later? ({clean_first.repaired_later} of them repaired by the data "
	  "phase)~}" },
	{ NULL, "!dry_run&clean_first.clean_since&!clean_first.clean_after_seconds",
	  "Directories clean: all, since {clean_first.clean_since|localtime} (an earlier run of "
	  "this job{clean_first.repaired_later?; {clean_first.repaired_later} repaired by this "
	  "one~})" },
	{ NULL, "!dry_run&clean_first&!clean_first.clean_since&directories",
	  "Directories clean: not all (see above)" },
	{ NULL, "!dry_run&clean_first&!clean_first.clean_since&!directories",
	  "Directories clean: not all verified (this run began in the data phase)" },
	{ NULL, "!dry_run&clean_first.data_phase_ran",
	  "Data placed: {clean_first.data_placed} of {clean_first.data_directories} directories" },
	{ NULL, "!dry_run&clean_first&!clean_first.data_phase_ran&!stopped",
	  "Data placed: not started (run '{resume_command}')" },
	{ NULL, "!dry_run", "Files:" },
	{ "file_outcomes", "!^dry_run", "  {@:-16} {.}" },
	{ NULL, "!dry_run", "  moved            {bytes_moved|bytes}" },
	{ NULL, "!dry_run&name_outcomes",
	  "Names (a hard-linked file above is one file, all its names):" },
	{ "name_outcomes", "!^dry_run", "  {@:-16} {.}" },
	{ NULL, "!dry_run&skipped_by_reason",
	  "Skipped, by reason (each name in the outcome log):" },
	{ "skipped_by_reason", "!^dry_run", "  {files:8}  {reason}" },
	{ NULL, "!dry_run&skipped_other_reasons", "  {skipped_other_reasons:8}  other reasons" },
	{ NULL, "!dry_run&phase_seconds",
	  "Time (s): preflight {phase_seconds.preflight:.1}, dirty pass "
	  "{phase_seconds.layout:.1}, settle {phase_seconds.settle:.1}, walk "
	  "{phase_seconds.work:.1}, pool placing {phase_seconds.place:.1}, data phase "
	  "{phase_seconds.data:.1}, top {phase_seconds.top:.1}" },
	{ NULL, "!dry_run&step_seconds",
	  "Steps (s of this host's threads): inspect {step_seconds.inspect:.1}, layout "
	  "{step_seconds.layout:.1}, links {step_seconds.links:.1}, moves "
	  "{step_seconds.moves:.1}, verify {step_seconds.verify:.1}, stamp "
	  "{step_seconds.stamp:.1}" },
	{ NULL, "!dry_run&stopped",
	  "Stopped{deadline_reached? at the end of the time window~}"
	  "{held_too_long?, held too long: a subvolume did not come back~}: run "
	  "'{resume_command}' to finish." },
	{ NULL, NULL, NULL },
};

/* A fix spread over the pool: one row per server (as `layoutctl status` shows them). */
static const struct out_line fix_server_lines[] = {
	{ NULL, ".", STATUS_SERVER_HEADER },
	{ ".", NULL, STATUS_SERVER_ROW },
	{ NULL, NULL, NULL },
};

static const struct out_block fix_blocks[] = {
	{ "volume", NULL, NULL, false },
	{ "directories", NULL, fix_dir_lines, true },
	{ "summary", NULL, fix_summary_lines, false },
	{ "servers", NULL, fix_server_lines, false },
	{ NULL, NULL, NULL, false },
};

/* In JSON and XML only; in a dry run most of the summary is zero and text shows the plan. */
static const char *const fix_hidden[] = {
	"volume.path",
	"directories[].files",
	"directories[].bytes_moved",
	"summary.planned_moves@!summary.dry_run",
	"summary.mode",
	"servers[].seconds@!summary.dry_run",
	/* what each server's plans gave it to move: its row says what it moved */
	"servers[].plan_files",
	"servers[].plan_bytes",
	"servers[].plan_directories",
	"summary.deadline_reached@!summary.stopped", /* said in the "Stopped" line */
	"summary.seconds@summary.dry_run",
	"summary.commit@summary.dry_run",
	"summary.stopped@summary.dry_run",
	"summary.deadline_reached@summary.dry_run",
	"summary.directory_outcomes@summary.dry_run",
	"summary.file_outcomes@summary.dry_run",
	"summary.bytes_moved@summary.dry_run",
	"summary.skipped_by_reason@summary.dry_run",
	"summary.skipped_other_reasons@summary.dry_run",
	"summary.phase_seconds@summary.dry_run",
	"summary.step_seconds@summary.dry_run",
	/* the plan above says what arrives and leaves; text shows the space it leaves */
	"summary.space[].in_files",
	"summary.space[].in_bytes",
	"summary.space[].out_files",
	"summary.space[].out_bytes",
	NULL,
};

/* "fix" -> "Fix" */
static struct json_object *f_title(struct out_rctx *c, struct json_object *v)
{
	char t[32];

	(void)c;
	snprintf(t, sizeof(t), "%s", json_object_get_string(v) ? json_object_get_string(v) : "");
	t[0] = (char)toupper((unsigned char)t[0]);
	return json_object_new_string(t);
}

static const struct out_filter fix_filters[] = {
	{ "title", f_title },
	{ NULL, NULL },
};

const struct out_view fix_view = { "fix", fix_blocks, fix_hidden, fix_filters };
/* a drain's passes: the same records */
const struct out_view drain_view = { "drain", fix_blocks, fix_hidden, fix_filters };

static void note_errors(struct lctl_error_ring *er, const struct lctl_repair_report *rr)
{
	size_t i;

	if (rr->outcome == LCTL_DIR_NOT_FIXED)
		lctl_error_ring_add(er, "%s: %s", rr->path, rr->reason);
	for (i = 0; i < rr->nfiles; i++)
		if (rr->files[i].action == LCTL_FILE_FAILED)
			lctl_error_ring_add(er, "%s/%s: %s (%s)",
					    strcmp(rr->path, "/") ? rr->path : "",
					    rr->files[i].name,
					    rr->files[i].reason ? rr->files[i].reason : "failed",
					    strerror(rr->files[i].err));
}

/* The fix seen from the dashboard's keys and from `top`'s control file. */
struct fix_control {
	struct lctl_fix *fix;
	unsigned workers;
};

static void ctl_pause(void *arg, bool pause)
{
	struct fix_control *fc = arg;

	lctl_fix_pause(fc->fix, pause);
}

static void ctl_stop(void *arg)
{
	struct fix_control *fc = arg;

	lctl_fix_cancel(fc->fix);
}

/* the dashboard's rate keys: what the control file's "pace" word does (tick()) */
static int ctl_pace(void *arg, const struct lctl_pace *pace)
{
	struct fix_control *fc = arg;

	return lctl_fix_set_pace(fc->fix, pace) ? -1 : 0;
}

static int ctl_workers(void *arg, int delta)
{
	struct fix_control *fc = arg;
	int n = (int)fc->workers + delta;

	if (n < 1 || n > 64 || lctl_fix_set_workers(fc->fix, (unsigned)n))
		return -1;
	fc->workers = (unsigned)n;
	return 0;
}

/* Without a terminal, --dashboard prints one plain line every 10 seconds. */
static void plain_progress(const struct lctl_progress *p, const struct lctl_eta *e)
{
	static double last;
	char moves[128];

	if (p->elapsed - last < 10)
		return;
	last = p->elapsed;
	progress_moves(moves, sizeof(moves), p, e);
	fprintf(stderr,
		"progress: %.0fs dirs %llu/%llu files migrated %llu linked %llu skipped %llu failed %llu%s%s\n",
		p->elapsed, (unsigned long long)p->dirs_done, (unsigned long long)p->dirs_seen,
		(unsigned long long)p->file_actions[LCTL_FILE_MIGRATED],
		(unsigned long long)p->file_actions[LCTL_FILE_LINKED],
		(unsigned long long)p->file_actions[LCTL_FILE_SKIPPED],
		(unsigned long long)p->file_actions[LCTL_FILE_FAILED], moves,
		p->paused ? " [paused]" : "");
}

/*
 * Before the run starts (the volume opened, glusterd asked, the locks taken): the dashboard
 * at once, in phase preflight, saying what is being done.
 */
static void preflight_draw(struct dash *dash, const struct fix_cli *fc, double t0, const char *step)
{
	static struct lctl_progress p;
	struct lctl_rate_tracker rt = { 0 };
	struct lctl_status_info si = { "fix",
				       fc->volume,
				       fc->o.path,
				       fc->o.resume ? "-" : lctl_fix_mode_name(fc->o.mode),
				       lctl_planner_name(fc->o.planner),
				       "running",
				       "preflight",
				       fc->o.dry_run,
				       time(NULL),
				       -1,
				       step };
	struct json_object *js;

	if (!dash)
		return;
	p.phase = "preflight";
	p.elapsed = lctl_mono_seconds() - t0;
	js = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	dash_draw(dash, js);
	json_object_put(js);
}

/*
 * Once a second: publish the status, obey the control file, redraw the dashboard; between
 * seconds, wait for keys. Returns true when a second has passed (time for progress output).
 */
static bool tick(const struct fix_cli *fc, struct lctl_fix *fix, const struct lctl_progress *p,
		 struct lctl_status_info *si, struct lctl_rate_tracker *rt,
		 struct lctl_share_tracker *share, struct lctl_error_ring *errs, struct dash *dash,
		 bool stopping)
{
	static struct fix_control ctl;
	static double last = -1;
	static const char *last_phase;
	struct dash_ops ops = { ctl_pause, ctl_stop, ctl_workers, &ctl, ctl_pace };
	const struct lctl_fix_summary *sum = lctl_fix_summary(fix);
	struct json_object *js;
	struct lctl_control_arg ca = { 0 };

	ctl.fix = fix;
	if (!ctl.workers)
		ctl.workers = fc->o.parallel ? fc->o.parallel : LCTL_FIX_DEFAULT_PARALLEL;
	if (dash)
		dash_key(dash, 200, &ops);
	if (p->elapsed - last < 1.0)
		return false;
	last = p->elapsed;
	/* each phase counts its own directories: rates and ETA start afresh with it */
	if (p->phase && (!last_phase || strcmp(p->phase, last_phase))) {
		memset(rt, 0, sizeof(*rt));
		last_phase = p->phase;
	}
	lctl_rate_sample(rt, p->elapsed, p->dirs_done,
			 p->file_actions[LCTL_FILE_MIGRATED] + p->file_actions[LCTL_FILE_LINKED],
			 p->bytes_moved);
	si->state = stopping || sum->stopped ? "stopping"
		    : p->paused		     ? "paused"
		    : p->held		     ? "held"
					     : "running";
	if (!fc->o.dry_run) {
		switch (lctl_control_take(fc->state_dir, &ca)) {
		case LCTL_CONTROL_PAUSE:
			ctl_pause(&ctl, true);
			break;
		case LCTL_CONTROL_RESUME:
			ctl_pause(&ctl, false);
			break;
		case LCTL_CONTROL_STOP:
			ctl_stop(&ctl);
			break;
		case LCTL_CONTROL_WORKERS:
			ctl_workers(&ctl, ca.workers - (int)ctl.workers);
			break;
		case LCTL_CONTROL_PACE:
			/* `layoutctl set`: the new pace from now on, the pool's workers too */
			lctl_fix_set_pace(fix, &ca.pace);
			break;
		default:
			break;
		}
	}
	js = lctl_status_build(si, p, sum, rt, share, errs);
	if (!fc->o.dry_run)
		lctl_status_write(fc->state_dir, js, NULL);
	fix_publish(fc, p, si);
	if (dash)
		dash_draw(dash, js);
	json_object_put(js);
	return true;
}

/*
 * The dashboard from the first second: before the volume is opened, so that it shows each step
 * (nothing is written yet if the terminal cannot be driven). Messages meanwhile are kept and
 * printed when it closes. NULL without --dashboard.
 */
struct dash *dash_first(const struct fix_cli *fc, double t0)
{
	struct dash *dash = NULL;
	const char *why;

	if (fc->dashboard && !(dash = dash_open(&why)))
		warning("--dashboard %s: printing progress lines instead", why);
	preflight_draw(dash, fc, t0, "connecting to the volume");
	return dash;
}

/*
 * Before the run starts: glusterd asked whether a rebalance runs, and the workers of a run
 * spread over the pool given their command lines (in @opts, built into @workers).
 */
static int fix_prepare(struct fix_cli *fc, struct lctl_volume *vol, struct dash *dash, double t0,
		       struct lctl_fix_opts *opts, struct lctl_worker_lines *workers)
{
	int ret;

	if (!fc->o.dry_run && fc->task_check) {
		preflight_draw(dash, fc, t0,
			       "asking glusterd whether a rebalance or remove-brick runs");
		ret = check_gluster_tasks(fc->volume);
		if (!ret)
			ret = check_compat(fc->volume, fc->force_compat);
		if (ret)
			return ret;
	}
	/* after the checks: a run refused there never leaves a metrics file saying it runs */
	ret = fix_prelude(fc, vol);
	if (ret)
		return ret;
	opts->settle_ms = fc->o.settle_ms; /* as fix_prelude() derived it */
	/* data moves where it lives: a worker on every server that holds bricks (not a drain's:
	 * only this host's DHT graph has the leaving subvolumes decommissioned) */
	if (!fc->single_host && !fc->o.dry_run && !fc->drain &&
	    (fc->o.mode == LCTL_FIX_MIGRATE ||
	     (fc->o.mode == LCTL_FIX_CLEAN_FIRST && fc->o.phase != LCTL_FIX_PHASE_CLEAN)) &&
	    (lctl_volume_nservers(vol) > 1 ||
	     (lctl_volume_nservers(vol) == 1 && !lctl_volume_server_at(vol, 0)->mine))) {
		ret = build_workers(fc, vol, workers);
		if (ret)
			return ret;
		opts->workers = workers->spec;
		opts->nworkers = workers->n;
		verbose(2, "fix spread over %zu servers", workers->n);
	}
	if (!lctl_volume_dht_options(vol)->lookup_optimize)
		warning("cluster.lookup-optimize is off on '%s': stamped directories still fan out "
			"on every miss until it is on",
			fc->volume);
	verbose(2, "%s: making directories dirty, then %u s to settle",
		fc->o.dry_run ? "dry run" : "fix", fc->o.dry_run ? 0 : fc->o.settle_ms / 1000);
	opts->stop_flag = &interrupted;
	return 0;
}

/* One started run as it is shown: its records, its status, the terminal (fix_run()). */
struct fix_show {
	const struct fix_cli *fc;
	struct lctl_volume *vol;
	struct lctl_fix *fix;
	struct dash *dash;
	struct out *o;
	bool machine;
	int log;
	bool log_failed;
	struct progress_line pl;
	struct lctl_progress p;
	struct lctl_share_tracker share;
	struct lctl_rate_tracker rt;
	struct lctl_error_ring errs;
	struct lctl_status_info si;
};

/* The outcome log, the trackers, the status and the document, once the run started. */
static void show_open(struct fix_show *s)
{
	const struct fix_cli *fc = s->fc;
	struct json_object *v = json_object_new_object();

	if (fc->log_fd >= 0) {
		s->log =
			fc->log_fd; /* --log: its caller opened it before the volume, and closes it */
	} else if (!fc->o.dry_run) {
		struct lctl_error lerr = { 0 };

		s->log = lctl_outcome_log_open(fc->state_dir, NULL, &lerr);
		if (s->log < 0)
			warning("cannot open the outcome log '%s': %s", fc->log_path, lerr.msg);
	}
	/* the pool's workers send their outcomes: into the same log */
	lctl_fix_set_outcome_log(s->fix, s->log);
	progress_init(&s->pl);
	lctl_share_init(&s->share, s->vol);
	s->si = (struct lctl_status_info){ fc->drain ? "drain" : "fix",
					   fc->volume,
					   fc->o.path,
					   lctl_fix_mode_name(lctl_fix_summary(s->fix)->mode),
					   lctl_planner_name(fc->o.planner),
					   "running",
					   "work",
					   fc->o.dry_run,
					   time(NULL),
					   -1,
					   NULL };
	s->o = out_open_view(gopts.format, stdout, fc->drain ? "drain" : "fix",
			     fc->drain ? &drain_view : &fix_view);
	json_object_object_add(v, "name", json_object_new_string(fc->volume));
	json_object_object_add(v, "path", out_name(fc->o.path ? fc->o.path : "/"));
	out_member(s->o, "volume", v);
	out_list_begin(s->o, "directories");
}

/* A directory's report: logged, counted for the status, shown when it says something. */
static void show_report(struct fix_show *s, struct lctl_repair_report *rr)
{
	bool show = rr->outcome != LCTL_DIR_WAS_CLEAN && rr->outcome != LCTL_DIR_FIXED;

	if (lctl_outcome_log_append(s->log, s->vol, rr))
		s->log_failed = true;
	lctl_share_add(&s->share, rr);
	note_errors(&s->errs, rr);
	if (s->machine && (show || gopts.verbosity >= 2)) {
		out_item(s->o, fix_dir_json(rr));
	} else if (!s->machine && !s->dash &&
		   (gopts.verbosity >= 2 || (show && rr->outcome != LCTL_DIR_PLANNED))) {
		progress_clear(&s->pl);
		out_item(s->o, fix_dir_json(rr));
	}
	lctl_repair_report_free(rr);
}

/* The run to its end: each report shown, the status and the terminal kept up every second. */
static void show_loop(struct fix_show *s)
{
	bool fin = false, stopping = false;
	struct lctl_eta eta;

	while (!fin) {
		struct lctl_repair_report *rr = lctl_fix_next(s->fix, s->dash ? 0 : 200, &fin);

		if (interrupted && !stopping) {
			stopping = true;
			lctl_fix_cancel(s->fix);
		}
		if (rr)
			show_report(s, rr);
		lctl_fix_progress(s->fix, &s->p);
		if (!tick(s->fc, s->fix, &s->p, &s->si, &s->rt, &s->share, &s->errs, s->dash,
			  stopping))
			continue;
		if (s->dash)
			continue; /* the dashboard owns the terminal */
		lctl_status_eta(&s->p, &s->rt, true, &eta);
		if (s->fc->dashboard)
			plain_progress(&s->p, &eta);
		else
			progress_update(&s->pl, s->fc->o.dry_run ? "planning" : "fixing", &s->p,
					&eta);
	}
	if (s->dash) {
		dash_close(s->dash);
		s->dash = NULL;
	}
	progress_clear(&s->pl);
}

/*
 * Stopped by its time window (--until, --max-runtime) with nothing failed and no directory
 * left not fixed: a run on schedule, which --resume goes on with (EXIT_WINDOW).
 */
static bool on_schedule(const struct lctl_fix_summary *sum)
{
	return sum->stopped && sum->deadline_hit && !sum->held_out &&
	       !sum->files[LCTL_FILE_FAILED] && !sum->dir_outcome[LCTL_DIR_NOT_FIXED];
}

/* The run ended: its summary, the servers, its last status. Return: the exit status. */
static int show_end(struct fix_show *s, struct fix_cli *fc)
{
	struct lctl_error err = { 0 };
	const struct lctl_fix_summary *sum;
	int ret;

	lctl_fix_progress(s->fix, &s->p);
	ret = lctl_fix_end(s->fix, &err);
	sum = lctl_fix_summary(s->fix);
	fc->not_fixed = sum->dir_outcome[LCTL_DIR_NOT_FIXED] + sum->dir_outcome[LCTL_DIR_STOPPED];
	fc->stopped = sum->stopped;
	fc->failed = sum->files[LCTL_FILE_FAILED];
	s->si.state = ret < 0 ? "failed" : sum->stopped ? "stopped" : "finished";
	s->si.phase = "done";
	out_list_end(s->o);
	/* a run refused before anything was done has nothing to sum up */
	if ((s->machine || gopts.verbosity >= 1) && !sum->refused)
		out_member(s->o, "summary",
			   fix_summary_json(s->vol, sum, s->p.elapsed, fc->o.dry_run, resume_cmd));
	if (s->p.nservers)
		out_member(s->o, "servers", lctl_status_servers_json(&s->p));
	if (ret < 0 && sum->refused)
		out_close(s->o, -1, err.sys_errno, err.msg);
	else
		out_close(s->o, 0, 0, NULL);
	if (ret < 0) {
		if (sum->refused)
			error("cannot fix '%s': %s", fc->volume, err.msg);
		else
			error("%s", err.msg);
		ret = EXIT_CANTRUN;
	} else if (interrupted) {
		ret = EXIT_INTERRUPTED;
	} else {
		ret = !ret ? EXIT_CLEAN : on_schedule(sum) ? EXIT_WINDOW : EXIT_PROBLEMS;
	}
	if (!fc->o.dry_run) {
		struct json_object *js;

		s->si.exit_code = ret;
		js = lctl_status_build(&s->si, &s->p, sum, &s->rt, &s->share, &s->errs);
		lctl_status_write(fc->state_dir, js, NULL);
		json_object_put(js);
	}
	fix_publish(fc, &s->p, &s->si);
	lctl_share_release(&s->share);
	return ret;
}

/*
 * One fix (or drain pass) on the opened @vol; it closes @dash (dash_first()), if any. What it
 * ended with goes into @fc's not_fixed, failed and stopped.
 */
int fix_run(struct fix_cli *fc, struct lctl_volume *vol, struct dash *dash, double t0)
{
	struct lctl_fix_opts opts = fc->o; /* and the workers, the stop flag */
	struct lctl_worker_lines workers = { 0 };
	struct fix_show s = { .fc = fc,
			      .vol = vol,
			      .dash = dash,
			      .machine = gopts.format == FMT_JSON || gopts.format == FMT_XML,
			      .log = -1 };
	struct lctl_error err = { 0 };
	int ret;

	set_resume_cmd(fc);
	ret = fix_prepare(fc, vol, dash, t0, &opts, &workers);
	if (ret) {
		dash_close(dash);
		lctl_worker_lines_free(&workers);
		return ret;
	}
	preflight_draw(dash, fc, t0, "checking the subvolumes, taking the locks");
	ret = lctl_fix_start(vol, &opts, &s.fix, &err);
	if (ret) {
		/* the message may quote a --path as typed: error() escapes it */
		error("cannot fix '%s': %s", fc->volume, err.msg[0] ? err.msg : lctl_strerror(ret));
		ret = exit_for_error(ret) == EXIT_USAGE && !fc->o.resume ? EXIT_USAGE
									 : EXIT_CANTRUN;
	} else {
		show_open(&s);
		show_loop(&s);
		ret = show_end(&s, fc);
	}
	fix_publish_end(fc, ret); /* a run refused after fix_prelude(): its end */
	dash_close(s.dash);
	if (s.fix && lctl_fix_outcome_log_failed(s.fix))
		s.log_failed = true;
	lctl_fix_set_outcome_log(s.fix, -1);
	if (s.log >= 0 && ((s.log != fc->log_fd && close(s.log)) || s.log_failed))
		warning("cannot write the outcome log '%s'", fc->log_path);
	if (lctl_fix_hung(s.fix)) {
		/* a thread is still inside GlusterFS: closing the volume could wait for ever */
		fflush(NULL);
		_exit(ret);
	}
	lctl_fix_free(s.fix);
	lctl_worker_lines_free(&workers);
	return ret;
}

/*
 * A --log, opened before the volume is (and before the state directory is made): one that is
 * refused (lctl_output_open()) stops the command before anything is written. A dry run
 * writes none.
 */
int named_log_open(struct fix_cli *fc)
{
	struct lctl_error err = { 0 };

	if (!fc->log || fc->o.dry_run)
		return EXIT_CLEAN;
	fc->log_fd = lctl_outcome_log_open(NULL, fc->log, &err);
	if (fc->log_fd < 0) {
		error("cannot open the outcome log '%s': %s", fc->log, err.msg);
		return EXIT_CANTRUN;
	}
	return EXIT_CLEAN;
}

void named_log_close(struct fix_cli *fc)
{
	if (fc->log_fd >= 0 && close(fc->log_fd))
		warning("cannot write the outcome log '%s'", fc->log);
	fc->log_fd = -1;
}

/*
 * The listed files (--retry-failed, --files-from), directory by directory: one run of the fix
 * for each, its scope the directory alone and only its listed names placed. Each run takes the
 * locks, so another run holding them refuses the first. Stops at the first run that could not
 * run or was interrupted, or that ended its time window.
 */
static int fix_listed(struct fix_cli *fc, struct lctl_volume *vol, double t0)
{
	struct listed_dirs ld;
	int ret = listed_open(fc, &ld), worst = EXIT_CLEAN;

	if (ret)
		return ret;
	while ((ret = listed_next(&ld, &fc->o)) > 0) {
		verbose(1, "%zu listed files in '%s'", ld.cur.n, ld.dir);
		ret = fix_run(fc, vol, NULL, t0);
		worst = exit_worse(worst, ret);
		if (ret == EXIT_CANTRUN || ret == EXIT_INTERRUPTED || ret == EXIT_USAGE ||
		    ret == EXIT_WINDOW || interrupted)
			break;
	}
	if (ret < 0)
		worst = exit_worse(worst, EXIT_CANTRUN);
	if (!ld.l.n)
		verbose(0, "no files to move: %s",
			fc->retry_failed ? "no failed file in the outcome log"
					 : "the list is empty");
	listed_close(&ld, &fc->o);
	return worst;
}

int cmd_fix(const struct cmd *cmd, int argc, char **argv)
{
	struct fix_cli fc = fc_args;
	struct lctl_volume *vol = NULL;
	struct dash *dash;
	double t0 = lctl_mono_seconds();
	int ret = parse_fix_args(cmd, argc, argv, &fc);

	if (ret >= 0)
		return ret;
	ret = named_log_open(&fc);
	if (ret)
		return ret;
	dash = dash_first(&fc, t0);
	/* a run that holds while the volume is not whole asks each brick of a set (health.c) */
	ret = open_volume(fc.volume,
			  (fc.gfapi_only ? OPEN_SUBVOLS : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS) |
				  (fc.hold_limit && !fc.o.dry_run ? OPEN_BRICK_HEALTH : 0),
			  &vol);
	if (ret) {
		dash_close(dash);
		named_log_close(&fc);
		return ret;
	}
	if (fc.retry_failed || fc.files_from) {
		dash_close(dash);
		ret = fix_listed(&fc, vol, t0);
	} else {
		ret = fix_run(&fc, vol, dash, t0);
	}
	lctl_volume_close(vol, false);
	named_log_close(&fc);
	return finish_stdout(ret);
}
