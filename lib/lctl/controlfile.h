/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the control file, STATE_DIR/control: top to a running fix.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_CONTROLFILE_H
#define LAYOUTCTL_CONTROLFILE_H

#include "base.h"
#include "pool.h" /* struct lctl_pace */

/* ------------------------------------------------------------------------------------------ */
/* The control file (STATE_DIR/control): `top` to a running fix, lib/controlfile.c            */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_CONTROL_FILE "control"
#define LCTL_CONTROL_MAX 64 /* a control file this big or bigger is dropped unread */

/*
 * One word a line: "pause", "resume", "stop", "workers N" (N from 1 to 64), or "pace" and one
 * or more of rate=FILES_PER_SEC, bandwidth=BYTES_PER_SEC (plain decimal numbers, 0: no
 * limit) and migrations=N, each once (struct lctl_pace).
 */
enum lctl_control {
	LCTL_CONTROL_NONE,
	LCTL_CONTROL_PAUSE,
	LCTL_CONTROL_RESUME,
	LCTL_CONTROL_STOP,
	LCTL_CONTROL_WORKERS,
	LCTL_CONTROL_PACE,
};

/* What comes with a control word: the workers of "workers N", the pace of "pace ...". */
struct lctl_control_arg {
	int workers;
	struct lctl_pace pace;
};

/**
 * lctl_decimal_parse() - a pace value as the control file and `layoutctl set` take it: plain
 * decimal digits with at most one '.', 1 to 20 characters (no sign, exponent or blank), in
 * the @len bytes at @s. Return: 0 with *@out, or -LCTL_EINVAL.
 */
int lctl_decimal_parse(const char *s, size_t len, double *out);
/**
 * lctl_control_send() - write @cmd (with @arg for LCTL_CONTROL_WORKERS and
 * LCTL_CONTROL_PACE; else it may be NULL) as DIR/control (lctl_state_write()).
 * Return: 0 or a negative LCTL_E* (-LCTL_EINVAL: no such command, or out of range).
 */
int lctl_control_send(const char *dir, enum lctl_control cmd, const struct lctl_control_arg *arg,
		      struct lctl_error *err);
/**
 * lctl_control_parse() - the command in @len bytes: one word, its arguments, white space
 * after them; LCTL_CONTROL_NONE for anything else (an unknown word or key, a NUL, a number
 * out of range, a key twice, more after the last). @arg is filled for WORKERS and PACE.
 */
enum lctl_control lctl_control_parse(const char *buf, size_t len, struct lctl_control_arg *arg);
/**
 * lctl_control_take() - take a pending command (lctl_state_take(): renamed away, read,
 * removed; one sent meanwhile waits for the next take). A FIFO, a link or anything but a
 * small regular file is dropped unread. Return: the command, LCTL_CONTROL_NONE when none.
 */
enum lctl_control lctl_control_take(const char *dir, struct lctl_control_arg *arg);

#endif /* LAYOUTCTL_CONTROLFILE_H */
