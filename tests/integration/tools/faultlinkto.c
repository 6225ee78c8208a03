/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultlinkto.so: LD_PRELOAD fault injection for tests/integration/fault-linkto.sh. After a
 * call of gfapi's glfs_lstat() on a name inside the volume directory $FAULT_DIR returns, or a
 * glfs_lsetxattr() of trusted.distribute.migrate-data (a DHT migration) on one, the command
 * "$FAULT_CMD PATH" runs (PATH the looked-up or moved path), and after a linkto layoutctl made
 * on the brick's graph itself (lib/directlink.c: libglusterfs's syncop_mknod() that returned 0,
 * PATH its loc's path); once it has exited 0 it never runs again. The test's command removes
 * the linkto just made on the name's hashed brick, as a client holding the directory's old
 * layout does when it takes that linkto for stale.
 * Everything else goes to the real gfapi.
 * Build: gcc -shared -fPIC -o faultlinkto.so faultlinkto.c -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct glfs;
struct stat;
typedef int (*lstat_fn)(struct glfs *, const char *, struct stat *);
typedef int (*lsetxattr_fn)(struct glfs *, const char *, const char *, const void *, size_t, int);
typedef int (*mknod_fn)(void *, void *, unsigned, unsigned long, void *, void *, void **);

int glfs_lstat(struct glfs *fs, const char *path, struct stat *buf);
int glfs_lsetxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		   size_t size, int flags);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool done;

static void maybe_fault(const char *path)
{
	const char *dir = getenv("FAULT_DIR"), *cmd = getenv("FAULT_CMD");
	char line[8192];
	size_t n;

	if (!dir || !cmd || !path)
		return;
	n = strlen(dir);
	if (strncmp(path, dir, n) || path[n] != '/' || !path[n + 1] || strchr(path, '\''))
		return;
	if (snprintf(line, sizeof(line), "%s '%s'", cmd, path) >= (int)sizeof(line))
		return;
	pthread_mutex_lock(&lock);
	if (!done && system(line) == 0)
		done = true;
	pthread_mutex_unlock(&lock);
}

int glfs_lstat(struct glfs *fs, const char *path, struct stat *buf)
{
	static lstat_fn real;
	int ret, err;

	if (!real)
		real = (lstat_fn)dlsym(RTLD_NEXT, "glfs_lstat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	ret = real(fs, path, buf);
	err = errno;
	maybe_fault(path);
	errno = err;
	return ret;
}

/* the same after a DHT migration of a name (the data phase moves files this way) */
int glfs_lsetxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		   size_t size, int flags)
{
	static lsetxattr_fn real;
	int ret, err;

	if (!real)
		real = (lsetxattr_fn)dlsym(RTLD_NEXT, "glfs_lsetxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	ret = real(fs, path, name, value, size, flags);
	err = errno;
	if (name && !strcmp(name, "trusted.distribute.migrate-data"))
		maybe_fault(path);
	errno = err;
	return ret;
}

/*
 * the same after a MKNOD on a subvolume's graph (a linkto made directly): libglusterfs's
 * int syncop_mknod(xlator_t *, loc_t *, mode_t, dev_t, struct iatt *, dict_t *, dict_t **),
 * whose loc_t starts with its const char *path
 */
int syncop_mknod(void *subvol, void *loc, unsigned mode, unsigned long rdev, void *iatt,
		 void *xdata_in, void **xdata_out)
{
	static mknod_fn real;
	const char *path = NULL;
	int ret, err;

	if (!real)
		real = (mknod_fn)dlsym(RTLD_NEXT, "syncop_mknod");
	if (!real)
		return -ENOSYS;
	ret = real(subvol, loc, mode, rdev, iatt, xdata_in, xdata_out);
	err = errno;
	if (ret == 0 && loc) {
		memcpy(&path, loc, sizeof(path));
		maybe_fault(path);
	}
	errno = err;
	return ret;
}
