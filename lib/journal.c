/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fix journal: what a run needs to be resumed, in the state directory.
 *
 * A small text file of "key value" lines ending with a CRC-32 of everything before it:
 *
 *	layoutctl-journal 1
 *	volume VOL
 *	run RUNID
 *	started EPOCH
 *	scope /escaped/path        (\xHH for bytes outside 0x21-0x7e and for '\')
 *	mode migrate|linkto|clean-first
 *	layout gluster|min-move
 *	force-move 1               (only for a run started with --force-move)
 *	clean-only 1               (only for a run started with --phase clean: its --resume
 *	                            ends with the directories clean too)
 *	drain NAME,NAME            (only for a drain: the DHT subvolumes it empties)
 *	clean-since EPOCH          (only once a clean-first run made every directory clean:
 *	                            when; a run resumed in its data phase says so)
 *	commit H
 *	phase dirty|place|work|data|done|stopped  (place: the pool's workers move their shares;
 *	      data: a clean-first run's directories are clean, its data is being moved)
 *	crc32 XXXXXXXX
 *
 * It is replaced atomically (write a temporary file, fsync, rename, fsync the directory), so a
 * crash leaves the old or the new version, never a mix. A file that does not parse or whose
 * CRC does not match is refused, never trusted.
 */
#include "internal.h"
#include "journal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *const mode_names[] = {
	[LCTL_FIX_MIGRATE] = "migrate",
	[LCTL_FIX_LINKTO] = "linkto",
	[LCTL_FIX_CLEAN_FIRST] = "clean-first",
};

const char *lctl_fix_mode_name(int mode)
{
	return mode >= 0 && (size_t)mode < LCTL_ARRAY_SIZE(mode_names) ? mode_names[mode] : NULL;
}

const char *lctl_planner_name(int planner)
{
	return planner == LCTL_PLANNER_MINMOVE	    ? "min-move"
	       : planner == LCTL_PLANNER_EVEN_USAGE ? "even-usage"
						    : "gluster";
}

int lctl_planner_parse(const char *s, enum lctl_planner *planner)
{
	if (!strcmp(s, "gluster"))
		*planner = LCTL_PLANNER_GLUSTER;
	else if (!strcmp(s, "min-move"))
		*planner = LCTL_PLANNER_MINMOVE;
	else if (!strcmp(s, "even-usage"))
		*planner = LCTL_PLANNER_EVEN_USAGE;
	else
		return -LCTL_EINVAL;
	return 0;
}

int lctl_fix_mode_parse(const char *s, enum lctl_fix_mode *mode)
{
	size_t i;

	for (i = 0; i < LCTL_ARRAY_SIZE(mode_names); i++)
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum lctl_fix_mode)i;
			return 0;
		}
	return -LCTL_EINVAL;
}

static void escape(struct lbuf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			lbuf_addf(b, "\\x%02x", c);
		else
			lbuf_add(b, s, 1);
	}
}

