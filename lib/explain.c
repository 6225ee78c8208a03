/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Explain one name: where DHT puts it, where it is, and what a lookup of it costs.
 *
 * For each DHT subvolume (in parallel, one thread each) we read the parent directory through
 * that subvolume's own graph: lstat, the raw layout xattr, then a readdirplus listing until the
 * name shows up. The name is never looked up by path unless the listing showed it with a gfid:
 * a lookup carries gfapi's "gfid-req", and a brick stores that random gfid on an entry that has
 * none (made on the brick by hand), so looking up would write. Only a linkto (or a migrating
 * file) with a gfid is then read further, for its linkto xattr. Cost: one listing of the parent
 * per subvolume, stopped at the name. (The parent and its ancestors are looked up by path, as
 * the scan does with its top directory: only a directory made on a brick by hand, without a
 * gfid, would get one there.)
 *
 * The rest is pure: the hash of the munged name, lctl_layout_search() on the on-disk layout,
 * the verdict (lctl_explain_judge(), the same rules as the scan's entry verdicts, plus a gfid
 * check of the linkto against the data file), and the fan-out rule of dht_lookup_cbk()
 * (lctl_miss_check()). Last, unless asked not to, DHT itself is asked for the hashed subvolume
 * with getxattr("dht.file.hashed-subvol.NAME") on the parent, through the DHT graph: that is
 * the only operation that goes through DHT, and it looks up the parent only.
 *
 * Memory: the struct lctl_explain and everything it points to belong to the caller.
 */
#include "internal.h"
#include "inspect.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#define HASHED_SUBVOL_KEY "dht.file.hashed-subvol."
#define EXPLAIN_NAME_MAX 255
#define EXPLAIN_PATH_MAX 4095

static const char *const sight_names[LCTL_SIGHT_COUNT] = {
	[LCTL_SIGHT_ABSENT] = "absent", [LCTL_SIGHT_DATA] = "data",
	[LCTL_SIGHT_LINKTO] = "linkto", [LCTL_SIGHT_MIGRATING] = "migrating",
	[LCTL_SIGHT_DIR] = "directory", [LCTL_SIGHT_ERROR] = "error",
};

const char *lctl_sight_name(int sight)
{
	return sight >= 0 && sight < LCTL_SIGHT_COUNT ? sight_names[sight] : NULL;
}

static const char *const kind_names[LCTL_EXPLAIN_KIND_COUNT] = {
	[LCTL_EXPLAIN_ABSENT] = "absent",
	[LCTL_EXPLAIN_FILE] = "file",
	[LCTL_EXPLAIN_DIRECTORY] = "directory",
	[LCTL_EXPLAIN_DIR_INCOMPLETE] = "directory-incomplete",
	[LCTL_EXPLAIN_TYPE_CONFLICT] = "type-conflict",
};

const char *lctl_explain_kind_name(int kind)
{
	return kind >= 0 && kind < LCTL_EXPLAIN_KIND_COUNT ? kind_names[kind] : NULL;
}

static const char *const miss_names[LCTL_MISS_REASON_COUNT] = {
	"one-subvolume",       "hole",		 "lookup-optimize-off", "lookup-unhashed-auto",
	"no-layout",	       "commit-invalid", "commit-stale",	"commit-mixed",
	"volume-commit-mixed", "commit-match",
};

const char *lctl_miss_reason_name(unsigned bit)
{
	unsigned i;

	for (i = 0; i < LCTL_MISS_REASON_COUNT; i++)
		if (bit == 1u << i)
			return miss_names[i];
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Pure logic                                                                                 */

int lctl_explain_split_path(const char *path, char **parent, char **name)
{
	char *buf, *out, *last;
	const char *p;
	size_t len;

	*parent = *name = NULL;
	if (!path || path[0] != '/')
		return -LCTL_EINVAL;
	len = strlen(path);
	if (len > EXPLAIN_PATH_MAX)
		return -LCTL_EINVAL;
	buf = malloc(len + 1);
	if (!buf)
		return -LCTL_ENOMEM;
	/* copy component by component: collapse slashes, refuse "." and ".." */
	out = buf;
	for (p = path; *p;) {
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n > EXPLAIN_NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			free(buf);
			return -LCTL_EINVAL;
		}
		*out++ = '/';
		memcpy(out, p, n);
		out += n;
		p += n;
	}
	*out = '\0';
	if (out == buf) { /* "/" itself */
		free(buf);
		return -LCTL_EINVAL;
	}
	last = strrchr(buf, '/');
	*name = strdup(last + 1);
	if (last == buf)
		*parent = strdup("/");
	else
		*parent = strndup(buf, (size_t)(last - buf));
	free(buf);
	if (!*parent || !*name) {
		free(*parent);
		free(*name);
		*parent = *name = NULL;
		return -LCTL_ENOMEM;
	}
	return 0;
}

