/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each subvolume's space after a plan's moves (issue 26): a dry run says before anything
 * moves which subvolume would fall below cluster.min-free-disk, where DHT's migration refuses
 * to put more files (dht_check_free_space(): the target must keep min-free-disk free after the
 * file, force or not), and about how much would stay where it is because of that. The numbers
 * are the statfs of each subvolume's root when the volume was opened, and the plan's bytes by
 * source and target; the room of a subvolume is shared by its bricks' filesystem with
 * whatever else lives there, so this is a projection, not a promise.
 */
#include "internal.h"
#include "volumeimpl.h"

#include <stdlib.h>
#include <string.h>

void lctl_fill_project(const struct lctl_volume *vol, const uint64_t *move_files,
		       const uint64_t *move_bytes, struct lctl_fill *out)
{
	size_t n = lctl_volume_nsubvols(vol), i, k;
	const char *mfd = lctl_volume_dht_options(vol)->min_free_disk;

	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
		struct lctl_fill *f = &out[i];
		uint64_t free_in, room;

		memset(f, 0, sizeof(*f));
		for (k = 0; k < n; k++) {
			if (k == i)
				continue;
			f->in_files += move_files[k * n + i];
			f->in_bytes += move_bytes[k * n + i];
			f->out_files += move_files[i * n + k];
			f->out_bytes += move_bytes[i * n + k];
		}
		/* DHT's min-free-inodes (5 % unless set, a percentage): inodes the same way */
		f->inodes_known = sv->inodes_total > 0;
		if (f->inodes_known) {
			f->inodes_free_now = sv->inodes_free;
			f->inodes_min_free = sv->inodes_total / 20;
			f->crosses_inodes = f->in_files >
					    (f->inodes_free_now > f->inodes_min_free
						     ? f->inodes_free_now - f->inodes_min_free
						     : 0);
		}
		f->size = sv->size_bytes;
		f->free_now = sv->free_bytes;
		f->known = sv->size_bytes > 0;
		if (!f->known)
			continue;
		f->min_free = lctl_min_free_bytes(mfd, sv->size_bytes);
		/* what leaves frees room only once it has left: count the arrivals first */
		free_in = f->free_now > f->in_bytes ? f->free_now - f->in_bytes : 0;
		f->free_after = free_in + f->out_bytes;
		room = f->free_now > f->min_free ? f->free_now - f->min_free : 0;
		if (f->in_bytes > room) {
			f->crosses = true;
			f->refused_bytes = f->in_bytes - room;
			/* files in proportion to bytes, at least one */
			f->refused_files = f->in_bytes
						   ? (uint64_t)((double)f->in_files *
									((double)f->refused_bytes /
									 (double)f->in_bytes) +
								0.999)
						   : 0;
			if (f->refused_files > f->in_files)
				f->refused_files = f->in_files;
		}
	}
}

/*
 * The volume's own bytes on each subvolume, for the even-usage planner: what the layouts
 * place, as against what else its bricks' filesystems hold. A scan of the whole volume (the
 * files by the subvolume their data is on); kept in @vol for the walks that plan after it.
 */
int lctl_volume_measure_usage(struct lctl_volume *vol, unsigned parallel,
			      const volatile sig_atomic_t *stop, struct lctl_error *err)
{
	struct lctl_scan_opts so = { 0 };
	struct lctl_scan *scan = NULL;
	const struct lctl_scan_summary *sum;
	size_t n = lctl_volume_nsubvols(vol);
	bool fin = false;
	uint64_t *u;
	int ret;

	so.parallel = parallel;
	so.planner = LCTL_PLANNER_GLUSTER;
	so.max_depth = -1;
	ret = lctl_scan_start(vol, &so, &scan, err);
	if (ret)
		return ret;
	while (!fin && !(stop && *stop))
		lctl_dir_report_free(lctl_scan_next(scan, 200, &fin));
	if (!fin) {
		lctl_scan_free(scan);
		return lctl_seterr(err, LCTL_ECANCELED, 0, "stopped while measuring the volume");
	}
	sum = lctl_scan_summary(scan);
	u = calloc(n ? n : 1, sizeof(*u));
	if (!u) {
		lctl_scan_free(scan);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	if (sum->nsubvols == n)
		memcpy(u, sum->subvol_bytes, n * sizeof(*u));
	lctl_scan_free(scan);
	free(vol->usage);
	vol->usage = u;
	return 0;
}

const uint64_t *lctl_volume_usage(const struct lctl_volume *vol)
{
	return vol->usage;
}
