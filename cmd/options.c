/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option parser: one typed table per command and one for the global options, which are
 * accepted before and after the command. After the command, options and operands mix as GNU
 * getopt permutes them ("fix VOL --state-dir D" is "fix --state-dir D VOL"); "--" ends the
 * options. See options.h.
 */
#include "options.h"
#include "cli.h"
#include "argvalues.h"
#include "sinkesc.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool takes_value(const struct lopt *o)
{
	switch (o->kind) {
	case OPTK_FLAG:
	case OPTK_COUNT:
	case OPTK_SET:
	case OPTK_HELP:
	case OPTK_VERSION:
		return false;
	default:
		return true;
	}
}

const struct lopt *opt_find(const struct lopt *opts, const char *name)
{
	if (!opts)
		return NULL;
	if (name[0] == '-' && name[1] && name[1] != '-' && !name[2]) {
		for (; opts->name; opts++)
			if (opts->short_name == name[1])
				return opts;
		return NULL;
	}
	while (*name == '-')
		name++;
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts;
	return NULL;
}

/*
 * The long option @name (@len bytes, without "--") in @own, then in @global: an exact name,
 * else the only one it is a prefix of. *@ambiguous when it is a prefix of several.
 */
static const struct lopt *find_long(const struct lopt *own, const struct lopt *global,
				    const char *name, size_t len, bool *ambiguous, bool *is_global)
{
	const struct lopt *tables[2] = { own, global }, *o, *found = NULL;
	bool found_global = false;
	int t;

	*ambiguous = false;
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
				*is_global = t == 1;
				return o;
			}
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name; o++) {
			if (strncmp(o->name, name, len))
				continue;
			if (found) {
				*ambiguous = true;
				return NULL;
			}
			found = o;
			found_global = t == 1;
		}
	*is_global = found_global;
	return found;
}

static const struct lopt *find_short(const struct lopt *own, const struct lopt *global, char c,
				     bool *is_global)
{
	const struct lopt *o;

	for (o = own; o && o->name; o++)
		if (o->short_name && o->short_name == c) {
			*is_global = false;
			return o;
		}
	for (o = global; o && o->name; o++)
		if (o->short_name && o->short_name == c) {
			*is_global = true;
			return o;
		}
	return NULL;
}

int opt_parse_duration(const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t mult = 1, v;

	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'h':
		mult = 3600;
		num[--n] = '\0';
		break;
	case 'm':
		mult = 60;
		num[--n] = '\0';
		break;
	case 's':
		num[--n] = '\0';
		break;
	default:
		break;
	}
	if (parse_u64(num, 1, 10u * 365 * 24 * 3600, &v))
		return -1;
	*out = v * mult;
	return 0;
}

/* Exactly "HH:MM": two digits, a colon, two digits; no sign, space or anything else. */
int opt_parse_hhmm(const char *s, int *hour, int *minute)
{
	int h, m;

	if (strlen(s) != 5 || s[2] != ':' || !isdigit((unsigned char)s[0]) ||
	    !isdigit((unsigned char)s[1]) || !isdigit((unsigned char)s[3]) ||
	    !isdigit((unsigned char)s[4]))
		return -1;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	if (h > 23 || m > 59)
		return -1;
	*hour = h;
	*minute = m;
	return 0;
}

/* The next moment from now at local time @h:@m. */
static time_t next_local_time(int h, int m)
{
	struct tm tm;
	time_t now = time(NULL), t;

	localtime_r(&now, &tm);
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t <= now)
		t += 24 * 3600;
	return t;
}

/* "a, b or c" */
static void words_text(const struct opt_word *w, char *buf, size_t size)
{
	size_t n = 0, i, count = 0;

	for (i = 0; w[i].word; i++)
		count++;
	buf[0] = '\0';
	for (i = 0; i < count && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      i == 0	       ? ""
				      : i + 1 == count ? " or "
						       : ", ",
				      w[i].word);
}

static int bad_value(const struct cmd *cmd, const struct lopt *o, const char *val, const char *want)
{
	return usage_error(cmd, "--%s wants %s, not '%s'", o->name, o->what ? o->what : want, val);
}

/* Remember a global setting, to compare the two placements at the end. */
static void note_seen(struct opt_state *st, int side, const void *key, const struct lopt *o,
		      const char *arg, long long num, const char *str)
{
	struct opt_seen *s = NULL;
	size_t i;

	for (i = 0; i < st->nseen[side]; i++)
		if (st->seen[side][i].key == key)
			s = &st->seen[side][i];
	if (!s) {
		if (st->nseen[side] >= sizeof(st->seen[side]) / sizeof(st->seen[side][0]))
			abort(); /* more settings than the global table has */
		s = &st->seen[side][st->nseen[side]++];
	}
	s->key = key;
	s->opt = o;
	s->arg = arg;
	s->num = num;
	s->str = str;
}

