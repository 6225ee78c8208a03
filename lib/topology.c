/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The topology of a volume from its client volfile: DHT's subvolumes (a brick, or a replicate
 * or disperse set) and their bricks, DHT's options, the distinct servers in brick order, and
 * which server moves a file of a subvolume (lctl_volume_mover(): a hash every host computes
 * alike, so that the pool's workers share the moves without talking).
 */
#include "internal.h"
#include "volumeimpl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool opt_bool(const struct lctl_xlator *xl, const char *key, bool def)
{
	const char *v = lctl_xlator_option(xl, key);

	if (!v)
		return def;
	if (!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "enable") || !strcmp(v, "1"))
		return true;
	if (!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "disable") || !strcmp(v, "0"))
		return false;
	return def;
}

static int dup_opt(const struct lctl_xlator *xl, const char *key, const char *def, char **out)
{
	const char *v = lctl_xlator_option(xl, key);

	*out = NULL;
	if (!v)
		v = def;
	if (!v)
		return 0;
	*out = strdup(v);
	return *out ? 0 : -LCTL_ENOMEM;
}

static int read_dht_options(struct lctl_volume *vol)
{
	const struct lctl_xlator *d = vol->dht;
	struct lctl_dht_options *o = &vol->opts;

	o->lookup_optimize = opt_bool(d, "lookup-optimize", true);
	o->weighted_rebalance = opt_bool(d, "weighted-rebalance", true);
	o->randomize_by_gfid = opt_bool(d, "randomize-hash-range-by-gfid", false);
	o->spread = lctl_dht_spread(d);
	if (dup_opt(d, "lookup-unhashed", "on", &o->lookup_unhashed) ||
	    dup_opt(d, "rsync-hash-regex", NULL, &o->rsync_hash_regex) ||
	    dup_opt(d, "extra-hash-regex", NULL, &o->extra_hash_regex) ||
	    dup_opt(d, "min-free-disk", "10%", &o->min_free_disk) ||
	    dup_opt(d, "min-free-inodes", "5%", &o->min_free_inodes) ||
	    dup_opt(d, "xattr-name", "trusted.glusterfs.dht", &o->xattr_name))
		return -LCTL_ENOMEM;
	return 0;
}

static void collect_bricks(const struct lctl_xlator *xl, struct lctl_subvol *sv, unsigned depth)
{
	size_t i;

	if (depth > 64)
		return;
	if (!strcmp(xl->type, "protocol/client")) {
		struct lctl_brick *b = realloc(sv->bricks, (sv->nbricks + 1) * sizeof(*b));
		const char *h = lctl_xlator_option(xl, "remote-host");
		const char *p = lctl_xlator_option(xl, "remote-subvolume");

		if (!b)
			return;
		sv->bricks = b;
		b = &sv->bricks[sv->nbricks];
		/* a host name or address, never an option (lctl_volfile_parse() checked it), or "" */
		b->host = strdup(h ? h : "");
		b->path = strdup(p ? p : "");
		b->xlator = strdup(xl->name);
		if (!b->host || !b->path || !b->xlator) {
			free(b->host);
			free(b->path);
			free(b->xlator);
			return;
		}
		sv->nbricks++;
		return;
	}
	for (i = 0; i < xl->nsubvols; i++)
		collect_bricks(xl->subvols[i], sv, depth + 1);
}

static enum lctl_subvol_kind kind_of(const char *type)
{
	if (!strcmp(type, "protocol/client"))
		return LCTL_SUBVOL_BRICK;
	if (!strcmp(type, "cluster/replicate") || !strcmp(type, "cluster/afr"))
		return LCTL_SUBVOL_REPLICATE;
	if (!strcmp(type, "cluster/disperse"))
		return LCTL_SUBVOL_DISPERSE;
	return LCTL_SUBVOL_OTHER;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && (p = strstr(p, name))) {
		bool start = p == list || p[-1] == ',' || p[-1] == ' ';
		bool end = p[n] == '\0' || p[n] == ',' || p[n] == ' ';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

int volume_build_topology(struct lctl_volume *vol, struct lctl_error *err)
{
	const char *decom;
	size_t i, nrep = 0, ndisp = 0;

	vol->dht = lctl_volfile_find_type(&vol->vf, "cluster/distribute");
	if (!vol->dht)
		vol->dht = lctl_volfile_find_type(&vol->vf, "cluster/nufa");
	if (!vol->dht)
		return lctl_seterr(err, LCTL_EVOLFILE, 0,
				   "volume '%s' has no distribute translator in its client volfile",
				   vol->name);
	if (!vol->dht->nsubvols)
		return lctl_seterr(err, LCTL_EVOLFILE, 0,
				   "distribute translator '%s' has no subvolumes", vol->dht->name);
	vol->nsubvols = vol->dht->nsubvols;
	vol->subvols = calloc(vol->nsubvols, sizeof(*vol->subvols));
	vol->subfs = calloc(vol->nsubvols, sizeof(*vol->subfs));
	if (!vol->subvols || !vol->subfs)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	decom = lctl_xlator_option(vol->dht, "decommissioned-bricks");
	for (i = 0; i < vol->nsubvols; i++) {
		const struct lctl_xlator *c = vol->dht->subvols[i];
		struct lctl_subvol *sv = &vol->subvols[i];

		sv->name = strdup(c->name);
		if (!sv->name)
			return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		sv->kind = kind_of(c->type);
		nrep += sv->kind == LCTL_SUBVOL_REPLICATE;
		ndisp += sv->kind == LCTL_SUBVOL_DISPERSE;
		collect_bricks(c, sv, 0);
		sv->decommissioned = decom && listed(decom, c->name);
		sv->down_errno = ENOTCONN;
	}
	vol->type = nrep ? "Distributed-Replicate" : ndisp ? "Distributed-Disperse" : "Distribute";
	return read_dht_options(vol);
}

/* The brick of subvolume @sv whose server moves @path: by a hash every host computes alike. */
static size_t pick_brick(const struct lctl_volume *vol, size_t sv, const char *path)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	const unsigned char *p;

	if (vol->subvols[sv].nbricks < 2)
		return 0;
	for (p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h % vol->subvols[sv].nbricks;
}

size_t lctl_volume_mover(const struct lctl_volume *vol, size_t sv, const char *path)
{
	if (sv >= vol->nsubvols || !vol->subvols[sv].nbricks)
		return (size_t)-1;
	return vol->subvols[sv].bricks[pick_brick(vol, sv, path)].server;
}

bool lctl_volume_owns(const struct lctl_volume *vol, size_t sv, const char *path)
{
	if (sv >= vol->nsubvols || !vol->subvols[sv].nbricks)
		return false;
	return vol->subvols[sv].bricks[pick_brick(vol, sv, path)].mine;
}
