/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The full-screen dashboard (htop-style): draws status objects (statusview.h) only, so the same
 * code serves `fix --dashboard` (objects built in this process) and `layoutctl top` (objects
 * read from a running job's state directory). Only the caller's thread calls curses.
 *
 * The terminal is restored on every exit path: dash_close(), an atexit() hook, and a handler
 * for fatal signals that calls endwin() and re-raises. SIGINT/SIGTERM stay with the caller's
 * handler (they set `interrupted`; the loop then closes the dashboard).
 *
 * dash_open() sets the terminal up with newterm(), which says when ncurses cannot drive it (an
 * unknown TERM) instead of exiting the process as initscr() does, so that a caller can open it
 * before its job starts and fall back to plain output. The screen is taken over only at the
 * first dash_draw(): until then messages print as usual. From then on every message (error(),
 * warning(), the library's log, from any thread) goes to a ring shown on the screen, and is
 * printed on stderr when the dashboard closes (msg_set_sink()): nothing is written over the
 * screen, nothing is lost.
 */
#include "dashboard.h"
#include "cli.h"
#include "msg.h"
#include "output.h"
#include "progress.h"

#include <curses.h>
#include <term.h>
#undef lines /* term.h's terminfo capability macro, not used here: a name below */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct dash {
	bool help;
	const char *message;
	SCREEN *scr;
	bool shown; /* drawn once: curses owns the screen */
	/* from the status drawn last, for the pace keys (pace_key()) */
	bool has_pace;
	double rate;	 /* the rate limit in files a second; 0: none */
	double measured; /* files a second over the last 10 s */
	char pace_msg[80];
};

static volatile sig_atomic_t curses_on;

/* Messages while the dashboard owns the terminal: the last NOTES of them (notes_lock). */
#define NOTES 32
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static char notes[NOTES][240];
static unsigned notes_next, notes_n;
static unsigned long notes_dropped;

static void note(const char *line)
{
	pthread_mutex_lock(&notes_lock);
	snprintf(notes[notes_next], sizeof(notes[0]), "%s", line);
	notes_next = (notes_next + 1) % NOTES;
	if (notes_n < NOTES)
		notes_n++;
	else
		notes_dropped++;
	pthread_mutex_unlock(&notes_lock);
}

/* The messages kept while the dashboard was up, on stderr now that it is down. */
static void notes_flush(void)
{
	unsigned i;

	pthread_mutex_lock(&notes_lock);
	if (notes_dropped)
		fprintf(stderr, "layoutctl: (%lu earlier messages not kept)\n", notes_dropped);
	for (i = 0; i < notes_n; i++)
		fprintf(stderr, "%s\n", notes[(notes_next + NOTES - notes_n + i) % NOTES]);
	notes_n = notes_next = 0;
	notes_dropped = 0;
	pthread_mutex_unlock(&notes_lock);
}

static void restore_terminal(void)
{
	if (curses_on) {
		curses_on = 0;
		msg_set_sink(NULL);
		endwin();
	}
}

/* The screen is ours from now on: messages go to the ring. */
static void take_terminal(struct dash *d)
{
	d->shown = true;
	curses_on = 1;
	msg_set_sink(note);
}

static void fatal_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

struct dash *dash_open(const char **why)
{
	static bool hooks;
	const char *term = getenv("TERM");
	struct dash *d;
	int err;

	*why = "needs a terminal";
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !term[0])
		return NULL;
	*why = "out of memory";
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (!hooks) {
		atexit(restore_terminal);
		signal(SIGSEGV, fatal_signal);
		signal(SIGABRT, fatal_signal);
		signal(SIGBUS, fatal_signal);
		signal(SIGFPE, fatal_signal);
		signal(SIGQUIT, fatal_signal);
		hooks = true;
	}
	/*
	 * Asked first with setupterm(), which frees what it made when it fails (a newterm() that
	 * fails keeps its screen); then newterm() for the real thing.
	 */
	if (setupterm(term, STDOUT_FILENO, &err) == OK) {
		del_curterm(cur_term);
		d->scr = newterm(term, stdout, stdin);
	}
	if (!d->scr) {
		static char msg[96];
		size_t i;

		/* TERM is the user's: quoted with anything unprintable as '?' */
		snprintf(msg, sizeof(msg), "cannot use terminal type '%.40s' (no terminfo entry)",
			 term);
		for (i = 0; msg[i]; i++)
			if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] >= 0x7f)
				msg[i] = '?';
		*why = msg;
		free(d);
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_RED, -1);
		init_pair(4, COLOR_CYAN, -1);
	}
	/* the terminal as it was until the first draw (whose refresh() takes it over again) */
	endwin();
	*why = NULL;
	return d;
}

