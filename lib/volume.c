/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Volume: connection, topology and per-subvolume graphs (the handle: volumeimpl.h).
 *
 * This file: the volfile server probe, the volfile fetch, the DHT mount, opening and closing
 * the handle, its accessors, and inode forgetting. topology.c reads the subvolumes and servers
 * from the volfile, glusterdstore.c what glusterd on this host says, subgraphs.c opens the
 * per-subvolume graphs.
 *
 * One DHT client graph (glfs_t) per volume, plus one graph per DHT subvolume built from the
 * subtree below DHT in the client volfile (a brick's protocol/client, or its replicate or
 * disperse set). Only the per-subvolume graphs can read and write the raw
 * trusted.glusterfs.dht* xattrs: DHT hides them from its clients (dht-facts.md section 6).
 *
 * Everything in struct lctl_volume is written by lctl_volume_open() and read-only afterwards,
 * so the handle is shared by all worker threads without a lock. gfapi itself is thread safe.
 *
 * The per-subvolume volfiles carry the brick credentials (username/password) of the trusted
 * client volfile. They are handed to gfapi through a memfd, never written to a file, and the
 * copies we make do not outlive the opening: the volfile text is zeroed once parsed, each
 * subvolume's text and memfd once its graph is built, the parsed credentials once every graph
 * is (only gfapi's own graphs keep them, for reconnecting; the front end makes the process
 * non-dumpable).
 *
 * A drain (lctl_open_opts.leaving) also gets a graph per brick of each leaving replica or
 * disperse set that drain.c does not read directly: that brick's protocol/client alone, so that
 * its final check sees what each brick holds, not only what AFR or EC shows of the set.
 *
 * With lctl_open_opts.local_bricks, a pure distribute subvolume whose brick is on this host
 * and carries this volume's id gets lctl_subvol.local_path: inspect.c then reads that folder
 * directly instead of through the brick process (its graph stays open for writes).
 */
#include "internal.h"
#include "volumeimpl.h"

#include <glusterfs/api/glfs-handles.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define DEFAULT_PORT 24007
#define GLUSTERD_WORKDIR "/var/lib/glusterd"
#define PROBE_TIMEOUT_MS 5000

struct server_addr {
	char host[256];
	int port;
};

static int parse_server(const char *spec, struct server_addr *sa, struct lctl_error *err)
{
	const char *colon;
	size_t hn;

	colon = strrchr(spec, ':');
	/* "[v6addr]:port", "v6addr" (several colons, no brackets), "host:port" or "host" */
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb)
			return lctl_seterr(err, LCTL_EINVAL, 0, "bad server '%s'", spec);
		hn = (size_t)(rb - spec - 1);
		if (hn >= sizeof(sa->host))
			return lctl_seterr(err, LCTL_EINVAL, 0, "server name too long");
		memcpy(sa->host, spec + 1, hn);
		sa->host[hn] = '\0';
		colon = rb[1] == ':' ? rb + 1 : NULL;
	} else {
		if (colon && strchr(spec, ':') != colon)
			colon = NULL; /* bare IPv6 address */
		hn = colon ? (size_t)(colon - spec) : strlen(spec);
		if (!hn || hn >= sizeof(sa->host))
			return lctl_seterr(err, LCTL_EINVAL, 0, "bad server '%s'", spec);
		memcpy(sa->host, spec, hn);
		sa->host[hn] = '\0';
	}
	sa->port = DEFAULT_PORT;
	if (colon) {
		char *end;
		long p;

		errno = 0;
		p = strtol(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || p < 1 || p > 65535)
			return lctl_seterr(err, LCTL_EINVAL, 0, "bad port in server '%s'", spec);
		sa->port = (int)p;
	}
	return 0;
}

/*
 * gfapi's own connect has no useful timeout for a host that drops packets, so probe each
 * volfile server with a bounded non-blocking connect first. Returns 0 if something listens.
 */
static int probe_server(const struct server_addr *sa, int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char port[16];
	int ret = -1, saved = ECONNREFUSED;

	snprintf(port, sizeof(port), "%d", sa->port);
	if (getaddrinfo(sa->host, port, &hints, &res))
		return -EHOSTUNREACH;
	for (ai = res; ai && ret; ai = ai->ai_next) {
		struct pollfd pfd;
		int fd, soerr = 0;
		socklen_t sl = sizeof(soerr);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			ret = 0;
		} else if (errno == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, timeout_ms) == 1 &&
			    !getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) && !soerr)
				ret = 0;
			else
				saved = soerr ? soerr : ETIMEDOUT;
		} else {
			saved = errno;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return ret ? -saved : 0;
}

