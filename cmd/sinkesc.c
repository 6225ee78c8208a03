/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strings at the front end's sinks, escaped with lib/escape.c's one escaping (see output.h for
 * which sink uses which): text on stdout and the dashboard, json trees (Prometheus labels:
 * lib/metricsfile.c's writer).
 */
#include "sinkesc.h"
#include "layoutctl.h"

#include <stdlib.h>
#include <string.h>

char *out_name_dup(const char *s)
{
	char *e = lctl_escape_dup(s);

	if (!e)
		abort();
	return e;
}

const char *out_esc(const char *s)
{
	static _Thread_local char *ring[OUT_ESC_RING];
	static _Thread_local unsigned next;
	char **slot = &ring[next++ % OUT_ESC_RING];

	free(*slot);
	*slot = out_name_dup(s ? s : "");
	return *slot;
}

/* lib/escape.c's one walk; cmd dies without memory */
void out_escape_tree(struct json_object *j)
{
	if (lctl_json_escape_tree(j))
		abort();
}

void out_unescape_tree(struct json_object *j)
{
	if (lctl_json_unescape_tree(j))
		abort();
}
