/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inspector's setup (struct lctl_inspector, inspect.h): the volume's keys and hash
 * munging, the planner's inputs per subvolume. Moved out of inspect.c as it was.
 */
#include "internal.h"
#include "inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The even-usage planner's weights: from each subvolume's statvfs and the volume's bytes on it
 * (lctl_volume_measure_usage(), when it was measured; else all it uses counts as other data).
 * False (DHT's weights stay) when a size is unknown.
 */
static bool usage_weights(struct lctl_inspector *in, struct lctl_volume *vol)
{
	const uint64_t *movable = lctl_volume_usage(vol);
	struct lctl_usage *u = calloc(in->nsubvols ? in->nsubvols : 1, sizeof(*u));
	size_t i;
	bool ok;

	if (!u)
		return false;
	for (i = 0; i < in->nsubvols; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

		u[i].size = sv->size_bytes;
		u[i].free = sv->free_bytes;
		u[i].movable = movable ? movable[i] : 0;
	}
	ok = !lctl_plan_usage_weights(in->nsubvols, in->active, u, in->weights, NULL);
	free(u);
	return ok;
}

int lctl_inspector_init(struct lctl_inspector *in, struct lctl_volume *vol,
			enum lctl_planner planner, bool all_entries, struct lctl_error *err)
{
	const struct lctl_dht_options *o = lctl_volume_dht_options(vol);
	size_t i, n = lctl_volume_nsubvols(vol);
	bool weighted = o->weighted_rebalance;
	int ret;

	memset(in, 0, sizeof(*in));
	in->vol = vol;
	in->planner = planner;
	in->all_entries = all_entries;
	in->vol_commit = lctl_volume_commit_hash(vol, NULL);
	in->nsubvols = n;
	in->spread = o->spread;
	if ((size_t)snprintf(in->layout_key, sizeof(in->layout_key), "%s", o->xattr_name) >=
		    sizeof(in->layout_key) ||
	    (size_t)snprintf(in->linkto_key, sizeof(in->linkto_key), "%s.linkto", o->xattr_name) >=
		    sizeof(in->linkto_key))
		return lctl_seterr(err, LCTL_EINVAL, 0, "xattr-name '%s' is too long",
				   o->xattr_name);
	ret = lctl_munge_init(&in->munge, o->extra_hash_regex, o->rsync_hash_regex, err);
	if (ret)
		return ret;
	in->names = calloc(n, sizeof(*in->names));
	in->active = calloc(n, sizeof(*in->active));
	in->weights = calloc(n, sizeof(*in->weights));
	in->nogfid = lctl_nogfid_new();
	in->probed_at = calloc(n, sizeof(*in->probed_at));
	in->probed_down = calloc(n, sizeof(*in->probed_down));
	if (!in->names || !in->active || !in->weights || !in->nogfid || !in->probed_at ||
	    !in->probed_down) {
		lctl_inspector_release(in);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

		in->names[i] = sv->name;
		in->active[i] = sv->up && !sv->decommissioned && !sv->leaving;
		/* DHT weighs by brick size in MiB; unknown sizes mean equal shares */
		in->weights[i] = lctl_du_chunks(sv->statfs_blocks, sv->statfs_bsize);
		if (in->active[i] && !in->weights[i])
			weighted = false;
	}
	if (planner == LCTL_PLANNER_EVEN_USAGE && usage_weights(in, vol))
		weighted = true;
	if (!weighted) {
		free(in->weights);
		in->weights = NULL;
	}
	return 0;
}

void lctl_inspector_release(struct lctl_inspector *in)
{
	lctl_munge_release(&in->munge);
	if (in->nogfid)
		lctl_nogfid_release(in->nogfid);
	free(in->names);
	free(in->active);
	free(in->weights);
	free(in->probed_at);
	free(in->probed_down);
	memset(in, 0, sizeof(*in));
}
