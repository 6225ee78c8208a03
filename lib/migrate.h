/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What migrate.c offers the rest of lib/ (repair.h includes it). Internal to lib/. */
#ifndef LCTL_MIGRATE_H
#define LCTL_MIGRATE_H

#include "repairctx.h"

#include <sys/statvfs.h>

/**
 * lctl_repair_place() - a pool worker's share of one directory: migrate the misplaced and
 * linked regular files whose data this server moves (lctl_volume_owns()). No layout is written
 * and nothing is verified or stamped: the run's starting host does that once every server is
 * done, and moves the special files (symbolic links...), which need the directory dirty.
 * @initial: as for lctl_repair_dir().
 */
int lctl_repair_place(struct lctl_repair_ctx *rc, const char *path, unsigned depth,
		      struct lctl_dir_report *initial, struct lctl_repair_report **out);

/**
 * lctl_dht_balance_refuses() - DHT's free-space balance check for a migration (GlusterFS 10.3,
 * __dht_check_free_space(), the "migrate-data" value other than "force"): the whole percentage
 * of free blocks (f_bavail of f_blocks) the target has is below the source's. The file's own
 * blocks do not count, as DHT preallocates the target (conf->use_fallocate).
 * Return: true if DHT would refuse the move (the setxattr fails with EPERM).
 */
bool lctl_dht_balance_refuses(const struct statvfs *from, const struct statvfs *to);

#endif
