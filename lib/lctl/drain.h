/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: drain: empty subvolumes, what is left on them, the remove-brick.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_DRAIN_H
#define LAYOUTCTL_DRAIN_H

#include "base.h"
#include "volume.h"
#include "fix.h"

/* ------------------------------------------------------------------------------------------ */
/* Drain: what is left on the subvolumes being emptied (lib/drain.c)                           */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_DRAIN_SAMPLES 8

/**
 * struct lctl_drain_left - what lctl_drain_check() found on the leaving subvolumes.
 * @nsubvols: leaving subvolumes walked (lctl_subvol.leaving).
 * @bricks_read: their bricks on this host read directly (as well as through the subvolume).
 * @bricks_gfapi: the bricks of their replica or disperse sets read each through a graph of
 *	its own (not on this host, or not read directly), as well as through the set.
 * @entries: entries that are not directories (data, linkto, symlinks, anything) left there,
 *	outside GlusterFS's internal folders at the root (.glusterfs*, .trashcan).
 * @bytes: the size of the regular files among them.
 * @samples: "WHERE:PATH" of the first @nsamples, WHERE a subvolume or a brick.
 * @err: non-zero when some folder could not be read (@err_path says which): then the walk
 *	proves nothing, and a remove-brick must not be run.
 */
struct lctl_drain_left {
	size_t nsubvols, bricks_read, bricks_gfapi;
	uint64_t entries, bytes;
	uint64_t brick_entries; /* the same, counted on the bricks read by their own view */
	char *samples[LCTL_DRAIN_SAMPLES];
	size_t nsamples;
	int err;
	char err_path[512];
};

/**
 * lctl_drain_check() - walk every leaving subvolume of @vol (its own graph, and each of its
 * bricks by its own view: on this host directly, else, for a replica or disperse set, through
 * the brick's own graph) for anything but directories. A brick that cannot be read sets @err.
 * Return: 0 with @out filled (release it with lctl_drain_left_release()); -LCTL_EINVAL when
 * no subvolume is leaving. Not thread safe on one @out.
 */
int lctl_drain_check(struct lctl_volume *vol, struct lctl_drain_left *out, struct lctl_error *err);
void lctl_drain_left_release(struct lctl_drain_left *l);

/**
 * lctl_min_free_bytes() - what DHT keeps free on a subvolume of @size bytes by the volume's
 * cluster.min-free-disk @opt (NULL: the default, "10%"), read as GlusterFS 10.3 reads it: a
 * number, with "%" or with a size unit (KB, MB, GB, TB, PB: powers of 1024); a value below 100
 * is a percentage of @size whichever way it was written, any other a number of bytes (so "50"
 * is 50 % and "100%" 100 bytes). Something else counts as the default. Pure.
 */
uint64_t lctl_min_free_bytes(const char *opt, uint64_t size);

/**
 * lctl_min_free_inodes() - the free inodes DHT keeps on a subvolume of @total inodes by the
 * volume's cluster.min-free-inodes @opt (NULL: the default, "5%"), read as GlusterFS 10.3
 * reads it (a percent option: a number from 0 to 100, "%" after it or not; DHT compares the
 * whole percentage of f_ffree in f_files with it: lctl_fill_inodes()). Something else counts
 * as the default. Pure.
 */
uint64_t lctl_min_free_inodes(const char *opt, uint64_t total);

/**
 * struct lctl_fill - a subvolume's space before and after a plan's moves (lib/space.c).
 * @size, @free_now: its root's statfs when the volume was opened (@known: there was one).
 * @in_*, @out_*: the plan's files and bytes to it and from it.
 * @free_after: free bytes once every move is done; @min_free: cluster.min-free-disk in bytes.
 * @crosses: the moves to it do not fit above @min_free: DHT's migration will refuse files
 *	once it gets there; @refused_bytes (and about @refused_files) would stay where they are.
 * The same with inodes (@inodes_known: statfs gave f_files): @inodes_free_now (f_ffree),
 * @inodes_free_after (once every file to it and from it has moved), @inodes_min_free (the
 * fewest free inodes DHT counts as above cluster.min-free-inodes: its whole-percent rule);
 * @crosses_inodes: the files to it do not fit above that, @inodes_refused_files of them past
 * it. DHT then creates new files elsewhere, but its migration (GlusterFS 10.3
 * __dht_check_free_space()) checks blocks only: it does not refuse those files.
 */
struct lctl_fill {
	uint64_t size, free_now, free_after, min_free;
	uint64_t in_files, in_bytes, out_files, out_bytes;
	uint64_t refused_files, refused_bytes;
	bool known, crosses;
	/* inodes, above (DHT's create avoids such a subvolume; its migration does not check) */
	uint64_t inodes_free_now, inodes_free_after, inodes_min_free, inodes_refused_files;
	bool inodes_known, crosses_inodes;
};

