/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A drain's policy (lctl_drain_run()): the space check, the fix runs with the leaving
 * subvolumes decommissioned, the final checks, the remove-brick and the fix of the new
 * membership after it. The caller runs each fix (its progress, records and dashboard are the
 * caller's to show) and words every event; nothing here prints.
 *
 * The locks a fix takes are held from before the first fix run through every pass, the
 * settle periods between them, the final check, the remove-brick and the fix after it: no
 * other run (a fix from another state directory, a maintenance timer on another server) may
 * give the leaving subvolumes ranges again in between, nor move files onto them.
 */
#include "glustercli.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Status "not decided yet": the space check passed, the first fix run is next. */
#define GO_ON (-1)

static bool stopped(const struct lctl_drain_job *job)
{
	return job->fix.stop_flag && *job->fix.stop_flag;
}

static void emit(const struct lctl_drain_job *job, struct lctl_drain_event ev)
{
	if (job->event)
		job->event(job->arg, &ev);
}

/*
 * Each subvolume under the plan the drain will use: a scan with its planner (the leaving
 * subvolumes get no range there, as in the drain's fix runs) gives the files and bytes by
 * source and target, and lctl_fill_project() what each subvolume keeps free after them.
 */
static int project(struct lctl_volume *vol, enum lctl_planner planner, unsigned parallel,
		   const volatile sig_atomic_t *stop, struct lctl_drain_space *out,
		   struct lctl_error *err)
{
	struct lctl_scan_opts so = { 0 };
	struct lctl_scan *scan = NULL;
	const struct lctl_scan_summary *sum;
	struct lctl_dir_report *r;
	bool fin = false;
	size_t i;
	int ret;

	so.parallel = parallel;
	so.planner = planner;
	so.max_depth = -1;
	ret = lctl_scan_start(vol, &so, &scan, err);
	if (ret)
		return ret;
	while (!fin && !(stop && *stop)) {
		r = lctl_scan_next(scan, 200, &fin);
		if (r && r->err)
			out->scan_errors++;
		lctl_dir_report_free(r);
	}
	if (!fin) {
		lctl_scan_free(scan);
		return lctl_seterr(err, LCTL_ECANCELED, 0, "stopped during the space check");
	}
	sum = lctl_scan_summary(scan);
	out->scan_dirs = sum->dirs;
	if (sum->nsubvols == out->nsubvols)
		lctl_fill_project(vol, sum->move_files, sum->move_bytes, out->fill);
	for (i = 0; i < out->nsubvols && out->over < 0; i++)
		if (!lctl_volume_subvol(vol, i)->leaving &&
		    (out->fill[i].crosses || out->fill[i].crosses_inodes))
			out->over = (ssize_t)i;
	lctl_scan_free(scan);
	return 0;
}

int lctl_drain_space(struct lctl_volume *vol, enum lctl_planner planner, unsigned parallel,
		     const volatile sig_atomic_t *stop, struct lctl_drain_space *out,
		     struct lctl_error *err)
{
	const char *mfd = lctl_volume_dht_options(vol)->min_free_disk;
	struct lctl_drain_left l;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->over = -1;
	ret = lctl_drain_check(vol, &l, err);
	if (ret)
		return ret;
	out->nsubvols = lctl_volume_nsubvols(vol);
	out->subvol_room = calloc(out->nsubvols ? out->nsubvols : 1, sizeof(uint64_t));
	out->fill = calloc(out->nsubvols ? out->nsubvols : 1, sizeof(*out->fill));
	if (!out->subvol_room || !out->fill) {
		lctl_drain_left_release(&l);
		lctl_drain_space_release(out);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	out->min_free_disk = mfd;
	out->min_free_inodes = lctl_volume_dht_options(vol)->min_free_inodes;
	out->bytes = l.bytes;
	out->entries = l.entries;
	/* what could not be listed is not counted: the bytes to move would look smaller */
	out->err = l.err;
	snprintf(out->err_path, sizeof(out->err_path), "%s", l.err_path);
	lctl_drain_left_release(&l);
	for (i = 0; i < out->nsubvols; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
		uint64_t keep = lctl_min_free_bytes(mfd, sv->size_bytes);

		if (!sv->leaving && sv->free_bytes > keep) {
			out->subvol_room[i] = sv->free_bytes - keep;
			out->room += out->subvol_room[i];
		}
	}
	if (!out->err) {
		ret = project(vol, planner, parallel, stop, out, err);
		if (ret) {
			lctl_drain_space_release(out);
			return ret;
		}
	}
	out->fits = !out->err && out->bytes <= out->room && out->over < 0;
	return 0;
}

void lctl_drain_space_release(struct lctl_drain_space *s)
{
	free(s->subvol_room);
	s->subvol_room = NULL;
	free(s->fill);
	s->fill = NULL;
}

/* Before anything is written: GO_ON when it fits, else the status. */
static int space_check(struct lctl_volume *vol, const struct lctl_drain_job *job)
{
	struct lctl_drain_space s;
	struct lctl_error err = { 0 };
	int ret = lctl_drain_space(vol, job->fix.planner, job->fix.parallel, job->fix.stop_flag, &s,
				   &err);

	if (ret == -LCTL_ECANCELED)
		return LCTL_DRAIN_INTERRUPTED;
	if (ret) {
		emit(job,
		     (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_FAILED, .msg = err.msg });
		return LCTL_DRAIN_CANTRUN;
	}
	ret = GO_ON;
	if (s.err) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_SPACE_UNKNOWN,
						     .path = s.err_path,
						     .err = s.err });
		ret = LCTL_DRAIN_CANTRUN;
	} else {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_SPACE, .space = &s });
		if (!s.fits) {
			emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_NO_ROOM,
							     .space = &s });
			ret = LCTL_DRAIN_CANTRUN;
		}
	}
	lctl_drain_space_release(&s);
	return ret;
}

