/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inspect one directory from every subvolume's own view.
 *
 * For each DHT subvolume we open the directory through that subvolume's graph (so DHT does
 * not hide or merge anything), read its raw layout xattr and list it with readdirplus. Every
 * name seen on a subvolume becomes a "sighting" (subvolume, kind, size, mode, linkto target);
 * sorting the sightings by name groups the copies of one entry, and each group gets a verdict
 * from the layout as it is on disk (the rules are verdict.c's, which explain uses too):
 *
 *	data on the hashed subvolume                     placed
 *	data elsewhere, linkto on hashed -> data          linked
 *	data elsewhere, no linkto on hashed               misplaced (invisible in a clean dir)
 *	linkto that names a subvolume without the data    stale linkto
 *	linkto(s), no data anywhere                       orphan linkto
 *	data on two or more subvolumes                    duplicate
 *	a migration's source (setgid+sticky, linkto xattr) migration leftover
 *
 * A linkto is a regular file whose permission bits are exactly S_ISVTX (DHT's
 * IS_DHT_LINKFILE_MODE) and which carries the linkto xattr; the source of a migration in its
 * first phase has S_ISGID and S_ISVTX among its bits and carries the linkto xattr too (DHT sets
 * the xattr, then the bits). A user may give a file any bits, so the mode only says whose
 * linkto xattr to read (lctl_may_be_dht_file(), lctl_copy_kind_of()): a file with those bits
 * and no xattr is the user's data, and its mode is the user's. Only those files are read
 * further, so a directory costs two calls per subvolume plus one per such file. When that read
 * fails (but for ENODATA, no xattr: data, and ERANGE, a value naming no subvolume) the file is
 * neither DHT's nor data: its name gets no verdict and the directory is unreadable, so that a
 * fix neither stamps it nor acts on a verdict built from a guess (lctl_linkto_read_result()).
 *
 * The verdicts' names, the judgement of the directory's layout and its plan are pure and
 * live in judge.c; this file reads.
 *
 * Memory: the sightings of the directory being inspected, freed before the next one; the
 * report keeps only the entries that are not placed (unless all_entries).
 *
 * Read-only: a path lookup of an entry that has no gfid on a brick (made on the brick by hand)
 * carries gfapi's "gfid-req", and the brick then stores that random gfid: a different one on
 * each brick for a directory. So an entry readdirplus shows without a gfid (st_ino == -1) is
 * never looked up: a linkto-mode file is taken as data (read from the brick folder, an empty
 * one is first given a moment to get its gfid: lctl_linkto_being_made()), and a subdirectory
 * is marked (path, subvolume) in in->nogfid before the caller queues it; its own inspections
 * then skip that subvolume and report the directory unreadable there, and mark its
 * subdirectories the same way. The marks last for the run (a hash table under one mutex, empty
 * in the usual case).
 */
#include "internal.h"
#include "crawl.h"
#include "inspect.h"
#include "lctl/bigdir.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

enum sight_kind {
	S_DIR,
	S_DATA,
	S_LINKTO,
	S_PHASE1,
	S_UNREAD, /* a file that may be DHT's whose linkto xattr could not be read */
};

struct sighting {
	char *name;
	int subvol;
	enum sight_kind kind;
	int target; /* linkto: subvolume named, -1 unknown */
	uint64_t size;
	mode_t mode;
	nlink_t nlink;
	uint64_t ino; /* the gfid's low 64 bits, as posix makes st_ino; 0 unknown */
};

struct sightings {
	struct sighting *v;
	size_t n, cap;
	/* a listing of more than @threshold sightings goes to disk, in buckets (bigdir.c) */
	size_t threshold;
	bool spilling;
	struct lctl_bigdir big;
	uint64_t seen; /* sightings read, for the progress inside a big directory */
};

/* Was @dir/@name marked gfid-less on @subvol? */
static bool nogfid_marked_child(struct lctl_inspector *in, const char *dir, const char *name,
				size_t subvol)
{
	char *p = lctl_path_join(dir, name);
	bool marked = p && lctl_nogfid_marked(in->nogfid, p, subvol);

	free(p);
	return marked;
}

/* How long a directory without a gfid on a brick gets to have one set (see read_subvol_local) */
#define NOGFID_GRACE_US 200000

/* Whether @name in @dfd has a gfid (a non-zero trusted.gfid), which is copied to @gfid */
static bool gfid_at(int dfd, const char *name, char gfid[16])
{
	return lctl_lgetxattr_at(dfd, name, "trusted.gfid", gfid, 16) == 16 &&
	       memcmp(gfid, (char[16]){ 0 }, 16);
}

static void sightings_release(struct sightings *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* One more sighting in memory. */
static int sightings_push(struct sightings *s, const struct sighting *x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct sighting *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -LCTL_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = *x;
	s->v[s->n].name = strdup(x->name);
	if (!s->v[s->n].name)
		return -LCTL_ENOMEM;
	s->n++;
	return 0;
}

/* One more sighting on disk. */
static int sightings_spill(struct sightings *s, const struct sighting *x)
{
	struct lctl_bigdir_rec r;
	int ret;

	r.namelen = strlen(x->name);
	if (r.namelen > LCTL_BIGDIR_NAME_MAX)
		return -LCTL_EINVAL;
	memcpy(r.name, x->name, r.namelen + 1);
	r.subvol = x->subvol;
	r.kind = (int32_t)x->kind;
	r.target = x->target;
	r.mode = (uint32_t)x->mode;
	r.size = x->size;
	r.nlink = (uint64_t)x->nlink;
	r.ino = x->ino;
	ret = lctl_bigdir_put(&s->big, &r);
	return ret == -ENOMEM ? -LCTL_ENOMEM : ret ? -LCTL_EIO : 0;
}

/* Past the threshold: everything read so far goes to disk, and from now on each sighting. */
static int sightings_start_spill(struct sightings *s)
{
	size_t i;
	int ret = lctl_bigdir_begin(&s->big);

	if (ret) {
		lctl_log(LCTL_LOG_WARN, "cannot make a temporary file for a big directory: %s",
			 strerror(-ret));
		return -LCTL_EIO;
	}
	s->spilling = true;
	for (i = 0; i < s->n; i++) {
		ret = sightings_spill(s, &s->v[i]);
		if (ret)
			return ret;
	}
	sightings_release(s);
	return 0;
}

static int sightings_add(struct sightings *s, const struct sighting *x)
{
	int ret;

	lctl_crawl_beat(); /* one per name read: a big directory is no hang */
	if (!(++s->seen & 1023))
		lctl_crawl_entries(0, s->seen);
	if (!s->spilling && s->threshold && s->n >= s->threshold) {
		ret = sightings_start_spill(s);
		if (ret)
			return ret;
	}
	return s->spilling ? sightings_spill(s, x) : sightings_push(s, x);
}

static int cmp_sighting(const void *a, const void *b)
{
	const struct sighting *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->subvol - y->subvol;
}

/* Which subvolume a linkto value names; -1 when none (a garbage or foreign value). */
static int linkto_target(const struct lctl_volume *vol, const char *val, ssize_t n)
{
	char name[256];

	if (n <= 0 || (size_t)n >= sizeof(name))
		return -1;
	memcpy(name, val, (size_t)n);
	name[n] = '\0';
	/* the value carries its NUL; without it, or with bytes after it, it is not DHT's */
	if (strlen(name) != (size_t)n - 1)
		return -1;
	return lctl_volume_subvol_index(vol, name);
}

/* A directory that could not be opened on a subvolume (errno @e): what that says of it. */
static void note_open_error(struct lctl_layout_entry *le, unsigned *problems, int e)
{
	le->err = e;
	if (e == ENOENT)
		*problems |= LCTL_DIR_MISSING;
	else if (e == ENOTDIR)
		*problems |= LCTL_DIR_NOT_DIR;
	else if (e == ENOTCONN)
		*problems |= LCTL_DIR_SUBVOL_DOWN;
	else
		*problems |= LCTL_DIR_UNREADABLE;
}

/* The inode number posix gives an entry with gfid @g (its low 8 bytes, big-endian); 0 if none. */
static uint64_t gfid_ino(const unsigned char *g)
{
	uint64_t ino = 0;
	int i;

	for (i = 8; i < 16; i++)
		ino = ino << 8 | g[i];
	return ino == (uint64_t)-1 ? 0 : ino;
}

/* The same for the entry @name of the brick directory @dfd, from its trusted.gfid; 0 if none. */
static uint64_t local_ino(int dfd, const char *name)
{
	unsigned char g[16];

	return lctl_lgetxattr_at(dfd, name, "trusted.gfid", g, sizeof(g)) == 16 ? gfid_ino(g) : 0;
}

/*
 * An entry's kind from its stat (as the brick reports it) and whether it has a gfid. S_LINKTO
 * and S_PHASE1 mean "a linkto, or a migration's source, if it carries the linkto xattr" (the
 * caller reads it, then settle_dht()): the mode alone proves nothing, as a user may set any
 * bits (lctl_may_be_dht_file()).
 */
static enum sight_kind classify(struct sighting *s, const struct stat *st, bool has_gfid)
{
	s->target = -1;
	s->size = (uint64_t)st->st_size;
	s->mode = st->st_mode;
	s->nlink = st->st_nlink;
	if (S_ISDIR(st->st_mode))
		s->kind = S_DIR;
	else if (lctl_may_be_dht_file(st->st_mode, has_gfid))
		s->kind = (st->st_mode & 07777) == S_ISVTX ? S_LINKTO : S_PHASE1;
	else
		s->kind = S_DATA;
	return s->kind;
}

/*
 * A file classify() took for a linkto or a migration's source, in directory @path, after
 * reading its linkto xattr (@n bytes of @val, or -1 with errno @e): it is one if it carries the
 * xattr, else plain data (lctl_copy_kind_of()). A value too long for @val (ERANGE) names no
 * subvolume, as explain says (DHT finds no subvolume by that name). A read that failed
 * otherwise is never taken for data (a false duplicate or misplaced file): S_UNREAD, and the
 * directory is unreadable.
 * Return: false when the file is gone since the listing (not seen there, like a file gone
 * before its stat).
 */
static bool settle_dht(const struct lctl_inspector *in, struct sighting *s, const char *path,
		       const char *val, ssize_t n, int e, unsigned *problems)
{
	enum lctl_linkto_read how = lctl_linkto_read_result(n, e);

	switch (how) {
	case LCTL_LINKTO_VALUE:
		s->target = linkto_target(in->vol, val, n);
		break;
	case LCTL_LINKTO_TOO_LONG:
	case LCTL_LINKTO_NONE:
		break;
	case LCTL_LINKTO_GONE:
		return false;
	case LCTL_LINKTO_UNREAD:
		s->kind = S_UNREAD;
		*problems |= LCTL_DIR_UNREADABLE;
		lctl_log(LCTL_LOG_WARN,
			 "'%s/%s' not judged: cannot read its linkto xattr on %s: %s",
			 strcmp(path, "/") ? path : "", s->name,
			 lctl_volume_subvol(in->vol, (size_t)s->subvol)->name,
			 strerror(e ? e : EIO));
		return true;
	}
	if (lctl_copy_kind_of(s->mode, true, how) == LCTL_COPY_DATA) {
		s->kind = S_DATA;
		s->target = -1;
	}
	return true;
}

/* Whether the brick process of subvolume @i is down (see lctl_inspector.probe_ms). */
static bool brick_down(struct lctl_inspector *in, size_t i)
{
	int64_t now = (int64_t)(lctl_mono_seconds() * 1000), last = atomic_load(&in->probed_at[i]);
	struct statvfs probe;
	bool down;

	if (in->probe_ms && last && now - last < (int64_t)in->probe_ms)
		return atomic_load(&in->probed_down[i]);
	down = glfs_statvfs(lctl_volume_subvol_fs(in->vol, i), "/", &probe) != 0;
	atomic_store(&in->probed_down[i], down);
	atomic_store(&in->probed_at[i], now ? now : 1);
	return down;
}

/*
 * read_subvol() for a brick folder on this host (lctl_subvol.local_path), with plain system
 * calls instead of the brick protocol: what the brick's posix translator would answer, as it
 * would answer it (it hides .glusterfs in the root, and counts a file's links without its
 * .glusterfs handle). Read-only, and nothing is looked up, so nothing gets a gfid either.
 *
 * We run as root in folders anybody with access to the brick may change under us: @path is
 * opened beneath the brick folder following no symbolic link in any component, and entries
 * are read relative to the directory opened (lctl_openat_beneath(), lctl_lgetxattr_at()). A
 * symbolic link where a directory of @path should be is "not a directory" there, never
 * followed to wherever it points.
 */
static int read_subvol_local(struct lctl_inspector *in, size_t i, const char *path, bool mark_dirs,
			     struct sightings *out, struct lctl_layout_entry *le,
			     unsigned *problems)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(in->vol, i);
	bool root = !strcmp(path, "/");
	char gfid[16];
	unsigned char buf[64];
	struct dirent *de;
	struct stat st;
	int dfd, ret = 0;
	bool waited = false;
	ssize_t n;
	DIR *d;

	if (brick_down(in, i)) {
		le->err = ENOTCONN;
		*problems |= LCTL_DIR_SUBVOL_DOWN;
		return 0;
	}
	/*
	 * The brick's posix translator opens its folder and the volume path as one path, so one
	 * too long for the system (ENAMETOOLONG) is one the brick cannot read either:
	 * unreadable, not missing.
	 */
	if (strlen(sv->local_path) + strlen(path) >= PATH_MAX) {
		note_open_error(le, problems, ENAMETOOLONG);
		return 0;
	}
	dfd = lctl_open_beneath(sv->local_path, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (dfd < 0) {
		/*
		 * (whether the brick process is up was asked above) A symbolic link on the way
		 * (ELOOP) or a way out of the brick (EXDEV) is no directory.
		 */
		note_open_error(le, problems, errno == ELOOP || errno == EXDEV ? ENOTDIR : errno);
		return 0;
	}
	n = fgetxattr(dfd, in->layout_key, buf, sizeof(buf));
	lctl_note_layout(le, problems, buf, n, errno);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		le->err = le->err ? le->err : errno;
		*problems |= LCTL_DIR_UNREADABLE;
		return 0;
	}
	for (;;) {
		struct sighting s = { 0 };
		char val[512], *vpath;
		bool has_gfid;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				*problems |= LCTL_DIR_UNREADABLE;
				le->err = le->err ? le->err : errno;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (root && !strcmp(de->d_name, ".glusterfs")))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone since the listing, as the brick would skip it */
		if (!S_ISDIR(st.st_mode) && st.st_nlink > 0)
			st.st_nlink--; /* the .glusterfs handle, which posix does not count */
		s.name = de->d_name;
		s.subvol = (int)i;
		/* the gfid matters only for directories and files that may be DHT's */
		has_gfid = true;
		if (S_ISDIR(st.st_mode) || lctl_may_be_dht_file(st.st_mode, true)) {
			has_gfid = gfid_at(dfd, de->d_name, gfid);
			/*
			 * DHT healing a directory onto this brick (a client's lookup) sets its
			 * gfid just after the mkdir, and a brick making a linkto sets the file's
			 * last (lctl_linkto_being_made()): give a gfid-less one a moment, once per
			 * listing, before taking it for one made on the brick by hand (seen: a
			 * fix's layout pass refused a directory the tests' checker was healing).
			 */
			if ((!has_gfid && S_ISDIR(st.st_mode) && mark_dirs &&
			     !nogfid_marked_child(in, path, de->d_name, i)) ||
			    lctl_linkto_being_made(st.st_mode, (uint64_t)st.st_size, has_gfid)) {
				if (!waited)
					usleep(NOGFID_GRACE_US);
				waited = true;
				if (!S_ISDIR(st.st_mode)) {
					if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
						continue; /* DHT removed it meanwhile */
					if (st.st_nlink > 0)
						st.st_nlink--;
				}
				has_gfid = gfid_at(dfd, de->d_name, gfid);
			}
			if (has_gfid)
				s.ino = gfid_ino((const unsigned char *)gfid);
		} else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			/* a hard-linked file: its names are counted as one file (outcomes.c) */
			s.ino = local_ino(dfd, de->d_name);
		}
		if (classify(&s, &st, has_gfid) == S_DIR) {
			if (!has_gfid && mark_dirs) {
				vpath = lctl_path_join(path, de->d_name);
				if (!vpath) {
					ret = -LCTL_ENOMEM;
					break;
				}
				lctl_nogfid_mark(in->nogfid, vpath, i);
				free(vpath);
			}
		} else if (s.kind == S_LINKTO || s.kind == S_PHASE1) {
			n = lctl_lgetxattr_at(dfd, de->d_name, in->linkto_key, val, sizeof(val));
			if (!settle_dht(in, &s, path, val, n, n < 0 ? errno : 0, problems))
				continue; /* gone since the listing */
		}
		ret = sightings_add(out, &s);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

/*
 * Read one subvolume's copy of @path: its layout entry and its listing. @mark_dirs: record
 * gfid-less subdirectories (they are going to be visited).
 */
static int read_subvol(struct lctl_inspector *in, size_t i, const char *path, bool mark_dirs,
		       struct sightings *out, struct lctl_layout_entry *le, unsigned *problems)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(in->vol, i);
	glfs_t *fs = lctl_volume_subvol_fs(in->vol, i);
	unsigned char buf[64];
	struct dirent de;
	glfs_fd_t *fd;
	struct stat st;
	ssize_t n;
	int ret = 0, rc;

	le->subvol = (int)i;
	le->err = 0;
	memset(&le->r, 0, sizeof(le->r));
	if (!sv->up || !fs) {
		le->err = ENOTCONN;
		*problems |= LCTL_DIR_SUBVOL_DOWN;
		return 0;
	}
	if (strlen(path) > LCTL_VOL_PATH_MAX) {
		le->err = ENAMETOOLONG;
		*problems |= LCTL_DIR_UNREADABLE;
		return 0;
	}
	if (lctl_nogfid_marked(in->nogfid, path, i)) {
		lctl_log(LCTL_LOG_WARN,
			 "'%s' not read on %s: it or a parent has no gfid there (a lookup would assign one)",
			 path, sv->name);
		le->err = ESTALE;
		*problems |= LCTL_DIR_UNREADABLE;
		return 0;
	}
	if (sv->local_path)
		return read_subvol_local(in, i, path, mark_dirs, out, le, problems);
	fd = glfs_opendir(fs, path);
	if (!fd) {
		struct statvfs probe;
		int e = errno ? errno : EIO;

		/*
		 * A brick that died under us makes gfapi fail in odd ways (ENOTDIR from opendir,
		 * errno 0 from getxattr, a cached lstat): ask the subvolume itself before
		 * believing what the error says about the directory.
		 */
		if (e != ENOENT && glfs_statvfs(fs, "/", &probe))
			e = ENOTCONN;
		note_open_error(le, problems, e);
		return 0;
	}
	/* on the open directory: a path getxattr would cost one more LOOKUP per subvolume */
	n = glfs_fgetxattr(fd, in->layout_key, buf, sizeof(buf));
	rc = errno;
	if (n < 0 && rc != ENODATA) {
		struct statvfs probe;

		/* as for opendir: a dead brick answers with odd errors, or with none at all */
		if (glfs_statvfs(fs, "/", &probe))
			rc = ENOTCONN;
	}
	lctl_note_layout(le, problems, buf, n, rc);
	for (;;) {
		struct sighting s = { 0 };
		char *child = NULL;
		bool gone = false;

		rc = lctl_dir_next(fd, &st, &de);
		if (rc <= 0) {
			if (rc < 0) {
				*problems |= LCTL_DIR_UNREADABLE;
				le->err = le->err ? le->err : -rc;
			}
			break;
		}
		s.name = de.d_name;
		s.subvol = (int)i;
		s.ino = st.st_ino == (ino_t)-1 ? 0 : (uint64_t)st.st_ino;
		classify(&s, &st, st.st_ino != (ino_t)-1);
		if ((s.kind == S_DIR && st.st_ino == (ino_t)-1 && mark_dirs) ||
		    s.kind == S_LINKTO || s.kind == S_PHASE1) {
			child = lctl_path_join(path, de.d_name);
			if (!child) {
				ret = -LCTL_ENOMEM;
				break;
			}
		}
		if (s.kind == S_DIR) {
			if (child)
				lctl_nogfid_mark(in->nogfid, child, i);
		} else if (s.kind == S_LINKTO || s.kind == S_PHASE1) {
			char val[512];

			n = glfs_lgetxattr(fs, child, in->linkto_key, val, sizeof(val));
			gone = !settle_dht(in, &s, path, val, n, n < 0 ? errno : 0, problems);
		}
		free(child);
		if (gone)
			continue; /* gone since the listing */
		ret = sightings_add(out, &s);
		if (ret)
			break;
	}
	glfs_closedir(fd);
	return ret;
}

