/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layoutctl explain VOLUME PATH: how DHT hashes, places and finds one name. */
#include "cli.h"
#include "msg.h"
#include "output.h"
#include "textview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const cmd_explain_usage[] = {
	"VOLUME PATH",
	"Explain where DHT puts one name, where it is, and what a lookup of it costs.",
	"",
	"PATH is an absolute path inside the volume (existing or not). Shows the name DHT hashes",
	"(after the hash regexes) and its hash, the parent directory's layout as each subvolume",
	"has it, the hashed subvolume, what each subvolume holds under the name (data, linkto and",
	"its target, directory, nothing), the verdict, whether a miss in the parent fans out to",
	"every subvolume and why, and the bricks. DHT's own answer (the virtual xattr",
	"dht.file.hashed-subvol.NAME) is shown next to the prediction. Read-only on the",
	"subvolumes; the DHT query looks up the parent directory like any client.",
	"Exit status: 0 the name is where DHT finds it (or absent), 1 it is not (misplaced, stale",
	"linkto, duplicate, ...), a subvolume could not be read, or DHT disagrees; 2 usage error;",
	"3 could not run.",
	NULL,
};

/* Filled by the option parser from cmd_explain_options. */
static bool no_dht;

const struct lopt cmd_explain_options[] = {
	OPT_FLAG(0, "no-dht", &no_dht,
		 "do not ask DHT (no operation at all through the DHT graph)"),
	OPT_HELP(),
	OPT_END(),
};

static const char *commit_state_name(enum lctl_commit_state s)
{
	switch (s) {
	case LCTL_COMMIT_CLEAN:
		return "clean";
	case LCTL_COMMIT_STALE:
		return "stale";
	case LCTL_COMMIT_INVALIDATED:
		return "invalid";
	case LCTL_COMMIT_MIXED:
		return "mixed";
	default:
		return "none";
	}
}

static const char *dht_check_name(enum lctl_dht_check c)
{
	switch (c) {
	case LCTL_DHT_AGREES:
		return "agrees";
	case LCTL_DHT_DISAGREES:
		return "disagrees";
	case LCTL_DHT_UNAVAILABLE:
		return "unavailable";
	default:
		return "not-asked";
	}
}

/* The state of the name in one word (entry state for files, else the kind). */
static const char *verdict_name(const struct lctl_explain *e)
{
	return e->kind == LCTL_EXPLAIN_FILE ? lctl_entry_state_name((int)e->state)
					    : lctl_explain_kind_name((int)e->kind);
}

/* One sentence on where the name is, for people. */
static void verdict_text(struct lctl_volume *vol, const struct lctl_explain *e, char *buf, size_t n)
{
	const char *c = out_subvol_name(vol, e->cached), *h = out_subvol_name(vol, e->hashed);
	const char *lo = out_subvol_name(vol, e->linkto_subvol),
		   *lt = out_subvol_name(vol, e->linkto_target);

	c = c ? c : "-";
	h = h ? h : "none";
	lo = lo ? lo : "-";
	lt = lt ? lt : "?";
	switch (e->kind) {
	case LCTL_EXPLAIN_ABSENT:
		snprintf(buf, n, "absent: no subvolume has it");
		return;
	case LCTL_EXPLAIN_DIRECTORY:
		snprintf(buf, n, "directory: present on every subvolume read");
		return;
	case LCTL_EXPLAIN_DIR_INCOMPLETE:
		snprintf(buf, n,
			 "DIRECTORY INCOMPLETE: missing on some subvolume (a lookup heals it)");
		return;
	case LCTL_EXPLAIN_TYPE_CONFLICT:
		snprintf(buf, n, "TYPE CONFLICT: a directory on some subvolumes, a file on others");
		return;
	default:
		break;
	}
	switch (e->state) {
	case LCTL_ENTRY_PLACED:
		snprintf(buf, n, "placed: the data is on its hashed subvolume %s", h);
		break;
	case LCTL_ENTRY_LINKED:
		snprintf(buf, n, "linked: the data is on %s, found through the linkto on %s", c, h);
		break;
	case LCTL_ENTRY_MISPLACED:
		snprintf(buf, n,
			 "MISPLACED: the data is on %s, with no linkto on the hashed %s: %s", c, h,
			 e->miss.fans_out ? "only a fan-out finds it"
					  : "a lookup by name does not find it (no fan-out here)");
		break;
	case LCTL_ENTRY_STALE_LINKTO:
		snprintf(buf, n, "STALE LINKTO: the linkto on %s names %s%s, the data is on %s", lo,
			 lt, e->gfid_mismatch ? " (with another gfid)" : "", c);
		break;
	case LCTL_ENTRY_ORPHAN_LINKTO:
		snprintf(buf, n, "ORPHAN LINKTO: a linkto on %s (-> %s), no data file anywhere", lo,
			 lt);
		break;
	case LCTL_ENTRY_DUPLICATE:
		snprintf(buf, n, "DUPLICATE: data files on more than one subvolume");
		break;
	case LCTL_ENTRY_MIGRATION_LEFTOVER:
		snprintf(buf, n,
			 "MIGRATION: phase-1 bits of a migration (in progress or interrupted)");
		break;
	case LCTL_ENTRY_UNHASHED:
		snprintf(buf, n,
			 "UNHASHED: the parent's layout has a hole at this hash; data on %s", c);
		break;
	default:
		snprintf(buf, n, "%s", verdict_name(e));
		break;
	}
}

