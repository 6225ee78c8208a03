/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/escape.c, the one escaping of strings from a volume or a file: what each
 * kind of character becomes, that the result is always safe (valid UTF-8, no control
 * character, nothing XML 1.0 cannot carry, no noncharacter) and that it is lossless.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layoutctl.h"

static void check(const char *in, const char *want)
{
	char *e = lctl_escape_dup(in), *u;

	assert_non_null(e);
	assert_string_equal(e, want);
	assert_int_equal(lctl_escape_len(in), strlen(want));
	assert_int_equal(lctl_escape_needed(in), strcmp(in, want) != 0);
	u = strdup(e);
	assert_non_null(u);
	assert_int_equal(lctl_unescape(u), strlen(in));
	assert_string_equal(u, in);
	free(u);
	free(e);
}

static void test_table(void **state)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "", "" },
		{ "plain name.txt", "plain name.txt" },
		{ "back\\slash", "back\\\\slash" },
		{ "\\x41", "\\\\x41" },
		/* C0, DEL */
		{ "\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07" },
		{ "\x1b[31mred", "\\x1b[31mred" },
		{ "nl\nnl", "nl\\x0anl" },
		{ "tab\tcr\r", "tab\\x09cr\\x0d" },
		{ "\x7f"
		  "del",
		  "\\x7fdel" },
		{ "\x01", "\\x01" },
		/* C1 (U+009B is a CSI), U+00A0 is not */
		{ "\xc2\x9b"
		  "31m",
		  "\\xc2\\x9b31m" },
		{ "\xc2\x80\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9f\xc2\xa0" },
		/* valid UTF-8 stays */
		{ "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80" },
		{ "\xef\xbf\xbd", "\xef\xbf\xbd" }, /* U+FFFD */
		{ "\xee\x80\x80", "\xee\x80\x80" }, /* U+E000 */
		/* U+FFFE, U+FFFF: not XML Chars; the other noncharacters too */
		{ "a\xef\xbf\xbe"
		  "b",
		  "a\\xef\\xbf\\xbeb" },
		{ "\xef\xbf\xbf", "\\xef\\xbf\\xbf" },
		{ "\xef\xb7\x90\xef\xb7\xaf\xef\xb7\xb0",
		  "\\xef\\xb7\\x90\\xef\\xb7\\xaf\xef\xb7\xb0" },
		{ "\xf0\x9f\xbf\xbe\xf4\x8f\xbf\xbf", "\\xf0\\x9f\\xbf\\xbe\\xf4\\x8f\\xbf\\xbf" },
		/* invalid UTF-8: byte by byte, then resynchronised */
		{ "\xff", "\\xff" },
		{ "\xff\xfe-dir", "\\xff\\xfe-dir" },
		{ "\xc0\xaf", "\\xc0\\xaf" },	       /* overlong '/' */
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf" }, /* overlong */
		{ "\xed\xa0\x80surrogate", "\\xed\\xa0\\x80surrogate" },
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* > U+10FFFF */
		{ "\xe6\x97x", "\\xe6\\x97x" },			/* truncated */
		{ "end\xc3", "end\\xc3" },
		{ "\x80", "\\x80" },
		{ "\xc3\xa9\xa9", "\xc3\xa9\\xa9" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check(t[i].in, t[i].want);
}

/* Decode one UTF-8 character of @s (known valid); its length. */
static size_t decode(const unsigned char *s, uint32_t *c)
{
	if (s[0] < 0x80) {
		*c = s[0];
		return 1;
	}
	if (s[0] < 0xe0) {
		*c = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if (s[0] < 0xf0) {
		*c = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return 3;
	}
	*c = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
	     (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	return 4;
}

/* What every escaped string must be: strict UTF-8, XML 1.0 Chars only, no control, no
 * noncharacter, every backslash starting "\\" or "\xHH". */
static void assert_safe(const char *e)
{
	const unsigned char *p = (const unsigned char *)e;
	size_t n, k;
	uint32_t c;

	while (*p) {
		if (*p == '\\') {
			assert_true(p[1] == '\\' ||
				    (p[1] == 'x' && strchr("0123456789abcdef", p[2]) && p[2] &&
				     strchr("0123456789abcdef", p[3]) && p[3]));
			p += p[1] == '\\' ? 2 : 4;
			continue;
		}
		/* strict UTF-8 shape */
		n = *p < 0x80		       ? 1
		    : *p >= 0xc2 && *p <= 0xdf ? 2
		    : *p >= 0xe0 && *p <= 0xef ? 3
		    : *p >= 0xf0 && *p <= 0xf4 ? 4
					       : 0;
		assert_true(n > 0);
		for (k = 1; k < n; k++)
			assert_int_equal(p[k] & 0xc0, 0x80);
		decode(p, &c);
		assert_true(n == 1 || (n == 2 && c >= 0x80) || (n == 3 && c >= 0x800) ||
			    (n == 4 && c >= 0x10000 && c <= 0x10ffff));
		assert_false(c >= 0xd800 && c <= 0xdfff);
		assert_true(c >= 0x20);
		assert_false(c >= 0x7f && c <= 0x9f);
		assert_false(c >= 0xfdd0 && c <= 0xfdef);
		assert_false((c & 0xfffe) == 0xfffe);
		p += n;
	}
}

static void roundtrip(const char *s)
{
	char *e = lctl_escape_dup(s);

	assert_non_null(e);
	assert_safe(e);
	assert_int_equal(lctl_escape_len(s), strlen(e));
	assert_true(strlen(e) <= 4 * strlen(s));
	lctl_unescape(e);
	assert_string_equal(e, s);
	free(e);
}

/* Every string of one to three bytes from a set that covers each class, and random ones. */
static void test_exhaustive_and_random(void **state)
{
	static const unsigned char bytes[] = {
		0x01, 0x09, 0x0a, 0x1b, 0x20, 0x41, 0x5c, 0x78, 0x7f, 0x80, 0x8f, 0x9b, 0x9f, 0xa0,
		0xbe, 0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
	};
	size_t nb = sizeof(bytes), a, b, c;
	char s[64];
	unsigned seed = 12345;
	int i, k;

	(void)state;
	for (a = 0; a < nb; a++) {
		s[0] = (char)bytes[a];
		s[1] = '\0';
		roundtrip(s);
		for (b = 0; b < nb; b++) {
			s[1] = (char)bytes[b];
			s[2] = '\0';
			roundtrip(s);
			for (c = 0; c < nb; c++) {
				s[2] = (char)bytes[c];
				s[3] = '\0';
				roundtrip(s);
			}
		}
	}
	for (i = 0; i < 100000; i++) {
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 60;

		for (k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			s[k] = (char)(1 + (seed >> 16) % 255);
		}
		s[n] = '\0';
		roundtrip(s);
	}
}

static void test_escape_to_and_unescape(void **state)
{
	char buf[64], odd[] = "a\\qb\\x0g\\x00\\x4", rt[] = "\\x41\\X41\\xA9";

	(void)state;
	assert_int_equal(lctl_escape_to(buf, "x\x1b"
					     "y"),
			 6);
	assert_string_equal(buf, "x\\x1by");
	/* sequences we never write are kept as they are; \x00 would cut the string */
	assert_int_equal(lctl_unescape(odd), strlen("a\\qb\\x0g\\x00\\x4"));
	assert_string_equal(odd, "a\\qb\\x0g\\x00\\x4");
	/* upper-case hex digits are accepted on the way back (not \X) */
	lctl_unescape(rt);
	assert_string_equal(rt, "A\\X41\xa9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_exhaustive_and_random),
		cmocka_unit_test(test_escape_to_and_unescape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
