/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Volume: connection, topology and per-subvolume graphs.
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
#define INODE_LRU_LIMIT 1024
#define PROBE_TIMEOUT_MS 5000

struct lctl_volume {
	char *name;
	char *server;  /* "host:port" that answered */
	char *volfile; /* only until it is parsed: it holds the brick credentials */
	size_t volfile_len;
	struct lctl_volfile vf;
	const struct lctl_xlator *dht; /* borrowed from vf */
	glfs_t *fs;
	bool itable_known; /* fs's inode table looked as expected (shrink_inode_cache()) */
	struct lctl_subvol *subvols;
	glfs_t **subfs; /* per-subvolume graphs, NULL where it failed */
	glfs_t ***brickfs; /* per subvolume: a graph per brick of a leaving set (open_brick_graphs()) */
	size_t nsubvols;
	struct lctl_dht_options opts;
	const char *type;
	bool have_volume_id; /* glusterd on this host knows the volume: its id */
	unsigned char volume_id[16];
	char *glusterd_dir;
	struct lctl_server *servers; /* distinct brick servers, in brick order */
	size_t nservers;
};

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

static int build_topology(struct lctl_volume *vol, struct lctl_error *err)
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

/*
 * gfapi gives every graph an inode table that keeps up to 131072 unused inodes
 * (inode_table_new(131072, ...) in glfs_first_lookup()), so a crawl's memory grows with the
 * number of files it has listed. Nothing in the public API changes that limit; libglusterfs
 * exports inode_table_set_lru_limit(), and the table is reachable from the root's handle:
 * struct glfs_object starts with its inode_t *, and inode_t with its table. Those layouts are
 * internal, so we only act when the table looks exactly like 10.x's: a prefix whose
 * lru_limit field holds the 131072 gfapi put there. Otherwise we leave it alone.
 */
struct itable_prefix {
	pthread_mutex_t lock;
	size_t dentry_hashsize;
	size_t inode_hashsize;
	char *name;
	void *root;
	void *xl;
	uint32_t lru_limit;
};

extern void inode_table_set_lru_limit(void *table, uint32_t lru_limit);
extern void *inode_grep(void *table, void *parent, const char *name);
extern void inode_unlink(void *inode, void *parent, const char *name);
extern void *inode_unref(void *inode);

/* The inode_t * a gfapi handle starts with. */
static void *handle_inode(struct glfs_object *obj)
{
	void *inode = NULL;

	memcpy(&inode, obj, sizeof(inode));
	return inode;
}

/* The table of an inode_t (its first field). */
static struct itable_prefix *inode_itable(void *inode)
{
	struct itable_prefix *t = NULL;

	if (inode)
		memcpy(&t, inode, sizeof(t));
	return t;
}

/* Return: whether the table was 10.x's and got @limit. */
static bool shrink_inode_cache(glfs_t *fs, uint32_t limit)
{
	struct glfs_object *root;
	struct itable_prefix *t;
	struct stat st;
	void *inode;
	bool done = false;

	root = glfs_h_lookupat(fs, NULL, "/", &st, 0);
	if (!root)
		return false;
	inode = handle_inode(root);
	t = inode_itable(inode);
	if (t && t->lru_limit == 131072 && t->root == inode) {
		inode_table_set_lru_limit(t, limit);
		done = true;
	} else {
		lctl_log(LCTL_LOG_DEBUG, "gfapi inode table not as expected: cache size unchanged");
	}
	glfs_h_close(root);
	return done;
}

/*
 * A lookup by path of a name our DHT client knows only revalidates the inode, on its data's
 * subvolume (dht_lookup() -> dht_do_revalidate()): it never makes a linkto on the hashed one.
 * Only a lookup of a name the client does not know (gfapi's glfs_resolve_component(): no
 * dentry, a new inode) runs DHT's full lookup, which in a dirty directory links the file from
 * its hashed subvolume. So when a linkto we made was removed behind our back (a client with
 * an old layout took it for stale), the name is dropped from the inode table first: libglusterfs
 * exports inode_grep() and inode_unlink(), and the table is reached as in shrink_inode_cache(),
 * only when it is the one whose limit we set (the same table as the root's, whose root it is).
 */
