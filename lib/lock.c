/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The locks of a run that writes to a volume, in a room of their own: a fix takes them (or is
 * handed them), and a drain holds them from its first pass through the remove-brick and the
 * fix after it (cmd/cmd-fix.c), so that no other run starts in between.
 *
 *  - flock(STATE_DIR/lock) against runs on this host with the same state directory;
 *  - the xattr trusted.layoutctl.lock on the root of the lock's subvolume (the first one;
 *    a drain whose first subvolume leaves also holds the first one that stays, where runs look
 *    once the remove is done), created with XATTR_CREATE, so only one run wins. A lock value V
 *    held by a dead run of this host, or any with --break-lock, is taken over: XATTR_CREATE
 *    of the claim trusted.layoutctl.lock.break.<crc32 of V> (one run wins it, the others
 *    refuse), then V read again, replaced only if still there, and read once more. The claims
 *    go when the lock does (release_locks()); one whose run died is claimed in turn.
 */
#include "internal.h"
#include "journal.h"
#include "lock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define LOCK_XATTR "trusted.layoutctl.lock"
/* a claim on a lock value being taken over: LOCK_BREAK_XATTR ".%08x", its CRC-32 */
#define LOCK_BREAK_XATTR LOCK_XATTR ".break"
/* claims in a row (each on the one before, left by a run that died) a take-over goes through */
#define LOCK_BREAK_DEPTH 4
/* with --break-lock, a claim this old is dead (claim_dead()): its run is gone or hung */
#define LOCK_CLAIM_STALE_S 600

struct lctl_lock {
	struct lctl_volume *vol;
	size_t sv; /* the subvolume whose root holds the xattr */
	bool break_lock;
	char state_dir[4096];
	char run[64];
	int lock_fd;
	bool vol_locked;
	char lock_value[512]; /* what we wrote into the volume lock */
	/* break keys a take-over of the lock went through, the last one ours (break_lock()) */
	char break_keys[LOCK_BREAK_DEPTH][48];
	unsigned nbreak;
	struct lctl_lock *also; /* a drain's second volume lock (lctl_lock_also()) */
};

static int take_local_lock(struct lctl_lock *f, struct lctl_error *err)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/lock", f->state_dir);
	/* a regular file of ours: never a link to another file, never a FIFO (statedir.c) */
	fd = lctl_state_open(f->state_dir, "lock", LCTL_STATE_CREATE, err);
	if (fd < 0)
		return fd;
	f->lock_fd = fd;
	if (flock(f->lock_fd, LOCK_EX | LOCK_NB))
		return lctl_seterr(err, LCTL_EBUSY, errno,
				   "another layoutctl fix of '%s' runs on this host (lock '%s')",
				   lctl_volume_name(f->vol), path);
	return 0;
}

/* @key on subvolume 0's root into @buf, NUL-terminated. Return: its length, or -1 (errno). */
static ssize_t read_root_xattr(struct lctl_lock *f, const char *key, char *buf, size_t size)
{
	ssize_t n = glfs_getxattr(lctl_volume_subvol_fs(f->vol, f->sv), "/", key, buf, size - 1);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static bool lock_is_ours(struct lctl_lock *f)
{
	char held[512];

	return read_root_xattr(f, LOCK_XATTR, held, sizeof(held)) >= 0 &&
	       !strcmp(held, f->lock_value);
}

/* A word of a lock value: printable ASCII, no space ("-" when it cannot be read). */
static void ident_word(char *out, size_t size, const char *path, size_t max)
{
	char buf[128] = "";
	size_t i, k = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	for (i = 0; buf[i] && k + 1 < size && k < max; i++)
		if (buf[i] > 0x20 && buf[i] < 0x7f)
			out[k++] = buf[i];
	out[k] = '\0';
	if (!k)
		snprintf(out, size, "-");
}

/* When process @pid started (clock ticks since boot, /proc/PID/stat field 22), 0 if none. */
unsigned long long lctl_proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* after "pid (comm)": state is field 3, starttime field 22 */
	for (i = 3; p && i <= 22; i++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p, "%llu", &start) != 1)
		start = 0;
	return start;
}