/*
 * The commit words DHT's merge can end with for replies in any order (dht_layout_merge(), as
 * lctl_layout_merged_commit() replays it): the first word of an entry with an xattr becomes the
 * layout's, a later different one turns it into 1, and a 0 is overwritten by the next word.
 * So: no word -> none; only zeros -> 0; one non-zero value X -> X, and also 1 when a zero may
 * come after X; two different non-zero values -> always 1.
 */
struct merge_outcomes {
	bool any;      /* some entry has an xattr */
	bool several;  /* two different non-zero words */
	uint32_t x;    /* the (first) non-zero word, 0 if none */
	uint32_t v[2]; /* the possible outcomes: v[0], or either of v[0] and v[1] */
	unsigned n;
};

static void merge_outcomes(const struct lctl_layout_entry *e, size_t n, struct merge_outcomes *o)
{
	uint32_t x = 0;
	bool zero = false, several = false;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < n; i++) {
		if (e[i].err != 0)
			continue;
		o->any = true;
		if (!e[i].r.commit)
			zero = true;
		else if (!x)
			x = e[i].r.commit;
		else if (x != e[i].r.commit)
			several = true;
	}
	o->x = x;
	o->several = several;
	if (!o->any)
		return;
	if (several) {
		o->v[o->n++] = LCTL_COMMIT_INVALID;
	} else if (!x) {
		o->v[o->n++] = 0;
	} else {
		o->v[o->n++] = x;
		if (zero && x != LCTL_COMMIT_INVALID)
			o->v[o->n++] = LCTL_COMMIT_INVALID;
	}
}

int lctl_miss_check(const struct lctl_layout_entry *parent, size_t n, uint32_t hash,
		    uint32_t vol_commit, bool vol_commit_consistent, bool lookup_optimize,
		    const char *lookup_unhashed, struct lctl_miss *out)
{
	struct merge_outcomes mo;
	bool match_possible = false;
	unsigned i;

	if (!out || (!parent && n))
		return -LCTL_EINVAL;
	memset(out, 0, sizeof(*out));
	out->certain = true;
	out->lookups = 1;
	if (n <= 1) {
		out->reasons = LCTL_MISS_ONE_SUBVOL;
		return 0;
	}
	merge_outcomes(parent, n, &mo);
	if (!mo.any) {
		/* DHT heals a layout-less directory on lookup: new ranges, commit 1 */
		out->fans_out = true;
		out->reasons = LCTL_MISS_NO_LAYOUT;
		out->lookups = 1 + (unsigned)n;
		return 0;
	}
	if (lctl_layout_search(parent, n, hash) < 0) {
		/* no hashed subvolume: dht_do_fresh_lookup() asks every subvolume at once */
		out->fans_out = true;
		out->reasons = LCTL_MISS_HOLE;
		out->lookups = (unsigned)n;
		return 0;
	}
	if (!lookup_optimize) {
		out->reasons = LCTL_MISS_OPTIMIZE_OFF;
		if (lookup_unhashed && !strcasecmp(lookup_unhashed, "auto")) {
			/* skipped while the parent's search_unhashed counter is 0 */
			out->reasons |= LCTL_MISS_UNHASHED_AUTO;
			out->certain = false;
		} else {
			out->fans_out = true;
			out->lookups = 1 + (unsigned)n;
		}
		return 0;
	}
	if (!vol_commit_consistent) {
		out->reasons |= LCTL_MISS_VOLUME_MIXED;
		out->certain = false;
	}
	for (i = 0; i < mo.n; i++)
		match_possible |= mo.v[i] == vol_commit;
	if (match_possible && mo.n == 1) {
		out->reasons |= LCTL_MISS_COMMIT_MATCH;
		return 0;
	}
	out->fans_out = true;
	out->lookups = 1 + (unsigned)n;
	if (match_possible) {
		out->reasons |= LCTL_MISS_COMMIT_MIXED;
		out->certain = false;
	} else if (mo.several) {
		/* two different words: DHT merges them into 1 */
		out->reasons |= LCTL_MISS_COMMIT_MIXED;
	} else if (mo.x == LCTL_COMMIT_INVALID) {
		out->reasons |= LCTL_MISS_COMMIT_INVALID;
	} else {
		out->reasons |= LCTL_MISS_COMMIT_STALE;
	}
	return 0;
}

