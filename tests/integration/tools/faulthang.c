/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faulthang.so: LD_PRELOAD fault injection for tests/integration/fault-hang.sh. A call of
 * gfapi's glfs_lstat() or glfs_lsetxattr() on a name inside the volume directory $HANG_DIR,
 * or of libglusterfs's syncop_mknod() (a linkto layoutctl makes on the hashed brick's graph,
 * lib/directlink.c), never returns, as a lookup caught in GlusterFS 10.3's DHT loop (gluster
 * issue 3688) does;
 * the first such call touches the file $HANG_MARK, so the test knows the fault was hit.
 * Everything else goes to the real gfapi.
 * Build: gcc -shared -fPIC -o faulthang.so faulthang.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct glfs;
struct stat;
typedef int (*lstat_fn)(struct glfs *, const char *, struct stat *);
typedef int (*lsetxattr_fn)(struct glfs *, const char *, const char *, const void *, size_t, int);
typedef int (*mknod_fn)(void *, void *, unsigned, unsigned long, void *, void *, void **);

int glfs_lstat(struct glfs *fs, const char *path, struct stat *buf);
int glfs_lsetxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		   size_t size, int flags);

/* a name below $HANG_DIR: hang here for ever */
static void maybe_hang(const char *path)
{
	const char *dir = getenv("HANG_DIR"), *mark = getenv("HANG_MARK");
	size_t n;
	int fd;

	if (!dir || !path)
		return;
	n = strlen(dir);
	if (strncmp(path, dir, n) || path[n] != '/' || !path[n + 1])
		return;
	if (mark && (fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	for (;;)
		pause();
}

int glfs_lstat(struct glfs *fs, const char *path, struct stat *buf)
{
	static lstat_fn real;

	if (!real)
		real = (lstat_fn)dlsym(RTLD_NEXT, "glfs_lstat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	maybe_hang(path);
	return real(fs, path, buf);
}

int glfs_lsetxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		   size_t size, int flags)
{
	static lsetxattr_fn real;

	if (!real)
		real = (lsetxattr_fn)dlsym(RTLD_NEXT, "glfs_lsetxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	maybe_hang(path);
	return real(fs, path, name, value, size, flags);
}

/*
 * int syncop_mknod(xlator_t *, loc_t *, mode_t, dev_t, struct iatt *, dict_t *, dict_t **),
 * whose loc_t starts with its const char *path
 */
int syncop_mknod(void *subvol, void *loc, unsigned mode, unsigned long rdev, void *iatt,
		 void *xdata_in, void **xdata_out)
{
	static mknod_fn real;
	const char *path = NULL;

	if (!real)
		real = (mknod_fn)dlsym(RTLD_NEXT, "syncop_mknod");
	if (!real)
		return -ENOSYS;
	if (loc) {
		memcpy(&path, loc, sizeof(path));
		maybe_hang(path);
	}
	return real(subvol, loc, mode, rdev, iatt, xdata_in, xdata_out);
}
