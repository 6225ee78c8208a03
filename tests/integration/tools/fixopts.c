/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixopts VOL STATEDIR: lctl_fix_start() on VOL (volfile server localhost) with one invalid
 * option at a time, everything else valid (STATEDIR, no settle). Each must be refused with
 * LCTL_EINVAL; whether anything was written first is for the caller to check (the bricks, and
 * STATEDIR, which must not come to exist). Prints "refused CASE: MESSAGE" per case, or
 * "NOT REFUSED CASE: ..." (a run that started is cancelled and ended). Exit 0 when every case
 * was refused, 1 otherwise, 2 when the volume cannot be opened.
 * Built by make check (Makefile.am), for tests/integration/fix-options.sh.
 */
#include "layoutctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void end_run(struct lctl_fix *f)
{
	struct lctl_repair_report *rr;
	bool fin = false;

	lctl_fix_cancel(f);
	while (!fin) {
		rr = lctl_fix_next(f, 200, &fin);
		lctl_repair_report_free(rr);
	}
	lctl_fix_end(f, NULL);
	lctl_fix_free(f);
}

int main(int argc, char **argv)
{
	static char long_dir[5000];
	static char prog[] = "/bin/false";
	static char *const no_argv[] = { prog, NULL };
	struct lctl_worker_spec many[LCTL_POOL_MAX + 1];
	struct lctl_open_opts oo = { 0 };
	struct lctl_volume *vol = NULL;
	struct lctl_error err = { 0 };
	int i, bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: fixopts VOL STATEDIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i <= LCTL_POOL_MAX; i++)
		many[i] = (struct lctl_worker_spec){ "nowhere", no_argv };
	memset(long_dir, 'd', sizeof(long_dir) - 1);
	long_dir[0] = '/';
	oo.volume = argv[1];
	if (lctl_volume_open(&oo, &vol, &err)) {
		fprintf(stderr, "fixopts: cannot open volume '%s': %s\n", argv[1], err.msg);
		return 2;
	}
	for (i = 0;; i++) {
		struct lctl_fix_opts o = { .state_dir = argv[2], .settle_ms = 0 };
		struct lctl_fix *f = NULL;
		const char *what;
		int ret;

		switch (i) {
		case 0:
			what = "parallel 65";
			o.parallel = 65;
			break;
		case 1:
			what = "parallel 1000";
			o.parallel = 1000;
			break;
		case 2:
			what = "planner 7";
			o.planner = (enum lctl_planner)7;
			break;
		case 3:
			what = "mode 9";
			o.mode = (enum lctl_fix_mode)9;
			break;
		case 4:
			what = "files_per_sec -1";
			o.files_per_sec = -1;
			break;
		case 5:
			what = "files_per_sec nan";
			o.files_per_sec = NAN;
			break;
		case 6:
			what = "bytes_per_sec inf";
			o.bytes_per_sec = INFINITY;
			break;
		case 7:
			what = "bytes_per_sec -5";
			o.bytes_per_sec = -5;
			break;
		case 8:
			what = "resume and dry_run";
			o.resume = true;
			o.dry_run = true;
			break;
		case 9:
			what = "path relative";
			o.path = "relative/dir";
			break;
		case 10:
			what = "path with ..";
			o.path = "/a/../b";
			break;
		case 11:
			what = "no state_dir";
			o.state_dir = NULL;
			break;
		case 12:
			what = "state_dir of 4999 bytes";
			o.state_dir = long_dir;
			break;
		case 13:
			what = "place_only and resume";
			o.place_only = true;
			o.resume = true;
			break;
		case 14:
			what = "2 workers, no list";
			o.nworkers = 2;
			break;
		case 15:
			/* refused by lctl_pool_spawn() too, but after the state directory and lock */
			what = "33 workers";
			o.workers = many;
			o.nworkers = LCTL_POOL_MAX + 1;
			break;
		default:
			what = NULL;
			break;
		}
		if (!what)
			break;
		memset(&err, 0, sizeof(err));
		ret = lctl_fix_start(vol, &o, &f, &err);
		if (ret == -LCTL_EINVAL && !f) {
			printf("refused %s: %s\n", what, err.msg);
			continue;
		}
		printf("NOT REFUSED %s: %d %s\n", what, ret, ret ? err.msg : "started");
		bad = 1;
		if (f)
			end_run(f);
	}
	lctl_volume_close(vol, false);
	return bad;
}
