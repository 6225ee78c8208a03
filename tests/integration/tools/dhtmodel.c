/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dhtmodel: the DHT model of liblayoutctl (hash, munge, layout search, planner) held against a
 * real volume, for tests/integration/dht-placement.sh and dht-planner.sh.
 *
 *   dhtmodel populate VOL SEED THREADS DIR:COUNT...
 *	Create COUNT files with varied names in each DIR (relative to the volume root, "." for
 *	the root; created if missing) through one gfapi client, THREADS threads. The names
 *	are deterministic for SEED and unique: ASCII, spaces and punctuation, UTF-8 of 2, 3 and
 *	4-byte characters (so most end in bytes >= 0x80), invalid UTF-8 (Latin-1 bytes), dot-files
 *	that the default rsync-hash-regex munges (".foo.txt.AbC123"), dot-files it does not
 *	(".bashrc1"), 255-byte names (ASCII and multibyte), and control bytes (\t, \x01, \x7f,
 *	\n), leading '-' and blanks. Prints "created N" and exits 0 when every file was created.
 *
 *   dhtmodel predict LAYOUTS < RECORDS
 *	LAYOUTS: lines "DIR<TAB>SUBVOL<TAB>VALUE", VALUE the directory's trusted.glusterfs.dht on
 *	that subvolume as `getfattr -e hex` prints it (0x + 32 hex digits), or "-" when absent.
 *	RECORDS (stdin): NUL-terminated "SUBVOL<TAB>DIR/NAME" (find -printf '%P'), one per data
 *	file found on the bricks. For each file the hashed subvolume is computed from LAYOUTS with
 *	liblayoutctl (lctl_name_hash() with the default rsync regex, lctl_layout_search()) and
 *	compared with SUBVOL. Prints each mismatch ("MISMATCH ..."), then "files N mismatches M
 *	signed_tail_decisive S munge_decisive U names_255 L": S files whose subvolume would
 *	differ with an unsigned-char hash, U whose subvolume would differ without munging (both
 *	computed with an independent reimplementation of the hash, checked against
 *	lctl_dm_hash() on every name). Exit 0 when N > 0 and M = 0.
 *
 *   dhtmodel plan VOL PATH...
 *	The layout lctl_plan_gluster() gives a new directory PATH on VOL (subvolume names, weights
 *	and options read from the volume by liblayoutctl). Prints "PATH<TAB>SUBVOL<TAB>0x..."
 *	lines, the value in getfattr's hex form, and "weighted yes|no" first.
 *
 *   dhtmodel drain VOL LEAVING PATH...
 *	The layout `layoutctl drain --layout gluster VOL LEAVING` writes to each existing
 *	directory PATH: the volume is opened as the drain opens it (LEAVING: comma-separated
 *	subvolume names or bricks, lctl_open_opts.leaving; this host's brick folders read
 *	directly) and each PATH is inspected by the drain's own per-directory step
 *	(lctl_inspect() with the inspector a drain sets up, GlusterFS planner), which reads the
 *	current layout and plans. Prints "weighted yes|no", then "PATH<TAB>SUBVOL<TAB>0x..."
 *	lines of the planned ranges; their commit word is the drain's dirty 1 (it stamps later).
 *
 * gfapi clients are never glfs_fini'd (it takes ~11 s in 10.3): the process just exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glusterfs/api/glfs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inspect.h"
#include "layoutctl.h"

#define MAXSUB 64

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dhtmodel: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* ------------------------------------------------------------------------------------------ */
/* populate                                                                                   */

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static const char *const utf8_chars[] = {
	"\xc3\xa9",	"\xc3\xbc",	"\xc3\x9f",	    "\xc3\xb1",		"\xd0\xb6",
	"\xce\xa9",	"\xc3\xa5",	"\xc3\xa7",	    "\xe6\x97\xa5",	"\xe6\x9c\xac",
	"\xe8\xaa\x9e", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf0\x9f\x90\x8d",
};
#define NUTF8 (sizeof(utf8_chars) / sizeof(utf8_chars[0]))

