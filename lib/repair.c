/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Repair one directory: steps 3 to 6 of the fix protocol (docs/design.md, "The fix protocol as
 * implemented"; the shared architecture.md, section 3).
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
 */
#include "internal.h"

#include <glusterfs/api/glfs-handles.h>
#include "crawl.h"
#include "inspect.h"
#include "repair.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static const char *const action_names[LCTL_FILE_ACTION_COUNT] = {
	[LCTL_FILE_MIGRATED] = "migrated",
	[LCTL_FILE_LINKED] = "linked",
	[LCTL_FILE_SKIPPED] = "skipped",
	[LCTL_FILE_FAILED] = "failed",
	[LCTL_FILE_LINKTO_REMOVED] = "linkto-removed",
};

const char *lctl_file_action_name(int action)
{
	return action >= 0 && action < LCTL_FILE_ACTION_COUNT ? action_names[action] : NULL;
}

static const char *const outcome_names[LCTL_DIR_OUTCOME_COUNT] = {
	[LCTL_DIR_WAS_CLEAN] = "was-clean", [LCTL_DIR_FIXED] = "fixed",
	[LCTL_DIR_NOT_FIXED] = "not-fixed", [LCTL_DIR_LEFT_ALONE] = "left-alone",
	[LCTL_DIR_PLANNED] = "planned",	    [LCTL_DIR_STOPPED] = "stopped",
	[LCTL_DIR_PLACED] = "placed",
};

const char *lctl_dir_outcome_name(int outcome)
{
	return outcome >= 0 && outcome < LCTL_DIR_OUTCOME_COUNT ? outcome_names[outcome] : NULL;
}

void lctl_repair_report_free(struct lctl_repair_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].name);
	free(r->files);
	lctl_dir_report_free(r->plan);
	free(r->path);
	free(r);
}

/* Room for one more file outcome in @rr (counted once filled in), or NULL */
static struct lctl_file_outcome *outcome_slot(struct lctl_repair_report *rr)
{
	struct lctl_file_outcome *v;

	if ((rr->nfiles & (rr->nfiles - 1)) == 0) {
		v = realloc(rr->files, (rr->nfiles ? rr->nfiles * 2 : 1) * sizeof(*v));
		if (!v)
			return NULL;
		rr->files = v;
	}
	return &rr->files[rr->nfiles];
}

/* Outcome indexes ordered by name, then action, then index (the first of each pair first). */
struct outcome_order {
	const struct lctl_file_outcome *v;
	size_t i;
};

static int cmp_outcome_order(const void *a, const void *b)
{
	const struct outcome_order *x = a, *y = b;
	int c = strcmp(x->v->name, y->v->name);

	if (c)
		return c;
	if (x->v->action != y->v->action)
		return x->v->action < y->v->action ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t lctl_outcomes_unique(struct lctl_file_outcome *v, size_t n, uint64_t *count,
			    uint64_t *dropped)
{
	struct outcome_order *o;
	bool *drop;
	size_t i, k;

	if (n < 2)
		return n;
	o = malloc(n * sizeof(*o));
	drop = calloc(n, sizeof(*drop));
	if (!o || !drop) {
		free(o);
		free(drop);
		return n; /* out of memory: counted more than once, nothing lost */
	}
	for (i = 0; i < n; i++) {
		o[i].v = &v[i];
		o[i].i = i;
	}
	qsort(o, n, sizeof(*o), cmp_outcome_order);
	for (i = 1; i < n; i++)
		if (!strcmp(o[i].v->name, o[i - 1].v->name) && o[i].v->action == o[i - 1].v->action)
			drop[o[i].i] = true;
	for (i = k = 0; i < n; i++) {
		if (!drop[i]) {
			v[k++] = v[i];
			continue;
		}
		if (count && count[v[i].action])
			count[v[i].action]--;
		if (dropped)
			dropped[v[i].action]++;
		free(v[i].name);
	}
	free(o);
	free(drop);
	return k;
}

/* lctl_outcomes_unique() on @rr, the live counters too. */
static void unique_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr)
{
	uint64_t dropped[LCTL_FILE_ACTION_COUNT] = { 0 };
	int a;

	rr->nfiles = lctl_outcomes_unique(rr->files, rr->nfiles, rr->count, dropped);
	for (a = 0; rc->live && a < LCTL_FILE_ACTION_COUNT; a++)
		if (dropped[a])
			atomic_fetch_sub(&rc->live[a], dropped[a]);
}

/* The key of a hard-linked file and an action in a struct lctl_file_set. */
static uint64_t file_key(uint64_t ino, int action)
{
	uint64_t k = ino * 0x9e3779b97f4a7c15ULL + (uint64_t)action + 1;

	return k ? k : 1;
}

/* Add @key to @set; true if it was not there. Without memory: true (counted again). */
static bool file_set_add(struct lctl_file_set *set, uint64_t key)
{
	size_t i, mask;

	if (set->n * 2 >= set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return true;
		for (i = 0; i < set->cap; i++) {
			size_t j = (size_t)(set->v[i] >> 7) & (cap - 1);

			if (!set->v[i])
				continue;
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = set->v[i];
		}
		free(set->v);
		set->v = v;
		set->cap = cap;
	}
	mask = set->cap - 1;
	for (i = (size_t)(key >> 7) & mask; set->v[i]; i = (i + 1) & mask)
		if (set->v[i] == key)
			return false;
	set->v[i] = key;
	set->n++;
	return true;
}

void lctl_file_set_free(struct lctl_file_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

void lctl_outcomes_count_files(const struct lctl_repair_report *rr, struct lctl_file_set *seen,
			       uint64_t *files)
{
	uint64_t listed[LCTL_FILE_ACTION_COUNT] = { 0 };
	size_t i;
	int a;

	for (i = 0; i < rr->nfiles; i++) {
		const struct lctl_file_outcome *o = &rr->files[i];

		listed[o->action]++;
		if (o->nlink <= 1 || !o->ino || file_set_add(seen, file_key(o->ino, o->action)))
			files[o->action]++;
	}
	/* outcomes whose detail was lost (no memory): each its own file */
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		if (rr->count[a] > listed[a])
			files[a] += rr->count[a] - listed[a];
}

/*
 * Move the counts and file outcomes of @from (an earlier pass over the directory) into @to, and
 * free @from. A name both passes met with the same action (a hard link DHT refused twice, a
 * leftover skipped twice) counts once.
 */
static void merge_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *to,
			   struct lctl_repair_report *from)
{
	struct lctl_file_outcome *v;
	size_t i;

	for (i = 0; i < LCTL_FILE_ACTION_COUNT; i++)
		to->count[i] += from->count[i];
	to->bytes_moved += from->bytes_moved;
	for (i = 0; i < from->nfiles; i++) {
		v = outcome_slot(to);
		if (!v)
			break; /* the counts stay right; only the detail is lost */
		*v = from->files[i];
		from->files[i].name = NULL;
		to->nfiles++;
	}
	lctl_repair_report_free(from);
	unique_outcomes(rc, to);
}