void dash_close(struct dash *d)
{
	if (!d)
		return;
	restore_terminal();
	delscreen(d->scr);
	free(d);
	notes_flush();
}

static void bar(int y, int x, int width, double frac, int pair)
{
	int fill, i;

	if (width < 3)
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * (width - 2) + 0.5);
	mvaddch(y, x, '[');
	if (has_colors())
		attron(COLOR_PAIR(pair));
	for (i = 0; i < width - 2; i++)
		addch(i < fill ? '|' : ' ');
	if (has_colors())
		attroff(COLOR_PAIR(pair));
	addch(']');
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"layoutctl dashboard keys",
		"",
		"  p   pause: workers finish their current file, then wait",
		"  r   resume",
		"  +   one more worker        -   one worker less",
		"  >   faster: twice the rate limit",
		"  <   slower: half the rate limit (without one: half the rate measured)",
		"  0   no rate limit",
		"  q   stop gracefully: journal written, resume with 'fix --resume'",
		"  ?   this help (any key closes it)",
	};
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvprintw(3 + (int)i, 4, "%s", lines[i]);
}

/* The clean-first line: clean since when, data placed so far. Return: the next line. */
static int draw_clean_first(struct json_object *st, int y)
{
	struct json_object *a;
	char b2[32];

	if (json_object_object_get_ex(st, "clean_first", &a) && a) {
		if (js_int(st, "clean_first.all_clean") &&
		    js_double(st, "clean_first.clean_after_seconds") > 0) {
			human_duration(js_double(st, "clean_first.clean_after_seconds"), b2,
				       sizeof(b2));
			mvprintw(y++, 0,
				 "Clean first every directory clean after %s   data placed in %lld dirs",
				 b2, (long long)js_int(st, "clean_first.data_directories_placed"));
		} else if (js_int(st, "clean_first.all_clean")) {
			/* made clean by the run this one resumed in its data phase */
			time_t t = (time_t)js_int(st, "clean_first.clean_since");
			struct tm tm;

			if (!localtime_r(&t, &tm) ||
			    !strftime(b2, sizeof(b2), "%Y-%m-%d %H:%M", &tm))
				snprintf(b2, sizeof(b2), "an earlier run");
			mvprintw(y++, 0,
				 "Clean first every directory clean since %s   data placed in %lld dirs",
				 b2, (long long)js_int(st, "clean_first.data_directories_placed"));
		} else {
			mvprintw(y++, 0,
				 "Clean first %lld directories clean so far   data placed in %lld dirs",
				 (long long)js_int(st, "clean_first.directories_clean"),
				 (long long)js_int(st, "clean_first.data_directories_placed"));
		}
	}
	return y;
}

/* Each subvolume: its data share now and its target share, as bars. Return: the next line. */
static int draw_subvolumes(struct json_object *st, int y, int rows, int cols)
{
	struct json_object *a;
	int i, n;

	attron(A_BOLD);
	mvprintw(y++, 0, "%-30s %-*s %s", "Subvolume", (cols - 40) / 2, "data share now",
		 "target share");
	attroff(A_BOLD);
	if (json_object_object_get_ex(st, "subvolumes", &a)) {
		n = (int)json_object_array_length(a);
		for (i = 0; i < n && y < rows - 8; i++, y++) {
			struct json_object *s = json_object_array_get_idx(a, (size_t)i);
			int w = (cols - 40) / 2;

			mvprintw(y, 0, "%-30.30s", out_esc(js_str(s, "name")));
			bar(y, 31, w - 6, js_double(s, "data_share"), 4);
			mvprintw(y, 31 + w - 6, "%4.0f%%", 100 * js_double(s, "data_share"));
			bar(y, 32 + w, w - 6, js_double(s, "target_share"), 1);
			mvprintw(y, 32 + 2 * w - 6, "%4.0f%%", 100 * js_double(s, "target_share"));
		}
	}
	return y;
}

