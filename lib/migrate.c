/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step 3 of a directory's repair (repair.c): place its entries. DHT's own migration of a file
 * ("migrate-data", with a slot on both subvolumes, migrationlimit.c), the setgid/sticky mode kept
 * before it (journal.c's modes), the reason DHT refused one (its free-space balance check
 * redone), the lookups that link files in a linkto pass, spread over threads in a large
 * directory, and a pool worker's share of a directory (lctl_repair_place()).
 */
#include "internal.h"

#include <glusterfs/api/glfs-handles.h>
#include "crawl.h"
#include "inspect.h"
#include "migrate.h"
#include "repairsteps.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* The mode kept for the file @path on subvolume @sv, if any. */
static bool kept_mode(struct lctl_repair_ctx *rc, int sv, const char *path, mode_t *mode)
{
	unsigned char g[16];
	struct stat st;

	return rc->modes && sv >= 0 && !repair_raw_gfid(rc, (size_t)sv, path, g, &st) &&
	       lctl_modes_find(rc->modes, g, mode);
}

/*
 * Before DHT migrates @e: a migration marks its source with S_ISGID|S_ISVTX while it runs, so
 * one that is killed loses whether the file had either bit. Keep the mode of a file that has
 * one (synced to STATE_DIR/modes), and for a leftover look up the mode kept by the run that
 * started it (*@kept; (mode_t)-1 if none).
 * Return: 0 go on; 1 not moved (outcome added).
 */
static int keep_mode(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
		     const struct lctl_entry_report *e, const char *path, mode_t *kept)
{
	unsigned char g[16];
	struct stat st;
	int ret;

	*kept = (mode_t)-1;
	if (!rc->modes || e->cached < 0)
		return 0;
	if (e->state == LCTL_ENTRY_MIGRATION_LEFTOVER) {
		kept_mode(rc, e->cached, path, kept);
		return 0;
	}
	if (!(e->mode & (S_ISGID | S_ISVTX)))
		return 0;
	ret = repair_raw_gfid(rc, (size_t)e->cached, path, g, &st);
	if (!ret && (st.st_mode & 07777) != (e->mode & 07777))
		ret = -EAGAIN; /* changed since the inspection: the next run will see it */
	if (!ret)
		ret = lctl_modes_keep(rc->modes, g, e->mode & 07777);
	if (ret) {
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				   "cannot keep its setgid/sticky mode before moving it", e->cached,
				   e->target, e->size);
		return 1;
	}
	return 0;
}

/* Free blocks in whole percent, in 512-byte sectors as DHT counts them; -1 if unknown. */
static int64_t free_percent(const struct statvfs *s)
{
	uint64_t unit = s->f_frsize / 512;

	if (!unit || !s->f_blocks)
		return -1;
	return (int64_t)((uint64_t)s->f_bavail * unit * 100 / ((uint64_t)s->f_blocks * unit));
}

bool lctl_dht_balance_refuses(const struct statvfs *from, const struct statvfs *to)
{
	int64_t src = free_percent(from), dst = free_percent(to);

	return src >= 0 && dst >= 0 && dst < src;
}

/*
 * Why DHT answered EPERM ("not moved, and not a failure") for the move of @e (in @dir) from
 * its data subvolume to its target. Hard links and POSIX locks keep a file where it is; so
 * does the free-space balance check unless we asked with "force". The check is redone here
 * from fresh statfs of both subvolumes: free space moves, so a file it no longer catches gets
 * the general reason.
 */
static const char *eperm_reason(struct lctl_repair_ctx *rc, const char *dir,
				const struct lctl_entry_report *e)
{
	glfs_t *from = e->cached >= 0 ? lctl_volume_subvol_fs(rc->in->vol, (size_t)e->cached)
				      : NULL;
	glfs_t *to = e->target >= 0 ? lctl_volume_subvol_fs(rc->in->vol, (size_t)e->target) : NULL;
	struct statvfs sf, st;

	if (e->nlink > 1)
		return "hard links: left in place behind a linkto";
	if (!rc->force_move && from && to && !glfs_statvfs(from, dir, &sf) &&
	    !glfs_statvfs(to, dir, &st) && lctl_dht_balance_refuses(&sf, &st))
		return "DHT's free-space balance check: the target would have less free space than "
		       "the source (--force-move moves it): left in place behind a linkto";
	return "DHT did not move it (POSIX locks, a new hard link, or its free-space balance "
	       "check): left in place behind a linkto";
}

