/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gfcheck: small libgfapi helpers for the fix integration tests.
 *
 *   gfcheck lookup VOL LIST [STOPFILE]
 *	Fresh-lookup checker. Each round is a NEW process with a NEW glfs_t (no cached inodes):
 *	it lstat()s every path of LIST (one per line, relative to the volume root, NUL-free) by
 *	name. Without STOPFILE, one round. With STOPFILE, rounds follow each other until STOPFILE
 *	exists, then one last round. While STOPFILE.pause exists no new round starts (for a
 *	measurement that other clients' lookups would disturb); STOPFILE.paused says the checker
 *	waits. Prints "ENOENT <path>" / "ERR <errno> <path>" for every
 *	failed lookup and "round N files F enoent E errors X ms T" per round; exit 0 when no
 *	lookup failed, 1 otherwise, 2 when a client could not start.
 *	A round whose client is still looking one path up after 120 s is killed and reported as
 *	"HUNG round N <path>", and the next round starts (a gfapi 10.3 client was once seen
 *	looping for ever in a lookup it began while a fix rewrote layouts, memory growing, while
 *	fresh clients and FUSE found every path); exit 3 when the last round hung.
 *
 *   gfcheck create VOL DIR N PREFIX [VOLFILE DUMP]
 *	One fresh client creates N new files DIR/PREFIX<i> with O_CREAT|O_EXCL (the LOOKUP per
 *	CREATE measurement of dht-facts.md section 8). Exit 0 when all N were created.
 *	With VOLFILE, the client's graph is that file (tools/statvol.py: io-stats below DHT),
 *	not the server's; it looks DIR up, then sets trusted.io-stats-dump to DUMP.before on
 *	"/" (each io-stats xlator writes its counts to <run dir>/DUMP.before.<xlator>), creates
 *	the files, and dumps DUMP.after.
 *
 * Every client waits until each of its subvolumes is up before it is used (all_subvols_up()).
 * The volfile server is localhost, or $GFCHECK_SERVER (a pool's node, tests/integration/pool.sh).
 * Clients are never glfs_fini'd (it takes ~11 s in 10.3): the process just exits.
 * Build: gcc -O2 -o gfcheck gfcheck.c $(pkg-config --cflags --libs glusterfs-api)
 */
#include <glusterfs/api/glfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#ifndef CONNECT_LIMIT_MS
#define CONNECT_LIMIT_MS 30000
#endif

/*
 * DHT's virtual xattr "dht.subvol.status" on "/": "1" when every subvolume is up in this
 * client, "0" otherwise. glfs_init() returns once each subvolume has answered once, up or
 * DOWN: a brick whose connection failed at start (a portmap answer lost on a loaded machine)
 * is tried again 3 s later, and meanwhile a lookup of a name on it fails (ENOTCONN where it is
 * hashed, ENOENT where only its data is there). Such a client would blame the fix for its own
 * start, so a client is used only once all its subvolumes are up: this waits up to
 * CONNECT_LIMIT_MS. 1: all up (or no DHT to ask), 0: still one down.
 */
static int all_subvols_up(glfs_t *fs, unsigned limit_ms)
{
	double t0 = now_ms();
	char val[16];
	ssize_t r;

	for (;;) {
		r = glfs_getxattr(fs, "/", "dht.subvol.status", val, sizeof(val) - 1);
		if (r < 0 && errno != ENOTCONN)
			return 1;
		if (r > 0) {
			val[r] = '\0';
			if (strcmp(val, "0") != 0)
				return 1;
		}
		if (now_ms() - t0 >= limit_ms)
			return 0;
		usleep(50000);
	}
}

static glfs_t *client_volfile(const char *vol, const char *volfile)
{
	glfs_t *fs = glfs_new(vol);
	const char *server = getenv("GFCHECK_SERVER");
	double t0;

	if (!fs ||
	    (volfile ? glfs_set_volfile(fs, volfile)
		     : glfs_set_volfile_server(fs, "tcp",
					       server && server[0] ? server : "localhost",
					       24007)) ||
	    glfs_set_logging(fs, "/dev/null", 1) || glfs_init(fs)) {
		fprintf(stderr, "gfcheck: cannot start a client of %s: %s\n", vol, strerror(errno));
		return NULL;
	}
	t0 = now_ms();
	if (!all_subvols_up(fs, CONNECT_LIMIT_MS)) {
		fprintf(stderr,
			"gfcheck: a subvolume of %s is still down in a new client after %d s\n",
			vol, CONNECT_LIMIT_MS / 1000);
		return NULL;
	}
	if (now_ms() - t0 >= 1000) /* seen, not a failure: the checker's log tells */
		fprintf(stderr, "gfcheck: a new client of %s had a subvolume down for %.1f s\n",
			vol, (now_ms() - t0) / 1e3);
	return fs;
}

static glfs_t *client(const char *vol)
{
	return client_volfile(vol, NULL);
}

/* setxattr trusted.io-stats-dump=DUMP.WHEN on "/": DHT winds it to every subvolume */
static int iostats_dump(glfs_t *fs, const char *dump, const char *when)
{
	char val[4096];

	snprintf(val, sizeof(val), "%s.%s", dump, when);
	if (glfs_setxattr(fs, "/", "trusted.io-stats-dump", val, strlen(val), 0) == 0)
		return 0;
	fprintf(stderr, "gfcheck: io-stats dump %s: %s\n", val, strerror(errno));
	return -1;
}

static char **read_list(const char *file, size_t *n)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, **v = NULL;
	size_t cap = 0, len = 0;
	ssize_t r;

	if (!f) {
		perror(file);
		exit(2);
	}
	*n = 0;
	while ((r = getline(&line, &len, f)) > 0) {
		if (line[r - 1] == '\n')
			line[--r] = '\0';
		if (!r)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				exit(2);
		}
		v[*n] = malloc((size_t)r + 2);
		if (!v[*n])
			exit(2);
		snprintf(v[*n], (size_t)r + 2, "%s%s", line[0] == '/' ? "" : "/", line);
		(*n)++;
	}
	free(line);
	fclose(f);
	return v;
}

