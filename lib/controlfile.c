/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control file, STATE_DIR/control: `layoutctl top` in another process tells a running fix
 * to pause, resume, stop or run N workers; the fix takes it once a second. Both ends here.
 *
 * The file is one word and a newline ("pause", "resume", "stop", "workers N", or "pace" with
 * its keys: rate=, bandwidth=, migrations=), written to a
 * fresh temporary and renamed over the name (lib/statedir.c). The fix renames it away before
 * reading it, so a command sent meanwhile waits for the next take, and anything but a small
 * regular file (a FIFO, a link, a device) is dropped unread. What is read is untrusted: a
 * word we do not know, bytes after it, a NUL or a worker count out of range is no command.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
	[LCTL_CONTROL_PAUSE] = "pause", [LCTL_CONTROL_RESUME] = "resume",
	[LCTL_CONTROL_STOP] = "stop",	[LCTL_CONTROL_WORKERS] = "workers",
	[LCTL_CONTROL_PACE] = "pace",
};

int lctl_pace_check(const struct lctl_pace *p)
{
	if (!p->set || (p->set & ~(LCTL_PACE_RATE | LCTL_PACE_BANDWIDTH | LCTL_PACE_MIGRATIONS)))
		return -LCTL_EINVAL;
	if ((p->set & LCTL_PACE_RATE) &&
	    !(p->files_per_sec >= 0 && p->files_per_sec <= LCTL_PACE_RATE_MAX))
		return -LCTL_EINVAL;
	if ((p->set & LCTL_PACE_BANDWIDTH) &&
	    !(p->bytes_per_sec >= 0 && p->bytes_per_sec <= LCTL_PACE_BANDWIDTH_MAX))
		return -LCTL_EINVAL;
	if ((p->set & LCTL_PACE_MIGRATIONS) &&
	    (p->migrations < 1 || p->migrations > LCTL_FIX_MAX_MIGRATIONS))
		return -LCTL_EINVAL;
	return 0;
}

/* "pace" and its keys, as lctl_control_parse() reads them back exactly */
static int pace_line(char *line, size_t size, const struct lctl_pace *p)
{
	int n = snprintf(line, size, "pace");

	if (p->set & LCTL_PACE_RATE)
		n += snprintf(line + n, size - (size_t)n, " rate=%.3f", p->files_per_sec);
	if (p->set & LCTL_PACE_BANDWIDTH)
		n += snprintf(line + n, size - (size_t)n, " bandwidth=%.0f", p->bytes_per_sec);
	if (p->set & LCTL_PACE_MIGRATIONS)
		n += snprintf(line + n, size - (size_t)n, " migrations=%u", p->migrations);
	n += snprintf(line + n, size - (size_t)n, "\n");
	return n > 0 && (size_t)n < size ? n : -1;
}

int lctl_control_send(const char *dir, enum lctl_control cmd, const struct lctl_control_arg *arg,
		      struct lctl_error *err)
{
	char line[LCTL_CONTROL_MAX];
	int n;

	if (cmd <= LCTL_CONTROL_NONE || cmd > LCTL_CONTROL_PACE ||
	    (cmd == LCTL_CONTROL_WORKERS && (!arg || arg->workers < 1 || arg->workers > 64)) ||
	    (cmd == LCTL_CONTROL_PACE && (!arg || lctl_pace_check(&arg->pace))))
		return lctl_seterr(err, LCTL_EINVAL, 0, "no such control command");
	if (cmd == LCTL_CONTROL_WORKERS)
		n = snprintf(line, sizeof(line), "%s %d\n", words[cmd], arg->workers);
	else if (cmd == LCTL_CONTROL_PACE)
		n = pace_line(line, sizeof(line), &arg->pace);
	else
		n = snprintf(line, sizeof(line), "%s\n", words[cmd]);
	if (n < 0 || (size_t)n >= sizeof(line))
		return lctl_seterr(err, LCTL_EINVAL, 0, "no such control command");
	/* .control.tmp is made afresh (O_EXCL), never followed, and renamed (statedir.c) */
	return lctl_state_write(dir, LCTL_CONTROL_FILE, line, (size_t)n, false, err);
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int lctl_decimal_parse(const char *s, size_t len, double *out)
{
	char num[24];
	size_t i, dots = 0, digits = 0;

	if (len > 20)
		return -LCTL_EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else
			return -LCTL_EINVAL;
	}
	if (!digits || dots > 1)
		return -LCTL_EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	*out = strtod(num, NULL);
	return 0;
}

