/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text renderer over records (see textview.h for the template language).
 *
 * A line is built in a growing buffer and written whole. The context keeps a small stack of
 * frames, one per record entered (the block's record, then one per "each" item), each with
 * the record and its generalised path, so "^" reaches the holder and every read can be
 * recorded under its full path. Templates come from the views (our own constant tables): a
 * malformed one is a programming error, caught by the golden test, and renders as far as it
 * parses.
 */
#include "textview.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinkesc.h"
#include "progress.h"

#define MAX_DEPTH 8

struct frame {
	struct json_object *rec;
	struct json_object *key; /* "@": the member name in an object walk, the index in an
					 * array walk, or NULL */
	char path[512];
};

struct out_rctx {
	const struct out_view *view;
	struct json_object *doc;
	struct out_fields *read;
	struct frame fr[MAX_DEPTH];
	int depth; /* frames in use */
};

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* ---- field sets ------------------------------------------------------------------------- */

bool out_fields_has(const struct out_fields *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], path))
			return true;
	return false;
}

void out_fields_add(struct out_fields *s, const char *path)
{
	if (out_fields_has(s, path))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n] = strdup(path);
	if (!s->v[s->n])
		abort();
	s->n++;
}

void out_fields_free(struct out_fields *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* prefix.key (prefix[] for key "[]"); a path too long is cut, which no record of ours needs */
static void join(char *buf, size_t n, const char *prefix, const char *key)
{
	if (snprintf(buf, n, "%s%s%s", prefix, prefix[0] && key[0] != '[' ? "." : "", key) >=
	    (int)n)
		buf[n - 1] = '\0';
}

void out_leaf_paths(struct json_object *j, const char *prefix, struct out_fields *s)
{
	char p[512];
	size_t i, n;

	switch (json_object_get_type(j)) {
	case json_type_object:
		if (!json_object_object_length(j)) {
			out_fields_add(s, prefix);
			return;
		}
		json_object_object_foreach(j, k, v)
		{
			join(p, sizeof(p), prefix, k);
			out_leaf_paths(v, p, s);
		}
		return;
	case json_type_array:
		n = json_object_array_length(j);
		if (!n) {
			out_fields_add(s, prefix);
			return;
		}
		join(p, sizeof(p), prefix, "[]");
		for (i = 0; i < n; i++)
			out_leaf_paths(json_object_array_get_idx(j, i), p, s);
		return;
	default:
		out_fields_add(s, prefix);
		return;
	}
}

/* ---- reading the record ------------------------------------------------------------------ */

static bool is_container(struct json_object *v)
{
	return json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array);
}

static bool is_empty_container(struct json_object *v)
{
	return (json_object_is_type(v, json_type_object) && !json_object_object_length(v)) ||
	       (json_object_is_type(v, json_type_array) && !json_object_array_length(v));
}

/*
 * The value at @path (@len bytes), and its generalised path in @gp; *@found false when a key
 * on the way is absent (a JSON null is found, and NULL).
 */
static struct json_object *lookup(struct out_rctx *c, const char *path, size_t len, char *gp,
				  size_t gpn, bool *found)
{
	const struct frame *f = &c->fr[c->depth - 1];
	struct json_object *v;
	char key[128];

	*found = true;
	if (len && path[0] == '@') {
		snprintf(gp, gpn, "%s", f->path);
		return f->key;
	}
	if (len && path[0] == '$') {
		v = c->doc;
		gp[0] = '\0';
		path++;
		len--;
	} else {
		if (len && path[0] == '^' && c->depth > 1) {
			f = &c->fr[c->depth - 2];
			path++;
			len--;
		}
		v = f->rec;
		snprintf(gp, gpn, "%s", f->path);
	}
	if (len == 1 && path[0] == '.')
		return v;
	while (len) {
		const char *dot = memchr(path, '.', len);
		size_t kl = dot ? (size_t)(dot - path) : len;
		char sub[512];

		snprintf(key, sizeof(key), "%.*s", (int)kl, path);
		join(sub, sizeof(sub), gp, key);
		snprintf(gp, gpn, "%s", sub);
		if (!json_object_is_type(v, json_type_object) ||
		    !json_object_object_get_ex(v, key, &v)) {
			*found = false;
			return NULL;
		}
		path += kl + (dot != NULL);
		len -= kl + (dot != NULL);
	}
	return v;
}

/*
 * A field read: recorded when the record has it (an optional key that is absent is no field of
 * this record in any format). A container counts through its leaves, read one by one; an
 * empty one is a leaf.
 */