/* An outcome for the entry @e in @rr; @live: count it in the live counters too (else that was done). */
static void record_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			   const char *reason, int from, int to, uint64_t size, bool live)
{
	struct lctl_file_outcome *v;

	if (rc->live && live)
		atomic_fetch_add(&rc->live[a], 1);
	if (rc->live_bytes && a == LCTL_FILE_MIGRATED)
		atomic_fetch_add(rc->live_bytes, size);
	rr->count[a]++;
	if (a == LCTL_FILE_MIGRATED)
		rr->bytes_moved += size;
	v = outcome_slot(rr);
	if (!v)
		return; /* the counts above stay right; only the detail is lost */
	v->name = strdup(e->name);
	if (!v->name)
		return;
	v->action = a;
	v->err = err;
	v->reason = reason;
	v->from = from;
	v->to = to;
	v->size = size;
	v->nlink = e->nlink;
	v->ino = e->ino;
	rr->nfiles++;
}

static void add_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			const char *reason, int from, int to, uint64_t size)
{
	record_outcome(rc, rr, e, a, err, reason, from, to, size, true);
}

static void set_reason(struct lctl_repair_report *rr, enum lctl_dir_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_reason(struct lctl_repair_report *rr, enum lctl_dir_outcome o, const char *fmt, ...)
{
	va_list ap;

	rr->outcome = o;
	va_start(ap, fmt);
	vsnprintf(rr->reason, sizeof(rr->reason), fmt, ap);
	va_end(ap);
}

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

static int inspect(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		   struct lctl_dir_report **out)
{
	return lctl_inspect(rc->in, path, depth, NULL, out);
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
static bool harmless_leftover(const struct lctl_entry_report *e)
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
		    !harmless_leftover(&r->entries[i]))
			return &r->entries[i];
	return NULL;
}

/* Safe to stamp (above): every entry placed, linked or a harmless leftover. */
static bool entries_safe(const struct lctl_dir_report *r)
{
	int s;

	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		if (r->count[s] && !lctl_entry_state_ok(s) && s != LCTL_ENTRY_ORPHAN_LINKTO &&
		    s != LCTL_ENTRY_STALE_LINKTO)
			return false;
	return !first_unsafe(r);
}

static bool on_leaving(const struct lctl_repair_ctx *rc, int sv)
{
	return sv >= 0 && lctl_volume_subvol(rc->in->vol, (size_t)sv)->leaving;
}

/*
 * A drain's verify: no data and no linkto of @r on a leaving subvolume. (A placed entry never
 * is: a leaving subvolume has no range.) Always true outside a drain.
 */
static bool leaving_clear(const struct lctl_repair_ctx *rc, const struct lctl_dir_report *r)
{
	size_t i;

	for (i = 0; rc->drain && i < r->nentries; i++)
		if (on_leaving(rc, r->entries[i].cached) ||
		    on_leaving(rc, r->entries[i].linkto_subvol))
			return false;
	return true;
}

/* Whether some subvolume's copy of the layout carries the stamp @commit (clean for clients). */
static bool copy_clean(const struct lctl_dir_report *r, uint32_t commit)
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
			ret = inspect(rc, path, depth, rp);
			if (ret)
				return ret;
			r = *rp;
			/* the parent may be being healed by another worker right now: try again */
			if (!(r->problems & LCTL_DIR_MISSING) || attempt == 5)
				break;
			usleep(200000u << attempt);
		}
		if (r->problems & LCTL_DIR_MISSING) {
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "directory missing on a subvolume and DHT did not heal it");
			return 1;
		}
	}
	if (r->problems & (LCTL_DIR_NOT_DIR | LCTL_DIR_SUBVOL_DOWN | LCTL_DIR_UNREADABLE)) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "%s",
			   r->problems & LCTL_DIR_NOT_DIR
				   ? "a non-directory has its name on a subvolume"
			   : r->problems & LCTL_DIR_SUBVOL_DOWN
				   ? "a subvolume is down"
				   : "cannot read it on every subvolume");
		return 1;
	}
	if (!layout_differs(r, r->planned))
		return 0;
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
				set_reason(rr, LCTL_DIR_NOT_FIXED,
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
		ret = inspect(rc, path, depth, rp);
		if (ret)
			return ret;
		if (!layout_differs(*rp, planned_copy))
			return 0;
		if (attempt == 2)
			break;
		usleep(300000);
	}
	set_reason(rr, LCTL_DIR_NOT_FIXED, "the layout changed while it was being written");
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

/* The gfid of @path on subvolume @sv (a lookup of an existing file assigns nothing). */
static int raw_gfid(struct lctl_repair_ctx *rc, size_t sv, const char *path, unsigned char g[16],
		    struct stat *st)
{
	glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, sv);
	struct glfs_object *o;
	int n;

	if (!fs)
		return -ENOTCONN;
	o = glfs_h_lookupat(fs, NULL, path, st, 0);
	if (!o)
		return errno ? -errno : -EIO;
	n = glfs_h_extract_handle(o, g, 16);
	glfs_h_close(o);
	return n == 16 ? 0 : -EIO;
}

/*
 * Remove a linkto file on subvolume @sv after checking, right before, that it still is one:
 * mode exactly S_ISVTX, the linkto xattr present, and size 0 -- or, when @data_sv >= 0, the
 * leftover of a migration killed between its copy and its truncation: the same gfid as the
 * complete data file on @data_sv and no larger than it. Never removes data.
 */
static int remove_linkto(struct lctl_repair_ctx *rc, size_t sv, const char *path, int data_sv)
{
	glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, sv);
	unsigned char g1[16], g2[16];
	struct stat st, dst;
	char val[256];

	if (!fs)
		return -ENOTCONN;
	if (glfs_lstat(fs, path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != S_ISVTX)
		return -EBUSY;
	if (glfs_lgetxattr(fs, path, rc->in->linkto_key, val, sizeof(val)) < 0)
		return -EBUSY;
	if (st.st_size != 0) {
		if (data_sv < 0 || (size_t)data_sv == sv || raw_gfid(rc, sv, path, g1, &st) ||
		    raw_gfid(rc, (size_t)data_sv, path, g2, &dst) || memcmp(g1, g2, 16) ||
		    !S_ISREG(dst.st_mode) || (dst.st_mode & 07777) == S_ISVTX ||
		    st.st_size > dst.st_size)
			return -EBUSY;
	}
	if (glfs_unlink(fs, path))
		return -errno;
	return 0;
}

/*
 * Make the linkto of @path on subvolume @sv name @data_sv, where its data is, after checking
 * right before that it is a linkto (mode exactly S_ISVTX, size 0, the linkto xattr) with the
 * gfid of the data file on @data_sv. The value is written as DHT writes it (name and NUL).
 * On a brick, the linkto files of one gfid are hard links of one inode (posix links a new name
 * of a known gfid to its handle), so every name of a hard-linked file whose linkto sits there
 * is mended at once: all of them name the same data. Return: 0, -EXDEV when the linkto has
 * another file's gfid (remove_foreign_linkto() then), -EBUSY when it is no linkto, -errno.
 */
