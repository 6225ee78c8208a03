/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix run's state and the steps of it that its files share: fix.c (the run's stages and its
 * entry points: start, next, progress, end), fixstart.c (what the start checks and takes
 * before anything is written: the options, the preflight, the locks and the drain's fence,
 * the journal begun or resumed), fixvisit.c (the visits of each walk, the directories held for
 * their settle period, the hold while a subvolume is gone), fixsummary.c (the run's summary,
 * each directory's report counted once). Private to those files: the rest of lib/ uses
 * lctl/fix.h.
 */
#ifndef LCTL_FIXRUN_H
#define LCTL_FIXRUN_H

#include "internal.h"
#include "crawl.h"
#include "inspect.h"
#include "journal.h"
#include "health.h"
#include "lock.h"
#include "pool.h"
#include "outcomes.h"
#include "repair.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* how often the hold asks whether every subvolume answers (health.c) */
#define HEALTH_PROBE_MS 1000

/*
 * Where a run is: lctl_fix_start() returns once the locks are taken (cheap), and
 * lctl_fix_next() drives the rest, so that its caller shows every phase as it happens.
 */
enum fix_stage {
	FIX_HELLO = 1, /* preflight: the pool's workers are starting; nothing written yet */
	FIX_HOLD,      /* held before the first write (fix_hold_step()); nothing written yet */
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
	struct lctl_slots slots; /* one migration at a time per subvolume (migrationlimit.c) */
	bool modes_open;
	struct lctl_crawl *crawl; /* the walk below the top, then the top's own */
	struct lctl_pool *pool;	  /* a run spread over the pool: the servers' workers */
	bool placing;		  /* the workers are moving their shares */
	bool pool_stopped;	  /* "stop" sent to them */
	bool pool_paused;
	bool pool_went;	   /* "go" sent: they move their shares once per run */
	const char *phase; /* for progress: lctl_run_phase_name()'s, set by fix_set_phase() */
	int phase_at;	   /* its enum lctl_run_phase, -1 before the first */
	double phase_t0;   /* monotonic time up to which sum.phase_s counts it */
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
	/* the directories the last whole walk found (lctl_progress.dirs_known); 0: none yet */
	uint64_t known_dirs;
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
	/* what the plans of the directories inspected so far move: files, bytes, directories */
	_Atomic uint64_t plan_files, plan_bytes, plan_dirs;
	/* nanoseconds the walks' threads spent inspecting directories (before their repair) */
	_Atomic uint64_t walk_inspect_ns, walk_inspect_taken;

	pthread_mutex_t tlock; /* protects next_slot */
	double next_slot;      /* throttle: monotonic time the next item may start */
	unsigned pace_gen; /* one more at each lctl_fix_set_pace(): slots booked before rebook */

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
	bool ripe_started;	  /* the last walk, of the deferred directories, runs */
	atomic_bool ripe_pushed;  /* its first visit queued them */
	atomic_uint ripe_waiting; /* taken from the queue by it, their settle period not over */
	/*
	 * The linkto pass (a linkto run, or the first phase of a clean-first one) started at the
	 * end of the layout pass: its links are made during the settle period, the rest of each
	 * directory held until it is over (lctl_repair_dir_early()).
	 */
	bool early;
	/*
	 * Held while the volume is not whole (fix_hold_step()): since when, and why, under
	 * hold_lock; held_out once held past opts.hold_limit_s (the run stops, resumable);
	 * whole_at: when the volume was last seen whole again after a hold (monotonic; 0 while
	 * it is not), under hold_lock: the reconnect wait and grace count from it.
	 */
	struct lctl_health health;
	pthread_mutex_t hold_lock;
	atomic_bool held, held_out;
	double held_since, whole_at;
	char held_why[200];
};

/* fix.c: the stop (a deadline, a signal, cancel), waiting out a pause */
bool fix_deadline_passed(struct lctl_fix *f);
bool fix_should_stop(void *arg);

/*
 * fixvisit.c: one look at the volume's health for a run with a hold limit: 1 while it is held
 * (f->held, f->held_why say why), 0 when it is whole, -1 to stop (a stop, or held past the
 * limit: f->held_out, and the run is told to stop).
 */
int fix_hold_step(struct lctl_fix *f);

/* fixstart.c: before anything is written */
int fix_validate_opts(const struct lctl_fix_opts *opts, const char *top, struct lctl_error *err);
int fix_drain_list(struct lctl_volume *vol, char *buf, size_t size);
int fix_check_scope(struct lctl_fix *f, const struct lctl_fix_opts *opts, int ndrain, bool whole,
		    struct lctl_error *err);
int fix_open_state(struct lctl_fix *f, const struct lctl_fix_opts *opts, const char *drain,
		   int ndrain, bool *whole, struct lctl_error *err);
int fix_claim_volume(struct lctl_fix *f, const struct lctl_fix_opts *opts, int ndrain,
		     const char *drain, struct lctl_error *err);
void fix_release_locks(struct lctl_fix *f);

/* fixvisit.c: the walks and their visits */
unsigned fix_parallel(const struct lctl_fix_opts *o);
int fix_start_layout(struct lctl_fix *f, struct lctl_error *err);
int fix_start_work(struct lctl_fix *f, struct lctl_error *err);
bool fix_start_ripe(struct lctl_fix *f);
struct lctl_repair_report *fix_flush_deferred(struct lctl_fix *f);
void *fix_top_visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth);
void fix_drop(void *arg, void *r);
struct lctl_repair_report *fix_failed_report(const char *path, int code);
bool fix_settling(void *arg);

/* fixsummary.c: the summary */
void fix_summary_add(struct lctl_fix *f, struct lctl_repair_report *rr);
void fix_set_phase(struct lctl_fix *f, enum lctl_run_phase phase);
void fix_time_taken(struct lctl_fix *f);
bool fix_phase_one_ok(const struct lctl_fix_summary *s);
bool fix_all_clean(const struct lctl_fix *f);
void fix_mark_clean(struct lctl_fix *f);
void fix_pool_totals(struct lctl_fix *f, uint64_t *files, uint64_t *names, uint64_t *bytes);

#endif