/* Why a miss costs what it costs, for people. */
static void miss_text(const struct lctl_explain *e, char *buf, size_t n)
{
	const struct lctl_miss *m = &e->miss;
	const unsigned r = m->reasons;
	const char *why;

	if (r & LCTL_MISS_ONE_SUBVOL)
		why = "a single subvolume";
	else if (r & LCTL_MISS_NO_LAYOUT)
		why = "the parent has no layout; a lookup heals it with commit 1";
	else if (r & LCTL_MISS_HOLE)
		why = "the hash falls in a hole of the parent's layout";
	else if (r & LCTL_MISS_UNHASHED_AUTO)
		why = "lookup-optimize off, lookup-unhashed auto: one LOOKUP while readdirp saw "
		      "nothing off its hashed subvolume here";
	else if (r & LCTL_MISS_OPTIMIZE_OFF)
		why = "lookup-optimize is off";
	else if (r & LCTL_MISS_COMMIT_INVALID)
		why = "the parent's commit word is 1: never clean";
	else if (r & LCTL_MISS_COMMIT_MIXED)
		why = "the subvolumes disagree on the parent's commit word";
	else if (r & LCTL_MISS_COMMIT_STALE)
		why = "the parent's commit word is not the volume commit hash";
	else
		why = "lookup-optimize on and the parent's commit word is the volume commit hash";
	snprintf(buf, n, "%s%s, %u LOOKUP%s (%s)%s",
		 m->fans_out ? (m->certain ? "fans out" : "may fan out") : "no fan-out",
		 m->fans_out  ? " to every subvolume"
		 : m->certain ? ""
			      : " (probably)",
		 m->lookups, m->lookups == 1 ? "" : "s", why,
		 r & LCTL_MISS_VOLUME_MIXED ? "; the brick roots disagree on the volume hash" : "");
}

static struct json_object *range_json(const struct lctl_range *r)
{
	struct json_object *j = json_object_new_object();
	char hex[16];

	json_object_object_add(j, "commit", json_object_new_int64(r->commit));
	json_object_object_add(j, "type", json_object_new_int64(r->type));
	json_object_object_add(j, "start", json_object_new_int64(r->start));
	json_object_object_add(j, "stop", json_object_new_int64(r->stop));
	snprintf(hex, sizeof(hex), "0x%08x", r->start);
	json_object_object_add(j, "start_hex", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "0x%08x", r->stop);
	json_object_object_add(j, "stop_hex", json_object_new_string(hex));
	return j;
}