static int check_conflicts(const struct opt_state *st, const struct cmd *cmd)
{
	size_t i, k;

	for (i = 0; i < st->nseen[1]; i++) {
		const struct opt_seen *a = &st->seen[1][i];

		for (k = 0; k < st->nseen[0]; k++) {
			const struct opt_seen *b = &st->seen[0][k];

			if (b->key != a->key)
				continue;
			if (b->num == a->num &&
			    (b->str == a->str || (b->str && a->str && !strcmp(b->str, a->str))))
				continue;
			return usage_error(cmd,
					   "conflicting placements: '--%s%s%s' before the command "
					   "and '--%s%s%s' after it",
					   b->opt->name, b->arg ? " " : "", b->arg ? b->arg : "",
					   a->opt->name, a->arg ? " " : "", a->arg ? a->arg : "");
		}
	}
	return -1;
}

static int check_text(const struct cmd *cmd, const struct lopt *o, const char *val)
{
	if ((o->flags & OPTF_NONBLANK) && !val[strspn(val, " ")])
		return usage_error(cmd, "--%s wants %s", o->name, o->what ? o->what : "a value");
	if (o->max && strlen(val) >= (size_t)o->max)
		return usage_error(cmd, "--%s wants a value shorter than %lld bytes", o->name,
				   o->max);
	return -1;
}

/* Store @val (NULL for a flag) as @o says. */
static int apply(struct opt_state *st, int side, const struct cmd *cmd, const struct lopt *o,
		 bool global, const char *val)
{
	char want[256];
	long long num = 0;
	const char *str = NULL;
	const void *key = NULL;
	uint64_t v;
	int h, m, ret;
	size_t i;

	switch (o->kind) {
	case OPTK_FLAG:
		*o->to.flag = true;
		key = o->to.flag;
		num = 1;
		break;
	case OPTK_COUNT:
		if (*o->to.i < o->max)
			(*o->to.i)++;
		break;
	case OPTK_SET:
		*o->to.i = (int)o->min;
		key = o->to.i;
		num = o->min;
		break;
	case OPTK_INT:
	case OPTK_UINT:
		if (parse_u64(val, (uint64_t)o->min, (uint64_t)o->max, &v)) {
			snprintf(want, sizeof(want), "%lld-%lld", o->min, o->max);
			return bad_value(cmd, o, val, want);
		}
		if (o->kind == OPTK_INT) {
			*o->to.i = (int)v;
			key = o->to.i;
		} else {
			*o->to.u = (unsigned)v;
			key = o->to.u;
		}
		num = (long long)v;
		break;
	case OPTK_DOUBLE:
		if (parse_positive(val, o->to.d))
			return bad_value(cmd, o, val, "a positive number");
		key = o->to.d;
		str = val;
		break;
	case OPTK_STRING:
		ret = check_text(cmd, o, val);
		if (ret >= 0)
			return ret;
		*o->to.s = val;
		key = o->to.s;
		str = val;
		break;
	case OPTK_LIST: {
		const char **a;

		ret = check_text(cmd, o, val);
		if (ret >= 0)
			return ret;
		a = realloc(o->to.list->v, (o->to.list->n + 1) * sizeof(*a));
		if (!a)
			abort();
		o->to.list->v = a;
		a[o->to.list->n++] = val;
		break;
	}
	case OPTK_ENUM:
	case OPTK_WORD:
		for (i = 0; o->words[i].word; i++)
			if (!strcmp(o->words[i].word, val))
				break;
		if (!o->words[i].word) {
			words_text(o->words, want, sizeof(want));
			return bad_value(cmd, o, val, want);
		}
		if (o->kind == OPTK_ENUM) {
			*o->to.i = o->words[i].value;
			key = o->to.i;
			num = o->words[i].value;
		} else {
			*o->to.s = o->words[i].word;
			key = o->to.s;
			str = o->words[i].word;
		}
		break;
	case OPTK_DURATION:
		if (opt_parse_duration(val, o->to.u64))
			return bad_value(cmd, o, val, "a duration like 3600, 90m or 2h");
		key = o->to.u64;
		num = (long long)*o->to.u64;
		break;
	case OPTK_TIME:
		if (opt_parse_hhmm(val, &h, &m))
			return bad_value(cmd, o, val, "a local time HH:MM");
		*o->to.t = next_local_time(h, m);
		key = o->to.t;
		num = h * 60 + m;
		break;
	case OPTK_PATH:
		if (val[0] != '/' || (o->max && strlen(val) >= (size_t)o->max)) {
			if (o->max)
				snprintf(want, sizeof(want),
					 "an absolute path shorter than %lld bytes", o->max);
			else
				snprintf(want, sizeof(want), "an absolute path");
			return bad_value(cmd, o, val, want);
		}
		*o->to.s = val;
		key = o->to.s;
		str = val;
		break;
	case OPTK_VOLPATH:
		if (strlen(val) >= PATH_MAX)
			return usage_error(cmd,
					   "--%s is %zu bytes long: gfapi takes paths of at most "
					   "%d",
					   o->name, strlen(val), PATH_MAX - 1);
		if (check_volume_path(val))
			return bad_value(cmd, o, val,
					 "an absolute path inside the volume without "
					 "'.' or '..'");
		*o->to.s = val;
		key = o->to.s;
		str = val;
		break;
	case OPTK_HELP:
		/* conflicts are refused first; the caller checks the format (`top --json --help`
		 * is refused as `--json top --help` is) */
		ret = cmd ? check_conflicts(st, cmd) : -1;
		return ret >= 0 ? ret : OPT_WANTS_HELP;
	case OPTK_VERSION:
		return OPT_WANTS_VERSION;
	}
	if (o->given)
		*o->given = true;
	if (global && key)
		note_seen(st, side, key, o, takes_value(o) ? val : NULL, num, str);
	return -1;
}

