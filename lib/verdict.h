/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The verdict on one name from its copies (lib/verdict.c): DHT's rules. Internal to lib/. */
#ifndef LCTL_VERDICT_H
#define LCTL_VERDICT_H

#include "layoutctl.h"

#include <sys/types.h>

/*
 * The verdict on one name from its copies on the subvolumes: DHT's rules, in one place for
 * scan, fix and explain (lib/verdict.c). Feed every copy of the name (directories, absent
 * and unreadable subvolumes are not copies), then end:
 *
 *	struct lctl_verdict v;
 *	lctl_verdict_init(&v, hashed);
 *	lctl_verdict_add(&v, subvol, LCTL_COPY_LINKTO, target, ino);   (for each copy)
 *	if (lctl_verdict_end(&v, NULL, NULL)) use v.state, v.cached, ...
 */
enum lctl_copy_kind {
	LCTL_COPY_DATA,	     /* a data file */
	LCTL_COPY_LINKTO,    /* a sticky-only file carrying the linkto xattr */
	LCTL_COPY_MIGRATING, /* setgid+sticky and the linkto xattr: a migration's source */
};

struct lctl_verdict {
	/* the copies seen, by lctl_verdict_add() */
	int hashed; /* hashed subvolume under the current layout, -1 none (a hole) */
	size_t ndata, nlinkto, nstray;
	bool phase1;
	int data;	      /* the (last) subvolume with data, -1 none */
	uint64_t data_ino;    /* its gfid digest, 0 unknown */
	int on_hashed;	      /* the subvolume of the linkto on the hashed one, -1 none */
	int on_hashed_target; /* what it names, -1 unknown */
	uint64_t on_hashed_ino;
	int stray, stray_target; /* the first linkto elsewhere, -1 none */
	/* the verdict, by lctl_verdict_end() */
	enum lctl_entry_state state;
	int cached;	   /* the one subvolume with the data, -1 if none or several */
	int linkto_subvol; /* the linkto to show: a stale stray, else the hashed one's */
	int linkto_target;
	bool gfid_mismatch; /* the hashed linkto names the data's subvolume, another gfid */
};

void lctl_verdict_init(struct lctl_verdict *v, int hashed);
/* One copy on @subvol; @target: what a linkto names (-1 unknown); @ino: gfid digest, 0 unknown. */
void lctl_verdict_add(struct lctl_verdict *v, int subvol, enum lctl_copy_kind kind, int target,
		      uint64_t ino);
/*
 * Decide. @data_ino, if not NULL, is asked for the data copy's gfid digest when the gfid check
 * needs it and it is unknown (0: still unknown; unknown digests prove nothing). Return false
 * when no copy was added (the name is absent: nothing to judge).
 */
bool lctl_verdict_end(struct lctl_verdict *v, uint64_t (*data_ino)(void *arg), void *arg);

/*
 * What reading the linkto xattr of a file that may be a linkto (sticky-only, or a migration's
 * source) says, from the read's result: @n bytes, or -1 with errno @e. One rule for scan, fix
 * (both readers of inspect.c) and explain:
 *
 *	n >= 0        LCTL_LINKTO_VALUE      a linkto; its value names a subvolume, or none
 *	ERANGE        LCTL_LINKTO_TOO_LONG   a linkto whose value is longer than any subvolume
 *	                                     name: it names none (DHT finds none by that name)
 *	ENODATA       LCTL_LINKTO_NONE       no linkto xattr: a sticky-only file is plain data
 *	ENOENT,       LCTL_LINKTO_GONE       the file was removed or renamed since the listing: as
 *	ESTALE                               a file gone before its stat, it is not seen there
 *	anything else LCTL_LINKTO_UNREAD     not read (EIO, ENOTCONN, errno 0...): neither a
 *	                                     linkto nor data, so the name cannot be judged and its
 *	                                     directory is unreadable
 *
 * Pure.
 */
enum lctl_linkto_read {
	LCTL_LINKTO_VALUE,
	LCTL_LINKTO_TOO_LONG,
	LCTL_LINKTO_NONE,
	LCTL_LINKTO_GONE,
	LCTL_LINKTO_UNREAD,
};

enum lctl_linkto_read lctl_linkto_read_result(ssize_t n, int e);

/*
 * Whether an entry of mode @mode may be one of DHT's own files, so that its linkto xattr must
 * be read to say: a regular file with a gfid (@has_gfid) whose permission bits are exactly
 * S_ISVTX (a linkto) or include S_ISGID and S_ISVTX (the source of a migration in its first
 * phase). Nothing else is DHT's, whatever its bits. Pure.
 */
bool lctl_may_be_dht_file(mode_t mode, bool has_gfid);

/*
 * Whether a regular file of mode @mode and size @size without a gfid may be a linkto still
 * being made: permission bits exactly S_ISVTX, empty. The brick's MKNOD (and the CREATE of a
 * migration's destination, made with the same mode) creates the file, then sets the linkto
 * xattr, then the gfid (posix_mknod(), posix_create()): a reader of the brick folder sees it a
 * moment without either. Such a copy is given that moment before it is taken for data (made on
 * the brick by hand), which would make a false duplicate of the name. Pure.
 */
bool lctl_linkto_being_made(mode_t mode, uint64_t size, bool has_gfid);

/*
 * The kind of copy a non-directory entry of mode @mode is, @linkto being what the read of its
 * linkto xattr said (LCTL_LINKTO_VALUE, _TOO_LONG or _NONE; _NONE when it was not read, as
 * lctl_may_be_dht_file() said no). A user's permission bits prove nothing: the mode makes a
 * linkto or a migration's source only together with the xattr DHT sets on both, and anything
 * else is data (a setgid+sticky file of a user's is data, as DHT's rebalance takes it):
 *
 *	mode & 07777           linkto xattr    kind
 *	S_ISVTX exactly        present         LCTL_COPY_LINKTO
 *	S_ISGID|S_ISVTX (+any) present         LCTL_COPY_MIGRATING
 *	anything               absent          LCTL_COPY_DATA
 *
 * Pure.
 */
enum lctl_copy_kind lctl_copy_kind_of(mode_t mode, bool has_gfid, enum lctl_linkto_read linkto);

#endif
