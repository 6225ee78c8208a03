/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is GlusterFS's own rebalance or remove-brick running? Ask glusterd (see tasks.c). */
#ifndef LCTL_TASKS_H
#define LCTL_TASKS_H

#include <stdbool.h>
#include <stddef.h>

enum {
	TASKS_OK = 0,	  /* glusterd answered; *running says whether a task runs */
	TASKS_NO_ANSWER,  /* the CLI ran, but no answer from glusterd (or not one we read) */
	TASKS_CANNOT_RUN, /* the CLI could not be run */
};

/* Where the gluster CLI may be, in order (absolute paths only). */
extern const char *const tasks_gluster_paths[];
/* The first of @paths that is an executable at an absolute path, or NULL. */
const char *tasks_find_gluster(const char *const *paths);
/* Parse the CLI's `volume status VOLUME tasks --xml` answer. */
int tasks_parse(const char *xml, size_t len, bool *running);
/* Run @gluster (an absolute path) with an argument vector, read and parse its answer. */
int tasks_check(const char *gluster, const char *volume, bool *running);

/* @brick reads as HOST:/PATH to the gluster CLI (a volfile's names are checked before use). */
bool tasks_brick_ok(const char *brick);

/*
 * Run `gluster --mode=script volume remove-brick VOLUME BRICK... force --xml` (@gluster an
 * absolute path, an argument vector, no shell). TASKS_OK when glusterd says it is done; else
 * @why holds glusterd's message (one line) or what went wrong.
 */
int tasks_remove_brick(const char *gluster, const char *volume, const char *const *bricks,
		       size_t nbricks, char *why, size_t whysize);

#endif