int lctl_volume_forget(struct lctl_volume *vol, const char *dir, const char *name)
{
	struct glfs_object *root, *parent = NULL;
	struct itable_prefix *t;
	void *pinode, *inode;
	struct stat st;
	int ret = -1;

	if (!vol->itable_known || !vol->fs)
		return -1;
	root = glfs_h_lookupat(vol->fs, NULL, "/", &st, 0);
	if (!root)
		return -1;
	t = inode_itable(handle_inode(root));
	parent = glfs_h_lookupat(vol->fs, NULL, dir, &st, 0);
	if (!parent || !S_ISDIR(st.st_mode) || !t || t->root != handle_inode(root))
		goto out;
	pinode = handle_inode(parent);
	if (!pinode || inode_itable(pinode) != t)
		goto out;
	inode = inode_grep(t, pinode, name);
	if (inode) {
		inode_unlink(inode, pinode, name);
		inode_unref(inode);
	}
	ret = 0;
out:
	if (parent)
		glfs_h_close(parent);
	glfs_h_close(root);
	return ret;
}

/* ---- bricks on this host ------------------------------------------------------------------ */

/*
 * One of glusterd's store files (key=value lines), read as root: a regular file only (no
 * symlink, FIFO or device), opened without blocking, at most 64 KiB.
 */
static FILE *open_store_file(int dirfd, const char *name)
{
	struct stat st;
	FILE *f;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > 65536 ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* The value of "KEY=" in store file @f (first occurrence), into @out; false if absent. */
static bool store_value(FILE *f, const char *key, char *out, size_t size)
{
	char line[1024];
	size_t k = strlen(key);

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, k) || line[k] != '=')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, size, "%s", line + k + 1);
		return true;
	}
	return false;
}

/*
 * @buf (@size bytes) = the path of @leaf in glusterd's directory @gdir, or in its record of
 * @volume when not NULL (GDIR/vols/VOLUME/LEAF). False when it does not fit, with a line at -v:
 * a path cut short would name another file (one a user could make, next to a --glusterd-dir
 * in a directory of theirs).
 */
static bool store_path(char *buf, size_t size, const char *gdir, const char *volume,
		       const char *leaf)
{
	int n = volume ? snprintf(buf, size, "%s/vols/%s/%s", gdir, volume, leaf)
		       : snprintf(buf, size, "%s/%s", gdir, leaf);

	if (n >= 0 && (size_t)n < size)
		return true;
	lctl_log(LCTL_LOG_INFO,
		 "not reading %s%s%s%s in the glusterd directory '%.100s%s': its path is "
		 "longer than %zu bytes",
		 volume ? "vols/" : "", volume ? volume : "", volume ? "/" : "", leaf, gdir,
		 strlen(gdir) > 100 ? "..." : "", size - 1);
	buf[0] = '\0';
	return false;
}

/* The volume's id from glusterd's record of it on this host (vols/NAME/info: volume-id=UUID). */
static void read_volume_id(struct lctl_volume *vol)
{
	char path[PATH_MAX], line[256];
	unsigned v[16];
	FILE *f;
	int k;

	if (!store_path(path, sizeof(path), vol->glusterd_dir, vol->name, "info"))
		return;
	f = open_store_file(AT_FDCWD, path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "volume-id=", 10))
			continue;
		if (sscanf(line + 10, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
			   &v[11], &v[12], &v[13], &v[14], &v[15]) == 16) {
			for (k = 0; k < 16; k++)
				vol->volume_id[k] = (unsigned char)v[k];
			vol->have_volume_id = true;
		}
		break;
	}
	fclose(f);
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

/* Whether @host names this machine: its host name, or an address of one of its interfaces. */
static bool host_is_local(const char *host)
{
	struct addrinfo hints = { 0 }, *ai = NULL, *p;
	struct ifaddrs *ifa = NULL, *q;
	char me[256];
	bool local = false;

	if (!host[0])
		return false;
	if (!gethostname(me, sizeof(me))) {
		me[sizeof(me) - 1] = '\0';
		if (!strcmp(host, me))
			return true;
	}
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) || getifaddrs(&ifa)) {
		if (ai)
			freeaddrinfo(ai);
		return false;
	}
	for (p = ai; p && !local; p = p->ai_next)
		for (q = ifa; q && !local; q = q->ifa_next)
			local = q->ifa_addr && same_addr(p->ai_addr, q->ifa_addr);
	freeifaddrs(ifa);
	freeaddrinfo(ai);
	return local;
}

