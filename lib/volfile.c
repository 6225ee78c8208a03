/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Volfile parser and writer.
 *
 * A volfile is a list of translator blocks:
 *
 *	volume NAME
 *	    type CATEGORY/TYPE
 *	    option KEY VALUE
 *	    subvolumes CHILD...
 *	end-volume
 *
 * A child must be defined before the block that names it, so the graph is a DAG in file
 * order and the last block is the top. We parse into an array of translators that own their
 * strings; subvolume pointers borrow other elements of the same array, which is never
 * reallocated once parsing is done (we count the blocks first).
 *
 * The input comes from the network (or a fuzzer), so every malformed form is an error with the
 * line number, never a crash: unterminated blocks, duplicate names, unknown children, a
 * missing type, stray lines outside a block and NUL bytes are all rejected.
 *
 * Every user of the graph walks it as a tree (a shared child once per parent), so its size as
 * a tree is bounded here, once for all of them: more than LCTL_MAX_SUBVOLS children of one
 * translator, a child named twice in one list, nesting deeper than VF_MAX_DEPTH, or more than
 * VF_MAX_UNFOLDED translators when shared children are counted once per parent (a few KiB of
 * "subvolumes a b" lines over shared children would otherwise unfold exponentially) are errors.
 *
 * A brick's host (protocol/client's remote-host) is handed on as an argument: to ssh for a pool
 * run, to the gluster CLI for a drain. One that could read as an option there, or as more than
 * a host ("-oProxyCommand=..."), is refused here, once for all of them (lctl_host_check()).
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VF_MAX_DEPTH 64
#define VF_MAX_UNFOLDED 65536

/* Per translator, while parsing: its size and height as a tree (both bounded, see above). */
struct vf_shape {
	size_t unfolded;
	unsigned depth;
};

struct line_reader {
	const char *p;
	const char *end;
	unsigned lineno;
};

/* Next line without its newline; false at the end. */
static bool next_line(struct line_reader *r, const char **s, size_t *n)
{
	const char *nl;

	if (r->p >= r->end)
		return false;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	*s = r->p;
	*n = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
	r->p = nl ? nl + 1 : r->end;
	r->lineno++;
	return true;
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Split off the first whitespace-delimited word of s/n; the rest goes back into s/n. */
static void first_word(const char **s, size_t *n, const char **w, size_t *wn)
{
	size_t i = 0;

	while (i < *n && !isspace((unsigned char)(*s)[i]))
		i++;
	*w = *s;
	*wn = i;
	*s += i;
	*n -= i;
	trim(s, n);
}

static bool word_is(const char *w, size_t wn, const char *lit)
{
	return wn == strlen(lit) && !memcmp(w, lit, wn);
}

static void xlator_release(struct lctl_xlator *xl)
{
	size_t i;

	free(xl->name);
	free(xl->type);
	for (i = 0; i < xl->nopts; i++) {
		free(xl->opts[i].key);
		/* option values include the brick credentials: no copy left in freed memory */
		if (xl->opts[i].value)
			explicit_bzero(xl->opts[i].value, strlen(xl->opts[i].value));
		free(xl->opts[i].value);
	}
	free(xl->opts);
	free(xl->subvols);
	memset(xl, 0, sizeof(*xl));
}

void lctl_volfile_release(struct lctl_volfile *vf)
{
	size_t i;

	if (!vf)
		return;
	for (i = 0; i < vf->nxl; i++)
		xlator_release(&vf->xl[i]);
	free(vf->xl);
	vf->xl = NULL;
	vf->nxl = 0;
}

static struct lctl_xlator *find_name(struct lctl_volfile *vf, size_t upto, const char *w, size_t wn)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (strlen(vf->xl[i].name) == wn && !memcmp(vf->xl[i].name, w, wn))
			return &vf->xl[i];
	return NULL;
}

static int add_option(struct lctl_xlator *xl, const char *k, size_t kn, const char *v, size_t vn)
{
	struct lctl_xl_option *o;

	/* a quoted value loses its quotes */
	if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
		v++;
		vn -= 2;
	}
	o = realloc(xl->opts, (xl->nopts + 1) * sizeof(*o));
	if (!o)
		return -LCTL_ENOMEM;
	xl->opts = o;
	o = &xl->opts[xl->nopts];
	o->key = strndup(k, kn);
	o->value = strndup(v, vn);
	if (!o->key || !o->value) {
		free(o->key);
		if (o->value)
			explicit_bzero(o->value, vn);
		free(o->value);
		return -LCTL_ENOMEM;
	}
	xl->nopts++;
	return 0;
}

