/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultxattr.so: LD_PRELOAD fault injection at extended attributes.
 *
 * At gfapi's glfs_setxattr(), for tests/integration/fault-unstamp.sh. For the directory
 * $FAULT_DIR (a volume path) only:
 *   - the first write of its layout xattr (trusted.glusterfs.dht) with a commit word other
 *     than 1 (a stamp) goes through, then runs the shell command $FAULT_CMD once (it makes
 *     the directory change under the stamp, as a client with an old layout would);
 *   - from then on every write of commit word 1 (marking it dirty again) fails with EROFS, as
 *     on a brick whose file system went read-only after an error.
 *
 * At reads of the linkto xattr (trusted.glusterfs.dht.linkto), for
 * tests/integration/fault-linkto-read.sh: every read of it for a file named $FAULT_LINKTO_EIO
 * (the last component of the path, in any directory) fails with EIO, as from a disk error on
 * the brick. Through gfapi (glfs_getxattr(), glfs_lgetxattr(), for explain, the scan's gfapi
 * reader and fix) and through the system call (lgetxattr(), for the direct brick reader).
 *
 * At gfapi's glfs_getxattr() of the key $FAULT_SLOW_XATTR (any path), for
 * tests/integration/fix-break-lock.sh: once the real read returns, a line "PID MS VALUE" (MS
 * the wall clock in milliseconds, VALUE what was read, or "-ERRNO") is appended to the file
 * $FAULT_SLOW_LOG if set, and then the caller sleeps $FAULT_SLOW_MS milliseconds before it
 * sees the result: two runs that read it about the same time both act on what they read.
 * And glfs_removexattr() of the key $FAULT_REMOVE_EIO fails with EIO, as from a brick's disk.
 *
 * At lgetxattr() of trusted.gfid (the direct brick reader), for fault-linkto-read.sh: the
 * first, third, fifth... read for a file named $FAULT_GFID_LATE fails with ENODATA, as for a
 * linkto a brick is making (posix sets its gfid last); the read after each succeeds.
 *
 * Everything else goes to the real functions.
 * Build: gcc -shared -fPIC -o faultxattr.so faultxattr.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct glfs;
typedef int (*setxattr_fn)(struct glfs *, const char *, const char *, const void *, size_t, int);
typedef ssize_t (*glfs_getxattr_fn)(struct glfs *, const char *, const char *, void *, size_t);
typedef ssize_t (*getxattr_fn)(const char *, const char *, void *, size_t);
typedef int (*removexattr_fn)(struct glfs *, const char *, const char *);

static atomic_int stamped;

int glfs_setxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		  size_t size, int flags);

int glfs_setxattr(struct glfs *fs, const char *path, const char *name, const void *value,
		  size_t size, int flags)
{
	static setxattr_fn real;
	const char *dir = getenv("FAULT_DIR"), *cmd;
	const unsigned char *v = value;
	uint32_t commit;
	int ret;

	if (!real)
		real = (setxattr_fn)dlsym(RTLD_NEXT, "glfs_setxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!dir || strcmp(path, dir) || strcmp(name, "trusted.glusterfs.dht") || size != 16)
		return real(fs, path, name, value, size, flags);
	commit = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
	if (commit == 1) {
		if (atomic_load(&stamped)) {
			errno = EROFS;
			return -1;
		}
		return real(fs, path, name, value, size, flags);
	}
	ret = real(fs, path, name, value, size, flags);
	if (!atomic_exchange(&stamped, 1) && (cmd = getenv("FAULT_CMD")) && system(cmd) != 0)
		abort();
	return ret;
}

/* Whether a read of xattr @name of @path is to fail ($FAULT_LINKTO_EIO). */
static int linkto_fault(const char *path, const char *name)
{
	const char *victim = getenv("FAULT_LINKTO_EIO"), *base;

	if (!victim || !path || !name || strcmp(name, "trusted.glusterfs.dht.linkto"))
		return 0;
	base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, victim);
}

ssize_t glfs_getxattr(struct glfs *fs, const char *path, const char *name, void *value,
		      size_t size);
ssize_t glfs_lgetxattr(struct glfs *fs, const char *path, const char *name, void *value,
		       size_t size);
ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size);

/* After a read of $FAULT_SLOW_XATTR that returned @n (@value, or errno): log, then sleep. */
static void slow_read(const char *name, const void *value, ssize_t n)
{
	const char *key = getenv("FAULT_SLOW_XATTR"), *log = getenv("FAULT_SLOW_LOG");
	const char *ms = getenv("FAULT_SLOW_MS");
	int saved = errno, fd, len;
	struct timespec ts;
	char line[1024];

	if (!key || !name || strcmp(name, key))
		return;
	if (log) {
		clock_gettime(CLOCK_REALTIME, &ts);
		len = snprintf(line, sizeof(line), "%ld %lld ", (long)getpid(),
			       (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
		if (n >= 0)
			len += snprintf(line + len, sizeof(line) - (size_t)len, "%.*s\n",
					(int)(n < 512 ? n : 512), (const char *)value);
		else
			len += snprintf(line + len, sizeof(line) - (size_t)len, "-%d\n", saved);
		fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (write(fd, line, (size_t)len) != len)
				abort();
			close(fd);
		}
	}
	if (ms) {
		long v = strtol(ms, NULL, 10);

		ts.tv_sec = v / 1000;
		ts.tv_nsec = v % 1000 * 1000000;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	errno = saved;
}

ssize_t glfs_getxattr(struct glfs *fs, const char *path, const char *name, void *value, size_t size)
{
	static glfs_getxattr_fn real;
	ssize_t n;

	if (linkto_fault(path, name)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (glfs_getxattr_fn)dlsym(RTLD_NEXT, "glfs_getxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	n = real(fs, path, name, value, size);
	slow_read(name, value, n);
	return n;
}

ssize_t glfs_lgetxattr(struct glfs *fs, const char *path, const char *name, void *value,
		       size_t size)
{
	static glfs_getxattr_fn real;

	if (linkto_fault(path, name)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (glfs_getxattr_fn)dlsym(RTLD_NEXT, "glfs_lgetxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fs, path, name, value, size);
}

/* Whether a read of xattr @name of @path is to find no gfid yet ($FAULT_GFID_LATE). */
static int gfid_late(const char *path, const char *name)
{
	static atomic_uint reads;
	const char *victim = getenv("FAULT_GFID_LATE"), *base;

	if (!victim || !path || !name || strcmp(name, "trusted.gfid"))
		return 0;
	base = strrchr(path, '/');
	if (strcmp(base ? base + 1 : path, victim))
		return 0;
	return atomic_fetch_add(&reads, 1) % 2 == 0;
}

ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	static getxattr_fn real;

	if (linkto_fault(path, name)) {
		errno = EIO;
		return -1;
	}
	if (gfid_late(path, name)) {
		errno = ENODATA;
		return -1;
	}
	if (!real)
		real = (getxattr_fn)dlsym(RTLD_NEXT, "lgetxattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, name, value, size);
}

int glfs_removexattr(struct glfs *fs, const char *path, const char *name);

int glfs_removexattr(struct glfs *fs, const char *path, const char *name)
{
	static removexattr_fn real;
	const char *key = getenv("FAULT_REMOVE_EIO");

	if (key && name && !strcmp(name, key)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (removexattr_fn)dlsym(RTLD_NEXT, "glfs_removexattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fs, path, name);
}