/* A fix spread over the pool: a row per server, as `status` has them. Return: the next line. */
static int draw_servers(struct json_object *st, int y, int rows, int cols)
{
	struct json_object *a;
	int i, n;

	n = (int)status_servers(st, &a);
	if (n) {
		char row[512];

		attron(A_BOLD);
		mvprintw(y++, 0, "%-.*s", cols - 1, status_server_header);
		attroff(A_BOLD);
		for (i = 0; i < n && y < rows - 6; i++, y++) {
			status_server_row(json_object_array_get_idx(a, (size_t)i), row,
					  sizeof(row));
			mvprintw(y, 0, "%-.*s", cols - 1, row);
		}
		y++;
	}
	return y;
}

/* The workers, the pace they go at, a hold and why, and what each does. Return: the next line. */
static int draw_workers(struct json_object *st, int y, int rows, int cols)
{
	struct json_object *a;
	int i, n;

	attron(A_BOLD);
	mvprintw(y++, 0, "Workers (%lld active%s)", (long long)js_int(st, "workers.active"),
		 js_int(st, "workers.paused") ? ", PAUSED" : "");
	if (json_object_object_get_ex(st, "pace", &a)) {
		/* the pace now (`layoutctl set` changes it): 0 is no limit */
		char r[32] = "no limit", b[32] = "no limit";
		double rate = js_double(st, "pace.files_per_sec"),
		       bw = js_double(st, "pace.bytes_per_sec");

		if (rate > 0)
			snprintf(r, sizeof(r), "%.4g files/s", rate);
		if (bw > 0)
			snprintf(b, sizeof(b), "%.4g MB/s", bw / 1e6);
		attroff(A_BOLD);
		mvprintw(y++, 0, "Pace: rate %s, bandwidth %s, %lld migrations a subvolume", r, b,
			 (long long)js_int(st, "pace.migrations"));
		attron(A_BOLD);
	}
	if (json_object_object_get_ex(st, "held", &a)) {
		/* held while a subvolume is gone: why, for how long */
		attroff(A_BOLD);
		mvprintw(y++, 0, "HELD %lld s: %-.*s", (long long)js_int(st, "held.seconds"),
			 cols > 20 ? cols - 20 : 1, out_esc(js_str(st, "held.reason")));
		attron(A_BOLD);
	}
	attroff(A_BOLD);
	if (json_object_object_get_ex(st, "workers", &a) &&
	    json_object_object_get_ex(a, "states", &a)) {
		n = (int)json_object_array_length(a);
		for (i = 0; i < n && y < rows - 5; i++, y++)
			mvprintw(y, 0, "  %2d %-.*s", i, cols - 6,
				 out_esc(json_object_get_string(
					 json_object_array_get_idx(a, (size_t)i))));
	}
	return y;
}

/*
 * Bytes moved, of how many (the plans so far, projected over the estimated directories), and
 * what is left; with a time window, what it leaves for the next run.
 */
static int draw_moves(struct json_object *st, int y, int cols)
{
	char b1[32], b2[32], b3[32], b4[32];
	double moved = (double)js_int(st, "bytes_moved"), total;
	struct json_object *a;

	human_bytes((uint64_t)moved, b1, sizeof(b1));
	if (!json_object_object_get_ex(st, "to_move", &a) || !a) {
		mvprintw(y++, 0, "Bytes moved %s", b1);
		return y;
	}
	total = (double)js_int(st, "to_move.bytes_estimated");
	mvprintw(y, 0, "Bytes moved %s of ~%s, ~%s and ~%lld files left", b1,
		 human_bytes((uint64_t)total, b2, sizeof(b2)),
		 human_bytes((uint64_t)js_int(st, "bytes_left"), b3, sizeof(b3)),
		 (long long)js_int(st, "files_left"));
	bar(y++, 62, cols - 62, total > 0 ? moved / total : 0, 1);
	if (!json_object_object_get_ex(st, "window", &a) || !a)
		return y;
	human_duration(js_double(st, "window.seconds_left"), b4, sizeof(b4));
	if (js_int(st, "window.done_in_window"))
		mvprintw(y++, 0, "Window      ends in %s: all done before it", b4);
	else
		mvprintw(y++, 0,
			 "Window      ends in %s: ~%s and ~%lld files left then, for the next run",
			 b4,
			 human_bytes((uint64_t)js_int(st, "window.bytes_left_at_end"), b3,
				     sizeof(b3)),
			 (long long)js_int(st, "window.files_left_at_end"));
	return y;
}