bool repair_stopping(struct lctl_repair_ctx *rc)
{
	return rc->should_stop && rc->should_stop(rc->arg);
}

/*
 * DHT's migration of @path, with a slot on both subvolumes (migrationlimit.c).
 * Return: 0 moved; -1 with errno set; 1 stopped while waiting for a slot.
 */
static int migrate(struct lctl_repair_ctx *rc, const char *path, const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	int ret, err;

	if (rc->slots &&
	    !lctl_slots_take(rc->slots, e->cached, e->target, rc->should_stop, rc->arg))
		return 1;
	/* "force" only skips DHT's free-space balance check; cluster.min-free-disk still holds */
	ret = rc->force_move
		      ? glfs_lsetxattr(dht, path, "trusted.distribute.migrate-data", "force", 5, 0)
		      : glfs_lsetxattr(dht, path, "trusted.distribute.migrate-data", "1", 1, 0);
	err = errno;
	if (rc->slots)
		lctl_slots_put(rc->slots, e->cached, e->target);
	errno = err;
	lctl_crawl_beat();
	return ret ? -1 : 0;
}

/*
 * Step 3 for an entry left over by an interrupted migration (place_entry()).
 * Return: true when it is done with (an outcome added, or nothing to do), false when DHT's
 * migration of it again is to complete it.
 */
static bool place_leftover(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const char *path, const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	mode_t kept = (mode_t)-1;
	struct stat st;

	if (e->cached >= 0 && rc->mode == LCTL_FIX_MIGRATE && e->hashed >= 0 &&
	    e->cached != e->hashed)
		return false;
	if (e->cached < 0 && rc->mode == LCTL_FIX_MIGRATE && !rc->dry_run) {
		int from = -1, ret = repair_finish_copied(rc, path, e->hashed, &from);

		if (ret == 0) {
			if (kept_mode(rc, e->hashed, path, &kept) && !glfs_lstat(dht, path, &st) &&
			    (st.st_mode & 07777) != kept)
				glfs_chmod(dht, path, kept);
			repair_add_outcome(rc, rr, e, LCTL_FILE_MIGRATED, 0,
					   "completed a migration interrupted after its copy", from,
					   e->hashed, e->size);
			return true;
		}
		if (ret < 0) {
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
					   "cannot complete a migration interrupted after its copy",
					   -1, e->hashed, e->size);
			return true;
		}
	}
	/*
	 * Data in place with both bits, and a mode we kept for it: a re-migration we
	 * finished but were stopped before giving the file its mode back.
	 */
	if (e->cached >= 0 && e->cached == e->hashed && rc->modes && !rc->dry_run &&
	    kept_mode(rc, e->cached, path, &kept) && !glfs_chmod(dht, path, kept))
		return true;
	repair_add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, 0,
			   "left over by an interrupted migration: check it by hand", e->cached,
			   e->hashed, e->size);
	return true;
}

/*
 * Step 3 for data on several subvolumes (place_entry()): a symbolic link or special file whose
 * migration was killed after its copy is completed (repair_finish_special()); anything else is
 * left to a human.
 */
static void place_duplicate(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			    const char *path, const struct lctl_entry_report *e)
{
	int from = -1, ret = 1;

	if (!rc->dry_run && !S_ISREG(e->mode))
		ret = repair_finish_special(rc, path, e->hashed, &from);
	if (ret == 0)
		repair_add_outcome(rc, rr, e, LCTL_FILE_MIGRATED, 0,
				   "completed a migration interrupted after its copy", from,
				   e->hashed, e->size);
	else if (ret < 0)
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				   "cannot complete a migration interrupted after its copy", -1,
				   e->hashed, e->size);
	else
		repair_add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, 0,
				   "data on several subvolumes: compare and remove a copy by hand",
				   -1, e->hashed, e->size);
}