static struct json_object *get(struct out_rctx *c, const char *path, size_t len)
{
	char gp[512];
	bool found;
	struct json_object *v = lookup(c, path, len, gp, sizeof(gp), &found);

	if (c->read && found && !(len && path[0] == '@') &&
	    (!is_container(v) || is_empty_container(v)))
		out_fields_add(c->read, gp);
	return v;
}

struct json_object *out_rget(struct out_rctx *c, const char *path)
{
	return get(c, path, strlen(path));
}

static bool truthy(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return false;
	case json_type_boolean:
		return json_object_get_boolean(v);
	case json_type_int:
		return json_object_get_int64(v) != 0;
	case json_type_double:
		return json_object_get_double(v) != 0;
	case json_type_string:
		return json_object_get_string_len(v) != 0;
	case json_type_object:
		return json_object_object_length(v) != 0;
	case json_type_array:
		return json_object_array_length(v) != 0;
	}
	return false;
}

static struct json_object *eval(struct out_rctx *c, const char *s, size_t len,
				struct json_object **owned);

/* "a&!b|f": every term true ("!" terms false), each a path and its filters. */
static bool when_ok(struct out_rctx *c, const char *w)
{
	while (w && *w) {
		bool neg = *w == '!', yes;
		struct json_object *owned;
		size_t n;

		w += neg;
		n = strcspn(w, "&");
		yes = truthy(eval(c, w, n, &owned));
		json_object_put(owned);
		if (yes == neg)
			return false;
		w += n + (w[n] == '&');
	}
	return true;
}

static void push(struct out_rctx *c, struct json_object *rec, const char *path,
		 struct json_object *key)
{
	struct frame *f;

	if (c->depth == MAX_DEPTH)
		abort();
	f = &c->fr[c->depth++];
	f->rec = rec;
	f->key = key;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >= (int)sizeof(f->path))
		f->path[sizeof(f->path) - 1] = '\0';
}

/*
 * Call @fn for each item of the container at @path: arrays item by item, objects member by
 * member (the member name as "@"). An empty or absent container is read as a leaf.
 */
static void each(struct out_rctx *c, const char *path, size_t len,
		 void (*fn)(struct out_rctx *c, const void *arg, struct sbuf *b), const void *arg,
		 struct sbuf *b)
{
	char gp[512], ip[512];
	bool found;
	struct json_object *v = lookup(c, path, len, gp, sizeof(gp), &found);
	size_t i;

	if (!is_container(v) || is_empty_container(v)) {
		if (c->read && found)
			out_fields_add(c->read, gp);
		return;
	}
	if (json_object_is_type(v, json_type_array)) {
		join(ip, sizeof(ip), gp, "[]");
		for (i = 0; i < json_object_array_length(v); i++) {
			struct json_object *io = json_object_new_int64((int64_t)i);

			push(c, json_object_array_get_idx(v, i), ip, io);
			fn(c, arg, b);
			c->depth--;
			json_object_put(io);
		}
		return;
	}
	json_object_object_foreach(v, k, m)
	{
		struct json_object *ko = json_object_new_string(k);

		join(ip, sizeof(ip), gp, k);
		push(c, m, ip, ko);
		fn(c, arg, b);
		c->depth--;
		json_object_put(ko);
	}
}

/* ---- filters ------------------------------------------------------------------------------ */

static struct json_object *f_bytes(struct out_rctx *c, struct json_object *v)
{
	char buf[32];

	(void)c;
	if (json_object_is_type(v, json_type_double))
		return json_object_new_string(
			human_bytes((uint64_t)json_object_get_double(v), buf, sizeof(buf)));
	return json_object_new_string(
		human_bytes((uint64_t)json_object_get_int64(v), buf, sizeof(buf)));
}

static struct json_object *f_pct(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_double(100.0 * json_object_get_double(v));
}

static struct json_object *f_onoff(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_string(json_object_get_boolean(v) ? "on" : "off");
}

static struct json_object *f_hex(struct out_rctx *c, struct json_object *v)
{
	char buf[24];

	(void)c;
	snprintf(buf, sizeof(buf), "0x%08llx", (unsigned long long)json_object_get_int64(v));
	return json_object_new_string(buf);
}

static struct json_object *f_len(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	if (json_object_is_type(v, json_type_array))
		return json_object_new_int64((int64_t)json_object_array_length(v));
	if (json_object_is_type(v, json_type_object))
		return json_object_new_int64(json_object_object_length(v));
	return json_object_new_int64(0);
}