/* Whether brick host @host is one of @nodes: the same name, or an address one of them has. */
static bool host_is_node(const char *host, const char *const *nodes, size_t n)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *bi, *p, *q;
	bool same = false;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(host, nodes[i]))
			return true;
	if (!host[0] || getaddrinfo(host, NULL, &hints, &ai))
		return false;
	for (i = 0; i < n && !same; i++) {
		if (getaddrinfo(nodes[i], NULL, &hints, &bi))
			continue;
		for (p = ai; p && !same; p = p->ai_next)
			for (q = bi; q && !same; q = q->ai_next)
				same = same_addr(p->ai_addr, q->ai_addr);
		freeaddrinfo(bi);
	}
	freeaddrinfo(ai);
	return same;
}

struct brick_uuid {
	char id[256];  /* brick-id: the protocol/client translator's name */
	char uuid[64]; /* the peer that holds it */
};

/* glusterd's record of the volume's bricks on this host: brick-id -> peer UUID. */
static size_t read_brick_uuids(const char *gdir, const char *volume, struct brick_uuid **out)
{
	struct brick_uuid *v = NULL, *nv;
	struct dirent *de;
	char path[PATH_MAX];
	size_t n = 0;
	DIR *d;
	int fd;

	*out = NULL;
	if (!store_path(path, sizeof(path), gdir, volume, "bricks"))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) && n < 4096) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		f = open_store_file(dirfd(d), de->d_name);
		if (!f)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			fclose(f);
			break;
		}
		v = nv;
		if (store_value(f, "brick-id", v[n].id, sizeof(v[n].id)) &&
		    store_value(f, "uuid", v[n].uuid, sizeof(v[n].uuid)) && v[n].uuid[0])
			n++;
		fclose(f);
	}
	closedir(d);
	*out = v;
	return n;
}

/*
 * Which server holds each brick, and which bricks are this server's: from glusterd's own
 * store where it is here (peer UUIDs), by name and address otherwise; --node overrides.
 */
static int identify_servers(struct lctl_volume *vol, const struct lctl_open_opts *opts)
{
	struct brick_uuid *bu = NULL;
	char path[PATH_MAX], me[64] = "";
	size_t nbu, i, j, k;
	FILE *f = NULL;

	if (store_path(path, sizeof(path), vol->glusterd_dir, NULL, "glusterd.info"))
		f = open_store_file(AT_FDCWD, path);
	if (f) {
		store_value(f, "UUID", me, sizeof(me));
		fclose(f);
	}
	nbu = read_brick_uuids(vol->glusterd_dir, vol->name, &bu);
	for (i = 0; i < vol->nsubvols; i++) {
		struct lctl_subvol *sv = &vol->subvols[i];

		for (j = 0; j < sv->nbricks; j++) {
			struct lctl_brick *b = &sv->bricks[j];
			const char *uuid = NULL, *id;
			struct lctl_server *ns;

			for (k = 0; k < nbu && !uuid; k++)
				if (!strcmp(bu[k].id, b->xlator))
					uuid = bu[k].uuid;
			if (opts->nnodes)
				b->mine = host_is_node(b->host, opts->nodes, opts->nnodes);
			else if (uuid && me[0])
				b->mine = !strcmp(uuid, me);
			else
				b->mine = host_is_local(b->host);
			id = uuid ? uuid : b->host;
			for (k = 0; k < vol->nservers && strcmp(vol->servers[k].id, id); k++)
				;
			if (k == vol->nservers) {
				ns = realloc(vol->servers, (k + 1) * sizeof(*ns));
				if (!ns)
					goto nomem;
				vol->servers = ns;
				ns[k] = (struct lctl_server){ strdup(id), strdup(b->host), 0,
							      false };
				vol->nservers++;
				if (!ns[k].id || !ns[k].host)
					goto nomem;
			}
			b->server = k;
			vol->servers[k].nbricks++;
			vol->servers[k].mine |= b->mine;
		}
	}
	free(bu);
	return 0;
nomem:
	free(bu);
	return -LCTL_ENOMEM;
}

bool lctl_volume_brick_is_ours(const struct lctl_volume *vol, const char *path)
{
	unsigned char id[16];
	struct stat st;

	return vol->have_volume_id && path[0] == '/' && !lstat(path, &st) && S_ISDIR(st.st_mode) &&
	       lgetxattr(path, "trusted.glusterfs.volume-id", id, sizeof(id)) == 16 &&
	       !memcmp(id, vol->volume_id, 16);
}

