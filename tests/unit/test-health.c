/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the health probe's decision for a brick of a replica set that has no graph
 * (lib/health.c). The volume, its graphs, lctl_volume_brick_reopen() and the clock are stubs
 * here; glusterd is a fake gluster CLI (a shell script at an absolute path) that counts how
 * often it is run and answers `volume status VOL --xml` from a file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glusterfs/api/glfs.h>

#include "layoutctl.h"
#include "internal.h"
#include "health.h"
#include "tmpdir.h"

/* --- the stubs: one replica set s1:/b0 s2:/b1 s3:/b2 -------------------------------------- */
#define NBRICKS 3
static char h0[] = "s1", h1[] = "s2", h2[] = "s3", p0[] = "/b0", p1[] = "/b1", p2[] = "/b2",
	    set_name[] = "v-replicate-0";
static struct lctl_brick bricks[NBRICKS] = {
	{ .host = h0, .path = p0 },
	{ .host = h1, .path = p1 },
	{ .host = h2, .path = p2 },
};
static struct lctl_subvol set = { .name = set_name,
				  .kind = LCTL_SUBVOL_REPLICATE,
				  .bricks = bricks,
				  .nbricks = NBRICKS };
static glfs_t *const live = (glfs_t *)&set; /* a graph that answers (never dereferenced) */
static bool has_graph[NBRICKS];		    /* else graphless, and reopenable */
static bool reopen_works[NBRICKS];
static unsigned reopens[NBRICKS];
static bool asks = true;
static double now = 1000;

struct lctl_volume;

const char *lctl_volume_name(const struct lctl_volume *vol)
{
	(void)vol;
	return "v";
}
size_t lctl_volume_nsubvols(const struct lctl_volume *vol)
{
	(void)vol;
	return 1;
}
const struct lctl_subvol *lctl_volume_subvol(const struct lctl_volume *vol, size_t i)
{
	(void)vol;
	return i == 0 ? &set : NULL;
}
glfs_t *lctl_volume_subvol_fs(const struct lctl_volume *vol, size_t i)
{
	(void)vol;
	return i == 0 ? live : NULL;
}
glfs_t *lctl_volume_brick_fs(const struct lctl_volume *vol, size_t i, size_t j)
{
	(void)vol;
	return i == 0 && j < NBRICKS && has_graph[j] ? live : NULL;
}
bool lctl_volume_brick_reopenable(const struct lctl_volume *vol, size_t i, size_t j)
{
	(void)vol;
	return i == 0 && j < NBRICKS && !has_graph[j];
}
int lctl_volume_brick_reopen(struct lctl_volume *vol, size_t i, size_t j)
{
	(void)vol;
	assert_true(i == 0 && j < NBRICKS && !has_graph[j]);
	reopens[j]++;
	if (!reopen_works[j])
		return -ENOTCONN;
	has_graph[j] = true;
	return 0;
}
bool lctl_volume_brick_health(const struct lctl_volume *vol)
{
	(void)vol;
	return true;
}
bool lctl_volume_asks_glusterd(const struct lctl_volume *vol)
{
	(void)vol;
	return asks;
}
double lctl_mono_seconds(void)
{
	return now;
}
void lctl_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}
int lctl_host_check(const char *host, size_t len)
{
	(void)host;
	(void)len;
	return 0;
}
int glfs_statvfs(glfs_t *fs, const char *path, struct statvfs *buf)
{
	(void)path;
	assert_ptr_equal(fs, live);
	memset(buf, 0, sizeof(*buf));
	return 0;
}
ssize_t glfs_getxattr(glfs_t *fs, const char *path, const char *name, void *value, size_t size)
{
	(void)fs;
	(void)path;
	(void)name;
	(void)value;
	(void)size;
	errno = ENODATA;
	return -1;
}

/* --- the fake glusterd --------------------------------------------------------------------- */
static char dir[64], gluster[128];

#define HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cliOutput>"
#define ROW(h, p, st) \
	"<node><hostname>" h "</hostname><path>" p "</path><status>" st "</status></node>"
#define ANSWER(rows) \
	HEAD "<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>" \
	     "<volName>v</volName>" rows "</volume></volumes></volStatus></cliOutput>"

/* glusterd's next answer: @xml, or NULL for a CLI that cannot reach it (exit 1, no XML) */
static void glusterd_says(const char *xml)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/answer", dir);
	if (!xml) {
		unlink(path);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(xml, f);
	fclose(f);
}

