/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The starting host's side of a fix spread over the pool (see pool.c). Internal to lib/. */
#ifndef LCTL_POOL_H
#define LCTL_POOL_H

#include "layoutctl.h"

struct lctl_pool;

/**
 * lctl_pool_start() - start one worker per spec and wait until every one has said hello.
 * Return: 0 and *@out; -LCTL_ECONNECT (the message names the server) when one cannot be
 * started, fails or does not answer within @timeout_ms: then none is left running.
 */
int lctl_pool_start(const struct lctl_worker_spec *specs, size_t n, int timeout_ms,
		    unsigned silent_s, struct lctl_pool **out, struct lctl_error *err);
/**
 * lctl_pool_spawn() - start one worker per spec, without waiting: lctl_pool_hello() then
 * says when every one has answered (within @timeout_ms of now). A worker that said hello and
 * then sends nothing for @silent_s (0 or more than two minutes: two minutes) is lost.
 * Return: as lctl_pool_start().
 */
int lctl_pool_spawn(const struct lctl_worker_spec *specs, size_t n, int timeout_ms,
		    unsigned silent_s, struct lctl_pool **out, struct lctl_error *err);
/**
 * lctl_pool_hello() - read the workers' lines for up to @timeout_ms (0: only look).
 * Return: 1 once every worker said hello, 0 not yet, -LCTL_ECONNECT (the message names the
 * server) when one ended, failed or did not answer in time: lctl_pool_free() it then.
 */
int lctl_pool_hello(struct lctl_pool *p, int timeout_ms, struct lctl_error *err);
/**
 * lctl_pool_send() - go (to the workers that said hello), pause, resume or stop to every
 * worker still running. lctl_pool_send_kind(): one without fields.
 */
void lctl_pool_send(struct lctl_pool *p, const struct lctl_pool_msg *m);
void lctl_pool_send_kind(struct lctl_pool *p, enum lctl_pool_kind kind);
/* The whole pace (all three fields of @pace set) to every worker still running. */
void lctl_pool_set_pace(struct lctl_pool *p, const struct lctl_pace *pace);
/**
 * lctl_pool_poll() - read the workers' lines for up to @timeout_ms (0: what is there), and
 * lose those silent too long or not stopped in time; true once all ended.
 */
bool lctl_pool_poll(struct lctl_pool *p, int timeout_ms);
/**
 * lctl_pool_set_outcome_log() - append the outcomes the workers send to @fd (the run's
 * outcome log, lctl_outcome_log_open(); -1: none), each marked with its server; the caller
 * keeps and closes @fd. lctl_pool_outcome_log_failed(): a line could not be written.
 */
void lctl_pool_set_outcome_log(struct lctl_pool *p, int fd);
bool lctl_pool_outcome_log_failed(const struct lctl_pool *p);
/**
 * lctl_pool_set_outcome_budget() - the budgets of the outcome log's lines (lctl/pool.h);
 * LCTL_POOL_OUTCOME_BYTES and the others unless set (the tests set smaller ones).
 */
void lctl_pool_set_outcome_budget(struct lctl_pool *p, const struct lctl_pool_outcome_budget *b);
/** lctl_pool_server_done() - worker @i (the order of the specs) placed all of its share. */
bool lctl_pool_server_done(const struct lctl_pool *p, size_t i);
/** lctl_pool_complete() - every worker said it placed all of its share. */
bool lctl_pool_complete(const struct lctl_pool *p);
/** lctl_pool_held_out() - a worker stopped while it held (its hold limit, or a stop). */
bool lctl_pool_held_out(const struct lctl_pool *p);
size_t lctl_pool_progress(const struct lctl_pool *p, struct lctl_server_progress *out, size_t max);
/** lctl_pool_free() - close the links (a worker stops at end of file), reap the workers. */
void lctl_pool_free(struct lctl_pool *p);

#endif
