/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The walks of a fix run and their visits (fixrun.h): the layout pass (dirty_visit()), the
 * repair walk (fix_visit(): one directory, held before it while a subvolume is gone), the
 * directories held for their settle period and finished once ripe (the words: docs/design.md,
 * "The fix job's words"), the last walk of those still held (ripe_visit()) and the top
 * directory's own (fix_top_visit()). fix.c starts the walks and drives them.
 *
 * Threads: the crawl's workers run the visits; the counters are atomics, the held
 * directories under dlock, the hold's state under hold_lock.
 */
#include "fixrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- stopping (the visits ask; the run's stages too) ------------------------------------ */

/* The end of the time window, or the caller's stop flag (a signal), stops the run. */
bool fix_deadline_passed(struct lctl_fix *f)
{
	if (f->opts.deadline && time(NULL) >= f->opts.deadline && !atomic_load(&f->stop)) {
		atomic_store(&f->deadline_hit, true);
		atomic_store(&f->stop, true);
	}
	if (f->opts.stop_flag && *f->opts.stop_flag)
		atomic_store(&f->stop, true);
	return atomic_load(&f->stop);
}

bool fix_should_stop(void *arg)
{
	struct lctl_fix *f = arg;

	while (atomic_load(&f->paused) && !atomic_load(&f->stop)) {
		lctl_crawl_beat(); /* paused is no hang */
		usleep(100000);
	}
	return fix_deadline_passed(f);
}

/*
 * The layout pass, before the settle period: every directory in scope gets its final ranges
 * (created where it is missing), written dirty with commit word 1, so that clients pick up
 * the new layout while nothing has moved yet (as GlusterFS's fix-layout before migration).
 */
struct names {
	struct lctl_strv l;
	bool nomem;
};

static int keep_child(void *arg, const char *name)
{
	struct names *ns = arg;
	int ret = lctl_strv_add(&ns->l, name);

	if (ret)
		ns->nomem = true;
	return ret;
}

/*
 * The subdirectories are queued only once this directory has its layout on every subvolume:
 * a subdirectory missing on a new subvolume is created by a lookup through DHT, which also
 * looks its parent up, and a parent still missing there (or half-way through our layout
 * write) would be healed by DHT with a layout of its own, racing ours.
 */
static bool hold_while_down(struct lctl_fix *f);

static void *dirty_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_crawl_child pc = { w, path, depth };
	struct names ns = { 0 };
	struct lctl_inspect_children ch = { keep_child, &ns };
	bool ok = false;
	size_t i;

	if (fix_deadline_passed(f) || !hold_while_down(f))
		return NULL; /* stopped: the rest stays as it is, dirty, for --resume */
	if (lctl_repair_layout(&f->rc, path, depth, &ch, &ok) || !ok || ns.nomem)
		atomic_fetch_add(&f->not_clean, 1);
	/* a run of listed files: their directory alone */
	for (i = 0; i < ns.l.n && !f->opts.wanted; i++)
		lctl_crawl_push_child(&pc, ns.l.v[i]);
	lctl_strv_free(&ns.l);
	return NULL;
}

/* The layout pass runs as f->crawl; lctl_fix_next() takes it from there (FIX_LAYOUT). */
int fix_start_layout(struct lctl_fix *f, struct lctl_error *err)
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
	fix_set_phase(f, LCTL_RUN_LAYOUT);
	return 0;
}

/* ---- the repair crawl -------------------------------------------------------------------- */

struct lctl_repair_report *fix_failed_report(const char *path, int code)
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

/*
 * What the plan of @r moves, into the run's counts, once per directory and run: a clean-first
 * run's data phase sees each directory a second time (its first pass counted it, unless this
 * run started in the data phase). In a pool, each server's worker counts the regular files
 * it moves itself (migrate.c: their data's server), and sends that to the starting host,
 * whose own walks count only what they move themselves.
 */
