/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error codes, messages, logging and the small string buffer.
 *
 * The log callback is process-wide and set once at start-up, before any worker thread
 * exists; it is read without a lock afterwards.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const errstr[LCTL_ERRCODE_MAX] = {
	[LCTL_OK] = "success",
	[LCTL_ENOMEM] = "out of memory",
	[LCTL_EINVAL] = "invalid argument",
	[LCTL_ECONNECT] = "cannot reach the volfile server",
	[LCTL_ENOVOL] = "no such volume",
	[LCTL_EVOLFILE] = "malformed volfile",
	[LCTL_EIO] = "i/o error",
	[LCTL_EPERM] = "permission denied",
	[LCTL_EDOWN] = "subvolume down",
	[LCTL_ECANCELED] = "cancelled",
	[LCTL_EBUSY] = "volume busy",
	[LCTL_ECORRUPT] = "corrupt data",
	[LCTL_ENOSPC] = "not enough free space",
};

const char *lctl_strerror(int code)
{
	if (code < 0)
		code = -code;
	if (code >= LCTL_ERRCODE_MAX || !errstr[code])
		return "unknown error";
	return errstr[code];
}

int lctl_seterr(struct lctl_error *err, int code, int sys_errno, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		err->sys_errno = sys_errno;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

static lctl_log_fn log_fn;
static void *log_data;
static int log_level = -1;

void lctl_set_log(lctl_log_fn fn, void *data, int level)
{
	log_fn = fn;
	log_data = data;
	log_level = fn ? level : -1;
}

void lctl_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn || level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(log_data, level, msg);
}

static char lbuf_empty[1];

int lctl_cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void lbuf_init(struct lbuf *b)
{
	b->buf = lbuf_empty;
	b->len = 0;
	b->alloc = 0;
	b->oom = false;
	b->secret = false;
}

void lbuf_release(struct lbuf *b)
{
	if (b->alloc) {
		if (b->secret)
			explicit_bzero(b->buf, b->alloc);
		free(b->buf);
	}
	lbuf_init(b);
}

static bool lbuf_grow(struct lbuf *b, size_t extra)
{
	size_t want;
	char *p;

	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->alloc)
		return true;
	want = b->alloc ? b->alloc : 64;
	while (want < b->len + extra + 1)
		want *= 2;
	if (b->secret && b->alloc) {
		/* not realloc(): it would leave the old copy in freed memory */
		p = malloc(want);
		if (p) {
			memcpy(p, b->buf, b->len + 1);
			explicit_bzero(b->buf, b->alloc);
			free(b->buf);
		}
	} else {
		p = b->alloc ? realloc(b->buf, want) : malloc(want);
	}
	if (!p) {
		b->oom = true;
		return false;
	}
	if (!b->alloc)
		p[0] = '\0';
	b->buf = p;
	b->alloc = want;
	return true;
}

void lbuf_add(struct lbuf *b, const void *data, size_t len)
{
	if (!lbuf_grow(b, len))
		return;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void lbuf_addf(struct lbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !lbuf_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *lbuf_detach(struct lbuf *b)
{
	char *p = NULL;

	if (!b->oom) {
		p = b->alloc ? b->buf : strdup("");
	} else if (b->alloc) {
		if (b->secret)
			explicit_bzero(b->buf, b->alloc);
		free(b->buf);
	}
	lbuf_init(b);
	return p;
}
