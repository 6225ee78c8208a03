/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fix journal (see journal.c). Internal to lib/, exposed to the unit tests and fuzzer. */
#ifndef LCTL_JOURNAL_H
#define LCTL_JOURNAL_H

#include "layoutctl.h"

struct lctl_journal {
	char volume[256];
	char run[64];
	time_t started;
	char scope[4096];
	enum lctl_fix_mode mode;
	enum lctl_planner planner;
	uint32_t commit;
	char phase[16];		/* dirty, work, done, stopped */
};

uint32_t lctl_crc32(const void *data, size_t len);
int lctl_journal_write(const char *dir, const struct lctl_journal *j, struct lctl_error *err);
/* Return: 0; -LCTL_ECORRUPT for a file that does not parse or check; -LCTL_EINVAL if absent. */
int lctl_journal_read(const char *dir, struct lctl_journal *j, struct lctl_error *err);
int lctl_journal_parse(const char *text, size_t len, struct lctl_journal *j,
		       struct lctl_error *err);

#endif