void lctl_lock_ident(struct lctl_lock_ident *me)
{
	char ns[64];
	ssize_t n;

	memset(me, 0, sizeof(*me));
	gethostname(me->host, sizeof(me->host) - 1);
	if (!me->host[0] || strchr(me->host, ' '))
		snprintf(me->host, sizeof(me->host), "?");
	ident_word(me->machine, sizeof(me->machine), "/etc/machine-id", 32);
	ident_word(me->boot, sizeof(me->boot), "/proc/sys/kernel/random/boot_id", 36);
	n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
	ns[n > 0 ? n : 0] = '\0';
	snprintf(me->pidns, sizeof(me->pidns), "%s", n > 0 ? ns : "-");
	for (n = 0; me->pidns[n]; n++)
		if (me->pidns[n] <= 0x20 || me->pidns[n] >= 0x7f)
			me->pidns[n] = '?';
	me->pid = (long)getpid();
	me->start = lctl_proc_start(me->pid);
}

/*
 * Whether the run a lock value (or a claim's) names is dead, as far as this host can tell.
 * A value is "HOST PID RUN TIME MACHINE BOOT PIDNS START": the run's host name, pid, run id,
 * when it took the lock, /etc/machine-id, the boot id, its pid namespace and its start time.
 *  - same boot id (the same running kernel: a container on it too) and pid namespace: dead
 *    once no process has its pid and start time (a pid reused by a later process is not the
 *    holder);
 *  - same machine id and host name, another boot: this machine before a reboot, dead;
 *  - anything else (another machine with the same host name, a clone or a container with
 *    its own pid namespace, a value of an older layoutctl without these words): it cannot be
 *    asked from here, so alive (--break-lock takes it).
 * Not "not running here": a run of this host with another state directory holds its own
 * flock (take_local_lock() proves nothing about it).
 */
bool lctl_lock_value_dead(const char *v, const struct lctl_lock_ident *me,
			  unsigned long long (*start_of)(long pid))
{
	char h[256], run[64], mach[64], boot[64], ns[64];
	unsigned long long start;
	long long when;
	long pid;

	if (sscanf(v, "%255s %ld %63s %lld %63s %63s %63s %llu", h, &pid, run, &when, mach, boot,
		   ns, &start) != 8 ||
	    pid <= 0 || !strcmp(boot, "-"))
		return false;
	if (strcmp(boot, me->boot))
		return strcmp(mach, "-") && !strcmp(mach, me->machine) && !strcmp(h, me->host);
	if (strcmp(ns, me->pidns) || !strcmp(ns, "-"))
		return false;
	return start_of(pid) != start;
}

static bool value_dead_here(const char *v, const struct lctl_lock_ident *me)
{
	return lctl_lock_value_dead(v, me, lctl_proc_start);
}

/*
 * A claim (break key) left by a run that died between creating it and replacing the lock:
 * dead here, or, with --break-lock, written LOCK_CLAIM_STALE_S ago or more (another host's run
 * cannot be asked; a run that lives takes milliseconds from its claim to the replacement).
 */
static bool claim_dead(struct lctl_lock *f, const char *v, const struct lctl_lock_ident *host)
{
	long long when = 0;

	if (value_dead_here(v, host))
		return true;
	return f->break_lock && sscanf(v, "%*s %*d %*s %lld", &when) == 1 &&
	       (long long)time(NULL) - when >= LOCK_CLAIM_STALE_S;
}

static void break_key(const char *value, char *key, size_t size)
{
	snprintf(key, size, "%s.%08x", LOCK_BREAK_XATTR,
		 (uint32_t)crc32_z(0, (const Bytef *)value, strlen(value)));
}

/*
 * Remove this run's claims: all the break keys it went through when @all (the lock value
 * they are about has left the lock: see release_locks()), else only the last one, its own
 * (the value may still be there: the dead claims before it must stay, or a run that read
 * one of them could claim past it while another created the first key again).
 */
static void drop_claims(struct lctl_lock *f, bool all)
{
	glfs_t *fs = lctl_volume_subvol_fs(f->vol, f->sv);
	const struct lctl_subvol *sv = lctl_volume_subvol(f->vol, f->sv);

	if (!all && f->nbreak > 1) {
		memmove(f->break_keys[0], f->break_keys[f->nbreak - 1], sizeof(f->break_keys[0]));
		f->nbreak = 1;
	}
	while (f->nbreak) {
		const char *key = f->break_keys[--f->nbreak];

		if (glfs_removexattr(fs, "/", key) && errno != ENODATA)
			lctl_log(LCTL_LOG_WARN,
				 "cannot remove the attribute %s from the root of %s (%s): left; it "
				 "blocks nothing once the lock it names is gone ('setfattr -x %s' "
				 "on the root of each of its bricks removes it)",
				 key, sv->name, strerror(errno), key);
	}
}

