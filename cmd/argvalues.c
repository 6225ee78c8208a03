/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "argvalues.h"
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;

	if (min < 0 || parse_u64(s, (uint64_t)min, (uint64_t)max, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static const struct {
	const char *name;
	unsigned fmt;
} formats[] = {
	{ "text", FMT_TEXT },
	{ "json", FMT_JSON },
	{ "xml", FMT_XML },
	{ "prometheus", FMT_PROMETHEUS },
};

const char *format_name(unsigned fmt)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == fmt)
			return formats[i].name;
	return "?";
}

int check_volume_name(const char *v)
{
	/* it names a folder under /var/lib/layoutctl too */
	return !v[0] || strchr(v, '/') || !strcmp(v, ".") || !strcmp(v, "..") ? -1 : 0;
}

int check_volume_path(const char *p)
{
	return lctl_volume_path_check(p);
}

int parse_positive(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e12)
		return -1;
	*out = v;
	return 0;
}