/* The leaving subvolumes' bricks, "HOST:/PATH", as gluster's remove-brick wants them. */
static int leaving_bricks(struct lctl_volume *vol, char ***out, size_t *nout)
{
	size_t i, j, n = 0;
	char **v = NULL, **nv;

	for (i = 0; i < lctl_volume_nsubvols(vol); i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

		for (j = 0; sv->leaving && j < sv->nbricks; j++) {
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
			if (asprintf(&v[n], "%s:%s", sv->bricks[j].host, sv->bricks[j].path) < 0)
				goto oom;
			n++;
		}
	}
	*out = v;
	*nout = n;
	return 0;
oom:
	while (n)
		free(v[--n]);
	free(v);
	return -LCTL_ENOMEM;
}

/* Nothing but directories left on the leaving subvolumes? GO_ON if so, else the status. */
static int verify(struct lctl_volume *vol, const struct lctl_drain_job *job, const char *when)
{
	struct lctl_drain_left l;
	struct lctl_error err = { 0 };
	int ret = lctl_drain_check(vol, &l, &err);

	if (ret) {
		emit(job,
		     (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_FAILED, .msg = err.msg });
		return LCTL_DRAIN_CANTRUN;
	}
	ret = GO_ON;
	if (l.err) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_UNREADABLE,
						     .when = when,
						     .path = l.err_path,
						     .err = l.err });
		ret = LCTL_DRAIN_PROBLEMS;
	} else if (l.entries || l.brick_entries) {
		emit(job,
		     (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_LEFT,
						.when = when,
						.left = &l,
						.count = l.entries ? l.entries : l.brick_entries });
		ret = LCTL_DRAIN_PROBLEMS;
	} else {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_EMPTY,
						     .when = when,
						     .left = &l });
	}
	lctl_drain_left_release(&l);
	return ret;
}

/*
 * Whether a fix of the drain that ended as @last gets pass @pass: only for directories a
 * client changed meanwhile (nothing stopped or failed), at most LCTL_DRAIN_MAX_PASSES in all.
 * If so, it waits the settle period first (a directory changed while being stamped was
 * marked dirty and wants it before files move) and resumes from the journal (@o->resume).
 */
static bool next_pass(struct lctl_volume *vol, const struct lctl_drain_job *job,
		      struct lctl_fix_opts *o, const struct lctl_drain_pass *last, int pass)
{
	unsigned i;

