/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: fix: make directories dirty, rewrite layouts, place entries, verify, stamp clean.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_FIX_H
#define LAYOUTCTL_FIX_H

#include "base.h"
#include "volume.h"
#include "report.h"
#include "lock.h"
#include "pool.h"
#include "scan.h"

/* ------------------------------------------------------------------------------------------ */
/* Fix: make directories dirty, rewrite layouts, place entries, verify, stamp clean            */
/* ------------------------------------------------------------------------------------------ */

enum lctl_fix_mode {
	LCTL_FIX_MIGRATE = 0, /* move misplaced data with DHT's own migration */
	LCTL_FIX_LINKTO,      /* move nothing: a correct linkto on the hashed subvolume */
	/*
	 * Two phases: first every directory as for LCTL_FIX_LINKTO (stamped clean, every file
	 * reachable through a linkto), then the data moved behind those linktos with DHT's own
	 * migration while the directories stay clean (lctl_fix_phase).
	 */
	LCTL_FIX_CLEAN_FIRST,
};

/** lctl_fix_mode_name() - "migrate", "linkto", "clean-first"; or NULL. */
const char *lctl_fix_mode_name(int mode);
/** lctl_fix_mode_parse() - the mode named @s. Return: 0, or -LCTL_EINVAL. */
int lctl_fix_mode_parse(const char *s, enum lctl_fix_mode *mode);
/** lctl_planner_name() - "gluster", "min-move" (as --layout, the journal and the pool say). */
const char *lctl_planner_name(int planner);
/** lctl_planner_parse() - the planner named @s. Return: 0, or -LCTL_EINVAL. */
int lctl_planner_parse(const char *s, enum lctl_planner *planner);

/* Which part of a LCTL_FIX_CLEAN_FIRST run to do. */
enum lctl_fix_phase {
	LCTL_FIX_PHASE_ALL = 0, /* clean every directory, then move the data */
	LCTL_FIX_PHASE_CLEAN,	/* only the first: the journal then waits in phase "data" */
	LCTL_FIX_PHASE_DATA,	/* only the second, in directories already clean */
};

/*
 * Migration runs inside our DHT client and is bound by the bricks' CPU and disks; measured
 * here (2 cores, 6 bricks), more than a few workers made it slower.
 */
#define LCTL_FIX_DEFAULT_PARALLEL 4
#define LCTL_FIX_MAX_MIGRATIONS 8

