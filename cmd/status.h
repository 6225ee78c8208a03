/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's status object rendered: its phase as a line, its per-server rows, and getters.
 *
 * The object, its file (STATE_DIR/progress.json) and the control file are lib's
 * (lib/progressfile.c, lib/controlfile.c: lctl_status_build(), lctl_status_write(),
 * lctl_status_read(), lctl_control_send(), lctl_control_take()); the dashboard, `status` and
 * `top` draw such objects, whether they come from this process or from the file.
 */
#ifndef LCTL_STATUS_H
#define LCTL_STATUS_H

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
/* The per-server rows of a fix spread over the pool (the "servers" array): how many, each
 * as a line of text under the header, and the whole table on @f (nothing without rows). */
size_t status_servers(struct json_object *status, struct json_object **rows);
extern const char *const status_server_header;
void status_server_row(struct json_object *row, char *buf, size_t size);
void status_print_servers(FILE *f, struct json_object *status);
/* Convenience getters for status objects (0 / "" when absent). */
int64_t js_int(struct json_object *o, const char *path);
double js_double(struct json_object *o, const char *path);
const char *js_str(struct json_object *o, const char *path);

#endif