	if (last->status != LCTL_DRAIN_PROBLEMS || o->dry_run || last->stopped || stopped(job) ||
	    !last->not_fixed || pass > LCTL_DRAIN_MAX_PASSES)
		return false;
	emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_PASS,
					     .count = last->not_fixed,
					     .pass = pass,
					     .seconds = o->settle_ms / 1000 });
	for (i = 0; i < o->settle_ms / 100 && !stopped(job); i++)
		usleep(100000);
	o->resume = true;
	lctl_volume_reread_commit(vol);
	return !stopped(job);
}

/*
 * After the remove-brick: the volume as glusterd serves it now (the new membership), fixed
 * where the remove changed anything. A scan first; a fix only when a directory is not clean,
 * again (as the drain) while clients keep changing some.
 */
static int after_remove(const struct lctl_drain_job *job, const struct lctl_fix_opts *drain_o,
			size_t nsubvols_before, size_t nleaving)
{
	struct lctl_fix_opts o = *drain_o;
	struct lctl_volume *vol = NULL;
	struct lctl_scan_opts so = { 0 };
	struct lctl_scan *scan = NULL;
	struct lctl_error err = { 0 };
	struct lctl_drain_pass r = { 0 };
	const struct lctl_scan_summary *s;
	bool fin = false, clean;
	int ret, tries, pass;

	/* glusterd hands the new volfile out once the remove is committed; give it a moment */
	for (tries = 0; tries < 30; tries++) {
		ret = job->reopen(job->arg, &vol);
		if (ret != LCTL_DRAIN_DONE)
			return ret;
		if (lctl_volume_nsubvols(vol) + nleaving == nsubvols_before)
			break;
		lctl_volume_close(vol, false);
		vol = NULL;
		sleep(1);
	}
	if (!vol) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_STILL_SERVED });
		return LCTL_DRAIN_CANTRUN;
	}
	so.parallel = o.parallel;
	so.planner = LCTL_PLANNER_MINMOVE;
	so.max_depth = -1;
	ret = lctl_scan_start(vol, &so, &scan, &err);
	if (ret) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_SCAN_FAILED,
						     .msg = err.msg });
		lctl_volume_close(vol, false);
		return LCTL_DRAIN_CANTRUN;
	}
	while (!fin && !stopped(job))
		lctl_dir_report_free(lctl_scan_next(scan, 200, &fin));
	s = lctl_scan_summary(scan);
	clean = fin && s->dirs == s->dirs_clean;
	emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_AFTER_SCAN,
					     .count = s->dirs,
					     .count2 = s->dirs_clean });
	lctl_scan_free(scan);
	if (stopped(job)) {
		lctl_volume_close(vol, false);
		return LCTL_DRAIN_INTERRUPTED;
	}
	if (clean) {
		lctl_volume_close(vol, false);
		return LCTL_DRAIN_DONE;
	}
	/* a plain fix of the new membership: its defaults, the drain's throttles and state */
	o.resume = false;
	o.mode = LCTL_FIX_CLEAN_FIRST;
	o.planner = LCTL_PLANNER_MINMOVE;
	job->run(job->arg, vol, &o, true, &r);
	for (pass = 2; next_pass(vol, job, &o, &r, pass); pass++)
		job->run(job->arg, vol, &o, true, &r);
	lctl_volume_close(vol, false);
	return r.status;
}

