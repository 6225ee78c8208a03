/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: inspect and repair GlusterFS DHT directory layouts.
 *
 * The one public header of the library. The library does the work and never prints, never
 * calls exit() and never aborts on runtime errors: every fallible call returns 0 (or a count)
 * on success and a negative LCTL_E* code on failure, and fills an optional
 * struct lctl_error with the details (written only on failure, so calls can be chained).
 *
 * Thread safety: functions on distinct objects may be called from distinct threads. A
 * struct lctl_volume may be shared by all threads once opened (gfapi is thread safe); its
 * topology is immutable after lctl_volume_open().
 */
#ifndef LAYOUTCTL_H
#define LAYOUTCTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */
/* ------------------------------------------------------------------------------------------ */

enum lctl_errcode {
	LCTL_OK = 0,
	LCTL_ENOMEM,	/* out of memory */
	LCTL_EINVAL,	/* invalid argument or malformed input */
	LCTL_ECONNECT,	/* cannot reach the volfile server */
	LCTL_ENOVOL,	/* the volume does not exist (or is not started) */
	LCTL_EVOLFILE,	/* the client volfile is malformed or has no distribute translator */
	LCTL_EIO,	/* a filesystem operation failed (sys_errno says why) */
	LCTL_EPERM,	/* permission denied (not root, or the brick refused) */
	LCTL_EDOWN,	/* a subvolume is not reachable */
	LCTL_ECANCELED, /* the operation was cancelled */
	LCTL_EBUSY,	/* another job holds the volume, or a GlusterFS task is running */
	LCTL_ECORRUPT,	/* on-disk data (xattr, journal) is corrupt */
	LCTL_ENOSPC,	/* not enough free space */
	LCTL_ERRCODE_MAX
};

struct lctl_error {
	int code;      /* enum lctl_errcode */
	int sys_errno; /* errno behind it, or 0 */
	char msg[256]; /* one line, no trailing newline */
};

/**
 * lctl_strerror() - short description of an error code.
 * @code: enum lctl_errcode, positive or negative.
 * Return: a static string; never NULL.
 */
const char *lctl_strerror(int code);

/**
 * lctl_mono_seconds() - seconds on the monotonic clock (lib/clock.c), never set back: what
 * every timeout, rate and elapsed time is measured with. Thread safe.
 */
double lctl_mono_seconds(void);

/* ------------------------------------------------------------------------------------------ */
/* Escaping: strings from a volume or a file, at every sink (lib/escape.c has the rules)      */
/* ------------------------------------------------------------------------------------------ */

/**
 * lctl_escape_needed() - whether lctl_escape_dup() would change @s.
 * @s: a NUL-terminated string, any bytes.
 */
bool lctl_escape_needed(const char *s);

/**
 * lctl_escape_len() - length of @s escaped, without the NUL.
 */
size_t lctl_escape_len(const char *s);

/**
 * lctl_escape_to() - write @s escaped into @out, NUL-terminated.
 * @out: at least lctl_escape_len(@s) + 1 bytes (4 * strlen(@s) + 1 always suffice).
 * Return: the escaped length.
 */
size_t lctl_escape_to(char *out, const char *s);

/**
 * lctl_escape_dup() - @s escaped: valid UTF-8 without control characters, XML-illegal
 * characters or noncharacters; "\\" for a backslash and "\xHH" for each byte of anything
 * not shown as is. Lossless (lctl_unescape() inverts it).
 * Return: a malloc'ed string the caller owns, or NULL without memory.
 */
char *lctl_escape_dup(const char *s);

/**
 * lctl_unescape() - invert lctl_escape_dup() in place ("\\" and "\xHH", but not "\x00");
 * any other backslash is kept as it is.
 * Return: the new length.
 */
size_t lctl_unescape(char *s);

/**
 * lctl_escape_word_to() - @s as one word of a line protocol: the escapes above, and "\xHH"
 * for every byte outside 0x21-0x7e (no space, no newline, nothing but ASCII).
 * @out: at least 4 * strlen(@s) + 1 bytes. Return: the escaped length.
 */
size_t lctl_escape_word_to(char *out, const char *s);

/**
 * lctl_unescape_word() - invert lctl_escape_word_to() in place, strictly: false (and @s
 * unchanged) for a byte outside 0x21-0x7e, a backslash that starts no escape, or "\x00".
 */
bool lctl_unescape_word(char *s);

struct json_object;
/**
 * lctl_json_escape_tree() - escape every string value below @j in place (keys are ours, never
 * escaped); lctl_json_unescape_tree() undoes it, as for a document read back.
 * Return: 0 or -LCTL_ENOMEM (some strings then left as they were).
 */
int lctl_json_escape_tree(struct json_object *j);
int lctl_json_unescape_tree(struct json_object *j);
/*
 * lctl_json_line() - a sink's record: @j's strings escaped in place (lctl_json_escape_tree()),
 * then @j serialized with json-c @flags as one line ending in '\n'. The caller frees it; NULL
 * without memory.
 */
char *lctl_json_line(struct json_object *j, int flags);

/* ------------------------------------------------------------------------------------------ */
/* Logging: the library logs only through this callback, and by default not at all.          */
/* ------------------------------------------------------------------------------------------ */

enum lctl_log_level {
	LCTL_LOG_ERROR = 0,
	LCTL_LOG_WARN = 1,
	LCTL_LOG_INFO = 2,
	LCTL_LOG_VERBOSE = 3,
	LCTL_LOG_DEBUG = 4,
};

typedef void (*lctl_log_fn)(void *data, int level, const char *msg);

/**
 * lctl_set_log() - route library log messages to @fn (process-wide).
 * @fn: callback, called from any library thread; NULL disables logging.
 * @data: passed to @fn.
 * @level: messages above this level are dropped.
 */
void lctl_set_log(lctl_log_fn fn, void *data, int level);

/* ------------------------------------------------------------------------------------------ */
/* DHT model: hash, layout codec, anomaly checks, planners (pure logic, no I/O)                */
/* ------------------------------------------------------------------------------------------ */
/* @@DHT-MODEL-BEGIN@@ (section owned by lib/hash.c, lib/layout.c, lib/plan.c) */
#include <regex.h>

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
 * else spread out, and the boundaries are placed optimally for that order (see lib/plan.c).
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
/* @@DHT-MODEL-END@@ */

/* ------------------------------------------------------------------------------------------ */
/* Volfile: the client graph as a tree of translators (pure logic)                            */
/* ------------------------------------------------------------------------------------------ */

struct lctl_xl_option {
	char *key;
	char *value;
};

struct lctl_xlator {
	char *name; /* "vol-client-0" */
	char *type; /* "protocol/client" */
	struct lctl_xl_option *opts;
	size_t nopts;
	struct lctl_xlator **subvols; /* borrowed pointers into the same graph */
	size_t nsubvols;
};

struct lctl_volfile {
	struct lctl_xlator *xl; /* in file order; the last one is the top */
	size_t nxl;
};

/* The most subvolumes one translator may have (a larger volfile is rejected when parsed). */
#define LCTL_MAX_SUBVOLS 1024

/* The longest brick host a volfile may name (a DNS name has at most 253 bytes). */
#define LCTL_HOST_MAX 255

/**
 * lctl_host_check() - whether the @len bytes at @host read as a host name or address to every
 * program a brick's host is handed to (gfapi; ssh for a pool run, the gluster CLI for a
 * drain): 1 to LCTL_HOST_MAX ASCII letters, digits, '.', '-', '_' or ':' (an IPv6 address,
 * bare as glusterd writes it), not starting with '-' (never an option).
 * Return: 0 if so, -1 if not.
 */
int lctl_host_check(const char *host, size_t len);

/**
 * lctl_volfile_parse() - parse a GlusterFS volfile.
 * @text: the volfile, not necessarily NUL-terminated.
 * @len: its length in bytes.
 * @out: filled on success; release with lctl_volfile_release().
 * @err: optional; says which line is wrong on failure.
 * A protocol/client translator's remote-host (a brick's host) must pass lctl_host_check().
 * Return: 0, or -LCTL_EINVAL for a malformed volfile, -LCTL_ENOMEM.
 */
int lctl_volfile_parse(const char *text, size_t len, struct lctl_volfile *out,
		       struct lctl_error *err);
void lctl_volfile_release(struct lctl_volfile *vf);

/** lctl_volfile_find_type() - first translator of @type, or NULL. Borrowed. */
const struct lctl_xlator *lctl_volfile_find_type(const struct lctl_volfile *vf, const char *type);

/** lctl_xlator_option() - value of option @key of @xl, or NULL. Borrowed. */
const char *lctl_xlator_option(const struct lctl_xlator *xl, const char *key);

/* The longest settle period (fix --settle); a longer client cache is taken as this long. */
#define LCTL_SETTLE_MAX 3600
/* Seconds over a client cache's timeout: md-cache ages entries in whole seconds (an entry
 * lives up to timeout + 1 s), and one more for the revalidating round trip. */
#define LCTL_SETTLE_CACHE_MARGIN 2

/* The client caches of a volume's graph that may keep a directory's old view. */
struct lctl_client_cache {
	unsigned seconds;   /* the longest timeout of those in the graph; 0: none */
	const char *option; /* the volume option that sets it ("performance.md-cache-timeout"),
			     * static; NULL when none */
};

/**
 * lctl_volfile_client_cache() - the caches in @vf's client graph: md-cache
 * (performance/md-cache, md-cache-timeout, default 1 s) and nl-cache (performance/nl-cache,
 * nl-cache-timeout, default 60 s), each when present and not in pass-through. A timeout that
 * does not parse counts as its default; one over LCTL_SETTLE_MAX as LCTL_SETTLE_MAX.
 */
