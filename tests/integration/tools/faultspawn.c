/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultspawn.so: LD_PRELOAD hook at posix_spawn(), for tests/integration/drain-kill.sh. When
 * layoutctl starts a program one of whose arguments is a word of $FAULT_SPAWN_WORDS (say,
 * "tasks remove-brick": the gluster CLI's task check and the remove-brick of a drain), the
 * shell command $FAULT_SPAWN_CMD runs first, to its end, with that word as $1 (and without
 * LD_PRELOAD): the test does something at exactly that moment of the run. Then the real
 * posix_spawn().
 * Build: gcc -shared -fPIC -o faultspawn.so faultspawn.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static void hook(char *const argv[])
{
	const char *words = getenv("FAULT_SPAWN_WORDS"), *cmd = getenv("FAULT_SPAWN_CMD");
	char list[512], *w, *save = NULL;
	size_t i;

	if (!words || !cmd)
		return;
	snprintf(list, sizeof(list), "%s", words);
	for (w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save))
		for (i = 0; argv[i]; i++)
			if (!strcmp(argv[i], w)) {
				pid_t pid = fork();
				int status;

				if (pid == 0) {
					unsetenv("LD_PRELOAD");
					execl("/bin/sh", "sh", "-c", cmd, "sh", w, (char *)NULL);
					_exit(127);
				}
				if (pid > 0)
					while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
						;
				return;
			}
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	static spawn_fn real;

	if (!real)
		real = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	if (!real)
		return ENOSYS;
	hook(argv);
	return real(pid, path, fa, at, argv, envp);
}
