/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Repair one directory: steps 3 to 6 of the fix protocol (docs/design.md, "The fix protocol as
 * implemented").
 *
 * The directory is already dirty when we get here (the job wrote a new volume commit hash, or
 * commit word 1 on every directory of the subtree, and waited for clients to notice), so DHT
 * answers a miss in it by asking every subvolume, and nothing we move can become invisible.
 *
 *   1. inspect: every subvolume's own view (inspect.c); a clean directory is done;
 *   2. layout: create the directory where it is missing (a lookup through DHT heals it), then
 *      write the planned ranges with commit word 1 on every subvolume through the
 *      per-subvolume graphs, and make our DHT client re-read them (a lookup revalidates a
 *      directory whose on-disk layout differs from the one in memory);
 *   3. place: migrate-data per misplaced entry (DHT's own migration, safe with open files), or
 *      in linkto mode a first lookup by name through DHT, which finds the data by asking
 *      everyone and links it from the hashed subvolume; stray and orphan linkto files are left
 *      to the same DHT lookup, and removed by us only when that did not do it;
 *   4. verify: a fresh inspection; every entry must be reachable from its hashed subvolume and
 *      the layout must still be the one we wrote;
 *   5. stamp: read-compare-write of the commit word on every subvolume (0-0 entries too), then
 *      inspect again: an entry created meanwhile by a client with an old layout makes us put
 *      the directory back to dirty and report it.
 *
 * Every step is idempotent, so a killed run is resumed by doing it all again.
 *
 * The rooms of a directory's repair: this file (the layout, verify and stamp, and the protocol
 * that runs the steps), migrate.c (step 3: placing entries), linkto.c (linkto surgery and
 * copy checks), dataphase.c (the data phase of a clean-first run), outcomes.c (the report).
 * They share their steps through repairsteps.h.
 */
#include "internal.h"

#include <glusterfs/api/glfs-handles.h>
#include "inspect.h"
#include "repair.h"
#include "repairsteps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ranges_equal(const struct lctl_range *a, const struct lctl_range *b)
{
	return a->start == b->start && a->stop == b->stop && a->type == b->type;
}

/* Write @r (with commit @commit) as the layout of @path on subvolume @i. */
static int write_layout(struct lctl_repair_ctx *rc, size_t i, const char *path,
			const struct lctl_range *r, uint32_t commit)
{
	unsigned char buf[LCTL_LAYOUT_XATTR_LEN];
	struct lctl_range w = *r;
	glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, i);

	if (!fs)
		return -ENOTCONN;
	w.commit = commit;
	lctl_layout_encode(&w, buf);
	if (glfs_setxattr(fs, path, rc->in->layout_key, buf, sizeof(buf), 0))
		return errno ? -errno : -EIO;
	return 0;
}

/* Whether any subvolume's copy of the layout is missing or differs from @planned. */
static bool layout_differs(const struct lctl_dir_report *r, const struct lctl_range *planned)
{
	size_t i;

	for (i = 0; i < r->nsubvols; i++) {
		if (r->layout[i].err == ENOTCONN)
			continue;
		if (r->layout[i].err || !ranges_equal(&r->layout[i].r, &planned[i]))
			return true;
	}
	return false;
}

/*
 * Place, verify, and place again from the new view while a concurrent client changes the
 * directory (a client with an old layout can undo a linkto, more than once): at most this many
 * times, then the directory is left dirty for the next run.
 */
#define PLACE_ROUNDS 3

/* Problems that placing files cannot cure and that forbid stamping. */
#define STRUCTURAL \
	(LCTL_DIR_MISSING | LCTL_DIR_NOT_DIR | LCTL_DIR_INCOMPLETE | LCTL_DIR_HOLE | \
	 LCTL_DIR_OVERLAP | LCTL_DIR_DECOMMISSIONED | LCTL_DIR_MALFORMED | LCTL_DIR_SUBVOL_DOWN | \
	 LCTL_DIR_UNREADABLE)

/* Every entry reachable by name from its hashed subvolume. */
static bool entries_ok(const struct lctl_dir_report *r)
{
	int s;

	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		if (r->count[s] && !lctl_entry_state_ok(s))
			return false;
	return true;
}