static int retarget_linkto(struct lctl_repair_ctx *rc, size_t sv, size_t data_sv, const char *path)
{
	const char *name = lctl_volume_subvol(rc->in->vol, data_sv)->name;
	glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, sv);
	unsigned char gl[16], gd[16];
	struct stat sl, sd;
	char val[256];
	int ret;

	ret = raw_gfid(rc, sv, path, gl, &sl);
	if (!ret)
		ret = raw_gfid(rc, data_sv, path, gd, &sd);
	if (ret)
		return ret;
	if (!S_ISREG(sl.st_mode) || (sl.st_mode & 07777) != S_ISVTX || sl.st_size ||
	    !S_ISREG(sd.st_mode) || (sd.st_mode & 07777) == S_ISVTX)
		return -EBUSY;
	if (memcmp(gl, gd, 16))
		return -EXDEV;
	if (glfs_lgetxattr(fs, path, rc->in->linkto_key, val, sizeof(val)) < 0)
		return -EBUSY;
	if (glfs_lsetxattr(fs, path, rc->in->linkto_key, name, strlen(name) + 1, XATTR_REPLACE))
		return -errno;
	return 0;
}

/*
 * A linkto on the hashed subvolume @sv that names the data's subvolume @data_sv but carries
 * another file's gfid (inspect.c other_file()): DHT's lookup only asks everyone past it, and
 * its migration will not create the destination over it. Remove it after checking, right
 * before, that the two gfids still differ; the directory is dirty, so the data stays found, and
 * placing it afterwards makes a correct linkto or moves the data there. -EEXIST: same gfid now.
 */
static int remove_foreign_linkto(struct lctl_repair_ctx *rc, size_t sv, size_t data_sv,
				 const char *path)
{
	unsigned char gl[16], gd[16];
	struct stat sl, sd;
	int ret;

	ret = raw_gfid(rc, sv, path, gl, &sl);
	if (!ret)
		ret = raw_gfid(rc, data_sv, path, gd, &sd);
	if (ret)
		return ret;
	if (!memcmp(gl, gd, 16))
		return -EEXIST;
	return remove_linkto(rc, sv, path, -1);
}

/* Whether @path's bytes on subvolumes @a and @b are the same. Return: 1 same, 0 not, -errno. */
static int same_bytes(struct lctl_repair_ctx *rc, size_t a, size_t b, const char *path)
{
	glfs_fd_t *fa = glfs_open(lctl_volume_subvol_fs(rc->in->vol, a), path, O_RDONLY);
	glfs_fd_t *fb = fa ? glfs_open(lctl_volume_subvol_fs(rc->in->vol, b), path, O_RDONLY)
			   : NULL;
	const size_t chunk = 1 << 20;
	char *ba = malloc(chunk), *bb = malloc(chunk);
	ssize_t na, nb;
	int ret = 1;

	if (!fa || !fb || !ba || !bb) {
		ret = !ba || !bb ? -ENOMEM : errno ? -errno : -EIO;
		goto out;
	}
	for (;;) {
		na = glfs_read(fa, ba, chunk, 0);
		nb = glfs_read(fb, bb, chunk, 0);
		if (na < 0 || nb < 0) {
			ret = errno ? -errno : -EIO;
			break;
		}
		if (na != nb || memcmp(ba, bb, (size_t)na)) {
			ret = 0;
			break;
		}
		if (na == 0)
			break;
	}
out:
	if (fa)
		glfs_close(fa);
	if (fb)
		glfs_close(fb);
	free(ba);
	free(bb);
	return ret;
}

/*
 * A migration killed after its copy was complete (the destination on the hashed subvolume has
 * its own mode back) but before the source was turned into a linkto: the same file twice, the
 * source with both marker bits and a linkto xattr naming the hashed subvolume. Migrating it
 * again does nothing (DHT finds the data on the hashed subvolume), and clients list the name
 * twice. If both copies have the same gfid, size and bytes, finish as DHT would have: make the
 * source a linkto (a client holding it open reopens it on the destination), truncate it, drop
 * the destination's linkto xattr, remove the source.
 * Return: 0 finished (*@from: the source's subvolume); 1 not that state (nothing changed);
 * -errno on a failure.
 */
static int finish_copied(struct lctl_repair_ctx *rc, const char *path, int hashed, int *from)
{
	size_t i, n = lctl_volume_nsubvols(rc->in->vol);
	unsigned char g1[16], g2[16];
	struct stat st, src = { 0 }, dst = { 0 };
	int a = -1, ret;
	char val[256];
	ssize_t len;

	if (hashed < 0 || (size_t)hashed >= n)
		return 1;
	for (i = 0; i < n; i++) {
		glfs_t *fs = lctl_volume_subvol_fs(rc->in->vol, i);

		if (!fs)
			return 1;
		if (glfs_lstat(fs, path, &st)) {
			if (errno == ENOENT)
				continue;
			return 1;
		}
		if (!S_ISREG(st.st_mode))
			return 1;
		if ((st.st_mode & 07777) == S_ISVTX && st.st_size == 0)
			continue; /* a linkto */
		if ((st.st_mode & (S_ISGID | S_ISVTX)) == (S_ISGID | S_ISVTX)) {
			if (a >= 0 || (int)i == hashed)
				return 1;
			a = (int)i;
			src = st;
		} else if ((int)i == hashed && (st.st_mode & 07777) != S_ISVTX) {
			dst = st;
		} else {
			return 1;
		}
	}
	if (a < 0 || !dst.st_mode || src.st_size != dst.st_size)
		return 1;
	/* the source names the destination's subvolume, as a migration in progress does */
	len = glfs_lgetxattr(lctl_volume_subvol_fs(rc->in->vol, (size_t)a), path,
			     rc->in->linkto_key, val, sizeof(val) - 1);
	if (len <= 1 || val[len - 1] != '\0' ||
	    lctl_volume_subvol_index(rc->in->vol, val) != hashed)
		return 1;
	if (raw_gfid(rc, (size_t)a, path, g1, &st) || raw_gfid(rc, (size_t)hashed, path, g2, &st) ||
	    memcmp(g1, g2, 16))
		return 1;
	ret = same_bytes(rc, (size_t)a, (size_t)hashed, path);
	if (ret <= 0)
		return ret ? ret : 1;
	if (glfs_chmod(lctl_volume_subvol_fs(rc->in->vol, (size_t)a), path, S_ISVTX) ||
	    glfs_truncate(lctl_volume_subvol_fs(rc->in->vol, (size_t)a), path, 0))
		return errno ? -errno : -EIO;
	if (glfs_lremovexattr(lctl_volume_subvol_fs(rc->in->vol, (size_t)hashed), path,
			      rc->in->linkto_key) &&
	    errno != ENODATA)
		return errno ? -errno : -EIO;
	ret = remove_linkto(rc, (size_t)a, path, -1);
	if (ret && ret != -ENOENT)
		return ret;
	*from = a;
	return 0;
}