static int fetch_volfile(struct lctl_volume *vol, struct lctl_error *err)
{
	ssize_t need, got;
	int tries;

	/*
	 * glfs_get_volfile() in 10.x copies 'len' bytes whatever the volfile's size, so ask for
	 * the size first (it returns -size when the buffer is too small) and pass exactly that.
	 */
	need = glfs_get_volfile(vol->fs, NULL, 0);
	for (tries = 0; need >= 0 && tries < 300; tries++) {
		/* glfs_init() can return before gfapi keeps the volfile it got (the graph comes up
		 * first in glfs_mgmt_getspec_cbk()): poll for it briefly */
		usleep(10000);
		need = glfs_get_volfile(vol->fs, NULL, 0);
	}
	if (need >= 0)
		return lctl_seterr(err, LCTL_EVOLFILE, errno,
				   "cannot get the client volfile of '%s'", vol->name);
	vol->volfile = malloc((size_t)-need + 1);
	if (!vol->volfile)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	vol->volfile_len = (size_t)-need;
	got = glfs_get_volfile(vol->fs, vol->volfile, (size_t)-need);
	if (got != -need)
		return lctl_seterr(err, LCTL_EVOLFILE, errno,
				   "cannot get the client volfile of '%s'", vol->name);
	vol->volfile[got] = '\0';
	vol->volfile_len = (size_t)got;
	return 0;
}

/*
 * Mount the volume's DHT client graph into vol->fs, with our options; @decom (NULL: none): the
 * DHT subvolumes to list in its decommissioned-bricks option (a drain, mark_leaving()).
 */
static int mount_dht(struct lctl_volume *vol, const struct lctl_open_opts *opts,
		     const char *const *servers, const struct server_addr *sa, size_t nservers,
		     size_t first, const char *decom, struct lctl_error *err)
{
	const char *transport = opts->transport ? opts->transport : "tcp";
	size_t i;

	vol->fs = glfs_new(vol->name);
	if (!vol->fs)
		return lctl_seterr(err, LCTL_ENOMEM, errno, "cannot create a gfapi instance");
	glfs_set_logging(vol->fs, opts->log_file ? opts->log_file : "/dev/null", opts->log_level);
	/*
	 * md-cache answers a revalidating lookup from its cache for md-cache-timeout seconds, so
	 * DHT would never see that fix rewrote a directory's layout underneath it, and would
	 * migrate by the old layout (EEXIST: "already on its hashed subvolume"). Our DHT client
	 * must always look.
	 */
	glfs_set_xlator_option(vol->fs, "*-md-cache", "md-cache-timeout", "0");
	/*
	 * A lookup that misses on the hashed subvolume asks every subvolume, also in a directory
	 * stamped clean: there a miss means a file hidden from other clients, which our lookup
	 * then finds and DHT links on its hashed subvolume (the data phase of a clean-first fix
	 * moves such files while the directory stays clean, repair.c). A directory our client
	 * heals gets commit 1, never a stamp we did not verify.
	 */
	glfs_set_xlator_option(vol->fs, "*-dht", "lookup-optimize", "off");
	if (decom)
		glfs_set_xlator_option(vol->fs, "*-dht", "decommissioned-bricks", decom);
	for (i = 0; i < nservers; i++) {
		size_t k = (first + i) % nservers;

		if (glfs_set_volfile_server(vol->fs, transport, sa[k].host, sa[k].port))
			return lctl_seterr(err, LCTL_EINVAL, errno, "bad volfile server '%s'",
					   servers[k]);
	}
	if (glfs_init(vol->fs)) {
		int e = errno;

		/* half-initialised graphs cannot be torn down quickly; leak them */
		vol->fs = NULL;
		if (e == ENOENT || e == EINVAL)
			return lctl_seterr(err, LCTL_ENOVOL, e,
					   "volume '%s' does not exist or is not started on %s",
					   vol->name, vol->server);
		return lctl_seterr(err, LCTL_ECONNECT, e, "cannot mount volume '%s' from %s: %s",
				   vol->name, vol->server, strerror(e));
	}
	return 0;
}

