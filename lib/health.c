/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the volume is whole, asked by a fix run before its first write, before each
 * directory and after one that went wrong (issue 26: a brick that goes down holds the run
 * instead of failing its files, and so do heals pending on a replica or disperse set).
 *
 * A subvolume that does not answer: the probe is the one inspect.c makes of a brick before
 * reading it, a statfs of "/" through the subvolume's own graph, which a subvolume whose brick
 * (or every brick of its replica or disperse set) is gone answers with ENOTCONN at once.
 *
 * A replica or disperse set with one brick down still answers through AFR or EC, so each of
 * its bricks is asked through a graph of its protocol/client alone (lctl_open_opts
 * brick_health, which fix asks for; without it, drain's runs among them, only whole
 * subvolumes are probed):
 *   - down: its statfs of "/" fails (protocol/client answers ENOTCONN while disconnected);
 *   - heals pending: the getxattr "glusterfs.xattrop_index_count" on "/", which the brick's
 *     features/index answers with the number of entries in .glusterfs/indices/xattrop, in
 *     decimal (index.c index_getxattr_wrapper; the self-heal daemon's heal-count asks each
 *     brick the same, afr-self-heald.c afr_shd_get_index_count). That is a readdir of one
 *     folder on the brick: the probe asks at most every BRICK_PROBE_MS.
 * A brick already down when the volume was opened has no graph (gfapi's init of its
 * protocol/client fails, and the half-built graph is freed: subgraphs.c): glusterd is asked
 * instead, `gluster volume status VOLUME --xml` through the gluster CLI (glustercli.c: an
 * absolute path, an argument vector, no shell), once per brick probe while such a brick is
 * left. A brick glusterd lists as offline is down; one it lists as online (or that it cannot
 * tell of) gets its graph built then (lctl_volume_brick_reopen(): once it is built it stays,
 * and the probe asks it as any other); a graph that cannot be built yet counts the brick down,
 * and a probe REOPEN_BACKOFF_S later tries again.
 *
 * AFR marks that index only for a write that did not reach every brick of the set (the
 * in-flight writes of a whole set go to indices/dirty instead), so a non-zero count means a
 * heal is pending, on a replica set from the first probe that sees one (so that a run started
 * with heals pending holds before its first write, not only once the walk has run long enough
 * for a second brick probe); EC also marks in-flight writes there, so on a disperse set a count
 * is taken for a pending heal only when two probes in a row saw one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include <glusterfs/api/glfs.h>

#include "layoutctl.h"
#include "internal.h"
#include "health.h"
#include "glustercli.h"

#define INDEX_COUNT_KEY "glusterfs.xattrop_index_count"
#define BRICK_PROBE_MS 3000
/*
 * After a brick's graph failed to build, no other is tried for this long: gfapi 10.3's
 * glfs_fini() of a graph whose init failed leaves about 7 KiB of its own (the primary
 * translator create_primary() made, its options), so a brick glusterd lists online that
 * cannot be reached is not tried at every probe.
 */
#define REOPEN_BACKOFF_S 10

void lctl_health_init(struct lctl_health *h, struct lctl_volume *vol, unsigned probe_ms)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->vol = vol;
	h->probe_ms = probe_ms;
	/* no memory: the sets' heals go unprobed, their bricks are still asked */
	h->pending = calloc(lctl_volume_nsubvols(vol) + 1, sizeof(*h->pending));
}

void lctl_health_release(struct lctl_health *h)
{
	if (h->vol)
		pthread_mutex_destroy(&h->lock);
	free(h->pending);
	h->pending = NULL;
	h->vol = NULL;
}

/* @line as a line to show on a terminal: printable ASCII only */
static void printable(char *line)
{
	for (; *line; line++)
		if ((unsigned char)*line < 0x20 || (unsigned char)*line >= 0x7f)
			*line = '?';
}

/* The entries brick graph @fs holds pending to heal; 0 when it does not say. */
static uint64_t brick_pending(glfs_t *fs)
{
	char buf[32], *end;
	ssize_t n = glfs_getxattr(fs, "/", INDEX_COUNT_KEY, buf, sizeof(buf) - 1);
	unsigned long long v;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (buf[0] < '0' || buf[0] > '9')
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || (*end && *end != '\n'))
		return 0; /* the value comes with its terminating NUL */
	return v;
}

/* glusterd's view of the volume's bricks, asked at most once per probe (see the top). */
struct glusterd_view {
	bool asked;
	int ret; /* LCTL_GLUSTER_*; any other: no CLI here */
	struct lctl_gluster_brick *bricks;
	size_t n;
};

static void glusterd_ask(struct lctl_health *h, struct glusterd_view *g)
{
	const char *gluster;

	if (g->asked)
		return;
	g->asked = true;
	gluster = lctl_gluster_find(lctl_gluster_paths);
	g->ret = gluster ? lctl_gluster_bricks(gluster, lctl_volume_name(h->vol), &g->bricks, &g->n)
			 : -1;
	if (g->ret != LCTL_GLUSTER_OK)
		lctl_log(LCTL_LOG_INFO, "health: cannot ask glusterd for the bricks of %s (%s)",
			 lctl_volume_name(h->vol),
			 g->ret == LCTL_GLUSTER_NO_ANSWER ? "no answer" : "cannot run the CLI");
}

