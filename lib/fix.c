/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix run: preflight, locks, journal, the dirty phase, the parallel repair, the top last.
 *
 * Order (the fix protocol: docs/design.md, "The fix protocol as implemented"; the words held,
 * ripe and deferral are defined in design.md, "The fix job's words"):
 *   1. preflight: every subvolume up, no remove-brick in progress (decommissioned subvolumes
 *      in the volfile), the volume commit hash consistent on the brick roots;
 *   2. locks (lock.c): flock() on STATE_DIR/lock against runs on this host with the same
 *      state directory, and the xattr trusted.layoutctl.lock on the first subvolume's root
 *      against all others; or those a drain holds across its runs (lctl_fix_opts.lock);
 *   3. journal: phase "dirty" with the commit hash H we will stamp;
 *   4. dirty: a whole-volume run writes a new H as the volume commit hash on every brick
 *      root: from then on no directory is clean for any client that revalidates the root.
 *      Every run (a subtree run keeps H = the volume hash) then walks its scope once and
 *      gives each directory its final ranges with commit word 1 (repair.c:
 *      lctl_repair_layout), which a client notices at its next lookup of that directory.
 *      Then the settle period lets clients revalidate before anything moves;
 *   5. journal: phase "work"; the crawl repairs every directory below the top in parallel
 *      (repair.c), and the top directory (the root for a whole-volume run) is repaired last,
 *      by the consumer thread, once everything below it is done;
 *   6. journal: phase "done" (all fixed) or "stopped" (resumable); locks released.
 *
 * A clean-first run (LCTL_FIX_CLEAN_FIRST) does steps 1-5 as a linkto run: every directory
 * stamped, every misplaced file reachable through a linkto, nothing moved. Then, journal phase
 * "data", a second walk moves the data behind those linktos while the directories stay clean
 * (dataphase.c:lctl_repair_data; in a pool, each server's worker first moves its share), and
 * "done". A directory that must be made dirty in that phase (special files to move, or not
 * clean) waits out its settle period held aside while the workers go on (fixvisit.c,
 * defer_dir()). A run stopped in that phase resumes in it; `--phase data` starts there.
 *
 * A resumed run reuses the journal's H, so directories stamped before the stop are clean
 * and only cost one inspection.
 *
 * This file holds the run's stages (enum fix_stage) and its entry points: start, next,
 * progress, pace, end. The rest has rooms of its own, sharing struct lctl_fix (fixrun.h):
 * fixstart.c, steps 1-3 before anything is written (options, preflight, locks, journal);
 * fixvisit.c, the visits of every walk, the held directories and the hold while a subvolume
 * is gone; fixsummary.c, the run's summary.
 *
 * Threads: workers run the visits (fixvisit.c); the caller's thread runs lctl_fix_next() and
 * the top directory. Shared state: the stop flag and counters (atomics), the throttle (its
 * mutex).
 */
#include "fixrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Rate limits: each item books a slot of 1/files_per_sec and bytes/bytes_per_sec seconds. */
static void fix_throttle(void *arg, uint64_t bytes)
{
	struct lctl_fix *f = arg;
	double cost, start, now;
	unsigned gen;

again:
	/* under tlock: the pace may change while the run goes on (lctl_fix_set_pace()) */
	cost = 0;
	pthread_mutex_lock(&f->tlock);
	if (f->opts.files_per_sec > 0)
		cost = 1.0 / f->opts.files_per_sec;
	if (f->opts.bytes_per_sec > 0 && (double)bytes / f->opts.bytes_per_sec > cost)
		cost = (double)bytes / f->opts.bytes_per_sec;
	if (cost <= 0) {
		pthread_mutex_unlock(&f->tlock);
		return;
	}
	now = lctl_mono_seconds();
	start = f->next_slot > now ? f->next_slot : now;
	f->next_slot = start + cost;
	gen = f->pace_gen;
	pthread_mutex_unlock(&f->tlock);
	while ((now = lctl_mono_seconds()) < start && !fix_should_stop(f)) {
		lctl_crawl_beat();
		usleep((useconds_t)((start - now) > 0.2 ? 200000 : (start - now) * 1e6 + 1));
		/* a new pace: this slot was booked at the old one; book again at the new */
		pthread_mutex_lock(&f->tlock);
		if (f->pace_gen != gen) {
			pthread_mutex_unlock(&f->tlock);
			goto again;
		}
		pthread_mutex_unlock(&f->tlock);
	}
}

/* ---- the dirty phase --------------------------------------------------------------------- */

/*
 * The run's new volume hash on every subvolume's root. One root that refuses it (its brick gone
 * since the volume was opened: a remove-brick committed meanwhile, say) gets the others their
 * old value back (or none, as they had), so that a run that ends here has changed nothing.
 */
static int write_volume_commit(struct lctl_fix *f, uint32_t h, struct lctl_error *err)
{
	size_t i, n = lctl_volume_nsubvols(f->vol);
	char buf[LCTL_COMMITHASH_MAXLEN + 1], (*old)[LCTL_COMMITHASH_MAXLEN + 1];
	ssize_t *oldlen;
	int len = lctl_commithash_encode(h, buf, sizeof(buf)), e;

	if (len < 0)
		return lctl_seterr(err, LCTL_EINVAL, 0, "cannot encode commit hash");
	old = calloc(n ? n : 1, sizeof(*old));
	oldlen = calloc(n ? n : 1, sizeof(*oldlen));
	if (!old || !oldlen) {
		free(old);
		free(oldlen);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	for (i = 0; i < n; i++)
		oldlen[i] = glfs_getxattr(lctl_volume_subvol_fs(f->vol, i), "/",
					  LCTL_COMMITHASH_XATTR, old[i], sizeof(old[i]));
	for (i = 0; i < n; i++)
		if (glfs_setxattr(lctl_volume_subvol_fs(f->vol, i), "/", LCTL_COMMITHASH_XATTR, buf,
				  (size_t)len, 0))
			break;
	if (i == n) {
		free(old);
		free(oldlen);
		return 0;
	}
	e = errno;
	lctl_seterr(err, LCTL_EIO, e, "cannot write the volume commit hash on %s: %s",
		    lctl_volume_subvol(f->vol, i)->name, strerror(e));
	while (i--) {
		glfs_t *fs = lctl_volume_subvol_fs(f->vol, i);

		if (oldlen[i] >= 0)
			glfs_setxattr(fs, "/", LCTL_COMMITHASH_XATTR, old[i], (size_t)oldlen[i], 0);
		else
			glfs_removexattr(fs, "/", LCTL_COMMITHASH_XATTR);
	}
	free(old);
	free(oldlen);
	return -LCTL_EIO;
}

/* Every directory had its turn: the settle period starts. */
static void end_layout(struct lctl_fix *f)
{
	struct lctl_crawl_stats st;

	/* the layout pass's directories stay on show during the settle period */
	lctl_crawl_stats(f->crawl, &st);
	f->base_seen = st.dirs_seen;
	f->base_done = st.dirs_done;
	f->known_dirs = st.dirs_seen; /* the walks after it have that count (progressfile.c) */
	lctl_crawl_free(f->crawl);
	f->crawl = NULL;
	/* those directories are refused by the work pass too, and reported there */
	if (atomic_load(&f->not_clean))
		lctl_log(LCTL_LOG_WARN, "%llu directories could not be given their layout",
			 (unsigned long long)atomic_load(&f->not_clean));
	atomic_store(&f->not_clean, 0);
	f->settle_end = lctl_mono_seconds() + f->opts.settle_ms / 1000.0;
	f->stage = FIX_SETTLE;
	fix_set_phase(f, LCTL_RUN_SETTLE);
	/*
	 * A linkto pass makes its links during the settle period: only lookups, which hide
	 * nothing from a client that has not seen the new layout yet; the rest of each
	 * directory waits for its end (repair.c, lctl_repair_dir_early()). The journal says
	 * "work" only then: a run stopped before goes back to the layout pass on --resume.
	 */
	if (f->rc.mode == LCTL_FIX_LINKTO && f->opts.settle_ms && !f->opts.dry_run &&
	    !f->opts.place_only && !f->data_only && (!f->pool || f->two_phase) &&
	    !fix_deadline_passed(f)) {
		f->in.vol_commit = f->sum.commit;
		f->early = true;
		if (fix_start_work(f, NULL)) {
			f->early = false;
			f->crawl = NULL;
		} else {
			f->base_seen = f->base_done = 0;
		}
	}
}

static int set_phase(struct lctl_fix *f, const char *phase, struct lctl_error *err)
{
	snprintf(f->j.phase, sizeof(f->j.phase), "%s", phase);
	return lctl_journal_write(f->state_dir, &f->j, err);
}

/* Whether server @s's worker placed all of its share (repair.c asks before stamping). */
static bool mover_done(void *arg, size_t s)
{
	struct lctl_fix *f = arg;

	return lctl_pool_server_done(f->pool, s);
}

/*
 * Part of the settle period, at most @ms of it, in steps so that a stop (a signal, the
 * deadline) cuts it short.
 */
static void settle_wait(struct lctl_fix *f, int ms)
{
	double end = lctl_mono_seconds() + (ms > 0 ? ms : 0) / 1000.0, now;

	if (end > f->settle_end)
		end = f->settle_end;
	while (!fix_deadline_passed(f) && (now = lctl_mono_seconds()) < end)
		usleep((useconds_t)((end - now) > 0.1 ? 100000 : (end - now) * 1e6 + 1));
}

/* Let the workers move their shares, with what the journal decided. */
static void pool_go(struct lctl_fix *f)
{
	struct lctl_pool_msg m = { .kind = LCTL_PM_GO,
				   .force_move = f->opts.force_move,
				   .planner = f->opts.planner };

	snprintf(m.text, sizeof(m.text), "%s", f->top);
	lctl_pool_send(f->pool, &m);
	f->pool_went = true;
}

/*
 * The data phase of a clean-first run: the pool's workers first when there is a pool (the
 * walk starts once they are done), else the walk at once. Files move now, so from here on the
 * starting host's pass leaves each server's share to it, and checks it was done.
 */
static int start_data(struct lctl_fix *f, struct lctl_error *err)
{
	int ret = set_phase(f, "data", err);

	if (ret)
		return ret;
	f->rc.mode = LCTL_FIX_MIGRATE;
	f->rc.after_workers = f->pool != NULL;
	f->rc.mover_done = f->pool ? mover_done : NULL;
	if (f->pool && !f->pool_went) {
		f->placing = true;
		fix_set_phase(f, LCTL_RUN_PLACE);
		pool_go(f);
		return 0;
	}
	if (f->nunclean) {
		qsort(f->unclean, f->nunclean, sizeof(char *), lctl_cmp_strp);
		/* out of memory: none counts as repaired, the run ends not clean, resumable */
		f->repaired = calloc(f->nunclean, sizeof(bool));
	}
	f->data_started = true;
	fix_set_phase(f, LCTL_RUN_DATA);
	f->base_seen = f->base_done = 0;
	f->ripe_started = false;
	atomic_store(&f->ripe_pushed, false);
	return fix_start_work(f, err);
}

/*
 * Once the layouts are written and the clients had the settle period (or the journal says
 * so): the walk that places, verifies and stamps; the data phase of a run resumed in it; or,
 * in a pool, each server moving its share first.
 */
static int after_settle(struct lctl_fix *f, struct lctl_error *err)
{
	f->stage = FIX_RUN;
	f->base_seen = f->base_done = 0;
	/* the inspector compares with the hash we stamp, not the one it found at open */
	f->in.vol_commit = f->sum.commit;
	if (f->data_only && !f->opts.dry_run)
		return start_data(f, err);
	if (f->pool && !f->two_phase) {
		/* each server moves its own files first; the walk below starts when all are done */
		int ret = set_phase(f, "place", err);

		if (ret)
			return ret;
		fix_set_phase(f, LCTL_RUN_PLACE);
		f->placing = true;
		pool_go(f);
		return 0;
	}
	fix_set_phase(f, LCTL_RUN_WORK);
	return fix_start_work(f, err);
}

/* The first writes: the journal, then the dirty phase (FIX_LAYOUT), or straight to the walk. */
static int begin_run(struct lctl_fix *f, struct lctl_error *err)
{
	bool writes = !f->opts.dry_run && !f->opts.place_only;
	char why[200];
	int ret;

	/*
	 * Right before the first write, every subvolume must still answer: the volume may have
	 * changed since it was opened (a remove-brick committed while this run waited for the
	 * lock), and a run on a graph glusterd no longer serves must write nothing.
	 */
	if (writes && lctl_health_down(&f->health, true, why, sizeof(why)))
		return lctl_seterr(err, LCTL_EIO, ENOTCONN,
				   "%s: refusing to write (a brick went down, or the volume changed "
				   "since it was opened)",
				   why);
	if (writes) {
		ret = set_phase(f, f->data_only ? "data" : f->dirty_done ? "work" : "dirty", err);
		if (ret)
			return ret;
	}
	if (!writes || f->dirty_done)
		return after_settle(f, err);
	/*
	 * A new volume hash makes every directory dirty for a client once it revalidates the
	 * root, which a FUSE client may not do for a long time; commit word 1 in each layout
	 * reaches it at its next lookup of that directory. So a whole-volume run does both. The
	 * layout pass also writes each directory's final ranges, so the settle period lets
	 * clients learn them before any file moves.
	 */
	ret = f->whole ? write_volume_commit(f, f->j.commit, err) : 0;
	return ret ? ret : fix_start_layout(f, err);
}

/*
 * The run's state, nothing read or written yet: its options (with @top, the state directory
 * in buffers of its own), locks, health probe, move matrix and migration slots.
 */
static int fix_new(struct lctl_volume *vol, const struct lctl_fix_opts *opts, const char *top,
		   struct lctl_fix **out, struct lctl_error *err)
{
	struct lctl_fix *f;

	f = calloc(1, sizeof(*f));
	if (!f)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	f->vol = vol;
	f->opts = *opts;
	f->phase_at = -1;
	pthread_mutex_init(&f->tlock, NULL);
	pthread_mutex_init(&f->dlock, NULL);
	pthread_mutex_init(&f->hold_lock, NULL);
	lctl_health_init(&f->health, vol, HEALTH_PROBE_MS);
	f->sum.nsubvols = lctl_volume_nsubvols(vol);
	f->sum.move_files = calloc(f->sum.nsubvols * f->sum.nsubvols + 1, sizeof(uint64_t));
	f->sum.move_bytes = calloc(f->sum.nsubvols * f->sum.nsubvols + 1, sizeof(uint64_t));
	if (!f->sum.move_files || !f->sum.move_bytes ||
	    lctl_slots_init(&f->slots, lctl_volume_nsubvols(vol), opts->migrations)) {
		free(f->sum.move_files);
		free(f->sum.move_bytes);
		lctl_health_release(&f->health);
		pthread_mutex_destroy(&f->hold_lock);
		pthread_mutex_destroy(&f->tlock);
		pthread_mutex_destroy(&f->dlock);
		free(f);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	snprintf(f->top, sizeof(f->top), "%s", top);
	if (opts->state_dir)
		snprintf(f->state_dir, sizeof(f->state_dir), "%s", opts->state_dir);
	f->opts.path = f->top;
	f->opts.state_dir = f->state_dir;
	clock_gettime(CLOCK_MONOTONIC, &f->start);
	*out = f;
	return 0;
}

/* The inspector and the repair context every walk of the run shares. */
static int init_repair(struct lctl_fix *f, const struct lctl_fix_opts *opts, int ndrain,
		       struct lctl_error *err)
{
	struct lctl_volume *vol = f->vol;
	int ret;

	if (f->opts.planner == LCTL_PLANNER_EVEN_USAGE && !lctl_volume_usage(vol)) {
		ret = lctl_volume_measure_usage(vol, opts->parallel, opts->stop_flag, err);
		if (ret)
			return ret;
	}
	ret = lctl_inspector_init(&f->in, vol, f->opts.planner, false, err);
	if (ret)
		return ret;
	f->in.least_move = ndrain > 0;
	/*
	 * A brick folder read directly: is its brick process still up? Asked at most 4 times a
	 * second per brick, as a scan asks (lctl_inspector.probe_ms).
	 */
	f->in.probe_ms = 250;
	f->sum.commit = opts->dry_run ? lctl_volume_commit_hash(vol, NULL) : f->j.commit;
	f->rc = (struct lctl_repair_ctx){
		.in = &f->in,
		.commit = f->sum.commit,
		/* a clean-first run starts as a linkto run */
		.mode = f->two_phase ? LCTL_FIX_LINKTO : f->opts.mode,
		.dry_run = opts->dry_run,
		.force_move = f->opts.force_move,
		.throttle = fix_throttle,
		.live = f->live,
		.live_bytes = &f->live_bytes,
		.should_stop = fix_should_stop,
		.settling = fix_settling,
		.arg = f,
		.link_threads = fix_parallel(opts),
		.modes = f->modes_open ? &f->modes : NULL,
		.slots = &f->slots,
		.own_only = opts->place_only || f->pool,
		.after_workers = f->pool && !f->two_phase,
		.drain = ndrain > 0,
		.mover_done = f->pool && !f->two_phase ? mover_done : NULL,
		.wanted = opts->wanted,
		.wanted_arg = opts->wanted_arg,
	};
	return 0;
}

/* A start that failed: everything it took, given back (the journal stays as it was). */
static void fix_discard(struct lctl_fix *f)
{
	lctl_pool_free(f->pool);
	if (f->modes_open)
		lctl_modes_close(&f->modes, f->state_dir, false);
	fix_release_locks(f);
	if (f->in.names)
		lctl_inspector_release(&f->in);
	lctl_slots_destroy(&f->slots);
	lctl_health_release(&f->health);
	pthread_mutex_destroy(&f->hold_lock);
	pthread_mutex_destroy(&f->tlock);
	pthread_mutex_destroy(&f->dlock);
	free(f->sum.move_files);
	free(f->sum.move_bytes);
	free(f);
}

/*
 * Before the first write, a replica or disperse set that is not whole (a brick down, heals
 * pending) holds the run in FIX_HOLD until it is, and begin_run() comes then (early_stage()).
 * A subvolume that does not answer at all is no reason to wait here: begin_run() refuses the
 * run with nothing written, as the volume may have changed under it (a fix started while a
 * drain's remove-brick ran held for its whole --hold-limit, drain-kill.sh in CI).
 */
static int hold_or_begin(struct lctl_fix *f, struct lctl_error *err)
{
	if (f->opts.hold_limit_s && !f->opts.dry_run && !f->opts.place_only &&
	    !lctl_health_down(&f->health, true, NULL, 0) && fix_hold_step(f) > 0) {
		f->stage = FIX_HOLD;
		return 0;
	}
	return begin_run(f, err);
}

/*
 * The start, in the order of the fix protocol (the comment at the top): the options, the
 * scope and the preflight (fixstart.c), the state directory, local lock and journal, the
 * volume lock and the pool, the repair context; then the first writes (begin_run()), or the
 * pool's hello first (FIX_HELLO).
 */
int lctl_fix_start(struct lctl_volume *vol, const struct lctl_fix_opts *opts, struct lctl_fix **out,
		   struct lctl_error *err)
{
	struct lctl_fix *f = NULL; /* fix_new()'s */
	const char *top = opts->path && opts->path[0] ? opts->path : "/";
	/* a run of listed files in the root is no whole-volume run: no new volume hash */
	bool whole = !strcmp(top, "/") && !opts->wanted;
	char drain[sizeof(f->j.drain)];
	int ndrain;
	int ret;

	*out = NULL;
	ret = fix_validate_opts(opts, top, err);
	if (ret)
		return ret;
	ret = fix_new(vol, opts, top, &f, err);
	if (ret)
		return ret;
	ndrain = fix_drain_list(vol, drain, sizeof(drain));
	if (ndrain < 0) {
		ret = lctl_seterr(err, LCTL_EINVAL, 0, "too many subvolumes to drain at once");
		goto fail;
	}
	ret = fix_check_scope(f, opts, ndrain, whole, err);
	if (ret)
		goto fail;
	if (!opts->dry_run) {
		ret = fix_open_state(f, opts, drain, ndrain, &whole, err);
		if (ret)
			goto fail;
	}
	f->two_phase = f->opts.mode == LCTL_FIX_CLEAN_FIRST;
	f->whole = whole;
	if (!opts->dry_run && !opts->place_only) {
		ret = fix_claim_volume(f, opts, ndrain, drain, err);
		if (ret)
			goto fail;
	}
	ret = init_repair(f, opts, ndrain, err);
	if (ret)
		goto fail;
	if (f->pool) {
		/* the workers connect to the volume meanwhile: lctl_fix_next() waits for them */
		f->stage = FIX_HELLO;
		fix_set_phase(f, LCTL_RUN_PREFLIGHT);
		*out = f;
		return 0;
	}
	ret = hold_or_begin(f, err);
	if (ret)
		goto fail;
	*out = f;
	return 0;
fail:
	fix_discard(f);
	return ret;
}

/* A stage could not go on: the run ends here (the journal says where, for --resume). */
static void stage_failed(struct lctl_fix *f, int ret, bool *finished)
{
	f->failed = ret < 0 ? ret : -LCTL_EIO;
	atomic_store(&f->stop, true);
	f->top_done = true;
	*finished = true;
}

/*
 * The stages before the walks, one step per call: at most @timeout_ms of waiting, so that the
 * caller shows each as it happens. Returns true while they go on.
 */
static bool early_stage(struct lctl_fix *f, int timeout_ms, bool *finished)
{
	bool fin = false;
	int ret;

	switch (f->stage) {
	case FIX_HELLO:
		ret = fix_deadline_passed(f) ? 0
					     : lctl_pool_hello(f->pool, timeout_ms, &f->fail_err);
		if (ret == 0 && !fix_deadline_passed(f))
			return true;
		if (ret <= 0) {
			/* a server cannot take part, or a stop: nothing was written */
			f->refused = true;
			if (ret < 0)
				stage_failed(f, ret, finished);
			atomic_store(&f->stop, true);
			f->top_done = true;
			*finished = true;
			return true;
		}
		ret = hold_or_begin(f, &f->fail_err);
		if (ret) {
			f->stopped_dirty = !f->dirty_done;
			stage_failed(f, ret, finished);
		}
		return true;
	case FIX_HOLD:
		ret = fix_deadline_passed(f) ? -1 : fix_hold_step(f);
		if (ret > 0) {
			usleep((useconds_t)(timeout_ms > 0 && timeout_ms < 200 ? timeout_ms : 200) *
			       1000);
			return true;
		}
		if (ret < 0) {
			/* a stop, or held too long: nothing was written */
			if (atomic_load(&f->held_out))
				f->failed = lctl_seterr(&f->fail_err, LCTL_EIO, ENOTCONN,
							"held for more than %u s before the first "
							"write (--hold-limit): %s",
							f->opts.hold_limit_s, f->held_why);
			f->refused = true;
			atomic_store(&f->stop, true);
			f->top_done = true;
			*finished = true;
			return true;
		}
		ret = begin_run(f, &f->fail_err);
		if (ret) {
			f->stopped_dirty = !f->dirty_done;
			stage_failed(f, ret, finished);
		}
		return true;
	case FIX_LAYOUT:
		lctl_crawl_next(f->crawl, timeout_ms, &fin);
		if (fin)
			end_layout(f);
		return true;
	case FIX_SETTLE:
		if (!fix_deadline_passed(f) && f->settle_end > lctl_mono_seconds()) {
			settle_wait(f, timeout_ms);
			return true;
		}
		if (fix_deadline_passed(f)) {
			/* stopped before anything moved: --resume redoes the layouts and the settle */
			f->stopped_dirty = true;
			if (f->crawl) {
				/* the early linkto pass winds down; its held directories are reported */
				f->stage = FIX_RUN;
				return true;
			}
			f->top_done = true;
			*finished = true;
			return true;
		}
		ret = set_phase(f, "work", &f->fail_err);
		if (ret) {
			f->stopped_dirty = true;
		} else if (f->crawl) {
			/* the early linkto pass goes on: its held directories are ripe now */
			f->stage = FIX_RUN;
			fix_set_phase(f, LCTL_RUN_WORK);
		} else {
			ret = after_settle(f, &f->fail_err);
		}
		if (ret)
			stage_failed(f, ret, finished);
		return true;
	default:
		return false;
	}
}

/*
 * A worker with no sign of life for hang_timeout_s is stuck in a call into GlusterFS (10.3's
 * DHT loops for ever in a lookup that meets a file another client is creating, gluster issue
 * 3688; fixed in 11). Its directory stays dirty (it was made so before anything moved), the
 * others are stopped and finish what they are doing; then the run ends, resumable, and the
 * process must exit without closing the volume (the thread is still in it).
 * Returns true while the run is winding down that way.
 */
static bool hang_check(struct lctl_fix *f, int timeout_ms, struct lctl_repair_report **rr,
		       bool *finished)
{
	char where[LCTL_WORKER_STATE_LEN];
	unsigned busy, stuck;
	bool fin = false;

	if (!f->crawl || !f->opts.hang_timeout_s)
		return false;
	stuck = lctl_crawl_stalled(f->crawl, (int64_t)f->opts.hang_timeout_s * 1000, where,
				   sizeof(where), &busy);
	if (!f->hung) {
		if (!stuck)
			return false;
		f->hung = true;
		f->failed = -LCTL_EIO;
		/* in the layout pass: --resume makes the directories dirty again */
		if (f->stage == FIX_LAYOUT)
			f->stopped_dirty = true;
		lctl_seterr(&f->fail_err, LCTL_EIO, ETIMEDOUT,
			    "a GlusterFS call in '%.200s' has not returned for %u s (GlusterFS "
			    "10.3's DHT can loop in a lookup that meets a file another client is "
			    "creating): stopped with that directory left dirty; run 'layoutctl fix "
			    "--resume'",
			    where, f->opts.hang_timeout_s);
		lctl_fix_cancel(f); /* the caller prints fail_err once the others are done */
	}
	*rr = lctl_crawl_next(f->crawl, timeout_ms, &fin);
	if (*rr) {
		fix_summary_add(f, *rr);
		return true;
	}
	/* the others are done once every worker still in a directory is a stuck one */
	if (fin || busy <= stuck) {
		f->top_done = true;
		*finished = true;
	}
	return true;
}

bool lctl_fix_hung(const struct lctl_fix *f)
{
	return f && f->hung;
}

struct lctl_repair_report *lctl_fix_next(struct lctl_fix *f, int timeout_ms, bool *finished)
{
	struct lctl_error werr = { 0 };
	struct lctl_crawl_cfg cfg = { 0 };
	struct lctl_crawl_stats st;
	struct lctl_repair_report *rr;
	bool fin = false;

	*finished = false;
	if (f->top_done) {
		*finished = true;
		return NULL;
	}
	/*
	 * The workers' heartbeats are read in every stage, not only while they place: one that
	 * falls silent before go is lost then (pool.c), and its link never fills up.
	 */
	if (f->pool && f->stage != FIX_HELLO && !f->placing)
		lctl_pool_poll(f->pool, 0);
	if (hang_check(f, timeout_ms, &rr, finished))
		return rr;
	if (early_stage(f, timeout_ms, finished))
		return NULL;
	if (f->placing) {
		if (fix_deadline_passed(f) && !f->pool_stopped) {
			lctl_pool_send_kind(f->pool, LCTL_PM_STOP);
			f->pool_stopped = true;
		}
		if (!lctl_pool_poll(f->pool, timeout_ms))
			return NULL;
		f->placing = false;
		fix_pool_totals(f, f->sum.files, f->sum.names, &f->sum.bytes_moved);
		/* a server's worker held past the limit: the run stops there too, resumable */
		if (!atomic_load(&f->stop) && lctl_pool_held_out(f->pool)) {
			atomic_store(&f->held_out, true);
			atomic_store(&f->stop, true);
		}
		/* stopped, or the work walk cannot start: the run ends here, resumable */
		if (!atomic_load(&f->stop) &&
		    (f->two_phase ? start_data(f, &werr)
				  : (fix_set_phase(f, LCTL_RUN_WORK),
				     set_phase(f, "work", &werr) || fix_start_work(f, &werr))))
			lctl_log(LCTL_LOG_ERROR,
				 "cannot go on after the servers placed their files: %s", werr.msg);
		if (atomic_load(&f->stop) || !f->crawl) {
			atomic_store(&f->stop, true);
			f->top_done = true;
			*finished = true;
			return NULL;
		}
		return NULL;
	}
	rr = lctl_crawl_next(f->crawl, timeout_ms, &fin);
	if (rr) {
		fix_summary_add(f, rr);
		return rr;
	}
	if (!fin)
		return NULL;
	if (f->top_started && !f->data_started && f->two_phase && !f->opts.dry_run &&
	    f->opts.phase != LCTL_FIX_PHASE_CLEAN && !atomic_load(&f->stop)) {
		/* every directory had its turn: clean now, unless some could not be made so */
		if (fix_phase_one_ok(&f->sum))
			fix_mark_clean(f);
		/* the data phase walks the same tree: what this walk found, the top too */
		lctl_crawl_stats(f->crawl, &st);
		f->known_dirs = f->base_seen + st.dirs_seen;
		lctl_crawl_free(f->crawl);
		f->crawl = NULL;
		if (start_data(f, &werr)) {
			lctl_log(LCTL_LOG_ERROR, "cannot start the data phase: %s", werr.msg);
			f->top_done = true;
			*finished = true;
		}
		return NULL;
	}
	if (f->ndefer && (f->data_started || !f->top_started)) {
		/* directories held for their settle period (see struct lctl_fix) */
		if (!f->ripe_started && !atomic_load(&f->stop) && fix_start_ripe(f))
			return NULL;
		/* stopped: each stays dirty, what was done in it reported */
		rr = fix_flush_deferred(f);
		fix_summary_add(f, rr);
		return rr;
	}
	if (f->top_started || f->data_started || atomic_load(&f->stop) || f->opts.place_only) {
		if (f->top_started && !f->data_started && !f->clean_at &&
		    fix_phase_one_ok(&f->sum) && !atomic_load(&f->stop))
			fix_mark_clean(f);
		/*
		 * A run that started in the data phase without knowing since when the directories
		 * are clean (--phase data on a new run): they are once every one it visited is.
		 */
		if (f->data_only && f->data_started && !f->j.clean_since &&
		    !atomic_load(&f->stop) && f->sum.data_dirs == f->sum.data_placed)
			fix_mark_clean(f);
		f->top_done = true;
		*finished = true;
		return NULL;
	}
	/* everything below the top is done: now the top itself */
	lctl_crawl_stats(f->crawl, &st);
	f->base_seen += st.dirs_seen - 1; /* the top was counted by the first walk */
	f->base_done += st.dirs_done - 1;
	f->ripe_started = false;
	atomic_store(&f->ripe_pushed, false);
	lctl_crawl_free(f->crawl);
	f->crawl = NULL;
	f->top_started = true;
	fix_set_phase(f, LCTL_RUN_TOP);
	cfg.nworkers = 1;
	cfg.visit = fix_top_visit;
	cfg.drop = fix_drop;
	cfg.arg = f;
	if (lctl_crawl_start(&cfg, f->top, &f->crawl, NULL)) {
		f->top_done = true;
		*finished = true;
		rr = fix_failed_report(f->top, LCTL_ENOMEM);
		if (rr)
			fix_summary_add(f, rr);
		return rr;
	}
	return NULL;
}

void lctl_fix_cancel(struct lctl_fix *f)
{
	atomic_store(&f->stop, true);
	if (f->placing && !f->pool_stopped) {
		lctl_pool_send_kind(f->pool, LCTL_PM_STOP);
		f->pool_stopped = true;
	}
	if (f->crawl)
		lctl_crawl_cancel(f->crawl);
}

void lctl_fix_pause(struct lctl_fix *f, bool pause)
{
	atomic_store(&f->paused, pause);
	if (f->placing && f->pool_paused != pause)
		lctl_pool_send_kind(f->pool, pause ? LCTL_PM_PAUSE : LCTL_PM_RESUME);
	f->pool_paused = pause;
	if (f->crawl)
		lctl_crawl_pause(f->crawl, pause);
}

int lctl_fix_set_pace(struct lctl_fix *f, const struct lctl_pace *p)
{
	struct lctl_pace all;

	if (lctl_pace_check(p))
		return -LCTL_EINVAL;
	pthread_mutex_lock(&f->tlock);
	if (p->set & LCTL_PACE_RATE)
		f->opts.files_per_sec = p->files_per_sec;
	if (p->set & LCTL_PACE_BANDWIDTH)
		f->opts.bytes_per_sec = p->bytes_per_sec;
	if (p->set & LCTL_PACE_MIGRATIONS)
		f->opts.migrations = p->migrations;
	/* the next item waits from now, not from a slot booked at the old pace; the items
	 * waiting for such a slot book again (fix_throttle()) */
	if (f->next_slot > lctl_mono_seconds())
		f->next_slot = lctl_mono_seconds();
	f->pace_gen++;
	all = (struct lctl_pace){ .set = LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH |
					 LCTL_PACE_MIGRATIONS,
				  .files_per_sec = f->opts.files_per_sec,
				  .bytes_per_sec = f->opts.bytes_per_sec,
				  .migrations = f->opts.migrations ? f->opts.migrations : 1 };
	pthread_mutex_unlock(&f->tlock);
	if (p->set & LCTL_PACE_MIGRATIONS)
		lctl_slots_set_cap(&f->slots, p->migrations);
	/* every server's worker too (one that has not had go yet takes it before) */
	if (f->pool)
		lctl_pool_set_pace(f->pool, &all);
	return 0;
}

int lctl_fix_set_workers(struct lctl_fix *f, unsigned n)
{
	int ret;

	if (!f->crawl || (f->top_started && !f->data_started))
		return -LCTL_EINVAL;
	ret = lctl_crawl_set_workers(f->crawl, n);
	/* the walks that start later (after the layout pass, the data phase) keep it */
	if (!ret)
		f->opts.parallel = n;
	return ret;
}

void lctl_fix_set_outcome_log(struct lctl_fix *f, int fd)
{
	if (f && f->pool)
		lctl_pool_set_outcome_log(f->pool, fd);
}

bool lctl_fix_outcome_log_failed(const struct lctl_fix *f)
{
	return f && f->pool && lctl_pool_outcome_log_failed(f->pool);
}

int lctl_fix_end(struct lctl_fix *f, struct lctl_error *err)
{
	const struct lctl_fix_summary *s = lctl_fix_summary(f);
	bool clean = !s->stopped && fix_all_clean(f);
	bool data_wanted = f->two_phase && !f->opts.dry_run &&
			   f->opts.phase != LCTL_FIX_PHASE_CLEAN;
	bool all = clean && !s->files[LCTL_FILE_FAILED] &&
		   (!data_wanted || (f->data_started && s->data_dirs == s->data_placed));
	const char *phase;
	int ret = 0;

	f->phase_at = -1; /* the run's time ends here (lctl_fix_summary() took it up to now) */
	if (f->refused) {
		/* the servers' workers did not all answer, or a stop came first: nothing written */
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir, false);
		f->modes_open = false;
		fix_release_locks(f);
		if (f->failed && err)
			*err = f->fail_err;
		return f->failed ? f->failed : 1;
	}
	/* every server placed its share: without that, something may still be misplaced */
	if (f->pool && !lctl_pool_complete(f->pool))
		all = false;
	if (all)
		phase = f->two_phase && !data_wanted ? "data" : "done";
	else if (f->stopped_dirty)
		phase = "dirty";
	else if (f->two_phase && (f->data_only || (f->data_started && fix_all_clean(f))))
		phase = "data"; /* the directories are clean: --resume goes on moving data */
	else
		phase = "stopped";
	if (f->opts.place_only) {
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir, false);
		f->modes_open = false;
		fix_release_locks(f);
	} else if (!f->opts.dry_run) {
		ret = set_phase(f, phase, err);
		/* every directory of the volume verified: no migration is left half-way */
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir,
					 all && !ret && !strcmp(f->top, "/") && !f->opts.wanted &&
						 !strcmp(phase, "done"));
		f->modes_open = false;
		fix_release_locks(f);
	}
	if (ret)
		return ret;
	if (f->failed) {
		if (err)
			*err = f->fail_err;
		return f->failed;
	}
	return all || f->opts.dry_run ? 0 : 1;
}

