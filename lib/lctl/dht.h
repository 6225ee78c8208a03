/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the DHT model: hash, layout codec, anomaly checks, planners (pure, no I/O).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_DHT_H
#define LAYOUTCTL_DHT_H

#include <regex.h>

#include "base.h"

/* ------------------------------------------------------------------------------------------ */
/* DHT model: hash, layout codec, anomaly checks, planners (pure logic, no I/O)                */
/* ------------------------------------------------------------------------------------------ */
struct timespec;

/* Extended attributes (with the default cluster.xattr-name). */
#define LCTL_LAYOUT_XATTR "trusted.glusterfs.dht"
#define LCTL_COMMITHASH_XATTR "trusted.glusterfs.dht.commithash"
#define LCTL_LINKTO_XATTR "trusted.glusterfs.dht.linkto"
#define LCTL_MDS_XATTR "trusted.glusterfs.dht.mds"

#define LCTL_LAYOUT_XATTR_LEN 16  /* four big-endian 32-bit words */
#define LCTL_COMMITHASH_MAXLEN 11 /* "4294967295" and its NUL */
#define LCTL_COMMIT_INVALID 1u	  /* commit word meaning "never clean" */
#define LCTL_LAYOUT_TYPE_NORMAL 0 /* DHT_HASH_TYPE_DM */
#define LCTL_LAYOUT_TYPE_USER 1	  /* DHT_HASH_TYPE_DM_USER: fix-layout leaves it alone */

/* The built-in value of cluster.rsync-hash-regex (POSIX ERE). */
#define LCTL_RSYNC_HASH_REGEX_DEFAULT "^\\.(.+)\\.[^.]+$"

/**
 * lctl_dm_hash() - the DHT hash of a byte string, bit-exact with libglusterfs gf_dm_hashfn()
 * on x86 (little-endian words, sign-extended tail bytes).
 * @buf: the bytes (NULL only with @len 0).
 * @len: their number.
 * Return: the 32-bit hash. Pure; thread safe.
 */
uint32_t lctl_dm_hash(const void *buf, size_t len);

/**
 * struct lctl_munge - the compiled cluster.extra-hash-regex and cluster.rsync-hash-regex.
 *
 * Set up with lctl_munge_init(), freed with lctl_munge_release(); read-only in between, so
 * one munge may be shared by any number of threads. Fields are private.
 */
struct lctl_munge {
	regex_t extra;
	regex_t rsync;
	bool extra_valid;
	bool rsync_valid;
};

/**
 * lctl_munge_init() - compile the name-munging regexes the way DHT does (dht_init_regex()).
 * @m: the munge to set up.
 * @extra_regex: cluster.extra-hash-regex; NULL, "" or "none": none.
 * @rsync_regex: cluster.rsync-hash-regex; NULL: the built-in default
 *	(%LCTL_RSYNC_HASH_REGEX_DEFAULT), "none": disabled.
 * @err: optional, filled on failure.
 *
 * Both are compiled with REG_EXTENDED only. A regex that does not compile is reported here;
 * DHT logs a warning and then simply does not use it, and @m behaves exactly like that, so a
 * caller that wants DHT's behaviour may go on after a failure. Call lctl_munge_release()
 * after every lctl_munge_init(), whatever it returned.
 *
 * Return: 0, -LCTL_EINVAL (a regex does not compile), -LCTL_ENOMEM.
 */
int lctl_munge_init(struct lctl_munge *m, const char *extra_regex, const char *rsync_regex,
		    struct lctl_error *err);

/** lctl_munge_release() - free the compiled regexes. Accepts NULL. */
void lctl_munge_release(struct lctl_munge *m);

