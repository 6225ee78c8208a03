/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What lctl_fix_start() checks and takes before a fix run writes anything (fixrun.h): every
 * option (fix_validate_opts()), the scope and the preflight (every subvolume up, no remove-brick
 * in progress, the brick roots' commit hash), the state directory and the local lock, the
 * journal begun or resumed, then the volume lock, the fence of a drain that stands and the
 * pool's workers. Its order is the fix protocol's steps 1 to 3 (fix.c).
 */
#include "fixrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* how long a server's worker may take to connect to the volume and say hello */
#define POOL_HELLO_MS 120000

/* ---- locks (lock.c) ---------------------------------------------------------------------- */

static int take_local_lock(struct lctl_fix *f, struct lctl_error *err)
{
	if (f->opts.lock) {
		f->lock = f->opts.lock;
		f->lock_borrowed = true;
		return 0;
	}
	return lctl_lock_local(f->vol, f->state_dir, &f->lock, err);
}

static int take_volume_lock(struct lctl_fix *f, struct lctl_error *err)
{
	if (!f->lock_borrowed)
		return lctl_lock_volume(f->lock, f->j.run, f->opts.break_lock, err);
	if (!lctl_lock_held(f->lock))
		return lctl_seterr(err, LCTL_EBUSY, 0,
				   "the volume lock of '%s' held for this run is no longer ours "
				   "(another run broke it)",
				   lctl_volume_name(f->vol));
	return 0;
}

/*
 * A drain that stands (lock.c, its mark on the first subvolume's root): while it does, a fix
 * refuses, whatever host or state directory it runs from (a maintenance timer's would give the
 * leaving subvolumes ranges again and move files onto them). Not refused: the drain's own runs
 * (the same subvolumes), the fix after its remove-brick (it holds the drain's lock), a fix with
 * --break-lock (it abandons the drain: the mark goes), and any run once the subvolumes the mark
 * names have left the volume (the mark is stale: it goes). A drain writes the mark.
 */
static int drain_fence(struct lctl_fix *f, int ndrain, const char *drain, struct lctl_error *err)
{
	const char *vol = lctl_volume_name(f->vol);
	char mark[1024], names[1024];
	int ret = lctl_drain_mark_read(f->vol, mark, sizeof(mark));

	if (ret < 0)
		return lctl_seterr(err, LCTL_EIO, -ret,
				   "cannot read whether a drain stands on '%s': %s", vol,
				   strerror(-ret));
	if (ret && lctl_drain_mark_stale(f->vol, mark)) {
		lctl_log(LCTL_LOG_VERBOSE, "the drain of %.200s is over (its subvolumes left '%s')",
			 mark, vol);
		lctl_drain_unmark(f->vol);
		ret = 0;
	}
	snprintf(names, sizeof(names), "%s", ret ? mark : "");
	names[strcspn(names, " ")] = '\0';
	if (ndrain > 0) {
		if (ret && strcmp(names, drain))
			return lctl_seterr(err, LCTL_EBUSY, 0,
					   "a drain of %.200s stands on '%s' (%.300s): finish it "
					   "first, or abandon it ('layoutctl fix --break-lock')",
					   names, vol, mark);
		return lctl_drain_mark(f->vol, drain, err);
	}
	if (!ret || f->lock_borrowed)
		return 0;
	if (f->opts.break_lock) {
		lctl_log(LCTL_LOG_WARN,
			 "abandoning the drain of %.200s that stood on '%s' "
			 "(--break-lock): its subvolumes get ranges again",
			 names, vol);
		lctl_drain_unmark(f->vol);
		return 0;
	}
	return lctl_seterr(err, LCTL_EBUSY, 0,
			   "a drain of %.200s stands on '%s' (%.300s): a fix now would put files "
			   "back on the subvolumes it empties. Finish it ('layoutctl drain --resume "
			   "--commit' with its state directory, or 'layoutctl drain --commit'), or "
			   "abandon it ('layoutctl fix --break-lock')",
			   names, vol, mark);
}

void fix_release_locks(struct lctl_fix *f)
{
	if (!f->lock_borrowed)
		lctl_lock_free(f->lock);
	f->lock = NULL;
}

static int prepare_state_dir(struct lctl_fix *f, struct lctl_error *err)
{
	/* ours, 0700, nobody else can change it or anything above it (statedir.c) */
	return lctl_state_dir_prepare(f->state_dir, err);
}

static int preflight(struct lctl_fix *f, struct lctl_error *err)
{
	size_t i;
	bool consistent;

	for (i = 0; i < lctl_volume_nsubvols(f->vol); i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(f->vol, i);

		if (!sv->up)
			return lctl_seterr(err, LCTL_EDOWN, sv->down_errno,
					   "subvolume %s is down (%s): refusing to fix", sv->name,
					   strerror(sv->down_errno));
		if (sv->decommissioned)
			return lctl_seterr(err, LCTL_EBUSY, 0,
					   "a remove-brick is in progress on '%s' (%s is decommissioned): "
					   "commit or stop it first",
					   lctl_volume_name(f->vol), sv->name);
	}
	lctl_volume_commit_hash(f->vol, &consistent);
	if (!consistent && !f->opts.place_only && f->opts.path && strcmp(f->opts.path, "/"))
		return lctl_seterr(err, LCTL_EBUSY, 0,
				   "the brick roots disagree on the volume commit hash (a rebalance "
				   "running or interrupted?): fix the whole volume first");
	return 0;
}

/*
 * A drain (subvolumes marked leaving when the volume was opened): their names, comma-separated,
 * into @buf, as the journal records them. Return: the number of leaving subvolumes, or -1
 * when they do not fit.
 */
int fix_drain_list(struct lctl_volume *vol, char *buf, size_t size)
{
	size_t i, n = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < lctl_volume_nsubvols(vol); i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
		int w;

		if (!sv->leaving)
			continue;
		w = snprintf(buf + len, size - len, "%s%s", n ? "," : "", sv->name);
		if (w < 0 || (size_t)w >= size - len)
			return -1;
		len += (size_t)w;
		n++;
	}
	return (int)n;
}

