/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the one line of text a status renders to (cmd/status.c: the dashboard's and
 * `status`'s "Now:" line), for every phase of a fix from its first second (issue 16), from
 * the object built in this process and from the same object read back from the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "status.h"

/* cmd/progress.c reads the global options; the defaults of layoutctl.c are not linked here */
struct global_opts gopts;

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/lctl-phase-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

/* The phase line of a status, from this process's object or read back from the file. */
static void phase_line(struct json_object *st, const char *dir, char *buf, size_t size)
{
	struct json_object *back;
	char line[256];

	status_phase_line(st, buf, size);
	assert_int_equal(lctl_status_write(dir, st, NULL), 0);
	back = lctl_status_read(dir, NULL);
	assert_non_null(back);
	status_phase_line(back, line, sizeof(line));
	assert_string_equal(line, buf);
	json_object_put(back);
}

static void test_phases(void **state)
{
	static struct lctl_progress p;
	struct lctl_rate_tracker rt = { 0 };
	struct lctl_status_info si = { "fix",
				       "vol",
				       "/",
				       "clean-first",
				       "gluster",
				       "running",
				       "preflight",
				       false,
				       1000,
				       -1,
				       "connecting to the volume" };
	struct json_object *st;
	char *dir = tmpdir(), line[256], cmd[300];

	(void)state;
	p.phase = "preflight";
	p.settle_seconds = 8;
	p.settle_left = 8;
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_string_equal(js_str(st, "phase"), "preflight");
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Preflight   connecting to the volume");
	json_object_put(st);

	si.step = NULL;
	p.phase = "layout";
	p.dirs_done = 3;
	p.dirs_seen = 10;
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_int_equal(js_int(st, "directories.done"), 3);
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Layout pass 3 of 10 directories seen have their final layout, "
				  "dirty (commit 1)");
	json_object_put(st);

	p.phase = "settle";
	p.settle_left = 5.2;
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_true(js_double(st, "settle.remaining_seconds") == 5.2);
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Settle      6 s left of 8 s: clients learn the new layouts "
				  "before anything moves");
	json_object_put(st);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