static void count_plan(struct lctl_fix *f, const struct lctl_dir_report *r, const char *path)
{
	uint64_t files = 0, bytes = 0;
	char name[4096];
	size_t i, n = r->nsubvols;

	if (f->data_started && !f->data_only)
		return;
	if (f->rc.mode == LCTL_FIX_LINKTO && !f->two_phase)
		return; /* a linkto run moves no data */
	if (f->pool && f->rc.mode != LCTL_FIX_MIGRATE)
		return; /* the servers' workers move the data, and count it (protocol 4) */
	if (!f->rc.own_only) {
		for (i = 0; i < n * n; i++) {
			files += r->move_files[i];
			bytes += r->move_bytes[i];
		}
	} else {
		for (i = 0; i < r->nentries; i++) {
			const struct lctl_entry_report *e = &r->entries[i];

			if (e->cached < 0 || e->target < 0 || e->target == e->cached ||
			    !S_ISREG(e->mode) ||
			    lctl_path_join_to(name, sizeof(name), path, e->name) ||
			    !lctl_volume_owns(f->vol, (size_t)e->cached, name))
				continue;
			files++;
			bytes += e->size;
		}
	}
	atomic_fetch_add(&f->plan_files, files);
	atomic_fetch_add(&f->plan_bytes, bytes);
	atomic_fetch_add(&f->plan_dirs, 1);
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
bool fix_settling(void *arg)
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

static bool redo_wrong(struct lctl_fix *f, const struct lctl_repair_report *rr);
static struct lctl_repair_report *visit_held(struct lctl_fix *f, struct lctl_crawl_worker *w,
					     const char *path, unsigned depth, bool pushed,
					     struct lctl_repair_report *wrong);

/*
 * The rest of the directory @path held with the report @rr (struct deferral), its settle
 * period over: its final report, or NULL when it is held once more. One that went wrong while
 * a subvolume is gone is done again once the volume is whole (visit_held(), its children
 * pushed already), as fix_visit() does any directory: a brick lost while a held directory was
 * finished costs time, no failed file. A data-phase directory done again is dirty, so it is
 * held once more (a new deferral, which ripe_visit() also serves).
 */
static struct lctl_repair_report *finish_held(struct lctl_fix *f, struct lctl_crawl_worker *w,
					      const char *path, unsigned depth,
					      struct lctl_repair_report *rr, bool link)
{
	struct lctl_repair_report *out = NULL;
	int ret = link ? lctl_repair_dir_held(&f->rc, path, depth, rr, &out)
		       : lctl_repair_specials(&f->rc, path, depth, rr, &out);

	if (ret)
		out = fix_failed_report(path, ret);
	if (out && w && redo_wrong(f, out))
		return visit_held(f, w, path, depth, true, out);
	if (out)
		count_report(f, out);
	return out;
}

static struct lctl_repair_report *finish_deferred(struct lctl_fix *f, struct lctl_crawl_worker *w,
						  struct deferral *d)
{
	struct lctl_repair_report *rr = finish_held(f, w, d->path, d->depth, d->rr, d->link);

	free(d->path);
	return rr;
}

/*
 * Hold the report @rr of the directory @path (struct deferral) until @ripe, its settle period
 * over; without memory for that, wait here. Return: the report to hand on now, or NULL.
 */
static struct lctl_repair_report *defer_dir(struct lctl_fix *f, struct lctl_crawl_worker *w,
					    const char *path, unsigned depth,
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
	return finish_held(f, w, path, depth, rr, link);
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
		rr = finish_deferred(f, w, &d);
		if (rr)
			lctl_crawl_emit(w, rr);
	}
}

/* Take the deferral of the directory @path out of the queue into @d: whether there was one. */
static bool take_deferral(struct lctl_fix *f, const char *path, struct deferral *d)
{
	bool found;
	size_t i;

	pthread_mutex_lock(&f->dlock);
	for (i = 0; i < f->ndefer && strcmp(f->defer[i].path, path); i++)
		;
	found = i < f->ndefer;
	if (found) {
		*d = f->defer[i];
		memmove(f->defer + i, f->defer + i + 1, (f->ndefer - i - 1) * sizeof(*f->defer));
		f->ndefer--;
	}
	pthread_mutex_unlock(&f->dlock);
	return found;
}

/*
 * The last walk of the data phase: its first visit (the top) queues every deferred directory
 * still held; each of those then waits out its settle period and is finished.
 */
