/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "status.h"
#include "cli.h"
#include "output.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void rate_sample(struct rate_tracker *rt, double now, uint64_t dirs, uint64_t files, uint64_t bytes)
{
	unsigned i;

	if (rt->n && now - rt->last < 0.5)
		return;
	rt->last = now;
	i = (rt->head + rt->n) % RATE_SAMPLES;
	if (rt->n == RATE_SAMPLES)
		rt->head = (rt->head + 1) % RATE_SAMPLES;
	else
		rt->n++;
	rt->t[i] = now;
	rt->dirs[i] = (double)dirs;
	rt->files[i] = (double)files;
	rt->bytes[i] = (double)bytes;
}

/* Rate of one series over the last @window seconds; 0 without two samples. */
static double rate(const struct rate_tracker *rt, const double *series, double window)
{
	unsigned last, first, k;

	if (rt->n < 2)
		return 0;
	last = (rt->head + rt->n - 1) % RATE_SAMPLES;
	first = last;
	for (k = 1; k < rt->n; k++) {
		unsigned i = (rt->head + rt->n - 1 - k) % RATE_SAMPLES;

		if (rt->t[last] - rt->t[i] > window)
			break;
		first = i;
	}
	if (first == last || rt->t[last] <= rt->t[first])
		return 0;
	return (series[last] - series[first]) / (rt->t[last] - rt->t[first]);
}

void error_ring_add(struct error_ring *er, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(er->msg[er->next], sizeof(er->msg[0]), fmt, ap);
	va_end(ap);
	er->next = (er->next + 1) % ERROR_RING;
	if (er->n < ERROR_RING)
		er->n++;
}

void share_init(struct share_tracker *st, struct lctl_volume *vol)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	st->n = lctl_volume_nsubvols(vol);
	st->names = calloc(st->n, sizeof(*st->names));
	st->bytes_now = calloc(st->n, sizeof(double));
	st->target_ring = calloc(st->n, sizeof(double));
	if (!st->names || !st->bytes_now || !st->target_ring)
		abort();
	for (i = 0; i < st->n; i++)
		st->names[i] = lctl_volume_subvol(vol, i)->name;
}

void share_release(struct share_tracker *st)
{
	free(st->names);
	free(st->bytes_now);
	free(st->target_ring);
}

static double ring_share(const struct lctl_range *r)
{
	if ((r->start == 0 && r->stop == 0) || r->stop < r->start)
		return 0;
	return ((double)r->stop - (double)r->start + 1.0) / 4294967296.0;
}

void share_add(struct share_tracker *st, const struct lctl_repair_report *rr)
{
	const struct lctl_dir_report *p = rr->plan;
	size_t i;

	if (!p || p->nsubvols != st->n)
		return;
	if (!rr->data_phase)
		st->first_pass = true;
	/* a clean-first run sees each directory twice: the first pass counted it already */
	if (!rr->data_phase || !st->first_pass) {
		st->dirs++;
		for (i = 0; i < st->n; i++) {
			st->bytes_now[i] += (double)p->subvol_bytes[i];
			st->target_ring[i] += ring_share(&p->planned[i]);
		}
	}
	for (i = 0; i < rr->nfiles; i++) {
		const struct lctl_file_outcome *o = &rr->files[i];

		if (o->action != LCTL_FILE_MIGRATED || o->from < 0 || o->to < 0 ||
		    (size_t)o->from >= st->n || (size_t)o->to >= st->n)
			continue;
		st->bytes_now[o->from] -= (double)o->size;
		st->bytes_now[o->to] += (double)o->size;
	}
}

/* Branching estimate of the directories a crawl will find, from what it found so far. */
static uint64_t estimate_total(const struct lctl_progress *p)
{
	double done = (double)p->dirs_done, seen = (double)p->dirs_seen, b, pending;

	if (!p->dirs_done)
		return p->dirs_seen;
	pending = seen - done;
	b = (seen - 1) / done; /* children found per directory visited */
	if (b >= 0.95)
		return (uint64_t)(seen + pending * 2);
	return (uint64_t)(done + pending / (1 - b) + 0.5);
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

struct json_object *status_servers_json(const struct lctl_progress *p)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < p->nservers; i++) {
		const struct lctl_server_progress *sp = &p->servers[i];

