/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gfapi's log file, with the brick credentials redacted (see gfapi-log.c). */
#ifndef LCTL_GFAPI_LOG_H
#define LCTL_GFAPI_LOG_H

#include <stddef.h>

/*
 * Into @target, the file name to give gfapi for its log when the user asked for @path (NULL:
 * none): a pipe whose lines a thread copies to @path, redacted. Started once per process;
 * NULL, with a warning, if the pipe cannot be set up (gfapi then logs nowhere). Returns -1,
 * with an error printed, if @path cannot be opened or is refused (lctl_output_open()).
 */
int gfapi_log_target(const char *path, const char **target);

/*
 * Copy @n bytes of @in to @out (@size bytes, NUL-terminated) with the value after every word
 * ending in "password" or "username" and a separator (space, tab, ':' or '=') replaced by
 * "<redacted>". Returns the length written.
 */
size_t gfapi_log_redact(const char *in, size_t n, char *out, size_t size);

#endif
