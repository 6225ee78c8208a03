/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crawlwide: the directory walker (lib/crawl.c) alone over one directory of K subdirectories:
 * the walker's own cost of a very wide directory.
 *
 *   bench/crawlwide K [WORKERS [VISIT_US]]
 *
 * WORKERS (default 4) walk "/" whose visit pushes K children ("/0" ... ), each visited once and
 * taking VISIT_US microseconds of CPU (default 20; a fix's visit of a directory takes
 * milliseconds), so that, as in a fix, the root's worker lists them faster than the others
 * visit them: past the shared queue (the walker's default size) they go to its spill stack,
 * and are shared from there. Prints "crawlwide: K subdirectories, W workers, N visits, S s"
 * and the time the visits alone take on the workers and CPUs there are (K * VISIT_US over
 * the smaller of the two counts): what the walker adds is the difference.
 * Exit 0 when every directory was visited once, 1 otherwise, 2 on a usage error.
 */
#include "crawl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long kids, visit_us = 20;
static _Atomic unsigned long visits;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *visit(void *arg, struct lctl_crawl_worker *w, const char *path, unsigned depth)
{
	char child[32];
	unsigned long i;

	(void)arg;
	(void)path;
	atomic_fetch_add(&visits, 1);
	if (depth) {
		double end = now() + (double)visit_us / 1e6;

		while (now() < end)
			;
	}
	for (i = 0; depth == 0 && i < kids; i++) {
		snprintf(child, sizeof(child), "/%lu", i);
		if (lctl_crawl_push(w, child, 1))
			return NULL;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct lctl_crawl_cfg cfg = { 4, 0, 0, visit, NULL, NULL };
	struct lctl_crawl *c;
	bool fin = false;
	char *end;
	double t0;
	long cpus;

	if (argc < 2 || argc > 4 || !(kids = strtoul(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: crawlwide K [WORKERS [VISIT_US]]\n");
		return 2;
	}
	if (argc >= 3 && (!(cfg.nworkers = (unsigned)strtoul(argv[2], &end, 10)) || *end ||
			  cfg.nworkers > 64)) {
		fprintf(stderr, "crawlwide: WORKERS must be 1 to 64\n");
		return 2;
	}
	if (argc == 4 && ((visit_us = strtoul(argv[3], &end, 10)) > 1000000 || *end)) {
		fprintf(stderr, "crawlwide: VISIT_US must be 0 to 1000000\n");
		return 2;
	}
	t0 = now();
	if (lctl_crawl_start(&cfg, "/", &c, NULL)) {
		fprintf(stderr, "crawlwide: cannot start the walk\n");
		return 2;
	}
	while (!fin)
		lctl_crawl_next(c, 100, &fin);
	lctl_crawl_free(c);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1 || cpus > (long)cfg.nworkers)
		cpus = (long)cfg.nworkers;
	printf("crawlwide: %lu subdirectories, %u workers, %lu visits, %.3f s (the visits alone: "
	       "%.3f s)\n",
	       kids, cfg.nworkers, (unsigned long)visits, now() - t0,
	       (double)kids * (double)visit_us / 1e6 / (double)cpus);
	return visits == kids + 1 ? 0 : 1;
}
