/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for a huge directory's sightings on disk (lib/bigdir.c): the record format (odd
 * names round trip byte for byte; bad names are refused; a damaged file is an error, never a
 * name cut elsewhere), the private temporary files, and the bucketing (every sighting of a
 * name in one bucket, none lost, each bucket under the threshold).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lctl/bigdir.h"

static struct lctl_bigdir_rec rec(const char *name, size_t len, int subvol)
{
	struct lctl_bigdir_rec r;

	memset(&r, 0, sizeof(r));
	memcpy(r.name, name, len);
	r.namelen = len;
	r.subvol = subvol;
	r.kind = 2;
	r.target = subvol + 1;
	r.mode = 0101000;
	r.size = (uint64_t)1 << 40;
	r.nlink = 3;
	r.ino = 0xfedcba9876543210ull;
	return r;
}

static void test_round_trip_odd_names(void **state)
{
	char longname[LCTL_BIGDIR_NAME_MAX], allbytes[254];
	struct {
		const char *name;
		size_t len;
	} names[] = {
		{ "plain", 5 },
		{ "new\nline", 8 },
		{ "\n", 1 },
		{ "\xff\xfe\x80", 3 },
		{ "tab\tand space ", 14 },
		{ longname, sizeof(longname) },
		{ allbytes, sizeof(allbytes) },
	};
	struct lctl_bigdir_rec r, back;
	FILE *f = lctl_bigdir_tmpfile();
	size_t i, k = 0;

	(void)state;
	assert_non_null(f);
	memset(longname, 'x', sizeof(longname));
	longname[100] = '\xff';
	/* every byte but NUL and '/' */
	for (i = 1; i < 256; i++)
		if (i != '/')
			allbytes[k++] = (char)i;
	assert_int_equal(k, sizeof(allbytes));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		r = rec(names[i].name, names[i].len, (int)i);
		assert_int_equal(lctl_bigdir_write(f, &r), 0);
	}
	rewind(f);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(lctl_bigdir_read(f, &back), 1);
		assert_int_equal(back.namelen, names[i].len);
		assert_memory_equal(back.name, names[i].name, names[i].len);
		assert_int_equal(back.name[back.namelen], '\0');
		assert_int_equal(back.subvol, (int)i);
		assert_int_equal(back.kind, 2);
		assert_int_equal(back.target, (int)i + 1);
		assert_int_equal(back.mode, 0101000);
		assert_true(back.size == (uint64_t)1 << 40);
		assert_true(back.nlink == 3);
		assert_true(back.ino == 0xfedcba9876543210ull);
	}
	assert_int_equal(lctl_bigdir_read(f, &back), 0);
	fclose(f);
}

static void test_bad_names_refused(void **state)
{
	struct lctl_bigdir_rec r;
	FILE *f = lctl_bigdir_tmpfile();

	(void)state;
	assert_non_null(f);
	r = rec("a/b", 3, 0);
	assert_int_equal(lctl_bigdir_write(f, &r), -EINVAL);
	r = rec("a\0b", 3, 0);
	assert_int_equal(lctl_bigdir_write(f, &r), -EINVAL);
	r = rec("", 0, 0);
	assert_int_equal(lctl_bigdir_write(f, &r), -EINVAL);
	r = rec("x", 1, 0);
	r.namelen = LCTL_BIGDIR_NAME_MAX + 1;
	assert_int_equal(lctl_bigdir_write(f, &r), -EINVAL);
	/* nothing was written */
	assert_int_equal(ftell(f), 0);
	fclose(f);
}

/* A record cut short, or one whose length is out of range, is damage: -EIO. */
static void test_damaged_file(void **state)
{
	struct lctl_bigdir_rec r = rec("name", 4, 1), back;
	FILE *f = lctl_bigdir_tmpfile();
	uint32_t len;
	long whole;

	(void)state;
	assert_non_null(f);
	assert_int_equal(lctl_bigdir_write(f, &r), 0);
	whole = ftell(f);
	assert_int_equal(fflush(f), 0);
	/* cut in the name */
	assert_int_equal(ftruncate(fileno(f), whole - 1), 0);
	rewind(f);
	assert_int_equal(lctl_bigdir_read(f, &back), -EIO);
	/* cut in the header */
	assert_int_equal(ftruncate(fileno(f), 3), 0);
	rewind(f);
	assert_int_equal(lctl_bigdir_read(f, &back), -EIO);
	/* a length of 0, then one past NAME_MAX */
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	rewind(f);
	assert_int_equal(lctl_bigdir_write(f, &r), 0);
	assert_int_equal(fflush(f), 0);
	for (len = 0; len <= LCTL_BIGDIR_NAME_MAX + 1; len += LCTL_BIGDIR_NAME_MAX + 1) {
		rewind(f);
		assert_int_equal(fwrite(&len, sizeof(len), 1, f), 1);
		rewind(f);
		assert_int_equal(lctl_bigdir_read(f, &back), -EIO);
	}
	/* a '/' in a name on disk */
	rewind(f);
	assert_int_equal(lctl_bigdir_write(f, &r), 0);
	assert_int_equal(fseek(f, whole - 2, SEEK_SET), 0);
	assert_int_equal(fputc('/', f), '/');
	rewind(f);
	assert_int_equal(lctl_bigdir_read(f, &back), -EIO);
	fclose(f);
}

/* The temporary files have no name anybody could open, and are the owner's alone. */
static void test_tmpfile_private(void **state)
{
	FILE *f = lctl_bigdir_tmpfile();
	struct stat st;

	(void)state;
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fclose(f);
}

