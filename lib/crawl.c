/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parallel directory walker.
 *
 * Data structures:
 *   - a bounded FIFO of directory items (ring buffer of struct item, capacity cfg.queue_cap),
 *     shared by all workers;
 *   - per worker, a LIFO "spill" stack: when the shared FIFO is full, children found by a
 *     worker go there and the worker walks them itself, depth first. Memory is therefore
 *     bounded by the directories in flight (queued + spilled + being visited), never by the
 *     number of files, and a full queue can never deadlock the workers;
 *   - a shared LIFO of "orphans": the spill stack of a worker parked by a lower worker count
 *     (lctl_crawl_set_workers()), handed back so that the workers still running walk it
 *     (what fits goes to the FIFO first). A parked worker never keeps items: nobody else
 *     could take them, and pending would never reach zero;
 *   - a bounded FIFO of results, drained by the caller's thread only (lctl_crawl_next()).
 *     A worker that finds it full waits, which is the back-pressure on a slow consumer.
 *
 * Termination: `pending` counts items queued, spilled or being visited. The worker that
 * brings it to zero broadcasts; everybody then sees pending == 0 with an empty queue and
 * leaves. Cancellation is a flag checked between items; pause parks workers between items.
 *
 * Locking: one mutex (c->lock) protects everything in struct lctl_crawl below the "locked"
 * comment; three condition variables: work (items or state changes), room (result queue has
 * space), results (a result or the end is available). A spill stack is pushed to by its worker
 * only, without the lock (lctl_crawl_push()); it is read and emptied under the lock, by its
 * worker, or by lctl_crawl_free() after the join.
 * Counters read by progress snapshots are updated under the lock too: they change once per
 * directory, which is rare next to the I/O a directory costs.
 */
#include "internal.h"
#include "crawl.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct item {
	char *path;
	unsigned depth;
};

/*
 * The items are v[lo] (the bottom, the shallowest, shared first) to v[n - 1] (the top, walked
 * next): taking from either end is O(1). Sharing the bottom one item at a time by moving the
 * rest down cost a directory of K subdirectories K^2 / 2 item moves under the crawl's lock (a
 * directory of a million subdirectories: over a minute of memmove, every worker waiting).
 * The room below lo is given back by moving the items down once it is as large as they are
 * (take_item()), and before a parked worker hands its stack back. Orphans keep lo at 0.
 */
struct spill {
	struct item *v;
	size_t lo, n, cap;
};

static size_t spill_len(const struct spill *s)
{
	return s->n - s->lo;
}

/* The items moved down to v[0] (lo 0). */
static void spill_compact(struct spill *s)
{
	if (!s->lo)
		return;
	memmove(s->v, s->v + s->lo, spill_len(s) * sizeof(*s->v));
	s->n -= s->lo;
	s->lo = 0;
}

struct worker {
	struct lctl_crawl *c;
	unsigned idx;
	pthread_t tid;
	struct spill spill;
	char state[LCTL_WORKER_STATE_LEN]; /* locked: what it is doing, for the dashboard */
	char item[LCTL_WORKER_STATE_LEN];  /* locked: the directory it is in */
	_Atomic int64_t beat_ms;	   /* last sign of life in an item; 0: in none */
	uint64_t kids;			   /* subdirectories its item pushed so far */
	unsigned depth;			   /* its item's depth (while it visits one) */
	/* inside a big directory: its sightings judged and read so far (lctl_crawl_entries()) */
	_Atomic uint64_t entries_done, entries_seen;
};

static unsigned level(unsigned depth)
{
	return depth < LCTL_DEPTH_LEVELS ? depth : LCTL_DEPTH_LEVELS - 1;
}

/* the worker the calling thread is, for lctl_crawl_beat() */
static __thread struct worker *this_worker;

/* now in milliseconds on the monotonic clock, as a beat: never 0 */
static int64_t beat_now(void)
{
	return (int64_t)(lctl_mono_seconds() * 1000) + 1;
}

void lctl_crawl_beat(void)
{
	if (this_worker)
		atomic_store(&this_worker->beat_ms, beat_now());
}

void lctl_crawl_entries(uint64_t done, uint64_t seen)
{
	if (this_worker) {
		atomic_store(&this_worker->entries_done, done);
		atomic_store(&this_worker->entries_seen, seen);
	}
}

