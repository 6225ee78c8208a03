/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state directory of a fix (journal, lock, kept modes, progress.json, control, the outcome
 * log, a pool worker's server-HOST folder), opened safely for root in a directory that someone
 * else may have prepared; and a file an administrator names for us to write (--log,
 * --log-file), under the same rules for the directories on its way.
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
 *    command written meanwhile waits under the name for the next take;
 *  - a named file we publish (lctl_output_replace, a metrics file) is replaced whole as a
 *    state file is, 0644 and fsync'd, in a directory that may be anyone's and writable by
 *    others (node_exporter's textfile directory): the directories above it pass the rules,
 *    and in it only our fresh temporary is opened (O_EXCL | O_NOFOLLOW) and renamed;
 *  - a named output file (lctl_output_open) is opened in a directory that passes the rules
 *    for those above a state directory, with O_NOFOLLOW | O_NONBLOCK (created 0600 as a
 *    regular file); a symbolic link there is followed only when root or we own it
 *    (/dev/stderr). What is opened must be a regular file of ours with one link (then made
 *    0600), a character device (/dev/null, a terminal), or a FIFO of root's or ours or the
 *    unnamed pipe of a descriptor we hold (/dev/stderr to a pipe). Regular files and FIFOs
 *    are written blocking from then on; a device keeps O_NONBLOCK.
 *
 * Each call opens the directory again: nothing is cached, the functions are thread safe.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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

/* how dir_open() takes the directory */
enum dir_how {
	DIR_CREATE = 1 << 0, /* create what is missing: 0700, missing parents 0755 */
	DIR_PARENT = 1 << 1, /* it holds a file we were named: checked as those above it are */
	DIR_SHARED = 1 << 2, /* with DIR_PARENT: it may be anyone's, writable by others */
};

/*
 * Open @dir (creating what is missing with DIR_CREATE) and check it and every directory above
 * it as the header comment says; with DIR_PARENT, @dir itself is checked as the directories
 * above a state directory are (root's or ours, writable by nobody else unless sticky; a link
 * to it followed only when root or we own it). @what names what the path leads to in
 * messages. Return: an O_DIRECTORY descriptor, or a negative LCTL_E*.
 */
static int dir_open(const char *dir, const char *what, unsigned how, struct lctl_error *err)
{
	const char *p, *e;
	struct stat st;
	char comp[NAME_MAX + 1];
	int fd, nfd;

	if (!dir || dir[0] != '/')
		return lctl_seterr(err, LCTL_EINVAL, 0, "%s '%.200s' is not an absolute path", what,
				   dir ? dir : "");
	if (strlen(dir) >= PATH_MAX)
		return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG, "%s path is too long", what);
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
					   "a name in %s path is too long", what);
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			close(fd);
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "%s path '%.200s' holds a '.' or '..' component", what,
					   dir);
		}
		if ((how & DIR_CREATE) && mkdirat(fd, comp, last ? 0700 : 0755) &&
		    errno != EEXIST) {
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
			if ((last && !(how & DIR_PARENT)) || !trusted_uid(st.st_uid)) {
				close(fd);
				if (last && !(how & DIR_PARENT))
					return lctl_seterr(err, LCTL_EPERM, ELOOP,
							   "the state directory "
							   "'%.200s' is a symbolic link: give the "
							   "directory itself",
							   dir);
				return lctl_seterr(err, LCTL_EPERM, 0,
						   "'%.*s' in %s path is a symbolic link owned by "
						   "uid %u: refusing to follow it",
						   len, dir, what, (unsigned)st.st_uid);
			}
			/* root's or ours, in a directory nobody else may change: follow it */
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (nfd < 0) {
			int e2 = errno;

			close(fd);
			if (e2 == ENOENT && (how & DIR_PARENT))
				return lctl_seterr(err, LCTL_EINVAL, e2, "no directory '%.*s'", len,
						   dir);
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
		if (last && (!(how & DIR_PARENT) || (how & DIR_SHARED)))
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
					   "'%.*s', above %s, can be changed by others "
					   "(owner uid %u, mode %04o): refusing it",
					   len, dir, what, (unsigned)st.st_uid,
					   (unsigned)(st.st_mode & 07777));
		}
	}
	if (how & DIR_PARENT)
		return fd; /* the loop checked it as those above it */
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
	int fd = dir_open(dir, "the state directory", DIR_CREATE, err);

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

	dfd = dir_open(dir, "the state directory", 0, err);
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