/* Where the unnamed file of @f lives: its folder, from /proc/self/fd ("DIR/#INO (deleted)"). */
static void spill_folder(FILE *f, char *dir, size_t size)
{
	char link[64], *hash;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fileno(f));
	n = readlink(link, dir, size - 1);
	assert_true(n > 0);
	dir[n] = '\0';
	hash = strstr(dir, "/#");
	assert_non_null(hash);
	*hash = '\0';
}

/*
 * $TMPDIR is taken only where nobody else can take a file from under us: a folder writable
 * by others and not sticky is passed over for /tmp; a private or a sticky one is used.
 */
static void test_tmpdir_trusted(void **state)
{
	char dir[] = "/tmp/lctl-test-bigdir.XXXXXX", got[4096], *old = getenv("TMPDIR");
	static const mode_t modes[] = { 0700, 01777, 0777, 0757 };
	size_t i;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		assert_int_equal(chmod(dir, modes[i]), 0);
		f = lctl_bigdir_tmpfile();
		assert_non_null(f);
		spill_folder(f, got, sizeof(got));
		assert_string_equal(got, (modes[i] & 022) && !(modes[i] & S_ISVTX) ? "/tmp" : dir);
		fclose(f);
	}
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	assert_int_equal(rmdir(dir), 0);
}

static void test_nbuckets(void **state)
{
	(void)state;
	assert_int_equal(lctl_bigdir_nbuckets(0, 500), 2);
	assert_int_equal(lctl_bigdir_nbuckets(500, 500), 2);
	assert_int_equal(lctl_bigdir_nbuckets(3000, 500), 12);
	assert_int_equal(lctl_bigdir_nbuckets(1000000, 50000), 40);
	assert_int_equal(lctl_bigdir_nbuckets(17000000, 50000), 680);
}

#define NAMES 20000
#define COPIES 3

/*
 * NAMES names seen on up to COPIES subvolumes each, spilled in listing order (subvolume by
 * subvolume), read back bucket by bucket: every name's sightings all in one bucket, every
 * sighting once, no bucket at or over the threshold; more buckets than one pass opens.
 */
static void test_bucketing(void **state)
{
	const size_t threshold = 500;
	struct lctl_bigdir b;
	struct lctl_bigdir_rec r;
	int *bucket_of = malloc(NAMES * sizeof(int)), *copies = calloc(NAMES, sizeof(int));
	char name[64];
	size_t i, x, nb = 0, k;
	uint64_t total = 0, n_in;
	FILE *f;
	int s, ret, len;

	(void)state;
	assert_non_null(bucket_of);
	assert_non_null(copies);
	for (i = 0; i < NAMES; i++)
		bucket_of[i] = -1;
	assert_int_equal(lctl_bigdir_begin(&b), 0);
	for (s = 0; s < COPIES; s++)
		for (i = 0; i < NAMES; i++) {
			if (i % COPIES < (size_t)s)
				continue; /* name i is on (i % COPIES) + 1 subvolumes */
			len = snprintf(name, sizeof(name), "n\n%zu\xff", i);
			r = rec(name, (size_t)len, s);
			assert_int_equal(lctl_bigdir_put(&b, &r), 0);
			total++;
		}
	assert_true(b.n == total);
	k = lctl_bigdir_nbuckets(total, threshold);
	assert_true(k > LCTL_BIGDIR_OPEN_MAX); /* two passes over the spill */
	while ((ret = lctl_bigdir_next(&b, threshold, &f, &x)) == 1) {
		assert_int_equal(x, nb);
		n_in = 0;
		while ((ret = lctl_bigdir_read(f, &r)) == 1) {
			assert_int_equal(sscanf(r.name, "n\n%zu", &i), 1);
			assert_true(i < NAMES);
			assert_int_equal(lctl_bigdir_bucket_of(r.name, r.namelen, b.seed, k), x);
			if (bucket_of[i] < 0)
				bucket_of[i] = (int)x;
			assert_int_equal(bucket_of[i], (int)x);
			copies[i]++;
			n_in++;
		}
		assert_int_equal(ret, 0);
		assert_true(n_in < threshold);
		nb++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(nb, k);
	for (i = 0; i < NAMES; i++)
		assert_int_equal(copies[i], (int)(i % COPIES) + 1);
	lctl_bigdir_end(&b);
	free(bucket_of);
	free(copies);
}

/* The seed changes the buckets (no fixed hash to craft names against), not the grouping. */
static void test_seeded(void **state)
{
	size_t i, same = 0;
	char name[32];
	int len;

	(void)state;
	for (i = 0; i < 1000; i++) {
		len = snprintf(name, sizeof(name), "f%zu", i);
		assert_int_equal(lctl_bigdir_bucket_of(name, (size_t)len, 1, 64),
				 lctl_bigdir_bucket_of(name, (size_t)len, 1, 64));
		same += lctl_bigdir_bucket_of(name, (size_t)len, 1, 64) ==
			lctl_bigdir_bucket_of(name, (size_t)len, 2, 64);
	}
	assert_true(same < 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_odd_names),
		cmocka_unit_test(test_bad_names_refused),
		cmocka_unit_test(test_damaged_file),
		cmocka_unit_test(test_tmpfile_private),
		cmocka_unit_test(test_tmpdir_trusted),
		cmocka_unit_test(test_nbuckets),
		cmocka_unit_test(test_bucketing),
		cmocka_unit_test(test_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
