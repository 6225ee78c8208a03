/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps of one directory's repair that its rooms below repair.c use too (migrate.c,
 * linkto.c): a fresh inspection, whether a subvolume is leaving, and the data phase's verdict
 * on how an entry may be placed. Below them all, so that no room of the repair calls back up.
 */
#include "internal.h"
#include "repairsteps.h"

#include <sys/stat.h>

int repair_inspect(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		   struct lctl_dir_report **out)
{
	return lctl_inspect(rc->in, path, depth, NULL, out);
}

bool repair_on_leaving(const struct lctl_repair_ctx *rc, int sv)
{
	return sv >= 0 && lctl_volume_subvol(rc->in->vol, (size_t)sv)->leaving;
}

/*
 * What can be placed while its directory stays stamped. DHT migrates a file from its cached
 * subvolume to its hashed one, where the linkto stands and becomes the destination; a lookup
 * through that linkto finds the file at every step, since the source keeps the data until the
 * destination has it, and the destination stops being a linkto before the source goes
 * (dht-facts 7.3; measured in 12). A misplaced file, with no linkto, is hidden from other
 * clients already: our client does not shortcut lookups (lookup-optimize off, volume.c), so
 * its lookup finds the file, DHT links it on its hashed subvolume, and then moves it. A
 * migration a stop interrupted is finished the same way. A linkto without data, or a stray one
 * beside data on its hashed subvolume, is tidied as in a freshly stamped directory. Anything
 * else (a linkto naming the wrong subvolume, data on two subvolumes, a half-copied file...)
 * needs the directory dirty while it is handled. So does a symbolic link, device, FIFO or
 * socket to move: DHT moves one by removing the linkto on the hashed subvolume and then making
 * it there (migrate_special_files()), and a lookup in between finds nothing (seen: a symlink
 * gone for a fresh client during the data phase on a replicated volume). Those are moved
 * last, the directory dirty only while they move.
 */
enum lctl_clean_place lctl_repair_clean_place(const struct lctl_entry_report *e)
{
	switch (e->state) {
	case LCTL_ENTRY_PLACED:
	case LCTL_ENTRY_ORPHAN_LINKTO:
		return LCTL_PLACE_CLEAN;
	case LCTL_ENTRY_LINKED:
	case LCTL_ENTRY_MISPLACED:
		return S_ISREG(e->mode) ? LCTL_PLACE_CLEAN : LCTL_PLACE_DIRTY_AFTER;
	case LCTL_ENTRY_STALE_LINKTO:
		return e->cached >= 0 && e->cached == e->hashed ? LCTL_PLACE_CLEAN
								: LCTL_PLACE_DIRTY;
	case LCTL_ENTRY_MIGRATION_LEFTOVER:
		return e->cached >= 0 && e->hashed >= 0 && e->cached != e->hashed
			       ? LCTL_PLACE_CLEAN
			       : LCTL_PLACE_DIRTY;
	default:
		return LCTL_PLACE_DIRTY;
	}
}
