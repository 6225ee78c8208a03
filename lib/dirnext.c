/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of a gfapi directory stream.
 *
 * glfs_readdirplus_r() returns 0 with *res NULL at the end of the stream, and -1 (errno set)
 * when a listing fails part of the way (ENOTCONN from a brick that went away, EIO from its
 * disk). A loop `while (!glfs_readdirplus_r(...) && res)` cannot tell the two apart: a leaving
 * subvolume whose listing failed looked empty to drain's final check. Every listing in lib/
 * goes through lctl_dir_next(), which makes the caller handle three answers.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int lctl_dir_next(glfs_fd_t *fd, struct stat *st, struct dirent *de)
{
	struct dirent *res = NULL;
	int rc;

	for (;;) {
		errno = 0;
		rc = glfs_readdirplus_r(fd, st, de, &res);
		if (rc || (!res && errno))
			return -(errno ? errno : EIO);
		if (!res)
			return 0;
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			return 1;
	}
}
