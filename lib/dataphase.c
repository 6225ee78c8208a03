/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The data phase of a clean-first run: a directory's files placed while it stays stamped,
 * where DHT keeps them reachable at every step; made dirty only for what needs it, and then
 * handed back to the protocol of repair.c once its settle period is over.
 */
#include "internal.h"

#include "inspect.h"
#include "repair.h"
#include "repairsteps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Mark @path (inspected as @r) dirty where it is stamped. Should that fail, it stays stamped,
 * and lctl_repair_dir() finds it so after the settle period and says so. Return: repair_unstamp()'s.
 */
static int make_dirty(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r)
{
	struct stat st;
	int u;

	if (!repair_copy_clean(r, rc->commit))
		return 0;
	u = repair_unstamp(rc, path, r);
	glfs_lstat(lctl_volume_fs(rc->in->vol), path, &st); /* our DHT client re-reads it */
	return u;
}

/*
 * What the data phase places: an entry that may be placed while stamped (one in place already
 * is never taken, repair_place_entries()).
 */
static bool placed_clean(const struct lctl_entry_report *e)
{
	return lctl_repair_clean_place(e) == LCTL_PLACE_CLEAN;
}

int lctl_repair_data(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		     struct lctl_dir_report *initial, struct lctl_repair_report **out,
		     bool *deferred)
{
	struct lctl_dir_report *r = initial, *v = NULL;
	struct stat st;
	struct lctl_repair_report *rr;
	double t0 = lctl_mono_seconds(), t;
	bool stay_clean;
	size_t i, s, specials = 0;
	int ret = 0;

	*out = NULL;
	*deferred = false;
	if (!r && (ret = repair_inspect(rc, path, depth, &r)))
		return ret;
	rr = repair_report_new(path);
	if (!rr) {
		lctl_dir_report_free(r);
		return -LCTL_ENOMEM;
	}
	rr->data_phase = true;
	t = repair_step_time(rr, LCTL_STEP_INSPECT, t0);
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT) {
		repair_set_reason(rr, LCTL_DIR_LEFT_ALONE, "user-set layout (type 1)");
		goto done;
	}
	if (r->nsubvols > LCTL_MAX_SUBVOLS) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "more than %d subvolumes",
				  LCTL_MAX_SUBVOLS);
		goto done;
	}
	if (r->err || (r->problems & (LCTL_DIR_SUBVOL_DOWN | LCTL_DIR_UNREADABLE))) {
		/* nothing to judge it by: it stays as it is, stamped or not, for a later run */
		if (r->problems & LCTL_DIR_SUBVOL_DOWN)
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "a subvolume is down: left as it is");
		else
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "cannot read it on every subvolume (%s): "
					  "left as it is",
					  r->err ? strerror(r->err) : "unreadable");
		goto done;
	}
	stay_clean = !r->problems && r->commit == rc->commit;
	for (i = 0; i < r->nentries && stay_clean; i++) {
		enum lctl_clean_place p = lctl_repair_clean_place(&r->entries[i]);

		stay_clean = p != LCTL_PLACE_DIRTY;
		specials += p == LCTL_PLACE_DIRTY_AFTER;
	}
	if (!stay_clean) {
		/*
		 * Dirty now, also when it was dirty already (a client may hold it as clean from
		 * before), and the caller comes back after the settle period, as below
		 */
		make_dirty(rc, path, r);
		repair_step_time(rr, LCTL_STEP_STAMP, t);
		*deferred = true;
		goto done;
	}
	/* our DHT client moves them: with the layout of the disk, not one it read before */
	if (r->nentries)
		glfs_lstat(lctl_volume_fs(rc->in->vol), path, &st);
	repair_place_entries(rc, rr, path, r, placed_clean, false, LCTL_STEP_MOVES);
	t = repair_step_time(rr, LCTL_STEP_MOVES, t);
	if (repair_stopping(rc)) {
		repair_set_reason(rr, LCTL_DIR_STOPPED,
				  "stopped before it was finished (still clean)");
		goto done;
	}
	/* verify from fresh reads: still stamped, and nothing a lookup by name would miss */
	ret = repair_inspect(rc, path, depth, &v);
	t = repair_step_time(rr, LCTL_STEP_VERIFY, t);
	if (ret)
		goto done;
	if (!repair_entries_safe(v)) {
		/*
		 * Whatever made it (a client's rename or create through a layout it had cached, a
		 * failed migration), dirty is the safe state, and only while needed: held as a
		 * directory that needs to be dirty (above), it is repaired and stamped again once
		 * its settle period is over (lctl_repair_specials())
		 */
		int u = make_dirty(rc, path, v);

		repair_step_time(rr, LCTL_STEP_STAMP, t);
		repair_log_unsafe(rc, path, v);
		if (u)
			repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
					  "stamped but unsafe: %s after moving, and "
					  "cannot be marked dirty: %s",
					  repair_unsafe_state(v), strerror(-u));
		else
			*deferred = true;
		goto done;
	}
	if (v->problems || v->err || v->commit != rc->commit) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "changed while its files moved (%s)",
				  v->err ? "cannot read it" : repair_first_problem(v->problems));
		goto done;
	}
	if (rc->mover_done && (s = repair_lost_mover(rc, path, v)) != (size_t)-1) {
		const struct lctl_server *srv = lctl_volume_server_at(rc->in->vol, s);

		repair_set_reason(rr, LCTL_DIR_NOT_FIXED,
				  "clean; files left to server %s, whose worker "
				  "did not finish",
				  srv ? srv->host : "?");
		goto done;
	}
	repair_settle_failures(rc, rr, v);
	if (rr->count[LCTL_FILE_FAILED]) {
		repair_set_reason(rr, LCTL_DIR_NOT_FIXED, "clean; %llu files could not be moved",
				  (unsigned long long)rr->count[LCTL_FILE_FAILED]);
		goto done;
	}
	for (i = 0; i < v->nentries && !repair_stopping(rc); i++) {
		if (repair_harmless_leftover(&v->entries[i]))
			repair_place_entry(rc, rr, path, &v->entries[i]);
	}
	t = repair_step_time(rr, LCTL_STEP_LINKS, t);
	if (specials && !repair_stopping(rc)) {
		/*
		 * The regular files are in place: dirty now, and the caller comes back once the
		 * settle period is over (lctl_repair_specials()), doing other work meanwhile
		 */
		make_dirty(rc, path, v);
		repair_step_time(rr, LCTL_STEP_STAMP, t);
		*deferred = true;
		goto done;
	}
	if (specials) {
		repair_set_reason(rr, LCTL_DIR_STOPPED,
				  "stopped before it was finished (still clean)");
		goto done;
	}
	rr->outcome = LCTL_DIR_FIXED;
done:
	rr->plan = r;
	lctl_dir_report_free(v);
	if (ret < 0) {
		lctl_repair_report_free(rr);
		return ret;
	}
	repair_unique_outcomes(rc, rr); /* the rounds: each name once per action */
	*out = rr;
	return 0;
}

int lctl_repair_specials(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
			 struct lctl_repair_report *first, struct lctl_repair_report **out)
{
	struct lctl_repair_report *d;
	int ret;

	*out = NULL;
	if (repair_stopping(rc)) {
		/* its regular files moved; it stays dirty (the next run moves the rest) */
		repair_set_reason(first, LCTL_DIR_STOPPED,
				  "stopped before it was finished (left dirty)");
		*out = first;
		return 0;
	}
	ret = lctl_repair_dir(rc, path, depth, NULL, &d);
	if (ret) {
		lctl_repair_report_free(first);
		return ret;
	}
	d->data_phase = true;
	repair_merge_outcomes(rc, d, first);
	*out = d;
	return 0;
}