struct lctl_fix_opts {
	const char *path;  /* subtree; NULL = the whole volume */
	unsigned parallel; /* 0 = LCTL_FIX_DEFAULT_PARALLEL */
	/*
	 * Migrations at a time from or to one subvolume, 1-LCTL_FIX_MAX_MIGRATIONS; 0 = 1. More
	 * than one pays where the network is the limit (migrationlimit.c).
	 */
	unsigned migrations;
	enum lctl_planner planner;
	enum lctl_fix_mode mode;
	enum lctl_fix_phase phase; /* LCTL_FIX_CLEAN_FIRST only */
	bool dry_run;		   /* plan only: writes nothing, takes no lock */
	unsigned settle_ms;	   /* wait after making directories dirty */
	/*
	 * A worker in a directory with no sign of life for this long (a GlusterFS call that
	 * does not return: GlusterFS 10.3's DHT can loop for ever in a lookup that meets a file
	 * another client is creating) stops the run: lctl_fix_next() ends it once the other
	 * workers are done, lctl_fix_end() fails with -LCTL_EIO and lctl_fix_hung() is true.
	 * 0 = wait for ever.
	 */
	unsigned hang_timeout_s;
	double files_per_sec; /* 0 = unlimited */
	double bytes_per_sec; /* 0 = unlimited */
	time_t deadline;      /* stop cleanly at this time (0 = none) */
	/*
	 * Set (by a signal handler, say) to stop: read during lctl_fix_start() too, so that a
	 * stop in the layout pass or the settle period ends the run before anything moves.
	 */
	const volatile sig_atomic_t *stop_flag;
	const char *state_dir; /* journal and lock; required unless dry_run */
	bool resume;	       /* continue the journal's run */
	bool break_lock;       /* take over a volume lock held by a dead run elsewhere */
	/*
	 * Both locks held by the caller (lctl_volume_lock(), a drain's, with the same state
	 * directory): the run takes neither, checks they are still its, and releases neither.
	 */
	struct lctl_lock *lock;
	/*
	 * Ask DHT to migrate with "force" (as "gluster volume rebalance VOL start force"): it
	 * then moves a file even when the target would be left with less free space, in whole
	 * percent, than the source. cluster.min-free-disk still holds. Kept in the journal.
	 */
	bool force_move;
	/*
	 * A run spread over the pool: before anything moves, every server's worker is started
	 * and must answer (else the run refuses); after the dirty and layout phase each moves the
	 * files whose data its own bricks hold; then this host verifies and stamps, moving only
	 * its own files (lctl_volume_owns()). Not kept in the journal: a resumed run is given the
	 * workers again.
	 */
	const struct lctl_worker_spec *workers; /* [i]: server i (lctl_volume_server_at()) */
	size_t nworkers;
	/*
	 * A pool worker's run (layoutctl worker): migrate this server's share of every directory
	 * of @path, nothing else (no lock, journal, layout, verify or stamp; those are the
	 * starting host's). @state_dir holds only the kept modes.
	 */
	bool place_only;
	/*
	 * A subvolume that stops answering in the middle of the run (not every one: a stopped
	 * volume, or this host cut off, stops the run as before) holds it: each worker waits
	 * before its next directory, and a directory that went wrong while one was gone is done
	 * again once it is back (lctl_progress.held says why meanwhile). Held longer than this
	 * many seconds, the run stops, resumable (lctl_fix_summary.held_out). 0: no hold, such a
	 * directory is left not fixed and the run goes on.
	 */
	unsigned hold_limit_s;
};

enum lctl_file_action {
	LCTL_FILE_MIGRATED = 0,
	LCTL_FILE_LINKED,	  /* a linkto now leads to it */
	LCTL_FILE_SKIPPED,	  /* left where it is (reason says why), still reachable */
	LCTL_FILE_FAILED,	  /* err says why; the directory stays dirty */
	LCTL_FILE_LINKTO_REMOVED, /* a stale or orphan linkto was removed */
	LCTL_FILE_ACTION_COUNT,
};

const char *lctl_file_action_name(int action);

struct lctl_file_outcome {
	char *name;
	enum lctl_file_action action;
	int err;	    /* errno for failed and skipped */
	const char *reason; /* static text, or NULL */
	int from, to;	    /* subvolumes, -1 if not applicable */
	uint64_t size;
	/* the file's hard links and gfid digest (0 unknown): its names are one file */
	nlink_t nlink;
	uint64_t ino;
};

enum lctl_dir_outcome {
	LCTL_DIR_WAS_CLEAN = 0, /* nothing to do */
	LCTL_DIR_FIXED,		/* verified and stamped */
	LCTL_DIR_NOT_FIXED,	/* left dirty; reason says why */
	LCTL_DIR_LEFT_ALONE,	/* user-set layout */
	LCTL_DIR_PLANNED,	/* dry run */
	LCTL_DIR_STOPPED,	/* the run stopped before this directory was finished */
	LCTL_DIR_PLACED,	/* a pool worker moved its share; the starting host verifies */
	LCTL_DIR_OUTCOME_COUNT,
};

const char *lctl_dir_outcome_name(int outcome);

/*
 * The steps of one directory's repair, timed on the thread that does them (the split of the
 * clean phase in the fix summary): reading it on every subvolume before the work, writing its
 * layout (and healing its subdirectories), making linkto files, moving data, reading it again
 * to verify, writing or taking back its stamp.
 */