/* Step 3 for a linkto without data (place_entry()). */
static void place_orphan(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			 const char *path, const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	struct stat st;

	/*
	 * DHT removes a linkto without data when a lookup by name runs into it, under its
	 * own guards. We do not unlink it ourselves: it may be the first half of a client's
	 * rename, and the renamed file would then have no linkto on its hashed subvolume.
	 */
	if (glfs_lstat(dht, path, &st) == 0)
		return; /* data appeared meanwhile: verify will judge */
	/*
	 * A lookup asks the hashed subvolume first, so it never meets an orphan on another
	 * one in a clean directory; and a rename's linkto goes on the new name's hashed
	 * subvolume, so one elsewhere is no rename in progress: remove it, carefully.
	 */
	if (e->linkto_subvol >= 0 && e->linkto_subvol != e->hashed &&
	    repair_remove_linkto(rc, (size_t)e->linkto_subvol, path, -1) == 0) {
		repair_add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "orphan",
				   e->linkto_subvol, -1, 0);
		return;
	}
	if (e->linkto_subvol >= 0 && lctl_volume_subvol_fs(rc->in->vol, (size_t)e->linkto_subvol) &&
	    glfs_lstat(lctl_volume_subvol_fs(rc->in->vol, (size_t)e->linkto_subvol), path, &st) &&
	    errno == ENOENT)
		repair_add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "orphan, by DHT",
				   e->linkto_subvol, -1, 0);
}

/*
 * Step 3 for an entry DHT is to migrate (place_entry()): its setgid/sticky mode kept first,
 * then its outcome from DHT's answer.
 */
static void migrate_entry(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			  const char *dir, const char *path, const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	mode_t kept = (mode_t)-1;
	struct stat st;
	int moved;

	if (keep_mode(rc, rr, e, path, &kept))
		return;
	moved = migrate(rc, path, e);
	/*
	 * EPERM for a file without hard links: POSIX locks, or DHT's free-space balance check,
	 * which trips by chance on bricks that share a filesystem while concurrent copies take
	 * its free space across a whole percent. Ask once more: a lock or a lasting imbalance
	 * refuses again before anything is copied.
	 */
	if (moved < 0 && errno == EPERM && e->nlink <= 1 && !rc->force_move)
		moved = migrate(rc, path, e);
	if (moved > 0)
		return; /* stopped while waiting: the verify step leaves the directory dirty */
	if (moved == 0) {
		/*
		 * A finished re-migration of a leftover copies the source's mode, phase-1 bits
		 * included (they were set when it started): put back the mode kept before the
		 * first attempt, or clear both bits (DHT hides them anyway) when none was kept.
		 */
		if (e->state == LCTL_ENTRY_MIGRATION_LEFTOVER && !glfs_lstat(dht, path, &st) &&
		    S_ISREG(st.st_mode))
			glfs_chmod(dht, path,
				   kept != (mode_t)-1
					   ? kept
					   : st.st_mode & 07777 & ~(mode_t)(S_ISGID | S_ISVTX));
		repair_add_outcome(rc, rr, e, LCTL_FILE_MIGRATED, 0, NULL, e->cached, e->target,
				   e->size);
		return;
	}
	switch (errno) {
	case EEXIST: /* already on its hashed subvolume */
		return;
	case EPERM:
		/* hard links, POSIX locks or DHT's balance check: kept, reachable through a linkto */
		repair_add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, EPERM, eperm_reason(rc, dir, e),
				   e->cached, e->target, e->size);
		return;
	case ENOENT:
		/*
		 * Renamed or removed by a client since the inspection: nothing to place, and the
		 * verify step judges the directory from fresh reads anyway. Only a file that is
		 * still there but that DHT does not find is a failure.
		 */
		if (e->cached >= 0 && lctl_volume_subvol_fs(rc->in->vol, (size_t)e->cached) &&
		    glfs_lstat(lctl_volume_subvol_fs(rc->in->vol, (size_t)e->cached), path, &st) &&
		    errno == ENOENT)
			return;
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENOENT, "not found by DHT",
				   e->cached, e->target, e->size);
		return;
	case ENOSPC:
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENOSPC,
				   "migration failed (min-free-disk, space, or a concurrent write)",
				   e->cached, e->target, e->size);
		return;
	default:
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "migration failed",
				   e->cached, e->target, e->size);
		return;
	}
}

