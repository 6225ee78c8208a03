/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is GlusterFS's own rebalance or remove-brick running? Ask glusterd (see glustercli.c). */
#ifndef LCTL_GLUSTERCLI_H
#define LCTL_GLUSTERCLI_H

#include <stdbool.h>
#include <stddef.h>

enum {
	LCTL_GLUSTER_OK = 0,	 /* glusterd answered; *running says whether a task runs */
	LCTL_GLUSTER_NO_ANSWER,	 /* the CLI ran, but no answer from glusterd (or not one we read) */
	LCTL_GLUSTER_CANNOT_RUN, /* the CLI could not be run */
	LCTL_GLUSTER_BUSY,	 /* glusterd kept refusing: another command held its lock */
};

/*
 * An answer saying another command holds glusterd's lock on the volume or the cluster ("Another
 * transaction is in progress", EG_ANOTRANS): every question below is asked again then, after
 * a pause growing from 0.1 to 2 s, until the question's bound (LCTL_GLUSTER_BUSY after it).
 */
bool lctl_gluster_busy_parse(const char *xml, size_t len);
/* For tests: ask again while busy for at most @ms (< 0: the question's own bound, the default). */
void lctl_gluster_set_busy_wait(long ms);

/* Where the gluster CLI may be, in order (absolute paths only). */
extern const char *const lctl_gluster_paths[];
/* The first of @paths that is an executable at an absolute path, or NULL. */
const char *lctl_gluster_find(const char *const *paths);
/* Parse the CLI's `volume status VOLUME tasks --xml` answer. */
int lctl_gluster_tasks_parse(const char *xml, size_t len, bool *running);
/* Run @gluster (an absolute path) with an argument vector, read and parse its answer. */
int lctl_gluster_tasks(const char *gluster, const char *volume, bool *running);

/*
 * The bricks of a volume as glusterd sees them, `volume status VOLUME --xml` (the health probe
 * asks it for the bricks of a replica or disperse set that have no gfapi graph: a brick down
 * when the run started, health.c). @host and @path as glusterd writes them (the volfile's
 * remote-host and remote-subvolume come from the same brick record); @online: status 1.
 */
struct lctl_gluster_brick {
	char *host, *path;
	bool online;
};
#define LCTL_GLUSTER_BRICKS_MAX 65536 /* bricks read from one answer, at most */
/*
 * Parse the answer: LCTL_GLUSTER_OK with *@bricks (caller frees, lctl_gluster_bricks_free())
 * and *@n set, the bricks of the volume named @volume only (the self-heal daemon's and other
 * services' rows, whose path is not absolute, left out).
 */
int lctl_gluster_bricks_parse(const char *xml, size_t len, const char *volume,
			      struct lctl_gluster_brick **bricks, size_t *n);
/* Run @gluster (an absolute path, an argument vector; killed after 15 s) and parse its answer. */
int lctl_gluster_bricks(const char *gluster, const char *volume, struct lctl_gluster_brick **bricks,
			size_t *n);
void lctl_gluster_bricks_free(struct lctl_gluster_brick *bricks, size_t n);
/* Whether @bricks lists HOST:PATH as online: 1, offline: 0, not listed: -1. */
int lctl_gluster_brick_online(const struct lctl_gluster_brick *bricks, size_t n, const char *host,
			      const char *path);

/* @brick reads as HOST:/PATH to the gluster CLI (a volfile's names are checked before use). */
bool lctl_gluster_brick_ok(const char *brick);

/*
 * Run `gluster --mode=script volume remove-brick VOLUME BRICK... force --xml` (@gluster an
 * absolute path, an argument vector, no shell). LCTL_GLUSTER_OK when glusterd says it is done; else
 * @why holds glusterd's message (one line) or what went wrong.
 */
int lctl_gluster_remove_brick(const char *gluster, const char *volume, const char *const *bricks,
			      size_t nbricks, char *why, size_t whysize);

