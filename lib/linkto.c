/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Linkto surgery and copy checks, for the repair of a dirty directory (repair.c): remove a
 * linkto, point it at the data, remove one that carries another file's gfid, and finish a
 * migration killed after its copy (both copies compared byte for byte first; a symbolic link
 * or special file by its target or device number). Each checks, right before it changes
 * anything, that the file still is what the inspection saw, and never removes data. Also what
 * a fix does first about a stale linkto (lctl_repair_stale_fix()).
 */
#include "internal.h"

#include <glusterfs/api/glfs-handles.h>
#include "inspect.h"
#include "repairsteps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* The gfid of @path on subvolume @sv (a lookup of an existing file assigns nothing). */
int repair_raw_gfid(struct lctl_repair_ctx *rc, size_t sv, const char *path, unsigned char g[16],
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
int repair_remove_linkto(struct lctl_repair_ctx *rc, size_t sv, const char *path, int data_sv)
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
		if (data_sv < 0 || (size_t)data_sv == sv ||
		    repair_raw_gfid(rc, sv, path, g1, &st) ||
		    repair_raw_gfid(rc, (size_t)data_sv, path, g2, &dst) || memcmp(g1, g2, 16) ||
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

	ret = repair_raw_gfid(rc, sv, path, gl, &sl);
	if (!ret)
		ret = repair_raw_gfid(rc, data_sv, path, gd, &sd);
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

	ret = repair_raw_gfid(rc, sv, path, gl, &sl);
	if (!ret)
		ret = repair_raw_gfid(rc, data_sv, path, gd, &sd);
	if (ret)
		return ret;
	if (!memcmp(gl, gd, 16))
		return -EEXIST;
	return repair_remove_linkto(rc, sv, path, -1);
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
int repair_finish_copied(struct lctl_repair_ctx *rc, const char *path, int hashed, int *from)
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
	if (repair_raw_gfid(rc, (size_t)a, path, g1, &st) ||
	    repair_raw_gfid(rc, (size_t)hashed, path, g2, &st) || memcmp(g1, g2, 16))
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
	ret = repair_remove_linkto(rc, (size_t)a, path, -1);
	if (ret && ret != -ENOENT)
		return ret;
	*from = a;
	return 0;
}

/* Whether the special files @a (on @sa) and @b (on @sb) of @path say the same. */
static bool same_special(struct lctl_repair_ctx *rc, size_t sa, size_t sb, const char *path,
			 const struct stat *a, const struct stat *b)
{
	char ta[4097], tb[4097];
	ssize_t na, nb;

	if ((a->st_mode & S_IFMT) != (b->st_mode & S_IFMT))
		return false;
	if (S_ISCHR(a->st_mode) || S_ISBLK(a->st_mode))
		return a->st_rdev == b->st_rdev;
	if (!S_ISLNK(a->st_mode))
		return true; /* a FIFO or socket is its type */
	na = glfs_readlink(lctl_volume_subvol_fs(rc->in->vol, sa), path, ta, sizeof(ta));
	nb = glfs_readlink(lctl_volume_subvol_fs(rc->in->vol, sb), path, tb, sizeof(tb));
	return na >= 0 && na < (ssize_t)sizeof(ta) && na == nb && !memcmp(ta, tb, (size_t)na);
}

/*
 * DHT migrates a symbolic link, device, FIFO or socket (dht-rebalance.c,
 * migrate_special_files()) by creating it on the hashed subvolume with the source's gfid, giving
 * it the source's owner, mode and mtime, and unlinking the source. A migration killed between
 * the create and the unlink leaves the same file twice, and DHT's migration of it again refuses
 * ("file exists in destination"): clients list the name twice, and a drain could never empty
 * its brick. If the only copies are one on the hashed subvolume and one elsewhere, of one type,
 * with the same gfid and the same target (or device number), finish as DHT would have: the
 * source's owner, mode and times onto the copy on the hashed subvolume, then the source
 * unlinked, its gfid checked once more right before. A user cannot make two files with one
 * gfid: that pair is the same file.
 * Return: 0 finished (*@from: the source's subvolume); 1 not that state (nothing changed);
 * -errno on a failure.
 */
int repair_finish_special(struct lctl_repair_ctx *rc, const char *path, int hashed, int *from)
{
	size_t i, n = lctl_volume_nsubvols(rc->in->vol);
	unsigned char g1[16], g2[16];
	struct stat st, src = { 0 }, dst = { 0 };
	struct timespec ts[2];
	glfs_t *fs_src, *fs_dst;
	int a = -1;

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
		if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			return 1;
		if ((int)i == hashed) {
			dst = st;
		} else if (a < 0) {
			a = (int)i;
			src = st;
		} else {
			return 1;
		}
	}
	if (a < 0 || !dst.st_mode)
		return 1;
	fs_src = lctl_volume_subvol_fs(rc->in->vol, (size_t)a);
	fs_dst = lctl_volume_subvol_fs(rc->in->vol, (size_t)hashed);
	if (repair_raw_gfid(rc, (size_t)a, path, g1, &src) ||
	    repair_raw_gfid(rc, (size_t)hashed, path, g2, &dst) || memcmp(g1, g2, 16) ||
	    !same_special(rc, (size_t)a, (size_t)hashed, path, &src, &dst))
		return 1;
	if ((src.st_uid != dst.st_uid || src.st_gid != dst.st_gid) &&
	    glfs_lchown(fs_dst, path, src.st_uid, src.st_gid))
		return errno ? -errno : -EIO;
	/* a symbolic link's mode is always 0777 */
	if (!S_ISLNK(src.st_mode) && (src.st_mode & 07777) != (dst.st_mode & 07777) &&
	    glfs_chmod(fs_dst, path, src.st_mode & 07777))
		return errno ? -errno : -EIO;
	ts[0] = src.st_atim;
	ts[1] = src.st_mtim;
	if (glfs_lutimens(fs_dst, path, ts))
		return errno ? -errno : -EIO;
	if (repair_raw_gfid(rc, (size_t)a, path, g2, &st) || memcmp(g1, g2, 16) ||
	    (st.st_mode & S_IFMT) != (src.st_mode & S_IFMT))
		return 1;
	if (glfs_unlink(fs_src, path) && errno != ENOENT)
		return errno ? -errno : -EIO;
	*from = a;
	return 0;
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
		repair_add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "another file's gfid",
				   e->hashed, -1, 0);
	else if (ret != -EEXIST && ret != -ENOENT)
		repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
				   "cannot remove a linkto with another file's gfid", e->hashed, -1,
				   0);
}

