/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a drain leaves behind: every entry that is not a directory on the leaving subvolumes
 * (lctl_subvol.leaving), found by walking them from their own view, never through DHT.
 *
 * A subvolume is walked through its own gfapi graph (the brick, or the replica or disperse
 * set, as a client of it sees it; posix hides .glusterfs in the root). Each brick of a replica
 * or disperse set is also read by its own view, since the set's view is not each brick's: AFR
 * lists a directory from one child, and a file waiting for a heal on another brick (made while
 * the first was down) is not in it, so a set could look empty while one brick still holds a
 * file. A brick that is on this host and carries the volume's id is read directly, folder by
 * folder, with openat(O_NOFOLLOW) beneath the brick root: that is what `remove-brick`
 * abandons; any other through a graph of its protocol/client alone (lctl_volume_brick_fs()).
 * A brick that cannot be read (no graph, down, unreachable) makes the answer "cannot tell"
 * (@err), never "empty". Skipped at the root only: posix's .glusterfs, by its exact name.
 * Directories may stay: GlusterFS's remove-brick leaves them too.
 *
 * Single-threaded; the result belongs to the caller (lctl_drain_left_release()).
 */
#include "internal.h"
#include "inspect.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories deeper than this are reported unreadable: the walk proves nothing there. */
#define DRAIN_MAX_DEPTH 256

/*
 * The one folder of a brick's root that holds no data of its own: posix's .glusterfs (gfid
 * links to the files found elsewhere, hidden from clients). Nothing else is skipped, whatever
 * its name: a .trashcan (the trash feature's, or a user's where it is off) and AFR's
 * .glusterfs-anonymous-inode-UUID (inodes waiting for a heal, or a user's folder on a volume
 * without AFR) are walked like any folder, and a file in them is left on the brick.
 */
static bool internal_name(const char *name)
{
	return !strcmp(name, ".glusterfs");
}

static void note_left(struct lctl_drain_left *out, const char *where, const char *path,
		      uint64_t size, bool brick)
{
	if (brick) {
		out->brick_entries++;
	} else {
		out->entries++;
		out->bytes += size;
	}
	if (out->nsamples < LCTL_DRAIN_SAMPLES &&
	    asprintf(&out->samples[out->nsamples], "%s:%s", where, path) >= 0)
		out->nsamples++;
}

static void note_unreadable(struct lctl_drain_left *out, const char *where, const char *path, int e)
{
	if (!out->err) {
		out->err = e ? e : EIO;
		snprintf(out->err_path, sizeof(out->err_path), "%.200s:%.300s", where, path);
	}
}

/* A gfapi graph: the subvolume's own, or one brick's (@brick: counted as brick entries). */
static void walk_gfapi(glfs_t *fs, const char *where, const char *path, unsigned depth, bool brick,
		       struct lctl_drain_left *out)
{
	struct dirent de;
	struct stat st;
	glfs_fd_t *fd;
	char child[4096];
	int rc;

	if (depth > DRAIN_MAX_DEPTH) {
		note_unreadable(out, where, path, ELOOP);
		return;
	}
	fd = glfs_opendir(fs, path);
	if (!fd) {
		note_unreadable(out, where, path, errno);
		return;
	}
	/* a listing that fails part of the way proves nothing about the rest: unreadable */
	while ((rc = lctl_dir_next(fd, &st, &de)) > 0) {
		if (depth == 0 && internal_name(de.d_name))
			continue;
		if (lctl_path_join_to(child, sizeof(child), path, de.d_name)) {
			note_unreadable(out, where, path, ENAMETOOLONG);
			continue;
		}
		if (S_ISDIR(st.st_mode) || (de.d_type == DT_DIR && st.st_mode == 0))
			walk_gfapi(fs, where, child, depth + 1, brick, out);
		else
			note_left(out, where, child, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0,
				  brick);
	}
	if (rc < 0)
		note_unreadable(out, where, path, -rc);
	glfs_closedir(fd);
}

/* A brick folder on this host, read directly; @dfd is closed here. */
static void walk_dir(int dfd, const char *where, const char *path, unsigned depth,
		     struct lctl_drain_left *out)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct stat st;
	char child[4096];

	if (!d) {
		note_unreadable(out, where, path, errno);
		close(dfd);
		return;
	}
	if (depth > DRAIN_MAX_DEPTH) {
		note_unreadable(out, where, path, ELOOP);
		closedir(d);
		return;
	}
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (depth == 0 && internal_name(de->d_name))
			continue;
		if (lctl_path_join_to(child, sizeof(child), path, de->d_name)) {
			note_unreadable(out, where, path, ENAMETOOLONG);
			continue;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT)
				note_unreadable(out, where, child, errno);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd < 0)
				note_unreadable(out, where, child, errno);
			else
				walk_dir(cfd, where, child, depth + 1, out);
			continue;
		}
		note_left(out, where, child, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0, true);
	}
	if (errno)
		note_unreadable(out, where, path, errno);
	closedir(d);
}

int lctl_drain_check(struct lctl_volume *vol, struct lctl_drain_left *out, struct lctl_error *err)
{
	size_t i, j, n = lctl_volume_nsubvols(vol);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
		glfs_t *fs = lctl_volume_subvol_fs(vol, i);

		if (!sv->leaving)
			continue;
		out->nsubvols++;
		if (!fs || !sv->up) {
			note_unreadable(out, sv->name, "/", ENOTCONN);
			continue;
		}
		walk_gfapi(fs, sv->name, "/", 0, false, out);
		for (j = 0; j < sv->nbricks; j++) {
			const struct lctl_brick *b = &sv->bricks[j];
			char where[4400];
			glfs_t *bfs;
			int fd;

			snprintf(where, sizeof(where), "%s:%s", b->host ? b->host : "",
				 b->path ? b->path : "");
			if (!b->mine || !b->path || !lctl_volume_brick_is_ours(vol, b->path)) {
				/* a lone brick's view is its subvolume's, walked above */
				if (sv->kind == LCTL_SUBVOL_BRICK && sv->nbricks == 1)
					continue;
				bfs = lctl_volume_brick_fs(vol, i, j);
				if (!bfs) {
					note_unreadable(out, where, "/", ENOTCONN);
					continue;
				}
				out->bricks_gfapi++;
				walk_gfapi(bfs, where, "/", 0, true, out);
				continue;
			}
			fd = open(b->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				note_unreadable(out, where, "/", errno);
				continue;
			}
			out->bricks_read++;
			walk_dir(fd, where, "/", 0, out);
		}
	}
	if (!out->nsubvols)
		return lctl_seterr(err, LCTL_EINVAL, 0, "no subvolume of '%s' is being drained",
				   lctl_volume_name(vol));
	return 0;
}

void lctl_drain_left_release(struct lctl_drain_left *l)
{
	while (l->nsamples)
		free(l->samples[--l->nsamples]);
}