/*
 * Safe to stamp: no data file that a lookup by name on its hashed subvolume would miss. Two
 * leftovers hide nothing and may stay: a linkto without data (DHT unlinks it when a lookup
 * runs into it; a client's rename in flight shows one for a moment, and removing that one
 * ourselves would hide the renamed file), and a stray linkto beside a file that is on its
 * hashed subvolume (clients still holding the old layout make those while we work).
 */
bool repair_harmless_leftover(const struct lctl_entry_report *e)
{
	return e->state == LCTL_ENTRY_ORPHAN_LINKTO ||
	       (e->state == LCTL_ENTRY_STALE_LINKTO && e->cached >= 0 && e->cached == e->hashed);
}

/* The first entry of @r that makes it unsafe to stamp, or NULL. */
static const struct lctl_entry_report *first_unsafe(const struct lctl_dir_report *r)
{
	size_t i;

	for (i = 0; i < r->nentries; i++)
		if (!lctl_entry_state_ok((int)r->entries[i].state) &&
		    !repair_harmless_leftover(&r->entries[i]))
			return &r->entries[i];
	return NULL;
}

/* Safe to stamp (above): every entry placed, linked or a harmless leftover. */
bool repair_entries_safe(const struct lctl_dir_report *r)
{
	int s;

	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		if (r->count[s] && !lctl_entry_state_ok(s) && s != LCTL_ENTRY_ORPHAN_LINKTO &&
		    s != LCTL_ENTRY_STALE_LINKTO)
			return false;
	return !first_unsafe(r);
}

/*
 * A drain's verify: no data and no linkto of @r on a leaving subvolume. (A placed entry never
 * is: a leaving subvolume has no range.) Always true outside a drain.
 */
static bool leaving_clear(const struct lctl_repair_ctx *rc, const struct lctl_dir_report *r)
{
	size_t i;

	for (i = 0; rc->drain && i < r->nentries; i++)
		if (repair_on_leaving(rc, r->entries[i].cached) ||
		    repair_on_leaving(rc, r->entries[i].linkto_subvol))
			return false;
	return true;
}

/* Whether some subvolume's copy of the layout carries the stamp @commit (clean for clients). */
bool repair_copy_clean(const struct lctl_dir_report *r, uint32_t commit)
{
	size_t i;

	for (i = 0; i < r->nsubvols; i++)
		if (!r->layout[i].err && r->layout[i].r.commit == commit)
			return true;
	return false;
}

/* A DHT lookup of every component of @path, from the top. */
static void heal_path(glfs_t *dht, const char *path)
{
	char *p = strdup(path);
	size_t i, n = strlen(path);
	struct stat st;

	if (!p)
		return; /* nothing healed: the caller finds it still missing */
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		glfs_lstat(dht, p, &st);
		p[i] = i == n ? '\0' : '/';
	}
	free(p);
}

/* Step 2: the planned layout on every subvolume, dirty, and our DHT client re-reading it. */
static int apply_layout(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			struct lctl_dir_report **rp, const char *path, unsigned depth)
{
	struct lctl_dir_report *r = *rp;
	struct lctl_range planned_copy[LCTL_MAX_SUBVOLS];
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	struct stat st;
	size_t i, n = r->nsubvols;
	int ret, attempt;

	if (r->problems & LCTL_DIR_MISSING) {
		/*
		 * A lookup through DHT creates the directory where it is missing, but only on the
		 * subvolumes that have its parent: look the ancestors up first, top-down (their own
		 * repair may not have run yet, e.g. in a resumed run or another worker).
		 */
		for (attempt = 0;; attempt++) {
			heal_path(dht, path);
			lctl_dir_report_free(r);
			*rp = r = NULL;
			ret = repair_inspect(rc, path, depth, rp);
			if (ret)
				return ret;
			r = *rp;
			/* the parent may be being healed by another worker right now: try again */
			if (!(r->problems & LCTL_DIR_MISSING) || attempt == 5)
				break;
			usleep(200000u << attempt);
		}
		if (r->problems & LCTL_DIR_MISSING) {
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "directory missing on a subvolume and DHT did not heal it");
			return 1;
		}
	}
	if (r->problems & (LCTL_DIR_NOT_DIR | LCTL_DIR_SUBVOL_DOWN | LCTL_DIR_UNREADABLE)) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "%s",
				  r->problems & LCTL_DIR_NOT_DIR
					  ? "a non-directory has its name on a subvolume"
				  : r->problems & LCTL_DIR_SUBVOL_DOWN
					  ? "a subvolume is down"
					  : "cannot read it on every subvolume");
		return 1;
	}
	if (!layout_differs(r, r->planned)) {
		/*
		 * Written already (a run resumed, a directory done again after a hold): our DHT
		 * client may still hold the layout it read before, or one read while a subvolume
		 * was gone, with that range missing (fixvisit.c): it reads it again before
		 * anything is placed through it.
		 */
		glfs_lstat(dht, path, &st);
		return 0;
	}
	memcpy(planned_copy, r->planned, n * sizeof(*planned_copy));
	/*
	 * A DHT self-heal that a lookup started just before (e.g. the one that created the
	 * directory on a new subvolume) may still write its own layout after ours: write ours
	 * again (it is complete and dirty, so this is safe) a few times before giving up.
	 */
	for (attempt = 0;; attempt++) {
		for (i = 0; i < n; i++) {
			ret = write_layout(rc, i, path, &planned_copy[i], LCTL_COMMIT_INVALID);
			if (ret) {
				repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
						  "cannot write the layout on %s: %s",
						  lctl_volume_subvol(rc->in->vol, i)->name,
						  strerror(-ret));
				return 1;
			}
		}
		/* our DHT client must use the new layout before it migrates anything */
		glfs_lstat(dht, path, &st);
		lctl_dir_report_free(*rp);
		*rp = NULL;
		ret = repair_inspect(rc, path, depth, rp);
		if (ret)
			return ret;
		if (!layout_differs(*rp, planned_copy))
			return 0;
		if (attempt == 2)
			break;
		usleep(300000);
	}
	repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "the layout changed while it was being written");
	return 1;
}