/* What lctl_gluster_tasks_idle() found. */
enum lctl_gluster_idle {
	LCTL_TASKS_IDLE = 0,   /* glusterd says no rebalance or remove-brick runs */
	LCTL_TASKS_NO_CLI,     /* no gluster CLI here (lctl_gluster_paths) */
	LCTL_TASKS_CANNOT_RUN, /* the CLI could not be run */
	LCTL_TASKS_NO_ANSWER,  /* glusterd did not answer (or not so that we could read it) */
	LCTL_TASKS_BUSY,       /* glusterd stayed busy with other commands (LCTL_GLUSTER_BUSY) */
	LCTL_TASKS_RUNNING,    /* a rebalance or remove-brick task runs */
};

/*
 * Whether GlusterFS's own rebalance or remove-brick runs on @volume, asked through the first
 * gluster CLI of lctl_gluster_paths (*@gluster: it, or NULL). Return: enum lctl_gluster_idle.
 */
int lctl_gluster_tasks_idle(const char *volume, const char **gluster);

/*
 * The compatibility check. GlusterFS's own rebalance, fix-layout and remove-brick refuse to
 * start while a client older than GlusterFS 3.6.0 (op-version 30600) is connected: such a
 * client can lose data while files move (glusterd-rebalance.c, glusterd-brick-ops.c; they
 * pass with "force"). layoutctl does the same, and also refuses a pool whose cluster
 * op-version is below the oldest GlusterFS it supports (the DHT formats and behaviours of
 * docs/design.md hold from GlusterFS 9 on; it is tested on 10.3). A newer cluster than the
 * newest known is allowed, with a warning.
 */
#define LCTL_CLIENT_MIN_OP_VERSION 30600u   /* GlusterFS 3.6.0 */
#define LCTL_CLUSTER_MIN_OP_VERSION 90000u  /* GlusterFS 9 */
#define LCTL_CLUSTER_MAX_OP_VERSION 110000u /* GlusterFS 11: the newest known */
#define LCTL_COMPAT_NAMED 8		    /* old clients named in a refusal, at most */

struct lctl_compat {
	unsigned op_version; /* the cluster's (cluster.op-version), 0 when not known */
	size_t nclients;     /* connected clients, counted by address (one per brick link) */
	size_t nold;	     /* of them older than LCTL_CLIENT_MIN_OP_VERSION */
	struct {
		char addr[64]; /* its address as glusterd gives it, without the port */
		unsigned op_version;
	} old[LCTL_COMPAT_NAMED];
};

enum lctl_compat_verdict {
	LCTL_COMPAT_OK = 0,
	LCTL_COMPAT_NEWER,	 /* a cluster newer than LCTL_CLUSTER_MAX_OP_VERSION: a warning */
	LCTL_COMPAT_OLD_CLUSTER, /* below LCTL_CLUSTER_MIN_OP_VERSION: refused unless forced */
	LCTL_COMPAT_OLD_CLIENTS, /* clients below LCTL_CLIENT_MIN_OP_VERSION: refused unless forced */
};

/* Parse `volume get all cluster.op-version --xml`: LCTL_GLUSTER_OK with *@op_version set. */
int lctl_gluster_opversion_parse(const char *xml, size_t len, unsigned *op_version);
/*
 * Parse `volume status VOLUME clients --xml` into @c's client counts (op_version untouched):
 * every brick's clients, one per address (the port stripped), the old ones named.
 */
int lctl_gluster_clients_parse(const char *xml, size_t len, struct lctl_compat *c);
/* Ask glusterd through @gluster (an absolute path) for both; LCTL_GLUSTER_OK when it answered. */
int lctl_gluster_compat(const char *gluster, const char *volume, struct lctl_compat *c);
/* What the check says of @c (pure): enum lctl_compat_verdict, the worst that applies. */
enum lctl_compat_verdict lctl_compat_judge(const struct lctl_compat *c);

#endif
