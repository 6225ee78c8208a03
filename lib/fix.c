/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix run: preflight, locks, journal, the dirty phase, the parallel repair, the top last.
 *
 * Order (the fix protocol: docs/design.md, "The fix protocol as implemented", which the
 * team's shared architecture.md section 3 describes; the words held, ripe and deferral are
 * defined in design.md, "The fix job's words"):
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
 * clean) waits out its settle period held aside while the workers go on (defer_dir()). A run
 * stopped in that phase resumes in it; `--phase data` starts there.
 *
 * A resumed run reuses the journal's H, so directories stamped before the stop are clean
 * and only cost one inspection.
 *
 * Threads: workers run visit(); the caller's thread runs lctl_fix_next() and the top
 * directory. Shared state: the stop flag and counters (atomics), the throttle (its mutex).
 */
#include "internal.h"
#include "crawl.h"
#include "inspect.h"
#include "journal.h"
#include "health.h"
#include "lock.h"
#include "pool.h"
#include "repair.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* how long a server's worker may take to connect to the volume and say hello */
#define POOL_HELLO_MS 120000

/*
 * Where a run is: lctl_fix_start() returns once the locks are taken (cheap), and
 * lctl_fix_next() drives the rest, so that its caller shows every phase as it happens.
 */
enum fix_stage {
	FIX_HELLO = 1, /* preflight: the pool's workers are starting; nothing written yet */
	FIX_LAYOUT,    /* the layout pass (f->crawl runs dirty_visit) */
	FIX_SETTLE,    /* the settle period, until settle_end */
	FIX_RUN,       /* place, work, top, data: the walks below */
};

/* A directory held for its settle period (struct lctl_fix, defer). */
struct deferral {
	char *path;
	unsigned depth;
	double ripe; /* monotonic: the settle period is over */
	struct lctl_repair_report *rr;
	bool link; /* held by the linkto pass (lctl_repair_dir_early()) */
};

struct lctl_fix {
	struct lctl_volume *vol;
	struct lctl_fix_opts opts;
	char state_dir[4096];
	char top[4096];
	struct lctl_inspector in;
	struct lctl_repair_ctx rc;
	struct lctl_journal j;
	struct lctl_modes modes; /* kept setgid/sticky modes (journal.h) */
	struct lctl_slots slots; /* one migration at a time per subvolume (slots.c) */
	bool modes_open;
	struct lctl_crawl *crawl; /* the walk below the top, then the top's own */
	struct lctl_pool *pool;	  /* a run spread over the pool: the servers' workers */
	bool placing;		  /* the workers are moving their shares */
	bool pool_stopped;	  /* "stop" sent to them */
	bool pool_paused;
	bool pool_went;	   /* "go" sent: they move their shares once per run */
	const char *phase; /* for progress: dirty, place, work, top, data */
	bool two_phase;	   /* LCTL_FIX_CLEAN_FIRST */
	bool data_only;	   /* a clean-first run that starts in the data phase */
	bool data_started; /* the data phase's walk is (or was) running */
	double clean_at;   /* seconds after the start: every directory clean */
	/*
	 * Directories the first phase of this run could not make clean (sorted when the data
	 * phase starts), and which of them the data phase repaired after all (it does what a
	 * linkto pass cannot, such as finishing an interrupted migration). Consumer thread only.
	 */
	char **unclean;
	bool *repaired;
	size_t nunclean, unclean_cap, nrepaired;
	/*
	 * What the first phase did in those directories, one key per outcome (action, then the
	 * path: met_key()), so that the data phase's repair of one counts a name it meets again
	 * with the same action once (a leftover or a hard link skipped in both). Consumer only.
	 */
	char **met;
	size_t nmet, met_cap;
	bool met_sorted;
	/* the hard-linked files counted, per action: their names are one file */
	struct lctl_file_set hard_files;
	bool stopped_dirty;   /* stopped in the layout pass or the settle period */
	enum fix_stage stage; /* consumer thread only */
	bool whole;	      /* a whole-volume run: a new volume hash */
	bool dirty_done;      /* the journal says the layout pass and settle are done */
	double settle_end;    /* monotonic time the settle period ends (FIX_SETTLE) */
	bool refused;	      /* ended before anything was written (FIX_HELLO) */
	int failed;	      /* a stage could not go on: -LCTL_E*, message in fail_err */
	struct lctl_error fail_err;
	bool hung; /* a worker hung in GlusterFS: see hang_check() */
	bool top_started;
	/* counts of the first walk once the top's started; of the layout pass while settling */
	uint64_t base_seen, base_done;
	struct lctl_fix_summary sum; /* consumer thread only */
	struct timespec start;
	struct lctl_lock *lock; /* lock.c; the caller's when lock_borrowed (opts.lock) */
	bool lock_borrowed;
	bool top_done;
	atomic_bool stop;
	atomic_bool paused;
	atomic_bool deadline_hit;
	atomic_uint_fast64_t files, bytes, not_clean;
	_Atomic uint64_t live[LCTL_FILE_ACTION_COUNT];
	_Atomic uint64_t live_bytes;

	pthread_mutex_t tlock; /* protects next_slot */
	double next_slot;      /* throttle: monotonic time the next item may start */

	/*
	 * Directories waiting out a settle period while the workers go on with others: in the
	 * data phase, those made dirty for their special files (lctl_repair_data(), deferred);
	 * in an early linkto pass, those whose links are made (lctl_repair_dir_early(), held). A
	 * worker takes the ripe ones before its next directory, and a last walk of the phase
	 * (ripe_visit()) the rest. In the order they were held, so ripe ones first.
	 */
	pthread_mutex_t dlock;
	struct deferral *defer;
	size_t ndefer, defer_cap;
	bool ripe_started;	 /* the last walk, of the deferred directories, runs */
	atomic_bool ripe_pushed; /* its first visit queued them */
	/*
	 * The linkto pass (a linkto run, or the first phase of a clean-first one) started at the
	 * end of the layout pass: its links are made during the settle period, the rest of each
	 * directory held until it is over (lctl_repair_dir_early()).
	 */
	bool early;
	/*
	 * Held while a subvolume is gone (hold_while_down()): since when, and why, under
	 * hold_lock; held_out once held past opts.hold_limit_s (the run stops, resumable).
	 */
	struct lctl_health health;
	pthread_mutex_t hold_lock;
	atomic_bool held, held_out;
	double held_since;
	char held_why[200];
};

/* The end of the time window, or the caller's stop flag (a signal), stops the run. */
static bool deadline_passed(struct lctl_fix *f)
{
	if (f->opts.deadline && time(NULL) >= f->opts.deadline && !atomic_load(&f->stop)) {
		atomic_store(&f->deadline_hit, true);
		atomic_store(&f->stop, true);
	}
	if (f->opts.stop_flag && *f->opts.stop_flag)
		atomic_store(&f->stop, true);
	return atomic_load(&f->stop);
}

