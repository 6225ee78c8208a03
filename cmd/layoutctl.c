/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl: main(), global options and the command table.
 *
 * Every option is in one typed table (options.h): global_options below, and each command's
 * own. The global options are accepted before and after the command, and a command's options
 * before and after its operands (as GNU getopt permutes them; "--" ends the options); main()
 * parses both parts and hands the command its operands only. The same tables give --help,
 * `layoutctl help CMD`, the man page check and the shell completion (`layoutctl __complete`).
 */
#include "cli.h"
#include "gfapi-log.h"
#include "msg.h"
#include "output.h"
#include "argvalues.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

struct global_opts gopts = {
	.transport = "tcp",
	.verbosity = 1,
	.format = FMT_TEXT,
	.progress = "auto",
};

volatile sig_atomic_t interrupted;

static int cmd_help(const struct cmd *cmd, int argc, char **argv);
static int cmd_version(const struct cmd *cmd, int argc, char **argv);
static int cmd_complete(const struct cmd *cmd, int argc, char **argv);

static const char *const cmd_help_usage[] = {
	"[COMMAND]",
	"Show the help of layoutctl or of one command.",
	NULL,
};

static const char *const cmd_version_usage[] = {
	"",
	"Show the version of layoutctl.",
	NULL,
};

static const char *const cmd_complete_usage[] = {
	"[commands|options CMD|global-options|values OPTION]",
	"Print completion candidates, one per line (used by the shell completion scripts).",
	NULL,
};

static const struct lopt no_options[] = {
	OPT_HELP(),
	OPT_END(),
};

/* Sorted by name; help and version last. */
const struct cmd commands[] = {
	{ "__complete", cmd_complete, cmd_complete_usage, no_options,
	  FMT_TEXT | CMD_HIDDEN | CMD_RAW_ARGS },
	{ "__render", cmd_render, cmd_render_usage, cmd_render_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_HIDDEN },
	{ "drain", cmd_drain, cmd_drain_usage, cmd_drain_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "explain", cmd_explain, cmd_explain_usage, cmd_explain_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "fix", cmd_fix, cmd_fix_usage, cmd_fix_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "info", cmd_info, cmd_info_usage, cmd_info_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "scan", cmd_scan, cmd_scan_usage, cmd_scan_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | FMT_PROMETHEUS | CMD_NEEDS_VOLUME },
	{ "set", cmd_set, cmd_set_usage, cmd_set_options, FMT_TEXT | CMD_NEEDS_VOLUME },
	{ "status", cmd_status, cmd_status_usage, cmd_status_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "top", cmd_top, cmd_top_usage, cmd_top_options, FMT_TEXT | CMD_NEEDS_VOLUME },
	{ "worker", cmd_worker, cmd_worker_usage, cmd_worker_options,
	  FMT_TEXT | CMD_HIDDEN | CMD_NEEDS_VOLUME },
	{ "help", cmd_help, cmd_help_usage, no_options, FMT_TEXT },
	{ "version", cmd_version, cmd_version_usage, no_options, FMT_TEXT },
	{ NULL, NULL, NULL, NULL, 0 },
};

static struct opt_list servers, nodes;

static const struct opt_word format_words[] = {
	{ "text", FMT_TEXT }, { "json", FMT_JSON },
	{ "xml", FMT_XML },   { "prometheus", FMT_PROMETHEUS },
	{ NULL, 0 },
};

const struct opt_word planner_words[] = {
	{ "gluster", LCTL_PLANNER_GLUSTER },
	{ "min-move", LCTL_PLANNER_MINMOVE },
	{ "even-usage", LCTL_PLANNER_EVEN_USAGE },
	{ NULL, 0 },
};

const struct opt_word brick_reads_words[] = {
	{ "auto", BRICK_READS_AUTO },
	{ "gfapi", BRICK_READS_GFAPI },
	{ NULL, 0 },
};

static const struct opt_word transport_words[] = {
	{ "tcp", 0 },
	{ "rdma", 0 },
	{ "unix", 0 },
	{ NULL, 0 },
};

static const struct opt_word progress_words[] = {
	{ "auto", 0 },
	{ "always", 0 },
	{ "never", 0 },
	{ NULL, 0 },
};

/*
 * Accepted before and after the command. When a setting is given on both sides with
 * different values (--format json before, --format xml after; -q before, --log-level 3
 * after), that is a usage error; on one side the last one counts. -v adds up over both;
 * --server and --node are lists, in order.
 */
