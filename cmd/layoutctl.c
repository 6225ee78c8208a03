/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl: main(), global options and the command table.
 *
 * Global options are parsed with getopt_long in "+" mode, which stops at the subcommand; the
 * subcommand then parses its own options from a reset optind. Each command's usage array and
 * struct option table are the single source for --help, `layoutctl help CMD`, the man page
 * check and the shell completion (`layoutctl __complete`).
 */
#include "cli.h"
#include "gfapi-log.h"
#include "msg.h"
#include "output.h"
#include "parse.h"

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
	"layoutctl help [COMMAND]",
	"Show the help of layoutctl or of one command.",
	"",
	"-h, --help     show this help",
	NULL,
};

static const char *const cmd_version_usage[] = {
	"layoutctl version",
	"Show the version of layoutctl.",
	"",
	"-h, --help     show this help",
	NULL,
};

static const char *const cmd_complete_usage[] = {
	"layoutctl __complete [commands|options CMD|global-options|values OPTION]",
	"Print completion candidates, one per line (used by the shell completion scripts).",
	NULL,
};

static const struct option no_options[] = {
	CMD_HELP_OPTION,
	{ NULL, 0, NULL, 0 },
};

/* Sorted by name; help and version last. */
const struct cmd commands[] = {
	{ "__complete", cmd_complete, cmd_complete_usage, no_options, FMT_TEXT | CMD_HIDDEN },
	{ "explain", cmd_explain, cmd_explain_usage, cmd_explain_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "fix", cmd_fix, cmd_fix_usage, cmd_fix_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "info", cmd_info, cmd_info_usage, cmd_info_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "scan", cmd_scan, cmd_scan_usage, cmd_scan_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | FMT_PROMETHEUS | CMD_NEEDS_VOLUME },
	{ "status", cmd_status, cmd_status_usage, cmd_status_options,
	  FMT_TEXT | FMT_JSON | FMT_XML | CMD_NEEDS_VOLUME },
	{ "top", cmd_top, cmd_top_usage, cmd_top_options, FMT_TEXT | CMD_NEEDS_VOLUME },
	{ "worker", cmd_worker, cmd_worker_usage, cmd_worker_options,
	  FMT_TEXT | CMD_HIDDEN | CMD_NEEDS_VOLUME },
	{ "help", cmd_help, cmd_help_usage, no_options, FMT_TEXT },
	{ "version", cmd_version, cmd_version_usage, no_options, FMT_TEXT },
	{ NULL, NULL, NULL, NULL, 0 },
};

enum {
	OPT_SERVER = 256,
	OPT_TRANSPORT,
	OPT_FORMAT,
	OPT_JSON,
	OPT_LOG_FILE,
	OPT_LOG_LEVEL,
	OPT_GFAPI_LOG_LEVEL,
	OPT_PROGRESS,
	OPT_VERSION,
	OPT_NODE,
	OPT_GLUSTERD_DIR,
};

static const struct option global_options[] = {
	{ "server", required_argument, NULL, 's' },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "format", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "gfapi-log-level", required_argument, NULL, OPT_GFAPI_LOG_LEVEL },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "glusterd-dir", required_argument, NULL, OPT_GLUSTERD_DIR },
	{ NULL, 0, NULL, 0 },
};