void lctl_explain_judge(struct lctl_explain *e)
{
	size_t i, n = e->nsubvols, ndir = 0, nerr = 0, nabsent = 0;
	struct lctl_verdict v;

	e->cached = e->linkto_subvol = e->linkto_target = -1;
	e->gfid_mismatch = false;
	e->state = LCTL_ENTRY_PLACED;
	lctl_verdict_init(&v, e->hashed);
	for (i = 0; i < n; i++) {
		const struct lctl_explain_subvol *sv = &e->subvols[i];

		switch (sv->sight) {
		case LCTL_SIGHT_ABSENT:
			nabsent++;
			break;
		case LCTL_SIGHT_MIGRATING:
			lctl_verdict_add(&v, (int)i, LCTL_COPY_MIGRATING, sv->linkto_target,
					 sv->ino);
			break;
		case LCTL_SIGHT_DATA:
			lctl_verdict_add(&v, (int)i, LCTL_COPY_DATA, -1, sv->ino);
			break;
		case LCTL_SIGHT_LINKTO:
			lctl_verdict_add(&v, (int)i, LCTL_COPY_LINKTO, sv->linkto_target, sv->ino);
			break;
		case LCTL_SIGHT_DIR:
			ndir++;
			break;
		default:
			nerr++;
			break;
		}
	}
	e->incomplete = nerr > 0;
	if (ndir) {
		if (v.ndata || v.nlinkto)
			e->kind = LCTL_EXPLAIN_TYPE_CONFLICT;
		else if (nabsent)
			e->kind = LCTL_EXPLAIN_DIR_INCOMPLETE;
		else
			e->kind = LCTL_EXPLAIN_DIRECTORY;
		e->ok = e->kind == LCTL_EXPLAIN_DIRECTORY;
		return;
	}
	/* the file verdict: the scan's rules (verdict.c) */
	if (!lctl_verdict_end(&v, NULL, NULL)) {
		e->kind = LCTL_EXPLAIN_ABSENT;
		e->ok = true;
		return;
	}
	e->kind = LCTL_EXPLAIN_FILE;
	e->state = v.state;
	e->cached = v.cached;
	e->linkto_subvol = v.linkto_subvol;
	e->linkto_target = v.linkto_target;
	e->gfid_mismatch = v.gfid_mismatch;
	e->ok = lctl_entry_state_ok((int)e->state);
}

/* ------------------------------------------------------------------------------------------ */
/* Reading the subvolumes                                                                     */

struct reader {
	struct lctl_inspector *in;
	const struct lctl_explain *e;
	size_t i;
	int ret; /* 0 or -LCTL_ENOMEM */
	pthread_t tid;
	bool started;
};

/*
 * Which subvolume a linkto value names, and the value itself without DHT's trailing NUL.
 * Return (the rule of scan and fix too, lctl_linkto_read_result()): 1 a linkto (a value longer
 * than any subvolume name, ERANGE here, is one that names no subvolume, as DHT finds no
 * subvolume by that name), 0 no linkto xattr, -LCTL_ENOMEM, or -LCTL_EIO with sv->err set (the
 * xattr could not be read).
 */
static int read_linkto(struct lctl_inspector *in, glfs_t *fs, const char *path,
		       struct lctl_explain_subvol *sv)
{
	char val[512];
	ssize_t n = glfs_lgetxattr(fs, path, in->linkto_key, val, sizeof(val) - 1);
	int e = n < 0 ? errno : 0;