static bool fix_should_stop(void *arg)
{
	struct lctl_fix *f = arg;

	while (atomic_load(&f->paused) && !atomic_load(&f->stop)) {
		lctl_crawl_beat(); /* paused is no hang */
		usleep(100000);
	}
	return deadline_passed(f);
}

/* Rate limits: each item books a slot of 1/files_per_sec and bytes/bytes_per_sec seconds. */
static void fix_throttle(void *arg, uint64_t bytes)
{
	struct lctl_fix *f = arg;
	double cost = 0, start, now;

	/* under tlock: the pace may change while the run goes on (lctl_fix_set_pace()) */
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
	pthread_mutex_unlock(&f->tlock);
	while ((now = lctl_mono_seconds()) < start && !fix_should_stop(f)) {
		lctl_crawl_beat();
		usleep((useconds_t)((start - now) > 0.2 ? 200000 : (start - now) * 1e6 + 1));
	}
}

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

static void release_locks(struct lctl_fix *f)
{
	if (!f->lock_borrowed)
		lctl_lock_free(f->lock);
	f->lock = NULL;
}

/* ---- the dirty phase --------------------------------------------------------------------- */

static int write_volume_commit(struct lctl_fix *f, uint32_t h, struct lctl_error *err)
{
	char buf[LCTL_COMMITHASH_MAXLEN + 1];
	size_t i;
	int len = lctl_commithash_encode(h, buf, sizeof(buf));

	if (len < 0)
		return lctl_seterr(err, LCTL_EINVAL, 0, "cannot encode commit hash");
	for (i = 0; i < lctl_volume_nsubvols(f->vol); i++)
		if (glfs_setxattr(lctl_volume_subvol_fs(f->vol, i), "/", LCTL_COMMITHASH_XATTR, buf,
				  (size_t)len, 0))
			return lctl_seterr(err, LCTL_EIO, errno,
					   "cannot write the volume commit hash on %s: %s",
					   lctl_volume_subvol(f->vol, i)->name, strerror(errno));
	return 0;
}

/*
 * The layout pass, before the settle period: every directory in scope gets its final ranges
 * (created where it is missing), written dirty with commit word 1, so that clients pick up
 * the new layout while nothing has moved yet (as GlusterFS's fix-layout before migration).
 */
struct names {
	char **v;
	size_t n, cap;
	bool nomem;
};

static int keep_child(void *arg, const char *name)
{
	struct names *ns = arg;

	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 16;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	if (!ns->v[ns->n])
		goto nomem;
	ns->n++;
	return 0;
nomem:
	ns->nomem = true;
	return -LCTL_ENOMEM;
}

/*
 * The subdirectories are queued only once this directory has its layout on every subvolume:
 * a subdirectory missing on a new subvolume is created by a lookup through DHT, which also
 * looks its parent up, and a parent still missing there (or half-way through our layout
 * write) would be healed by DHT with a layout of its own, racing ours.
 */
static void *dirty_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_crawl_child pc = { w, path, depth };
	struct names ns = { 0 };
	struct lctl_inspect_children ch = { keep_child, &ns };
	bool ok = false;
	size_t i;

	if (deadline_passed(f))
		return NULL; /* stopped: the rest stays as it is, dirty, for --resume */
	if (lctl_repair_layout(&f->rc, path, depth, &ch, &ok) || !ok || ns.nomem)
		atomic_fetch_add(&f->not_clean, 1);
	for (i = 0; i < ns.n; i++) {
		lctl_crawl_push_child(&pc, ns.v[i]);
		free(ns.v[i]);
	}
	free(ns.v);
	return NULL;
}

/* The layout pass runs as f->crawl; lctl_fix_next() takes it from there (FIX_LAYOUT). */
static int start_layout(struct lctl_fix *f, struct lctl_error *err)
{
	struct lctl_crawl_cfg cfg = { 0 };
	int ret;

	cfg.nworkers = f->opts.parallel ? f->opts.parallel : 8;
	cfg.visit = dirty_visit;
	cfg.arg = f;
	ret = lctl_crawl_start(&cfg, f->top, &f->crawl, err);
	if (ret)
		return ret;
	f->stage = FIX_LAYOUT;
	f->phase = "layout";
	return 0;
}

static int start_work(struct lctl_fix *f, struct lctl_error *err);

/* Every directory had its turn: the settle period starts. */
static void end_layout(struct lctl_fix *f)
{
	struct lctl_crawl_stats st;

	/* the layout pass's directories stay on show during the settle period */
	lctl_crawl_stats(f->crawl, &st);
	f->base_seen = st.dirs_seen;
	f->base_done = st.dirs_done;
	lctl_crawl_free(f->crawl);
	f->crawl = NULL;
	/* those directories are refused by the work pass too, and reported there */
	if (atomic_load(&f->not_clean))
		lctl_log(LCTL_LOG_WARN, "%llu directories could not be given their layout",
			 (unsigned long long)atomic_load(&f->not_clean));
	atomic_store(&f->not_clean, 0);
	f->settle_end = lctl_mono_seconds() + f->opts.settle_ms / 1000.0;
	f->stage = FIX_SETTLE;
	f->phase = "settle";
	/*
	 * A linkto pass makes its links during the settle period: only lookups, which hide
	 * nothing from a client that has not seen the new layout yet; the rest of each
	 * directory waits for its end (repair.c, lctl_repair_dir_early()). The journal says
	 * "work" only then: a run stopped before goes back to the layout pass on --resume.
	 */
	if (f->rc.mode == LCTL_FIX_LINKTO && f->opts.settle_ms && !f->opts.dry_run &&
	    !f->opts.place_only && !f->data_only && (!f->pool || f->two_phase) &&
	    !deadline_passed(f)) {
		f->in.vol_commit = f->sum.commit;
		f->early = true;
		if (start_work(f, NULL)) {
			f->early = false;
			f->crawl = NULL;
		} else {
			f->base_seen = f->base_done = 0;
		}
	}
}

/* ---- the repair crawl -------------------------------------------------------------------- */

static struct lctl_repair_report *failed_report(const char *path, int code)
{
	struct lctl_repair_report *rr = calloc(1, sizeof(*rr));

	if (!rr)
		return NULL;
	rr->path = strdup(path);
	rr->outcome = LCTL_DIR_NOT_FIXED;
	snprintf(rr->reason, sizeof(rr->reason), "cannot inspect: %s", lctl_strerror(code));
	return rr;
}