/* The value is there and not null. */
static struct json_object *f_set(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(v != NULL);
}

/* A time (seconds since the epoch) as ctime() writes it, without its newline. */
static struct json_object *f_ctime(struct out_rctx *c, struct json_object *v)
{
	time_t t = (time_t)json_object_get_int64(v);
	char buf[64] = "";

	(void)c;
	ctime_r(&t, buf);
	buf[strcspn(buf, "\n")] = '\0';
	return json_object_new_string(buf);
}

/* A time as "YYYY-MM-DD HH:MM:SS", local. */
static struct json_object *f_localtime(struct out_rctx *c, struct json_object *v)
{
	time_t t = (time_t)json_object_get_int64(v);
	struct tm tm;
	char buf[32] = "";

	(void)c;
	if (localtime_r(&t, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	return json_object_new_string(buf);
}

/* A count other than one (for plurals). */
static struct json_object *f_many(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(json_object_get_int64(v) != 1);
}

static const struct out_filter builtin_filters[] = {
	{ "many", f_many },   { "set", f_set }, { "ctime", f_ctime }, { "localtime", f_localtime },
	{ "bytes", f_bytes }, { "pct", f_pct }, { "onoff", f_onoff }, { "hex", f_hex },
	{ "len", f_len },     { NULL, NULL },
};

static out_filter_fn find_filter(const struct out_view *view, const char *name, size_t n)
{
	const struct out_filter *t;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (t = pass ? builtin_filters : view->filters; t && t->name; t++)
			if (strlen(t->name) == n && !strncmp(t->name, name, n))
				return t->fn;
	return NULL;
}

/* ---- templates ---------------------------------------------------------------------------- */

static void render(struct out_rctx *c, const char *t, size_t len, struct sbuf *b);

/* The index of the '}' that closes the '{' at t[0], or @len. */
static size_t closing(const char *t, size_t len)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < len; i++) {
		if (t[i] == '{')
			depth++;
		else if (t[i] == '}' && !--depth)
			return i;
	}
	return len;
}

/* The first @ch at brace depth 0 in t[0..len), or @len. */
static size_t find0(const char *t, size_t len, char ch)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < len; i++) {
		if (t[i] == '{')
			depth++;
		else if (t[i] == '}')
			depth--;
		else if (t[i] == ch && !depth)
			return i;
	}
	return len;
}

/* A printf-like SPEC: flags '-' and '0', a width, a precision, 'x' for hexadecimal. */
struct spec {
	bool left, zero, hex, real;
	int width, prec;
};