/* Step 3 for one entry. */
void repair_place_entry(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *dir,
			const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	char path[4096];
	struct stat st;

	lctl_crawl_beat(); /* each entry a sign of life (lctl_crawl_stalled()) */
	/* a run of listed files: the others stay as they are (the verify then keeps it dirty) */
	if (rc->wanted && !rc->wanted(rc->wanted_arg, dir, e->name))
		return;
	if (lctl_path_join_to(path, sizeof(path), dir, e->name)) {
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENAMETOOLONG, "path too long",
				   e->cached, e->hashed, e->size);
		return;
	}
	switch (e->state) {
	case LCTL_ENTRY_PLACED:
		return;
	case LCTL_ENTRY_DUPLICATE:
		place_duplicate(rc, rr, path, e);
		return;
	case LCTL_ENTRY_MIGRATION_LEFTOVER:
		/*
		 * One data copy with the phase-1 bits: a migration that was interrupted (a killed
		 * fix, or a crashed rebalance; none runs now, preflight made sure). DHT's migration
		 * of that file again completes it (it reuses the destination it finds). Anything
		 * else (data on two subvolumes) is left to a human.
		 */
		if (place_leftover(rc, rr, path, e))
			return;
		break;
	case LCTL_ENTRY_UNHASHED:
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, EINVAL, "no hashed subvolume",
				   e->cached, -1, e->size);
		return;
	case LCTL_ENTRY_ORPHAN_LINKTO:
		place_orphan(rc, rr, path, e);
		return;
	case LCTL_ENTRY_STALE_LINKTO:
		if (repair_stale_first(rc, rr, path, e))
			return;
		break;
	default:
		break;
	}
	/* placed elsewhere: misplaced, linked, or linked through a wrong linkto */
	/*
	 * In a pool, the data's own server moves a regular file; verify judges the rest. A
	 * symbolic link, device, FIFO or socket is the starting host's, which moves it with the
	 * directory dirty (lctl_repair_place() leaves it): it has no data to spread.
	 */
	if (rc->mode == LCTL_FIX_MIGRATE && rc->own_only && S_ISREG(e->mode) &&
	    (e->cached < 0 || !lctl_volume_owns(rc->in->vol, (size_t)e->cached, path)))
		return;
	if (rc->after_workers && e->state == LCTL_ENTRY_LINKED && S_ISREG(e->mode))
		return; /* its server's worker tried it */
	if (rc->throttle)
		rc->throttle(rc->arg, rc->mode == LCTL_FIX_MIGRATE ? e->size : 0);
	if (rc->mode == LCTL_FIX_LINKTO) {
		if (e->state == LCTL_ENTRY_LINKED)
			return;
		/* the first lookup by name in a dirty directory links the data from the hashed one */
		if (glfs_lstat(dht, path, &st))
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "lookup failed",
					   e->cached, e->hashed, e->size);
		else
			repair_add_outcome(rc, rr, e, LCTL_FILE_LINKED, 0, NULL, e->cached,
					   e->hashed, e->size);
		return;
	}
	if (rc->drain && e->nlink > 1 && !repair_on_leaving(rc, e->cached)) {
		/*
		 * With decommissioned subvolumes DHT takes every hard-linked file through its
		 * decommission path (gf_defrag_handle_hardlink()), which, for data that is not on
		 * one of them, only marks the data with a linkto xattr and moves nothing. Without
		 * them it refuses (EPERM). So such a file stays where it is, as in any fix: linked
		 * from its hashed subvolume by the first lookup of its name in this dirty directory;
		 * a linkto there that names another subvolume (after DHT moved the data of another
		 * name of the file off a leaving one, say) was pointed at the data (repair_stale_first()).
		 */
		if (e->state != LCTL_ENTRY_LINKED && glfs_lstat(dht, path, &st))
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "lookup failed",
					   e->cached, e->hashed, e->size);
		else
			repair_add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, EPERM,
					   "hard links: left in place behind a linkto", e->cached,
					   e->target, e->size);
		return;
	}
	migrate_entry(rc, rr, dir, path, e);
}