static void *ripe_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_repair_report *rr;
	struct deferral d = { 0 };
	size_t i;

	if (!atomic_exchange(&f->ripe_pushed, true)) {
		pthread_mutex_lock(&f->dlock);
		for (i = 0; i < f->ndefer; i++)
			lctl_crawl_push(w, f->defer[i].path, f->defer[i].depth);
		pthread_mutex_unlock(&f->dlock);
		return NULL;
	}
	(void)depth;
	if (!take_deferral(f, path, &d))
		return NULL;
	do {
		atomic_fetch_add(&f->ripe_waiting, 1); /* still settling, for status */
		wait_ripe(f, d.ripe);
		atomic_fetch_sub(&f->ripe_waiting, 1);
		rr = finish_deferred(f, w, &d);
		/* done again and held once more (finish_held()): nothing else would finish it */
	} while (!rr && !fix_should_stop(f) && take_deferral(f, path, &d));
	return rr;
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
	double t;
	int ret;

	*settled = *count = false;
	t = lctl_mono_seconds();
	ret = lctl_inspect(&f->in, path, depth, push ? &ch : NULL, &r);
	atomic_fetch_add(&f->walk_inspect_ns, (uint64_t)((lctl_mono_seconds() - t) * 1e9));
	if (ret)
		return fix_failed_report(path, ret);
	*pushed = push;
	count_plan(f, r, path);
	if (f->opts.place_only) {
		ret = lctl_repair_place(&f->rc, path, depth, r, &rr);
		*count = !ret;
		return ret ? fix_failed_report(path, ret) : rr;
	}
	serve_ripe(f, w);
	if (f->data_started) {
		/* the data phase: every directory alike, the top too, all stamped already */
		bool deferred = false;

		ret = lctl_repair_data(&f->rc, path, depth, r, &rr, &deferred);
		if (!ret && deferred) {
			*settled = true;
			return defer_dir(f, w, path, depth, rr,
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
			return defer_dir(f, w, path, depth, rr, f->settle_end, true);
		}
	}
	*count = !ret;
	return ret ? fix_failed_report(path, ret) : rr;
}

/* ---- holding while the volume is not whole (struct lctl_fix_opts.hold_limit_s) ------------- */

/*
 * A subvolume back after a hold answers its own graph (health.c probes those) before the
 * volume's graph, whose client retries its connection on a timer of its own (every 3 s in
 * GlusterFS 10.3, after asking glusterd for the brick's new port). And our DHT client keeps
 * the layouts it read while the subvolume was gone, that subvolume's range missing, until it
 * reads each again with the subvolume back: a lookup of a name hashed there finds no hashed
 * subvolume and removes the name's linkto from the returning brick as stray
 * (dht_lookup_everywhere_cbk), and DHT's migration of such a name fails (EINVAL). So the hold lasts FIX_RECONNECT_WAIT_S past the
 * moment the volume is seen whole, each directory is looked up through DHT before its
 * entries are placed (so it reads the layout again: repair.c, dataphase.c), and for
 * FIX_RECONNECT_GRACE_S after that moment a directory that went wrong is done again, as one
 * that went wrong while held.
 */
#define FIX_RECONNECT_WAIT_S 8.0
#define FIX_RECONNECT_GRACE_S 15.0

/*
 * What holds a run now: subvolumes gone, but not all of them (a stopped volume, or this host
 * cut off), or a replica or disperse set degraded (a brick down, heals pending: health.c).
 */
static bool unhealthy(struct lctl_fix *f, bool fresh, char *why, size_t size)
{
	size_t degraded = 0, n = lctl_health_check(&f->health, fresh, &degraded, why, size);

	return (n && n < lctl_volume_nsubvols(f->vol)) || degraded;
}

