/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl drain VOLUME SUBVOLUME|BRICK...: empty subvolumes, then remove them. The policy is
 * the library's (lctl_drain_run()); here the command line, each fix run shown as `layoutctl
 * fix` shows it (fix_run()), and the drain's events in words.
 */
#include "cli.h"
#include "dashboard.h"
#include "fixcli.h"
#include "msg.h"
#include "output.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>

const char *const cmd_drain_usage[] = {
	"VOLUME SUBVOLUME|BRICK...",
	"Empty DHT subvolumes while the volume stays online, then remove them safely.",
	"",
	"A fix run whose layouts give the leaving subvolumes (a brick of a pure distribute volume",
	"as HOST:/PATH, or a whole replica or disperse set: its name or all of its bricks) no",
	"range: directories made dirty, new layouts, every file on them moved with DHT's own",
	"migration (hard links too: our client has them decommissioned), their linkto files",
	"removed, verified, stamped. Then their bricks are read: once nothing but directories and",
	"GlusterFS's internal folders is left, the 'gluster volume remove-brick VOLUME BRICK...",
	"force' that is now safe is printed; --commit runs it after checking again, then fixes",
	"what the remove changed. Refuses while a rebalance or remove-brick runs.",
	"Exit status: 0 drained (and removed, with --commit), 1 something left or not fixed (or",
	"stopped: resumable), 2 usage, 3 could not run (not enough space, glusterd refused the",
	"remove-brick), 4 stopped at the end of --until/--max-runtime with nothing failed",
	"(resumable), 130 interrupted.",
	NULL,
};

/* Drain's own default planner: min-move takes the leaving ranges and moves nothing else. */
static int drain_planner = LCTL_PLANNER_MINMOVE;

const struct lopt cmd_drain_options[] = {
	FIX_COMMON_OPTIONS_WORKERS,
	OPT_ENUM(0, "layout", &drain_planner, planner_words, "PLANNER",
		 "min-move (default: only the leaving ranges change owner), gluster\n"
		 "(GlusterFS's own decommission layout) or even-usage (min-move sized\n"
		 "so that the remaining bricks' fill comes out even)"),
	OPT_FLAG(0, "commit", &fc_args.commit,
		 "run the remove-brick once the bricks are empty, then fix what it changed"),
	OPT_FLAG('n', "dry-run", &fc_args.o.dry_run,
		 "print the plan (files and bytes per source -> target) and the space\n"
		 "check; write nothing"),
	OPT_FLAG(0, "resume", &fc_args.o.resume,
		 "continue the drain recorded in the state directory's journal"),
	FIX_COMMON_OPTIONS_RUN,
	FIX_COMMON_OPTION_DASHBOARD,
	OPT_HELP(),
	OPT_END(),
};

/* The drain as the library runs it: its command line, and the dashboard of its first run. */
struct drain_ctx {
	struct fix_cli *fc;
	struct lctl_volume *vol;
	struct dash *dash; /* dash_first()'s, for the first fix run; NULL once it took it */
	double t0;
	unsigned runs;
	bool window; /* the last fix run stopped on schedule (EXIT_WINDOW) */
};

static int drain_status(int exit_code)
{
	switch (exit_code) {
	case EXIT_CLEAN:
		return LCTL_DRAIN_DONE;
	case EXIT_PROBLEMS:
	case EXIT_WINDOW: /* stopped: drain_run() notes that it was on schedule */
		return LCTL_DRAIN_PROBLEMS;
	case EXIT_USAGE:
		return LCTL_DRAIN_USAGE;
	case EXIT_INTERRUPTED:
		return LCTL_DRAIN_INTERRUPTED;
	default:
		return LCTL_DRAIN_CANTRUN;
	}
}

static int drain_exit(int status)
{
	switch (status) {
	case LCTL_DRAIN_DONE:
		return EXIT_CLEAN;
	case LCTL_DRAIN_PROBLEMS:
		return EXIT_PROBLEMS;
	case LCTL_DRAIN_USAGE:
		return EXIT_USAGE;
	case LCTL_DRAIN_INTERRUPTED:
		return EXIT_INTERRUPTED;
	default:
		return EXIT_CANTRUN;
	}
}

/* One fix run of the drain (@after_remove: the fix of the new membership), shown as fix's. */
static void drain_run(void *arg, struct lctl_volume *vol, const struct lctl_fix_opts *o,
		      bool after_remove, struct lctl_drain_pass *out)
{
	struct drain_ctx *c = arg;
	struct fix_cli fc = *c->fc;
	struct dash *dash = NULL;
	double t0;
	int ret;

	fc.o = *o;
	if (after_remove) {
		/* a plain fix: the new membership has nothing leaving */
		fc.drain = false;
		fc.leaving = NULL;
		fc.nleaving = 0;
		t0 = lctl_mono_seconds();
	} else if (!c->runs++) {
		dash = c->dash;
		t0 = c->t0;
		c->dash = NULL;
	} else {
		t0 = lctl_mono_seconds();
		dash = dash_first(&fc, t0);
	}
	ret = fix_run(&fc, vol, dash, t0);
	out->status = drain_status(ret);
	c->window = ret == EXIT_WINDOW;
	out->not_fixed = fc.not_fixed;
	out->failed = fc.failed;
	out->stopped = fc.stopped;
}

/* After the remove-brick: the volume again, as glusterd serves it now. */
static int drain_reopen(void *arg, struct lctl_volume **out)
{
	const struct fix_cli *fc = ((struct drain_ctx *)arg)->fc;

	return drain_status(
		open_volume(fc->volume,
			    fc->gfapi_only ? OPEN_SUBVOLS : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS, out));
}

/*
 * Drained: the remove-brick that is now safe. Printed without --commit; with it, the one run
 * next (-v or more, and the default verbosity).
 */
static void say_drained(const struct fix_cli *fc, const struct lctl_drain_event *ev)
{
	/* stdout holds the run's document in the other formats: the lines go to stderr */
	FILE *f = gopts.format == FMT_TEXT ? stdout : stderr;
	size_t i;

	if (gopts.verbosity < 1 && fc->commit)
		return;
	fprintf(f, "Drained: nothing but directories is left on");
	for (i = 0; i < ev->nbricks; i++)
		fprintf(f, " %s", out_esc(ev->bricks[i]));
	if (fc->commit) {
		fprintf(f, ".\nRunning: gluster volume remove-brick %s", out_esc(fc->volume));
		for (i = 0; i < ev->nbricks; i++)
			fprintf(f, " %s", out_esc(ev->bricks[i]));
		fprintf(f, " force\n");
	} else {
		/*
		 * Not the remove-brick itself: run later, without the lock and the check before
		 * it, it would take whatever a fix or a client put there since.
		 */
		fprintf(f, ".\nTo remove them: layoutctl drain --commit %s", out_esc(fc->volume));
		for (i = 0; i < fc->nleaving; i++)
			fprintf(f, " %s", out_esc(fc->leaving[i]));
		fprintf(f, " (checks them again, under the volume lock, then removes them)\n");
	}
}

/*
 * The plan gives one staying subvolume more than it has room for (bytes or inodes), though
 * the others together may have plenty: the one line names it, with the numbers of the plan.
 */
static void no_room_on(struct lctl_volume *vol, const char *name, const struct lctl_drain_space *s)
{
	const struct lctl_fill *f = &s->fill[s->over];
	const char *sv = out_esc(out_subvol_name(vol, (int)s->over));
	char in[32], room[32];

	if (f->crosses) {
		human_bytes(f->in_bytes, in, sizeof(in));
		human_bytes(f->free_now > f->min_free ? f->free_now - f->min_free : 0, room,
			    sizeof(room));
		error("cannot drain '%s': the plan moves %s in %llu files to %s, which has only %s "
		      "free above cluster.min-free-disk (%s)",
		      name, in, (unsigned long long)f->in_files, sv, room,
		      s->min_free_disk ? s->min_free_disk : "10%");
	} else {
		/* DHT's migration would move them: layoutctl refuses, DHT's create avoids it */
		error("cannot drain '%s': the plan moves %llu files to %s, which has only %llu "
		      "free inodes above cluster.min-free-inodes (%s); DHT would create no new "
		      "file there after (its migration does not check inodes: this check does)",
		      name, (unsigned long long)f->in_files, sv,
		      (unsigned long long)(f->inodes_free_now > f->inodes_min_free
						   ? f->inodes_free_now - f->inodes_min_free
						   : 0),
		      s->min_free_inodes ? s->min_free_inodes : "5%");
	}
}

/* What the drain tells, in words. */
static void drain_event(void *arg, const struct lctl_drain_event *ev)
{
	struct drain_ctx *c = arg;
	const struct fix_cli *fc = c->fc;
	const char *name = lctl_volume_name(c->vol);
	char b1[32], b2[32];
	size_t i;

	/* a refusal before the first run: the dashboard opened for it gives the terminal back */
	if (c->dash && ev->kind != LCTL_DRAIN_EV_SPACE) {
		dash_close(c->dash);
		c->dash = NULL;
	}
	switch (ev->kind) {
	case LCTL_DRAIN_EV_SPACE:
	case LCTL_DRAIN_EV_NO_ROOM:
		human_bytes(ev->space->bytes, b1, sizeof(b1));
		human_bytes(ev->space->room, b2, sizeof(b2));
		if (ev->kind == LCTL_DRAIN_EV_SPACE)
			verbose(gopts.format == FMT_TEXT && fc->o.dry_run ? 1 : 2,
				"Space: %s in %llu files on the leaving subvolumes, %s free above "
				"cluster.min-free-disk (%s) on the others",
				b1, (unsigned long long)ev->space->entries, b2,
				ev->space->min_free_disk ? ev->space->min_free_disk : "10%");
		else if (ev->space->over >= 0)
			no_room_on(c->vol, name, ev->space);
		else
			error("cannot drain '%s': %s to move, but only %s free above "
			      "cluster.min-free-disk on the remaining subvolumes",
			      name, b1, b2);
		break;
	case LCTL_DRAIN_EV_SPACE_UNKNOWN:
		error("cannot drain '%s': cannot tell how much is on the leaving subvolumes: '%s': %s",
		      name, ev->path, strerror(ev->err));
		break;
	case LCTL_DRAIN_EV_LOCK:
		error("cannot drain '%s': %s", fc->volume, ev->msg);
		break;
	case LCTL_DRAIN_EV_FAILED:
		error("%s", ev->msg);
		break;
	case LCTL_DRAIN_EV_PASS:
		verbose(1, "%llu directories not finished: pass %d after %u s",
			(unsigned long long)ev->count, ev->pass, ev->seconds);
		break;
	case LCTL_DRAIN_EV_UNREADABLE:
		error("cannot tell whether the leaving subvolumes are empty %s: '%s': %s", ev->when,
		      ev->path, strerror(ev->err));
		break;
	case LCTL_DRAIN_EV_LEFT:
		error("%llu entries are still on the leaving subvolumes %s (first: '%s'): not "
		      "removing them",
		      (unsigned long long)ev->count, ev->when,
		      ev->left->nsamples ? ev->left->samples[0] : "?");
		for (i = 1; i < ev->left->nsamples; i++)
			verbose(1, "  also left: '%s'", ev->left->samples[i]);
		break;
	case LCTL_DRAIN_EV_EMPTY:
		verbose(2, "leaving subvolumes empty %s (%zu subvolumes, %zu bricks read directly)",
			ev->when, ev->left->nsubvols, ev->left->bricks_read);
		break;
	case LCTL_DRAIN_EV_DRAINED:
		say_drained(fc, ev);
		break;
	case LCTL_DRAIN_EV_NO_GLUSTER:
		error("cannot remove the bricks: no gluster CLI here");
		break;
	case LCTL_DRAIN_EV_BAD_BRICK:
		error("cannot remove the bricks: the volfile names a brick '%s'", ev->path);
		break;
	case LCTL_DRAIN_EV_TASKS:
		tasks_refused(ev->tasks, ev->gluster, fc->volume);
		break;
	case LCTL_DRAIN_EV_LOCK_LOST:
		error("cannot remove the bricks: the volume lock of '%s' is no longer this drain's",
		      fc->volume);
		break;
	case LCTL_DRAIN_EV_REMOVE_FAILED:
		error("gluster volume remove-brick '%s' failed: %s", fc->volume, ev->msg);
		break;
	case LCTL_DRAIN_EV_REMOVED:
		verbose(1, "Removed %zu bricks from '%s'", ev->nbricks, fc->volume);
		break;
	case LCTL_DRAIN_EV_STILL_SERVED:
		error("glusterd still serves '%s' with the removed bricks", fc->volume);
		break;
	case LCTL_DRAIN_EV_SCAN_FAILED:
		error("cannot scan '%s' after the remove: %s", fc->volume, ev->msg);
		break;
	case LCTL_DRAIN_EV_AFTER_SCAN:
		verbose(1, "After the remove: %llu directories, %llu clean",
			(unsigned long long)ev->count, (unsigned long long)ev->count2);
		break;
	}
}

int cmd_drain(const struct cmd *cmd, int argc, char **argv)
{
	struct fix_cli fc = fc_args;
	struct drain_ctx c = { &fc, NULL, NULL, lctl_mono_seconds(), 0, false };
	struct lctl_drain_job job = { 0 };
	int ret;

	fc.drain = true;
	fc.mode = LCTL_FIX_MIGRATE;
	fc.planner = drain_planner;
	ret = parse_fix_args(cmd, argc, argv, &fc);
	if (ret >= 0)
		return ret;
	ret = named_log_open(&fc);
	if (ret)
		return ret;
	c.dash = dash_first(&fc, c.t0);
	ret = open_volume_leaving(fc.volume,
				  fc.gfapi_only ? OPEN_SUBVOLS : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS,
				  fc.leaving, fc.nleaving, &c.vol);
	if (ret) {
		dash_close(c.dash);
		named_log_close(&fc);
		return ret;
	}
	job.fix = fc.o;
	job.fix.stop_flag = &interrupted;
	job.commit = fc.commit;
	job.task_check = fc.task_check;
	job.run = drain_run;
	job.reopen = drain_reopen;
	job.event = drain_event;
	job.arg = &c;
	ret = drain_exit(lctl_drain_run(c.vol, &job));
	/* stopped at the end of its window with nothing failed: on schedule, as for fix */
	if (ret == EXIT_PROBLEMS && c.window)
		ret = EXIT_WINDOW;
	dash_close(c.dash); /* still open when the drain ended before its first run */
	lctl_volume_close(c.vol, false);
	named_log_close(&fc);
	return finish_stdout(ret);
}
