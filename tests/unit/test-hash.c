/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/hash.c: the DHT hash (vectors from docs/dht-facts.md section 2.2 and a
 * random cross-check against libglusterfs's own gf_dm_hashfn) and name munging.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layoutctl.h"

/* Exported by libglusterfs.so; no public header declares it. */
extern uint32_t gf_dm_hashfn(const char *msg, int len);

static uint32_t hs(const char *s)
{
	return lctl_dm_hash(s, strlen(s));
}

/* ------------------------------------------------------------------------------------------ */

struct vec {
	const char *name;
	uint32_t hash;
};

/* dht-facts.md 2.2: "string hashed" -> dm_hash, checked against libglusterfs and placement. */
static const struct vec vectors[] = {
	{ "foo.txt", 0xec803fce },
	{ "x", 0xba644973 },
	{ ".bashrc", 0xe759f102 },
	{ "h\xc3\xa9llo w\xc3\xb6rld", 0xb1e24583 },		    /* héllo wörld */
	{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt", 0xb065afb9 }, /* 日本語.txt */
	{ "a1", 0x009fa698 },
	{ "a2", 0x81bd5deb },
	{ "README", 0xfb324164 },
	{ "\xc3\xa9", 0x65cfcaa1 }, /* é */
	{ "\xc3\xbc", 0xfa57015e }, /* ü */
	{ "\xd0\xb6", 0xedbc755a }, /* ж */
	{ "\xc3\xa9"
	  "2",
	  0x2a45eab6 }, /* é2 */
	{ "f0", 0x89d4935c },
	{ "f1", 0xd3b4775a },
	{ "f2", 0xfd93a945 },
	{ "f3", 0x9086f340 },
	{ "f4", 0x34167de6 },
	{ "/d1", 0x2514b7f2 },
	{ "/d2", 0x6d21ead3 },
	{ "", 0x884774a2 },
	{ "a", 0x3a17e4e6 },
	{ "ab", 0xc3af40d9 },
	{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0x753ce821 }, /* 40 x */
	/* the unmunged names of the munged vectors */
	{ ".foo.txt.AbC123", 0x0aa68c82 },
	{ ".x.y", 0x2bc0ab0a },
};

static void test_vectors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		uint32_t h = hs(vectors[i].name);

		if (h != vectors[i].hash)
			fail_msg("dm_hash(\"%s\") = 0x%08x, want 0x%08x", vectors[i].name, h,
				 vectors[i].hash);
	}
	/* NULL with length 0 is the empty string */
	assert_int_equal(lctl_dm_hash(NULL, 0), 0x884774a2);
	/* "é" and "Ω" end in the same byte 0xa9 and collide (sign extension) */
	assert_int_equal(hs("\xce\xa9"), 0x65cfcaa1);
}

/*
 * The hash a reimplementation with *unsigned* tail bytes gets, for names shorter than 4 bytes
 * (one final block: the tail word and three pad words). Used to show the fact sheet's
 * "unsigned variant" values and that lctl_dm_hash() is not that variant.
 */
static uint32_t dm_hash_unsigned_short(const char *s)
{
	uint32_t len = (uint32_t)strlen(s), pad = len * 0x01010101u, a[4], h0 = 0x9464a485u,
		 h1 = 0x542e1a94u, b0, b1, sum = 0;
	int r;

	assert_true(len < 4);
	a[0] = pad;
	for (r = 0; r < (int)len; r++)
		a[0] = a[0] << 8 | (unsigned char)s[r];
	a[1] = a[2] = a[3] = pad;
	b0 = h0;
	b1 = h1;
	for (r = 0; r < 10; r++) {
		sum += 0x9E3779B9u;
		b0 += ((b1 << 4) + a[0]) ^ (b1 + sum) ^ ((b1 >> 5) + a[1]);
		b1 += ((b0 << 4) + a[2]) ^ (b0 + sum) ^ ((b0 >> 5) + a[3]);
	}
	return (h0 + b0) ^ (h1 + b1);
}

static void test_sign_extension(void **state)
{
	static const struct {
		const char *name;
		uint32_t signed_hash, unsigned_hash;
	} v[] = {
		{ "\xc3\xa9", 0x65cfcaa1, 0xbff26769 }, /* é */
		{ "\xc3\xbc", 0xfa57015e, 0x0f36ba6f }, /* ü */
		{ "\xd0\xb6", 0xedbc755a, 0x712385b0 }, /* ж */
		{ "\xc3\xa9"
		  "2",
		  0x2a45eab6, 0xa85d8ebf }, /* é2 */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(dm_hash_unsigned_short(v[i].name), v[i].unsigned_hash);
		assert_int_equal(hs(v[i].name), v[i].signed_hash);
	}
	/* for ASCII both agree */
	assert_int_equal(dm_hash_unsigned_short("ab"), hs("ab"));
}

