/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps of one directory's repair that its files share (repair.c, migrate.c, linkto.c,
 * dataphase.c, outcomes.c). Private to those files: the rest of lib/ uses repair.h.
 */
#ifndef LCTL_REPAIRSTEPS_H
#define LCTL_REPAIRSTEPS_H

#include "crawl.h"
#include "repairctx.h"

#include <sys/stat.h>

/* outcomes.c: the report */
struct lctl_repair_report *repair_report_new(const char *path);
void repair_set_reason(struct lctl_repair_report *rr, enum lctl_dir_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void repair_record_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			   const char *reason, int from, int to, uint64_t size, bool live);
void repair_add_outcome(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			const struct lctl_entry_report *e, enum lctl_file_action a, int err,
			const char *reason, int from, int to, uint64_t size);
void repair_unique_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr);
void repair_merge_outcomes(struct lctl_repair_ctx *rc, struct lctl_repair_report *to,
			   struct lctl_repair_report *from);
/* the time of a step: the seconds since @t0 added to @rr's @step (none if @rr is NULL); now */
double repair_step_time(struct lctl_repair_report *rr, enum lctl_repair_step step, double t0);

/* repair.c: inspection, verify and stamp */
int repair_inspect(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		   struct lctl_dir_report **out);
bool repair_on_leaving(const struct lctl_repair_ctx *rc, int sv);
bool repair_harmless_leftover(const struct lctl_entry_report *e);
bool repair_entries_safe(const struct lctl_dir_report *r);
bool repair_copy_clean(const struct lctl_dir_report *r, uint32_t commit);
int repair_unstamp(struct lctl_repair_ctx *rc, const char *path, const struct lctl_dir_report *r);
void repair_settle_failures(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			    const struct lctl_dir_report *v);
const char *repair_first_problem(unsigned problems);
const char *repair_unsafe_state(const struct lctl_dir_report *r);
void repair_log_unsafe(const struct lctl_repair_ctx *rc, const char *path,
		       const struct lctl_dir_report *v);
size_t repair_lost_mover(struct lctl_repair_ctx *rc, const char *dir,
			 const struct lctl_dir_report *v);

/*
 * Progress inside a big directory while its entries are placed: @done of @n (shown by status
 * and the dashboard, lctl_crawl_entries(), for a thousand entries or more).
 */
static inline void repair_entries_progress(size_t done, size_t n)
{
	if (n >= 1024 && (done == n || !(done & 63)))
		lctl_crawl_entries(done, n);
}

/* migrate.c: placing entries */
bool repair_stopping(struct lctl_repair_ctx *rc);
void repair_place_entry(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *dir,
			const struct lctl_entry_report *e);
void repair_place_entries(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			  const char *dir, const struct lctl_dir_report *r,
			  bool (*pick)(const struct lctl_entry_report *e), bool forget,
			  enum lctl_repair_step step);
void repair_link_misplaced(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr,
			   const char *dir, struct lctl_dir_report *r);

/* linkto.c: linkto surgery and copy checks */
int repair_raw_gfid(struct lctl_repair_ctx *rc, size_t sv, const char *path, unsigned char g[16],
		    struct stat *st);
int repair_remove_linkto(struct lctl_repair_ctx *rc, size_t sv, const char *path, int data_sv);
int repair_finish_copied(struct lctl_repair_ctx *rc, const char *path, int hashed, int *from);
int repair_finish_special(struct lctl_repair_ctx *rc, const char *path, int hashed, int *from);
bool repair_stale_first(struct lctl_repair_ctx *rc, struct lctl_repair_report *rr, const char *path,
			const struct lctl_entry_report *e);

#endif
