/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fix --retry-failed and --files-from: the listed files, read (from the outcome log, or the
 * list given), sorted and handed out directory by directory, each as the scope and the names
 * of one fix run (lctl_fix_opts.path and wanted); cmd-fix.c runs them.
 */
#include "cli.h"
#include "fixcli.h"
#include "msg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Absolute paths by directory, then name: each directory's names together ("/a/b/x/y"
 * sorts between "/a/b/w" and "/a/b/z" by bytes alone). */
static int cmp_dir_name(const void *a, const void *b)
{
	const char *p = *(char *const *)a, *q = *(char *const *)b;
	size_t lp = (size_t)(strrchr(p, '/') - p), lq = (size_t)(strrchr(q, '/') - q);
	int c = memcmp(p, q, lp < lq ? lp : lq);

	if (c)
		return c;
	if (lp != lq)
		return lp < lq ? -1 : 1;
	return strcmp(p + lp + 1, q + lq + 1);
}

static bool wanted_name(void *arg, const char *dir, const char *name)
{
	const struct listed_dir *w = arg;

	return !strcmp(dir, w->dir) &&
	       bsearch(&name, w->names, w->n, sizeof(*w->names), lctl_cmp_strp) != NULL;
}

/*
 * --files-from: the paths @fc->files_from lists (relative to the volume root, a leading '/'
 * allowed; a newline or, with --null, a NUL ends each; empty ones skipped) into @l, each
 * absolute. A path with an empty, "." or ".." component is refused, naming it (escaped).
 */