static struct json_object *subvol_json(struct lctl_volume *vol, const struct lctl_explain *e,
				       size_t i)
{
	const struct lctl_explain_subvol *s = &e->subvols[i];
	const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
	struct json_object *j = json_object_new_object(), *l, *en, *b;
	size_t k;

	json_object_object_add(j, "index", json_object_new_int((int)i));
	json_object_object_add(j, "name", json_object_new_string(sv->name));
	json_object_object_add(j, "up", json_object_new_boolean(sv->up));
	json_object_object_add(j, "hashed", json_object_new_boolean((int)i == e->hashed));
	l = s->parent.err == 0 ? range_json(&s->parent.r) : json_object_new_object();
	json_object_object_add(l, "state", json_object_new_string(out_layout_state(s->parent.err)));
	json_object_object_add(j, "layout", l);
	en = json_object_new_object();
	json_object_object_add(en, "kind", json_object_new_string(lctl_sight_name((int)s->sight)));
	if (s->sight == LCTL_SIGHT_ERROR)
		json_object_object_add(en, "error", json_object_new_string(strerror(s->err)));
	if (s->sight != LCTL_SIGHT_ABSENT && s->sight != LCTL_SIGHT_ERROR) {
		char mode[16];

		snprintf(mode, sizeof(mode), "%06o", (unsigned)s->mode);
		json_object_object_add(en, "mode", json_object_new_string(mode));
		json_object_object_add(en, "size", json_object_new_int64((int64_t)s->size));
		json_object_object_add(en, "nlink", json_object_new_int64((int64_t)s->nlink));
		json_object_object_add(en, "gfid_missing", json_object_new_boolean(s->no_gfid));
	}
	if (s->linkto_value) {
		json_object_object_add(en, "linkto", out_name(s->linkto_value));
		json_object_object_add(en, "linkto_target", out_subvol(vol, s->linkto_target));
	}
	json_object_object_add(j, "entry", en);
	b = json_object_new_array();
	for (k = 0; k < sv->nbricks; k++) {
		struct json_object *br = json_object_new_object();

		json_object_object_add(br, "host", json_object_new_string(sv->bricks[k].host));
		json_object_object_add(br, "path", out_name(sv->bricks[k].path));
		json_object_array_add(b, br);
	}
	json_object_object_add(j, "bricks", b);
	return j;
}