		o = json_object_new_object();
		add(o, "name", out_name(sp->name));
		add(o, "state", json_object_new_string(sp->state));
		add(o, "directories", json_object_new_int64((int64_t)sp->dirs));
		add(o, "migrated", json_object_new_int64((int64_t)sp->migrated));
		add(o, "skipped", json_object_new_int64((int64_t)sp->skipped));
		add(o, "failed", json_object_new_int64((int64_t)sp->failed));
		add(o, "bytes_moved", json_object_new_int64((int64_t)sp->bytes));
		add(o, "seconds", json_object_new_double(sp->seconds));
		add(o, "bytes_per_sec",
		    json_object_new_double(sp->seconds > 0 ? (double)sp->bytes / sp->seconds : 0));
		add(o, "error", sp->error[0] ? out_name(sp->error) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *status_build(const struct status_info *si, const struct lctl_progress *p,
				 const struct lctl_fix_summary *sum, const struct rate_tracker *rt,
				 const struct share_tracker *st, const struct error_ring *er)
{
	struct json_object *j = json_object_new_object(), *o, *a;
	char host[256] = "";
	uint64_t est = estimate_total(p), examined = p->files;
	double drate = rate(rt, rt->dirs, 60), total_bytes = 0;
	size_t i;
	int x;

	gethostname(host, sizeof(host) - 1);
	add(j, "format_version", json_object_new_int(1));
	add(j, "command", json_object_new_string(si->command));
	add(j, "volume", json_object_new_string(si->volume));
	add(j, "path", out_name(si->path ? si->path : "/"));
	add(j, "host", json_object_new_string(host));
	add(j, "pid", json_object_new_int((int)getpid()));
	add(j, "state", json_object_new_string(si->state));
	add(j, "phase",
	    json_object_new_string(p->phase && strcmp(si->phase, "done") ? p->phase : si->phase));
	if (si->step)
		add(j, "step", json_object_new_string(si->step));
	/* the settle period of a fix: counted down while the phase is settle */
	if (p->settle_seconds > 0) {
		o = json_object_new_object();
		add(o, "seconds", json_object_new_double(p->settle_seconds));
		add(o, "remaining_seconds", json_object_new_double(p->settle_left));
		add(j, "settle", o);
	}
	add(j, "dry_run", json_object_new_boolean(si->dry_run));
	add(j, "mode", json_object_new_string(si->mode));
	add(j, "layout", json_object_new_string(si->layout));
	add(j, "started", json_object_new_int64((int64_t)si->started));
	add(j, "updated", json_object_new_int64((int64_t)time(NULL)));
	add(j, "elapsed", json_object_new_double(p->elapsed));
	if (si->exit_code >= 0)
		add(j, "exit_code", json_object_new_int(si->exit_code));
	o = json_object_new_object();
	add(o, "seen", json_object_new_int64((int64_t)p->dirs_seen));
	add(o, "done", json_object_new_int64((int64_t)p->dirs_done));
	add(o, "estimated_total", json_object_new_int64((int64_t)est));
	add(o, "not_clean", json_object_new_int64((int64_t)p->dirs_not_clean));
	if (sum)
		for (x = 0; x < LCTL_DIR_OUTCOME_COUNT; x++)
			add(o, lctl_dir_outcome_name(x),
			    json_object_new_int64((int64_t)sum->dir_outcome[x]));
	add(j, "directories", o);
	o = json_object_new_object();
	add(o, "examined", json_object_new_int64((int64_t)examined));
	/* live counts: they move file by file, not directory by directory */
	if (sum)
		for (x = 0; x < LCTL_FILE_ACTION_COUNT && x < 5; x++)
			add(o, lctl_file_action_name(x),
			    json_object_new_int64((int64_t)p->file_actions[x]));
	add(j, "files", o);
	add(j, "bytes_moved", json_object_new_int64((int64_t)(sum ? p->bytes_moved : p->bytes)));
	o = json_object_new_object();
	add(o, "dirs_per_sec_10s", json_object_new_double(rate(rt, rt->dirs, 10)));
	add(o, "dirs_per_sec_60s", json_object_new_double(drate));
	add(o, "files_per_sec_10s", json_object_new_double(rate(rt, rt->files, 10)));
	add(o, "files_per_sec_60s", json_object_new_double(rate(rt, rt->files, 60)));
	add(o, "bytes_per_sec_10s", json_object_new_double(rate(rt, rt->bytes, 10)));
	add(o, "bytes_per_sec_60s", json_object_new_double(rate(rt, rt->bytes, 60)));
	add(j, "rates", o);
	if (drate > 0 && est > p->dirs_done)
		add(j, "eta_seconds", json_object_new_double((double)(est - p->dirs_done) / drate));
	else
		add(j, "eta_seconds", NULL);
	/* a clean-first fix: "directories clean" and "data placed" apart, and since when clean */
	if (p->two_phase) {
		o = json_object_new_object();
		add(o, "directories_clean", json_object_new_int64((int64_t)p->dirs_clean));
		/* since this run made them so, or since the run it resumed in its data phase did */
		add(o, "all_clean", json_object_new_boolean(p->clean_at > 0 || p->clean_since > 0));
		add(o, "clean_since",
		    p->clean_since > 0 ? json_object_new_int64((int64_t)p->clean_since) : NULL);
		add(o, "clean_after_seconds",
		    p->clean_at > 0 ? json_object_new_double(p->clean_at) : NULL);
		add(o, "data_directories_placed", json_object_new_int64((int64_t)p->data_placed));
		add(j, "clean_first", o);
	}
	/* a fix spread over the pool: one row per server, as `gluster volume rebalance status` */
	if (p->nservers)
		add(j, "servers", status_servers_json(p));
	o = json_object_new_object();
	add(o, "active", json_object_new_int((int)p->active_workers));
	add(o, "paused", json_object_new_boolean(p->paused));
	a = json_object_new_array();
	for (i = 0; i < p->workers && i < 64; i++)
		json_object_array_add(a, out_name(p->worker_state[i]));
	add(o, "states", a);
	add(j, "workers", o);
	a = json_object_new_array();
	if (st) {
		for (i = 0; i < st->n; i++)
			total_bytes += st->bytes_now[i] > 0 ? st->bytes_now[i] : 0;
		for (i = 0; i < st->n; i++) {
			o = json_object_new_object();
			add(o, "name", json_object_new_string(st->names[i]));
			add(o, "data_share",
			    json_object_new_double(total_bytes > 0 && st->bytes_now[i] > 0
							   ? st->bytes_now[i] / total_bytes
							   : 0));
			add(o, "target_share",
			    json_object_new_double(st->dirs ? st->target_ring[i] / (double)st->dirs
							    : 0));
			json_object_array_add(a, o);
		}
	}
	add(j, "subvolumes", a);
	a = json_object_new_array();
	for (i = 0; er && i < er->n; i++)
		json_object_array_add(a, out_name(er->msg[(er->next + ERROR_RING - er->n + i) %
							  ERROR_RING]));
	add(j, "errors", a);
	return j;
}

void status_phase_line(struct json_object *st, char *buf, size_t size)
{
	const char *ph = js_str(st, "phase");
	long long done = (long long)js_int(st, "directories.done");
	long long seen = (long long)js_int(st, "directories.seen");
	struct json_object *a;
	size_t i, n, ready = 0;

	if (!strcmp(ph, "preflight")) {
		n = status_servers(st, &a);
		for (i = 0; i < n; i++)
			ready += !!strcmp(js_str(json_object_array_get_idx(a, i), "state"),
					  "starting");
		if (js_str(st, "step")[0])
			snprintf(buf, size, "Preflight   %s", js_str(st, "step"));
		else if (n)
			snprintf(buf, size,
				 "Preflight   the servers' workers connect to the volume: "
				 "%zu of %zu ready",
				 ready, n);
		else
			snprintf(buf, size, "Preflight   checking the volume");
	} else if (!strcmp(ph, "layout")) {
		snprintf(buf, size,
			 "Layout pass %lld of %lld directories seen have their final "
			 "layout, dirty (commit 1)",
			 done, seen);
	} else if (!strcmp(ph, "settle")) {
		snprintf(buf, size,
			 "Settle      %.0f s left of %.0f s: clients learn the new layouts "
			 "before anything moves",
			 ceil(js_double(st, "settle.remaining_seconds")),
			 js_double(st, "settle.seconds"));
	} else if (!strcmp(ph, "place")) {
		snprintf(buf, size,
			 "Placing     each server's worker moves the files on its own bricks");
	} else if (!strcmp(ph, "work")) {
		snprintf(buf, size, "%s %lld of %lld directories seen",
			 js_int(st, "dry_run")			 ? "Planning   "
			 : strcmp(js_str(st, "mode"), "migrate") ? "Linking, verifying, stamping:"
								 : "Placing, verifying, stamping:",
			 done, seen);
	} else if (!strcmp(ph, "top")) {
		snprintf(buf, size, "Top         the top directory, last");
	} else if (!strcmp(ph, "data")) {
		snprintf(buf, size,
			 "Data        moving the data behind the links, every directory "
			 "clean: %lld of %lld directories seen",
			 done, seen);
	} else if (!strcmp(ph, "scan")) {
		snprintf(buf, size, "Scan        %lld of %lld directories seen inspected", done,
			 seen);
	} else {
		snprintf(buf, size, "Phase       %s", ph);
	}
}

/* Write the serialized status @s as DIR/progress.json. 0 or -errno. */
static int publish(const char *dir, const char *s)
{
	size_t len = strlen(s);
	struct lctl_error err;
	char *buf = malloc(len + 1);
	int ret;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, s, len);
	buf[len++] = '\n';
	/* a fresh temporary renamed over it: a link planted there is replaced (statedir.c) */
	ret = lctl_state_write(dir, STATUS_FILE, buf, len, false, &err);
	free(buf);
	return ret ? -(err.sys_errno ? err.sys_errno : EIO) : 0;
}

int status_publish(const char *dir, struct json_object *status)
{
	/* a sink: its strings escaped (status_read() undoes it), @status left raw for the dashboard */
	char *s = out_json_dup(status, JSON_C_TO_STRING_PLAIN);
	int ret = publish(dir, s);

	free(s);
	return ret;
}

struct json_object *status_read(const char *dir, struct lctl_error *err)
{
	struct json_tokener *tok;
	struct json_object *o = NULL;
	char *buf = malloc(STATUS_MAX);
	ssize_t n;