/*
 * What a pool worker places (lctl_repair_place()): data away from its hashed subvolume, and a
 * migration left over with its data. A special file only moves with its directory dirty, which
 * the starting host sees to (a worker may run while the directory is stamped: a clean-first run).
 */
static bool worker_places(const struct lctl_entry_report *e)
{
	if (lctl_repair_clean_place(e) == LCTL_PLACE_DIRTY_AFTER)
		return false;
	return e->state == LCTL_ENTRY_MISPLACED || e->state == LCTL_ENTRY_LINKED ||
	       (e->state == LCTL_ENTRY_MIGRATION_LEFTOVER && e->cached >= 0);
}

int lctl_repair_place(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report **out)
{
	struct lctl_repair_report *rr = repair_report_new(path);
	struct lctl_dir_report *r = initial;
	double t = lctl_mono_seconds();
	int ret = 0;

	*out = NULL;
	if (!rr) {
		lctl_dir_report_free(initial);
		return -LCTL_ENOMEM;
	}
	if (!r && (ret = repair_inspect(rc, path, depth, &r))) {
		lctl_repair_report_free(rr);
		return ret;
	}
	t = repair_step_time(rr, LCTL_STEP_INSPECT, t);
	rr->outcome = LCTL_DIR_PLACED;
	repair_place_entries(rc, rr, path, r, worker_places, false, LCTL_STEP_MOVES);
	repair_step_time(rr, LCTL_STEP_MOVES, t);
	if (repair_stopping(rc))
		repair_set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished");
	rr->plan = r;
	repair_unique_outcomes(rc, rr);
	*out = rr;
	return 0;
}

/* A directory with at least this many files to link or place spreads them over threads. */
#define LINK_SPREAD_MIN 256
#define LINK_THREADS_MAX 16

/*
 * The threads a directory's @n entries to link or place are shared by (the worker's own
 * included): rc->link_threads for a directory of LINK_SPREAD_MIN or more, else the worker alone.
 */
static unsigned spread_threads(const struct lctl_repair_ctx *rc, size_t n)
{
	if (n < LINK_SPREAD_MIN || rc->link_threads <= 1)
		return 1;
	return rc->link_threads < LINK_THREADS_MAX ? rc->link_threads : LINK_THREADS_MAX;
}

/* One directory's entries to place, shared by threads (repair_place_entries()). */
struct place_spread {
	struct lctl_repair_ctx *rc;
	const char *dir;
	const struct lctl_dir_report *r;
	bool (*pick)(const struct lctl_entry_report *e);
	bool forget;		    /* a misplaced entry is forgotten by our client first */
	bool hard;		    /* the pass of hard-linked names (else of the others) */
	enum lctl_repair_step step; /* the step a helper thread's time counts to */
	_Atomic size_t next;
};

/* A thread of a place_spread, with the report its outcomes (and a helper's time) go to. */
struct place_part {
	struct place_spread *s;
	struct lctl_repair_report *rr;
	pthread_t tid;
};

/*
 * Whether @s places @e: what its pick takes, of what is not in place already (in a linkto
 * pass, a linked file is where it stays).
 */
static bool place_takes(const struct place_spread *s, const struct lctl_entry_report *e)
{
	if (e->state == LCTL_ENTRY_PLACED ||
	    (s->rc->mode == LCTL_FIX_LINKTO && e->state == LCTL_ENTRY_LINKED))
		return false;
	return !s->pick || s->pick(e);
}

/* A name of a file with other names (each pass of repair_place_entries() takes its kind). */
static bool hard_linked(const struct lctl_entry_report *e)
{
	return S_ISREG(e->mode) && e->nlink > 1;
}

