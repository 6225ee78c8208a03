/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's status object rendered: its phase as a line, its per-server rows, and getters.
 *
 * The object, its file (STATE_DIR/progress.json) and the control file are lib's
 * (lib/progressfile.c, lib/controlfile.c: lctl_status_build(), lctl_status_write(),
 * lctl_status_read(), lctl_control_send(), lctl_control_take()); the dashboard, `status` and
 * `top` draw such objects, whether they come from this process or from the file.
 */
#ifndef LCTL_STATUSVIEW_H
#define LCTL_STATUSVIEW_H

#include "layoutctl.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdbool.h>

/*
 * One line of text for the dashboard and `status`: the phase of @status, what it does and its
 * counters (the layout pass's directories, the seconds left of the settle period, ...). The
 * strings of @status go in as they are: the caller escapes the line.
 */
void status_phase_line(struct json_object *status, char *buf, size_t size);
/*
 * The per-server table of a fix spread over the pool (the "servers" array), written once for
 * the fix's summary, `status` and the dashboard: the header, and the template of a row over
 * one item (cmd/textview.h). status_servers(): how many rows and the array;
 * status_server_row(): one row rendered through the template, for the dashboard.
 */
#define STATUS_SERVER_HEADER \
	"Server                   State         Dirs  Migrated  Skipped  Failed      Moved     Rate/s"
#define STATUS_SERVER_ROW \
	"{name:-24} {state:-9} {directories:8} {migrated:9} {skipped:8} {failed:7} " \
	"{bytes_moved|bytes:10} {bytes_per_sec|bytes:10}{error?  {error}~}" \
	"{held?  held {held.seconds} s: {held.reason}~}"
size_t status_servers(struct json_object *status, struct json_object **rows);
extern const char *const status_server_header;
void status_server_row(struct json_object *row, char *buf, size_t size);
/* Convenience getters for status objects (0 / "" when absent). */
int64_t js_int(struct json_object *o, const char *path);
double js_double(struct json_object *o, const char *path);
const char *js_str(struct json_object *o, const char *path);

#endif
