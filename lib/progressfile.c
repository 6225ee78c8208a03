/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's published status: STATE_DIR/progress.json, both its ends.
 *
 * The job (fix, a drain's runs) builds one status object a second from its progress snapshot
 * (lctl_status_build()), writes it with lctl_status_write() and `layoutctl status` and `top`
 * read it back with lctl_status_read(); the dashboard draws the same objects, built in this
 * process (fix --dashboard, scan --dashboard) or read from the file.
 *
 * The file is one line of JSON (json-c's plain form, "/" written "\/") and a newline, written
 * to a fresh temporary and renamed over the name (lib/statedir.c), mode 0600. Keys:
 *
 *	format_version (1), command, volume, path, host, pid, state, phase, step (preflight),
 *	settle {seconds, remaining_seconds}, dry_run, mode, layout, started, updated, elapsed,
 *	exit_code (when finished), directories {seen, done, estimated_total, not_clean, settling
 *	and settling_only (a fix, while directories are held for their settle period: how many,
 *	and whether the phase's walk is over, only they left), one per directory outcome},
 *	files {examined, one per file action}, bytes_moved, rates {dirs,
 *	files, bytes per second over 10 s and 60 s}, to_move {files, bytes, directories,
 *	files_estimated, bytes_estimated} and files_left, bytes_left (a fix), eta_seconds,
 *	eta_basis, window {ends, seconds_left, done_in_window, files_left_at_end,
 *	bytes_left_at_end, directories_left_at_end} (a fix with a time window), clean_first {...} (a
 *	clean-first run), servers [...] (a fix spread over the pool), workers {active, paused,
 *	states}, subvolumes [{name, data_share, target_share}], errors [...]
 *
 * Strings in the object are raw (a path as the volume gave it); in the file every string is
 * escaped by lib/escape.c's rules, and a read gives them back raw, so each sink escapes them
 * once. A file written by hand (tests, contrib) may hold fewer keys: readers default them.
 * What is read back is untrusted: at most LCTL_STATUS_MAX bytes, no NUL, one JSON object and
 * white space, nothing else; its strings may hold any byte (the sinks escape them).
 */
#include "internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void lctl_rate_sample(struct lctl_rate_tracker *rt, double now, uint64_t dirs, uint64_t files,
		      uint64_t bytes)
{
	unsigned i;

	if (rt->n && now - rt->last < 0.5)
		return;
	rt->last = now;
	i = (rt->head + rt->n) % LCTL_RATE_SAMPLES;
	if (rt->n == LCTL_RATE_SAMPLES)
		rt->head = (rt->head + 1) % LCTL_RATE_SAMPLES;
	else
		rt->n++;
	rt->t[i] = now;
	rt->dirs[i] = (double)dirs;
	rt->files[i] = (double)files;
	rt->bytes[i] = (double)bytes;
}

/* Rate of one series over the last @window seconds; 0 without two samples. */
static double rate(const struct lctl_rate_tracker *rt, const double *series, double window)
{
	unsigned last, first, k;

	if (rt->n < 2)
		return 0;
	last = (rt->head + rt->n - 1) % LCTL_RATE_SAMPLES;
	first = last;
	for (k = 1; k < rt->n; k++) {
		unsigned i = (rt->head + rt->n - 1 - k) % LCTL_RATE_SAMPLES;

		if (rt->t[last] - rt->t[i] > window)
			break;
		first = i;
	}
	if (first == last || rt->t[last] <= rt->t[first])
		return 0;
	return (series[last] - series[first]) / (rt->t[last] - rt->t[first]);
}

void lctl_error_ring_add(struct lctl_error_ring *er, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(er->msg[er->next], sizeof(er->msg[0]), fmt, ap);
	va_end(ap);
	er->next = (er->next + 1) % LCTL_ERROR_RING;
	if (er->n < LCTL_ERROR_RING)
		er->n++;
}

int lctl_share_init(struct lctl_share_tracker *st, const struct lctl_volume *vol)
{
	size_t i, n = lctl_volume_nsubvols(vol);

	memset(st, 0, sizeof(*st));
	st->names = calloc(n ? n : 1, sizeof(*st->names));
	st->bytes_now = calloc(n ? n : 1, sizeof(double));
	st->target_ring = calloc(n ? n : 1, sizeof(double));
	if (!st->names || !st->bytes_now || !st->target_ring)
		return -LCTL_ENOMEM; /* n stays 0: no rows */
	st->n = n;
	for (i = 0; i < n; i++)
		st->names[i] = lctl_volume_subvol(vol, i)->name;
	return 0;
}

void lctl_share_release(struct lctl_share_tracker *st)
{
	free(st->names);
	free(st->bytes_now);
	free(st->target_ring);
	memset(st, 0, sizeof(*st));
}

static double ring_share(const struct lctl_range *r)
{
	if ((r->start == 0 && r->stop == 0) || r->stop < r->start)
		return 0;
	return ((double)r->stop - (double)r->start + 1.0) / 4294967296.0;
}

void lctl_share_add(struct lctl_share_tracker *st, const struct lctl_repair_report *rr)
{
	const struct lctl_dir_report *p = rr->plan;
	size_t i;

	if (!p || !st->n || p->nsubvols != st->n)
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

/*
 * The directories a walk will find, level by level: a level holds the directories found at
 * that depth or, if more, those its parent level will have found once all of it is visited
 * (the subdirectories found so far, and as many for each parent not visited yet as the
 * visited ones of its depth had on average). A level none of whose directories was visited
 * yet is taken to be the last: nothing says what lies below it, and the walk (a FIFO: level
 * by level) visits some of it before any deeper one, at which point it knows. So once the
 * walk has visited some directories of each level it found, each level has its own
 * branching, and what the tree's top levels show of a level holds for all of it.
 */
uint64_t lctl_estimate_dirs(const struct lctl_depth_counts *dc)
{
	double total = 0, level, next = 0, found = 0, b, left;
	unsigned d;

	for (d = 0; d < LCTL_DEPTH_LEVELS; d++)
		found += (double)dc->seen[d];
	for (d = 0; d < LCTL_DEPTH_LEVELS; d++) {
		level = (double)dc->seen[d] > next ? (double)dc->seen[d] : next;
		if (level < 0.5)
			break;
		total += level;
		/*
		 * the branching of the visits done; a visit under way has pushed some of its
		 * children already (they are in the next level's seen): those count as they are,
		 * and only the directories not visited yet are given the average
		 */
		b = dc->done[d] ? (double)dc->kids[d] / (double)dc->done[d] : 0;
		left = level - (double)dc->done[d] - (double)dc->busy[d];
		next = (double)dc->kids[d] + (double)dc->busy_kids[d] + (left > 0 ? left : 0) * b;
	}
	/* the last level holds the deeper ones too: found, never estimated */
	return total < found ? (uint64_t)found : (uint64_t)(total + 0.5);
}

/*
 * The directories of the whole run: those of earlier walks and the estimate of this one. A
 * walk of a tree the run walked whole before has that walk's count (lctl_progress.dirs_known)
 * until it finds more (made meanwhile: then the estimate) or ends: each level's branching,
 * guessed from the visits done so far, is off by as much as those differ from the rest (8 %
 * in fix-grow.sh's data phase, whose first visits had more children than its last).
 */
static uint64_t estimate_total(const struct lctl_progress *p)
{
	double done = (double)p->dirs_done, seen = (double)p->dirs_seen, b, pending;
	uint64_t walk = 0, est;
	unsigned d;

	if (p->dirs_known && p->dirs_seen <= p->dirs_known && p->dirs_done < p->dirs_seen)
		return p->dirs_known;

	for (d = 0; d < LCTL_DEPTH_LEVELS; d++)
		walk += p->depth.seen[d];
	if (walk && walk <= p->dirs_seen) {
		est = p->dirs_seen - walk + lctl_estimate_dirs(&p->depth);
		return est < p->dirs_seen ? p->dirs_seen : est;
	}
	/* no levels known (a status from elsewhere): the branching of the whole walk */
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

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

/* @known of @dirs directories' plans, for all @est of the walk's directories */
static double project(uint64_t known, uint64_t dirs, uint64_t est)
{
	if (!dirs || est <= dirs)
		return (double)known;
	return (double)known * (double)est / (double)dirs;
}

/* The larger of @eta and @left / @rate (when both are above 0); *@basis says whose it is. */
static double eta_max(double eta, double left, double rate, const char *name, const char **basis)
{
	if (left <= 0 || rate <= 0 || left / rate <= eta)
		return eta;
	*basis = name;
	return left / rate;
}

/* what is left of @left after @secs at @rate */
static double left_after(double left, double rate, double secs)
{
	return left > rate * secs ? left - rate * secs : 0;
}

void lctl_status_eta(const struct lctl_progress *p, const struct lctl_rate_tracker *rt, bool fix,
		     struct lctl_eta *e)
{
	double drate = rate(rt, rt->dirs, 60), frate = rate(rt, rt->files, 60);
	double brate = rate(rt, rt->bytes, 60);
	size_t i;

	memset(e, 0, sizeof(*e));
	e->eta = -1;
	e->window_left = -1;
	e->est_dirs = estimate_total(p);
	e->dirs_left = e->est_dirs > p->dirs_done ? (double)(e->est_dirs - p->dirs_done) : 0;
	if (drate > 0 && e->dirs_left > 0) {
		e->eta = e->dirs_left / drate;
		e->basis = "directories";
	}
	if (!fix)
		return;
	e->plan_files = p->plan_files;
	e->plan_bytes = p->plan_bytes;
	e->plan_dirs = p->plan_dirs;
	e->files_to_move = project(p->plan_files, p->plan_dirs, e->est_dirs);
	e->bytes_to_move = project(p->plan_bytes, p->plan_dirs, e->est_dirs);
	/* a pool's servers: each its own files, of the directories it inspected */
	for (i = 0; i < p->nservers; i++) {
		const struct lctl_server_progress *sp = &p->servers[i];

		e->plan_files += sp->plan_files;
		e->plan_bytes += sp->plan_bytes;
		e->plan_dirs = sp->plan_dirs > e->plan_dirs ? sp->plan_dirs : e->plan_dirs;
		e->files_to_move += project(sp->plan_files, sp->plan_dirs, e->est_dirs);
		e->bytes_to_move += project(sp->plan_bytes, sp->plan_dirs, e->est_dirs);
	}
	e->files_left = e->files_to_move - (double)p->file_actions[LCTL_FILE_MIGRATED];
	e->bytes_left = e->bytes_to_move - (double)p->bytes_moved;
	e->files_left = e->files_left > 0 ? e->files_left : 0;
	e->bytes_left = e->bytes_left > 0 ? e->bytes_left : 0;
	e->eta = eta_max(e->eta, e->files_left, frate, "files", &e->basis);
	e->eta = eta_max(e->eta, e->bytes_left, brate, "bytes", &e->basis);
	if (!p->deadline)
		return;
	/* the run stops at the window's end: what is left then waits for the next run */
	e->window_left = difftime(p->deadline, time(NULL));
	e->window_left = e->window_left > 0 ? e->window_left : 0;
	e->files_at_end = left_after(e->files_left, frate, e->window_left);
	e->bytes_at_end = left_after(e->bytes_left, brate, e->window_left);
	e->dirs_at_end = left_after(e->dirs_left, drate, e->window_left);
}

static struct json_object *num(double v)
{
	return json_object_new_int64((int64_t)(v + 0.5));
}

/*
 * What a fix moves and when it will be done (lctl_status_eta()): "to_move", "files_left",
 * "bytes_left", "eta_seconds" and its "eta_basis", and a time window's "window".
 */
static void add_moves(struct json_object *j, const struct lctl_progress *p,
		      const struct lctl_eta *e, bool fix)
{
	struct json_object *o;

	if (fix) {
		o = json_object_new_object();
		add(o, "files", json_object_new_int64((int64_t)e->plan_files));
		add(o, "bytes", json_object_new_int64((int64_t)e->plan_bytes));
		add(o, "directories", json_object_new_int64((int64_t)e->plan_dirs));
		add(o, "files_estimated", num(e->files_to_move));
		add(o, "bytes_estimated", num(e->bytes_to_move));
		add(j, "to_move", o);
		add(j, "files_left", num(e->files_left));
		add(j, "bytes_left", num(e->bytes_left));
	}
	add(j, "eta_seconds", e->eta >= 0 ? json_object_new_double(e->eta) : NULL);
	if (!fix)
		return;
	add(j, "eta_basis", e->basis ? str(e->basis) : NULL);
	if (e->window_left < 0)
		return;
	o = json_object_new_object();
	add(o, "ends", json_object_new_int64((int64_t)p->deadline));
	add(o, "seconds_left", json_object_new_double(e->window_left));
	add(o, "done_in_window",
	    e->eta >= 0 ? json_object_new_boolean(e->eta <= e->window_left) : NULL);
	add(o, "files_left_at_end", num(e->files_at_end));
	add(o, "bytes_left_at_end", num(e->bytes_at_end));
	add(o, "directories_left_at_end", num(e->dirs_at_end));
	add(j, "window", o);
}

struct json_object *lctl_status_servers_json(const struct lctl_progress *p)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; a && i < p->nservers; i++) {
		const struct lctl_server_progress *sp = &p->servers[i];

		o = json_object_new_object();
		if (!o)
			break;
		add(o, "name", str(sp->name));
		add(o, "state", str(sp->state));
		add(o, "directories", json_object_new_int64((int64_t)sp->dirs));
		add(o, "migrated", json_object_new_int64((int64_t)sp->migrated));
		add(o, "skipped", json_object_new_int64((int64_t)sp->skipped));
		add(o, "failed", json_object_new_int64((int64_t)sp->failed));
		add(o, "bytes_moved", json_object_new_int64((int64_t)sp->bytes));
		/* what its plans give it to move (its own files), of so many directories */
		add(o, "plan_files", json_object_new_int64((int64_t)sp->plan_files));
		add(o, "plan_bytes", json_object_new_int64((int64_t)sp->plan_bytes));
		add(o, "plan_directories", json_object_new_int64((int64_t)sp->plan_dirs));
		add(o, "seconds", json_object_new_double(sp->seconds));
		add(o, "bytes_per_sec",
		    json_object_new_double(sp->seconds > 0 ? (double)sp->bytes / sp->seconds : 0));
		add(o, "error", sp->error[0] ? str(sp->error) : NULL);
		/* only while its worker holds (its volume is not whole): why, for how long */
		if (sp->held[0]) {
			struct json_object *h = json_object_new_object();

			add(h, "reason", str(sp->held));
			add(h, "seconds", json_object_new_int64((int64_t)sp->held_seconds));
			add(o, "held", h);
		}
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *
lctl_status_build(const struct lctl_status_info *si, const struct lctl_progress *p,
		  const struct lctl_fix_summary *sum, const struct lctl_rate_tracker *rt,
		  const struct lctl_share_tracker *st, const struct lctl_error_ring *er)
{
	struct json_object *j = json_object_new_object(), *o, *a;
	char host[256] = "";
	uint64_t est, examined = p->files;
	double total_bytes = 0;
	struct lctl_eta eta;
	size_t i;
	int x;

	if (!j)
		return NULL;
	lctl_status_eta(p, rt, sum != NULL, &eta);
	est = eta.est_dirs;
	gethostname(host, sizeof(host) - 1);
	add(j, "format_version", json_object_new_int(1));
	add(j, "command", str(si->command));
	add(j, "volume", str(si->volume));
	add(j, "path", str(si->path ? si->path : "/"));
	add(j, "host", str(host));
	add(j, "pid", json_object_new_int((int)getpid()));
	add(j, "state", str(si->state));
	add(j, "phase", str(p->phase && strcmp(si->phase, "done") ? p->phase : si->phase));
	if (si->step)
		add(j, "step", str(si->step));
	/* the settle period of a fix: counted down while the phase is settle */
	if (p->settle_seconds > 0) {
		o = json_object_new_object();
		add(o, "seconds", json_object_new_double(p->settle_seconds));
		add(o, "remaining_seconds", json_object_new_double(p->settle_left));
		add(j, "settle", o);
	}
	add(j, "dry_run", json_object_new_boolean(si->dry_run));
	add(j, "mode", str(si->mode));
	add(j, "layout", str(si->layout));
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
	/* a fix: held for their settle period now; there only while some are */
	if (p->dirs_settling) {
		add(o, "settling", json_object_new_int64((int64_t)p->dirs_settling));
		add(o, "settling_only", json_object_new_boolean(p->settling_only));
	}
	if (sum)
		for (x = 0; x < LCTL_DIR_OUTCOME_COUNT; x++)
			add(o, lctl_dir_outcome_name(x),
			    json_object_new_int64((int64_t)sum->dir_outcome[x]));
	add(j, "directories", o);
	/* inside a big directory: its counter moves while the directory count cannot */
	if (p->dir_entries_seen) {
		o = json_object_new_object();
		add(o, "path", str(p->dir_entries_path));
		add(o, "entries_done", json_object_new_int64((int64_t)p->dir_entries_done));
		add(o, "entries_seen", json_object_new_int64((int64_t)p->dir_entries_seen));
		add(j, "directory_in_progress", o);
	}
	o = json_object_new_object();
	add(o, "examined", json_object_new_int64((int64_t)examined));
	/* live counts: they move file by file, not directory by directory */
	if (sum)
		for (x = 0; x < LCTL_FILE_ACTION_COUNT && x < 5; x++)
			add(o, lctl_file_action_name(x),
			    json_object_new_int64((int64_t)p->file_actions[x]));
	add(j, "files", o);
	add(j, "bytes_moved", json_object_new_int64((int64_t)(sum ? p->bytes_moved : p->bytes)));
	/* a fix's pace now (`layoutctl set` changes it): 0 is no limit */
	if (sum && p->migrations) {
		o = json_object_new_object();
		add(o, "files_per_sec", json_object_new_double(p->rate_limit));
		add(o, "bytes_per_sec", json_object_new_double(p->bandwidth_limit));
		add(o, "migrations", json_object_new_int((int)p->migrations));
		add(j, "pace", o);
	}
	o = json_object_new_object();
	add(o, "dirs_per_sec_10s", json_object_new_double(rate(rt, rt->dirs, 10)));
	add(o, "dirs_per_sec_60s", json_object_new_double(rate(rt, rt->dirs, 60)));
	add(o, "files_per_sec_10s", json_object_new_double(rate(rt, rt->files, 10)));
	add(o, "files_per_sec_60s", json_object_new_double(rate(rt, rt->files, 60)));
	add(o, "bytes_per_sec_10s", json_object_new_double(rate(rt, rt->bytes, 10)));
	add(o, "bytes_per_sec_60s", json_object_new_double(rate(rt, rt->bytes, 60)));
	add(j, "rates", o);
	add_moves(j, p, &eta, sum != NULL);
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
		add(j, "servers", lctl_status_servers_json(p));
	o = json_object_new_object();
	add(o, "active", json_object_new_int((int)p->active_workers));
	add(o, "paused", json_object_new_boolean(p->paused));
	/* held while a subvolume is gone: only then (lctl_fix_opts.hold_limit_s) */
	if (p->held) {
		struct json_object *h = json_object_new_object();

		add(h, "reason", str(p->held_why));
		add(h, "seconds", json_object_new_int64((int64_t)p->held_seconds));
		add(j, "held", h);
	}
	a = json_object_new_array();
	for (i = 0; a && i < p->workers && i < 64; i++)
		json_object_array_add(a, str(p->worker_state[i]));
	add(o, "states", a);
	add(j, "workers", o);
	a = json_object_new_array();
	if (st && a) {
		for (i = 0; i < st->n; i++)
			total_bytes += st->bytes_now[i] > 0 ? st->bytes_now[i] : 0;
		for (i = 0; i < st->n; i++) {
			o = json_object_new_object();
			add(o, "name", str(st->names[i]));
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
	for (i = 0; a && er && i < er->n; i++)
		json_object_array_add(a, str(er->msg[(er->next + LCTL_ERROR_RING - er->n + i) %
						     LCTL_ERROR_RING]));
	add(j, "errors", a);
	return j;
}

char *lctl_status_serialize(struct json_object *status)
{
	struct json_object *copy = NULL;
	char *buf = NULL;

	/* a sink: a copy's strings escaped (lctl_status_parse() undoes it), @status left raw */
	if (status && !json_object_deep_copy(status, &copy, NULL))
		buf = lctl_json_line(copy, JSON_C_TO_STRING_PLAIN);
	json_object_put(copy);
	return buf;
}

int lctl_status_write(const char *dir, struct json_object *status, struct lctl_error *err)
{
	char *buf = lctl_status_serialize(status);
	int ret;

	if (!buf)
		return lctl_seterr(err, status ? LCTL_ENOMEM : LCTL_EINVAL, 0,
				   "cannot serialize the status for '%.150s/%s'", dir,
				   LCTL_STATUS_FILE);
	/* a fresh temporary renamed over it: a link planted there is replaced (statedir.c) */
	ret = lctl_state_write(dir, LCTL_STATUS_FILE, buf, strlen(buf), false, err);
	free(buf);
	return ret;
}

static bool only_space(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

struct json_object *lctl_status_parse(const char *buf, size_t len, const char *name,
				      struct lctl_error *err)
{
	struct json_tokener *tok;
	struct json_object *o = NULL;
	size_t end;

	if (len >= LCTL_STATUS_MAX) {
		lctl_seterr(err, LCTL_ECORRUPT, 0, "'%.150s' is too big for a status file", name);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		lctl_seterr(err, LCTL_ECORRUPT, 0, "'%.150s' holds a NUL byte: not a status file",
			    name);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory reading '%.150s'", name);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object) || end > len ||
	    !only_space(buf + end, len - end)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	if (!o) {
		lctl_seterr(err, LCTL_ECORRUPT, 0, "'%.200s' is not a JSON object", name);
		return NULL;
	}
	/* its strings raw again, as lctl_status_build() made them: every sink escapes them */
	if (lctl_json_unescape_tree(o)) {
		json_object_put(o);
		lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory reading '%.150s'", name);
		return NULL;
	}
	return o;
}

struct json_object *lctl_status_get(struct json_object *o, const char *path)
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

struct json_object *lctl_status_read(const char *dir, struct lctl_error *err)
{
	struct json_object *o = NULL;
	char *buf = malloc(LCTL_STATUS_MAX), name[256];
	ssize_t n;

	if (!buf) {
		lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		return NULL;
	}
	/* never a FIFO, a device or a link to one, and never LCTL_STATUS_MAX bytes or more */
	n = lctl_state_read(dir, LCTL_STATUS_FILE, buf, LCTL_STATUS_MAX, err);
	if (n >= 0) {
		snprintf(name, sizeof(name), "%.150s/%s", dir, LCTL_STATUS_FILE);
		o = lctl_status_parse(buf, (size_t)n, name, err);
	}
	free(buf);
	return o;
}
