/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Prometheus text exposition: the one writer of the format (scan --format prometheus prints
 * its text; fix and drain --metrics-file publish theirs for node_exporter's textfile
 * collector), and the metrics of a fix or drain run.
 *
 * A family is "# HELP", "# TYPE" and its samples, "name{label="value",...} value". A label
 * value is escaped as every string from a volume or a file (lib/escape.c: valid UTF-8, no
 * control byte, so no newline), then a backslash and a double quote take the format's
 * backslash; the format's own "\n" is never needed.
 *
 * The metrics of a run (lctl_metrics_render()), every family labelled volume="VOL":
 *
 *	layoutctl_fix_info{command}                      gauge 1: fix or drain
 *	layoutctl_fix_running                            gauge 1 while the run goes on, then 0
 *	layoutctl_fix_phase{phase}                       gauge 1 for the run's phase, 0 others
 *	layoutctl_fix_start_timestamp_seconds            gauge
 *	layoutctl_fix_last_update_timestamp_seconds      gauge: when the file was written
 *	layoutctl_fix_last_progress_timestamp_seconds    gauge: when a counter last grew
 *	layoutctl_fix_last_success_timestamp_seconds     gauge: the last run that exited 0
 *	                                                 (absent while unknown)
 *	layoutctl_fix_exit_code                          gauge, once the run ended
 *	layoutctl_fix_directories_done_total{server}     counter
 *	layoutctl_fix_files_moved_total{server}          counter
 *	layoutctl_fix_bytes_moved_total{server}          counter
 *	layoutctl_fix_files_failed_total{server}         counter
 *	layoutctl_fix_files_skipped_total{server}        counter
 *
 * Per server: each server of the pool when the run is spread over it (what its worker
 * reported), else one row, this host, with the run's totals. Counters start at 0 with each
 * run (a resumed run too), which rate() and increase() take as a counter reset.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lctl_prom {
	struct lbuf b;
};

struct lctl_prom *lctl_prom_new(void)
{
	struct lctl_prom *m = malloc(sizeof(*m));

	if (m)
		lbuf_init(&m->b);
	return m;
}

void lctl_prom_free(struct lctl_prom *m)
{
	if (!m)
		return;
	lbuf_release(&m->b);
	free(m);
}

const char *lctl_prom_text(const struct lctl_prom *m)
{
	return m->b.oom ? NULL : m->b.buf;
}

char *lctl_prom_label_dup(const char *s)
{
	char *e = lctl_escape_dup(s ? s : ""), *out;
	size_t i, o = 0;

	if (!e)
		return NULL;
	out = malloc(2 * strlen(e) + 1);
	if (out) {
		for (i = 0; e[i]; i++) {
			/* the format's own escapes; lctl_escape_dup() left no newline */
			if (e[i] == '\\' || e[i] == '"')
				out[o++] = '\\';
			out[o++] = e[i];
		}
		out[o] = '\0';
	}
	free(e);
	return out;
}

