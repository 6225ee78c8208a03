/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the volume is whole, as a fix run holds on it (health.c). */
#ifndef LCTL_HEALTH_H
#define LCTL_HEALTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lctl_volume;
struct lctl_gluster_brick;

/* A brick of a replica or disperse set without a graph: when its graph may be tried again. */
struct lctl_brick_retry {
	double failed_at;   /* monotonic seconds its graph last failed to build; 0: never */
	unsigned backoff_s; /* no other try for this long after that (doubles, health.c) */
	signed char seen;   /* glusterd's last word: 0 none, 1 online, -1 down or not listed */
};

/*
 * struct lctl_health - the answer of the last probe, shared by a run's workers.
 * @probe_ms: a probe at most this often; between two, the last answer stands.
 */
struct lctl_health {
	pthread_mutex_t lock;
	struct lctl_volume *vol;
	unsigned probe_ms;
	double probed_at; /* monotonic seconds; 0: never */
	size_t ndown;	  /* subvolumes that did not answer the last probe */
	char why[200];	  /* the first of them (else set_why), as a line to show; "" when whole */
	/* the bricks of replica and disperse sets, asked less often (health.c) */
	double bricks_at;    /* monotonic seconds; 0: never */
	size_t nbricks_down; /* bricks down in sets that answer */
	size_t nheal_sets;   /* sets with heals pending (replica: seen; disperse: twice in a row) */
	uint64_t *pending;   /* per subvolume: the heals pending at the last probe */
	char set_why[200];   /* the first brick down, else the first set's heals */
	/* per brick of each set, brick j of subvolume i at retry[brick_base[i] + j] (health.c) */
	size_t *brick_base;
	struct lctl_brick_retry *retry;
	struct lctl_brick_retry retry_one; /* every brick's, when retry could not be allocated */
	/*
	 * glusterd's view of the bricks, asked at most every GLUSTERD_ASK_S (health.c), outside
	 * the lock; only when @ask_glusterd (not a pool worker: the starting host asks).
	 */
	bool ask_glusterd;
	const char *gluster; /* the gluster CLI, an absolute path; NULL: lctl_gluster_find() */
	bool gd_asking;	     /* a worker asks now */
	double gd_at;	     /* monotonic seconds of the last answer; 0: never asked */
	int gd_ret;	     /* LCTL_GLUSTER_*, or -1: no CLI here */
	struct lctl_gluster_brick *gd_bricks;
	size_t gd_n;
};

void lctl_health_init(struct lctl_health *h, struct lctl_volume *vol, unsigned probe_ms);
void lctl_health_release(struct lctl_health *h);
/*
 * Probe (or take the last answer, see @probe_ms, unless @fresh): the number of subvolumes that do not
 * answer now, and in @why (@size bytes, may be NULL) the first of them and why.
 * Thread-safe; a probe in progress makes the others wait for its answer.
 */
size_t lctl_health_down(struct lctl_health *h, bool fresh, char *why, size_t size);
/*
 * The same, and in *@degraded (may be NULL) how many bricks are down in replica or disperse
 * sets that still answer, plus the sets with heals pending: the run holds on those too.
 * @why says the first problem: a subvolume down, else a brick down, else heals pending.
 */
size_t lctl_health_check(struct lctl_health *h, bool fresh, size_t *degraded, char *why,
			 size_t size);

#endif
