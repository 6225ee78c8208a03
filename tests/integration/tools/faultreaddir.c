/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultreaddir.so: LD_PRELOAD fault injection at directory listings, for
 * tests/integration/drain.sh. A call of gfapi's glfs_readdirplus_r() that would return the
 * entry named $FAULT_READDIR_NAME (in any directory, on any graph) fails instead with -1 and
 * errno EIO, as a listing does when the brick behind it goes away part of the way (ENOTCONN)
 * or its disk fails: what the listing had not returned yet is unknown. The first
 * $FAULT_READDIR_SKIP such entries (default 0) go through first: drain's space check lists the
 * leaving subvolumes once before anything moves, and the test wants the failure after it.
 * Each failure appends a line to $FAULT_READDIR_LOG if set. Everything else goes to the real
 * gfapi.
 * Build: gcc -shared -fPIC -o faultreaddir.so faultreaddir.c -ldl
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct glfs_fd;
struct stat;
typedef int (*readdirplus_fn)(struct glfs_fd *, struct stat *, struct dirent *, struct dirent **);

int glfs_readdirplus_r(struct glfs_fd *fd, struct stat *st, struct dirent *ext,
		       struct dirent **res);

int glfs_readdirplus_r(struct glfs_fd *fd, struct stat *st, struct dirent *ext, struct dirent **res)
{
	static readdirplus_fn real;
	static atomic_long seen;
	const char *victim = getenv("FAULT_READDIR_NAME"), *skip = getenv("FAULT_READDIR_SKIP");
	const char *log;
	int ret, lfd;

	if (!real)
		real = (readdirplus_fn)dlsym(RTLD_NEXT, "glfs_readdirplus_r");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	ret = real(fd, st, ext, res);
	if (ret || !*res || !victim || strcmp(ext->d_name, victim))
		return ret;
	if (atomic_fetch_add(&seen, 1) < (skip ? atol(skip) : 0))
		return ret;
	log = getenv("FAULT_READDIR_LOG");
	if (log && (lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) >= 0) {
		if (write(lfd, "EIO\n", 4) != 4) {
			/* the count is a hint for the test: nothing to do */
		}
		close(lfd);
	}
	*res = NULL;
	errno = EIO;
	return -1;
}
