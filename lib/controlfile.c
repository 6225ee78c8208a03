/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control file, STATE_DIR/control: `layoutctl top` in another process tells a running fix
 * to pause, resume, stop or run N workers; the fix takes it once a second. Both ends here.
 *
 * The file is one word and a newline ("pause", "resume", "stop", "workers N"), written to a
 * fresh temporary and renamed over the name (lib/statedir.c). The fix renames it away before
 * reading it, so a command sent meanwhile waits for the next take, and anything but a small
 * regular file (a FIFO, a link, a device) is dropped unread. What is read is untrusted: a
 * word we do not know, bytes after it, a NUL or a worker count out of range is no command.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const words[] = {
	[LCTL_CONTROL_PAUSE] = "pause",
	[LCTL_CONTROL_RESUME] = "resume",
	[LCTL_CONTROL_STOP] = "stop",
	[LCTL_CONTROL_WORKERS] = "workers",
};

int lctl_control_send(const char *dir, enum lctl_control cmd, int workers, struct lctl_error *err)
{
	char line[LCTL_CONTROL_MAX];
	int n;

	if (cmd <= LCTL_CONTROL_NONE || cmd > LCTL_CONTROL_WORKERS ||
	    (cmd == LCTL_CONTROL_WORKERS && (workers < 1 || workers > 64)))
		return lctl_seterr(err, LCTL_EINVAL, 0, "no such control command");
	if (cmd == LCTL_CONTROL_WORKERS)
		n = snprintf(line, sizeof(line), "%s %d\n", words[cmd], workers);
	else
		n = snprintf(line, sizeof(line), "%s\n", words[cmd]);
	/* .control.tmp is made afresh (O_EXCL), never followed, and renamed (statedir.c) */
	return lctl_state_write(dir, LCTL_CONTROL_FILE, line, (size_t)n, false, err);
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum lctl_control lctl_control_parse(const char *buf, size_t len, int *workers)
{
	enum lctl_control c, found = LCTL_CONTROL_NONE;
	size_t i = 0, w;
	int n = 0;

	if (memchr(buf, '\0', len))
		return LCTL_CONTROL_NONE;
	for (c = LCTL_CONTROL_PAUSE; c <= LCTL_CONTROL_WORKERS; c++) {
		w = strlen(words[c]);
		if (len >= w && !memcmp(buf, words[c], w) && (len == w || space(buf[w]))) {
			found = c;
			i = w;
			break;
		}
	}
	if (found == LCTL_CONTROL_WORKERS) {
		/* "workers N": one or more blanks, then 1 to 64 in plain decimal digits */
		if (i == len || (buf[i] != ' ' && buf[i] != '\t'))
			return LCTL_CONTROL_NONE;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		for (w = i; i < len && i - w < 3 && buf[i] >= '0' && buf[i] <= '9'; i++)
			n = n * 10 + (buf[i] - '0');
		if (i == w || n < 1 || n > 64 || (i < len && !space(buf[i])))
			return LCTL_CONTROL_NONE;
	}
	for (; i < len; i++)
		if (!space(buf[i]))
			return LCTL_CONTROL_NONE;
	if (found == LCTL_CONTROL_WORKERS)
		*workers = n;
	return found;
}

enum lctl_control lctl_control_take(const char *dir, int *workers)
{
	char line[LCTL_CONTROL_MAX] = "";
	ssize_t n;

	/* renamed away before it is read: a command sent meanwhile waits for the next take */
	n = lctl_state_take(dir, LCTL_CONTROL_FILE, line, sizeof(line), NULL);
	if (n <= 0)
		return LCTL_CONTROL_NONE;
	return lctl_control_parse(line, (size_t)n, workers);
}
