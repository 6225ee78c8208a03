/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: opening paths beneath a brick folder (lib/beneath.c) on a temporary tree with a
 * symbolic link at every level, through openat2() and through the component walk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "internal.h"
#include "tmpdir.h"

/*
 * TOP/brick/a/b/c/file      the brick, three levels of real directories
 * TOP/host/marker            what must never be reached from the brick
 * TOP/brick/la   -> ../host  a link at every level, relative and absolute
 * TOP/brick/a/lb -> TOP/host
 * TOP/brick/a/b/lc -> TOP/host
 * TOP/brick/a/b/c/ld -> TOP/host
 * TOP/brick/a/b/in -> c      a link that stays inside the brick is refused too
 */
static char top[PATH_MAX], brick[PATH_MAX + 16], host[PATH_MAX + 16];

/* Make TOP/@rel, a directory or an empty file. */
static void mk(const char *rel, bool dir)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void ln(const char *target, const char *name)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/brick/%s", top, name);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	(void)state;
	if (unit_mkdtemp(top, sizeof(top), "beneath"))
		return -1;
	snprintf(brick, sizeof(brick), "%s/brick", top);
	snprintf(host, sizeof(host), "%s/host", top);
	mk("brick", true);
	mk("host", true);
	mk("host/marker", false);
	mk("brick/a", true);
	mk("brick/a/b", true);
	mk("brick/a/b/c", true);
	mk("brick/a/b/c/file", false);
	ln("../host", "la");
	ln(host, "a/lb");
	ln(host, "a/b/lc");
	ln(host, "a/b/c/ld");
	ln("c", "a/b/in");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(top);
}

typedef int (*open_fn)(int rootfd, const char *rel, int flags);

/* Open @rel beneath the brick with @fn: -1 and the errno, or the inode opened. */
static int try_open(open_fn fn, const char *rel, ino_t *ino)
{
	int rootfd = open(brick, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, e;
	struct stat st;

	assert_true(rootfd >= 0);
	fd = fn(rootfd, rel, O_RDONLY | O_DIRECTORY);
	e = errno;
	close(rootfd);
	if (fd < 0)
		return e;
	assert_int_equal(fstat(fd, &st), 0);
	*ino = st.st_ino;
	close(fd);
	return 0;
}

static ino_t ino_of(const char *rel)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", brick, rel);
	assert_int_equal(lstat(p, &st), 0);
	return st.st_ino;
}

static void check_resolver(open_fn fn)
{
	static const char *const links[] = {
		"la",	    "la/marker", "a/lb",      "a/lb/",	"a/b/lc",
		"a/b/lc/.", "a/b/c/ld",	 "/a/b/c/ld", "a/b/in", "a/b/in/ld",
	};
	static const char *const ok[][2] = {
		{ "a", "a" },	      { "/a", "a" },	       { "a/b", "a/b" },
		{ "a/b/c", "a/b/c" }, { "/a//b/c/", "a/b/c" }, { "a/./b", "a/b" },
	};
	size_t i;
	ino_t ino = 0;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(try_open(fn, ok[i][0], &ino), 0);
		assert_int_equal(ino, ino_of(ok[i][1]));
	}
	/* the brick root itself */
	assert_int_equal(try_open(fn, "", &ino), 0);
	assert_int_equal(ino, ino_of("."));
	assert_int_equal(try_open(fn, "/", &ino), 0);
	assert_int_equal(ino, ino_of("."));
	/*
	 * a symbolic link at any level is refused, never followed: ELOOP, or ENOTDIR for a last
	 * component asked for with O_DIRECTORY
	 */
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		int e = try_open(fn, links[i], &ino);

		if (e != ELOOP && e != ENOTDIR)
			fail_msg("'%s' opened as %s", links[i], e ? strerror(e) : "inode");
	}
	/* no way out by ".." */
	assert_int_equal(try_open(fn, "..", &ino), EXDEV);
	assert_int_equal(try_open(fn, "a/../../host", &ino), EXDEV);
	/* the rest as open(2) says it */
	assert_int_equal(try_open(fn, "a/b/c/file", &ino), ENOTDIR);
	assert_int_equal(try_open(fn, "a/b/c/file/x", &ino), ENOTDIR);
	assert_int_equal(try_open(fn, "a/nothere", &ino), ENOENT);
	assert_int_equal(try_open(fn, "a/nothere/c", &ino), ENOENT);
}

static void test_openat2(void **state)
{
	(void)state;
	check_resolver(lctl_openat_beneath);
}

static void test_walk(void **state)
{
	(void)state;
	check_resolver(lctl_openat_beneath_walk);
}

/* The same by name: a root that is itself a link is refused too. */
static void test_open_beneath(void **state)
{
	char p[PATH_MAX * 2];
	int fd;

	(void)state;
	fd = lctl_open_beneath(brick, "/a/b/c", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lctl_open_beneath(brick, "/a/b/lc", O_RDONLY | O_DIRECTORY), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(lctl_open_beneath(brick, "/a/b/lc/marker", O_RDONLY), -1);
	assert_int_equal(errno, ELOOP);
	snprintf(p, sizeof(p), "%s/brick/la", top);
	assert_int_equal(lctl_open_beneath(p, "/", O_RDONLY | O_DIRECTORY), -1);
	assert_int_equal(lctl_open_beneath(p, "/marker", O_RDONLY), -1);
}

/* An xattr of an entry of an open directory: of the entry itself, not of what a link names. */
static void test_lgetxattr_at(void **state)
{
	char p[PATH_MAX * 2], v[16];
	int dfd;

	(void)state;
	snprintf(p, sizeof(p), "%s/a/b/c/file", brick);
	if (setxattr(p, "user.lctl", "file", 4, 0) || setxattr(host, "user.lctl", "host", 4, 0))
		skip(); /* a TMPDIR without user xattrs */
	snprintf(p, sizeof(p), "%s/a/b/c", brick);
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(lctl_lgetxattr_at(dfd, "file", "user.lctl", v, sizeof(v)), 4);
	assert_memory_equal(v, "file", 4);
	/* the link's own xattrs (none), never the host folder's */
	assert_int_equal(lctl_lgetxattr_at(dfd, "ld", "user.lctl", v, sizeof(v)), -1);
	/* a name is one component */
	assert_int_equal(lctl_lgetxattr_at(dfd, "ld/marker", "user.lctl", v, sizeof(v)), -1);
	assert_int_equal(errno, EINVAL);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat2),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_lgetxattr_at),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