	if (n < 0) {
		enum lctl_linkto_read how = lctl_linkto_read_result(n, e);

		if (how == LCTL_LINKTO_TOO_LONG)
			return 1;
		if (how == LCTL_LINKTO_NONE)
			return 0;
		sv->err = e ? e : EIO;
		return -LCTL_EIO;
	}
	val[n] = '\0';
	sv->linkto_value = strndup(val, (size_t)n);
	if (!sv->linkto_value)
		return -LCTL_ENOMEM;
	/* DHT writes the name with its NUL; a value with other bytes after it is not DHT's */
	if (n > 0 && strlen(val) == (size_t)n - 1)
		sv->linkto_target = lctl_volume_subvol_index(in->vol, val);
	return 1;
}

static void classify(struct lctl_explain_subvol *sv, const struct stat *st)
{
	sv->size = (uint64_t)st->st_size;
	sv->mode = st->st_mode;
	sv->nlink = st->st_nlink;
	sv->no_gfid = st->st_ino == (ino_t)-1;
	sv->ino = sv->no_gfid ? 0 : (uint64_t)st->st_ino;
	if (S_ISDIR(st->st_mode))
		sv->sight = LCTL_SIGHT_DIR;
	else if (lctl_may_be_dht_file(st->st_mode, !sv->no_gfid))
		/* until the linkto xattr says otherwise (lctl_copy_kind_of()) */
		sv->sight = (st->st_mode & 07777) == S_ISVTX ? LCTL_SIGHT_LINKTO
							     : LCTL_SIGHT_MIGRATING;
	else
		sv->sight = LCTL_SIGHT_DATA;
}

static void *read_subvol(void *arg)
{
	struct reader *r = arg;
	struct lctl_inspector *in = r->in;
	const struct lctl_explain *e = r->e;
	struct lctl_explain_subvol *sv = &e->subvols[r->i];
	const struct lctl_subvol *s = lctl_volume_subvol(in->vol, r->i);
	glfs_t *fs = lctl_volume_subvol_fs(in->vol, r->i);
	unsigned char buf[64];
	struct dirent de;
	struct stat st;
	glfs_fd_t *fd;
	ssize_t n;
	unsigned problems = 0;
	bool found = false;
	int err;

	sv->parent.subvol = (int)r->i;
	sv->linkto_target = -1;
	if (!s || !s->up || !fs) {
		sv->parent.err = sv->err = ENOTCONN;
		sv->sight = LCTL_SIGHT_ERROR;
		return NULL;
	}
	if (glfs_lstat(fs, e->parent, &st))
		sv->parent.err = errno ? errno : EIO;
	else if (!S_ISDIR(st.st_mode))
		sv->parent.err = ENOTDIR;
	if (sv->parent.err) {
		if (sv->parent.err == ENOENT || sv->parent.err == ENOTDIR) {
			sv->sight = LCTL_SIGHT_ABSENT; /* nothing can be there either */
		} else {
			sv->sight = LCTL_SIGHT_ERROR;
			sv->err = sv->parent.err;
		}
		return NULL;
	}
	n = glfs_lgetxattr(fs, e->parent, in->layout_key, buf, sizeof(buf));
	err = errno;
	if (n < 0 && err != ENODATA) {
		struct statvfs probe;

		/* a brick that died answers with odd errors, or none: ask the subvolume itself */
		if (glfs_statvfs(fs, "/", &probe))
			err = ENOTCONN;
	}
	lctl_note_layout(&sv->parent, &problems, buf, n, err);
	fd = glfs_opendir(fs, e->parent);
	if (!fd) {
		sv->err = errno ? errno : EIO;
		sv->sight = LCTL_SIGHT_ERROR;
		return NULL;
	}
	for (;;) {
		int rc = lctl_dir_next(fd, &st, &de);

		if (rc <= 0) {
			if (rc < 0) {
				sv->err = -rc;
				sv->sight = LCTL_SIGHT_ERROR;
			}
			break;
		}
		if (strcmp(de.d_name, e->name))
			continue;
		found = true;
		classify(sv, &st);
		break;
	}
	glfs_closedir(fd);
	if (!found)
		return NULL;
	if (sv->sight == LCTL_SIGHT_LINKTO || sv->sight == LCTL_SIGHT_MIGRATING) {
		int ret = read_linkto(in, fs, e->path, sv);

		if (ret == -LCTL_ENOMEM)
			r->ret = ret;
		else if (ret < 0)
			sv->sight = LCTL_SIGHT_ERROR;
		else if (lctl_copy_kind_of(sv->mode, true,
					   ret ? LCTL_LINKTO_VALUE : LCTL_LINKTO_NONE) ==
			 LCTL_COPY_DATA)
			sv->sight = LCTL_SIGHT_DATA; /* the user's bits, not DHT's marks */
	}
	return NULL;
}

