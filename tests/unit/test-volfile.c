/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: the volfile parser and subtree writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	const char *dir = getenv("LCTL_SRCDIR");
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/unit/data/%s", dir ? dir : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_real_dist_rep(void **state)
{
	struct lctl_volfile vf;
	const struct lctl_xlator *dht;
	size_t len;
	char *text = slurp("dist-rep-2x2.vol", &len);

	(void)state;
	assert_int_equal(lctl_volfile_parse(text, len, &vf, NULL), 0);
	dht = lctl_volfile_find_type(&vf, "cluster/distribute");
	assert_non_null(dht);
	assert_string_equal(dht->name, "lr22-dht");
	assert_int_equal(dht->nsubvols, 2);
	assert_string_equal(dht->subvols[0]->name, "lr22-replicate-0");
	assert_string_equal(dht->subvols[1]->name, "lr22-replicate-1");
	assert_string_equal(dht->subvols[1]->type, "cluster/replicate");
	assert_int_equal(dht->subvols[1]->nsubvols, 2);
	assert_string_equal(dht->subvols[1]->subvols[0]->name, "lr22-client-2");
	assert_string_equal(lctl_xlator_option(dht->subvols[1]->subvols[1], "remote-subvolume"),
			    "/tmp/lr/b4");
	assert_null(lctl_xlator_option(dht, "no-such-option"));
	/* the top translator is the last one */
	assert_string_equal(vf.xl[vf.nxl - 1].type, "debug/io-stats");
	lctl_volfile_release(&vf);
	free(text);
}

static void test_subtree_roundtrip(void **state)
{
	struct lctl_volfile vf, sub;
	const struct lctl_xlator *dht, *rep;
	size_t len;
	char *text = slurp("dist-rep-2x2.vol", &len), *out;

	(void)state;
	assert_int_equal(lctl_volfile_parse(text, len, &vf, NULL), 0);
	dht = lctl_volfile_find_type(&vf, "cluster/distribute");
	out = lctl_volfile_subtree(dht->subvols[1]);
	assert_non_null(out);
	assert_int_equal(lctl_volfile_parse(out, strlen(out), &sub, NULL), 0);
	/* exactly the replica set and its two clients, top last */
	assert_int_equal(sub.nxl, 3);
	assert_string_equal(sub.xl[0].name, "lr22-client-2");
	assert_string_equal(sub.xl[1].name, "lr22-client-3");
	rep = &sub.xl[2];
	assert_string_equal(rep->name, "lr22-replicate-1");
	assert_int_equal(rep->nsubvols, 2);
	assert_ptr_equal(rep->subvols[0], &sub.xl[0]);
	/* options survive, credentials included (the graph needs them) */
	assert_non_null(lctl_xlator_option(&sub.xl[0], "password"));
	assert_string_equal(lctl_xlator_option(&sub.xl[0], "remote-host"), "server1");
	assert_null(strstr(out, "lr22-client-0"));
	lctl_volfile_release(&sub);
	lctl_volfile_release(&vf);
	free(out);
	free(text);
}

static void expect_reject(const char *text, const char *what)
{
	struct lctl_volfile vf = { 0 };
	struct lctl_error err = { 0 };

	assert_int_equal(lctl_volfile_parse(text, strlen(text), &vf, &err), -LCTL_EINVAL);
	assert_int_equal(err.code, LCTL_EINVAL);
	if (!strstr(err.msg, what))
		fail_msg("message '%s' does not mention '%s'", err.msg, what);
	assert_null(vf.xl);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_reject("", "no translator");
	expect_reject("volume a\n type protocol/client\n", "missing end-volume");
	expect_reject("volume a\n type x/y\nvolume b\n", "missing end-volume");
	expect_reject("volume a\nend-volume\n", "no type");
	expect_reject("volume a\n type x/y\n subvolumes b\nend-volume\n", "'b'");
	expect_reject("volume a\n type x/y\nend-volume\nvolume a\n type x/y\nend-volume\n",
		      "twice");
	expect_reject("option k v\n volume a\n type x/y\nend-volume\n", "outside");
	expect_reject("volume a\n type x/y\n frobnicate\nend-volume\n", "unknown keyword");
	expect_reject("volume a b\n type x/y\nend-volume\n", "one name");
	expect_reject("volume a\n type x/y z\nend-volume\n", "bad type");
	expect_reject("volume a\n type x/y\n option\nend-volume\n", "without a key");
	/* a translator may not name itself: children must be defined first */
	expect_reject("volume a\n type x/y\n subvolumes a\nend-volume\n", "'a'");
}