/* The messages kept for later, and the last errors. Return: the next line. */
static int draw_messages(struct json_object *st, int y, int rows, int cols)
{
	struct json_object *a;
	int i, n;

	pthread_mutex_lock(&notes_lock);
	if (notes_n && y < rows - 4) {
		mvprintw(y++, 0, "Messages (printed again when the dashboard closes)");
		for (i = notes_n > 3 ? (int)notes_n - 3 : 0; i < (int)notes_n && y < rows - 3;
		     i++, y++)
			mvprintw(y, 0, "  %-.*s", cols - 3,
				 notes[(notes_next + NOTES - notes_n + (unsigned)i) % NOTES]);
		y++;
	}
	pthread_mutex_unlock(&notes_lock);
	if (json_object_object_get_ex(st, "errors", &a) && json_object_array_length(a)) {
		if (has_colors())
			attron(COLOR_PAIR(3));
		mvprintw(y++, 0, "Last errors");
		if (has_colors())
			attroff(COLOR_PAIR(3));
		n = (int)json_object_array_length(a);
		for (i = n > rows - y - 2 ? n - (rows - y - 2) : 0; i < n && y < rows - 1; i++, y++)
			mvprintw(y, 0, "  %-.*s", cols - 3,
				 out_esc(json_object_get_string(
					 json_object_array_get_idx(a, (size_t)i))));
	}
	return y;
}

void dash_draw(struct dash *d, struct json_object *st)
{
	char b1[32], b2[32], b3[32], ph[256];
	int rows, cols, y = 0;
	struct json_object *a;
	double done, total;

	erase();
	getmaxyx(stdscr, rows, cols);
	d->has_pace = st && json_object_object_get_ex(st, "pace", &a);
	if (d->has_pace) {
		d->rate = js_double(st, "pace.files_per_sec");
		d->measured = js_double(st, "rates.files_per_sec_10s");
	}
	if (!st) {
		mvprintw(0, 0, "waiting for the job's status...");
		take_terminal(d);
		refresh();
		return;
	}
	attron(A_BOLD);
	/* strings from the job or its status file: escaped (out_esc()) like names */
	mvprintw(y++, 0, "layoutctl %s %s%s  path %s  mode %s  layout %s",
		 out_esc(js_str(st, "command")), out_esc(js_str(st, "volume")),
		 js_int(st, "dry_run") ? " (dry run)" : "", out_esc(js_str(st, "path")),
		 out_esc(js_str(st, "mode")), out_esc(js_str(st, "layout")));
	attroff(A_BOLD);
	human_duration(js_double(st, "elapsed"), b1, sizeof(b1));
	if (json_object_object_get_ex(st, "eta_seconds", &a) && a)
		human_duration(json_object_get_double(a), b2, sizeof(b2));
	else
		snprintf(b2, sizeof(b2), "-");
	mvprintw(y++, 0, "state %-9s phase %-6s elapsed %-10s ETA %-10s pid %lld on %s",
		 out_esc(js_str(st, "state")), out_esc(js_str(st, "phase")), b1, b2,
		 (long long)js_int(st, "pid"), out_esc(js_str(st, "host")));
	/* what the phase is doing, with its counters (the settle countdown, say) */
	status_phase_line(st, ph, sizeof(ph));
	mvprintw(y++, 0, "%-.*s", cols - 1, out_esc(ph));
	y++;
	done = (double)js_int(st, "directories.done");
	total = (double)js_int(st, "directories.estimated_total");
	mvprintw(y, 0, "Directories %8lld done / %8lld seen / ~%lld total", (long long)done,
		 (long long)js_int(st, "directories.seen"), (long long)total);
	bar(y++, 62, cols - 62, total > 0 ? done / total : 0, 1);
	mvprintw(y++, 0, "  fixed %lld  was clean %lld  not fixed %lld  left alone %lld",
		 (long long)js_int(st, "directories.fixed"),
		 (long long)js_int(st, "directories.was-clean"),
		 (long long)js_int(st, "directories.not-fixed"),
		 (long long)js_int(st, "directories.left-alone"));
	y = draw_clean_first(st, y);
	mvprintw(y++, 0,
		 "Files       examined %lld  migrated %lld  linked %lld  skipped %lld  failed %lld  linkto removed %lld",
		 (long long)js_int(st, "files.examined"), (long long)js_int(st, "files.migrated"),
		 (long long)js_int(st, "files.linked"), (long long)js_int(st, "files.skipped"),
		 (long long)js_int(st, "files.failed"),
		 (long long)js_int(st, "files.linkto-removed"));
	y = draw_moves(st, y, cols);
	mvprintw(y++, 0,
		 "Rates       last 10 s: %.1f dirs/s %.1f files/s %s/s   last 60 s: %.1f dirs/s %.1f files/s %s/s",
		 js_double(st, "rates.dirs_per_sec_10s"), js_double(st, "rates.files_per_sec_10s"),
		 human_bytes((uint64_t)js_double(st, "rates.bytes_per_sec_10s"), b2, sizeof(b2)),
		 js_double(st, "rates.dirs_per_sec_60s"), js_double(st, "rates.files_per_sec_60s"),
		 human_bytes((uint64_t)js_double(st, "rates.bytes_per_sec_60s"), b3, sizeof(b3)));
	y++;
	y = draw_subvolumes(st, y, rows, cols);
	y++;
	y = draw_servers(st, y, rows, cols);
	y = draw_workers(st, y, rows, cols);
	y++;
	y = draw_messages(st, y, rows, cols);
	if (d->help)
		draw_help();
	attron(A_REVERSE);
	mvprintw(rows - 1, 0, " p pause  r resume  + - workers  < > 0 rate  q stop  ? help %s%-*s",
		 d->message ? "| " : "", cols > 62 ? cols - 62 : 0, d->message ? d->message : "");
	attroff(A_REVERSE);
	if (!d->shown)
		take_terminal(d);
	refresh();
}