static unsigned glusterd_asked(void)
{
	char buf[64];

	if (unit_read(dir, "count", buf, sizeof(buf)))
		return 0;
	return (unsigned)strlen(buf);
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (unit_mkdtemp(dir, sizeof(dir), "health"))
		return -1;
	snprintf(gluster, sizeof(gluster), "%s/gluster", dir);
	f = fopen(gluster, "w");
	if (!f)
		return -1;
	fprintf(f,
		"#!/bin/sh\nd='%s'\nprintf x >> \"$d/count\"\n"
		"[ -f \"$d/answer\" ] || { echo 'Connection failed' >&2; exit 1; }\n"
		"cat \"$d/answer\"\n",
		dir);
	fclose(f);
	chmod(gluster, 0700);
	memset(has_graph, 0, sizeof(has_graph));
	memset(reopen_works, 0, sizeof(reopen_works));
	memset(reopens, 0, sizeof(reopens));
	has_graph[0] = true;
	asks = true;
	now = 1000;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

static void health_init(struct lctl_health *h)
{
	lctl_health_init(h, (struct lctl_volume *)&set, 1000);
	h->gluster = gluster;
}

/* A fresh probe: the bricks down in the set, the reason into @why. */
static size_t probe(struct lctl_health *h, char *why, size_t size)
{
	size_t degraded = 0;

	assert_int_equal(lctl_health_check(h, true, &degraded, why, size), 0);
	return degraded;
}

/* Listed offline: down, said so, and no graph is built. */
static void test_offline(void **state)
{
	struct lctl_health h;
	char why[200];

	(void)state;
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s2", "/b1", "0") ROW("s3", "/b2", "1")));
	has_graph[2] = true;
	health_init(&h);
	assert_int_equal(probe(&h, why, sizeof(why)), 1);
	assert_string_equal(why, "brick s2:/b1 down (glusterd: offline)");
	assert_int_equal(reopens[1], 0);
	lctl_health_release(&h);
}

/* Not listed while glusterd answered (its peer is gone): down, no graph built. */
static void test_not_listed(void **state)
{
	struct lctl_health h;
	char why[200];

	(void)state;
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s3", "/b2", "1")));
	has_graph[2] = true;
	health_init(&h);
	assert_int_equal(probe(&h, why, sizeof(why)), 1);
	assert_string_equal(why, "brick s2:/b1 down (glusterd: not listed)");
	assert_int_equal(reopens[1], 0);
	now += 3600; /* an hour of probes: still none */
	assert_int_equal(probe(&h, why, sizeof(why)), 1);
	assert_int_equal(reopens[1], 0);
	lctl_health_release(&h);
}

/* Listed online: the graph is built, and the brick is probed through it. */
static void test_online(void **state)
{
	struct lctl_health h;
	char why[200];

	(void)state;
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s2", "/b1", "1") ROW("s3", "/b2", "1")));
	has_graph[2] = true;
	reopen_works[1] = true;
	health_init(&h);
	assert_int_equal(probe(&h, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(reopens[1], 1);
	assert_true(has_graph[1]);
	lctl_health_release(&h);
}

/*
 * glusterd cannot tell: the graph is tried, then again only after a backoff of its own per
 * brick, 10 s doubling: two graphless bricks are both tried at the first probe.
 */
static void test_cannot_tell_backoff(void **state)
{
	struct lctl_health h;
	char why[200];

	(void)state;
	glusterd_says(NULL);
	health_init(&h);
	assert_int_equal(probe(&h, why, sizeof(why)), 2);
	assert_string_equal(why, "brick s2:/b1 down");
	assert_int_equal(reopens[1], 1);
	assert_int_equal(reopens[2], 1); /* not starved by the first brick's failure */
	now += 9;
	probe(&h, why, sizeof(why));
	assert_int_equal(reopens[1], 1);
	now += 1; /* 10 s */
	probe(&h, why, sizeof(why));
	assert_int_equal(reopens[1], 2);
	assert_int_equal(reopens[2], 2);
	now += 19; /* then 20 s */
	probe(&h, why, sizeof(why));
	assert_int_equal(reopens[1], 2);
	now += 1;
	probe(&h, why, sizeof(why));
	assert_int_equal(reopens[1], 3);
	/* it never tries more often than every 5 min or so, however long it lasts */
	now += 24 * 3600;
	probe(&h, why, sizeof(why));
	reopens[1] = 0;
	for (unsigned k = 0; k < 3600 / 3; k++) {
		now += 3;
		probe(&h, why, sizeof(why));
	}
	assert_in_range(reopens[1], 3600 / 600, 3600 / 240);
	lctl_health_release(&h);
}

/*
 * glusterd is asked at most every 30 s whatever the probes, and only while a brick has no
 * graph; a brick it lists offline that comes back online is tried at the next ask.
 */
static void test_ask_interval(void **state)
{
	struct lctl_health h;
	char why[200];
	unsigned k;

	(void)state;
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s2", "/b1", "0") ROW("s3", "/b2", "1")));
	has_graph[2] = true;
	health_init(&h);
	for (k = 0; k < 10; k++) {
		probe(&h, why, sizeof(why));
		now += 2.9;
	}
	assert_int_equal(glusterd_asked(), 1);
	assert_int_equal(reopens[1], 0);
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s2", "/b1", "1") ROW("s3", "/b2", "1")));
	now += 1;
	reopen_works[1] = true;
	assert_int_equal(probe(&h, why, sizeof(why)), 0);
	assert_int_equal(glusterd_asked(), 2);
	assert_int_equal(reopens[1], 1);
	/* every brick has its graph: glusterd is not asked again */
	now += 3600;
	probe(&h, why, sizeof(why));
	assert_int_equal(glusterd_asked(), 2);
	lctl_health_release(&h);
}

/* A pool worker never asks: it holds on the graph's failure alone. */
static void test_worker_never_asks(void **state)
{
	struct lctl_health h;
	char why[200];

	(void)state;
	glusterd_says(ANSWER(ROW("s1", "/b0", "1") ROW("s2", "/b1", "0") ROW("s3", "/b2", "1")));
	has_graph[2] = true;
	asks = false;
	health_init(&h);
	assert_int_equal(probe(&h, why, sizeof(why)), 1);
	assert_string_equal(why, "brick s2:/b1 down");
	assert_int_equal(glusterd_asked(), 0);
	assert_int_equal(reopens[1], 1);
	lctl_health_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_offline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_online, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_tell_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ask_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_never_asks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
