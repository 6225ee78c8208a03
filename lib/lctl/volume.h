/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: a volume: connection, topology, per-subvolume access.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_VOLUME_H
#define LAYOUTCTL_VOLUME_H

#include "base.h"

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
	 * A graph per brick of every replica or disperse set (its protocol/client alone), for a
	 * fix run's health probe (health.c): whether each brick answers and how many entries its
	 * index of pending heals holds. A distribute subvolume's brick is its subvolume's graph.
	 */
	bool brick_health;
	/*
	 * With brick_health: never ask glusterd about a brick whose graph cannot be built (a pool
	 * worker: the host that started the run asks; health.c).
	 */
	bool no_glusterd;
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
	uint64_t free_inodes_pct; /* statfs f_ffree * 100 / f_files (integers), 100 if unknown */
	uint64_t inodes_total;	  /* statfs f_files, 0 if unknown */
	uint64_t inodes_free;	  /* statfs f_ffree (as DHT reads it) */
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
	char *min_free_inodes;	 /* "5%" default: a percentage (lctl_min_free_inodes()) */
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

#endif /* LAYOUTCTL_VOLUME_H */
