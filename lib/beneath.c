/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening a path beneath a directory without following any symbolic link on the way.
 *
 * The direct brick reader (inspect.c) runs as root on folders that clients of the volume fill
 * and that anybody with access to the brick can change under us: a directory swapped for a
 * symbolic link to /etc between two reads must not make us list /etc. O_NOFOLLOW guards the
 * last component only, so the whole path is resolved by the kernel with openat2()
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (Linux 5.6), or, where openat2() is missing
 * (ENOSYS), one component at a time with openat(O_NOFOLLOW | O_DIRECTORY). Either way a
 * symbolic link anywhere in the path fails with ELOOP, and a ".." that would leave the root
 * with EXDEV.
 *
 * A file below a directory opened that way is named "/proc/self/fd/DFD/NAME" for the calls that
 * have no *at() form (lgetxattr): the kernel resolves that through the open directory itself.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* openat2() answered ENOSYS once: the kernel has none, do not ask again */
static atomic_bool no_openat2;

int lctl_openat_beneath_walk(int rootfd, const char *rel, int flags)
{
	const char *p = rel, *end;
	int fd = -1, next, e;
	char comp[NAME_MAX + 1];

	flags |= O_NOFOLLOW | O_CLOEXEC;
	for (;;) {
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n > NAME_MAX) {
			e = ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p = end;
		while (*p == '/')
			p++;
		if (!strcmp(comp, "..")) {
			e = EXDEV;
			goto fail;
		}
		if (!*p) {
			/* the last component (or the root itself for "", "/", ".") */
			next = openat(fd < 0 ? rootfd : fd, n ? comp : ".", flags);
			e = errno;
			if (fd >= 0)
				close(fd);
			errno = e;
			return next;
		}
		if (!n || !strcmp(comp, "."))
			continue;
		next = openat(fd < 0 ? rootfd : fd, comp,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (next < 0) {
			e = errno;
			goto fail;
		}
		if (fd >= 0)
			close(fd);
		fd = next;
	}
fail:
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

int lctl_openat_beneath(int rootfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd, tries = 0;

	while (*rel == '/')
		rel++;
	if (!atomic_load(&no_openat2)) {
		/* EAGAIN: a rename raced with the resolution (the kernel could not prove it safe) */
		do
			fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof(how));
		while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		atomic_store(&no_openat2, true);
	}
	return lctl_openat_beneath_walk(rootfd, rel, flags);
}

int lctl_open_beneath(const char *root, const char *rel, int flags)
{
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd, e;

	if (rootfd < 0)
		return -1;
	fd = lctl_openat_beneath(rootfd, rel, flags);
	e = errno;
	close(rootfd);
	errno = e;
	return fd;
}

ssize_t lctl_lgetxattr_at(int dfd, const char *name, const char *key, void *buf, size_t size)
{
	char file[64 + NAME_MAX];

	if (strchr(name, '/') || (size_t)snprintf(file, sizeof(file), "/proc/self/fd/%d/%s", dfd,
						  name) >= sizeof(file)) {
		errno = EINVAL;
		return -1;
	}
	return lgetxattr(file, key, buf, size);
}
