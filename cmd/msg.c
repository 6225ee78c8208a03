/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "msg.h"
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Messages quote names, paths and what the library or gluster said about them: the whole line
 * is escaped (lib/escape.c), so it can neither drive the terminal nor span lines.
 */
static void (*_Atomic sink)(const char *line);

void msg_set_sink(void (*fn)(const char *line))
{
	sink = fn;
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	void (*to)(const char *line) = sink;
	char *m = NULL, *e = NULL, line[1024];

	if (vasprintf(&m, fmt, ap) >= 0)
		e = lctl_escape_dup(m);
	if (to) {
		/* the dashboard owns the terminal: it shows the line, and prints it when it closes */
		snprintf(line, sizeof(line), "layoutctl: %s%s", prefix,
			 e ? e : "(no memory for the message)");
		to(line);
	} else {
		fflush(stdout);
		fprintf(stderr, "layoutctl: %s%s\n", prefix, e ? e : "(no memory for the message)");
	}
	free(e);
	free(m);
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
