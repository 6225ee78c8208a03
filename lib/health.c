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
 * AFR marks that index only for a write that did not reach every brick of the set (the
 * in-flight writes of a whole set go to indices/dirty instead), so a non-zero count means a
 * heal is pending; EC also marks in-flight writes there, so a count is taken for a pending heal
 * only when two probes in a row saw one on the same set.
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

#define INDEX_COUNT_KEY "glusterfs.xattrop_index_count"
#define BRICK_PROBE_MS 3000

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

/*
 * The bricks of replica or disperse set @i (which answers as a whole): how many are down, and
 * the first of them in @why (when it is still empty); its pending heals in *@pending.
 */
static size_t probe_set(struct lctl_health *h, size_t i, char *why, size_t size, uint64_t *pending)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);
	struct statvfs s;
	size_t j, down = 0;

	*pending = 0;
	for (j = 0; j < sv->nbricks; j++) {
		glfs_t *fs = lctl_volume_brick_fs(h->vol, i, j);

		if (!fs)
			continue; /* no graph of its own: not asked */
		if (glfs_statvfs(fs, "/", &s)) {
			if (!down++ && !why[0])
				snprintf(why, size, "brick %s:%s down",
					 sv->bricks[j].host ? sv->bricks[j].host : "?",
					 sv->bricks[j].path ? sv->bricks[j].path : "?");
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
		h->nbricks_down += probe_set(h, i, brick_why, sizeof(brick_why), &pending);
		if (!h->pending)
			continue;
		/* seen twice in a row: not a write in flight */
		if (pending && h->pending[i] && !h->nheal_sets++)
			snprintf(heal_why, sizeof(heal_why), "%" PRIu64 " heals pending on %s",
				 pending, sv->name);
		h->pending[i] = pending;
	}
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
