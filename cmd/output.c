/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "output.h"
#include "cli.h"
#include "textview.h"

#include <libxml/xmlwriter.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XC(s) ((const xmlChar *)(s))

struct out {
	unsigned fmt;
	FILE *f;
	xmlTextWriterPtr xw;
	const char *list_key; /* current list, NULL outside */
	bool first_member;    /* JSON: no comma before the next top-level member */
	bool first_item;      /* JSON: no comma before the next list item */
	/* text: the command's view, the top-level members so far, the fields it read */
	const struct out_view *view;
	struct json_object *doc;
	struct out_fields *read;
};

struct out *out_open_view(unsigned fmt, FILE *f, const char *command, const struct out_view *view)
{
	struct out *o;

	if (fmt != FMT_TEXT || !view)
		return out_open(fmt, f, command);
	o = calloc(1, sizeof(*o));
	if (!o)
		abort();
	o->fmt = fmt;
	o->f = f;
	o->view = view;
	o->doc = json_object_new_object();
	/* as JSON and XML say it first: "$command" in a template */
	json_object_object_add(o->doc, "command", json_object_new_string(command));
	return o;
}

void out_track(struct out *o, struct out_fields *read)
{
	if (o)
		o->read = read;
}

struct out *out_open(unsigned fmt, FILE *f, const char *command)
{
	struct out *o;

	if (fmt != FMT_JSON && fmt != FMT_XML)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		abort();
	o->fmt = fmt;
	o->f = f;
	if (fmt == FMT_JSON) {
		fprintf(f, "{\"format_version\":%d,\"command\":\"%s\"", OUTPUT_FORMAT_VERSION,
			command);
		return o;
	}
	/* libxml2 writes to a FILE through an output buffer; we flush it per record */
	o->xw = xmlNewTextWriter(xmlOutputBufferCreateFile(f, NULL));
	if (!o->xw)
		abort();
	xmlTextWriterSetIndent(o->xw, 1);
	xmlTextWriterSetIndentString(o->xw, XC("  "));
	xmlTextWriterStartDocument(o->xw, NULL, "UTF-8", "yes");
	xmlTextWriterStartElement(o->xw, XC("cliOutput"));
	xmlTextWriterStartElement(o->xw, XC("layoutctl"));
	xmlTextWriterWriteFormatAttribute(o->xw, XC("formatVersion"), "%d", OUTPUT_FORMAT_VERSION);
	xmlTextWriterWriteAttribute(o->xw, XC("command"), XC(command));
	return o;
}

void out_item_name(const char *key, char *buf, size_t n)
{
	size_t l = strlen(key);

	if (l > 3 && !strcmp(key + l - 3, "ies"))
		snprintf(buf, n, "%.*sy", (int)(l - 3), key);
	else if (l > 1 && key[l - 1] == 's')
		snprintf(buf, n, "%.*s", (int)(l - 1), key);
	else
		snprintf(buf, n, "%s", key);
}

static void xml_value(xmlTextWriterPtr xw, const char *key, struct json_object *v)
{
	char item[64];

	switch (json_object_get_type(v)) {
	case json_type_object:
		xmlTextWriterStartElement(xw, XC(key));
		json_object_object_foreach(v, k, child) xml_value(xw, k, child);
		xmlTextWriterEndElement(xw);
		break;
	case json_type_array:
		out_item_name(key, item, sizeof(item));
		xmlTextWriterStartElement(xw, XC(key));
		for (size_t i = 0; i < json_object_array_length(v); i++)
			xml_value(xw, item, json_object_array_get_idx(v, i));
		xmlTextWriterEndElement(xw);
		break;
	case json_type_null:
		xmlTextWriterStartElement(xw, XC(key));
		xmlTextWriterEndElement(xw);
		break;
	case json_type_boolean:
		xmlTextWriterWriteElement(xw, XC(key), XC(json_object_get_boolean(v) ? "1" : "0"));
		break;
	default:
		xmlTextWriterWriteElement(xw, XC(key), XC(json_object_get_string(v)));
		break;
	}
}

