/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line that starts each server's worker of a fix spread over the pool, built from
 * the volume's topology (its servers, and the names their bricks are listed under), and the
 * quoting of its words for the remote shell.
 *
 * This host's worker is this executable, run directly: /proc/self/exe [--server S...]
 * [--glusterd-dir D] --node N... worker OPTIONS -- VOLUME. Every other server's goes through
 * the remote shell: RSH-WORDS [-o BatchMode=yes] [--] HOST 'REMOTE-CMD' 'ARG'..., each word
 * after the host quoted for the shell on the other side (ssh hands it one command line). The
 * host comes from the volfile, which the parser refused unless it reads as a host
 * (lctl_host_check()); for ssh a "--" before it says so once more (OpenSSH's options end
 * there; another remote shell is left as given).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A growable NULL-terminated argv; @oom is sticky. */
struct wl_argv {
	char **v;
	size_t n;
	bool oom;
};

static void wa_take(struct wl_argv *a, char *s)
{
	char **v;

	if (!s || a->oom || !(v = realloc(a->v, (a->n + 2) * sizeof(*v)))) {
		free(s);
		a->oom = true;
		return;
	}
	a->v = v;
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void wa_add(struct wl_argv *a, const char *s)
{
	wa_take(a, strdup(s));
}

static void wa_addf_u(struct wl_argv *a, const char *opt, unsigned u)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", u);
	wa_add(a, opt);
	wa_add(a, buf);
}

static void wa_free(struct wl_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct wl_argv){ 0 };
}

char *lctl_shell_quote(const char *s)
{
	size_t n = 3, i;
	char *q, *p;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = p = malloc(n);
	if (!q)
		return NULL;
	*p++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* Whether "--NODE @h" is among the words @t has so far. */
static bool has_node(const struct wl_argv *t, const char *h)
{
	size_t k;

	for (k = 0; k + 1 < t->n; k++)
		if (!strcmp(t->v[k], "--node") && !strcmp(t->v[k + 1], h))
			return true;
	return false;
}

/* Which server this is (the volfile servers to ask, glusterd's store), and every name its
 * bricks are listed under (the --node words). */
static void worker_identity(const struct lctl_pool_topology *topo, size_t si,
			    const struct lctl_worker_line_opts *o, struct wl_argv *t)
{
	const struct lctl_server *srv = &topo->servers[si];
	size_t i, j;

	if (srv->mine) {
		for (i = 0; i < o->nservers; i++) {
			wa_add(t, "--server");
			wa_add(t, o->servers[i]);
		}
		if (o->glusterd_dir) {
			wa_add(t, "--glusterd-dir");
			wa_add(t, o->glusterd_dir);
		}
	} else {
		wa_add(t, "--server");
		wa_add(t, srv->host);
	}
	for (i = 0; i < topo->nsubvols; i++) {
		const struct lctl_subvol *sv = &topo->subvols[i];

		for (j = 0; j < sv->nbricks; j++)
			if (sv->bricks[j].server == si && !has_node(t, sv->bricks[j].host)) {
				wa_add(t, "--node");
				wa_add(t, sv->bricks[j].host);
			}
	}
}

void lctl_worker_state_dir(const char *state_dir, const char *host, char *out, size_t size)
{
	size_t i, n;
	int k;

	if (!size)
		return;
	k = snprintf(out, size, "%s/server-", state_dir);
	n = k < 0 ? 0 : (size_t)k < size ? (size_t)k : size - 1;
	for (i = 0; host[i] && n + 1 < size; i++)
		out[n++] =
			strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-",
			       host[i])
				? host[i]
				: '_';
	out[n] = '\0';
}

/* The worker's own arguments (after the command that reaches its server). */
static void worker_args(const struct lctl_pool_topology *topo, size_t si,
			const struct lctl_worker_line_opts *o, struct wl_argv *t)
{
	char buf[64], dir[4400];

	worker_identity(topo, si, o, t);
	wa_add(t, "worker");
	wa_addf_u(t, "--parallel", o->parallel ? o->parallel : LCTL_FIX_DEFAULT_PARALLEL);
	if (o->migrations)
		wa_addf_u(t, "--migrations", o->migrations);
	if (o->files_per_sec > 0) {
		snprintf(buf, sizeof(buf), "%.6g", o->files_per_sec);
		wa_add(t, "--rate");
		wa_add(t, buf);
	}
	if (o->bytes_per_sec > 0) {
		snprintf(buf, sizeof(buf), "%.6g", o->bytes_per_sec / 1e6);
		wa_add(t, "--bandwidth");
		wa_add(t, buf);
	}
	if (o->gfapi_only) {
		wa_add(t, "--brick-reads");
		wa_add(t, "gfapi");
	}
	/* its own watchdog: a GlusterFS call stuck there is stopped there (fix.c hang_check) */
	wa_addf_u(t, "--hang-timeout", o->hang_timeout_s);
	if (o->hold_limit_s)
		wa_addf_u(t, "--hold-limit", o->hold_limit_s);
	/* its own state directory on its server: several workers may share a host in tests */
	lctl_worker_state_dir(o->state_dir, topo->servers[si].host, dir, sizeof(dir));
	wa_add(t, "--state-dir");
	wa_add(t, dir);
	wa_add(t, "--"); /* a volume name may start with '-' */
	wa_add(t, o->volume);
}