void lctl_fix_free(struct lctl_fix *f)
{
	/* a hung worker's thread may still use all of it: the process exits instead */
	if (!f || f->hung)
		return;
	while (f->nunclean)
		free(f->unclean[--f->nunclean]);
	free(f->unclean);
	free(f->repaired);
	while (f->nmet)
		free(f->met[--f->nmet]);
	free(f->met);
	lctl_file_set_free(&f->hard_files);
	free(f->sum.move_files);
	free(f->sum.move_bytes);
	if (f->crawl) {
		lctl_crawl_cancel(f->crawl);
		lctl_crawl_free(f->crawl);
	}
	if (f->modes_open)
		lctl_modes_close(&f->modes, f->state_dir, false);
	lctl_pool_free(f->pool);
	fix_release_locks(f);
	lctl_inspector_release(&f->in);
	lctl_slots_destroy(&f->slots);
	lctl_health_release(&f->health);
	pthread_mutex_destroy(&f->hold_lock);
	pthread_mutex_destroy(&f->tlock);
	while (f->ndefer) {
		f->ndefer--;
		free(f->defer[f->ndefer].path);
		lctl_repair_report_free(f->defer[f->ndefer].rr);
	}
	free(f->defer);
	pthread_mutex_destroy(&f->dlock);
	free(f);
}