static void count_report(struct lctl_fix *f, const struct lctl_repair_report *rr)
{
	if (rr->plan)
		atomic_fetch_add(&f->files, rr->plan->nfiles);
	atomic_fetch_add(&f->bytes, rr->bytes_moved);
	if (rr->outcome == LCTL_DIR_NOT_FIXED || rr->outcome == LCTL_DIR_STOPPED)
		atomic_fetch_add(&f->not_clean, 1);
}

/* At most this many directories (with their inspections) held by an early linkto pass. */
#define EARLY_HOLD_MAX 1024

static size_t held_count(struct lctl_fix *f)
{
	size_t n;

	pthread_mutex_lock(&f->dlock);
	n = f->ndefer;
	pthread_mutex_unlock(&f->dlock);
	return n;
}

/* rc.settling: an early linkto pass while the settle period runs. */
static bool fix_settling(void *arg)
{
	struct lctl_fix *f = arg;

	return f->early && lctl_mono_seconds() < f->settle_end;
}

/* Sleep until @ripe (monotonic), a stop cutting it short; signs of life meanwhile. */
static void wait_ripe(struct lctl_fix *f, double ripe)
{
	double now;

	while (!fix_should_stop(f) && (now = lctl_mono_seconds()) < ripe) {
		lctl_crawl_beat(); /* the settle period is no hang */
		usleep((useconds_t)((ripe - now) > 0.1 ? 100000 : (ripe - now) * 1e6 + 1));
	}
}

/*
 * The rest of the directory @path held with the report @rr (struct deferral), its settle
 * period over: its final report.
 */
static struct lctl_repair_report *finish_held(struct lctl_fix *f, const char *path, unsigned depth,
					      struct lctl_repair_report *rr, bool link)
{
	struct lctl_repair_report *out = NULL;
	int ret = link ? lctl_repair_dir_held(&f->rc, path, depth, rr, &out)
		       : lctl_repair_specials(&f->rc, path, depth, rr, &out);

	if (ret)
		out = failed_report(path, ret);
	if (out)
		count_report(f, out);
	return out;
}

static struct lctl_repair_report *finish_deferred(struct lctl_fix *f, struct deferral *d)
{
	struct lctl_repair_report *rr = finish_held(f, d->path, d->depth, d->rr, d->link);

	free(d->path);
	return rr;
}

/*
 * Hold the report @rr of the directory @path (struct deferral) until @ripe, its settle period
 * over; without memory for that, wait here. Return: the report to hand on now, or NULL.
 */
static struct lctl_repair_report *defer_dir(struct lctl_fix *f, const char *path, unsigned depth,
					    struct lctl_repair_report *rr, double ripe, bool link)
{
	struct deferral d = { strdup(path), depth, ripe, rr, link };
	bool held = false;

	pthread_mutex_lock(&f->dlock);
	if (d.path && f->ndefer == f->defer_cap) {
		size_t cap = f->defer_cap ? f->defer_cap * 2 : 16;
		struct deferral *v = realloc(f->defer, cap * sizeof(*v));

		if (v) {
			f->defer = v;
			f->defer_cap = cap;
		}
	}
	if (d.path && f->ndefer < f->defer_cap) {
		f->defer[f->ndefer++] = d;
		held = true;
	}
	pthread_mutex_unlock(&f->dlock);
	if (held)
		return NULL;
	free(d.path);
	wait_ripe(f, ripe);
	return finish_held(f, path, depth, rr, link);
}

/* Before a worker's next directory: the deferred ones whose settle period is over. */
static void serve_ripe(struct lctl_fix *f, struct lctl_crawl_worker *w)
{
	struct lctl_repair_report *rr;
	struct deferral d;

	while (!fix_should_stop(f)) {
		pthread_mutex_lock(&f->dlock);
		if (!f->ndefer || f->defer[0].ripe > lctl_mono_seconds()) {
			pthread_mutex_unlock(&f->dlock);
			return;
		}
		d = f->defer[0];
		memmove(f->defer, f->defer + 1, --f->ndefer * sizeof(*f->defer));
		pthread_mutex_unlock(&f->dlock);
		rr = finish_deferred(f, &d);
		if (rr)
			lctl_crawl_emit(w, rr);
	}
}

/*
 * The last walk of the data phase: its first visit (the top) queues every deferred directory
 * still held; each of those then waits out its settle period and is finished.
 */
static void *ripe_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct deferral d = { 0 };
	size_t i;

	if (!atomic_exchange(&f->ripe_pushed, true)) {
		pthread_mutex_lock(&f->dlock);
		for (i = 0; i < f->ndefer; i++)
			lctl_crawl_push(w, f->defer[i].path, f->defer[i].depth);
		pthread_mutex_unlock(&f->dlock);
		return NULL;
	}
	pthread_mutex_lock(&f->dlock);
	for (i = 0; i < f->ndefer && strcmp(f->defer[i].path, path); i++)
		;
	if (i < f->ndefer) {
		d = f->defer[i];
		memmove(f->defer + i, f->defer + i + 1, (f->ndefer - i - 1) * sizeof(*f->defer));
		f->ndefer--;
	}
	pthread_mutex_unlock(&f->dlock);
	(void)depth;
	if (!d.path)
		return NULL;
	wait_ripe(f, d.ripe);
	return finish_deferred(f, &d);
}

/*
 * One visit of the directory @path: its report, or NULL. *@settled: it went to (or came from)
 * the settle period's deferral, counted there, and stands as it is; else the caller counts
 * it when *@count (a failure to inspect or repair is handed on uncounted). Children are
 * pushed when @push, and *@pushed says whether they were.
 */
static struct lctl_repair_report *visit_dir(struct lctl_fix *f, struct lctl_crawl_worker *w,
					    const char *path, unsigned depth, bool push,
					    bool *pushed, bool *settled, bool *count)
{
	struct lctl_crawl_child pc = { w, path, depth };
	struct lctl_inspect_children ch = { lctl_crawl_push_child, &pc };
	struct lctl_repair_report *rr = NULL;
	struct lctl_dir_report *r;
	int ret;

	*settled = *count = false;
	ret = lctl_inspect(&f->in, path, depth, push ? &ch : NULL, &r);
	if (ret)
		return failed_report(path, ret);
	*pushed = push;
	if (f->opts.place_only) {
		ret = lctl_repair_place(&f->rc, path, depth, r, &rr);
		*count = !ret;
		return ret ? failed_report(path, ret) : rr;
	}
	serve_ripe(f, w);
	if (f->data_started) {
		/* the data phase: every directory alike, the top too, all stamped already */
		bool deferred = false;

		ret = lctl_repair_data(&f->rc, path, depth, r, &rr, &deferred);
		if (!ret && deferred) {
			*settled = true;
			return defer_dir(f, path, depth, rr,
					 lctl_mono_seconds() + f->opts.settle_ms / 1000.0, false);
		}
	} else if (depth == 0) {
		/* the top directory is repaired last, by the consumer */
		lctl_dir_report_free(r);
		return NULL;
	} else {
		bool held = false;

		if (f->early && held_count(f) >= EARLY_HOLD_MAX)
			wait_ripe(f,
				  f->settle_end); /* memory: no more held, the settle period ends */
		ret = lctl_repair_dir_early(&f->rc, path, depth, r, &rr, &held);
		if (!ret && held) {
			*settled = true;
			return defer_dir(f, path, depth, rr, f->settle_end, true);
		}
	}
	*count = !ret;
	return ret ? failed_report(path, ret) : rr;
}