static int add_subvols(struct lctl_volfile *vf, struct vf_shape *shape, size_t self, const char *s,
		       size_t n, unsigned lineno, struct lctl_error *err)
{
	struct lctl_xlator *xl = &vf->xl[self];
	struct vf_shape *me = &shape[self];

	while (n) {
		const char *w;
		size_t wn, i;
		struct lctl_xlator *child, **sv;
		const struct vf_shape *cs;

		first_word(&s, &n, &w, &wn);
		child = find_name(vf, self, w, wn);
		if (!child)
			return lctl_seterr(
				err, LCTL_EINVAL, 0,
				"volfile line %u: subvolume '%.*s' of '%s' is not defined before it",
				lineno, (int)(wn > 64 ? 64 : wn), w, xl->name);
		for (i = 0; i < xl->nsubvols; i++)
			if (xl->subvols[i] == child)
				return lctl_seterr(err, LCTL_EINVAL, 0,
						   "volfile line %u: '%s' names subvolume '%s' twice",
						   lineno, xl->name, child->name);
		if (xl->nsubvols == LCTL_MAX_SUBVOLS)
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "volfile line %u: '%s' has more than %d subvolumes",
					   lineno, xl->name, LCTL_MAX_SUBVOLS);
		cs = &shape[child - vf->xl];
		if (cs->depth + 1 > me->depth)
			me->depth = cs->depth + 1;
		if (me->depth > VF_MAX_DEPTH)
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "volfile line %u: the graph below '%s' is nested more than "
					   "%d translators deep",
					   lineno, xl->name, VF_MAX_DEPTH);
		/* both are at most VF_MAX_UNFOLDED: no overflow */
		me->unfolded += cs->unfolded;
		if (me->unfolded > VF_MAX_UNFOLDED)
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "volfile line %u: the graph below '%s' unfolds to more than "
					   "%d translators (subvolumes shared by several parents)",
					   lineno, xl->name, VF_MAX_UNFOLDED);
		sv = realloc(xl->subvols, (xl->nsubvols + 1) * sizeof(*sv));
		if (!sv)
			return -LCTL_ENOMEM;
		xl->subvols = sv;
		sv[xl->nsubvols++] = child;
	}
	return 0;
}