/* The mode kept for the file @path on subvolume @sv, if any. */
static bool kept_mode(struct lctl_repair_ctx *rc, int sv, const char *path, mode_t *mode)
{
	unsigned char g[16];
	struct stat st;

	return rc->modes && sv >= 0 && !raw_gfid(rc, (size_t)sv, path, g, &st) &&
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
	ret = raw_gfid(rc, (size_t)e->cached, path, g, &st);
	if (!ret && (st.st_mode & 07777) != (e->mode & 07777))
		ret = -EAGAIN; /* changed since the inspection: the next run will see it */
	if (!ret)
		ret = lctl_modes_keep(rc->modes, g, e->mode & 07777);
	if (ret) {
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
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

static bool stopping(struct lctl_repair_ctx *rc)
{
	return rc->should_stop && rc->should_stop(rc->arg);
}

/*
 * DHT's migration of @path, with a slot on both subvolumes (slots.c).
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
 * What to do first about the stale linkto of @e (a single data copy; pure, see repair.h), in a
 * dirty directory, where a lookup that misses asks every subvolume, so a linkto changed or
 * removed for a moment hides nothing:
 *
 *	data on its hashed subvolume, a stray linkto elsewhere        remove the stray (done)
 *	hashed linkto -> data's subvolume, another file's gfid        remove it, then place
 *	hashed linkto -> another subvolume (or none, or unreadable)   point it at the data
 *	                                                              (another gfid: remove it)
 *	correct hashed linkto, a stray on a third subvolume           remove the stray, place
 *
 * The third is what a migration leaves for the other names of a file hard-linked while it moved
 * (GlusterFS's tests/bugs/distribute/bug-1161311.t): their linkto files still name the source.
 * DHT's lookup does not mend one (its linkfile create meets EEXIST with the same gfid and takes
 * that as done), and it will not move a hard-linked file, so nothing else would ever make it
 * right: the directory stayed dirty at every run. Pointed at the data, the name is linked, a
 * safe state (DHT finds the data), and the directory can be stamped. In a drain, data on a
 * leaving subvolume is left to DHT's decommission migration of hard links, as before.
 */
enum lctl_stale_fix lctl_repair_stale_fix(const struct lctl_entry_report *e, bool data_leaving)
{
	if (e->state != LCTL_ENTRY_STALE_LINKTO || e->cached < 0)
		return LCTL_STALE_PLACE;
	if (e->cached == e->hashed)
		return LCTL_STALE_REMOVE_STRAY;
	if (e->linkto_subvol < 0 || e->hashed < 0)
		return LCTL_STALE_PLACE;
	if (e->linkto_subvol != e->hashed)
		return e->linkto_subvol != e->cached ? LCTL_STALE_REMOVE_THIRD : LCTL_STALE_PLACE;
	if (e->linkto_target == e->cached)
		return LCTL_STALE_REMOVE_FOREIGN;
	return data_leaving ? LCTL_STALE_PLACE : LCTL_STALE_RETARGET;
}

/* Remove the hashed linkto of @e that carries another file's gfid (remove_foreign_linkto()). */
static void drop_foreign(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			 const char *path, const struct lctl_entry_report *e)
{
	int ret = remove_foreign_linkto(rc, (size_t)e->hashed, (size_t)e->cached, path);

	if (ret == 0)
		add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "another file's gfid",
			    e->hashed, -1, 0);
	else if (ret != -EEXIST && ret != -ENOENT)
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
			    "cannot remove a linkto with another file's gfid", e->hashed, -1, 0);
}

/*
 * Step 3 for a stale linkto, before its entry is placed (lctl_repair_stale_fix()).
 * Return: true when nothing more is to be done for @e now.
 */
static bool stale_first(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *path,
			const struct lctl_entry_report *e)
{
	int ret;

	switch (lctl_repair_stale_fix(e, on_leaving(rc, e->cached))) {
	case LCTL_STALE_REMOVE_STRAY:
		ret = e->linkto_subvol >= 0
			      ? remove_linkto(rc, (size_t)e->linkto_subvol, path, e->cached)
			      : -ENOENT;
		if (ret == 0 || ret == -ENOENT)
			add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "stray",
				    e->linkto_subvol, -1, 0);
		else
			add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				    "cannot remove a stray linkto", e->linkto_subvol, -1, 0);
		return true;
	case LCTL_STALE_REMOVE_FOREIGN:
		drop_foreign(rc, rr, path, e);
		return false;
	case LCTL_STALE_REMOVE_THIRD:
		/*
		 * Reachable through a correct linkto on its hashed subvolume, and a stray linkto
		 * on a third one (e.g. the hashed subvolume of an older layout; inspect names that
		 * stray here). A stray away from the hashed subvolume is no rename in progress, so
		 * remove it, then place the data as for any linked entry (a file DHT will not move,
		 * hard-linked say, stays linked).
		 */
		ret = remove_linkto(rc, (size_t)e->linkto_subvol, path, -1);
		if (ret == 0)
			add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "stray",
				    e->linkto_subvol, -1, 0);
		else if (ret != -ENOENT)
			add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				    "cannot remove a stray linkto", e->linkto_subvol, -1, 0);
		return false;
	case LCTL_STALE_RETARGET:
		ret = retarget_linkto(rc, (size_t)e->hashed, (size_t)e->cached, path);
		if (ret == -EXDEV) {
			drop_foreign(rc, rr, path, e);
			return false;
		}
		if (ret == 0) {
			add_outcome(rc, rr, e, LCTL_FILE_LINKED, 0,
				    "its linkto named another subvolume than the data's", e->cached,
				    e->hashed, e->size);
			/*
			 * Linked now. A linkto pass is done with it; a drain leaves a hard-linked
			 * file off the leaving subvolumes where it is; else it is placed as any
			 * linked file (DHT refuses a hard-linked one: skipped, behind this linkto)
			 */
			return rc->mode == LCTL_FIX_LINKTO || (rc->drain && e->nlink > 1);
		}
		if (rc->drain && e->nlink > 1) {
			add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				    "cannot point its linkto at the data", e->cached, e->hashed,
				    e->size);
			return true;
		}
		/* not a linkto we may touch (changed meanwhile, an odd value): DHT's own placing */
		lctl_log(LCTL_LOG_VERBOSE,
			 "cannot point the linkto of '%.200s' on %s at the data: %s", path,
			 lctl_volume_subvol(rc->in->vol, (size_t)e->hashed)->name, strerror(-ret));
		return false;
	case LCTL_STALE_PLACE:
	default:
		return false;
	}
}

