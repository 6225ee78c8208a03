/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each subvolume's space after a plan's moves (issue 26): a dry run says before anything
 * moves which subvolume would fall below cluster.min-free-disk, where DHT's migration refuses
 * to put more files (dht_check_free_space(): the target must keep min-free-disk free after the
 * file, force or not), and about how much would stay where it is because of that. The numbers
 * are the statfs of each subvolume's root when the volume was opened, and the plan's bytes by
 * source and target (files against free inodes too, above cluster.min-free-inodes); the room of a subvolume is shared by its bricks' filesystem with
 * whatever else lives there, so this is a projection, not a promise.
 */
#include "internal.h"
#include "volumeimpl.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* DHT's cluster.min-free-disk as it reads it (lctl/drain.h). */
uint64_t lctl_min_free_bytes(const char *opt, uint64_t size)
{
	static const char *const units[] = { "KB", "MB", "GB", "TB", "PB" };
	char *end;
	double v;
	int i, n = -1;

	if (!opt)
		opt = "10%";
	errno = 0;
	v = strtod(opt, &end);
	if (errno || end == opt || !(v >= 0) || isspace((unsigned char)*opt))
		return size / 10;
	if (*end && strcmp(end, "%")) {
		for (i = 0; i < 5 && n < 0; i++)
			if (!strcasecmp(end, units[i]))
				n = i;
		if (n < 0)
			return size / 10;
		for (i = 0; i <= n; i++)
			v *= 1024;
	}
	/* dht_init/dht_reconfigure: disk_unit 'p' when min_free_disk < 100, else bytes */
	if (v < 100)
		return (uint64_t)((double)size * v / 100);
	return v >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* DHT's cluster.min-free-inodes as it reads it (lctl/drain.h). */
uint64_t lctl_min_free_inodes(const char *opt, uint64_t total)
{
	char *end;
	double v;

	if (!opt)
		opt = "5%";
	errno = 0;
	v = strtod(opt, &end);
	/* gf_string2percent(): a number, then "%" or nothing; the option's range is 0-100 */
	if (errno || end == opt || isspace((unsigned char)*opt) || (*end && strcmp(end, "%")) ||
	    !(v >= 0 && v <= 100))
		v = 5;
	/* a count near 2^64 rounds up to 2^64 as a double: no uint64_t holds that */
	v = (double)total * v / 100;
	return v >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void lctl_fill_inodes(struct lctl_fill *f, uint64_t total, uint64_t ffree, const char *opt)
{
	uint64_t room, pct;

	f->inodes_known = total > 0;
	f->inodes_free_now = f->inodes_free_after = f->inodes_min_free = 0;
	f->inodes_refused_files = 0;
	f->crosses_inodes = false;
	if (!f->inodes_known)
		return;
	f->inodes_free_now = ffree;
	/*
	 * DHT's rule (dht_du_info_cbk(), dht_is_subvol_filled()): f_ffree * 100 / f_files in
	 * integers, below the option: so the fewest free inodes it counts as enough is the
	 * option rounded up to a whole percent (read here to a millionth), of @total, rounded up.
	 */
	pct = (lctl_min_free_inodes(opt, 100000000) + 999999) / 1000000;
	f->inodes_min_free = total > UINT64_MAX / 101 ? total / 100 * pct
						      : (pct * total + 99) / 100;
	/* what leaves frees its inode only once it has left: the arrivals first, as for bytes */
	f->inodes_free_after = (ffree > f->in_files ? ffree - f->in_files : 0) + f->out_files;
	room = ffree > f->inodes_min_free ? ffree - f->inodes_min_free : 0;
	f->crosses_inodes = f->in_files > room;
	f->inodes_refused_files = f->crosses_inodes ? f->in_files - room : 0;
}

void lctl_fill_project(const struct lctl_volume *vol, const uint64_t *move_files,
		       const uint64_t *move_bytes, struct lctl_fill *out)
{
	size_t n = lctl_volume_nsubvols(vol), i, k;
	const char *mfd = lctl_volume_dht_options(vol)->min_free_disk;
	const char *mfi = lctl_volume_dht_options(vol)->min_free_inodes;

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
		lctl_fill_inodes(f, sv->inodes_total, sv->inodes_free, mfi);
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

void lctl_volume_set_usage(struct lctl_volume *vol, uint64_t *usage)
{
	free(vol->usage);
	vol->usage = usage;
}

const uint64_t *lctl_volume_usage(const struct lctl_volume *vol)
{
	return vol->usage;
}