/* xorshift64*: deterministic, so a failure can be reproduced. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void test_random_vs_libglusterfs(void **state)
{
	unsigned char buf[301 + 8];
	size_t len, i, k, mismatches = 0;

	(void)state;
	for (k = 0; k < 200000; k++) {
		len = (size_t)(rnd() % 301);
		for (i = 0; i < len; i++) {
			/* bias towards bytes >= 0x80 and NULs now and then */
			uint64_t r = rnd();

			buf[i] = (unsigned char)((r & 3) == 0 ? (r >> 8) | 0x80 : (r >> 8));
		}
		/* gf_dm_hashfn reads whole words in host order; any alignment works on x86 */
		if (lctl_dm_hash(buf + (k & 3), 0) != gf_dm_hashfn((const char *)buf, 0))
			mismatches++;
		memmove(buf + (k & 3), buf, len);
		if (lctl_dm_hash(buf + (k & 3), len) !=
		    gf_dm_hashfn((const char *)buf + (k & 3), (int)len)) {
			if (!mismatches)
				print_error("first mismatch at #%zu, length %zu\n", k, len);
			mismatches++;
		}
	}
	assert_int_equal(mismatches, 0);
	/* every length 0..300 on the same text, too */
	for (len = 0; len <= 300; len++) {
		memset(buf, 0xe9, len);
		assert_int_equal(lctl_dm_hash(buf, len), gf_dm_hashfn((const char *)buf, (int)len));
		memset(buf, 'q', len);
		assert_int_equal(lctl_dm_hash(buf, len), gf_dm_hashfn((const char *)buf, (int)len));
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Munging                                                                                    */

static void expect_munge(const struct lctl_munge *m, const char *name, const char *want)
{
	char buf[256];
	const char *got = lctl_munge_name(m, name, buf, sizeof(buf));

	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("munge(\"%s\") = \"%s\", want \"%s\"", name, got, want);
	assert_int_equal(lctl_name_hash(m, name), hs(want));
}

static void test_munge_default(void **state)
{
	struct lctl_munge m;
	char buf[64];

	(void)state;
	assert_int_equal(lctl_munge_init(&m, NULL, NULL, NULL), 0);
	expect_munge(&m, ".foo.txt.AbC123", "foo.txt");
	assert_int_equal(lctl_name_hash(&m, ".foo.txt.AbC123"), 0xec803fce);
	expect_munge(&m, ".x.y", "x");
	assert_int_equal(lctl_name_hash(&m, ".x.y"), 0xba644973);
	expect_munge(&m, ".config.json", "config");
	expect_munge(&m, ".bashrc", ".bashrc");
	expect_munge(&m, "foo.txt", "foo.txt");
	expect_munge(&m, "..x", "..x");	   /* group 1 must be non-empty: (.+) */
	expect_munge(&m, "...x", ".");	   /* ^\.(.+)\.[^.]+$ with (.+) = "." */
	expect_munge(&m, ".a.b.c", "a.b"); /* greedy group */
	expect_munge(&m, ".x.", ".x.");	   /* [^.]+ needs one character */
	expect_munge(&m, "", "");
	/* unmunged names come back as the same pointer */
	{
		const char *n = "plain";

		assert_ptr_equal(lctl_munge_name(&m, n, buf, sizeof(buf)), n);
	}
	/* a buffer too small for the munged name */
	assert_null(lctl_munge_name(&m, ".foo.txt.AbC123", buf, 7));
	assert_non_null(lctl_munge_name(&m, ".foo.txt.AbC123", buf, 8));
	assert_null(lctl_munge_name(&m, NULL, buf, sizeof(buf)));
	/* no munge at all */
	assert_int_equal(lctl_name_hash(NULL, ".x.y"), 0x2bc0ab0a);
	lctl_munge_release(&m);
	lctl_munge_release(&m); /* twice is harmless */
	lctl_munge_release(NULL);
}

static void test_munge_none(void **state)
{
	struct lctl_munge m;

	(void)state;
	assert_int_equal(lctl_munge_init(&m, "none", "none", NULL), 0);
	expect_munge(&m, ".foo.txt.AbC123", ".foo.txt.AbC123");
	assert_int_equal(lctl_name_hash(&m, ".x.y"), 0x2bc0ab0a);
	lctl_munge_release(&m);
	/* "" for the extra regex is "none" too */
	assert_int_equal(lctl_munge_init(&m, "", NULL, NULL), 0);
	expect_munge(&m, ".x.y", "x");
	lctl_munge_release(&m);
}

static void test_munge_extra(void **state)
{
	struct lctl_munge m;

	(void)state;
	/* extra first; rsync only when extra did not munge */
	assert_int_equal(lctl_munge_init(&m, "^(.*)\\.tmp$", NULL, NULL), 0);
	expect_munge(&m, "report.txt.tmp", "report.txt");
	expect_munge(&m, ".x.y", "x");	  /* extra no match -> rsync */
	expect_munge(&m, ".x.tmp", ".x"); /* extra wins over rsync ("x") */
	lctl_munge_release(&m);

	/* a group-1 match equal to the whole name still counts as munged: rsync is skipped */
	assert_int_equal(lctl_munge_init(&m, "^(\\..*)$", NULL, NULL), 0);
	expect_munge(&m, ".x.y", ".x.y");
	lctl_munge_release(&m);

	/* a regex without group 1 never munges and does not stop the rsync regex */
	assert_int_equal(lctl_munge_init(&m, "^\\.", NULL, NULL), 0);
	expect_munge(&m, ".x.y", "x");
	lctl_munge_release(&m);

	/* group 1 not taking part in the match: no munge */
	assert_int_equal(lctl_munge_init(&m, "^(q)?\\.", NULL, NULL), 0);
	expect_munge(&m, ".x.y", "x");
	lctl_munge_release(&m);

	/* an empty group 1 munges to the empty string */
	assert_int_equal(lctl_munge_init(&m, "^(z*)", "none", NULL), 0);
	expect_munge(&m, "anything", "");
	assert_int_equal(lctl_name_hash(&m, "anything"), 0x884774a2);
	lctl_munge_release(&m);

	/* REG_EXTENDED, no REG_ICASE */
	assert_int_equal(lctl_munge_init(&m, "^([a-z]+)[0-9]+$", "none", NULL), 0);
	expect_munge(&m, "abc123", "abc");
	expect_munge(&m, "ABC123", "ABC123");
	lctl_munge_release(&m);
}

static void test_munge_bad_regex(void **state)
{
	struct lctl_error err;
	struct lctl_munge m;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(lctl_munge_init(&m, "(", NULL, &err), -LCTL_EINVAL);
	assert_int_equal(err.code, LCTL_EINVAL);
	assert_non_null(strstr(err.msg, "extra-hash-regex"));
	/* as in DHT, the bad regex is ignored and the default rsync regex still works */
	expect_munge(&m, ".x.y", "x");
	lctl_munge_release(&m);

	memset(&err, 0, sizeof(err));
	assert_int_equal(lctl_munge_init(&m, NULL, "[", &err), -LCTL_EINVAL);
	assert_non_null(strstr(err.msg, "rsync-hash-regex"));
	expect_munge(&m, ".x.y", ".x.y");
	lctl_munge_release(&m);

	assert_int_equal(lctl_munge_init(NULL, NULL, NULL, NULL), -LCTL_EINVAL);
}

/* Many threads hashing through one munge get what one thread gets. */
struct thr {
	const struct lctl_munge *m;
	const char **names;
	size_t n;
	uint32_t *out;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	size_t i, round;

	for (round = 0; round < 50; round++)
		for (i = 0; i < t->n; i++)
			t->out[i] = lctl_name_hash(t->m, t->names[i]);
	return NULL;
}

static void test_munge_threads(void **state)
{
	static const char *names[] = { ".foo.txt.AbC123", ".x.y",   ".bashrc", "foo.txt",
				       "a.tmp",		  ".a.b.c", "x",       "\xc3\xa9" };
	enum { NT = 8, NN = sizeof(names) / sizeof(names[0]) };
	uint32_t want[NN], got[NT][NN];
	struct thr t[NT];
	pthread_t tid[NT];
	struct lctl_munge m;
	size_t i, j;

	(void)state;
	assert_int_equal(lctl_munge_init(&m, "^(.*)\\.tmp$", NULL, NULL), 0);
	for (j = 0; j < NN; j++)
		want[j] = lctl_name_hash(&m, names[j]);
	for (i = 0; i < NT; i++) {
		t[i] = (struct thr){ &m, names, NN, got[i] };
		assert_int_equal(pthread_create(&tid[i], NULL, thr_main, &t[i]), 0);
	}
	for (i = 0; i < NT; i++) {
		pthread_join(tid[i], NULL);
		for (j = 0; j < NN; j++)
			assert_int_equal(got[i][j], want[j]);
	}
	lctl_munge_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_sign_extension),
		cmocka_unit_test(test_random_vs_libglusterfs),
		cmocka_unit_test(test_munge_default),
		cmocka_unit_test(test_munge_none),
		cmocka_unit_test(test_munge_extra),
		cmocka_unit_test(test_munge_bad_regex),
		cmocka_unit_test(test_munge_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
