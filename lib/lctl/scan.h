/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a job's progress, the parallel read-only scan, one directory's inspection.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_SCAN_H
#define LAYOUTCTL_SCAN_H

#include "base.h"
#include "volume.h"
#include "report.h"
#include "pool.h"

/*
 * The shape of a walk so far, depth by depth (the walk's top is depth 0; the last level holds
 * it and every deeper one): directories found, directories visited (each visit finds all of
 * its subdirectories), and the subdirectories those visits found. lctl_estimate_dirs() reads
 * the walk's size from it.
 */
#define LCTL_DEPTH_LEVELS 32
struct lctl_depth_counts {
	uint64_t seen[LCTL_DEPTH_LEVELS], done[LCTL_DEPTH_LEVELS], kids[LCTL_DEPTH_LEVELS];
	/* visits under way at each depth, and the subdirectories they have pushed so far */
	uint64_t busy[LCTL_DEPTH_LEVELS], busy_kids[LCTL_DEPTH_LEVELS];
};

/**
 * lctl_estimate_dirs() - the directories a walk will have found at its end, from @dc: each
 * depth's directories not visited yet are given as many subdirectories as the visited ones
 * of that depth had on average (lib/progressfile.c). Never less than the directories found.
 */
uint64_t lctl_estimate_dirs(const struct lctl_depth_counts *dc);

struct lctl_progress {
	uint64_t dirs_seen, dirs_done, files, bytes;
	uint64_t dirs_not_clean;
	uint64_t dirs_settling;	  /* fix: directories held for their settle period now */
	bool settling_only;	  /* fix: the phase's walk is over, only those are left */
	uint64_t file_actions[5]; /* fix: live count per enum lctl_file_action */
	uint64_t bytes_moved;	  /* fix: live */
	/* fix: what the plans of the directories inspected so far move (files and data bytes),
	 * and how many directories those plans are of */
	uint64_t plan_files, plan_bytes, plan_dirs;
	/* the walk running now, depth by depth (the directory estimate); zero: not known */
	struct lctl_depth_counts depth;
	/*
	 * fix: the directories the run's previous walk of the same tree found, all of it (the
	 * layout pass for the walk after the settle period, that one for the data phase); zero:
	 * none. The estimate of a later walk that has found no more than those.
	 */
	uint64_t dirs_known;
	time_t deadline; /* fix: the end of its time window (--until, --max-runtime); 0: none */
	unsigned workers, active_workers;
	bool paused;
	/* fix: the pace now (lctl_fix_set_pace()): files and bytes a second (0: no limit), and
	 * migrations at a time from or to one subvolume */
	double rate_limit, bandwidth_limit;
	unsigned migrations;
	/* fix: held while a subvolume is gone (lctl_fix_opts.hold_limit_s): for how long, why */
	bool held;
	double held_seconds;
	char held_why[200];
	double elapsed;		   /* seconds */
	char worker_state[64][96]; /* what each worker is doing */
	/*
	 * Inside the biggest directory in progress of a thousand names or more: names read and
	 * judged so far while it is inspected, entries placed of those to place while a fix
	 * places them; its path. 0, 0, "": none.
	 */
	uint64_t dir_entries_done, dir_entries_seen;
	char dir_entries_path[96];
	/*
	 * fix: preflight (the pool's workers are starting), layout (the layout pass: dirs_*
	 * count it), settle, place (pool workers), work, top, data
	 */
	const char *phase;
	/* fix: the settle period of this run (0: none), and the seconds left of it */
	double settle_seconds, settle_left;
	/* fix --mode clean-first: directories found or made clean so far (first phase), the
	 * seconds after the start at which all were (0: not yet, or before this run), since when
	 * all are (seconds since the epoch; 0: not yet, or not known), data phase directories
	 * placed */
	bool two_phase;
	uint64_t dirs_clean;
	double clean_at;
	time_t clean_since;
	uint64_t data_placed;
	unsigned nservers; /* fix spread over the pool: one row per server */
	struct lctl_server_progress servers[LCTL_POOL_MAX];
};

struct lctl_scan;

/**
 * lctl_scan_start() - start a parallel read-only scan of @vol.
 * @vol: an open volume with subvolume graphs; borrowed, must outlive the scan.
 * Return: 0 and *@out (free with lctl_scan_free()), or a negative LCTL_E* code.
 */
int lctl_scan_start(struct lctl_volume *vol, const struct lctl_scan_opts *opts,
		    struct lctl_scan **out, struct lctl_error *err);
/**
 * lctl_scan_next() - the next directory's report (caller owns it), waiting up to @timeout_ms.
 * NULL on timeout or at the end; *@finished says the end. Also adds the report to the summary.
 * Call from one thread only.
 */
struct lctl_dir_report *lctl_scan_next(struct lctl_scan *s, int timeout_ms, bool *finished);
/** lctl_scan_summary() - the totals so far. Borrowed; valid until lctl_scan_free(). */
const struct lctl_scan_summary *lctl_scan_summary(struct lctl_scan *s);
void lctl_scan_progress(struct lctl_scan *s, struct lctl_progress *p);
void lctl_scan_cancel(struct lctl_scan *s);
void lctl_scan_pause(struct lctl_scan *s, bool pause);
int lctl_scan_set_workers(struct lctl_scan *s, unsigned n);
void lctl_scan_free(struct lctl_scan *s);

/**
 * lctl_inspect_dir() - inspect one directory on every subvolume (what a scan does per
 * directory), for explain and repair. Children are not visited.
 * Return: 0 and *@out (caller owns it), or a negative code if @path cannot be inspected.
 */
int lctl_inspect_dir(struct lctl_volume *vol, const char *path, enum lctl_planner planner,
		     bool all_entries, struct lctl_dir_report **out, struct lctl_error *err);

/**
 * lctl_volume_measure_usage() - the volume's own bytes on each subvolume (a scan of the whole
 * volume with @parallel workers: each file by the subvolume its data is on), kept in @vol for
 * the even-usage planner (lctl_plan_usage_weights()); @stop, when set, ends it
 * (-LCTL_ECANCELED). lctl_scan_start() and lctl_fix_start() with that planner call it first
 * when nobody did. Not thread safe against walks of @vol that plan.
 * Return: 0 or -LCTL_E*.
 */
int lctl_volume_measure_usage(struct lctl_volume *vol, unsigned parallel,
			      const volatile sig_atomic_t *stop, struct lctl_error *err);
/** lctl_volume_usage() - the measure above, [nsubvols], or NULL before it. Borrowed. */
const uint64_t *lctl_volume_usage(const struct lctl_volume *vol);

#endif /* LAYOUTCTL_SCAN_H */