static struct json_object *explain_json(struct lctl_volume *vol, const struct lctl_explain *e,
					bool good)
{
	struct json_object *j = json_object_new_object(), *a, *m;
	char hex[16], text[512];
	size_t i;
	unsigned b;

	json_object_object_add(j, "path", out_name(e->path));
	json_object_object_add(j, "parent", out_name(e->parent));
	json_object_object_add(j, "name", out_name(e->name));
	json_object_object_add(j, "hashed_name", out_name(e->hashed_name));
	json_object_object_add(j, "munged", json_object_new_boolean(e->munged));
	json_object_object_add(j, "hash", json_object_new_int64(e->hash));
	snprintf(hex, sizeof(hex), "0x%08x", e->hash);
	json_object_object_add(j, "hash_hex", json_object_new_string(hex));
	json_object_object_add(j, "hashed_subvolume", out_subvol(vol, e->hashed));
	a = json_object_new_object();
	json_object_object_add(a, "check", json_object_new_string(dht_check_name(e->dht_check)));
	json_object_object_add(a, "hashed_subvolume",
			       e->dht_hashed_name ? json_object_new_string(e->dht_hashed_name)
						  : NULL);
	if (e->dht_err)
		json_object_object_add(a, "error", json_object_new_string(strerror(e->dht_err)));
	json_object_object_add(j, "dht", a);
	json_object_object_add(j, "kind",
			       json_object_new_string(lctl_explain_kind_name((int)e->kind)));
	json_object_object_add(j, "state", json_object_new_string(verdict_name(e)));
	json_object_object_add(j, "ok", json_object_new_boolean(good));
	json_object_object_add(j, "incomplete", json_object_new_boolean(e->incomplete));
	verdict_text(vol, e, text, sizeof(text));
	json_object_object_add(j, "verdict", json_object_new_string(text));
	json_object_object_add(j, "cached_subvolume", out_subvol(vol, e->cached));
	if (e->linkto_subvol >= 0) {
		a = json_object_new_object();
		json_object_object_add(a, "on", out_subvol(vol, e->linkto_subvol));
		json_object_object_add(a, "target", out_subvol(vol, e->linkto_target));
		json_object_object_add(a, "gfid_mismatch",
				       json_object_new_boolean(e->gfid_mismatch));
		json_object_object_add(j, "linkto", a);
	} else {
		json_object_object_add(j, "linkto", NULL);
	}
	m = json_object_new_object();
	json_object_object_add(m, "fans_out", json_object_new_boolean(e->miss.fans_out));
	json_object_object_add(m, "certain", json_object_new_boolean(e->miss.certain));
	json_object_object_add(m, "lookups", json_object_new_int((int)e->miss.lookups));
	a = json_object_new_array();
	for (b = 0; b < LCTL_MISS_REASON_COUNT; b++)
		if (e->miss.reasons & (1u << b))
			json_object_array_add(a, json_object_new_string(
							 lctl_miss_reason_name(1u << b)));
	json_object_object_add(m, "reasons", a);
	miss_text(e, text, sizeof(text));
	json_object_object_add(m, "text", json_object_new_string(text));
	json_object_object_add(j, "miss", m);
	a = json_object_new_object();
	json_object_object_add(a, "commit", json_object_new_int64(e->parent_report.commit));
	json_object_object_add(a, "commit_state",
			       json_object_new_string(
				       commit_state_name(e->parent_report.commit_state)));
	json_object_object_add(a, "merged_commit",
			       json_object_new_int64(e->parent_report.merged_commit));
	json_object_object_add(a, "holes", json_object_new_int64(e->parent_report.holes));
	json_object_object_add(a, "overlaps", json_object_new_int64(e->parent_report.overlaps));
	json_object_object_add(j, "parent_layout", a);
	a = json_object_new_array();
	for (i = 0; i < e->nsubvols; i++)
		json_object_array_add(a, subvol_json(vol, e, i));
	json_object_object_add(j, "subvolumes", a);
	if (e->new_dir_known) {
		a = json_object_new_array();
		for (i = 0; i < e->nsubvols; i++) {
			struct json_object *r = range_json(&e->new_dir[i]);

			json_object_object_add(r, "subvolume", out_subvol(vol, (int)i));
			json_object_array_add(a, r);
		}
		json_object_object_add(j, "new_directory_ranges", a);
	}
	return j;
}

/* ---- text: the same records through a table ------------------------------------------------ */

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

/*
 * What one subvolume holds, for the text table, from its "entry" record: through @c (the
 * fields read are recorded) for the subvolume being printed, directly for its siblings.
 */
static char *entry_text(struct out_rctx *c, struct json_object *en)
{
	const char *kind = c ? json_object_get_string(out_rget(c, "entry.kind")) : jstr(en, "kind");
	char *s;
	int r;

	kind = kind ? kind : "";
	if (!strcmp(kind, "linkto") || !strcmp(kind, "migrating")) {
		const char *t = c ? json_object_get_string(out_rget(c, "entry.linkto_target"))
				  : jstr(en, "linkto_target");
		const char *v = c ? json_object_get_string(out_rget(c, "entry.linkto"))
				  : jstr(en, "linkto");

		r = asprintf(&s, "%s -> %s", kind, t ? t : v ? v : "?");
	} else if (!strcmp(kind, "data")) {
		struct json_object *size = c ? out_rget(c, "entry.size") : NULL, *ng = NULL;

		if (!c) {
			json_object_object_get_ex(en, "size", &size);
			json_object_object_get_ex(en, "gfid_missing", &ng);
		} else {
			ng = out_rget(c, "entry.gfid_missing");
		}
		r = asprintf(&s, "data, %llu bytes%s",
			     (unsigned long long)json_object_get_int64(size),
			     json_object_get_boolean(ng) ? ", no gfid" : "");
	} else if (!strcmp(kind, "error")) {
		const char *e = c ? json_object_get_string(out_rget(c, "entry.error"))
				  : jstr(en, "error");

		r = asprintf(&s, "error: %s", e ? e : "");
	} else {
		r = asprintf(&s, "%s", kind);
	}
	if (r < 0)
		abort();
	return s;
}

