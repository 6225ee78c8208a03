/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A linkto file made on its hashed subvolume by the two subvolumes' own graphs, the way DHT's
 * lookup makes it, without the lookup.
 *
 * In a dirty directory DHT links a misplaced file from the first lookup of its name: it asks
 * the hashed subvolume (a miss), then every subvolume (dht_lookup_everywhere()), then, under
 * the namespace lock of the name on the hashed subvolume (dht_protect_namespace(): a read
 * inodelk of the directory in the domain "dht.layout.heal", a write entrylk of the name in
 * "dht.entry.sync"), looks the name up on the hashed and the cached subvolume again and makes
 * the linkto with one MKNOD (dht_linkfile_create(): mode S_ISVTX, the file's gfid as
 * "gfid-req", the linkto xattr naming the cached subvolume, as root), then gives it the file's
 * owner (dht_linkfile_attr_heal(): SETATTR). The lookup of every subvolume is the cost: on 24
 * subvolumes most of the 50 brick operations of a link (docs/benchmarks.md).
 *
 * We already know where the data is (the inspection), so lctl_volume_link_direct() sends what
 * follows the lookup, and only that, to the two subvolumes: the same locks, taken without
 * waiting (a held lock sends the name back to DHT's lookup; the directory's read inodelk is
 * taken once per directory and hashed subvolume, dir_locked()), a fresh lookup of the name on
 * the cached subvolume (its gfid, that it is data and not a linkto), the MKNOD with the same
 * xattrs, the SETATTR, the unlock. Any doubt (a lock held, an entry already on the hashed
 * subvolume, anything unexpected from GlusterFS) answers "not made" and the caller falls back
 * to DHT's lookup, which judges every case as before.
 *
 * gfapi has no call that takes locks or passes a gfid or an xattr with a MKNOD, so these go
 * through libglusterfs's syncop calls on each graph's top translator, which is reached as in
 * graphcache.c: a gfapi handle starts with its inode_t *, whose table names the graph's top.
 * The headers are libglusterfs-dev's own, so the structures are those of the installed
 * GlusterFS; gfapi's handle is private, so it is used only where graphcache.c found the tables
 * as 10.x lays them out, and dir_inode() checks that the handle's inode, its table, the
 * table's root and its translator point at each other.
 */
/*
 * libglusterfs's headers take their build's config.h for granted: the platform, and whether
 * the compiler has atomic builtins, which changes the size of gf_atomic_t and so where the
 * fields of xlator_t are (GlusterFS's configure finds them with any gcc or clang it supports).
 * dir_inode() checks at run time that the fields read agree with each other.
 */
#define GF_LINUX_HOST_OS 1
#define HAVE_ATOMIC_BUILTINS 1
#include <glusterfs/xlator.h>
#include <glusterfs/syncop.h>
#include <glusterfs/inode.h>
#include <glusterfs/lkowner.h>

#include "internal.h"
#include "volumeimpl.h"

#include <glusterfs/api/glfs-handles.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINKTO_XATTR "trusted.glusterfs.dht.linkto"
#define LAYOUT_HEAL_DOMAIN "dht.layout.heal" /* dht-common.h: DHT_LAYOUT_HEAL_DOMAIN */
#define ENTRY_SYNC_DOMAIN "dht.entry.sync"   /* dht-common.h: DHT_ENTRY_SYNC_DOMAIN */

/* libglusterfs's dict calls take their keys and values as char *, not const */
static char linkto_key[] = LINKTO_XATTR;
static char gfid_req_key[] = "gfid-req";
static char internal_key[] = GLUSTERFS_INTERNAL_FOP_KEY;
static char yes[] = "yes";

struct lctl_link_dir {
	struct lctl_volume *vol;
	char *path;
	pthread_mutex_t lock;
	struct glfs_object **parent; /* [nsubvols] the directory in that subvolume's graph */
	unsigned char *opened;	     /* [nsubvols] 1 tried, 2 usable */
	unsigned char *locked;	     /* [nsubvols] the read inodelk: 1 tried, 2 held */
	gf_lkowner_t owner;	     /* the owner of those locks */
};