static int add_entry(struct lctl_dir_report *r, const struct lctl_entry_report *e)
{
	struct lctl_entry_report *v;

	lctl_crawl_beat();
	if ((r->nentries & (r->nentries - 1)) == 0) {
		v = realloc(r->entries, (r->nentries ? r->nentries * 2 : 1) * sizeof(*v));
		if (!v)
			return -LCTL_ENOMEM;
		r->entries = v;
	}
	r->entries[r->nentries] = *e;
	r->entries[r->nentries].name = strdup(e->name);
	if (!r->entries[r->nentries].name)
		return -LCTL_ENOMEM;
	r->nentries++;
	return 0;
}

static int search(const struct lctl_layout_entry *le, size_t n, uint32_t hash)
{
	return lctl_layout_search(le, n, hash);
}

/* What lctl_verdict_end() may ask: the data copy's gfid digest, for the gfid check. */
struct data_ino_arg {
	const struct lctl_inspector *in;
	const struct lctl_dir_report *r;
	const struct lctl_entry_report *e;
};

/*
 * The direct reader reads a data file's gfid only when the check of a hashed linkto against
 * it needs it (DHT finds a different gfid behind a linkto of another file, so every lookup of
 * the name asks every subvolume, and the linkto is stale). 0 unknown.
 */