/* ---- holding while a subvolume is gone (struct lctl_fix_opts.hold_limit_s) ---------------- */

#define HEALTH_PROBE_MS 1000

/* Subvolumes gone now, but not all of them (a stopped volume, or this host cut off). */
static bool partly_down(struct lctl_fix *f, bool fresh, char *why, size_t size)
{
	size_t n = lctl_health_down(&f->health, fresh, why, size);

	return n && n < lctl_volume_nsubvols(f->vol);
}

/*
 * Wait while a subvolume is gone. Return: true to go on (whole again, or nothing to wait
 * for), false to stop: a stop, or held past the limit (the run then stops, resumable).
 */
static bool hold_while_down(struct lctl_fix *f)
{
	char why[200];
	double since;

	if (!f->opts.hold_limit_s)
		return true;
	for (;;) {
		if (fix_should_stop(f))
			return false;
		if (!partly_down(f, false, why, sizeof(why))) {
			pthread_mutex_lock(&f->hold_lock);
			if (atomic_load(&f->held)) {
				atomic_store(&f->held, false);
				lctl_log(LCTL_LOG_INFO,
					 "the volume is whole again after %.0f s: going on",
					 lctl_mono_seconds() - f->held_since);
			}
			pthread_mutex_unlock(&f->hold_lock);
			return true;
		}
		pthread_mutex_lock(&f->hold_lock);
		if (!atomic_load(&f->held)) {
			f->held_since = lctl_mono_seconds();
			atomic_store(&f->held, true);
			lctl_log(LCTL_LOG_WARN, "held: %s", why);
		}
		snprintf(f->held_why, sizeof(f->held_why), "%s", why);
		since = f->held_since;
		pthread_mutex_unlock(&f->hold_lock);
		if (lctl_mono_seconds() - since > f->opts.hold_limit_s) {
			atomic_store(&f->held_out, true);
			atomic_store(&f->stop, true);
			return false;
		}
		lctl_crawl_beat(); /* held is no hang */
		usleep(200000);
	}
}

/* A report that went wrong in a way a subvolume gone meanwhile explains. */
static bool went_wrong(const struct lctl_repair_report *rr)
{
	return rr->outcome == LCTL_DIR_NOT_FIXED || rr->count[LCTL_FILE_FAILED];
}

/*
 * A directory, held before it while a subvolume is gone; one that went wrong while one was
 * gone is done again once it is back (its first report dropped: what it did stays done, the
 * new inspection sees it), so a brick that goes away and comes back costs time, no failed
 * file. Its children are pushed by the first visit that inspected it.
 */
static void *fix_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_repair_report *rr;
	bool pushed = false, settled, count;

	for (;;) {
		if (fix_should_stop(f) || !hold_while_down(f))
			return NULL;
		rr = visit_dir(f, w, path, depth, !pushed, &pushed, &settled, &count);
		if (!rr || settled)
			return rr;
		if (!f->opts.hold_limit_s || !went_wrong(rr) || !partly_down(f, true, NULL, 0)) {
			if (count)
				count_report(f, rr);
			return rr;
		}
		lctl_repair_report_free(rr);
	}
}

/* The top directory, last, in a walk of its own so the consumer stays responsive. */
static void *top_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_repair_report *rr = NULL;
	int ret;

	(void)w;
	if (fix_should_stop(f))
		return NULL;
	ret = lctl_repair_dir(&f->rc, path, depth, NULL, &rr);
	if (ret)
		return failed_report(path, ret);
	count_report(f, rr);
	return rr;
}

static void fix_drop(void *arg, void *r)
{
	(void)arg;
	lctl_repair_report_free(r);
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

static int set_phase(struct lctl_fix *f, const char *phase, struct lctl_error *err)
{
	snprintf(f->j.phase, sizeof(f->j.phase), "%s", phase);
	return lctl_journal_write(f->state_dir, &f->j, err);
}

/*
 * Every directory is clean from now on (a clean-first run): when, for progress and the report,
 * and in the journal, so that a run resumed in the data phase can say since when.
 */
static void mark_clean(struct lctl_fix *f)
{
	struct lctl_error e = { 0 };

	if (!f->two_phase || f->clean_at > 0)
		return;
	f->clean_at =
		lctl_mono_seconds() - ((double)f->start.tv_sec + (double)f->start.tv_nsec / 1e9);
	f->j.clean_since = time(NULL);
	if (f->opts.dry_run || f->opts.place_only)
		return;
	if (lctl_journal_write(f->state_dir, &f->j, &e))
		lctl_log(LCTL_LOG_WARN,
			 "cannot record in the journal when the volume became clean: %s", e.msg);
}

/* Whether server @s's worker placed all of its share (repair.c asks before stamping). */
static bool mover_done(void *arg, size_t s)
{
	struct lctl_fix *f = arg;

	return lctl_pool_server_done(f->pool, s);
}

/*
 * Add what the pool's workers did to @files and @names (per enum lctl_file_action) and @bytes
 * (a worker's counts are of names: each is taken for a file of its own).
 */
static void pool_totals(struct lctl_fix *f, uint64_t *files, uint64_t *names, uint64_t *bytes)
{
	struct lctl_server_progress sp[LCTL_POOL_MAX];
	size_t i, n = lctl_pool_progress(f->pool, sp, LCTL_POOL_MAX);

	for (i = 0; i < n; i++) {
		files[LCTL_FILE_MIGRATED] += sp[i].migrated;
		files[LCTL_FILE_SKIPPED] += sp[i].skipped;
		files[LCTL_FILE_FAILED] += sp[i].failed;
		names[LCTL_FILE_MIGRATED] += sp[i].migrated;
		names[LCTL_FILE_SKIPPED] += sp[i].skipped;
		names[LCTL_FILE_FAILED] += sp[i].failed;
		*bytes += sp[i].bytes;
	}
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
	while (!deadline_passed(f) && (now = lctl_mono_seconds()) < end)
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

/* How many threads a walk of the run has (and a directory's links: repair.c). */
static unsigned fix_parallel(const struct lctl_fix_opts *o)
{
	return o->parallel ? o->parallel : LCTL_FIX_DEFAULT_PARALLEL;
}

/* The repair walk of everything below the top (or, for a pool worker, of all of it). */
static int start_work(struct lctl_fix *f, struct lctl_error *err)
{
	struct lctl_crawl_cfg cfg = { 0 };

	cfg.nworkers = fix_parallel(&f->opts);
	cfg.visit = fix_visit;
	cfg.drop = fix_drop;
	cfg.arg = f;
	return lctl_crawl_start(&cfg, f->top, &f->crawl, err);
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
		f->phase = "place";
		pool_go(f);
		return 0;
	}
	if (f->nunclean) {
		qsort(f->unclean, f->nunclean, sizeof(char *), lctl_cmp_strp);
		/* out of memory: none counts as repaired, the run ends not clean, resumable */
		f->repaired = calloc(f->nunclean, sizeof(bool));
	}
	f->data_started = true;
	f->phase = "data";
	f->base_seen = f->base_done = 0;
	f->ripe_started = false;
	atomic_store(&f->ripe_pushed, false);
	return start_work(f, err);
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
		f->phase = "place";
		f->placing = true;
		pool_go(f);
		return 0;
	}
	f->phase = "work";
	return start_work(f, err);
}

