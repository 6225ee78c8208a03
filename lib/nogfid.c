/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The (path, subvolume) pairs an inspection must not look up: a subdirectory that a listing
 * showed without a gfid there (see inspect.c). Moved out of inspect.c as it was.
 */
#include "internal.h"
#include "inspect.h"

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
