/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every gfapi graph of a volume (its DHT mount and the subvolumes' own, subgraphs.c) is
 * given once it is up, below both: a smaller inode cache, the volume commit hash its root
 * carries, and a name forgotten from the cache on request.
 */
#include "internal.h"
#include "volumeimpl.h"

#include <glusterfs/api/glfs-handles.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * gfapi gives every graph an inode table that keeps up to 131072 unused inodes
 * (inode_table_new(131072, ...) in glfs_first_lookup()), so a crawl's memory grows with the
 * number of files it has listed. Nothing in the public API changes that limit; libglusterfs
 * exports inode_table_set_lru_limit(), and the table is reachable from the root's handle:
 * struct glfs_object starts with its inode_t *, and inode_t with its table. Those layouts are
 * internal, so we only act when the table looks exactly like 10.x's: a prefix whose
 * lru_limit field holds the 131072 gfapi put there. Otherwise we leave it alone.
 */
struct itable_prefix {
	pthread_mutex_t lock;
	size_t dentry_hashsize;
	size_t inode_hashsize;
	char *name;
	void *root;
	void *xl;
	uint32_t lru_limit;
};

extern void inode_table_set_lru_limit(void *table, uint32_t lru_limit);
extern void *inode_grep(void *table, void *parent, const char *name);
extern void inode_unlink(void *inode, void *parent, const char *name);
extern void *inode_unref(void *inode);

/* The inode_t * a gfapi handle starts with. */
static void *handle_inode(struct glfs_object *obj)
{
	void *inode = NULL;

	memcpy(&inode, obj, sizeof(inode));
	return inode;
}

/* The table of an inode_t (its first field). */
static struct itable_prefix *inode_itable(void *inode)
{
	struct itable_prefix *t = NULL;

	if (inode)
		memcpy(&t, inode, sizeof(t));
	return t;
}

/* Return: whether the table was 10.x's and got @limit. */
bool volume_shrink_inode_cache(glfs_t *fs, uint32_t limit)
{
	struct glfs_object *root;
	struct itable_prefix *t;
	struct stat st;
	void *inode;
	bool done = false;

	root = glfs_h_lookupat(fs, NULL, "/", &st, 0);
	if (!root)
		return false;
	inode = handle_inode(root);
	t = inode_itable(inode);
	if (t && t->lru_limit == 131072 && t->root == inode) {
		inode_table_set_lru_limit(t, limit);
		done = true;
	} else {
		lctl_log(LCTL_LOG_DEBUG, "gfapi inode table not as expected: cache size unchanged");
	}
	glfs_h_close(root);
	return done;
}

/*
 * A lookup by path of a name our DHT client knows only revalidates the inode, on its data's
 * subvolume (dht_lookup() -> dht_do_revalidate()): it never makes a linkto on the hashed one.
 * Only a lookup of a name the client does not know (gfapi's glfs_resolve_component(): no
 * dentry, a new inode) runs DHT's full lookup, which in a dirty directory links the file from
 * its hashed subvolume. So when a linkto we made was removed behind our back (a client with
 * an old layout took it for stale), the name is dropped from the inode table first: libglusterfs
 * exports inode_grep() and inode_unlink(), and the table is reached as in volume_shrink_inode_cache(),
 * only when it is the one whose limit we set (the same table as the root's, whose root it is).
 */
int lctl_volume_forget(struct lctl_volume *vol, const char *dir, const char *name)
{
	struct glfs_object *root, *parent = NULL;
	struct itable_prefix *t;
	void *pinode, *inode;
	struct stat st;
	int ret = -1;

	if (!vol->itable_known || !vol->fs)
		return -1;
	root = glfs_h_lookupat(vol->fs, NULL, "/", &st, 0);
	if (!root)
		return -1;
	t = inode_itable(handle_inode(root));
	parent = glfs_h_lookupat(vol->fs, NULL, dir, &st, 0);
	if (!parent || !S_ISDIR(st.st_mode) || !t || t->root != handle_inode(root))
		goto out;
	pinode = handle_inode(parent);
	if (!pinode || inode_itable(pinode) != t)
		goto out;
	inode = inode_grep(t, pinode, name);
	if (inode) {
		inode_unlink(inode, pinode, name);
		inode_unref(inode);
	}
	ret = 0;
out:
	if (parent)
		glfs_h_close(parent);
	glfs_h_close(root);
	return ret;
}

/* The volume commit hash on the root of subvolume @sv (graph @fs), into @sv. */
void volume_read_root_commit(struct lctl_subvol *sv, glfs_t *fs)
{
	char val[64];
	ssize_t n =
		glfs_getxattr(fs, "/", "trusted.glusterfs.dht.commithash", val, sizeof(val) - 1);

	sv->has_commit = false;
	sv->commit = 0;
	if (n > 0) {
		unsigned long v;
		uint32_t strict;

		/*
		 * Read it as DHT does (dict_get_uint32(): strtoul(s, NULL, 0)), so that we judge
		 * directories clean or not by the value clients use: "010" is 8 and "0x10" 16 to
		 * DHT, and garbage is 0. Only glusterd's own form ("N\0", decimal) is quiet.
		 */
		val[n] = '\0';
		errno = 0;
		v = strtoul(val, NULL, 0);
		if (!errno && v <= UINT32_MAX) {
			sv->has_commit = true;
			sv->commit = (uint32_t)v;
		}
		if (lctl_commithash_decode(val, (size_t)n, &strict) || strict != sv->commit ||
		    !sv->has_commit)
			lctl_log(LCTL_LOG_WARN,
				 "subvolume %s: the volume commit hash is not a plain decimal number; "
				 "read as %u, as DHT reads it",
				 sv->name, sv->has_commit ? sv->commit : 0);
	}
}

void lctl_volume_reread_commit(struct lctl_volume *vol)
{
	size_t i;

	for (i = 0; i < vol->nsubvols; i++)
		if (vol->subvols[i].up && vol->subfs[i])
			volume_read_root_commit(&vol->subvols[i], vol->subfs[i]);
}
