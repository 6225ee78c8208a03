/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strings escaped for the front end's sinks (sinkesc.c); output.h says which sink uses which. */
#ifndef LCTL_SINKESC_H
#define LCTL_SINKESC_H

#include <json-c/json.h>

/* @s escaped for text output, malloc'ed: the caller frees it. */
char *out_name_dup(const char *s);
/* The same, borrowed: valid until OUT_ESC_RING more calls in this thread. NULL is "". */
#define OUT_ESC_RING 16
const char *out_esc(const char *s);
/* Escape every string value below @j in place (the keys are ours); and undo it. */
void out_escape_tree(struct json_object *j);
void out_unescape_tree(struct json_object *j);

#endif
