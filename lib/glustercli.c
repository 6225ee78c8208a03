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
 *
 * The same way, the compatibility check (glustercli.h) reads the cluster's op-version and the
 * op-version of every client connected to the volume's bricks.
 *
 * glusterd runs one command on a volume at a time: it holds a lock on the volume (or on the
 * whole cluster) for each, and refuses any other meanwhile with "Another transaction is in
 * progress" (opErrno EG_ANOTRANS, glusterd-errno.h). Any gluster command, from an
 * administrator, a monitoring job or another layoutctl, can meet ours that way; the question
 * is asked again after a pause growing from 0.1 to 2 s, within the bound of the question.
 */
#include "glustercli.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "layoutctl.h"
#include "run.h"

#define ANSWER_MAX (4u << 20) /* a task list is a few KiB */
#define ANSWER_TIMEOUT_MS 120000
/*
 * The health probe's `volume status`: it runs while a fix run holds (health.c), so a glusterd
 * that does not answer soon costs the hold at most this much.
 */
#define BRICKS_TIMEOUT_MS 15000

static long busy_wait_ms = -1; /* lctl_gluster_set_busy_wait(): < 0, the question's bound */

void lctl_gluster_set_busy_wait(long ms)
{
	busy_wait_ms = ms;
}

const char *const lctl_gluster_paths[] = { "/usr/sbin/gluster", "/usr/bin/gluster", NULL };