static uint64_t data_ino(void *arg)
{
	const struct data_ino_arg *a = arg;
	const struct lctl_subvol *sv = lctl_volume_subvol(a->in->vol, (size_t)a->e->cached);
	uint64_t ino = 0;
	int dfd;

	if (sv && sv->local_path) {
		dfd = lctl_open_beneath(sv->local_path, a->r->path,
					O_RDONLY | O_DIRECTORY | O_NONBLOCK);
		if (dfd >= 0) {
			ino = local_ino(dfd, a->e->name);
			close(dfd);
		}
	}
	return ino;
}

static const enum lctl_copy_kind copy_kind[] = {
	[S_DATA] = LCTL_COPY_DATA,
	[S_LINKTO] = LCTL_COPY_LINKTO,
	[S_PHASE1] = LCTL_COPY_MIGRATING,
};

/* Judge one entry from its sightings g[0..k) (all with the same name, none a directory). */
static int judge(struct lctl_inspector *in, struct lctl_dir_report *r, const struct sighting *g,
		 size_t k, const struct lctl_layout_entry *planned)
{
	struct lctl_entry_report e = { 0 };
	struct data_ino_arg da = { in, r, &e };
	struct lctl_verdict v;
	size_t j, n = r->nsubvols;
	uint32_t hash;

	r->nfiles++;
	/* a copy that could not be read: no verdict from the others (the directory is unreadable) */
	for (j = 0; j < k; j++)
		if (g[j].kind == S_UNREAD)
			return 0;
	e.name = g[0].name;
	hash = lctl_name_hash(&in->munge, g[0].name);
	e.hashed = search(r->layout, n, hash);
	e.target = search(planned, n, hash);
	lctl_verdict_init(&v, e.hashed);
	for (j = 0; j < k; j++) {
		lctl_verdict_add(&v, g[j].subvol, copy_kind[g[j].kind], g[j].target, g[j].ino);
		if (g[j].kind == S_DATA || g[j].kind == S_PHASE1) {
			e.size = g[j].size;
			e.mode = g[j].mode;
			e.nlink = g[j].nlink;
			e.ino = g[j].nlink > 1 ? g[j].ino : 0;
			r->subvol_files[g[j].subvol]++;
			r->subvol_bytes[g[j].subvol] += g[j].size;
		}
	}
	e.cached = v.ndata == 1 ? v.data : -1; /* for data_ino() */
	lctl_verdict_end(&v, data_ino, &da);
	e.state = v.state;
	e.cached = v.cached;
	e.linkto_subvol = v.linkto_subvol;
	e.linkto_target = v.linkto_target;
	if (v.ndata == 1)
		r->bytes += e.size;
	r->count[e.state]++;
	/* a drain leaves hard-linked files that are not on a leaving subvolume (migrate.c) */
	if (v.ndata == 1 && e.target >= 0 && e.target != e.cached &&
	    !(in->least_move && e.nlink > 1 &&
	      !lctl_volume_subvol(in->vol, (size_t)e.cached)->leaving)) {
		r->move_files[(size_t)e.cached * n + (size_t)e.target]++;
		r->move_bytes[(size_t)e.cached * n + (size_t)e.target] += e.size;
	}
	if (e.state != LCTL_ENTRY_PLACED || in->all_entries)
		return add_entry(r, &e);
	return 0;
}