static void test_nul_and_comments(void **state)
{
	static const char with_nul[] = "volume a\n type x/y\0\nend-volume\n";
	const char *ok = "# comment\n\nvolume a\n\ttype x/y\n\toption k \"quoted value\"\n"
			 "end-volume\r\nvolume c\n type x/y\nend-volume\n"
			 "volume b\n type p/q\n subvolumes a c\nend-volume";
	struct lctl_volfile vf;

	(void)state;
	assert_int_equal(lctl_volfile_parse(with_nul, sizeof(with_nul) - 1, &vf, NULL),
			 -LCTL_EINVAL);
	assert_int_equal(lctl_volfile_parse(ok, strlen(ok), &vf, NULL), 0);
	assert_int_equal(vf.nxl, 3);
	assert_string_equal(lctl_xlator_option(&vf.xl[0], "k"), "quoted value");
	assert_int_equal(vf.xl[2].nsubvols, 2);
	lctl_volfile_release(&vf);
}

/* "volume NAME / type x/y / [subvolumes ...] / end-volume" appended to @b (grown as needed). */
static void add_block(char **b, size_t *len, const char *name, const char *subvols)
{
	size_t need = strlen(name) + (subvols ? strlen(subvols) : 0) + 64;

	*b = realloc(*b, *len + need);
	assert_non_null(*b);
	*len += (size_t)sprintf(*b + *len, "volume %s\n type x/y\n%s%s%send-volume\n", name,
				subvols ? " subvolumes " : "", subvols ? subvols : "",
				subvols ? "\n" : "");
}

