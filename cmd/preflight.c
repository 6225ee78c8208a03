/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What glusterd says before a fix or drain moves anything (fixcli.h): whether GlusterFS's own
 * rebalance or remove-brick runs, and the versions of the cluster and its clients (the
 * compatibility check). Asked through the gluster CLI (lib/glustercli.c); --no-task-check
 * skips both, on a client without the CLI.
 */
#include "cli.h"
#include "fixcli.h"
#include "msg.h"
#include "glustercli.h"

void tasks_refused(int tasks, const char *gluster, const char *volume)
{
	switch (tasks) {
	case LCTL_TASKS_NO_CLI:
		error("cannot check for a running rebalance: no gluster CLI here "
		      "(use --no-task-check if you are sure none runs)");
		break;
	case LCTL_TASKS_CANNOT_RUN:
		error("cannot run %s to check for a running rebalance "
		      "(use --no-task-check if you are sure none runs)",
		      gluster);
		break;
	case LCTL_TASKS_BUSY:
		error("glusterd stayed busy with other commands on '%s' (\"another transaction is in "
		      "progress\") for 2 minutes: try again later",
		      volume);
		break;
	case LCTL_TASKS_NO_ANSWER:
		error("glusterd did not answer 'volume status %s tasks' "
		      "(use --no-task-check if you are sure no rebalance runs)",
		      volume);
		break;
	default:
		error("a rebalance or remove-brick task is running on '%s': refusing to fix",
		      volume);
		break;
	}
}

/*
 * GlusterFS's own rebalance and remove-brick run in glusterd's daemons; only glusterd knows.
 * Ask it through the gluster CLI when there is one (on a server); a client without the CLI
 * has to pass --no-task-check knowingly.
 */
int check_gluster_tasks(const char *volume)
{
	const char *gluster = NULL;
	int t = lctl_gluster_tasks_idle(volume, &gluster);

	if (t == LCTL_TASKS_IDLE)
		return EXIT_CLEAN;
	tasks_refused(t, gluster, volume);
	return EXIT_CANTRUN;
}

/*
 * The versions (glustercli.h, the compatibility check): clients older than GlusterFS 3.6 can
 * lose data while files move, which is why glusterd's own rebalance refuses them; a cluster
 * older than the oldest GlusterFS layoutctl supports is refused too, unless --force-compat.
 * Asked after the task check, so the gluster CLI is there and glusterd answers.
 */
int check_compat(const char *volume, bool force)
{
	const char *gluster = lctl_gluster_find(lctl_gluster_paths);
	void (*say)(const char *fmt, ...) = force ? warning : error; /* forced: a warning */
	struct lctl_compat c;
	size_t i;
	int ret = gluster ? lctl_gluster_compat(gluster, volume, &c) : LCTL_GLUSTER_CANNOT_RUN;

	if (ret == LCTL_GLUSTER_BUSY) {
		tasks_refused(LCTL_TASKS_BUSY, gluster, volume);
		return EXIT_CANTRUN;
	}
	if (ret != LCTL_GLUSTER_OK) {
		error("glusterd did not say which versions the cluster and the clients of '%s' run "
		      "(use --no-task-check if you are sure they are recent)",
		      volume);
		return EXIT_CANTRUN;
	}
	switch (lctl_compat_judge(&c)) {
	case LCTL_COMPAT_OK:
		verbose(2,
			"versions: cluster op-version %u; clients at %zu addresses, none older than GlusterFS 3.6",
			c.op_version, c.nclients);
		return EXIT_CLEAN;
	case LCTL_COMPAT_NEWER:
		warning("the cluster's op-version %u is newer than the newest layoutctl knows "
			"(%u, GlusterFS 11): going on",
			c.op_version, LCTL_CLUSTER_MAX_OP_VERSION);
		return EXIT_CLEAN;
	case LCTL_COMPAT_OLD_CLUSTER:
		say("the cluster's op-version %u is older than GlusterFS 9 (%u), the oldest "
		    "layoutctl supports%s",
		    c.op_version, LCTL_CLUSTER_MIN_OP_VERSION,
		    force ? ": going on (--force-compat)" : " (--force-compat starts anyway)");
		return force ? EXIT_CLEAN : EXIT_CANTRUN;
	case LCTL_COMPAT_OLD_CLIENTS:
		for (i = 0; i < c.nold && i < LCTL_COMPAT_NAMED; i++)
			say("a client older than GlusterFS 3.6 is connected to '%s': %s "
			    "(op-version %u)",
			    volume, c.old[i].addr, c.old[i].op_version);
		if (c.nold > LCTL_COMPAT_NAMED)
			say("and %zu more", c.nold - LCTL_COMPAT_NAMED);
		if (force) {
			warning("going on (--force-compat): files those clients use may be lost");
			return EXIT_CLEAN;
		}
		error("refusing to move files: such clients can lose data while files move, as "
		      "'gluster volume rebalance' says; unmount them, or --force-compat");
		return EXIT_CANTRUN;
	}
	return EXIT_CANTRUN;
}