static int read_subvols(struct lctl_inspector *in, struct lctl_explain *e)
{
	struct reader *r = calloc(e->nsubvols, sizeof(*r));
	size_t i;
	int ret = 0;

	if (!r)
		return -LCTL_ENOMEM;
	for (i = 0; i < e->nsubvols; i++) {
		r[i] = (struct reader){ .in = in, .e = e, .i = i };
		r[i].started = !pthread_create(&r[i].tid, NULL, read_subvol, &r[i]);
		if (!r[i].started)
			read_subvol(&r[i]);
	}
	for (i = 0; i < e->nsubvols; i++) {
		if (r[i].started)
			pthread_join(r[i].tid, NULL);
		if (r[i].ret)
			ret = r[i].ret;
	}
	free(r);
	return ret;
}

/* DHT's own answer: getxattr("dht.file.hashed-subvol.NAME") on the parent, through DHT. */
static int ask_dht(struct lctl_volume *vol, struct lctl_explain *e)
{
	char key[512], val[512];
	ssize_t n;

	if (strlen(HASHED_SUBVOL_KEY) + strlen(e->name) > EXPLAIN_NAME_MAX) {
		/* gfapi refuses xattr names above XATTR_NAME_MAX */
		e->dht_err = ENAMETOOLONG;
		e->dht_check = LCTL_DHT_UNAVAILABLE;
		return 0;
	}
	snprintf(key, sizeof(key), "%s%s", HASHED_SUBVOL_KEY, e->name);
	n = glfs_getxattr(lctl_volume_fs(vol), e->parent, key, val, sizeof(val) - 1);
	if (n < 0) {
		e->dht_err = errno ? errno : EIO;
		/* with a hole there is no hashed subvolume, and DHT fails the call */
		e->dht_check = e->hashed < 0 ? LCTL_DHT_AGREES : LCTL_DHT_UNAVAILABLE;
		return 0;
	}
	while (n > 0 && val[n - 1] == '\0')
		n--;
	val[n] = '\0';
	e->dht_hashed_name = strdup(val);
	if (!e->dht_hashed_name)
		return -LCTL_ENOMEM;
	e->dht_hashed = lctl_volume_subvol_index(vol, val);
	e->dht_check = e->dht_hashed >= 0 && e->dht_hashed == e->hashed ? LCTL_DHT_AGREES
									: LCTL_DHT_DISAGREES;
	return 0;
}

/* The layout mkdir would give the name, as dht_selfheal_new_directory() computes it. */
static int plan_new_dir(struct lctl_inspector *in, struct lctl_explain *e)
{
	const struct lctl_dht_options *o = lctl_volume_dht_options(in->vol);
	struct lctl_plan_in pi = {
		.n = e->nsubvols,
		.names = in->names,
		.weights = in->weights,
		.active = in->active,
	};
	size_t i;
	int ret;

	if (o->randomize_by_gfid)
		return 0; /* keyed by the gfid the new directory will get */
	for (i = 0; i < e->nsubvols; i++)
		if (in->active[i])
			break;
	if (i == e->nsubvols)
		return 0;
	e->new_dir = calloc(e->nsubvols, sizeof(*e->new_dir));
	if (!e->new_dir)
		return -LCTL_ENOMEM;
	ret = lctl_plan_gluster(&pi, &in->munge, e->path,
				o->lookup_optimize ? e->vol_commit : LCTL_COMMIT_INVALID,
				e->new_dir, NULL);
	if (ret == -LCTL_ENOMEM)
		return ret;
	e->new_dir_known = ret == 0;
	return 0;
}

