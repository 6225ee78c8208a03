/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state directory of a fix (journal, lock, kept modes, progress.json, control, the outcome
 * log, a pool worker's server-HOST folder), opened safely for root in a directory that someone
 * else may have prepared.
 *
 * layoutctl runs as root and takes the directory from the command line; /tmp and the like are
 * writable by every local user. So every access goes through here:
 *
 *  - the directory is opened component by component from "/" (openat, O_NOFOLLOW): every
 *    directory above it must be owned by root or by us and writable by nobody else (or be
 *    sticky, like /tmp, where others cannot rename or remove what is not theirs); a symbolic
 *    link above it is followed only when root or we own it; the state directory itself must
 *    be ours, not a symbolic link, and not writable by group or others. It is created 0700
 *    (missing parents 0755) when a fix prepares it;
 *  - a file is opened relative to that descriptor with O_NOFOLLOW | O_NONBLOCK (a FIFO or a
 *    device never blocks us) and must be a regular file with one link; a file we write in
 *    place (lock, modes, outcome log) must be ours; what we read whole has a size cap;
 *  - a file replaced whole is written to a fresh temporary (the old temporary removed first,
 *    then O_CREAT | O_EXCL | O_NOFOLLOW) and renamed over the name, so a symbolic link or a
 *    hard link there is replaced, never written through;
 *  - a file taken (the control file) is renamed away first, then read and removed, so a
 *    command written meanwhile waits under the name for the next take.
 *
 * Each call opens the directory again: nothing is cached, the functions are thread safe.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* errno of a refused directory or file to an error code: permissions are EPERM */
static int code_of(int e)
{
	return e == EACCES || e == EPERM || e == EROFS ? LCTL_EPERM : LCTL_EIO;
}

/*
 * Open @dir (creating what is missing when @create) and check it and every directory above
 * it as the header comment says. Return: an O_DIRECTORY descriptor, or a negative LCTL_E*.
 */
static int dir_open(const char *dir, bool create, struct lctl_error *err)
{
	const char *p, *e;
	struct stat st;
	char comp[NAME_MAX + 1];
	int fd, nfd;

	if (!dir || dir[0] != '/')
		return lctl_seterr(err, LCTL_EINVAL, 0,
				   "the state directory '%.200s' is not an "
				   "absolute path",
				   dir ? dir : "");
	if (strlen(dir) >= PATH_MAX)
		return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG,
				   "the state directory path is too long");
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return lctl_seterr(err, LCTL_EIO, errno, "cannot open '/': %s", strerror(errno));
	for (p = dir;; p = e) {
		bool last;
		size_t n;
		int len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		for (e = p; *e && *e != '/'; e++)
			;
		n = (size_t)(e - p);
		len = (int)(e - dir);
		last = !e[strspn(e, "/")];
		if (n > NAME_MAX) {
			close(fd);
			return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG,
					   "a name in the state directory path is too long");
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			close(fd);
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "the state directory '%.200s' holds a "
					   "'.' or '..' component",
					   dir);
		}
		if (create && mkdirat(fd, comp, last ? 0700 : 0755) && errno != EEXIST) {
			int e2 = errno;

			close(fd);
			return lctl_seterr(err, code_of(e2), e2,
					   "cannot create the state directory "
					   "'%.*s': %s",
					   len, dir, strerror(e2));
		}
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
		    !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
			if (last || !trusted_uid(st.st_uid)) {
				close(fd);
				if (last)
					return lctl_seterr(err, LCTL_EPERM, ELOOP,
							   "the state directory "
							   "'%.200s' is a symbolic link: give the "
							   "directory itself",
							   dir);
				return lctl_seterr(err, LCTL_EPERM, 0,
						   "'%.*s' in the state directory "
						   "path is a symbolic link owned by uid %u: refusing to "
						   "follow it",
						   len, dir, (unsigned)st.st_uid);
			}
			/* root's or ours, in a directory nobody else may change: follow it */
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (nfd < 0) {
			int e2 = errno;

			close(fd);
			if (e2 == ENOENT)
				return lctl_seterr(err, LCTL_EINVAL, e2,
						   "no state directory '%.200s'", dir);
			if (e2 == ENOTDIR)
				return lctl_seterr(err, LCTL_EIO, e2, "'%.*s' is not a directory",
						   len, dir);
			return lctl_seterr(err, code_of(e2), e2, "cannot open '%.*s': %s", len, dir,
					   strerror(e2));
		}
		close(fd);
		fd = nfd;
		if (last)
			break;
		if (fstat(fd, &st)) {
			int e2 = errno;

			close(fd);
			return lctl_seterr(err, LCTL_EIO, e2, "cannot stat '%.*s': %s", len, dir,
					   strerror(e2));
		}
		/* who can rename or replace the next component: root, us, or nobody */
		if (!trusted_uid(st.st_uid) || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
			close(fd);
			return lctl_seterr(err, LCTL_EPERM, 0,
					   "'%.*s', above the state directory, "
					   "can be changed by others (owner uid %u, mode %04o): "
					   "refusing it",
					   len, dir, (unsigned)st.st_uid,
					   (unsigned)(st.st_mode & 07777));
		}
	}
	if (fstat(fd, &st)) {
		int e2 = errno;

		close(fd);
		return lctl_seterr(err, LCTL_EIO, e2, "cannot stat '%.200s': %s", dir,
				   strerror(e2));
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		if (st.st_uid != geteuid())
			return lctl_seterr(err, LCTL_EPERM, 0,
					   "the state directory '%.200s' belongs "
					   "to uid %u, not to uid %u: refusing it",
					   dir, (unsigned)st.st_uid, (unsigned)geteuid());
		return lctl_seterr(err, LCTL_EPERM, 0,
				   "the state directory '%.200s' is writable by "
				   "others (mode %04o): refusing it (chmod go-w, or use another)",
				   dir, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

int lctl_state_dir_prepare(const char *dir, struct lctl_error *err)
{
	int fd = dir_open(dir, true, err);

	if (fd < 0)
		return fd;
	if (faccessat(fd, ".", W_OK, 0)) {
		int e = errno;

		close(fd);
		return lctl_seterr(err, LCTL_EPERM, e,
				   "the state directory '%.200s' is not writable: "
				   "%s",
				   dir, strerror(e));
	}
	close(fd);
	return 0;
}

/* A file we use must be a regular file with one link; @ours: and belong to us. */
static int file_check(int fd, const char *dir, const char *name, bool ours, size_t max,
		      struct stat *st, struct lctl_error *err)
{
	if (fstat(fd, st))
		return lctl_seterr(err, LCTL_EIO, errno, "cannot stat '%.150s/%s': %s", dir, name,
				   strerror(errno));
	if (!S_ISREG(st->st_mode))
		return lctl_seterr(err, LCTL_ECORRUPT, 0,
				   "'%.150s/%s' is not a regular file: "
				   "move it away",
				   dir, name);
	if (st->st_nlink != 1)
		return lctl_seterr(err, LCTL_ECORRUPT, EMLINK,
				   "'%.150s/%s' has %lu hard links: "
				   "move it away",
				   dir, name, (unsigned long)st->st_nlink);
	if (ours && st->st_uid != geteuid())
		return lctl_seterr(err, LCTL_EPERM, 0,
				   "'%.150s/%s' belongs to uid %u: move it away", dir, name,
				   (unsigned)st->st_uid);
	if (max && (uint64_t)st->st_size >= max)
		return lctl_seterr(err, LCTL_ECORRUPT, EFBIG, "'%.150s/%s' is too big", dir, name);
	return 0;
}

static int open_err(const char *dir, const char *name, int e, struct lctl_error *err)
{
	if (e == ENOENT)
		return lctl_seterr(err, LCTL_EINVAL, e, "no '%s' in '%.150s'", name, dir);
	if (e == ELOOP)
		return lctl_seterr(err, LCTL_ECORRUPT, e,
				   "'%.150s/%s' is a symbolic link: move it "
				   "away",
				   dir, name);
	return lctl_seterr(err, code_of(e), e, "cannot open '%.150s/%s': %s", dir, name,
			   strerror(e));
}

int lctl_state_open(const char *dir, const char *name, unsigned flags, struct lctl_error *err)
{
	int oflags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	int dfd, fd, ret;

	dfd = dir_open(dir, false, err);
	if (dfd < 0)
		return dfd;
	if (flags & (LCTL_STATE_CREATE | LCTL_STATE_APPEND))
		oflags |= O_RDWR | O_CREAT;
	if (flags & LCTL_STATE_APPEND)
		oflags |= O_APPEND;
	fd = openat(dfd, name, oflags, 0600);
	if (fd < 0) {
		ret = open_err(dir, name, errno, err);
		close(dfd);
		return ret;
	}
	close(dfd);
	ret = file_check(fd, dir, name, flags & (LCTL_STATE_CREATE | LCTL_STATE_APPEND), 0, &st,
			 err);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Read all of @fd (at most @size - 1 bytes) into @buf, NUL-terminated. */
static ssize_t read_all(int fd, const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err)
{
	size_t n = 0;
	ssize_t r;

	while (n < size) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return lctl_seterr(err, errno == EISDIR ? LCTL_ECORRUPT : LCTL_EIO, errno,
					   "cannot read '%.150s/%s': %s", dir, name,
					   strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n >= size)
		return lctl_seterr(err, LCTL_ECORRUPT, EFBIG, "'%.150s/%s' is too big", dir, name);
	buf[n] = '\0';
	return (ssize_t)n;
}

ssize_t lctl_state_read(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err)
{
	struct stat st;
	ssize_t ret;
	int fd;

	if (!size)
		return lctl_seterr(err, LCTL_EINVAL, 0, "no room to read '%s'", name);
	fd = lctl_state_open(dir, name, 0, err);
	if (fd < 0)
		return fd;
	ret = file_check(fd, dir, name, false, size, &st, err);
	if (!ret)
		ret = read_all(fd, dir, name, buf, size, err);
	close(fd);
	return ret;
}

int lctl_state_write(const char *dir, const char *name, const void *buf, size_t len, bool sync,
		     struct lctl_error *err)
{
	char tmp[NAME_MAX + 1];
	size_t done = 0;
	int dfd, fd, ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return lctl_seterr(err, LCTL_EINVAL, 0, "state file name '%s' too long", name);
	dfd = dir_open(dir, false, err);
	if (dfd < 0)
		return dfd;
	/* whatever a dead run (or anyone) left under the temporary name goes, never followed */
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		ret = lctl_seterr(err, code_of(errno), errno, "cannot write '%.150s/%s': %s", dir,
				  tmp, strerror(errno));
		goto out;
	}
	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	if (done < len || (sync && fsync(fd))) {
		int e = errno ? errno : EIO;

		ret = lctl_seterr(err, e == ENOSPC ? LCTL_ENOSPC : LCTL_EIO, e,
				  "cannot write '%.150s/%s': %s", dir, tmp, strerror(e));
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (close(fd)) {
		ret = lctl_seterr(err, LCTL_EIO, errno, "cannot write '%.150s/%s': %s", dir, tmp,
				  strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (renameat(dfd, tmp, dfd, name)) {
		ret = lctl_seterr(err, code_of(errno), errno, "cannot replace '%.150s/%s': %s", dir,
				  name, strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (sync)
		fsync(dfd);
out:
	close(dfd);
	return ret;
}

ssize_t lctl_state_take(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err)
{
	char taken[NAME_MAX + 1];
	struct stat st;
	ssize_t ret;
	int dfd, fd;

	if (!size || (size_t)snprintf(taken, sizeof(taken), ".%s.taken", name) >= sizeof(taken))
		return lctl_seterr(err, LCTL_EINVAL, 0, "cannot take '%s'", name);
	dfd = dir_open(dir, false, err);
	if (dfd < 0)
		return dfd;
	/* away first: what is written from now on waits under @name for the next take */
	if (renameat(dfd, name, dfd, taken)) {
		ret = errno == ENOENT ? 0
				      : lctl_seterr(err, code_of(errno), errno,
						    "cannot take "
						    "'%.150s/%s': %s",
						    dir, name, strerror(errno));
		close(dfd);
		return ret;
	}
	fd = openat(dfd, taken, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = open_err(dir, name, errno, err);
	} else {
		ret = file_check(fd, dir, name, false, size, &st, err);
		if (!ret)
			ret = read_all(fd, dir, name, buf, size, err);
		close(fd);
	}
	unlinkat(dfd, taken, 0);
	close(dfd);
	return ret;
}

int lctl_state_remove(const char *dir, const char *name, struct lctl_error *err)
{
	int dfd = dir_open(dir, false, err), ret = 0;

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		ret = lctl_seterr(err, code_of(errno), errno, "cannot remove '%.150s/%s': %s", dir,
				  name, strerror(errno));
	close(dfd);
	return ret;
}