int lctl_repair_layout(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		       struct lctl_inspect_children *ch, bool *ok)
{
	struct lctl_repair_report rr = { 0 };
	struct lctl_dir_report *r = NULL;
	size_t i;
	int ret;

	*ok = false;
	ret = lctl_inspect(rc->in, path, depth, ch, &r);
	if (ret)
		return ret;
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT) {
		*ok = true; /* left alone, also by the work pass */
		goto out;
	}
	ret = apply_layout(rc, &rr, &r, path, depth);
	if (ret)
		goto out;
	/* the layout was right already: commit word 1 on every copy that lacks it */
	for (i = 0; i < r->nsubvols; i++) {
		const struct lctl_layout_entry *le = &r->layout[i];

		if (le->err || le->r.commit == LCTL_COMMIT_INVALID)
			continue;
		ret = write_layout(rc, i, path, &le->r, LCTL_COMMIT_INVALID);
		if (ret) {
			lctl_log(LCTL_LOG_WARN, "cannot mark '%s' dirty on %s: %s", path,
				 lctl_volume_subvol(rc->in->vol, i)->name, strerror(-ret));
			goto out;
		}
	}
	*ok = true;
out:
	lctl_dir_report_free(r);
	return ret < 0 ? ret : 0;
}

/*
 * After a verify that found the directory safe (@v): a file whose move failed but that is now
 * in place, or gone, was changed by a client meanwhile (renamed, removed, rewritten): no
 * failure of ours, nothing left to do. Its outcome says so as a skip (seen: a writer's file
 * in a drained volume's final fix).
 */
void repair_settle_failures(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			    const struct lctl_dir_report *v)
{
	size_t i, k;

	for (i = 0; i < rr->nfiles && rr->count[LCTL_FILE_FAILED]; i++) {
		struct lctl_file_outcome *f = &rr->files[i];

		if (f->action != LCTL_FILE_FAILED)
			continue;
		for (k = 0; k < v->nentries && strcmp(v->entries[k].name, f->name); k++)
			;
		if (k < v->nentries && v->entries[k].state != LCTL_ENTRY_PLACED)
			continue;
		f->action = LCTL_FILE_SKIPPED;
		f->reason = k < v->nentries
				    ? "in place now, though its move failed (a client "
				      "changed it meanwhile, or DHT's move ended late)"
				    : "gone since its move failed (renamed or removed by a client)";
		rr->count[LCTL_FILE_FAILED]--;
		rr->count[LCTL_FILE_SKIPPED]++;
		if (rc->live) {
			atomic_fetch_sub(&rc->live[LCTL_FILE_FAILED], 1);
			atomic_fetch_add(&rc->live[LCTL_FILE_SKIPPED], 1);
		}
	}
}