/* The number at @buf[*i], up to the next white space (lctl_decimal_parse()); *@i past it. */
static bool decimal(const char *buf, size_t len, size_t *i, double *out)
{
	size_t start = *i;

	while (*i < len && !space(buf[*i]))
		(*i)++;
	return !lctl_decimal_parse(buf + start, *i - start, out);
}

/* "pace" arguments: one or more blanks, then KEY=NUMBER, each key once. */
static bool pace_parse(const char *buf, size_t len, size_t *i, struct lctl_pace *p)
{
	static const struct {
		const char *key;
		unsigned bit;
	} keys[] = { { "rate=", LCTL_PACE_RATE },
		     { "bandwidth=", LCTL_PACE_BANDWIDTH },
		     { "migrations=", LCTL_PACE_MIGRATIONS } };
	double v;
	size_t k;

	memset(p, 0, sizeof(*p));
	while (*i < len && (buf[*i] == ' ' || buf[*i] == '\t')) {
		while (*i < len && (buf[*i] == ' ' || buf[*i] == '\t'))
			(*i)++;
		if (*i == len || space(buf[*i]))
			break;
		for (k = 0; k < LCTL_ARRAY_SIZE(keys); k++)
			if (len - *i > strlen(keys[k].key) &&
			    !memcmp(buf + *i, keys[k].key, strlen(keys[k].key)))
				break;
		if (k == LCTL_ARRAY_SIZE(keys) || (p->set & keys[k].bit))
			return false;
		*i += strlen(keys[k].key);
		if (!decimal(buf, len, i, &v))
			return false;
		p->set |= keys[k].bit;
		if (keys[k].bit == LCTL_PACE_RATE)
			p->files_per_sec = v;
		else if (keys[k].bit == LCTL_PACE_BANDWIDTH)
			p->bytes_per_sec = v;
		else if (v != (unsigned)v)
			return false;
		else
			p->migrations = (unsigned)v;
	}
	return lctl_pace_check(p) == 0;
}

enum lctl_control lctl_control_parse(const char *buf, size_t len, struct lctl_control_arg *arg)
{
	enum lctl_control c, found = LCTL_CONTROL_NONE;
	struct lctl_pace pace;
	size_t i = 0, w;
	int n = 0;

	if (memchr(buf, '\0', len))
		return LCTL_CONTROL_NONE;
	for (c = LCTL_CONTROL_PAUSE; c <= LCTL_CONTROL_PACE; c++) {
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
	if (found == LCTL_CONTROL_PACE && !pace_parse(buf, len, &i, &pace))
		return LCTL_CONTROL_NONE;
	for (; i < len; i++)
		if (!space(buf[i]))
			return LCTL_CONTROL_NONE;
	if (found == LCTL_CONTROL_WORKERS)
		arg->workers = n;
	if (found == LCTL_CONTROL_PACE)
		arg->pace = pace;
	return found;
}

enum lctl_control lctl_control_take(const char *dir, struct lctl_control_arg *arg)
{
	char line[LCTL_CONTROL_MAX] = "";
	ssize_t n;

	/* renamed away before it is read: a command sent meanwhile waits for the next take */
	n = lctl_state_take(dir, LCTL_CONTROL_FILE, line, sizeof(line), NULL);
	if (n <= 0)
		return LCTL_CONTROL_NONE;
	return lctl_control_parse(line, (size_t)n, arg);
}
