/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bigdir: fill one directory of a volume with many small files through libgfapi (real DHT
 * files, placed by DHT), and check them again from a fresh client.
 *
 *   bigdir create VOL DIR N [THREADS]
 *	mkdir DIR (if needed) and create DIR/f<i> for i in 0..N-1, each holding "f<i> <i*7919>\n",
 *	with THREADS (default 4) threads sharing one client. Exit 0 when all N were written.
 *   bigdir verify VOL DIR N [THREADS]
 *	A new client opens every DIR/f<i> by name and compares its content; then lists DIR and
 *	counts the names. Prints "MISSING f<i>" / "BAD f<i>" (at most 20 of each) and a summary;
 *	exit 0 when every file is there with its content and the listing holds exactly N names.
 *
 * Clients are never glfs_fini'd (11 s in 10.3): the process just exits.
 * Build: gcc -O2 -pthread -o bigdir bigdir.c $(pkg-config --cflags --libs glusterfs-api)
 */
#include <glusterfs/api/glfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static glfs_t *fs;
static const char *dir;
static long n;
static int verify;
static atomic_long next, missing, bad;

static void content(long i, char *buf, size_t sz)
{
	snprintf(buf, sz, "f%ld %ld\n", i, i * 7919);
}

static void *worker(void *arg)
{
	char path[4096], want[64], got[64];
	long i;

	(void)arg;
	while ((i = atomic_fetch_add(&next, 1)) < n) {
		glfs_fd_t *fd;
		ssize_t len;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		content(i, want, sizeof(want));
		if (!verify) {
			fd = glfs_creat(fs, path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (!fd || glfs_write(fd, want, strlen(want), 0) != (ssize_t)strlen(want)) {
				fprintf(stderr, "bigdir: cannot write %s: %s\n", path,
					strerror(errno));
				atomic_fetch_add(&bad, 1);
			}
			if (fd)
				glfs_close(fd);
			continue;
		}
		fd = glfs_open(fs, path, O_RDONLY);
		if (!fd) {
			if (atomic_fetch_add(&missing, 1) < 20)
				printf("MISSING f%ld (%s)\n", i, strerror(errno));
			continue;
		}
		len = glfs_read(fd, got, sizeof(got) - 1, 0);
		glfs_close(fd);
		if (len != (ssize_t)strlen(want) || memcmp(got, want, (size_t)len)) {
			if (atomic_fetch_add(&bad, 1) < 20)
				printf("BAD f%ld\n", i);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[64];
	int nthreads, t;
	long listed = 0;

	if (argc < 5 || (strcmp(argv[1], "create") && strcmp(argv[1], "verify"))) {
		fprintf(stderr, "usage: bigdir create|verify VOL DIR N [THREADS]\n");
		return 2;
	}
	verify = !strcmp(argv[1], "verify");
	dir = argv[3];
	n = atol(argv[4]);
	nthreads = argc > 5 ? atoi(argv[5]) : 4;
	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	fs = glfs_new(argv[2]);
	if (!fs || glfs_set_volfile_server(fs, "tcp", "localhost", 24007) ||
	    glfs_set_logging(fs, "/dev/null", 1) || glfs_init(fs)) {
		fprintf(stderr, "bigdir: cannot start a client of %s: %s\n", argv[2],
			strerror(errno));
		return 2;
	}
	if (!verify && glfs_mkdir(fs, dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "bigdir: mkdir %s: %s\n", dir, strerror(errno));
		return 2;
	}
	for (t = 0; t < nthreads; t++)
		pthread_create(&tid[t], NULL, worker, NULL);
	for (t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	if (verify) {
		glfs_fd_t *d = glfs_opendir(fs, dir);
		struct dirent de, *res;

		while (d && !glfs_readdir_r(d, &de, &res) && res)
			if (strcmp(de.d_name, ".") && strcmp(de.d_name, ".."))
				listed++;
		if (d)
			glfs_closedir(d);
		printf("verify %s: %ld files, %ld missing, %ld bad, %ld listed\n", dir, n,
		       (long)missing, (long)bad, listed);
		return missing || bad || listed != n ? 1 : 0;
	}
	printf("created %s: %ld files, %ld failed\n", dir, n, (long)bad);
	return bad ? 1 : 0;
}