/*
 * The subvolumes a drain empties (lctl_open_opts.leaving): each name is a DHT subvolume
 * ("vol-client-3", "vol-replicate-1") or a brick "HOST:/PATH" as the volfile lists it; a
 * replica or disperse set leaves whole (every one of its bricks named, or its name), since
 * DHT places files on sets, not bricks. At least one subvolume must stay. *@decom: the names,
 * comma-separated, for DHT's decommissioned-bricks option (the caller frees it).
 */
static int mark_leaving(struct lctl_volume *vol, const struct lctl_open_opts *opts, char **decom,
			struct lctl_error *err)
{
	size_t *named = calloc(vol->nsubvols, sizeof(*named));
	size_t i, j, k, nleft = vol->nsubvols, len = 1;
	int ret = 0;

	*decom = NULL;
	if (!named)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	for (k = 0; k < opts->nleaving && !ret; k++) {
		const char *a = opts->leaving[k], *colon = strchr(a, ':');
		bool found = false;

		for (i = 0; i < vol->nsubvols && !found; i++) {
			struct lctl_subvol *sv = &vol->subvols[i];

			if (!strcmp(sv->name, a)) {
				found = true;
				if (sv->leaving)
					ret = lctl_seterr(err, LCTL_EINVAL, 0,
							  "'%.200s' is named twice", a);
				sv->leaving = true;
				named[i] = sv->nbricks;
				continue;
			}
			for (j = 0; colon && j < sv->nbricks && !found; j++) {
				const struct lctl_brick *b = &sv->bricks[j];

				if (b->host && b->path && strlen(b->host) == (size_t)(colon - a) &&
				    !strncmp(b->host, a, (size_t)(colon - a)) &&
				    !strcmp(b->path, colon + 1)) {
					found = true;
					if (sv->leaving && named[i] == sv->nbricks)
						ret = lctl_seterr(err, LCTL_EINVAL, 0,
								  "'%.200s' is named twice", a);
					sv->leaving = true;
					named[i]++;
				}
			}
		}
		if (!found && !ret)
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "volume '%.100s' has no subvolume or "
					  "brick '%.200s'",
					  vol->name, a);
	}
	for (i = 0; i < vol->nsubvols && !ret; i++) {
		struct lctl_subvol *sv = &vol->subvols[i];

		if (!sv->leaving)
			continue;
		nleft--;
		len += strlen(sv->name) + 1;
		if (named[i] != sv->nbricks)
			ret = lctl_seterr(err, LCTL_EINVAL, 0,
					  "only %zu of the %zu bricks of %s are "
					  "named: a replica or disperse set leaves whole (name all "
					  "its bricks, or %s)",
					  named[i], sv->nbricks, sv->name, sv->name);
	}
	if (!ret && !nleft)
		ret = lctl_seterr(err, LCTL_EINVAL, 0,
				  "every subvolume of '%.100s' would leave: "
				  "at least one must stay",
				  vol->name);
	if (!ret && !(*decom = calloc(1, len)))
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	for (i = 0; i < vol->nsubvols && !ret; i++)
		if (vol->subvols[i].leaving) {
			if ((*decom)[0])
				strcat(*decom, ",");
			strcat(*decom, vol->subvols[i].name);
		}
	free(named);
	return ret;
}

int lctl_volume_open(const struct lctl_open_opts *opts, struct lctl_volume **out,
		     struct lctl_error *err)
{
	static const char *const def_server[] = { "localhost" };
	const char *const *servers = opts->nservers ? opts->servers : def_server;
	size_t nservers = opts->nservers ? opts->nservers : 1, i, first = nservers;
	const char *transport = opts->transport ? opts->transport : "tcp";
	struct server_addr *sa = NULL;
	struct lctl_volume *vol;
	int ret, perr = 0;

