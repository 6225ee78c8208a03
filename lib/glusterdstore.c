/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What glusterd's store on this host says about the volume (read as root: regular files only,
 * bounded, no symbolic link followed): the volume's id, the peer UUID of each brick, and so
 * which bricks and servers are this host's (by UUID, else by name and address), and which
 * pure distribute brick folders can be read directly.
 */
#include "internal.h"
#include "volumeimpl.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

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
void volume_read_volume_id(struct lctl_volume *vol)
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
int volume_identify_servers(struct lctl_volume *vol, const struct lctl_open_opts *opts)
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
void volume_find_local_brick(struct lctl_volume *vol, struct lctl_subvol *sv)
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