int lctl_host_check(const char *host, size_t len)
{
	size_t i;

	if (!len || len > LCTL_HOST_MAX || host[0] == '-')
		return -1;
	/* ASCII only, whatever the locale */
	for (i = 0; i < len; i++) {
		char c = host[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-' || c == '_' || c == ':'))
			return -1;
	}
	return 0;
}

/*
 * The host a protocol/client translator (ended at line @lineno) names is a host. None is
 * fine: the client then takes the volfile server's (glusterd's snapd client, with USS).
 */
static int check_brick_host(const struct lctl_xlator *xl, unsigned lineno, struct lctl_error *err)
{
	size_t i, n;

	/* every remote-host line, not only the first: gfapi may take another one */
	for (i = 0; i < xl->nopts; i++) {
		const char *h = xl->opts[i].value;

		if (strcmp(xl->opts[i].key, "remote-host"))
			continue;
		n = strlen(h);
		if (lctl_host_check(h, n))
			return lctl_seterr(err, LCTL_EINVAL, 0,
					   "volfile line %u: brick '%.64s' names the host '%.64s%s': "
					   "not a host name or address",
					   lineno, xl->name, h, n > 64 ? "..." : "");
	}
	return 0;
}

int lctl_volfile_parse(const char *text, size_t len, struct lctl_volfile *out,
		       struct lctl_error *err)
{
	struct line_reader r = { text, text + len, 0 };
	struct lctl_volfile vf = { NULL, 0 };
	struct vf_shape *shape = NULL;
	struct lctl_xlator *cur = NULL;
	size_t nblocks = 0, cap;
	const char *s;
	size_t n;
	int ret = 0;

	if (memchr(text, '\0', len))
		return lctl_seterr(err, LCTL_EINVAL, 0, "volfile contains a NUL byte");

	/* Count blocks first so the array never moves and subvolume pointers stay valid. */
	while (next_line(&r, &s, &n)) {
		const char *w;
		size_t wn;

		trim(&s, &n);
		first_word(&s, &n, &w, &wn);
		if (word_is(w, wn, "volume"))
			nblocks++;
	}
	if (!nblocks)
		return lctl_seterr(err, LCTL_EINVAL, 0, "volfile defines no translator");
	cap = nblocks;
	vf.xl = calloc(cap, sizeof(*vf.xl));
	shape = calloc(cap, sizeof(*shape));
	if (!vf.xl || !shape) {
		free(vf.xl);
		free(shape);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}

	r = (struct line_reader){ text, text + len, 0 };
	while (next_line(&r, &s, &n)) {
		const char *w;
		size_t wn;

		trim(&s, &n);
		if (!n || s[0] == '#')
			continue;
		first_word(&s, &n, &w, &wn);
		if (word_is(w, wn, "volume")) {
			if (cur) {
				ret = lctl_seterr(
					err, LCTL_EINVAL, 0,
					"volfile line %u: 'volume' inside '%s' (missing end-volume)",
					r.lineno, cur->name);
				goto out;
			}
			if (!n || memchr(s, ' ', n) || memchr(s, '\t', n)) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "volfile line %u: 'volume' needs exactly one name",
						  r.lineno);
				goto out;
			}
			if (find_name(&vf, vf.nxl, s, n)) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "volfile line %u: translator '%.*s' defined twice",
						  r.lineno, (int)(n > 64 ? 64 : n), s);
				goto out;
			}
			shape[vf.nxl].unfolded = 1;
			cur = &vf.xl[vf.nxl++];
			cur->name = strndup(s, n);
			if (!cur->name) {
				ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
				goto out;
			}
			continue;
		}
		if (!cur) {
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "volfile line %u: '%.*s' outside a volume block",
					  r.lineno, (int)(wn > 32 ? 32 : wn), w);
			goto out;
		}
		if (word_is(w, wn, "end-volume")) {
			if (!cur->type) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "volfile line %u: translator '%s' has no type",
						  r.lineno, cur->name);
				goto out;
			}
			if (!strcmp(cur->type, "protocol/client")) {
				ret = check_brick_host(cur, r.lineno, err);
				if (ret)
					goto out;
			}
			cur = NULL;
		} else if (word_is(w, wn, "type")) {
			if (!n || cur->type || memchr(s, ' ', n)) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "volfile line %u: bad type line in '%s'",
						  r.lineno, cur->name);
				goto out;
			}
			cur->type = strndup(s, n);
			if (!cur->type) {
				ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
				goto out;
			}
		} else if (word_is(w, wn, "option")) {
			const char *k;
			size_t kn;

			first_word(&s, &n, &k, &kn);
			if (!kn) {
				ret = lctl_seterr(err, LCTL_EINVAL, 0,
						  "volfile line %u: option without a key",
						  r.lineno);
				goto out;
			}
			ret = add_option(cur, k, kn, s, n);
			if (ret) {
				lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
				goto out;
			}
		} else if (word_is(w, wn, "subvolumes")) {
			ret = add_subvols(&vf, shape, (size_t)(cur - vf.xl), s, n, r.lineno, err);
			if (ret)
				goto out;
		} else {
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "volfile line %u: unknown keyword '%.*s'", r.lineno,
					  (int)(wn > 32 ? 32 : wn), w);
			goto out;
		}
	}
	if (cur) {
		ret = lctl_seterr(err, LCTL_EINVAL, 0,
				  "volfile ends inside '%s' (missing end-volume)", cur->name);
		goto out;
	}
	free(shape);
	*out = vf;
	return 0;
out:
	free(shape);
	lctl_volfile_release(&vf);
	return ret;
}

const struct lctl_xlator *lctl_volfile_find_type(const struct lctl_volfile *vf, const char *type)
{
	size_t i;

	for (i = 0; i < vf->nxl; i++)
		if (!strcmp(vf->xl[i].type, type))
			return &vf->xl[i];
	return NULL;
}

const char *lctl_xlator_option(const struct lctl_xlator *xl, const char *key)
{
	size_t i;

	for (i = 0; i < xl->nopts; i++)
		if (!strcmp(xl->opts[i].key, key))
			return xl->opts[i].value;
	return NULL;
}

unsigned lctl_dht_spread(const struct lctl_xlator *dht)
{
	const char *v = dht ? lctl_xlator_option(dht, "directory-layout-spread") : NULL;
	unsigned long long n = 0;

	if (!v || !*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return 0;
		n = n * 10 + (unsigned long long)(*v - '0');
		if (n > UINT32_MAX)
			return 0;
	}
	return (unsigned)n;
}

static bool is_credential(const char *key)
{
	static const char *const ends[] = { "password", "username" };
	size_t n = strlen(key), i, l;

	for (i = 0; i < LCTL_ARRAY_SIZE(ends); i++) {
		l = strlen(ends[i]);
		if (n >= l && !strcasecmp(key + n - l, ends[i]))
			return true;
	}
	return false;
}

void lctl_volfile_scrub_credentials(struct lctl_volfile *vf)
{
	size_t i, j;

	for (i = 0; i < vf->nxl; i++)
		for (j = 0; j < vf->xl[i].nopts; j++)
			if (is_credential(vf->xl[i].opts[j].key))
				explicit_bzero(vf->xl[i].opts[j].value,
					       strlen(vf->xl[i].opts[j].value));
}