/*
 * A pure distribute subvolume's brick folder, when it is on this host and it is this volume's
 * brick (its root carries the volume's id): then it can be read directly, much faster than
 * through the brick process, and without changing anything.
 */
static void find_local_brick(struct lctl_volume *vol, struct lctl_subvol *sv)
{
	unsigned char id[16];
	struct stat st;

	if (!vol->have_volume_id || sv->kind != LCTL_SUBVOL_BRICK || sv->nbricks != 1 ||
	    sv->bricks[0].path[0] != '/' || !sv->bricks[0].mine)
		return;
	if (lstat(sv->bricks[0].path, &st) || !S_ISDIR(st.st_mode) ||
	    lgetxattr(sv->bricks[0].path, "trusted.glusterfs.volume-id", id, sizeof(id)) != 16 ||
	    memcmp(id, vol->volume_id, 16))
		return;
	sv->local_path = strdup(sv->bricks[0].path);
	if (sv->local_path)
		lctl_log(LCTL_LOG_INFO, "subvolume %s: reading its brick folder %s directly",
			 sv->name, sv->local_path);
}

/* The volume commit hash on the root of subvolume @sv (graph @fs), into @sv. */
static void read_root_commit(struct lctl_subvol *sv, glfs_t *fs)
{
	char val[64];
	ssize_t n =
		glfs_getxattr(fs, "/", "trusted.glusterfs.dht.commithash", val, sizeof(val) - 1);

	sv->has_commit = false;
	sv->commit = 0;
	if (n > 0) {
		unsigned long v;
		uint32_t strict;

		/*
		 * Read it as DHT does (dict_get_uint32(): strtoul(s, NULL, 0)), so that we judge
		 * directories clean or not by the value clients use: "010" is 8 and "0x10" 16 to
		 * DHT, and garbage is 0. Only glusterd's own form ("N\0", decimal) is quiet.
		 */
		val[n] = '\0';
		errno = 0;
		v = strtoul(val, NULL, 0);
		if (!errno && v <= UINT32_MAX) {
			sv->has_commit = true;
			sv->commit = (uint32_t)v;
		}
		if (lctl_commithash_decode(val, (size_t)n, &strict) || strict != sv->commit ||
		    !sv->has_commit)
			lctl_log(LCTL_LOG_WARN,
				 "subvolume %s: the volume commit hash is not a plain decimal number; "
				 "read as %u, as DHT reads it",
				 sv->name, sv->has_commit ? sv->commit : 0);
	}
}

void lctl_volume_reread_commit(struct lctl_volume *vol)
{
	size_t i;

	for (i = 0; i < vol->nsubvols; i++)
		if (vol->subvols[i].up && vol->subfs[i])
			read_root_commit(&vol->subvols[i], vol->subfs[i]);
}

struct subvol_init {
	struct lctl_volume *vol;
	size_t i;
	const char *log_file;
	int log_level;
	pthread_t tid;
	bool started;
	bool local_bricks;
};

/* Empty the memfd that gave gfapi a subvolume's volfile (it holds the brick credentials). */
static void wipe_memfd(int fd)
{
	if (ftruncate(fd, 0))
		lctl_log(LCTL_LOG_DEBUG, "cannot empty a volfile memfd: %s", strerror(errno));
}

/*
 * A gfapi graph of @top and everything below it (a subvolume, or one brick's protocol/client),
 * from the parsed client volfile through a memfd that is emptied as soon as gfapi has read it.
 * NULL with *@e set when glfs_init() fails (the graph is leaked: a failed init leaves it half
 * built, and waiting for its teardown is not worth it).
 */
