/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DHT filename hash and name munging.
 *
 * lctl_dm_hash() computes the same value as libglusterfs gf_dm_hashfn() on x86 (GlusterFS 10.3,
 * libglusterfs/src/hashfn.c): a Davies-Meyer construction over TEA rounds, state (h0, h1)
 * seeded with fixed constants, 6 rounds per full 16-byte block, then one final block of
 * 10 rounds built from the remaining 0-3 whole words, one word holding the 0-3 tail bytes, and
 * the pad word (len repeated in four bytes) for every slot left. Two properties of the
 * original are reproduced on purpose, because files were placed with them:
 *   - words are read in host byte order, which on every x86 cluster is little-endian; we read
 *     little-endian explicitly so the result does not depend on the machine we run on;
 *   - tail bytes come from a (signed on x86) char and are sign-extended before being OR'ed
 *     into the pad word, so a byte >= 0x80 sets all the higher bits of that word.
 * The original takes an int length; for lengths above INT_MAX its behaviour is undefined, ours
 * simply continues with the same recipe.
 *
 * Munging (dht-hashfn.c dht_munge_name, dht-shared.c dht_init_regex): before hashing a name DHT
 * tries cluster.extra-hash-regex, then (only if the first did not munge)
 * cluster.rsync-hash-regex, whose built-in default ^\.(.+)\.[^.]+$ applies when the option is
 * unset. "none" disables either; both are compiled with REG_EXTENDED only. A regex munges when
 * regexec() does not return REG_NOMATCH and capture group 1 took part in the match: then
 * group 1 (possibly empty, possibly the whole name) is hashed instead of the name. A regex
 * without group 1 therefore never munges, and does not stop the next regex from being tried.
 *
 * Thread safety: a struct lctl_munge is immutable after lctl_munge_init(); regexec() on a
 * shared compiled regex is thread safe (glibc serialises it internally, as DHT does with its
 * own lock), so any number of threads may hash names through one munge.
 */
#include "layoutctl.h"
#include "internal.h"

#include <errno.h>
#include <regex.h>
#include <string.h>

#define DM_DELTA 0x9E3779B9u
#define DM_FULLROUNDS 10
#define DM_PARTROUNDS 6

static void dm_round(unsigned rounds, const uint32_t a[4], uint32_t *h0, uint32_t *h1)
{
	uint32_t sum = 0, b0 = *h0, b1 = *h1;

	while (rounds--) {
		sum += DM_DELTA;
		b0 += ((b1 << 4) + a[0]) ^ (b1 + sum) ^ ((b1 >> 5) + a[1]);
		b1 += ((b0 << 4) + a[2]) ^ (b0 + sum) ^ ((b0 >> 5) + a[3]);
	}
	*h0 += b0;
	*h1 += b1;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A tail byte as x86 gcc sees a plain char: sign-extended to 32 bits. */
static uint32_t sext8(unsigned char c)
{
	return c & 0x80 ? (uint32_t)c | 0xffffff00u : (uint32_t)c;
}

uint32_t lctl_dm_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t h0 = 0x9464a485u, h1 = 0x542e1a94u, a[4];
	uint32_t pad = (uint32_t)len;
	size_t words = len / 4, tail = len % 4, quads = len / 16, q;
	unsigned j;

	pad |= pad << 8;
	pad |= pad << 16;
	if (!p)
		len = words = tail = quads = 0;
	for (q = 0; q < quads; q++, p += 16, words -= 4) {
		for (j = 0; j < 4; j++)
			a[j] = le32(p + 4 * j);
		dm_round(DM_PARTROUNDS, a, &h0, &h1);
	}
	for (j = 0; j < 4; j++) {
		if (words) {
			a[j] = le32(p);
			p += 4;
			words--;
			continue;
		}
		a[j] = pad;
		for (; tail; tail--, p++)
			a[j] = a[j] << 8 | sext8(*p);
	}
	dm_round(DM_FULLROUNDS, a, &h0, &h1);
	return h0 ^ h1;
}

