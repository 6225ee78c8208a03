/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fix's records for the document (cmd-fix.c renders them in every format): each directory's
 * report, and the run's summary.
 */
#include "cli.h"
#include "fixcli.h"
#include "output.h"

#include <stdbool.h>
#include <stdint.h>

struct json_object *fix_dir_json(const struct lctl_repair_report *rr)
{
	struct json_object *j = json_object_new_object(), *c = json_object_new_object();
	int a;

	json_object_object_add(j, "path", out_name(rr->path));
	json_object_object_add(j, "outcome",
			       json_object_new_string(lctl_dir_outcome_name(rr->outcome)));
	if (rr->data_phase)
		json_object_object_add(j, "phase", json_object_new_string("data"));
	if (rr->reason[0])
		json_object_object_add(j, "reason", json_object_new_string(rr->reason));
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		json_object_object_add(c, lctl_file_action_name(a),
				       json_object_new_int64((int64_t)rr->count[a]));
	json_object_object_add(j, "files", c);
	json_object_object_add(j, "bytes_moved", json_object_new_int64((int64_t)rr->bytes_moved));
	return j;
}

/* Seconds to the millisecond: what a reader of the summary can use, and stable in its text. */
static double round_ms(double s)
{
	return (double)(int64_t)(s * 1000.0 + 0.5) / 1000.0;
}

struct json_object *fix_summary_json(struct lctl_volume *vol, const struct lctl_fix_summary *s,
				     double elapsed, bool dry, const char *resume_cmd)
{
	struct json_object *j = json_object_new_object(), *o = json_object_new_object(), *a;
	uint64_t tf = 0, tb = 0;
	size_t i, n = s->nsubvols;
	int x;

	json_object_object_add(j, "dry_run", json_object_new_boolean(dry));
	json_object_object_add(j, "seconds", json_object_new_double(elapsed));
	json_object_object_add(j, "commit", json_object_new_int64(s->commit));
	json_object_object_add(j, "stopped", json_object_new_boolean(s->stopped));
	json_object_object_add(j, "deadline_reached", json_object_new_boolean(s->deadline_hit));
	/* only when it happened: held past --hold-limit (a subvolume did not come back) */
	if (s->held_out)
		json_object_object_add(j, "held_too_long", json_object_new_boolean(true));
	/* what finishes the run: said when it stopped, or before its data phase */
	if (!dry && (s->stopped || (s->two_phase && !s->data_ran)))
		json_object_object_add(j, "resume_command", json_object_new_string(resume_cmd));
	json_object_object_add(j, "mode", json_object_new_string(lctl_fix_mode_name(s->mode)));
	json_object_object_add(j, "directories", json_object_new_int64((int64_t)s->dirs));
	for (x = 0; x < LCTL_DIR_OUTCOME_COUNT; x++)
		json_object_object_add(o, lctl_dir_outcome_name(x),
				       json_object_new_int64((int64_t)s->dir_outcome[x]));
	json_object_object_add(j, "directory_outcomes", o);
	if (s->two_phase && !dry) {
		/* the two phases apart: when every directory was clean, and how much data moved */
		o = json_object_new_object();
		json_object_object_add(o, "clean_after_seconds",
				       s->clean_at > 0 ? json_object_new_double(s->clean_at)
						       : NULL);
		/* this run's time, or that of the run it resumed in its data phase */
		json_object_object_add(o, "clean_since",
				       s->clean_since > 0
					       ? json_object_new_int64((int64_t)s->clean_since)
					       : NULL);
		json_object_object_add(o, "data_phase_ran", json_object_new_boolean(s->data_ran));
		json_object_object_add(o, "data_directories",
				       json_object_new_int64((int64_t)s->data_dirs));
		json_object_object_add(o, "data_placed",
				       json_object_new_int64((int64_t)s->data_placed));
		json_object_object_add(o, "repaired_later",
				       json_object_new_int64((int64_t)s->repaired_later));
		json_object_object_add(j, "clean_first", o);
	}
	o = json_object_new_object();
	for (x = 0; x < LCTL_FILE_ACTION_COUNT; x++)
		json_object_object_add(o, lctl_file_action_name(x),
				       json_object_new_int64((int64_t)s->files[x]));
	json_object_object_add(j, "file_outcomes", o);
	/* the names, when a hard-linked file's made them more than the files */
	for (x = 0; x < LCTL_FILE_ACTION_COUNT && s->names[x] == s->files[x]; x++)
		;
	if (x < LCTL_FILE_ACTION_COUNT) {
		o = json_object_new_object();
		for (x = 0; x < LCTL_FILE_ACTION_COUNT; x++)
			json_object_object_add(o, lctl_file_action_name(x),
					       json_object_new_int64((int64_t)s->names[x]));
		json_object_object_add(j, "name_outcomes", o);
	}
	json_object_object_add(j, "bytes_moved", json_object_new_int64((int64_t)s->bytes_moved));
	for (i = 0; i < n * n; i++) {
		tf += s->move_files[i];
		tb += s->move_bytes[i];
	}
	json_object_object_add(j, dry ? "plan" : "planned_moves",
			       out_move_matrix(vol, n, s->move_files, s->move_bytes));
	if (dry) {
		o = json_object_new_object();
		json_object_object_add(o, "files", json_object_new_int64((int64_t)tf));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)tb));
		json_object_object_add(j, "plan_total", o);
		/* before anything moves: which subvolume the plan would take below min-free-disk */
		json_object_object_add(j, "space", out_fill(vol, n, s->move_files, s->move_bytes));
	}
	/* the reasons DHT and we gave for the files left where they are (each in the outcome log) */
	a = json_object_new_array();
	for (x = 0; x < LCTL_FIX_SKIP_REASONS && s->skipped[x].reason; x++) {
		o = json_object_new_object();
		json_object_object_add(o, "reason", json_object_new_string(s->skipped[x].reason));
		json_object_object_add(o, "files",
				       json_object_new_int64((int64_t)s->skipped[x].files));
		json_object_array_add(a, o);
	}
	json_object_object_add(j, "skipped_by_reason", a);
	json_object_object_add(j, "skipped_other_reasons",
			       json_object_new_int64((int64_t)s->skipped_other));
	/* where the time went: wall seconds per phase, this host's thread-seconds per step */
	o = json_object_new_object();
	for (x = 0; x < LCTL_RUN_COUNT; x++)
		json_object_object_add(o, lctl_run_phase_name(x),
				       json_object_new_double(round_ms(s->phase_s[x])));
	json_object_object_add(j, "phase_seconds", o);
	o = json_object_new_object();
	for (x = 0; x < LCTL_STEP_COUNT; x++)
		json_object_object_add(o, lctl_repair_step_name(x),
				       json_object_new_double(round_ms(s->step_s[x])));
	json_object_object_add(j, "step_seconds", o);
	return j;
}
