/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layoutctl scan VOLUME: a parallel, read-only health check of layouts and placement. */
#include "cli.h"
#include "dashboard.h"
#include "msg.h"
#include "output.h"
#include "argvalues.h"
#include "progress.h"
#include "textview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const cmd_scan_usage[] = {
	"VOLUME",
	"Check every directory's layout and every entry's placement, read-only.",
	"",
	"Reads each directory from every DHT subvolume's own view and reports directories whose",
	"layout does not match the volume (missing, incomplete, hole, overlap, commit-mixed,",
	"unstamped, decommissioned-range, malformed-layout) and entries away from their hashed",
	"subvolume (misplaced, stale-linkto, orphan-linkto, duplicate, migration-leftover).",
	"Changes nothing. Exit status: 0 clean, 1 not clean, 2 usage error, 3 could not run,",
	"130 interrupted.",
	"With -v (before or after 'scan') it lists every directory and entry that is not clean,",
	"with the reason; with the format prometheus it writes node_exporter textfile metrics.",
	NULL,
};

struct scan_cli {
	struct lctl_scan_opts o;
	int planner;	 /* enum lctl_planner */
	int brick_reads; /* enum brick_reads */
	bool all;
	bool dashboard;
	const char *volume;
};

/* Filled by the option parser from cmd_scan_options. */
static struct scan_cli sc_args = { .o.max_depth = -1 };

const struct lopt cmd_scan_options[] = {
	OPT_UINT('p', "parallel", &sc_args.o.parallel, 1, 64, "N",
		 "worker threads (default: 4 per core, at most 32)"),
	OPT_VOLPATH(0, "path", &sc_args.o.path, "SUBTREE",
		    "scan only this directory and what is below it"),
	OPT_INT(0, "max-depth", &sc_args.o.max_depth, 0, 100000, "N",
		"do not descend more than N levels below the start"),
	OPT_ENUM(0, "layout", &sc_args.planner, planner_words, "PLANNER",
		 "layout a fix would write, for the work estimate: gluster, min-move,\n"
		 "even-usage"),
	OPT_FLAG(0, "all", &sc_args.all,
		 "list clean directories and placed entries too (json, xml, -v)"),
	OPT_ENUM(0, "brick-reads", &sc_args.brick_reads, brick_reads_words, "HOW",
		 "auto (default): read the folders of this host's bricks directly\n"
		 "(pure distribute volumes); gfapi: everything through the bricks"),
	OPT_FLAG(0, "dashboard", &sc_args.dashboard,
		 "full-screen live view (keys: p pause, r resume, + - workers, q stop)"),
	OPT_HELP(),
	OPT_END(),
};

static struct json_object *problems_json(unsigned problems)
{
	struct json_object *a = json_object_new_array();
	unsigned b;

	for (b = 0; b < LCTL_DIR_PROBLEM_COUNT; b++)
		if (problems & (1u << b))
			json_object_array_add(a, json_object_new_string(
							 lctl_dir_problem_name(1u << b)));
	return a;
}

static struct json_object *range_json(struct lctl_volume *vol, size_t i, const char *state,
				      const struct lctl_range *r)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "subvolume", out_subvol(vol, (int)i));
	json_object_object_add(j, "state", json_object_new_string(state));
	json_object_object_add(j, "commit", json_object_new_int64(r->commit));
	json_object_object_add(j, "type", json_object_new_int64(r->type));
	json_object_object_add(j, "start", json_object_new_int64(r->start));
	json_object_object_add(j, "stop", json_object_new_int64(r->stop));
	return j;
}

static struct json_object *dir_json(struct lctl_volume *vol, const struct lctl_dir_report *r)
{
	struct json_object *j = json_object_new_object(), *a;
	size_t i;
	int s;