/*
 * Claim the right to replace the lock value @v: create its break key, LOCK_BREAK_XATTR "."
 * the CRC-32 of @v, with XATTR_CREATE, which exactly one run can. A claim found there whose
 * run died (claim_dead()) is passed the same way: this run claims that claim's value.
 * Return: 0 (claimed: f->break_keys, the last one ours), 1 (a claim vanished while read: the
 * caller looks at the lock again), or a negative LCTL_E* code (f->nbreak 0).
 */
static int claim_lock(struct lctl_lock *f, const char *v, const struct lctl_lock_ident *host,
		      struct lctl_error *err)
{
	glfs_t *fs = lctl_volume_subvol_fs(f->vol, f->sv);
	const char *vol = lctl_volume_name(f->vol);
	char cur[512], w[512];
	int ret;

	snprintf(cur, sizeof(cur), "%s", v);
	while (f->nbreak < LOCK_BREAK_DEPTH) {
		char *key = f->break_keys[f->nbreak];

		break_key(cur, key, sizeof(f->break_keys[0]));
		if (!glfs_setxattr(fs, "/", key, f->lock_value, strlen(f->lock_value),
				   XATTR_CREATE)) {
			f->nbreak++;
			return 0;
		}
		if (errno != EEXIST) {
			ret = lctl_seterr(err, LCTL_EIO, errno, "cannot claim the lock of '%s': %s",
					  vol, strerror(errno));
			goto refused;
		}
		if (read_root_xattr(f, key, w, sizeof(w)) < 0) {
			if (errno == ENODATA) {
				ret = 1; /* its run gave up or ended: the lock changed too */
				goto refused;
			}
			ret = lctl_seterr(err, LCTL_EIO, errno, "cannot read %s: %s", key,
					  strerror(errno));
			goto refused;
		}
		if (!claim_dead(f, w, host)) {
			ret = lctl_seterr(err, LCTL_EBUSY, 0,
					  "another run is taking over the lock of '%s' at the "
					  "same time (%.100s); a dead run's claim yields to "
					  "--break-lock after %d minutes",
					  vol, w, LOCK_CLAIM_STALE_S / 60);
			goto refused;
		}
		f->nbreak++; /* gone through: removed with ours once the lock is no longer @v */
		snprintf(cur, sizeof(cur), "%s", w);
	}
	ret = lctl_seterr(err, LCTL_EBUSY, 0,
			  "%d claims on the lock of '%s' left by runs that died: remove the "
			  "attributes %s.* from the root of %s by hand",
			  LOCK_BREAK_DEPTH, vol, LOCK_BREAK_XATTR,
			  lctl_volume_subvol(f->vol, f->sv)->name);
refused:
	/* none of them ours: the lock may still hold @v, and these keep it claimed */
	f->nbreak = 0;
	return ret;
}

/*
 * Take over the volume lock holding @v (a dead run's, or --break-lock). There is no
 * compare-and-swap on an xattr: a run claims @v first (claim_lock(), atomic), then checks the
 * lock still holds exactly @v, replaces it and checks again. Two runs that read @v at the same
 * time cannot both go on: the second one's claim fails. Return: 0 (the lock is ours), 1 (it
 * no longer holds @v: the caller looks again), or a negative LCTL_E* code.
 */
static int break_lock(struct lctl_lock *f, const char *v, const struct lctl_lock_ident *host,
		      struct lctl_error *err)
{
	glfs_t *fs = lctl_volume_subvol_fs(f->vol, f->sv);
	char now[512];
	int ret = claim_lock(f, v, host, err);

