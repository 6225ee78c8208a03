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
 * absolute path, an argument vector, no shell, killed after 15 s). That command takes
 * glusterd's cluster-wide volume lock, under which the administrator's replace-brick,
 * reset-brick or start force (the repair of that very brick) would fail with "Another
 * transaction is in progress": so its answer is kept and asked again at most every
 * GLUSTERD_ASK_S, outside the lock (the other workers probe meanwhile with the answer before),
 * and only by the host that started the run (a pool worker holds on its graph alone:
 * lctl_volume_asks_glusterd()). With glusterd's answer (opRet 0):
 *   - a brick it lists offline is down ("(glusterd: offline)");
 *   - a brick it does not list is down too ("(glusterd: not listed)"): `volume status` has no
 *     row for the bricks of a peer glusterd cannot reach, the commonest outage (a server down);
 *   - a brick it lists online gets its graph built then (lctl_volume_brick_reopen(): once it
 *     is built it stays, and the probe asks it as any other).
 * Without an answer (no CLI, glusterd down, a pool worker), the graph is built as for a brick
 * listed online. A graph that cannot be built counts the brick down, and that brick alone is
 * not tried again for REOPEN_BACKOFF_MIN_S, doubling at each failure up to
 * REOPEN_BACKOFF_MAX_S (once glusterd lists it online after listing it down, at once).
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
 * After a brick's graph failed to build, it is not tried again for REOPEN_BACKOFF_MIN_S, then
 * twice that after each failure, up to REOPEN_BACKOFF_MAX_S: gfapi 10.3 keeps about 47 KiB per
 * failed init that glfs_fini() does not give back (measured: a refused port, glfs_init() failing
 * and glfs_fini() in a loop), and that glfs_fini() takes 3 to 4 s, under the lock. At the
 * longest backoff a brick costs about 0.6 MiB an hour.
 */
#define REOPEN_BACKOFF_MIN_S 10
#define REOPEN_BACKOFF_MAX_S 320
/* glusterd is asked about graphless bricks at most this often (see the top) */
#define GLUSTERD_ASK_S 30

void lctl_health_init(struct lctl_health *h, struct lctl_volume *vol, unsigned probe_ms)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->vol = vol;
	h->probe_ms = probe_ms;
	/* no memory: the sets' heals go unprobed, their bricks are still asked */
	h->pending = calloc(lctl_volume_nsubvols(vol) + 1, sizeof(*h->pending));
	h->ask_glusterd = lctl_volume_asks_glusterd(vol);
	h->gd_ret = -1;
	/* no memory: the bricks share one backoff (retry_one) */
	h->brick_base = calloc(lctl_volume_nsubvols(vol) + 1, sizeof(*h->brick_base));
	if (h->brick_base) {
		size_t i, n = 0;

		for (i = 0; i < lctl_volume_nsubvols(vol); i++) {
			h->brick_base[i] = n;
			n += lctl_volume_subvol(vol, i)->nbricks;
		}
		h->brick_base[i] = n;
		h->retry = calloc(n + 1, sizeof(*h->retry));
	}
}

void lctl_health_release(struct lctl_health *h)
{
	if (h->vol)
		pthread_mutex_destroy(&h->lock);
	free(h->pending);
	h->pending = NULL;
	free(h->brick_base);
	h->brick_base = NULL;
	free(h->retry);
	h->retry = NULL;
	lctl_gluster_bricks_free(h->gd_bricks, h->gd_n);
	h->gd_bricks = NULL;
	h->gd_n = 0;
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

/* Whether a brick of a replica or disperse set has no graph yet (glusterd may be asked). */
static bool any_graphless(struct lctl_health *h)
{
	size_t i, j, n = lctl_volume_nsubvols(h->vol);

	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);

		if (sv->kind == LCTL_SUBVOL_BRICK)
			continue;
		for (j = 0; j < sv->nbricks; j++)
			if (!lctl_volume_brick_fs(h->vol, i, j) &&
			    lctl_volume_brick_reopenable(h->vol, i, j))
				return true;
	}
	return false;
}

/*
 * Ask glusterd for its view of the bricks when that is due (see the top). Called with h->lock
 * held, which it lets go while the CLI runs (other workers probe meanwhile with the view
 * before) and takes again.
 */
