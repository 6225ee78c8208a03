/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Repair of one directory (repair.c and its rooms: repairsteps.h names them). Internal to lib/. */
#ifndef LCTL_REPAIR_H
#define LCTL_REPAIR_H

#include "repairctx.h"
#include "migrate.h"

/**
 * lctl_repair_dir() - run the fix protocol on one directory.
 * @initial: an inspection of @path made just before, or NULL; always consumed.
 * Return: 0 and *@out (caller owns it), or a negative code when nothing could be done.
 */
int lctl_repair_dir(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		    struct lctl_dir_report *initial, struct lctl_repair_report **out);

/**
 * lctl_repair_dir_early() - lctl_repair_dir() for a linkto pass that runs while the settle
 * period does (@rc->settling): the lookups that link the directory's misplaced files from
 * their hashed subvolume are done at once, and the rest (removing linkto files, verifying,
 * stamping) waits for the end of the settle period: *@held is set and the report returned,
 * for lctl_repair_dir_held() then. A linkto more hides nothing from a client that still holds
 * the old layout (its lookups go where the data is), while the rest could. A directory with
 * nothing to link, or once the settle period is over, is repaired here (*@held false).
 */
int lctl_repair_dir_early(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			  struct lctl_dir_report *initial, struct lctl_repair_report **out,
			  bool *held);

/**
 * lctl_repair_dir_held() - the rest of a directory lctl_repair_dir_early() held, the settle
 * period over. @held (consumed) becomes the report, with the outcomes of its links.
 */
int lctl_repair_dir_held(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *held, struct lctl_repair_report **out);

/**
 * lctl_repair_data() - the data phase of a clean-first run for one directory (@rc->mode is
 * LCTL_FIX_MIGRATE): in a directory stamped with @rc->commit, migrate the entries a lookup
 * reaches through a linkto, or that our client links first, while it stays stamped. A
 * directory with an entry that cannot be handled so (a linkto naming the wrong subvolume, a
 * duplicate...), or that is not clean, is made dirty; one whose only such entries are
 * symbolic links, devices, FIFOs or sockets to move is made dirty only after its regular
 * files moved; so is one whose verify after the moves finds an entry a lookup would miss (a
 * client's create or rename through a layout it had cached). Either way *@deferred is set and
 * the report returned at once (the regular files placed where they could be, the directory
 * dirty): the caller lets the settle period pass, doing other work meanwhile, then hands it
 * to lctl_repair_specials(). The report has @data_phase set.
 * @initial: as for lctl_repair_dir().
 */
int lctl_repair_data(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		     struct lctl_dir_report *initial, struct lctl_repair_report **out,
		     bool *deferred);

/**
 * lctl_repair_specials() - the rest of a directory lctl_repair_data() deferred, its settle
 * period over: lctl_repair_dir() on it (dirty), which moves what is left (its special files)
 * and stamps it.
 * @first: the deferred report, consumed: its file outcomes are merged into *@out. Stopped
 * meanwhile, *@out is @first, stopped, the directory left dirty.
 */
int lctl_repair_specials(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *first, struct lctl_repair_report **out);

/**
 * lctl_repair_layout() - the job's layout pass for one directory: create it where it is
 * missing, write the planned layout dirty (commit 1), or mark the current one dirty.
 * @ch: receives the subdirectories (for the walk).
 * @ok: set when the directory now has its final ranges and commit 1 everywhere.
 * Return: 0, or a negative code when it could not even be inspected.
 */
int lctl_repair_layout(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		       struct lctl_inspect_children *ch, bool *ok);

#endif
