/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict on one name from its copies on the subvolumes, as DHT would find it: the one
 * rule set of scan and fix (inspect.c) and explain (explain.c).
 *
 *	a migration's source anywhere                     migration leftover
 *	(setgid+sticky AND the linkto xattr)
 *	data on two or more subvolumes                    duplicate
 *	linkto(s), no data anywhere                       orphan linkto
 *	no hashed subvolume (a hole)                      unhashed
 *	data on the hashed subvolume                      placed; stale linkto if a linkto
 *	                                                  sits elsewhere (DHT unlinks it)
 *	data elsewhere, no linkto on hashed               misplaced
 *	data elsewhere, hashed linkto names another       stale linkto
 *	subvolume, or the data's with another gfid
 *	data elsewhere, hashed linkto -> data             linked; stale linkto if another
 *	                                                  linkto sits elsewhere
 *
 * A stale verdict shows the stale linkto: the stray one when there is one (fix removes it),
 * else the hashed one. And what a read of the linkto xattr says of a file that may be a linkto
 * (lctl_linkto_read_result()): a read that failed is neither linkto nor data. Pure.
 */
#include "internal.h"
#include "verdict.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

void lctl_verdict_init(struct lctl_verdict *v, int hashed)
{
	memset(v, 0, sizeof(*v));
	v->hashed = hashed;
	v->data = v->on_hashed = v->on_hashed_target = v->stray = v->stray_target = -1;
	v->cached = v->linkto_subvol = v->linkto_target = -1;
}

void lctl_verdict_add(struct lctl_verdict *v, int subvol, enum lctl_copy_kind kind, int target,
		      uint64_t ino)
{
	switch (kind) {
	case LCTL_COPY_MIGRATING:
		v->phase1 = true;
		/* fall through */
	case LCTL_COPY_DATA:
		v->ndata++;
		v->data = subvol;
		v->data_ino = ino;
		break;
	case LCTL_COPY_LINKTO:
		v->nlinkto++;
		if (subvol == v->hashed) {
			v->on_hashed = subvol;
			v->on_hashed_target = target;
			v->on_hashed_ino = ino;
		} else {
			v->nstray++;
			if (v->stray < 0) {
				v->stray = subvol;
				v->stray_target = target;
			}
		}
		break;
	}
}

bool lctl_verdict_end(struct lctl_verdict *v, uint64_t (*data_ino)(void *arg), void *arg)
{
	uint64_t di;

	if (!v->ndata && !v->nlinkto)
		return false;
	v->cached = v->ndata == 1 ? v->data : -1;
	v->gfid_mismatch = false;
	if (v->on_hashed >= 0) {
		v->linkto_subvol = v->on_hashed;
		v->linkto_target = v->on_hashed_target;
	} else {
		v->linkto_subvol = v->stray;
		v->linkto_target = v->stray_target;
	}
	if (v->phase1) {
		v->state = LCTL_ENTRY_MIGRATION_LEFTOVER;
	} else if (v->ndata > 1) {
		v->state = LCTL_ENTRY_DUPLICATE;
	} else if (v->ndata == 0) {
		v->state = LCTL_ENTRY_ORPHAN_LINKTO;
	} else if (v->hashed < 0) {
		v->state = LCTL_ENTRY_UNHASHED;
	} else if (v->data == v->hashed) {
		v->state = v->nstray ? LCTL_ENTRY_STALE_LINKTO : LCTL_ENTRY_PLACED;
	} else if (v->on_hashed < 0) {
		v->state = LCTL_ENTRY_MISPLACED;
	} else if (v->on_hashed_target != v->data) {
		v->state = LCTL_ENTRY_STALE_LINKTO;
	} else {
		/* dht_lookup_linkfile_cbk(): a target with another gfid is not this file */
		di = v->data_ino;
		if (v->on_hashed_ino && !di && data_ino)
			di = data_ino(arg);
		v->gfid_mismatch = v->on_hashed_ino && di && di != v->on_hashed_ino;
		v->state = v->gfid_mismatch ? LCTL_ENTRY_STALE_LINKTO : LCTL_ENTRY_LINKED;
		/* reachable, but a linkto sits on another subvolume: that stray is stale */
		if (!v->gfid_mismatch && v->nstray) {
			v->state = LCTL_ENTRY_STALE_LINKTO;
			v->linkto_subvol = v->stray;
			v->linkto_target = v->stray_target;
		}
	}
	return true;
}

enum lctl_linkto_read lctl_linkto_read_result(ssize_t n, int e)
{
	if (n >= 0)
		return LCTL_LINKTO_VALUE;
	if (e == ERANGE)
		return LCTL_LINKTO_TOO_LONG;
	if (e == ENODATA)
		return LCTL_LINKTO_NONE;
	if (e == ENOENT || e == ESTALE)
		return LCTL_LINKTO_GONE;
	return LCTL_LINKTO_UNREAD;
}

bool lctl_may_be_dht_file(mode_t mode, bool has_gfid)
{
	mode_t bits = mode & 07777;

	return S_ISREG(mode) && has_gfid &&
	       (bits == S_ISVTX || (bits & (S_ISGID | S_ISVTX)) == (S_ISGID | S_ISVTX));
}

bool lctl_linkto_being_made(mode_t mode, uint64_t size, bool has_gfid)
{
	return S_ISREG(mode) && (mode & 07777) == S_ISVTX && size == 0 && !has_gfid;
}

enum lctl_copy_kind lctl_copy_kind_of(mode_t mode, bool has_gfid, enum lctl_linkto_read linkto)
{
	if (!lctl_may_be_dht_file(mode, has_gfid) ||
	    (linkto != LCTL_LINKTO_VALUE && linkto != LCTL_LINKTO_TOO_LONG))
		return LCTL_COPY_DATA;
	return (mode & 07777) == S_ISVTX ? LCTL_COPY_LINKTO : LCTL_COPY_MIGRATING;
}