static int read_files_from(const struct fix_cli *fc, struct lctl_strv *l)
{
	FILE *f = strcmp(fc->files_from, "-") ? fopen(fc->files_from, "re") : stdin;
	char *line = NULL, *abs = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int ret = EXIT_CLEAN;

	if (!f) {
		error("cannot read '%s': %s", fc->files_from, strerror(errno));
		return EXIT_CANTRUN;
	}
	while (!ret && (len = getdelim(&line, &cap, fc->files_nul ? '\0' : '\n', f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == (fc->files_nul ? '\0' : '\n'))
			line[--len] = '\0';
		if (!len)
			continue;
		if ((size_t)len != strlen(line)) {
			error("%s: entry %zu holds a NUL byte (use --null for NUL-separated paths)",
			      fc->files_from, lineno);
			ret = EXIT_USAGE;
			break;
		}
		if (asprintf(&abs, "%s%s", line[0] == '/' ? "" : "/", line) < 0) {
			abs = NULL;
			ret = EXIT_CANTRUN;
			break;
		}
		if (strlen(abs) >= 4096 || !lctl_path_plain(abs)) {
			error("%s: entry %zu, '%s', is no path inside the volume without empty, '.' "
			      "or '..' components",
			      fc->files_from, lineno, line);
			ret = EXIT_USAGE;
		} else if (lctl_strv_add(l, abs)) {
			ret = EXIT_CANTRUN;
		}
		free(abs);
	}
	if (!ret && ferror(f)) {
		error("cannot read '%s': %s", fc->files_from, strerror(errno));
		ret = EXIT_CANTRUN;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

/* --retry-failed: the failed files of the outcome log (--log, or STATE_DIR's) into @l. */
static int read_failed(const struct fix_cli *fc, struct lctl_strv *l)
{
	struct lctl_error err = { 0 };
	struct lctl_strv inc = { 0 };
	char dir[4400];
	size_t bad = 0, i;
	int fd = fc->log_fd, ret;
	struct stat st;

	if (fd < 0 && (fd = lctl_state_open(fc->state_dir, LCTL_OUTCOME_LOG, 0, &err)) < 0) {
		error("cannot read the outcome log '%s': %s", fc->log_path, err.msg);
		return EXIT_CANTRUN;
	}
	/* a --log that is a pipe or a device (/dev/stderr) has nothing to read back */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd != fc->log_fd)
			close(fd);
		error("cannot read the outcome log '%s': not a regular file", fc->log_path);
		return EXIT_CANTRUN;
	}
	ret = lctl_outcome_failed(fd, l, &bad, &inc, &err);
	if (fd != fc->log_fd)
		close(fd);
	if (ret) {
		error("cannot read the outcome log '%s': %s", fc->log_path, err.msg);
		return EXIT_CANTRUN;
	}
	if (bad)
		warning("%zu lines of the outcome log '%s' are no outcome of a file: left out", bad,
			fc->log_path);
	/* a pool worker's failed outcomes past the log's budget: that server's own log has them */
	for (i = 0; i < inc.n; i++) {
		lctl_worker_state_dir(fc->state_dir, inc.v[i], dir, sizeof(dir));
		warning("the retry list may be incomplete for server %s: the outcome log '%s' "
			"says some of its failed outcomes were not written to it; its own outcome "
			"log on that server, %s/%s, has them",
			inc.v[i], fc->log_path, dir, LCTL_OUTCOME_LOG);
	}
	lctl_strv_free(&inc);
	return EXIT_CLEAN;
}

int listed_open(const struct fix_cli *fc, struct listed_dirs *ld)
{
	int ret;

	memset(ld, 0, sizeof(*ld));
	ret = fc->retry_failed ? read_failed(fc, &ld->l) : read_files_from(fc, &ld->l);
	if (ret) {
		lctl_strv_free(&ld->l);
		return ret;
	}
	/* each directory's names together */
	if (ld->l.n)
		qsort(ld->l.v, ld->l.n, sizeof(*ld->l.v), cmp_dir_name);
	return EXIT_CLEAN;
}

int listed_next(struct listed_dirs *ld, struct lctl_fix_opts *o)
{
	struct listed_dir *w = &ld->cur;
	const struct lctl_strv *l = &ld->l;
	size_t i = ld->next, j, k, dlen;

	free(w->names);
	w->names = NULL;
	w->n = 0;
	o->path = NULL;
	o->wanted = NULL;
	o->wanted_arg = NULL;
	if (i >= l->n)
		return 0;
	/* the names (after the last '/'), this directory's run of them */
	dlen = (size_t)(strrchr(l->v[i], '/') - l->v[i]);
	snprintf(ld->dir, sizeof(ld->dir), "%.*s", (int)(dlen ? dlen : 1), l->v[i]);
	for (j = i; j < l->n; j++) {
		const char *s = strrchr(l->v[j], '/');

		if ((size_t)(s - l->v[j]) != dlen || strncmp(l->v[j], l->v[i], dlen))
			break;
	}
	w->dir = ld->dir;
	w->names = calloc(j - i, sizeof(*w->names));
	if (!w->names)
		return -1;
	for (k = i; k < j; k++)
		if (!w->n || strcmp(w->names[w->n - 1], strrchr(l->v[k], '/') + 1))
			w->names[w->n++] = strrchr(l->v[k], '/') + 1;
	qsort(w->names, w->n, sizeof(*w->names), lctl_cmp_strp);
	ld->next = j;
	ld->dirs++;
	o->path = ld->dir;
	o->wanted = wanted_name;
	o->wanted_arg = w;
	return 1;
}

void listed_close(struct listed_dirs *ld, struct lctl_fix_opts *o)
{
	free(ld->cur.names);
	ld->cur.names = NULL;
	lctl_strv_free(&ld->l);
	o->path = NULL;
	o->wanted = NULL;
	o->wanted_arg = NULL;
}

int exit_worse(int a, int b)
{
	static const int order[] = { EXIT_CLEAN, EXIT_WINDOW,  EXIT_PROBLEMS,
				     EXIT_USAGE, EXIT_CANTRUN, EXIT_INTERRUPTED };
	size_t i, ia = 0, ib = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == a)
			ia = i;
		if (order[i] == b)
			ib = i;
	}
	return ia >= ib ? a : b;
}
