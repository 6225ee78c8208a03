/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The types one directory's repair works with, below every room of it (repair.c, migrate.c,
 * linkto.c, dataphase.c, outcomes.c, repairsteps.c): the context a fix hands each, and the
 * pure verdicts on one entry. Internal to lib/; repair.h includes it.
 */
#ifndef LCTL_REPAIRCTX_H
#define LCTL_REPAIRCTX_H

#include "inspect.h"
#include "journal.h"
#include "migrationlimit.h"

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
	/* the links or moves of a directory with many files to link or place, over this many
	 * threads (the worker's own included); 0 or 1: the worker alone */
	unsigned link_threads;
	/* where the S_ISGID/S_ISVTX bits of files about to move are kept; NULL in a dry run */
	struct lctl_modes *modes;
	/* one migration at a time per subvolume (migrationlimit.c); NULL: no limit */
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
	/* a run of listed files: only the entries this says yes to are placed (lctl_fix_opts) */
	bool (*wanted)(void *arg, const char *dir, const char *name);
	void *wanted_arg;
};

/* How the data phase may place an entry (see dataphase.c) */
enum lctl_clean_place {
	LCTL_PLACE_CLEAN,	/* with its directory stamped */
	LCTL_PLACE_DIRTY_AFTER, /* with the directory dirty, once the regular files are placed */
	LCTL_PLACE_DIRTY,	/* with the directory dirty from the start */
};

/* What a fix does first about an entry's stale linkto, before placing it (see linkto.c) */
enum lctl_stale_fix {
	LCTL_STALE_PLACE,	   /* nothing first: place the entry as any other */
	LCTL_STALE_REMOVE_STRAY,   /* data on its hashed subvolume: remove the stray, done */
	LCTL_STALE_REMOVE_THIRD,   /* a correct hashed linkto: remove the stray elsewhere, place */
	LCTL_STALE_REMOVE_FOREIGN, /* the hashed linkto has another file's gfid: remove it, place */
	LCTL_STALE_RETARGET,	   /* the hashed linkto names a subvolume without the data: make it
				    * name the data's (removed instead if its gfid is another's) */
};

/* How the data phase may place @e (repairsteps.c). Pure. */
enum lctl_clean_place lctl_repair_clean_place(const struct lctl_entry_report *e);
/* What to do first about the stale linkto of @e (linkto.c). Pure. */
enum lctl_stale_fix lctl_repair_stale_fix(const struct lctl_entry_report *e, bool data_leaving);

#endif