/* The first writes: the journal, then the dirty phase (FIX_LAYOUT), or straight to the walk. */
static int begin_run(struct lctl_fix *f, struct lctl_error *err)
{
	bool writes = !f->opts.dry_run && !f->opts.place_only;
	int ret;

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
	return ret ? ret : start_layout(f, err);
}

/*
 * A drain (subvolumes marked leaving when the volume was opened): their names, comma-separated,
 * into @buf, as the journal records them. Return: the number of leaving subvolumes, or -1
 * when they do not fit.
 */
static int drain_list(struct lctl_volume *vol, char *buf, size_t size)
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
static int validate_opts(const struct lctl_fix_opts *opts, const char *top, struct lctl_error *err)
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
	if (opts->planner != LCTL_PLANNER_GLUSTER && opts->planner != LCTL_PLANNER_MINMOVE)
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

int lctl_fix_start(struct lctl_volume *vol, const struct lctl_fix_opts *opts, struct lctl_fix **out,
		   struct lctl_error *err)
{
	struct lctl_fix *f;
	const char *top = opts->path && opts->path[0] ? opts->path : "/";
	bool whole = !strcmp(top, "/"), consistent;
	char drain[sizeof(f->j.drain)];
	int ndrain;
	uint32_t now_h;
	struct timespec now;
	int ret;

	*out = NULL;
	ret = validate_opts(opts, top, err);
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	f->vol = vol;
	f->opts = *opts;
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
	ndrain = drain_list(vol, drain, sizeof(drain));
	if (ndrain < 0) {
		ret = lctl_seterr(err, LCTL_EINVAL, 0, "too many subvolumes to drain at once");
		goto fail;
	}
	/*
	 * A drain moves every file off the leaving subvolumes before a directory is stamped, over
	 * the whole volume, from this host (its DHT graph has them decommissioned: pool workers'
	 * graphs do not, and would refuse hard-linked files).
	 */
	if (ndrain && (!whole || opts->place_only || opts->nworkers ||
		       (!opts->resume && opts->mode != LCTL_FIX_MIGRATE))) {
		ret = lctl_seterr(err, LCTL_EINVAL, 0,
				  "a drain is a whole-volume run in migrate mode "
				  "from one host");
		goto fail;
	}
	ret = preflight(f, err);
	if (ret)
		goto fail;
	if (!opts->dry_run && !opts->resume) {
		struct stat st;

		/* through DHT: a lookup there heals, where a raw one could assign gfids */
		if (glfs_lstat(lctl_volume_fs(vol), f->top, &st) || !S_ISDIR(st.st_mode)) {
			ret = lctl_seterr(err, LCTL_EIO, errno ? errno : ENOTDIR,
					  "no directory '%.200s' in volume '%.40s'", f->top,
					  lctl_volume_name(vol));
			goto fail;
		}
	}

