/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * populate: make a bench tree of small files fast, through libgfapi (no FUSE mount, no kernel
 * round trips), for bench/scale.sh and bench/pool.sh.
 *
 *   populate [-s SERVER] [-t THREADS] [-c CLIENTS] [-S SEED] [-m MOUNT] VOL FILES DIRS
 *
 *	DIRS directories d00000 ... under the volume root, then FILES files f0000000 ... spread
 *	over them round robin (file i in directory i % DIRS; DIRS 1: one directory of FILES
 *	entries). File i holds 0 to 4096 bytes, its size and bytes a function of SEED and i only,
 *	so every volume given the same arguments holds the same tree (same names, so the same
 *	placement and the same plan for every contender). CLIENTS gfapi clients (default 2), each
 *	with THREADS / CLIENTS threads (THREADS default 8), take the next file from one shared
 *	counter. SERVER: the volfile server (default localhost). An existing file is an error
 *	(O_EXCL): the tree is made on an empty volume. -m MOUNT: the same tree, written with
 *	open(2) and write(2) through MOUNT, a FUSE mount of VOL, instead of gfapi (the way to
 *	compare the two ways on the same tree).
 *	Prints "populate: FILES files in DIRS directories, BYTES bytes, SECONDS s, RATE files/s"
 *	on stdout. Exit 0 when every file was written, 1 when some failed (each named on stderr,
 *	at most 20), 2 on a usage or setup error.
 *
 * Clients are never glfs_fini'd (11 s in 10.3): the process just exits.
 */
#include <glusterfs/api/glfs.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define MAX_CLIENTS 8
#define MAX_SIZE 4096

static const char *mount;
static long nfiles, ndirs;
static uint64_t seed = 42;
static atomic_long next_file, failed;
static atomic_ullong bytes;
static unsigned char block[2 * MAX_SIZE];

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser: a well-spread function of (seed, i) */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void *worker(void *arg)
{
	glfs_t *fs = arg;
	char path[PATH_MAX];
	size_t at = 0;
	long i;

	if (mount)
		at = (size_t)snprintf(path, sizeof(path), "%s", mount);

	while ((i = atomic_fetch_add(&next_file, 1)) < nfiles) {
		uint64_t h = mix(seed * 1000003ULL + (uint64_t)i);
		size_t size = (size_t)(h % (MAX_SIZE + 1));
		size_t off = (size_t)((h >> 20) % MAX_SIZE);
		glfs_fd_t *fd = NULL;
		int ok, posix_fd = -1;

		snprintf(path + at, sizeof(path) - at, "/d%05ld/f%07ld", i % ndirs, i);
		if (mount) {
			posix_fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
			ok = posix_fd >= 0;
			if (ok && size)
				ok = write(posix_fd, block + off, size) == (ssize_t)size;
			if (posix_fd >= 0 && close(posix_fd))
				ok = 0;
		} else {
			fd = glfs_creat(fs, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			ok = fd != NULL;
			if (ok && size)
				ok = glfs_write(fd, block + off, size, 0) == (ssize_t)size;
			if (fd && glfs_close(fd))
				ok = 0;
		}
		if (!ok) {
			if (atomic_fetch_add(&failed, 1) < 20)
				fprintf(stderr, "populate: cannot write %s: %s\n", path,
					strerror(errno));
			continue;
		}
		atomic_fetch_add(&bytes, size);
	}
	return NULL;
}

static long number(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "populate: %s must be a number from %ld to %ld, not '%s'\n", what,
			lo, hi, s);
		exit(2);
	}
	return v;
}

static glfs_t *client(const char *vol, const char *server)
{
	glfs_t *fs = glfs_new(vol);

	if (!fs || glfs_set_volfile_server(fs, "tcp", server, 24007) ||
	    glfs_set_logging(fs, "/dev/null", 1) || glfs_init(fs)) {
		fprintf(stderr, "populate: cannot start a client of %s at %s: %s\n", vol, server,
			strerror(errno));
		exit(2);
	}
	return fs;
}

int main(int argc, char **argv)
{
	const char *server = "localhost", *vol;
	pthread_t tid[MAX_THREADS];
	glfs_t *fs[MAX_CLIENTS] = { NULL };
	long nthreads = 8, nclients = 2, d, t;
	struct timespec t0, t1;
	uint64_t s = 0x5eed;
	double secs;
	size_t k;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:c:S:m:")) != -1) {
		switch (opt) {
		case 's':
			server = optarg;
			break;
		case 't':
			nthreads = number(optarg, "THREADS", 1, MAX_THREADS);
			break;
		case 'c':
			nclients = number(optarg, "CLIENTS", 1, MAX_CLIENTS);
			break;
		case 'm':
			mount = optarg;
			break;
		case 'S':
			seed = (uint64_t)number(optarg, "SEED", 0, LONG_MAX);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 3)
		goto usage;
	/* a file's path is the mount's, then "/dDDDDD/fFFFFFFF": it fits PATH_MAX, or no run */
	if (mount && strlen(mount) + sizeof("/d99999/f9999999") > PATH_MAX) {
		fprintf(stderr, "populate: the mount path is longer than %zu bytes\n",
			(size_t)PATH_MAX - sizeof("/d99999/f9999999"));
		return 2;
	}
	vol = argv[optind];
	nfiles = number(argv[optind + 1], "FILES", 0, 9999999);
	ndirs = number(argv[optind + 2], "DIRS", 1, 99999);
	if (nclients > nthreads)
		nclients = nthreads;
	/* the bytes: a seeded block, each file a window of it (so files differ, cheaply) */
	s = mix(seed);
	for (k = 0; k < sizeof(block); k++) {
		s = mix(s);
		block[k] = (unsigned char)s;
	}
	for (t = 0; t < nclients && !mount; t++)
		fs[t] = client(vol, server);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (d = 0; d < ndirs; d++) {
		char path[PATH_MAX];
		int rc;

		snprintf(path, sizeof(path), "%s/d%05ld", mount ? mount : "", d);
		rc = mount ? mkdir(path, 0755) : glfs_mkdir(fs[0], path, 0755);
		if (rc && errno != EEXIST) {
			fprintf(stderr, "populate: mkdir %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&tid[t], NULL, worker, fs[t % nclients])) {
			fprintf(stderr, "populate: cannot start a thread\n");
			return 2;
		}
	for (t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("populate: %ld files in %ld directories, %llu bytes, %.1f s, %.0f files/s\n",
	       nfiles - (long)failed, ndirs, (unsigned long long)bytes, secs,
	       secs > 0 ? (double)(nfiles - (long)failed) / secs : 0.0);
	return failed ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: populate [-s SERVER] [-t THREADS] [-c CLIENTS] [-S SEED] [-m MOUNT] VOL FILES DIRS\n");
	return 2;
}