	if (ret)
		return ret;
	if (read_root_xattr(f, LOCK_XATTR, now, sizeof(now)) < 0) {
		if (errno == ENODATA)
			goto changed;
		ret = lctl_seterr(err, LCTL_EIO, errno, "cannot read the volume lock: %s",
				  strerror(errno));
		goto give_up;
	}
	if (strcmp(now, v))
		goto changed;
	if (glfs_setxattr(fs, "/", LOCK_XATTR, f->lock_value, strlen(f->lock_value),
			  XATTR_REPLACE)) {
		if (errno == ENODATA)
			goto changed;
		ret = lctl_seterr(err, LCTL_EIO, errno, "cannot take the volume lock: %s",
				  strerror(errno));
		goto give_up;
	}
	/* a claimer that hung for minutes between its check and its write could still win */
	if (!lock_is_ours(f)) {
		drop_claims(f, true);
		return lctl_seterr(err, LCTL_EBUSY, 0,
				   "another run took the volume lock of '%s' at the same time",
				   lctl_volume_name(f->vol));
	}
	f->vol_locked = true; /* the claims go with the lock (release_locks()) */
	return 0;
changed:
	drop_claims(f, true); /* @v has left the lock, and never comes back */
	return 1;
give_up:
	drop_claims(f, false);
	return ret;
}

static int take_volume_lock(struct lctl_lock *f, struct lctl_error *err)
{
	glfs_t *fs = lctl_volume_subvol_fs(f->vol, f->sv);
	struct lctl_lock_ident me, *host = &me;
	char held[512];
	bool may_break = f->break_lock;
	int attempt, ret;

	lctl_lock_ident(&me);
	snprintf(f->lock_value, sizeof(f->lock_value), "%s %ld %s %lld %s %s %s %llu", me.host,
		 me.pid, f->run, (long long)time(NULL), me.machine, me.boot, me.pidns, me.start);
	/*
	 * A second look when the lock changed under a take-over: created again if it is gone;
	 * a new holder is judged anew, and --break-lock meant the one before.
	 */
	for (attempt = 0; attempt < 2; attempt++) {
		if (!glfs_setxattr(fs, "/", LOCK_XATTR, f->lock_value, strlen(f->lock_value),
				   XATTR_CREATE)) {
			f->vol_locked = true;
			return 0;
		}
		if (errno != EEXIST)
			return lctl_seterr(err, LCTL_EIO, errno, "cannot take the volume lock: %s",
					   strerror(errno));
		if (read_root_xattr(f, LOCK_XATTR, held, sizeof(held)) < 0) {
			if (errno == ENODATA)
				continue; /* released since */
			return lctl_seterr(err, LCTL_EIO, errno, "cannot read the volume lock: %s",
					   strerror(errno));
		}
		/* a dead run of this host is taken over; any other needs --break-lock */
		if (!value_dead_here(held, host) && !may_break)
			return lctl_seterr(err, LCTL_EBUSY, 0,
					   f->break_lock
						   ? "the lock of volume '%s' was taken by another "
						     "layoutctl fix (%s) while this run took it over"
						   : "volume '%s' is locked by another layoutctl fix "
						     "(%s); if that run is dead, use --break-lock",
					   lctl_volume_name(f->vol), held);
		ret = break_lock(f, held, host, err);
		if (ret <= 0)
			return ret;
		may_break = false;
	}
	return lctl_seterr(err, LCTL_EBUSY, 0,
			   "the volume lock of '%s' changed while this run took it over: try again",
			   lctl_volume_name(f->vol));
}

/*
 * Remove the volume lock only while it holds what we wrote: one broken by another host
 * (--break-lock there) is theirs now. Read-compare-remove: GlusterFS offers nothing atomic.
 *
 * Then the break keys of the lock value this run took over (break_lock()). Removing them is
 * safe: that value left the lock when this run replaced it, and a value never comes back (host,
 * pid, run and time make it unique). A breaker that read it before, and claims it only now,
 * finds the lock holding something else when it checks after its claim, and gives up.
 */
