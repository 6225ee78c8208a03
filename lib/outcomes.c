/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of one directory's repair: the outcome of each file (migrated, linked, skipped,
 * failed, linkto removed) with its counts, kept once per name and action, merged over passes,
 * and the files a run's outcomes are, a hard-linked file once; the names of the actions and
 * directory outcomes. Pure but for the live counters (atomics) of the job.
 */
#include "internal.h"

#include "outcomes.h"
#include "repairsteps.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[LCTL_FILE_ACTION_COUNT] = {
	[LCTL_FILE_MIGRATED] = "migrated",
	[LCTL_FILE_LINKED] = "linked",
	[LCTL_FILE_SKIPPED] = "skipped",
	[LCTL_FILE_FAILED] = "failed",
	[LCTL_FILE_LINKTO_REMOVED] = "linkto-removed",
};

const char *lctl_file_action_name(int action)
{
	return action >= 0 && action < LCTL_FILE_ACTION_COUNT ? action_names[action] : NULL;
}

static const char *const outcome_names[LCTL_DIR_OUTCOME_COUNT] = {
	[LCTL_DIR_WAS_CLEAN] = "was-clean", [LCTL_DIR_FIXED] = "fixed",
	[LCTL_DIR_NOT_FIXED] = "not-fixed", [LCTL_DIR_LEFT_ALONE] = "left-alone",
	[LCTL_DIR_PLANNED] = "planned",	    [LCTL_DIR_STOPPED] = "stopped",
	[LCTL_DIR_PLACED] = "placed",
};

const char *lctl_dir_outcome_name(int outcome)
{
	return outcome >= 0 && outcome < LCTL_DIR_OUTCOME_COUNT ? outcome_names[outcome] : NULL;
}

static const char *const step_names[LCTL_STEP_COUNT] = {
	[LCTL_STEP_INSPECT] = "inspect", [LCTL_STEP_LAYOUT] = "layout", [LCTL_STEP_LINKS] = "links",
	[LCTL_STEP_MOVES] = "moves",	 [LCTL_STEP_VERIFY] = "verify", [LCTL_STEP_STAMP] = "stamp",
};

const char *lctl_repair_step_name(int step)
{
	return step >= 0 && step < LCTL_STEP_COUNT ? step_names[step] : NULL;
}

double repair_step_time(struct lctl_repair_report *rr, enum lctl_repair_step step, double t0)
{
	double now = lctl_mono_seconds();

	if (rr && now > t0)
		rr->step_s[step] += now - t0;
	return now;
}

void lctl_repair_report_free(struct lctl_repair_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].name);
	free(r->files);
	lctl_dir_report_free(r->plan);
	free(r->path);
	free(r);
}

/* Room for one more file outcome in @rr (counted once filled in), or NULL */
static struct lctl_file_outcome *outcome_slot(struct lctl_repair_report *rr)
{
	struct lctl_file_outcome *v;

	if ((rr->nfiles & (rr->nfiles - 1)) == 0) {
		v = realloc(rr->files, (rr->nfiles ? rr->nfiles * 2 : 1) * sizeof(*v));
		if (!v)
			return NULL;
		rr->files = v;
	}
	return &rr->files[rr->nfiles];
}

/* Outcome indexes ordered by name, then action, then index (the first of each pair first). */
struct outcome_order {
	const struct lctl_file_outcome *v;
	size_t i;
};

static int cmp_outcome_order(const void *a, const void *b)
{
	const struct outcome_order *x = a, *y = b;
	int c = strcmp(x->v->name, y->v->name);

	if (c)
		return c;
	if (x->v->action != y->v->action)
		return x->v->action < y->v->action ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t lctl_outcomes_unique(struct lctl_file_outcome *v, size_t n, uint64_t *count,
			    uint64_t *dropped)
{
	struct outcome_order *o;
	bool *drop;
	size_t i, k;

	if (n < 2)
		return n;
	o = malloc(n * sizeof(*o));
	drop = calloc(n, sizeof(*drop));
	if (!o || !drop) {
		free(o);
		free(drop);
		return n; /* out of memory: counted more than once, nothing lost */
	}
	for (i = 0; i < n; i++) {
		o[i].v = &v[i];
		o[i].i = i;
	}
	qsort(o, n, sizeof(*o), cmp_outcome_order);
	for (i = 1; i < n; i++)
		if (!strcmp(o[i].v->name, o[i - 1].v->name) && o[i].v->action == o[i - 1].v->action)
			drop[o[i].i] = true;
	for (i = k = 0; i < n; i++) {
		if (!drop[i]) {
			v[k++] = v[i];
			continue;
		}
		if (count && count[v[i].action])
			count[v[i].action]--;
		if (dropped)
			dropped[v[i].action]++;
		free(v[i].name);
	}
	free(o);
	free(drop);
	return k;
}

/* lctl_outcomes_unique() on @rr, the live counters too. */
void repair_unique_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr)
{
	uint64_t dropped[LCTL_FILE_ACTION_COUNT] = { 0 };
	int a;

	rr->nfiles = lctl_outcomes_unique(rr->files, rr->nfiles, rr->count, dropped);
	for (a = 0; rc->live && a < LCTL_FILE_ACTION_COUNT; a++)
		if (dropped[a])
			atomic_fetch_sub(&rc->live[a], dropped[a]);
}

