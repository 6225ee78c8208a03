/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layoutctl info VOLUME: the DHT topology, commit hash and the options that matter. */
#include "cli.h"
#include "msg.h"
#include "output.h"
#include "textview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cmd_info_usage[] = {
	"VOLUME",
	"Show the DHT subvolumes, their bricks, the commit hash and the DHT options.",
	"",
	"Lists the subvolumes in DHT's order (the order of the client volfile), the bricks",
	"behind each, whether each is reachable, the volume commit hash (0 = never",
	"rebalanced) and the options that decide placement and lookups.",
	"Exit status: 0 all subvolumes up, 1 some subvolume down, 3 could not run.",
	NULL,
};

const struct lopt cmd_info_options[] = {
	OPT_HELP(),
	OPT_END(),
};

static const char *kind_name(enum lctl_subvol_kind k)
{
	switch (k) {
	case LCTL_SUBVOL_BRICK:
		return "brick";
	case LCTL_SUBVOL_REPLICATE:
		return "replicate";
	case LCTL_SUBVOL_DISPERSE:
		return "disperse";
	default:
		return "other";
	}
}

static struct json_object *options_json(const struct lctl_dht_options *o)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "lookup_optimize", json_object_new_boolean(o->lookup_optimize));
	json_object_object_add(j, "lookup_unhashed", json_object_new_string(o->lookup_unhashed));
	json_object_object_add(j, "weighted_rebalance",
			       json_object_new_boolean(o->weighted_rebalance));
	json_object_object_add(j, "rsync_hash_regex",
			       json_object_new_string(o->rsync_hash_regex ? o->rsync_hash_regex
									  : "(default)"));
	json_object_object_add(j, "extra_hash_regex",
			       json_object_new_string(o->extra_hash_regex ? o->extra_hash_regex
									  : "(none)"));
	json_object_object_add(j, "min_free_disk", json_object_new_string(o->min_free_disk));
	json_object_object_add(j, "randomize_hash_range_by_gfid",
			       json_object_new_boolean(o->randomize_by_gfid));
	return j;
}

static struct json_object *subvol_json(const struct lctl_subvol *sv, size_t idx)
{
	struct json_object *j = json_object_new_object(), *b = json_object_new_array();
	size_t i;

	json_object_object_add(j, "index", json_object_new_int((int)idx));
	json_object_object_add(j, "name", json_object_new_string(sv->name));
	json_object_object_add(j, "type", json_object_new_string(kind_name(sv->kind)));
	json_object_object_add(j, "up", json_object_new_boolean(sv->up));
	if (!sv->up)
		json_object_object_add(j, "down_reason",
				       json_object_new_string(strerror(sv->down_errno)));
	json_object_object_add(j, "decommissioned", json_object_new_boolean(sv->decommissioned));
	json_object_object_add(j, "commit_hash", json_object_new_int64(sv->commit));
	json_object_object_add(j, "size_bytes", json_object_new_int64((int64_t)sv->size_bytes));
	json_object_object_add(j, "free_bytes", json_object_new_int64((int64_t)sv->free_bytes));
	for (i = 0; i < sv->nbricks; i++) {
		struct json_object *br = json_object_new_object();

		json_object_object_add(br, "host", json_object_new_string(sv->bricks[i].host));
		json_object_object_add(br, "path", out_name(sv->bricks[i].path));
		json_object_object_add(br, "client", json_object_new_string(sv->bricks[i].xlator));
		json_object_object_add(br, "server",
				       json_object_new_int((int)sv->bricks[i].server));
		json_object_object_add(br, "this_server",
				       json_object_new_boolean(sv->bricks[i].mine));
		json_object_array_add(b, br);
	}
	json_object_object_add(j, "bricks", b);
	return j;
}

/* The servers of the pool that hold the volume's bricks, and which bricks each holds. */
static struct json_object *server_json(struct lctl_volume *vol, size_t si)
{
	const struct lctl_server *srv = lctl_volume_server_at(vol, si);
	struct json_object *j = json_object_new_object(), *b = json_object_new_array();
	size_t i, k;