/*
 * Step 3 for a stale linkto, before its entry is placed (lctl_repair_stale_fix()).
 * Return: true when nothing more is to be done for @e now.
 */
bool repair_stale_first(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *path,
			const struct lctl_entry_report *e)
{
	int ret;

	switch (lctl_repair_stale_fix(e, repair_on_leaving(rc, e->cached))) {
	case LCTL_STALE_REMOVE_STRAY:
		ret = e->linkto_subvol >= 0
			      ? repair_remove_linkto(rc, (size_t)e->linkto_subvol, path, e->cached)
			      : -ENOENT;
		if (ret == 0 || ret == -ENOENT)
			repair_add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "stray",
					   e->linkto_subvol, -1, 0);
		else
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
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
		ret = repair_remove_linkto(rc, (size_t)e->linkto_subvol, path, -1);
		if (ret == 0)
			repair_add_outcome(rc, rr, e, LCTL_FILE_LINKTO_REMOVED, 0, "stray",
					   e->linkto_subvol, -1, 0);
		else if (ret != -ENOENT)
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
					   "cannot remove a stray linkto", e->linkto_subvol, -1, 0);
		return false;
	case LCTL_STALE_RETARGET:
		ret = retarget_linkto(rc, (size_t)e->hashed, (size_t)e->cached, path);
		if (ret == -EXDEV) {
			drop_foreign(rc, rr, path, e);
			return false;
		}
		if (ret == 0) {
			repair_add_outcome(rc, rr, e, LCTL_FILE_LINKED, 0,
					   "its linkto named another subvolume than the data's",
					   e->cached, e->hashed, e->size);
			/*
			 * Linked now. A linkto pass is done with it; a drain leaves a hard-linked
			 * file off the leaving subvolumes where it is; else it is placed as any
			 * linked file (DHT refuses a hard-linked one: skipped, behind this linkto)
			 */
			return rc->mode == LCTL_FIX_LINKTO || (rc->drain && e->nlink > 1);
		}
		if (rc->drain && e->nlink > 1) {
			repair_add_outcome(rc, rr, e, LCTL_FILE_FAILED, -ret,
					   "cannot point its linkto at the data", e->cached,
					   e->hashed, e->size);
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
