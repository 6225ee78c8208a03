/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ncurses dashboard of fix --dashboard and top (see dashboard.c). */
#ifndef LCTL_DASHBOARD_H
#define LCTL_DASHBOARD_H

#include "statusview.h"

struct dash;

/* What the keys do: in this process (fix --dashboard) or through the control file (top). */
struct dash_ops {
	void (*pause)(void *arg, bool pause);
	void (*stop)(void *arg);
	int (*workers)(void *arg, int delta); /* 0 or -1 */
	void *arg;
	/* the pace from now on, as the control file's "pace" word sets it; NULL: none (scan) */
	int (*pace)(void *arg, const struct lctl_pace *pace); /* 0 or -1 */
};

/*
 * Set the terminal up for the dashboard; it is taken over at the first dash_draw(). NULL, with
 * *@why saying why, when stdin/stdout is not a terminal or ncurses does not know TERM: the
 * caller falls back to plain lines (or fails). Call it before the job starts.
 */
struct dash *dash_open(const char **why);
/* Restore the terminal and free @d (NULL is fine). */
void dash_close(struct dash *d);
void dash_draw(struct dash *d, struct json_object *status);
/* Wait up to @timeout_ms for a key and act on it; the key, or 0. */
int dash_key(struct dash *d, int timeout_ms, const struct dash_ops *ops);

#endif
