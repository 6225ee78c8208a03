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

static const char *race_dir;	/* armed: send "stop" at the next removal */

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_race),
		cmocka_unit_test(test_take_fifo),
		cmocka_unit_test(test_links_not_followed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