static void *place_some(void *arg)
{
	struct place_part *p = arg;
	struct place_spread *s = p->s;
	size_t i, n = s->r->nentries;

	while ((i = atomic_fetch_add(&s->next, 1)) < n && !repair_stopping(s->rc)) {
		const struct lctl_entry_report *e = &s->r->entries[i];

		if (hard_linked(e) == s->hard && place_takes(s, e)) {
			if (s->forget && e->state == LCTL_ENTRY_MISPLACED)
				lctl_volume_forget(s->rc->in->vol, s->dir, e->name);
			repair_place_entry(s->rc, p->rr, s->dir, e);
		}
		/* (on the worker's own thread; a no-op on the others) */
		if (!s->hard)
			repair_entries_progress(i + 1, n);
	}
	return NULL;
}

/* place_some() on a helper thread, its time counted in its report (the worker's, by the caller) */
static void *place_helper(void *arg)
{
	struct place_part *p = arg;
	double t = lctl_mono_seconds();

	place_some(p);
	repair_step_time(p->rr, p->s->step, t);
	return NULL;
}

/*
 * Place the entries of @r (in @dir) that @pick takes (NULL: all), their outcomes in @rr. A
 * directory with many of them (LINK_SPREAD_MIN) shares them among rc->link_threads threads,
 * the worker's own included, each with a report of its own, merged into @rr at the end: one
 * worker would otherwise move the files of a directory of a million, one at a time, while the
 * slots of other subvolume pairs stay free (migrationlimit.c still bounds what moves at once).
 * The names are placed independently of each other, in any order, as DHT would; but the names
 * of a hard-linked file go after the rest, one at a time on the worker's own thread, as before:
 * two names of one directory's file are never handed to DHT at once (its handling of a file
 * with several names, gf_defrag_handle_hardlink(), works on the other names too; two at once
 * on one file is an interleaving this code has never been tested with). The helper threads'
 * time is added to @rr's @step; the worker's own, the caller times.
 */
void repair_place_entries(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			  const char *dir, const struct lctl_dir_report *r,
			  bool (*pick)(const struct lctl_entry_report *e), bool forget,
			  enum lctl_repair_step step)
{
	struct place_spread s = { .rc = rc,
				  .dir = dir,
				  .r = r,
				  .pick = pick,
				  .forget = forget,
				  .step = step };
	struct place_part part[LINK_THREADS_MAX];
	size_t i, picked = 0, hard = 0;
	unsigned n = 0, k, want;

	for (i = 0; i < r->nentries; i++)
		if (place_takes(&s, &r->entries[i])) {
			picked++;
			hard += hard_linked(&r->entries[i]);
		}
	want = spread_threads(rc, picked - hard);
	for (k = 1; k < want; k++) {
		part[n].s = &s;
		part[n].rr = repair_report_new(dir);
		if (!part[n].rr)
			break;
		if (pthread_create(&part[n].tid, NULL, place_helper, &part[n])) {
			lctl_repair_report_free(part[n].rr);
			break;
		}
		n++;
	}
	if (n)
		lctl_log(LCTL_LOG_VERBOSE, "'%s': %zu entries to place over %u threads", dir,
			 picked - hard, n + 1);
	place_some(&(struct place_part){ .s = &s, .rr = rr });
	for (k = 0; k < n; k++) {
		pthread_join(part[k].tid, NULL);
		repair_merge_outcomes(rc, rr, part[k].rr);
	}
	if (hard) {
		s.hard = true;
		atomic_store(&s.next, 0);
		place_some(&(struct place_part){ .s = &s, .rr = rr });
	}
}

/* The lookups of one directory's misplaced entries, shared by threads (repair_link_misplaced()). */
struct link_spread {
	struct lctl_repair_ctx *rc;
	const char *dir;
	const struct lctl_dir_report *r;
	_Atomic size_t next;	    /* the next entry to take */
	unsigned char *linked;	    /* per entry: its linkto was made (or its lookup made it) */
	struct lctl_link_dir *ld;   /* the directory in the subvolumes' graphs, or NULL */
	_Atomic size_t direct;	    /* linkto files made directly (lctl_volume_link_direct()) */
	_Atomic uint64_t helper_ns; /* the time of the threads other than the worker's own */
};

