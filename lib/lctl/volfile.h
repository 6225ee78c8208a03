/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * liblayoutctl: the client volfile as a tree of translators (pure).
 * Part of the public API, which cmd/ and the tests include as one header: layoutctl.h.
 */
#ifndef LAYOUTCTL_VOLFILE_H
#define LAYOUTCTL_VOLFILE_H

#include "base.h"

/* ------------------------------------------------------------------------------------------ */
/* Volfile: the client graph as a tree of translators (pure logic)                            */
/* ------------------------------------------------------------------------------------------ */

struct lctl_xl_option {
	char *key;
	char *value;
};

struct lctl_xlator {
	char *name; /* "vol-client-0" */
	char *type; /* "protocol/client" */
	struct lctl_xl_option *opts;
	size_t nopts;
	struct lctl_xlator **subvols; /* borrowed pointers into the same graph */
	size_t nsubvols;
};

struct lctl_volfile {
	struct lctl_xlator *xl; /* in file order; the last one is the top */
	size_t nxl;
};

/* The most subvolumes one translator may have (a larger volfile is rejected when parsed). */
#define LCTL_MAX_SUBVOLS 1024

/* The longest brick host a volfile may name (a DNS name has at most 253 bytes). */
#define LCTL_HOST_MAX 255

/**
 * lctl_host_check() - whether the @len bytes at @host read as a host name or address to every
 * program a brick's host is handed to (gfapi; ssh for a pool run, the gluster CLI for a
 * drain): 1 to LCTL_HOST_MAX ASCII letters, digits, '.', '-', '_' or ':' (an IPv6 address,
 * bare as glusterd writes it), not starting with '-' (never an option).
 * Return: 0 if so, -1 if not.
 */
int lctl_host_check(const char *host, size_t len);

/**
 * lctl_volfile_parse() - parse a GlusterFS volfile.
 * @text: the volfile, not necessarily NUL-terminated.
 * @len: its length in bytes.
 * @out: filled on success; release with lctl_volfile_release().
 * @err: optional; says which line is wrong on failure.
 * A protocol/client translator's remote-host (a brick's host) must pass lctl_host_check().
 * Return: 0, or -LCTL_EINVAL for a malformed volfile, -LCTL_ENOMEM.
 */
int lctl_volfile_parse(const char *text, size_t len, struct lctl_volfile *out,
		       struct lctl_error *err);
void lctl_volfile_release(struct lctl_volfile *vf);

/** lctl_volfile_find_type() - first translator of @type, or NULL. Borrowed. */
const struct lctl_xlator *lctl_volfile_find_type(const struct lctl_volfile *vf, const char *type);

/** lctl_xlator_option() - value of option @key of @xl, or NULL. Borrowed. */
const char *lctl_xlator_option(const struct lctl_xlator *xl, const char *key);

/* The longest settle period (fix --settle); a longer client cache is taken as this long. */
#define LCTL_SETTLE_MAX 3600
/* Seconds over a client cache's timeout: md-cache ages entries in whole seconds (an entry
 * lives up to timeout + 1 s), and one more for the revalidating round trip. */
#define LCTL_SETTLE_CACHE_MARGIN 2

/* The client caches of a volume's graph that may keep a directory's old view. */
struct lctl_client_cache {
	unsigned seconds;   /* the longest timeout of those in the graph; 0: none */
	const char *option; /* the volume option that sets it ("performance.md-cache-timeout"),
			     * static; NULL when none */
};

/**
 * lctl_volfile_client_cache() - the caches in @vf's client graph: md-cache
 * (performance/md-cache, md-cache-timeout, default 1 s) and nl-cache (performance/nl-cache,
 * nl-cache-timeout, default 60 s), each when present and not in pass-through. A timeout that
 * does not parse counts as its default; one over LCTL_SETTLE_MAX as LCTL_SETTLE_MAX.
 */
void lctl_volfile_client_cache(const struct lctl_volfile *vf, struct lctl_client_cache *out);
/**
 * lctl_settle_for_cache() - the settle period a run takes when none was given: the longest
 * client cache timeout (@cache_seconds) and LCTL_SETTLE_CACHE_MARGIN, or @settle_default when
 * that is longer (or no cache), at most LCTL_SETTLE_MAX.
 */
unsigned lctl_settle_for_cache(unsigned settle_default, unsigned cache_seconds);

/**
 * lctl_dht_spread() - the volume's cluster.subvols-per-directory from its DHT translator
 * @dht: glusterd writes it into the client volfile as "option directory-layout-spread N"
 *	(GlusterFS 10.3 glusterd-volume-set.c; read by dht-shared.c:dht_init as a uint32 of at
 *	least 1, defaulting to the number of subvolumes).
 * Return: N (1 .. UINT32_MAX), or 0 = every subvolume: the option absent, or a value DHT
 * itself would not start with (not a decimal number, 0, out of range): a directory is then
 * planned over, and only counted complete with, all of them.
 */
unsigned lctl_dht_spread(const struct lctl_xlator *dht);

/**
 * lctl_volfile_subtree() - write a volfile holding @top and everything below it, leaves first.
 * Return: a malloc'ed NUL-terminated string owned by the caller, or NULL on ENOMEM.
 */
char *lctl_volfile_subtree(const struct lctl_xlator *top);

#endif /* LAYOUTCTL_VOLFILE_H */
