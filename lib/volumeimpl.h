/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The volume handle and the steps of its opening that its files share: volume.c (connection,
 * volfile, opening and closing, the accessors, inode forgetting), topology.c (subvolumes,
 * bricks, servers and DHT's options from the volfile), glusterdstore.c (what glusterd's store
 * on this host says: the volume id, which bricks are this server's), subgraphs.c (the
 * per-subvolume and per-brick gfapi graphs). Private to those files.
 */
#ifndef LCTL_VOLUMEIMPL_H
#define LCTL_VOLUMEIMPL_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

#define INODE_LRU_LIMIT 1024

struct lctl_volume {
	char *name;
	char *server;  /* "host:port" that answered */
	char *volfile; /* only until it is parsed: it holds the brick credentials */
	size_t volfile_len;
	struct lctl_volfile vf;
	const struct lctl_xlator *dht; /* borrowed from vf */
	glfs_t *fs;
	bool itable_known; /* fs's inode table looked as expected (shrink_inode_cache()) */
	struct lctl_subvol *subvols;
	glfs_t **subfs; /* per-subvolume graphs, NULL where it failed */
	glfs_t ***brickfs; /* per subvolume: a graph per brick of a leaving set (open_brick_graphs()) */
	bool brick_health; /* and of every replica or disperse set (lctl_open_opts.brick_health) */
	bool no_glusterd;  /* lctl_open_opts.no_glusterd */
	/* with brick_health: the volfile text (credentials included) of each brick whose graph
	 * could not be built, until lctl_volume_brick_reopen() builds it; zeroed when freed */
	char ***brick_text;
	char *log_file; /* lctl_open_opts's, for a graph built later */
	int log_level;
	size_t nsubvols;
	struct lctl_dht_options opts;
	const char *type;
	bool have_volume_id; /* glusterd on this host knows the volume: its id */
	unsigned char volume_id[16];
	char *glusterd_dir;
	struct lctl_server *servers; /* distinct brick servers, in brick order */
	size_t nservers;
	uint64_t *usage; /* [nsubvols] the volume's bytes on each (lctl_volume_measure_usage()) */
};

/* topology.c: the subvolumes, their bricks and DHT's options, from the parsed volfile */
int volume_build_topology(struct lctl_volume *vol, struct lctl_error *err);

/* glusterdstore.c */
/* The volume's id from glusterd's record of it on this host (vols/NAME/info: volume-id=UUID). */
void volume_read_volume_id(struct lctl_volume *vol);
/*
 * Which server holds each brick, and which bricks are this server's: from glusterd's own
 * store where it is here (peer UUIDs), by name and address otherwise; --node overrides.
 */
int volume_identify_servers(struct lctl_volume *vol, const struct lctl_open_opts *opts);
/* A pure distribute subvolume's brick folder to read directly, when it is this host's. */
void volume_find_local_brick(struct lctl_volume *vol, struct lctl_subvol *sv);

/* volume.c */
/* Return: whether the table was 10.x's and got @limit. */
bool volume_shrink_inode_cache(glfs_t *fs, uint32_t limit);
/* The volume commit hash on the root of subvolume @sv (graph @fs), into @sv. */
void volume_read_root_commit(struct lctl_subvol *sv, glfs_t *fs);

/* subgraphs.c: a gfapi graph per subvolume (and per brick of a leaving set) */
int volume_open_subvol_graphs(struct lctl_volume *vol, const struct lctl_open_opts *opts);

#endif
