/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the one line of text a status renders to (cmd/statusview.c: the dashboard's and
 * `status`'s "Now:" line), for every phase of a fix from its first second (issue 16), from
 * the object built in this process and from the same object read back from the file; and the
 * dashboard's row of a pool server, rendered by the template `status` and fix print it with.
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
#include "output.h"
#include "progress.h"
#include "statusview.h"
#include "tmpdir.h"

/* cmd/progress.c reads the global options; the defaults of layoutctl.c are not linked here */
struct global_opts gopts;

static char *tmpdir(void)
{
	char *d = unit_tmpdir("phase");

	assert_non_null(d);
	return d;
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
	char *dir = tmpdir(), line[256];

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

	/* inside a big directory: how far in it, also read back from the file */
	p.phase = "work";
	p.dir_entries_done = 120000;
	p.dir_entries_seen = 400000;
	snprintf(p.dir_entries_path, sizeof(p.dir_entries_path), "/a/big");
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_int_equal(js_int(st, "directory_in_progress.entries_seen"), 400000);
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Linking, verifying, stamping: 3 of 10 directories seen; in "
				  "/a/big: 120000 of 400000 entries");
	json_object_put(st);
	p.dir_entries_done = p.dir_entries_seen = 0;
	p.dir_entries_path[0] = '\0';
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_null(lctl_status_get(st, "directory_in_progress"));
	json_object_put(st);
	assert_int_equal(unit_rm_rf(dir), 0);
	free(dir);
}

/* The row as the dashboard printed it before the table was written once (its columns). */
static void printf_row(struct json_object *o, char *buf, size_t size)
{
	char b1[32], b2[32];
	char *name = out_name_dup(js_str(o, "name")), *e = out_name_dup(js_str(o, "error"));

	snprintf(buf, size, "%-24s %-9s %8lld %9lld %8lld %7lld %10s %10s%s%s", name,
		 out_esc(js_str(o, "state")), (long long)js_int(o, "directories"),
		 (long long)js_int(o, "migrated"), (long long)js_int(o, "skipped"),
		 (long long)js_int(o, "failed"),
		 human_bytes((uint64_t)js_int(o, "bytes_moved"), b1, sizeof(b1)),
		 human_bytes((uint64_t)js_double(o, "bytes_per_sec"), b2, sizeof(b2)),
		 e[0] ? "  " : "", e);
	free(name);
	free(e);
}

/*
 * Each server's row of a status, as the dashboard draws it: the columns of the header, every
 * string escaped (a name with a newline and an escape sequence stays on its line), a long name
 * whole, an error after the columns; a row missing a field shows "-" there, as `status`
 * shows the same file.
 */
static void test_server_rows(void **state)
{
	static struct lctl_progress p;
	struct lctl_rate_tracker rt = { 0 };
	struct lctl_status_info si = { "fix",	"vol", "/",  "migrate", "gluster", "running",
				       "place", false, 1000, -1,	NULL };
	static const char *const names[] = { "srv1", "evil\n\x1b[31mname",
					     "a-very-long-server-name.example.org" };
	struct json_object *st, *rows, *row;
	char got[512], want[512];
	size_t i, k;

	(void)state;
	p.phase = "place";
	p.nservers = 3;
	for (i = 0; i < 3; i++) {
		snprintf(p.servers[i].name, sizeof(p.servers[i].name), "%s", names[i]);
		snprintf(p.servers[i].state, sizeof(p.servers[i].state), "%s",
			 i == 2 ? "lost" : "placing");
		p.servers[i].dirs = 10 * i + 1;
		p.servers[i].migrated = 1000 * i + 7;
		p.servers[i].skipped = i;
		p.servers[i].failed = 2 * i;
		p.servers[i].bytes = (uint64_t)3 << (20 + 5 * i);
		p.servers[i].seconds = 1.5 + (double)i;
	}
	snprintf(p.servers[2].error, sizeof(p.servers[2].error), "silent for 120 s");
	st = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_int_equal(status_servers(st, &rows), 3);
	for (i = 0; i < 3; i++) {
		row = json_object_array_get_idx(rows, i);
		status_server_row(row, got, sizeof(got));
		printf_row(row, want, sizeof(want));
		assert_string_equal(got, want);
		for (k = 0; got[k]; k++)
			assert_true((unsigned char)got[k] >= 0x20 && got[k] != 0x7f);
	}
	/* a field missing from the file: "-" in its column, as `status` prints it */
	row = json_object_array_get_idx(rows, 0);
	json_object_object_del(row, "skipped");
	status_server_row(row, got, sizeof(got));
	assert_non_null(strstr(got, "        - "));
	json_object_put(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_server_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