/* The key of a hard-linked file and an action in a struct lctl_file_set. */
static uint64_t file_key(uint64_t ino, int action)
{
	uint64_t k = ino * 0x9e3779b97f4a7c15ULL + (uint64_t)action + 1;

	return k ? k : 1;
}

/* Add @key to @set; true if it was not there. Without memory: true (counted again). */
static bool file_set_add(struct lctl_file_set *set, uint64_t key)
{
	size_t i, mask;

	if (set->n * 2 >= set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return true;
		for (i = 0; i < set->cap; i++) {
			size_t j = (size_t)(set->v[i] >> 7) & (cap - 1);

			if (!set->v[i])
				continue;
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = set->v[i];
		}
		free(set->v);
		set->v = v;
		set->cap = cap;
	}
	mask = set->cap - 1;
	for (i = (size_t)(key >> 7) & mask; set->v[i]; i = (i + 1) & mask)
		if (set->v[i] == key)
			return false;
	set->v[i] = key;
	set->n++;
	return true;
}

void lctl_file_set_free(struct lctl_file_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

void lctl_outcomes_count_files(const struct lctl_repair_report *rr, struct lctl_file_set *seen,
			       uint64_t *files)
{
	uint64_t listed[LCTL_FILE_ACTION_COUNT] = { 0 };
	size_t i;
	int a;

	for (i = 0; i < rr->nfiles; i++) {
		const struct lctl_file_outcome *o = &rr->files[i];

		listed[o->action]++;
		if (o->nlink <= 1 || !o->ino || file_set_add(seen, file_key(o->ino, o->action)))
			files[o->action]++;
	}
	/* outcomes whose detail was lost (no memory): each its own file */
	for (a = 0; a < LCTL_FILE_ACTION_COUNT; a++)
		if (rr->count[a] > listed[a])
			files[a] += rr->count[a] - listed[a];
}

/*
 * Move the counts and file outcomes of @from (an earlier pass over the directory) into @to, and
 * free @from. A name both passes met with the same action (a hard link DHT refused twice, a
 * leftover skipped twice) counts once.
 */
void repair_merge_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *to,
			   struct lctl_repair_report *from)
{
	struct lctl_file_outcome *v;
	size_t i;

	for (i = 0; i < LCTL_FILE_ACTION_COUNT; i++)
		to->count[i] += from->count[i];
	to->bytes_moved += from->bytes_moved;
	for (i = 0; i < LCTL_STEP_COUNT; i++)
		to->step_s[i] += from->step_s[i];
	for (i = 0; i < from->nfiles; i++) {
		v = outcome_slot(to);
		if (!v)
			break; /* the counts stay right; only the detail is lost */
		*v = from->files[i];
		from->files[i].name = NULL;
		to->nfiles++;
	}
	lctl_repair_report_free(from);
	repair_unique_outcomes(rc, to);
}

/* An outcome for the entry @e in @rr; @live: count it in the live counters too (else that was done). */
void repair_record_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			   const char *reason, int from, int to, uint64_t size, bool live)
{
	struct lctl_file_outcome *v;

	if (rc->live && live)
		atomic_fetch_add(&rc->live[a], 1);
	if (rc->live_bytes && a == LCTL_FILE_MIGRATED)
		atomic_fetch_add(rc->live_bytes, size);
	rr->count[a]++;
	if (a == LCTL_FILE_MIGRATED)
		rr->bytes_moved += size;
	v = outcome_slot(rr);
	if (!v)
		return; /* the counts above stay right; only the detail is lost */
	v->name = strdup(e->name);
	if (!v->name)
		return;
	v->action = a;
	v->err = err;
	v->reason = reason;
	v->from = from;
	v->to = to;
	v->size = size;
	v->nlink = e->nlink;
	v->ino = e->ino;
	rr->nfiles++;
}

void repair_add_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			const char *reason, int from, int to, uint64_t size)
{
	repair_record_outcome(rc, rr, e, a, err, reason, from, to, size, true);
}

void repair_set_reason(struct lctl_repair_report *rr, enum lctl_dir_outcome o, const char *fmt, ...)
{
	va_list ap;

	rr->outcome = o;
	va_start(ap, fmt);
	vsnprintf(rr->reason, sizeof(rr->reason), fmt, ap);
	va_end(ap);
}

struct lctl_repair_report *repair_report_new(const char *path)
{
	struct lctl_repair_report *rr = calloc(1, sizeof(*rr));

	if (rr && !(rr->path = strdup(path))) {
		free(rr);
		rr = NULL;
	}
	return rr;
}