	if (!opts->dry_run) {
		ret = prepare_state_dir(f, err);
		if (ret)
			goto fail;
		ret = take_local_lock(f, err);
		if (ret)
			goto fail;
		f->modes_open = true;
		ret = lctl_modes_open(&f->modes, f->state_dir, err);
		if (ret)
			goto fail;
		if (opts->place_only) {
			/* a pool worker: the starting host holds the volume lock and the journal */
		} else if (opts->resume) {
			ret = lctl_journal_read(f->state_dir, &f->j, err);
			if (ret)
				goto fail;
			if (strcmp(f->j.volume, lctl_volume_name(vol))) {
				ret = lctl_seterr(
					err, LCTL_EINVAL, 0,
					"the journal in '%.100s' is for volume '%.60s': use that "
					"volume's state directory, or start without --resume",
					f->state_dir, f->j.volume);
				goto fail;
			}
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
				goto fail;
			}
			if (!strcmp(f->j.phase, "done")) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "the last run finished: nothing to resume");
				goto fail;
			}
			f->data_only = !strcmp(f->j.phase, "data");
			/* clean since then only while the journal says the directories are */
			if (!f->data_only)
				f->j.clean_since = 0;
			if (opts->phase == LCTL_FIX_PHASE_DATA && !f->data_only) {
				ret = lctl_seterr(
					err, LCTL_EINVAL, 0,
					"the last run has not made every "
					"directory clean yet: resume it without --phase data");
				goto fail;
			}
			if (opts->phase == LCTL_FIX_PHASE_CLEAN && f->data_only) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "the last run made every directory "
						  "clean already: only its data phase is left");
				goto fail;
			}
			/*
			 * A run started with --phase clean goes on with it while its directories
			 * are not all clean; once they are, --resume moves its data.
			 */
			if (opts->phase == LCTL_FIX_PHASE_ALL && f->j.clean_only && !f->data_only)
				f->opts.phase = LCTL_FIX_PHASE_CLEAN;
			f->j.clean_only = f->opts.phase == LCTL_FIX_PHASE_CLEAN;
			snprintf(f->top, sizeof(f->top), "%s", f->j.scope);
			whole = !strcmp(f->top, "/");
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
				lctl_log(LCTL_LOG_WARN,
					 "the volume commit hash changed since the run "
					 "started: making its directories dirty again");
				if (!whole)
					f->j.commit = now_h;
				snprintf(f->j.phase, sizeof(f->j.phase), "dirty");
				f->data_only = false;
				f->j.clean_since = 0;
				if (opts->phase == LCTL_FIX_PHASE_DATA) {
					ret = lctl_seterr(err, LCTL_EBUSY, 0,
							  "the volume commit hash "
							  "changed: its directories need cleaning again "
							  "(resume without --phase data)");
					goto fail;
				}
			}
		} else {
			clock_gettime(CLOCK_REALTIME, &now);
			snprintf(f->j.volume, sizeof(f->j.volume), "%s", lctl_volume_name(vol));
			snprintf(f->j.run, sizeof(f->j.run), "%lld-%ld", (long long)now.tv_sec,
				 (long)getpid());
			f->j.started = now.tv_sec;
			snprintf(f->j.scope, sizeof(f->j.scope), "%s", f->top);
			f->j.mode = opts->mode;
			f->j.planner = opts->planner;
			f->j.force_move = opts->force_move;
			f->j.clean_only = opts->phase == LCTL_FIX_PHASE_CLEAN;
			snprintf(f->j.drain, sizeof(f->j.drain), "%s", drain);
			f->j.commit = whole ? lctl_commit_hash_new(&now)
					    : lctl_volume_commit_hash(vol, NULL);
			if (opts->phase == LCTL_FIX_PHASE_DATA) {
				/* the directories are clean already: with the volume's own hash */
				f->j.commit = lctl_volume_commit_hash(vol, &consistent);
				if (!consistent) {
					ret = lctl_seterr(err, LCTL_EBUSY, 0,
							  "the brick roots disagree "
							  "on the volume commit hash: run a whole fix "
							  "(both phases) first");
					goto fail;
				}
				f->data_only = true;
			}
		}
	}
	f->two_phase = f->opts.mode == LCTL_FIX_CLEAN_FIRST;
	f->whole = whole;
	if (!opts->dry_run && !opts->place_only) {
		ret = take_volume_lock(f, err);
		if (ret)
			goto fail;
		ret = drain_fence(f, ndrain, drain, err);
		if (ret)
			goto fail;
		/* every server's worker answers before anything is written (FIX_HELLO) */
		if (opts->nworkers && (f->opts.mode == LCTL_FIX_MIGRATE ||
				       (f->two_phase && f->opts.phase != LCTL_FIX_PHASE_CLEAN))) {
			ret = lctl_pool_spawn(opts->workers, opts->nworkers, POOL_HELLO_MS,
					      opts->hang_timeout_s, &f->pool, err);
			if (ret)
				goto fail;
		}
		f->dirty_done = !strcmp(f->j.phase, "work") || !strcmp(f->j.phase, "stopped") ||
				!strcmp(f->j.phase, "place") || f->data_only;
	}
	ret = lctl_inspector_init(&f->in, vol, f->opts.planner, false, err);
	if (ret)
		goto fail;
	f->in.least_move = ndrain > 0;
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
	};
	if (f->pool) {
		/* the workers connect to the volume meanwhile: lctl_fix_next() waits for them */
		f->stage = FIX_HELLO;
		f->phase = "preflight";
		*out = f;
		return 0;
	}
	ret = begin_run(f, err);
	if (ret)
		goto fail;
	*out = f;
	return 0;
fail:
	lctl_pool_free(f->pool);
	if (f->modes_open)
		lctl_modes_close(&f->modes, f->state_dir, false);
	release_locks(f);
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
	return ret;
}

/* Every directory of the first walk (the only one, but for a clean-first run) clean. */
static bool phase_one_ok(const struct lctl_fix_summary *s)
{
	return s->dirs == s->dir_outcome[LCTL_DIR_WAS_CLEAN] + s->dir_outcome[LCTL_DIR_FIXED] +
				  s->dir_outcome[LCTL_DIR_LEFT_ALONE] +
				  s->dir_outcome[LCTL_DIR_PLACED];
}

/* Every directory clean: the first walk's, or those it left, repaired by the data phase. */
static bool all_clean(const struct lctl_fix *f)
{
	const struct lctl_fix_summary *s = &f->sum;

	return phase_one_ok(s) ||
	       (f->repaired && f->nrepaired == f->nunclean &&
		s->dirs - s->dir_outcome[LCTL_DIR_WAS_CLEAN] - s->dir_outcome[LCTL_DIR_FIXED] -
				s->dir_outcome[LCTL_DIR_LEFT_ALONE] -
				s->dir_outcome[LCTL_DIR_PLACED] ==
			f->nunclean);
}

/* The key of the outcome @o of directory @dir among f->met; NULL without memory. */
static char *met_key(const char *dir, const struct lctl_file_outcome *o)
{
	size_t n = strlen(dir) + strlen(o->name) + 3;
	char *k = malloc(n);

	/* a name has no '/': the last one ends the directory */
	if (k)
		snprintf(k, n, "%c%s/%s", '0' + (int)o->action, dir, o->name);
	return k;
}

/* Keep the keys of @rr's outcomes (a first-phase report of a directory the data phase redoes). */
static void met_add(struct lctl_fix *f, const struct lctl_repair_report *rr)
{
	size_t i;

	for (i = 0; i < rr->nfiles; i++) {
		char *k;

		if (f->nmet == f->met_cap) {
			size_t cap = f->met_cap ? f->met_cap * 2 : 64;
			char **v = realloc(f->met, cap * sizeof(*v));

			if (!v)
				return; /* counted again, at worst */
			f->met = v;
			f->met_cap = cap;
		}
		k = met_key(rr->path, &rr->files[i]);
		if (!k)
			return;
		f->met[f->nmet++] = k;
		f->met_sorted = false;
	}
}

/*
 * A data-phase report @rr: drop the outcomes the first phase had already counted for the same
 * name and action (it repairs again what the first phase could not make clean), from its
 * counts, its list (so the outcome log has them once) and the live counters.
 */
static void met_drop(struct lctl_fix *f, struct lctl_repair_report *rr)
{
	size_t i, k;

	if (!f->nmet || !rr->nfiles)
		return;
	if (!f->met_sorted) {
		qsort(f->met, f->nmet, sizeof(*f->met), lctl_cmp_strp);
		f->met_sorted = true;
	}
	for (i = k = 0; i < rr->nfiles; i++) {
		struct lctl_file_outcome *o = &rr->files[i];
		char *key = met_key(rr->path, o);
		bool seen = key && bsearch(&key, f->met, f->nmet, sizeof(*f->met), lctl_cmp_strp);

		free(key);
		if (!seen) {
			rr->files[k++] = *o;
			continue;
		}
		if (rr->count[o->action])
			rr->count[o->action]--;
		if (atomic_load(&f->live[o->action]))
			atomic_fetch_sub(&f->live[o->action], 1);
		free(o->name);
	}
	rr->nfiles = k;
}