static const int json_flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

void out_list_begin(struct out *o, const char *key)
{
	if (!o)
		return;
	o->list_key = key;
	o->first_item = true;
	if (o->fmt == FMT_TEXT)
		out_text_block(o->f, o->view, key, true, o->doc, NULL, "", o->read);
	else if (o->fmt == FMT_JSON)
		fprintf(o->f, ",\"%s\":[", key);
	else
		xmlTextWriterStartElement(o->xw, XC(key));
}

void out_item(struct out *o, struct json_object *rec)
{
	char item[64];

	if (!o) {
		json_object_put(rec);
		return;
	}
	if (o->fmt == FMT_TEXT) {
		/* text escapes each string as it prints it */
		snprintf(item, sizeof(item), "%s[]", o->list_key);
		out_text_block(o->f, o->view, o->list_key, false, o->doc, rec, item, o->read);
		json_object_put(rec);
		o->first_item = false;
		return;
	}
	out_escape_tree(rec);
	if (o->fmt == FMT_JSON) {
		fprintf(o->f, "%s%s", o->first_item ? "\n" : ",\n",
			json_object_to_json_string_ext(rec, json_flags));
	} else {
		out_item_name(o->list_key, item, sizeof(item));
		xml_value(o->xw, item, rec);
		xmlTextWriterFlush(o->xw);
	}
	o->first_item = false;
	json_object_put(rec);
}

void out_list_end(struct out *o)
{
	if (!o)
		return;
	if (o->fmt == FMT_JSON)
		fputs("\n]", o->f);
	else if (o->fmt == FMT_XML)
		xmlTextWriterEndElement(o->xw);
	else if (o->read && o->first_item)
		out_fields_add(o->read, o->list_key); /* an empty list, shown as no lines */
	o->list_key = NULL;
}

void out_member(struct out *o, const char *key, struct json_object *val)
{
	if (o && o->fmt == FMT_TEXT) {
		/* kept for the lines of later blocks ("$key...") until out_close() */
		out_text_block(o->f, o->view, key, false, o->doc, val, key, o->read);
		json_object_object_add(o->doc, key, val);
		return;
	}
	out_escape_tree(val);
	if (o && o->fmt == FMT_JSON)
		fprintf(o->f, ",\"%s\":%s", key, json_object_to_json_string_ext(val, json_flags));
	else if (o)
		xml_value(o->xw, key, val);
	json_object_put(val);
}

void out_close(struct out *o, int op_ret, int op_errno, const char *errstr)
{
	if (!o)
		return;
	if (o->fmt == FMT_TEXT) {
		/* the failure itself went to stderr */
		json_object_put(o->doc);
	} else if (o->fmt == FMT_JSON) {
		if (op_ret) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "op_errno", json_object_new_int(op_errno));
			json_object_object_add(e, "message",
					       json_object_new_string(errstr ? errstr : ""));
			out_escape_tree(e);
			fprintf(o->f, ",\"error\":%s",
				json_object_to_json_string_ext(e, json_flags));
			json_object_put(e);
		}
		fputs("}\n", o->f);
	} else {
		xmlTextWriterEndElement(o->xw); /* layoutctl */
		/* the GlusterFS CLI puts the status first; libxml2's writer streams, so we put it
		 * last, with the same element names */
		xmlTextWriterWriteFormatElement(o->xw, XC("opRet"), "%d", op_ret ? -1 : 0);
		xmlTextWriterWriteFormatElement(o->xw, XC("opErrno"), "%d", op_errno);
		xmlTextWriterWriteElement(o->xw, XC("opErrstr"), XC(out_esc(errstr)));
		xmlTextWriterEndElement(o->xw); /* cliOutput */
		xmlTextWriterEndDocument(o->xw);
		xmlFreeTextWriter(o->xw);
	}
	free(o);
}

struct json_object *out_name(const char *s)
{
	return json_object_new_string(s);
}