int fix_hold_step(struct lctl_fix *f)
{
	char why[200];
	double since, now;

	if (fix_should_stop(f))
		return -1;
	if (!unhealthy(f, false, why, sizeof(why))) {
		pthread_mutex_lock(&f->hold_lock);
		if (atomic_load(&f->held)) {
			now = lctl_mono_seconds();
			if (f->whole_at < f->held_since)
				f->whole_at = now; /* whole again: the reconnect wait starts */
			if (now - f->whole_at < FIX_RECONNECT_WAIT_S) {
				snprintf(f->held_why, sizeof(f->held_why),
					 "whole again: %.0f s more for every graph to reconnect",
					 FIX_RECONNECT_WAIT_S - (now - f->whole_at) + 0.5);
				pthread_mutex_unlock(&f->hold_lock);
				return 1;
			}
			atomic_store(&f->held, false);
			lctl_log(LCTL_LOG_INFO, "the volume is whole again after %.0f s: going on",
				 now - f->held_since);
		}
		pthread_mutex_unlock(&f->hold_lock);
		return 0;
	}
	pthread_mutex_lock(&f->hold_lock);
	if (!atomic_load(&f->held)) {
		f->held_since = lctl_mono_seconds();
		atomic_store(&f->held, true);
		lctl_log(LCTL_LOG_WARN, "held: %s", why);
	}
	f->whole_at = 0; /* not whole (again) */
	snprintf(f->held_why, sizeof(f->held_why), "%s", why);
	since = f->held_since;
	pthread_mutex_unlock(&f->hold_lock);
	if (lctl_mono_seconds() - since > f->opts.hold_limit_s) {
		atomic_store(&f->held_out, true);
		atomic_store(&f->stop, true);
		return -1;
	}
	return 1;
}

/*
 * Wait while the volume is not whole. Return: true to go on (whole again, or nothing to wait
 * for), false to stop: a stop, or held past the limit (the run then stops, resumable).
 */
static bool hold_while_down(struct lctl_fix *f)
{
	int r;

	if (!f->opts.hold_limit_s)
		return true;
	while ((r = fix_hold_step(f)) > 0) {
		lctl_crawl_beat(); /* held is no hang */
		usleep(200000);
	}
	return r == 0;
}

/* A report that went wrong in a way a subvolume gone meanwhile explains. */
static bool went_wrong(const struct lctl_repair_report *rr)
{
	return rr->outcome == LCTL_DIR_NOT_FIXED || rr->count[LCTL_FILE_FAILED];
}

/*
 * Whether the report @rr, gone wrong, is to be dropped and its directory done again: with a
 * hold limit, while the volume is not whole (the redo holds first), or within
 * FIX_RECONNECT_GRACE_S of a hold's end (after a second's pause, so that a directory that
 * goes wrong for a reason of its own is tried at most that many times).
 */
static bool redo_wrong(struct lctl_fix *f, const struct lctl_repair_report *rr)
{
	double whole_at, until;

	if (!f->opts.hold_limit_s || !went_wrong(rr))
		return false;
	if (unhealthy(f, true, NULL, 0))
		return true;
	pthread_mutex_lock(&f->hold_lock);
	whole_at = f->whole_at;
	pthread_mutex_unlock(&f->hold_lock);
	if (!whole_at || lctl_mono_seconds() - whole_at >= FIX_RECONNECT_GRACE_S)
		return false;
	until = lctl_mono_seconds() + 1.0;
	while (!fix_should_stop(f) && lctl_mono_seconds() < until) {
		lctl_crawl_beat(); /* waiting for a client to reconnect is no hang */
		usleep(100000);
	}
	return true;
}

/*
 * A directory, held before it while a subvolume is gone; one that went wrong while one was
 * gone is done again once it is back (its first report dropped: what it did stays done, the
 * new inspection sees it), so a brick that goes away and comes back costs time, no failed
 * file. Its children are pushed by the first visit that inspected it.
 */
static void *fix_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	return visit_held(arg, w, path, depth, false, NULL);
}

/*
 * The report @rr (or NULL), gone wrong while the volume was not whole, when the run stops
 * before the directory is done again; counted when @count. It stands as stopped (the
 * directory stays dirty, and a resumed run does it) with what was done in it; its failed
 * files are dropped, since a subvolume gone explains them and the resumed run does them.
 */
static struct lctl_repair_report *stopped_before_redo(struct lctl_fix *f,
						      struct lctl_repair_report *rr, bool count)
{
	size_t i, k = 0;

