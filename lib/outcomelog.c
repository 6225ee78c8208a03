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

char *lctl_outcome_line(const char *dir, const struct lctl_file_outcome *o, const char *from,
			const char *to, time_t t)
{
	char *path = lctl_path_join(dir, o->name), *buf;

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
		char *path = lctl_path_join(rr->path, o->name);

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

char *lctl_outcome_msg_line(const struct lctl_pool_msg *m, const char *server)
{
	const struct lctl_pool_outcome *o = &m->outcome;

	if (m->kind != LCTL_PM_OUTCOME)
		return NULL;
	return line_of(m->text, o->action, o->reason[0] ? o->reason : NULL, (int)o->err,
		       o->from[0] ? o->from : NULL, o->to[0] ? o->to : NULL, o->size,
		       (time_t)o->time, server);
}

int lctl_outcome_log_append_dropped(int fd, const char *server, uint64_t dropped,
				    uint64_t dropped_failed, time_t t)
{
	struct json_object *j;
	char *line;
	size_t len;
	int ret = 0;

	if (fd < 0 || !dropped)
		return 0;
	j = json_object_new_object();
	if (!j)
		return -LCTL_EIO;
	json_object_object_add(j, "time", json_object_new_int64((int64_t)t));
	json_object_object_add(j, "server", json_object_new_string(server ? server : ""));
	json_object_object_add(j, "dropped", json_object_new_int64((int64_t)dropped));
	json_object_object_add(j, "failed", json_object_new_int64((int64_t)dropped_failed));
	line = lctl_json_line(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(j);
	if (!line)
		return -LCTL_EIO;
	len = strlen(line);
	if (write(fd, line, len) != (ssize_t)len)
		ret = -LCTL_EIO;
	free(line);
	return ret;
}

/*
 * A file's path: a path inside the volume as every entry point takes it
 * (lctl_volume_path_check(): absolute, no "." or ".." component), and no empty component
 * either (so not the root, no "//", no trailing '/'): its directory and its name, exactly.
 */
bool lctl_path_plain(const char *p)
{
	return !lctl_volume_path_check(p) && p[1] && !strstr(p, "//") && p[strlen(p) - 1] != '/';
}

/* The latest outcome of each path: open addressing on the path, the failed ones listed. */
struct latest {
	char **path;
	bool *failed;
	size_t n, cap;
};

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int latest_set(struct latest *l, char *path, bool failed)
{
	size_t i;

	if (2 * (l->n + 1) > l->cap) {
		struct latest g = { 0 };
		size_t k;

		g.cap = l->cap ? 2 * l->cap : 1024;
		g.path = calloc(g.cap, sizeof(*g.path));
		g.failed = calloc(g.cap, sizeof(*g.failed));
		if (!g.path || !g.failed) {
			free(g.path);
			free(g.failed);
			free(path);
			return -LCTL_ENOMEM;
		}
		for (k = 0; k < l->cap; k++) {
			if (!l->path[k])
				continue;
			for (i = path_hash(l->path[k]) & (g.cap - 1); g.path[i];
			     i = (i + 1) & (g.cap - 1))
				;
			g.path[i] = l->path[k];
			g.failed[i] = l->failed[k];
		}
		free(l->path);
		free(l->failed);
		g.n = l->n;
		*l = g;
	}
	for (i = path_hash(path) & (l->cap - 1); l->path[i]; i = (i + 1) & (l->cap - 1))
		if (!strcmp(l->path[i], path)) {
			free(path);
			l->failed[i] = failed;
			return 0;
		}
	l->path[i] = path;
	l->failed[i] = failed;
	l->n++;
	return 0;
}

/*
 * A line saying how many of a pool worker's outcomes were dropped ({"server":S,"dropped":N,
 * "failed":F}): @server added to @inc when failed ones were (F > 0), or may have been (no
 * "failed": a line of an older layoutctl, whose cap dropped failed outcomes too). At most
 * INCOMPLETE_MAX servers (a run has at most LCTL_POOL_MAX; a log holds many runs).
 */
#define INCOMPLETE_MAX 256
static int note_incomplete(struct json_object *j, struct lctl_strv *inc)
{
	struct json_object *js, *jf;
	const char *s;
	size_t i;

	if (!inc || inc->n >= INCOMPLETE_MAX || !json_object_object_get_ex(j, "server", &js) ||
	    !json_object_is_type(js, json_type_string))
		return 0;
	if (json_object_object_get_ex(j, "failed", &jf) && json_object_get_int64(jf) <= 0)
		return 0;
	s = json_object_get_string(js);
	for (i = 0; i < inc->n; i++)
		if (!strcmp(inc->v[i], s))
			return 0;
	return lctl_strv_add(inc, s);
}

int lctl_outcome_failed(int fd, struct lctl_strv *out, size_t *bad, struct lctl_strv *incomplete,
			struct lctl_error *err)
{
	struct latest l = { 0 };
	FILE *f;
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t len;
	int ret = 0, dfd = dup(fd);

	*out = (struct lctl_strv){ 0 };
	if (incomplete)
		*incomplete = (struct lctl_strv){ 0 };
	*bad = 0;
	if (dfd < 0 || !(f = fdopen(dfd, "r"))) {
		int e = errno;

		if (dfd >= 0)
			close(dfd);
		return lctl_seterr(err, LCTL_EIO, e, "%s", strerror(e));
	}
	rewind(f);
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		struct json_object *j, *jp, *jo;
		const char *outcome;
		char *path;

		/* a torn line (a full disk, a kill) has no newline; one with a NUL is no line */
		if (!len || line[len - 1] != '\n' || strlen(line) != (size_t)len ||
		    !(j = json_tokener_parse(line))) {
			++*bad;
			continue;
		}
		/* a pool worker's outcomes past a budget, counted (lctl_outcome_log_append_dropped()) */
		if (!json_object_object_get_ex(j, "path", &jp) &&
		    json_object_object_get_ex(j, "dropped", &jo)) {
			ret = note_incomplete(j, incomplete);
			json_object_put(j);
			continue;
		}
		if (!json_object_object_get_ex(j, "path", &jp) ||
		    !json_object_is_type(jp, json_type_string) ||
		    !json_object_object_get_ex(j, "outcome", &jo) ||
		    !json_object_is_type(jo, json_type_string) ||
		    !(path = strdup(json_object_get_string(jp)))) {
			json_object_put(j);
			++*bad;
			continue;
		}
		outcome = json_object_get_string(jo);
		/* the log holds names escaped (lib/escape.c): the file's own bytes back */
		lctl_unescape(path);
		if (strlen(path) >= 4096 || !lctl_path_plain(path)) {
			free(path);
			++*bad;
		} else {
			ret = latest_set(&l, path, !strcmp(outcome, "failed"));
		}
		json_object_put(j);
	}
	free(line);
	fclose(f);
	/* the failed ones, sorted below */
	for (i = 0; !ret && i < l.cap; i++)
		if (l.path && l.path[i] && l.failed[i])
			ret = lctl_strv_add(out, l.path[i]);
	for (i = 0; i < l.cap; i++)
		free(l.path[i]);
	free(l.path);
	free(l.failed);
	if (ret) {
		lctl_strv_free(out);
		if (incomplete)
			lctl_strv_free(incomplete);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), lctl_cmp_strp);
	if (incomplete && incomplete->n)
		qsort(incomplete->v, incomplete->n, sizeof(*incomplete->v), lctl_cmp_strp);
	return 0;
}