	json_object_object_add(j, "path", out_name(r->path));
	json_object_object_add(j, "clean", json_object_new_boolean(lctl_dir_report_clean(r)));
	json_object_object_add(j, "problems", problems_json(r->problems));
	if (r->notes & LCTL_DIR_NOTE_USER_LAYOUT)
		json_object_object_add(j, "user_layout", json_object_new_boolean(true));
	if (r->err)
		json_object_object_add(j, "error", json_object_new_string(strerror(r->err)));
	json_object_object_add(j, "commit", json_object_new_int64(r->commit));
	json_object_object_add(j, "files", json_object_new_int64((int64_t)r->nfiles));
	json_object_object_add(j, "subdirectories", json_object_new_int64((int64_t)r->nsubdirs));
	json_object_object_add(j, "bytes", json_object_new_int64((int64_t)r->bytes));
	a = json_object_new_object();
	for (s = 0; s < LCTL_ENTRY_STATE_COUNT; s++)
		json_object_object_add(a, lctl_entry_state_name(s),
				       json_object_new_int64((int64_t)r->count[s]));
	json_object_object_add(j, "entry_counts", a);
	if (r->layout) {
		a = json_object_new_array();
		for (i = 0; i < r->nsubvols; i++)
			json_object_array_add(a,
					      range_json(vol, i, out_layout_state(r->layout[i].err),
							 &r->layout[i].r));
		json_object_object_add(j, "layout", a);
	}
	if (r->layout_changes) {
		a = json_object_new_array();
		for (i = 0; i < r->nsubvols; i++)
			json_object_array_add(a, range_json(vol, i, "planned", &r->planned[i]));
		json_object_object_add(j, "planned_layout", a);
		json_object_object_add(j, "moved_fraction",
				       json_object_new_double(r->moved_fraction));
	}
	a = json_object_new_array();
	for (i = 0; i < r->nentries; i++) {
		const struct lctl_entry_report *e = &r->entries[i];
		struct json_object *je = json_object_new_object();

		json_object_object_add(je, "name", out_name(e->name));
		json_object_object_add(je, "state",
				       json_object_new_string(lctl_entry_state_name(e->state)));
		json_object_object_add(je, "hashed", out_subvol(vol, e->hashed));
		json_object_object_add(je, "cached", out_subvol(vol, e->cached));
		json_object_object_add(je, "linkto_on", out_subvol(vol, e->linkto_subvol));
		json_object_object_add(je, "linkto_target", out_subvol(vol, e->linkto_target));
		json_object_object_add(je, "target", out_subvol(vol, e->target));
		json_object_object_add(je, "size", json_object_new_int64((int64_t)e->size));
		json_object_array_add(a, je);
	}
	json_object_object_add(j, "entries", a);
	return j;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

/* Expected brick LOOKUPs per missed name, averaged over directories and over files. */
static void amplification(const struct lctl_scan_summary *s, double *per_dir, double *per_file)
{
	double fan = (double)s->nsubvols + 1.0;

	*per_dir = s->dirs ? ((double)s->dirs_optimized +
			      fan * (double)(s->dirs - s->dirs_optimized)) /
				     (double)s->dirs
			   : 1.0;
	*per_file = s->files ? ((double)s->files_optimized +
				fan * (double)(s->files - s->files_optimized)) /
				       (double)s->files
			     : *per_dir;
}

static struct json_object *summary_json(struct lctl_volume *vol, const struct lctl_scan_summary *s,
					double elapsed)
{
	struct json_object *j = json_object_new_object(), *a, *o;
	uint64_t tf = 0, tb = 0;
	double ad, af;
	size_t i, n = s->nsubvols;
	unsigned b;

	amplification(s, &ad, &af);
	json_object_object_add(j, "clean",
			       json_object_new_boolean(s->dirs == s->dirs_clean &&
						       !s->interrupted));
	json_object_object_add(j, "interrupted", json_object_new_boolean(s->interrupted));
	json_object_object_add(j, "seconds", json_object_new_double(elapsed));
	json_object_object_add(j, "volume_commit", json_object_new_int64(s->volume_commit));
	json_object_object_add(j, "lookup_optimize", json_object_new_boolean(s->lookup_optimize));
	json_object_object_add(j, "directories", json_object_new_int64((int64_t)s->dirs));
	json_object_object_add(j, "directories_clean",
			       json_object_new_int64((int64_t)s->dirs_clean));
	json_object_object_add(j, "directories_not_clean",
			       json_object_new_int64((int64_t)(s->dirs - s->dirs_clean)));
	json_object_object_add(j, "files", json_object_new_int64((int64_t)s->files));
	json_object_object_add(j, "bytes", json_object_new_int64((int64_t)s->bytes));
	o = json_object_new_object();
	for (b = 0; b < LCTL_DIR_PROBLEM_COUNT; b++)
		json_object_object_add(o, lctl_dir_problem_name(1u << b),
				       json_object_new_int64((int64_t)s->dir_problem[b]));
	json_object_object_add(j, "directory_problems", o);
	json_object_object_add(j, "directories_user_layout",
			       json_object_new_int64((int64_t)s->dirs_user_layout));
	o = json_object_new_object();
	for (b = 0; b < LCTL_ENTRY_STATE_COUNT; b++)
		json_object_object_add(o, lctl_entry_state_name((int)b),
				       json_object_new_int64((int64_t)s->entry[b]));
	json_object_object_add(j, "entries", o);
	o = json_object_new_object();
	json_object_object_add(o, "directories_optimized",
			       json_object_new_int64((int64_t)s->dirs_optimized));
	json_object_object_add(o, "files_optimized",
			       json_object_new_int64((int64_t)s->files_optimized));
	json_object_object_add(o, "directory_share",
			       json_object_new_double(pct(s->dirs_optimized, s->dirs) / 100));
	json_object_object_add(o, "file_share",
			       json_object_new_double(pct(s->files_optimized, s->files) / 100));
	json_object_object_add(o, "lookups_per_miss_by_directory", json_object_new_double(ad));
	json_object_object_add(o, "lookups_per_miss_by_file", json_object_new_double(af));
	json_object_object_add(o, "lookups_per_fan_out", json_object_new_int64((int64_t)n + 1));
	json_object_object_add(j, "lookup_optimize_coverage", o);
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "name", out_subvol(vol, (int)i));
		json_object_object_add(o, "files",
				       json_object_new_int64((int64_t)s->subvol_files[i]));
		json_object_object_add(o, "bytes",
				       json_object_new_int64((int64_t)s->subvol_bytes[i]));
		json_object_object_add(o, "hash_share",
				       json_object_new_double(s->dirs ? s->subvol_hash_share[i] /
										(double)s->dirs
								      : 0));
		json_object_object_add(o, "target_hash_share",
				       json_object_new_double(s->dirs ? s->subvol_target_share[i] /
										(double)s->dirs
								      : 0));
		json_object_object_add(o, "data_share",
				       json_object_new_double(pct(s->subvol_bytes[i], s->bytes) /
							      100));
		json_object_array_add(a, o);
	}
	json_object_object_add(j, "subvolumes", a);
	for (i = 0; i < n * n; i++) {
		tf += s->move_files[i];
		tb += s->move_bytes[i];
	}
	json_object_object_add(j, "moves", out_move_matrix(vol, n, s->move_files, s->move_bytes));
	o = json_object_new_object();
	json_object_object_add(o, "files", json_object_new_int64((int64_t)tf));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)tb));
	json_object_object_add(j, "moves_total", o);
	return j;
}