/**
 * lctl_munge_name() - the string DHT hashes for @name (dht_munge_name()).
 * @m: the munge; NULL means no munging.
 * @name: a file or directory name (no slash), NUL-terminated.
 * @buf: where a munged name is written.
 * @bufsz: its size; strlen(@name) + 1 is always enough.
 *
 * The extra regex is tried first, the rsync regex only if the extra one did not munge. A
 * regex munges when it matches and its capture group 1 took part: group 1 is then hashed
 * instead of the whole name (".foo.txt.AbC123" -> "foo.txt", ".x.y" -> "x"; ".bashrc" stays).
 *
 * Return: @name itself when nothing is munged, else @buf; NULL if @name is NULL or the munged
 * name does not fit in @buf. Thread safe.
 */
const char *lctl_munge_name(const struct lctl_munge *m, const char *name, char *buf, size_t bufsz);

/**
 * lctl_name_hash() - the DHT hash of @name after munging: the value dht_layout_search() looks
 * up in the parent's layout. @m may be NULL (no munging). Thread safe.
 */
uint32_t lctl_name_hash(const struct lctl_munge *m, const char *name);

/**
 * struct lctl_range - one subvolume's trusted.glusterfs.dht value, decoded.
 * @commit: the directory's commit hash as seen by this subvolume (1 = never clean).
 * @type: %LCTL_LAYOUT_TYPE_NORMAL or %LCTL_LAYOUT_TYPE_USER.
 * @start: first hash of the range, inclusive.
 * @stop: last hash of the range, inclusive. start == stop (0-0 in practice) means the
 *	subvolume takes no part in the layout.
 */
struct lctl_range {
	uint32_t commit;
	uint32_t type;
	uint32_t start;
	uint32_t stop;
};

/**
 * lctl_layout_decode() - decode a trusted.glusterfs.dht value (four big-endian words:
 * commit, type, start, stop).
 * Return: 0, or -LCTL_EINVAL when @len is not 16 or the type is neither 0 nor 1 (DHT rejects
 * such a value too; for a wrong length its behaviour is undefined).
 */
int lctl_layout_decode(const void *buf, size_t len, struct lctl_range *out);

/** lctl_layout_encode() - encode @r as the 16-byte trusted.glusterfs.dht value. */
void lctl_layout_encode(const struct lctl_range *r, unsigned char out[LCTL_LAYOUT_XATTR_LEN]);

/**
 * lctl_commithash_decode() - decode a trusted.glusterfs.dht.commithash value: decimal ASCII,
 * with or without one trailing NUL.
 *
 * Strict: no sign, blank, leading zero or other byte, and at most UINT32_MAX. (DHT itself
 * reads it with strtoul(s, NULL, 0), so it would read "010" as 8 and garbage as 0.)
 * Return: 0, or -LCTL_EINVAL.
 */
int lctl_commithash_decode(const void *buf, size_t len, uint32_t *out);

/**
 * lctl_commithash_encode() - write @hash as the commithash value "N\0" (as glusterd's
 * dict_set_uint32() does).
 * Return: the number of bytes written including the NUL (the xattr length), or -LCTL_EINVAL
 * when @bufsz is too small (%LCTL_COMMITHASH_MAXLEN always suffices).
 */
int lctl_commithash_encode(uint32_t hash, char *buf, size_t bufsz);

/**
 * lctl_commit_hash_new() - a new volume commit hash, made like glusterd's gd_set_commit_hash():
 * (uint32)(tv_sec << 3) | 1 << ((tv_usec >> 10) % 3), except that it never returns 0 or 1
 * (glusterd's recipe gives 1 once every 2^29 s).
 * @now: the time to use; NULL = CLOCK_REALTIME now.
 */
uint32_t lctl_commit_hash_new(const struct timespec *now);

/**
 * struct lctl_layout_entry - one subvolume's part of a directory's layout.
 * @subvol: the subvolume (an index chosen by the caller), returned by lctl_layout_search().
 * @err: 0 (@r decoded), ENOENT (no such directory there), ENODATA (directory without a layout
 *	xattr), ENOTCONN (subvolume down), EINVAL (malformed xattr), or another errno.
 * @r: the decoded xattr; only meaningful when @err is 0.
 *
 * DHT's in-memory view of such an entry (dht_layout_merge()): ENODATA becomes a 0-0 range,
 * EINVAL counts as a missing directory, any error has a 0-0 range.
 */
