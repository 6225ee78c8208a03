/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text from the records JSON and XML are written from.
 *
 * A command builds each record once, as a json_object, and hands it to cmd/output.c. JSON
 * and XML walk it generically; text walks it through the command's view: a table of lines
 * per top-level member or list (struct out_block), each line a template whose fields name
 * keys of the record. So the labels and the order of the text live in one table per command,
 * the values in the record, and a key the record lacks cannot be printed.
 *
 * A template is text with fields in braces:
 *   {path}              the value (a string escaped with out_esc(), an integer, a double, a
 *                       boolean as true/false, null or absent as "-")
 *   {path:SPEC}         formatted with a printf width and precision ("-28", "8.1", "08x")
 *   {path|f1|f2:SPEC}   passed through filters first (bytes, pct, onoff, hex, len, many, set,
 *                       ctime, localtime, or the view's own), each a json value in, a json
 *                       value out
 *   {path|f?YES~NO}     YES if the (filtered) value is true (non-zero, non-empty, true),
 *                       else NO; both are templates
 *   {*path:TEMPLATE}    TEMPLATE once per item of an array (or member of an object)
 * A path is dotted keys below the current record ("summary.entries.placed"), "$KEY..." from
 * the document's top-level members seen so far, "^KEY..." from the record that holds the
 * current one, "." the current value, "@" the key of the current member in an object walk
 * (the index of the current item in an array walk).
 * A line's "each" repeats it per item, its "when" ("a&!b|f") prints it only when every term
 * (a path and its filters) is true (a "!" term false).
 *
 * Every path a view reads (to print it or to decide on a line) is recorded, with array indices
 * generalised to "[]", so tests can compare the fields text shows with the fields JSON and XML
 * carry (`layoutctl __render --check`); a view names the fields it leaves to the machine
 * formats in "hidden".
 */
#ifndef LCTL_TEXTVIEW_H
#define LCTL_TEXTVIEW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

struct out_rctx;

/* A filter: @v (borrowed, may be NULL) in, a new value out (owned by the caller, may be NULL). */
typedef struct json_object *(*out_filter_fn)(struct out_rctx *c, struct json_object *v);

struct out_filter {
	const char *name;
	out_filter_fn fn;
};

struct out_line {
	const char *each; /* NULL, or an array or object: the line once per item */
	const char *when; /* NULL, or "a&!b" */
	const char *fmt;  /* the template; NULL ends a table */
};

struct out_block {
	const char *key;	      /* the member or list; NULL ends the table */
	const struct out_line *head;  /* a list: once, at its start, over the document */
	const struct out_line *lines; /* the member, or each item of the list */
	bool list;		      /* streamed with out_list_begin() and out_item() */
};

struct out_view {
	const char *command;
	const struct out_block *blocks;
	/* generalised paths JSON and XML have and text need not show (and what is below them):
	 * never, or only in some records; "path@cond": only in documents whose dotted cond
	 * (from the top, "!" negates) is true */
	const char *const *hidden;
	const struct out_filter *filters;
};

/* A set of strings (generalised field paths). */
struct out_fields {
	char **v;
	size_t n, cap;
};

void out_fields_add(struct out_fields *s, const char *path);
bool out_fields_has(const struct out_fields *s, const char *path);
void out_fields_free(struct out_fields *s);
/* Every leaf below @j (scalar, null, empty array or object) as a generalised path. */
void out_leaf_paths(struct json_object *j, const char *prefix, struct out_fields *s);

/*
 * Print the lines of @view's block @key to @f: its head (@head true, the record is the
 * document) or its lines over @rec. @doc holds the top-level members seen so far; @path is
 * @rec's generalised path ("summary", "directories[]"). Paths read go into @read (or nowhere).
 */
void out_text_block(FILE *f, const struct out_view *view, const char *key, bool head,
		    struct json_object *doc, struct json_object *rec, const char *path,
		    struct out_fields *read);

/* @key is one of @view's lists (not a member, even if an array). */
bool out_view_is_list(const struct out_view *view, const char *key);

/* For a view's filters: the value at @path (recorded as read), or NULL. Borrowed. */
struct json_object *out_rget(struct out_rctx *c, const char *path);

/* The views of the commands, for their output and for `layoutctl __render`. */
extern const struct out_view scan_view, fix_view, drain_view, info_view, explain_view, status_view;

#endif