static void parse_spec(const char *s, size_t n, struct spec *sp)
{
	size_t i = 0;

	memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	for (; i < n && (s[i] == '-' || s[i] == '0'); i++)
		*(s[i] == '-' ? &sp->left : &sp->zero) = true;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		sp->width = sp->width * 10 + (s[i] - '0');
	if (i < n && s[i] == '.') {
		sp->real = true;
		for (sp->prec = 0, i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			sp->prec = sp->prec * 10 + (s[i] - '0');
	}
	sp->hex = i < n && s[i] == 'x';
	if (sp->width > 200)
		sp->width = 200;
}

static void value(struct sbuf *b, struct json_object *v, const char *spec, size_t sl)
{
	char out[1024];
	const char *str;
	struct spec sp;
	int w;

	parse_spec(spec, sl, &sp);
	w = sp.left ? -sp.width : sp.width;
	switch (json_object_get_type(v)) {
	case json_type_int:
		if (sp.hex) {
			snprintf(out, sizeof(out), sp.zero ? "%0*llx" : "%*llx", w,
				 (unsigned long long)json_object_get_int64(v));
			break;
		}
		if (!sp.real) {
			snprintf(out, sizeof(out), "%*lld", w, (long long)json_object_get_int64(v));
			break;
		}
		snprintf(out, sizeof(out), "%*.*f", w, sp.prec, json_object_get_double(v));
		break;
	case json_type_double:
		if (sp.real)
			snprintf(out, sizeof(out), "%*.*f", w, sp.prec, json_object_get_double(v));
		else
			snprintf(out, sizeof(out), "%*g", w, json_object_get_double(v));
		break;
	default:
		if (json_object_is_type(v, json_type_string))
			str = out_esc(json_object_get_string(v));
		else if (json_object_is_type(v, json_type_boolean))
			str = json_object_get_boolean(v) ? "true" : "false";
		else
			str = "-";
		/* a long name is printed whole: snprintf into a buffer would cut it */
		if ((size_t)sp.width > strlen(str)) {
			snprintf(out, sizeof(out), "%*s", w, str);
			sb_str(b, out);
		} else {
			sb_str(b, str);
		}
		return;
	}
	sb_str(b, out);
}

struct inline_each {
	const char *t;
	size_t len;
};

static void inline_item(struct out_rctx *c, const void *arg, struct sbuf *b)
{
	const struct inline_each *ie = arg;

	render(c, ie->t, ie->len, b);
}

/* "path|f1|f2" (@len bytes): the value, filtered; *@owned is what the caller frees. */
static struct json_object *eval(struct out_rctx *c, const char *s, size_t len,
				struct json_object **owned)
{
	size_t i = strcspn(s, "|");
	struct json_object *v;

	if (i > len)
		i = len;
	v = get(c, s, i);
	*owned = NULL;
	while (i < len) {
		size_t fl = strcspn(s + i + 1, "|");
		out_filter_fn fn;

		if (i + 1 + fl > len)
			fl = len - i - 1;
		fn = find_filter(c->view, s + i + 1, fl);
		v = fn ? fn(c, v) : NULL;
		json_object_put(*owned);
		*owned = v;
		i += 1 + fl;
	}
	return v;
}

/* One field: the text between the braces. */
static void field(struct out_rctx *c, const char *s, size_t len, struct sbuf *b)
{
	struct json_object *v, *owned;
	size_t q, colon;

	if (len && s[0] == '*') {
		struct inline_each ie;

		colon = find0(s, len, ':');
		ie.t = s + colon + 1;
		ie.len = colon < len ? len - colon - 1 : 0;
		each(c, s + 1, colon - 1, inline_item, &ie, b);
		return;
	}
	q = find0(s, len, '?');
	if (q < len) {
		size_t tilde = find0(s + q + 1, len - q - 1, '~') + q + 1;
		bool yes = truthy(eval(c, s, q, &owned));

		json_object_put(owned);
		if (yes)
			render(c, s + q + 1, tilde - q - 1, b);
		else if (tilde < len)
			render(c, s + tilde + 1, len - tilde - 1, b);
		return;
	}
	colon = find0(s, len, ':');
	v = eval(c, s, colon, &owned);
	if (colon < len)
		value(b, v, s + colon + 1, len - colon - 1);
	else
		value(b, v, "", 0);
	json_object_put(owned);
}

static void render(struct out_rctx *c, const char *t, size_t len, struct sbuf *b)
{
	size_t i = 0, j;

	while (i < len) {
		if (t[i] != '{') {
			j = i + strcspn(t + i, "{");
			if (j > len)
				j = len;
			sb_add(b, t + i, j - i);
			i = j;
			continue;
		}
		j = closing(t + i, len - i) + i;
		field(c, t + i + 1, j - i - 1, b);
		i = j + 1;
	}
}

struct line_arg {
	const struct out_line *l;
	FILE *f;
};

static void line_item(struct out_rctx *c, const void *arg, struct sbuf *b)
{
	const struct line_arg *la = arg;

	(void)b;
	if (when_ok(c, la->l->when)) {
		struct sbuf lb = { 0 };

		sb_str(&lb, ""); /* an empty template is an empty line */
		render(c, la->l->fmt, strlen(la->l->fmt), &lb);
		fprintf(la->f, "%s\n", lb.p);
		free(lb.p);
	}
}

static void lines(struct out_rctx *c, FILE *f, const struct out_line *l)
{
	for (; l && l->fmt; l++) {
		struct line_arg la = { l, f };

		if (l->each)
			each(c, l->each, strlen(l->each), line_item, &la, NULL);
		else
			line_item(c, &la, NULL);
	}
}

void out_text_block(FILE *f, const struct out_view *view, const char *key, bool head,
		    struct json_object *doc, struct json_object *rec, const char *path,
		    struct out_fields *read)
{
	struct out_rctx c = { view, doc, read, { { NULL, NULL, "" } }, 0 };
	const struct out_block *bl;

	for (bl = view->blocks; bl && bl->key; bl++)
		if (!strcmp(bl->key, key))
			break;
	if (!bl || !bl->key)
		return;
	push(&c, head ? doc : rec, head ? "" : path, NULL);
	lines(&c, f, head ? bl->head : bl->lines);
}

bool out_view_is_list(const struct out_view *view, const char *key)
{
	const struct out_block *bl;

	for (bl = view->blocks; bl && bl->key; bl++)
		if (!strcmp(bl->key, key))
			return bl->list;
	return false;
}