	if (!buf)
		abort();
	/* never a FIFO, a device or a link to one, and never more than STATUS_MAX bytes */
	n = lctl_state_read(dir, STATUS_FILE, buf, STATUS_MAX, err);
	if (n >= 0) {
		tok = json_tokener_new();
		if (!tok)
			abort();
		o = json_tokener_parse_ex(tok, buf, (int)n);
		if (json_tokener_get_error(tok) != json_tokener_success ||
		    !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			o = NULL;
		}
		json_tokener_free(tok);
		/* its strings raw again, as status_build() made them: every sink escapes them */
		if (o)
			out_unescape_tree(o);
		if (!o && err) {
			err->code = LCTL_ECORRUPT;
			err->sys_errno = 0;
			snprintf(err->msg, sizeof(err->msg), "'%.150s/%s' is not a JSON object",
				 dir, STATUS_FILE);
		}
	}
	free(buf);
	return o;
}

int control_send(const char *dir, const char *cmd)
{
	struct lctl_error err;
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);

	if (n < 0 || (size_t)n >= sizeof(line))
		return -EINVAL;
	/* .control.tmp is made afresh (O_EXCL), never followed, and renamed (statedir.c) */
	if (lctl_state_write(dir, CONTROL_FILE, line, (size_t)n, false, &err))
		return -(err.sys_errno ? err.sys_errno : EIO);
	return 0;
}

