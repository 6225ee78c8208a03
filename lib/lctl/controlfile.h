/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the control file, STATE_DIR/control: top to a running fix.
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_CONTROLFILE_H
#define LAYOUTCTL_CONTROLFILE_H

#include "base.h"

/* ------------------------------------------------------------------------------------------ */
/* The control file (STATE_DIR/control): `top` to a running fix, lib/controlfile.c            */
/* ------------------------------------------------------------------------------------------ */

#define LCTL_CONTROL_FILE "control"
#define LCTL_CONTROL_MAX 64 /* a control file this big or bigger is dropped unread */

/* One word a line: "pause", "resume", "stop", "workers N" (N from 1 to 64). */
enum lctl_control {
	LCTL_CONTROL_NONE,
	LCTL_CONTROL_PAUSE,
	LCTL_CONTROL_RESUME,
	LCTL_CONTROL_STOP,
	LCTL_CONTROL_WORKERS,
};

/**
 * lctl_control_send() - write @cmd (with @workers for LCTL_CONTROL_WORKERS) as DIR/control
 * (lctl_state_write()). Return: 0 or a negative LCTL_E* (-LCTL_EINVAL: no such command).
 */
int lctl_control_send(const char *dir, enum lctl_control cmd, int workers, struct lctl_error *err);
/**
 * lctl_control_parse() - the command in @len bytes: one word and white space after it;
 * LCTL_CONTROL_NONE for anything else (an unknown word, a NUL, more after the word).
 * *@workers is set for LCTL_CONTROL_WORKERS only.
 */
enum lctl_control lctl_control_parse(const char *buf, size_t len, int *workers);
/**
 * lctl_control_take() - take a pending command (lctl_state_take(): renamed away, read,
 * removed; one sent meanwhile waits for the next take). A FIFO, a link or anything but a
 * small regular file is dropped unread. Return: the command, LCTL_CONTROL_NONE when none.
 */
enum lctl_control lctl_control_take(const char *dir, int *workers);

#endif /* LAYOUTCTL_CONTROLFILE_H */