/*
 * Every option, before anything is read or written: a run must not make the volume dirty (a
 * new volume hash, the layout pass) and then refuse to go on.
 */
int fix_validate_opts(const struct lctl_fix_opts *opts, const char *top, struct lctl_error *err)
{
	const struct lctl_fix *f = NULL; /* for the sizes of its buffers */

	if (lctl_volume_path_check(top) || strlen(top) >= sizeof(f->top))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "path '%.200s' is not an absolute path inside "
				   "the volume without '.' or '..'",
				   top);
	if (!opts->dry_run && (!opts->state_dir || !opts->state_dir[0]))
		return lctl_seterr(err, LCTL_EINVAL, 0, "a state directory is required");
	if (opts->state_dir && strlen(opts->state_dir) >= sizeof(f->state_dir))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the state directory's path is longer than "
				   "%zu bytes",
				   sizeof(f->state_dir) - 1);
	if (opts->parallel > LCTL_CRAWL_MAX_WORKERS)
		return lctl_seterr(err, LCTL_EINVAL, 0, "parallel wants 1-%d workers, not %u",
				   LCTL_CRAWL_MAX_WORKERS, opts->parallel);
	if (opts->migrations > LCTL_FIX_MAX_MIGRATIONS)
		return lctl_seterr(err, LCTL_EINVAL, 0, "migrations wants 1-%d, not %u",
				   LCTL_FIX_MAX_MIGRATIONS, opts->migrations);
	if (opts->planner != LCTL_PLANNER_GLUSTER && opts->planner != LCTL_PLANNER_MINMOVE &&
	    opts->planner != LCTL_PLANNER_EVEN_USAGE)
		return lctl_seterr(err, LCTL_EINVAL, 0, "unknown layout planner %d",
				   (int)opts->planner);
	if (opts->mode != LCTL_FIX_MIGRATE && opts->mode != LCTL_FIX_LINKTO &&
	    opts->mode != LCTL_FIX_CLEAN_FIRST)
		return lctl_seterr(err, LCTL_EINVAL, 0, "unknown fix mode %d", (int)opts->mode);
	if (opts->phase != LCTL_FIX_PHASE_ALL && opts->phase != LCTL_FIX_PHASE_CLEAN &&
	    opts->phase != LCTL_FIX_PHASE_DATA)
		return lctl_seterr(err, LCTL_EINVAL, 0, "unknown fix phase %d", (int)opts->phase);
	if (opts->phase != LCTL_FIX_PHASE_ALL && opts->mode != LCTL_FIX_CLEAN_FIRST &&
	    !opts->resume)
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "a phase is part of a clean-first run only");
	if (!(opts->files_per_sec >= 0) || !isfinite(opts->files_per_sec))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "rate wants files per second (0 for no limit), "
				   "not %g",
				   opts->files_per_sec);
	if (!(opts->bytes_per_sec >= 0) || !isfinite(opts->bytes_per_sec))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "bandwidth wants bytes per second (0 for no "
				   "limit), not %g",
				   opts->bytes_per_sec);
	if (opts->resume && opts->dry_run)
		return lctl_seterr(err, LCTL_EINVAL, 0, "resume and dry-run do not go together");
	if (opts->place_only && (opts->resume || opts->dry_run || opts->nworkers))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "a pool worker's run is started by its "
				   "starting host: no resume, dry run or workers of its own");
	if (opts->wanted && (opts->mode != LCTL_FIX_MIGRATE || opts->resume || opts->nworkers ||
			     opts->place_only || opts->lock))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "a run of listed files is a migrate run of its own, from this "
				   "host: no other mode, resume, workers or drain");
	/* the shares come from this host's measure of the volume: a worker would plan its own */
	if (opts->planner == LCTL_PLANNER_EVEN_USAGE && (opts->nworkers || opts->place_only))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the even-usage layout does not run spread over the pool");
	if (opts->nworkers && !opts->workers)
		return lctl_seterr(err, LCTL_EINVAL, 0, "%zu workers but no worker list",
				   opts->nworkers);
	/* lctl_pool_spawn() refuses more, but only after the state directory and the lock */
	if (opts->nworkers > LCTL_POOL_MAX)
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "a run spread over the pool takes at most %d servers, not %zu",
				   LCTL_POOL_MAX, opts->nworkers);
	return 0;
}