struct lctl_layout_entry {
	int subvol;
	int err;
	struct lctl_range r;
};

/**
 * enum lctl_commit_state - how a directory's commit words compare with the volume's.
 * @LCTL_COMMIT_CLEAN: every entry with an xattr (0-0 ones included) has the volume's hash.
 * @LCTL_COMMIT_STALE: they all agree, on another value.
 * @LCTL_COMMIT_INVALIDATED: at least one is %LCTL_COMMIT_INVALID (and the volume hash is not).
 * @LCTL_COMMIT_MIXED: they differ; DHT's merged value then depends on reply order.
 * @LCTL_COMMIT_NONE: no entry has a readable layout xattr.
 */
enum lctl_commit_state {
	LCTL_COMMIT_CLEAN = 0,
	LCTL_COMMIT_STALE,
	LCTL_COMMIT_INVALIDATED,
	LCTL_COMMIT_MIXED,
	LCTL_COMMIT_NONE,
};

/**
 * struct lctl_layout_report - result of lctl_layout_check().
 * @nentries: entries checked.
 * @holes: holes as dht_layout_anomalies() counts them (the wrap-around check included). Non-zero
 *	(like @overlaps) makes DHT recompute the layout and set its commit to 1 on self-heal.
 * @overlaps: overlaps as dht_layout_anomalies() counts them.
 * @hole_size: exact number of hashes no participating range covers (2^32 when virgin).
 * @overlap_size: exact number of hashes covered more than once, counted with multiplicity.
 * @missing: ENOENT/ESTALE entries. @down: ENOTCONN. @no_xattr: ENODATA. @malformed: EINVAL.
 * @other: any other errno.
 * @zero: 0-0 entries (xattr present, no range).
 * @degenerate: entries with start == stop != 0 or start > stop.
 * @ranged: entries with start < stop.
 * @virgin: no entry takes part in the range walk (DHT then counts one hole).
 * @user_layout: some entry has type %LCTL_LAYOUT_TYPE_USER.
 * @commit_state: see enum lctl_commit_state.
 * @commit_agree: all entries with an xattr carry the same commit word, which is @commit.
 * @commit: that common word, or 0.
 * @merged_commit: what dht_layout_merge() computes when the replies arrive in array order
 *	(first non-zero word, 1 as soon as a later one differs).
 */
struct lctl_layout_report {
	uint32_t nentries;
	uint32_t holes;
	uint32_t overlaps;
	uint64_t hole_size;
	uint64_t overlap_size;
	uint32_t missing;
	uint32_t down;
	uint32_t no_xattr;
	uint32_t malformed;
	uint32_t other;
	uint32_t zero;
	uint32_t degenerate;
	uint32_t ranged;
	bool virgin;
	bool user_layout;
	enum lctl_commit_state commit_state;
	bool commit_agree;
	uint32_t commit;
	uint32_t merged_commit;
};

/**
 * lctl_layout_check() - check a directory's layout as DHT does (dht_layout_normalize()).
 * @e: the entries, any order (the array order plays the role of DHT's reply order).
 * @n: their number (0 is allowed: reported as virgin).
 * @vol_commit: the volume commit hash (root commithash, 0 if absent).
 * @out: the report.
 *
 * The entries are mapped to DHT's in-memory form, sorted exactly as DHT's qsort() call sorts
 * them, and walked as in dht_layout_anomalies(). Entries with an error, without an xattr, or
 * with start == stop (0-0) are left out of the walk; so a single entry 0-0xffffffff is a
 * complete layout. Wrap-around: an entry with start > stop is walked like any other (DHT's
 * walk even accepts a layout that wraps, e.g. c0000000-3fffffff + 40000000-bfffffff, as
 * complete), but it covers nothing, since dht_layout_search() can never match it; @hole_size
 * shows that. DHT's 32-bit quirks are kept: an entry after one ending at 0xffffffff counts as
 * a hole, not an overlap; and the final wrap check compares the last stop with
 * list[0].start - 1, where list[0] is a 0-0 or failed entry whenever there is one, so the
 * same ranges can count one hole or two depending on the 0-0 entries next to them.
 *
 * Return: 0, -LCTL_EINVAL, -LCTL_ENOMEM. Thread safe.
 */
