/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: explain: where DHT puts one name and how it finds it again (read-only).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_EXPLAIN_H
#define LAYOUTCTL_EXPLAIN_H

#include "base.h"
#include "dht.h"
#include "volume.h"
#include "report.h"

/* ------------------------------------------------------------------------------------------ */
/* Explain: where DHT puts one name and how it finds it again (read-only)                      */
/* ------------------------------------------------------------------------------------------ */

/* What one subvolume holds under the name, in its own raw view. */
enum lctl_sight {
	LCTL_SIGHT_ABSENT = 0, /* nothing by that name (or no parent directory there) */
	LCTL_SIGHT_DATA,       /* a data file, symlink or special file */
	LCTL_SIGHT_LINKTO,     /* a DHT linkto file: mode exactly 01000 and the linkto xattr */
	LCTL_SIGHT_MIGRATING,  /* a migration's source: setgid + sticky and the linkto xattr */
	LCTL_SIGHT_DIR,	       /* a directory */
	LCTL_SIGHT_ERROR,      /* could not be read; err says why (ENOTCONN: subvolume down) */
	LCTL_SIGHT_COUNT,
};

/** lctl_sight_name() - "absent", "data", "linkto", "migrating", "directory", "error"; or NULL. */
const char *lctl_sight_name(int sight);

/**
 * struct lctl_explain_subvol - one subvolume's view of the name and of its parent directory.
 * @parent: the parent's trusted.glusterfs.dht there (@parent.subvol is the index; @parent.err
 *	as in struct lctl_layout_entry, ENOTDIR when the parent is not a directory there).
 * @sight: what the subvolume holds under the name.
 * @err: the errno behind %LCTL_SIGHT_ERROR, else 0.
 * @no_gfid: the entry has no gfid there (made on the brick by hand). It was not looked up, since
 *	a lookup would make the brick assign one; a file with DHT's bits is then taken as data.
 * @linkto_target: for a linkto or a migrating file, the subvolume its linkto xattr names; -1 when
 *	none or not a subvolume of this volume.
 * @linkto_value: that xattr as read (NUL-terminated, without DHT's trailing NUL), or NULL.
 * @size, @mode, @nlink: from the subvolume's stat (not for absent or error).
 * @ino: the inode number the brick derives from the gfid (equal for a linkto and its data file);
 *	0 when unknown.
 */
struct lctl_explain_subvol {
	struct lctl_layout_entry parent;
	enum lctl_sight sight;
	int err;
	bool no_gfid;
	int linkto_target;
	char *linkto_value;
	uint64_t size;
	mode_t mode;
	nlink_t nlink;
	uint64_t ino;
};

enum lctl_explain_kind {
	LCTL_EXPLAIN_ABSENT = 0,     /* on no subvolume (that could be read) */
	LCTL_EXPLAIN_FILE,	     /* not a directory: the state says where it is */
	LCTL_EXPLAIN_DIRECTORY,	     /* a directory on every subvolume that could be read */
	LCTL_EXPLAIN_DIR_INCOMPLETE, /* a directory, absent on some up subvolume */
	LCTL_EXPLAIN_TYPE_CONFLICT,  /* a directory on some subvolumes, not a directory on others */
	LCTL_EXPLAIN_KIND_COUNT,
};

/** lctl_explain_kind_name() - "absent", "file", "directory", ...; NULL if unknown. */
const char *lctl_explain_kind_name(int kind);

