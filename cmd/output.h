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
 * Strings from the volume or from a file may hold any byte but NUL. Records keep them raw; every
 * sink escapes every string it writes with lctl_escape_dup() (lib/escape.c): the document
 * writer here (out_item(), out_member(), out_close()), the outcome log and the status file
 * (lib: lctl_json_escape_tree()), text on stdout (out_esc(), out_name_dup()), messages on
 * stderr (msg.c), Prometheus labels (lib: lctl_prom_sample()) and the dashboard (out_esc()). Valid
 * UTF-8 stays as is; controls, noncharacters and each byte of an invalid sequence become
 * "\xHH", a backslash "\\": the mapping is lossless (out_unescape_tree() undoes it for
 * documents read back) and every document stays valid JSON and XML.
 */
#ifndef LCTL_OUTPUT_H
#define LCTL_OUTPUT_H

#include <json-c/json.h>
#include "layoutctl.h"
#include "sinkesc.h"
#include <stdio.h>

#define OUTPUT_FORMAT_VERSION 1

struct out;
struct out_view;
struct out_fields;

/* Start a document for @command; NULL for FMT_TEXT (every other call accepts NULL). */
struct out *out_open(unsigned fmt, FILE *f, const char *command);
/* The same, and for FMT_TEXT a document printed through @view (textview.h): each member and
 * list item as the view's lines for its key, the same records as JSON and XML. */
struct out *out_open_view(unsigned fmt, FILE *f, const char *command, const struct out_view *view);
/* Text: record every field the view reads into @read (for tests; NULL stops). */
void out_track(struct out *o, struct out_fields *read);
/* "key": [ ... ] / <key> ... </key>, items added with out_item(). */
void out_list_begin(struct out *o, const char *key);
/* Print one record of the current list and release it (takes ownership of @rec). */
void out_item(struct out *o, struct json_object *rec);
void out_list_end(struct out *o);
/* A top-level "key": value member (takes ownership of @val). */
void out_member(struct out *o, const char *key, struct json_object *val);
/* End the document; @op_errno/@errstr describe a failure of the whole run (0/NULL if none). */
void out_close(struct out *o, int op_ret, int op_errno, const char *errstr);
/* The element name of an item of the list @key in XML: its singular ("bricks" -> "brick",
 * "entries" -> "entry"), into @buf. */
void out_item_name(const char *key, char *buf, size_t n);

/* A json string for a path or name from the volume, raw (escaped at the sink). Caller owns it. */
struct json_object *out_name(const char *s);

/* The moves of an @n x @n matrix ([from * n + to]: files, bytes) as a list of records
 * {from, to, files, bytes}, the pairs with files only, in order. */
struct json_object *out_move_matrix(struct lctl_volume *vol, size_t n, const uint64_t *files,
				    const uint64_t *bytes);
/*
 * Each subvolume's space before and after those moves (lctl_fill_project()): free now and
 * after, cluster.min-free-disk in bytes, what arrives and leaves, and whether the arrivals
 * cross min-free-disk (with about what would stay where it is).
 */
struct json_object *out_fill(struct lctl_volume *vol, size_t n, const uint64_t *files,
			     const uint64_t *bytes);
/* Subvolume @i's name, or NULL for -1 (none) and out of range. Borrowed from @vol. */
const char *out_subvol_name(struct lctl_volume *vol, int i);
/* The same as a json string, or json null. */
struct json_object *out_subvol(struct lctl_volume *vol, int i);
/* How a subvolume's copy of a directory's layout was read (struct lctl_layout_entry.err). */
const char *out_layout_state(int err);

#endif