static glfs_t *open_graph(const struct lctl_volume *vol, const struct lctl_xlator *top,
			  const char *log_file, int log_level, int *e, bool *init_failed)
{
	char *text = lctl_volfile_subtree(top);
	char path[64];
	glfs_t *fs = NULL;
	int fd = -1;

	*e = 0;
	*init_failed = false;
	if (!text) {
		*e = ENOMEM;
		goto out;
	}
	fd = memfd_create("lctl-subvol", MFD_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		*e = errno ? errno : EIO;
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fs = glfs_new(vol->name);
	if (!fs) {
		*e = errno ? errno : ENOMEM;
		goto out;
	}
	glfs_set_logging(fs, log_file ? log_file : "/dev/null", log_level);
	if (glfs_set_volfile(fs, path) || glfs_init(fs)) {
		*e = errno ? errno : ENOTCONN;
		*init_failed = true;
		fs = NULL;
	}
	/* gfapi has read its volfile: the credentials in the memfd go now */
	wipe_memfd(fd);
out:
	if (fd >= 0)
		close(fd);
	if (text)
		explicit_bzero(text, strlen(text));
	free(text);
	return fs;
}

/* Open the graph of subvolume @i. Runs in its own thread: gfapi init waits for the network. */
static void *subvol_init_thread(void *arg)
{
	struct subvol_init *si = arg;
	struct lctl_volume *vol = si->vol;
	struct lctl_subvol *sv = &vol->subvols[si->i];
	struct statvfs st;
	struct stat sb;
	bool init_failed;
	glfs_t *fs;
	int e;

	fs = open_graph(vol, vol->dht->subvols[si->i], si->log_file, si->log_level, &e,
			&init_failed);
	if (!fs) {
		sv->down_errno = e;
		if (init_failed)
			lctl_log(LCTL_LOG_INFO, "subvolume %s: graph init failed: %s", sv->name,
				 strerror(e));
		return NULL;
	}
	if (glfs_lstat(fs, "/", &sb)) {
		sv->down_errno = errno ? errno : ENOTCONN;
		return NULL;
	}
	sv->up = true;
	sv->down_errno = 0;
	vol->subfs[si->i] = fs;
	if (si->local_bricks)
		find_local_brick(vol, sv);
	shrink_inode_cache(fs, INODE_LRU_LIMIT);
	read_root_commit(sv, fs);
	if (!glfs_statvfs(fs, "/", &st)) {
		sv->size_bytes = (uint64_t)st.f_blocks * st.f_frsize;
		sv->free_bytes = (uint64_t)st.f_bavail * st.f_frsize;
		sv->statfs_blocks = st.f_blocks;
		sv->statfs_bsize = st.f_bsize;
		sv->free_inodes_pct = st.f_files ? (uint64_t)st.f_favail * 100 / st.f_files : 100;
	}
	return NULL;
}

/* The protocol/client translator named @name below @xl, or NULL. */
static const struct lctl_xlator *find_client(const struct lctl_xlator *xl, const char *name,
					     unsigned depth)
{
	const struct lctl_xlator *c = NULL;
	size_t i;

	if (depth > 64)
		return NULL;
	if (!strcmp(xl->type, "protocol/client"))
		return strcmp(xl->name, name) ? NULL : xl;
	for (i = 0; i < xl->nsubvols && !c; i++)
		c = find_client(xl->subvols[i], name, depth + 1);
	return c;
}

struct brick_init {
	struct lctl_volume *vol;
	size_t i, j;
	const char *log_file;
	int log_level;
	pthread_t tid;
	bool started;
};

/*
 * Open the graph of brick @j of subvolume @i: its protocol/client alone. Kept once gfapi
 * took it, even when the brick does not answer yet: protocol/client reconnects by itself, and
 * whoever reads through it learns then whether the brick answers (drain.c).
 */
static void *brick_init_thread(void *arg)
{
	struct brick_init *bi = arg;
	struct lctl_volume *vol = bi->vol;
	const struct lctl_brick *b = &vol->subvols[bi->i].bricks[bi->j];
	const struct lctl_xlator *c = find_client(vol->dht->subvols[bi->i], b->xlator, 0);
	bool init_failed;
	glfs_t *fs;
	int e;

	if (!c)
		return NULL;
	fs = open_graph(vol, c, bi->log_file, bi->log_level, &e, &init_failed);
	if (!fs) {
		lctl_log(LCTL_LOG_INFO, "brick %s:%s: graph init failed: %s", b->host, b->path,
			 strerror(e));
		return NULL;
	}
	shrink_inode_cache(fs, INODE_LRU_LIMIT);
	vol->brickfs[bi->i][bi->j] = fs;
	return NULL;
}

/*
 * Whether brick @j of subvolume @i gets a graph of its own: a brick of a leaving replica or
 * disperse set (whose own graph reads through AFR or EC, which read one child's view or the
 * answering ones': what waits for a heal on another brick goes unseen), unless drain.c reads
 * its folder directly (on this host, with the volume's id).
 */
static bool wants_brick_graph(const struct lctl_volume *vol, size_t i, size_t j)
{
	const struct lctl_subvol *sv = &vol->subvols[i];
	const struct lctl_brick *b = &sv->bricks[j];

	return sv->leaving && sv->kind != LCTL_SUBVOL_BRICK && b->xlator &&
	       !(b->mine && b->path && lctl_volume_brick_is_ours(vol, b->path));
}

static int open_subvol_graphs(struct lctl_volume *vol, const struct lctl_open_opts *opts)
{
	struct subvol_init *si = calloc(vol->nsubvols, sizeof(*si));
	struct brick_init *bi = NULL;
	size_t i, j, nb = 0, k = 0;

	if (!si)
		return -LCTL_ENOMEM;
	for (i = 0; i < vol->nsubvols; i++)
		for (j = 0; j < vol->subvols[i].nbricks; j++)
			nb += wants_brick_graph(vol, i, j);
	if (nb) {
		vol->brickfs = calloc(vol->nsubvols, sizeof(*vol->brickfs));
		bi = calloc(nb, sizeof(*bi));
		for (i = 0; vol->brickfs && i < vol->nsubvols; i++)
			if (vol->subvols[i].leaving &&
			    !(vol->brickfs[i] = calloc(vol->subvols[i].nbricks, sizeof(glfs_t *))))
				break;
		if (!vol->brickfs || !bi || i < vol->nsubvols) {
			free(si);
			free(bi);
			return -LCTL_ENOMEM;
		}
	}
	for (i = 0; i < vol->nsubvols; i++) {
		si[i] = (struct subvol_init){ vol, i,	  opts->log_file,    opts->log_level,
					      0,   false, opts->local_bricks };
		si[i].started = !pthread_create(&si[i].tid, NULL, subvol_init_thread, &si[i]);
		if (!si[i].started)
			subvol_init_thread(&si[i]);
		for (j = 0; j < vol->subvols[i].nbricks; j++) {
			if (!wants_brick_graph(vol, i, j))
				continue;
			bi[k] = (struct brick_init){ vol, i,	j, opts->log_file, opts->log_level,
						     0,	  false };
			bi[k].started =
				!pthread_create(&bi[k].tid, NULL, brick_init_thread, &bi[k]);
			if (!bi[k].started)
				brick_init_thread(&bi[k]);
			k++;
		}
	}
	for (i = 0; i < vol->nsubvols; i++)
		if (si[i].started)
			pthread_join(si[i].tid, NULL);
	for (k = 0; k < nb; k++)
		if (bi[k].started)
			pthread_join(bi[k].tid, NULL);
	free(si);
	free(bi);
	return 0;
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
	vol->itable_known = shrink_inode_cache(vol->fs, INODE_LRU_LIMIT);
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
	ret = build_topology(vol, err);
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
		vol->itable_known = shrink_inode_cache(vol->fs, INODE_LRU_LIMIT);
	}
	vol->glusterd_dir = strdup(opts->glusterd_dir ? opts->glusterd_dir : GLUSTERD_WORKDIR);
	if (!vol->glusterd_dir || identify_servers(vol, opts)) {
		ret = lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
		goto fail;
	}
	if (opts->local_bricks) {
		read_volume_id(vol);
		if (!vol->have_volume_id)
			lctl_log(LCTL_LOG_INFO,
				 "no record of volume '%s' in %s/vols: every brick is "
				 "read through its brick process (--glusterd-dir)",
				 vol->name, vol->glusterd_dir);
	}
	if (!opts->no_subvol_graphs) {
		ret = open_subvol_graphs(vol, opts);
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
	free(vol->subvols);
	free(vol->subfs);
	free(vol->brickfs);
	free(vol->opts.lookup_unhashed);
	free(vol->opts.rsync_hash_regex);
	free(vol->opts.extra_hash_regex);
	free(vol->opts.min_free_disk);
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

glfs_t *lctl_volume_subvol_fs(const struct lctl_volume *vol, size_t i)
{
	return i < vol->nsubvols ? vol->subfs[i] : NULL;
}

glfs_t *lctl_volume_fs(const struct lctl_volume *vol)
{
	return vol->fs;
}
