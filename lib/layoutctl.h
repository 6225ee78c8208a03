/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: inspect and repair GlusterFS DHT directory layouts.
 *
 * The one public header of the library. The library does the work and never prints, never
 * calls exit() and never aborts on runtime errors: every fallible call returns 0 (or a count)
 * on success and a negative LCTL_E* code on failure, and fills an optional
 * struct lctl_error with the details (written only on failure, so calls can be chained).
 *
 * Thread safety: functions on distinct objects may be called from distinct threads. A
 * struct lctl_volume may be shared by all threads once opened (gfapi is thread safe); its
 * topology is immutable after lctl_volume_open().
 *
 * The umbrella: the API is written by topic in lib/lctl/ (one header each, in the order below,
 * each including the topics it needs), and cmd/ and the tests include this header only.
 */
#ifndef LAYOUTCTL_H
#define LAYOUTCTL_H

#ifdef __cplusplus
extern "C" {
#endif

#include "lctl/base.h"
/* @@DHT-MODEL-BEGIN@@ (owned by lib/hash.c, lib/layout.c, lib/plan.c, lib/minmove.c) */
#include "lctl/dht.h"
/* @@DHT-MODEL-END@@ */
#include "lctl/volfile.h"
#include "lctl/volume.h"
#include "lctl/report.h"
#include "lctl/lock.h"
#include "lctl/pool.h"
#include "lctl/scan.h"
#include "lctl/fix.h"
#include "lctl/drain.h"
#include "lctl/explain.h"
#include "lctl/statedir.h"
#include "lctl/progressfile.h"
#include "lctl/controlfile.h"
#include "lctl/outcomelog.h"

#ifdef __cplusplus
}
#endif
#endif /* LAYOUTCTL_H */