/* ---- text: the same records through a table ------------------------------------------------ */

/* "N entries" of a directory not reachable from their hashed subvolume (linked ones are). */
static struct json_object *f_unreachable(struct out_rctx *c, struct json_object *entries)
{
	unsigned long long bad = 0;
	char buf[64];
	size_t i;
	int st;

	(void)c;
	for (i = 0; i < json_object_array_length(entries); i++) {
		struct json_object *e = json_object_array_get_idx(entries, i), *v;

		if (!json_object_object_get_ex(e, "state", &v))
			continue;
		for (st = 0; st < LCTL_ENTRY_STATE_COUNT; st++)
			if (!strcmp(json_object_get_string(v), lctl_entry_state_name(st)))
				break;
		bad += st == LCTL_ENTRY_STATE_COUNT || !lctl_entry_state_ok(st);
	}
	snprintf(buf, sizeof(buf), "%llu entr%s", bad, bad == 1 ? "y" : "ies");
	return json_object_new_string(buf);
}

/* A directory's path as the prefix of its entries' names. */
static struct json_object *f_under(struct out_rctx *c, struct json_object *path)
{
	const char *p = json_object_get_string(path);
	char *s;
	struct json_object *j;

	(void)c;
	if (!p || !strcmp(p, "/"))
		return json_object_new_string(p ? p : "");
	if (asprintf(&s, "%s/", p) < 0)
		abort();
	j = json_object_new_string(s);
	free(s);
	return j;
}

