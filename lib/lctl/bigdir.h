/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl, internal: a huge directory's listing in bounded pieces (lib/bigdir.c).
 *
 * An inspection whose listing passes a threshold of sightings (one name seen on one subvolume)
 * spills them to a private temporary file as it reads, then splits that file into K bucket
 * files by a seeded hash of the name, so that every sighting of one name lands in the same
 * bucket and the merge per name stays exact; then each bucket is loaded, sorted and judged in
 * turn (inspect.c). Not part of the public API (layoutctl.h does not include it); the unit
 * tests use it.
 */
#ifndef LCTL_BIGDIR_H
#define LCTL_BIGDIR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A listing of more sightings than this is done in buckets (LCTL_BIGDIR_THRESHOLD overrides). */
#define LCTL_BIGDIR_DEFAULT_THRESHOLD 50000
/* The longest name a record holds (a directory entry's name: NAME_MAX). */
#define LCTL_BIGDIR_NAME_MAX 255
/* Bucket files open at once while splitting (more buckets take more passes over the spill). */
#define LCTL_BIGDIR_OPEN_MAX 64

/* One sighting as a record: the name is @namelen bytes, any byte but '/' and NUL. */
struct lctl_bigdir_rec {
	char name[LCTL_BIGDIR_NAME_MAX + 1]; /* NUL-terminated copy */
	size_t namelen;
	int32_t subvol, kind, target;
	uint32_t mode;
	uint64_t size, nlink, ino;
};

/*
 * The threshold in sightings: LCTL_BIGDIR_THRESHOLD from the environment when it is a number
 * from 2 to LCTL_BIGDIR_DEFAULT_THRESHOLD (the tests lower it to force buckets on small trees),
 * else the default. Read once.
 */
size_t lctl_bigdir_threshold(void);

/* The bucket of a name: a hash of its bytes keyed by @seed, modulo @k (k >= 1). */
size_t lctl_bigdir_bucket_of(const char *name, size_t len, uint64_t seed, size_t k);

/* How many buckets for @n sightings: each about half the threshold, at least 2. */
size_t lctl_bigdir_nbuckets(uint64_t n, size_t threshold);

/*
 * A private temporary file for records: an unnamed one (O_TMPFILE, mode 0600) in $TMPDIR
 * (absolute, root's or ours, writable by nobody else unless sticky) or else /tmp, or where
 * the filesystem has no unnamed files one made with mkostemp() (O_EXCL, 0600) and unlinked
 * at once. NULL with errno set.
 */
FILE *lctl_bigdir_tmpfile(void);

/* Append one record (@r->name[0 .. namelen)) to @f. 0, -EINVAL (a bad name) or -errno. */
int lctl_bigdir_write(FILE *f, const struct lctl_bigdir_rec *r);
/* The next record of @f into @r. 1 a record, 0 the end, -EIO a damaged record or a read error. */
int lctl_bigdir_read(FILE *f, struct lctl_bigdir_rec *r);

struct lctl_bigdir {
	FILE *spill; /* every sighting, in listing order */
	uint64_t n;  /* records written */
	uint64_t seed;
	size_t k;			   /* buckets, chosen by the first lctl_bigdir_next() */
	size_t next;			   /* the bucket lctl_bigdir_next() gives next */
	size_t gfirst, gn;		   /* the buckets written by the last pass */
	FILE *group[LCTL_BIGDIR_OPEN_MAX]; /* their files, [gn] */
};

/* Start a spill (a random seed, an empty spill file). 0 or -errno. */
int lctl_bigdir_begin(struct lctl_bigdir *b);
/* One more sighting. 0 or -errno. */
int lctl_bigdir_put(struct lctl_bigdir *b, const struct lctl_bigdir_rec *r);
/*
 * The next bucket, read from its start with lctl_bigdir_read() into *@f (its number in *@i):
 * 1, or 0 after the last one, or -errno. The first call chooses the number of buckets
 * (lctl_bigdir_nbuckets(b->n, @threshold)); the buckets are written a group at a time, at most
 * LCTL_BIGDIR_OPEN_MAX per pass over the spill, and each is closed (its disk space given
 * back) by the call after the one that gave it.
 */
int lctl_bigdir_next(struct lctl_bigdir *b, size_t threshold, FILE **f, size_t *i);
/* Close everything (safe on a zeroed or half-made one). */
void lctl_bigdir_end(struct lctl_bigdir *b);

#endif