/* A graph whose size as a tree is not bounded is refused: every walker unfolds it. */
static void test_graph_bounds(void **state)
{
	char *b = NULL, *list = NULL, name[32], prev[64];
	size_t len = 0, llen = 0, i;
	struct lctl_volfile vf;

	(void)state;
	/* a child named twice by one translator */
	expect_reject("volume a\n type x/y\nend-volume\nvolume b\n type x/y\n subvolumes a a\n"
		      "end-volume\n",
		      "twice");
	/* the same over two subvolumes lines */
	expect_reject("volume a\n type x/y\nend-volume\nvolume b\n type x/y\n subvolumes a\n"
		      " subvolumes a\nend-volume\n",
		      "twice");

	/* LCTL_MAX_SUBVOLS children are fine, one more is not */
	for (i = 0; i <= LCTL_MAX_SUBVOLS; i++) {
		snprintf(name, sizeof(name), "c%zu", i);
		add_block(&b, &len, name, NULL);
		list = realloc(list, llen + strlen(name) + 2);
		assert_non_null(list);
		llen += (size_t)sprintf(list + llen, "%s%s", llen ? " " : "", name);
		if (i == LCTL_MAX_SUBVOLS - 1) {
			char *ok = malloc(len + llen + 64);
			size_t n = len;

			assert_non_null(ok);
			memcpy(ok, b, len);
			add_block(&ok, &n, "dht", list);
			assert_int_equal(lctl_volfile_parse(ok, n, &vf, NULL), 0);
			assert_int_equal(vf.xl[vf.nxl - 1].nsubvols, LCTL_MAX_SUBVOLS);
			lctl_volfile_release(&vf);
			free(ok);
		}
	}
	add_block(&b, &len, "dht", list);
	expect_reject(b, "more than 1024 subvolumes");
	free(b);
	free(list);

	/*
	 * Two translators per level, each with both of the level below as children: 3.6 KB of
	 * text that unfolds to 2^31 translators (the volume opener collected ~2^30 bricks).
	 */
	b = NULL;
	len = 0;
	add_block(&b, &len, "x0", NULL);
	add_block(&b, &len, "y0", NULL);
	for (i = 1; i <= 30; i++) {
		char xn[32], yn[32];

		snprintf(xn, sizeof(xn), "x%zu", i);
		snprintf(yn, sizeof(yn), "y%zu", i);
		snprintf(prev, sizeof(prev), "x%zu y%zu", i - 1, i - 1);
		add_block(&b, &len, xn, prev);
		add_block(&b, &len, yn, prev);
	}
	expect_reject(b, "unfolds to more than");
	free(b);

	/* a little sharing (a DAG, as GlusterFS allows) is fine */
	assert_int_equal(
		lctl_volfile_parse("volume a\n type x/y\nend-volume\n"
				   "volume b\n type x/y\n subvolumes a\nend-volume\n"
				   "volume c\n type x/y\n subvolumes a b\nend-volume\n",
				   strlen("volume a\n type x/y\nend-volume\n"
					  "volume b\n type x/y\n subvolumes a\nend-volume\n"
					  "volume c\n type x/y\n subvolumes a b\nend-volume\n"),
				   &vf, NULL),
		0);
	lctl_volfile_release(&vf);

	/* a chain 65 translators deep */
	b = NULL;
	len = 0;
	add_block(&b, &len, "t0", NULL);
	for (i = 1; i <= 65; i++) {
		snprintf(name, sizeof(name), "t%zu", i);
		snprintf(prev, sizeof(prev), "t%zu", i - 1);
		add_block(&b, &len, name, prev);
	}
	expect_reject(b, "nested more than 64");
	free(b);
}

/* Random mutations of a real volfile: never crash, always either parse or reject. */
static void test_mutations(void **state)
{
	size_t len, i;
	char *text = slurp("dist-rep-2x2.vol", &len);
	unsigned seed = 12345;

	(void)state;
	for (i = 0; i < 3000; i++) {
		char *m = malloc(len + 1);
		struct lctl_volfile vf;
		size_t k, cut;

		memcpy(m, text, len + 1);
		for (k = 0; k < 1 + i % 5; k++) {
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % len] = (char)(seed >> 16);
		}
		seed = seed * 1103515245u + 12345u;
		cut = (i % 3 == 0) ? (seed >> 8) % len : len;
		if (lctl_volfile_parse(m, cut, &vf, NULL) == 0) {
			for (k = 0; k < vf.nxl; k++) {
				char *s = lctl_volfile_subtree(&vf.xl[k]);

				assert_non_null(s);
				free(s);
			}
			lctl_volfile_release(&vf);
		}
		free(m);
	}
	free(text);
}

/* The brick credentials go once every graph is built; nothing else does. */
static void test_scrub_credentials(void **state)
{
	static const char text[] =
		"volume v-client-0\n    type protocol/client\n"
		"    option remote-host h\n    option username 81f5b7b0-user\n"
		"    option password 0b33f87e-pass\n"
		"    option auth.login.x.password 0b33f87e-pass\nend-volume\n"
		"volume v-dht\n    type cluster/distribute\n    option lookup-optimize on\n"
		"    subvolumes v-client-0\nend-volume\n";
	struct lctl_volfile vf;
	const struct lctl_xlator *xl;
	char *sub;

	(void)state;
	assert_int_equal(lctl_volfile_parse(text, sizeof(text) - 1, &vf, NULL), 0);
	xl = lctl_volfile_find_type(&vf, "protocol/client");
	assert_non_null(xl);
	assert_string_equal(lctl_xlator_option(xl, "password"), "0b33f87e-pass");
	lctl_volfile_scrub_credentials(&vf);
	assert_string_equal(lctl_xlator_option(xl, "password"), "");
	assert_string_equal(lctl_xlator_option(xl, "username"), "");
	assert_string_equal(lctl_xlator_option(xl, "auth.login.x.password"), "");
	assert_string_equal(lctl_xlator_option(xl, "remote-host"), "h");
	assert_string_equal(lctl_xlator_option(lctl_volfile_find_type(&vf, "cluster/distribute"),
					       "lookup-optimize"),
			    "on");
	sub = lctl_volfile_subtree(xl);
	assert_non_null(sub);
	assert_null(strstr(sub, "0b33f87e"));
	assert_null(strstr(sub, "81f5b7b0"));
	free(sub);
	lctl_volfile_release(&vf);
}