	json_object_object_add(j, "index", json_object_new_int((int)si));
	json_object_object_add(j, "id", out_name(srv->id));
	json_object_object_add(j, "host", out_name(srv->host));
	json_object_object_add(j, "this_server", json_object_new_boolean(srv->mine));
	for (i = 0; i < lctl_volume_nsubvols(vol); i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

		for (k = 0; k < sv->nbricks; k++) {
			struct json_object *br;

			if (sv->bricks[k].server != si)
				continue;
			br = json_object_new_object();
			json_object_object_add(br, "subvolume", json_object_new_string(sv->name));
			json_object_object_add(br, "host", out_name(sv->bricks[k].host));
			json_object_object_add(br, "path", out_name(sv->bricks[k].path));
			json_object_array_add(b, br);
		}
	}
	json_object_object_add(j, "bricks", b);
	return j;
}

/* ---- text: the same records through a table ------------------------------------------------ */

static struct json_object *f_is_default(struct out_rctx *c, struct json_object *v)
{
	(void)c;
	return json_object_new_boolean(
		!strcmp(json_object_get_string(v) ? json_object_get_string(v) : "", "(default)"));
}

/* up, decom or DOWN, from a subvolume's record */
static struct json_object *f_state(struct out_rctx *c, struct json_object *sv)
{
	(void)sv;
	if (!json_object_get_boolean(out_rget(c, "up")))
		return json_object_new_string("DOWN");
	return json_object_new_string(
		json_object_get_boolean(out_rget(c, "decommissioned")) ? "decom" : "up");
}

/* "  peer ID" when a server's peer id is not its host name (no glusterd store: the same) */
static struct json_object *f_peer(struct out_rctx *c, struct json_object *srv)
{
	const char *id = json_object_get_string(out_rget(c, "id"));
	const char *host = json_object_get_string(out_rget(c, "host"));
	char *s;
	struct json_object *j;

	(void)srv;
	if (!id || !host || !strcmp(id, host))
		return json_object_new_string("");
	if (asprintf(&s, "  peer %s", id) < 0)
		abort();
	j = json_object_new_string(s);
	free(s);
	return j;
}

static const struct out_filter info_filters[] = {
	{ "is_default", f_is_default },
	{ "state", f_state },
	{ "peer", f_peer },
	{ NULL, NULL },
};

static const struct out_line info_volume_lines[] = {
	{ NULL, NULL, "Volume:          {name}" },
	{ NULL, NULL,
	  "Type:            {type}, {subvolume_count} DHT subvolume{subvolume_count|many?s~}" },
	{ NULL, NULL, "Distribute:      {distribute}" },
	{ NULL, NULL, "Volfile server:  {volfile_server}" },
	{ NULL, "commit_hash",
	  "Commit hash:     {commit_hash} ({commit_hash|hex})"
	  "{commit_hash_consistent?~  [bricks disagree]}" },
	{ NULL, "!commit_hash",
	  "Commit hash:     0 (never rebalanced)"
	  "{commit_hash_consistent?~  [bricks disagree]}" },
	{ NULL, NULL, "" },
	{ NULL, NULL, "Options:" },
	{ NULL, NULL, "  lookup-optimize             {options.lookup_optimize|onoff}" },
	{ NULL, NULL, "  lookup-unhashed             {options.lookup_unhashed}" },
	{ NULL, NULL, "  weighted-rebalance          {options.weighted_rebalance|onoff}" },
	{ NULL, NULL,
	  "  rsync-hash-regex            {options.rsync_hash_regex|is_default?"
	  "(default ^\\.(.+)\\.[^.]+$)~{options.rsync_hash_regex}}" },
	{ NULL, NULL, "  extra-hash-regex            {options.extra_hash_regex}" },
	{ NULL, NULL, "  min-free-disk               {options.min_free_disk}" },
	{ NULL, NULL,
	  "  randomize-hash-range-by-gfid {options.randomize_hash_range_by_gfid|onoff}" },
	{ NULL, NULL, NULL },
};

static const struct out_line info_subvol_head[] = {
	{ NULL, NULL, "" },
	{ NULL, NULL, "Subvolumes (DHT order):" },
	{ NULL, NULL, "  #   NAME                         TYPE       STATE  COMMIT       BRICKS" },
	{ NULL, NULL, NULL },
};

