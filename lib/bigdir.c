/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A huge directory's sightings on disk, in buckets by name (lctl/bigdir.h; inspect.c uses it).
 *
 * Files: private temporary files, never a name another user could guess and open first: an
 * unnamed file (O_TMPFILE, mode 0600) in $TMPDIR (when absolute) or /tmp, or where the
 * filesystem has no O_TMPFILE one made by mkostemp() (O_EXCL, 0600) and unlinked at once.
 * Either way it is gone with its last descriptor, a killed run leaves nothing behind.
 *
 * Records: a fixed header (the name's length, subvolume, kind, linkto target, mode, size,
 * links, gfid digest) and then the name's bytes, no terminator: a name holds any byte but '/'
 * and NUL (a newline, 0xff...), so nothing is split on a separator. A record read back is
 * checked: a length of 0 or more than NAME_MAX, a NUL or '/' in the name, or a short read is a
 * damaged file (-EIO), never a name cut somewhere else.
 *
 * Buckets: FNV-1a over the name's bytes from an offset keyed by a random seed per spill, mixed
 * at the end, modulo K. The seed keeps anyone who can create names from choosing names that
 * all fall into one bucket (which would make it as big as the directory); every sighting of
 * one name still lands in the same bucket, which is all the merge needs.
 */
#include "internal.h"
#include "crawl.h"
#include "lctl/bigdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The record as it is on disk (native byte order: the file lives and dies with the process). */
struct rec_hdr {
	uint32_t namelen;
	int32_t subvol, kind, target;
	uint32_t mode, pad;
	uint64_t size, nlink, ino;
};

size_t lctl_bigdir_threshold(void)
{
	static _Atomic size_t cached;
	const char *v;
	char *end;
	unsigned long long t;

	if (atomic_load(&cached))
		return atomic_load(&cached);
	v = getenv("LCTL_BIGDIR_THRESHOLD");
	t = LCTL_BIGDIR_DEFAULT_THRESHOLD;
	if (v && *v) {
		errno = 0;
		t = strtoull(v, &end, 10);
		if (errno || *end || t < 2 || t > LCTL_BIGDIR_DEFAULT_THRESHOLD)
			t = LCTL_BIGDIR_DEFAULT_THRESHOLD;
	}
	atomic_store(&cached, (size_t)t); /* every thread computes the same value */
	return (size_t)t;
}

size_t lctl_bigdir_bucket_of(const char *name, size_t len, uint64_t seed, size_t k)
{
	uint64_t h = 14695981039346656037ull ^ seed;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	/* splitmix64's finalizer: the low bits depend on every byte */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return k > 1 ? (size_t)(h % k) : 0;
}

size_t lctl_bigdir_nbuckets(uint64_t n, size_t threshold)
{
	uint64_t half = threshold > 2 ? threshold / 2 : 1, k = (n + half - 1) / half;

	return k < 2 ? 2 : (size_t)k;
}

/*
 * The folder for a spill, open (O_PATH): $TMPDIR when it is one where nobody but root (or
 * we) can take our file from under us (root's or ours, writable by nobody else unless
 * sticky, as the state directory's parents must be), else /tmp. Every name, size and mode
 * of a user's directory goes there.
 */
