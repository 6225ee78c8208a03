/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The planners' input, shared by plan.c and minmove.c. Pure: no gfapi, no I/O. */
#ifndef LCTL_PLANINPUT_H
#define LCTL_PLANINPUT_H

#include "layoutctl.h"

/* Whether subvolume @i of @in takes part (every one when @in->active is NULL). */
static inline bool lctl_plan_is_active(const struct lctl_plan_in *in, size_t i)
{
	return !in->active || in->active[i];
}

/* Validate @in; fill slot[] (slot s -> subvolume index) in strcmp order of the names. */
int lctl_plan_check_input(const struct lctl_plan_in *in, struct lctl_range *out, size_t **slotp,
			  struct lctl_error *err);

#endif