int lctl_layout_check(const struct lctl_layout_entry *e, size_t n, uint32_t vol_commit,
		      struct lctl_layout_report *out);

/**
 * lctl_layout_search() - the hashed subvolume of @hash, as dht_layout_search() finds it: the
 * first entry, in DHT's sorted order, with start <= hash <= stop.
 *
 * DHT's order puts 0-0 and failed entries first (they are all 0-0 in memory), so hash 0 goes
 * to the first such entry in array order when there is one (a non-participating, missing or
 * even down subvolume): that is what DHT does. Otherwise the entry with the lowest start wins.
 *
 * Return: that entry's @subvol, or -1 for a hole. Thread safe; allocates only for n > 64
 * layouts containing inverted X-0 entries.
 */
int lctl_layout_search(const struct lctl_layout_entry *e, size_t n, uint32_t hash);

/**
 * lctl_layout_dht_order() - the order DHT's in-memory layout has after a lookup
 * (dht_layout_sort(): glibc's merge sort with DHT's comparator, replayed exactly).
 * @order: receives @n indices into @e.
 * Return: 0, -LCTL_EINVAL, -LCTL_ENOMEM.
 */
int lctl_layout_dht_order(const struct lctl_layout_entry *e, size_t n, size_t *order);

/** lctl_layout_merged_commit() - dht_layout_merge()'s commit hash for replies in array order. */
uint32_t lctl_layout_merged_commit(const struct lctl_layout_entry *e, size_t n);

/**
 * lctl_layout_moved_fraction() - the fraction of the 2^32 hash space whose owner differs
 * between two layouts.
 * @before, @after: @n ranges each, indexed by subvolume. A hash's owner is the first range
 *	covering it; 0-0 and inverted ranges cover nothing; no owner counts as an owner.
 * Return: 0.0 .. 1.0, or a negative value if out of memory.
 */
double lctl_layout_moved_fraction(const struct lctl_range *before, const struct lctl_range *after,
				  size_t n);

/**
 * lctl_du_chunks() - DHT's weight of a subvolume (dht_du_info_cbk()): its size in 1 MiB
 * chunks from statvfs, computed as DHT does with f_blocks and f_bsize (not f_frsize).
 * Return: the chunks, or 0 (= unknown) when f_bsize is 0 or above 1 MiB.
 */
uint32_t lctl_du_chunks(uint64_t f_blocks, uint64_t f_bsize);

/**
 * struct lctl_plan_in - the subvolumes a planner distributes a directory over.
 * @n: number of subvolumes (>= 1); every array has @n elements, indexed alike.
 * @names: DHT child names ("vol-client-3"), distinct. GlusterFS orders by them (strcmp).
 * @weights: DHT chunks (lctl_du_chunks(), at most UINT32_MAX), or NULL for equal shares
 *	(cluster.weighted-rebalance off). A zero for a subvolume that gets a range means
 *	"unknown", and then everybody gets an equal share, as in DHT.
 * @active: which subvolumes get a range (false: decommissioned or unusable: 0-0); NULL = all.
 * @spread: cluster.directory-layout-spread for the GlusterFS planners; 0 = all.
 */
struct lctl_plan_in {
	size_t n;
	const char *const *names;
	const uint64_t *weights;
	const bool *active;
	unsigned spread;
};

