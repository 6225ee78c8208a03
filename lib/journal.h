/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fix journal (see journal.c). Internal to lib/, exposed to the unit tests and fuzzer. */
#ifndef LCTL_JOURNAL_H
#define LCTL_JOURNAL_H

#include "layoutctl.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

struct lctl_journal {
	char volume[256];
	char run[64];
	time_t started;
	char scope[4096];
	enum lctl_fix_mode mode;
	enum lctl_planner planner;
	bool force_move;    /* optional line "force-move 1" */
	bool clean_only;    /* optional line "clean-only 1": started with --phase clean */
	char drain[4096];   /* optional line "drain NAME,NAME": the subvolumes a drain empties */
	time_t clean_since; /* optional line "clean-since EPOCH": every directory clean since */
	uint32_t commit;
	char phase[16]; /* dirty, work, done, stopped */
};

int lctl_journal_write(const char *dir, const struct lctl_journal *j, struct lctl_error *err);
/* Return: 0; -LCTL_ECORRUPT for a file that does not parse or check; -LCTL_EINVAL if absent. */
int lctl_journal_read(const char *dir, struct lctl_journal *j, struct lctl_error *err);
int lctl_journal_parse(const char *text, size_t len, struct lctl_journal *j,
		       struct lctl_error *err);

/*
 * Kept modes: the permission bits of a file with S_ISGID or S_ISVTX set, recorded (by gfid) in
 * STATE_DIR/modes before DHT migrates it. A migration sets both bits on the source as its
 * "in progress" marker; one that is killed there loses whether they were set before. Thread-safe.
 */
struct lctl_kept_mode {
	unsigned char gfid[16];
	mode_t mode;
};

struct lctl_modes {
	pthread_mutex_t lock;
	int fd;			  /* STATE_DIR/modes, appended to; -1 when closed */
	struct lctl_kept_mode *v; /* newest record of a gfid wins */
	size_t n, cap;
};

/* Open (creating) DIR/modes and load its records; a torn or malformed line is skipped. */
int lctl_modes_open(struct lctl_modes *m, const char *dir, struct lctl_error *err);
/* Load records from @text (the file's contents). Return: records loaded, or -LCTL_ENOMEM. */
int lctl_modes_parse(struct lctl_modes *m, const char *text, size_t len);
/* Append and fsync a record before the file moves. Return: 0 or a negative errno. */
int lctl_modes_keep(struct lctl_modes *m, const unsigned char gfid[16], mode_t mode);
/* The newest record for @gfid, if any. */
bool lctl_modes_find(struct lctl_modes *m, const unsigned char gfid[16], mode_t *mode);
/* Close; @forget also removes DIR/modes (the job is done: no migration is left half-way). */
void lctl_modes_close(struct lctl_modes *m, const char *dir, bool forget);

#endif
