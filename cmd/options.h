/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One typed option table for the global options and for each command (in the manner of git's
 * parse-options): name, short form, kind, where the value goes, the values allowed and the
 * help text. The parser, the help text, `layoutctl __complete` and the completion of values
 * all read the same table.
 */
#ifndef LCTL_OPTIONS_H
#define LCTL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum opt_kind {
	OPTK_FLAG,     /* bool: set */
	OPTK_COUNT,    /* int: one more per use, at most .max (-v) */
	OPTK_SET,      /* int: set to .min (-q, --json) */
	OPTK_INT,      /* int: a number in [.min, .max] */
	OPTK_UINT,     /* unsigned: a number in [.min, .max] */
	OPTK_DOUBLE,   /* double: a number > 0, at most 10^12 */
	OPTK_STRING,   /* const char *: text, at most .max - 1 bytes when .max */
	OPTK_LIST,     /* struct opt_list: repeatable text, in order, each as OPTK_STRING */
	OPTK_ENUM,     /* int: the value of one of the words */
	OPTK_WORD,     /* const char *: one of the words (the table's own string) */
	OPTK_DURATION, /* uint64_t: seconds, "90", "90s", "15m" or "2h" */
	OPTK_TIME,     /* time_t: a local time HH:MM, the next such moment from now */
	OPTK_PATH,     /* const char *: an absolute path, shorter than .max bytes when .max */
	OPTK_VOLPATH,  /* const char *: an absolute path inside the volume, no "." or ".." */
	OPTK_HELP,     /* show the help and exit */
	OPTK_VERSION,  /* show the version and exit */
};

enum opt_flags {
	OPTF_NONBLANK = 1 << 0, /* text: not empty and not only spaces */
};

struct opt_word {
	const char *word;
	int value;
};

/* The values of a repeatable option, in the order given. */
struct opt_list {
	const char **v;
	size_t n;
};

struct lopt {
	const char *name; /* long name, without "--"; NULL ends a table */
	char short_name;  /* 0: none */
	enum opt_kind kind;
	union {
		bool *flag;
		int *i;
		unsigned *u;
		double *d;
		uint64_t *u64;
		time_t *t;
		const char **s;
		struct opt_list *list;
	} to;
	const char *arg;	      /* the value's name in the help ("N"); NULL for flags */
	const char *help;	      /* '\n' starts a continuation line */
	long long min, max;	      /* numbers: the range; OPTK_SET: the value; text: size */
	const struct opt_word *words; /* OPTK_ENUM, OPTK_WORD; ends with a NULL word */
	const char *what;	      /* what the error says it wants, when not the default */
	const char *complete;	      /* values for completion: @dir, @file, @host, @command */
	unsigned flags;		      /* enum opt_flags */
	bool *given;		      /* set when the option is given */
};

/* Each macro checks the type of its target: no cast can sneak a wrong one in. */
/* clang-format takes the braces of these initializers for blocks */
/* clang-format off */
#define OPT_FLAG(c, l, p, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_FLAG, .to.flag = (p), .help = (h) }
#define OPT_COUNT(c, l, p, hi, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_COUNT, .to.i = (p), .max = (hi), .help = (h) }
#define OPT_SET_INT(c, l, p, v, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_SET, .to.i = (p), .min = (v), .help = (h) }
#define OPT_INT(c, l, p, lo, hi, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_INT, .to.i = (p), .min = (lo), .max = (hi), \
	  .arg = (a), .help = (h) }
#define OPT_UINT(c, l, p, lo, hi, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_UINT, .to.u = (p), .min = (lo), .max = (hi), \
	  .arg = (a), .help = (h) }
#define OPT_DOUBLE(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_DOUBLE, .to.d = (p), .arg = (a), .help = (h) }
#define OPT_STRING(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_STRING, .to.s = (p), .arg = (a), .help = (h) }
#define OPT_LIST(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_LIST, .to.list = (p), .arg = (a), .help = (h) }
#define OPT_ENUM(c, l, p, w, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_ENUM, .to.i = (p), .words = (w), .arg = (a), \
	  .help = (h) }
#define OPT_WORD(c, l, p, w, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_WORD, .to.s = (p), .words = (w), .arg = (a), \
	  .help = (h) }
#define OPT_DURATION(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_DURATION, .to.u64 = (p), .arg = (a), .help = (h) }
#define OPT_TIME(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_TIME, .to.t = (p), .arg = (a), .help = (h) }
#define OPT_PATH(c, l, p, size, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_PATH, .to.s = (p), .max = (size), .arg = (a), \
	  .help = (h), .complete = "@dir" }
#define OPT_VOLPATH(c, l, p, a, h) \
	{ .name = (l), .short_name = (c), .kind = OPTK_VOLPATH, .to.s = (p), .arg = (a), .help = (h) }
#define OPT_HELP() { .name = "help", .short_name = 'h', .kind = OPTK_HELP, .help = "show this help" }
#define OPT_END() { .name = NULL }
/* clang-format on */

struct cmd;

/*
 * What one parse saw of the global options, to find conflicting placements: the same
 * setting given before the command and after it with different values.
 */
struct opt_state {
	struct opt_seen {
		const void *key; /* the target */
		const struct lopt *opt;
		const char *arg; /* as typed; NULL for a flag */
		long long num;
		const char *str;
	} seen[2][32]; /* [before, after the command] */
	size_t nseen[2];
};

/*
 * opt_parse() - parse the options of argv[start..] with @own (may be NULL) and @global. A
 * word starting with '-' (but "-" alone) is an option; short ones bundle ("-vp4"), long ones
 * take "=VALUE" or the next word; unambiguous prefixes of long names are accepted. --help
 * prints @cmd's help (or the main one) and exits.
 * @cmd NULL (before the command): up to the first operand (the command), "--" (skipped) or
 * the end; *@next is the index of that operand, *@end is @argc.
 * @cmd given: options and operands may mix, as GNU getopt permutes them: the operands are
 * moved, in their order, to argv[start..*@end) and *@next is @start. "--" ends the options:
 * every word after it is an operand, also one starting with '-'.
 * Return: -1, EXIT_USAGE after a usage error, or OPT_WANTS_HELP / OPT_WANTS_VERSION at
 * --help / --version (the rest is not parsed: the caller shows it and exits).
 */
#define OPT_WANTS_HELP (-2)
#define OPT_WANTS_VERSION (-3)
int opt_parse(struct opt_state *st, const struct cmd *cmd, const struct lopt *own,
	      const struct lopt *global, int argc, char **argv, int start, int *next, int *end);

/* Help lines of @opts, aligned, each indented by two spaces; without --help if @skip_help. */
void opt_print_help(FILE *f, const struct lopt *opts, bool skip_help);
/* "--name" of every option, one per line. */
void opt_print_names(FILE *f, const struct lopt *opts);
/* The option of @opts named @name ("--name", "-x" or "name"), or NULL. */
const struct lopt *opt_find(const struct lopt *opts, const char *name);
/* The values of @o for completion, one per line: its words, a small range, or @kind. */
void opt_print_values(FILE *f, const struct lopt *o);

/* --help and --version (layoutctl.c, when opt_parse() asks for them): print to stdout and
 * exit. @cmd NULL: the main help. */
void opt_show_help(const struct cmd *cmd) __attribute__((noreturn));
void opt_show_version(void) __attribute__((noreturn));

/* The strict value parsers behind the kinds, for unit tests and other callers. */
int opt_parse_duration(const char *s, uint64_t *out);
int opt_parse_hhmm(const char *s, int *hour, int *minute);

#endif
