/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: a fix's status and control files (cmd/status.c) in a state directory that
 * someone else has prepared, and the control file taken while `top` writes the next command.
 *
 * The test links with -Wl,--wrap=unlink,--wrap=unlinkat: when armed, the first removal made
 * while a command is being taken first sends another command, as a `top` in another process
 * would at that moment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "status.h"

/* cmd/progress.c reads the global options; the defaults of layoutctl.c are not linked here */
struct global_opts gopts;

static const char *race_dir; /* armed: send "stop" at the next removal */

int __real_unlink(const char *path);
int __wrap_unlink(const char *path);
int __real_unlinkat(int dfd, const char *path, int flags);
int __wrap_unlinkat(int dfd, const char *path, int flags);

static void race(void)
{
	const char *dir = race_dir;

	if (dir) {
		race_dir = NULL;
		assert_int_equal(control_send(dir, "stop"), 0);
	}
}

int __wrap_unlink(const char *path)
{
	race();
	return __real_unlink(path);
}

int __wrap_unlinkat(int dfd, const char *path, int flags)
{
	/* the temporary of the racing send itself is no moment of the take */
	if (!race_dir || strstr(path, ".tmp"))
		return __real_unlinkat(dfd, path, flags);
	race();
	return __real_unlinkat(dfd, path, flags);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/lctl-status-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

static void rm_rf(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect_file(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

/* A command sent while the previous one is taken is the next take's, not lost. */
static void test_take_race(void **state)
{
	char *dir = tmpdir();
	int w = 0;

	(void)state;
	assert_int_equal(control_send(dir, "pause"), 0);
	race_dir = dir;
	assert_int_equal(control_take(dir, &w), CONTROL_PAUSE);
	assert_null(race_dir); /* the race happened */
	assert_int_equal(control_take(dir, &w), CONTROL_STOP);
	assert_int_equal(control_take(dir, &w), CONTROL_NONE);
	assert_int_equal(control_send(dir, "workers 7"), 0);
	assert_int_equal(control_take(dir, &w), CONTROL_WORKERS);
	assert_int_equal(w, 7);
	rm_rf(dir);
	free(dir);
}

/* A FIFO named control (nobody writes it) is dropped at once, never waited on. */
static void test_take_fifo(void **state)
{
	char *dir = tmpdir(), path[512];
	int w = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/control", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* the old fopen() waited here for a writer, holding the volume */
	assert_int_equal(control_take(dir, &w), CONTROL_NONE);
	alarm(0);
	assert_int_equal(access(path, F_OK), -1);
	/* a link to a file outside: not read, and that file stays */
	snprintf(path, sizeof(path), "%s/victim", dir);
	put(path, "stop\n");
	snprintf(path, sizeof(path), "%s/control", dir);
	assert_int_equal(symlink("victim", path), 0);
	assert_int_equal(control_take(dir, &w), CONTROL_NONE);
	snprintf(path, sizeof(path), "%s/victim", dir);
	expect_file(path, "stop\n");
	rm_rf(dir);
	free(dir);
}

/*
 * Links planted under the names the job writes (the temporaries included) are replaced,
 * never written through: the files they point to keep their contents.
 */
static void test_links_not_followed(void **state)
{
	static const char *const names[] = { ".control.tmp", "control", ".progress.json.tmp",
					     "progress.json" };
	char *dir = tmpdir(), *out = tmpdir(), path[512], victim[512];
	struct json_object *st = json_object_new_object();
	size_t i;
	int w;

	(void)state;
	json_object_object_add(st, "state", json_object_new_string("running"));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(victim, sizeof(victim), "%s/victim%zu", out, i);
		put(victim, "precious\n");
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(symlink(victim, path), 0);
	}
	assert_int_equal(control_send(dir, "pause"), 0);
	assert_int_equal(status_publish(dir, st), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(victim, sizeof(victim), "%s/victim%zu", out, i);
		expect_file(victim, "precious\n");
	}
	snprintf(path, sizeof(path), "%s/progress.json", dir);
	expect_file(path, "{\"state\":\"running\"}\n");
	assert_int_equal(control_take(dir, &w), CONTROL_PAUSE);
	json_object_put(st);
	rm_rf(dir);
	rm_rf(out);
	free(dir);
	free(out);
}

/* The phase line of a status, from this process's object or read back from the file. */
static void phase_line(struct json_object *st, const char *dir, char *buf, size_t size)
{
	struct json_object *back;
	char line[256];

	status_phase_line(st, buf, size);
	assert_int_equal(status_publish(dir, st), 0);
	back = status_read(dir, NULL);
	assert_non_null(back);
	status_phase_line(back, line, sizeof(line));
	assert_string_equal(line, buf);
	json_object_put(back);
}

/*
 * Every phase of a fix from its first second (issue 16): the preflight step, the layout pass
 * with its directories, and the settle period counted down, in the published status and its
 * one-line rendering (dashboard, `status`).
 */
static void test_phases(void **state)
{
	static struct lctl_progress p;
	struct rate_tracker rt = { 0 };
	struct status_info si = { "fix",
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
	st = status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_string_equal(js_str(st, "phase"), "preflight");
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Preflight   connecting to the volume");
	json_object_put(st);

	si.step = NULL;
	p.phase = "layout";
	p.dirs_done = 3;
	p.dirs_seen = 10;
	st = status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_string_equal(js_str(st, "phase"), "layout");
	assert_int_equal(js_int(st, "directories.done"), 3);
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Layout pass 3 of 10 directories seen have their final layout, "
				  "dirty (commit 1)");
	json_object_put(st);

	p.phase = "settle";
	p.settle_left = 5.2;
	st = status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_string_equal(js_str(st, "phase"), "settle");
	assert_true(js_double(st, "settle.seconds") == 8);
	assert_true(js_double(st, "settle.remaining_seconds") == 5.2);
	phase_line(st, dir, line, sizeof(line));
	assert_string_equal(line, "Settle      6 s left of 8 s: clients learn the new layouts "
				  "before anything moves");
	json_object_put(st);

	/* a run without a settle period (resumed after it, a dry run): no countdown */
	p.phase = "work";
	p.settle_seconds = p.settle_left = 0;
	st = status_build(&si, &p, NULL, &rt, NULL, NULL);
	assert_false(json_object_object_get_ex(st, "settle", NULL));
	json_object_put(st);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_race),
		cmocka_unit_test(test_take_fifo),
		cmocka_unit_test(test_links_not_followed),
		cmocka_unit_test(test_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