struct lctl_crawl {
	struct lctl_crawl_cfg cfg;
	pthread_mutex_t lock;
	pthread_cond_t work, room, results;

	/* locked */
	struct item *q;
	size_t qhead, qlen;
	void **res;
	size_t rhead, rlen;
	size_t pending;
	unsigned active;   /* workers allowed to take items (the rest sleep) */
	unsigned nworkers; /* threads started */
	bool cancel, paused, done;
	struct spill orphans; /* spill stacks handed back by parked workers */
	uint64_t dirs_seen, dirs_done;
	struct lctl_depth_counts depth;
	struct worker *workers[LCTL_CRAWL_MAX_WORKERS];
};

static void set_state(struct worker *w, const char *what, const char *path)
{
	pthread_mutex_lock(&w->c->lock);
	snprintf(w->state, sizeof(w->state), "%s%s%s", what, path ? " " : "", path ? path : "");
	pthread_mutex_unlock(&w->c->lock);
}

/* Called with the lock held. */
static bool queue_push_locked(struct lctl_crawl *c, struct item it)
{
	if (c->qlen == c->cfg.queue_cap)
		return false;
	c->q[(c->qhead + c->qlen) % c->cfg.queue_cap] = it;
	c->qlen++;
	return true;
}

int lctl_crawl_push(struct lctl_crawl_worker *cw, const char *path, unsigned depth)
{
	struct worker *w = (struct worker *)cw;
	struct lctl_crawl *c = w->c;
	struct item it = { strdup(path), depth };
	bool queued;

	if (!it.path)
		return -LCTL_ENOMEM;
	pthread_mutex_lock(&c->lock);
	c->pending++;
	c->dirs_seen++;
	c->depth.seen[level(depth)]++;
	c->depth.busy_kids[level(w->depth)]++;
	w->kids++;
	queued = queue_push_locked(c, it);
	if (queued)
		pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	if (queued)
		return 0;
	if (w->spill.n == w->spill.cap) {
		size_t cap = w->spill.cap ? w->spill.cap * 2 : 64;
		struct item *v = realloc(w->spill.v, cap * sizeof(*v));

		if (!v) {
			free(it.path);
			pthread_mutex_lock(&c->lock);
			c->pending--;
			c->dirs_seen--;
			c->depth.seen[level(depth)]--;
			c->depth.busy_kids[level(w->depth)]--;
			w->kids--;
			pthread_mutex_unlock(&c->lock);
			return -LCTL_ENOMEM;
		}
		w->spill.v = v;
		w->spill.cap = cap;
	}
	w->spill.v[w->spill.n++] = it;
	return 0;
}

int lctl_crawl_push_child(void *arg, const char *name)
{
	struct lctl_crawl_child *c = arg;
	char *path = lctl_path_join(c->parent, name);
	int ret;

	/* every subdirectory is visited: one too deep for gfapi is reported unreadable there */
	if (!path)
		return -LCTL_ENOMEM;
	ret = lctl_crawl_push(c->w, path, c->depth + 1);
	free(path);
	return ret;
}

/*
 * Hand a result to the consumer; waits while the result queue is full. After a cancel the
 * consumer may have stopped draining (lctl_crawl_free() stops once the queue is empty), so a
 * result that finds the queue full then is dropped instead of waited with.
 */
static void put_result(struct lctl_crawl *c, void *r)
{
	pthread_mutex_lock(&c->lock);
	while (c->rlen == c->cfg.result_cap && !c->cancel)
		pthread_cond_wait(&c->room, &c->lock);
	if (c->rlen == c->cfg.result_cap) {
		pthread_mutex_unlock(&c->lock);
		if (c->cfg.drop)
			c->cfg.drop(c->cfg.arg, r);
		return;
	}
	c->res[(c->rhead + c->rlen) % c->cfg.result_cap] = r;
	c->rlen++;
	pthread_cond_signal(&c->results);
	pthread_mutex_unlock(&c->lock);
}

void lctl_crawl_emit(struct lctl_crawl_worker *cw, void *result)
{
	put_result(((struct worker *)cw)->c, result);
}

/*
 * Called with the lock held, by worker @w parked by a lower worker count: hand its spill stack
 * to the workers still running, the shallowest items into the shared queue while it has room,
 * the rest onto the orphan stack. False if there was no memory for that (@w keeps its stack).
 */