/* The widths of the table's name and entry columns (as printed: escaped). */
static void widths(struct json_object *subvols, size_t *wn, size_t *we)
{
	size_t i, l;

	*wn = strlen("SUBVOLUME");
	*we = strlen("ENTRY");
	for (i = 0; i < json_object_array_length(subvols); i++) {
		struct json_object *sv = json_object_array_get_idx(subvols, i), *en;
		char *t;

		l = strlen(out_esc(jstr(sv, "name")));
		*wn = l > *wn ? l : *wn;
		if (!json_object_object_get_ex(sv, "entry", &en))
			continue;
		t = entry_text(NULL, en);
		l = strlen(out_esc(t));
		*we = l > *we ? l : *we;
		free(t);
	}
}

/* @s, raw, padded so that it is @w wide once escaped. */
static struct json_object *padded(const char *s, size_t w)
{
	size_t l = strlen(out_esc(s)), n = strlen(s);
	char *p = malloc(n + (w > l ? w - l : 0) + 1);
	struct json_object *j;

	if (!p)
		abort();
	memcpy(p, s, n);
	memset(p + n, ' ', w > l ? w - l : 0);
	p[n + (w > l ? w - l : 0)] = '\0';
	j = json_object_new_string(p);
	free(p);
	return j;
}

/* A subvolume name in the name column (of a row of "subvolumes" or "new_directory_ranges"). */
static struct json_object *f_name_col(struct out_rctx *c, struct json_object *v)
{
	size_t wn, we;

	widths(out_rget(c, "^subvolumes"), &wn, &we);
	return padded(json_object_get_string(v) ? json_object_get_string(v) : "-", wn);
}

static struct json_object *f_name_head(struct out_rctx *c, struct json_object *subvols)
{
	size_t wn, we;

	(void)c;
	widths(subvols, &wn, &we);
	return padded("SUBVOLUME", wn);
}

static struct json_object *f_entry_head(struct out_rctx *c, struct json_object *subvols)
{
	size_t wn, we;

	(void)c;
	widths(subvols, &wn, &we);
	return padded("ENTRY", we);
}

/* The entry column of a subvolume's row. */
static struct json_object *f_entry_col(struct out_rctx *c, struct json_object *sv)
{
	size_t wn, we;
	char *t = entry_text(c, NULL);
	struct json_object *j;

	(void)sv;
	widths(out_rget(c, "^subvolumes"), &wn, &we);
	j = padded(t, we);
	free(t);
	return j;
}

static bool word(struct json_object *v, const char *w)
{
	return json_object_get_string(v) && !strcmp(json_object_get_string(v), w);
}

static struct json_object *f_not_asked(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(word(v, dht_check_name(LCTL_DHT_NOT_ASKED)));
}

static struct json_object *f_unavailable(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(word(v, dht_check_name(LCTL_DHT_UNAVAILABLE)));
}

static struct json_object *f_agrees(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(word(v, dht_check_name(LCTL_DHT_AGREES)));
}

static struct json_object *f_answered(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(word(v, dht_check_name(LCTL_DHT_AGREES)) ||
				       word(v, dht_check_name(LCTL_DHT_DISAGREES)));
}

/* Why DHT did not answer, for people. */
static struct json_object *f_dht_error(struct out_rctx *c, struct json_object *v)
{
	const char *e = json_object_get_string(v);

	(void)c;
	if (e && !strcmp(e, strerror(ENAMETOOLONG)))
		return json_object_new_string("the name is too long for the xattr key");
	return json_object_new_string(e ? e : strerror(0));
}

/* The parent's layout has holes or overlaps. */
static struct json_object *f_anomalies(struct out_rctx *c, struct json_object *v)
{
	(void)v;
	return json_object_new_boolean(
		json_object_get_int64(out_rget(c, "parent_layout.holes")) ||
		json_object_get_int64(out_rget(c, "parent_layout.overlaps")));
}

static const struct out_filter explain_filters[] = {
	{ "name_col", f_name_col },
	{ "name_head", f_name_head },
	{ "entry_col", f_entry_col },
	{ "entry_head", f_entry_head },
	{ "not_asked", f_not_asked },
	{ "unavailable", f_unavailable },
	{ "agrees", f_agrees },
	{ "answered", f_answered },
	{ "dht_error", f_dht_error },
	{ "anomalies", f_anomalies },
	{ NULL, NULL },
};