	*out = NULL;
	if (!opts->volume || !opts->volume[0] || strlen(opts->volume) > 200 ||
	    strpbrk(opts->volume, "/ \t\n"))
		return lctl_seterr(err, LCTL_EINVAL, 0, "invalid volume name");
	vol = calloc(1, sizeof(*vol));
	sa = calloc(nservers, sizeof(*sa));
	if (!vol || !sa) {
		free(sa);
		free(vol);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	vol->name = strdup(opts->volume);
	if (!vol->name) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto fail;
	}
	for (i = 0; i < nservers; i++) {
		ret = parse_server(servers[i], &sa[i], err);
		if (ret)
			goto fail;
	}
	/* the first server that accepts a connection goes first; gfapi tries the rest */
	for (i = 0; i < nservers && first == nservers; i++) {
		if (!strcmp(transport, "tcp") && (perr = probe_server(&sa[i], PROBE_TIMEOUT_MS)))
			continue;
		first = i;
	}
	if (first == nservers) {
		ret = lctl_seterr(err, LCTL_ECONNECT, -perr,
				  "cannot reach volfile server %s:%d: %s", sa[0].host, sa[0].port,
				  strerror(-perr));
		goto fail;
	}
	if (asprintf(&vol->server, "%s:%d", sa[first].host, sa[first].port) < 0) {
		vol->server = NULL;
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto fail;
	}
	ret = mount_dht(vol, opts, servers, sa, nservers, first, NULL, err);
	if (ret)
		goto fail;
	vol->itable_known = volume_shrink_inode_cache(vol->fs, INODE_LRU_LIMIT);
	ret = fetch_volfile(vol, err);
	if (ret)
		goto fail;
	ret = lctl_volfile_parse(vol->volfile, vol->volfile_len, &vol->vf, err);
	explicit_bzero(vol->volfile, vol->volfile_len);
	free(vol->volfile);
	vol->volfile = NULL;
	if (ret) {
		if (err)
			err->code = LCTL_EVOLFILE;
		ret = -LCTL_EVOLFILE;
		goto fail;
	}
	ret = volume_build_topology(vol, err);
	if (ret)
		goto fail;
	if (opts->nleaving) {
		char *decom = NULL;

		ret = mark_leaving(vol, opts, &decom, err);
		/*
		 * DHT migrates a hard-linked file only from a subvolume its own graph lists in
		 * decommissioned-bricks (dht-facts-style notes in docs/design.md, "drain"). The
		 * option is read when the graph is built, and the names are only known from the
		 * volfile: so a second DHT graph, with the option. The first one is left as it is
		 * (glfs_fini() takes 11 s in 10.3; the process exits after the run).
		 */
		if (!ret)
			ret = mount_dht(vol, opts, servers, sa, nservers, first, decom, err);
		free(decom);
		if (ret)
			goto fail;
		vol->itable_known = volume_shrink_inode_cache(vol->fs, INODE_LRU_LIMIT);
	}
	vol->glusterd_dir = strdup(opts->glusterd_dir ? opts->glusterd_dir : GLUSTERD_WORKDIR);
	if (!vol->glusterd_dir || volume_identify_servers(vol, opts)) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto fail;
	}
	if (opts->local_bricks) {
		volume_read_volume_id(vol);
		if (!vol->have_volume_id)
			lctl_log(LCTL_LOG_INFO,
				 "no record of volume '%s' in %s/vols: every brick is "
				 "read through its brick process (--glusterd-dir)",
				 vol->name, vol->glusterd_dir);
	}
	if (!opts->no_subvol_graphs) {
		ret = volume_open_subvol_graphs(vol, opts);
		if (ret) {
			lctl_seterr(err, -ret, 0, "cannot open the subvolume graphs");
			goto fail;
		}
	}
	/* every graph is built: nothing of ours needs the credentials any more */
	lctl_volfile_scrub_credentials(&vol->vf);
	free(sa);
	*out = vol;
	return 0;
fail:
	free(sa);
	lctl_volume_close(vol, false);
	return ret;
}

