/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a fix (or a drain's fix run) takes from the volume before it starts and publishes
 * while it runs, beside progress.json (cmd-fix.c calls these):
 *
 *  - the settle period against the clients' caches: without --settle, the longest timeout of
 *    a cache in the volume's client graph (md-cache, nl-cache: lctl_volfile_client_cache())
 *    and a margin, when that is longer than the default; a shorter --settle is warned about;
 *  - --metrics-file: node_exporter textfile metrics (lctl_metrics_render()), written once
 *    before anything moves (a file that cannot be written stops the run there), then at every
 *    status write and at the end, each time replaced whole (lctl_metrics_write()). A pool run
 *    publishes every server's counters from what its worker reported here.
 *
 * One run at a time per process (a drain's runs follow each other): the state is file-local.
 */
#include "fixcli.h"
#include "msg.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	struct lctl_metrics_info mi;
	char host[256];
	bool warned; /* a failed write was said once */
	bool ended;  /* the end was published */
	struct lctl_progress last;
} M;

/* When the last run in @state_dir ended with exit status 0 (its progress.json), or 0. */
static time_t last_success(const char *state_dir)
{
	struct json_object *js = lctl_status_read(state_dir, NULL), *v;
	time_t t = 0;

	if (!js)
		return 0;
	v = lctl_status_get(js, "state");
	if (v && json_object_is_type(v, json_type_string) &&
	    !strcmp(json_object_get_string(v), "finished") &&
	    (v = lctl_status_get(js, "exit_code")) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int(v) == 0 && (v = lctl_status_get(js, "updated")) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
		t = (time_t)json_object_get_int64(v);
	json_object_put(js);
	return t;
}

static void settle_for_caches(struct fix_cli *fc, struct lctl_volume *vol)
{
	struct lctl_client_cache cc;
	unsigned s;

	lctl_volfile_client_cache(lctl_volume_volfile(vol), &cc);
	if (!cc.seconds)
		return;
	s = lctl_settle_for_cache(fc->settle, cc.seconds);
	if (!fc->settle_given) {
		if (s != fc->settle)
			verbose(2,
				"settle period %u s, not %u: clients of '%s' may keep a "
				"directory's old view for %u s (%s)",
				s, fc->settle, fc->volume, cc.seconds, cc.option);
		fc->settle = s;
		fc->o.settle_ms = s * 1000;
	} else if (fc->settle < cc.seconds && !fc->o.dry_run) {
		warning("--settle %u is shorter than the %u s clients of '%s' may keep a "
			"directory's old view (%s): one could still place a new file by the old "
			"layout; %u s is safe",
			fc->settle, cc.seconds, fc->volume, cc.option,
			lctl_settle_for_cache(0, cc.seconds));
	}
}

/* Write the metrics of @p; @first: a failure is an error (said), else warned about once. */
static int metrics_write(const struct fix_cli *fc, const struct lctl_progress *p, bool first)
{
	struct lctl_error err = { 0 };
	char *text;
	int ret;

	M.mi.updated = time(NULL);
	lctl_metrics_note(&M.mi, p, M.mi.updated);
	text = lctl_metrics_render(&M.mi, p);
	if (!text)
		abort();
	ret = lctl_metrics_write(fc->metrics_file, text, &err);
	free(text);
	if (ret && first)
		error("cannot write the metrics file: %s", err.msg);
	else if (ret && !M.warned)
		warning("cannot write the metrics file: %s (the run goes on)", err.msg);
	M.warned |= ret != 0;
	return ret;
}

/* The first write of the metrics file, before anything moves. Return: 0, or -1 (said). */
static int metrics_begin(struct fix_cli *fc)
{
	static struct lctl_progress p;

	memset(&M, 0, sizeof(M));
	gethostname(M.host, sizeof(M.host) - 1);
	M.mi = (struct lctl_metrics_info){ .command = fc->drain_cmd ? "drain" : "fix",
					   .volume = fc->volume,
					   .host = M.host,
					   .running = true,
					   .phase = "preflight",
					   .started = time(NULL),
					   .exit_code = -1,
					   .last_success = last_success(fc->state_dir) };
	memset(&p, 0, sizeof(p));
	return metrics_write(fc, &p, true) ? -1 : 0;
}

int fix_prelude(struct fix_cli *fc, struct lctl_volume *vol)
{
	size_t n = fc->metrics_file ? strlen(fc->metrics_file) : 0;

	/* the collector reads *.prom only, and names nothing else for us to replace */
	if (fc->metrics_file && (n < 6 || strcmp(fc->metrics_file + n - 5, ".prom") ||
				 fc->metrics_file[n - 6] == '/')) {
		error("--metrics-file '%s' is not a FILE.prom (node_exporter's textfile "
		      "collector reads only those)",
		      fc->metrics_file);
		return EXIT_USAGE;
	}
	if (fc->metrics_file && !fc->o.dry_run && metrics_begin(fc))
		return EXIT_CANTRUN;
	settle_for_caches(fc, vol);
	return EXIT_CLEAN;
}

void fix_publish(const struct fix_cli *fc, const struct lctl_progress *p,
		 const struct lctl_status_info *si)
{
	if (!fc->metrics_file || fc->o.dry_run || !M.mi.volume)
		return;
	M.mi.running = si->exit_code < 0;
	M.mi.phase = p->phase && strcmp(si->phase, "done") ? p->phase : si->phase;
	M.mi.exit_code = si->exit_code;
	if (si->exit_code == 0)
		M.mi.last_success = time(NULL);
	M.ended = si->exit_code >= 0;
	M.last = *p;
	metrics_write(fc, p, false);
}

void fix_publish_end(const struct fix_cli *fc, int ret)
{
	if (!fc->metrics_file || fc->o.dry_run || !M.mi.volume || M.ended)
		return;
	M.mi.running = false;
	M.mi.phase = "done";
	M.mi.exit_code = ret;
	M.ended = true;
	metrics_write(fc, &M.last, false);
}
