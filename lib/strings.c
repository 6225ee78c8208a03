/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small string helpers of the library: the growing buffer (struct lbuf, internal.h), the
 * string vector (struct lctl_strv) and the comparison of string pointers, and volume paths
 * joined from a directory and a name.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char lbuf_empty[1];

int lctl_cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lctl_strv_add(struct lctl_strv *l, const char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -LCTL_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -LCTL_ENOMEM;
	l->n++;
	return 0;
}

void lctl_strv_free(struct lctl_strv *l)
{
	while (l->n)
		free(l->v[--l->n]);
	free(l->v);
	*l = (struct lctl_strv){ 0 };
}

void lbuf_init(struct lbuf *b)
{
	b->buf = lbuf_empty;
	b->len = 0;
	b->alloc = 0;
	b->oom = false;
	b->secret = false;
}

void lbuf_release(struct lbuf *b)
{
	if (b->alloc) {
		if (b->secret)
			explicit_bzero(b->buf, b->alloc);
		free(b->buf);
	}
	lbuf_init(b);
}

static bool lbuf_grow(struct lbuf *b, size_t extra)
{
	size_t want;
	char *p;

	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->alloc)
		return true;
	want = b->alloc ? b->alloc : 64;
	while (want < b->len + extra + 1)
		want *= 2;
	if (b->secret && b->alloc) {
		/* not realloc(): it would leave the old copy in freed memory */
		p = malloc(want);
		if (p) {
			memcpy(p, b->buf, b->len + 1);
			explicit_bzero(b->buf, b->alloc);
			free(b->buf);
		}
	} else {
		p = b->alloc ? realloc(b->buf, want) : malloc(want);
	}
	if (!p) {
		b->oom = true;
		return false;
	}
	if (!b->alloc)
		p[0] = '\0';
	b->buf = p;
	b->alloc = want;
	return true;
}

void lbuf_add(struct lbuf *b, const void *data, size_t len)
{
	if (!lbuf_grow(b, len))
		return;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void lbuf_addf(struct lbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !lbuf_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *lbuf_detach(struct lbuf *b)
{
	char *p = NULL;

	if (!b->oom) {
		p = b->alloc ? b->buf : strdup("");
	} else if (b->alloc) {
		if (b->secret)
			explicit_bzero(b->buf, b->alloc);
		free(b->buf);
	}
	lbuf_init(b);
	return p;
}

int lctl_path_join_to(char *buf, size_t n, const char *dir, const char *name)
{
	int len = snprintf(buf, n, "%s/%s", strcmp(dir, "/") ? dir : "", name);

	return len < 0 || (size_t)len >= n ? -1 : 0;
}

char *lctl_path_join(const char *dir, const char *name)
{
	const char *d = strcmp(dir, "/") ? dir : "";
	size_t dn = strlen(d), nn = strlen(name);
	char *p = malloc(dn + nn + 2);

	if (!p)
		return NULL;
	memcpy(p, d, dn);
	p[dn] = '/';
	memcpy(p + dn + 1, name, nn + 1);
	return p;
}
