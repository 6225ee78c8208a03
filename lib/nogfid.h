/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl, internal: the run's gfid-less marks (lib/nogfid.c). A directory that has no
 * gfid on a subvolume is never read there through gfapi: a path lookup would assign it one.
 */
#ifndef LCTL_NOGFID_H
#define LCTL_NOGFID_H

#include "layoutctl.h"

#include <stdbool.h>
#include <stddef.h>

struct lctl_nogfid_marks;

/* The run's gfid-less marks: NULL without memory. */
struct lctl_nogfid_marks *lctl_nogfid_new(void);
/* Remember that @path has no gfid on @subvol (best effort: without memory it is looked up). */
void lctl_nogfid_mark(struct lctl_nogfid_marks *m, const char *path, size_t subvol);
/* Was @path marked gfid-less on @subvol? */
bool lctl_nogfid_marked(struct lctl_nogfid_marks *m, const char *path, size_t subvol);
void lctl_nogfid_release(struct lctl_nogfid_marks *m);

/*
 * Before a walk of @vol that starts below the root at @path: on each subvolume where @path or
 * one of its ancestors has no gfid (found by listing each ancestor there), mark @path in @m not
 * to be read, as a path lookup would assign gfids on the way. 0 or -LCTL_EINVAL (path too long).
 */
int lctl_nogfid_guard_start(struct lctl_nogfid_marks *m, struct lctl_volume *vol, const char *path);

#endif
