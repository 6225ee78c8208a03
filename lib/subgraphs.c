/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A gfapi graph per DHT subvolume, built from the subtree below DHT in the client volfile,
 * and in a drain one per brick of each leaving replica or disperse set; opened in parallel.
 * Each volfile carries the brick credentials: it is handed to gfapi through a memfd, emptied
 * once the graph is built (volume.c says more).
 */
#include "internal.h"
#include "volumeimpl.h"

#include <glusterfs/api/glfs-handles.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
 * A gfapi graph from volfile @text (a subtree of the client volfile), through a memfd that is
 * emptied as soon as gfapi has read it. NULL with *@e set when it cannot be built; when
 * glfs_init() failed (*@init_failed: a brick or subvolume that does not answer), the half-built
 * graph is torn down with glfs_fini() (gfapi 10 counts the attempt as an init: the graph, its
 * translators and threads go; it waits for frames in flight, which a graph whose connections
 * never came up has none of).
 */
static glfs_t *open_graph_text(const struct lctl_volume *vol, const char *text,
			       const char *log_file, int log_level, int *e, bool *init_failed)
{
	char path[64];
	glfs_t *fs = NULL;
	int fd;

	*e = 0;
	*init_failed = false;
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
		glfs_fini(fs);
		fs = NULL;
	}
	/* gfapi has read its volfile: the credentials in the memfd go now */
	wipe_memfd(fd);
out:
	if (fd >= 0)
		close(fd);
	return fs;
}

/* The subtree of the client volfile from @top down, as volfile text (caller zeroes and frees). */
static char *subtree_text(const struct lctl_xlator *top)
{
	return lctl_volfile_subtree(top);
}

static void text_free(char *text)
{
	if (text)
		explicit_bzero(text, strlen(text));
	free(text);
}