/*
 * The rate keys: '>' doubles the rate limit, '<' halves it (from no limit: half the rate
 * measured over the last 10 s), '0' lifts it. Return: what to say.
 */
static const char *pace_key(struct dash *d, int c, const struct dash_ops *ops)
{
	struct lctl_pace p = { .set = LCTL_PACE_RATE };

	if (!ops->pace || !d->has_pace)
		return "this job has no pace to change";
	if (c == '0') {
		p.files_per_sec = 0;
	} else if (c == '>') {
		if (d->rate <= 0)
			return "no rate limit already";
		p.files_per_sec = d->rate * 2 > LCTL_PACE_RATE_MAX ? LCTL_PACE_RATE_MAX
								   : d->rate * 2;
	} else {
		double from = d->rate > 0 ? d->rate : d->measured;

		if (from <= 0)
			return "no rate measured yet: set one with 'layoutctl set VOL rate=N'";
		/* a hundredth of a file a second at least: 0 would mean no limit */
		p.files_per_sec = from / 2 < 0.01 ? 0.01 : from / 2;
	}
	if (ops->pace(ops->arg, &p))
		return "cannot change the rate";
	/* shown at once; the status says it from the next second */
	d->rate = p.files_per_sec;
	if (p.files_per_sec > 0)
		snprintf(d->pace_msg, sizeof(d->pace_msg), "rate limit %.4g files/s",
			 p.files_per_sec);
	else
		snprintf(d->pace_msg, sizeof(d->pace_msg), "no rate limit");
	return d->pace_msg;
}

int dash_key(struct dash *d, int timeout_ms, const struct dash_ops *ops)
{
	int c;

	if (!d->shown) {
		/* not drawn yet: getch() would take the screen over; keys wait in the terminal */
		if (timeout_ms > 0)
			usleep((useconds_t)timeout_ms * 1000);
		return 0;
	}
	timeout(timeout_ms);
	c = getch();
	if (c == ERR)
		return 0;
	if (d->help && c != KEY_RESIZE) {
		d->help = false;
		return c;
	}
	switch (c) {
	case 'p':
		ops->pause(ops->arg, true);
		d->message = "pause requested";
		break;
	case 'r':
		ops->pause(ops->arg, false);
		d->message = "resumed";
		break;
	case '+':
		d->message = ops->workers(ops->arg, +1) ? "cannot add a worker" : "one more worker";
		break;
	case '-':
		d->message = ops->workers(ops->arg, -1) ? "cannot remove a worker"
							: "one worker less";
		break;
	case '>':
	case '<':
	case '0':
		d->message = pace_key(d, c, ops);
		break;
	case 'q':
		ops->stop(ops->arg);
		d->message = "stopping: finishing the directories in progress";
		break;
	case '?':
		d->help = true;
		break;
	case KEY_RESIZE:
		/* ncurses already resized stdscr; the next draw uses the new size */
		clearok(stdscr, TRUE);
		break;
	default:
		break;
	}
	return c;
}
