/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the outcome log: one JSON line per file a fix acted on.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_OUTCOMELOG_H
#define LAYOUTCTL_OUTCOMELOG_H

#include "base.h"
#include "volume.h"
#include "fix.h"

/* ------------------------------------------------------------------------------------------ */
/* The outcome log: one JSON line per file a fix or a pool worker acted on, lib/outcomelog.c  */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_OUTCOME_LOG "outcomes.jsonl"

/**
 * lctl_outcome_log_open() - open the outcome log to append to: DIR/outcomes.jsonl when
 * @state_dir is given (lctl_state_open(), made 0600), else the --log @path
 * (lctl_output_open()). A last line left torn (a full disk, a kill) is ended first.
 * Return: a descriptor (O_APPEND) the caller closes, or a negative LCTL_E* with a one-line
 * message.
 */
int lctl_outcome_log_open(const char *state_dir, const char *path, struct lctl_error *err);
/**
 * lctl_outcome_line() - the log's line for the outcome @o in the directory @dir at @t: one
 * JSON object (time, path, outcome, reason, errno, error, from, to, size), every string
 * escaped, ended by a newline. @from, @to: the subvolumes' names or NULL.
 * Return: a malloc'ed string the caller frees, or NULL without memory.
 */
char *lctl_outcome_line(const char *dir, const struct lctl_file_outcome *o, const char *from,
			const char *to, time_t t);
/**
 * lctl_outcome_log_append() - append one line per file of @rr to @fd, each with one write(2)
 * (a run killed at any moment leaves whole lines). Nothing when @fd < 0.
 * Return: 0, or -LCTL_EIO when a line could not be written whole (the others are tried).
 */
int lctl_outcome_log_append(int fd, const struct lctl_volume *vol,
			    const struct lctl_repair_report *rr);

/**
 * lctl_outcome_msgs() - a pool worker's outcomes of @rr as "outcome" messages (lib/pool.h),
 * one per file, passed to @say. A file whose path or a word of which does not fit a message
 * (a path of 4096 bytes or more) is not sent: its count is returned (its line stays in the
 * worker's own log).
 */
size_t lctl_outcome_msgs(const struct lctl_volume *vol, const struct lctl_repair_report *rr,
			 time_t t, void (*say)(const struct lctl_pool_msg *m));
/**
 * lctl_outcome_msg_line() - the log's line (lctl_outcome_line()'s fields, "server": @server)
 * of the outcome a worker sent (@m, LCTL_PM_OUTCOME), '\n' ended; the caller frees it.
 * Return: the line, or NULL (out of memory, or @m no outcome).
 */
char *lctl_outcome_msg_line(const struct lctl_pool_msg *m, const char *server);

/**
 * lctl_outcome_log_append_dropped() - append to @fd the one line that says how many outcomes
 * of pool worker @server the starting host did not log (past a budget, lctl/pool.h), and how
 * many of those failed: {"time":T,"server":S,"dropped":N,"failed":F}. Nothing when @fd < 0 or
 * @dropped is 0. lctl_outcome_failed() names the servers whose failed ones were dropped.
 * Return: 0, or -LCTL_EIO.
 */
int lctl_outcome_log_append_dropped(int fd, const char *server, uint64_t dropped,
				    uint64_t dropped_failed, time_t t);

/** lctl_path_plain() - @p is absolute, without empty, "." or ".." components. */
bool lctl_path_plain(const char *p);
/**
 * lctl_outcome_failed() - the files whose latest outcome in the log @fd (read from its
 * start) is "failed", sorted by path (their raw bytes, the log's escapes undone): a file that
 * failed and then moved, or was skipped, is not one. Lines that are not an outcome (torn, not
 * JSON, a path that is not absolute, has an empty, "." or ".." component, or is 4096 bytes or
 * longer) are counted in *@bad and left. @incomplete (may be NULL): the servers, sorted, once
 * each, of the lines saying a pool worker's failed outcomes were dropped (or, lines of an
 * older layoutctl, some outcomes, which could be failed ones): their failed files may be
 * missing from @out (the worker's own log on that server has them).
 * Return: 0 and @out (and @incomplete), or a negative LCTL_E* with a message.
 */
int lctl_outcome_failed(int fd, struct lctl_strv *out, size_t *bad, struct lctl_strv *incomplete,
			struct lctl_error *err);

#endif /* LAYOUTCTL_OUTCOMELOG_H */
