/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error codes, messages and logging.
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