static int spill_dir(const char **name)
{
	const char *t = getenv("TMPDIR");
	struct stat st;
	int dfd;

	if (t && t[0] == '/') {
		dfd = open(t, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0 && !fstat(dfd, &st) && (st.st_uid == 0 || st.st_uid == geteuid()) &&
		    (!(st.st_mode & 022) || (st.st_mode & S_ISVTX))) {
			*name = t;
			return dfd;
		}
		if (dfd >= 0)
			close(dfd);
	}
	*name = "/tmp";
	return open(*name, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

FILE *lctl_bigdir_tmpfile(void)
{
	const char *t;
	char path[4096];
	FILE *f;
	int dfd, fd, n, e;

	dfd = spill_dir(&t);
	if (dfd < 0)
		return NULL;
	fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		n = snprintf(path, sizeof(path), "%s/layoutctl-bigdir.XXXXXX", t);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0 && unlink(path)) {
			e = errno;
			close(fd);
			errno = e;
			return NULL;
		}
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w+");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

int lctl_bigdir_write(FILE *f, const struct lctl_bigdir_rec *r)
{
	struct rec_hdr h = { 0 };

	if (!r->namelen || r->namelen > LCTL_BIGDIR_NAME_MAX || memchr(r->name, '\0', r->namelen) ||
	    memchr(r->name, '/', r->namelen))
		return -EINVAL;
	h.namelen = (uint32_t)r->namelen;
	h.subvol = r->subvol;
	h.kind = r->kind;
	h.target = r->target;
	h.mode = r->mode;
	h.size = r->size;
	h.nlink = r->nlink;
	h.ino = r->ino;
	if (fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(r->name, r->namelen, 1, f) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

int lctl_bigdir_read(FILE *f, struct lctl_bigdir_rec *r)
{
	struct rec_hdr h;
	size_t got = fread(&h, 1, sizeof(h), f);

	if (got == 0 && feof(f) && !ferror(f))
		return 0;
	if (got != sizeof(h) || !h.namelen || h.namelen > LCTL_BIGDIR_NAME_MAX ||
	    fread(r->name, h.namelen, 1, f) != 1)
		return -EIO;
	if (memchr(r->name, '\0', h.namelen) || memchr(r->name, '/', h.namelen))
		return -EIO;
	r->name[h.namelen] = '\0';
	r->namelen = h.namelen;
	r->subvol = h.subvol;
	r->kind = h.kind;
	r->target = h.target;
	r->mode = h.mode;
	r->size = h.size;
	r->nlink = h.nlink;
	r->ino = h.ino;
	return 1;
}

int lctl_bigdir_begin(struct lctl_bigdir *b)
{
	memset(b, 0, sizeof(*b));
	if (getrandom(&b->seed, sizeof(b->seed), GRND_NONBLOCK) != sizeof(b->seed))
		b->seed = (uint64_t)lctl_mono_seconds() * 1000003u ^ (uint64_t)getpid();
	b->spill = lctl_bigdir_tmpfile();
	return b->spill ? 0 : -errno;
}

int lctl_bigdir_put(struct lctl_bigdir *b, const struct lctl_bigdir_rec *r)
{
	int ret = lctl_bigdir_write(b->spill, r);

	if (!ret)
		b->n++;
	return ret;
}

static void close_group(struct lctl_bigdir *b)
{
	size_t i;

	for (i = 0; i < b->gn; i++)
		if (b->group[i])
			fclose(b->group[i]);
	b->gn = 0;
}

/* One pass over the spill: the buckets [@first, @first + LCTL_BIGDIR_OPEN_MAX) into files. */
static int write_group(struct lctl_bigdir *b, size_t first)
{
	struct lctl_bigdir_rec *r = malloc(sizeof(*r));
	size_t i, x;
	uint64_t seen = 0;
	int ret = 0;

	close_group(b);
	if (!r)
		return -ENOMEM;
	b->gfirst = first;
	for (i = 0; i < LCTL_BIGDIR_OPEN_MAX && first + i < b->k; i++) {
		b->group[i] = lctl_bigdir_tmpfile();
		b->gn = i + 1;
		if (!b->group[i]) {
			ret = -errno;
			goto out;
		}
	}
	if (fflush(b->spill) || fseeko(b->spill, 0, SEEK_SET)) {
		ret = errno ? -errno : -EIO;
		goto out;
	}
	while ((ret = lctl_bigdir_read(b->spill, r)) == 1) {
		if (!(++seen & 4095))
			lctl_crawl_beat(); /* a pass over a huge spill is no hang */
		x = lctl_bigdir_bucket_of(r->name, r->namelen, b->seed, b->k);
		if (x >= first && x - first < b->gn &&
		    (ret = lctl_bigdir_write(b->group[x - first], r)))
			goto out;
	}
	for (i = 0; !ret && i < b->gn; i++)
		if (fflush(b->group[i]) || fseeko(b->group[i], 0, SEEK_SET))
			ret = errno ? -errno : -EIO;
out:
	free(r);
	return ret;
}

int lctl_bigdir_next(struct lctl_bigdir *b, size_t threshold, FILE **f, size_t *i)
{
	int ret;

	*f = NULL;
	if (!b->k)
		b->k = lctl_bigdir_nbuckets(b->n, threshold);
	if (b->next > b->gfirst && b->next - 1 - b->gfirst < b->gn) {
		/* the bucket given last time is read: its space goes back now */
		fclose(b->group[b->next - 1 - b->gfirst]);
		b->group[b->next - 1 - b->gfirst] = NULL;
	}
	if (b->next >= b->k) {
		close_group(b);
		return 0;
	}
	if (!b->gn || b->next - b->gfirst >= b->gn) {
		ret = write_group(b, b->next);
		if (ret)
			return ret;
	}
	*f = b->group[b->next - b->gfirst];
	*i = b->next++;
	return 1;
}

void lctl_bigdir_end(struct lctl_bigdir *b)
{
	close_group(b);
	if (b->spill)
		fclose(b->spill);
	memset(b, 0, sizeof(*b));
}