/* Whether the remote shell's words @a are ssh's own (named ssh), without a "--" yet. */
static bool rsh_is_ssh(const struct wl_argv *a)
{
	const char *base;
	size_t k;

	if (!a->n)
		return false;
	base = strrchr(a->v[0], '/');
	if (strcmp(base ? base + 1 : a->v[0], "ssh"))
		return false;
	for (k = 1; k < a->n; k++)
		if (!strcmp(a->v[k], "--"))
			return false;
	return true;
}

/* Whether the remote shell's words @a set ssh's BatchMode already. */
static bool rsh_has_batchmode(const struct wl_argv *a)
{
	size_t k;

	for (k = 1; k < a->n; k++)
		if (strcasestr(a->v[k], "batchmode"))
			return true;
	return false;
}

/* The remote shell's words (split at spaces, as rsync's -e), up to the host. */
static void rsh_words(const char *r, struct wl_argv *a)
{
	while (*r) {
		size_t w = strcspn(r, " ");

		if (w)
			wa_take(a, strndup(r, w));
		r += w + (r[w] == ' ');
	}
	/* ssh never asks on the terminal (under the dashboard): it fails instead */
	if (rsh_is_ssh(a)) {
		if (!rsh_has_batchmode(a)) {
			wa_add(a, "-o");
			wa_add(a, "BatchMode=yes");
		}
		wa_add(a, "--");
	}
}

/* Server @si's whole command line into @a. */
static void worker_line(const struct lctl_pool_topology *topo, size_t si,
			const struct lctl_worker_line_opts *o, struct wl_argv *a)
{
	struct wl_argv t = { 0 };
	size_t k;

	worker_args(topo, si, o, &t);
	a->oom = t.oom;
	if (topo->servers[si].mine) {
		wa_add(a, "/proc/self/exe");
		for (k = 0; k < t.n; k++)
			wa_add(a, t.v[k]);
	} else {
		rsh_words(o->rsh ? o->rsh : "ssh", a);
		wa_add(a, topo->servers[si].host);
		/* one word, the program: the remote shell runs nothing else of ours */
		wa_take(a, lctl_shell_quote(o->remote_cmd ? o->remote_cmd : "layoutctl"));
		for (k = 0; k < t.n; k++)
			wa_take(a, lctl_shell_quote(t.v[k]));
	}
	wa_free(&t);
}

void lctl_worker_lines_free(struct lctl_worker_lines *wl)
{
	size_t i;

	for (i = 0; wl->argv && i < wl->n; i++) {
		struct wl_argv a = { wl->argv[i], 0, false };

		while (a.v && a.v[a.n])
			a.n++;
		wa_free(&a);
	}
	free(wl->argv);
	free(wl->spec);
	*wl = (struct lctl_worker_lines){ 0 };
}

int lctl_worker_lines_from(const struct lctl_pool_topology *topo,
			   const struct lctl_worker_line_opts *o, struct lctl_worker_lines *out,
			   struct lctl_error *err)
{
	size_t i, n = topo->nservers;

	*out = (struct lctl_worker_lines){ 0 };
	out->spec = calloc(n ? n : 1, sizeof(*out->spec));
	out->argv = calloc(n ? n : 1, sizeof(*out->argv));
	if (!out->spec || !out->argv)
		goto oom;
	out->n = n;
	for (i = 0; i < n; i++) {
		struct wl_argv a = { 0 };

		worker_line(topo, i, o, &a);
		out->argv[i] = a.v;
		if (a.oom)
			goto oom;
		out->spec[i].server = topo->servers[i].host;
		out->spec[i].argv = a.v;
	}
	return 0;
oom:
	lctl_worker_lines_free(out);
	return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
}

int lctl_worker_lines_build(const struct lctl_volume *vol, const struct lctl_worker_line_opts *o,
			    struct lctl_worker_lines *out, struct lctl_error *err)
{
	struct lctl_pool_topology topo = { NULL, lctl_volume_nservers(vol), NULL,
					   lctl_volume_nsubvols(vol) };
	struct lctl_server *srv = calloc(topo.nservers ? topo.nservers : 1, sizeof(*srv));
	struct lctl_subvol *sv = calloc(topo.nsubvols ? topo.nsubvols : 1, sizeof(*sv));
	size_t i;
	int ret;

	*out = (struct lctl_worker_lines){ 0 };
	if (!srv || !sv) {
		free(srv);
		free(sv);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	/* copies of the handles' entries: the strings stay the volume's */
	for (i = 0; i < topo.nservers; i++)
		srv[i] = *lctl_volume_server_at(vol, i);
	for (i = 0; i < topo.nsubvols; i++)
		sv[i] = *lctl_volume_subvol(vol, i);
	topo.servers = srv;
	topo.subvols = sv;
	ret = lctl_worker_lines_from(&topo, o, out, err);
	free(srv);
	free(sv);
	return ret;
}