/* Step 5: commit word = vol_commit on every copy whose ranges are still the planned ones. */
static int stamp(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r,
		 uint32_t commit)
{
	size_t i;
	int ret;

	for (i = 0; i < r->nsubvols; i++) {
		glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, i);
		unsigned char buf[64];
		struct lctl_range now;
		ssize_t n;

		if (!fs)
			return -ENOTCONN;
		n = glfs_getxattr(fs, path, rc->in->layout_key, buf, sizeof(buf));
		if (n < 0)
			return errno ? -errno : -EIO; /* a dead brick can fail with errno 0 */
		if (lctl_layout_decode(buf, (size_t)n, &now) ||
		    !ranges_equal(&now, &r->layout[i].r))
			return -ESTALE;
		if (now.commit == commit)
			continue;
		ret = write_layout(rc, i, path, &now, commit);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Commit word 1 on every copy of the layout that @r read. One dirty copy is enough for
 * clients (DHT's layout merge turns differing commit words into 1, dht-facts section 1).
 * Return: 0 when at least one copy is dirty now, else the first error (negative errno): the
 * directory is then still stamped, unsafe if an entry in it is not reachable by its name.
 */
int repair_unstamp(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r)
{
	int ret, first = -ENODATA;
	bool one = false;
	size_t i;

	for (i = 0; i < r->nsubvols; i++) {
		if (r->layout[i].err)
			continue;
		ret = write_layout(rc, i, path, &r->layout[i].r, LCTL_COMMIT_INVALID);
		if (ret) {
			lctl_log(LCTL_LOG_WARN, "cannot mark '%s' dirty on %s: %s", path,
				 lctl_volume_subvol(rc->in->vol, i)->name, strerror(-ret));
			if (first == -ENODATA)
				first = ret;
		} else {
			one = true;
		}
	}
	return one ? 0 : first;
}

/* A subdirectory name seen by an inspection, kept in its struct lctl_strv. */
static int collect_name(void *arg, const char *name)
{
	return lctl_strv_add(arg, name);
}

/* An inspection that also collects the subdirectory names into @ns (emptied first). */
static int inspect_names(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_strv *ns, struct lctl_dir_report **out)
{
	struct lctl_inspect_children ch = { collect_name, ns };

	lctl_strv_free(ns);
	return lctl_inspect(rc->in, path, depth, &ch, out);
}

/*
 * Every subdirectory must exist on every active subvolume before its parent is stamped: in a
 * clean parent, a lookup of the subdirectory's name that misses on its hashed subvolume gets
 * ENOENT without asking the others, so the subdirectory (and all below it) would be invisible
 * to new clients, and DHT could no longer heal it either. A new subvolume gets a directory only
 * when a lookup through DHT heals it, and the subdirectory's own repair may not have run yet
 * (another worker, or a run stopped by --max-runtime). So heal them here, through DHT, with the
 * parent dirty (made dirty again if it was already stamped).
 * Return: 0 all there (*@dirtied: we wrote commit 1 to heal one); 1 not (reason set).
 */
static int ensure_subdirs(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			  const char *path, const struct lctl_dir_report *v,
			  const struct lctl_strv *ns, bool *dirtied)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	size_t k, i, n = v->nsubvols;
	char *child = NULL;
	struct stat st;
	int e = 0;

	for (k = 0; k < ns->n; k++) {
		int attempt, missing;

		free(child);
		child = lctl_path_join(path, ns->v[k]);
		if (!child)
			return -LCTL_ENOMEM;
		for (attempt = 0;; attempt++) {
			missing = -1;
			/* an error but ENOENT (a path too deep for gfapi, say): it cannot be checked */
			for (i = 0; i < n && missing < 0; i++) {
				glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, i);

				if (!rc->in->active || !rc->in->active[i] || !fs)
					continue;
				e = strlen(child) > LCTL_VOL_PATH_MAX ? ENAMETOOLONG
				    : glfs_lstat(fs, child, &st)      ? errno
								      : 0;
				if (e)
					missing = (int)i;
			}
			if (missing < 0)
				break;
			if (e != ENOENT) {
				/* never stamp over a subdirectory we cannot see: it could be hidden */
				int u = !*dirtied && v->commit != LCTL_COMMIT_INVALID
						? repair_unstamp(rc, path, v)
						: 0;

				*dirtied = true;
				repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
						  "%ssubdirectory '%s' cannot be checked on %s: %s%s%s",
						  u ? "stamped but unsafe: " : "", ns->v[k],
						  lctl_volume_subvol(rc->in->vol, (size_t)missing)
							  ->name,
						  strerror(e), u ? "; cannot mark it dirty: " : "",
						  u ? strerror(-u) : "");
				goto not_there;
			}
			if (attempt == 5) {
				repair_set_reason(
					rr, LCTL_DIR_NOT_FIXED,
					"subdirectory '%s' is missing on %s and DHT did not create it",
					ns->v[k],
					lctl_volume_subvol(rc->in->vol, (size_t)missing)->name);
				goto not_there;
			}
			if (!*dirtied && v->commit != LCTL_COMMIT_INVALID) {
				int u = repair_unstamp(rc, path, v);

				if (u) {
					/* a lookup in a clean directory would not heal it */
					repair_set_reason(
						rr, LCTL_DIR_NOT_FIXED,
						"stamped but unsafe: subdirectory "
						"'%s' is missing on %s, and the directory cannot be "
						"marked dirty to heal it: %s",
						ns->v[k],
						lctl_volume_subvol(rc->in->vol, (size_t)missing)
							->name,
						strerror(-u));
					goto not_there;
				}
				glfs_lstat(dht, path, &st);
				*dirtied = true;
			}
			if (attempt)
				usleep(200000u << (attempt - 1));
			glfs_lstat(dht, child,
				   &st); /* the parent is dirty: DHT finds it and heals it */
		}
	}
	free(child);
	return 0;