static _Atomic uint64_t next_owner = 1;

/* Each lock its own owner, as DHT gives each lock frame its own (set_lk_owner_from_ptr()). */
static void new_owner(gf_lkowner_t *owner)
{
	set_lk_owner_from_uint64(owner,
				 atomic_fetch_add(&next_owner, 1) ^ ((uint64_t)getpid() << 40));
}

/* The inode_t * a gfapi handle starts with (as graphcache.c reads it). */
static inode_t *handle_inode(struct glfs_object *obj)
{
	inode_t *inode = NULL;

	memcpy(&inode, obj, sizeof(inode));
	return inode;
}

struct lctl_link_dir *lctl_link_dir_open(struct lctl_volume *vol, const char *path)
{
	struct lctl_link_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->vol = vol;
	d->path = strdup(path);
	d->parent = calloc(vol->nsubvols, sizeof(*d->parent));
	d->opened = calloc(vol->nsubvols, 1);
	d->locked = calloc(vol->nsubvols, 1);
	if (!d->path || !d->parent || !d->opened || !d->locked ||
	    pthread_mutex_init(&d->lock, NULL)) {
		free(d->path);
		free(d->parent);
		free(d->opened);
		free(d->locked);
		free(d);
		return NULL;
	}
	new_owner(&d->owner);
	return d;
}

static void dir_unlock(struct lctl_link_dir *d, size_t i);

void lctl_link_dir_close(struct lctl_link_dir *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->vol->nsubvols; i++) {
		if (d->locked[i] == 2)
			dir_unlock(d, i);
		if (d->parent[i])
			glfs_h_close(d->parent[i]);
	}
	pthread_mutex_destroy(&d->lock);
	free(d->path);
	free(d->parent);
	free(d->opened);
	free(d->locked);
	free(d);
}

/*
 * The directory's inode in subvolume @i's graph, opened once per directory; NULL when that
 * graph is missing or its handles do not look as expected.
 */
static inode_t *dir_inode(struct lctl_link_dir *d, size_t i)
{
	struct lctl_volume *vol = d->vol;
	inode_t *inode = NULL;

	pthread_mutex_lock(&d->lock);
	if (!d->opened[i]) {
		glfs_t *fs = vol->subfs ? vol->subfs[i] : NULL;
		struct glfs_object *dir = NULL;
		inode_table_t *t;
		inode_t *dinode;
		struct stat st;

		d->opened[i] = 1;
		/* only where graphcache.c found gfapi's handles and tables as 10.x lays them out */
		if (fs && vol->subvols[i].up && vol->itable_known)
			dir = glfs_h_lookupat(fs, NULL, d->path, &st, 0);
		dinode = dir ? handle_inode(dir) : NULL;
		t = dinode ? dinode->table : NULL;
		/* the handle, its inode, their table, its root and its translator agree */
		if (dir && S_ISDIR(st.st_mode) && t && t->root && t->root->table == t &&
		    __is_root_gfid(t->root->gfid) && (dinode == t->root) == !strcmp(d->path, "/") &&
		    t->xl && t->xl->itable == t && t->xl->ctx) {
			d->parent[i] = dir;
			d->opened[i] = 2;
			dir = NULL;
		}
		if (dir)
			glfs_h_close(dir);
	}
	if (d->opened[i] == 2)
		inode = handle_inode(d->parent[i]);
	pthread_mutex_unlock(&d->lock);
	return inode;
}