void lctl_volfile_client_cache(const struct lctl_volfile *vf, struct lctl_client_cache *out);
/**
 * lctl_settle_for_cache() - the settle period a run takes when none was given: the longest
 * client cache timeout (@cache_seconds) and LCTL_SETTLE_CACHE_MARGIN, or @settle_default when
 * that is longer (or no cache), at most LCTL_SETTLE_MAX.
 */
unsigned lctl_settle_for_cache(unsigned settle_default, unsigned cache_seconds);

/**
 * lctl_dht_spread() - the volume's cluster.subvols-per-directory from its DHT translator
 * @dht: glusterd writes it into the client volfile as "option directory-layout-spread N"
 *	(GlusterFS 10.3 glusterd-volume-set.c; read by dht-shared.c:dht_init as a uint32 of at
 *	least 1, defaulting to the number of subvolumes).
 * Return: N (1 .. UINT32_MAX), or 0 = every subvolume: the option absent, or a value DHT
 * itself would not start with (not a decimal number, 0, out of range): a directory is then
 * planned over, and only counted complete with, all of them.
 */
unsigned lctl_dht_spread(const struct lctl_xlator *dht);

/**
 * lctl_volfile_subtree() - write a volfile holding @top and everything below it, leaves first.
 * Return: a malloc'ed NUL-terminated string owned by the caller, or NULL on ENOMEM.
 */
char *lctl_volfile_subtree(const struct lctl_xlator *top);

/* ------------------------------------------------------------------------------------------ */
/* Volume: connection, topology, per-subvolume access                                         */
/* ------------------------------------------------------------------------------------------ */

struct lctl_open_opts {
	const char *volume;	    /* volume name (required) */
	const char *const *servers; /* "host[:port]", tried in order; NULL = localhost:24007 */
	size_t nservers;
	const char *transport; /* "tcp" (default), "rdma", "unix" */
	const char *log_file;  /* gfapi's own log; NULL = /dev/null */
	int log_level;	       /* gfapi log level 0-9; 0 = default (warning) */
	bool no_subvol_graphs; /* do not open per-subvolume graphs */
	/*
	 * Read the folders of bricks on this host directly (read-only inspections: scan), where
	 * it is safe: a pure distribute subvolume whose brick's host is this one and whose folder
	 * carries the volume's id (from glusterd's own record of the volume).
	 */
	bool local_bricks;
	/*
	 * Which bricks are this server's ("mine": read directly, migrated from by this host).
	 * @nodes: the names this server's bricks are listed under (remote-host as in the
	 * volfile; also matched by address); when none are given, glusterd's own view decides:
	 * the brick's peer UUID in glusterd's store (vols/NAME/bricks/) against this glusterd's
	 * UUID (glusterd.info), else the brick host against this host's name and addresses.
	 * @glusterd_dir: glusterd's working directory; NULL = /var/lib/glusterd.
	 */
	const char *const *nodes;
	size_t nnodes;
	const char *glusterd_dir;
	/*
	 * A drain: the subvolumes to empty, each a DHT subvolume name or a brick "HOST:/PATH" as
	 * the volfile lists it (a replica or disperse set whole). They are marked
	 * lctl_subvol.leaving (no range in any planned layout) and our DHT graph lists them in
	 * its decommissioned-bricks option, without which DHT does not migrate hard-linked
	 * files. A name that matches nothing, part of a set, or every subvolume: -LCTL_EINVAL.
	 */
	const char *const *leaving;
	size_t nleaving;
};

enum lctl_subvol_kind {
	LCTL_SUBVOL_BRICK,     /* protocol/client */
	LCTL_SUBVOL_REPLICATE, /* cluster/replicate (AFR) */
	LCTL_SUBVOL_DISPERSE,  /* cluster/disperse (EC) */
	LCTL_SUBVOL_OTHER,
};

struct lctl_brick {
	char *host;    /* remote-host */
	char *path;    /* remote-subvolume */
	char *xlator;  /* protocol/client translator name */
	size_t server; /* index into the volume's servers (lctl_volume_server_at()) */
	bool mine;     /* on this server (lctl_open_opts.nodes) */
};

/* A server of the pool holding bricks of the volume. */
struct lctl_server {
	char *id;   /* glusterd's peer UUID, or the brick host when glusterd's store is not here */
	char *host; /* the name its first brick is listed under (to reach it) */
	size_t nbricks;
	bool mine; /* this server */
};

struct lctl_subvol {
	char *name; /* DHT child name, e.g. "vol-replicate-0" */
	enum lctl_subvol_kind kind;
	struct lctl_brick *bricks;
	size_t nbricks;
	bool up;		  /* its graph came up and "/" can be stat'ed */
	bool decommissioned;	  /* listed in the DHT decommissioned-bricks option */
	bool leaving;		  /* being drained (lctl_open_opts.leaving) */
	int down_errno;		  /* why not, when !up */
	bool has_commit;	  /* its root carries trusted.glusterfs.dht.commithash */
	uint32_t commit;	  /* that value (0 when absent) */
	uint64_t size_bytes;	  /* statfs f_blocks * f_frsize of its root, 0 if unknown */
	uint64_t free_bytes;	  /* statfs f_bavail * f_frsize of its root, 0 if unknown */
	uint64_t free_inodes_pct; /* statfs f_favail / f_files in percent, 100 if unknown */
	uint64_t statfs_blocks;	  /* raw f_blocks and f_bsize, for DHT's weights */
	uint64_t statfs_bsize;
	char *local_path; /* its brick folder, read directly (open opts local_bricks) */
};

struct lctl_dht_options {
	bool lookup_optimize;	 /* default on */
	char *lookup_unhashed;	 /* "on" (default), "off", "auto" */
	bool weighted_rebalance; /* default on */
	char *rsync_hash_regex;	 /* NULL = built-in default; "none" disables */
	char *extra_hash_regex;	 /* NULL = none */
	char *min_free_disk;	 /* "10%" default, or a size */
	bool randomize_by_gfid;	 /* cluster.randomize-hash-range-by-gfid, default off */
	char *xattr_name;	 /* default "trusted.glusterfs.dht" */
	unsigned spread;	 /* cluster.subvols-per-directory (lctl_dht_spread()); 0 = all */
};

struct lctl_volume;

/**
 * lctl_volume_open() - connect to a volume and learn its DHT topology.
 * @opts: what to open.
 * @out: set to the new handle on success; the caller owns it (lctl_volume_close()).
 * @err: optional.
 *
 * Fetches the client volfile from the first volfile server that answers, parses it, finds the
 * distribute translator and its children, and (unless @opts->no_subvol_graphs) opens one gfapi
 * graph per DHT subvolume to read raw layout xattrs. A subvolume whose graph cannot be used is
 * marked !up; that is not an error here.
 *
 * Return: 0; -LCTL_ENOVOL, -LCTL_ECONNECT, -LCTL_EVOLFILE, -LCTL_ENOMEM, -LCTL_EIO.
 */
int lctl_volume_open(const struct lctl_open_opts *opts, struct lctl_volume **out,
		     struct lctl_error *err);

/**
 * lctl_volume_close() - free the handle.
 *
 * gfapi's glfs_fini() takes about 11 s in 10.3, so the graphs are torn down only when
 * @fini is true; a command-line tool about to exit passes false and lets the kernel clean up.
 */
void lctl_volume_close(struct lctl_volume *vol, bool fini);

const char *lctl_volume_name(const struct lctl_volume *vol);
/** lctl_volume_dht_name() - the distribute translator's name ("vol-dht"). */
const char *lctl_volume_dht_name(const struct lctl_volume *vol);
/** lctl_volume_type() - "Distribute", "Distributed-Replicate", "Distributed-Disperse", ... */
const char *lctl_volume_type(const struct lctl_volume *vol);
/** lctl_volume_server() - "host:port" of the volfile server that answered. */
const char *lctl_volume_server(const struct lctl_volume *vol);
size_t lctl_volume_nsubvols(const struct lctl_volume *vol);
/** lctl_volume_subvol() - subvolume @i in DHT's order (the volfile's subvolumes line). */
const struct lctl_subvol *lctl_volume_subvol(const struct lctl_volume *vol, size_t i);
/** lctl_volume_subvol_index() - index of the subvolume named @name, or -1. */
int lctl_volume_subvol_index(const struct lctl_volume *vol, const char *name);
const struct lctl_dht_options *lctl_volume_dht_options(const struct lctl_volume *vol);
/** lctl_volume_volfile() - the parsed client volfile of @vol (credentials scrubbed). Borrowed. */
const struct lctl_volfile *lctl_volume_volfile(const struct lctl_volume *vol);
/**
 * lctl_volume_path_check() - a path inside a volume as every entry point takes it (command
 * line, journal, a pool worker's scope): absolute, without a "." or ".." component.
 * Return: 0 if so, -1 if not.
 */
int lctl_volume_path_check(const char *path);
/** lctl_volume_nservers() - the servers holding the volume's bricks, in brick order. */
size_t lctl_volume_nservers(const struct lctl_volume *vol);
const struct lctl_server *lctl_volume_server_at(const struct lctl_volume *vol, size_t i);
/**
 * lctl_volume_owns() - whether this server moves the data of @path (a path in the volume)
 * held by subvolume @sv. Each data file has one mover in a pool: the server of one brick of
 * its subvolume, picked by a hash of the path among the subvolume's bricks (so the replicas
 * of a replica set share the work, as GlusterFS's rebalance does). Every host picks alike.
 */
bool lctl_volume_owns(const struct lctl_volume *vol, size_t sv, const char *path);
/** lctl_volume_mover() - the server (index) that moves @path held by subvolume @sv. */
size_t lctl_volume_mover(const struct lctl_volume *vol, size_t sv, const char *path);
/**
 * lctl_volume_commit_hash() - the volume commit hash: the value on the brick roots when they
 * all agree, 0 when absent everywhere. @consistent (optional) is set false when they differ.
 */