/* Step 3 for one entry. */
static void place_entry(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *dir,
			const struct lctl_entry_report *e)
{
	glfs_t *dht = lctl_volume_fs(rc->in->vol);
	mode_t kept = (mode_t)-1;
	char path[4096];
	struct stat st;
	int moved;

	lctl_crawl_beat(); /* each entry a sign of life (lctl_crawl_stalled()) */
	if (lctl_path_join_to(path, sizeof(path), dir, e->name)) {
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENAMETOOLONG, "path too long", e->cached,
			    e->hashed, e->size);
		return;
	}
	switch (e->state) {
	case LCTL_ENTRY_PLACED:
		return;
	case LCTL_ENTRY_DUPLICATE:
		add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, 0,
			    "data on several subvolumes: compare and remove a copy by hand", -1,
			    e->hashed, e->size);
		return;
	case LCTL_ENTRY_MIGRATION_LEFTOVER:
		/*
		 * One data copy with the phase-1 bits: a migration that was interrupted (a killed
		 * fix, or a crashed rebalance; none runs now, preflight made sure). DHT's migration
		 * of that file again completes it (it reuses the destination it finds). Anything
		 * else (data on two subvolumes) is left to a human.
		 */
		if (e->cached >= 0 && rc->mode == LCTL_FIX_MIGRATE && e->hashed >= 0 &&
		    e->cached != e->hashed)
			break;
		if (e->cached < 0 && rc->mode == LCTL_FIX_MIGRATE && !rc->dry_run) {
			int from = -1, ret = finish_copied(rc, path, e->hashed, &from);

			if (ret == 0) {
				if (kept_mode(rc, e->hashed, path, &kept) &&
				    !glfs_lstat(dht, path, &st) && (st.st_mode & 07777) != kept)
					glfs_chmod(dht, path, kept);
				add_outcome(rc, rr, e, LCTL_FILE_MIGRATED, 0,
					    "completed a migration interrupted after its copy",
					    from, e->hashed, e->size);
				return;
			}
			if (ret < 0) {
				add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
					    "cannot complete a migration interrupted after its copy",
					    -1, e->hashed, e->size);
				return;
			}
		}
		/*
		 * Data in place with both bits, and a mode we kept for it: a re-migration we
		 * finished but were stopped before giving the file its mode back.
		 */
		if (e->cached >= 0 && e->cached == e->hashed && rc->modes && !rc->dry_run &&
		    kept_mode(rc, e->cached, path, &kept) && !glfs_chmod(dht, path, kept))
			return;
		add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, 0,
			    "left over by an interrupted migration: check it by hand", e->cached,
			    e->hashed, e->size);
		return;
	case LCTL_ENTRY_UNHASHED:
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, EINVAL, "no hashed subvolume", e->cached,
			    -1, e->size);
		return;
	case LCTL_ENTRY_ORPHAN_LINKTO:
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
		    remove_linkto(rc, (size_t)e->linkto_subvol, path, -1) == 0) {
			add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "orphan",
				    e->linkto_subvol, -1, 0);
			return;
		}
		if (e->linkto_subvol >= 0 &&
		    lctl_volume_subvol_fs(rc->in->vol, (size_t)e->linkto_subvol) &&
		    glfs_lstat(lctl_volume_subvol_fs(rc->in->vol, (size_t)e->linkto_subvol), path,
			       &st) &&
		    errno == ENOENT)
			add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "orphan, by DHT",
				    e->linkto_subvol, -1, 0);
		return;
	case LCTL_ENTRY_STALE_LINKTO:
		if (stale_first(rc, rr, path, e))
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
			add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "lookup failed", e->cached,
				    e->hashed, e->size);
		else
			add_outcome(rc, rr, e, LCTL_FILE_LINKED, 0, NULL, e->cached, e->hashed,
				    e->size);
		return;
	}
	if (rc->drain && e->nlink > 1 && !on_leaving(rc, e->cached)) {
		/*
		 * With decommissioned subvolumes DHT takes every hard-linked file through its
		 * decommission path (gf_defrag_handle_hardlink()), which, for data that is not on
		 * one of them, only marks the data with a linkto xattr and moves nothing. Without
		 * them it refuses (EPERM). So such a file stays where it is, as in any fix: linked
		 * from its hashed subvolume by the first lookup of its name in this dirty directory;
		 * a linkto there that names another subvolume (after DHT moved the data of another
		 * name of the file off a leaving one, say) was pointed at the data (stale_first()).
		 */
		if (e->state != LCTL_ENTRY_LINKED && glfs_lstat(dht, path, &st))
			add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "lookup failed", e->cached,
				    e->hashed, e->size);
		else
			add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, EPERM,
				    "hard links: left in place behind a linkto", e->cached,
				    e->target, e->size);
		return;
	}
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
		add_outcome(rc, rr, e, LCTL_FILE_MIGRATED, 0, NULL, e->cached, e->target, e->size);
		return;
	}
	switch (errno) {
	case EEXIST: /* already on its hashed subvolume */
		return;
	case EPERM:
		/* hard links, POSIX locks or DHT's balance check: kept, reachable through a linkto */
		add_outcome(rc, rr, e, LCTL_FILE_SKIPPED, EPERM, eperm_reason(rc, dir, e),
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
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENOENT, "not found by DHT", e->cached,
			    e->target, e->size);
		return;
	case ENOSPC:
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, ENOSPC,
			    "migration failed (min-free-disk, space, or a concurrent write)",
			    e->cached, e->target, e->size);
		return;
	default:
		add_outcome(rc, rr, e, LCTL_FILE_FAILED, errno, "migration failed", e->cached,
			    e->target, e->size);
		return;
	}
}

/*
 * After a verify that found the directory safe (@v): a file whose move failed but that is now
 * in place, or gone, was changed by a client meanwhile (renamed, removed, rewritten): no
 * failure of ours, nothing left to do. Its outcome says so as a skip (seen: a writer's file
 * in a drained volume's final fix).
 */