static const struct lopt global_options[] = {
	{ .name = "server",
	  .short_name = 's',
	  .kind = OPTK_LIST,
	  .to.list = &servers,
	  .arg = "HOST[:PORT]",
	  .complete = "@host",
	  .help = "volfile server to try, repeatable, in order (default localhost:24007)" },
	OPT_WORD(0, "transport", &gopts.transport, transport_words, "tcp|rdma|unix",
		 "transport to the volfile server (default tcp)"),
	OPT_ENUM('f', "format", &gopts.format, format_words, "FORMAT",
		 "output format: text, json, xml (prometheus for scan)"),
	OPT_SET_INT(0, "json", &gopts.format, FMT_JSON, "same as --format json"),
	{ .name = "log-file",
	  .kind = OPTK_STRING,
	  .to.s = &gopts.log_file,
	  .arg = "FILE",
	  .complete = "@file",
	  .help = "where gfapi's own log goes (default: nowhere)" },
	OPT_INT(0, "gfapi-log-level", &gopts.log_level, 0, 9, "N",
		"gfapi log level, 0-9 (default 4, warnings)"),
	OPT_INT(0, "log-level", &gopts.verbosity, 0, 4, "N",
		"layoutctl verbosity, 0 quiet to 4 debug (default 1)"),
	OPT_WORD(0, "progress", &gopts.progress, progress_words, "WHEN",
		 "progress line on stderr: auto, always, never (default auto)"),
	OPT_COUNT('v', "verbose", &gopts.verbosity, 4, "more detail, repeatable"),
	OPT_SET_INT('q', "quiet", &gopts.verbosity, 0, "only errors"),
	{ .name = "node",
	  .kind = OPTK_LIST,
	  .to.list = &nodes,
	  .arg = "HOST",
	  .max = 256,
	  .flags = OPTF_NONBLANK,
	  .what = "a host name or address",
	  .complete = "@host",
	  .help = "this server is the one whose bricks are listed as HOST,\n"
		  "repeatable (default: glusterd's own peer identity)" },
	OPT_PATH(0, "glusterd-dir", &gopts.glusterd_dir, 0, "DIR",
		 "glusterd's working directory (default $LAYOUTCTL_GLUSTERD_DIR,\n"
		 "else /var/lib/glusterd)"),
	OPT_HELP(),
	{ .name = "version", .kind = OPTK_VERSION, .help = "show the version" },
	OPT_END(),
};

static const struct cmd *find_command(const char *name)
{
	const struct cmd *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void main_usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f, "usage: layoutctl [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
		   "Inspect and repair GlusterFS DHT directory layouts.\n\nCommands:\n");
	for (c = commands; c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			fprintf(f, "  %-10s %s\n", c->name, c->usage[1]);
	fprintf(f, "\nGlobal options, before or after the command:\n");
	opt_print_help(f, global_options, false);
	fprintf(f, "\nExit status: 0 clean, 1 problems found or items failed, 2 usage error,\n"
		   "3 could not run, 130 interrupted. 'layoutctl help COMMAND' for more.\n");
}

/* The synopsis, the description, then the options: all but the words from the tables. */
void usage_print(const struct cmd *cmd, FILE *f, bool full)
{
	bool own = cmd->options[0].name && cmd->options[0].kind != OPTK_HELP;
	size_t i;

	fprintf(f, "usage: layoutctl [GLOBAL OPTIONS] %s%s%s%s\n", cmd->name,
		own ? " [OPTIONS]" : "", cmd->usage[0][0] ? " " : "", cmd->usage[0]);
	if (!full)
		return;
	for (i = 1; cmd->usage[i]; i++)
		fprintf(f, "%s%s\n", i == 1 ? "\n" : (cmd->usage[i][0] ? "  " : ""), cmd->usage[i]);
	if (cmd->flags & CMD_RAW_ARGS)
		return;
	fprintf(f, "\nOptions:\n");
	opt_print_help(f, cmd->options, false);
	fprintf(f, "\nGlobal options, before or after '%s' (see 'layoutctl --help'):\n", cmd->name);
	opt_print_help(f, global_options, true);
}

void opt_show_help(const struct cmd *cmd)
{
	if (cmd)
		usage_print(cmd, stdout, true);
	else
		main_usage(stdout);
	exit(finish_stdout(EXIT_CLEAN));
}

