/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The (path, subvolume) pairs an inspection must not look up: a subdirectory that a listing
 * showed without a gfid there (see inspect.c), and those a walk that starts below the root
 * finds on its way down (lctl_nogfid_guard_start()).
 */
#include "internal.h"
#include "nogfid.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NOGFID_BUCKETS 1024

struct nogfid_mark {
	struct nogfid_mark *next;
	size_t subvol;
	char path[];
};

/*
 * (path, subvolume) pairs not to look up, kept for the whole run: a fix inspects a directory
 * several times, and each time must skip the same subvolumes. A hash table, as a tree copied
 * onto a brick by hand can be large; allocated with the first mark.
 */
struct lctl_nogfid_marks {
	pthread_mutex_t lock;
	struct nogfid_mark **bucket; /* locked; NULL until the first mark */
};

static size_t nogfid_hash(const char *path, size_t subvol)
{
	size_t h = 2166136261u ^ subvol;

	while (*path)
		h = (h ^ (unsigned char)*path++) * 16777619u;
	return h % NOGFID_BUCKETS;
}

/* Remember that @path has no gfid on @subvol (best effort: without memory it is looked up). */
void lctl_nogfid_mark(struct lctl_nogfid_marks *m, const char *path, size_t subvol)
{
	size_t h = nogfid_hash(path, subvol), len = strlen(path) + 1;
	struct nogfid_mark *x = NULL;

	pthread_mutex_lock(&m->lock);
	if (!m->bucket)
		m->bucket = calloc(NOGFID_BUCKETS, sizeof(*m->bucket));
	if (m->bucket) {
		for (x = m->bucket[h]; x; x = x->next)
			if (x->subvol == subvol && !strcmp(x->path, path))
				break;
		if (!x && (x = malloc(sizeof(*x) + len))) {
			x->subvol = subvol;
			memcpy(x->path, path, len);
			x->next = m->bucket[h];
			m->bucket[h] = x;
		}
	}
	pthread_mutex_unlock(&m->lock);
}

/* Was @path marked gfid-less on @subvol? */
bool lctl_nogfid_marked(struct lctl_nogfid_marks *m, const char *path, size_t subvol)
{
	struct nogfid_mark *x = NULL;

	pthread_mutex_lock(&m->lock);
	if (m->bucket)
		for (x = m->bucket[nogfid_hash(path, subvol)]; x; x = x->next)
			if (x->subvol == subvol && !strcmp(x->path, path))
				break;
	pthread_mutex_unlock(&m->lock);
	return x != NULL;
}

void lctl_nogfid_release(struct lctl_nogfid_marks *m)
{
	struct nogfid_mark *x;
	size_t b;

	for (b = 0; m->bucket && b < NOGFID_BUCKETS; b++)
		while ((x = m->bucket[b])) {
			m->bucket[b] = x->next;
			free(x);
		}
	free(m->bucket);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

struct lctl_nogfid_marks *lctl_nogfid_new(void)
{
	struct lctl_nogfid_marks *m = calloc(1, sizeof(*m));

	if (m)
		pthread_mutex_init(&m->lock, NULL);
	return m;
}

/* On subvolume @i, is @name in directory @dir (known to have a gfid)? 0 no, 1 yes, 2 yes but
 * without a gfid, -1 cannot tell. */
static int has_entry(glfs_t *fs, const char *dir, const char *name)
{
	struct dirent de;
	struct stat st;
	glfs_fd_t *fd = glfs_opendir(fs, dir);
	int found = 0, rc;

	if (!fd)
		return errno == ENOENT ? 0 : -1;
	while ((rc = lctl_dir_next(fd, &st, &de)) > 0) {
		if (!strcmp(de.d_name, name)) {
			found = st.st_ino == (ino_t)-1 ? 2 : 1;
			break;
		}
	}
	glfs_closedir(fd);
	/* a listing that failed before the name was seen cannot tell */
	return rc < 0 ? -1 : found;
}

int lctl_nogfid_guard_start(struct lctl_nogfid_marks *m, struct lctl_volume *vol, const char *path)
{
	size_t i, n = lctl_volume_nsubvols(vol), len;
	char dir[4096], next[4096], name[NAME_MAX + 1];
	const char *p, *q;
	int found;

	for (i = 0; i < n; i++) {
		glfs_t *fs = lctl_volume_subvol_fs(vol, i);

		if (!lctl_volume_subvol(vol, i)->up || !fs)
			continue;
		dir[0] = '/';
		dir[1] = '\0';
		for (p = path; *p; p = q) {
			while (*p == '/')
				p++;
			q = p + strcspn(p, "/");
			len = (size_t)(q - p);
			if (!len)
				break;
			if (len > NAME_MAX)
				return -LCTL_EINVAL;
			memcpy(name, p, len);
			name[len] = '\0';
			found = has_entry(fs, dir, name);
			if (found == 2)
				lctl_nogfid_mark(m, path, i);
			if (found != 1)
				break; /* marked, absent (a lookup fails harmlessly) or unknown */
			if (lctl_path_join_to(next, sizeof(next), dir, name))
				return -LCTL_EINVAL;
			memcpy(dir, next, sizeof(dir));
		}
	}
	return 0;
}
