/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one escaping of strings that came from a volume or a file (names, paths, xattr values,
 * reasons and messages that quote them, strings read back from the status file).
 *
 * Records keep such strings raw; every sink (text on a terminal, messages on stderr, JSON,
 * XML, Prometheus labels, the dashboard, the status file) passes them through
 * lctl_escape_dup() or lctl_escape_to(). The result is valid UTF-8 made of characters that a
 * terminal shows as themselves and that XML 1.0 can carry:
 *
 *	backslash                                    \\
 *	a byte that is not part of valid UTF-8       \xHH (lowercase hex), byte by byte
 *	(overlong forms, surrogates, > U+10FFFF, truncated sequences)
 *	C0 controls U+0000-U+001F, DEL U+007F,       \xHH for each byte of its encoding
 *	C1 controls U+0080-U+009F (U+009B is a CSI),
 *	the 66 noncharacters U+FDD0-U+FDEF and
 *	U+xFFFE/U+xFFFF of every plane (U+FFFE and
 *	U+FFFF are not XML 1.0 Chars)
 *	anything else                                as is
 *
 * The mapping is lossless: lctl_unescape() gives the original bytes back (it is how strings
 * read back from a document we wrote become raw again). Pure; safe from any thread.
 *
 * A word of a line protocol (the pool's, lib/poolwire.c) takes the same escapes, stricter:
 * every byte outside printable ASCII but the space (0x21-0x7e) is \xHH, so that a word is
 * ASCII, holds no space or newline, and lctl_unescape() inverts it too.
 */
#include "layoutctl.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at @s and its code point; 0 if it is not one. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	/* a NUL ends the loop at the first continuation test: nothing past it is read */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* A character written as \xHH bytes although its encoding is valid. */
static bool cp_escaped(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xfdd0 && c <= 0xfdef) ||
	       (c & 0xfffe) == 0xfffe;
}

static const char hex[] = "0123456789abcdef";

/*
 * Walk @s; with @out, write the escaped form there (no NUL). Return the escaped length.
 */
static size_t escape(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n, k;
	uint32_t c = 0;

	while (*p) {
		n = utf8_decode(p, &c);
		if (*p == '\\') {
			if (out) {
				out[o] = '\\';
				out[o + 1] = '\\';
			}
			o += 2;
			p++;
		} else if (n && !cp_escaped(c)) {
			if (out)
				memcpy(out + o, p, n);
			o += n;
			p += n;
		} else {
			/* an invalid byte alone, or every byte of a character not shown as is */
			n = n ? n : 1;
			for (k = 0; k < n; k++, o += 4)
				if (out) {
					out[o] = '\\';
					out[o + 1] = 'x';
					out[o + 2] = hex[p[k] >> 4];
					out[o + 3] = hex[p[k] & 0xf];
				}
			p += n;
		}
	}
	return o;
}

bool lctl_escape_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	for (; *p; p += n) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
			n = 1;
			continue;
		}
		n = utf8_decode(p, &c);
		if (!n || *p == '\\' || cp_escaped(c))
			return true;
	}
	return false;
}

size_t lctl_escape_len(const char *s)
{
	return escape(s, NULL);
}

size_t lctl_escape_to(char *out, const char *s)
{
	size_t n = escape(s, out);

	out[n] = '\0';
	return n;
}

char *lctl_escape_dup(const char *s)
{
	char *out = malloc(escape(s, NULL) + 1);

	if (out)
		lctl_escape_to(out, s);
	return out;
}

static int unhex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t lctl_unescape(char *s)
{
	char *r = s, *w = s;
	int h, l;

	while (*r) {
		if (r[0] == '\\' && r[1] == '\\') {
			*w++ = '\\';
			r += 2;
		} else if (r[0] == '\\' && r[1] == 'x' && (h = unhex((unsigned char)r[2])) >= 0 &&
			   (l = unhex((unsigned char)r[3])) >= 0 && (h || l)) {
			*w++ = (char)(h << 4 | l);
			r += 4;
		} else {
			/* not one of ours (\x00 included: it would cut the string): kept as it is */
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

size_t lctl_escape_word_to(char *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	for (; *p; p++) {
		if (*p == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else if (*p > 0x20 && *p < 0x7f) {
			out[o++] = (char)*p;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 0xf];
		}
	}
	out[o] = '\0';
	return o;
}

bool lctl_unescape_word(char *s)
{
	const char *r;

	for (r = s; *r; r++) {
		if ((unsigned char)*r <= 0x20 || (unsigned char)*r >= 0x7f)
			return false;
		if (*r != '\\')
			continue;
		if (r[1] == '\\') {
			r++;
			continue;
		}
		if (r[1] != 'x' || unhex((unsigned char)r[2]) < 0 ||
		    unhex((unsigned char)r[3]) < 0 || (r[2] == '0' && r[3] == '0'))
			return false;
		r += 3;
	}
	lctl_unescape(s);
	return true;
}

/*
 * Escape (or unescape) every string value below @j in place: the one walk of the documents,
 * the status file and the outcome log. Keys are ours, never escaped.
 */
static int walk_strings(struct json_object *j, bool un)
{
	int ret = 0;
	size_t i;

	switch (json_object_get_type(j)) {
	case json_type_object:
		json_object_object_foreach(j, k, child)
		{
			(void)k;
			ret |= walk_strings(child, un);
		}
		break;
	case json_type_array:
		for (i = 0; i < json_object_array_length(j); i++)
			ret |= walk_strings(json_object_array_get_idx(j, i), un);
		break;
	case json_type_string: {
		const char *v = json_object_get_string(j);
		char *x;

		if (un && !strchr(v, '\\'))
			break;
		if (!un && !lctl_escape_needed(v))
			break;
		x = un ? strdup(v) : lctl_escape_dup(v);
		if (!x)
			return -LCTL_ENOMEM;
		if (un)
			lctl_unescape(x);
		if (json_object_set_string(j, x) != 1)
			ret = -LCTL_ENOMEM;
		free(x);
		break;
	}
	default:
		break;
	}
	return ret ? -LCTL_ENOMEM : 0;
}

int lctl_json_escape_tree(struct json_object *j)
{
	return walk_strings(j, false);
}

int lctl_json_unescape_tree(struct json_object *j)
{
	return walk_strings(j, true);
}

char *lctl_json_line(struct json_object *j, int flags)
{
	const char *s;
	char *buf;
	size_t len;

	if (lctl_json_escape_tree(j))
		return NULL;
	s = json_object_to_json_string_ext(j, flags);
	if (!s)
		return NULL;
	len = strlen(s);
	buf = malloc(len + 2);
	if (!buf)
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	return buf;
}