void opt_show_version(void)
{
	printf("layoutctl %s\n", PACKAGE_VERSION);
	exit(finish_stdout(EXIT_CLEAN));
}

int check_format(const struct cmd *cmd)
{
	if (cmd->flags & (unsigned)gopts.format)
		return -1;
	return usage_error(cmd, "'%s' does not support --format %s", cmd->name,
			   format_name((unsigned)gopts.format));
}

int operands_check(const struct cmd *cmd, int argc, int want, const char *names)
{
	if (argc - 1 > want)
		return usage_error(cmd, "too many arguments");
	if (argc - 1 < want)
		return usage_error(cmd, "missing %s", names);
	return -1;
}

int exit_for_error(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case LCTL_OK:
		return EXIT_CLEAN;
	case LCTL_EINVAL:
		return EXIT_USAGE;
	case LCTL_ECANCELED:
		return EXIT_INTERRUPTED;
	default:
		return EXIT_CANTRUN;
	}
}

/*
 * From here on the process holds the brick credentials of the client volfile (gfapi keeps
 * them in its graphs for every reconnect): no core dump, no ptrace or /proc/PID/mem by
 * anybody but root (PR_SET_DUMPABLE 0), and no core file even where fs.suid_dumpable would
 * write one for a process that is not dumpable (RLIMIT_CORE 0).
 */
static void protect_secrets(void)
{
	struct rlimit no_core = { 0, 0 };

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		warning("cannot make the process non-dumpable: %s", strerror(errno));
	if (setrlimit(RLIMIT_CORE, &no_core))
		warning("cannot turn core dumps off: %s", strerror(errno));
}

/*
 * Open files up to the hard limit: a scan has up to 32 workers, each inspection of a huge
 * directory holds up to 65 bucket files (lib/bigdir.c) beside the sockets of a graph per
 * brick, past the usual soft limit of 1024. Nothing here uses select(); a failure leaves
 * the limit as it was.
 */
static void raise_open_files(void)
{
	struct rlimit r;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	want = r.rlim_max == RLIM_INFINITY || r.rlim_max > 1048576 ? 1048576 : r.rlim_max;
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want) {
		r.rlim_cur = want;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int open_volume(const char *name, unsigned flags, struct lctl_volume **out)
{
	return open_volume_leaving(name, flags, NULL, 0, out);
}

int open_volume_leaving(const char *name, unsigned flags, const char *const *leaving,
			size_t nleaving, struct lctl_volume **out)
{
	bool subvol_graphs = flags & OPEN_SUBVOLS;
	struct lctl_open_opts o = {
		.volume = name,
		.servers = gopts.servers,
		.nservers = gopts.nservers,
		.transport = gopts.transport,
		.log_file = gopts.log_file,
		.log_level = gopts.log_level,
		.no_subvol_graphs = !subvol_graphs,
		.local_bricks = flags & OPEN_LOCAL_BRICKS,
		.brick_health = flags & OPEN_BRICK_HEALTH,
		.no_glusterd = flags & OPEN_NO_GLUSTERD,
		.nodes = gopts.nodes,
		.nnodes = gopts.nnodes,
		.glusterd_dir = gopts.glusterd_dir,
		.leaving = leaving,
		.nleaving = nleaving,
	};
	struct lctl_error err = { 0 };
	int ret;

	/* the per-subvolume graphs read trusted.* xattrs, which the bricks show to root only */
	if (subvol_graphs && geteuid() != 0) {
		error("this command needs root: it reads the bricks' trusted.* extended attributes");
		return EXIT_CANTRUN;
	}
	protect_secrets();
	/* before anything is contacted: a --log-file refused stops the command here */
	if (gfapi_log_target(gopts.log_file, &o.log_file))
		return EXIT_CANTRUN;
	ret = lctl_volume_open(&o, out, &err);
	if (ret) {
		error("%s", err.msg[0] ? err.msg : lctl_strerror(ret));
		return exit_for_error(ret) == EXIT_USAGE ? EXIT_USAGE : EXIT_CANTRUN;
	}
	return EXIT_CLEAN;
}

int finish_stdout(int code)
{
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write the output: %s", strerror(errno));
		return EXIT_CANTRUN;
	}
	return code;
}