static void settle_failures(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
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
static int unstamp(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r)
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

/* Subdirectory names seen by an inspection. */
struct names {
	char **v;
	size_t n, cap;
};

static int collect_name(void *arg, const char *name)
{
	struct names *ns = arg;

	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 16;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return -LCTL_ENOMEM;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	if (!ns->v[ns->n])
		return -LCTL_ENOMEM;
	ns->n++;
	return 0;
}

static void names_clear(struct names *ns)
{
	while (ns->n)
		free(ns->v[--ns->n]);
}

/* An inspection that also collects the subdirectory names into @ns (emptied first). */
static int inspect_names(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct names *ns, struct lctl_dir_report **out)
{
	struct lctl_inspect_children ch = { collect_name, ns };

	names_clear(ns);
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
			  const char *path, const struct lctl_dir_report *v, const struct names *ns,
			  bool *dirtied)
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
						? unstamp(rc, path, v)
						: 0;

				*dirtied = true;
				set_reason(rr, LCTL_DIR_NOT_FIXED,
					   "%ssubdirectory '%s' cannot be checked on %s: %s%s%s",
					   u ? "stamped but unsafe: " : "", ns->v[k],
					   lctl_volume_subvol(rc->in->vol, (size_t)missing)->name,
					   strerror(e), u ? "; cannot mark it dirty: " : "",
					   u ? strerror(-u) : "");
				goto not_there;
			}
			if (attempt == 5) {
				set_reason(rr, LCTL_DIR_NOT_FIXED,
					   "subdirectory '%s' is missing on %s and DHT did not create it",
					   ns->v[k],
					   lctl_volume_subvol(rc->in->vol, (size_t)missing)->name);
				goto not_there;
			}
			if (!*dirtied && v->commit != LCTL_COMMIT_INVALID) {
				int u = unstamp(rc, path, v);

				if (u) {
					/* a lookup in a clean directory would not heal it */
					set_reason(rr, LCTL_DIR_NOT_FIXED,
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

static const char *first_problem(unsigned problems)
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
static const char *unsafe_state(const struct lctl_dir_report *r)
{
	const struct lctl_entry_report *e = first_unsafe(r);

	return e ? lctl_entry_state_name((int)e->state) : first_bad_state(r);
}

static const char *subvol_name(const struct lctl_repair_ctx *rc, int i)
{
	return i >= 0 ? lctl_volume_subvol(rc->in->vol, (size_t)i)->name : "none";
}

/* -v: the entry that made a directory unsafe to stamp, and where its copies are. */
static void log_unsafe(const struct lctl_repair_ctx *rc, const char *path,
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
static size_t lost_mover(struct lctl_repair_ctx *rc, const char *dir,
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

static struct lctl_repair_report *report_new(const char *path)
{
	struct lctl_repair_report *rr = calloc(1, sizeof(*rr));

	if (rr && !(rr->path = strdup(path))) {
		free(rr);
		rr = NULL;
	}
	return rr;
}

int lctl_repair_place(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report **out)
{
	struct lctl_repair_report *rr = report_new(path);
	struct lctl_dir_report *r = initial;
	size_t i;
	int ret = 0;

	*out = NULL;
	if (!rr) {
		lctl_dir_report_free(initial);
		return -LCTL_ENOMEM;
	}
	if (!r && (ret = inspect(rc, path, depth, &r))) {
		lctl_repair_report_free(rr);
		return ret;
	}
	rr->outcome = LCTL_DIR_PLACED;
	for (i = 0; i < r->nentries && !stopping(rc); i++) {
		const struct lctl_entry_report *e = &r->entries[i];

		/*
		 * A special file only moves with its directory dirty, which the starting host
		 * sees to (a worker may run while the directory is stamped: a clean-first run)
		 */
		if (lctl_repair_clean_place(e) == LCTL_PLACE_DIRTY_AFTER)
			continue;
		if (e->state == LCTL_ENTRY_MISPLACED || e->state == LCTL_ENTRY_LINKED ||
		    (e->state == LCTL_ENTRY_MIGRATION_LEFTOVER && e->cached >= 0))
			place_entry(rc, rr, path, e);
	}
	if (stopping(rc))
		set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished");
	rr->plan = r;
	unique_outcomes(rc, rr);
	*out = rr;
	return 0;
}

/* A directory with at least this many files to link spreads their lookups over threads. */
#define LINK_SPREAD_MIN 256
#define LINK_THREADS_MAX 16

/* The lookups of one directory's misplaced entries, shared by threads (link_misplaced()). */
struct link_spread {
	struct lctl_repair_ctx *rc;
	const char *dir;
	const struct lctl_dir_report *r;
	_Atomic size_t next;   /* the next entry to take */
	unsigned char *linked; /* per entry: its lookup succeeded */
};

static void *link_some(void *arg)
{
	struct link_spread *s = arg;
	glfs_t *dht = lctl_volume_fs(s->rc->in->vol);
	char path[4096];
	struct stat st;
	size_t i;

	while ((i = atomic_fetch_add(&s->next, 1)) < s->r->nentries && !stopping(s->rc)) {
		const struct lctl_entry_report *e = &s->r->entries[i];

		if (e->state != LCTL_ENTRY_MISPLACED ||
		    lctl_path_join_to(path, sizeof(path), s->dir, e->name))
			continue;
		lctl_crawl_beat(); /* on the crawl worker's own thread */
		if (s->rc->throttle)
			s->rc->throttle(s->rc->arg, 0);
		/* the first lookup by name in a dirty directory links the data from the hashed one */
		if (glfs_lstat(dht, path, &st))
			continue;
		s->linked[i] = 1;
		if (s->rc->live)
			atomic_fetch_add(&s->rc->live[LCTL_FILE_LINKED], 1);
	}
	return NULL;
}

/*
 * A linkto pass's links (before its placing rounds, or held: lctl_repair_dir_early()): a
 * lookup of each misplaced entry of @r, which in the dirty directory makes its linkto; each
 * one linked is marked so in @r, so that the rounds do not count it twice, and one that
 * failed is left to them. A directory with many (LINK_SPREAD_MIN) shares them among up to
 * @rc->link_threads threads, the worker's own included: one worker would otherwise do the
 * lookups of a directory of a million files alone, one at a time.
 */
static void link_misplaced(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const char *dir, struct lctl_dir_report *r)
{
	struct link_spread s = { .rc = rc, .dir = dir, .r = r };
	pthread_t tid[LINK_THREADS_MAX];
	unsigned n = 0, k, want = 1;
	size_t i, misplaced = 0;

	for (i = 0; i < r->nentries; i++)
		misplaced += r->entries[i].state == LCTL_ENTRY_MISPLACED;
	if (!misplaced)
		return;
	s.linked = calloc(r->nentries, 1);
	if (!s.linked)
		return; /* the placing rounds link them one by one */
	if (misplaced >= LINK_SPREAD_MIN && rc->link_threads > 1)
		want = rc->link_threads < LINK_THREADS_MAX ? rc->link_threads : LINK_THREADS_MAX;
	for (k = 1; k < want; k++)
		if (!pthread_create(&tid[n], NULL, link_some, &s))
			n++;
	link_some(&s);
	for (k = 0; k < n; k++)
		pthread_join(tid[k], NULL);
	for (i = 0; i < r->nentries; i++) {
		struct lctl_entry_report *e = &r->entries[i];

		if (!s.linked[i])
			continue;
		record_outcome(rc, rr, e, LCTL_FILE_LINKED, 0, NULL, e->cached, e->hashed, e->size,
			       false);
		e->state = LCTL_ENTRY_LINKED;
	}
	free(s.linked);
}

/*
 * lctl_repair_dir() and its early and held halves: @held_rr set, go on with that held
 * report; @held set, hold the directory after its links while @rc->settling says so.
 */
static int repair_dir(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report *held_rr,
		      struct lctl_repair_report **out, bool *held)
{
	struct lctl_repair_report *rr = held_rr ? held_rr : report_new(path);
	struct lctl_dir_report *r = initial, *v = NULL;
	struct names ns = { 0 };
	bool dirtied = false;
	int ret = 0, round;
	size_t i;

	*out = NULL;
	if (held)
		*held = false;
	if (!rr) {
		lctl_dir_report_free(initial);
		return -LCTL_ENOMEM;
	}
	if (held_rr) {
		r = rr->plan;
		rr->plan = NULL;
		goto place;
	}
	if (!r) {
		ret = inspect(rc, path, depth, &r);
		if (ret)
			goto out;
	}
	if (r->nsubvols > LCTL_MAX_SUBVOLS) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "more than %d subvolumes", LCTL_MAX_SUBVOLS);
		goto done;
	}
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT) {
		set_reason(rr, LCTL_DIR_LEFT_ALONE, "user-set layout (type 1)");
		goto done;
	}
	if (lctl_dir_report_clean(r) && r->commit == rc->commit) {
		/* clean, unless a subdirectory is missing somewhere (a stopped run, see above) */
		if (rc->dry_run || !r->nsubdirs) {
			rr->outcome = LCTL_DIR_WAS_CLEAN;
			goto done;
		}
		ret = inspect_names(rc, path, depth, &ns, &v);
		if (ret)
			goto done;
		ret = ensure_subdirs(rc, rr, path, v, &ns, &dirtied);
		if (ret) {
			ret = ret > 0 ? 0 : ret;
			goto done;
		}
		if (!dirtied) {
			rr->outcome = LCTL_DIR_WAS_CLEAN;
			goto done;
		}
		/* it was made dirty to heal a subdirectory: verify and stamp it again below */
		lctl_dir_report_free(v);
		v = NULL;
	}
	if (rc->dry_run) {
		rr->outcome = LCTL_DIR_PLANNED;
		goto done;
	}
	/*
	 * The layout pass of the job made every directory dirty (commit 1) before the settle
	 * period. One that is clean now (a concurrent stamp, or it failed then) must not get
	 * files moved before clients have seen it dirty: mark it, and leave it to a re-run.
	 */
	if (!entries_ok(r) && copy_clean(r, rc->commit)) {
		int u = unstamp(rc, path, r);

		if (u)
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "stamped but unsafe: was not dirty, and "
				   "cannot be marked dirty: %s",
				   strerror(-u));
		else
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "was not dirty: marked now; run fix again after the settle period");
		goto done;
	}
	ret = apply_layout(rc, rr, &r, path, depth);
	if (ret) {
		ret = ret > 0 ? 0 : ret;
		goto done;
	}
	if (rc->mode == LCTL_FIX_LINKTO) {
		link_misplaced(rc, rr, path, r);
		if (held && rc->settling && rc->settling(rc->arg)) {
			*held = true; /* the rest after the settle period */
			goto done;
		}
	}
place:
	for (round = 0; round < PLACE_ROUNDS; round++) {
		for (i = 0; i < r->nentries && !stopping(rc); i++) {
			/*
			 * Misplaced again in a later round: the linkto an earlier one made was
			 * removed behind our back (a client judging by an old layout took it for
			 * stale). Our client knows the name, so its lookup would only revalidate:
			 * make it a fresh one, which links again.
			 */
			if (round && r->entries[i].state == LCTL_ENTRY_MISPLACED)
				lctl_volume_forget(rc->in->vol, path, r->entries[i].name);
			place_entry(rc, rr, path, &r->entries[i]);
		}
		if (stopping(rc)) {
			set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished");
			goto done;
		}
		/* step 4: verify from fresh reads */
		lctl_dir_report_free(v);
		v = NULL;
		ret = inspect_names(rc, path, depth, &ns, &v);
		if (ret)
			goto done;
		if (!(v->problems & STRUCTURAL) && entries_ok(v) && leaving_clear(rc, v) &&
		    !layout_differs(v, r->planned))
			break;
		/* something changed under us (a concurrent client): place again from the new view */
		lctl_dir_report_free(r);
		r = v;
		v = NULL;
	}
	if (!v || (v->problems & STRUCTURAL) || !entries_safe(v)) {
		const struct lctl_dir_report *w = v ? v : r;

		if (!(w->problems & STRUCTURAL))
			log_unsafe(rc, path, w);
		set_reason(rr, LCTL_DIR_NOT_FIXED, "cannot verify: %s",
			   (w->problems & STRUCTURAL) ? first_problem(w->problems & STRUCTURAL)
			   : !entries_safe(w) || leaving_clear(rc, w)
				   ? unsafe_state(w)
				   : "files left on a leaving subvolume");
		goto done;
	}
	if (!leaving_clear(rc, v)) {
		/* hard links: DHT moves the data once every name was visited (a later pass) */
		set_reason(rr, LCTL_DIR_NOT_FIXED, "files left on a leaving subvolume");
		goto done;
	}
	if (rc->mover_done && (i = lost_mover(rc, path, v)) != (size_t)-1) {
		const struct lctl_server *srv = lctl_volume_server_at(rc->in->vol, i);

		set_reason(rr, LCTL_DIR_NOT_FIXED,
			   "files left to server %s, whose worker did not "
			   "finish",
			   srv ? srv->host : "?");
		goto done;
	}
	ret = ensure_subdirs(rc, rr, path, v, &ns, &dirtied);
	if (ret) {
		ret = ret > 0 ? 0 : ret;
		goto done;
	}
	ret = stamp(rc, path, v, rc->commit);
	if (ret) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "not stamped: %s",
			   ret == -ESTALE ? "the layout changed under us" : strerror(-ret));
		ret = 0;
		goto done;
	}
	/* an entry created meanwhile through an old layout would be hidden: look once more */
	lctl_dir_report_free(r);
	r = v;
	v = NULL;
	ret = inspect(rc, path, depth, &v);
	if (ret)
		goto done;
	if (v->problems || v->err || !entries_safe(v) || v->commit != rc->commit) {
		int u = unstamp(rc, path, v);

		log_unsafe(rc, path, v);

		if (u)
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "stamped but unsafe: changed while being "
				   "stamped (%s), and cannot be marked dirty again: %s",
				   entries_safe(v) ? first_problem(v->problems) : unsafe_state(v),
				   strerror(-u));
		else
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "changed while being stamped (%s): left dirty",
				   entries_safe(v) ? first_problem(v->problems) : unsafe_state(v));
		goto done;
	}
	/*
	 * Linkto files without a purpose (orphans, strays next to data on its hashed subvolume)
	 * are harmless but are debris a scan reports; clients holding an old layout may have
	 * made some while we worked. Tidy them now, the same careful way as before.
	 */
	for (i = 0; i < v->nentries && !stopping(rc); i++) {
		if (harmless_leftover(&v->entries[i]))
			place_entry(rc, rr, path, &v->entries[i]);
	}
	settle_failures(rc, rr, v);
	rr->outcome = LCTL_DIR_FIXED;