static const struct out_filter scan_filters[] = {
	{ "unreachable", f_unreachable },
	{ "under", f_under },
	{ NULL, NULL },
};

static const struct out_line scan_dir_lines[] = {
	{ NULL, NULL,
	  "{clean?clean~DIR} {path}:{*problems: {.}}{error? ({error})~}"
	  "{problems?~{error?~ {entries|unreachable} not reachable from the hashed subvolume}}" },
	{ "entries", NULL,
	  "  {state:-18} {^path|under}{name} (data on {cached}, hashed {hashed}"
	  "{linkto_on?, linkto on {linkto_on} -> {linkto_target?{linkto_target}~?}~})" },
	{ NULL, NULL, NULL },
};

static const struct out_line scan_summary_lines[] = {
	{ NULL, NULL,
	  "Volume {$volume.name}: {$volume.subvolume_count} subvolumes, commit hash "
	  "{volume_commit}, lookup-optimize {lookup_optimize|onoff}" },
	{ NULL, NULL,
	  "Directories: {directories} scanned in {seconds:.1} s, {directories_clean} "
	  "clean, {directories_not_clean} not clean{interrupted? (interrupted: partial)~}" },
	{ "directory_problems", ".", "  {@:-22} {.}" },
	{ NULL, "directories_user_layout",
	  "  user-layout            {directories_user_layout} (left alone)" },
	{ NULL, NULL, "Entries: {files} files, {bytes|bytes}" },
	{ "entries", ".", "  {@:-22} {.}" },
	{ NULL, NULL,
	  "Lookup-optimize: misses answered by one LOOKUP in "
	  "{lookup_optimize_coverage.directory_share|pct:.1}% of directories "
	  "({lookup_optimize_coverage.file_share|pct:.1}% of files);" },
	{ NULL, NULL,
	  "  elsewhere a miss costs {lookup_optimize_coverage.lookups_per_fan_out} "
	  "LOOKUPs: {lookup_optimize_coverage.lookups_per_miss_by_directory:.2} per miss "
	  "by directory, {lookup_optimize_coverage.lookups_per_miss_by_file:.2} by file" },
	{ NULL, NULL, "Subvolumes:" },
	{ NULL, NULL,
	  "  NAME                              FILES        BYTES  HASH NOW    TARGET      DATA" },
	{ "subvolumes", NULL,
	  "  {name:-28} {files:10} {bytes|bytes:12} {hash_share|pct:8.1}% "
	  "{target_hash_share|pct:8.1}% {data_share|pct:8.1}%" },
	{ NULL, "moves_total.files",
	  "A fix (--mode migrate) would move {moves_total.files} files, "
	  "{moves_total.bytes|bytes}:" },
	{ "moves", NULL, "  {from:-28} -> {to:-28} {files:8} files {bytes|bytes:12}" },
	{ NULL, NULL, "Verdict: {interrupted?INTERRUPTED~{clean?clean~NOT CLEAN}}" },
	{ NULL, NULL, NULL },
};

static const struct out_block scan_blocks[] = {
	{ "volume", NULL, NULL, false },
	{ "directories", NULL, scan_dir_lines, true },
	{ "summary", NULL, scan_summary_lines, false },
	{ NULL, NULL, NULL, false },
};

/* In JSON and XML only: the details of a directory and the raw counts behind the shares. */
static const char *const scan_hidden[] = {
	"volume.path",
	"directories[].user_layout",
	"directories[].commit",
	"directories[].files",
	"directories[].subdirectories",
	"directories[].bytes",
	"directories[].entry_counts",
	"directories[].layout",
	"directories[].planned_layout",
	"directories[].moved_fraction",
	"directories[].entries[].target",
	"directories[].entries[].size",
	"summary.lookup_optimize_coverage.directories_optimized",
	"summary.lookup_optimize_coverage.files_optimized",
	NULL,
};

const struct out_view scan_view = { "scan", scan_blocks, scan_hidden, scan_filters };