static bool hand_back_locked(struct lctl_crawl *c, struct worker *w)
{
	size_t k = 0;

	spill_compact(&w->spill);
	while (k < w->spill.n && queue_push_locked(c, w->spill.v[k]))
		k++;
	if (k < w->spill.n && !c->orphans.n && c->orphans.cap < w->spill.n - k) {
		struct spill t = c->orphans;

		/* the common case: nothing orphaned yet, so the whole array changes hands */
		c->orphans = w->spill;
		w->spill = t;
		memmove(c->orphans.v, c->orphans.v + k, (c->orphans.n - k) * sizeof(*c->orphans.v));
		c->orphans.n -= k;
		w->spill.n = 0;
		return true;
	}
	if (k < w->spill.n && c->orphans.cap - c->orphans.n < w->spill.n - k) {
		size_t cap = c->orphans.n + w->spill.n - k;
		struct item *v = realloc(c->orphans.v, cap * sizeof(*v));

		if (!v) {
			memmove(w->spill.v, w->spill.v + k, (w->spill.n - k) * sizeof(*v));
			w->spill.n -= k;
			return false;
		}
		c->orphans.v = v;
		c->orphans.cap = cap;
	}
	memcpy(c->orphans.v + c->orphans.n, w->spill.v + k, (w->spill.n - k) * sizeof(*w->spill.v));
	c->orphans.n += w->spill.n - k;
	w->spill.n = 0;
	return true;
}

/*
 * Take the next item: own spill stack first (moving what fits to the shared queue so idle
 * workers get some), then orphans, then the shared queue. Returns false when the walk is over.
 * A parked worker hands its spill stack back and sleeps (or, without memory to hand it back,
 * works it off itself).
 */