static void add_alnum(char *b, size_t *o, size_t n, uint64_t *s)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	while (n--)
		b[(*o)++] = set[rnd_next(s) % (sizeof(set) - 1)];
}

static void add_utf8(char *b, size_t *o, size_t n, size_t max, uint64_t *s)
{
	while (n--) {
		const char *c = utf8_chars[rnd_next(s) % NUTF8];

		if (*o + strlen(c) > max)
			break;
		memcpy(b + *o, c, strlen(c));
		*o += strlen(c);
	}
}

/* Name number @id (unique: every name carries @id in decimal). */
static void make_name(unsigned long id, uint64_t seed, char *b)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + id * 0xbf58476d1ce4e5b9ull + 1;
	size_t o = 0, k;
	char num[24];

	for (k = 0; k < 4; k++)
		rnd_next(&s);
	snprintf(num, sizeof(num), "%lu", id);
	switch (id % 12) {
	case 0: /* plain ASCII */
		add_alnum(b, &o, 1 + rnd_next(&s) % 30, &s);
		o += (size_t)sprintf(b + o, "%s", num);
		break;
	case 1: /* blanks and punctuation */
		o += (size_t)sprintf(b + o, "%s file %s (copy).%s", rnd_next(&s) % 2 ? " " : "-",
				     num, rnd_next(&s) % 2 ? "txt" : "tar.gz");
		break;
	case 2: /* UTF-8, ends in a byte >= 0x80 */
		o += (size_t)sprintf(b + o, "%s", num);
		add_utf8(b, &o, 1 + rnd_next(&s) % 20, 200, &s);
		break;
	case 3: /* short UTF-8: the tail word is all that differs */
		add_utf8(b, &o, 1 + rnd_next(&s) % 3, 200, &s);
		o += (size_t)sprintf(b + o, "%s", num);
		add_utf8(b, &o, 1, 200, &s);
		break;
	case 4: /* rsync temp names: ".foo.txt.AbC123" hashes as "foo.txt" */
		b[o++] = '.';
		if (rnd_next(&s) % 2)
			add_utf8(b, &o, 1 + rnd_next(&s) % 4, 100, &s);
		else
			add_alnum(b, &o, 1 + rnd_next(&s) % 10, &s);
		o += (size_t)sprintf(b + o, "%s.%s.", num, rnd_next(&s) % 2 ? "txt" : "dat");
		add_alnum(b, &o, 6, &s);
		break;
	case 5: /* dot-files the regex leaves alone, and ".x.y" -> "x" */
		if (rnd_next(&s) % 2)
			o += (size_t)sprintf(b + o, ".bashrc%s", num);
		else
			o += (size_t)sprintf(b + o, ".%s.y", num);
		break;
	case 6: /* 255 bytes, ASCII */
		o += (size_t)sprintf(b + o, "%s-", num);
		add_alnum(b, &o, 255 - o, &s);
		break;
	case 7: /* 255 bytes, 3-byte characters: ends in >= 0x80 */
		o += (size_t)sprintf(b + o, "%s-", num);
		while ((255 - o) % 3)
			b[o++] = 'x';
		while (o + 3 <= 255) {
			memcpy(b + o, "\xe6\x97\xa5", 3);
			o += 3;
		}
		break;
	case 8: /* control bytes */
		switch (rnd_next(&s) % 4) {
		case 0:
			o += (size_t)sprintf(b + o, "tab\there%s", num);
			break;
		case 1:
			o += (size_t)sprintf(b + o, "\x01start%s", num);
			break;
		case 2:
			o += (size_t)sprintf(b + o, "del%s\x7f", num);
			break;
		default:
			o += (size_t)sprintf(b + o, "new\nline%s", num);
			break;
		}
		break;
	case 9: /* invalid UTF-8: Latin-1 bytes at the end */
		o += (size_t)sprintf(b + o, "latin%s", num);
		k = 1 + rnd_next(&s) % 3;
		while (k--)
			b[o++] = (char)(0x80 + rnd_next(&s) % 0x80);
		break;
	case 10: /* 255 bytes of two-byte characters, odd length: ends in ASCII or >= 0x80 */
		o += (size_t)sprintf(b + o, "%s", num);
		while (o + 2 <= 255) {
			memcpy(b + o, "\xc3\xa9", 2);
			o += 2;
		}
		if (o < 255)
			b[o++] = 'z';
		break;
	default: /* mixed ASCII and UTF-8 with a blank */
		add_alnum(b, &o, 1 + rnd_next(&s) % 8, &s);
		b[o++] = ' ';
		add_utf8(b, &o, 1 + rnd_next(&s) % 6, 200, &s);
		o += (size_t)sprintf(b + o, "%s", num);
		if (rnd_next(&s) % 2)
			add_utf8(b, &o, 1, 250, &s);
		break;
	}
	b[o] = '\0';
}