/* A volfile of one brick, v-client-0, whose remote-host lines are @hosts (none for ""). */
static char *brick_volfile(const char *hosts)
{
	char *t = NULL;

	assert_true(
		asprintf(&t,
			 "volume v-client-0\n    type protocol/client\n%s"
			 "    option remote-subvolume /bricks/b1\nend-volume\n"
			 "volume v-dht\n    type cluster/distribute\n    subvolumes v-client-0\n"
			 "end-volume\n",
			 hosts) > 0);
	return t;
}

/*
 * A brick's host is handed to ssh (a pool run) and to the gluster CLI (a drain) as an
 * argument: a volfile whose remote-host could read as an option there, or as more than a host,
 * is refused when it is parsed, with a message naming the brick.
 */
static void test_brick_hosts(void **state)
{
	static const char *const bad[] = {
		"-oProxyCommand=touch${IFS}X",
		"\"-oProxyCommand=touch /tmp/PWN\"",
		"-oProxyCommand=touch\v/tmp/PWN",
		"x${IFS}y",
		"srv1 -oProxyCommand=x",
		"srv1\tsrv2",
		"-h",
		"--",
		"\"\"",
		"srv;id",
		"srv$(id)",
		"srv`id`",
		"srv/x",
		"user@srv",
		"[::1]",
		"srv\x1b[2J",
		"srv\x7f",
		"s\xc3\xa9rv",
	};
	static const char *const good[] = {
		"server1", "srv-1.example.com", "a_b", "192.168.1.10", "fe80::1",
		"::1",	   "2001:db8::42",
	};
	char line[1024], host[LCTL_HOST_MAX + 2];
	struct lctl_volfile vf;
	struct lctl_error err;
	size_t i;
	char *t;

	(void)state;
	for (i = 0; i < LCTL_ARRAY_SIZE(bad); i++) {
		snprintf(line, sizeof(line), "    option remote-host %s\n", bad[i]);
		t = brick_volfile(line);
		expect_reject(t, "brick 'v-client-0' names the host");
		free(t);
	}
	/* an empty value, and a bad one after a good one */
	t = brick_volfile("    option remote-host\n");
	expect_reject(t, "not a host name or address");
	free(t);
	t = brick_volfile("    option remote-host srv1\n    option remote-host -oProxyCommand=x\n");
	expect_reject(t, "'-oProxyCommand=x'");
	free(t);
	/* a newline cannot be in an option's value: the rest is a line of its own */
	t = brick_volfile("    option remote-host srv1\n-oProxyCommand=x\n");
	expect_reject(t, "unknown keyword");
	free(t);

	for (i = 0; i < LCTL_ARRAY_SIZE(good); i++) {
		snprintf(line, sizeof(line), "    option remote-host %s\n", good[i]);
		t = brick_volfile(line);
		assert_int_equal(lctl_volfile_parse(t, strlen(t), &vf, NULL), 0);
		assert_string_equal(lctl_xlator_option(&vf.xl[0], "remote-host"), good[i]);
		lctl_volfile_release(&vf);
		free(t);
	}

	/* no remote-host: the client takes the volfile server's (glusterd's snapd client) */
	t = brick_volfile("");
	assert_int_equal(lctl_volfile_parse(t, strlen(t), &vf, NULL), 0);
	lctl_volfile_release(&vf);
	free(t);

	/* LCTL_HOST_MAX bytes are a host, one more is not (and the message is cut) */
	memset(host, 'a', LCTL_HOST_MAX);
	host[LCTL_HOST_MAX] = '\0';
	snprintf(line, sizeof(line), "    option remote-host %s\n", host);
	t = brick_volfile(line);
	assert_int_equal(lctl_volfile_parse(t, strlen(t), &vf, NULL), 0);
	lctl_volfile_release(&vf);
	free(t);
	strcat(host, "a");
	snprintf(line, sizeof(line), "    option remote-host %s\n", host);
	t = brick_volfile(line);
	memset(&err, 0, sizeof(err));
	assert_int_equal(lctl_volfile_parse(t, strlen(t), &vf, &err), -LCTL_EINVAL);
	assert_non_null(strstr(err.msg, "aaa...': not a host name or address"));
	free(t);

	/* the rule itself, for what a volfile line cannot hold */
	assert_int_equal(lctl_host_check("srv1", 4), 0);
	assert_int_equal(lctl_host_check("srv1\nx", 6), -1);
	assert_int_equal(lctl_host_check("srv1\0x", 6), -1);
	assert_int_equal(lctl_host_check("", 0), -1);
	/* only @len bytes count */
	assert_int_equal(lctl_host_check("srv1:/b", 4), 0);
}