uint32_t lctl_volume_commit_hash(const struct lctl_volume *vol, bool *consistent);
/**
 * lctl_volume_reread_commit() - read the volume commit hash on the subvolume roots again (a
 * run of ours changed it: a drain's next pass). Not while anything else uses @vol.
 */
void lctl_volume_reread_commit(struct lctl_volume *vol);

/* ------------------------------------------------------------------------------------------ */
/* Scan: per-directory verdicts from every subvolume's own view (read-only)                    */
/* ------------------------------------------------------------------------------------------ */

/* What is wrong with a directory; a directory can have several (a bit set). */
enum lctl_dir_problem {
	LCTL_DIR_MISSING = 1 << 0,	  /* absent on an up subvolume */
	LCTL_DIR_NOT_DIR = 1 << 1,	  /* a non-directory by that name on some subvolume */
	LCTL_DIR_INCOMPLETE = 1 << 2,	  /* an active subvolume has no range (0-0 or no xattr) */
	LCTL_DIR_HOLE = 1 << 3,		  /* part of the hash ring is not covered */
	LCTL_DIR_OVERLAP = 1 << 4,	  /* part of the hash ring is covered twice */
	LCTL_DIR_COMMIT_MIXED = 1 << 5,	  /* subvolumes disagree on the commit word */
	LCTL_DIR_UNSTAMPED = 1 << 6,	  /* commit word is not the volume hash: misses fan out */
	LCTL_DIR_DECOMMISSIONED = 1 << 7, /* a range on a decommissioned subvolume */
	LCTL_DIR_MALFORMED = 1 << 8,	  /* a layout xattr that does not decode */
	LCTL_DIR_SUBVOL_DOWN = 1 << 9,	  /* a subvolume could not be read */
	LCTL_DIR_UNREADABLE = 1 << 10,	  /* an I/O error while reading it */
	LCTL_DIR_PROBLEM_COUNT = 11,
};
/* Facts that are not problems. */
enum lctl_dir_note {
	LCTL_DIR_NOTE_USER_LAYOUT = 1 << 0, /* a type-1 (user-set) layout: left alone */
};

/** lctl_dir_problem_name() - "missing", "hole", ... for one bit; NULL if unknown. */
const char *lctl_dir_problem_name(unsigned bit);

enum lctl_entry_state {
	LCTL_ENTRY_PLACED = 0,	  /* data on its hashed subvolume */
	LCTL_ENTRY_LINKED,	  /* data elsewhere, reached through a correct linkto */
	LCTL_ENTRY_MISPLACED,	  /* data elsewhere, no linkto on the hashed subvolume */
	LCTL_ENTRY_STALE_LINKTO,  /* a linkto pointing where the data is not, or at another gfid */
	LCTL_ENTRY_ORPHAN_LINKTO, /* a linkto with no data file anywhere */
	LCTL_ENTRY_DUPLICATE,	  /* data files on two or more subvolumes */
	LCTL_ENTRY_MIGRATION_LEFTOVER, /* phase-1 mode bits of an interrupted migration */
	LCTL_ENTRY_UNHASHED,	       /* no hashed subvolume: the layout has a hole there */
	LCTL_ENTRY_STATE_COUNT,
};

/** lctl_entry_state_name() - "placed", "linked", "misplaced", ...; NULL if unknown. */
const char *lctl_entry_state_name(int state);
/** lctl_entry_state_ok() - placed and linked entries are reachable by name. */
bool lctl_entry_state_ok(int state);

/* One entry (file, symlink, special file) of a directory that is not simply placed. */
struct lctl_entry_report {
	char *name;
	enum lctl_entry_state state;
	int hashed;	   /* hashed subvolume under the current layout, -1 if none */
	int cached;	   /* the one subvolume with the data, -1 if none or several */
	int linkto_subvol; /* where a linkto sits (the hashed one if any), -1 if none */
	int linkto_target; /* the subvolume that linkto names, -1 if unknown */
	int target;	   /* where a fix would put the data (planned layout), -1 if unknown */
	uint64_t size;
	mode_t mode;
	nlink_t nlink;
	uint64_t ino; /* a hard-linked file's gfid digest (all its names share it), 0 unknown */
};

struct lctl_dir_report {
	char *path;
	unsigned depth;
	unsigned problems; /* enum lctl_dir_problem bits */
	unsigned notes;	   /* enum lctl_dir_note bits */
	int err;	   /* errno of a failure that stopped the inspection, or 0 */
	size_t nsubvols;
	struct lctl_layout_entry *layout; /* [nsubvols], as read from each subvolume */
	struct lctl_range *planned;	  /* [nsubvols], the layout a fix would write */
	bool layout_changes;		  /* planned != current ranges */
	double moved_fraction;		  /* share of the ring changing owner under planned */
	uint32_t commit;		  /* the commit word, if all agree */
	uint64_t nfiles;		  /* non-directory entries (each name once) */
	uint64_t nsubdirs;
	uint64_t bytes; /* data bytes (each data file once) */
	uint64_t count[LCTL_ENTRY_STATE_COUNT];
	uint64_t *subvol_files;		   /* [nsubvols] data files found there */
	uint64_t *subvol_bytes;		   /* [nsubvols] */
	uint64_t *move_files;		   /* [nsubvols * nsubvols], [src * n + dst] */
	uint64_t *move_bytes;		   /* [nsubvols * nsubvols] */
	struct lctl_entry_report *entries; /* entries not placed (and placed ones if asked) */
	size_t nentries;
};

/** lctl_dir_report_clean() - no directory problem and every entry reachable by name. */
bool lctl_dir_report_clean(const struct lctl_dir_report *r);
void lctl_dir_report_free(struct lctl_dir_report *r);

enum lctl_planner {
	LCTL_PLANNER_GLUSTER = 0, /* GlusterFS's own assignment */
	LCTL_PLANNER_MINMOVE,	  /* keep as much of each current range as possible */
};

struct lctl_scan_opts {
	const char *path;	   /* subtree to scan; NULL = "/" */
	int max_depth;		   /* -1 = unlimited; 0 = only the subtree's top directory */
	unsigned parallel;	   /* worker threads; 0 = a default for the machine */
	enum lctl_planner planner; /* what a fix would do, for the work estimate */
	bool all_entries;	   /* report placed entries too (explain, tests) */
};

struct lctl_scan_summary {
	uint64_t dirs, dirs_clean, files, bytes;
	uint64_t dir_problem[LCTL_DIR_PROBLEM_COUNT]; /* directories with each problem bit */
	uint64_t dirs_user_layout;
	uint64_t entry[LCTL_ENTRY_STATE_COUNT];
	uint64_t dirs_optimized;  /* misses answered by one LOOKUP */
	uint64_t files_optimized; /* files in those directories */
	size_t nsubvols;
	uint64_t *subvol_files, *subvol_bytes; /* [nsubvols] */
	double *subvol_hash_share;	       /* [nsubvols] mean share of the ring now */
	double *subvol_target_share;	       /* [nsubvols] mean share under the planned layout */
	uint64_t *move_files, *move_bytes;     /* [nsubvols * nsubvols] */
	uint32_t volume_commit;
	bool lookup_optimize;
	bool interrupted;
};

/* ---- the locks of a run that writes (lock.c) ------------------------------------------- */

struct lctl_lock;

/**
 * lctl_volume_lock() - take the locks a fix takes (flock(@state_dir/lock) against runs of this
 * host, the volume lock against all others; @break_lock as for a fix), to hold them across
 * several runs: a drain holds them from its first pass through the remove-brick and the fix
 * after it (lctl_fix_opts.lock). When the first subvolume is leaving (lctl_subvol.leaving),
 * the first one that stays holds the volume lock too: runs look there once it is removed.
 * Return: 0 and *@out, or -LCTL_EBUSY (held by another run), another -LCTL_E*.
 */
int lctl_volume_lock(struct lctl_volume *vol, const char *state_dir, bool break_lock,
		     struct lctl_lock **out, struct lctl_error *err);
/** lctl_lock_held() - the volume lock still holds what we wrote (read again, not cached). */
bool lctl_lock_held(struct lctl_lock *l);
/**
 * lctl_lock_removed() - the leaving subvolumes are removed from the volume: a volume lock on
 * one of them (the first subvolume's) guards nothing any more; the one on the first that
 * stayed goes on alone.
 */
void lctl_lock_removed(struct lctl_lock *l);
/**
 * lctl_drain_unmark() - the drain's bricks are removed: the mark that refused every fix while
 * it stood goes (lock.c; a fix's first run of a drain writes it).
 */
void lctl_drain_unmark(struct lctl_volume *vol);
/** lctl_lock_free() - release the locks (the volume lock only while it is still ours). */
void lctl_lock_free(struct lctl_lock *l);

/* A copy of a running job's counters for a progress line or the dashboard. */
/* ---- a fix spread over the pool (pool.c) -------------------------------------------------- */

#define LCTL_POOL_MAX 32 /* servers in one spread run */

/* How to start the worker of one server: a command whose stdin/stdout carry the protocol. */
struct lctl_worker_spec {
	const char *server; /* its name in reports */
	/* argv[0]: an absolute path, or a name looked up in the system's directories (/usr/sbin,
	 * /usr/bin, /sbin, /bin), never in the caller's PATH (lib/run.c) */
	char *const *argv;
};

/* ---- the command line that starts each server's worker (workerline.c) ------------------- */

/* What the workers are told, besides what the volume's topology says. */
struct lctl_worker_line_opts {
	const char *volume;
	const char *state_dir;	/* the run's: each worker's is STATE_DIR/server-HOST */
	const char *rsh;	/* the remote shell, split at spaces (NULL: "ssh") */
	const char *remote_cmd; /* layoutctl on the other servers (NULL: "layoutctl") */
	/* this host's worker: the volfile servers and glusterd directory this run was given */
	const char *const *servers;
	size_t nservers;
	const char *glusterd_dir;
	unsigned parallel;		     /* 0 = LCTL_FIX_DEFAULT_PARALLEL */
	unsigned migrations;		     /* 0 = the worker's default */
	double files_per_sec, bytes_per_sec; /* 0 = unlimited */
	unsigned hang_timeout_s;
	bool gfapi_only; /* --brick-reads gfapi */
};

