/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "output.h"
#include "cli.h"

#include <libxml/xmlwriter.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XC(s) ((const xmlChar *)(s))

struct out {
	unsigned fmt;
	FILE *f;
	xmlTextWriterPtr xw;
	const char *list_key;	/* current list, NULL outside */
	bool first_member;	/* JSON: no comma before the next top-level member */
	bool first_item;	/* JSON: no comma before the next list item */
};

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
	xmlTextWriterWriteFormatAttribute(o->xw, XC("formatVersion"), "%d",
					  OUTPUT_FORMAT_VERSION);
	xmlTextWriterWriteAttribute(o->xw, XC("command"), XC(command));
	return o;
}

static void singular(const char *key, char *buf, size_t n)
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
		json_object_object_foreach(v, k, child)
			xml_value(xw, k, child);
		xmlTextWriterEndElement(xw);
		break;
	case json_type_array:
		singular(key, item, sizeof(item));
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
		xmlTextWriterWriteElement(xw, XC(key),
					  XC(json_object_get_boolean(v) ? "1" : "0"));
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
	if (o->fmt == FMT_JSON)
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
	if (o->fmt == FMT_JSON) {
		fprintf(o->f, "%s%s", o->first_item ? "\n" : ",\n",
			json_object_to_json_string_ext(rec, json_flags));
	} else {
		singular(o->list_key, item, sizeof(item));
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
	else
		xmlTextWriterEndElement(o->xw);
	o->list_key = NULL;
}

void out_member(struct out *o, const char *key, struct json_object *val)
{
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
	if (o->fmt == FMT_JSON) {
		if (op_ret) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "op_errno", json_object_new_int(op_errno));
			json_object_object_add(e, "message", json_object_new_string(errstr ? errstr : ""));
			fprintf(o->f, ",\"error\":%s", json_object_to_json_string_ext(e, json_flags));
			json_object_put(e);
		}
		fputs("}\n", o->f);
	} else {
		xmlTextWriterEndElement(o->xw); /* layoutctl */
		/* the GlusterFS CLI puts the status first; libxml2's writer streams, so we put it
		 * last, with the same element names */
		xmlTextWriterWriteFormatElement(o->xw, XC("opRet"), "%d", op_ret ? -1 : 0);
		xmlTextWriterWriteFormatElement(o->xw, XC("opErrno"), "%d", op_errno);
		xmlTextWriterWriteElement(o->xw, XC("opErrstr"), XC(errstr ? errstr : ""));
		xmlTextWriterEndElement(o->xw); /* cliOutput */
		xmlTextWriterEndDocument(o->xw);
		xmlFreeTextWriter(o->xw);
	}
	free(o);
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *out_name_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cap = strlen(s) * 4 + 1, o = 0;
	char *buf = malloc(cap);

	if (!buf)
		abort();
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '\\') {
			buf[o++] = '\\';
			buf[o++] = '\\';
			p++;
		} else if (n && *p >= 0x20 && *p != 0x7f && !(p[0] == 0xc2 && p[1] < 0xa0)) {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			/*
			 * control characters too, C0, DEL and C1 (U+0080-U+009F, encoded c2 80 to
			 * c2 9f: U+009B is a CSI to many terminals): they would garble a terminal,
			 * and C0 ones are illegal in XML. A C1 character is escaped byte by byte.
			 */
			size_t k, m = n ? n : 1;

			for (k = 0; k < m; k++)
				o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", p[k]);
			p += m;
		}
	}
	buf[o] = '\0';
	return buf;
}

struct json_object *out_name(const char *s)
{
	char *e = out_name_dup(s);
	struct json_object *j = json_object_new_string(e);

	free(e);
	return j;
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