struct pop_job {
	glfs_t *fs;
	char (*dirs)[256];
	unsigned long *counts, *firsts;
	size_t ndirs;
	uint64_t seed;
	unsigned t, nthreads;
	unsigned long created, failed;
};

static void *pop_thread(void *arg)
{
	struct pop_job *j = arg;
	char name[256], path[1024];
	size_t d;

	for (d = 0; d < j->ndirs; d++) {
		unsigned long i;

		for (i = j->t; i < j->counts[d]; i += j->nthreads) {
			glfs_fd_t *fd;

			make_name(j->firsts[d] + i, j->seed, name);
			snprintf(path, sizeof(path), "%s/%s", j->dirs[d], name);
			fd = glfs_creat(j->fs, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (!fd) {
				j->failed++;
				fprintf(stderr, "dhtmodel: create %s: %s\n", path, strerror(errno));
				continue;
			}
			glfs_close(fd);
			j->created++;
		}
	}
	return NULL;
}

static int cmd_populate(int argc, char **argv)
{
	struct pop_job jobs[16];
	pthread_t tid[16];
	char(*dirs)[256];
	unsigned long *counts, *firsts, total = 0, created = 0, failed = 0;
	unsigned nthreads, t;
	size_t ndirs = (size_t)argc - 5, d;
	glfs_t *fs;

	if (argc < 6)
		die("usage: populate VOL SEED THREADS DIR:COUNT...");
	nthreads = (unsigned)strtoul(argv[4], NULL, 10);
	if (nthreads < 1 || nthreads > 16)
		die("bad THREADS '%s'", argv[4]);
	dirs = calloc(ndirs, sizeof(*dirs));
	counts = calloc(ndirs, sizeof(*counts));
	firsts = calloc(ndirs, sizeof(*firsts));
	if (!dirs || !counts || !firsts)
		die("out of memory");
	fs = glfs_new(argv[2]);
	if (!fs || glfs_set_volfile_server(fs, "tcp", "localhost", 24007) ||
	    glfs_set_logging(fs, "/dev/null", 1) || glfs_init(fs))
		die("cannot start a client of '%s'", argv[2]);
	for (d = 0; d < ndirs; d++) {
		char *colon = strrchr(argv[5 + d], ':');

		if (!colon)
			die("bad DIR:COUNT '%s'", argv[5 + d]);
		*colon = '\0';
		snprintf(dirs[d], sizeof(dirs[d]), "/%s",
			 strcmp(argv[5 + d], ".") ? argv[5 + d] : "");
		counts[d] = strtoul(colon + 1, NULL, 10);
		firsts[d] = total;
		total += counts[d];
		if (strcmp(dirs[d], "/") && glfs_mkdir(fs, dirs[d], 0755) && errno != EEXIST)
			die("cannot create directory '%s'", dirs[d]);
	}
	for (t = 0; t < nthreads; t++) {
		jobs[t] = (struct pop_job){ fs,	    dirs,     counts,
					    firsts, ndirs,    strtoull(argv[3], NULL, 10),
					    t,	    nthreads, 0,
					    0 };
		if (pthread_create(&tid[t], NULL, pop_thread, &jobs[t]))
			die("cannot start a thread");
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(tid[t], NULL);
		created += jobs[t].created;
		failed += jobs[t].failed;
	}
	printf("created %lu\n", created);
	fflush(stdout);
	return failed || created != total ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* predict                                                                                    */

/*
 * An independent reimplementation of gf_dm_hashfn (libglusterfs/src/hashfn.c) with a switch
 * for the tail bytes: signed char (x86, what GlusterFS does) or unsigned char.
 */
static void tea(uint32_t *h0, uint32_t *h1, const uint32_t in[4], int rounds)
{
	uint32_t sum = 0, b0 = *h0, b1 = *h1;

	while (rounds--) {
		sum += 0x9E3779B9u;
		b0 += ((b1 << 4) + in[0]) ^ (b1 + sum) ^ ((b1 >> 5) + in[1]);
		b1 += ((b0 << 4) + in[2]) ^ (b0 + sum) ^ ((b0 >> 5) + in[3]);
	}
	*h0 += b0;
	*h1 += b1;
}

static uint32_t ref_hash(const unsigned char *msg, size_t len, int signed_tail)
{
	uint32_t h0 = 0x9464a485u, h1 = 0x542e1a94u, in[4], pad;
	size_t full = len / 16, words, i, k, left;

	pad = (uint32_t)len | (uint32_t)len << 8;
	pad |= pad << 16;
	for (i = 0; i < full; i++, msg += 16) {
		for (k = 0; k < 4; k++)
			memcpy(&in[k], msg + 4 * k, 4);
		tea(&h0, &h1, in, 6);
	}
	left = len % 16;
	words = left / 4;
	for (k = 0; k < 4; k++)
		in[k] = pad;
	for (k = 0; k < words; k++)
		memcpy(&in[k], msg + 4 * k, 4);
	if (left % 4) {
		uint32_t w = pad;
		const unsigned char *t = msg + 4 * words;

		for (i = 0; i < left % 4; i++) {
			w <<= 8;
			w |= signed_tail ? (uint32_t)(int32_t)(signed char)t[i] : (uint32_t)t[i];
		}
		in[words] = w;
	}
	tea(&h0, &h1, in, 10);
	return h0 ^ h1;
}

struct dirlayout {
	char *dir;
	struct lctl_layout_entry e[MAXSUB];
	size_t n;
};

static struct dirlayout *layouts;
static size_t nlayouts;

static struct dirlayout *find_dir(const char *dir, int create)
{
	size_t i;

	for (i = 0; i < nlayouts; i++)
		if (!strcmp(layouts[i].dir, dir))
			return &layouts[i];
	if (!create)
		return NULL;
	layouts = realloc(layouts, (nlayouts + 1) * sizeof(*layouts));
	if (!layouts)
		die("out of memory");
	memset(&layouts[nlayouts], 0, sizeof(*layouts));
	layouts[nlayouts].dir = strdup(dir);
	return &layouts[nlayouts++];
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void read_layouts(const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		die("cannot open '%s'", file);
	while (getline(&line, &cap, f) > 0) {
		char *dir = strtok(line, "\t\n"), *sv = strtok(NULL, "\t\n"),
		     *val = strtok(NULL, "\t\n");
		struct dirlayout *d;
		unsigned char raw[16];
		unsigned long i;
		size_t k;

		if (!dir || !sv || !val)
			die("bad layout line '%s'", line);
		i = strtoul(sv, NULL, 10);
		if (i >= MAXSUB)
			die("subvolume index too large: '%s'", sv);
		d = find_dir(dir, 1);
		if (i + 1 > d->n)
			d->n = i + 1;
		d->e[i].subvol = (int)i;
		if (!strcmp(val, "-")) {
			d->e[i].err = ENOENT;
			continue;
		}
		if (strlen(val) != 34 || strncmp(val, "0x", 2))
			die("bad layout value '%s'", val);
		for (k = 0; k < 16; k++) {
			int hi = hexval(val[2 + 2 * k]), lo = hexval(val[3 + 2 * k]);

			if (hi < 0 || lo < 0)
				die("bad layout value '%s'", val);
			raw[k] = (unsigned char)(hi << 4 | lo);
		}
		d->e[i].err = lctl_layout_decode(raw, 16, &d->e[i].r) ? EINVAL : 0;
	}
	free(line);
	fclose(f);
}

/* Print a name with odd bytes escaped, for the mismatch report. */
static void put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static int cmd_predict(int argc, char **argv)
{
	struct lctl_munge m;
	char *rec = NULL, buf[512];
	size_t cap = 0;
	unsigned long files = 0, mismatches = 0, signed_decisive = 0, munge_decisive = 0,
		      long_names = 0;
	ssize_t len;

	if (argc != 3)
		die("usage: predict LAYOUTS < RECORDS");
	read_layouts(argv[2]);
	if (lctl_munge_init(&m, NULL, NULL, NULL))
		die("cannot compile the default rsync regex");
	while ((len = getdelim(&rec, &cap, '\0', stdin)) > 0) {
		char *tab = strchr(rec, '\t'), *slash, *name;
		const char *dir;
		const char *hn;
		struct dirlayout *d;
		unsigned long sv;
		uint32_t h, hu, hr;
		int want, alt;

		if (!tab)
			die("bad record '%s'", rec);
		*tab = '\0';
		sv = strtoul(rec, NULL, 10);
		slash = strrchr(tab + 1, '/');
		if (slash) {
			*slash = '\0';
			dir = tab + 1;
			name = slash + 1;
		} else {
			dir = ".";
			name = tab + 1;
		}
		d = find_dir(dir, 0);
		if (!d)
			die("no layout for directory '%s'", dir);
		files++;
		long_names += strlen(name) == 255;
		h = lctl_name_hash(&m, name);
		want = lctl_layout_search(d->e, d->n, h);
		if (want != (int)sv) {
			mismatches++;
			printf("MISMATCH %s/", dir);
			put_escaped(name);
			printf(" hash 0x%08x predicted %d found on %lu\n", h, want, sv);
		}
		/* the independent hash agrees, and the quirks decide placement for some names */
		hn = lctl_munge_name(&m, name, buf, sizeof(buf));
		if (!hn)
			die("cannot munge '%s'", name);
		if (ref_hash((const unsigned char *)hn, strlen(hn), 1) != h ||
		    lctl_dm_hash(hn, strlen(hn)) != h) {
			printf("HASH DIFFERS for %s/", dir);
			put_escaped(name);
			printf("\n");
			mismatches++;
		}
		hu = ref_hash((const unsigned char *)hn, strlen(hn), 0);
		alt = lctl_layout_search(d->e, d->n, hu);
		signed_decisive += alt != want;
		hr = ref_hash((const unsigned char *)name, strlen(name), 1);
		alt = lctl_layout_search(d->e, d->n, hr);
		munge_decisive += alt != want;
	}
	free(rec);
	lctl_munge_release(&m);
	printf("files %lu mismatches %lu signed_tail_decisive %lu munge_decisive %lu names_255 %lu\n",
	       files, mismatches, signed_decisive, munge_decisive, long_names);
	return files && !mismatches ? 0 : 1;
}

/* ------------------------------------------------------------------------------------------ */
/* plan                                                                                       */

static void put_range(const char *path, const char *name, const struct lctl_range *r)
{
	unsigned char raw[LCTL_LAYOUT_XATTR_LEN];
	size_t k;

	lctl_layout_encode(r, raw);
	printf("%s\t%s\t0x", path, name);
	for (k = 0; k < sizeof(raw); k++)
		printf("%02x", raw[k]);
	printf("\n");
}

static int cmd_plan(int argc, char **argv)
{
	struct lctl_open_opts oo = { .volume = argv[2] };
	struct lctl_volume *vol;
	struct lctl_error err = { 0 };
	const struct lctl_dht_options *o;
	const char *names[MAXSUB];
	uint64_t weights[MAXSUB];
	bool active[MAXSUB], weighted;
	struct lctl_range out[MAXSUB];
	struct lctl_munge m;
	size_t n, i;
	int a;

	if (argc < 4)
		die("usage: plan VOL PATH...");
	if (lctl_volume_open(&oo, &vol, &err))
		die("cannot open the volume: %s", err.msg);
	o = lctl_volume_dht_options(vol);
	n = lctl_volume_nsubvols(vol);
	if (n > MAXSUB)
		die("too many subvolumes");
	weighted = o->weighted_rebalance;
	for (i = 0; i < n; i++) {
		const struct lctl_subvol *sv = lctl_volume_subvol(vol, i);

		names[i] = sv->name;
		active[i] = sv->up && !sv->decommissioned;
		weights[i] = lctl_du_chunks(sv->statfs_blocks, sv->statfs_bsize);
		if (active[i] && !weights[i])
			weighted = false;
	}
	if (lctl_munge_init(&m, o->extra_hash_regex, o->rsync_hash_regex, &err))
		die("bad hash regex: %s", err.msg);
	printf("weighted %s\n", weighted ? "yes" : "no");
	for (a = 3; a < argc; a++) {
		struct lctl_plan_in pi = { .n = n,
					   .names = names,
					   .active = active,
					   .weights = weighted ? weights : NULL };
		uint32_t commit = o->lookup_optimize ? lctl_volume_commit_hash(vol, NULL)
						     : LCTL_COMMIT_INVALID;

		if (lctl_plan_gluster(&pi, &m, argv[a], commit, out, &err))
			die("planner failed: %s", err.msg);
		for (i = 0; i < n; i++)
			put_range(argv[a], names[i], &out[i]);
	}
	lctl_munge_release(&m);
	fflush(stdout);
	return 0;
}

static int cmd_drain(int argc, char **argv)
{
	const char *leaving[MAXSUB];
	struct lctl_open_opts oo = { .volume = argv[2], .local_bricks = true, .leaving = leaving };
	struct lctl_inspector in;
	struct lctl_volume *vol;
	struct lctl_error err = { 0 };
	char *list, *tok, *save = NULL;
	size_t n, i;
	int a, ret;

	if (argc < 5)
		die("usage: drain VOL LEAVING PATH...");
	list = strdup(argv[3]);
	if (!list)
		die("out of memory");
	for (tok = strtok_r(list, ",", &save); tok && oo.nleaving < MAXSUB;
	     tok = strtok_r(NULL, ",", &save))
		leaving[oo.nleaving++] = tok;
	if (lctl_volume_open(&oo, &vol, &err))
		die("cannot open the volume: %s", err.msg);
	/* as lib/fix.c sets up a drain's inspector */
	if (lctl_inspector_init(&in, vol, LCTL_PLANNER_GLUSTER, false, &err))
		die("cannot set up the inspection: %s", err.msg);
	in.least_move = true;
	n = lctl_volume_nsubvols(vol);
	printf("weighted %s\n", in.weights ? "yes" : "no");
	for (a = 4; a < argc; a++) {
		struct lctl_dir_report *r;

		ret = lctl_inspect(&in, argv[a], 0, NULL, &r);
		if (ret || r->err)
			die("cannot inspect '%s': %s", argv[a],
			    lctl_strerror(ret ? ret : -LCTL_EIO));
		for (i = 0; i < n; i++)
			put_range(argv[a], lctl_volume_subvol(vol, i)->name, &r->planned[i]);
		lctl_dir_report_free(r);
	}
	lctl_inspector_release(&in);
	free(list);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "populate"))
		return cmd_populate(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "predict"))
		return cmd_predict(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "plan"))
		return cmd_plan(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "drain"))
		return cmd_drain(argc, argv);
	fprintf(stderr, "usage: dhtmodel populate|predict|plan|drain ...\n");
	return 2;
}