static void *link_some(void *arg)
{
	struct link_spread *s = arg;
	glfs_t *dht = lctl_volume_fs(s->rc->in->vol);
	char path[4096];
	struct stat st;
	size_t i;

	while ((i = atomic_fetch_add(&s->next, 1)) < s->r->nentries && !repair_stopping(s->rc)) {
		const struct lctl_entry_report *e = &s->r->entries[i];

		if (e->state != LCTL_ENTRY_MISPLACED ||
		    lctl_path_join_to(path, sizeof(path), s->dir, e->name))
			continue;
		lctl_crawl_beat(); /* on the crawl worker's own thread */
		if (s->rc->throttle)
			s->rc->throttle(s->rc->arg, 0);
		if (s->ld && !lctl_volume_link_direct(s->ld, e->name, e->hashed, e->cached)) {
			atomic_fetch_add(&s->direct, 1);
		} else if (glfs_lstat(dht, path, &st)) {
			/* the first lookup by name in a dirty directory links the data from the hashed one */
			continue;
		}
		s->linked[i] = 1;
		if (s->rc->live)
			atomic_fetch_add(&s->rc->live[LCTL_FILE_LINKED], 1);
	}
	return NULL;
}

/* link_some() on a helper thread, its time counted */
static void *link_helper(void *arg)
{
	struct link_spread *s = arg;
	double t = lctl_mono_seconds();

	link_some(s);
	atomic_fetch_add(&s->helper_ns, (uint64_t)((lctl_mono_seconds() - t) * 1e9));
	return NULL;
}

/*
 * A linkto pass's links (before its placing rounds, or held: lctl_repair_dir_early()): a
 * lookup of each misplaced entry of @r, which in the dirty directory makes its linkto; each
 * one linked is marked so in @r, so that the rounds do not count it twice, and one that
 * failed is left to them. A directory with many (LINK_SPREAD_MIN) shares them among up to
 * @rc->link_threads threads, the worker's own included: one worker would otherwise do the
 * lookups of a directory of a million files alone, one at a time. The helper threads' time is
 * added to @rr's links step; the worker's own, the caller times.
 */
void repair_link_misplaced(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const char *dir, struct lctl_dir_report *r)
{
	struct link_spread s = { .rc = rc, .dir = dir, .r = r };
	pthread_t tid[LINK_THREADS_MAX];
	unsigned n = 0, k, want;
	size_t i, misplaced = 0;

	for (i = 0; i < r->nentries; i++)
		misplaced += r->entries[i].state == LCTL_ENTRY_MISPLACED;
	if (!misplaced)
		return;
	s.linked = calloc(r->nentries, 1);
	if (!s.linked)
		return; /* the placing rounds link them one by one */
	/*
	 * Made directly only where the inspection read the layout the run wrote (the names'
	 * hashed subvolumes are then those of every client that has read it); otherwise, and for
	 * each name the direct way declines, DHT's lookup decides.
	 */
	if (!r->layout_changes)
		s.ld = lctl_link_dir_open(rc->in->vol, dir);
	want = spread_threads(rc, misplaced);
	for (k = 1; k < want; k++)
		if (!pthread_create(&tid[n], NULL, link_helper, &s))
			n++;
	link_some(&s);
	for (k = 0; k < n; k++)
		pthread_join(tid[k], NULL);
	rr->step_s[LCTL_STEP_LINKS] += (double)atomic_load(&s.helper_ns) / 1e9;
	lctl_link_dir_close(s.ld);
	if (s.ld)
		lctl_log(LCTL_LOG_DEBUG, "%s: %zu of %zu linkto files made directly", dir,
			 (size_t)s.direct, misplaced);
	for (i = 0; i < r->nentries; i++) {
		struct lctl_entry_report *e = &r->entries[i];

		if (!s.linked[i])
			continue;
		repair_record_outcome(rc, rr, e, LCTL_FILE_LINKED, 0, NULL, e->cached, e->hashed,
				      e->size, false);
		e->state = LCTL_ENTRY_LINKED;
	}
	free(s.linked);
}
