/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict parsers for command-line values: the whole string, a range check, errno. */
#ifndef LCTL_ARGVALUES_H
#define LCTL_ARGVALUES_H

#include <stdbool.h>
#include <stdint.h>

/* 0 on success; -1 (and nothing written) when @s is not an integer in [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_int(const char *s, int min, int max, int *out);
/* A number > 0 and at most 10^12 (rates); -1 otherwise. */
int parse_positive(const char *s, double *out);
/* The name of a format: text, json, xml, prometheus. */
const char *format_name(unsigned fmt);
/* A --path value: absolute, without "." or ".." components. 0, or -1 when not. */
/* A volume name that can also name its state folder: not empty, ".", ".." or with a '/'. */
int check_volume_name(const char *v);
int check_volume_path(const char *p);

#endif
