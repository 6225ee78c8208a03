/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the Prometheus text writer and the metrics of a fix run (lib/metricsfile.c).
 * The metrics of fixed runs (one on a single host, one spread over a pool, names with quotes,
 * backslashes, newlines and invalid UTF-8) are compared byte for byte with
 * tests/golden/metrics.prom; LCTL_UPDATE_GOLDEN=1 rewrites it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutctl.h"

static void test_label(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "gv0", "gv0" },
		{ "a\"b", "a\\\"b" },
		{ "back\\slash", "back\\\\\\\\slash" }, /* escaped once, then the format's */
		{ "new\nline", "new\\\\x0aline" },
		{ "bad\xff", "bad\\\\xff" },
		{ "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9" },
		{ "", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *v = lctl_prom_label_dup(cases[i].in);

		assert_non_null(v);
		assert_string_equal(v, cases[i].out);
		assert_null(strchr(v, '\n'));
		free(v);
	}
}

static void test_writer(void **state)
{
	struct lctl_prom *m = lctl_prom_new();
	const char *l[] = { "volume", "v\"1", "server", "h\n", NULL };

	(void)state;
	assert_non_null(m);
	lctl_prom_family(m, "x_total", "counter", "things");
	lctl_prom_sample(m, "x_total", l, "%d", 3);
	lctl_prom_sample(m, "x_total", NULL, "%.1f", 0.5);
	assert_string_equal(lctl_prom_text(m), "# HELP x_total things\n# TYPE x_total counter\n"
					       "x_total{volume=\"v\\\"1\",server=\"h\\\\x0a\"} 3\n"
					       "x_total 0.5\n");
	lctl_prom_free(m);
	lctl_prom_free(NULL);
}

/* The golden file: the metrics of the runs below, each after a "# --- CASE" line. */
static void test_golden(void **state)
{
	static struct lctl_progress p;
	struct lctl_metrics_info mi = { .command = "fix",
					.volume = "gv0",
					.host = "srv-a",
					.running = true,
					.phase = "work",
					.started = 1764000000,
					.updated = 1764000100,
					.exit_code = -1,
					.last_success = 1763900000,
					.last_progress = 1764000090 };
	char path[4096], *text, *want = NULL;
	const char *dir = getenv("LCTL_SRCDIR");
	size_t cap = 1 << 16, len = 0, n;
	FILE *f;

	(void)state;
	want = calloc(1, cap);
	assert_non_null(want);
#define CASE(name) \
	do { \
		text = lctl_metrics_render(&mi, &p); \
		assert_non_null(text); \
		len += (size_t)snprintf(want + len, cap - len, "# --- %s\n%s", name, text); \
		free(text); \
	} while (0)
	/* one host, running, in the middle of its work */
	memset(&p, 0, sizeof(p));
	p.phase = "work";
	p.dirs_done = 120;
	p.file_actions[LCTL_FILE_MIGRATED] = 4500;
	p.file_actions[LCTL_FILE_SKIPPED] = 7;
	p.file_actions[LCTL_FILE_FAILED] = 2;
	p.bytes_moved = 123456789012ULL;
	CASE("single host, running");
	/* ended with failed files: exit 1, no new success */
	mi.running = false;
	mi.phase = "done";
	mi.exit_code = 1;
	mi.last_success = 0;
	CASE("single host, ended with status 1, no success known");
	/* a pool run: a row per server, names that need escaping, a phase not in the list */
	mi = (struct lctl_metrics_info){ .command = "drain",
					 .volume = "v\"ol\\1\n\xff",
					 .host = "ignored",
					 .running = true,
					 .phase = "new-phase",
					 .started = 1764000000,
					 .updated = 1764000200,
					 .exit_code = -1 };
	memset(&p, 0, sizeof(p));
	p.nservers = 2;
	snprintf(p.servers[0].name, sizeof(p.servers[0].name), "gl1.example");
	p.servers[0].dirs = 10;
	p.servers[0].migrated = 30;
	p.servers[0].bytes = 3000;
	p.servers[0].failed = 1;
	snprintf(p.servers[1].name, sizeof(p.servers[1].name), "gl\"2\\");
	p.servers[1].dirs = 11;
	p.servers[1].migrated = 31;
	p.servers[1].bytes = 3100;
	p.servers[1].skipped = 4;
	CASE("pool of two servers, odd names");
#undef CASE
	snprintf(path, sizeof(path), "%s/tests/golden/metrics.prom", dir ? dir : ".");
	if (getenv("LCTL_UPDATE_GOLDEN") && !strcmp(getenv("LCTL_UPDATE_GOLDEN"), "1")) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(want, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
	}
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, cap);
	assert_non_null(text);
	n = fread(text, 1, cap - 1, f);
	fclose(f);
	if (n != len || memcmp(text, want, len))
		fail_msg("the metrics differ from tests/golden/metrics.prom:\n%s", want);
	free(text);
	free(want);
}

/* last_progress moves when a counter grows, and only then. */
static void test_note(void **state)
{
	static struct lctl_progress p;
	struct lctl_metrics_info mi = { 0 };

	(void)state;
	memset(&p, 0, sizeof(p));
	lctl_metrics_note(&mi, &p, 100);
	assert_int_equal(mi.last_progress, 100);
	lctl_metrics_note(&mi, &p, 200);
	assert_int_equal(mi.last_progress, 100);
	p.dirs_done = 1;
	lctl_metrics_note(&mi, &p, 300);
	assert_int_equal(mi.last_progress, 300);
	p.nservers = 1;
	lctl_metrics_note(&mi, &p, 400);
	assert_int_equal(mi.last_progress, 400); /* the pool's rows replace this host's */
	lctl_metrics_note(&mi, &p, 500);
	assert_int_equal(mi.last_progress, 400);
	p.servers[0].bytes = 5;
	lctl_metrics_note(&mi, &p, 600);
	assert_int_equal(mi.last_progress, 600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