void lctl_volume_close(struct lctl_volume *vol, bool fini)
{
	size_t i, j;

	if (!vol)
		return;
	for (i = 0; i < vol->nsubvols; i++) {
		struct lctl_subvol *sv = &vol->subvols[i];

		if (fini && vol->subfs && vol->subfs[i])
			glfs_fini(vol->subfs[i]);
		for (j = 0; vol->brickfs && vol->brickfs[i] && j < sv->nbricks; j++)
			if (fini && vol->brickfs[i][j])
				glfs_fini(vol->brickfs[i][j]);
		if (vol->brickfs)
			free(vol->brickfs[i]);
		for (j = 0; vol->brick_text && vol->brick_text[i] && j < sv->nbricks; j++)
			if (vol->brick_text[i][j]) {
				explicit_bzero(vol->brick_text[i][j],
					       strlen(vol->brick_text[i][j]));
				free(vol->brick_text[i][j]);
			}
		if (vol->brick_text)
			free(vol->brick_text[i]);
		for (j = 0; j < sv->nbricks; j++) {
			free(sv->bricks[j].host);
			free(sv->bricks[j].path);
			free(sv->bricks[j].xlator);
		}
		free(sv->bricks);
		free(sv->name);
		free(sv->local_path);
	}
	if (fini && vol->fs)
		glfs_fini(vol->fs);
	for (i = 0; i < vol->nservers; i++) {
		free(vol->servers[i].id);
		free(vol->servers[i].host);
	}
	free(vol->servers);
	free(vol->glusterd_dir);
	free(vol->usage);
	free(vol->subvols);
	free(vol->subfs);
	free(vol->brickfs);
	free(vol->brick_text);
	free(vol->log_file);
	free(vol->opts.lookup_unhashed);
	free(vol->opts.rsync_hash_regex);
	free(vol->opts.extra_hash_regex);
	free(vol->opts.min_free_disk);
	free(vol->opts.min_free_inodes);
	free(vol->opts.xattr_name);
	lctl_volfile_release(&vol->vf);
	if (vol->volfile)
		explicit_bzero(vol->volfile, vol->volfile_len);
	free(vol->volfile);
	free(vol->server);
	free(vol->name);
	free(vol);
}

const char *lctl_volume_name(const struct lctl_volume *vol)
{
	return vol->name;
}

const char *lctl_volume_dht_name(const struct lctl_volume *vol)
{
	return vol->dht->name;
}

const char *lctl_volume_type(const struct lctl_volume *vol)
{
	return vol->type;
}

const char *lctl_volume_server(const struct lctl_volume *vol)
{
	return vol->server;
}

size_t lctl_volume_nsubvols(const struct lctl_volume *vol)
{
	return vol->nsubvols;
}

const struct lctl_subvol *lctl_volume_subvol(const struct lctl_volume *vol, size_t i)
{
	return i < vol->nsubvols ? &vol->subvols[i] : NULL;
}

int lctl_volume_subvol_index(const struct lctl_volume *vol, const char *name)
{
	size_t i;

	for (i = 0; i < vol->nsubvols; i++)
		if (!strcmp(vol->subvols[i].name, name))
			return (int)i;
	return -1;
}

const struct lctl_dht_options *lctl_volume_dht_options(const struct lctl_volume *vol)
{
	return &vol->opts;
}

const struct lctl_volfile *lctl_volume_volfile(const struct lctl_volume *vol)
{
	return &vol->vf;
}

size_t lctl_volume_nservers(const struct lctl_volume *vol)
{
	return vol->nservers;
}

const struct lctl_server *lctl_volume_server_at(const struct lctl_volume *vol, size_t i)
{
	return i < vol->nservers ? &vol->servers[i] : NULL;
}

uint32_t lctl_volume_commit_hash(const struct lctl_volume *vol, bool *consistent)
{
	uint32_t h = 0;
	bool seen = false, same = true;
	size_t i;

	for (i = 0; i < vol->nsubvols; i++) {
		const struct lctl_subvol *sv = &vol->subvols[i];
		uint32_t v;

		if (!sv->up)
			continue;
		v = sv->has_commit ? sv->commit : 0;
		if (seen && v != h)
			same = false;
		if (!seen || (v && !h))
			h = v;
		seen = true;
	}
	if (consistent)
		*consistent = same;
	return h;
}

glfs_t *lctl_volume_brick_fs(const struct lctl_volume *vol, size_t i, size_t j)
{
	if (!vol->brickfs || i >= vol->nsubvols || !vol->brickfs[i] || j >= vol->subvols[i].nbricks)
		return NULL;
	return vol->brickfs[i][j];
}

bool lctl_volume_brick_health(const struct lctl_volume *vol)
{
	return vol->brick_health;
}

bool lctl_volume_asks_glusterd(const struct lctl_volume *vol)
{
	return vol->brick_health && !vol->no_glusterd;
}

glfs_t *lctl_volume_subvol_fs(const struct lctl_volume *vol, size_t i)
{
	return i < vol->nsubvols ? vol->subfs[i] : NULL;
}

glfs_t *lctl_volume_fs(const struct lctl_volume *vol)
{
	return vol->fs;
}
