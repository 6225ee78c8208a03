/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the state directory and named output files, opened safely for root.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_STATEDIR_H
#define LAYOUTCTL_STATEDIR_H

#include "base.h"

/* ------------------------------------------------------------------------------------------ */
/* State directory and named output files, opened safely for root (lib/statedir.c)             */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every state file (journal, lock, kept modes, progress.json, control, the default outcome
 * log) goes through these. The directory, opened anew by each call, must belong to the
 * effective user and be writable by nobody else, must not be a symbolic link, and every
 * directory above it must be root's or ours and writable by nobody else unless sticky (a
 * symbolic link above it is followed only if root or we own it). A file is opened with
 * O_NOFOLLOW | O_NONBLOCK and must be a regular file with one link. Refusals are one-line
 * messages: -LCTL_EPERM (a directory or file others control), -LCTL_ECORRUPT (a symbolic
 * link, FIFO, device, hard link or oversized file where a state file should be: "move it
 * away"), -LCTL_EINVAL with sys_errno ENOENT (absent). Thread safe.
 */

/** lctl_state_dir_prepare() - create @dir (0700, missing parents 0755) or check it; writable. */
int lctl_state_dir_prepare(const char *dir, struct lctl_error *err);

enum lctl_state_flags {
	LCTL_STATE_CREATE = 1 << 0, /* read-write, created 0600 if absent; must be ours */
	LCTL_STATE_APPEND = 1 << 1, /* as CREATE, with O_APPEND */
};

/**
 * lctl_state_open() - open @name in @dir: read-only (@flags 0) or as @flags say.
 * Return: a descriptor (O_CLOEXEC, O_NONBLOCK) owned by the caller, or a negative LCTL_E*.
 */
int lctl_state_open(const char *dir, const char *name, unsigned flags, struct lctl_error *err);
/**
 * lctl_state_read() - read all of @name into @buf, NUL-terminated; a file of @size bytes or
 * more is refused (-LCTL_ECORRUPT). Return: the length, or a negative LCTL_E*.
 */
ssize_t lctl_state_read(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err);
/**
 * lctl_state_write() - replace @name by @len bytes atomically: a fresh ".NAME.tmp" (O_EXCL),
 * renamed over it; with @sync, the file and the directory are fsync'd (a crash leaves the old
 * or the new file). Return: 0 or a negative LCTL_E*.
 */
int lctl_state_write(const char *dir, const char *name, const void *buf, size_t len, bool sync,
		     struct lctl_error *err);
/**
 * lctl_state_take() - take @name: rename it to ".NAME.taken", read it (as lctl_state_read),
 * remove it. Something written under @name meanwhile stays for the next take.
 * Return: the length (0 when absent), or a negative LCTL_E* (the file is removed anyway).
 */
ssize_t lctl_state_take(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err);
/** lctl_state_remove() - remove @name from @dir (absent is fine). 0 or a negative LCTL_E*. */
int lctl_state_remove(const char *dir, const char *name, struct lctl_error *err);

enum lctl_output_flags {
	LCTL_OUTPUT_READ = 1 << 0, /* read-write (a FIFO is still opened write-only) */
};

/**
 * lctl_output_open() - open @path, a file an administrator named for us to append to (a log),
 * as root may: the directories on its way (the current one too, for a relative @path) pass
 * the rules above a state directory, a symbolic link as its last name is followed only if
 * root or we own it, and it is created 0600 if absent. Accepted: a regular file of ours with
 * at most one link (made 0600), a character device, a FIFO of root's or ours or an unnamed
 * pipe (/dev/stderr). Nothing blocks: a FIFO nobody reads is refused.
 * Return: a descriptor (O_APPEND, O_CLOEXEC; O_NONBLOCK only on a device) owned by the
 * caller, or a negative LCTL_E* with a one-line message naming @path. Thread safe.
 */
int lctl_output_open(const char *path, unsigned flags, struct lctl_error *err);
/**
 * lctl_output_replace() - replace @path, a file an administrator named for us to publish (a
 * metrics file), by @len bytes: written to a fresh ".NAME.tmp" beside it (the old temporary
 * removed first, then O_CREAT | O_EXCL | O_NOFOLLOW), made @mode, fsync'd and renamed over
 * the name, so that a reader sees the old file or the new one and a link there is replaced,
 * never written through. The directories above the file's pass the rules above a state
 * directory; the file's own may be anyone's and writable by others (a textfile directory
 * shared with an exporter's user): nothing in it is followed or opened but our temporary.
 * Return: 0 or a negative LCTL_E* with a one-line message naming @path. Thread safe.
 */
int lctl_output_replace(const char *path, const void *buf, size_t len, unsigned mode,
			struct lctl_error *err);

#endif /* LAYOUTCTL_STATEDIR_H */