/*
 * The layout a fix would write: the current one when it is already a complete, sane layout
 * over the active subvolumes, else the planner's.
 */
static int plan_layout(struct lctl_inspector *in, struct lctl_dir_report *r)
{
	size_t i, n = r->nsubvols;
	struct lctl_dir_planning planning = lctl_inspector_planning(in);
	bool sane =
		!(r->problems & (LCTL_DIR_MISSING | LCTL_DIR_INCOMPLETE | LCTL_DIR_HOLE |
				 LCTL_DIR_OVERLAP | LCTL_DIR_DECOMMISSIONED | LCTL_DIR_MALFORMED));
	int ret;

	if (sane || (r->notes & LCTL_DIR_NOTE_USER_LAYOUT)) {
		for (i = 0; i < n; i++)
			r->planned[i] = r->layout[i].r;
		return 0;
	}
	ret = lctl_plan_dir(&planning, r->path, r->layout, r->planned);
	if (ret == -LCTL_ENOMEM)
		return ret;
	if (ret) {
		/*
		 * No plan (a subvolume down, or none usable): the report still stands, and failing
		 * here would also keep the directory's subtree from being visited. No estimate: the
		 * planned layout is the current one (a fix refuses such a directory anyway, for the
		 * problem that made planning impossible).
		 */
		lctl_log(LCTL_LOG_VERBOSE, "no layout plan for '%s': %s", r->path,
			 lctl_strerror(ret));
		for (i = 0; i < n; i++)
			if (r->layout[i].err == 0)
				r->planned[i] = r->layout[i].r;
			else
				memset(&r->planned[i], 0, sizeof(r->planned[i]));
		return 0;
	}
	r->layout_changes = false;
	for (i = 0; i < n; i++)
		if (r->planned[i].start != r->layout[i].r.start ||
		    r->planned[i].stop != r->layout[i].r.stop)
			r->layout_changes = true;
	r->moved_fraction = lctl_plan_moved_fraction(r->layout, r->planned, n);
	return 0;
}

