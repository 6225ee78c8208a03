/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix run's summary (fixrun.h), summed here once for every report the run hands on: the
 * directories by outcome, the files and names by action (a hard-linked file once), the moves
 * by subvolume, the skipped files by reason, the pool's workers' counts. A clean-first run's
 * data phase sees again the directories its first phase could not make clean: their first
 * outcomes are kept (met_add()) and counted once (met_drop()), and the run is clean once the
 * data phase repaired every one of them.
 *
 * The summary is the consumer thread's (lctl_fix_next() and its caller): no lock of its own.
 * Here too: lctl_fix_summary() and lctl_fix_progress(), the run's summary and its live counts
 * as the caller reads them.
 */
#include "fixrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Every directory is clean from now on (a clean-first run): when, for progress and the report,
 * and in the journal, so that a run resumed in the data phase can say since when.
 */
void fix_mark_clean(struct lctl_fix *f)
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

/*
 * Add what the pool's workers did to @files and @names (per enum lctl_file_action) and @bytes
 * (a worker's counts are of names: each is taken for a file of its own).
 */
void fix_pool_totals(struct lctl_fix *f, uint64_t *files, uint64_t *names, uint64_t *bytes)
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

/* Every directory of the first walk (the only one, but for a clean-first run) clean. */
bool fix_phase_one_ok(const struct lctl_fix_summary *s)
{
	return s->dirs == s->dir_outcome[LCTL_DIR_WAS_CLEAN] + s->dir_outcome[LCTL_DIR_FIXED] +
				  s->dir_outcome[LCTL_DIR_LEFT_ALONE] +
				  s->dir_outcome[LCTL_DIR_PLACED];
}

/* Every directory clean: the first walk's, or those it left, repaired by the data phase. */
bool fix_all_clean(const struct lctl_fix *f)
{
	const struct lctl_fix_summary *s = &f->sum;

	return fix_phase_one_ok(s) ||
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

/* A directory's planned moves into the run's (fix_summary_add()). */
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

/* A directory's skipped files counted by reason (fix_summary_add()). */
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

static const char *const phase_names[LCTL_RUN_COUNT] = {
	[LCTL_RUN_PREFLIGHT] = "preflight",
	[LCTL_RUN_LAYOUT] = "layout",
	[LCTL_RUN_SETTLE] = "settle",
	[LCTL_RUN_WORK] = "work",
	[LCTL_RUN_PLACE] = "place",
	[LCTL_RUN_DATA] = "data",
	[LCTL_RUN_TOP] = "top",
};

const char *lctl_run_phase_name(int phase)
{
	return phase >= 0 && phase < LCTL_RUN_COUNT ? phase_names[phase] : NULL;
}

/*
 * Bring the summary's times up to now: the current phase's wall time, and the walks'
 * inspections (counted by their threads, taken here once).
 */
void fix_time_taken(struct lctl_fix *f)
{
	double now = lctl_mono_seconds();
	uint64_t ns = atomic_load(&f->walk_inspect_ns), taken = atomic_load(&f->walk_inspect_taken);

	if (f->phase_at >= 0 && now > f->phase_t0)
		f->sum.phase_s[f->phase_at] += now - f->phase_t0;
	f->phase_t0 = now;
	f->sum.step_s[LCTL_STEP_INSPECT] += (double)(ns - taken) / 1e9;
	atomic_store(&f->walk_inspect_taken, ns);
}

/* The run enters @phase (the progress file's name for it; its time counted from now on). */
void fix_set_phase(struct lctl_fix *f, enum lctl_run_phase phase)
{
	fix_time_taken(f);
	f->phase_at = (int)phase;
	f->phase = phase_names[phase];
}

void fix_summary_add(struct lctl_fix *f, struct lctl_repair_report *rr)
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
			if (++f->nrepaired == f->nunclean && fix_all_clean(f))
				fix_mark_clean(f);
		}
	} else {
		f->sum.dirs++;
		f->sum.dir_outcome[rr->outcome]++;
	}
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		f->sum.names[a] += rr->count[a];
	lctl_outcomes_count_files(rr, &f->hard_files, f->sum.files);
	f->sum.bytes_moved += rr->bytes_moved;
	for (a = 0; a < LCTL_STEP_COUNT; a++)
		f->sum.step_s[a] += rr->step_s[a];
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

/* ---- what the run says of itself: its summary, its live progress ----------------------- */

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
	fix_time_taken(f);
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
	pthread_mutex_lock(&f->dlock);
	p->dirs_settling = f->ndefer + atomic_load(&f->ripe_waiting);
	pthread_mutex_unlock(&f->dlock);
	p->settling_only = f->ripe_started;
	for (i = 0; i < LCTL_FILE_ACTION_COUNT && i < 5; i++)
		p->file_actions[i] = atomic_load(&f->live[i]);
	p->bytes_moved = atomic_load(&f->live_bytes);
	p->plan_files = atomic_load(&f->plan_files);
	p->plan_bytes = atomic_load(&f->plan_bytes);
	p->plan_dirs = atomic_load(&f->plan_dirs);
	p->depth = st.depth;
	p->dirs_known = f->known_dirs;
	p->dir_entries_done = st.entries_done;
	p->dir_entries_seen = st.entries_seen;
	snprintf(p->dir_entries_path, sizeof(p->dir_entries_path), "%s", st.entries_dir);
	p->deadline = f->opts.deadline;
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
		fix_pool_totals(f, p->file_actions, names, &p->bytes_moved);
	}
}