void lctl_prom_family(struct lctl_prom *m, const char *name, const char *type, const char *help)
{
	lbuf_addf(&m->b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void lctl_prom_sample(struct lctl_prom *m, const char *name, const char *const *labels,
		      const char *fmt, ...)
{
	char value[64];
	va_list ap;
	size_t i;

	lbuf_add(&m->b, name, strlen(name));
	for (i = 0; labels && labels[i]; i += 2) {
		char *v = lctl_prom_label_dup(labels[i + 1]);

		if (!v) {
			m->b.oom = true;
			return;
		}
		lbuf_addf(&m->b, "%s%s=\"%s\"", i ? "," : "{", labels[i], v);
		free(v);
	}
	if (i)
		lbuf_add(&m->b, "}", 1);
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	lbuf_addf(&m->b, " %s\n", value);
}

/* the phases of a fix (struct lctl_progress) and the end, each with its sample */
static const char *const phases[] = { "preflight", "layout", "settle", "place", "work",
				      "top",	   "data",   "done",   NULL };

/* one server's counters (in the order of counters[] below): a pool worker's report, or the
 * run's totals on this host */
enum { C_DIRS, C_MOVED, C_BYTES, C_FAILED, C_SKIPPED, C_COUNT };
struct row {
	const char *server;
	uint64_t c[C_COUNT];
};

static size_t rows_of(const struct lctl_metrics_info *mi, const struct lctl_progress *p,
		      struct row *r)
{
	size_t i;

	if (!p->nservers) {
		r[0].server = mi->host ? mi->host : "";
		r[0].c[C_DIRS] = p->dirs_done;
		r[0].c[C_MOVED] = p->file_actions[LCTL_FILE_MIGRATED];
		r[0].c[C_BYTES] = p->bytes_moved;
		r[0].c[C_FAILED] = p->file_actions[LCTL_FILE_FAILED];
		r[0].c[C_SKIPPED] = p->file_actions[LCTL_FILE_SKIPPED];
		return 1;
	}
	for (i = 0; i < p->nservers && i < LCTL_POOL_MAX; i++) {
		const struct lctl_server_progress *sp = &p->servers[i];

		r[i].server = sp->name;
		r[i].c[C_DIRS] = sp->dirs;
		r[i].c[C_MOVED] = sp->migrated;
		r[i].c[C_BYTES] = sp->bytes;
		r[i].c[C_FAILED] = sp->failed;
		r[i].c[C_SKIPPED] = sp->skipped;
	}
	return i;
}

void lctl_metrics_note(struct lctl_metrics_info *mi, const struct lctl_progress *p, time_t now)
{
	struct row r[LCTL_POOL_MAX];
	uint64_t sum = p->dirs_done + p->file_actions[LCTL_FILE_MIGRATED] +
		       p->file_actions[LCTL_FILE_LINKED] + p->file_actions[LCTL_FILE_SKIPPED] +
		       p->file_actions[LCTL_FILE_FAILED] + p->bytes_moved;
	size_t i, k, n = rows_of(mi, p, r);

	for (i = 0; i < n; i++)
		for (k = 0; k < C_COUNT; k++)
			sum += r[i].c[k];
	if (!mi->last_progress || sum != mi->last_sum)
		mi->last_progress = now;
	mi->last_sum = sum;
}

#define P "layoutctl_fix_"

char *lctl_metrics_render(const struct lctl_metrics_info *mi, const struct lctl_progress *p)
{
	static const struct {
		const char *name, *help;
	} counters[C_COUNT] = {
		[C_DIRS] = { P "directories_done_total",
			     "directories this run finished, per server" },
		[C_MOVED] = { P "files_moved_total", "files this run migrated, per server" },
		[C_BYTES] = { P "bytes_moved_total",
			      "bytes of the files this run migrated, per server" },
		[C_FAILED] = { P "files_failed_total",
			       "files this run failed to move, per server" },
		[C_SKIPPED] = { P "files_skipped_total",
				"files this run left where they are, per server" },
	};
	struct lctl_prom *m = lctl_prom_new();
	struct row r[LCTL_POOL_MAX];
	const char *vol[] = { "volume", mi->volume, NULL };
	const char *phase = mi->phase ? mi->phase : "";
	size_t i, k, n = rows_of(mi, p, r);
	bool known = false;
	char *out = NULL;

	if (!m)
		return NULL;
	lctl_prom_family(m, P "info", "gauge", "1: a layoutctl fix or drain of the volume");
	lctl_prom_sample(m, P "info",
			 (const char *const[]){ "volume", mi->volume, "command", mi->command,
						NULL },
			 "1");
	lctl_prom_family(m, P "running", "gauge", "1 while the run goes on, 0 once it ended");
	lctl_prom_sample(m, P "running", vol, "%d", mi->running ? 1 : 0);
	lctl_prom_family(m, P "phase", "gauge", "1 for the phase the run is in, 0 for the others");
	for (i = 0; phases[i]; i++) {
		known |= !strcmp(phases[i], phase);
		lctl_prom_sample(m, P "phase",
				 (const char *const[]){ "volume", mi->volume, "phase", phases[i],
							NULL },
				 "%d", !strcmp(phases[i], phase));
	}
	if (!known && phase[0])
		lctl_prom_sample(m, P "phase",
				 (const char *const[]){ "volume", mi->volume, "phase", phase,
							NULL },
				 "1");
	lctl_prom_family(m, P "start_timestamp_seconds", "gauge", "when the run started");
	lctl_prom_sample(m, P "start_timestamp_seconds", vol, "%lld", (long long)mi->started);
	lctl_prom_family(m, P "last_update_timestamp_seconds", "gauge",
			 "when the run last wrote this file");
	lctl_prom_sample(m, P "last_update_timestamp_seconds", vol, "%lld", (long long)mi->updated);
	lctl_prom_family(m, P "last_progress_timestamp_seconds", "gauge",
			 "when a counter of the run last grew");
	lctl_prom_sample(m, P "last_progress_timestamp_seconds", vol, "%lld",
			 (long long)(mi->last_progress ? mi->last_progress : mi->started));
	if (mi->last_success > 0) {
		lctl_prom_family(m, P "last_success_timestamp_seconds", "gauge",
				 "when a run of the volume last ended with exit status 0");
		lctl_prom_sample(m, P "last_success_timestamp_seconds", vol, "%lld",
				 (long long)mi->last_success);
	}
	if (mi->exit_code >= 0) {
		lctl_prom_family(m, P "exit_code", "gauge",
				 "the exit status of the run (0 clean, 1 files failed or left, "
				 "3 could not run, 130 interrupted)");
		lctl_prom_sample(m, P "exit_code", vol, "%d", mi->exit_code);
	}
	for (k = 0; k < C_COUNT; k++) {
		lctl_prom_family(m, counters[k].name, "counter", counters[k].help);
		for (i = 0; i < n; i++) {
			const char *l[] = { "volume", mi->volume, "server", r[i].server, NULL };

			lctl_prom_sample(m, counters[k].name, l, "%llu",
					 (unsigned long long)r[i].c[k]);
		}
	}
	if (lctl_prom_text(m))
		out = strdup(lctl_prom_text(m));
	lctl_prom_free(m);
	return out;
}

int lctl_metrics_write(const char *path, const char *text, struct lctl_error *err)
{
	return lctl_output_replace(path, text, strlen(text), 0644, err);
}
