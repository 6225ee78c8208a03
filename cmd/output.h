/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Machine-readable output: one document per run, streamed.
 *
 * Commands build each record as a small json_object and hand it over; the writer prints it
 * at once (JSON) or converts it to elements (XML) and frees it, so memory does not grow with
 * the number of records. The keys are therefore defined once, in the command, for both
 * formats. JSON documents carry "format_version"; XML documents follow the GlusterFS CLI's
 * --xml habits: <cliOutput><opRet/><opErrno/><opErrstr/>...</cliOutput>.
 *
 * Arrays become a wrapper element holding one element per item, named by the singular of the
 * wrapper ("bricks" -> "brick", "directories" -> "directory", "entries" -> "entry").
 *
 * Strings from the volume may hold any byte but NUL. They are emitted through out_name(),
 * which keeps valid UTF-8 as is and writes each byte of an invalid sequence as "\xHH" (the
 * backslash itself as "\\"), so the mapping is lossless and the document stays valid.
 */
#ifndef LCTL_OUTPUT_H
#define LCTL_OUTPUT_H

#include <json-c/json.h>
#include "layoutctl.h"
#include <stdio.h>

#define OUTPUT_FORMAT_VERSION 1

struct out;

/* Start a document for @command; NULL for FMT_TEXT (every other call accepts NULL). */
struct out *out_open(unsigned fmt, FILE *f, const char *command);
/* "key": [ ... ] / <key> ... </key>, items added with out_item(). */
void out_list_begin(struct out *o, const char *key);
/* Print one record of the current list and release it (takes ownership of @rec). */
void out_item(struct out *o, struct json_object *rec);
void out_list_end(struct out *o);
/* A top-level "key": value member (takes ownership of @val). */
void out_member(struct out *o, const char *key, struct json_object *val);
/* End the document; @op_errno/@errstr describe a failure of the whole run (0/NULL if none). */
void out_close(struct out *o, int op_ret, int op_errno, const char *errstr);

/* A json string for a path or name from the volume (see above). Caller owns it. */
struct json_object *out_name(const char *s);
/* Escape @s the same way into a malloc'ed string for text output. */
char *out_name_dup(const char *s);

/* Subvolume @i's name, or NULL for -1 (none) and out of range. Borrowed from @vol. */
const char *out_subvol_name(struct lctl_volume *vol, int i);
/* The same as a json string, or json null. */
struct json_object *out_subvol(struct lctl_volume *vol, int i);
/* How a subvolume's copy of a directory's layout was read (struct lctl_layout_entry.err). */
const char *out_layout_state(int err);

#endif