/* "'@path' is ...": the reason an output file cannot be opened (ENXIO: a FIFO, a socket) */
static int output_open_err(int dfd, const char *name, const char *path, int e,
			   struct lctl_error *err)
{
	struct stat st;

	if (e == ENXIO && !fstatat(dfd, name, &st, 0) && S_ISFIFO(st.st_mode))
		return trusted_uid(st.st_uid)
			       ? lctl_seterr(err, LCTL_EIO, e, "'%.200s' is a FIFO nobody reads",
					     path)
			       : lctl_seterr(err, LCTL_EPERM, e,
					     "'%.200s' is a FIFO of uid %u: refusing it", path,
					     (unsigned)st.st_uid);
	if (e == ENXIO && !fstatat(dfd, name, &st, 0) && S_ISSOCK(st.st_mode))
		return lctl_seterr(err, LCTL_ECORRUPT, e, "'%.200s' is a socket: refusing it",
				   path);
	return lctl_seterr(err, e == ENOENT ? LCTL_EINVAL : code_of(e), e,
			   "cannot open '%.200s': %s", path, strerror(e));
}

/* Is @fd an unnamed pipe (of /dev/stderr, say)? Only a descriptor we were given leads there. */
static bool unnamed_pipe(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == PIPEFS_MAGIC;
}

/* The folder of magic links to open descriptors (/dev/stderr leads there): no path to swap. */
static bool fd_dir(const char *dir)
{
	size_t i;

	if (!strcmp(dir, "/dev/fd") || !strcmp(dir, "/proc/self/fd") ||
	    !strcmp(dir, "/proc/thread-self/fd"))
		return true;
	if (strncmp(dir, "/proc/", 6))
		return false;
	for (i = 6; dir[i] >= '0' && dir[i] <= '9'; i++)
		;
	return i > 6 && !strcmp(dir + i, "/fd");
}

/* symbolic links followed in a row at most (each one's target checked as the name was) */
#define OUTPUT_MAX_LINKS 8

static int output_open(const char *path, unsigned flags, unsigned links, struct lctl_error *err);

int lctl_output_open(const char *path, unsigned flags, struct lctl_error *err)
{
	return output_open(path, flags, 0, err);
}

