/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monotonic clock: the one every timeout, rate and elapsed time of lib/ and cmd/ reads. */
#include "layoutctl.h"

#include <time.h>

double lctl_mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
