/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether GlusterFS's own rebalance or remove-brick runs on a volume: only glusterd knows, so
 * ask it through the gluster CLI, `gluster --mode=script volume status VOLUME tasks --xml`.
 *
 * The CLI is the one at an absolute path (the first of a fixed list that exists and is
 * executable), started with an argument vector (no shell: the volume name is one argument
 * whatever it holds) by lib/run.c, with a closed stdin, its stderr discarded, an environment
 * of PATH and LC_ALL only, in a process group of its own, and its output read up to a bound. The answer is parsed with libxml2: glusterd
 * answered when cliOutput/opRet is 0; a task runs when one of its tasks has status 1
 * (GF_DEFRAG_STATUS_STARTED).
 */
#include "glustercli.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "layoutctl.h"
#include "run.h"

#define ANSWER_MAX (4u << 20) /* a task list is a few KiB */
#define ANSWER_TIMEOUT_MS 120000

const char *const lctl_gluster_paths[] = { "/usr/sbin/gluster", "/usr/bin/gluster", NULL };

const char *lctl_gluster_find(const char *const *paths)
{
	size_t i;

	for (i = 0; paths[i]; i++)
		if (paths[i][0] == '/' && !access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/* Run @gluster with @argv; its stdout into a NUL-terminated buffer (caller frees). */
static int run_capture(const char *gluster, char *const argv[], char **out, size_t *len)
{
	/* lib/run.c: no stdin, stderr discarded, an environment of PATH and LC_ALL only */
	struct lctl_run run = { .argv = argv,
				.prog = gluster,
				.io = { LCTL_RUN_NULL, LCTL_RUN_PIPE, LCTL_RUN_NULL } };
	struct pollfd pfd;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	int ret = 0;
	double t0;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	ret = lctl_run_start(&run);
	if (ret) {
		free(buf);
		return ret;
	}
	t0 = lctl_mono_seconds();
	pfd = (struct pollfd){ .fd = run.fd[1], .events = POLLIN };
	for (;;) {
		if ((long)(lctl_mono_seconds() - t0) * 1000 > ANSWER_TIMEOUT_MS) {
			ret = -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		if (n == cap) {
			char *nb;

			if (cap >= ANSWER_MAX) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(run.fd[1], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	lctl_run_close(&run);
	if (ret)
		lctl_run_kill(&run, SIGKILL);
	lctl_run_wait(&run, true, NULL);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int lctl_gluster_tasks_parse(const char *xml, size_t len, bool *running)
{
	xmlDocPtr doc;
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr ans = NULL, run = NULL;
	int ret = LCTL_GLUSTER_NO_ANSWER;

	*running = false;
	if (len > ANSWER_MAX || len > (size_t)INT32_MAX)
		return LCTL_GLUSTER_NO_ANSWER;
	doc = xmlReadMemory(xml, (int)len, "gluster.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return LCTL_GLUSTER_NO_ANSWER;
	ctx = xmlXPathNewContext(doc);
	if (ctx)
		ans = xmlXPathEvalExpression((const xmlChar
						      *)"boolean(/cliOutput[opRet = 0]/volStatus)",
					     ctx);
	if (ans && ans->type == XPATH_BOOLEAN && ans->boolval) {
		/* a task with status 1 (GF_DEFRAG_STATUS_STARTED) is in progress */
		run = xmlXPathEvalExpression(
			(const xmlChar
				 *)"boolean(/cliOutput/volStatus//tasks/task[normalize-space(status) = '1'])",
			ctx);
		if (run && run->type == XPATH_BOOLEAN) {
			*running = run->boolval;
			ret = LCTL_GLUSTER_OK;
		}
	}
	xmlXPathFreeObject(run);
	xmlXPathFreeObject(ans);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

int lctl_gluster_tasks(const char *gluster, const char *volume, bool *running)
{
	char a0[] = "gluster", a1[] = "--mode=script", a2[] = "volume", a3[] = "status",
	     a5[] = "tasks", a6[] = "--xml", *vol = strdup(volume);
	char *argv[] = { a0, a1, a2, a3, vol, a5, a6, NULL };
	char *out = NULL;
	size_t len = 0;
	int ret;

	*running = false;
	if (!vol)
		return LCTL_GLUSTER_CANNOT_RUN;
	ret = run_capture(gluster, argv, &out, &len);
	free(vol);
	if (ret)
		return LCTL_GLUSTER_CANNOT_RUN;
	ret = lctl_gluster_tasks_parse(out, len, running);
	free(out);
	return ret;
}

/*
 * A brick as the gluster CLI takes it: HOST:/PATH, the host as the volfile parser takes a
 * brick's host (lctl_host_check(): never an option), the path absolute and free of control
 * characters.
 */
bool lctl_gluster_brick_ok(const char *b)
{
	const char *colon = strstr(b, ":/");
	const char *p;

	if (!colon || lctl_host_check(b, (size_t)(colon - b)))
		return false;
	for (p = colon + 1; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

int lctl_gluster_remove_brick(const char *gluster, const char *volume, const char *const *bricks,
			      size_t nbricks, char *why, size_t whysize)
{
	char a0[] = "gluster", a1[] = "--mode=script", a2[] = "volume", a3[] = "remove-brick",
	     af[] = "force", ax[] = "--xml";
	char **argv = calloc(nbricks + 8, sizeof(*argv)), *out = NULL;
	xmlDocPtr doc = NULL;
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr ok = NULL, msg = NULL;
	size_t i, k = 0, len = 0;
	int ret = LCTL_GLUSTER_CANNOT_RUN;

	snprintf(why, whysize, "cannot run %s", gluster);
	if (!argv)
		return ret;
	argv[k++] = a0;
	argv[k++] = a1;
	argv[k++] = a2;
	argv[k++] = a3;
	/* copies: posix_spawn() wants char *const[] */
	for (i = 0; i <= nbricks; i++)
		if (!(argv[k++] = strdup(i ? bricks[i - 1] : volume)))
			goto out;
	argv[k++] = af;
	argv[k++] = ax;
	argv[k] = NULL;
	if (run_capture(gluster, argv, &out, &len))
		goto out;
	ret = LCTL_GLUSTER_NO_ANSWER;
	snprintf(why, whysize, "no answer from glusterd");
	if (len > ANSWER_MAX || len > (size_t)INT32_MAX)
		goto out;
	doc = xmlReadMemory(out, (int)len, "gluster.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc)
		ctx = xmlXPathNewContext(doc);
	if (ctx)
		ok = xmlXPathEvalExpression((const xmlChar *)"boolean(/cliOutput[opRet = 0])", ctx);
	if (ctx)
		msg = xmlXPathEvalExpression((const xmlChar *)"string(/cliOutput/opErrstr)", ctx);
	if (ok && ok->type == XPATH_BOOLEAN && ok->boolval) {
		ret = LCTL_GLUSTER_OK;
		why[0] = '\0';
	} else if (msg && msg->type == XPATH_STRING && msg->stringval && msg->stringval[0]) {
		/* one line of printable ASCII: it is shown in an error message */
		for (i = 0; msg->stringval[i] && i + 1 < whysize; i++)
			why[i] = msg->stringval[i] >= 0x20 && msg->stringval[i] < 0x7f
					 ? (char)msg->stringval[i]
					 : ' ';
		why[i] = '\0';
	}
out:
	xmlXPathFreeObject(ok);
	xmlXPathFreeObject(msg);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	free(out);
	for (i = 4; i < nbricks + 5; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

int lctl_gluster_tasks_idle(const char *volume, const char **gluster)
{
	bool running = false;

	*gluster = lctl_gluster_find(lctl_gluster_paths);
	if (!*gluster)
		return LCTL_TASKS_NO_CLI;
	switch (lctl_gluster_tasks(*gluster, volume, &running)) {
	case LCTL_GLUSTER_OK:
		return running ? LCTL_TASKS_RUNNING : LCTL_TASKS_IDLE;
	case LCTL_GLUSTER_CANNOT_RUN:
		return LCTL_TASKS_CANNOT_RUN;
	default:
		return LCTL_TASKS_NO_ANSWER;
	}
}