static void release_locks(struct lctl_lock *f)
{
	if (f->vol_locked) {
		const struct lctl_subvol *sv = lctl_volume_subvol(f->vol, f->sv);

		if (!lock_is_ours(f))
			lctl_log(LCTL_LOG_WARN,
				 "the volume lock of '%s' is no longer ours "
				 "(another run broke it): left in place",
				 lctl_volume_name(f->vol));
		else if (glfs_removexattr(lctl_volume_subvol_fs(f->vol, f->sv), "/", LOCK_XATTR))
			lctl_log(LCTL_LOG_WARN,
				 "cannot remove the volume lock of '%s' (%s): it stays, and a fix "
				 "on another host refuses until it is broken (--break-lock) or "
				 "removed by hand: 'setfattr -x %s' on the root of each brick of %s "
				 "(%s:%s first)",
				 lctl_volume_name(f->vol), strerror(errno), LOCK_XATTR, sv->name,
				 sv->nbricks ? sv->bricks[0].host : "?",
				 sv->nbricks ? sv->bricks[0].path : "?");
		drop_claims(f, true);
	}
	f->vol_locked = false;
	if (f->lock_fd >= 0)
		close(f->lock_fd);
	f->lock_fd = -1;
}

int lctl_lock_local(struct lctl_volume *vol, const char *state_dir, struct lctl_lock **out,
		    struct lctl_error *err)
{
	struct lctl_lock *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	l->vol = vol;
	l->lock_fd = -1;
	snprintf(l->state_dir, sizeof(l->state_dir), "%s", state_dir);
	ret = take_local_lock(l, err);
	if (ret) {
		lctl_lock_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

int lctl_lock_volume(struct lctl_lock *l, const char *run, bool break_lock, struct lctl_error *err)
{
	snprintf(l->run, sizeof(l->run), "%s", run);
	l->break_lock = break_lock;
	l->sv = 0;
	return take_volume_lock(l, err);
}

int lctl_lock_also(struct lctl_lock *l, size_t sv, struct lctl_error *err)
{
	struct lctl_lock *a;
	int ret;

	if (l->also || sv == l->sv)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return lctl_seterr(err, LCTL_ENOMEM, 0, "out of memory");
	a->vol = l->vol;
	a->sv = sv;
	a->lock_fd = -1;
	a->break_lock = l->break_lock;
	snprintf(a->run, sizeof(a->run), "%s", l->run);
	ret = take_volume_lock(a, err);
	if (ret) {
		free(a);
		return ret;
	}
	l->also = a;
	return 0;
}

bool lctl_lock_held(struct lctl_lock *l)
{
	return l && l->vol_locked && lock_is_ours(l) && (!l->also || lock_is_ours(l->also));
}

void lctl_lock_free(struct lctl_lock *l)
{
	if (!l)
		return;
	if (l->also) {
		release_locks(l->also);
		free(l->also);
	}
	release_locks(l);
	free(l);
}

/*
 * Where runs look for the volume lock and a drain's mark once the leaving subvolumes are
 * removed, when the first subvolume is one of them: the first that stays. -1 when the first
 * subvolume stays (runs look there now and after the remove alike).
 */
static ssize_t first_staying(struct lctl_volume *vol)
{
	size_t i, n = lctl_volume_nsubvols(vol);

	if (!n || !lctl_volume_subvol(vol, 0)->leaving)
		return -1;
	for (i = 1; i < n; i++)
		if (!lctl_volume_subvol(vol, i)->leaving)
			return (ssize_t)i;
	return -1;
}

int lctl_volume_lock(struct lctl_volume *vol, const char *state_dir, bool break_lock,
		     struct lctl_lock **out, struct lctl_error *err)
{
	struct lctl_lock *l;
	struct timespec now;
	char run[64];
	ssize_t also = first_staying(vol);
	int ret;

	*out = NULL;
	ret = lctl_state_dir_prepare(state_dir, err);
	if (ret)
		return ret;
	ret = lctl_lock_local(vol, state_dir, &l, err);
	if (ret)
		return ret;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(run, sizeof(run), "hold-%lld-%ld", (long long)now.tv_sec, (long)getpid());
	ret = lctl_lock_volume(l, run, break_lock, err);
	/*
	 * Where runs look once the leaving subvolumes are removed: the first one that stays.
	 * Until then they look at the first one, which this lock holds too.
	 */
	if (!ret && also >= 0)
		ret = lctl_lock_also(l, (size_t)also, err);
	if (ret) {
		lctl_lock_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void lctl_lock_removed(struct lctl_lock *l)
{
	struct lctl_lock *a;

	if (!l || !l->also || !lctl_volume_subvol(l->vol, l->sv)->leaving)
		return;
	/* its brick left the volume: the lock there guards nothing now; removed if it can be */
	if (l->vol_locked && lock_is_ours(l))
		glfs_removexattr(lctl_volume_subvol_fs(l->vol, l->sv), "/", LOCK_XATTR);
	l->vol_locked = false;
	a = l->also;
	l->sv = a->sv;
	l->vol_locked = a->vol_locked;
	memcpy(l->lock_value, a->lock_value, sizeof(l->lock_value));
	memcpy(l->break_keys, a->break_keys, sizeof(l->break_keys));
	l->nbreak = a->nbreak;
	l->also = NULL;
	free(a);
}

/*
 * The mark of a drain that stands: DRAIN_XATTR on the root of the first subvolume (and of the
 * first staying one when the first leaves, where runs look once the bricks are removed), from
 * a drain's first run until its bricks are removed. Its value: the leaving subvolumes' names,
 * comma-separated, a space, and the host that runs the drain. While it stands, a fix (any
 * host, any state directory, a maintenance timer) refuses: it would give the leaving
 * subvolumes ranges again and move files onto them (issue 24). A stopped drain holds no lock,
 * so the lock alone cannot say so.
 */
#define DRAIN_XATTR "trusted.layoutctl.drain"

/* The subvolumes whose roots carry the mark: those that hold the lock (first_staying()). */
static size_t mark_subvols(struct lctl_volume *vol, size_t out[2])
{
	ssize_t also = first_staying(vol);
	size_t k = 0;

	if (!lctl_volume_nsubvols(vol))
		return 0;
	out[k++] = 0;
	if (also >= 0)
		out[k++] = (size_t)also;
	return k;
}

int lctl_drain_mark_read(struct lctl_volume *vol, char *buf, size_t size)
{
	ssize_t n;

	if (!lctl_volume_nsubvols(vol))
		return 0;
	n = glfs_getxattr(lctl_volume_subvol_fs(vol, 0), "/", DRAIN_XATTR, buf, size - 1);
	if (n < 0)
		return errno == ENODATA ? 0 : -(errno ? errno : EIO);
	buf[n] = '\0';
	return 1;
}

int lctl_drain_mark(struct lctl_volume *vol, const char *leaving, struct lctl_error *err)
{
	char value[1024], host[256] = "?";
	size_t sv[2], k, i;

	gethostname(host, sizeof(host) - 1);
	for (i = 0; host[i]; i++)
		if ((unsigned char)host[i] <= 0x20 || (unsigned char)host[i] >= 0x7f)
			host[i] = '?';
	snprintf(value, sizeof(value), "%s %s", leaving, host);
	k = mark_subvols(vol, sv);
	for (i = 0; i < k; i++)
		if (glfs_setxattr(lctl_volume_subvol_fs(vol, sv[i]), "/", DRAIN_XATTR, value,
				  strlen(value), 0))
			return lctl_seterr(err, LCTL_EIO, errno,
					   "cannot mark the drain on the root of %s: %s",
					   lctl_volume_subvol(vol, sv[i])->name, strerror(errno));
	return 0;
}

void lctl_drain_unmark(struct lctl_volume *vol)
{
	size_t i, n = lctl_volume_nsubvols(vol);

	for (i = 0; i < n; i++) {
		glfs_t *fs = lctl_volume_subvol_fs(vol, i);

		if (fs && lctl_volume_subvol(vol, i)->up &&
		    glfs_removexattr(fs, "/", DRAIN_XATTR) && errno != ENODATA &&
		    !lctl_volume_subvol(vol, i)->leaving)
			lctl_log(LCTL_LOG_WARN,
				 "cannot remove the mark of the drain from the root of %s (%s): "
				 "'setfattr -x %s' on the root of each of its bricks removes it",
				 lctl_volume_subvol(vol, i)->name, strerror(errno), DRAIN_XATTR);
	}
}

bool lctl_drain_mark_stale(struct lctl_volume *vol, const char *value)
{
	char names[1024], *name, *save = NULL;
	size_t i, n = lctl_volume_nsubvols(vol);

	snprintf(names, sizeof(names), "%s", value);
	names[strcspn(names, " ")] = '\0';
	for (name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save))
		for (i = 0; i < n; i++)
			if (!strcmp(lctl_volume_subvol(vol, i)->name, name))
				return false;
	return true;
}
