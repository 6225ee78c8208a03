/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Repair of one directory (repair.c and its rooms: repairsteps.h names them). Internal to lib/. */
#ifndef LCTL_REPAIR_H
#define LCTL_REPAIR_H

#include "inspect.h"
#include "journal.h"
#include "slots.h"

#include <sys/statvfs.h>

struct lctl_repair_ctx {
	struct lctl_inspector *in; /* borrowed */
	uint32_t commit;	   /* the hash to stamp */
	enum lctl_fix_mode mode;
	bool dry_run;
	/* let DHT move a file its free-space balance check would keep (lctl_fix_opts) */
	bool force_move;
	/* optional hooks into the job: rate limits and stop requests */
	void (*throttle)(void *arg, uint64_t bytes);
	/* live counters for progress, one per enum lctl_file_action, and bytes moved */
	_Atomic uint64_t *live;
	_Atomic uint64_t *live_bytes;
	bool (*should_stop)(void *arg);
	/*
	 * A linkto pass started during the settle period: true while it still runs, when only
	 * the lookups that link misplaced files may be done (lctl_repair_dir_early()). NULL: never.
	 */
	bool (*settling)(void *arg);
	void *arg;
	/* a linkto pass: the lookups of a directory with many files to link, over this many
	 * threads (the worker's own included); 0 or 1: the worker alone */
	unsigned link_threads;
	/* where the S_ISGID/S_ISVTX bits of files about to move are kept; NULL in a dry run */
	struct lctl_modes *modes;
	/* one migration at a time per subvolume (slots.c); NULL: no limit */
	struct lctl_slots *slots;
	/* a run spread over the pool: migrate only the files this server moves (topology.c) */
	bool own_only;
	/*
	 * The starting host's pass after the pool's workers: linked files were tried by their
	 * server's worker already (DHT keeps hard links, say), so they are left; and a directory
	 * with files whose server's worker did not finish (@mover_done false) is not stamped.
	 */
	bool after_workers;
	bool (*mover_done)(void *arg, size_t server);
	/*
	 * A drain: subvolumes are leaving (lctl_subvol.leaving; our DHT graph has them
	 * decommissioned). A directory is verified only once nothing of it is left on them.
	 */
	bool drain;
};

/**
 * lctl_outcomes_unique() - keep one outcome per name and action of @v[0..@n) (the first; the
 * others are met again by a later placing round or pass over the directory: a leftover or a
 * hard link skipped each time), in their order, freeing the names of the others. Each one
 * dropped is taken off @count and added to @dropped (per enum lctl_file_action; either may be
 * NULL). Pure. Return: how many are kept (@n without memory, when none is dropped).
 */
size_t lctl_outcomes_unique(struct lctl_file_outcome *v, size_t n, uint64_t *count,
			    uint64_t *dropped);

/* The hard-linked files a run counted, per action (lctl_outcomes_count_files()). */
struct lctl_file_set {
	uint64_t *v; /* open addressing, 0 = free */
	size_t n, cap;
};

/**
 * lctl_outcomes_count_files() - add to @files (per enum lctl_file_action) the files @rr's
 * outcomes are: each name of its own, but the names of a hard-linked file (nlink > 1, gfid
 * digest known), which count once per action over all the reports given @seen. Pure.
 */
void lctl_outcomes_count_files(const struct lctl_repair_report *rr, struct lctl_file_set *seen,
			       uint64_t *files);
void lctl_file_set_free(struct lctl_file_set *set);

/**
 * lctl_dht_balance_refuses() - DHT's free-space balance check for a migration (GlusterFS 10.3,
 * __dht_check_free_space(), the "migrate-data" value other than "force"): the whole percentage
 * of free blocks (f_bavail of f_blocks) the target has is below the source's. The file's own
 * blocks do not count, as DHT preallocates the target (conf->use_fallocate).
 * Return: true if DHT would refuse the move (the setxattr fails with EPERM).
 */
bool lctl_dht_balance_refuses(const struct statvfs *from, const struct statvfs *to);

/**
 * lctl_repair_dir() - run the fix protocol on one directory.
 * @initial: an inspection of @path made just before, or NULL; always consumed.
 * Return: 0 and *@out (caller owns it), or a negative code when nothing could be done.
 */
int lctl_repair_dir(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		    struct lctl_dir_report *initial, struct lctl_repair_report **out);

