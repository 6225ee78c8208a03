/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "msg.h"
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "layoutctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (gopts.verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void verbose(int level, const char *fmt, ...)
{
	va_list ap;

	if (gopts.verbosity < level)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg_lib_log(void *data, int level, const char *msg)
{
	(void)data;
	if (level <= LCTL_LOG_WARN)
		warning("%s", msg);
	else
		verbose(level, "%s", msg);
}