/* The drain is complete: say so and, with commit, run the remove-brick that is now safe. */
static int finish(struct lctl_volume *vol, const struct lctl_drain_job *job,
		  const struct lctl_fix_opts *o)
{
	const char *gluster = NULL;
	char **bricks = NULL, why[512];
	size_t i, n = 0, nsubvols_before, nleaving = 0;
	int ret = verify(vol, job, "after the drain");

	if (ret != GO_ON)
		return ret;
	if (leaving_bricks(vol, &bricks, &n)) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_FAILED,
						     .msg = "out of memory" });
		return LCTL_DRAIN_CANTRUN;
	}
	emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_DRAINED,
					     .bricks = (const char *const *)bricks,
					     .nbricks = n });
	ret = LCTL_DRAIN_DONE;
	if (!job->commit)
		goto out;
	ret = LCTL_DRAIN_CANTRUN;
	gluster = lctl_gluster_find(lctl_gluster_paths);
	if (!gluster) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_NO_GLUSTER });
		goto out;
	}
	/* the names come from the volfile: each must read as HOST:/PATH to the CLI, no option */
	for (i = 0; i < n; i++) {
		if (!lctl_gluster_brick_ok(bricks[i])) {
			emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_BAD_BRICK,
							     .path = bricks[i] });
			goto out;
		}
	}
	if (job->task_check) {
		int t = lctl_gluster_tasks_idle(lctl_volume_name(vol), &gluster);

		if (t != LCTL_TASKS_IDLE) {
			emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_TASKS,
							     .tasks = t,
							     .gluster = gluster });
			goto out;
		}
	}
	/* immediately before: a file a client made meanwhile would be lost with the brick */
	ret = verify(vol, job, "before the remove-brick");
	if (ret != GO_ON)
		goto out;
	ret = LCTL_DRAIN_CANTRUN;
	/* held since the first pass: another run could have broken it (--break-lock) */
	if (!lctl_lock_held(o->lock)) {
		emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_LOCK_LOST });
		goto out;
	}
	nsubvols_before = lctl_volume_nsubvols(vol);
	for (i = 0; i < nsubvols_before; i++)
		nleaving += lctl_volume_subvol(vol, i)->leaving;
	if (lctl_gluster_remove_brick(gluster, lctl_volume_name(vol), (const char *const *)bricks,
				      n, why, sizeof(why)) != LCTL_GLUSTER_OK) {
		emit(job,
		     (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_REMOVE_FAILED, .msg = why });
		goto out;
	}
	emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_REMOVED,
					     .bricks = (const char *const *)bricks,
					     .nbricks = n });
	lctl_drain_unmark(vol);
	lctl_lock_removed(o->lock);
	ret = after_remove(job, o, nsubvols_before, nleaving);
out:
	for (i = 0; i < n; i++)
		free(bricks[i]);
	free(bricks);
	return ret;
}

int lctl_drain_run(struct lctl_volume *vol, const struct lctl_drain_job *job)
{
	struct lctl_fix_opts o = job->fix;
	struct lctl_drain_pass r = { 0 };
	struct lctl_lock *lock = NULL;
	int ret, pass;

	ret = o.resume ? GO_ON : space_check(vol, job);
	if (ret == GO_ON && !o.dry_run) {
		struct lctl_error lerr = { 0 };

		if (lctl_volume_lock(vol, o.state_dir, o.break_lock, &lock, &lerr)) {
			emit(job, (struct lctl_drain_event){ .kind = LCTL_DRAIN_EV_LOCK,
							     .msg = lerr.msg });
			ret = LCTL_DRAIN_CANTRUN;
		}
		o.lock = lock;
	}
	/*
	 * DHT moves a hard-linked file off a decommissioned subvolume only once each of its names
	 * was visited (gf_defrag_handle_hardlink()): with names in several directories, the first
	 * ones visited stay dirty (repair.c), and one more pass, resumed from the journal
	 * (directories done cost one inspection), finishes them. A directory a client changed
	 * while it was being stamped is marked dirty and wants the settle period before files
	 * move in it: so each pass waits that long first.
	 */
	if (ret == GO_ON) {
		pass = 1;
		do {
			job->run(job->arg, vol, &o, false, &r);
		} while (next_pass(vol, job, &o, &r, ++pass));
		ret = r.status;
	}
	/*
	 * The leaving subvolumes may be empty although a directory is left dirty (a client kept
	 * changing it): dirty is safe (misses fan out), and the final check reads the bricks.
	 * Then the remove is offered (and, with commit, run: the fix after it finishes those
	 * directories); without commit the status still says they are not finished.
	 */
	if (!o.dry_run && !stopped(job) &&
	    (ret == LCTL_DRAIN_DONE || (ret == LCTL_DRAIN_PROBLEMS && !r.stopped && !r.failed))) {
		int fin = finish(vol, job, &o);

		ret = job->commit || fin != LCTL_DRAIN_DONE ? fin : ret;
	}
	lctl_lock_free(lock);
	return ret;
}