/**
 * lctl_plan_gluster() - the layout GlusterFS gives a new (or layout-less) directory
 * (dht_selfheal_new_directory()), bit for bit.
 * @in: the subvolumes.
 * @m: the munge applied to @key (DHT hashes it with dht_hash_compute()); may be NULL.
 * @key: the directory's full path as the client saw it ("/d1"), or its gfid in lowercase
 *	canonical form when cluster.randomize-hash-range-by-gfid is on.
 * @commit: the commit word written to every entry. (GlusterFS writes the volume hash, or 1
 *	with lookup-optimize off, on ranged entries, and 0 on 0-0 ones.)
 * @out: @n ranges, indexed like @in.
 * @err: optional.
 *
 * Active subvolumes sorted by name get consecutive ranges from 0, starting at the one in
 * position dm_hash(key) % n among *all* n sorted names, of (uint32)(0xffffffff / count)
 * each, or weighted; the last one used ends at 0xffffffff; the rest get 0-0. The result tiles
 * the hash space, except with @in->spread below the number of active subvolumes *and*
 * weights: GlusterFS then sums the weights of other subvolumes than it uses, and its ranges
 * can run past 2^32 and overlap. That is reproduced as is.
 *
 * Return: 0, -LCTL_EINVAL (bad input, duplicate names, no active subvolume), -LCTL_ENOMEM.
 */
int lctl_plan_gluster(const struct lctl_plan_in *in, const struct lctl_munge *m, const char *key,
		      uint32_t commit, struct lctl_range *out, struct lctl_error *err);

#define LCTL_PLAN_KEEP 1 /* lctl_plan_gluster_fix(): GlusterFS would not rewrite the layout */

/**
 * lctl_plan_gluster_fix() - what GlusterFS's fix-layout (rebalance, or the
 * distribute.fix.layout xattr) does to an existing directory (dht_fix_layout_of_directory(),
 * dht_selfheal_layout_maximize_overlap(), dht_should_fix_layout()).
 * @in, @m, @key, @commit, @out, @err: as for lctl_plan_gluster(); @in->active false marks the
 *	decommissioned subvolumes.
 * @old: the current layout, @n entries indexed like @in (@subvol is not used).
 *
 * The new layout is computed as for a new directory; then, only if @in->weights is NULL or
 * all @n weights are equal, ranges are swapped pairwise where that keeps more of the old
 * ranges (an entry whose directory is missing, ENOENT, takes part: DHT's lookup makes the
 * directory there before it fixes the layout). Finally DHT leaves the directory alone when the old layout has a user type, an
 * entry with an unexpected error, or is already complete (no hole or overlap, every
 * subvolume ranged, none decommissioned) with the same equal/weighted distribution.
 * (GlusterFS keeps the directory's old commit hash on the ranged entries, and writes 0 on
 * the 0-0 ones; pass lctl_layout_merged_commit(@old) to mimic it.)
 *
 * Return: 0 with the new layout in @out; %LCTL_PLAN_KEEP with the old ranges in @out (errors
 * as 0-0); -LCTL_EDOWN when a subvolume is down (DHT skips the directory); -LCTL_EINVAL,
 * also when no active subvolume is usable (DHT would write 0-0 everywhere); -LCTL_ENOMEM.
 */
int lctl_plan_gluster_fix(const struct lctl_plan_in *in, const struct lctl_munge *m,
			  const char *key, const struct lctl_layout_entry *old, uint32_t commit,
			  struct lctl_range *out, struct lctl_error *err);

#define LCTL_MINMOVE_SLACK_DEFAULT 0.1
#define LCTL_MINMOVE_IMBALANCE_DEFAULT 0.5

/**
 * struct lctl_minmove_opts - how lctl_plan_minmove() trades balance for movement.
 * @move_slack: the planner looks for the most balanced layout that moves at most
 *	(1 + @move_slack) times the hash space any exactly balanced layout must move. Negative:
 *	no budget, just the least movement within @max_imbalance.
 * @max_imbalance: the largest relative deviation t allowed from any target share (every
 *	share stays within [1 - t, 1 + t] x target), 0 .. 0.9. 0 = exact shares.
 */
struct lctl_minmove_opts {
	double move_slack;
	double max_imbalance;
};

/**
 * struct lctl_plan_stats - what a lctl_plan_minmove() plan costs.
 * @moved: fraction of the hash space whose owner changes (lctl_layout_moved_fraction()).
 * @min_moved: the fraction any exactly balanced layout must move (the shortfall of every
 *	subvolume below its target); for adding k subvolumes to n balanced ones, k / (n + k).
 * @imbalance: the largest |share / target - 1| of the plan.
 */