/* A loc_t for @name in the directory @pinode (a new inode of its table), or for the directory. */
static int make_loc(loc_t *loc, inode_t *pinode, const char *dirpath, const char *name)
{
	char *path = NULL;

	memset(loc, 0, sizeof(*loc));
	if (!name) {
		loc->inode = inode_ref(pinode);
		gf_uuid_copy(loc->gfid, pinode->gfid);
		loc->path = gf_strdup(dirpath);
		return loc->path ? 0 : -ENOMEM;
	}
	loc->parent = inode_ref(pinode);
	gf_uuid_copy(loc->pargfid, pinode->gfid);
	loc->inode = inode_new(pinode->table);
	if (gf_asprintf(&path, "%s/%s", strcmp(dirpath, "/") ? dirpath : "", name) < 0)
		path = NULL;
	loc->path = path;
	if (!loc->inode || !path) {
		loc_wipe(loc);
		return -ENOMEM;
	}
	loc->name = strrchr(path, '/') + 1;
	return 0;
}

/* The lock owner of this thread's next fops (libglusterfs's per-thread syncopctx). */
static void use_owner(const gf_lkowner_t *owner)
{
	gf_lkowner_t o = *owner;

	syncopctx_setfslkowner(&o);
}

/* Back to the owner every frame has by default (none), for the thread's other gfapi calls. */
static void clear_owner(void)
{
	gf_lkowner_t none;

	memset(&none, 0, sizeof(none));
	syncopctx_setfslkowner(&none);
}

/* The read inodelk of the directory on subvolume @i, cmd F_SETLK (@type F_RDLCK or F_UNLCK). */
static int dir_inodelk(struct lctl_link_dir *d, size_t i, short type)
{
	inode_t *pinode = handle_inode(d->parent[i]);
	xlator_t *xl = pinode->table->xl, *old_this = THIS;
	struct gf_flock flock;
	loc_t loc;
	int ret;

	THIS = xl;
	use_owner(&d->owner);
	ret = make_loc(&loc, pinode, d->path, NULL);
	if (!ret) {
		memset(&flock, 0, sizeof(flock));
		flock.l_type = type;
		flock.l_whence = SEEK_SET;
		ret = syncop_inodelk(xl, LAYOUT_HEAL_DOMAIN, &loc, F_SETLK, &flock, NULL, NULL);
	}
	loc_wipe(&loc);
	clear_owner();
	THIS = old_this;
	return ret;
}

/*
 * Whether this directory's read inodelk is held on the hashed subvolume @i, taken at its first
 * link there and held until lctl_link_dir_close(): DHT takes it for each link, but a read lock
 * held across a directory's links excludes the same writers (a layout heal, DHT's rmdir), and
 * costs two brick operations per directory instead of per file.
 */
static bool dir_locked(struct lctl_link_dir *d, size_t i)
{
	bool held;

	pthread_mutex_lock(&d->lock);
	if (!d->locked[i] && d->opened[i] == 2)
		d->locked[i] = dir_inodelk(d, i, F_RDLCK) ? 1 : 2;
	held = d->locked[i] == 2;
	pthread_mutex_unlock(&d->lock);
	return held;
}

static void dir_unlock(struct lctl_link_dir *d, size_t i)
{
	int ret = dir_inodelk(d, i, F_UNLCK);

	if (ret)
		lctl_log(LCTL_LOG_DEBUG, "%s: its inodelk on %s stays until we disconnect: %s",
			 d->path, d->vol->subvols[i].name, strerror(-ret));
	d->locked[i] = 1;
}

/*
 * Make the linkto of @name (in @d's directory) on subvolume @hashed naming @cached, where the
 * inspection found its data. Return: 0 made; -errno not made (a held lock EAGAIN, an entry on
 * the hashed subvolume EEXIST, no data file under that name on @cached ENOENT, ...): the
 * caller looks the name up through DHT instead, which makes the linkto when it should.
 */