/* node_exporter textfile format (lctl_prom_*(): the one writer, its labels escaped there). */
static void print_prometheus(struct lctl_volume *vol, const struct lctl_scan_summary *s,
			     double elapsed)
{
	struct lctl_prom *m = lctl_prom_new();
	const char *v = lctl_volume_name(vol);
	const char *vl[] = { "volume", v, NULL };
	double ad, af;
	size_t i, k, n = s->nsubvols;
	unsigned b;

	if (!m)
		abort();
	amplification(s, &ad, &af);
#define FAMILY(name, type, help) lctl_prom_family(m, "layoutctl_" name, type, help)
#define SAMPLE(name, labels, ...) lctl_prom_sample(m, "layoutctl_" name, labels, __VA_ARGS__)
#define LABELS(...) ((const char *const[]){ "volume", v, __VA_ARGS__, NULL })
	FAMILY("scan_success", "gauge", "1 if the last scan ran to its end");
	SAMPLE("scan_success", vl, "%d", !s->interrupted);
	FAMILY("scan_clean", "gauge", "1 if every directory was clean");
	SAMPLE("scan_clean", vl, "%d", s->dirs == s->dirs_clean);
	FAMILY("scan_timestamp_seconds", "gauge", "when the scan ended");
	SAMPLE("scan_timestamp_seconds", vl, "%lld", (long long)time(NULL));
	FAMILY("scan_duration_seconds", "gauge", "how long the scan took");
	SAMPLE("scan_duration_seconds", vl, "%.3f", elapsed);
	FAMILY("scan_directories", "gauge", "directories scanned");
	SAMPLE("scan_directories", vl, "%llu", (unsigned long long)s->dirs);
	FAMILY("scan_directories_clean", "gauge", "directories with no problem");
	SAMPLE("scan_directories_clean", vl, "%llu", (unsigned long long)s->dirs_clean);
	FAMILY("scan_directory_problems", "gauge", "directories with each problem");
	for (b = 0; b < LCTL_DIR_PROBLEM_COUNT; b++)
		SAMPLE("scan_directory_problems", LABELS("problem", lctl_dir_problem_name(1u << b)),
		       "%llu", (unsigned long long)s->dir_problem[b]);
	FAMILY("scan_entries", "gauge", "entries by placement state");
	for (b = 0; b < LCTL_ENTRY_STATE_COUNT; b++)
		SAMPLE("scan_entries", LABELS("state", lctl_entry_state_name((int)b)), "%llu",
		       (unsigned long long)s->entry[b]);
	FAMILY("scan_bytes", "gauge", "data bytes seen");
	SAMPLE("scan_bytes", vl, "%llu", (unsigned long long)s->bytes);
	FAMILY("scan_lookup_optimized_ratio", "gauge",
	       "share of directories whose misses cost one LOOKUP");
	SAMPLE("scan_lookup_optimized_ratio", vl, "%.6f", pct(s->dirs_optimized, s->dirs) / 100);
	FAMILY("scan_lookups_per_miss", "gauge", "expected brick LOOKUPs per missed name, by file");
	SAMPLE("scan_lookups_per_miss", vl, "%.6f", af);
	FAMILY("scan_subvolume_files", "gauge", "data files per subvolume");
	for (i = 0; i < n; i++)
		SAMPLE("scan_subvolume_files", LABELS("subvolume", out_subvol_name(vol, (int)i)),
		       "%llu", (unsigned long long)s->subvol_files[i]);
	FAMILY("scan_subvolume_bytes", "gauge", "data bytes per subvolume");
	for (i = 0; i < n; i++)
		SAMPLE("scan_subvolume_bytes", LABELS("subvolume", out_subvol_name(vol, (int)i)),
		       "%llu", (unsigned long long)s->subvol_bytes[i]);
	FAMILY("scan_fix_move_files", "gauge", "files a fix would move, per source and target");
	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++)
			if (s->move_files[i * n + k])
				SAMPLE("scan_fix_move_files",
				       LABELS("from", out_subvol_name(vol, (int)i), "to",
					      out_subvol_name(vol, (int)k)),
				       "%llu", (unsigned long long)s->move_files[i * n + k]);
#undef LABELS
#undef SAMPLE
#undef FAMILY
	if (!lctl_prom_text(m))
		abort();
	fputs(lctl_prom_text(m), stdout);
	lctl_prom_free(m);
}