struct lctl_plan_stats {
	double moved;
	double min_moved;
	double imbalance;
};

/**
 * lctl_plan_minmove() - a complete layout over the active subvolumes that keeps as much of
 * the current one as possible.
 * @in: the subvolumes (@spread is ignored).
 * @cur: the current layout, @n entries indexed like @in, or NULL. Active subvolumes without
 *	a range (err != 0 or start >= stop) are new; ranges of inactive ones are given up.
 * @opts: NULL for the defaults (slack 0.1, imbalance up to 0.5).
 * @commit: the commit word of every output entry.
 * @out: @n ranges: one contiguous range per active subvolume, tiling 0..0xffffffff without
 *	wrap-around, each at least 2 hashes wide; 0-0 for inactive ones.
 * @stats: optional.
 * @err: optional.
 *
 * The current order of the ranges is kept, new subvolumes are inserted where space is free or
 * else spread out, and the boundaries are placed optimally for that order (see lib/minmove.c).
 * With DHT's one-range-per-subvolume rule exact balance and little movement exclude each
 * other (exact shares: adding 1 subvolume to 16 moves 26%, not 5.9%), hence @opts. With the
 * defaults, adding k to n balanced subvolumes (n <= 16, k <= 8) moves at most 1.1 x k/(n+k)
 * at up to ~20% imbalance; removing one whose range lies between two kept ones moves at most
 * 1.1 x its share; a range at either end of the hash space, or next to another removed one,
 * has fewer neighbours to go to and costs up to ~1.8 x.
 * Deterministic; thread safe; ~5 ms for 100 subvolumes, bounded work beyond.
 *
 * Return: 0, -LCTL_EINVAL, -LCTL_ENOMEM.
 */
int lctl_plan_minmove(const struct lctl_plan_in *in, const struct lctl_layout_entry *cur,
		      const struct lctl_minmove_opts *opts, uint32_t commit, struct lctl_range *out,
		      struct lctl_plan_stats *stats, struct lctl_error *err);

/**
 * struct lctl_usage - a subvolume's space as statvfs through its graph reports it, and how
 * much of it is the volume's own data, for lctl_plan_usage_weights().
 * @size: f_blocks * f_frsize (0: unknown); @free: f_bavail * f_frsize.
 * @movable: bytes of the volume's files whose data is on it (they go where the layouts say);
 *	the rest of what it uses (other data on its filesystem) stays whatever the layouts say.
 */
struct lctl_usage {
	uint64_t size, free, movable;
};

/**
 * lctl_plan_usage_weights() - the weights (struct lctl_plan_in.weights) of the even-usage
 * planner: hash shares sized so that each active subvolume's projected fill, not its hash
 * share, comes out even once the volume's data (the @movable bytes of every subvolume, a
 * leaving one's too) is spread by them: the level f with sum over active i of
 * max(0, f * size_i - (used_i - movable_i)) = the volume's bytes, and subvolume i's share
 * max(0, f * size_i - (used_i - movable_i)). A subvolume whose other data alone fills it above
 * that level gets the least weight, 1 (DHT's 0 means "unknown"). A volume holding less than
 * 1 % of the active subvolumes' size counts as holding that much (new files to come). Sizes
 * equal and nothing but the volume's data: equal shares; no other data: shares by size, as
 * cluster.weighted-rebalance. Pure, deterministic.
 * @n, @active: as struct lctl_plan_in (NULL: all); @u: [@n]; @weights: [@n] out (0 for an
 *	inactive subvolume; the active ones' sum at most 2^31).
 * Return: 0; -LCTL_EINVAL (no active subvolume, or one whose size is unknown), -LCTL_ENOMEM.
 */
int lctl_plan_usage_weights(size_t n, const bool *active, const struct lctl_usage *u,
			    uint64_t *weights, struct lctl_error *err);

#endif /* LAYOUTCTL_DHT_H */
