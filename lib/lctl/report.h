/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a directory's report: its problems, its entries' states; scan options and totals.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_REPORT_H
#define LAYOUTCTL_REPORT_H

#include "base.h"
#include "dht.h"

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
	/*
	 * min-move, with shares sized so that each subvolume's projected fill comes out even
	 * (lctl_plan_usage_weights(), from each subvolume's statvfs and the volume's bytes on
	 * it, which the scan or fix measures first with a walk of its own)
	 */
	LCTL_PLANNER_EVEN_USAGE,
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

#endif /* LAYOUTCTL_REPORT_H */
