/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layoutctl info VOLUME: the DHT topology, commit hash and the options that matter. */
#include "cli.h"
#include "msg.h"
#include "output.h"

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

static const char *onoff(bool b)
{
	return b ? "on" : "off";
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
		json_object_object_add(br, "server", json_object_new_int((int)sv->bricks[i].server));
		json_object_object_add(br, "this_server", json_object_new_boolean(sv->bricks[i].mine));
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

static void print_servers(struct lctl_volume *vol)
{
	size_t si, i, k;

	printf("\nServers (%zu):\n", lctl_volume_nservers(vol));
	for (si = 0; si < lctl_volume_nservers(vol); si++) {
		const struct lctl_server *srv = lctl_volume_server_at(vol, si);
		char *h = out_name_dup(srv->host), *id = out_name_dup(srv->id);

		printf("  %-3zu %s%s%s%s\n", si, h, strcmp(srv->id, srv->host) ? "  peer " : "",
		       strcmp(srv->id, srv->host) ? id : "", srv->mine ? "  (this server)" : "");
		free(h);
		free(id);
		for (i = 0; i < lctl_volume_nsubvols(vol); i++) {
			const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

			for (k = 0; k < sv->nbricks; k++) {
				char *p;

				if (sv->bricks[k].server != si)
					continue;
				p = out_name_dup(sv->bricks[k].path);
				printf("        %-28s %s\n", sv->name, p);
				free(p);
			}
		}
	}
}

static void print_text(struct lctl_volume *vol, uint32_t commit, bool consistent)
{
	const struct lctl_dht_options *o = lctl_volume_dht_options(vol);
	size_t i, j, n = lctl_volume_nsubvols(vol);

	printf("Volume:          %s\n", lctl_volume_name(vol));
	printf("Type:            %s, %zu DHT subvolume%s\n", lctl_volume_type(vol), n,
	       n == 1 ? "" : "s");
	printf("Distribute:      %s\n", lctl_volume_dht_name(vol));
	printf("Volfile server:  %s\n", lctl_volume_server(vol));
	if (commit)
		printf("Commit hash:     %u (0x%08x)%s\n", commit, commit,
		       consistent ? "" : "  [bricks disagree]");
	else
		printf("Commit hash:     0 (never rebalanced)%s\n",
		       consistent ? "" : "  [bricks disagree]");
	printf("\nOptions:\n");
	printf("  lookup-optimize             %s\n", onoff(o->lookup_optimize));
	printf("  lookup-unhashed             %s\n", o->lookup_unhashed);
	printf("  weighted-rebalance          %s\n", onoff(o->weighted_rebalance));
	printf("  rsync-hash-regex            %s\n",
	       o->rsync_hash_regex ? o->rsync_hash_regex : "(default ^\\.(.+)\\.[^.]+$)");
	printf("  extra-hash-regex            %s\n", o->extra_hash_regex ? o->extra_hash_regex : "(none)");
	printf("  min-free-disk               %s\n", o->min_free_disk);
	printf("  randomize-hash-range-by-gfid %s\n", onoff(o->randomize_by_gfid));
	printf("\nSubvolumes (DHT order):\n");
	printf("  %-3s %-28s %-10s %-6s %-12s %s\n", "#", "NAME", "TYPE", "STATE", "COMMIT", "BRICKS");
	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);
		char state[16];

		snprintf(state, sizeof(state), "%s", sv->up ? (sv->decommissioned ? "decom" : "up")
							  : "DOWN");
		printf("  %-3zu %-28s %-10s %-6s %-12u", i, sv->name, kind_name(sv->kind), state,
		       sv->commit);
		for (j = 0; j < sv->nbricks; j++) {
			char *p = out_name_dup(sv->bricks[j].path);

			printf(" %s:%s", out_esc(sv->bricks[j].host), p);
			free(p);
		}
		printf("\n");
	}
	print_servers(vol);
}

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

	if (gopts.format == FMT_TEXT) {
		print_text(vol, commit, consistent);
	} else {
		struct json_object *v = json_object_new_object();

		o = out_open(gopts.format, stdout, "info");
		json_object_object_add(v, "name", json_object_new_string(lctl_volume_name(vol)));
		json_object_object_add(v, "type", json_object_new_string(lctl_volume_type(vol)));
		json_object_object_add(v, "distribute", json_object_new_string(lctl_volume_dht_name(vol)));
		json_object_object_add(v, "volfile_server", json_object_new_string(lctl_volume_server(vol)));
		json_object_object_add(v, "commit_hash", json_object_new_int64(commit));
		json_object_object_add(v, "commit_hash_consistent", json_object_new_boolean(consistent));
		json_object_object_add(v, "subvolume_count",
				       json_object_new_int((int)lctl_volume_nsubvols(vol)));
		json_object_object_add(v, "subvolumes_down", json_object_new_int((int)down));
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
