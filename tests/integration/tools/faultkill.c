/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultkill.so: LD_PRELOAD hook at libglusterfs's syncop_setattr(), for
 * tests/integration/drain-kill.sh. DHT migrates a symbolic link, device, FIFO or socket
 * (dht-rebalance.c, migrate_special_files()) in the process that asked for the migration: it
 * creates the copy on the destination subvolume with the source's gfid, sets its owner, mode
 * and mtime (syncop_setattr() on that subvolume's client), then unlinks the source. When that
 * setattr is sent for the volume path $FAULT_KILL_PATH to a client xlator whose name starts with
 * $FAULT_KILL_SUBVOLS (say "VOL-client-"), the process kills itself with SIGKILL: the migration
 * stops with the new copy made and the old one still there, as a killed fix or drain leaves it.
 * In that test nothing else sends a setattr of the path to a client xlator: layoutctl sets
 * nothing on a symbolic link it moves, and its calls through the volume's graph reach DHT.
 * Build: gcc -shared -fPIC -o faultkill.so faultkill.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The leading members of GlusterFS's xlator_t and loc_t (glusterfs/xlator.h). */
struct xlator_head {
	char *name;
};
struct loc_head {
	const char *path;
};

typedef int (*setattr_fn)(void *, void *, void *, int, void *, void *, void *, void *);

int syncop_setattr(void *subvol, void *loc, void *iatt, int valid, void *preop, void *postop,
		   void *xdata_in, void *xdata_out)
{
	static setattr_fn real;
	const char *path = getenv("FAULT_KILL_PATH"), *subvols = getenv("FAULT_KILL_SUBVOLS");
	const struct xlator_head *x = subvol;
	const struct loc_head *l = loc;

	if (path && subvols && x && x->name && l && l->path && !strcmp(l->path, path) &&
	    !strncmp(x->name, subvols, strlen(subvols)))
		kill(getpid(), SIGKILL);
	if (!real)
		real = (setattr_fn)dlsym(RTLD_NEXT, "syncop_setattr");
	if (!real)
		return -ENOSYS;
	return real(subvol, loc, iatt, valid, preop, postop, xdata_in, xdata_out);
}
