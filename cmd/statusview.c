/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "statusview.h"
#include "cli.h"
#include "output.h"
#include "progress.h"
#include "textview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void status_phase_line(struct json_object *st, char *buf, size_t size)
{
	const char *ph = js_str(st, "phase");
	long long done = (long long)js_int(st, "directories.done");
	long long seen = (long long)js_int(st, "directories.seen");
	struct json_object *a;
	size_t i, n, ready = 0;

	if (!strcmp(ph, "preflight")) {
		n = status_servers(st, &a);
		for (i = 0; i < n; i++)
			ready += !!strcmp(js_str(json_object_array_get_idx(a, i), "state"),
					  "starting");
		if (js_str(st, "step")[0])
			snprintf(buf, size, "Preflight   %s", js_str(st, "step"));
		else if (n)
			snprintf(buf, size,
				 "Preflight   the servers' workers connect to the volume: "
				 "%zu of %zu ready",
				 ready, n);
		else
			snprintf(buf, size, "Preflight   checking the volume");
	} else if (!strcmp(ph, "layout")) {
		snprintf(buf, size,
			 "Layout pass %lld of %lld directories seen have their final "
			 "layout, dirty (commit 1)",
			 done, seen);
	} else if (!strcmp(ph, "settle")) {
		snprintf(buf, size,
			 "Settle      %.0f s left of %.0f s: clients learn the new layouts "
			 "before anything moves",
			 ceil(js_double(st, "settle.remaining_seconds")),
			 js_double(st, "settle.seconds"));
	} else if (!strcmp(ph, "place")) {
		snprintf(buf, size,
			 "Placing     each server's worker moves the files on its own bricks");
	} else if (!strcmp(ph, "work")) {
		snprintf(buf, size, "%s %lld of %lld directories seen",
			 js_int(st, "dry_run")			 ? "Planning   "
			 : strcmp(js_str(st, "mode"), "migrate") ? "Linking, verifying, stamping:"
								 : "Placing, verifying, stamping:",
			 done, seen);
	} else if (!strcmp(ph, "top")) {
		snprintf(buf, size, "Top         the top directory, last");
	} else if (!strcmp(ph, "data")) {
		snprintf(buf, size,
			 "Data        moving the data behind the links, every directory "
			 "clean: %lld of %lld directories seen",
			 done, seen);
	} else if (!strcmp(ph, "scan")) {
		snprintf(buf, size, "Scan        %lld of %lld directories seen inspected", done,
			 seen);
	} else {
		snprintf(buf, size, "Phase       %s", ph);
	}
	/* inside a big directory: how far in it (the directory count stands still meanwhile) */
	if (lctl_status_get(st, "directory_in_progress")) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, "; in %s: %lld of %lld entries",
			 js_str(st, "directory_in_progress.path"),
			 (long long)js_int(st, "directory_in_progress.entries_done"),
			 (long long)js_int(st, "directory_in_progress.entries_seen"));
	}
}

int64_t js_int(struct json_object *o, const char *path)
{
	return json_object_get_int64(lctl_status_get(o, path));
}

double js_double(struct json_object *o, const char *path)
{
	return json_object_get_double(lctl_status_get(o, path));
}

const char *js_str(struct json_object *o, const char *path)
{
	struct json_object *v = lctl_status_get(o, path);

	return v ? json_object_get_string(v) : "";
}

const char *const status_server_header = STATUS_SERVER_HEADER;

/* A view of one row: the template `status` and the fix's summary print each server with. */
static const struct out_line server_row_lines[] = {
	{ NULL, NULL, STATUS_SERVER_ROW },
	{ NULL, NULL, NULL },
};
static const struct out_block server_row_blocks[] = {
	{ "row", NULL, server_row_lines, false },
	{ NULL, NULL, NULL, false },
};
static const struct out_view server_row_view = { "status", server_row_blocks, NULL, NULL };

void status_server_row(struct json_object *o, char *buf, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	buf[0] = '\0';
	if (!f)
		return;
	out_text_block(f, &server_row_view, "row", false, o, o, "servers[]", NULL);
	if (fclose(f) || !text) {
		free(text);
		return;
	}
	len = strcspn(text, "\n"); /* the line, without its end */
	snprintf(buf, size, "%.*s", (int)len, text);
	free(text);
}

size_t status_servers(struct json_object *st, struct json_object **rows)
{
	if (!json_object_object_get_ex(st, "servers", rows) ||
	    !json_object_is_type(*rows, json_type_array))
		return 0;
	return json_object_array_length(*rows);
}
