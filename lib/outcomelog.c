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

char *lctl_outcome_line(const char *dir, const struct lctl_file_outcome *o, const char *from,
			const char *to, time_t t)
{
	struct json_object *j = json_object_new_object();
	char *path = NULL, *buf = NULL;

	if (!j)
		return NULL;
	if (asprintf(&path, "%s/%s", strcmp(dir, "/") ? dir : "", o->name) < 0) {
		path = NULL;
		goto out;
	}
	json_object_object_add(j, "time", json_object_new_int64((int64_t)t));
	json_object_object_add(j, "path", json_object_new_string(path));
	json_object_object_add(j, "outcome",
			       json_object_new_string(lctl_file_action_name(o->action)));
	if (o->reason)
		json_object_object_add(j, "reason", json_object_new_string(o->reason));
	if (o->err) {
		json_object_object_add(j, "errno", json_object_new_int(o->err));
		json_object_object_add(j, "error", json_object_new_string(strerror(o->err)));
	}
	json_object_object_add(j, "from", from ? json_object_new_string(from) : NULL);
	json_object_object_add(j, "to", to ? json_object_new_string(to) : NULL);
	json_object_object_add(j, "size", json_object_new_int64((int64_t)o->size));
	buf = lctl_json_line(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
out:
	free(path);
	json_object_put(j);
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
