/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: errors, the escaping of strings at every sink, and the log callback.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_BASE_H
#define LAYOUTCTL_BASE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */
/* ------------------------------------------------------------------------------------------ */

enum lctl_errcode {
	LCTL_OK = 0,
	LCTL_ENOMEM,	/* out of memory */
	LCTL_EINVAL,	/* invalid argument or malformed input */
	LCTL_ECONNECT,	/* cannot reach the volfile server */
	LCTL_ENOVOL,	/* the volume does not exist (or is not started) */
	LCTL_EVOLFILE,	/* the client volfile is malformed or has no distribute translator */
	LCTL_EIO,	/* a filesystem operation failed (sys_errno says why) */
	LCTL_EPERM,	/* permission denied (not root, or the brick refused) */
	LCTL_EDOWN,	/* a subvolume is not reachable */
	LCTL_ECANCELED, /* the operation was cancelled */
	LCTL_EBUSY,	/* another job holds the volume, or a GlusterFS task is running */
	LCTL_ECORRUPT,	/* on-disk data (xattr, journal) is corrupt */
	LCTL_ENOSPC,	/* not enough free space */
	LCTL_ERRCODE_MAX
};

struct lctl_error {
	int code;      /* enum lctl_errcode */
	int sys_errno; /* errno behind it, or 0 */
	char msg[256]; /* one line, no trailing newline */
};

/**
 * lctl_strerror() - short description of an error code.
 * @code: enum lctl_errcode, positive or negative.
 * Return: a static string; never NULL.
 */
const char *lctl_strerror(int code);

/**
 * lctl_mono_seconds() - seconds on the monotonic clock (lib/clock.c), never set back: what
 * every timeout, rate and elapsed time is measured with. Thread safe.
 */
double lctl_mono_seconds(void);

/* ------------------------------------------------------------------------------------------ */
/* Escaping: strings from a volume or a file, at every sink (lib/escape.c has the rules)      */
/* ------------------------------------------------------------------------------------------ */

/**
 * lctl_escape_needed() - whether lctl_escape_dup() would change @s.
 * @s: a NUL-terminated string, any bytes.
 */
bool lctl_escape_needed(const char *s);

/**
 * lctl_escape_len() - length of @s escaped, without the NUL.
 */
size_t lctl_escape_len(const char *s);

/**
 * lctl_escape_to() - write @s escaped into @out, NUL-terminated.
 * @out: at least lctl_escape_len(@s) + 1 bytes (4 * strlen(@s) + 1 always suffice).
 * Return: the escaped length.
 */
size_t lctl_escape_to(char *out, const char *s);

/**
 * lctl_escape_dup() - @s escaped: valid UTF-8 without control characters, XML-illegal
 * characters or noncharacters; "\\" for a backslash and "\xHH" for each byte of anything
 * not shown as is. Lossless (lctl_unescape() inverts it).
 * Return: a malloc'ed string the caller owns, or NULL without memory.
 */
char *lctl_escape_dup(const char *s);

/**
 * lctl_unescape() - invert lctl_escape_dup() in place ("\\" and "\xHH", but not "\x00");
 * any other backslash is kept as it is.
 * Return: the new length.
 */
size_t lctl_unescape(char *s);

/**
 * lctl_escape_word_to() - @s as one word of a line protocol: the escapes above, and "\xHH"
 * for every byte outside 0x21-0x7e (no space, no newline, nothing but ASCII).
 * @out: at least 4 * strlen(@s) + 1 bytes. Return: the escaped length.
 */
size_t lctl_escape_word_to(char *out, const char *s);

/**
 * lctl_unescape_word() - invert lctl_escape_word_to() in place, strictly: false (and @s
 * unchanged) for a byte outside 0x21-0x7e, a backslash that starts no escape, or "\x00".
 */
bool lctl_unescape_word(char *s);

/*
 * A growing array of strings, each a copy (raw bytes; the failed files of an outcome log, a
 * directory's subdirectory names). { 0 } is empty.
 */
struct lctl_strv {
	char **v;
	size_t n, cap;
};
/** lctl_strv_add() - a copy of @s at the end of @l. Return: 0 or -LCTL_ENOMEM. */
int lctl_strv_add(struct lctl_strv *l, const char *s);
/** lctl_strv_free() - free every string and the array; @l is empty again. */
void lctl_strv_free(struct lctl_strv *l);
/** lctl_cmp_strp() - qsort()/bsearch() comparison of two char * (by strcmp()). */
int lctl_cmp_strp(const void *a, const void *b);

struct json_object;
/**
 * lctl_json_escape_tree() - escape every string value below @j in place (keys are ours, never
 * escaped); lctl_json_unescape_tree() undoes it, as for a document read back.
 * Return: 0 or -LCTL_ENOMEM (some strings then left as they were).
 */
int lctl_json_escape_tree(struct json_object *j);
int lctl_json_unescape_tree(struct json_object *j);
/*
 * lctl_json_line() - a sink's record: @j's strings escaped in place (lctl_json_escape_tree()),
 * then @j serialized with json-c @flags as one line ending in '\n'. The caller frees it; NULL
 * without memory.
 */
char *lctl_json_line(struct json_object *j, int flags);

/* ------------------------------------------------------------------------------------------ */
/* Logging: the library logs only through this callback, and by default not at all.          */
/* ------------------------------------------------------------------------------------------ */

enum lctl_log_level {
	LCTL_LOG_ERROR = 0,
	LCTL_LOG_WARN = 1,
	LCTL_LOG_INFO = 2,
	LCTL_LOG_VERBOSE = 3,
	LCTL_LOG_DEBUG = 4,
};

typedef void (*lctl_log_fn)(void *data, int level, const char *msg);

/**
 * lctl_set_log() - route library log messages to @fn (process-wide).
 * @fn: callback, called from any library thread; NULL disables logging.
 * @data: passed to @fn.
 * @level: messages above this level are dropped.
 */
void lctl_set_log(lctl_log_fn fn, void *data, int level);

#endif /* LAYOUTCTL_BASE_H */