/* A directory's record for text: linked entries only with --all or -vvv. */
static struct json_object *text_dir(struct lctl_volume *vol, const struct lctl_dir_report *r,
				    bool all)
{
	struct json_object *j = dir_json(vol, r), *a, *kept;
	size_t i;

	if (all || gopts.verbosity >= 3)
		return j;
	json_object_object_get_ex(j, "entries", &a);
	kept = json_object_new_array();
	for (i = 0; i < r->nentries; i++)
		if (r->entries[i].state != LCTL_ENTRY_LINKED)
			json_object_array_add(kept,
					      json_object_get(json_object_array_get_idx(a, i)));
	/* the count of entries not reachable is the same without them: linked ones are */
	json_object_object_add(j, "entries", kept);
	return j;
}

/* The start directory exists on no subvolume (or is not a directory where it exists). */
static bool start_absent(const struct lctl_dir_report *r)
{
	size_t i;

	if (r->depth != 0 || !r->layout || !r->nsubvols)
		return false;
	for (i = 0; i < r->nsubvols; i++)
		if (r->layout[i].err != ENOENT && r->layout[i].err != ENOTDIR)
			return false;
	return true;
}

/* The options are parsed (cmd_scan_options); check the operand and what goes together. */
static int parse_scan_args(const struct cmd *cmd, int argc, char **argv, struct scan_cli *sc)
{
	int ret = operands_check(cmd, argc, 1, "VOLUME");

	if (ret >= 0)
		return ret;
	sc->volume = argv[1];
	sc->o.planner = sc->planner;
	/* placed entries are kept only where they are printed: json, xml, or text with -v */
	sc->o.all_entries = sc->all && (gopts.format == FMT_JSON || gopts.format == FMT_XML ||
					(gopts.format == FMT_TEXT && gopts.verbosity >= 2));
	return -1;
}

/* The dashboard's keys, in this process. */
static unsigned scan_workers;

static void scan_pause(void *arg, bool pause)
{
	lctl_scan_pause(arg, pause);
}

static void scan_stop(void *arg)
{
	lctl_scan_cancel(arg);
}

static int scan_set_workers(void *arg, int delta)
{
	int n = (int)scan_workers + delta;

	if (n < 1 || n > 64 || lctl_scan_set_workers(arg, (unsigned)n))
		return -1;
	scan_workers = (unsigned)n;
	return 0;
}

/* Once a second: the dashboard from a status object, as fix and top draw it. */
static void scan_dash_tick(struct dash *d, struct lctl_scan *scan, const struct scan_cli *sc,
			   const struct lctl_progress *p, struct lctl_rate_tracker *rt,
			   double *last)
{
	struct dash_ops ops = { scan_pause, scan_stop, scan_set_workers, scan, NULL };
	struct lctl_status_info si = { "scan", sc->volume, sc->o.path,
				       "-",    "-",	   p->paused ? "paused" : "running",
				       "scan", false,	   0,
				       -1,     NULL };
	struct json_object *js;

	dash_key(d, 200, &ops);
	if (p->elapsed - *last < 1.0)
		return;
	*last = p->elapsed;
	lctl_rate_sample(rt, p->elapsed, p->dirs_done, p->files, p->bytes);
	js = lctl_status_build(&si, p, NULL, rt, NULL, NULL);
	dash_draw(d, js);
	json_object_put(js);
}

/* The dashboard at once, while the volume is opened (phase preflight). */
static void scan_preflight_draw(struct dash *d, const struct scan_cli *sc, double t0)
{
	static struct lctl_progress p;
	struct lctl_rate_tracker rt = { 0 };
	struct lctl_status_info si = { "scan",
				       sc->volume,
				       sc->o.path,
				       "-",
				       "-",
				       "running",
				       "preflight",
				       false,
				       0,
				       -1,
				       "connecting to the volume" };
	struct json_object *js;

	if (!d)
		return;
	p.phase = "preflight";
	p.elapsed = lctl_mono_seconds() - t0;
	js = lctl_status_build(&si, &p, NULL, &rt, NULL, NULL);
	dash_draw(d, js);
	json_object_put(js);
}