/*
 * cluster.subvols-per-directory reaches the client volfile as the DHT option
 * directory-layout-spread (GlusterFS 10.3 glusterd-volume-set.c, seen with `gluster system::
 * getspec` on a real volume); lctl_dht_spread() reads it for scan and fix (issue 28).
 */
static void test_dht_spread(void **state)
{
	static const char text[] = "volume v-client-0\n"
				   "    type protocol/client\n"
				   "    option remote-host h1\n"
				   "    option remote-subvolume /b0\n"
				   "end-volume\n"
				   "volume v-client-1\n"
				   "    type protocol/client\n"
				   "    option remote-host h1\n"
				   "    option remote-subvolume /b1\n"
				   "end-volume\n"
				   "volume v-dht\n"
				   "    type cluster/distribute\n"
				   "    option lock-migration off\n"
				   "    option directory-layout-spread 2\n"
				   "    subvolumes v-client-0 v-client-1\n"
				   "end-volume\n";
	static const struct {
		const char *v;
		unsigned want;
	} vals[] = {
		{ "1", 1 },
		{ "2", 2 },
		{ "4294967295", 4294967295u },
		{ "4294967296", 0 },
		{ "0", 0 },
		{ "", 0 },
		{ "-1", 0 },
		{ "2x", 0 },
		{ "0x2", 0 },
		{ " 2", 0 },
		{ "99999999999999999999", 0 },
	};
	char key[] = "directory-layout-spread", val[32];
	struct lctl_xl_option opt = { key, val };
	struct lctl_xlator xl = { 0 };
	struct lctl_volfile vf;
	size_t i;

	(void)state;
	assert_int_equal(lctl_volfile_parse(text, sizeof(text) - 1, &vf, NULL), 0);
	assert_int_equal(lctl_dht_spread(lctl_volfile_find_type(&vf, "cluster/distribute")), 2);
	/* not set: every subvolume */
	assert_int_equal(lctl_dht_spread(lctl_volfile_find_type(&vf, "protocol/client")), 0);
	assert_int_equal(lctl_dht_spread(NULL), 0);
	lctl_volfile_release(&vf);
	/* only what DHT would start with counts; anything else means all subvolumes */
	xl.opts = &opt;
	xl.nopts = 1;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		snprintf(val, sizeof(val), "%s", vals[i].v);
		assert_int_equal(lctl_dht_spread(&xl), vals[i].want);
	}
}

