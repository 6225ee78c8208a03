/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parallel directory walker (see crawl.c for the design). Internal to lib/. */
#ifndef LCTL_CRAWL_H
#define LCTL_CRAWL_H

#include "layoutctl.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#define LCTL_CRAWL_MAX_WORKERS 64
#define LCTL_WORKER_STATE_LEN 96

struct lctl_crawl;
struct lctl_crawl_worker;

struct lctl_crawl_cfg {
	unsigned nworkers;
	size_t queue_cap;  /* shared directory FIFO; 0 = 4096 */
	size_t result_cap; /* result FIFO; 0 = 256 */
	/*
	 * Visit one directory, from a worker thread. Push subdirectories with lctl_crawl_push().
	 * Returns a result for the consumer, or NULL; lctl_crawl_emit() hands it more. Must not
	 * call back into the crawl otherwise.
	 */
	void *(*visit)(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth);
	/* Release a result the consumer never took (after a cancel). */
	void (*drop)(void *arg, void *result);
	void *arg;
};

struct lctl_crawl_stats {
	uint64_t dirs_seen, dirs_done;
	struct lctl_depth_counts depth; /* the same, depth by depth (the directory estimate) */
	size_t queued, pending;
	unsigned active_workers, nworkers;
	bool paused;
	char worker_state[LCTL_CRAWL_MAX_WORKERS][LCTL_WORKER_STATE_LEN];
	/*
	 * Inside the biggest directory in progress that reports it (lctl_crawl_entries()): its
	 * sightings judged and read so far, and its path; 0, 0 and "" when none does.
	 */
	uint64_t entries_done, entries_seen;
	char entries_dir[LCTL_WORKER_STATE_LEN];
};

int lctl_crawl_start(const struct lctl_crawl_cfg *cfg, const char *root, struct lctl_crawl **out,
		     struct lctl_error *err);
/* From visit(): queue a subdirectory. */
int lctl_crawl_push(struct lctl_crawl_worker *w, const char *path, unsigned depth);
/* A directory being visited, whose subdirectories go onto the walk by name. */
struct lctl_crawl_child {
	struct lctl_crawl_worker *w;
	const char *parent;
	unsigned depth; /* the parent's */
};
/* From visit(): queue @parent/@name, one deeper (@arg a struct lctl_crawl_child; the shape of
 * struct lctl_inspect_children's callback). 0 or -LCTL_E*. */
int lctl_crawl_push_child(void *arg, const char *name);
/* From visit(): a result for the consumer besides the one visit() returns (waits for room). */
void lctl_crawl_emit(struct lctl_crawl_worker *w, void *result);
unsigned lctl_crawl_worker_index(const struct lctl_crawl_worker *w);
/*
 * Consumer side: the next result, waiting up to @timeout_ms (-1 = forever). NULL on timeout
 * or at the end; *finished is true once no result will come any more.
 */
void *lctl_crawl_next(struct lctl_crawl *c, int timeout_ms, bool *finished);
void lctl_crawl_cancel(struct lctl_crawl *c);
void lctl_crawl_pause(struct lctl_crawl *c, bool pause);
int lctl_crawl_set_workers(struct lctl_crawl *c, unsigned n);
void lctl_crawl_stats(struct lctl_crawl *c, struct lctl_crawl_stats *st);
/*
 * A sign of life from the calling worker (from visit() and below, per entry or per call):
 * no-op on any other thread. A worker that starts an item gives one too.
 */
void lctl_crawl_beat(void);
/*
 * From visit() and below: progress inside the directory of the calling worker's item, a big
 * one (inspect.c reports every 1024 sightings read and after each bucket): @done of @seen.
 * Reset when the item ends; no-op on any other thread.
 */
void lctl_crawl_entries(uint64_t done, uint64_t seen);
/*
 * Workers in an item with no sign of life for @limit_ms or longer (a call into GlusterFS that
 * does not return): how many; the directory of one in @path; in *@busy, the workers in an
 * item at all.
 */
unsigned lctl_crawl_stalled(struct lctl_crawl *c, int64_t limit_ms, char *path, size_t size,
			    unsigned *busy);
/* Join the workers (cancel first to stop early) and free everything. */
void lctl_crawl_free(struct lctl_crawl *c);

#endif