static const struct out_line explain_lines[] = {
	{ NULL, NULL, "Path:          {path}" },
	{ NULL, NULL, "Hashed name:   {hashed_name}{munged?  (munged by the hash regex)~}" },
	{ NULL, NULL, "Hash:          {hash_hex} ({hash})" },
	{ NULL, NULL,
	  "Hashed subvol: {hashed_subvolume|set?{hashed_subvolume}~none: the parent's "
	  "layout has a hole there}" },
	{ NULL, "dht.check|not_asked", "DHT says:      (not asked)" },
	{ NULL, "dht.check|unavailable", "DHT says:      no answer ({dht.error|dht_error})" },
	{ NULL, "dht.check|answered",
	  "DHT says:      {dht.hashed_subvolume|set?{dht.hashed_subvolume}~"
	  "no hashed subvolume ({dht.error|dht_error})}: "
	  "{dht.check|agrees?agrees~DISAGREES}" },
	{ NULL, NULL,
	  "Verdict:       {incomplete?INCOMPLETE: some subvolume could not be read; from "
	  "the others: ~}{verdict}" },
	{ NULL, "linkto",
	  "Linkto:        on {linkto.on} -> {linkto.target|set?{linkto.target}~?}" },
	{ NULL, "$volume.commit_hash",
	  "Volume:        commit hash {$volume.commit_hash} "
	  "({$volume.commit_hash|hex}){$volume.commit_hash_consistent?~"
	  " [bricks disagree]}, lookup-optimize "
	  "{$volume.lookup_optimize|onoff}" },
	{ NULL, "!$volume.commit_hash",
	  "Volume:        commit hash 0 (never rebalanced)"
	  "{$volume.commit_hash_consistent?~ [bricks disagree]}, "
	  "lookup-optimize {$volume.lookup_optimize|onoff}" },
	{ NULL, NULL, "Miss in {parent}: {miss.text}" },
	{ NULL, NULL, "" },
	{ NULL, NULL,
	  "Parent {parent}, commit {parent_layout.commit} ({parent_layout.commit_state}), "
	  "as each subvolume has it (* = hashed):" },
	{ NULL, NULL,
	  "  #   {subvolumes|name_head}   START      STOP       COMMIT     TYPE LAYOUT    "
	  "{subvolumes|entry_head} BRICKS" },
	{ "subvolumes", NULL,
	  "  {index:-3} {name|name_col} {hashed?*~ } {layout.start_hex:-10} "
	  "{layout.stop_hex:-10} {layout.commit:-10} {layout.type:-4} "
	  "{layout.state:-9} {.|entry_col}{*bricks: {host}:{path}}" },
	{ NULL, "parent_layout|anomalies",
	  "  layout anomalies: {parent_layout.holes} hole(s), "
	  "{parent_layout.overlaps} overlap(s)" },
	{ NULL, "new_directory_ranges", "" },
	{ NULL, "new_directory_ranges", "mkdir {path} would get:" },
	{ "new_directory_ranges", NULL,
	  "  {@:-3} {subvolume|name_col}   {start_hex} {stop_hex} {commit}" },
	{ NULL, NULL, NULL },
};

static const struct out_block explain_blocks[] = {
	{ "volume", NULL, NULL, false },
	{ "explain", NULL, explain_lines, false },
	{ NULL, NULL, NULL, false },
};

/* In JSON and XML only: what the verdict and miss sentences already say in words, the raw
 * numbers beside their hexadecimal. */