/*
 * The scope, before anything is read or written: a drain's run is a whole-volume one; the
 * preflight; the top directory there.
 */
int fix_check_scope(struct lctl_fix *f, const struct lctl_fix_opts *opts, int ndrain, bool whole,
		    struct lctl_error *err)
{
	struct lctl_volume *vol = f->vol;
	int ret;

	/*
	 * A drain moves every file off the leaving subvolumes before a directory is stamped, over
	 * the whole volume, from this host (its DHT graph has them decommissioned: pool workers'
	 * graphs do not, and would refuse hard-linked files).
	 */
	if (ndrain && (!whole || opts->place_only || opts->nworkers ||
		       (!opts->resume && opts->mode != LCTL_FIX_MIGRATE)))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "a drain is a whole-volume run in migrate mode "
				   "from one host");
	ret = preflight(f, err);
	if (ret)
		return ret;
	if (!opts->dry_run && !opts->resume) {
		struct stat st;

		/* through DHT: a lookup there heals, where a raw one could assign gfids */
		if (glfs_lstat(lctl_volume_fs(vol), f->top, &st) || !S_ISDIR(st.st_mode))
			return lctl_seterr(err, LCTL_EIO, errno ? errno : ENOTDIR,
					   "no directory '%.200s' in volume '%.40s'", f->top,
					   lctl_volume_name(vol));
	}
	return 0;
}