not_there:
	free(child);
	return 1;
}

const char *repair_first_problem(unsigned problems)
{
	unsigned b;

	for (b = 0; b < LCTL_DIR_PROBLEM_COUNT; b++)
		if (problems & (1u << b))
			return lctl_dir_problem_name(1u << b);
	return "none";
}

static const char *first_bad_state(const struct lctl_dir_report *r)
{
	int s;

	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		if (r->count[s] && !lctl_entry_state_ok(s))
			return lctl_entry_state_name(s);
	return "none";
}

/*
 * Why @r is not safe to stamp, for a reason string: the state of the entry that makes it so
 * (first_bad_state() would name an orphan linkto, which is harmless, before a duplicate).
 */
const char *repair_unsafe_state(const struct lctl_dir_report *r)
{
	const struct lctl_entry_report *e = first_unsafe(r);

	return e ? lctl_entry_state_name((int)e->state) : first_bad_state(r);
}

static const char *subvol_name(const struct lctl_repair_ctx *rc, int i)
{
	return i >= 0 ? lctl_volume_subvol(rc->in->vol, (size_t)i)->name : "none";
}

/* -v: the entry that made a directory unsafe to stamp, and where its copies are. */
void repair_log_unsafe(const struct lctl_repair_ctx *rc, const char *path,
		       const struct lctl_dir_report *v)
{
	const struct lctl_entry_report *e = first_unsafe(v);

	if (!e)
		return;
	lctl_log(LCTL_LOG_INFO,
		 "'%.200s': '%.200s' is %s (hashed to %s, data on %s, linkto on %s naming %s; "
		 "%" PRIu64 " files in the directory)",
		 path, e->name, lctl_entry_state_name((int)e->state), subvol_name(rc, e->hashed),
		 subvol_name(rc, e->cached), subvol_name(rc, e->linkto_subvol),
		 subvol_name(rc, e->linkto_target), v->nfiles);
}

/* A server whose worker did not finish and that was to move a file of @v, or (size_t)-1. */
size_t repair_lost_mover(struct lctl_repair_ctx *rc, const char *dir,
			 const struct lctl_dir_report *v)
{
	char path[4096];
	size_t i, s;

	for (i = 0; i < v->nentries; i++) {
		const struct lctl_entry_report *e = &v->entries[i];

		if ((e->state != LCTL_ENTRY_LINKED && e->state != LCTL_ENTRY_MISPLACED) ||
		    e->cached < 0)
			continue;
		if (lctl_path_join_to(path, sizeof(path), dir, e->name))
			return (size_t)-1 - 1; /* cannot tell: as if lost */
		s = lctl_volume_mover(rc->in->vol, (size_t)e->cached, path);
		if (!rc->mover_done(rc->arg, s))
			return s;
	}
	return (size_t)-1;
}

