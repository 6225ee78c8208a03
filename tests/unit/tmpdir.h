/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit tests' scratch folders, made and removed one way: a fresh folder under $TMPDIR
 * (or /tmp) from mkdtemp(), removed with nftw() walking physical entries (a link in it is
 * removed, never followed), no shell. Header only: each test program is one file.
 */
#ifndef LCTL_UNIT_TMPDIR_H
#define LCTL_UNIT_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A new folder "lctl-TAG.XXXXXX" into @buf (@size bytes). Return: 0, or -1. */
static inline int unit_mkdtemp(char *buf, size_t size, const char *tag)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(buf, size, "%s/lctl-%s.XXXXXX", t && t[0] == '/' ? t : "/tmp", tag);

	return n > 0 && (size_t)n < size && mkdtemp(buf) ? 0 : -1;
}

/* The same, allocated (the caller frees it); NULL when it cannot be made. */
static inline char *unit_tmpdir(const char *tag)
{
	char buf[4096];

	return unit_mkdtemp(buf, sizeof(buf), tag) ? NULL : strdup(buf);
}

static inline int unit_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* DIR/NAME's text into @buf, NUL-terminated (at most @size - 1 bytes). Return: 0, or -1. */
static inline int unit_read(const char *dir, const char *name, char *buf, size_t size)
{
	char path[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/* Remove @dir and everything below it. Return: 0, or -1. */
static inline int unit_rm_rf(const char *dir)
{
	return nftw(dir, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

#endif