/* ------------------------------------------------------------------------------------------ */

static int compile(regex_t *re, bool *valid, const char *what, const char *src,
		   struct lctl_error *err)
{
	char why[128];
	int rc;

	*valid = false;
	if (!strcmp(src, "none"))
		return 0;
	rc = regcomp(re, src, REG_EXTENDED);
	if (rc == 0) {
		*valid = true;
		return 0;
	}
	regerror(rc, re, why, sizeof(why));
	return lctl_seterr(err, rc == REG_ESPACE ? LCTL_ENOMEM : LCTL_EINVAL, 0,
			   "cannot compile %s '%s': %s", what, src, why);
}

int lctl_munge_init(struct lctl_munge *m, const char *extra_regex, const char *rsync_regex,
		    struct lctl_error *err)
{
	int ret, ret2;

	if (!m)
		return lctl_seterr(err, LCTL_EINVAL, 0, "no munge to initialise");
	memset(m, 0, sizeof(*m));
	if (!rsync_regex)
		rsync_regex = LCTL_RSYNC_HASH_REGEX_DEFAULT;
	/* Same order as dht_init: rsync first, extra second; report the first failure. */
	ret = compile(&m->rsync, &m->rsync_valid, "rsync-hash-regex", rsync_regex, err);
	ret2 = 0;
	if (extra_regex && *extra_regex)
		ret2 = compile(&m->extra, &m->extra_valid, "extra-hash-regex", extra_regex,
			       ret ? NULL : err);
	return ret ? ret : ret2;
}

void lctl_munge_release(struct lctl_munge *m)
{
	if (!m)
		return;
	if (m->rsync_valid)
		regfree(&m->rsync);
	if (m->extra_valid)
		regfree(&m->extra);
	m->rsync_valid = m->extra_valid = false;
}

/*
 * dht_munge_name() for one regex: true and the group-1 span when it munges. As in DHT,
 * any regexec() result other than REG_NOMATCH counts as a match, with the match array
 * zero-initialised.
 */
static bool munge_one(const regex_t *re, const char *name, size_t len, size_t *off, size_t *n)
{
	regmatch_t mt[2];

	memset(mt, 0, sizeof(mt));
	if (regexec(re, name, 2, mt, 0) == REG_NOMATCH)
		return false;
	if (mt[1].rm_so == -1 || mt[1].rm_so < 0 || mt[1].rm_eo < mt[1].rm_so)
		return false;
	/* DHT accepts any group shorter than len + 1, i.e. up to the whole name. */
	if ((size_t)mt[1].rm_eo > len)
		return false;
	*off = (size_t)mt[1].rm_so;
	*n = (size_t)(mt[1].rm_eo - mt[1].rm_so);
	return true;
}

/* The span of @name that DHT hashes. */
static void munge_span(const struct lctl_munge *m, const char *name, size_t *off, size_t *n)
{
	size_t len = strlen(name);

	*off = 0;
	*n = len;
	if (!m)
		return;
	if (m->extra_valid && munge_one(&m->extra, name, len, off, n))
		return;
	if (m->rsync_valid && munge_one(&m->rsync, name, len, off, n))
		return;
	*off = 0;
	*n = len;
}

const char *lctl_munge_name(const struct lctl_munge *m, const char *name, char *buf, size_t bufsz)
{
	size_t off, n;

	if (!name)
		return NULL;
	munge_span(m, name, &off, &n);
	if (off == 0 && name[n] == '\0')
		return name;
	if (!buf || bufsz <= n)
		return NULL;
	memcpy(buf, name + off, n);
	buf[n] = '\0';
	return buf;
}

uint32_t lctl_name_hash(const struct lctl_munge *m, const char *name)
{
	size_t off, n;

	if (!name)
		name = "";
	munge_span(m, name, &off, &n);
	return lctl_dm_hash(name + off, n);
}