int lctl_explain(struct lctl_volume *vol, const struct lctl_explain_opts *opts,
		 struct lctl_explain **out, struct lctl_error *err)
{
	const struct lctl_dht_options *o = lctl_volume_dht_options(vol);
	struct lctl_inspector in;
	struct lctl_explain *e;
	struct lctl_layout_entry *le = NULL;
	size_t i, n = lctl_volume_nsubvols(vol), up = 0, dirs = 0, notdir = 0;
	char *buf = NULL;
	const char *h;
	int ret;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	e->hashed = e->cached = e->linkto_subvol = e->linkto_target = e->dht_hashed = -1;
	ret = lctl_explain_split_path(opts->path, &e->parent, &e->name);
	if (ret) {
		lctl_explain_free(e);
		if (ret == -LCTL_ENOMEM)
			return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "not an absolute path to an entry below the volume root");
	}
	ret = lctl_inspector_init(&in, vol, LCTL_PLANNER_GLUSTER, false, err);
	if (ret) {
		lctl_explain_free(e);
		return ret;
	}
	e->nsubvols = n;
	e->subvols = calloc(n, sizeof(*e->subvols));
	le = calloc(n, sizeof(*le));
	buf = malloc(strlen(e->name) + 1);
	if (strcmp(e->parent, "/"))
		ret = asprintf(&e->path, "%s/%s", e->parent, e->name);
	else
		ret = asprintf(&e->path, "/%s", e->name);
	if (ret < 0)
		e->path = NULL;
	if (!e->subvols || !le || !buf || !e->path) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto out;
	}
	e->vol_commit = lctl_volume_commit_hash(vol, &e->vol_commit_consistent);
	e->lookup_optimize = o->lookup_optimize;
	h = lctl_munge_name(&in.munge, e->name, buf, strlen(e->name) + 1);
	e->hashed_name = strdup(h ? h : e->name);
	if (!e->hashed_name) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto out;
	}
	e->munged = strcmp(e->hashed_name, e->name) != 0;
	e->hash = lctl_dm_hash(e->hashed_name, strlen(e->hashed_name));

	ret = read_subvols(&in, e);
	if (ret) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct lctl_explain_subvol *sv = &e->subvols[i];

		le[i] = sv->parent;
		up += sv->parent.err != ENOTCONN;
		dirs += sv->parent.err != ENOTCONN && sv->parent.err != ENOENT &&
			sv->parent.err != ENOTDIR && sv->sight != LCTL_SIGHT_ERROR;
		notdir += sv->parent.err == ENOTDIR;
	}
	if (!up) {
		ret = lctl_seterr(err, LCTL_EDOWN, ENOTCONN, "no subvolume of '%s' is up",
				  lctl_volume_name(vol));
		goto out;
	}
	if (!dirs) {
		for (i = 0; i < n && e->subvols[i].sight != LCTL_SIGHT_ERROR; i++)
			;
		if (i < n)
			ret = lctl_seterr(err, LCTL_EIO, e->subvols[i].err, "cannot read '%s': %s",
					  e->parent, strerror(e->subvols[i].err));
		else
			ret = lctl_seterr(err, LCTL_EIO, notdir ? ENOTDIR : ENOENT,
					  notdir ? "'%s' is not a directory" : "no directory '%s'",
					  e->parent);
		goto out;
	}
	ret = lctl_layout_check(le, n, e->vol_commit, &e->parent_report);
	if (ret) {
		ret = lctl_seterr(err, -ret, 0, "cannot check the layout of '%s'", e->parent);
		goto out;
	}
	e->hashed = lctl_layout_search(le, n, e->hash);
	lctl_miss_check(le, n, e->hash, e->vol_commit, e->vol_commit_consistent, o->lookup_optimize,
			o->lookup_unhashed, &e->miss);
	lctl_explain_judge(e);
	if (e->kind == LCTL_EXPLAIN_ABSENT) {
		ret = plan_new_dir(&in, e);
		if (ret) {
			ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
			goto out;
		}
	}
	if (!opts->no_dht) {
		ret = ask_dht(vol, e);
		if (ret) {
			ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	free(buf);
	free(le);
	lctl_inspector_release(&in);
	if (ret) {
		lctl_explain_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

void lctl_explain_free(struct lctl_explain *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; e->subvols && i < e->nsubvols; i++)
		free(e->subvols[i].linkto_value);
	free(e->subvols);
	free(e->new_dir);
	free(e->dht_hashed_name);
	free(e->hashed_name);
	free(e->path);
	free(e->parent);
	free(e->name);
	free(e);
}