static int output_open(const char *path, unsigned flags, unsigned links, struct lctl_error *err)
{
	int oflags = O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int acc = flags & LCTL_OUTPUT_READ ? O_RDWR : O_WRONLY;
	char cwd[PATH_MAX] = "", full[PATH_MAX];
	int dfd, fd, n, ret = 0;
	struct stat st, lst;
	bool created = false;
	const char *name;
	char *slash;

	if (!path || !path[0])
		return lctl_seterr(err, LCTL_EINVAL, 0, "no file name");
	/* a relative name is walked from "/" too: the current directory is checked with the rest */
	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return lctl_seterr(err, LCTL_EIO, errno, "cannot tell the current directory: %s",
				   strerror(errno));
	n = snprintf(full, sizeof(full), "%s%s%s", cwd, cwd[0] ? "/" : "", path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG,
				   "the path of '%.200s' is too long", path);
	slash = strrchr(full, '/');
	name = slash + 1;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return lctl_seterr(err, LCTL_EINVAL, EISDIR, "'%.200s' does not name a file", path);
	if (strlen(name) > NAME_MAX)
		return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG,
				   "the name of '%.200s' is too long", path);
	*slash = '\0';
	dfd = dir_open(slash == full ? "/" : full, "the file", DIR_PARENT, err);
	if (dfd < 0)
		return dfd;
	/*
	 * Created as a regular file of ours (0600), or opened as it is: a file that existed keeps
	 * its mode (--log /etc/passwd is refused below as not ours, and no mode of a file the
	 * administrator named is ever changed). A link there is followed only if root's or ours.
	 */
	fd = links ? -1 : openat(dfd, name, acc | oflags | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		created = true;
	else if (links || errno == EEXIST)
		fd = openat(dfd, name, acc | oflags); /* a link's target: only one that exists */
	if (fd < 0) {
		int e = errno;

		/* ELOOP; or EACCES, from kernels that refuse O_CREAT at another user's link in /tmp */
		if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) || !S_ISLNK(lst.st_mode)) {
			ret = output_open_err(dfd, name, path, e, err);
			goto out;
		}
		if (!trusted_uid(lst.st_uid)) {
			ret = lctl_seterr(err, LCTL_EPERM, ELOOP,
					  "'%.200s' is a symbolic link owned by uid %u: refusing to "
					  "follow it",
					  path, (unsigned)lst.st_uid);
			goto out;
		}
		/*
		 * A link root made: its target is opened by the same rules, the directories on
		 * its way checked as this one's were (the kernel would follow one a user can
		 * swap). A magic link to an open descriptor (/dev/stderr -> /proc/self/fd/2 ->
		 * a pipe or a terminal) is followed: it names no path.
		 */
		if (!fd_dir(slash == full ? "/" : full)) {
			char target[PATH_MAX], next[PATH_MAX];
			ssize_t k = readlinkat(dfd, name, target, sizeof(target) - 1);

			if (k <= 0 || links >= OUTPUT_MAX_LINKS) {
				ret = lctl_seterr(err, LCTL_EINVAL, k <= 0 ? errno : ELOOP,
						  "cannot follow the symbolic link '%.200s'", path);
				goto out;
			}
			target[k] = '\0';
			n = target[0] == '/' ? snprintf(next, sizeof(next), "%s", target)
					     : snprintf(next, sizeof(next), "%s/%s",
							slash == full ? "" : full, target);
			if (n < 0 || (size_t)n >= sizeof(next)) {
				ret = lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG,
						  "the target of '%.200s' is too long", path);
				goto out;
			}
			close(dfd);
			return output_open(next, flags, links + 1, err);
		}
		oflags &= ~O_NOFOLLOW;
		fd = openat(dfd, name, acc | oflags);
		if (fd < 0) {
			ret = output_open_err(dfd, name, path, errno, err);
			goto out;
		}
	}
	if (fstat(fd, &st))
		ret = lctl_seterr(err, LCTL_EIO, errno, "cannot stat '%.200s': %s", path,
				  strerror(errno));
	else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		ret = lctl_seterr(err, LCTL_ECORRUPT, EMLINK,
				  "'%.200s' has %lu hard links: refusing it", path,
				  (unsigned long)st.st_nlink);
	else if (S_ISREG(st.st_mode) && st.st_uid != geteuid())
		ret = lctl_seterr(err, LCTL_EPERM, 0, "'%.200s' belongs to uid %u: refusing it",
				  path, (unsigned)st.st_uid);
	else if (S_ISFIFO(st.st_mode) && !trusted_uid(st.st_uid) && !unnamed_pipe(fd))
		ret = lctl_seterr(err, LCTL_EPERM, 0, "'%.200s' is a FIFO of uid %u: refusing it",
				  path, (unsigned)st.st_uid);
	else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		ret = lctl_seterr(err, LCTL_ECORRUPT, 0,
				  "'%.200s' is not a regular file, a character device or a FIFO: "
				  "refusing it",
				  path);
	if (ret || !S_ISFIFO(st.st_mode) || acc != O_RDWR)
		goto out;
	/* a FIFO write-only, as a pipe's writer: no reader fails now, a reader gone fails writes */
	close(fd);
	fd = openat(dfd, name, O_WRONLY | oflags);
	if (fd < 0)
		ret = output_open_err(dfd, name, path, errno, err);
	else if (fstat(fd, &lst) || lst.st_dev != st.st_dev || lst.st_ino != st.st_ino)
		ret = lctl_seterr(err, LCTL_EIO, 0, "'%.200s' changed while being opened", path);
