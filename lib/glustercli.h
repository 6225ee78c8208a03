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
};

/* Where the gluster CLI may be, in order (absolute paths only). */
extern const char *const lctl_gluster_paths[];
/* The first of @paths that is an executable at an absolute path, or NULL. */
const char *lctl_gluster_find(const char *const *paths);
/* Parse the CLI's `volume status VOLUME tasks --xml` answer. */
int lctl_gluster_tasks_parse(const char *xml, size_t len, bool *running);
/* Run @gluster (an absolute path) with an argument vector, read and parse its answer. */
int lctl_gluster_tasks(const char *gluster, const char *volume, bool *running);

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
	LCTL_TASKS_RUNNING,    /* a rebalance or remove-brick task runs */
};

/*
 * Whether GlusterFS's own rebalance or remove-brick runs on @volume, asked through the first
 * gluster CLI of lctl_gluster_paths (*@gluster: it, or NULL). Return: enum lctl_gluster_idle.
 */
int lctl_gluster_tasks_idle(const char *volume, const char **gluster);

#endif