const char *lctl_gluster_find(const char *const *paths)
{
	size_t i;

	for (i = 0; paths[i]; i++)
		if (paths[i][0] == '/' && !access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/*
 * Run @gluster with @argv; its stdout into a NUL-terminated buffer (caller frees). Killed,
 * -ETIMEDOUT, when it has not finished after @timeout_ms.
 */
static int capture_once(const char *gluster, char *const argv[], char **out, size_t *len,
			long timeout_ms)
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
		if ((lctl_mono_seconds() - t0) * 1000 > (double)timeout_ms) {
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

/* @xml (bounded) as a document with an XPath context in *@ctx, or NULL (and *@ctx NULL). */
static xmlDocPtr read_doc(const char *xml, size_t len, xmlXPathContextPtr *ctx)
{
	xmlDocPtr doc;

	*ctx = NULL;
	if (len > ANSWER_MAX || len > (size_t)INT32_MAX)
		return NULL;
	doc = xmlReadMemory(xml, (int)len, "gluster.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc && !(*ctx = xmlXPathNewContext(doc))) {
		xmlFreeDoc(doc);
		doc = NULL;
	}
	return doc;
}

/* Whether the XPath boolean @expr is true in @ctx. */
static bool holds(xmlXPathContextPtr ctx, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	bool ret = o && o->type == XPATH_BOOLEAN && o->boolval;

	xmlXPathFreeObject(o);
	return ret;
}

bool lctl_gluster_busy_parse(const char *xml, size_t len)
{
	xmlXPathContextPtr ctx;
	xmlDocPtr doc = read_doc(xml, len, &ctx);
	/*
	 * the errno says it (30802, EG_ANOTRANS); glusterd's older cluster-wide lock sets none,
	 * only the text (which a peer's refusal quotes after "Locking failed on HOST.")
	 */
	bool ret = doc && holds(ctx, "boolean(/cliOutput[normalize-space(opRet) != '0' and "
				     "(normalize-space(opErrno) = '30802' or "
				     "contains(opErrstr, 'Another transaction'))])");

	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

/*
 * capture_once(), asked again while glusterd answers that another command holds its lock,
 * all within @timeout_ms: 0 with the answer, -EBUSY when glusterd was still busy at the end.
 */
static int run_capture(const char *gluster, char *const argv[], char **out, size_t *len,
		       long timeout_ms)
{
	double t0 = lctl_mono_seconds(), pause = 0.1, left, now, nap;
	struct timespec ts;
	long bound = busy_wait_ms >= 0 ? busy_wait_ms : timeout_ms;
	int ret;

	for (;;) {
		left = (double)timeout_ms / 1000 - (lctl_mono_seconds() - t0);
		ret = capture_once(gluster, argv, out, len, left > 0 ? (long)(left * 1000) : 0);
		if (ret || !lctl_gluster_busy_parse(*out, *len))
			return ret;
		free(*out);
		*out = NULL;
		*len = 0;
		now = lctl_mono_seconds();
		left = (double)bound / 1000 - (now - t0);
		if (left <= 0)
			return -EBUSY;
		/* 50 to 100 % of the pause, from the clock's microseconds: two askers fall apart */
		nap = pause * (0.5 + (double)((long long)(now * 1e6) % 1000) / 2000);
		nap = nap < left ? nap : left;
		ts.tv_sec = (time_t)nap;
		ts.tv_nsec = (long)((nap - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		pause = pause * 2 < 2.0 ? pause * 2 : 2.0;
	}
}

/* What a run_capture() that failed with @err means to a caller: enum LCTL_GLUSTER_*. */
static int not_answered(int err)
{
	return err == -EBUSY ? LCTL_GLUSTER_BUSY : LCTL_GLUSTER_CANNOT_RUN;
}

/* Parse @xml (bounded) when glusterd answered it (opRet 0): the document, or NULL. */
static xmlDocPtr answer_doc(const char *xml, size_t len, xmlXPathContextPtr *ctx)
{
	xmlDocPtr doc = read_doc(xml, len, ctx);

	if (!doc || holds(*ctx, "boolean(/cliOutput[opRet = 0])"))
		return doc;
	xmlXPathFreeContext(*ctx);
	*ctx = NULL;
	xmlFreeDoc(doc);
	return NULL;
}

int lctl_gluster_tasks_parse(const char *xml, size_t len, bool *running)
{
	xmlXPathContextPtr ctx;
	xmlDocPtr doc = answer_doc(xml, len, &ctx);
	xmlXPathObjectPtr ans = NULL, run = NULL;
	int ret = LCTL_GLUSTER_NO_ANSWER;

	*running = false;
	if (!doc)
		return ret;
	ans = xmlXPathEvalExpression((const xmlChar *)"boolean(/cliOutput/volStatus)", ctx);
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
	ret = run_capture(gluster, argv, &out, &len, ANSWER_TIMEOUT_MS);
	free(vol);
	if (ret)
		return not_answered(ret);
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
	xmlXPathObjectPtr msg = NULL;
	size_t i, k = 0, len = 0;
	int ret = LCTL_GLUSTER_CANNOT_RUN, err;

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
	err = run_capture(gluster, argv, &out, &len, ANSWER_TIMEOUT_MS);
	if (err == -EBUSY) {
		ret = LCTL_GLUSTER_BUSY;
		snprintf(why, whysize, "glusterd stayed busy with other commands on the volume");
	}
	if (err)
		goto out;
	ret = LCTL_GLUSTER_NO_ANSWER;
	snprintf(why, whysize, "no answer from glusterd");
	doc = read_doc(out, len, &ctx);
	if (!doc)
		goto out;
	msg = xmlXPathEvalExpression((const xmlChar *)"string(/cliOutput/opErrstr)", ctx);
	if (holds(ctx, "boolean(/cliOutput[opRet = 0])")) {
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
	case LCTL_GLUSTER_BUSY:
		return LCTL_TASKS_BUSY;
	default:
		return LCTL_TASKS_NO_ANSWER;
	}
}

/* The text of child element @name of @node (the first one), or NULL; xmlFree() it. */
static xmlChar *child_text(xmlNodePtr node, const char *name)
{
	xmlNodePtr k;

	for (k = node->children; k; k = k->next)
		if (k->type == XML_ELEMENT_NODE && !xmlStrcmp(k->name, (const xmlChar *)name))
			return xmlNodeGetContent(k);
	return NULL;
}

/* @s without the white space around it, as a new string (NULL: no memory, or @s NULL). */
static char *trimmed(const xmlChar *s)
{
	const char *b = (const char *)s, *e;

	if (!s)
		return NULL;
	while (*b == ' ' || *b == '\t' || *b == '\n')
		b++;
	e = b + strlen(b);
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		e--;
	return strndup(b, (size_t)(e - b));
}

void lctl_gluster_bricks_free(struct lctl_gluster_brick *bricks, size_t n)
{
	size_t i;

	for (i = 0; bricks && i < n; i++) {
		free(bricks[i].host);
		free(bricks[i].path);
	}
	free(bricks);
}

int lctl_gluster_bricks_parse(const char *xml, size_t len, const char *volume,
			      struct lctl_gluster_brick **bricks, size_t *n)
{
	xmlXPathContextPtr ctx;
	xmlDocPtr doc = answer_doc(xml, len, &ctx);
	xmlXPathObjectPtr vols = NULL;
	struct lctl_gluster_brick *b = NULL;
	size_t nb = 0, cap = 0;
	int ret = LCTL_GLUSTER_NO_ANSWER, i;

	*bricks = NULL;
	*n = 0;
	if (!doc)
		return ret;
	vols = xmlXPathEvalExpression((const xmlChar *)"/cliOutput/volStatus/volumes/volume", ctx);
	if (!vols || vols->type != XPATH_NODESET || !vols->nodesetval)
		goto out;
	for (i = 0; i < vols->nodesetval->nodeNr; i++) {
		xmlNodePtr v = vols->nodesetval->nodeTab[i], k;
		xmlChar *name = child_text(v, "volName");
		char *tname = trimmed(name);
		bool ours = tname && !strcmp(tname, volume);

		xmlFree(name);
		free(tname);
		if (!ours)
			continue;
		ret = LCTL_GLUSTER_OK;
		for (k = v->children; k; k = k->next) {
			xmlChar *host, *path, *status;
			char *th, *tp, *ts;

			if (k->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(k->name, (const xmlChar *)"node"))
				continue;
			if (nb == LCTL_GLUSTER_BRICKS_MAX)
				break;
			host = child_text(k, "hostname");
			path = child_text(k, "path");
			status = child_text(k, "status");
			th = trimmed(host);
			tp = trimmed(path);
			ts = trimmed(status);
			xmlFree(host);
			xmlFree(path);
			xmlFree(status);
			/* a brick has an absolute path; the daemons' rows say "localhost" */
			if (th && tp && ts && tp[0] == '/' && nb == cap) {
				struct lctl_gluster_brick *nbk;

				cap = cap ? 2 * cap : 16;
				nbk = realloc(b, cap * sizeof(*b));
				if (!nbk) {
					ret = LCTL_GLUSTER_NO_ANSWER;
					free(th);
					free(tp);
					free(ts);
					goto out;
				}
				b = nbk;
			}
			if (th && tp && ts && tp[0] == '/') {
				b[nb++] = (struct lctl_gluster_brick){ th, tp, !strcmp(ts, "1") };
				th = tp = NULL;
			}
			free(th);
			free(tp);
			free(ts);
		}
		break;
	}
out:
	if (ret == LCTL_GLUSTER_OK) {
		*bricks = b;
		*n = nb;
	} else {
		lctl_gluster_bricks_free(b, nb);
	}
	xmlXPathFreeObject(vols);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

int lctl_gluster_bricks(const char *gluster, const char *volume, struct lctl_gluster_brick **bricks,
			size_t *n)
{
	char a0[] = "gluster", a1[] = "--mode=script", a2[] = "volume", a3[] = "status",
	     a5[] = "--xml", *vol = strdup(volume);
	char *argv[] = { a0, a1, a2, a3, vol, a5, NULL };
	char *out = NULL;
	size_t len = 0;
	int ret;

	*bricks = NULL;
	*n = 0;
	if (!vol)
		return LCTL_GLUSTER_CANNOT_RUN;
	ret = run_capture(gluster, argv, &out, &len, BRICKS_TIMEOUT_MS);
	free(vol);
	if (ret)
		return not_answered(ret);
	ret = lctl_gluster_bricks_parse(out, len, volume, bricks, n);
	free(out);
	return ret;
}

int lctl_gluster_brick_online(const struct lctl_gluster_brick *bricks, size_t n, const char *host,
			      const char *path)
{
	size_t i;

	for (i = 0; host && path && i < n; i++)
		if (!strcmp(bricks[i].host, host) && !strcmp(bricks[i].path, path))
			return bricks[i].online;
	return -1;
}

/* A decimal op-version of at most 9 digits, white space around it allowed. */
static bool op_version_read(const xmlChar *s, unsigned *out)
{
	unsigned v = 0, digits = 0;

	if (!s)
		return false;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (++digits > 9)
			return false;
		v = v * 10 + (unsigned)(*s - '0');
	}
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s || !digits)
		return false;
	*out = v;
	return true;
}

int lctl_gluster_opversion_parse(const char *xml, size_t len, unsigned *op_version)
{
	xmlXPathContextPtr ctx;
	xmlDocPtr doc = answer_doc(xml, len, &ctx);
	xmlXPathObjectPtr v = NULL;
	int ret = LCTL_GLUSTER_NO_ANSWER;

	if (!doc)
		return ret;
	v = xmlXPathEvalExpression((const xmlChar
					    *)"string(/cliOutput/volGetopts/Opt[normalize-space(Option) = "
					      "'cluster.op-version']/Value)",
				   ctx);
	if (v && v->type == XPATH_STRING && op_version_read(v->stringval, op_version))
		ret = LCTL_GLUSTER_OK;
	xmlXPathFreeObject(v);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

/* @host "ADDR:PORT" as glusterd writes a client: ADDR, printable ASCII only, bounded. */
static void client_addr(const xmlChar *host, char *out, size_t size)
{
	const char *h = (const char *)host, *colon = strrchr(h, ':');
	size_t n = colon ? (size_t)(colon - h) : strlen(h), i;

	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		out[i] = h[i] > 0x20 && h[i] < 0x7f ? h[i] : '?';
	out[n] = '\0';
}

/* Count @addr once in @seen (a list of n addresses); true when it is new. */
static bool addr_new(char (*seen)[64], size_t *n, size_t cap, const char *addr)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(seen[i], addr))
			return false;
	if (*n < cap)
		snprintf(seen[(*n)++], 64, "%s", addr);
	return true;
}

int lctl_gluster_clients_parse(const char *xml, size_t len, struct lctl_compat *c)
{
	enum { SEEN_MAX = 4096 };
	xmlXPathContextPtr ctx;
	xmlDocPtr doc = answer_doc(xml, len, &ctx);
	xmlXPathObjectPtr vol = NULL, cl = NULL;
	char(*seen)[64] = NULL;
	size_t nseen = 0;
	int ret = LCTL_GLUSTER_NO_ANSWER, i;

	c->nclients = c->nold = 0;
	if (!doc)
		return ret;
	vol = xmlXPathEvalExpression((const xmlChar *)"boolean(/cliOutput/volStatus/volumes/volume)",
				     ctx);
	cl = xmlXPathEvalExpression(
		(const xmlChar *)"/cliOutput/volStatus/volumes/volume/node/clientsStatus/client",
		ctx);
	seen = calloc(SEEN_MAX, sizeof(*seen));
	if (!vol || vol->type != XPATH_BOOLEAN || !vol->boolval || !cl ||
	    cl->type != XPATH_NODESET || !seen)
		goto out;
	for (i = 0; cl->nodesetval && i < cl->nodesetval->nodeNr; i++) {
		xmlNodePtr n, k;
		xmlChar *host = NULL, *opv = NULL;
		unsigned v = 0;
		char addr[64];

		n = cl->nodesetval->nodeTab[i];
		for (k = n->children; k; k = k->next) {
			if (k->type != XML_ELEMENT_NODE)
				continue;
			if (!xmlStrcmp(k->name, (const xmlChar *)"hostname") && !host)
				host = xmlNodeGetContent(k);
			else if (!xmlStrcmp(k->name, (const xmlChar *)"opVersion") && !opv)
				opv = xmlNodeGetContent(k);
		}
		/* an op-version we cannot read counts as old (0): refusing is the safe side */
		if (host) {
			if (!op_version_read(opv, &v))
				v = 0;
			client_addr(host, addr, sizeof(addr));
			if (addr_new(seen, &nseen, SEEN_MAX, addr)) {
				c->nclients++;
				if (v < LCTL_CLIENT_MIN_OP_VERSION) {
					if (c->nold < LCTL_COMPAT_NAMED) {
						snprintf(c->old[c->nold].addr,
							 sizeof(c->old[c->nold].addr), "%s", addr);
						c->old[c->nold].op_version = v;
					}
					c->nold++;
				}
			}
		}
		xmlFree(host);
		xmlFree(opv);
	}
	ret = LCTL_GLUSTER_OK;
out:
	free(seen);
	xmlXPathFreeObject(cl);
	xmlXPathFreeObject(vol);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}

int lctl_gluster_compat(const char *gluster, const char *volume, struct lctl_compat *c)
{
	char a0[] = "gluster", a1[] = "--mode=script", a2[] = "volume", a3[] = "get", a4[] = "all",
	     a5[] = "cluster.op-version", a6[] = "--xml", s3[] = "status", s5[] = "clients",
	     *vol = strdup(volume);
	char *get[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	char *status[] = { a0, a1, a2, s3, vol, s5, a6, NULL };
	char *out = NULL;
	size_t len = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!vol)
		return LCTL_GLUSTER_CANNOT_RUN;
	ret = run_capture(gluster, get, &out, &len, ANSWER_TIMEOUT_MS);
	ret = ret ? not_answered(ret) : lctl_gluster_opversion_parse(out, len, &c->op_version);
	free(out);
	out = NULL;
	if (!ret) {
		ret = run_capture(gluster, status, &out, &len, ANSWER_TIMEOUT_MS);
		ret = ret ? not_answered(ret) : lctl_gluster_clients_parse(out, len, c);
	}
	free(out);
	free(vol);
	return ret;
}

enum lctl_compat_verdict lctl_compat_judge(const struct lctl_compat *c)
{
	if (c->op_version && c->op_version < LCTL_CLUSTER_MIN_OP_VERSION)
		return LCTL_COMPAT_OLD_CLUSTER;
	if (c->nold)
		return LCTL_COMPAT_OLD_CLIENTS;
	if (c->op_version > LCTL_CLUSTER_MAX_OP_VERSION)
		return LCTL_COMPAT_NEWER;
	return LCTL_COMPAT_OK;
}
