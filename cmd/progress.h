/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A one-line progress display on stderr (git's delayed progress). */
#ifndef LCTL_PROGRESS_H
#define LCTL_PROGRESS_H

#include "layoutctl.h"

#include <stdbool.h>

struct progress_line {
	bool enabled;
	bool shown;
	double last;
};

/* Decide from --progress, -q and whether stderr is a terminal in the foreground. */
void progress_init(struct progress_line *pl);
/* Redraw if due (after 2 s, then at most once a second); @what is "scanning" etc. */
void progress_update(struct progress_line *pl, const char *what, const struct lctl_progress *p);
/* Erase the line before other output. */
void progress_clear(struct progress_line *pl);

/* "1.5 MiB"-style sizes into buf. */
const char *human_bytes(uint64_t b, char *buf, size_t n);

#endif