/*
 * A subvolume where @r's directory was not read (no gfid there, ESTALE) was not listed either:
 * the subdirectory @name that other subvolumes show must not be looked up there, or the path
 * lookup would assign gfids on the way. Pass the mark down.
 */
static void mark_below_skipped(struct lctl_inspector *in, const struct lctl_dir_report *r,
			       const char *name)
{
	char *child = NULL;
	size_t k;

	for (k = 0; k < r->nsubvols; k++)
		if (r->layout[k].err == ESTALE &&
		    (child || (child = lctl_path_join(r->path, name))))
			lctl_nogfid_mark(in->nogfid, child, k);
	free(child);
}

/* Judge the sightings @s in memory: sorted, each name's group at once. */
static int judge_listing(struct lctl_inspector *in, struct lctl_dir_report *r, struct sightings *s,
			 struct lctl_inspect_children *children,
			 const struct lctl_layout_entry *planned_le)
{
	size_t i, j;
	int ret;

	if (s->n) /* an empty directory has no array at all: qsort(NULL) is undefined */
		qsort(s->v, s->n, sizeof(*s->v), cmp_sighting);
	for (i = 0; i < s->n; i = j) {
		bool is_dir = false;

		for (j = i; j < s->n && !strcmp(s->v[j].name, s->v[i].name); j++)
			is_dir |= s->v[j].kind == S_DIR;
		if (is_dir) {
			r->nsubdirs++;
			if (children) {
				mark_below_skipped(in, r, s->v[i].name);
				ret = children->fn(children->arg, s->v[i].name);
				if (ret)
					return ret;
			}
			continue;
		}
		ret = judge(in, r, &s->v[i], j - i, planned_le);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct lctl_entry_report *)a)->name,
		      ((const struct lctl_entry_report *)b)->name);
}

