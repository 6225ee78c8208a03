/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a run's published status, STATE_DIR/progress.json.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_PROGRESSFILE_H
#define LAYOUTCTL_PROGRESSFILE_H

#include "base.h"
#include "volume.h"
#include "scan.h"
#include "fix.h"

/* ------------------------------------------------------------------------------------------ */
/* A run's published status (STATE_DIR/progress.json), lib/progressfile.c                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * A running job builds one status object a second (lctl_status_build()), writes it as
 * STATE_DIR/progress.json (lctl_status_write()); `layoutctl status` and `top` read it back
 * (lctl_status_read()), and the dashboard draws such objects, from this process or the file.
 * The object is a json-c object (json-c is lib's one format library): its strings are raw
 * (a path as the volume gave it); the file holds them escaped (lctl_json_escape_tree()) and
 * lctl_status_read() gives them back raw, so every sink escapes them once.
 */
struct json_object;

#define LCTL_STATUS_FILE "progress.json"
#define LCTL_STATUS_MAX (1 << 20) /* a progress.json this big or bigger is refused */
#define LCTL_RATE_SAMPLES 128

/* Samples for rates over the last 10 s and 60 s, and the ETA. Zero it to start. */
struct lctl_rate_tracker {
	double t[LCTL_RATE_SAMPLES];
	double dirs[LCTL_RATE_SAMPLES], files[LCTL_RATE_SAMPLES], bytes[LCTL_RATE_SAMPLES];
	unsigned head, n;
	double last;
};

/* What the front end knows of the run and the progress snapshot does not say. */
struct lctl_status_info {
	const char *command; /* "fix", "drain", "scan" */
	const char *volume;
	const char *path;
	const char *mode, *layout;
	const char *state; /* running, paused, stopping, finished, stopped, failed */
	const char *phase;
	bool dry_run;
	time_t started;
	int exit_code;	  /* -1 while running */
	const char *step; /* preflight: what the front end is doing (NULL: none) */
};

/* Per-subvolume data share now and under the planned layout, summed from the reports. */
struct lctl_share_tracker {
	size_t n;
	const char **names;  /* borrowed from the volume */
	double *bytes_now;   /* data bytes believed on each subvolume */
	double *target_ring; /* summed planned ring share over directories */
	uint64_t dirs;
	bool first_pass; /* reports of a clean-first run's first pass seen */
};

/* The last LCTL_ERROR_RING errors of a run, for the dashboard. Zero it to start. */
#define LCTL_ERROR_RING 8
struct lctl_error_ring {
	char msg[LCTL_ERROR_RING][200];
	unsigned next, n;
};

/*
 * struct lctl_eta - what is left of a run and when it ends, as its status says it
 * (lctl_status_eta()): the directories the walk will find; for a fix, the files and bytes
 * the plans of the directories inspected so far move (@plan_*), the same projected over
 * all the directories (@files_to_move, @bytes_to_move), what is left of them; the ETA in
 * seconds (-1: not known), the longest of the directories, files and bytes left at their
 * rates over the last minute, @basis naming which; and with a time window (@window_left
 * seconds of it, -1: none), what will be left at its end for the next run.
 */
struct lctl_eta {
	uint64_t est_dirs;
	uint64_t plan_files, plan_bytes, plan_dirs;
	double files_to_move, bytes_to_move;
	double dirs_left, files_left, bytes_left;
	double eta;
	const char *basis; /* "directories", "files", "bytes"; NULL: no ETA */
	double window_left;
	double dirs_at_end, files_at_end, bytes_at_end;
};

/** lctl_status_eta() - @e from @p and @rt; @fix: a fix's (files and bytes to move). */
void lctl_status_eta(const struct lctl_progress *p, const struct lctl_rate_tracker *rt, bool fix,
		     struct lctl_eta *e);

/** lctl_rate_sample() - add a sample at @now (seconds); one per half second is kept. */
void lctl_rate_sample(struct lctl_rate_tracker *rt, double now, uint64_t dirs, uint64_t files,
		      uint64_t bytes);