/* The client graph of a volume: a brick, DHT, then @perf (translator blocks over DHT). */
static void cache_of(const char *perf, unsigned want_s, const char *want_opt)
{
	char text[2048];
	struct lctl_volfile vf;
	struct lctl_client_cache cc;

	snprintf(text, sizeof(text),
		 "volume v-client-0\n type protocol/client\n option remote-host h\nend-volume\n"
		 "volume v-dht\n type cluster/distribute\n subvolumes v-client-0\nend-volume\n%s",
		 perf);
	assert_int_equal(lctl_volfile_parse(text, strlen(text), &vf, NULL), 0);
	lctl_volfile_client_cache(&vf, &cc);
	if (cc.seconds != want_s ||
	    (want_opt ? !cc.option || strcmp(cc.option, want_opt) : cc.option != NULL))
		fail_msg("%s: %u s (%s), want %u s (%s)", perf, cc.seconds,
			 cc.option ? cc.option : "none", want_s, want_opt ? want_opt : "none");
	lctl_volfile_release(&vf);
}

#define MDC(opts) \
	"volume v-md-cache\n type performance/md-cache\n" opts " subvolumes v-dht\nend-volume\n"
#define NLC(opts, sub) \
	"volume v-nl-cache\n type performance/nl-cache\n" opts " subvolumes " sub "\nend-volume\n"
#define MD "performance.md-cache-timeout"
#define NL "performance.nl-cache-timeout"

/* The client caches in a graph and the settle period they call for (fix --settle). */
static void test_client_cache(void **state)
{
	(void)state;
	cache_of("", 0, NULL);					/* no cache: nothing to wait for */
	cache_of(MDC(""), 1, MD);				/* md-cache's default */
	cache_of(MDC(" option md-cache-timeout 10\n"), 10, MD); /* volume set ... 10 */
	cache_of(MDC(" option md-cache-timeout 0\n"), 0, MD);
	cache_of(MDC(" option md-cache-timeout 600\n option pass-through on\n"), 0, NULL);
	cache_of(MDC(" option md-cache-timeout 600\n option pass-through off\n"), 600, MD);
	cache_of(MDC(" option md-cache-timeout 10x\n"), 1, MD); /* unparsable: the default */
	cache_of(MDC(" option md-cache-timeout 99999999999999999999999\n"), LCTL_SETTLE_MAX, MD);
	/* nl-cache (default 60 s) over md-cache: the longer wins */
	cache_of(MDC(" option md-cache-timeout 10\n") NLC("", "v-md-cache"), 60, NL);
	cache_of(MDC(" option md-cache-timeout 120\n")
			 NLC(" option nl-cache-timeout 2m\n", "v-md-cache"),
		 120, MD);
	cache_of(MDC("") NLC(" option nl-cache-timeout 2h\n", "v-md-cache"), 3600, NL);
	cache_of(MDC("") NLC(" option nl-cache-timeout 30s\n", "v-md-cache"), 30, NL);
	cache_of(MDC("") NLC(" option pass-through yes\n", "v-md-cache"), 1, MD);
	/* the settle period: the default, or the cache and 2 s when longer, at most 3600 */
	assert_int_equal(lctl_settle_for_cache(5, 0), 5);
	assert_int_equal(lctl_settle_for_cache(5, 1), 5);
	assert_int_equal(lctl_settle_for_cache(5, 3), 5);
	assert_int_equal(lctl_settle_for_cache(5, 4), 6);
	assert_int_equal(lctl_settle_for_cache(5, 10), 12);
	assert_int_equal(lctl_settle_for_cache(5, 600), 602);
	assert_int_equal(lctl_settle_for_cache(5, 3600), 3600);
	assert_int_equal(lctl_settle_for_cache(0, 1), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_dist_rep),	  cmocka_unit_test(test_subtree_roundtrip),
		cmocka_unit_test(test_malformed),	  cmocka_unit_test(test_nul_and_comments),
		cmocka_unit_test(test_graph_bounds),	  cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_scrub_credentials), cmocka_unit_test(test_brick_hosts),
		cmocka_unit_test(test_dht_spread),	  cmocka_unit_test(test_client_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