/*
 * --resume: the journal of the run to go on with, which must be this volume's and of the same
 * kind (a fix, or a drain of the same subvolumes), and not finished; its scope, mode, planner
 * and phase become the run's (*@whole: its scope is the whole volume).
 */
static int resume_journal(struct lctl_fix *f, const struct lctl_fix_opts *opts, const char *drain,
			  int ndrain, bool *whole, struct lctl_error *err)
{
	struct lctl_volume *vol = f->vol;
	uint32_t now_h;
	bool consistent;
	int ret;

	ret = lctl_journal_read(f->state_dir, &f->j, err);
	if (ret)
		return ret;
	if (strcmp(f->j.volume, lctl_volume_name(vol)))
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the journal in '%.100s' is for volume '%.60s': use that "
				   "volume's state directory, or start without --resume",
				   f->state_dir, f->j.volume);
	if (strcmp(f->j.drain, drain)) {
		if (!f->j.drain[0])
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "the last run in '%.100s' "
					  "was a fix: resume it with 'layoutctl fix "
					  "--resume'",
					  f->state_dir);
		else if (!ndrain)
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "the last run in '%.100s' "
					  "was a drain of %.200s: resume it with "
					  "'layoutctl drain --resume'",
					  f->state_dir, f->j.drain);
		else
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "the last run in '%.100s' "
					  "drained %.200s, not %.200s: name the same "
					  "subvolumes",
					  f->state_dir, f->j.drain, drain);
		return ret;
	}
	if (!strcmp(f->j.phase, "done"))
		return lctl_seterr(err, LCTL_EINVAL, 0, "the last run finished: nothing to resume");
	f->data_only = !strcmp(f->j.phase, "data");
	/* clean since then only while the journal says the directories are */
	if (!f->data_only)
		f->j.clean_since = 0;
	if (opts->phase == LCTL_FIX_PHASE_DATA && !f->data_only)
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the last run has not made every "
				   "directory clean yet: resume it without --phase data");
	if (opts->phase == LCTL_FIX_PHASE_CLEAN && f->data_only)
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the last run made every directory "
				   "clean already: only its data phase is left");
	/*
	 * A run started with --phase clean goes on with it while its directories
	 * are not all clean; once they are, --resume moves its data.
	 */
	if (opts->phase == LCTL_FIX_PHASE_ALL && f->j.clean_only && !f->data_only)
		f->opts.phase = LCTL_FIX_PHASE_CLEAN;
	f->j.clean_only = f->opts.phase == LCTL_FIX_PHASE_CLEAN;
	snprintf(f->top, sizeof(f->top), "%s", f->j.scope);
	*whole = !strcmp(f->top, "/");
	f->opts.mode = f->j.mode;
	f->opts.planner = f->j.planner;
	/* a run started with --force-move goes on with it; --resume may add it */
	f->opts.force_move = f->j.force_move || opts->force_move;
	f->j.force_move = f->opts.force_move;
	/*
	 * Something changed the volume hash since (a GlusterFS rebalance, say): what we
	 * stamped is dirty again, and stamping H now would not make anything clean.
	 * Start over from the dirty phase: with our H on the roots again for a
	 * whole-volume run, with the volume's new hash for a subtree.
	 */
	now_h = lctl_volume_commit_hash(vol, &consistent);
	if (now_h != f->j.commit || !consistent) {
		lctl_log(LCTL_LOG_WARN, "the volume commit hash changed since the run "
					"started: making its directories dirty again");
		if (!*whole)
			f->j.commit = now_h;
		snprintf(f->j.phase, sizeof(f->j.phase), "dirty");
		f->data_only = false;
		f->j.clean_since = 0;
		if (opts->phase == LCTL_FIX_PHASE_DATA)
			return lctl_seterr(err, LCTL_EBUSY, 0,
					   "the volume commit hash "
					   "changed: its directories need cleaning again "
					   "(resume without --phase data)");
	}
	return 0;
}