int cmd_scan(const struct cmd *cmd, int argc, char **argv)
{
	struct scan_cli sc = sc_args;
	struct lctl_volume *vol = NULL;
	struct lctl_scan *scan = NULL;
	struct lctl_error err = { 0 };
	struct progress_line pl;
	struct lctl_rate_tracker rt = { 0 };
	struct dash *dash = NULL;
	const char *why;
	double last_draw = -1;
	struct lctl_progress p;
	const struct lctl_scan_summary *sum;
	struct out *o = NULL;
	bool fin = false, stopping = false, no_start = false;
	bool machine = gopts.format == FMT_JSON || gopts.format == FMT_XML;
	char msg[512];
	int ret;

	ret = parse_scan_args(cmd, argc, argv, &sc);
	if (ret >= 0)
		return ret;
	/* the dashboard from the first second, while the volume is opened */
	if (sc.dashboard && !(dash = dash_open(&why)))
		warning("--dashboard %s: printing the progress line instead", why);
	scan_preflight_draw(dash, &sc, lctl_mono_seconds());
	ret = open_volume(sc.volume,
			  sc.brick_reads == BRICK_READS_GFAPI ? OPEN_SUBVOLS
							      : OPEN_SUBVOLS | OPEN_LOCAL_BRICKS,
			  &vol);
	if (ret) {
		dash_close(dash);
		return ret;
	}
	ret = lctl_scan_start(vol, &sc.o, &scan, &err);
	if (ret) {
		dash_close(dash);
		error("cannot scan '%s': %s", sc.volume, err.msg);
		lctl_volume_close(vol, false);
		return exit_for_error(ret);
	}
	progress_init(&pl);
	if (dash) {
		lctl_scan_progress(scan, &p);
		scan_workers = sc.o.parallel ? sc.o.parallel : p.active_workers;
		pl.enabled = false;
	}
	if (gopts.format != FMT_PROMETHEUS) {
		struct json_object *v = json_object_new_object();

		o = out_open_view(gopts.format, stdout, "scan", &scan_view);
		json_object_object_add(v, "name", json_object_new_string(sc.volume));
		json_object_object_add(v, "path", out_name(sc.o.path ? sc.o.path : "/"));
		json_object_object_add(v, "subvolume_count",
				       json_object_new_int((int)lctl_volume_nsubvols(vol)));
		out_member(o, "volume", v);
		out_list_begin(o, "directories");
	}
	while (!fin) {
		struct lctl_dir_report *r = lctl_scan_next(scan, dash ? 0 : 200, &fin);

		if (interrupted && !stopping) {
			stopping = true;
			lctl_scan_cancel(scan);
		}
		if (r && start_absent(r)) {
			/* a wrong --path is not a layout problem: say so, and exit 3 */
			no_start = true;
			lctl_dir_report_free(r);
			r = NULL;
		}
		if (r) {
			bool show = !lctl_dir_report_clean(r) || sc.all;

			if (machine && show) {
				out_item(o, dir_json(vol, r));
			} else if (o && gopts.verbosity >= 2 && show && !dash) {
				progress_clear(&pl);
				out_item(o, text_dir(vol, r, sc.all));
			}
			lctl_dir_report_free(r);
		}
		lctl_scan_progress(scan, &p);
		if (dash)
			scan_dash_tick(dash, scan, &sc, &p, &rt, &last_draw);
		else
			progress_update(&pl, "scanning", &p, NULL);
	}
	if (dash)
		dash_close(dash);
	progress_clear(&pl);
	lctl_scan_progress(scan, &p);
	sum = lctl_scan_summary(scan);
	if (no_start) {
		snprintf(msg, sizeof(msg), "no directory '%s' in volume '%s'",
			 sc.o.path ? sc.o.path : "/", sc.volume);
		error("cannot scan: %s", msg);
		out_list_end(o);
		out_close(o, -1, ENOENT, msg);
		lctl_scan_free(scan);
		lctl_volume_close(vol, false);
		return finish_stdout(EXIT_CANTRUN);
	}
	if (gopts.format == FMT_PROMETHEUS) {
		print_prometheus(vol, sum, p.elapsed);
	} else {
		out_list_end(o);
		if (machine || gopts.verbosity >= 1)
			out_member(o, "summary", summary_json(vol, sum, p.elapsed));
		out_close(o, 0, 0, NULL);
	}
	ret = sum->interrupted		     ? EXIT_INTERRUPTED
	      : sum->dirs == sum->dirs_clean ? EXIT_CLEAN
					     : EXIT_PROBLEMS;
	if (sum->interrupted)
		error("scan interrupted: the report covers %llu directories only",
		      (unsigned long long)sum->dirs);
	lctl_scan_free(scan);
	lctl_volume_close(vol, false);
	return finish_stdout(ret);
}