/*
 * Judge a listing spilled to disk (@s->big): bucket by bucket, each loaded, sorted and judged
 * as a whole listing is (every sighting of a name is in the same bucket). The entries kept end
 * in the order of a whole listing's; subdirectories are handed on bucket by bucket.
 */
static int judge_buckets(struct lctl_inspector *in, struct lctl_dir_report *r, struct sightings *s,
			 struct lctl_inspect_children *children,
			 const struct lctl_layout_entry *planned_le)
{
	struct lctl_bigdir_rec *rec = malloc(sizeof(*rec));
	uint64_t done = 0;
	size_t b;
	FILE *f;
	int ret, got = 0;

	if (!rec)
		return -LCTL_ENOMEM;
	lctl_log(LCTL_LOG_INFO, "'%s': %" PRIu64 " sightings, judged in %zu buckets", r->path,
		 s->big.n, lctl_bigdir_nbuckets(s->big.n, lctl_bigdir_threshold()));
	while ((ret = lctl_bigdir_next(&s->big, lctl_bigdir_threshold(), &f, &b)) == 1) {
		while ((got = lctl_bigdir_read(f, rec)) == 1) {
			struct sighting x = { .name = rec->name,
					      .subvol = rec->subvol,
					      .kind = (enum sight_kind)rec->kind,
					      .target = rec->target,
					      .size = rec->size,
					      .mode = (mode_t)rec->mode,
					      .nlink = (nlink_t)rec->nlink,
					      .ino = rec->ino };

			if (rec->kind < S_DIR || rec->kind > S_UNREAD || x.subvol < 0 ||
			    (size_t)x.subvol >= r->nsubvols) {
				got = -EIO;
				break;
			}
			if (!(s->n & 4095))
				lctl_crawl_beat();
			ret = sightings_push(s, &x);
			if (ret)
				goto out;
		}
		if (got < 0)
			break;
		done += s->n;
		ret = judge_listing(in, r, s, children, planned_le);
		sightings_release(s);
		lctl_crawl_entries(done, s->seen);
		if (ret)
			goto out;
	}
	if (got < 0 || ret < 0) {
		lctl_log(LCTL_LOG_WARN, "cannot read back the listing of '%s' from disk: %s",
			 r->path, strerror(got < 0 ? -got : -ret));
		ret = ret == -ENOMEM ? -LCTL_ENOMEM : -LCTL_EIO;
		goto out;
	}
	if (r->nentries > 1)
		qsort(r->entries, r->nentries, sizeof(*r->entries), cmp_entry);
out:
	free(rec);
	return ret;
}