/* One directory's repair in progress (repair_dir() and its steps). */
struct dir_repair {
	struct lctl_repair_ctx *rc;
	struct lctl_repair_report *rr;
	const char *path;
	unsigned depth;
	struct lctl_dir_report *r; /* the inspection placed from: the report's plan at the end */
	struct lctl_dir_report *v; /* the last verify */
	struct lctl_strv ns;	   /* the subdirectories the last verify saw */
	bool dirtied;		   /* commit 1 written to heal a subdirectory (ensure_subdirs()) */
};

/* A step of repair_dir() that leaves the rest to the next one; else 0 (done) or -errno. */
#define STEP_ON 1

/*
 * Steps 1 and 2: inspect, leave alone what must be (a clean directory, a user's layout, a dry
 * run...), write the planned layout dirty, and in a linkto pass make the links (held there
 * when @held is set and the settle period still runs).
 */
static int prepare_dir(struct dir_repair *d, bool *held)
{
	struct lctl_repair_ctx *rc = d->rc;
	struct lctl_repair_report *rr = d->rr;
	const char *path = d->path;
	unsigned depth = d->depth;
	double t = lctl_mono_seconds();
	int ret = 0;

	if (!d->r) {
		ret = repair_inspect(rc, path, depth, &d->r);
		t = repair_step_time(rr, LCTL_STEP_INSPECT, t);
		if (ret)
			return ret;
	}
	if (d->r->nsubvols > LCTL_MAX_SUBVOLS) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "more than %d subvolumes",
				  LCTL_MAX_SUBVOLS);
		return 0;
	}
	if (d->r->notes & LCTL_DIR_NOTE_USER_LAYOUT) {
		repair_set_reason(rr, LCTL_DIR_LEFT_ALONE, "user-set layout (type 1)");
		return 0;
	}
	if (lctl_dir_report_clean(d->r) && d->r->commit == rc->commit) {
		/* clean, unless a subdirectory is missing somewhere (a stopped run, see above) */
		if (rc->dry_run || !d->r->nsubdirs) {
			rr->outcome = LCTL_DIR_WAS_CLEAN;
			return 0;
		}
		ret = inspect_names(rc, path, depth, &d->ns, &d->v);
		t = repair_step_time(rr, LCTL_STEP_INSPECT, t);
		if (ret)
			return ret;
		ret = ensure_subdirs(rc, rr, path, d->v, &d->ns, &d->dirtied);
		t = repair_step_time(rr, LCTL_STEP_LAYOUT, t);
		if (ret)
			return ret > 0 ? 0 : ret;
		if (!d->dirtied) {
			rr->outcome = LCTL_DIR_WAS_CLEAN;
			return 0;
		}
		/* it was made dirty to heal a subdirectory: verify and stamp it again below */
		lctl_dir_report_free(d->v);
		d->v = NULL;
	}
	if (rc->dry_run) {
		rr->outcome = LCTL_DIR_PLANNED;
		return 0;
	}
	/*
	 * The layout pass of the job made every directory dirty (commit 1) before the settle
	 * period. One that is clean now (a concurrent stamp, or it failed then) must not get
	 * files moved before clients have seen it dirty: mark it, and leave it to a re-run.
	 */
	if (!entries_ok(d->r) && repair_copy_clean(d->r, rc->commit)) {
		int u = repair_unstamp(rc, path, d->r);

		repair_step_time(rr, LCTL_STEP_STAMP, t);
		if (u)
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "stamped but unsafe: was not dirty, and "
					  "cannot be marked dirty: %s",
					  strerror(-u));
		else
			repair_set_reason(
				rr, LCTL_DIR_NOT_FIXED,
				"was not dirty: marked now; run fix again after the settle period");
		return 0;
	}
	ret = apply_layout(rc, rr, &d->r, path, depth);
	t = repair_step_time(rr, LCTL_STEP_LAYOUT, t);
	if (ret) {
		return ret > 0 ? 0 : ret;
	}
	if (rc->mode == LCTL_FIX_LINKTO) {
		repair_link_misplaced(rc, rr, path, d->r);
		repair_step_time(rr, LCTL_STEP_LINKS, t);
		if (held && rc->settling && rc->settling(rc->arg)) {
			*held = true; /* the rest after the settle period */
			return 0;
		}
	}
	return STEP_ON;
}

/*
 * Steps 3 and 4: place the entries and verify from fresh reads, again from the new view while
 * a concurrent client changes the directory (PLACE_ROUNDS); then whether it may be stamped.
 */