int lctl_volume_link_direct(struct lctl_link_dir *d, const char *name, int hashed, int cached)
{
	struct lctl_volume *vol = d->vol;
	inode_t *ph, *pc;
	xlator_t *xh, *xc, *old_this;
	loc_t dirloc, cloc, hloc;
	gf_lkowner_t owner;
	struct iatt ci, pi, hi;
	dict_t *req = NULL, *rsp = NULL, *mk = NULL;
	bool entrylocked = false;
	int ret;

	if (hashed < 0 || cached < 0 || hashed == cached || (size_t)hashed >= vol->nsubvols ||
	    (size_t)cached >= vol->nsubvols || strchr(name, '/'))
		return -EINVAL;
	ph = dir_inode(d, hashed);
	pc = dir_inode(d, cached);
	if (!ph || !pc)
		return -ENOTSUP;
	if (!dir_locked(d, (size_t)hashed))
		return -EAGAIN;
	xh = ph->table->xl;
	xc = pc->table->xl;
	memset(&dirloc, 0, sizeof(dirloc));
	memset(&cloc, 0, sizeof(cloc));
	memset(&hloc, 0, sizeof(hloc));
	old_this = THIS;
	THIS = xh;
	new_owner(&owner);
	use_owner(&owner);

	ret = make_loc(&dirloc, ph, d->path, NULL);
	if (ret)
		goto out;
	ret = syncop_entrylk(xh, ENTRY_SYNC_DOMAIN, &dirloc, name, ENTRYLK_LOCK_NB, ENTRYLK_WRLCK,
			     NULL, NULL);
	if (ret)
		goto out;
	entrylocked = true;

	/* under the lock, as dht_linkfile_create_lookup_cbk(): the data still there, and ours */
	THIS = xc;
	ret = make_loc(&cloc, pc, d->path, name);
	req = dict_new();
	if (!ret && (!req || dict_set_uint32(req, linkto_key, 256)))
		ret = -ENOMEM;
	if (!ret)
		ret = syncop_lookup(xc, &cloc, &ci, &pi, req, &rsp);
	if (!ret && (ci.ia_type == IA_IFDIR || gf_uuid_is_null(ci.ia_gfid) ||
		     (rsp && dict_get(rsp, linkto_key))))
		ret = -ENOENT; /* not a data file: DHT's lookup judges it */
	THIS = xh;
	if (ret)
		goto out;

	ret = make_loc(&hloc, ph, d->path, name);
	mk = dict_new();
	if (!ret && (!mk || dict_set_gfuuid(mk, gfid_req_key, ci.ia_gfid, true) ||
		     dict_set_str(mk, internal_key, yes) ||
		     dict_set_dynstr_with_alloc(mk, linkto_key, vol->subvols[cached].name)))
		ret = -ENOMEM;
	if (!ret)
		ret = syncop_mknod(xh, &hloc, S_IFREG | DHT_LINKFILE_MODE, 0, &hi, mk, NULL);
	if (ret)
		goto out;
	if (ci.ia_uid || ci.ia_gid) {
		/* dht_linkfile_attr_heal(): the linkto gets the file's owner; DHT ignores a failure */
		struct iatt want;

		memset(&want, 0, sizeof(want));
		want.ia_uid = ci.ia_uid;
		want.ia_gid = ci.ia_gid;
		gf_uuid_copy(hloc.gfid, ci.ia_gfid);
		if (syncop_setattr(xh, &hloc, &want, GF_SET_ATTR_UID | GF_SET_ATTR_GID, NULL, NULL,
				   NULL, NULL))
			lctl_log(LCTL_LOG_DEBUG, "%s/%s: the linkto keeps root's owner", d->path,
				 name);
	}
out:
	if (entrylocked)
		syncop_entrylk(xh, ENTRY_SYNC_DOMAIN, &dirloc, name, ENTRYLK_UNLOCK, ENTRYLK_WRLCK,
			       NULL, NULL);
	if (req)
		dict_unref(req);
	if (rsp)
		dict_unref(rsp);
	if (mk)
		dict_unref(mk);
	loc_wipe(&hloc);
	loc_wipe(&cloc);
	loc_wipe(&dirloc);
	clear_owner();
	THIS = old_this;
	return ret;
}