static const struct out_line info_subvol_lines[] = {
	{ NULL, NULL,
	  "  {index:-3} {name:-28} {type:-10} {.|state:-6} {commit_hash:-12}"
	  "{*bricks: {host}:{path}}" },
	{ NULL, NULL, NULL },
};

static const struct out_line info_server_head[] = {
	{ NULL, NULL, "" },
	{ NULL, NULL, "Servers ({volume.server_count}):" },
	{ NULL, NULL, NULL },
};

static const struct out_line info_server_lines[] = {
	{ NULL, NULL, "  {index:-3} {host}{.|peer}{this_server?  (this server)~}" },
	{ "bricks", NULL, "        {subvolume:-28} {path}" },
	{ NULL, NULL, NULL },
};

static const struct out_block info_blocks[] = {
	{ "volume", NULL, info_volume_lines, false },
	{ "subvolumes", info_subvol_head, info_subvol_lines, true },
	{ "servers", info_server_head, info_server_lines, true },
	{ NULL, NULL, NULL, false },
};

/* In JSON and XML only (a subvolume down is said on stderr too). */
static const char *const info_hidden[] = {
	"volume.subvolumes_down",
	"subvolumes[].down_reason",
	"subvolumes[].size_bytes",
	"subvolumes[].free_bytes",
	"subvolumes[].bricks[].client",
	"subvolumes[].bricks[].server",
	"subvolumes[].bricks[].this_server",
	"servers[].bricks[].host",
	NULL,
};

const struct out_view info_view = { "info", info_blocks, info_hidden, info_filters };

int cmd_info(const struct cmd *cmd, int argc, char **argv)
{
	struct lctl_volume *vol = NULL;
	struct out *o;
	uint32_t commit;
	bool consistent;
	size_t i, down = 0;
	int ret;

	ret = operands_check(cmd, argc, 1, "VOLUME");
	if (ret >= 0)
		return ret;
	ret = open_volume(argv[1], OPEN_SUBVOLS, &vol);
	if (ret)
		return ret;
	commit = lctl_volume_commit_hash(vol, &consistent);
	for (i = 0; i < lctl_volume_nsubvols(vol); i++)
		down += !lctl_volume_subvol(vol, i)->up;

	{
		struct json_object *v = json_object_new_object();

		o = out_open_view(gopts.format, stdout, "info", &info_view);
		json_object_object_add(v, "name", json_object_new_string(lctl_volume_name(vol)));
		json_object_object_add(v, "type", json_object_new_string(lctl_volume_type(vol)));
		json_object_object_add(v, "distribute",
				       json_object_new_string(lctl_volume_dht_name(vol)));
		json_object_object_add(v, "volfile_server",
				       json_object_new_string(lctl_volume_server(vol)));
		json_object_object_add(v, "commit_hash", json_object_new_int64(commit));
		json_object_object_add(v, "commit_hash_consistent",
				       json_object_new_boolean(consistent));
		json_object_object_add(v, "subvolume_count",
				       json_object_new_int((int)lctl_volume_nsubvols(vol)));
		json_object_object_add(v, "subvolumes_down", json_object_new_int((int)down));
		json_object_object_add(v, "server_count",
				       json_object_new_int((int)lctl_volume_nservers(vol)));
		json_object_object_add(v, "options", options_json(lctl_volume_dht_options(vol)));
		out_member(o, "volume", v);
		out_list_begin(o, "subvolumes");
		for (i = 0; i < lctl_volume_nsubvols(vol); i++)
			out_item(o, subvol_json(lctl_volume_subvol(vol, i), i));
		out_list_end(o);
		out_list_begin(o, "servers");
		for (i = 0; i < lctl_volume_nservers(vol); i++)
			out_item(o, server_json(vol, i));
		out_list_end(o);
		out_close(o, 0, 0, NULL);
	}
	if (down)
		error("%zu of %zu subvolumes of '%s' are down", down, lctl_volume_nsubvols(vol),
		      lctl_volume_name(vol));
	lctl_volume_close(vol, false);
	return finish_stdout(down ? EXIT_PROBLEMS : EXIT_CLEAN);
}