static int place_and_verify(struct dir_repair *d)
{
	struct lctl_repair_ctx *rc = d->rc;
	struct lctl_repair_report *rr = d->rr;
	const char *path = d->path;
	unsigned depth = d->depth;
	/* in a linkto pass the placing makes links; otherwise it moves data */
	enum lctl_repair_step placing = rc->mode == LCTL_FIX_LINKTO ? LCTL_STEP_LINKS
								    : LCTL_STEP_MOVES;
	double t = lctl_mono_seconds();
	int ret = 0, round;
	size_t i;

	for (round = 0; round < PLACE_ROUNDS; round++) {
		/*
		 * Misplaced again in a later round: the linkto an earlier one made was removed
		 * behind our back (a client judging by an old layout took it for stale). Our
		 * client knows the name, so its lookup would only revalidate: make it a fresh
		 * one (forgotten first), which links again.
		 */
		repair_place_entries(rc, rr, path, d->r, NULL, round > 0, placing);
		t = repair_step_time(rr, placing, t);
		if (repair_stopping(rc)) {
			repair_set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished");
			return 0;
		}
		/*
		 * step 4: verify from fresh reads. The placed entries are not read again (a
		 * round that places once more does it from the verify's report), only the plan:
		 * they go first, so that a huge directory is not held twice.
		 */
		lctl_dir_report_drop_entries(d->r);
		lctl_dir_report_free(d->v);
		d->v = NULL;
		ret = inspect_names(rc, path, depth, &d->ns, &d->v);
		t = repair_step_time(rr, LCTL_STEP_VERIFY, t);
		if (ret)
			return ret;
		if (!(d->v->problems & STRUCTURAL) && entries_ok(d->v) && leaving_clear(rc, d->v) &&
		    !layout_differs(d->v, d->r->planned))
			break;
		/* something changed under us (a concurrent client): place again from the new view */
		lctl_dir_report_free(d->r);
		d->r = d->v;
		d->v = NULL;
	}
	if (!d->v || (d->v->problems & STRUCTURAL) || !repair_entries_safe(d->v)) {
		const struct lctl_dir_report *w = d->v ? d->v : d->r;

		if (!(w->problems & STRUCTURAL))
			repair_log_unsafe(rc, path, w);
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "cannot verify: %s",
				  (w->problems & STRUCTURAL)
					  ? repair_first_problem(w->problems & STRUCTURAL)
				  : !repair_entries_safe(w) || leaving_clear(rc, w)
					  ? repair_unsafe_state(w)
					  : "files left on a leaving subvolume");
		return 0;
	}
	if (!leaving_clear(rc, d->v)) {
		/* hard links: DHT moves the data once every name was visited (a later pass) */
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "files left on a leaving subvolume");
		return 0;
	}
	if (rc->mover_done && (i = repair_lost_mover(rc, path, d->v)) != (size_t)-1) {
		const struct lctl_server *srv = lctl_volume_server_at(rc->in->vol, i);

		repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
				  "files left to server %s, whose worker did not "
				  "finish",
				  srv ? srv->host : "?");
		return 0;
	}
	return STEP_ON;
}

/*
 * Step 5: every subdirectory there, stamp, and inspect once more: a change meanwhile puts the
 * directory back to dirty. Then tidy harmless leftovers.
 */