int lctl_inspect(struct lctl_inspector *in, const char *path, unsigned depth,
		 struct lctl_inspect_children *children, struct lctl_dir_report **out)
{
	struct lctl_dir_report *r = calloc(1, sizeof(*r));
	struct lctl_layout_entry *planned_le = NULL;
	struct sightings s = { 0 };
	size_t n = lctl_volume_nsubvols(in->vol), i;
	int ret = -LCTL_ENOMEM;

	*out = NULL;
	if (!r)
		return -LCTL_ENOMEM;
	r->path = strdup(path);
	r->depth = depth;
	r->nsubvols = n;
	r->layout = calloc(n, sizeof(*r->layout));
	r->planned = calloc(n, sizeof(*r->planned));
	r->subvol_files = calloc(n, sizeof(uint64_t));
	r->subvol_bytes = calloc(n, sizeof(uint64_t));
	r->move_files = calloc(n * n, sizeof(uint64_t));
	r->move_bytes = calloc(n * n, sizeof(uint64_t));
	planned_le = calloc(n, sizeof(*planned_le));
	if (!r->path || !r->layout || !r->planned || !r->subvol_files || !r->subvol_bytes ||
	    !r->move_files || !r->move_bytes || !planned_le)
		goto fail;
	s.threshold = lctl_bigdir_threshold();
	for (i = 0; i < n; i++) {
		ret = read_subvol(in, i, path, children != NULL, &s, &r->layout[i], &r->problems);
		if (ret)
			goto fail;
	}
	ret = lctl_judge_layout(r, lctl_volume_subvol(in->vol, 0), in->vol_commit, in->spread);
	if (ret)
		goto fail;
	ret = plan_layout(in, r);
	if (ret)
		goto fail;
	for (i = 0; i < n; i++) {
		planned_le[i].subvol = (int)i;
		planned_le[i].r = r->planned[i];
	}
	s.threshold = 0; /* (no more reading) */
	ret = s.spilling ? judge_buckets(in, r, &s, children, planned_le)
			 : judge_listing(in, r, &s, children, planned_le);
	if (ret)
		goto fail;
	sightings_release(&s);
	lctl_bigdir_end(&s.big);
	free(planned_le);
	*out = r;
	return 0;
fail:
	sightings_release(&s);
	lctl_bigdir_end(&s.big);
	free(planned_le);
	lctl_dir_report_free(r);
	return ret;
}