/* Why a lookup of a name that does not exist goes (or does not go) to every subvolume. */
enum lctl_miss_reason {
	LCTL_MISS_ONE_SUBVOL = 1 << 0,	   /* a single subvolume: nothing to fan out to */
	LCTL_MISS_HOLE = 1 << 1,	   /* no range holds the hash: all are asked at once */
	LCTL_MISS_OPTIMIZE_OFF = 1 << 2,   /* cluster.lookup-optimize is off */
	LCTL_MISS_UNHASHED_AUTO = 1 << 3,  /* off, but lookup-unhashed auto: one LOOKUP while
						 * readdirp saw no entry off its hashed subvolume */
	LCTL_MISS_NO_LAYOUT = 1 << 4,	   /* the parent has no layout xattr anywhere */
	LCTL_MISS_COMMIT_INVALID = 1 << 5, /* the parent's commit word is 1 (never clean) */
	LCTL_MISS_COMMIT_STALE = 1 << 6,   /* the parent's commit word is not the volume's */
	LCTL_MISS_COMMIT_MIXED = 1 << 7,   /* subvolumes disagree on it: DHT's merged value
						 * depends on the order of the replies */
	LCTL_MISS_VOLUME_MIXED = 1 << 8,   /* the brick roots disagree on the volume hash */
	LCTL_MISS_COMMIT_MATCH = 1 << 9,   /* lookup-optimize on and parent commit == volume
						 * commit: the hashed subvolume's ENOENT is final */
	LCTL_MISS_REASON_COUNT = 10,
};

/** lctl_miss_reason_name() - "hole", "commit-stale", ... for one bit; NULL if unknown. */
const char *lctl_miss_reason_name(unsigned bit);

/**
 * struct lctl_miss - what a lookup of a missing name costs (dht_lookup_cbk(),
 * dht_should_lookup_everywhere(), dht-facts.md 4.3).
 * @fans_out: the miss is looked up on every subvolume (dht_lookup_everywhere()).
 * @certain: false when the answer depends on the order of replies or on a runtime counter.
 * @reasons: enum lctl_miss_reason bits.
 * @lookups: subvolume LOOKUPs per miss (each goes to every brick of a replicated subvolume):
 *	1, nsubvols for a hole, 1 + nsubvols for a fan-out.
 */
struct lctl_miss {
	bool fans_out;
	bool certain;
	unsigned reasons;
	unsigned lookups;
};

/**
 * lctl_miss_check() - does a miss of a name with @hash in this directory fan out?
 * @parent: the directory's layout, @n entries (one per subvolume, array order = reply order).
 * @hash: the name's hash (lctl_name_hash()).
 * @vol_commit: the volume commit hash (lctl_volume_commit_hash()).
 * @vol_commit_consistent: the brick roots agree on it.
 * @lookup_optimize: cluster.lookup-optimize.
 * @lookup_unhashed: cluster.lookup-unhashed ("on", "off", "auto"); NULL = "on".
 * @out: the answer.
 * Pure; thread safe. Return: 0, or -LCTL_EINVAL when @parent or @out is NULL.
 */
int lctl_miss_check(const struct lctl_layout_entry *parent, size_t n, uint32_t hash,
		    uint32_t vol_commit, bool vol_commit_consistent, bool lookup_optimize,
		    const char *lookup_unhashed, struct lctl_miss *out);

/* How DHT's own answer (getxattr "dht.file.hashed-subvol.NAME" on the parent) compares. */
enum lctl_dht_check {
	LCTL_DHT_NOT_ASKED = 0,
	LCTL_DHT_AGREES,
	LCTL_DHT_DISAGREES,
	LCTL_DHT_UNAVAILABLE, /* DHT gave no answer (dht_err); nothing to compare */
};