done:
	rr->plan = r;
	r = NULL;
out:
	names_clear(&ns);
	free(ns.v);
	lctl_dir_report_free(r);
	lctl_dir_report_free(v);
	if (ret < 0) {
		lctl_repair_report_free(rr);
		return ret;
	}
	unique_outcomes(rc, rr); /* the rounds: each name once per action */
	*out = rr;
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

/* ---- the data phase of a clean-first run ------------------------------------------------- */

/*
 * What can be placed while its directory stays stamped. DHT migrates a file from its cached
 * subvolume to its hashed one, where the linkto stands and becomes the destination; a lookup
 * through that linkto finds the file at every step, since the source keeps the data until the
 * destination has it, and the destination stops being a linkto before the source goes
 * (dht-facts 7.3; measured in 12). A misplaced file, with no linkto, is hidden from other
 * clients already: our client does not shortcut lookups (lookup-optimize off, volume.c), so
 * its lookup finds the file, DHT links it on its hashed subvolume, and then moves it. A
 * migration a stop interrupted is finished the same way. A linkto without data, or a stray one
 * beside data on its hashed subvolume, is tidied as in a freshly stamped directory. Anything
 * else (a linkto naming the wrong subvolume, data on two subvolumes, a half-copied file...)
 * needs the directory dirty while it is handled. So does a symbolic link, device, FIFO or
 * socket to move: DHT moves one by removing the linkto on the hashed subvolume and then making
 * it there (migrate_special_files()), and a lookup in between finds nothing (seen: a symlink
 * gone for a fresh client during the data phase on a replicated volume). Those are moved
 * last, the directory dirty only while they move.
 */