#ifndef ROUND_PATH_LIMIT_MS
#define ROUND_PATH_LIMIT_MS 120000
#endif

/* Shared with the round's child: the index of the path it is looking up, and since when. */
struct progress {
	volatile size_t i;
	volatile double since;
};
static struct progress *prog;

/* One round in a child process; its exit status: 0 ok, 1 failures, 2 no client. */
static int round_child(const char *vol, char **paths, size_t n, unsigned round)
{
	double t0 = now_ms();
	size_t i, enoent = 0, errs = 0;
	struct stat st;
	glfs_t *fs = client(vol);

	if (!fs)
		return 2;
	for (i = 0; i < n; i++) {
		prog->i = i;
		prog->since = now_ms();
		if (glfs_lstat(fs, paths[i], &st) == 0)
			continue;
		if (errno == ENOENT) {
			enoent++;
			printf("ENOENT %s\n", paths[i]);
		} else {
			errs++;
			printf("ERR %d %s\n", errno, paths[i]);
		}
	}
	printf("round %u files %zu enoent %zu errors %zu ms %.0f\n", round, n, enoent, errs,
	       now_ms() - t0);
	fflush(stdout);
	return enoent || errs ? 1 : 0;
}

static int cmd_lookup(int argc, char **argv)
{
	size_t n;
	char **paths;
	const char *stop = argc > 4 ? argv[4] : NULL;
	char *pause = NULL, *paused = NULL;
	unsigned round = 0;
	int bad = 0, last = 0;

	if (argc < 4)
		return 2;
	paths = read_list(argv[3], &n);
	if (!n)
		return 2;
	prog = mmap(NULL, sizeof(*prog), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (prog == MAP_FAILED)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (stop &&
	    (asprintf(&pause, "%s.pause", stop) < 0 || asprintf(&paused, "%s.paused", stop) < 0))
		return 2;
	do {
		pid_t pid, got;
		int st;

		/* STOPFILE.pause: no round starts until it is gone; STOPFILE.paused says so */
		if (pause && access(pause, F_OK) == 0 && access(stop, F_OK) != 0) {
			int fd = open(paused, O_WRONLY | O_CREAT, 0644);

			if (fd >= 0)
				close(fd);
			while (access(pause, F_OK) == 0 && access(stop, F_OK) != 0)
				usleep(50000);
			unlink(paused);
		}
		if (!stop || access(stop, F_OK) == 0)
			last = 1;
		fflush(stdout);
		prog->i = 0;
		prog->since = now_ms();
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0)
			_exit(round_child(argv[2], paths, n, ++round));
		round++;
		while ((got = waitpid(pid, &st, WNOHANG)) == 0 &&
		       now_ms() - prog->since < ROUND_PATH_LIMIT_MS)
			usleep(50000);
		if (got == 0) {
			printf("HUNG round %u %s\n", round, paths[prog->i < n ? prog->i : 0]);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			if (last)
				return 3;
			continue;
		}
		if (got < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 2) {
			printf("round %u: client failed\n", round);
			return 2;
		}
		bad |= WEXITSTATUS(st);
	} while (!last);
	return bad;
}

static int cmd_create(int argc, char **argv)
{
	char path[4096];
	const char *volfile = argc >= 8 ? argv[6] : NULL, *dump = argc >= 8 ? argv[7] : NULL;
	glfs_t *fs;
	long i, n, ok = 0;
	struct stat st;
	double t0;

	if (argc < 6)
		return 2;
	n = atol(argv[4]);
	fs = client_volfile(argv[2], volfile);
	if (!fs)
		return 2;
	if (dump && glfs_lstat(fs, argv[3], &st)) {
		fprintf(stderr, "gfcheck: %s: %s\n", argv[3], strerror(errno));
		_exit(1);
	}
	if (dump && iostats_dump(fs, dump, "before"))
		_exit(1);
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		glfs_fd_t *fd;

		snprintf(path, sizeof(path), "%s/%s%ld", strcmp(argv[3], "/") ? argv[3] : "",
			 argv[5], i);
		fd = glfs_creat(fs, path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (!fd) {
			fprintf(stderr, "create %s: %s\n", path, strerror(errno));
			continue;
		}
		glfs_close(fd);
		ok++;
	}
	printf("created %ld of %ld in %.0f ms\n", ok, n, now_ms() - t0);
	fflush(stdout);
	if (dump && iostats_dump(fs, dump, "after"))
		_exit(1);
	_exit(ok == n ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "lookup"))
		return cmd_lookup(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "create"))
		return cmd_create(argc, argv);
	fprintf(stderr,
		"usage: gfcheck lookup VOL LIST [STOPFILE] | create VOL DIR N PREFIX [VOLFILE DUMP]\n");
	return 2;
}