/* A directory's planned moves into the run's (summary_add()). */
static void moves_add(struct lctl_fix_summary *s, const struct lctl_repair_report *rr)
{
	size_t i;

	/* a clean-first run's data phase sees each directory a second time */
	if (!rr->plan || rr->plan->nsubvols != s->nsubvols || rr->data_phase)
		return;
	for (i = 0; i < s->nsubvols * s->nsubvols; i++) {
		s->move_files[i] += rr->plan->move_files[i];
		s->move_bytes[i] += rr->plan->move_bytes[i];
	}
}

/* A directory's skipped files counted by reason (summary_add()). */
static void skips_add(struct lctl_fix_summary *s, const struct lctl_repair_report *rr)
{
	size_t i, k;

	for (i = 0; i < rr->nfiles; i++) {
		const char *r = rr->files[i].reason ? rr->files[i].reason : "";

		if (rr->files[i].action != LCTL_FILE_SKIPPED)
			continue;
		for (k = 0; k < LCTL_FIX_SKIP_REASONS && s->skipped[k].reason &&
			    strcmp(s->skipped[k].reason, r);
		     k++)
			;
		if (k == LCTL_FIX_SKIP_REASONS) {
			s->skipped_other++;
			continue;
		}
		s->skipped[k].reason = r;
		s->skipped[k].files++;
	}
}