enum lctl_repair_step {
	LCTL_STEP_INSPECT = 0,
	LCTL_STEP_LAYOUT,
	LCTL_STEP_LINKS,
	LCTL_STEP_MOVES,
	LCTL_STEP_VERIFY,
	LCTL_STEP_STAMP,
	LCTL_STEP_COUNT,
};

/** lctl_repair_step_name() - "inspect", "layout", "links", "moves", "verify", "stamp"; or NULL. */
const char *lctl_repair_step_name(int step);

/*
 * The phases of a run as the progress file names them (not enum lctl_fix_phase, which says
 * which of a clean-first run's phases to run) (struct lctl_progress.phase): the
 * workers' answers, the dirty pass (phase "layout"), the settle period, the walk that places,
 * verifies and stamps ("work"), the pool's workers placing their shares ("place"), the data
 * phase of a clean-first run, the top directory last.
 */
enum lctl_run_phase {
	LCTL_RUN_PREFLIGHT = 0,
	LCTL_RUN_LAYOUT,
	LCTL_RUN_SETTLE,
	LCTL_RUN_WORK,
	LCTL_RUN_PLACE,
	LCTL_RUN_DATA,
	LCTL_RUN_TOP,
	LCTL_RUN_COUNT,
};

/** lctl_run_phase_name() - the phase's name ("layout", "work"...); or NULL. */
const char *lctl_run_phase_name(int phase);

struct lctl_repair_report {
	char *path;
	enum lctl_dir_outcome outcome;
	char reason[200];
	struct lctl_dir_report *plan; /* the inspection the work was based on (moves, layout) */
	struct lctl_file_outcome *files;
	size_t nfiles;
	uint64_t count[LCTL_FILE_ACTION_COUNT];
	uint64_t bytes_moved;
	/*
	 * A report of the data phase of a LCTL_FIX_CLEAN_FIRST run: @outcome is
	 * LCTL_DIR_FIXED when the directory is clean and its data placed (files DHT will not
	 * move, hard links say, stay linked and are counted as skipped).
	 */
	bool data_phase;
	double step_s[LCTL_STEP_COUNT]; /* seconds spent in each step, on the repairing thread */
};

void lctl_repair_report_free(struct lctl_repair_report *r);

/* Skipped files of one reason (lctl_file_outcome.reason, static text; "" for none). */
#define LCTL_FIX_SKIP_REASONS 8
struct lctl_skip_count {
	const char *reason; /* NULL: an unused slot */
	uint64_t files;
};

struct lctl_fix_summary {
	uint64_t dirs, dir_outcome[LCTL_DIR_OUTCOME_COUNT];
	/*
	 * Per enum lctl_file_action: @files counts each file once (the names of a hard-linked
	 * file are one file), @names each name it was done to; a name counts once per action in
	 * a directory, however many rounds or phases met it.
	 */
	uint64_t files[LCTL_FILE_ACTION_COUNT];
	uint64_t names[LCTL_FILE_ACTION_COUNT];
	uint64_t bytes_moved;
	uint64_t planned_files, planned_bytes; /* dry run: what would move */
	uint32_t commit;		       /* the hash directories are stamped with */
	enum lctl_fix_mode mode;	       /* the run's (the journal's when resumed) */
	/* LCTL_FIX_CLEAN_FIRST: the directory counts above are the first phase's */
	bool two_phase;
	bool data_ran;			 /* the data phase started */
	uint64_t data_dirs, data_placed; /* data phase: directories seen, placed */
	uint64_t repaired_later;	 /* of those the first phase left not clean,
						 * how many the data phase repaired */
	double clean_at;		 /* seconds after the start at which every
						 * directory was clean; 0: not in this run */
	time_t clean_since;		 /* since when every directory is clean (this
						 * run or the one it resumed); 0: not known */
	bool stopped;			 /* cancelled or out of time: resumable */
	bool held_out;			 /* stopped: held past lctl_fix_opts.hold_limit_s */
	bool deadline_hit;
	bool refused; /* ended before anything was written (a server's
						 * worker did not answer, or a stop came first) */
	/*
	 * The moves every directory's plan made (its first visit: the data phase of a
	 * clean-first run sees it again), summed: [src * nsubvols + dst].
	 */
	size_t nsubvols;
	uint64_t *move_files, *move_bytes;
	/* The files skipped, by reason: the first LCTL_FIX_SKIP_REASONS reasons met, the rest */
	struct lctl_skip_count skipped[LCTL_FIX_SKIP_REASONS];
	uint64_t skipped_other;
	/*
	 * Where the time went: wall seconds in each phase of this run; and the seconds this
	 * host's threads spent in each step of the directories' repairs, summed over the threads
	 * (a pool's workers keep theirs). Read through lctl_fix_summary(), which brings the
	 * current phase up to now.
	 */
	double phase_s[LCTL_RUN_COUNT];
	double step_s[LCTL_STEP_COUNT];
};