enum lctl_clean_place lctl_repair_clean_place(const struct lctl_entry_report *e)
{
	switch (e->state) {
	case LCTL_ENTRY_PLACED:
	case LCTL_ENTRY_ORPHAN_LINKTO:
		return LCTL_PLACE_CLEAN;
	case LCTL_ENTRY_LINKED:
	case LCTL_ENTRY_MISPLACED:
		return S_ISREG(e->mode) ? LCTL_PLACE_CLEAN : LCTL_PLACE_DIRTY_AFTER;
	case LCTL_ENTRY_STALE_LINKTO:
		return e->cached >= 0 && e->cached == e->hashed ? LCTL_PLACE_CLEAN
								: LCTL_PLACE_DIRTY;
	case LCTL_ENTRY_MIGRATION_LEFTOVER:
		return e->cached >= 0 && e->hashed >= 0 && e->cached != e->hashed
			       ? LCTL_PLACE_CLEAN
			       : LCTL_PLACE_DIRTY;
	default:
		return LCTL_PLACE_DIRTY;
	}
}

/*
 * Mark @path (inspected as @r) dirty where it is stamped. Should that fail, it stays stamped,
 * and lctl_repair_dir() finds it so after the settle period and says so. Return: unstamp()'s.
 */
static int make_dirty(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r)
{
	struct stat st;
	int u;

	if (!copy_clean(r, rc->commit))
		return 0;
	u = unstamp(rc, path, r);
	glfs_lstat(lctl_volume_fs(rc->in->vol), path, &st); /* our DHT client re-reads it */
	return u;
}

int lctl_repair_data(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		     struct lctl_dir_report *initial, struct lctl_repair_report **out,
		     bool *deferred)
{
	struct lctl_dir_report *r = initial, *v = NULL;
	struct lctl_repair_report *rr;
	bool stay_clean;
	size_t i, s, specials = 0;
	int ret = 0;

	*out = NULL;
	*deferred = false;
	if (!r && (ret = inspect(rc, path, depth, &r)))
		return ret;
	rr = report_new(path);
	if (!rr) {
		lctl_dir_report_free(r);
		return -LCTL_ENOMEM;
	}
	rr->data_phase = true;
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT) {
		set_reason(rr, LCTL_DIR_LEFT_ALONE, "user-set layout (type 1)");
		goto done;
	}
	if (r->nsubvols > LCTL_MAX_SUBVOLS) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "more than %d subvolumes", LCTL_MAX_SUBVOLS);
		goto done;
	}
	if (r->err || (r->problems & (LCTL_DIR_SUBVOL_DOWN | LCTL_DIR_UNREADABLE))) {
		/* nothing to judge it by: it stays as it is, stamped or not, for a later run */
		if (r->problems & LCTL_DIR_SUBVOL_DOWN)
			set_reason(rr, LCTL_DIR_NOT_FIXED, "a subvolume is down: left as it is");
		else
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "cannot read it on every subvolume (%s): "
				   "left as it is",
				   r->err ? strerror(r->err) : "unreadable");
		goto done;
	}
	stay_clean = !r->problems && r->commit == rc->commit;
	for (i = 0; i < r->nentries && stay_clean; i++) {
		enum lctl_clean_place p = lctl_repair_clean_place(&r->entries[i]);

		stay_clean = p != LCTL_PLACE_DIRTY;
		specials += p == LCTL_PLACE_DIRTY_AFTER;
	}
	if (!stay_clean) {
		/*
		 * Dirty now, also when it was dirty already (a client may hold it as clean from
		 * before), and the caller comes back after the settle period, as below
		 */
		make_dirty(rc, path, r);
		*deferred = true;
		goto done;
	}
	for (i = 0; i < r->nentries && !stopping(rc); i++)
		if (r->entries[i].state != LCTL_ENTRY_PLACED &&
		    lctl_repair_clean_place(&r->entries[i]) == LCTL_PLACE_CLEAN)
			place_entry(rc, rr, path, &r->entries[i]);
	if (stopping(rc)) {
		set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished (still clean)");
		goto done;
	}
	/* verify from fresh reads: still stamped, and nothing a lookup by name would miss */
	ret = inspect(rc, path, depth, &v);
	if (ret)
		goto done;
	if (!entries_safe(v)) {
		/*
		 * Whatever made it (a client's rename or create through a layout it had cached, a
		 * failed migration), dirty is the safe state, and only while needed: held as a
		 * directory that needs to be dirty (above), it is repaired and stamped again once
		 * its settle period is over (lctl_repair_specials())
		 */
		int u = make_dirty(rc, path, v);

		log_unsafe(rc, path, v);
		if (u)
			set_reason(rr, LCTL_DIR_NOT_FIXED,
				   "stamped but unsafe: %s after moving, and "
				   "cannot be marked dirty: %s",
				   unsafe_state(v), strerror(-u));
		else
			*deferred = true;
		goto done;
	}
	if (v->problems || v->err || v->commit != rc->commit) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "changed while its files moved (%s)",
			   v->err ? "cannot read it" : first_problem(v->problems));
		goto done;
	}
	if (rc->mover_done && (s = lost_mover(rc, path, v)) != (size_t)-1) {
		const struct lctl_server *srv = lctl_volume_server_at(rc->in->vol, s);

		set_reason(rr, LCTL_DIR_NOT_FIXED,
			   "clean; files left to server %s, whose worker "
			   "did not finish",
			   srv ? srv->host : "?");
		goto done;
	}
	settle_failures(rc, rr, v);
	if (rr->count[LCTL_FILE_FAILED]) {
		set_reason(rr, LCTL_DIR_NOT_FIXED, "clean; %llu files could not be moved",
			   (unsigned long long)rr->count[LCTL_FILE_FAILED]);
		goto done;
	}
	for (i = 0; i < v->nentries && !stopping(rc); i++) {
		if (harmless_leftover(&v->entries[i]))
			place_entry(rc, rr, path, &v->entries[i]);
	}
	if (specials && !stopping(rc)) {
		/*
		 * The regular files are in place: dirty now, and the caller comes back once the
		 * settle period is over (lctl_repair_specials()), doing other work meanwhile
		 */
		make_dirty(rc, path, v);
		*deferred = true;
		goto done;
	}
	if (specials) {
		set_reason(rr, LCTL_DIR_STOPPED, "stopped before it was finished (still clean)");
		goto done;
	}
	rr->outcome = LCTL_DIR_FIXED;
done:
	rr->plan = r;
	lctl_dir_report_free(v);
	if (ret < 0) {
		lctl_repair_report_free(rr);
		return ret;
	}
	unique_outcomes(rc, rr); /* the rounds: each name once per action */
	*out = rr;
	return 0;
}

int lctl_repair_specials(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *first, struct lctl_repair_report **out)
{
	struct lctl_repair_report *d;
	int ret;

	*out = NULL;
	if (stopping(rc)) {
		/* its regular files moved; it stays dirty (the next run moves the rest) */
		set_reason(first, LCTL_DIR_STOPPED, "stopped before it was finished (left dirty)");
		*out = first;
		return 0;
	}
	ret = lctl_repair_dir(rc, path, depth, NULL, &d);
	if (ret) {
		lctl_repair_report_free(first);
		return ret;
	}
	d->data_phase = true;
	merge_outcomes(rc, d, first);
	*out = d;
	return 0;
}