static void summary_add(struct lctl_fix *f, struct lctl_repair_report *rr)
{
	size_t i, n;
	int a;

	if (rr->data_phase)
		met_drop(f, rr);
	if (!rr->data_phase && f->two_phase && !f->opts.dry_run &&
	    (rr->outcome == LCTL_DIR_NOT_FIXED || rr->outcome == LCTL_DIR_STOPPED)) {
		met_add(f, rr);
		if (f->nunclean == f->unclean_cap) {
			size_t cap = f->unclean_cap ? f->unclean_cap * 2 : 16;
			char **v = realloc(f->unclean, cap * sizeof(*v));

			if (v) {
				f->unclean = v;
				f->unclean_cap = cap;
			}
		}
		/* out of memory: the data phase then visits it, and repairs it again */
		if (f->nunclean < f->unclean_cap && (f->unclean[f->nunclean] = strdup(rr->path)))
			f->nunclean++;
	}
	if (rr->data_phase) {
		bool good = rr->outcome == LCTL_DIR_FIXED || rr->outcome == LCTL_DIR_LEFT_ALONE ||
			    rr->outcome == LCTL_DIR_WAS_CLEAN;
		char *const *u = f->repaired ? bsearch(&rr->path, f->unclean, f->nunclean,
						       sizeof(char *), lctl_cmp_strp)
					     : NULL;

		f->sum.data_dirs++;
		if (good)
			f->sum.data_placed++;
		if (good && u && !f->repaired[u - f->unclean]) {
			f->repaired[u - f->unclean] = true;
			f->sum.repaired_later++;
			if (++f->nrepaired == f->nunclean && all_clean(f))
				mark_clean(f);
		}
	} else {
		f->sum.dirs++;
		f->sum.dir_outcome[rr->outcome]++;
	}
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		f->sum.names[a] += rr->count[a];
	lctl_outcomes_count_files(rr, &f->hard_files, f->sum.files);
	f->sum.bytes_moved += rr->bytes_moved;
	if (rr->outcome == LCTL_DIR_PLANNED && rr->plan) {
		n = rr->plan->nsubvols;
		for (i = 0; i < n * n; i++) {
			f->sum.planned_files += rr->plan->move_files[i];
			f->sum.planned_bytes += rr->plan->move_bytes[i];
		}
	}
	moves_add(&f->sum, rr);
	skips_add(&f->sum, rr);
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
		ret = deadline_passed(f) ? 0 : lctl_pool_hello(f->pool, timeout_ms, &f->fail_err);
		if (ret == 0 && !deadline_passed(f))
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
		if (!deadline_passed(f) && f->settle_end > lctl_mono_seconds()) {
			settle_wait(f, timeout_ms);
			return true;
		}
		if (deadline_passed(f)) {
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
			f->phase = "work";
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
		summary_add(f, *rr);
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

/* A walk is over: the last one of its phase, of the directories still held (ripe_visit()). */
static bool start_ripe(struct lctl_fix *f)
{
	struct lctl_crawl_cfg cfg = { 0 };
	struct lctl_crawl_stats st;
	struct lctl_crawl *c;
	uint64_t n = f->ndefer + 1; /* they, and the top this walk starts from */

	f->ripe_started = true;
	cfg.nworkers = fix_parallel(&f->opts);
	cfg.visit = ripe_visit;
	cfg.drop = fix_drop;
	cfg.arg = f;
	if (lctl_crawl_start(&cfg, f->top, &c, NULL))
		return false; /* the finished data walk stays in f->crawl */
	lctl_crawl_stats(f->crawl, &st);
	lctl_crawl_free(f->crawl);
	f->crawl = c;
	/* they were counted by the walk before already */
	f->base_seen += st.dirs_seen > n ? st.dirs_seen - n : 0;
	f->base_done += st.dirs_done > n ? st.dirs_done - n : 0;
	return true;
}

/* A held directory the run stopped before finishing: dirty, what was done in it reported. */
static struct lctl_repair_report *flush_deferred(struct lctl_fix *f)
{
	struct deferral d = f->defer[--f->ndefer];

	free(d.path);
	d.rr->outcome = LCTL_DIR_STOPPED;
	snprintf(d.rr->reason, sizeof(d.rr->reason), "stopped before it was finished (left dirty)");
	count_report(f, d.rr);
	return d.rr;
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
		if (deadline_passed(f) && !f->pool_stopped) {
			lctl_pool_send_kind(f->pool, LCTL_PM_STOP);
			f->pool_stopped = true;
		}
		if (!lctl_pool_poll(f->pool, timeout_ms))
			return NULL;
		f->placing = false;
		pool_totals(f, f->sum.files, f->sum.names, &f->sum.bytes_moved);
		/* stopped, or the work walk cannot start: the run ends here, resumable */
		if (!atomic_load(&f->stop) &&
		    (f->two_phase ? start_data(f, &werr)
				  : (f->phase = "work",
				     set_phase(f, "work", &werr) || start_work(f, &werr))))
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
		summary_add(f, rr);
		return rr;
	}
	if (!fin)
		return NULL;
	if (f->top_started && !f->data_started && f->two_phase && !f->opts.dry_run &&
	    f->opts.phase != LCTL_FIX_PHASE_CLEAN && !atomic_load(&f->stop)) {
		/* every directory had its turn: clean now, unless some could not be made so */
		if (phase_one_ok(&f->sum))
			mark_clean(f);
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
		if (!f->ripe_started && !atomic_load(&f->stop) && start_ripe(f))
			return NULL;
		/* stopped: each stays dirty, what was done in it reported */
		rr = flush_deferred(f);
		summary_add(f, rr);
		return rr;
	}
	if (f->top_started || f->data_started || atomic_load(&f->stop) || f->opts.place_only) {
		if (f->top_started && !f->data_started && !f->clean_at && phase_one_ok(&f->sum) &&
		    !atomic_load(&f->stop))
			mark_clean(f);
		/*
		 * A run that started in the data phase without knowing since when the directories
		 * are clean (--phase data on a new run): they are once every one it visited is.
		 */
		if (f->data_only && f->data_started && !f->j.clean_since &&
		    !atomic_load(&f->stop) && f->sum.data_dirs == f->sum.data_placed)
			mark_clean(f);
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
	f->phase = "top";
	cfg.nworkers = 1;
	cfg.visit = top_visit;
	cfg.drop = fix_drop;
	cfg.arg = f;
	if (lctl_crawl_start(&cfg, f->top, &f->crawl, NULL)) {
		f->top_done = true;
		*finished = true;
		rr = failed_report(f->top, LCTL_ENOMEM);
		if (rr)
			summary_add(f, rr);
		return rr;
	}
	return NULL;
}

const struct lctl_fix_summary *lctl_fix_summary(struct lctl_fix *f)
{
	f->sum.stopped = atomic_load(&f->stop);
	f->sum.held_out = atomic_load(&f->held_out);
	f->sum.deadline_hit = atomic_load(&f->deadline_hit);
	f->sum.mode = f->opts.mode;
	f->sum.two_phase = f->two_phase;
	f->sum.data_ran = f->data_started;
	f->sum.clean_at = f->clean_at;
	f->sum.clean_since = f->two_phase ? f->j.clean_since : 0;
	f->sum.refused = f->refused;
	return &f->sum;
}

void lctl_fix_progress(struct lctl_fix *f, struct lctl_progress *p)
{
	struct lctl_crawl_stats st;
	unsigned i;

	memset(&st, 0, sizeof(st));
	if (f->crawl)
		lctl_crawl_stats(f->crawl, &st);
	memset(p, 0, sizeof(*p));
	p->dirs_seen = f->base_seen + st.dirs_seen;
	p->dirs_done = f->base_done + st.dirs_done;
	p->files = atomic_load(&f->files);
	p->bytes = atomic_load(&f->bytes);
	p->dirs_not_clean = atomic_load(&f->not_clean);
	for (i = 0; i < LCTL_FILE_ACTION_COUNT && i < 5; i++)
		p->file_actions[i] = atomic_load(&f->live[i]);
	p->bytes_moved = atomic_load(&f->live_bytes);
	p->workers = st.nworkers;
	p->active_workers = st.active_workers;
	p->paused = atomic_load(&f->paused);
	pthread_mutex_lock(&f->tlock);
	p->rate_limit = f->opts.files_per_sec;
	p->bandwidth_limit = f->opts.bytes_per_sec;
	p->migrations = f->opts.migrations ? f->opts.migrations : 1;
	pthread_mutex_unlock(&f->tlock);
	if (atomic_load(&f->held)) {
		pthread_mutex_lock(&f->hold_lock);
		p->held = true;
		p->held_seconds = lctl_mono_seconds() - f->held_since;
		snprintf(p->held_why, sizeof(p->held_why), "%s", f->held_why);
		pthread_mutex_unlock(&f->hold_lock);
	}
	p->elapsed =
		lctl_mono_seconds() - ((double)f->start.tv_sec + (double)f->start.tv_nsec / 1e9);
	for (i = 0; i < st.nworkers && i < 64; i++)
		snprintf(p->worker_state[i], sizeof(p->worker_state[i]), "%s", st.worker_state[i]);
	p->phase = f->phase;
	/* the settle period: its length when this run has one, and what is left of it */
	if (!f->opts.dry_run && !f->opts.place_only && !f->dirty_done) {
		p->settle_seconds = f->opts.settle_ms / 1000.0;
		if (f->stage == FIX_HELLO || f->stage == FIX_LAYOUT)
			p->settle_left = p->settle_seconds;
		else if (f->stage == FIX_SETTLE && f->settle_end > lctl_mono_seconds())
			p->settle_left = f->settle_end - lctl_mono_seconds();
	}
	p->two_phase = f->two_phase;
	p->dirs_clean = f->sum.dir_outcome[LCTL_DIR_WAS_CLEAN] +
			f->sum.dir_outcome[LCTL_DIR_FIXED] +
			f->sum.dir_outcome[LCTL_DIR_LEFT_ALONE];
	p->clean_at = f->clean_at;
	p->clean_since = f->j.clean_since;
	p->data_placed = f->sum.data_placed;
	if (f->pool) {
		uint64_t names[LCTL_FILE_ACTION_COUNT] = { 0 };

		p->nservers = (unsigned)lctl_pool_progress(f->pool, p->servers, LCTL_POOL_MAX);
		pool_totals(f, p->file_actions, names, &p->bytes_moved);
	}
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
	/* a slower pace: the next item waits from now, not from a slot booked at the old one */
	if (f->next_slot > lctl_mono_seconds())
		f->next_slot = lctl_mono_seconds();
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

int lctl_fix_end(struct lctl_fix *f, struct lctl_error *err)
{
	const struct lctl_fix_summary *s = lctl_fix_summary(f);
	bool clean = !s->stopped && all_clean(f);
	bool data_wanted = f->two_phase && !f->opts.dry_run &&
			   f->opts.phase != LCTL_FIX_PHASE_CLEAN;
	bool all = clean && !s->files[LCTL_FILE_FAILED] &&
		   (!data_wanted || (f->data_started && s->data_dirs == s->data_placed));
	const char *phase;
	int ret = 0;

	if (f->refused) {
		/* the servers' workers did not all answer, or a stop came first: nothing written */
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir, false);
		f->modes_open = false;
		release_locks(f);
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
	else if (f->two_phase && (f->data_only || (f->data_started && all_clean(f))))
		phase = "data"; /* the directories are clean: --resume goes on moving data */
	else
		phase = "stopped";
	if (f->opts.place_only) {
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir, false);
		f->modes_open = false;
		release_locks(f);
	} else if (!f->opts.dry_run) {
		ret = set_phase(f, phase, err);
		/* every directory of the volume verified: no migration is left half-way */
		if (f->modes_open)
			lctl_modes_close(&f->modes, f->state_dir,
					 all && !ret && !strcmp(f->top, "/") &&
						 !strcmp(phase, "done"));
		f->modes_open = false;
		release_locks(f);
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
	release_locks(f);
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
