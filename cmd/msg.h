/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Diagnostics on stderr: error(), warning(), verbose(). Results go to stdout only. */
#ifndef LCTL_MSG_H
#define LCTL_MSG_H

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * While @fn is set (the dashboard owns the terminal), every message goes to it, one line
 * without the newline, from any thread; NULL: to stderr again.
 */
void msg_set_sink(void (*fn)(const char *line));
/* Library log callback that forwards to verbose()/warning(). */
void msg_lib_log(void *data, int level, const char *msg);

#endif