static int unescape(const char *s, char *out, size_t n)
{
	size_t o = 0;

	while (*s) {
		unsigned v;

		if (o + 1 >= n)
			return -1;
		if (*s == '\\') {
			if (s[1] != 'x' || !isxdigit((unsigned char)s[2]) ||
			    !isxdigit((unsigned char)s[3]) || sscanf(s + 2, "%2x", &v) != 1 || !v)
				return -1;
			out[o++] = (char)v;
			s += 4;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return 0;
}

/* Here, with the journal's scope, so that every reader of a scope links the same check. */
int lctl_volume_path_check(const char *p)
{
	const char *c;

	if (!p || p[0] != '/')
		return -1;
	/* no "." or ".." component: the path is used as given on every subvolume */
	for (c = p; *c; c++) {
		if (c[0] != '/' || c[1] != '.')
			continue;
		if (c[2] == '/' || c[2] == '\0' || (c[2] == '.' && (c[3] == '/' || c[3] == '\0')))
			return -1;
	}
	return 0;
}

/* A drain line: translator names (printable, no blank or backslash) separated by commas. */
static int drain_list_check(const char *s)
{
	const char *p;

	if (*s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return -1;
	for (p = s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '\\')
			return -1;
	return 0;
}

int lctl_journal_write(const char *dir, const struct lctl_journal *j, struct lctl_error *err)
{
	struct lbuf b;
	int ret;

	lbuf_init(&b);
	lbuf_addf(&b, "layoutctl-journal 1\nvolume %s\nrun %s\nstarted %lld\nscope ", j->volume,
		  j->run, (long long)j->started);
	escape(&b, j->scope);
	lbuf_addf(&b, "\nmode %s\nlayout %s\n%s%scommit %u\nphase %s\n",
		  lctl_fix_mode_name(j->mode), lctl_planner_name(j->planner),
		  j->force_move ? "force-move 1\n" : "", j->clean_only ? "clean-only 1\n" : "",
		  j->commit, j->phase);
	if (j->drain[0])
		lbuf_addf(&b, "drain %s\n", j->drain);
	if (j->clean_since > 0)
		lbuf_addf(&b, "clean-since %lld\n", (long long)j->clean_since);
	if (b.oom) {
		lbuf_release(&b);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	lbuf_addf(&b, "crc32 %08x\n", (uint32_t)crc32_z(0, (const Bytef *)b.buf, b.len));
	/* a fresh temporary, fsync'd, renamed over it, the directory fsync'd (statedir.c) */
	ret = lctl_state_write(dir, "journal", b.buf, b.len, true, err);
	lbuf_release(&b);
	return ret;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A positive number of seconds since the epoch, digits only. */
static int parse_epoch(const char *s, time_t *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0)
		return -1;
	*out = (time_t)v;
	return 0;
}

int lctl_journal_parse(const char *text, size_t len, struct lctl_journal *j, struct lctl_error *err)
{
	const char *crcline, *p;
	char line[8192], hex[9];
	unsigned fields = 0;
	uint32_t crc;

	memset(j, 0, sizeof(*j));
	if (memchr(text, '\0', len))
		return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal holds a NUL byte");
	/* the last line is the CRC of everything before it */
	crcline = NULL;
	for (p = text; p < text + len; p++)
		if (*p == '\n' && p + 1 < text + len)
			crcline = p + 1;
	if (!crcline || len - (size_t)(crcline - text) != 15 || strncmp(crcline, "crc32 ", 6) ||
	    text[len - 1] != '\n')
		return lctl_seterr(err, LCTL_ECORRUPT, 0,
				   "journal is truncated (no checksum line)");
	/* the input is not NUL-terminated: copy the 8 hex digits out before converting */
	memcpy(hex, crcline + 6, 8);
	hex[8] = '\0';
	if (strspn(hex, "0123456789abcdef") != 8 ||
	    (crc = (uint32_t)strtoul(hex, NULL, 16),
	     crc != (uint32_t)crc32_z(0, (const Bytef *)text, (size_t)(crcline - text))))
		return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal checksum does not match");
	for (p = text; p < crcline;) {
		const char *nl = memchr(p, '\n', (size_t)(crcline - p));
		size_t n = (size_t)(nl - p);
		char *val;

		if (!nl || n >= sizeof(line))
			return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal line too long");
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		val = strchr(line, ' ');
		if (!val)
			return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal line without a value");
		*val++ = '\0';
		if (!strcmp(line, "layoutctl-journal")) {
			if (strcmp(val, "1"))
				return lctl_seterr(err, LCTL_ECORRUPT, 0,
						   "journal version %s is unknown", val);
			fields |= 1;
		} else if (!strcmp(line, "volume") && strlen(val) < sizeof(j->volume)) {
			strcpy(j->volume, val);
			fields |= 2;
		} else if (!strcmp(line, "run") && strlen(val) < sizeof(j->run)) {
			strcpy(j->run, val);
			fields |= 4;
		} else if (!strcmp(line, "started")) {
			j->started = (time_t)strtoll(val, NULL, 10);
			fields |= 8;
		} else if (!strcmp(line, "scope")) {
			if (unescape(val, j->scope, sizeof(j->scope)) ||
			    lctl_volume_path_check(j->scope))
				return lctl_seterr(err, LCTL_ECORRUPT, 0,
						   "journal scope is malformed");
			fields |= 16;
		} else if (!strcmp(line, "mode") && !lctl_fix_mode_parse(val, &j->mode)) {
			fields |= 32;
		} else if (!strcmp(line, "layout") && !lctl_planner_parse(val, &j->planner)) {
			fields |= 64;
		} else if (!strcmp(line, "force-move") && !strcmp(val, "1") && !j->force_move) {
			j->force_move = true;
		} else if (!strcmp(line, "clean-only") && !strcmp(val, "1") && !j->clean_only) {
			j->clean_only = true;
		} else if (!strcmp(line, "drain") && !j->drain[0] && val[0] &&
			   strlen(val) < sizeof(j->drain) && !drain_list_check(val)) {
			strcpy(j->drain, val);
		} else if (!strcmp(line, "clean-since") && !j->clean_since &&
			   !parse_epoch(val, &j->clean_since)) {
			/* nothing else depends on it: what status and the report say */
		} else if (!strcmp(line, "commit") && !parse_u32(val, &j->commit) &&
			   j->commit != LCTL_COMMIT_INVALID) {
			/* 1 means "never clean" to DHT: no run stamps it (lctl_commit_hash_new()) */
			fields |= 128;
		} else if (!strcmp(line, "phase") && strlen(val) < sizeof(j->phase) &&
			   (!strcmp(val, "dirty") || !strcmp(val, "work") || !strcmp(val, "done") ||
			    !strcmp(val, "stopped") || !strcmp(val, "place") ||
			    !strcmp(val, "data"))) {
			strcpy(j->phase, val);
			fields |= 256;
		} else {
			return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal has a bad '%s' line",
					   line);
		}
	}
	if (fields != 511)
		return lctl_seterr(err, LCTL_ECORRUPT, 0, "journal is missing fields");
	return 0;
}

int lctl_journal_read(const char *dir, struct lctl_journal *j, struct lctl_error *err)
{
	char path[4096], buf[16384];
	struct lctl_error e = { 0 };
	ssize_t n;
	int ret;

	snprintf(path, sizeof(path), "%s/journal", dir);
	/* a regular file of ours, never a link or a FIFO, and smaller than @buf (statedir.c) */
	n = lctl_state_read(dir, "journal", buf, sizeof(buf), &e);
	if (n == -LCTL_EINVAL && e.sys_errno == ENOENT)
		return lctl_seterr(
			err, LCTL_EINVAL, ENOENT,
			"no journal in '%.150s': nothing to resume (start a run without --resume)",
			dir);
	if (n >= 0) {
		ret = lctl_journal_parse(buf, (size_t)n, j, err);
	} else {
		ret = (int)n;
		if (err)
			*err = e;
	}
	if (ret && err) {
		/*
		 * Refused, never trusted: say what to do. A new run is always safe (it makes every
		 * directory dirty again with a new commit hash); only the work already done is
		 * inspected once more.
		 */
		char m[sizeof(err->msg)];

		snprintf(m, sizeof(m),
			 "%.80s: %.80s; not resumable: start a new run without --resume (safe), "
			 "or move that file away",
			 path, err->msg);
		memcpy(err->msg, m, sizeof(m));
	}
	return ret;
}

/* ---- kept modes ---------------------------------------------------------------------------- */
/*
 * STATE_DIR/modes holds one line per record: "GFID MODE CRC", the gfid in 32 hex digits, the
 * permission bits in octal, and the CRC-32 of what precedes it on the line in 8 hex digits. A
 * line torn by a crash fails its CRC and is skipped (its file had not started moving yet: the
 * record is written and synced first).
 */
/* Open addressing on the gfid's first 8 bytes (random), table size a power of two. */
static struct lctl_kept_mode *modes_slot(struct lctl_kept_mode *v, size_t cap,
					 const unsigned char gfid[16])
{
	static const unsigned char zero[16];
	uint64_t h;
	size_t i;

	memcpy(&h, gfid, sizeof(h));
	for (i = (size_t)(h * 0x9e3779b97f4a7c15ull) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!memcmp(v[i].gfid, gfid, 16) || !memcmp(v[i].gfid, zero, 16))
			return &v[i];
}

static int modes_add(struct lctl_modes *m, const unsigned char gfid[16], mode_t mode)
{
	static const unsigned char zero[16];
	struct lctl_kept_mode *e;
	size_t i;

	if (!memcmp(gfid, zero, 16))
		return 0; /* no file has the null gfid */
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct lctl_kept_mode *v = calloc(cap, sizeof(*v));

		if (!v)
			return -LCTL_ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (memcmp(m->v[i].gfid, zero, 16))
				*modes_slot(v, cap, m->v[i].gfid) = m->v[i];
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	e = modes_slot(m->v, m->cap, gfid);
	if (memcmp(e->gfid, gfid, 16)) {
		memcpy(e->gfid, gfid, 16);
		m->n++;
	}
	e->mode = mode;
	return 0;
}

static int modes_line(char *out, size_t n, const unsigned char gfid[16], mode_t mode)
{
	int len = 0, i;

	for (i = 0; i < 16; i++)
		len += snprintf(out + len, n - (size_t)len, "%02x", gfid[i]);
	len += snprintf(out + len, n - (size_t)len, " %04o", (unsigned)(mode & 07777));
	len += snprintf(out + len, n - (size_t)len, " %08x\n",
			(uint32_t)crc32_z(0, (const Bytef *)out, (size_t)len));
	return len;
}

int lctl_modes_parse(struct lctl_modes *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int loaded = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[64], want[64];
		unsigned char gfid[16];
		unsigned mode, v;
		size_t l;
		int i;

		if (!nl)
			break; /* torn */
		l = (size_t)(nl - p);
		if (l + 2 > sizeof(line))
			goto next;
		memcpy(line, p, l);
		line[l] = '\0';
		/* 32 hex digits, a space, 4 octal digits */
		if (l != 32 + 1 + 4 + 1 + 8 || line[32] != ' ' || line[37] != ' ')
			goto next;
		for (i = 0; i < 16; i++) {
			if (!isxdigit((unsigned char)line[2 * i]) ||
			    !isxdigit((unsigned char)line[2 * i + 1]) ||
			    sscanf(line + 2 * i, "%2x", &v) != 1)
				goto next;
			gfid[i] = (unsigned char)v;
		}
		for (i = 33; i < 37; i++)
			if (line[i] < '0' || line[i] > '7')
				goto next;
		mode = (unsigned)strtoul(line + 33, NULL, 8);
		/* the same line written again must match byte for byte, CRC included */
		if (modes_line(want, sizeof(want), gfid, (mode_t)mode) != (int)l + 1 ||
		    memcmp(want, p, l + 1))
			goto next;
		if (modes_add(m, gfid, (mode_t)mode))
			return -LCTL_ENOMEM;
		loaded++;
next:
		p = nl + 1;
	}
	return loaded;
}

int lctl_modes_open(struct lctl_modes *m, const char *dir, struct lctl_error *err)
{
	char path[4200];
	struct stat st;
	bool torn;
	char *buf;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	snprintf(path, sizeof(path), "%s/modes", dir);
	m->fd = lctl_state_open(dir, "modes", LCTL_STATE_APPEND, err);
	if (m->fd < 0) {
		int ret = m->fd;

		m->fd = -1;
		return ret;
	}
	if (fstat(m->fd, &st))
		return lctl_seterr(err, LCTL_EIO, errno, "cannot open '%.150s': %s", path,
				   strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > (64 << 20))
		return lctl_seterr(err, LCTL_ECORRUPT, 0, "'%.150s' is not a mode record file",
				   path);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	n = pread(m->fd, buf, (size_t)st.st_size, 0);
	if (n < 0) {
		free(buf);
		return lctl_seterr(err, LCTL_EIO, errno, "cannot read '%.150s': %s", path,
				   strerror(errno));
	}
	torn = n > 0 && buf[n - 1] != '\n';
	if (lctl_modes_parse(m, buf, (size_t)n) < 0) {
		free(buf);
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	}
	free(buf);
	/* a torn last line (no newline) would glue itself to the next record */
	if (torn && write(m->fd, "\n", 1) != 1)
		return lctl_seterr(err, LCTL_EIO, errno, "cannot write '%.150s': %s", path,
				   strerror(errno));
	return 0;
}

int lctl_modes_keep(struct lctl_modes *m, const unsigned char gfid[16], mode_t mode)
{
	char line[64];
	int len, ret = 0;

	len = modes_line(line, sizeof(line), gfid, mode);
	pthread_mutex_lock(&m->lock);
	if (m->fd < 0)
		ret = -EBADF;
	else if (write(m->fd, line, (size_t)len) != len || fdatasync(m->fd))
		ret = errno ? -errno : -EIO;
	else if (modes_add(m, gfid, mode))
		ret = -ENOMEM;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

bool lctl_modes_find(struct lctl_modes *m, const unsigned char gfid[16], mode_t *mode)
{
	struct lctl_kept_mode *e;
	bool found = false;

	pthread_mutex_lock(&m->lock);
	if (m->cap) {
		e = modes_slot(m->v, m->cap, gfid);
		if (!memcmp(e->gfid, gfid, 16)) {
			*mode = e->mode;
			found = true;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

void lctl_modes_close(struct lctl_modes *m, const char *dir, bool forget)
{
	if (m->fd >= 0) {
		close(m->fd);
		if (forget)
			lctl_state_remove(dir, "modes", NULL);
	}
	m->fd = -1;
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
	pthread_mutex_destroy(&m->lock);
}