/* A new run's journal: its name, scope, mode and the commit hash H it will stamp. */
static int new_journal(struct lctl_fix *f, const struct lctl_fix_opts *opts, const char *drain,
		       bool whole, struct lctl_error *err)
{
	struct lctl_volume *vol = f->vol;
	struct timespec now;
	bool consistent;

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(f->j.volume, sizeof(f->j.volume), "%s", lctl_volume_name(vol));
	snprintf(f->j.run, sizeof(f->j.run), "%lld-%ld", (long long)now.tv_sec, (long)getpid());
	f->j.started = now.tv_sec;
	snprintf(f->j.scope, sizeof(f->j.scope), "%s", f->top);
	f->j.mode = opts->mode;
	f->j.planner = opts->planner;
	f->j.force_move = opts->force_move;
	f->j.clean_only = opts->phase == LCTL_FIX_PHASE_CLEAN;
	snprintf(f->j.drain, sizeof(f->j.drain), "%s", drain);
	f->j.commit = whole ? lctl_commit_hash_new(&now) : lctl_volume_commit_hash(vol, NULL);
	if (opts->phase == LCTL_FIX_PHASE_DATA) {
		/* the directories are clean already: with the volume's own hash */
		f->j.commit = lctl_volume_commit_hash(vol, &consistent);
		if (!consistent)
			return lctl_seterr(err, LCTL_EBUSY, 0,
					   "the brick roots disagree "
					   "on the volume commit hash: run a whole fix "
					   "(both phases) first");
		f->data_only = true;
	}
	return 0;
}

/*
 * A run that writes: the state directory, the local lock and the kept modes; the journal,
 * resumed or begun (a pool worker has none: the starting host holds it).
 */
int fix_open_state(struct lctl_fix *f, const struct lctl_fix_opts *opts, const char *drain,
		   int ndrain, bool *whole, struct lctl_error *err)
{
	int ret;

	ret = prepare_state_dir(f, err);
	if (ret)
		return ret;
	ret = take_local_lock(f, err);
	if (ret)
		return ret;
	f->modes_open = true;
	ret = lctl_modes_open(&f->modes, f->state_dir, err);
	if (ret)
		return ret;
	if (opts->place_only) {
		/* a pool worker: the starting host holds the volume lock and the journal */
		return 0;
	}
	if (opts->resume)
		return resume_journal(f, opts, drain, ndrain, whole, err);
	return new_journal(f, opts, drain, *whole, err);
}

/*
 * The starting host's claim on the volume: its lock, the fence of a drain that stands, the
 * pool's workers started; and whether the journal says the dirty phase is behind.
 */
int fix_claim_volume(struct lctl_fix *f, const struct lctl_fix_opts *opts, int ndrain,
		     const char *drain, struct lctl_error *err)
{
	int ret;

	ret = take_volume_lock(f, err);
	if (ret)
		return ret;
	ret = drain_fence(f, ndrain, drain, err);
	if (ret)
		return ret;
	/* every server's worker answers before anything is written (FIX_HELLO) */
	if (opts->nworkers && (f->opts.mode == LCTL_FIX_MIGRATE ||
			       (f->two_phase && f->opts.phase != LCTL_FIX_PHASE_CLEAN))) {
		ret = lctl_pool_spawn(opts->workers, opts->nworkers, POOL_HELLO_MS,
				      opts->hang_timeout_s, &f->pool, err);
		if (ret)
			return ret;
	}
	f->dirty_done = !strcmp(f->j.phase, "work") || !strcmp(f->j.phase, "stopped") ||
			!strcmp(f->j.phase, "place") || f->data_only;
	return 0;
}