/* The servers of a volume and its subvolumes (whose bricks name their server), as
 * lctl_volume_server_at() and lctl_volume_subvol() give them. */
struct lctl_pool_topology {
	const struct lctl_server *servers;
	size_t nservers;
	const struct lctl_subvol *subvols;
	size_t nsubvols;
};

/* One worker spec per server, in server order (lctl_fix_opts.workers), and their storage. */
struct lctl_worker_lines {
	struct lctl_worker_spec *spec;
	size_t n;
	char ***argv; /* owned: spec[i].argv */
};

/**
 * lctl_shell_quote() - @s as one word of a POSIX shell's command line: in single quotes, each
 * single quote as '\''; every other byte (newline, $, `, a leading '-') stands as it is.
 * Return: allocated, or NULL (out of memory).
 */
char *lctl_shell_quote(const char *s);
/**
 * lctl_worker_lines_build() - the command line of every server's worker of @vol (see
 * workerline.c): this host's run directly, every other's through the remote shell, each word
 * after the host quoted for the shell on the other side (lctl_shell_quote()).
 * lctl_worker_lines_from(): the same from a topology. Return: 0 and *@out (free it with
 * lctl_worker_lines_free()), or -LCTL_ENOMEM.
 */
int lctl_worker_lines_build(const struct lctl_volume *vol, const struct lctl_worker_line_opts *o,
			    struct lctl_worker_lines *out, struct lctl_error *err);
int lctl_worker_lines_from(const struct lctl_pool_topology *topo,
			   const struct lctl_worker_line_opts *o, struct lctl_worker_lines *out,
			   struct lctl_error *err);
void lctl_worker_lines_free(struct lctl_worker_lines *wl);

/*
 * struct lctl_pace - the pace of a run, changed while it runs: @set says which of the others
 * hold (LCTL_PACE_*). @files_per_sec and @bytes_per_sec 0: unlimited.
 */
struct lctl_pace {
	unsigned set;
	double files_per_sec;
	double bytes_per_sec;
	unsigned migrations; /* 1-LCTL_FIX_MAX_MIGRATIONS */
};
#define LCTL_PACE_RATE 1u
#define LCTL_PACE_BANDWIDTH 2u
#define LCTL_PACE_MIGRATIONS 4u
#define LCTL_PACE_RATE_MAX 1e6	     /* files a second */
#define LCTL_PACE_BANDWIDTH_MAX 1e12 /* bytes a second */

/*
 * The worker protocol (lib/poolwire.c: both ends' codec, one parser): lines of printable
 * ASCII ending in '\n', at most LCTL_POOL_LINE_MAX bytes with it, words separated by one
 * space, strings as one escaped word (lctl_escape_word_to()), numbers in decimal digits
 * only, at most LCTL_POOL_NUM_MAX. Anything else is a protocol error, never reinterpreted.
 *
 *   worker -> starting host:  hello PROTO NODE | progress D M S F B | done D M S F B CODE |
 *                             error MESSAGE
 *   starting host -> worker:  go FORCE PLANNER SCOPE | pause | resume | stop
 */
#define LCTL_POOL_PROTO 3 /* 3: the pace message */
#define LCTL_POOL_LINE_MAX (4 * 4096 + 64)
#define LCTL_POOL_NUM_MAX (1ULL << 52)

enum lctl_pool_kind {
	LCTL_PM_HELLO,
	LCTL_PM_PROGRESS,
	LCTL_PM_DONE,
	LCTL_PM_ERROR,
	LCTL_PM_GO,
	LCTL_PM_PAUSE,
	LCTL_PM_RESUME,
	LCTL_PM_STOP,
	LCTL_PM_PACE,
};

struct lctl_pool_msg {
	enum lctl_pool_kind kind;
	unsigned proto; /* hello */
	char node[128]; /* hello: the --node the worker was given */
	uint64_t dirs, migrated, skipped, failed, bytes; /* progress, done */
	unsigned code;	       /* done: the worker's exit status (0-255) */
	bool force_move;       /* go */
	int planner;	       /* go: enum lctl_planner */
	char text[4096];       /* go: the scope; error: the message */
	struct lctl_pace pace; /* pace: all three fields, set */
};

/**
 * lctl_pool_msg_format() - @m as one protocol line, '\n' included, into @buf.
 * Return: its length, or -1 when it does not fit @size or LCTL_POOL_LINE_MAX.
 */
int lctl_pool_msg_format(const struct lctl_pool_msg *m, char *buf, size_t size);

/**
 * lctl_pool_msg_parse() - the line @line (@len bytes, without its '\n') as a message.
 * Return: 0, or -1 for anything that is not exactly one of the messages above.
 */
int lctl_pool_msg_parse(const char *line, size_t len, struct lctl_pool_msg *m);

/* The reading end of a protocol link: what came in, cut into lines. */
struct lctl_pool_reader {
	char buf[LCTL_POOL_LINE_MAX];
	size_t len;
	bool eof;
};

/**
 * lctl_pool_read() - read what @fd has now (one read(); @fd may be non-blocking) into @r.
 * Return: the bytes read, 0 at end of file (r->eof), -EAGAIN nothing yet, else -errno.
 */
long lctl_pool_read(struct lctl_pool_reader *r, int fd);

/**
 * lctl_pool_next() - the next whole line of @r as a message.
 * Return: 1 (in @m), 0 (no whole line yet), -1 a protocol error (a line too long, a NUL,
 * a byte outside printable ASCII, not a message; an incomplete line at end of file).
 */
int lctl_pool_next(struct lctl_pool_reader *r, struct lctl_pool_msg *m);

/* One server's share of a spread fix, as its worker reports it. */
struct lctl_server_progress {
	char name[128];
	char state[16]; /* starting, ready, placing, done, stopped, failed, lost */
	uint64_t dirs, migrated, skipped, failed, bytes;
	double seconds;	 /* time spent placing so far */
	char error[200]; /* the worker's last error, printable ASCII */
};

struct lctl_progress {
	uint64_t dirs_seen, dirs_done, files, bytes;
	uint64_t dirs_not_clean;
	uint64_t file_actions[5]; /* fix: live count per enum lctl_file_action */
	uint64_t bytes_moved;	  /* fix: live */
	unsigned workers, active_workers;
	bool paused;
	/* fix: the pace now (lctl_fix_set_pace()): files and bytes a second (0: no limit), and
	 * migrations at a time from or to one subvolume */
	double rate_limit, bandwidth_limit;
	unsigned migrations;
	/* fix: held while a subvolume is gone (lctl_fix_opts.hold_limit_s): for how long, why */
	bool held;
	double held_seconds;
	char held_why[200];
	double elapsed;		   /* seconds */
	char worker_state[64][96]; /* what each worker is doing */
	/*
	 * fix: preflight (the pool's workers are starting), layout (the layout pass: dirs_*
	 * count it), settle, place (pool workers), work, top, data
	 */
	const char *phase;
	/* fix: the settle period of this run (0: none), and the seconds left of it */
	double settle_seconds, settle_left;
	/* fix --mode clean-first: directories found or made clean so far (first phase), the
	 * seconds after the start at which all were (0: not yet, or before this run), since when
	 * all are (seconds since the epoch; 0: not yet, or not known), data phase directories
	 * placed */
	bool two_phase;
	uint64_t dirs_clean;
	double clean_at;
	time_t clean_since;
	uint64_t data_placed;
	unsigned nservers; /* fix spread over the pool: one row per server */
	struct lctl_server_progress servers[LCTL_POOL_MAX];
};

struct lctl_scan;

/**
 * lctl_scan_start() - start a parallel read-only scan of @vol.
 * @vol: an open volume with subvolume graphs; borrowed, must outlive the scan.
 * Return: 0 and *@out (free with lctl_scan_free()), or a negative LCTL_E* code.
 */
int lctl_scan_start(struct lctl_volume *vol, const struct lctl_scan_opts *opts,
		    struct lctl_scan **out, struct lctl_error *err);
/**
 * lctl_scan_next() - the next directory's report (caller owns it), waiting up to @timeout_ms.
 * NULL on timeout or at the end; *@finished says the end. Also adds the report to the summary.
 * Call from one thread only.
 */
struct lctl_dir_report *lctl_scan_next(struct lctl_scan *s, int timeout_ms, bool *finished);
/** lctl_scan_summary() - the totals so far. Borrowed; valid until lctl_scan_free(). */
const struct lctl_scan_summary *lctl_scan_summary(struct lctl_scan *s);
void lctl_scan_progress(struct lctl_scan *s, struct lctl_progress *p);
void lctl_scan_cancel(struct lctl_scan *s);
void lctl_scan_pause(struct lctl_scan *s, bool pause);
int lctl_scan_set_workers(struct lctl_scan *s, unsigned n);
void lctl_scan_free(struct lctl_scan *s);

/**
 * lctl_inspect_dir() - inspect one directory on every subvolume (what a scan does per
 * directory), for explain and repair. Children are not visited.
 * Return: 0 and *@out (caller owns it), or a negative code if @path cannot be inspected.
 */