struct json_object *out_move_matrix(struct lctl_volume *vol, size_t n, const uint64_t *files,
				    const uint64_t *bytes)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++) {
			if (!files[i * n + k])
				continue;
			o = json_object_new_object();
			json_object_object_add(o, "from", out_subvol(vol, (int)i));
			json_object_object_add(o, "to", out_subvol(vol, (int)k));
			json_object_object_add(o, "files",
					       json_object_new_int64((int64_t)files[i * n + k]));
			json_object_object_add(o, "bytes",
					       json_object_new_int64((int64_t)bytes[i * n + k]));
			json_object_array_add(a, o);
		}
	return a;
}

struct json_object *out_fill(struct lctl_volume *vol, size_t n, const uint64_t *files,
			     const uint64_t *bytes)
{
	struct json_object *a = json_object_new_array(), *o;
	struct lctl_fill *f = calloc(n ? n : 1, sizeof(*f));
	size_t i;

	if (!f)
		return a;
	lctl_fill_project(vol, files, bytes, f);
	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "subvolume", out_subvol(vol, (int)i));
		json_object_object_add(o, "known", json_object_new_boolean(f[i].known));
		if (f[i].known) {
			json_object_object_add(o, "size",
					       json_object_new_int64((int64_t)f[i].size));
			json_object_object_add(o, "free_now",
					       json_object_new_int64((int64_t)f[i].free_now));
			json_object_object_add(o, "free_after",
					       json_object_new_int64((int64_t)f[i].free_after));
			json_object_object_add(o, "min_free",
					       json_object_new_int64((int64_t)f[i].min_free));
		}
		json_object_object_add(o, "in_files",
				       json_object_new_int64((int64_t)f[i].in_files));
		json_object_object_add(o, "in_bytes",
				       json_object_new_int64((int64_t)f[i].in_bytes));
		json_object_object_add(o, "out_files",
				       json_object_new_int64((int64_t)f[i].out_files));
		json_object_object_add(o, "out_bytes",
				       json_object_new_int64((int64_t)f[i].out_bytes));
		json_object_object_add(o, "crosses_min_free",
				       json_object_new_boolean(f[i].crosses));
		if (f[i].crosses) {
			json_object_object_add(o, "refused_files",
					       json_object_new_int64((int64_t)f[i].refused_files));
			json_object_object_add(o, "refused_bytes",
					       json_object_new_int64((int64_t)f[i].refused_bytes));
		}
		json_object_object_add(o, "inodes_known",
				       json_object_new_boolean(f[i].inodes_known));
		if (f[i].inodes_known) {
			json_object_object_add(o, "inodes_free_now",
					       json_object_new_int64(
						       (int64_t)f[i].inodes_free_now));
			json_object_object_add(o, "inodes_free_after",
					       json_object_new_int64(
						       (int64_t)f[i].inodes_free_after));
			json_object_object_add(o, "inodes_min_free",
					       json_object_new_int64(
						       (int64_t)f[i].inodes_min_free));
		}
		json_object_object_add(o, "crosses_min_free_inodes",
				       json_object_new_boolean(f[i].crosses_inodes));
		if (f[i].crosses_inodes)
			json_object_object_add(o, "inodes_refused_files",
					       json_object_new_int64(
						       (int64_t)f[i].inodes_refused_files));
		json_object_array_add(a, o);
	}
	free(f);
	return a;
}

const char *out_subvol_name(struct lctl_volume *vol, int i)
{
	const struct lctl_subvol *sv = i >= 0 ? lctl_volume_subvol(vol, (size_t)i) : NULL;

	return sv ? sv->name : NULL;
}

struct json_object *out_subvol(struct lctl_volume *vol, int i)
{
	const char *n = out_subvol_name(vol, i);

	return n ? json_object_new_string(n) : NULL;
}

const char *out_layout_state(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case ENOENT:
		return "missing";
	case ENODATA:
		return "no-layout";
	case ENOTCONN:
		return "down";
	case EINVAL:
		return "malformed";
	case ENOTDIR:
		return "not-a-directory";
	case ESTALE:
		return "no-gfid"; /* not read: a lookup would have assigned one */
	default:
		return "error";
	}
}