/* Post-order walk writing each translator once (a DAG may share children). */
static void write_subtree(struct lbuf *b, const struct lctl_xlator *xl,
			  const struct lctl_xlator ***seen, size_t *nseen, unsigned depth)
{
	const struct lctl_xlator **p;
	size_t i;

	if (depth > 64 || b->oom)
		return;
	for (i = 0; i < *nseen; i++)
		if ((*seen)[i] == xl)
			return;
	p = realloc(*seen, (*nseen + 1) * sizeof(*p));
	if (!p) {
		b->oom = true;
		return;
	}
	*seen = p;
	p[(*nseen)++] = xl;
	for (i = 0; i < xl->nsubvols; i++)
		write_subtree(b, xl->subvols[i], seen, nseen, depth + 1);
	lbuf_addf(b, "volume %s\n    type %s\n", xl->name, xl->type);
	for (i = 0; i < xl->nopts; i++)
		lbuf_addf(b, "    option %s %s\n", xl->opts[i].key, xl->opts[i].value);
	if (xl->nsubvols) {
		lbuf_addf(b, "    subvolumes");
		for (i = 0; i < xl->nsubvols; i++)
			lbuf_addf(b, " %s", xl->subvols[i]->name);
		lbuf_addf(b, "\n");
	}
	lbuf_addf(b, "end-volume\n\n");
}

char *lctl_volfile_subtree(const struct lctl_xlator *top)
{
	const struct lctl_xlator **seen = NULL;
	size_t nseen = 0;
	struct lbuf b;

	lbuf_init(&b);
	b.secret = true;
	write_subtree(&b, top, &seen, &nseen, 0);
	free(seen);
	return lbuf_detach(&b);
}

/* A boolean option as GlusterFS spells it (gf_string2boolean): on, yes, true, enable, 1. */
static bool opt_true(const char *v)
{
	static const char *const yes[] = { "on", "yes", "true", "enable", "1", NULL };
	size_t i;

	for (i = 0; v && yes[i]; i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	return false;
}

/*
 * Seconds in @v as gf_string2time takes them: digits, then nothing or one of s, sec, m, min,
 * h, hr, d, days (whole units only). @def when absent, empty or anything else; at most
 * LCTL_SETTLE_MAX (longer is as long as a settle period can be).
 */
static unsigned opt_seconds(const char *v, unsigned def)
{
	static const struct {
		const char *suffix;
		unsigned long long mult;
	} units[] = { { "", 1 },      { "s", 1 },     { "sec", 1 },
		      { "m", 60 },    { "min", 60 },  { "h", 3600 },
		      { "hr", 3600 }, { "d", 86400 }, { "days", 86400 } };
	unsigned long long n = 0;
	size_t i;

	if (!v || !*v || *v < '0' || *v > '9')
		return def;
	for (; *v >= '0' && *v <= '9'; v++) {
		n = n * 10 + (unsigned long long)(*v - '0');
		if (n > LCTL_SETTLE_MAX)
			n = LCTL_SETTLE_MAX + 1ULL; /* and stays there: no overflow */
	}
	for (i = 0; i < LCTL_ARRAY_SIZE(units); i++)
		if (!strcasecmp(v, units[i].suffix))
			return n * units[i].mult > LCTL_SETTLE_MAX ? LCTL_SETTLE_MAX
								   : (unsigned)(n * units[i].mult);
	return def;
}

void lctl_volfile_client_cache(const struct lctl_volfile *vf, struct lctl_client_cache *out)
{
	/* GlusterFS 10.3: md-cache.c and nl-cache.c's option tables, their defaults */
	static const struct {
		const char *type, *key, *volume_option;
		unsigned def;
	} caches[] = {
		{ "performance/md-cache", "md-cache-timeout", "performance.md-cache-timeout", 1 },
		{ "performance/nl-cache", "nl-cache-timeout", "performance.nl-cache-timeout", 60 },
	};
	size_t i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < vf->nxl; i++) {
		const struct lctl_xlator *xl = &vf->xl[i];

		for (k = 0; k < LCTL_ARRAY_SIZE(caches); k++) {
			unsigned s;

			/* a translator in pass-through forwards every call: it caches nothing */
			if (strcmp(xl->type, caches[k].type) ||
			    opt_true(lctl_xlator_option(xl, "pass-through")))
				continue;
			s = opt_seconds(lctl_xlator_option(xl, caches[k].key), caches[k].def);
			if (!out->option || s > out->seconds) {
				out->seconds = s;
				out->option = caches[k].volume_option;
			}
		}
	}
}

unsigned lctl_settle_for_cache(unsigned settle_default, unsigned cache_seconds)
{
	unsigned long long s = (unsigned long long)cache_seconds + LCTL_SETTLE_CACHE_MARGIN;

	if (!cache_seconds || s < settle_default)
		s = settle_default;
	return s > LCTL_SETTLE_MAX ? LCTL_SETTLE_MAX : (unsigned)s;
}