out:
	close(dfd);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (created)
		fchmod(fd, 0600); /* whatever the umask */
	/* ours, or the pipe we were given: written as stderr is; a device keeps O_NONBLOCK */
	if (!S_ISCHR(st.st_mode))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
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

/*
 * Replace @name in the open directory @dfd (@dir names it in messages) by @len bytes: a fresh
 * ".NAME.tmp" (whatever is there removed first, never followed), made @mode, renamed over
 * @name; with @sync, the file and the directory are fsync'd. Return: 0 or a negative LCTL_E*.
 */
static int replace_at(int dfd, const char *dir, const char *name, const void *buf, size_t len,
		      bool sync, mode_t mode, struct lctl_error *err)
{
	char tmp[NAME_MAX + 1];
	size_t done = 0;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return lctl_seterr(err, LCTL_EINVAL, 0, "file name '%.200s' too long", name);
	/* whatever a dead run (or anyone) left under the temporary name goes, never followed */
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return lctl_seterr(err, code_of(errno), errno, "cannot write '%.150s/%s': %s", dir,
				   tmp, strerror(errno));
	/* the umask does not decide what a reader of a published file may do */
	if (mode != 0600 && fchmod(fd, mode)) {
		int e = errno;

		close(fd);
		unlinkat(dfd, tmp, 0);
		return lctl_seterr(err, code_of(e), e, "cannot write '%.150s/%s': %s", dir, tmp,
				   strerror(e));
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

		close(fd);
		unlinkat(dfd, tmp, 0);
		return lctl_seterr(err, e == ENOSPC ? LCTL_ENOSPC : LCTL_EIO, e,
				   "cannot write '%.150s/%s': %s", dir, tmp, strerror(e));
	}
	if (close(fd)) {
		int e = errno;

		unlinkat(dfd, tmp, 0);
		return lctl_seterr(err, LCTL_EIO, e, "cannot write '%.150s/%s': %s", dir, tmp,
				   strerror(e));
	}
	if (renameat(dfd, tmp, dfd, name)) {
		int e = errno;

		unlinkat(dfd, tmp, 0);
		return lctl_seterr(err, code_of(e), e, "cannot replace '%.150s/%s': %s", dir, name,
				   strerror(e));
	}
	if (sync)
		fsync(dfd);
	return 0;
}

int lctl_state_write(const char *dir, const char *name, const void *buf, size_t len, bool sync,
		     struct lctl_error *err)
{
	int dfd, ret;

	dfd = dir_open(dir, "the state directory", 0, err);
	if (dfd < 0)
		return dfd;
	ret = replace_at(dfd, dir, name, buf, len, sync, 0600, err);
	close(dfd);
	return ret;
}

int lctl_output_replace(const char *path, const void *buf, size_t len, unsigned mode,
			struct lctl_error *err)
{
	char dir[PATH_MAX];
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t n;
	int dfd, ret;

	if (!path || path[0] != '/' || !base || !base[1] || !strcmp(base, "/.") ||
	    !strcmp(base, "/.."))
		return lctl_seterr(err, LCTL_EINVAL, 0, "'%.200s' is not an absolute file name",
				   path ? path : "");
	n = (size_t)(base - path);
	if (n >= sizeof(dir))
		return lctl_seterr(err, LCTL_EINVAL, ENAMETOOLONG, "'%.200s' is too long", path);
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (!n)
		strcpy(dir, "/");
	dfd = dir_open(dir, "the file", DIR_PARENT | DIR_SHARED, err);
	if (dfd < 0)
		return dfd;
	ret = replace_at(dfd, dir, base + 1, buf, len, true, (mode_t)(mode & 0777), err);
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
	dfd = dir_open(dir, "the state directory", 0, err);
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
	int dfd = dir_open(dir, "the state directory", 0, err), ret = 0;

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		ret = lctl_seterr(err, code_of(errno), errno, "cannot remove '%.150s/%s': %s", dir,
				  name, strerror(errno));
	close(dfd);
	return ret;
}