/**
 * lctl_repair_dir_early() - lctl_repair_dir() for a linkto pass that runs while the settle
 * period does (@rc->settling): the lookups that link the directory's misplaced files from
 * their hashed subvolume are done at once, and the rest (removing linkto files, verifying,
 * stamping) waits for the end of the settle period: *@held is set and the report returned,
 * for lctl_repair_dir_held() then. A linkto more hides nothing from a client that still holds
 * the old layout (its lookups go where the data is), while the rest could. A directory with
 * nothing to link, or once the settle period is over, is repaired here (*@held false).
 */
int lctl_repair_dir_early(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			  struct lctl_dir_report *initial, struct lctl_repair_report **out,
			  bool *held);

/**
 * lctl_repair_dir_held() - the rest of a directory lctl_repair_dir_early() held, the settle
 * period over. @held (consumed) becomes the report, with the outcomes of its links.
 */
int lctl_repair_dir_held(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *held, struct lctl_repair_report **out);

/**
 * lctl_repair_place() - a pool worker's share of one directory: migrate the misplaced and
 * linked regular files whose data this server moves (lctl_volume_owns()). No layout is written
 * and nothing is verified or stamped: the run's starting host does that once every server is
 * done, and moves the special files (symbolic links...), which need the directory dirty.
 * @initial: as for lctl_repair_dir().
 */
int lctl_repair_place(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report **out);

/* How the data phase may place an entry (see dataphase.c) */
enum lctl_clean_place {
	LCTL_PLACE_CLEAN,	/* with its directory stamped */
	LCTL_PLACE_DIRTY_AFTER, /* with the directory dirty, once the regular files are placed */
	LCTL_PLACE_DIRTY,	/* with the directory dirty from the start */
};
enum lctl_clean_place lctl_repair_clean_place(const struct lctl_entry_report *e);

/* What a fix does first about an entry's stale linkto, before placing it (see linkto.c) */
enum lctl_stale_fix {
	LCTL_STALE_PLACE,	   /* nothing first: place the entry as any other */
	LCTL_STALE_REMOVE_STRAY,   /* data on its hashed subvolume: remove the stray, done */
	LCTL_STALE_REMOVE_THIRD,   /* a correct hashed linkto: remove the stray elsewhere, place */
	LCTL_STALE_REMOVE_FOREIGN, /* the hashed linkto has another file's gfid: remove it, place */
	LCTL_STALE_RETARGET,	   /* the hashed linkto names a subvolume without the data: make it
				    * name the data's (removed instead if its gfid is another's) */
};
enum lctl_stale_fix lctl_repair_stale_fix(const struct lctl_entry_report *e, bool data_leaving);

/**
 * lctl_repair_data() - the data phase of a clean-first run for one directory (@rc->mode is
 * LCTL_FIX_MIGRATE): in a directory stamped with @rc->commit, migrate the entries a lookup
 * reaches through a linkto, or that our client links first, while it stays stamped. A
 * directory with an entry that cannot be handled so (a linkto naming the wrong subvolume, a
 * duplicate...), or that is not clean, is made dirty; one whose only such entries are
 * symbolic links, devices, FIFOs or sockets to move is made dirty only after its regular
 * files moved; so is one whose verify after the moves finds an entry a lookup would miss (a
 * client's create or rename through a layout it had cached). Either way *@deferred is set and
 * the report returned at once (the regular files placed where they could be, the directory
 * dirty): the caller lets the settle period pass, doing other work meanwhile, then hands it
 * to lctl_repair_specials(). The report has @data_phase set.
 * @initial: as for lctl_repair_dir().
 */
int lctl_repair_data(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		     struct lctl_dir_report *initial, struct lctl_repair_report **out,
		     bool *deferred);

/**
 * lctl_repair_specials() - the rest of a directory lctl_repair_data() deferred, its settle
 * period over: lctl_repair_dir() on it (dirty), which moves what is left (its special files)
 * and stamps it.
 * @first: the deferred report, consumed: its file outcomes are merged into *@out. Stopped
 * meanwhile, *@out is @first, stopped, the directory left dirty.
 */
int lctl_repair_specials(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *first, struct lctl_repair_report **out);

/**
 * lctl_repair_layout() - the job's layout pass for one directory: create it where it is
 * missing, write the planned layout dirty (commit 1), or mark the current one dirty.
 * @ch: receives the subdirectories (for the walk).
 * @ok: set when the directory now has its final ranges and commit 1 everywhere.
 * Return: 0, or a negative code when it could not even be inspected.
 */
int lctl_repair_layout(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		       struct lctl_inspect_children *ch, bool *ok);

#endif