enum control_cmd control_take(const char *dir, int *workers)
{
	char line[64] = "";
	enum control_cmd c = CONTROL_NONE;

	/* renamed away before it is read: a command sent meanwhile waits for the next take */
	if (lctl_state_take(dir, CONTROL_FILE, line, sizeof(line), NULL) <= 0)
		return CONTROL_NONE;
	if (!strncmp(line, "pause", 5))
		c = CONTROL_PAUSE;
	else if (!strncmp(line, "resume", 6))
		c = CONTROL_RESUME;
	else if (!strncmp(line, "stop", 4))
		c = CONTROL_STOP;
	else if (sscanf(line, "workers %d", workers) == 1 && *workers >= 1 && *workers <= 64)
		c = CONTROL_WORKERS;
	return c;
}

static struct json_object *js_get(struct json_object *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path),
			 path);
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : NULL;
	}
	return o;
}

int64_t js_int(struct json_object *o, const char *path)
{
	return json_object_get_int64(js_get(o, path));
}

double js_double(struct json_object *o, const char *path)
{
	return json_object_get_double(js_get(o, path));
}

const char *js_str(struct json_object *o, const char *path)
{
	struct json_object *v = js_get(o, path);

	return v ? json_object_get_string(v) : "";
}

const char *const status_server_header = "Server                   State         Dirs  Migrated  "
					 "Skipped  Failed      Moved     Rate/s";

void status_server_row(struct json_object *o, char *buf, size_t size)
{
	char b1[32], b2[32];
	char *name = out_name_dup(js_str(o, "name")), *e = out_name_dup(js_str(o, "error"));

	snprintf(buf, size, "%-24s %-9s %8lld %9lld %8lld %7lld %10s %10s%s%s", name ? name : "",
		 out_esc(js_str(o, "state")), (long long)js_int(o, "directories"),
		 (long long)js_int(o, "migrated"), (long long)js_int(o, "skipped"),
		 (long long)js_int(o, "failed"),
		 human_bytes((uint64_t)js_int(o, "bytes_moved"), b1, sizeof(b1)),
		 human_bytes((uint64_t)js_double(o, "bytes_per_sec"), b2, sizeof(b2)),
		 e && e[0] ? "  " : "", e ? e : "");
	free(name);
	free(e);
}

size_t status_servers(struct json_object *st, struct json_object **rows)
{
	if (!json_object_object_get_ex(st, "servers", rows) ||
	    !json_object_is_type(*rows, json_type_array))
		return 0;
	return json_object_array_length(*rows);
}

void status_print_servers(FILE *f, struct json_object *st)
{
	struct json_object *a;
	char row[512];
	size_t i, n = status_servers(st, &a);

	if (n)
		fprintf(f, "%s\n", status_server_header);
	for (i = 0; i < n; i++) {
		status_server_row(json_object_array_get_idx(a, i), row, sizeof(row));
		fprintf(f, "%s\n", row);
	}
}