/**
 * struct lctl_explain - everything lctl_explain() found about one name.
 * @path, @parent, @name: the normalised path, its directory and its last component.
 * @hashed_name: the string DHT hashes (after cluster.extra-/rsync-hash-regex); @munged: it
 *	differs from @name.
 * @hash: lctl_dm_hash() of @hashed_name.
 * @vol_commit, @vol_commit_consistent, @lookup_optimize: the volume's.
 * @nsubvols, @subvols: one view per DHT subvolume, in DHT's order.
 * @parent_report: lctl_layout_check() of the parent's layout.
 * @hashed: the hashed subvolume under the parent's on-disk layout, -1 for a hole.
 * @miss: whether a lookup of a missing name fans out here.
 * @kind, @state: what the name is; @state (enum lctl_entry_state) only for a file.
 * @ok: the name is where DHT finds it (absent, placed, linked, or a complete directory).
 * @incomplete: some subvolume could not be read, so the verdict may be wrong.
 * @cached: a file's data subvolume; -1 when none or several.
 * @linkto_subvol, @linkto_target: the linkto on the way (the hashed subvolume's if any, else
 *	a stray one) and the subvolume it names; -1 when none.
 * @gfid_mismatch: a linkto's gfid is not the data file's.
 * @dht_check, @dht_err, @dht_hashed_name, @dht_hashed: DHT's own answer (@dht_hashed -1 when
 *	it named no subvolume of ours).
 * @new_dir_known, @new_dir: for an absent name, the layout mkdir would give it
 *	(lctl_plan_gluster()); not known with cluster.randomize-hash-range-by-gfid.
 */
struct lctl_explain {
	char *path;
	char *parent;
	char *name;
	char *hashed_name;
	bool munged;
	uint32_t hash;
	uint32_t vol_commit;
	bool vol_commit_consistent;
	bool lookup_optimize;
	size_t nsubvols;
	struct lctl_explain_subvol *subvols;
	struct lctl_layout_report parent_report;
	int hashed;
	struct lctl_miss miss;
	enum lctl_explain_kind kind;
	enum lctl_entry_state state;
	bool ok;
	bool incomplete;
	int cached;
	int linkto_subvol;
	int linkto_target;
	bool gfid_mismatch;
	enum lctl_dht_check dht_check;
	int dht_err;
	char *dht_hashed_name;
	int dht_hashed;
	bool new_dir_known;
	struct lctl_range *new_dir;
};

struct lctl_explain_opts {
	const char *path; /* absolute path inside the volume, below the root */
	bool no_dht;	  /* do not ask DHT (no lookup through the DHT graph at all) */
};

/**
 * lctl_explain_split_path() - normalise an absolute path and split it into directory and name.
 * @path: "/a//b/c/" and the like; "." and ".." components are refused, and so is "/" itself
 *	(it has no name in a parent), a component longer than 255 bytes, or a path above 4095.
 * @parent, @name: set to malloc'ed strings ("/a/b", "c") the caller frees.
 * Return: 0, -LCTL_EINVAL, -LCTL_ENOMEM. Pure.
 */
int lctl_explain_split_path(const char *path, char **parent, char **name);

/**
 * lctl_explain_judge() - fill @kind, @state, @ok, @cached, @linkto_subvol, @linkto_target,
 * @gfid_mismatch and @incomplete of @e from @e->subvols and @e->hashed, as DHT would find the
 * name (and as lctl_scan's entry verdicts do). Pure.
 */
void lctl_explain_judge(struct lctl_explain *e);

/**
 * lctl_explain() - explain one name: its hash, its parent's layout on every subvolume, where
 * it is, and whether a miss fans out.
 * @vol: an open volume with subvolume graphs; borrowed.
 * @opts: what to explain.
 * @out: set to the result, owned by the caller (lctl_explain_free()).
 * @err: optional.
 *
 * Read-only on the subvolumes: the parent is looked up and listed there (the name itself is
 * found in the listing, never looked up by name unless it has a gfid: see @no_gfid). Unless
 * @opts->no_dht, one getxattr goes to the parent through DHT; that lookup of the parent may
 * let DHT heal it, as any client's would. Subvolumes are read in parallel.
 *
 * Return: 0; -LCTL_EINVAL (bad path), -LCTL_EIO with sys_errno ENOENT or ENOTDIR (no such
 * directory on any subvolume), -LCTL_EDOWN (no subvolume up), -LCTL_ENOMEM.
 */
int lctl_explain(struct lctl_volume *vol, const struct lctl_explain_opts *opts,
		 struct lctl_explain **out, struct lctl_error *err);

/** lctl_explain_free() - free a result. Accepts NULL. */
void lctl_explain_free(struct lctl_explain *e);

#endif /* LAYOUTCTL_EXPLAIN_H */