static void glusterd_refresh(struct lctl_health *h)
{
	struct lctl_gluster_brick *bricks = NULL;
	const char *gluster;
	char *volume;
	size_t n = 0;
	int ret;

	if (!h->ask_glusterd || h->gd_asking ||
	    (h->gd_at && lctl_mono_seconds() - h->gd_at < GLUSTERD_ASK_S) || !any_graphless(h))
		return;
	volume = strdup(lctl_volume_name(h->vol));
	if (!volume)
		return;
	gluster = h->gluster ? h->gluster : lctl_gluster_find(lctl_gluster_paths);
	h->gd_asking = true;
	pthread_mutex_unlock(&h->lock);
	ret = gluster ? lctl_gluster_bricks(gluster, volume, &bricks, &n) : -1;
	if (ret != LCTL_GLUSTER_OK)
		lctl_log(LCTL_LOG_INFO, "health: cannot ask glusterd for the bricks of %s (%s)",
			 volume,
			 ret == LCTL_GLUSTER_NO_ANSWER ? "no answer" : "cannot run the CLI");
	free(volume);
	pthread_mutex_lock(&h->lock);
	h->gd_asking = false;
	lctl_gluster_bricks_free(h->gd_bricks, h->gd_n);
	h->gd_bricks = bricks;
	h->gd_n = n;
	h->gd_ret = ret;
	h->gd_at = lctl_mono_seconds();
}

/*
 * The graph of brick @j of set @i: the one built at the opening, else one built now unless
 * glusterd says the brick is down or its backoff runs; NULL when there is none to ask, and
 * then *@note says why when glusterd did.
 */
static glfs_t *brick_graph(struct lctl_health *h, size_t i, size_t j, const char **note)
{
	const struct lctl_subvol *sv = lctl_volume_subvol(h->vol, i);
	glfs_t *fs = lctl_volume_brick_fs(h->vol, i, j);
	struct lctl_brick_retry *r = h->retry && h->brick_base ? &h->retry[h->brick_base[i] + j]
							       : &h->retry_one;

	*note = "";
	if (fs || !lctl_volume_brick_reopenable(h->vol, i, j))
		return fs;
	if (h->gd_at && h->gd_ret == LCTL_GLUSTER_OK) {
		int online = lctl_gluster_brick_online(h->gd_bricks, h->gd_n, sv->bricks[j].host,
						       sv->bricks[j].path);

		if (online <= 0) {
			r->seen = -1;
			*note = online ? " (glusterd: not listed)" : " (glusterd: offline)";
			return NULL;
		}
		if (r->seen < 0) /* back: tried at once */
			r->failed_at = 0;
		r->seen = 1;
	}
	if (r->failed_at && lctl_mono_seconds() - r->failed_at < r->backoff_s)
		return NULL;
	if (lctl_volume_brick_reopen(h->vol, i, j)) {
		r->failed_at = lctl_mono_seconds();
		r->backoff_s = r->backoff_s ? 2 * r->backoff_s : REOPEN_BACKOFF_MIN_S;
		if (r->backoff_s > REOPEN_BACKOFF_MAX_S)
			r->backoff_s = REOPEN_BACKOFF_MAX_S;
		return NULL;
	}
	r->failed_at = 0;
	r->backoff_s = 0;
	return lctl_volume_brick_fs(h->vol, i, j);
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
		bool reopenable = lctl_volume_brick_reopenable(h->vol, i, j);
		const char *note;
		glfs_t *fs = brick_graph(h, i, j, &note);

		if (!fs && !reopenable)
			continue; /* no graph of its own: not asked */
		if (!fs || glfs_statvfs(fs, "/", &s)) {
			if (!down++ && !why[0])
				snprintf(why, size, "brick %s:%s down%s",
					 sv->bricks[j].host ? sv->bricks[j].host : "?",
					 sv->bricks[j].path ? sv->bricks[j].path : "?", note);
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
		/* AFR: at once; EC: seen twice in a row, not a write in flight (see the top) */
		if (pending && (sv->kind == LCTL_SUBVOL_REPLICATE || h->pending[i]) &&
		    !h->nheal_sets++)
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

		/*
		 * The lock is let go while glusterd is asked: what another worker changed
		 * meanwhile (a graph built) the probe sees, as it looks at each brick afresh.
		 */
		if (bricks && lctl_volume_brick_health(h->vol))
			glusterd_refresh(h);
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