struct lctl_fix;

/**
 * lctl_fix_start() - check the volume, take the locks and start the run; returns at once
 * after that (it does not wait for anything). lctl_fix_next() then drives every phase: the
 * pool's workers answering (phase preflight; nothing is written before all did), the journal
 * and the dirty phase (new volume commit hash, or commit word 1 on every directory of a
 * subtree: phase layout), the settle period (phase settle), then the walks.
 * Return: 0 and *@out; -LCTL_EDOWN (a subvolume is down), -LCTL_EBUSY (locked, or a
 * remove-brick is running), -LCTL_ECORRUPT (journal), -LCTL_EINVAL, -LCTL_EIO, -LCTL_EPERM.
 */
int lctl_fix_start(struct lctl_volume *vol, const struct lctl_fix_opts *opts, struct lctl_fix **out,
		   struct lctl_error *err);
/**
 * lctl_fix_next() - the next directory's report (caller owns it); the top directory last.
 * Waits at most about @timeout_ms, in every phase. A phase that cannot go on (a server's
 * worker fails to answer, the journal cannot be written) ends the run: *@finished, and
 * lctl_fix_end() returns the error.
 */
struct lctl_repair_report *lctl_fix_next(struct lctl_fix *f, int timeout_ms, bool *finished);
const struct lctl_fix_summary *lctl_fix_summary(struct lctl_fix *f);
void lctl_fix_progress(struct lctl_fix *f, struct lctl_progress *p);
/** lctl_fix_cancel() - stop after the directories in progress; the run stays resumable. */
void lctl_fix_cancel(struct lctl_fix *f);
void lctl_fix_pause(struct lctl_fix *f, bool pause);
int lctl_fix_set_workers(struct lctl_fix *f, unsigned n);

/** lctl_pace_check() - 0 when every field @p->set names is in range, else -LCTL_EINVAL. */
int lctl_pace_check(const struct lctl_pace *p);
/**
 * lctl_fix_set_pace() - take the fields @p->set names from now on, in this process and (a run
 * spread over the pool) in every server's worker. Return: 0 or -LCTL_EINVAL.
 */
int lctl_fix_set_pace(struct lctl_fix *f, const struct lctl_pace *p);
/**
 * lctl_fix_end() - write the journal's final state and release the locks.
 * Return: 0 when every directory is clean, 1 when some are not (or the run stopped), or the
 * negative code (and @err) of a phase that could not go on.
 */
int lctl_fix_end(struct lctl_fix *f, struct lctl_error *err);
/*
 * The run was stopped because a worker hung (lctl_fix_opts.hang_timeout_s): its thread is
 * still inside GlusterFS, so lctl_fix_free() leaves what it may touch alone, and the caller
 * must not close the volume: it should exit the process once its output is written.
 */
bool lctl_fix_hung(const struct lctl_fix *f);
void lctl_fix_free(struct lctl_fix *f);

#endif /* LAYOUTCTL_FIX_H */