int lctl_inspect_dir(struct lctl_volume *vol, const char *path, enum lctl_planner planner,
		     bool all_entries, struct lctl_dir_report **out, struct lctl_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Fix: make directories dirty, rewrite layouts, place entries, verify, stamp clean            */
/* ------------------------------------------------------------------------------------------ */

enum lctl_fix_mode {
	LCTL_FIX_MIGRATE = 0, /* move misplaced data with DHT's own migration */
	LCTL_FIX_LINKTO,      /* move nothing: a correct linkto on the hashed subvolume */
	/*
	 * Two phases: first every directory as for LCTL_FIX_LINKTO (stamped clean, every file
	 * reachable through a linkto), then the data moved behind those linktos with DHT's own
	 * migration while the directories stay clean (lctl_fix_phase).
	 */
	LCTL_FIX_CLEAN_FIRST,
};

/** lctl_fix_mode_name() - "migrate", "linkto", "clean-first"; or NULL. */
const char *lctl_fix_mode_name(int mode);
/** lctl_fix_mode_parse() - the mode named @s. Return: 0, or -LCTL_EINVAL. */
int lctl_fix_mode_parse(const char *s, enum lctl_fix_mode *mode);

/* Which part of a LCTL_FIX_CLEAN_FIRST run to do. */
enum lctl_fix_phase {
	LCTL_FIX_PHASE_ALL = 0, /* clean every directory, then move the data */
	LCTL_FIX_PHASE_CLEAN,	/* only the first: the journal then waits in phase "data" */
	LCTL_FIX_PHASE_DATA,	/* only the second, in directories already clean */
};

/*
 * Migration runs inside our DHT client and is bound by the bricks' CPU and disks; measured
 * here (2 cores, 6 bricks), more than a few workers made it slower.
 */
#define LCTL_FIX_DEFAULT_PARALLEL 4
#define LCTL_FIX_MAX_MIGRATIONS 8

struct lctl_fix_opts {
	const char *path;  /* subtree; NULL = the whole volume */
	unsigned parallel; /* 0 = LCTL_FIX_DEFAULT_PARALLEL */
	/*
	 * Migrations at a time from or to one subvolume, 1-LCTL_FIX_MAX_MIGRATIONS; 0 = 1. More
	 * than one pays where the network is the limit (slots.c).
	 */
	unsigned migrations;
	enum lctl_planner planner;
	enum lctl_fix_mode mode;
	enum lctl_fix_phase phase; /* LCTL_FIX_CLEAN_FIRST only */
	bool dry_run;		   /* plan only: writes nothing, takes no lock */
	unsigned settle_ms;	   /* wait after making directories dirty */
	/*
	 * A worker in a directory with no sign of life for this long (a GlusterFS call that
	 * does not return: GlusterFS 10.3's DHT can loop for ever in a lookup that meets a file
	 * another client is creating) stops the run: lctl_fix_next() ends it once the other
	 * workers are done, lctl_fix_end() fails with -LCTL_EIO and lctl_fix_hung() is true.
	 * 0 = wait for ever.
	 */
	unsigned hang_timeout_s;
	double files_per_sec; /* 0 = unlimited */
	double bytes_per_sec; /* 0 = unlimited */
	time_t deadline;      /* stop cleanly at this time (0 = none) */
	/*
	 * Set (by a signal handler, say) to stop: read during lctl_fix_start() too, so that a
	 * stop in the layout pass or the settle period ends the run before anything moves.
	 */
	const volatile sig_atomic_t *stop_flag;
	const char *state_dir; /* journal and lock; required unless dry_run */
	bool resume;	       /* continue the journal's run */
	bool break_lock;       /* take over a volume lock held by a dead run elsewhere */
	/*
	 * Both locks held by the caller (lctl_volume_lock(), a drain's, with the same state
	 * directory): the run takes neither, checks they are still its, and releases neither.
	 */
	struct lctl_lock *lock;
	/*
	 * Ask DHT to migrate with "force" (as "gluster volume rebalance VOL start force"): it
	 * then moves a file even when the target would be left with less free space, in whole
	 * percent, than the source. cluster.min-free-disk still holds. Kept in the journal.
	 */
	bool force_move;
	/*
	 * A run spread over the pool: before anything moves, every server's worker is started
	 * and must answer (else the run refuses); after the dirty and layout phase each moves the
	 * files whose data its own bricks hold; then this host verifies and stamps, moving only
	 * its own files (lctl_volume_owns()). Not kept in the journal: a resumed run is given the
	 * workers again.
	 */
	const struct lctl_worker_spec *workers; /* [i]: server i (lctl_volume_server_at()) */
	size_t nworkers;
	/*
	 * A pool worker's run (layoutctl worker): migrate this server's share of every directory
	 * of @path, nothing else (no lock, journal, layout, verify or stamp; those are the
	 * starting host's). @state_dir holds only the kept modes.
	 */
	bool place_only;
	/*
	 * A subvolume that stops answering in the middle of the run (not every one: a stopped
	 * volume, or this host cut off, stops the run as before) holds it: each worker waits
	 * before its next directory, and a directory that went wrong while one was gone is done
	 * again once it is back (lctl_progress.held says why meanwhile). Held longer than this
	 * many seconds, the run stops, resumable (lctl_fix_summary.held_out). 0: no hold, such a
	 * directory is left not fixed and the run goes on.
	 */
	unsigned hold_limit_s;
};

enum lctl_file_action {
	LCTL_FILE_MIGRATED = 0,
	LCTL_FILE_LINKED,	  /* a linkto now leads to it */
	LCTL_FILE_SKIPPED,	  /* left where it is (reason says why), still reachable */
	LCTL_FILE_FAILED,	  /* err says why; the directory stays dirty */
	LCTL_FILE_LINKTO_REMOVED, /* a stale or orphan linkto was removed */
	LCTL_FILE_ACTION_COUNT,
};

const char *lctl_file_action_name(int action);

struct lctl_file_outcome {
	char *name;
	enum lctl_file_action action;
	int err;	    /* errno for failed and skipped */
	const char *reason; /* static text, or NULL */
	int from, to;	    /* subvolumes, -1 if not applicable */
	uint64_t size;
	/* the file's hard links and gfid digest (0 unknown): its names are one file */
	nlink_t nlink;
	uint64_t ino;
};

enum lctl_dir_outcome {
	LCTL_DIR_WAS_CLEAN = 0, /* nothing to do */
	LCTL_DIR_FIXED,		/* verified and stamped */
	LCTL_DIR_NOT_FIXED,	/* left dirty; reason says why */
	LCTL_DIR_LEFT_ALONE,	/* user-set layout */
	LCTL_DIR_PLANNED,	/* dry run */
	LCTL_DIR_STOPPED,	/* the run stopped before this directory was finished */
	LCTL_DIR_PLACED,	/* a pool worker moved its share; the starting host verifies */
	LCTL_DIR_OUTCOME_COUNT,
};

const char *lctl_dir_outcome_name(int outcome);

struct lctl_repair_report {
	char *path;
	enum lctl_dir_outcome outcome;
	char reason[200];
	struct lctl_dir_report *plan; /* the inspection the work was based on (moves, layout) */
	struct lctl_file_outcome *files;
	size_t nfiles;
	uint64_t count[LCTL_FILE_ACTION_COUNT];
	uint64_t bytes_moved;
	/*
	 * A report of the data phase of a LCTL_FIX_CLEAN_FIRST run: @outcome is
	 * LCTL_DIR_FIXED when the directory is clean and its data placed (files DHT will not
	 * move, hard links say, stay linked and are counted as skipped).
	 */
	bool data_phase;
};

void lctl_repair_report_free(struct lctl_repair_report *r);

/* Skipped files of one reason (lctl_file_outcome.reason, static text; "" for none). */
#define LCTL_FIX_SKIP_REASONS 8
struct lctl_skip_count {
	const char *reason; /* NULL: an unused slot */
	uint64_t files;
};

struct lctl_fix_summary {
	uint64_t dirs, dir_outcome[LCTL_DIR_OUTCOME_COUNT];
	/*
	 * Per enum lctl_file_action: @files counts each file once (the names of a hard-linked
	 * file are one file), @names each name it was done to; a name counts once per action in
	 * a directory, however many rounds or phases met it.
	 */
	uint64_t files[LCTL_FILE_ACTION_COUNT];
	uint64_t names[LCTL_FILE_ACTION_COUNT];
	uint64_t bytes_moved;
	uint64_t planned_files, planned_bytes; /* dry run: what would move */
	uint32_t commit;		       /* the hash directories are stamped with */
	enum lctl_fix_mode mode;	       /* the run's (the journal's when resumed) */
	/* LCTL_FIX_CLEAN_FIRST: the directory counts above are the first phase's */
	bool two_phase;
	bool data_ran;			 /* the data phase started */
	uint64_t data_dirs, data_placed; /* data phase: directories seen, placed */
	uint64_t repaired_later;	 /* of those the first phase left not clean,
						 * how many the data phase repaired */
	double clean_at;		 /* seconds after the start at which every
						 * directory was clean; 0: not in this run */
	time_t clean_since;		 /* since when every directory is clean (this
						 * run or the one it resumed); 0: not known */
	bool stopped;			 /* cancelled or out of time: resumable */
	bool held_out;			 /* stopped: held past lctl_fix_opts.hold_limit_s */
	bool deadline_hit;
	bool refused; /* ended before anything was written (a server's
						 * worker did not answer, or a stop came first) */
	/*
	 * The moves every directory's plan made (its first visit: the data phase of a
	 * clean-first run sees it again), summed: [src * nsubvols + dst].
	 */
	size_t nsubvols;
	uint64_t *move_files, *move_bytes;
	/* The files skipped, by reason: the first LCTL_FIX_SKIP_REASONS reasons met, the rest */
	struct lctl_skip_count skipped[LCTL_FIX_SKIP_REASONS];
	uint64_t skipped_other;
};

struct lctl_fix;

/**
 * lctl_fix_start() - check the volume, take the locks and start the run; returns at once
 * after that (it does not wait for anything). lctl_fix_next() then drives every phase: the
 * pool's workers answering (phase preflight; nothing is written before all did), the journal
 * and the dirty phase (new volume commit hash, or commit word 1 on every directory of a
 * subtree: phase layout), the settle period (phase settle), then the walks.
 * Return: 0 and *@out; -LCTL_EDOWN (a subvolume is down), -LCTL_EBUSY (locked, or a
 * remove-brick is running), -LCTL_ECORRUPT (journal), -LCTL_EINVAL, -LCTL_EIO, -LCTL_EPERM.
 */
int lctl_fix_start(struct lctl_volume *vol, const struct lctl_fix_opts *opts, struct lctl_fix **out,
		   struct lctl_error *err);
/**
 * lctl_fix_next() - the next directory's report (caller owns it); the top directory last.
 * Waits at most about @timeout_ms, in every phase. A phase that cannot go on (a server's
 * worker fails to answer, the journal cannot be written) ends the run: *@finished, and
 * lctl_fix_end() returns the error.
 */
struct lctl_repair_report *lctl_fix_next(struct lctl_fix *f, int timeout_ms, bool *finished);
const struct lctl_fix_summary *lctl_fix_summary(struct lctl_fix *f);
void lctl_fix_progress(struct lctl_fix *f, struct lctl_progress *p);
/** lctl_fix_cancel() - stop after the directories in progress; the run stays resumable. */
void lctl_fix_cancel(struct lctl_fix *f);
void lctl_fix_pause(struct lctl_fix *f, bool pause);
int lctl_fix_set_workers(struct lctl_fix *f, unsigned n);

/** lctl_pace_check() - 0 when every field @p->set names is in range, else -LCTL_EINVAL. */
int lctl_pace_check(const struct lctl_pace *p);
/**
 * lctl_fix_set_pace() - take the fields @p->set names from now on, in this process and (a run
 * spread over the pool) in every server's worker. Return: 0 or -LCTL_EINVAL.
 */
int lctl_fix_set_pace(struct lctl_fix *f, const struct lctl_pace *p);
/**
 * lctl_fix_end() - write the journal's final state and release the locks.
 * Return: 0 when every directory is clean, 1 when some are not (or the run stopped), or the
 * negative code (and @err) of a phase that could not go on.
 */
int lctl_fix_end(struct lctl_fix *f, struct lctl_error *err);
/*
 * The run was stopped because a worker hung (lctl_fix_opts.hang_timeout_s): its thread is
 * still inside GlusterFS, so lctl_fix_free() leaves what it may touch alone, and the caller
 * must not close the volume: it should exit the process once its output is written.
 */
bool lctl_fix_hung(const struct lctl_fix *f);
void lctl_fix_free(struct lctl_fix *f);

/* ------------------------------------------------------------------------------------------ */
/* Drain: what is left on the subvolumes being emptied (lib/drain.c)                           */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_DRAIN_SAMPLES 8

/**
 * struct lctl_drain_left - what lctl_drain_check() found on the leaving subvolumes.
 * @nsubvols: leaving subvolumes walked (lctl_subvol.leaving).
 * @bricks_read: their bricks on this host read directly (as well as through the subvolume).
 * @bricks_gfapi: the bricks of their replica or disperse sets read each through a graph of
 *	its own (not on this host, or not read directly), as well as through the set.
 * @entries: entries that are not directories (data, linkto, symlinks, anything) left there,
 *	outside GlusterFS's internal folders at the root (.glusterfs*, .trashcan).
 * @bytes: the size of the regular files among them.
 * @samples: "WHERE:PATH" of the first @nsamples, WHERE a subvolume or a brick.
 * @err: non-zero when some folder could not be read (@err_path says which): then the walk
 *	proves nothing, and a remove-brick must not be run.
 */
struct lctl_drain_left {
	size_t nsubvols, bricks_read, bricks_gfapi;
	uint64_t entries, bytes;
	uint64_t brick_entries; /* the same, counted on the bricks read by their own view */
	char *samples[LCTL_DRAIN_SAMPLES];
	size_t nsamples;
	int err;
	char err_path[512];
};

/**
 * lctl_drain_check() - walk every leaving subvolume of @vol (its own graph, and each of its
 * bricks by its own view: on this host directly, else, for a replica or disperse set, through
 * the brick's own graph) for anything but directories. A brick that cannot be read sets @err.
 * Return: 0 with @out filled (release it with lctl_drain_left_release()); -LCTL_EINVAL when
 * no subvolume is leaving. Not thread safe on one @out.
 */
int lctl_drain_check(struct lctl_volume *vol, struct lctl_drain_left *out, struct lctl_error *err);
void lctl_drain_left_release(struct lctl_drain_left *l);

/**
 * lctl_min_free_bytes() - what DHT keeps free on a subvolume of @size bytes by the volume's
 * cluster.min-free-disk @opt (NULL: the default, "10%"), read as GlusterFS 10.3 reads it: a
 * number, with "%" or with a size unit (KB, MB, GB, TB, PB: powers of 1024); a value below 100
 * is a percentage of @size whichever way it was written, any other a number of bytes (so "50"
 * is 50 % and "100%" 100 bytes). Something else counts as the default. Pure.
 */
uint64_t lctl_min_free_bytes(const char *opt, uint64_t size);

/* ---- a drain, from the space check to the fix after the remove-brick (drainjob.c) ---------- */

/* fix runs of one drain at most (the first, and resumed ones while directories are left) */
#define LCTL_DRAIN_MAX_PASSES 5

/*
 * How a drain, or one fix run of it, ended; the caller's exit statuses, one each: done
 * (drained, removed with commit), something left or not fixed (or stopped: resumable), a
 * usage error, could not run, interrupted.
 */
enum lctl_drain_status {
	LCTL_DRAIN_DONE = 0,
	LCTL_DRAIN_PROBLEMS,
	LCTL_DRAIN_USAGE,
	LCTL_DRAIN_CANTRUN,
	LCTL_DRAIN_INTERRUPTED,
};

/**
 * struct lctl_drain_space - the space check before a drain writes anything: what is on the
 * leaving subvolumes must fit on the others above their cluster.min-free-disk (DHT's
 * migration refuses to cross it).
 * @bytes, @entries: what lctl_drain_check() found on the leaving subvolumes.
 * @room: the free bytes above cluster.min-free-disk, summed over the staying subvolumes.
 * @subvol_room: [@nsubvols] each subvolume's share of @room (0 for a leaving one).
 * @min_free_disk: the volume's cluster.min-free-disk as set (NULL: the default, 10%).
 * @err, @err_path: a folder of the leaving subvolumes could not be read: what it holds is not
 *	counted, @bytes says too little, and the check proves nothing.
 * @fits: @bytes fit into @room (and nothing was left unread).
 */
struct lctl_drain_space {
	uint64_t bytes, entries, room;
	size_t nsubvols;
	uint64_t *subvol_room;
	const char *min_free_disk;
	int err;
	char err_path[512];
	bool fits;
};

/**
 * lctl_drain_space() - the space check of @vol's leaving subvolumes (reads them all).
 * Return: 0 with @out filled (release it with lctl_drain_space_release()), or -LCTL_E*.
 */
int lctl_drain_space(struct lctl_volume *vol, struct lctl_drain_space *out, struct lctl_error *err);
void lctl_drain_space_release(struct lctl_drain_space *s);

/* What a drain reports while it runs (lctl_drain_job.event); the caller words and shows it. */
enum lctl_drain_event_kind {
	LCTL_DRAIN_EV_SPACE,	     /* @space: the space check (before it decides) */
	LCTL_DRAIN_EV_SPACE_UNKNOWN, /* @path, @err: a leaving folder unread: space unknown */
	LCTL_DRAIN_EV_NO_ROOM,	     /* @space: more to move than the others have room for */
	LCTL_DRAIN_EV_LOCK,	     /* @msg: the locks could not be taken */
	LCTL_DRAIN_EV_FAILED,	     /* @msg: a library call failed (lctl_error.msg) */
	LCTL_DRAIN_EV_PASS,	     /* @count directories left: pass @pass after @seconds */
	LCTL_DRAIN_EV_UNREADABLE,    /* @when, @path, @err: whether they are empty is unknown */
	LCTL_DRAIN_EV_LEFT,	     /* @when, @left: entries are still on them */
	LCTL_DRAIN_EV_EMPTY,	     /* @when, @left: nothing but directories on them */
	LCTL_DRAIN_EV_DRAINED,	     /* @bricks: drained; with commit the remove-brick is next */
	LCTL_DRAIN_EV_NO_GLUSTER,    /* no gluster CLI to remove the bricks with */
	LCTL_DRAIN_EV_BAD_BRICK,     /* @path: a brick name the CLI could take for another */
	LCTL_DRAIN_EV_TASKS,	     /* @tasks (enum lctl_gluster_idle), @gluster: task check */
	LCTL_DRAIN_EV_LOCK_LOST,     /* the volume lock is no longer this drain's */
	LCTL_DRAIN_EV_REMOVE_FAILED, /* @msg: glusterd's answer (one line) or what went wrong */
	LCTL_DRAIN_EV_REMOVED,	     /* @bricks: removed */
	LCTL_DRAIN_EV_STILL_SERVED,  /* glusterd still serves the volume with the removed bricks */
	LCTL_DRAIN_EV_SCAN_FAILED,   /* @msg: the scan after the remove could not start */
	LCTL_DRAIN_EV_AFTER_SCAN,    /* @count directories after the remove, @count2 clean */
};

struct lctl_drain_event {
	enum lctl_drain_event_kind kind;
	const struct lctl_drain_space *space;
	const struct lctl_drain_left *left;
	const char *when; /* "after the drain", "before the remove-brick" */
	const char *msg;
	const char *path;
	int err;
	uint64_t count, count2;
	int pass;
	unsigned seconds;
	const char *const *bricks; /* "HOST:/PATH" of the leaving subvolumes */
	size_t nbricks;
	int tasks;
	const char *gluster;
};

/* How one fix run of a drain ended (lctl_drain_job.run). */
struct lctl_drain_pass {
	int status;	    /* enum lctl_drain_status */
	uint64_t not_fixed; /* directories not fixed or stopped */
	uint64_t failed;    /* files failed */
	bool stopped;	    /* stopped (--until, a stop): resumable */
};

/**
 * struct lctl_drain_job - a drain of @vol's leaving subvolumes (lctl_subvol.leaving): the
 * space check, fix runs with the leaving subvolumes decommissioned (again for directories a
 * client changed meanwhile, at most LCTL_DRAIN_MAX_PASSES), the check that nothing but
 * directories is left, and with @commit the remove-brick and a fix of the new membership.
 * @fix: the options of each fix run (dry_run: one run, no lock, no remove); the job sets
 *	resume for the passes after the first, the lock it holds, and for the fix after the
 *	remove a fresh clean-first min-move run. @fix.stop_flag stops the job too.
 * @commit: run the remove-brick once the bricks are empty.
 * @task_check: ask glusterd whether a rebalance or remove-brick runs before the remove.
 * @run: one fix run of @vol with @o (@after_remove: the fix of the new membership); fills @out.
 * @reopen: open the volume again (after the remove); returns an enum lctl_drain_status.
 * @event: what to tell the user (may be NULL).
 */
struct lctl_drain_job {
	struct lctl_fix_opts fix;
	bool commit;
	bool task_check;
	void (*run)(void *arg, struct lctl_volume *vol, const struct lctl_fix_opts *o,
		    bool after_remove, struct lctl_drain_pass *out);
	int (*reopen)(void *arg, struct lctl_volume **out);
	void (*event)(void *arg, const struct lctl_drain_event *ev);
	void *arg;
};

/**
 * lctl_drain_run() - the drain @job of @vol, the volume lock held (not in a dry run) from
 * before the first fix run through the remove-brick and the fix after it. Without @commit a
 * drained volume ends with LCTL_DRAIN_EV_DRAINED and the status of the last run (directories
 * a client kept changing are left dirty, which is safe).
 * Return: an enum lctl_drain_status.
 */
int lctl_drain_run(struct lctl_volume *vol, const struct lctl_drain_job *job);

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

/* ------------------------------------------------------------------------------------------ */
/* State directory and named output files, opened safely for root (lib/statedir.c)             */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every state file (journal, lock, kept modes, progress.json, control, the default outcome
 * log) goes through these. The directory, opened anew by each call, must belong to the
 * effective user and be writable by nobody else, must not be a symbolic link, and every
 * directory above it must be root's or ours and writable by nobody else unless sticky (a
 * symbolic link above it is followed only if root or we own it). A file is opened with
 * O_NOFOLLOW | O_NONBLOCK and must be a regular file with one link. Refusals are one-line
 * messages: -LCTL_EPERM (a directory or file others control), -LCTL_ECORRUPT (a symbolic
 * link, FIFO, device, hard link or oversized file where a state file should be: "move it
 * away"), -LCTL_EINVAL with sys_errno ENOENT (absent). Thread safe.
 */

/** lctl_state_dir_prepare() - create @dir (0700, missing parents 0755) or check it; writable. */
int lctl_state_dir_prepare(const char *dir, struct lctl_error *err);

enum lctl_state_flags {
	LCTL_STATE_CREATE = 1 << 0, /* read-write, created 0600 if absent; must be ours */
	LCTL_STATE_APPEND = 1 << 1, /* as CREATE, with O_APPEND */
};

/**
 * lctl_state_open() - open @name in @dir: read-only (@flags 0) or as @flags say.
 * Return: a descriptor (O_CLOEXEC, O_NONBLOCK) owned by the caller, or a negative LCTL_E*.
 */
int lctl_state_open(const char *dir, const char *name, unsigned flags, struct lctl_error *err);
/**
 * lctl_state_read() - read all of @name into @buf, NUL-terminated; a file of @size bytes or
 * more is refused (-LCTL_ECORRUPT). Return: the length, or a negative LCTL_E*.
 */
ssize_t lctl_state_read(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err);
/**
 * lctl_state_write() - replace @name by @len bytes atomically: a fresh ".NAME.tmp" (O_EXCL),
 * renamed over it; with @sync, the file and the directory are fsync'd (a crash leaves the old
 * or the new file). Return: 0 or a negative LCTL_E*.
 */
int lctl_state_write(const char *dir, const char *name, const void *buf, size_t len, bool sync,
		     struct lctl_error *err);
/**
 * lctl_state_take() - take @name: rename it to ".NAME.taken", read it (as lctl_state_read),
 * remove it. Something written under @name meanwhile stays for the next take.
 * Return: the length (0 when absent), or a negative LCTL_E* (the file is removed anyway).
 */
ssize_t lctl_state_take(const char *dir, const char *name, char *buf, size_t size,
			struct lctl_error *err);
/** lctl_state_remove() - remove @name from @dir (absent is fine). 0 or a negative LCTL_E*. */
int lctl_state_remove(const char *dir, const char *name, struct lctl_error *err);

enum lctl_output_flags {
	LCTL_OUTPUT_READ = 1 << 0, /* read-write (a FIFO is still opened write-only) */
};

/**
 * lctl_output_open() - open @path, a file an administrator named for us to append to (a log),
 * as root may: the directories on its way (the current one too, for a relative @path) pass
 * the rules above a state directory, a symbolic link as its last name is followed only if
 * root or we own it, and it is created 0600 if absent. Accepted: a regular file of ours with
 * at most one link (made 0600), a character device, a FIFO of root's or ours or an unnamed
 * pipe (/dev/stderr). Nothing blocks: a FIFO nobody reads is refused.
 * Return: a descriptor (O_APPEND, O_CLOEXEC; O_NONBLOCK only on a device) owned by the
 * caller, or a negative LCTL_E* with a one-line message naming @path. Thread safe.
 */
int lctl_output_open(const char *path, unsigned flags, struct lctl_error *err);
/**
 * lctl_output_replace() - replace @path, a file an administrator named for us to publish (a
 * metrics file), by @len bytes: written to a fresh ".NAME.tmp" beside it (the old temporary
 * removed first, then O_CREAT | O_EXCL | O_NOFOLLOW), made @mode, fsync'd and renamed over
 * the name, so that a reader sees the old file or the new one and a link there is replaced,
 * never written through. The directories above the file's pass the rules above a state
 * directory; the file's own may be anyone's and writable by others (a textfile directory
 * shared with an exporter's user): nothing in it is followed or opened but our temporary.
 * Return: 0 or a negative LCTL_E* with a one-line message naming @path. Thread safe.
 */
int lctl_output_replace(const char *path, const void *buf, size_t len, unsigned mode,
			struct lctl_error *err);

/* ------------------------------------------------------------------------------------------ */
/* A run's published status (STATE_DIR/progress.json), lib/progressfile.c                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * A running job builds one status object a second (lctl_status_build()), writes it as
 * STATE_DIR/progress.json (lctl_status_write()); `layoutctl status` and `top` read it back
 * (lctl_status_read()), and the dashboard draws such objects, from this process or the file.
 * The object is a json-c object (json-c is lib's one format library): its strings are raw
 * (a path as the volume gave it); the file holds them escaped (lctl_json_escape_tree()) and
 * lctl_status_read() gives them back raw, so every sink escapes them once.
 */
struct json_object;

#define LCTL_STATUS_FILE "progress.json"
#define LCTL_STATUS_MAX (1 << 20) /* a progress.json this big or bigger is refused */
#define LCTL_RATE_SAMPLES 128

/* Samples for rates over the last 10 s and 60 s, and the ETA. Zero it to start. */
struct lctl_rate_tracker {
	double t[LCTL_RATE_SAMPLES];
	double dirs[LCTL_RATE_SAMPLES], files[LCTL_RATE_SAMPLES], bytes[LCTL_RATE_SAMPLES];
	unsigned head, n;
	double last;
};

/* What the front end knows of the run and the progress snapshot does not say. */
struct lctl_status_info {
	const char *command; /* "fix", "drain", "scan" */
	const char *volume;
	const char *path;
	const char *mode, *layout;
	const char *state; /* running, paused, stopping, finished, stopped, failed */
	const char *phase;
	bool dry_run;
	time_t started;
	int exit_code;	  /* -1 while running */
	const char *step; /* preflight: what the front end is doing (NULL: none) */
};

/* Per-subvolume data share now and under the planned layout, summed from the reports. */
struct lctl_share_tracker {
	size_t n;
	const char **names;  /* borrowed from the volume */
	double *bytes_now;   /* data bytes believed on each subvolume */
	double *target_ring; /* summed planned ring share over directories */
	uint64_t dirs;
	bool first_pass; /* reports of a clean-first run's first pass seen */
};

/* The last LCTL_ERROR_RING errors of a run, for the dashboard. Zero it to start. */
#define LCTL_ERROR_RING 8
struct lctl_error_ring {
	char msg[LCTL_ERROR_RING][200];
	unsigned next, n;
};

/** lctl_rate_sample() - add a sample at @now (seconds); one per half second is kept. */
void lctl_rate_sample(struct lctl_rate_tracker *rt, double now, uint64_t dirs, uint64_t files,
		      uint64_t bytes);
/** lctl_error_ring_add() - add a message (truncated to 199 bytes), the oldest dropped. */
void lctl_error_ring_add(struct lctl_error_ring *er, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/**
 * lctl_share_init() - a tracker for @vol's subvolumes (their names borrowed from @vol).
 * Return: 0, or -LCTL_ENOMEM with an empty tracker (no rows). Release it either way.
 */
int lctl_share_init(struct lctl_share_tracker *st, const struct lctl_volume *vol);
void lctl_share_release(struct lctl_share_tracker *st);
/** lctl_share_add() - count a directory's report: its bytes, planned ranges and moves. */
void lctl_share_add(struct lctl_share_tracker *st, const struct lctl_repair_report *rr);

/**
 * lctl_status_build() - the status object of a run: @si, @p and, when given, @sum (a fix's
 * outcomes), @rt (rates, ETA), @st (subvolume shares), @er (recent errors). Keys: see
 * lib/progressfile.c. Its strings are raw.
 * Return: a new object the caller owns (json_object_put()), or NULL without memory.
 */
struct json_object *
lctl_status_build(const struct lctl_status_info *si, const struct lctl_progress *p,
		  const struct lctl_fix_summary *sum, const struct lctl_rate_tracker *rt,
		  const struct lctl_share_tracker *st, const struct lctl_error_ring *er);
/** lctl_status_servers_json() - the "servers" array of a fix spread over the pool. Owned. */
struct json_object *lctl_status_servers_json(const struct lctl_progress *p);
/**
 * lctl_status_serialize() - @status as the bytes of a progress.json: one line of JSON, every
 * string escaped, and a newline. @status itself is not changed.
 * Return: a malloc'ed NUL-terminated string the caller frees, or NULL without memory.
 */
char *lctl_status_serialize(struct json_object *status);
/**
 * lctl_status_parse() - the status object in @len bytes of a progress.json, its strings raw
 * again. Refused (-LCTL_ECORRUPT): LCTL_STATUS_MAX bytes or more, a NUL byte, anything but
 * one JSON object and white space (a truncated file, a second document after it).
 * @name: the file's name for the message. Return: a new object the caller owns, or NULL.
 */
struct json_object *lctl_status_parse(const char *buf, size_t len, const char *name,
				      struct lctl_error *err);
/**
 * lctl_status_write() - replace DIR/progress.json by @status (lctl_state_write(): a fresh
 * temporary renamed over it, mode 0600). Return: 0 or a negative LCTL_E*.
 */
int lctl_status_write(const char *dir, struct json_object *status, struct lctl_error *err);
/**
 * lctl_status_read() - read DIR/progress.json (lctl_state_read(): never a FIFO, a device, a
 * link, nor LCTL_STATUS_MAX bytes or more) and parse it (lctl_status_parse()).
 * Return: a new object the caller owns, or NULL with @err (-LCTL_EINVAL with sys_errno
 * ENOENT when absent).
 */
struct json_object *lctl_status_read(const char *dir, struct lctl_error *err);
/* The member of the status object @o at the dotted @path ("directories.done"; each key under
 * 64 bytes), borrowed from @o; NULL when absent. */
struct json_object *lctl_status_get(struct json_object *o, const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Prometheus text exposition: scan --format prometheus, fix --metrics-file, lib/metricsfile.c */
/* ------------------------------------------------------------------------------------------ */

/*
 * The one writer of the exposition format (node_exporter's textfile collector reads it): a
 * family is its "# HELP" and "# TYPE" lines, then its samples; a label value is escaped as
 * every string is (lib/escape.c: no control byte, no newline, valid UTF-8), then backslash
 * and double quote take the format's own backslash.
 */
struct lctl_prom;

/** lctl_prom_new() - an empty exposition; NULL without memory. Free it (lctl_prom_free()). */
struct lctl_prom *lctl_prom_new(void);
/** lctl_prom_family() - start the family @name: its HELP (@help, ASCII) and TYPE lines. */
void lctl_prom_family(struct lctl_prom *m, const char *name, const char *type, const char *help);
/**
 * lctl_prom_sample() - one sample of @name: @labels, pairs of a label name and its raw value
 * ended by a NULL name (NULL: no labels), then the value printed by @fmt.
 */
void lctl_prom_sample(struct lctl_prom *m, const char *name, const char *const *labels,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** lctl_prom_text() - the text so far, borrowed from @m; NULL if an append ran out of memory. */
const char *lctl_prom_text(const struct lctl_prom *m);
void lctl_prom_free(struct lctl_prom *m);
/** lctl_prom_label_dup() - @s as a label value (the quotes not included); NULL without memory. */
char *lctl_prom_label_dup(const char *s);

/* The metrics of a fix or drain run (fix --metrics-file): what the progress does not say. */
struct lctl_metrics_info {
	const char *command; /* "fix", "drain" */
	const char *volume;
	const char *host;    /* the server of a run not spread over the pool: this host */
	bool running;	     /* false once the run ended */
	const char *phase;   /* the progress's phase, or "done" */
	time_t started;	     /* seconds since the epoch */
	time_t updated;	     /* when this text was made */
	int exit_code;	     /* the run's exit status; -1 while it runs */
	time_t last_success; /* the last run of this volume that ended with exit 0; 0: unknown */
	/* lctl_metrics_note(): when the counters last grew, and their sum then */
	time_t last_progress;
	uint64_t last_sum;
};

/**
 * lctl_metrics_note() - note @p at @now: when any counter of it grew since the last call,
 * @mi->last_progress becomes @now (the first call starts it).
 */
void lctl_metrics_note(struct lctl_metrics_info *mi, const struct lctl_progress *p, time_t now);
/**
 * lctl_metrics_render() - the metrics of a run: per server (each of the pool's when the run is
 * spread over it, else @mi->host with the run's totals) files moved and failed, bytes moved,
 * directories done (counters); the run's phase, running, start, update, last progress, last
 * success and exit code (gauges), every family prefixed layoutctl_fix_ and labelled with
 * the volume. Families: see lib/metricsfile.c.
 * Return: a malloc'ed NUL-terminated text the caller frees, or NULL without memory.
 */
char *lctl_metrics_render(const struct lctl_metrics_info *mi, const struct lctl_progress *p);
/**
 * lctl_metrics_write() - replace the file @path (absolute) by @text, as
 * lctl_output_replace() does: mode 0644, so that node_exporter can read it.
 * Return: 0 or a negative LCTL_E* with a one-line message.
 */
int lctl_metrics_write(const char *path, const char *text, struct lctl_error *err);

/* ------------------------------------------------------------------------------------------ */
/* The control file (STATE_DIR/control): `top` to a running fix, lib/controlfile.c            */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_CONTROL_FILE "control"
#define LCTL_CONTROL_MAX 64 /* a control file this big or bigger is dropped unread */

/*
 * One word a line: "pause", "resume", "stop", "workers N" (N from 1 to 64), or "pace" and one
 * or more of rate=FILES_PER_SEC, bandwidth=BYTES_PER_SEC (plain decimal numbers, 0: no
 * limit) and migrations=N, each once (struct lctl_pace).
 */
enum lctl_control {
	LCTL_CONTROL_NONE,
	LCTL_CONTROL_PAUSE,
	LCTL_CONTROL_RESUME,
	LCTL_CONTROL_STOP,
	LCTL_CONTROL_WORKERS,
	LCTL_CONTROL_PACE,
};

/* What comes with a control word: the workers of "workers N", the pace of "pace ...". */
struct lctl_control_arg {
	int workers;
	struct lctl_pace pace;
};

/**
 * lctl_control_send() - write @cmd (with @arg for LCTL_CONTROL_WORKERS and
 * LCTL_CONTROL_PACE; else it may be NULL) as DIR/control (lctl_state_write()).
 * Return: 0 or a negative LCTL_E* (-LCTL_EINVAL: no such command, or out of range).
 */
int lctl_control_send(const char *dir, enum lctl_control cmd, const struct lctl_control_arg *arg,
		      struct lctl_error *err);
/**
 * lctl_control_parse() - the command in @len bytes: one word, its arguments, white space
 * after them; LCTL_CONTROL_NONE for anything else (an unknown word or key, a NUL, a number
 * out of range, a key twice, more after the last). @arg is filled for WORKERS and PACE.
 */
enum lctl_control lctl_control_parse(const char *buf, size_t len, struct lctl_control_arg *arg);
/**
 * lctl_control_take() - take a pending command (lctl_state_take(): renamed away, read,
 * removed; one sent meanwhile waits for the next take). A FIFO, a link or anything but a
 * small regular file is dropped unread. Return: the command, LCTL_CONTROL_NONE when none.
 */
enum lctl_control lctl_control_take(const char *dir, struct lctl_control_arg *arg);

/* ------------------------------------------------------------------------------------------ */
/* The outcome log: one JSON line per file a fix or a pool worker acted on, lib/outcomelog.c  */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_OUTCOME_LOG "outcomes.jsonl"

/**
 * lctl_outcome_log_open() - open the outcome log to append to: DIR/outcomes.jsonl when
 * @state_dir is given (lctl_state_open(), made 0600), else the --log @path
 * (lctl_output_open()). A last line left torn (a full disk, a kill) is ended first.
 * Return: a descriptor (O_APPEND) the caller closes, or a negative LCTL_E* with a one-line
 * message.
 */
int lctl_outcome_log_open(const char *state_dir, const char *path, struct lctl_error *err);
/**
 * lctl_outcome_line() - the log's line for the outcome @o in the directory @dir at @t: one
 * JSON object (time, path, outcome, reason, errno, error, from, to, size), every string
 * escaped, ended by a newline. @from, @to: the subvolumes' names or NULL.
 * Return: a malloc'ed string the caller frees, or NULL without memory.
 */
char *lctl_outcome_line(const char *dir, const struct lctl_file_outcome *o, const char *from,
			const char *to, time_t t);
/**
 * lctl_outcome_log_append() - append one line per file of @rr to @fd, each with one write(2)
 * (a run killed at any moment leaves whole lines). Nothing when @fd < 0.
 * Return: 0, or -LCTL_EIO when a line could not be written whole (the others are tried).
 */
int lctl_outcome_log_append(int fd, const struct lctl_volume *vol,
			    const struct lctl_repair_report *rr);

#ifdef __cplusplus
}
#endif
#endif /* LAYOUTCTL_H */
