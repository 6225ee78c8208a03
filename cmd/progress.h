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
/* Redraw if due (after 2 s, then at most once a second); @what is "scanning" etc.; @eta, a
 * fix's: the bytes moved and left, and when it will be done (NULL: none) */
void progress_update(struct progress_line *pl, const char *what, const struct lctl_progress *p,
		     const struct lctl_eta *eta);
/* ", moved 1.0 MiB of ~4.0 MiB, ETA 3m20s" and what a time window leaves, into @buf */
void progress_moves(char *buf, size_t n, const struct lctl_progress *p, const struct lctl_eta *e);
/* "1h02m03s"-style durations into buf */
void human_duration(double s, char *buf, size_t n);
/* Erase the line before other output. */
void progress_clear(struct progress_line *pl);

/* "1.5 MiB"-style sizes into buf. */
const char *human_bytes(uint64_t b, char *buf, size_t n);

#endif
