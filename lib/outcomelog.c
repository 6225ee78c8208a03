/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outcome log: one JSON line per file a fix (or a pool worker) acted on, appended to
 * STATE_DIR/outcomes.jsonl or to the --log an administrator named. Both its ends are the
 * administrator's tools (jq, grep); the writer is here.
 *
 * A line is one JSON object: time, path, outcome, reason (when there is one), errno and error
 * (for a failure), from, to (subvolume names or null), size; every string escaped by
 * lib/escape.c's rules, so a name holding a newline or a terminal escape stays on its line
 * and shows as "\x0a", "\x1b". JSON's plain form, "/" as itself.
 *
 * Each line goes out with one write(2) on an O_APPEND descriptor: a run killed at any moment
 * leaves whole lines (stdio would flush at buffer boundaries, mid-line), and a line torn
 * anyway (a full disk) is ended before the next run appends. Root writes it where others may
 * have prepared the name (lib/statedir.c): the default one in the state directory is a
 * regular file of ours with one link; a --log may also be a device or a pipe or FIFO of ours
 * (/dev/null, /dev/stderr), never a link someone else made, another user's file or FIFO, or
 * a hard link.
 */
#include "internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lctl_outcome_log_open(const char *state_dir, const char *path, struct lctl_error *err)
{
	struct stat st;
	char c;
	int fd;

	if (state_dir)
		fd = lctl_state_open(state_dir, LCTL_OUTCOME_LOG, LCTL_STATE_APPEND, err);
	else
		fd = lctl_output_open(path, LCTL_OUTPUT_READ, err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return fd; /* --log /dev/stderr, a pipe: not ours to change */
	if (state_dir)
		fchmod(fd, 0600); /* lctl_output_open() made a --log 0600 already */
	if (st.st_size > 0 && pread(fd, &c, 1, st.st_size - 1) == 1 && c != '\n' &&
	    write(fd, "\n", 1) != 1) {
		int e = errno;

		close(fd);
		return lctl_seterr(err, LCTL_EIO, e, "%s", strerror(e));
	}
	return fd;
}

/* One line of the log: @server only for a pool worker's outcome, on the starting host. */
static char *line_of(const char *path, int action, const char *reason, int e, const char *from,
		     const char *to, uint64_t size, time_t t, const char *server)
{
	struct json_object *j = json_object_new_object();
	char *buf;

	if (!j)
		return NULL;
	json_object_object_add(j, "time", json_object_new_int64((int64_t)t));
	json_object_object_add(j, "path", json_object_new_string(path));
	json_object_object_add(j, "outcome", json_object_new_string(lctl_file_action_name(action)));
	if (reason)
		json_object_object_add(j, "reason", json_object_new_string(reason));
	if (e) {
		json_object_object_add(j, "errno", json_object_new_int(e));
		json_object_object_add(j, "error", json_object_new_string(strerror(e)));
	}
	json_object_object_add(j, "from", from ? json_object_new_string(from) : NULL);
	json_object_object_add(j, "to", to ? json_object_new_string(to) : NULL);
	json_object_object_add(j, "size", json_object_new_int64((int64_t)size));
	if (server)
		json_object_object_add(j, "server", json_object_new_string(server));
	buf = lctl_json_line(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(j);
	return buf;
}

/* @dir/@name, or NULL without memory */
static char *join(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", strcmp(dir, "/") ? dir : "", name) < 0)
		return NULL;
	return path;
}

char *lctl_outcome_line(const char *dir, const struct lctl_file_outcome *o, const char *from,
			const char *to, time_t t)
{
	char *path = join(dir, o->name), *buf;

	if (!path)
		return NULL;
	buf = line_of(path, o->action, o->reason, o->err, from, to, o->size, t, NULL);
	free(path);
	return buf;
}

static const char *subvol_name(const struct lctl_volume *vol, int i)
{
	const struct lctl_subvol *sv = i >= 0 ? lctl_volume_subvol(vol, (size_t)i) : NULL;

	return sv ? sv->name : NULL;
}

int lctl_outcome_log_append(int fd, const struct lctl_volume *vol,
			    const struct lctl_repair_report *rr)
{
	int ret = 0;
	size_t i, len;

	if (fd < 0)
		return 0;
	for (i = 0; i < rr->nfiles; i++) {
		const struct lctl_file_outcome *o = &rr->files[i];
		char *line = lctl_outcome_line(rr->path, o, subvol_name(vol, o->from),
					       subvol_name(vol, o->to), time(NULL));

		if (!line) {
			ret = -LCTL_EIO;
			continue;
		}
		len = strlen(line);
		if (write(fd, line, len) != (ssize_t)len)
			ret = -LCTL_EIO;
		free(line);
	}
	return ret;
}

/* @s into @out (@size bytes) when it fits and is no "-" (the wire's none); "" for NULL */
static bool word_fits(char *out, size_t size, const char *s)
{
	if (!s)
		s = "";
	if (strlen(s) >= size || !strcmp(s, "-"))
		return false;
	strcpy(out, s);
	return true;
}

size_t lctl_outcome_msgs(const struct lctl_volume *vol, const struct lctl_repair_report *rr,
			 time_t t, void (*say)(const struct lctl_pool_msg *m))
{
	struct lctl_pool_msg *m = malloc(sizeof(*m));
	size_t i, left = 0;

	if (!m)
		return rr->nfiles;
	for (i = 0; i < rr->nfiles; i++) {
		const struct lctl_file_outcome *o = &rr->files[i];
		struct lctl_pool_outcome *po = &m->outcome;
		char *path = join(rr->path, o->name);

		memset(m, 0, sizeof(*m));
		m->kind = LCTL_PM_OUTCOME;
		po->time = t > 0 ? (uint64_t)t : 0;
		po->size = o->size;
		po->action = o->action;
		po->err = o->err > 0 && o->err <= 4095 ? (unsigned)o->err : 0;
		if (!path || !word_fits(m->text, sizeof(m->text), path) ||
		    !word_fits(po->reason, sizeof(po->reason), o->reason) ||
		    !word_fits(po->from, sizeof(po->from), subvol_name(vol, o->from)) ||
		    !word_fits(po->to, sizeof(po->to), subvol_name(vol, o->to)))
			left++;
		else
			say(m);
		free(path);
	}
	free(m);
	return left;
}

int lctl_outcome_log_append_msg(int fd, const struct lctl_pool_msg *m, const char *server)
{
	const struct lctl_pool_outcome *o = &m->outcome;
	char *line;
	size_t len;
	int ret = 0;

	if (fd < 0 || m->kind != LCTL_PM_OUTCOME)
		return 0;
	line = line_of(m->text, o->action, o->reason[0] ? o->reason : NULL, (int)o->err,
		       o->from[0] ? o->from : NULL, o->to[0] ? o->to : NULL, o->size,
		       (time_t)o->time, server);
	if (!line)
		return -LCTL_EIO;
	len = strlen(line);
	if (write(fd, line, len) != (ssize_t)len)
		ret = -LCTL_EIO;
	free(line);
	return ret;
}
