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

void human_duration(double s, char *buf, size_t n)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

void progress_moves(char *buf, size_t n, const struct lctl_progress *p, const struct lctl_eta *e)
{
	char moved[32], total[32], left[32], eta[32];
	size_t k;

	*buf = '\0';
	if (!e)
		return;
	if (e->eta >= 0)
		human_duration(e->eta, eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "-");
	snprintf(buf, n, ", moved %s of ~%s, ETA %s",
		 human_bytes(p->bytes_moved, moved, sizeof(moved)),
		 human_bytes((uint64_t)(e->bytes_to_move + 0.5), total, sizeof(total)), eta);
	/* the run stops at its window's end: what the next run will have left */
	k = strlen(buf);
	if (e->window_left >= 0 && e->eta > e->window_left && k < n)
		snprintf(buf + k, n - k, " (window ends with ~%s left)",
			 human_bytes((uint64_t)(e->bytes_at_end + 0.5), left, sizeof(left)));
}

void progress_update(struct progress_line *pl, const char *what, const struct lctl_progress *p,
		     const struct lctl_eta *eta)
{
	char line[256], bytes[32], moves[128];

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
		progress_moves(moves, sizeof(moves), p, eta);
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s", moves);
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