static int stamp_dir(struct dir_repair *d)
{
	struct lctl_repair_ctx *rc = d->rc;
	struct lctl_repair_report *rr = d->rr;
	const char *path = d->path;
	unsigned depth = d->depth;
	double t = lctl_mono_seconds();
	int ret = 0;
	size_t i;

	ret = ensure_subdirs(rc, rr, path, d->v, &d->ns, &d->dirtied);
	t = repair_step_time(rr, LCTL_STEP_LAYOUT, t);
	if (ret) {
		return ret > 0 ? 0 : ret;
	}
	ret = stamp(rc, path, d->v, rc->commit);
	t = repair_step_time(rr, LCTL_STEP_STAMP, t);
	if (ret) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "not stamped: %s",
				  ret == -ESTALE ? "the layout changed under us" : strerror(-ret));
		return 0;
	}
	/* an entry created meanwhile through an old layout would be hidden: look once more */
	lctl_dir_report_free(d->r);
	d->r = d->v;
	d->v = NULL;
	lctl_dir_report_drop_entries(d->r); /* from here on only the fresh look's are read */
	ret = repair_inspect(rc, path, depth, &d->v);
	t = repair_step_time(rr, LCTL_STEP_VERIFY, t);
	if (ret) {
		/*
		 * No look after the stamp (no memory, no room for a huge listing's buckets): a
		 * file created meanwhile through an old layout could be hidden, so the stamp
		 * cannot stand. Dirty again, with the layout verified before it (d->r), and the
		 * outcomes of what was done here kept.
		 */
		int u = repair_unstamp(rc, path, d->r);

		repair_step_time(rr, LCTL_STEP_STAMP, t);
		if (u)
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "stamped, then cannot be read again (%s), and cannot "
					  "be marked dirty again: %s",
					  lctl_strerror(ret), strerror(-u));
		else
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "cannot be read again after the stamp (%s): marked "
					  "dirty again",
					  lctl_strerror(ret));
		return 0;
	}
	if (d->v->problems || d->v->err || !repair_entries_safe(d->v) ||
	    d->v->commit != rc->commit) {
		int u = repair_unstamp(rc, path, d->v);

		repair_step_time(rr, LCTL_STEP_STAMP, t);
		repair_log_unsafe(rc, path, d->v);

		if (u)
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "stamped but unsafe: changed while being "
					  "stamped (%s), and cannot be marked dirty again: %s",
					  repair_entries_safe(d->v)
						  ? repair_first_problem(d->v->problems)
						  : repair_unsafe_state(d->v),
					  strerror(-u));
		else
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "changed while being stamped (%s): left dirty",
					  repair_entries_safe(d->v)
						  ? repair_first_problem(d->v->problems)
						  : repair_unsafe_state(d->v));
		return 0;
	}
	/*
	 * Linkto files without a purpose (orphans, strays next to data on its hashed subvolume)
	 * are harmless but are debris a scan reports; clients holding an old layout may have
	 * made some while we worked. Tidy them now, the same careful way as before.
	 */
	for (i = 0; i < d->v->nentries && !repair_stopping(rc); i++) {
		if (repair_harmless_leftover(&d->v->entries[i]))
			repair_place_entry(rc, rr, path, &d->v->entries[i]);
	}
	repair_step_time(rr, LCTL_STEP_LINKS, t);
	repair_settle_failures(rc, rr, d->v);
	rr->outcome = LCTL_DIR_FIXED;
	return 0;
}

/*
 * lctl_repair_dir() and its early and held halves: @held_rr set, go on with that held
 * report; @held set, hold the directory after its links while @rc->settling says so.
 */
static int repair_dir(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report *held_rr,
		      struct lctl_repair_report **out, bool *held)
{
	struct dir_repair d = { .rc = rc, .path = path, .depth = depth, .r = initial };
	int ret;

	d.rr = held_rr ? held_rr : repair_report_new(path);
	*out = NULL;
	if (held)
		*held = false;
	if (!d.rr) {
		lctl_dir_report_free(initial);
		return -LCTL_ENOMEM;
	}
	if (held_rr) {
		struct stat st;

		d.r = d.rr->plan;
		d.rr->plan = NULL;
		ret = STEP_ON;
		/* its layout was written before its settle period: read again (apply_layout()) */
		if (d.r->nentries)
			glfs_lstat(lctl_volume_fs(rc->in->vol), path, &st);
	} else {
		ret = prepare_dir(&d, held);
	}
	if (ret == STEP_ON)
		ret = place_and_verify(&d);
	if (ret == STEP_ON)
		ret = stamp_dir(&d);
	d.rr->plan = d.r;
	lctl_strv_free(&d.ns);
	lctl_dir_report_free(d.v);
	if (ret < 0) {
		lctl_repair_report_free(d.rr);
		return ret;
	}
	repair_unique_outcomes(rc, d.rr); /* the rounds: each name once per action */
	*out = d.rr;
	return 0;
}

int lctl_repair_dir(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		    struct lctl_dir_report *initial, struct lctl_repair_report **out)
{
	return repair_dir(rc, path, depth, initial, NULL, out, NULL);
}

int lctl_repair_dir_early(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			  struct lctl_dir_report *initial, struct lctl_repair_report **out,
			  bool *held)
{
	return repair_dir(rc, path, depth, initial, NULL, out, held);
}

int lctl_repair_dir_held(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *held, struct lctl_repair_report **out)
{
	return repair_dir(rc, path, depth, NULL, held, out, NULL);
}
