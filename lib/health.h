/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the volume is whole, as a fix run holds on it (health.c). */
#ifndef LCTL_HEALTH_H
#define LCTL_HEALTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct lctl_volume;

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
	char why[200];	  /* the first of them, as a line to show; "" when whole */
};

void lctl_health_init(struct lctl_health *h, struct lctl_volume *vol, unsigned probe_ms);
void lctl_health_release(struct lctl_health *h);
/*
 * Probe (or take the last answer, see @probe_ms, unless @fresh): the number of subvolumes that do not
 * answer now, and in @why (@size bytes, may be NULL) the first of them and why.
 * Thread-safe; a probe in progress makes the others wait for its answer.
 */
size_t lctl_health_down(struct lctl_health *h, bool fresh, char *why, size_t size);

#endif