int opt_parse(struct opt_state *st, const struct cmd *cmd, const struct lopt *own,
	      const struct lopt *global, int argc, char **argv, int start, int *next, int *end)
{
	int side = cmd ? 1 : 0, i, ret, w = start;

	for (i = start; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct lopt *o;
		bool ambiguous, is_global;

		if (a[0] != '-' || !a[1]) {
			if (!cmd)
				break; /* the command: the rest is its own */
			/*
			 * An operand, moved down to the ones before it (w <= i: no word not yet read
			 * is overwritten; the values taken so far point at the strings, not at argv).
			 */
			argv[w++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);

			o = find_long(own, global, a + 2, n, &ambiguous, &is_global);
			if (!o)
				return usage_error(cmd, "%s option '%.*s'",
						   ambiguous ? "ambiguous" : "unknown", (int)n + 2,
						   a);
			if (takes_value(o)) {
				if (eq)
					val = eq + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return usage_error(cmd,
							   "incomplete option '--%s': it wants %s",
							   o->name, o->arg);
			} else if (eq) {
				return usage_error(cmd, "option '--%s' takes no value", o->name);
			}
			ret = apply(st, side, cmd, o, is_global, val);
			if (ret != -1)
				return ret;
			continue;
		}
		for (a++; *a; a++) {
			o = find_short(own, global, *a, &is_global);
			if (!o)
				return usage_error(cmd, "unknown option '-%c'", *a);
			if (takes_value(o)) {
				if (a[1])
					val = a + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return usage_error(cmd,
							   "incomplete option '-%c': it wants %s",
							   o->short_name, o->arg);
			}
			ret = apply(st, side, cmd, o, is_global, val);
			if (ret != -1)
				return ret;
			if (val)
				break;
		}
	}
	if (!cmd) {
		*next = i;
		*end = argc;
		return -1;
	}
	/* after "--" every word is an operand, also one that starts with '-' */
	while (i < argc)
		argv[w++] = argv[i++];
	*next = start;
	*end = w;
	return check_conflicts(st, cmd);
}

/* "-p, --parallel N" or "    --path SUBTREE" */
static int left_column(const struct lopt *o, char *buf, size_t size)
{
	return snprintf(buf, size, "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

void opt_print_help(FILE *f, const struct lopt *opts, bool skip_help)
{
	const struct lopt *o;
	char left[128];
	int width = 0;

	for (o = opts; o && o->name; o++) {
		int n = left_column(o, left, sizeof(left));

		if (n + 2 > width)
			width = n + 2;
	}
	if (width > 28)
		width = 28;
	for (o = opts; o && o->name; o++) {
		const char *h = o->help, *nl;

		if (skip_help && o->kind == OPTK_HELP)
			continue;
		left_column(o, left, sizeof(left));
		fprintf(f, "  %-*s  ", width - 2, left);
		for (;;) {
			nl = strchr(h, '\n');
			if (!nl) {
				fprintf(f, "%s\n", h);
				break;
			}
			fprintf(f, "%.*s\n  %*s", (int)(nl - h), h, width, "");
			h = nl + 1;
		}
	}
}

void opt_print_names(FILE *f, const struct lopt *opts)
{
	for (; opts && opts->name; opts++)
		fprintf(f, "--%s\n", opts->name);
}

void opt_print_values(FILE *f, const struct lopt *o)
{
	size_t i;
	long long v;

	if (o->words) {
		for (i = 0; o->words[i].word; i++)
			fprintf(f, "%s\n", o->words[i].word);
	} else if ((o->kind == OPTK_INT || o->kind == OPTK_UINT) && o->max - o->min < 10) {
		for (v = o->min; v <= o->max; v++)
			fprintf(f, "%lld\n", v);
	} else if (o->complete) {
		fprintf(f, "%s\n", o->complete);
	}
}

int usage_error(const struct cmd *cmd, const char *fmt, ...)
{
	char msg[1024], *safe;
	va_list ap;

	/*
	 * The message quotes what the user typed, which may hold escape sequences or bytes that
	 * are not UTF-8: escape them like names from the volume (\xHH), so that an error
	 * message can neither drive the terminal nor span lines.
	 */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	safe = out_name_dup(msg);
	fprintf(stderr, "layoutctl: error: %s\n", safe);
	free(safe);
	if (cmd)
		fprintf(stderr, "try 'layoutctl %s --help'\n", cmd->name);
	else
		fprintf(stderr, "try 'layoutctl --help'\n");
	return EXIT_USAGE;
}
