/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scan: the crawler visiting directories with the inspector, and the summary.
 *
 * Workers inspect a directory, push its subdirectories (down to max_depth) and hand the
 * report to the consumer thread, which adds it to the summary and gives it to the caller.
 * The summary is touched by the consumer thread only; progress counters read by other
 * threads (a dashboard) are atomics.
 */
#include "internal.h"
#include "crawl.h"
#include "inspect.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct lctl_scan {
	struct lctl_volume *vol;
	struct lctl_scan_opts opts;
	struct lctl_inspector in;
	struct lctl_crawl *crawl;
	struct lctl_scan_summary sum; /* consumer thread only */
	struct timespec start;
	atomic_uint_fast64_t files, bytes, not_clean;
};

static struct lctl_dir_report *error_report(const char *path, unsigned depth, int code)
{
	struct lctl_dir_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->path = strdup(path);
	r->depth = depth;
	r->err = code == -LCTL_ENOMEM ? ENOMEM : EIO;
	r->problems = LCTL_DIR_UNREADABLE;
	if (!r->path) {
		free(r);
		return NULL;
	}
	return r;
}

static void *visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	struct lctl_scan *s = arg;
	struct lctl_crawl_child pc = { w, path, depth };
	struct lctl_inspect_children ch = { lctl_crawl_push_child, &pc };
	struct lctl_dir_report *r;
	bool descend = s->opts.max_depth < 0 || depth < (unsigned)s->opts.max_depth;
	int ret;

	ret = lctl_inspect(&s->in, path, depth, descend ? &ch : NULL, &r);
	if (ret)
		return error_report(path, depth, ret);
	atomic_fetch_add(&s->files, r->nfiles);
	atomic_fetch_add(&s->bytes, r->bytes);
	if (!lctl_dir_report_clean(r))
		atomic_fetch_add(&s->not_clean, 1);
	return r;
}

static void drop(void *arg, void *r)
{
	(void)arg;
	lctl_dir_report_free(r);
}

static unsigned default_parallel(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* the work is network round trips, not CPU: several per core */
	n = n > 0 ? n * 4 : 8;
	return n > 32 ? 32 : (unsigned)n;
}

static int summary_init(struct lctl_scan_summary *sum, size_t n)
{
	sum->nsubvols = n;
	sum->subvol_files = calloc(n, sizeof(uint64_t));
	sum->subvol_bytes = calloc(n, sizeof(uint64_t));
	sum->subvol_hash_share = calloc(n, sizeof(double));
	sum->subvol_target_share = calloc(n, sizeof(double));
	sum->move_files = calloc(n * n, sizeof(uint64_t));
	sum->move_bytes = calloc(n * n, sizeof(uint64_t));
	if (!sum->subvol_files || !sum->subvol_bytes || !sum->subvol_hash_share ||
	    !sum->subvol_target_share || !sum->move_files || !sum->move_bytes)
		return -LCTL_ENOMEM;
	return 0;
}

static void summary_release(struct lctl_scan_summary *sum)
{
	free(sum->subvol_files);
	free(sum->subvol_bytes);
	free(sum->subvol_hash_share);
	free(sum->subvol_target_share);
	free(sum->move_files);
	free(sum->move_bytes);
}

static double range_share(const struct lctl_range *r)
{
	if (r->start == 0 && r->stop == 0)
		return 0.0;
	if (r->stop < r->start)
		return 0.0;
	return ((double)r->stop - (double)r->start + 1.0) / 4294967296.0;
}

/* Running means of the ring shares: sum over directories, divided at the end by the caller. */
static void summary_add(struct lctl_scan *s, const struct lctl_dir_report *r)
{
	struct lctl_scan_summary *sum = &s->sum;
	size_t i, n = sum->nsubvols;
	unsigned b;

	sum->dirs++;
	sum->files += r->nfiles;
	sum->bytes += r->bytes;
	if (lctl_dir_report_clean(r))
		sum->dirs_clean++;
	for (b = 0; b < LCTL_DIR_PROBLEM_COUNT; b++)
		if (r->problems & (1u << b))
			sum->dir_problem[b]++;
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT)
		sum->dirs_user_layout++;
	for (b = 0; b < LCTL_ENTRY_STATE_COUNT; b++)
		sum->entry[b] += r->count[b];
	/* a miss is answered by the hashed subvolume alone only in a stamped, hole-free dir */
	if (sum->lookup_optimize && !r->err &&
	    !(r->problems &
	      (LCTL_DIR_UNSTAMPED | LCTL_DIR_COMMIT_MIXED | LCTL_DIR_HOLE | LCTL_DIR_MISSING |
	       LCTL_DIR_MALFORMED | LCTL_DIR_UNREADABLE | LCTL_DIR_SUBVOL_DOWN))) {
		sum->dirs_optimized++;
		sum->files_optimized += r->nfiles;
	}
	if (!r->layout || r->nsubvols != n)
		return;
	for (i = 0; i < n; i++) {
		sum->subvol_files[i] += r->subvol_files[i];
		sum->subvol_bytes[i] += r->subvol_bytes[i];
		if (r->layout[i].err == 0)
			sum->subvol_hash_share[i] += range_share(&r->layout[i].r);
		sum->subvol_target_share[i] += range_share(&r->planned[i]);
	}
	for (i = 0; i < n * n; i++) {
		sum->move_files[i] += r->move_files[i];
		sum->move_bytes[i] += r->move_bytes[i];
	}
}

int lctl_scan_start(struct lctl_volume *vol, const struct lctl_scan_opts *opts,
		    struct lctl_scan **out, struct lctl_error *err)
{
	struct lctl_crawl_cfg cfg = { 0 };
	struct lctl_scan *s;
	const char *root = opts->path && opts->path[0] ? opts->path : "/";
	int ret;