/** lctl_error_ring_add() - add a message (truncated to 199 bytes), the oldest dropped. */
void lctl_error_ring_add(struct lctl_error_ring *er, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/**
 * lctl_share_init() - a tracker for @vol's subvolumes (their names borrowed from @vol).
 * Return: 0, or -LCTL_ENOMEM with an empty tracker (no rows). Release it either way.
 */
int lctl_share_init(struct lctl_share_tracker *st, const struct lctl_volume *vol);
void lctl_share_release(struct lctl_share_tracker *st);
/** lctl_share_add() - count a directory's report: its bytes, planned ranges and moves. */
void lctl_share_add(struct lctl_share_tracker *st, const struct lctl_repair_report *rr);

/**
 * lctl_status_build() - the status object of a run: @si, @p and, when given, @sum (a fix's
 * outcomes), @rt (rates, ETA), @st (subvolume shares), @er (recent errors). Keys: see
 * lib/progressfile.c. Its strings are raw.
 * Return: a new object the caller owns (json_object_put()), or NULL without memory.
 */
struct json_object *
lctl_status_build(const struct lctl_status_info *si, const struct lctl_progress *p,
		  const struct lctl_fix_summary *sum, const struct lctl_rate_tracker *rt,
		  const struct lctl_share_tracker *st, const struct lctl_error_ring *er);
/** lctl_status_servers_json() - the "servers" array of a fix spread over the pool. Owned. */
struct json_object *lctl_status_servers_json(const struct lctl_progress *p);
/**
 * lctl_status_serialize() - @status as the bytes of a progress.json: one line of JSON, every
 * string escaped, and a newline. @status itself is not changed.
 * Return: a malloc'ed NUL-terminated string the caller frees, or NULL without memory.
 */
char *lctl_status_serialize(struct json_object *status);
/**
 * lctl_status_parse() - the status object in @len bytes of a progress.json, its strings raw
 * again. Refused (-LCTL_ECORRUPT): LCTL_STATUS_MAX bytes or more, a NUL byte, anything but
 * one JSON object and white space (a truncated file, a second document after it).
 * @name: the file's name for the message. Return: a new object the caller owns, or NULL.
 */
struct json_object *lctl_status_parse(const char *buf, size_t len, const char *name,
				      struct lctl_error *err);
/**
 * lctl_status_write() - replace DIR/progress.json by @status (lctl_state_write(): a fresh
 * temporary renamed over it, mode 0600). Return: 0 or a negative LCTL_E*.
 */
int lctl_status_write(const char *dir, struct json_object *status, struct lctl_error *err);
/**
 * lctl_status_read() - read DIR/progress.json (lctl_state_read(): never a FIFO, a device, a
 * link, nor LCTL_STATUS_MAX bytes or more) and parse it (lctl_status_parse()).
 * Return: a new object the caller owns, or NULL with @err (-LCTL_EINVAL with sys_errno
 * ENOENT when absent).
 */
struct json_object *lctl_status_read(const char *dir, struct lctl_error *err);
/* The member of the status object @o at the dotted @path ("directories.done"; each key under
 * 64 bytes), borrowed from @o; NULL when absent. */
struct json_object *lctl_status_get(struct json_object *o, const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Prometheus text exposition: scan --format prometheus, fix --metrics-file, lib/metricsfile.c */
/* ------------------------------------------------------------------------------------------ */

/*
 * The one writer of the exposition format (node_exporter's textfile collector reads it): a
 * family is its "# HELP" and "# TYPE" lines, then its samples; a label value is escaped as
 * every string is (lib/escape.c: no control byte, no newline, valid UTF-8), then backslash
 * and double quote take the format's own backslash.
 */
struct lctl_prom;

/** lctl_prom_new() - an empty exposition; NULL without memory. Free it (lctl_prom_free()). */
struct lctl_prom *lctl_prom_new(void);
/** lctl_prom_family() - start the family @name: its HELP (@help, ASCII) and TYPE lines. */
void lctl_prom_family(struct lctl_prom *m, const char *name, const char *type, const char *help);
/**
 * lctl_prom_sample() - one sample of @name: @labels, pairs of a label name and its raw value
 * ended by a NULL name (NULL: no labels), then the value printed by @fmt.
 */
void lctl_prom_sample(struct lctl_prom *m, const char *name, const char *const *labels,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** lctl_prom_text() - the text so far, borrowed from @m; NULL if an append ran out of memory. */
const char *lctl_prom_text(const struct lctl_prom *m);
void lctl_prom_free(struct lctl_prom *m);
/** lctl_prom_label_dup() - @s as a label value (the quotes not included); NULL without memory. */
char *lctl_prom_label_dup(const char *s);

/* The metrics of a fix or drain run (fix --metrics-file): what the progress does not say. */
struct lctl_metrics_info {
	const char *command; /* "fix", "drain" */
	const char *volume;
	const char *host;    /* the server of a run not spread over the pool: this host */
	bool running;	     /* false once the run ended */
	const char *phase;   /* the progress's phase, or "done" */
	time_t started;	     /* seconds since the epoch */
	time_t updated;	     /* when this text was made */
	int exit_code;	     /* the run's exit status; -1 while it runs */
	time_t last_success; /* the last run of this volume that ended with exit 0; 0: unknown */
	/* lctl_metrics_note(): when the counters last grew, and their sum then */
	time_t last_progress;
	uint64_t last_sum;
};

/**
 * lctl_metrics_note() - note @p at @now: when any counter of it grew since the last call,
 * @mi->last_progress becomes @now (the first call starts it).
 */
void lctl_metrics_note(struct lctl_metrics_info *mi, const struct lctl_progress *p, time_t now);
/**
 * lctl_metrics_render() - the metrics of a run: per server (each of the pool's when the run is
 * spread over it, else @mi->host with the run's totals) files moved and failed, bytes moved,
 * directories done (counters); the run's phase, running, start, update, last progress, last
 * success and exit code (gauges), every family prefixed layoutctl_fix_ and labelled with
 * the volume. Families: see lib/metricsfile.c.
 * Return: a malloc'ed NUL-terminated text the caller frees, or NULL without memory.
 */
char *lctl_metrics_render(const struct lctl_metrics_info *mi, const struct lctl_progress *p);
/**
 * lctl_metrics_write() - replace the file @path (absolute) by @text, as
 * lctl_output_replace() does: mode 0644, so that node_exporter can read it.
 * Return: 0 or a negative LCTL_E* with a one-line message.
 */
int lctl_metrics_write(const char *path, const char *text, struct lctl_error *err);

#endif /* LAYOUTCTL_PROGRESSFILE_H */