/**
 * lctl_fill_project() - each subvolume of @vol after the moves @move_files and @move_bytes
 * ([src * nsubvols + dst], as struct lctl_fix_summary has them), into @out[nsubvols]:
 * arrivals are counted before departures, so a subvolume that both gives and takes is not
 * given room it has only at the end.
 */
void lctl_fill_project(const struct lctl_volume *vol, const uint64_t *move_files,
		       const uint64_t *move_bytes, struct lctl_fill *out);

/**
 * lctl_fill_inodes() - @f's inode fields from its @in_files and @out_files, for a subvolume of
 * @total inodes (statfs f_files; 0: not known) with @ffree free (f_ffree, as DHT reads it), by
 * the volume's cluster.min-free-inodes @opt (lctl_min_free_inodes(), DHT's whole-percent rule).
 * Pure.
 */
void lctl_fill_inodes(struct lctl_fill *f, uint64_t total, uint64_t ffree, const char *opt);

/* ---- a drain, from the space check to the fix after the remove-brick (drainjob.c) ---------- */

/* fix runs of one drain at most (the first, and resumed ones while directories are left) */
#define LCTL_DRAIN_MAX_PASSES 5

/*
 * How a drain, or one fix run of it, ended; the caller's exit statuses, one each: done
 * (drained, removed with commit), something left or not fixed (or stopped: resumable), a
 * usage error, could not run, interrupted.
 */
enum lctl_drain_status {
	LCTL_DRAIN_DONE = 0,
	LCTL_DRAIN_PROBLEMS,
	LCTL_DRAIN_USAGE,
	LCTL_DRAIN_CANTRUN,
	LCTL_DRAIN_INTERRUPTED,
};

/**
 * struct lctl_drain_space - the space check before a drain writes anything: what is on the
 * leaving subvolumes must fit on the others above their cluster.min-free-disk (DHT's
 * migration refuses to cross it).
 * @bytes, @entries: what lctl_drain_check() found on the leaving subvolumes.
 * @room: the free bytes above cluster.min-free-disk, summed over the staying subvolumes.
 * @subvol_room: [@nsubvols] each subvolume's share of @room (0 for a leaving one).
 * @min_free_disk: the volume's cluster.min-free-disk as set (NULL: the default, 10%).
 * @err, @err_path: a folder of the leaving subvolumes could not be read: what it holds is not
 *	counted, @bytes says too little, and the check proves nothing.
 * @fill: [@nsubvols] each subvolume after the moves of the plan the drain will use
 *	(lctl_fill_project() of a scan with the drain's planner: min-move gives the leaving
 *	ranges to their neighbours only, so one neighbour can overflow while the sum fits).
 * @over: the first staying subvolume whose arrivals (bytes or inodes) would take it below
 *	cluster.min-free-disk (or cluster.min-free-inodes), -1 for none.
 * @scan_dirs, @scan_errors: directories the projection walked, and those it could not read
 *	(their files are not in @fill, which then says too little; @bytes and @room, from the
 *	leaving subvolumes' own walk, still hold).
 * @fits: @bytes fit into @room, no subvolume is @over, and nothing was left unread.
 */
struct lctl_drain_space {
	uint64_t bytes, entries, room;
	size_t nsubvols;
	uint64_t *subvol_room;
	struct lctl_fill *fill;
	ssize_t over;
	uint64_t scan_dirs, scan_errors;
	const char *min_free_disk;
	const char *min_free_inodes; /* the volume's cluster.min-free-inodes as set (NULL: 5%) */
	int err;
	char err_path[512];
	bool fits;
};

/**
 * lctl_drain_space() - the space check of @vol's leaving subvolumes (reads them all), and the
 * projection of every staying subvolume's space under @planner's plan (a walk of the volume
 * with @parallel workers; @stop, when set, ends it: the check then fails, -LCTL_ECANCELED).
 * Return: 0 with @out filled (release it with lctl_drain_space_release()), or -LCTL_E*.
 */
int lctl_drain_space(struct lctl_volume *vol, enum lctl_planner planner, unsigned parallel,
		     const volatile sig_atomic_t *stop, struct lctl_drain_space *out,
		     struct lctl_error *err);
void lctl_drain_space_release(struct lctl_drain_space *s);