static const char *const global_usage[] = {
	"-s, --server HOST[:PORT]    volfile server to try, repeatable, in order (default localhost:24007)",
	"    --transport tcp|rdma|unix  transport to the volfile server (default tcp)",
	"-f, --format FORMAT         output format: text, json, xml (prometheus for scan)",
	"    --json                  same as --format json",
	"    --log-file FILE         where gfapi's own log goes (default: nowhere)",
	"    --gfapi-log-level N     gfapi log level, 0-9 (default 4, warnings)",
	"    --log-level N           layoutctl verbosity, 0 quiet to 4 debug (default 1)",
	"    --progress WHEN         progress line on stderr: auto, always, never (default auto)",
	"-v, --verbose               more detail, repeatable",
	"-q, --quiet                 only errors",
	"    --node HOST             this server is the one whose bricks are listed as HOST,",
	"                            repeatable (default: glusterd's own peer identity)",
	"    --glusterd-dir DIR      glusterd's working directory (default $LAYOUTCTL_GLUSTERD_DIR,",
	"                            else /var/lib/glusterd)",
	"-h, --help                  show this help",
	"    --version               show the version",
	NULL,
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
	size_t i;

	fprintf(f, "usage: layoutctl [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
		   "Inspect and repair GlusterFS DHT directory layouts.\n\nCommands:\n");
	for (c = commands; c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			fprintf(f, "  %-10s %s\n", c->name, c->usage[1]);
	fprintf(f, "\nGlobal options:\n");
	for (i = 0; global_usage[i]; i++)
		fprintf(f, "  %s\n", global_usage[i]);
	fprintf(f, "\nExit status: 0 clean, 1 problems found or items failed, 2 usage error,\n"
		   "3 could not run, 130 interrupted. 'layoutctl help COMMAND' for more.\n");
}

void usage_print(const struct cmd *cmd, FILE *f, bool full)
{
	size_t i;

	fprintf(f, "usage: %s\n", cmd->usage[0]);
	if (!full)
		return;
	for (i = 1; cmd->usage[i]; i++)
		fprintf(f, "%s%s\n", i == 1 ? "\n" : (cmd->usage[i][0] ? "  " : ""), cmd->usage[i]);
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

int open_volume(const char *name, unsigned flags, struct lctl_volume **out)
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
		.nodes = gopts.nodes,
		.nnodes = gopts.nnodes,
		.glusterd_dir = gopts.glusterd_dir,
	};
	struct lctl_error err = { 0 };
	int ret;

	/* the per-subvolume graphs read trusted.* xattrs, which the bricks show to root only */
	if (subvol_graphs && geteuid() != 0) {
		error("this command needs root: it reads the bricks' trusted.* extended attributes");
		return EXIT_CANTRUN;
	}
	protect_secrets();
	o.log_file = gfapi_log_target(gopts.log_file);
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
	if (argc > 1 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h"))
		return usage_error(cmd, "too many arguments");
	printf("layoutctl %s\n", PACKAGE_VERSION);
	return finish_stdout(EXIT_CLEAN);
}

static void print_options(const struct option *opts)
{
	for (; opts && opts->name; opts++)
		printf("--%s\n", opts->name);
}

/*
 * Values an option takes, for the completion scripts: fixed words, or one of the kinds @dir,
 * @file, @host, @volume; nothing for free text. tests/cli/completion.sh checks that the
 * parsers accept every word listed here.
 */
static const struct {
	const char *option;
	const char *values;
} option_values[] = {
	{ "format", "text json xml prometheus" },
	{ "layout", "gluster min-move" },
	{ "brick-reads", "auto gfapi" },
	{ "mode", "clean-first migrate linkto" },
	{ "phase", "all clean data" },
	{ "progress", "auto always never" },
	{ "transport", "tcp rdma unix" },
	{ "state-dir", "@dir" },
	{ "log", "@file" },
	{ "log-file", "@file" },
	{ "server", "@host" },
	{ "node", "@host" },
	{ "glusterd-dir", "@dir" },
	{ "rsh", "@command" },
	{ "remote-cmd", "@file" },
};

static int complete_values(const struct cmd *cmd, const char *option)
{
	size_t i;

	while (*option == '-')
		option++;
	for (i = 0; i < sizeof(option_values) / sizeof(option_values[0]); i++) {
		const char *v = option_values[i].values;

		if (strcmp(option_values[i].option, option))
			continue;
		while (*v) {
			size_t n = strcspn(v, " ");

			printf("%.*s\n", (int)n, v);
			v += n + (v[n] == ' ');
		}
		break;
	}
	(void)cmd;
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
		print_options(global_options);
	} else if (!strcmp(argv[1], "values") && argc == 3) {
		return complete_values(cmd, argv[2]);
	} else if (!strcmp(argv[1], "options") && argc == 3) {
		c = find_command(argv[2]);
		if (!c)
			return usage_error(cmd, "unknown command '%s'", argv[2]);
		print_options(c->options);
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

static int parse_global(int argc, char **argv)
{
	unsigned fmt;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+s:f:vqh", global_options, NULL)) != -1) {
		switch (c) {
		case 's': {
			const char **s = realloc(gopts.servers, (gopts.nservers + 1) * sizeof(*s));

			if (!s)
				abort();
			gopts.servers = s;
			s[gopts.nservers++] = optarg;
			break;
		}
		case OPT_NODE: {
			const char **s = realloc(gopts.nodes, (gopts.nnodes + 1) * sizeof(*s));

			if (!s)
				abort();
			if (!optarg[0] || strlen(optarg) > 255)
				return usage_error(NULL, "--node wants a host name or address");
			gopts.nodes = s;
			s[gopts.nnodes++] = optarg;
			break;
		}
		case OPT_GLUSTERD_DIR:
			if (optarg[0] != '/')
				return usage_error(NULL, "--glusterd-dir wants an absolute path");
			gopts.glusterd_dir = optarg;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "tcp") && strcmp(optarg, "rdma") && strcmp(optarg, "unix"))
				return usage_error(NULL, "unknown transport '%s'", optarg);
			gopts.transport = optarg;
			break;
		case 'f':
			fmt = parse_format(optarg);
			if (!fmt)
				return usage_error(NULL, "unknown format '%s' (text, json, xml, prometheus)",
						   optarg);
			gopts.format = fmt;
			break;
		case OPT_JSON:
			gopts.format = FMT_JSON;
			break;
		case OPT_LOG_FILE:
			gopts.log_file = optarg;
			break;
		case OPT_LOG_LEVEL:
			if (parse_int(optarg, 0, 4, &gopts.verbosity))
				return usage_error(NULL, "--log-level wants 0-4, not '%s'", optarg);
			break;
		case OPT_GFAPI_LOG_LEVEL:
			if (parse_int(optarg, 0, 9, &gopts.log_level))
				return usage_error(NULL, "--gfapi-log-level wants 0-9, not '%s'", optarg);
			break;
		case OPT_PROGRESS:
			if (strcmp(optarg, "auto") && strcmp(optarg, "always") && strcmp(optarg, "never"))
				return usage_error(NULL, "--progress wants auto, always or never");
			gopts.progress = optarg;
			break;
		case 'v':
			if (gopts.verbosity < 4)
				gopts.verbosity++;
			break;
		case 'q':
			gopts.verbosity = 0;
			break;
		case 'h':
			main_usage(stdout);
			exit(finish_stdout(EXIT_CLEAN));
		case OPT_VERSION:
			printf("layoutctl %s\n", PACKAGE_VERSION);
			exit(finish_stdout(EXIT_CLEAN));
		default:
			if (optopt && optopt < 256)
				return usage_error(NULL, "unknown or incomplete option '-%c'", optopt);
			return usage_error(NULL, "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;
	struct sigaction sa = { .sa_handler = on_signal };
	int ret;

	ret = parse_global(argc, argv);
	if (ret >= 0)
		return ret;
	/* a server's own glusterd directory, for commands a remote shell starts there */
	if (!gopts.glusterd_dir && getenv("LAYOUTCTL_GLUSTERD_DIR") &&
	    getenv("LAYOUTCTL_GLUSTERD_DIR")[0] == '/')
		gopts.glusterd_dir = getenv("LAYOUTCTL_GLUSTERD_DIR");
	if (optind >= argc) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[optind]);
	if (!(cmd->flags & gopts.format))
		return usage_error(cmd, "'%s' does not support --format %s", cmd->name,
				   format_name(gopts.format));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	lctl_set_log(msg_lib_log, NULL, gopts.verbosity);
	argc -= optind;
	argv += optind;
	/* `layoutctl CMD --help` is `layoutctl help CMD`, for every command */
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage_print(cmd, stdout, true);
		return finish_stdout(EXIT_CLEAN);
	}
	optind = 0; /* glibc: 0 re-initialises getopt for the command's own parse */
	ret = cmd->fn(cmd, argc, argv);
	free(gopts.servers);
	free(gopts.nodes);
	return ret;
}
