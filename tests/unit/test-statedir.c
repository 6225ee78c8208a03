/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: state files opened safely (lib/statedir.c): the directory and what is above it,
 * and symbolic links, hard links, FIFOs and oversized files where a state file should be; and
 * the same for a file named for us to write (lctl_output_open: --log, --log-file).
 * The cases about other users' directories need root (chown); as another user they are left
 * out, the rest runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layoutctl.h"
#include "tmpdir.h"

#define NOBODY 65534

static char top[256];

static int setup(void **state)
{
	(void)state;
	return unit_mkdtemp(top, sizeof(top), "statedir");
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(top);
}

static const char *at(const char *rel)
{
	static char buf[4][512];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect_file(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static int prepare(const char *rel, int want)
{
	struct lctl_error err = { 0 };
	int ret = lctl_state_dir_prepare(at(rel), &err);

	if (ret != want)
		fail_msg("prepare %s: %d (%s), want %d", rel, ret, err.msg, want);
	if (ret)
		assert_true(err.msg[0] && !strchr(err.msg, '\n'));
	return ret;
}

/* Created 0700 (parents 0755) whatever the umask; an existing one of ours is taken. */
static void test_create(void **state)
{
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	prepare("a/b/state", 0);
	umask(old);
	assert_int_equal(stat(at("a/b/state"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(at("a/b"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	prepare("a/b/state", 0);
	prepare("a/b/state/", 0);
	prepare("a/./b", -LCTL_EINVAL);
	prepare("a/../a/b", -LCTL_EINVAL);
	put(at("file"), "x");
	prepare("file", -LCTL_EIO);
	prepare("file/sub", -LCTL_EIO);
}

/* The directory itself: not a link, not writable by others, not someone else's. */
static void test_dir_refused(void **state)
{
	(void)state;
	assert_int_equal(mkdir(at("open"), 0700), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	prepare("open", -LCTL_EPERM);
	assert_int_equal(chmod(at("open"), 0720), 0);
	prepare("open", -LCTL_EPERM);
	prepare("open/state", -LCTL_EPERM); /* nor above it */
	assert_int_equal(chmod(at("open"), 0755), 0);
	prepare("open/state", 0); /* below a directory that only we can change: fine */
	/* a world-writable directory above it, without the sticky bit: refused */
	assert_int_equal(chmod(at("open"), 0777), 0);
	prepare("open/state", -LCTL_EPERM);
	/* with it (as /tmp): fine, others cannot rename what is ours */
	assert_int_equal(chmod(at("open"), 01777), 0);
	prepare("open/state", 0);
	assert_int_equal(mkdir(at("real"), 0700), 0);
	assert_int_equal(symlink("real", at("link")), 0);
	prepare("link", -LCTL_EPERM);
	/* our own link above the state directory is followed */
	prepare("link/state", 0);
	assert_int_equal(access(at("real/state"), F_OK), 0);
	if (geteuid())
		return;
	/* someone else's: the directory, a directory above it, a link above it */
	assert_int_equal(mkdir(at("theirs"), 0700), 0);
	assert_int_equal(chown(at("theirs"), NOBODY, NOBODY), 0);
	prepare("theirs", -LCTL_EPERM);
	prepare("theirs/state", -LCTL_EPERM);
	assert_int_equal(access(at("theirs/state"), F_OK), -1);
	assert_int_equal(symlink("real", at("their-link")), 0);
	assert_int_equal(lchown(at("their-link"), NOBODY, NOBODY), 0);
	prepare("their-link/state2", -LCTL_EPERM);
	assert_int_equal(access(at("real/state2"), F_OK), -1);
}

/* Links, FIFOs, other files where a state file should be: refused or replaced, never used. */
static void test_files(void **state)
{
	struct lctl_error err = { 0 };
	char buf[64];
	int fd;

	(void)state;
	prepare("s", 0);
	put(at("victim"), "precious\n");
	/* opened in place (lock, modes, outcome log): refused */
	assert_int_equal(symlink(at("victim"), at("s/lock")), 0);
	assert_int_equal(lctl_state_open(at("s"), "lock", LCTL_STATE_CREATE, &err), -LCTL_ECORRUPT);
	assert_int_equal(link(at("victim"), at("s/modes")), 0);
	assert_int_equal(lctl_state_open(at("s"), "modes", LCTL_STATE_APPEND, &err),
			 -LCTL_ECORRUPT);
	assert_int_equal(mkfifo(at("s/outcomes.jsonl"), 0600), 0);
	alarm(10); /* a FIFO never blocks an open */
	assert_int_equal(lctl_state_open(at("s"), "outcomes.jsonl", LCTL_STATE_APPEND, &err),
			 -LCTL_ECORRUPT);
	assert_int_equal(lctl_state_read(at("s"), "outcomes.jsonl", buf, sizeof(buf), &err),
			 -LCTL_ECORRUPT);
	alarm(0);
	expect_file(at("victim"), "precious\n");
	/* read whole: a link to /dev/zero, a file too big */
	assert_int_equal(symlink("/dev/zero", at("s/progress.json")), 0);
	assert_int_equal(lctl_state_read(at("s"), "progress.json", buf, sizeof(buf), &err),
			 -LCTL_ECORRUPT);
	put(at("s/journal"),
	    "0123456789012345678901234567890123456789012345678901234567890123456789");
	assert_int_equal(lctl_state_read(at("s"), "journal", buf, sizeof(buf), &err),
			 -LCTL_ECORRUPT);
	assert_int_equal(lctl_state_read(at("s"), "absent", buf, sizeof(buf), &err), -LCTL_EINVAL);
	assert_int_equal(err.sys_errno, ENOENT);
	/* replaced whole: the link goes, the file it pointed to stays */
	assert_int_equal(symlink(at("victim"), at("s/.progress.json.tmp")), 0);
	assert_int_equal(lctl_state_write(at("s"), "progress.json", "{}\n", 3, false, &err), 0);
	assert_int_equal(lctl_state_read(at("s"), "progress.json", buf, sizeof(buf), &err), 3);
	assert_string_equal(buf, "{}\n");
	expect_file(at("victim"), "precious\n");
	/* a regular file of ours is fine, and created 0600 */
	fd = lctl_state_open(at("s"), "new", LCTL_STATE_CREATE, &err);
	assert_true(fd >= 0);
	close(fd);
	/* taken: renamed away, read, removed */
	assert_int_equal(lctl_state_take(at("s"), "control", buf, sizeof(buf), &err), 0);
	assert_int_equal(lctl_state_write(at("s"), "control", "stop\n", 5, false, &err), 0);
	assert_int_equal(lctl_state_take(at("s"), "control", buf, sizeof(buf), &err), 5);
	assert_string_equal(buf, "stop\n");
	assert_int_equal(access(at("s/control"), F_OK), -1);
	assert_int_equal(access(at("s/.control.taken"), F_OK), -1);
	if (geteuid())
		return;
	assert_int_equal(lchown(at("s/new"), NOBODY, NOBODY), 0);
	assert_int_equal(lctl_state_open(at("s"), "new", LCTL_STATE_CREATE, &err), -LCTL_EPERM);
}

static int output(const char *path, unsigned flags, int want)
{
	struct lctl_error err = { 0 };
	int fd = lctl_output_open(path, flags, &err);

	if ((want < 0 && fd != want) || (want >= 0 && fd < 0))
		fail_msg("output %s: %d (%s), want %d", path, fd, err.msg, want);
	if (fd < 0) {
		assert_true(err.msg[0] && !strchr(err.msg, '\n'));
		return fd;
	}
	/* appended to; blocking unless a device; write-only unless a regular file asked for read */
	assert_true(fcntl(fd, F_GETFL) & O_APPEND);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	return fd;
}

/* A file named for us to write (--log, --log-file): where, and what, we write. */
static void test_output(void **state)
{
	struct lctl_error err = { 0 };
	struct stat st;
	mode_t old;
	int fd, rfd;

	(void)state;
	assert_int_equal(mkdir(at("d"), 0755), 0);
	put(at("victim"), "precious\n");
	/*
	 * a new file: a regular file of ours, 0600 whatever the umask; an old one keeps its mode
	 * (issue 24, item 7: it was made 0600, and --log /etc/passwd would have broken lookups)
	 */
	old = umask(0);
	fd = output(at("d/new.log"), 0, 0);
	umask(old);
	assert_int_equal(write(fd, "a\n", 2), 2);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	assert_int_equal(stat(at("d/new.log"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(chmod(at("d/new.log"), 0644), 0);
	fd = output(at("d/new.log"), LCTL_OUTPUT_READ, 0);
	assert_int_equal((fcntl(fd, F_GETFL) & O_ACCMODE), O_RDWR);
	assert_int_equal(write(fd, "b\n", 2), 2);
	close(fd);
	expect_file(at("d/new.log"), "a\nb\n");
	assert_int_equal(stat(at("d/new.log"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(chmod(at("d/new.log"), 0600), 0);
	/*
	 * a link of ours into a directory anyone may change: its target is checked as a name
	 * given would be (the kernel followed it, and a user could swap the directory under it)
	 */
	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	assert_int_equal(symlink(at("open/x.log"), at("d/via.log")), 0);
	output(at("d/via.log"), 0, -LCTL_EPERM);
	assert_int_equal(access(at("open/x.log"), F_OK), -1);
	/* into a sound one: followed to a file that exists, never to make one */
	assert_int_equal(chmod(at("open"), 0755), 0);
	output(at("d/via.log"), 0, -LCTL_EINVAL);
	assert_int_equal(access(at("open/x.log"), F_OK), -1);
	put(at("open/x.log"), "");
	close(output(at("d/via.log"), 0, 0));
	assert_int_equal(unlink(at("d/via.log")), 0);
	/* relative: from the current directory, checked as the rest */
	assert_int_equal(chdir(at("d")), 0);
	close(output("rel.log", 0, 0));
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(access(at("d/rel.log"), F_OK), 0);
	/* a device: written, never changed (/dev/null stays 0666), keeps O_NONBLOCK */
	assert_int_equal(stat("/dev/null", &st), 0);
	old = st.st_mode;
	fd = output("/dev/null", LCTL_OUTPUT_READ, 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_int_equal(st.st_mode, old);
	/* a hard link, a directory, no such directory, no name */
	assert_int_equal(link(at("victim"), at("d/hard.log")), 0);
	output(at("d/hard.log"), 0, -LCTL_ECORRUPT);
	output(at("d/hard.log"), LCTL_OUTPUT_READ, -LCTL_ECORRUPT);
	output(at("d"), 0, -LCTL_EIO);
	output(at("none/x.log"), 0, -LCTL_EINVAL);
	assert_int_equal(lctl_output_open(at("d/none/x.log"), 0, &err), -LCTL_EINVAL);
	assert_int_equal(err.sys_errno, ENOENT);
	output(at("d/"), 0, -LCTL_EINVAL);
	output(at("d/.."), 0, -LCTL_EINVAL);
	output(at("d/../d/x.log"), 0, -LCTL_EINVAL);
	expect_file(at("victim"), "precious\n");
	/* our FIFO: nobody reads it, refused at once (read-write asked too); read, written blocking */
	assert_int_equal(mkfifo(at("d/fifo"), 0600), 0);
	alarm(10);
	output(at("d/fifo"), 0, -LCTL_EIO);
	output(at("d/fifo"), LCTL_OUTPUT_READ, -LCTL_EIO);
	rfd = open(at("d/fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	fd = output(at("d/fifo"), LCTL_OUTPUT_READ, 0);
	alarm(0);
	assert_int_equal((fcntl(fd, F_GETFL) & O_ACCMODE), O_WRONLY);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	close(rfd);
	/* the directory: writable by others only if sticky; our own link to it is followed */
	assert_int_equal(chmod(at("d"), 0777), 0);
	output(at("d/new.log"), 0, -LCTL_EPERM);
	assert_int_equal(chmod(at("d"), 01777), 0);
	close(output(at("d/new.log"), 0, 0));
	assert_int_equal(chmod(at("d"), 0755), 0);
	assert_int_equal(symlink("d", at("dlink")), 0);
	close(output(at("dlink/new.log"), 0, 0));
	/* our own link as the name: followed, to something that exists (as /dev/stderr is) */
	assert_int_equal(symlink(at("d/new.log"), at("d/link.log")), 0);
	close(output(at("d/link.log"), 0, 0));
	assert_int_equal(symlink(at("d/absent.log"), at("d/dangling.log")), 0);
	output(at("d/dangling.log"), 0, -LCTL_EINVAL);
	assert_int_equal(access(at("d/absent.log"), F_OK), -1);
	if (geteuid())
		return;
	/* someone else's: a link as the name, a link above it, the directory, a file, a FIFO */
	assert_int_equal(symlink(at("victim"), at("d/their.log")), 0);
	assert_int_equal(lchown(at("d/their.log"), NOBODY, NOBODY), 0);
	output(at("d/their.log"), 0, -LCTL_EPERM);
	output(at("d/their.log"), LCTL_OUTPUT_READ, -LCTL_EPERM);
	assert_int_equal(symlink("d", at("their-dir")), 0);
	assert_int_equal(lchown(at("their-dir"), NOBODY, NOBODY), 0);
	output(at("their-dir/x.log"), 0, -LCTL_EPERM);
	assert_int_equal(access(at("d/x.log"), F_OK), -1);
	assert_int_equal(mkdir(at("theirs"), 0755), 0);
	assert_int_equal(chown(at("theirs"), NOBODY, NOBODY), 0);
	output(at("theirs/x.log"), 0, -LCTL_EPERM);
	assert_int_equal(access(at("theirs/x.log"), F_OK), -1);
	assert_int_equal(chown(at("d/new.log"), NOBODY, NOBODY), 0);
	output(at("d/new.log"), 0, -LCTL_EPERM);
	assert_int_equal(chown(at("d/fifo"), NOBODY, NOBODY), 0);
	alarm(10);
	output(at("d/fifo"), 0, -LCTL_EPERM);
	rfd = open(at("d/fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	output(at("d/fifo"), 0, -LCTL_EPERM);
	output(at("d/fifo"), LCTL_OUTPUT_READ, -LCTL_EPERM);
	alarm(0);
	close(rfd);
	expect_file(at("victim"), "precious\n");
	/* an unnamed pipe another user made (sudo ... 2>&1 | less): only a descriptor of ours leads
	 * there (/dev/stderr), so it is taken */
	{
		char proc[64];
		int p[2];

		assert_int_equal(seteuid(NOBODY), 0);
		assert_int_equal(pipe(p), 0);
		assert_int_equal(seteuid(0), 0);
		assert_int_equal(fstat(p[1], &st), 0);
		assert_int_equal(st.st_uid, NOBODY);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p[1]);
		fd = output(proc, LCTL_OUTPUT_READ, 0);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
		close(p[0]);
		close(p[1]);
	}
}

static int replace(const char *path, const char *text, int want)
{
	struct lctl_error err = { 0 };
	int ret = lctl_output_replace(path, text, strlen(text), 0644, &err);

	if (ret != want)
		fail_msg("replace %s: %d (%s), want %d", path, ret, err.msg, want);
	if (ret)
		assert_true(err.msg[0] && !strchr(err.msg, '\n'));
	return ret;
}

/*
 * A published file (lctl_output_replace: --metrics-file) in a directory others may write:
 * replaced whole, 0644 whatever the umask; a link at its name or its temporary's is replaced
 * or removed, never written through; a directory above that others may change is refused.
 */
static void test_replace(void **state)
{
	struct stat st;
	mode_t old;

	(void)state;
	assert_int_equal(mkdir(at("prom"), 0755), 0);
	put(at("victim"), "precious\n");
	old = umask(077);
	replace(at("prom/a.prom"), "one 1\n", 0);
	umask(old);
	expect_file(at("prom/a.prom"), "one 1\n");
	assert_int_equal(stat(at("prom/a.prom"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* a symbolic link at the name, and one at the temporary: the victim stays */
	assert_int_equal(unlink(at("prom/a.prom")), 0);
	assert_int_equal(symlink(at("victim"), at("prom/a.prom")), 0);
	assert_int_equal(symlink(at("victim"), at("prom/.a.prom.tmp")), 0);
	replace(at("prom/a.prom"), "two 2\n", 0);
	expect_file(at("victim"), "precious\n");
	assert_int_equal(lstat(at("prom/a.prom"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	expect_file(at("prom/a.prom"), "two 2\n");
	assert_int_equal(lstat(at("prom/.a.prom.tmp"), &st), -1);
	/* a hard link to the victim at the name: replaced, the victim unchanged */
	assert_int_equal(unlink(at("prom/a.prom")), 0);
	assert_int_equal(link(at("victim"), at("prom/a.prom")), 0);
	replace(at("prom/a.prom"), "three 3\n", 0);
	expect_file(at("victim"), "precious\n");
	expect_file(at("prom/a.prom"), "three 3\n");
	/* not an absolute file name */
	replace("rel.prom", "x\n", -LCTL_EINVAL);
	replace(at("prom/"), "x\n", -LCTL_EINVAL);
	replace(at("prom/.."), "x\n", -LCTL_EINVAL);
	/* the directory itself may be writable by others (and another user's, as root) */
	assert_int_equal(chmod(at("prom"), 0777), 0);
	replace(at("prom/a.prom"), "four 4\n", 0);
	expect_file(at("prom/a.prom"), "four 4\n");
	if (geteuid() == 0) {
		assert_int_equal(chown(at("prom"), NOBODY, NOBODY), 0);
		replace(at("prom/a.prom"), "five 5\n", 0);
		expect_file(at("prom/a.prom"), "five 5\n");
	}
	/* ... but not one above it: its user could swap the directory for another */
	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	assert_int_equal(mkdir(at("open/prom"), 0755), 0);
	replace(at("open/prom/a.prom"), "x\n", -LCTL_EPERM);
	assert_int_equal(lstat(at("open/prom/a.prom"), &st), -1);
	/* a symbolic link to the directory, in a directory only we change: followed */
	assert_int_equal(symlink(at("prom"), at("link")), 0);
	replace(at("link/a.prom"), "six 6\n", 0);
	expect_file(at("prom/a.prom"), "six 6\n");
	if (geteuid() == 0) {
		/* another user's link is not */
		assert_int_equal(lchown(at("link"), NOBODY, NOBODY), 0);
		replace(at("link/a.prom"), "x\n", -LCTL_EPERM);
		expect_file(at("prom/a.prom"), "six 6\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