/* What a drain reports while it runs (lctl_drain_job.event); the caller words and shows it. */
enum lctl_drain_event_kind {
	LCTL_DRAIN_EV_SPACE,	     /* @space: the space check (before it decides) */
	LCTL_DRAIN_EV_SPACE_UNKNOWN, /* @path, @err: a leaving folder unread: space unknown */
	LCTL_DRAIN_EV_NO_ROOM,	     /* @space: more to move than the others have room for */
	LCTL_DRAIN_EV_LOCK,	     /* @msg: the locks could not be taken */
	LCTL_DRAIN_EV_FAILED,	     /* @msg: a library call failed (lctl_error.msg) */
	LCTL_DRAIN_EV_PASS,	     /* @count directories left: pass @pass after @seconds */
	LCTL_DRAIN_EV_UNREADABLE,    /* @when, @path, @err: whether they are empty is unknown */
	LCTL_DRAIN_EV_LEFT,	     /* @when, @left: entries are still on them */
	LCTL_DRAIN_EV_EMPTY,	     /* @when, @left: nothing but directories on them */
	LCTL_DRAIN_EV_DRAINED,	     /* @bricks: drained; with commit the remove-brick is next */
	LCTL_DRAIN_EV_NO_GLUSTER,    /* no gluster CLI to remove the bricks with */
	LCTL_DRAIN_EV_BAD_BRICK,     /* @path: a brick name the CLI could take for another */
	LCTL_DRAIN_EV_TASKS,	     /* @tasks (enum lctl_gluster_idle), @gluster: task check */
	LCTL_DRAIN_EV_LOCK_LOST,     /* the volume lock is no longer this drain's */
	LCTL_DRAIN_EV_REMOVE_FAILED, /* @msg: glusterd's answer (one line) or what went wrong */
	LCTL_DRAIN_EV_REMOVED,	     /* @bricks: removed */
	LCTL_DRAIN_EV_STILL_SERVED,  /* glusterd still serves the volume with the removed bricks */
	LCTL_DRAIN_EV_SCAN_FAILED,   /* @msg: the scan after the remove could not start */
	LCTL_DRAIN_EV_AFTER_SCAN,    /* @count directories after the remove, @count2 clean */
};

struct lctl_drain_event {
	enum lctl_drain_event_kind kind;
	const struct lctl_drain_space *space;
	const struct lctl_drain_left *left;
	const char *when; /* "after the drain", "before the remove-brick" */
	const char *msg;
	const char *path;
	int err;
	uint64_t count, count2;
	int pass;
	unsigned seconds;
	const char *const *bricks; /* "HOST:/PATH" of the leaving subvolumes */
	size_t nbricks;
	int tasks;
	const char *gluster;
};

/* How one fix run of a drain ended (lctl_drain_job.run). */
struct lctl_drain_pass {
	int status;	    /* enum lctl_drain_status */
	uint64_t not_fixed; /* directories not fixed or stopped */
	uint64_t failed;    /* files failed */
	bool stopped;	    /* stopped (--until, a stop): resumable */
};

/**
 * struct lctl_drain_job - a drain of @vol's leaving subvolumes (lctl_subvol.leaving): the
 * space check, fix runs with the leaving subvolumes decommissioned (again for directories a
 * client changed meanwhile, at most LCTL_DRAIN_MAX_PASSES), the check that nothing but
 * directories is left, and with @commit the remove-brick and a fix of the new membership.
 * @fix: the options of each fix run (dry_run: one run, no lock, no remove); the job sets
 *	resume for the passes after the first, the lock it holds, and for the fix after the
 *	remove a fresh clean-first min-move run. @fix.stop_flag stops the job too.
 * @commit: run the remove-brick once the bricks are empty.
 * @task_check: ask glusterd whether a rebalance or remove-brick runs before the remove.
 * @run: one fix run of @vol with @o (@after_remove: the fix of the new membership); fills @out.
 * @reopen: open the volume again (after the remove); returns an enum lctl_drain_status.
 * @event: what to tell the user (may be NULL).
 */
struct lctl_drain_job {
	struct lctl_fix_opts fix;
	bool commit;
	bool task_check;
	void (*run)(void *arg, struct lctl_volume *vol, const struct lctl_fix_opts *o,
		    bool after_remove, struct lctl_drain_pass *out);
	int (*reopen)(void *arg, struct lctl_volume **out);
	void (*event)(void *arg, const struct lctl_drain_event *ev);
	void *arg;
};

/**
 * lctl_drain_run() - the drain @job of @vol, the volume lock held (not in a dry run) from
 * before the first fix run through the remove-brick and the fix after it. Without @commit a
 * drained volume ends with LCTL_DRAIN_EV_DRAINED and the status of the last run (directories
 * a client kept changing are left dirty, which is safe).
 * Return: an enum lctl_drain_status.
 */
int lctl_drain_run(struct lctl_volume *vol, const struct lctl_drain_job *job);

#endif /* LAYOUTCTL_DRAIN_H */