	*out = NULL;
	if (root[0] != '/')
		return lctl_seterr(err, LCTL_EINVAL, 0, "path '%s' is not absolute", root);
	if (opts->planner == LCTL_PLANNER_EVEN_USAGE && !lctl_volume_usage(vol)) {
		ret = lctl_volume_measure_usage(vol, opts->parallel, NULL, err);
		if (ret)
			return ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	s->vol = vol;
	s->opts = *opts;
	s->opts.path = NULL;
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	ret = lctl_inspector_init(&s->in, vol, opts->planner, opts->all_entries, err);
	if (ret) {
		free(s);
		return ret;
	}
	/* a brick folder read directly: is its brick process still up? asked 4 times a second */
	s->in.probe_ms = 250;
	if (strcmp(root, "/") && lctl_nogfid_guard_start(s->in.nogfid, s->vol, root)) {
		ret = lctl_seterr(err, LCTL_EINVAL, 0, "path '%s' is too long", root);
		goto fail;
	}
	if (summary_init(&s->sum, lctl_volume_nsubvols(vol))) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto fail;
	}
	s->sum.volume_commit = s->in.vol_commit;
	s->sum.lookup_optimize = lctl_volume_dht_options(vol)->lookup_optimize;
	cfg.nworkers = opts->parallel ? opts->parallel : default_parallel();
	cfg.visit = visit;
	cfg.drop = drop;
	cfg.arg = s;
	ret = lctl_crawl_start(&cfg, root, &s->crawl, err);
	if (ret)
		goto fail;
	*out = s;
	return 0;
fail:
	summary_release(&s->sum);
	lctl_inspector_release(&s->in);
	free(s);
	return ret;
}

struct lctl_dir_report *lctl_scan_next(struct lctl_scan *s, int timeout_ms, bool *finished)
{
	struct lctl_dir_report *r = lctl_crawl_next(s->crawl, timeout_ms, finished);

	if (r)
		summary_add(s, r);
	return r;
}

const struct lctl_scan_summary *lctl_scan_summary(struct lctl_scan *s)
{
	return &s->sum;
}

void lctl_scan_progress(struct lctl_scan *s, struct lctl_progress *p)
{
	struct lctl_crawl_stats st;
	struct timespec now;
	unsigned i;

	lctl_crawl_stats(s->crawl, &st);
	clock_gettime(CLOCK_MONOTONIC, &now);
	memset(p, 0, sizeof(*p));
	p->dirs_seen = st.dirs_seen;
	p->dirs_done = st.dirs_done;
	p->depth = st.depth;
	p->files = atomic_load(&s->files);
	p->bytes = atomic_load(&s->bytes);
	p->dirs_not_clean = atomic_load(&s->not_clean);
	p->workers = st.nworkers;
	p->active_workers = st.active_workers;
	p->paused = st.paused;
	p->elapsed = (double)(now.tv_sec - s->start.tv_sec) +
		     (double)(now.tv_nsec - s->start.tv_nsec) / 1e9;
	for (i = 0; i < st.nworkers && i < 64; i++)
		snprintf(p->worker_state[i], sizeof(p->worker_state[i]), "%s", st.worker_state[i]);
	p->dir_entries_done = st.entries_done;
	p->dir_entries_seen = st.entries_seen;
	snprintf(p->dir_entries_path, sizeof(p->dir_entries_path), "%s", st.entries_dir);
}

void lctl_scan_cancel(struct lctl_scan *s)
{
	s->sum.interrupted = true;
	lctl_crawl_cancel(s->crawl);
}

void lctl_scan_pause(struct lctl_scan *s, bool pause)
{
	lctl_crawl_pause(s->crawl, pause);
}

int lctl_scan_set_workers(struct lctl_scan *s, unsigned n)
{
	return lctl_crawl_set_workers(s->crawl, n);
}

void lctl_scan_free(struct lctl_scan *s)
{
	if (!s)
		return;
	lctl_crawl_free(s->crawl);
	summary_release(&s->sum);
	lctl_inspector_release(&s->in);
	free(s);
}

/*
 * The volume's own bytes on each subvolume, for the even-usage planner: what the layouts
 * place, as against what else its bricks' filesystems hold. A scan of the whole volume (the
 * files by the subvolume their data is on); kept in @vol for the walks that plan after it.
 */
int lctl_volume_measure_usage(struct lctl_volume *vol, unsigned parallel,
			      const volatile sig_atomic_t *stop, struct lctl_error *err)
{
	struct lctl_scan_opts so = { 0 };
	struct lctl_scan *scan = NULL;
	const struct lctl_scan_summary *sum;
	size_t n = lctl_volume_nsubvols(vol);
	bool fin = false;
	uint64_t *u;
	int ret;

	so.parallel = parallel;
	so.planner = LCTL_PLANNER_GLUSTER;
	so.max_depth = -1;
	ret = lctl_scan_start(vol, &so, &scan, err);
	if (ret)
		return ret;
	while (!fin && !(stop && *stop))
		lctl_dir_report_free(lctl_scan_next(scan, 200, &fin));
	if (!fin) {
		lctl_scan_free(scan);
		return lctl_seterr(err, LCTL_ECANCELED, 0, "stopped while measuring the volume");
	}
	sum = lctl_scan_summary(scan);
	u = calloc(n ? n : 1, sizeof(*u));
	if (!u) {
		lctl_scan_free(scan);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	if (sum->nsubvols == n)
		memcpy(u, sum->subvol_bytes, n * sizeof(*u));
	lctl_scan_free(scan);
	lctl_volume_set_usage(vol, u);
	return 0;
}