	if (!rr)
		return NULL;
	for (i = 0; i < rr->nfiles; i++) {
		if (rr->files[i].action == LCTL_FILE_FAILED)
			free(rr->files[i].name);
		else
			rr->files[k++] = rr->files[i];
	}
	rr->nfiles = k;
	rr->count[LCTL_FILE_FAILED] = 0;
	rr->outcome = LCTL_DIR_STOPPED;
	snprintf(rr->reason, sizeof(rr->reason),
		 "stopped while a subvolume was gone, before it was done again (left dirty)");
	if (count)
		count_report(f, rr);
	return rr;
}

/*
 * fix_visit()'s loop; @pushed: the directory's children are in the walk already; @wrong: a
 * report of it that went wrong, counted, to be done again (finish_held()), or NULL. When the
 * run stops (or is held too long) before it is done again, that report stands as stopped
 * (stopped_before_redo()): what was done in it is reported, not dropped.
 */
static struct lctl_repair_report *visit_held(struct lctl_fix *f, struct lctl_crawl_worker *w,
					     const char *path, unsigned depth, bool pushed,
					     struct lctl_repair_report *wrong)
{
	struct lctl_repair_report *rr;
	bool settled, count, wrong_count = wrong != NULL;

	for (;;) {
		if (fix_should_stop(f) || !hold_while_down(f))
			return stopped_before_redo(f, wrong, wrong_count);
		rr = visit_dir(f, w, path, depth, !pushed && !f->opts.wanted, &pushed, &settled,
			       &count);
		if (!rr || settled || !redo_wrong(f, rr)) {
			if (wrong)
				lctl_repair_report_free(wrong);
			if (rr && !settled && count)
				count_report(f, rr);
			return rr;
		}
		if (wrong)
			lctl_repair_report_free(wrong);
		wrong = rr;
		wrong_count = count;
	}
}

/* The top directory, last, in a walk of its own so the consumer stays responsive. */
void *fix_top_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_fix *f = arg;
	struct lctl_repair_report *rr = NULL, *wrong = NULL;
	bool wrong_count = false;
	int ret;

	(void)w;
	for (;;) {
		if (fix_should_stop(f) || !hold_while_down(f))
			return stopped_before_redo(f, wrong, wrong_count);
		ret = lctl_repair_dir(&f->rc, path, depth, NULL, &rr);
		rr = ret ? fix_failed_report(path, ret) : rr;
		if (!rr || !redo_wrong(f, rr))
			break;
		/* a subvolume gone meanwhile: done again once it is back */
		lctl_repair_report_free(wrong);
		wrong = rr;
		wrong_count = !ret;
	}
	lctl_repair_report_free(wrong);
	if (!ret && rr)
		count_report(f, rr);
	return rr;
}

void fix_drop(void *arg, void *r)
{
	(void)arg;
	lctl_repair_report_free(r);
}

/* How many threads a walk of the run has (and a directory's links: repair.c). */
unsigned fix_parallel(const struct lctl_fix_opts *o)
{
	return o->parallel ? o->parallel : LCTL_FIX_DEFAULT_PARALLEL;
}

/* The repair walk of everything below the top (or, for a pool worker, of all of it). */
int fix_start_work(struct lctl_fix *f, struct lctl_error *err)
{
	struct lctl_crawl_cfg cfg = { 0 };

	cfg.nworkers = fix_parallel(&f->opts);
	cfg.visit = fix_visit;
	cfg.drop = fix_drop;
	cfg.arg = f;
	return lctl_crawl_start(&cfg, f->top, &f->crawl, err);
}

/* A walk is over: the last one of its phase, of the directories still held (ripe_visit()). */
bool fix_start_ripe(struct lctl_fix *f)
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
struct lctl_repair_report *fix_flush_deferred(struct lctl_fix *f)
{
	struct deferral d = f->defer[--f->ndefer];

	free(d.path);
	d.rr->outcome = LCTL_DIR_STOPPED;
	snprintf(d.rr->reason, sizeof(d.rr->reason), "stopped before it was finished (left dirty)");
	count_report(f, d.rr);
	return d.rr;
}