static const char *const explain_hidden[] = {
	"volume.name",
	"volume.subvolume_count",
	"volume.lookup_unhashed",
	"explain.dht.hashed_subvolume@!explain.dht.hashed_subvolume", /* null: no answer */
	"explain.name",
	"explain.kind",
	"explain.state",
	"explain.ok",
	"explain.cached_subvolume",
	"explain.linkto.gfid_mismatch",
	"explain.miss.fans_out",
	"explain.miss.certain",
	"explain.miss.lookups",
	"explain.miss.reasons",
	"explain.parent_layout.merged_commit",
	"explain.subvolumes[].up",
	"explain.subvolumes[].layout.start",
	"explain.subvolumes[].layout.stop",
	"explain.subvolumes[].entry.mode",
	"explain.subvolumes[].entry.nlink",
	/* shown for data only (a linkto's size is 0, a directory's is its own) */
	"explain.subvolumes[].entry.size",
	"explain.subvolumes[].entry.gfid_missing",
	"explain.new_directory_ranges[].type",
	"explain.new_directory_ranges[].start",
	"explain.new_directory_ranges[].stop",
	NULL,
};

const struct out_view explain_view = { "explain", explain_blocks, explain_hidden, explain_filters };

int cmd_explain(const struct cmd *cmd, int argc, char **argv)
{
	struct lctl_explain_opts eo = { 0 };
	struct lctl_volume *vol = NULL;
	struct lctl_explain *e = NULL;
	struct lctl_error err = { 0 };
	char *parent = NULL, *name = NULL;
	bool good;
	int ret;

	eo.no_dht = no_dht;
	ret = operands_check(cmd, argc, 2, argc < 2 ? "VOLUME and PATH" : "PATH");
	if (ret >= 0)
		return ret;
	eo.path = argv[2];
	ret = lctl_explain_split_path(eo.path, &parent, &name);
	free(parent);
	free(name);
	if (ret == -LCTL_EINVAL) {
		/* usage_error() escapes the path */
		return usage_error(cmd,
				   "PATH must be an absolute path to an entry below the volume root, "
				   "without '.' or '..' and with names of at most 255 bytes, not '%s'",
				   eo.path);
	} else if (ret) {
		error("out of memory");
		return EXIT_CANTRUN;
	}
	ret = open_volume(argv[1], OPEN_SUBVOLS, &vol);
	if (ret)
		return ret;
	ret = lctl_explain(vol, &eo, &e, &err);
	if (ret) {
		const char *p = eo.path; /* error() escapes it */

		if (err.sys_errno == ENOENT || err.sys_errno == ENOTDIR)
			error("cannot explain '%s' in volume '%s': %s", p, lctl_volume_name(vol),
			      err.sys_errno == ENOENT ? "its directory does not exist"
						      : "its parent is not a directory");
		else
			error("cannot explain '%s' in volume '%s': %s", p, lctl_volume_name(vol),
			      err.msg[0] ? err.msg : lctl_strerror(ret));
		lctl_volume_close(vol, false);
		return exit_for_error(ret) == EXIT_USAGE ? EXIT_USAGE : EXIT_CANTRUN;
	}
	good = e->ok && !e->incomplete && e->dht_check != LCTL_DHT_DISAGREES;
	{
		struct json_object *v = json_object_new_object();
		struct out *o = out_open_view(gopts.format, stdout, "explain", &explain_view);

		json_object_object_add(v, "name", json_object_new_string(lctl_volume_name(vol)));
		json_object_object_add(v, "subvolume_count",
				       json_object_new_int((int)lctl_volume_nsubvols(vol)));
		json_object_object_add(v, "commit_hash", json_object_new_int64(e->vol_commit));
		json_object_object_add(v, "commit_hash_consistent",
				       json_object_new_boolean(e->vol_commit_consistent));
		json_object_object_add(v, "lookup_optimize",
				       json_object_new_boolean(e->lookup_optimize));
		json_object_object_add(v, "lookup_unhashed",
				       json_object_new_string(
					       lctl_volume_dht_options(vol)->lookup_unhashed));
		out_member(o, "volume", v);
		out_member(o, "explain", explain_json(vol, e, good));
		out_close(o, 0, 0, NULL);
	}
	if (e->dht_check == LCTL_DHT_DISAGREES)
		warning("DHT names %s as the hashed subvolume, the layout on disk says %s",
			e->dht_hashed_name ? e->dht_hashed_name : "none",
			out_subvol_name(vol, e->hashed) ? out_subvol_name(vol, e->hashed) : "none");
	lctl_explain_free(e);
	lctl_volume_close(vol, false);
	return finish_stdout(good ? EXIT_CLEAN : EXIT_PROBLEMS);
}
