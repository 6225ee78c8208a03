/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "progress.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void progress_init(struct progress_line *pl)
{
	memset(pl, 0, sizeof(*pl));
	if (!strcmp(gopts.progress, "never") || gopts.verbosity < 1)
		return;
	if (!strcmp(gopts.progress, "always")) {
		pl->enabled = true;
		return;
	}
	/* a terminal, and we are its foreground job (not `layoutctl scan &`) */
	pl->enabled = isatty(STDERR_FILENO) && tcgetpgrp(STDERR_FILENO) == getpgrp();
}

const char *human_bytes(uint64_t b, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	unsigned u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, n, "%.1f %s", v, unit[u]);
	return buf;
}

void progress_update(struct progress_line *pl, const char *what, const struct lctl_progress *p)
{
	char line[160], bytes[32];

	if (!pl->enabled || p->elapsed < 2.0 || p->elapsed - pl->last < 1.0)
		return;
	pl->last = p->elapsed;
	if (p->phase && !strcmp(p->phase, "settle")) {
		snprintf(line, sizeof(line), "%s, settle: %.0f s left of %.0f s%s", what,
			 ceil(p->settle_left), p->settle_seconds, p->paused ? " [paused]" : "");
	} else if (p->phase && !strcmp(p->phase, "preflight")) {
		unsigned i, ready = 0;

		for (i = 0; i < p->nservers; i++)
			ready += !!strcmp(p->servers[i].state, "starting");
		snprintf(line, sizeof(line), "%s, preflight: %u of %u servers' workers ready", what,
			 ready, p->nservers);
	} else {
		snprintf(line, sizeof(line),
			 "%s%s%s: %llu/%llu dirs, %llu files, %s, %llu not clean, "
			 "%.0f dirs/s%s",
			 what, p->phase ? ", " : "",
			 p->phase && !strcmp(p->phase, "layout") ? "layout pass"
			 : p->phase				 ? p->phase
								 : "",
			 (unsigned long long)p->dirs_done, (unsigned long long)p->dirs_seen,
			 (unsigned long long)p->files, human_bytes(p->bytes, bytes, sizeof(bytes)),
			 (unsigned long long)p->dirs_not_clean,
			 p->elapsed > 0 ? (double)p->dirs_done / p->elapsed : 0.0,
			 p->paused ? " [paused]" : "");
	}
	if (p->held) {
		size_t n = strlen(line);

		snprintf(line + n, sizeof(line) - n, " [held %.0f s: %.*s]", p->held_seconds,
			 (int)(sizeof(line) - n > 16 ? sizeof(line) - n - 16 : 0), p->held_why);
	}
	if (p->two_phase && (p->clean_at > 0 || p->clean_since > 0)) {
		size_t n = strlen(line);

		if (p->clean_at > 0)
			snprintf(line + n, sizeof(line) - n,
				 " [all clean after %.0f s; moving data]", p->clean_at);
		else
			snprintf(line + n, sizeof(line) - n,
				 " [all clean since an earlier run; moving data]");
	}
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	pl->shown = true;
}

void progress_clear(struct progress_line *pl)
{
	if (pl->shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		pl->shown = false;
	}
}
