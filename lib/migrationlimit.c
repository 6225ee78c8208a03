/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One migration at a time per subvolume (by default; fix --migrations N allows N).
 *
 * DHT's migration of a file (dht_migrate_file, started by our migrate-data setxattr) runs with
 * the rebalance pid, so every FOP it sends is queued by the bricks' io-threads at least
 * priority, which has one thread per brick (performance.least-prio-threads, default 1). When
 * two migrations use the same brick, their FOPs wait for that thread, and meanwhile the
 * brick's other io-threads, finding a queue that is not empty but holds nothing they may
 * take, lock and unlock it in a loop (measured with perf: about a quarter of all CPU time went
 * to that loop with four concurrent migrations on six bricks, and four were slower than one;
 * docs/design.md). So a fix runs at most one migration per subvolume at a time, from or to
 * it; migrations between disjoint pairs of subvolumes still run in parallel. Directory workers
 * that wait here hold no lock of the volume.
 *
 * Where the network, not the bricks, is the limit (servers apart, each migration spending a
 * fixed time per file on round trips before and after its copy), one migration per subvolume
 * leaves the links idle for that time: bench/pool.sh measured them half busy. --migrations 2
 * lets a second migration use some of it (a tenth faster there; docs/benchmarks.md).
 */
#include "crawl.h"
#include "migrationlimit.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int lctl_slots_init(struct lctl_slots *s, size_t n, unsigned cap)
{
	pthread_condattr_t ca;

	s->n = n;
	s->cap = cap ? cap : 1;
	s->busy = calloc(n ? n : 1, sizeof(*s->busy));
	if (!s->busy)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->freed, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void lctl_slots_destroy(struct lctl_slots *s)
{
	if (!s->busy)
		return;
	pthread_cond_destroy(&s->freed);
	pthread_mutex_destroy(&s->lock);
	free(s->busy);
	s->busy = NULL;
}

static bool is_full(const struct lctl_slots *s, int i)
{
	return i >= 0 && (size_t)i < s->n && s->busy[i] >= s->cap;
}

static void take_one(struct lctl_slots *s, int i)
{
	if (i >= 0 && (size_t)i < s->n)
		s->busy[i]++;
}

static void put_one(struct lctl_slots *s, int i)
{
	if (i >= 0 && (size_t)i < s->n && s->busy[i])
		s->busy[i]--;
}

bool lctl_slots_take(struct lctl_slots *s, int a, int b, bool (*stop)(void *), void *arg)
{
	struct timespec ts;

	pthread_mutex_lock(&s->lock);
	if (a == b)
		b = -1; /* one subvolume, counted once */
	while (is_full(s, a) || is_full(s, b)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 200000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		lctl_crawl_beat(); /* waiting here is no hang */
		if (pthread_cond_timedwait(&s->freed, &s->lock, &ts) == ETIMEDOUT && stop) {
			bool quit;

			pthread_mutex_unlock(&s->lock);
			quit = stop(arg);
			pthread_mutex_lock(&s->lock);
			if (quit) {
				pthread_mutex_unlock(&s->lock);
				return false;
			}
		}
	}
	take_one(s, a);
	take_one(s, b);
	pthread_mutex_unlock(&s->lock);
	return true;
}

void lctl_slots_put(struct lctl_slots *s, int a, int b)
{
	if (a == b)
		b = -1;
	pthread_mutex_lock(&s->lock);
	put_one(s, a);
	put_one(s, b);
	pthread_cond_broadcast(&s->freed);
	pthread_mutex_unlock(&s->lock);
}

void lctl_slots_set_cap(struct lctl_slots *s, unsigned cap)
{
	pthread_mutex_lock(&s->lock);
	s->cap = cap ? cap : 1;
	pthread_cond_broadcast(&s->freed); /* a higher cap lets waiters in at once */
	pthread_mutex_unlock(&s->lock);
}
