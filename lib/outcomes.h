/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outcomes of a directory's repair kept once and counted (lib/outcomes.c), for the run's
 * summary (fixsummary.c) as for the repair itself. Pure. Internal to lib/.
 */
#ifndef LCTL_OUTCOMES_H
#define LCTL_OUTCOMES_H

#include "layoutctl.h"

#include <stddef.h>
#include <stdint.h>

/**
 * lctl_outcomes_unique() - keep one outcome per name and action of @v[0..@n) (the first; the
 * others are met again by a later placing round or pass over the directory: a leftover or a
 * hard link skipped each time), in their order, freeing the names of the others. Each one
 * dropped is taken off @count and added to @dropped (per enum lctl_file_action; either may be
 * NULL). Pure. Return: how many are kept (@n without memory, when none is dropped).
 */
size_t lctl_outcomes_unique(struct lctl_file_outcome *v, size_t n, uint64_t *count,
			    uint64_t *dropped);

/* The hard-linked files a run counted, per action (lctl_outcomes_count_files()). */
struct lctl_file_set {
	uint64_t *v; /* open addressing, 0 = free */
	size_t n, cap;
};

/**
 * lctl_outcomes_count_files() - add to @files (per enum lctl_file_action) the files @rr's
 * outcomes are: each name of its own, but the names of a hard-linked file (nlink > 1, gfid
 * digest known), which count once per action over all the reports given @seen. Pure.
 */
void lctl_outcomes_count_files(const struct lctl_repair_report *rr, struct lctl_file_set *seen,
			       uint64_t *files);
void lctl_file_set_free(struct lctl_file_set *set);

#endif
