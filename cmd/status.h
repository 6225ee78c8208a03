/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A running job's published status (STATE_DIR/progress.json) and its control file.
 *
 * The job (fix) builds one json_object a second with status_build(), writes it atomically
 * with status_publish() and reads STATE_DIR/control with control_take(). `layoutctl status`
 * and `layoutctl top` read the same file, and the dashboard draws only such objects, whether
 * they come from this process or from the file. Keys: see status_build().
 */
#ifndef LCTL_STATUS_H
#define LCTL_STATUS_H

#include "layoutctl.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdbool.h>

#define STATUS_FILE "progress.json"
#define CONTROL_FILE "control"
#define STATUS_MAX (1 << 20) /* a bigger progress.json is refused */
#define RATE_SAMPLES 128

/* Samples for rates over the last 10 s and 60 s, and the ETA. */
struct rate_tracker {
	double t[RATE_SAMPLES];
	double dirs[RATE_SAMPLES], files[RATE_SAMPLES], bytes[RATE_SAMPLES];
	unsigned head, n;
	double last;
};

struct status_info {
	const char *command; /* "fix" */
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

/* Per-subvolume data share now and under the planned layout, kept by the job's front end. */
struct share_tracker {
	size_t n;
	const char **names;
	double *bytes_now;   /* data bytes believed on each subvolume */
	double *target_ring; /* summed planned ring share over directories */
	uint64_t dirs;
	bool first_pass; /* reports of a clean-first run's first pass seen */
};

#define ERROR_RING 8
struct error_ring {
	char msg[ERROR_RING][200];
	unsigned next, n;
};

void rate_sample(struct rate_tracker *rt, double now, uint64_t dirs, uint64_t files,
		 uint64_t bytes);
void error_ring_add(struct error_ring *er, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void share_init(struct share_tracker *st, struct lctl_volume *vol);
void share_release(struct share_tracker *st);
void share_add(struct share_tracker *st, const struct lctl_repair_report *rr);

struct json_object *status_build(const struct status_info *si, const struct lctl_progress *p,
				 const struct lctl_fix_summary *sum, const struct rate_tracker *rt,
				 const struct share_tracker *st, const struct error_ring *er);
/*
 * One line of text for the dashboard and `status`: the phase of @status, what it does and its
 * counters (the layout pass's directories, the seconds left of the settle period, ...). The
 * strings of @status go in as they are: the caller escapes the line.
 */
void status_phase_line(struct json_object *status, char *buf, size_t size);
/* Write @status as DIR/progress.json (tmp + rename), mode 0600. 0 or -errno. */
int status_publish(const char *dir, struct json_object *status);
/* The per-server rows of a fix spread over the pool (the "servers" array): how many, each
 * as a line of text under the header, and the whole table on @f (nothing without rows). */
size_t status_servers(struct json_object *status, struct json_object **rows);
/* The "servers" array itself, from a fix's progress (one object per server). */
struct json_object *status_servers_json(const struct lctl_progress *p);
extern const char *const status_server_header;
void status_server_row(struct json_object *row, char *buf, size_t size);
void status_print_servers(FILE *f, struct json_object *status);
/* Read DIR/progress.json (lctl_state_read()). NULL, with @err (optional) saying why, if absent,
 * unreadable, not a regular file, too big or not a JSON object. */
struct json_object *status_read(const char *dir, struct lctl_error *err);

/* Commands a dashboard in another process sends through DIR/control. */
enum control_cmd { CONTROL_NONE, CONTROL_PAUSE, CONTROL_RESUME, CONTROL_STOP, CONTROL_WORKERS };
int control_send(const char *dir, const char *cmd);
/* Take a pending command (renamed away, read, removed: lctl_state_take()); *workers for
 * CONTROL_WORKERS. A FIFO, a link or anything but a small regular file is dropped unread. */
enum control_cmd control_take(const char *dir, int *workers);

/* Convenience getters for status objects (0 / "" when absent). */
int64_t js_int(struct json_object *o, const char *path);
double js_double(struct json_object *o, const char *path);
const char *js_str(struct json_object *o, const char *path);

#endif