/* A gfapi graph of @top and everything below it (a subvolume, or one brick's protocol/client). */
static glfs_t *open_graph(const struct lctl_volume *vol, const struct lctl_xlator *top,
			  const char *log_file, int log_level, int *e, bool *init_failed)
{
	char *text = subtree_text(top);
	glfs_t *fs;

	*init_failed = false;
	if (!text) {
		*e = ENOMEM;
		return NULL;
	}
	fs = open_graph_text(vol, text, log_file, log_level, e, init_failed);
	text_free(text);
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
		volume_find_local_brick(vol, sv);
	volume_shrink_inode_cache(fs, INODE_LRU_LIMIT);
	volume_read_root_commit(sv, fs);
	if (!glfs_statvfs(fs, "/", &st)) {
		sv->size_bytes = (uint64_t)st.f_blocks * st.f_frsize;
		sv->free_bytes = (uint64_t)st.f_bavail * st.f_frsize;
		sv->statfs_blocks = st.f_blocks;
		sv->statfs_bsize = st.f_bsize;
		/* as DHT reads them (dht_du_info_cbk()): f_ffree, a whole percent */
		sv->free_inodes_pct = st.f_files ? (uint64_t)st.f_ffree * 100 / st.f_files : 100;
		sv->inodes_total = st.f_files;
		sv->inodes_free = st.f_ffree;
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
 * whoever reads through it learns then whether the brick answers (drain.c). A brick of a set
 * the health probe asks whose graph cannot be built (down when the volume was opened: gfapi's
 * init fails) keeps its volfile text, credentials included, in vol->brick_text until
 * lctl_volume_brick_reopen() builds it (the rest is scrubbed once the graphs are built).
 */
static void *brick_init_thread(void *arg)
{
	struct brick_init *bi = arg;
	struct lctl_volume *vol = bi->vol;
	const struct lctl_brick *b = &vol->subvols[bi->i].bricks[bi->j];
	const struct lctl_xlator *c = find_client(vol->dht->subvols[bi->i], b->xlator, 0);
	bool init_failed;
	char *text;
	glfs_t *fs;
	int e;

	if (!c || !(text = subtree_text(c)))
		return NULL;
	fs = open_graph_text(vol, text, bi->log_file, bi->log_level, &e, &init_failed);
	if (!fs) {
		lctl_log(LCTL_LOG_INFO, "brick %s:%s: graph init failed: %s", b->host, b->path,
			 strerror(e));
		if (vol->brick_health && vol->brick_text && vol->brick_text[bi->i]) {
			vol->brick_text[bi->i][bi->j] = text;
			return NULL;
		}
		text_free(text);
		return NULL;
	}
	text_free(text);
	volume_shrink_inode_cache(fs, INODE_LRU_LIMIT);
	vol->brickfs[bi->i][bi->j] = fs;
	return NULL;
}

int lctl_volume_brick_reopen(struct lctl_volume *vol, size_t i, size_t j)
{
	const struct lctl_brick *b;
	bool init_failed;
	glfs_t *fs;
	int e;

	if (!vol->brickfs || i >= vol->nsubvols || !vol->brickfs[i] || j >= vol->subvols[i].nbricks)
		return -ENOENT;
	if (vol->brickfs[i][j])
		return 0;
	if (!vol->brick_text || !vol->brick_text[i] || !vol->brick_text[i][j])
		return -ENOENT;
	b = &vol->subvols[i].bricks[j];
	fs = open_graph_text(vol, vol->brick_text[i][j], vol->log_file, vol->log_level, &e,
			     &init_failed);
	if (!fs) {
		lctl_log(LCTL_LOG_INFO, "brick %s:%s: graph init failed again: %s", b->host,
			 b->path, strerror(e));
		return -(e ? e : ENOTCONN);
	}
	text_free(vol->brick_text[i][j]);
	vol->brick_text[i][j] = NULL;
	volume_shrink_inode_cache(fs, INODE_LRU_LIMIT);
	vol->brickfs[i][j] = fs;
	lctl_log(LCTL_LOG_INFO, "brick %s:%s: graph built", b->host, b->path);
	return 0;
}

bool lctl_volume_brick_reopenable(const struct lctl_volume *vol, size_t i, size_t j)
{
	return vol->brick_text && i < vol->nsubvols && vol->brick_text[i] &&
	       j < vol->subvols[i].nbricks && vol->brick_text[i][j];
}

/*
 * Whether brick @j of subvolume @i gets a graph of its own: a brick of a leaving replica or
 * disperse set (whose own graph reads through AFR or EC, which read one child's view or the
 * answering ones': what waits for a heal on another brick goes unseen), unless drain.c reads
 * its folder directly (on this host, with the volume's id); and with @opts brick_health, every
 * brick of a replica or disperse set (health.c asks each whether it answers and what it has
 * pending to heal).
 */
static bool wants_brick_graph(const struct lctl_volume *vol, const struct lctl_open_opts *opts,
			      size_t i, size_t j)
{
	const struct lctl_subvol *sv = &vol->subvols[i];
	const struct lctl_brick *b = &sv->bricks[j];

	if (sv->kind == LCTL_SUBVOL_BRICK || !b->xlator)
		return false;
	if (opts->brick_health &&
	    (sv->kind == LCTL_SUBVOL_REPLICATE || sv->kind == LCTL_SUBVOL_DISPERSE))
		return true;
	return sv->leaving && !(b->mine && b->path && lctl_volume_brick_is_ours(vol, b->path));
}

int volume_open_subvol_graphs(struct lctl_volume *vol, const struct lctl_open_opts *opts)
{
	struct subvol_init *si = calloc(vol->nsubvols, sizeof(*si));
	struct brick_init *bi = NULL;
	size_t i, j, nb = 0, k = 0;

	if (!si)
		return -LCTL_ENOMEM;
	vol->brick_health = opts->brick_health;
	vol->no_glusterd = opts->no_glusterd;
	vol->log_level = opts->log_level;
	if (opts->log_file && !(vol->log_file = strdup(opts->log_file))) {
		free(si);
		return -LCTL_ENOMEM;
	}
	for (i = 0; i < vol->nsubvols; i++)
		for (j = 0; j < vol->subvols[i].nbricks; j++)
			nb += wants_brick_graph(vol, opts, i, j);
	if (nb) {
		vol->brickfs = calloc(vol->nsubvols, sizeof(*vol->brickfs));
		if (opts->brick_health)
			vol->brick_text = calloc(vol->nsubvols, sizeof(*vol->brick_text));
		bi = calloc(nb, sizeof(*bi));
		for (i = 0; vol->brickfs && i < vol->nsubvols; i++) {
			if (!vol->subvols[i].nbricks)
				continue;
			if (!(vol->brickfs[i] = calloc(vol->subvols[i].nbricks, sizeof(glfs_t *))))
				break;
			if (vol->brick_text &&
			    !(vol->brick_text[i] = calloc(vol->subvols[i].nbricks, sizeof(char *))))
				break;
		}
		if (!vol->brickfs || (opts->brick_health && !vol->brick_text) || !bi ||
		    i < vol->nsubvols) {
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
			if (!wants_brick_graph(vol, opts, i, j))
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