static int cmd_help(const struct cmd *cmd, int argc, char **argv)
{
	const struct cmd *c;

	if (argc > 2)
		return usage_error(cmd, "too many arguments");
	if (argc < 2) {
		main_usage(stdout);
		return finish_stdout(EXIT_CLEAN);
	}
	c = find_command(argv[1]);
	if (!c)
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	usage_print(c, stdout, true);
	return finish_stdout(EXIT_CLEAN);
}

static int cmd_version(const struct cmd *cmd, int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return usage_error(cmd, "too many arguments");
	printf("layoutctl %s\n", PACKAGE_VERSION);
	return finish_stdout(EXIT_CLEAN);
}

/*
 * Values an option takes, for the completion scripts, from the tables: fixed words, numbers
 * of a small range, or one of the kinds @dir, @file, @host, @command; nothing for free text.
 * tests/cli/completion.sh checks that the parsers accept every word listed here.
 */
static int complete_values(const char *option)
{
	const struct lopt *o = opt_find(global_options, option);
	const struct cmd *c;

	for (c = commands; !o && c->name; c++)
		o = opt_find(c->options, option);
	if (o)
		opt_print_values(stdout, o);
	return finish_stdout(EXIT_CLEAN);
}

/* Machine interface for the completion scripts; see completions/. */
static int cmd_complete(const struct cmd *cmd, int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2 || !strcmp(argv[1], "commands")) {
		for (c = commands; c->name; c++)
			if (!(c->flags & CMD_HIDDEN))
				printf("%s\n", c->name);
	} else if (!strcmp(argv[1], "global-options")) {
		opt_print_names(stdout, global_options);
	} else if (!strcmp(argv[1], "values") && argc == 3) {
		return complete_values(argv[2]);
	} else if (!strcmp(argv[1], "options") && argc == 3) {
		c = find_command(argv[2]);
		if (!c)
			return usage_error(cmd, "unknown command '%s'", argv[2]);
		opt_print_names(stdout, c->options);
	} else {
		return usage_error(cmd, "bad arguments");
	}
	return finish_stdout(EXIT_CLEAN);
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * opt_parse()'s answer @ret for @cmd (NULL: before the command): --help and --version are
 * shown here (and exit); a command's help only in a format it supports.
 */
static int shown(int ret, const struct cmd *cmd)
{
	if (ret == OPT_WANTS_HELP) {
		if (cmd && (ret = check_format(cmd)) >= 0)
			return ret;
		opt_show_help(cmd);
	}
	if (ret == OPT_WANTS_VERSION)
		opt_show_version();
	return ret;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;
	struct sigaction sa = { .sa_handler = on_signal };
	struct opt_state st = { 0 };
	int ret, at, first, end;

	/* the global options before the command, then the command's and the global ones after */
	ret = shown(opt_parse(&st, NULL, NULL, global_options, argc, argv, 1, &at, &end), NULL);
	if (ret >= 0)
		return ret;
	if (at >= argc) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[at]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[at]);
	ret = check_format(cmd);
	if (ret >= 0)
		return ret;
	first = at + 1;
	end = argc;
	if (!(cmd->flags & CMD_RAW_ARGS)) {
		/* options and operands in any order after it: the operands end up at first.. */
		ret = shown(opt_parse(&st, cmd, cmd->options, global_options, argc, argv, at + 1,
				      &first, &end),
			    cmd);
		if (ret >= 0)
			return ret;
		ret = check_format(cmd);
		if (ret >= 0)
			return ret;
	}
	gopts.servers = servers.v;
	gopts.nservers = servers.n;
	gopts.nodes = nodes.v;
	gopts.nnodes = nodes.n;
	/* a server's own glusterd directory, for commands a remote shell starts there */
	if (!gopts.glusterd_dir && getenv("LAYOUTCTL_GLUSTERD_DIR") &&
	    getenv("LAYOUTCTL_GLUSTERD_DIR")[0] == '/')
		gopts.glusterd_dir = getenv("LAYOUTCTL_GLUSTERD_DIR");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_open_files();
	lctl_set_log(msg_lib_log, NULL, gopts.verbosity);
	/* the command sees its name and its operands */
	argv[first - 1] = argv[at];
	argv[end] = NULL;
	ret = cmd->fn(cmd, end - first + 1, argv + first - 1);
	free(servers.v);
	free(nodes.v);
	return ret;
}
