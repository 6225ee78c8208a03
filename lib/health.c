/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether every subvolume of the volume answers, asked by a fix run before a directory and
 * after one that went wrong (issue 26: a brick that goes down holds the run instead of
 * failing its files). The probe is the one inspect.c makes of a brick before reading it: a
 * statfs of "/" through the subvolume's own graph, which a subvolume whose brick (or every
 * brick of its replica or disperse set) is gone answers with ENOTCONN at once. A replica or
 * disperse set with one brick down still answers: its data is served and migrations go on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include <glusterfs/api/glfs.h>

#include "layoutctl.h"
#include "internal.h"
#include "health.h"

void lctl_health_init(struct lctl_health *h, struct lctl_volume *vol, unsigned probe_ms)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->vol = vol;
	h->probe_ms = probe_ms;
}

void lctl_health_release(struct lctl_health *h)
{
	if (h->vol)
		pthread_mutex_destroy(&h->lock);
	h->vol = NULL;
}

static void probe(struct lctl_health *h)
{
	size_t i, n = lctl_volume_nsubvols(h->vol);
	struct statvfs s;

	h->ndown = 0;
	h->why[0] = '\0';
	for (i = 0; i < n; i++) {
		glfs_t *fs = lctl_volume_subvol_fs(h->vol, i);
		int e = 0;

		if (!fs)
			e = ENOTCONN;
		else if (glfs_statvfs(fs, "/", &s))
			e = errno ? errno : EIO;
		if (!e)
			continue;
		if (!h->ndown++) {
			char *c;

			snprintf(h->why, sizeof(h->why), "subvolume %s does not answer (%s)",
				 lctl_volume_subvol(h->vol, i)->name, strerror(e));
			/* a line to show on a terminal: printable ASCII only */
			for (c = h->why; *c; c++)
				if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					*c = '?';
		}
	}
}

size_t lctl_health_down(struct lctl_health *h, bool fresh, char *why, size_t size)
{
	double now;
	size_t n;

	pthread_mutex_lock(&h->lock);
	now = lctl_mono_seconds();
	if (fresh || !h->probed_at || (now - h->probed_at) * 1000 >= h->probe_ms) {
		probe(h);
		h->probed_at = lctl_mono_seconds();
	}
	n = h->ndown;
	if (why && size)
		snprintf(why, size, "%s", h->why);
	pthread_mutex_unlock(&h->lock);
	return n;
}