static bool take_item(struct worker *w, struct item *out)
{
	struct lctl_crawl *c = w->c;
	bool parked;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		if (c->cancel)
			break;
		parked = w->idx >= c->active;
		if (parked && spill_len(&w->spill)) {
			if (hand_back_locked(c, w))
				pthread_cond_broadcast(&c->work);
		}
		if (!c->paused && (!parked || spill_len(&w->spill))) {
			/* share the bottom of the spill stack (the shallowest items) */
			while (spill_len(&w->spill) > 1 && c->qlen < c->cfg.queue_cap) {
				queue_push_locked(c, w->spill.v[w->spill.lo++]);
				pthread_cond_signal(&c->work);
			}
			/* the room the bottom left, once it is as large as what is left (amortized O(1)) */
			if (w->spill.lo >= spill_len(&w->spill))
				spill_compact(&w->spill);
			if (spill_len(&w->spill)) {
				*out = w->spill.v[--w->spill.n];
				if (w->spill.n == w->spill.lo)
					w->spill.lo = w->spill.n = 0;
				pthread_mutex_unlock(&c->lock);
				return true;
			}
			if (c->orphans.n) {
				*out = c->orphans.v[--c->orphans.n];
				pthread_mutex_unlock(&c->lock);
				return true;
			}
			if (c->qlen) {
				*out = c->q[c->qhead];
				c->qhead = (c->qhead + 1) % c->cfg.queue_cap;
				c->qlen--;
				pthread_mutex_unlock(&c->lock);
				return true;
			}
		}
		if (c->pending == 0)
			break;
		snprintf(w->state, sizeof(w->state), "%s",
			 c->paused ? "paused"
			 : parked  ? "parked"
				   : "idle");
		pthread_cond_wait(&c->work, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return false;
}

static void finish_item(struct lctl_crawl *c, struct worker *w, unsigned depth)
{
	pthread_mutex_lock(&c->lock);
	c->dirs_done++;
	c->depth.done[level(depth)]++;
	c->depth.busy[level(depth)]--;
	c->depth.busy_kids[level(depth)] -= w->kids;
	c->depth.kids[level(depth)] += w->kids;
	w->kids = 0;
	if (--c->pending == 0) {
		pthread_cond_broadcast(&c->work);
		pthread_cond_broadcast(&c->results);
	}
	pthread_mutex_unlock(&c->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct lctl_crawl *c = w->c;
	struct item it;

	this_worker = w;
	while (take_item(w, &it)) {
		void *r;

		set_state(w, "visiting", it.path);
		pthread_mutex_lock(&c->lock);
		snprintf(w->item, sizeof(w->item), "%s", it.path);
		w->depth = it.depth;
		c->depth.busy[level(it.depth)]++;
		pthread_mutex_unlock(&c->lock);
		atomic_store(&w->beat_ms, beat_now());
		r = c->cfg.visit(c->cfg.arg, (struct lctl_crawl_worker *)w, it.path, it.depth);
		atomic_store(&w->beat_ms, 0);
		lctl_crawl_entries(0, 0);
		if (r)
			put_result(c, r);
		free(it.path);
		finish_item(c, w, it.depth);
	}
	/* cancelled: drop what is left on the spill stack */
	pthread_mutex_lock(&c->lock);
	while (spill_len(&w->spill)) {
		free(w->spill.v[--w->spill.n].path);
		c->pending--;
	}
	w->spill.lo = w->spill.n = 0;
	snprintf(w->state, sizeof(w->state), "done");
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

unsigned lctl_crawl_worker_index(const struct lctl_crawl_worker *cw)
{
	return ((const struct worker *)cw)->idx;
}

/* Called with the lock held. */
static int spawn_locked(struct lctl_crawl *c, unsigned upto)
{
	while (c->nworkers < upto) {
		struct worker *w = calloc(1, sizeof(*w));

		if (!w)
			return -LCTL_ENOMEM;
		w->c = c;
		w->idx = c->nworkers;
		snprintf(w->state, sizeof(w->state), "starting");
		if (pthread_create(&w->tid, NULL, worker_main, w)) {
			free(w);
			return -LCTL_ENOMEM;
		}
		c->workers[c->nworkers++] = w;
	}
	return 0;
}

int lctl_crawl_start(const struct lctl_crawl_cfg *cfg, const char *root, struct lctl_crawl **out,
		     struct lctl_error *err)
{
	struct lctl_crawl *c;
	pthread_condattr_t ca;
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (!cfg->visit || !cfg->nworkers || cfg->nworkers > LCTL_CRAWL_MAX_WORKERS)
		return lctl_seterr(err, LCTL_EINVAL, 0, "invalid crawler configuration");
	c = calloc(1, sizeof(*c));
	if (!c)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	c->cfg = *cfg;
	if (!c->cfg.queue_cap)
		c->cfg.queue_cap = 4096;
	if (!c->cfg.result_cap)
		c->cfg.result_cap = 256;
	c->q = calloc(c->cfg.queue_cap, sizeof(*c->q));
	c->res = calloc(c->cfg.result_cap, sizeof(*c->res));
	if (!c->q || !c->res) {
		free(c->q);
		free(c->res);
		free(c);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->room, NULL);
	/* lctl_crawl_next() waits on it with a timeout: a clock that setting the time leaves alone */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->results, &ca);
	pthread_condattr_destroy(&ca);
	c->q[0] = (struct item){ strdup(root), 0 };
	if (!c->q[0].path) {
		lctl_crawl_free(c);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	c->qlen = 1;
	c->pending = 1;
	c->dirs_seen = 1;
	c->depth.seen[0] = 1;
	c->active = cfg->nworkers;
	/* workers never take signals: the caller's thread turns them into a cancel */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&c->lock);
	ret = spawn_locked(c, cfg->nworkers);
	pthread_mutex_unlock(&c->lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		lctl_crawl_cancel(c);
		lctl_crawl_free(c);
		return lctl_seterr(err, -ret, 0, "cannot start worker threads");
	}
	*out = c;
	return 0;
}

void *lctl_crawl_next(struct lctl_crawl *c, int timeout_ms, bool *finished)
{
	struct timespec ts;
	void *r = NULL;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->lock);
	while (!c->rlen && c->pending && !c->cancel) {
		if (timeout_ms >= 0 &&
		    pthread_cond_timedwait(&c->results, &c->lock, &ts) == ETIMEDOUT)
			break;
		if (timeout_ms < 0)
			pthread_cond_wait(&c->results, &c->lock);
	}
	if (c->rlen) {
		r = c->res[c->rhead];
		c->rhead = (c->rhead + 1) % c->cfg.result_cap;
		c->rlen--;
		pthread_cond_signal(&c->room);
	}
	*finished = !c->rlen && (!c->pending || c->cancel);
	pthread_mutex_unlock(&c->lock);
	return r;
}

/*
 * Wakes every worker, also one waiting in put_result() for room in the result queue (it then
 * drops its result if the queue is still full); lctl_crawl_free() hands leftovers to cfg.drop.
 */
void lctl_crawl_cancel(struct lctl_crawl *c)
{
	pthread_mutex_lock(&c->lock);
	c->cancel = true;
	pthread_cond_broadcast(&c->work);
	pthread_cond_broadcast(&c->room);
	pthread_cond_broadcast(&c->results);
	pthread_mutex_unlock(&c->lock);
}

void lctl_crawl_pause(struct lctl_crawl *c, bool pause)
{
	pthread_mutex_lock(&c->lock);
	c->paused = pause;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
}

int lctl_crawl_set_workers(struct lctl_crawl *c, unsigned n)
{
	int ret = 0;

	if (!n || n > LCTL_CRAWL_MAX_WORKERS)
		return -LCTL_EINVAL;
	pthread_mutex_lock(&c->lock);
	if (!c->cancel)
		ret = spawn_locked(c, n);
	if (!ret)
		c->active = n;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

void lctl_crawl_stats(struct lctl_crawl *c, struct lctl_crawl_stats *st)
{
	unsigned i;

	pthread_mutex_lock(&c->lock);
	st->dirs_seen = c->dirs_seen;
	st->dirs_done = c->dirs_done;
	st->depth = c->depth;
	st->queued = c->qlen;
	st->pending = c->pending;
	st->active_workers = c->active;
	st->paused = c->paused;
	st->nworkers = c->nworkers;
	st->entries_done = st->entries_seen = 0;
	st->entries_dir[0] = '\0';
	for (i = 0; i < c->nworkers && i < LCTL_CRAWL_MAX_WORKERS; i++) {
		struct worker *w = c->workers[i];
		uint64_t seen = atomic_load(&w->entries_seen);

		memcpy(st->worker_state[i], w->state, LCTL_WORKER_STATE_LEN);
		/* the biggest directory in progress, if one said where it is */
		if (seen > st->entries_seen) {
			st->entries_seen = seen;
			st->entries_done = atomic_load(&w->entries_done);
			memcpy(st->entries_dir, w->item, LCTL_WORKER_STATE_LEN);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

unsigned lctl_crawl_stalled(struct lctl_crawl *c, int64_t limit_ms, char *path, size_t size,
			    unsigned *busy)
{
	int64_t now = beat_now();
	unsigned i, n = 0;

	*busy = 0;
	if (size)
		path[0] = '\0';
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nworkers && i < LCTL_CRAWL_MAX_WORKERS; i++) {
		int64_t b = atomic_load(&c->workers[i]->beat_ms);

		if (!b)
			continue;
		(*busy)++;
		if (now - b < limit_ms)
			continue;
		if (!n++ && size)
			snprintf(path, size, "%s", c->workers[i]->item);
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

void lctl_crawl_free(struct lctl_crawl *c)
{
	unsigned i;
	bool fin;
	void *r;

	if (!c)
		return;
	/* keep draining so no worker stays blocked on a full result queue */
	for (;;) {
		r = lctl_crawl_next(c, 50, &fin);
		if (r && c->cfg.drop)
			c->cfg.drop(c->cfg.arg, r);
		if (!r && fin)
			break;
	}
	for (i = 0; i < c->nworkers; i++) {
		pthread_join(c->workers[i]->tid, NULL);
		free(c->workers[i]->spill.v);
		free(c->workers[i]);
	}
	/* results a cancelled worker still handed over after the last drain */
	while (c->rlen) {
		if (c->cfg.drop)
			c->cfg.drop(c->cfg.arg, c->res[c->rhead]);
		c->rhead = (c->rhead + 1) % c->cfg.result_cap;
		c->rlen--;
	}
	while (c->orphans.n)
		free(c->orphans.v[--c->orphans.n].path);
	free(c->orphans.v);
	while (c->qlen) {
		free(c->q[c->qhead].path);
		c->qhead = (c->qhead + 1) % c->cfg.queue_cap;
		c->qlen--;
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->room);
	pthread_cond_destroy(&c->results);
	free(c->q);
	free(c->res);
	free(c);
}