/*
 * The graph of brick @j of set @i: the one built at the opening, else one built now if
 * glusterd does not say the brick is offline; NULL (*@offline: glusterd said so) when there is
 * none to ask.
 */
static glfs_t *brick_graph(struct lctl_health *h, struct glusterd_view *g, size_t i, size_t j,
			   bool *offline)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);
	glfs_t *fs = lctl_volume_brick_fs(h->vol, i, j);

	*offline = false;
	if (fs || !lctl_volume_brick_reopenable(h->vol, i, j))
		return fs;
	glusterd_ask(h, g);
	if (g->ret == LCTL_GLUSTER_OK &&
	    !lctl_gluster_brick_online(g->bricks, g->n, sv->bricks[j].host, sv->bricks[j].path)) {
		*offline = true;
		return NULL;
	}
	if (h->reopen_failed_at && lctl_mono_seconds() - h->reopen_failed_at < REOPEN_BACKOFF_S)
		return NULL;
	if (lctl_volume_brick_reopen(h->vol, i, j)) {
		h->reopen_failed_at = lctl_mono_seconds();
		return NULL;
	}
	return lctl_volume_brick_fs(h->vol, i, j);
}

/*
 * The bricks of replica or disperse set @i (which answers as a whole): how many are down, and
 * the first of them in @why (when it is still empty); its pending heals in *@pending.
 */
static size_t probe_set(struct lctl_health *h, struct glusterd_view *g, size_t i, char *why,
			size_t size, uint64_t *pending)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);
	struct statvfs s;
	size_t j, down = 0;

	*pending = 0;
	for (j = 0; j < sv->nbricks; j++) {
		bool offline, reopenable = lctl_volume_brick_reopenable(h->vol, i, j);
		glfs_t *fs = brick_graph(h, g, i, j, &offline);

		if (!fs && !reopenable)
			continue; /* no graph of its own: not asked */
		if (!fs || glfs_statvfs(fs, "/", &s)) {
			if (!down++ && !why[0])
				snprintf(why, size, "brick %s:%s down%s",
					 sv->bricks[j].host ? sv->bricks[j].host : "?",
					 sv->bricks[j].path ? sv->bricks[j].path : "?",
					 offline ? " (glusterd: offline)" : "");
			continue;
		}
		*pending += brick_pending(fs);
	}
	return down;
}

static void probe(struct lctl_health *h, bool bricks)
{
	size_t i, n = lctl_volume_nsubvols(h->vol);
	char brick_why[sizeof(h->why)] = "", heal_why[sizeof(h->why)] = "";
	struct glusterd_view g = { 0 };
	struct statvfs s;

	h->ndown = 0;
	h->why[0] = '\0';
	if (bricks) {
		h->nbricks_down = 0;
		h->nheal_sets = 0;
	}
	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);
		glfs_t *fs = lctl_volume_subvol_fs(h->vol, i);
		uint64_t pending;
		int e = 0;

		if (!fs)
			e = ENOTCONN;
		else if (glfs_statvfs(fs, "/", &s))
			e = errno ? errno : EIO;
		if (e) {
			if (!h->ndown++)
				snprintf(h->why, sizeof(h->why),
					 "subvolume %s does not answer (%s)", sv->name,
					 strerror(e));
			continue;
		}
		/* a drain's graphs of its leaving bricks are not for this */
		if (!bricks || sv->kind == LCTL_SUBVOL_BRICK || !lctl_volume_brick_health(h->vol))
			continue;
		h->nbricks_down += probe_set(h, &g, i, brick_why, sizeof(brick_why), &pending);
		if (!h->pending)
			continue;
		/* AFR: at once; EC: seen twice in a row, not a write in flight (see the top) */
		if (pending && (sv->kind == LCTL_SUBVOL_REPLICATE || h->pending[i]) &&
		    !h->nheal_sets++)
			snprintf(heal_why, sizeof(heal_why), "%" PRIu64 " heals pending on %s",
				 pending, sv->name);
		h->pending[i] = pending;
	}
	lctl_gluster_bricks_free(g.bricks, g.n);
	if (bricks)
		snprintf(h->set_why, sizeof(h->set_why), "%s", brick_why[0] ? brick_why : heal_why);
	if (!h->why[0])
		snprintf(h->why, sizeof(h->why), "%s", h->set_why);
	printable(h->why);
}

size_t lctl_health_check(struct lctl_health *h, bool fresh, size_t *degraded, char *why,
			 size_t size)
{
	double now;
	size_t n;

	pthread_mutex_lock(&h->lock);
	now = lctl_mono_seconds();
	if (fresh || !h->probed_at || (now - h->probed_at) * 1000 >= h->probe_ms) {
		bool bricks = fresh || !h->bricks_at ||
			      (now - h->bricks_at) * 1000 >= BRICK_PROBE_MS;

		probe(h, bricks);
		h->probed_at = lctl_mono_seconds();
		if (bricks)
			h->bricks_at = h->probed_at;
	}
	n = h->ndown;
	if (degraded)
		*degraded = h->nbricks_down + h->nheal_sets;
	if (why && size)
		snprintf(why, size, "%s", h->why);
	pthread_mutex_unlock(&h->lock);
	return n;
}

size_t lctl_health_down(struct lctl_health *h, bool fresh, char *why, size_t size)
{
	return lctl_health_check(h, fresh, NULL, why, size);
}
