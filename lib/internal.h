/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal helpers of liblayoutctl, shared between lib/ files only. */
#ifndef LCTL_INTERNAL_H
#define LCTL_INTERNAL_H

#include "layoutctl.h"

#include <glusterfs/api/glfs.h>
#include <sys/types.h>

#define LCTL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/**
 * lctl_seterr() - fill @err (if not NULL) and return -@code, so that callers can write
 * `return lctl_seterr(err, LCTL_EIO, errno, "cannot read '%s'", path);`.
 */
int lctl_seterr(struct lctl_error *err, int code, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** lctl_log() - send a message to the registered log callback, if any. */
void lctl_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A small growable NUL-terminated string buffer; buf is never NULL after lbuf_init. */
struct lbuf {
	char *buf;
	size_t len;
	size_t alloc;
	bool oom;    /* sticky: an append failed */
	bool secret; /* it may hold credentials: memory it gives back is zeroed first */
};
void lbuf_init(struct lbuf *b);
void lbuf_release(struct lbuf *b);
void lbuf_add(struct lbuf *b, const void *data, size_t len);
void lbuf_addf(struct lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** lbuf_detach() - hand the buffer to the caller (NULL if an append failed). */
char *lbuf_detach(struct lbuf *b);

/*
 * lctl_dir_next() - the next entry of the gfapi directory stream @fd, "." and ".." skipped.
 * Return: 1 (an entry in @de, its attributes in @st), 0 (the end of the listing) or -errno
 * (the listing failed: what was not returned yet is unknown, never "not there"). The one
 * reader of glfs_readdirplus_r() in lib/ (dirnext.c).
 */
struct dirent;
struct stat;
int lctl_dir_next(glfs_fd_t *fd, struct stat *st, struct dirent *de);

/* "dir/name" (or "/name" under the root) into buf; -1 if it does not fit. */
int lctl_path_join_to(char *buf, size_t n, const char *dir, const char *name);
/* The same, newly allocated (the caller frees it); NULL without memory. */
char *lctl_path_join(const char *dir, const char *name);

/*
 * Open @rel (relative; leading slashes ignored; "" is the root itself) beneath the directory
 * @rootfd with open flags @flags, following no symbolic link in any component (ELOOP; ENOTDIR
 * for the last one with O_DIRECTORY) and never leaving @rootfd (EXDEV). O_NOFOLLOW and
 * O_CLOEXEC are implied. -1 with errno on failure.
 * openat2() where the kernel has it, else lctl_openat_beneath_walk(), which opens one component
 * at a time (exposed for the unit tests).
 */
int lctl_openat_beneath(int rootfd, const char *rel, int flags);
int lctl_openat_beneath_walk(int rootfd, const char *rel, int flags);
/* The same beneath the directory @root (itself opened with O_NOFOLLOW). */
int lctl_open_beneath(const char *root, const char *rel, int flags);
/* lgetxattr() of the entry @name (no '/') of the open directory @dfd, not following it. */
ssize_t lctl_lgetxattr_at(int dfd, const char *name, const char *key, void *buf, size_t size);

/*
 * Zero the values of every option of @vf whose key ends in "password" or "username" (the
 * brick credentials of a trusted client volfile), once nothing needs them any more.
 */
void lctl_volfile_scrub_credentials(struct lctl_volfile *vf);

/* Per-subvolume graph of a volume: the subtree below DHT for DHT child @i. */
glfs_t *lctl_volume_subvol_fs(const struct lctl_volume *vol, size_t i);
/*
 * The graph of brick @j of subvolume @i alone (its protocol/client): opened for the bricks of a
 * leaving replica or disperse set that are not read directly (not on this host, or without the
 * volume's id there). NULL where there is none, or it could not be built. The brick may not
 * answer through it: every call can fail with ENOTCONN.
 */
glfs_t *lctl_volume_brick_fs(const struct lctl_volume *vol, size_t i, size_t j);
/*
 * Build the graph of brick @j of subvolume @i now, when it could not be built at the opening
 * (the brick was down: with lctl_open_opts.brick_health, its volfile text was kept for this).
 * Return: 0 it has one (now or already), -ENOENT none can be built here, else -errno (the
 * half-built graph freed; it may be tried again). Not thread-safe against itself or
 * lctl_volume_brick_fs() of the same brick: health.c calls both under its lock.
 */
int lctl_volume_brick_reopen(struct lctl_volume *vol, size_t i, size_t j);
/* Whether lctl_volume_brick_reopen() can build that brick's graph (it has none yet). */
bool lctl_volume_brick_reopenable(const struct lctl_volume *vol, size_t i, size_t j);
/* Whether every replica or disperse set's bricks have graphs (lctl_open_opts.brick_health). */
bool lctl_volume_brick_health(const struct lctl_volume *vol);
/* Whether the health probe may ask glusterd about bricks without a graph (not no_glusterd). */
bool lctl_volume_asks_glusterd(const struct lctl_volume *vol);
/* The DHT client graph. */
glfs_t *lctl_volume_fs(const struct lctl_volume *vol);
/*
 * Drop the name @name in the directory @dir from the DHT client's inode table, so that its
 * next lookup by path is a full one (which links a file from its hashed subvolume in a dirty
 * directory) rather than a revalidation. Return: 0 done (or not known); -1 not possible here.
 */
int lctl_volume_forget(struct lctl_volume *vol, const char *dir, const char *name);
/*
 * directlink.c: a linkto made by the hashed and the cached subvolumes' own graphs, as DHT's
 * lookup makes it in a dirty directory but without asking every subvolume first. A
 * struct lctl_link_dir is one directory's handles in those graphs, shared by the threads
 * linking its files. lctl_volume_link_direct() returns 0 (made) or -errno (not made: the
 * caller looks the name up through DHT, which makes it when it should).
 */
struct lctl_link_dir;
struct lctl_link_dir *lctl_link_dir_open(struct lctl_volume *vol, const char *path);
void lctl_link_dir_close(struct lctl_link_dir *d);
int lctl_volume_link_direct(struct lctl_link_dir *d, const char *name, int hashed, int cached);
/* The volume's own bytes on each subvolume, [nsubvols] (owned from now on; space.c), as
 * lctl_volume_measure_usage() measured them. */
void lctl_volume_set_usage(struct lctl_volume *vol, uint64_t *usage);
/* Whether the folder @path on this host carries the volume's id (glusterd's record of it). */
bool lctl_volume_brick_is_ours(const struct lctl_volume *vol, const char *path);

#endif
