/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the gluster CLI adapter (lib/glustercli.c): the running-task check, remove-brick. A fake gluster CLI (a shell script
 * at an absolute path) records how it was started; the answers are parsed as XML.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layoutctl.h"
#include "tmpdir.h"
#include "glustercli.h"

#define HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cliOutput>"

static const char task_running[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><nodeCount>1</nodeCount><tasks><task><type>Rebalance</type>"
	"<id>7</id><status>1</status><statusStr>in progress</statusStr></task></tasks>"
	"</volume></volumes></volStatus></cliOutput>";

static const char task_done[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><node><status>1</status></node><tasks><task><type>Rebalance</type>"
	"<id>7</id><status>3</status><statusStr>completed</statusStr></task></tasks>"
	"</volume></volumes></volStatus></cliOutput>";

static const char no_tasks[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><tasks/></volume></volumes></volStatus></cliOutput>";

/* glusterd refused: its error text quotes a name holding "<status>1</status>" */
static const char refused[] = HEAD
	"<opRet>-1</opRet><opErrno>30800</opErrno><opErrstr>Volume &lt;status&gt;1&lt;/status&gt; "
	"does not exist</opErrstr></cliOutput>";

static void test_parse(void **state)
{
	bool running;

	(void)state;
	assert_int_equal(lctl_gluster_tasks_parse(task_running, sizeof(task_running) - 1, &running),
			 LCTL_GLUSTER_OK);
	assert_true(running);
	/* a completed task, and a node (not a task) with status 1: nothing runs */
	assert_int_equal(lctl_gluster_tasks_parse(task_done, sizeof(task_done) - 1, &running),
			 LCTL_GLUSTER_OK);
	assert_false(running);
	assert_int_equal(lctl_gluster_tasks_parse(no_tasks, sizeof(no_tasks) - 1, &running),
			 LCTL_GLUSTER_OK);
	assert_false(running);
	assert_int_equal(lctl_gluster_tasks_parse(refused, sizeof(refused) - 1, &running),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_false(running);
	assert_int_equal(lctl_gluster_tasks_parse("<status>1</status> garbage", 26, &running),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_int_equal(lctl_gluster_tasks_parse("", 0, &running), LCTL_GLUSTER_NO_ANSWER);
}

static char dir[64];

static char *fake_gluster(const char *body)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/gluster", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0700);
	return path;
}

static char *slurp(const char *name)
{
	static char buf[8192];

	assert_int_equal(unit_read(dir, name, buf, sizeof(buf)), 0);
	return buf;
}

/*
 * The volume name is one argument, never shell text: a name made to break out of quotes runs
 * nothing. The CLI gets no stdin, a bare environment and no descriptor of ours but its
 * stdout and stderr.
 */
static void test_argv_no_shell(void **state)
{
	static const char evil[] = "fv';touch${IFS}PWNED;'";
	char body[1024], pwned[128], *args;
	bool running = true;
	int leak;

	(void)state;
	snprintf(body, sizeof(body),
		 "cd '%s' || exit 1\n"
		 "for a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\"; done >args\n"
		 "env >env\n"
		 "ls /proc/$$/fd >fds\n"
		 "cat >stdin\n"
		 "printf '%%s' '%s'",
		 dir, no_tasks);
	assert_int_equal(chdir(dir), 0);
	leak = open("/dev/null", O_RDONLY); /* without O_CLOEXEC, as a careless thread may */
	assert_true(leak >= 0);
	assert_int_equal(dup2(leak, 57), 57);
	close(leak);
	setenv("LCTL_TEST_SECRET", "hunter2", 1);
	assert_int_equal(lctl_gluster_tasks(fake_gluster(body), evil, &running), LCTL_GLUSTER_OK);
	unsetenv("LCTL_TEST_SECRET");
	close(57);
	assert_false(running);
	args = slurp("args");
	assert_non_null(strstr(args, "\n--mode=script\nvolume\nstatus\nfv';touch${IFS}PWNED;'\n"
				     "tasks\n--xml\n"));
	snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
	assert_int_not_equal(access(pwned, F_OK), 0);
	assert_string_equal(slurp("stdin"), "");
	assert_null(strstr(slurp("env"), "HOME="));
	assert_null(strstr(slurp("env"), "LCTL_TEST_SECRET"));
	/* only its stdin, stdout and stderr: ls's own descriptor of the listing is 3 */
	assert_null(strstr(slurp("fds"), "57\n"));
	assert_non_null(strstr(slurp("env"), "PATH=/usr/sbin:/usr/bin:/sbin:/bin"));
}

static void test_answers(void **state)
{
	char body[1024];
	bool running = false;

	(void)state;
	snprintf(body, sizeof(body), "printf '%%s' '%s'", task_running);
	assert_int_equal(lctl_gluster_tasks(fake_gluster(body), "v", &running), LCTL_GLUSTER_OK);
	assert_true(running);
	/* glusterd down: the CLI prints an error and nothing we can read */
	assert_int_equal(lctl_gluster_tasks(fake_gluster("echo 'Connection failed' >&2; exit 1"),
					    "v", &running),
			 LCTL_GLUSTER_NO_ANSWER);
	/* an answer without end is cut at the bound, not read for ever */
	assert_int_equal(lctl_gluster_tasks(fake_gluster("exec yes '<status>1</status>'"), "v",
					    &running),
			 LCTL_GLUSTER_CANNOT_RUN);
	/* nothing to run */
	assert_int_equal(lctl_gluster_tasks("/nonexistent/gluster", "v", &running),
			 LCTL_GLUSTER_CANNOT_RUN);
}

/* Only an executable at an absolute path counts: never the first `gluster` in PATH. */
static void test_find(void **state)
{
	char plain[128];
	const char *const rel[] = { "gluster", "sbin/gluster", NULL };
	const char *list[4];
	FILE *f;

	(void)state;
	assert_null(lctl_gluster_find(rel));
	snprintf(plain, sizeof(plain), "%s/not-executable", dir);
	f = fopen(plain, "w");
	assert_non_null(f);
	fclose(f);
	chmod(plain, 0600);
	list[0] = plain;
	list[1] = "/bin/sh";
	list[2] = NULL;
	assert_string_equal(lctl_gluster_find(list), "/bin/sh");
}

static int setup(void **state)
{
	(void)state;
	return unit_mkdtemp(dir, sizeof(dir), "tasks");
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

/* what a hostile volfile could hand remove-brick as a brick: refused before the CLI runs */
static void test_brick_ok(void **state)
{
	char host[LCTL_HOST_MAX + 8];

	(void)state;
	assert_true(lctl_gluster_brick_ok("srv1:/bricks/b1"));
	assert_true(lctl_gluster_brick_ok("127.1.1.2:/var/tmp/x y/b"));
	assert_true(lctl_gluster_brick_ok("fe80::1:/b"));
	assert_true(lctl_gluster_brick_ok("a-b_c.example:/p:q"));
	assert_false(lctl_gluster_brick_ok(""));
	assert_false(lctl_gluster_brick_ok(":/b"));
	assert_false(lctl_gluster_brick_ok("srv1"));
	assert_false(lctl_gluster_brick_ok("srv1:b"));
	assert_false(lctl_gluster_brick_ok("--xml:/b"));
	assert_false(lctl_gluster_brick_ok("-h:/b"));
	assert_false(lctl_gluster_brick_ok("srv 1:/b"));
	assert_false(lctl_gluster_brick_ok("srv;rm:/b"));
	assert_false(lctl_gluster_brick_ok("srv1:/b\nforce"));
	assert_false(lctl_gluster_brick_ok("srv1:/b\x1b[2J"));
	/* the host is checked as the volfile parser checks a brick's (lctl_host_check()) */
	memset(host, 'a', sizeof(host));
	snprintf(host + LCTL_HOST_MAX, sizeof(host) - LCTL_HOST_MAX, ":/b");
	assert_true(lctl_gluster_brick_ok(host));
	snprintf(host + LCTL_HOST_MAX, sizeof(host) - LCTL_HOST_MAX, "a:/b");
	assert_false(lctl_gluster_brick_ok(host));
	assert_false(lctl_gluster_brick_ok("[::1]:/b"));
	assert_false(lctl_gluster_brick_ok("s\xc3\xa9rv:/b"));
}

/* The compatibility check: the cluster's op-version, and every brick's clients by address. */
static const char opver[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volGetopts><count>1</count><Opt>"
	"<Option>cluster.op-version</Option><Value>100000</Value></Opt></volGetopts></cliOutput>";

#define CLIENT(h, v) \
	"<client><hostname>" h "</hostname><bytesRead>1</bytesRead><bytesWrite>2</bytesWrite>" \
	"<opVersion>" v "</opVersion></client>"

/* two bricks; 10.0.0.5 is linked to both (two ports), 10.0.0.9 (op-version 30500) to one */
static const char clients[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><node><hostname>s1</hostname><path>/b1</path><clientsStatus>"
	"<clientCount>2</clientCount>" CLIENT("10.0.0.5:49150", "100000") CLIENT(
		"10.0.0.9:1023",
		"30500") "</clientsStatus></node>"
			 "<node><hostname>s2</hostname><path>/b2</path><clientsStatus><clientCount>1</clientCount>" CLIENT(
				 "10.0.0.5:49149",
				 "100000") "</clientsStatus></node>"
					   "</volume></volumes></volStatus></cliOutput>";

/* a client name with a control byte and a space; op-versions that are not numbers */
static const char clients_odd[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><node><clientsStatus>" CLIENT("\x7f[31mx y:1",
							   "0") CLIENT("10.0.0.7:1", "1e9")
		CLIENT("10.0.0.8:1", "9999999999") "</clientsStatus></node>"
						   "</volume></volumes></volStatus></cliOutput>";

static void test_compat_parse(void **state)
{
	struct lctl_compat c = { 0 };
	unsigned v = 1;

	(void)state;
	assert_int_equal(lctl_gluster_opversion_parse(opver, sizeof(opver) - 1, &v),
			 LCTL_GLUSTER_OK);
	assert_int_equal(v, 100000);
	assert_int_equal(lctl_gluster_opversion_parse(refused, sizeof(refused) - 1, &v),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_int_equal(lctl_gluster_clients_parse(clients, sizeof(clients) - 1, &c),
			 LCTL_GLUSTER_OK);
	assert_int_equal(c.nclients, 2);
	assert_int_equal(c.nold, 1);
	assert_string_equal(c.old[0].addr, "10.0.0.9");
	assert_int_equal(c.old[0].op_version, 30500);
	/* odd bytes never reach a name; an op-version we cannot read counts as old (0) */
	assert_int_equal(lctl_gluster_clients_parse(clients_odd, sizeof(clients_odd) - 1, &c),
			 LCTL_GLUSTER_OK);
	assert_int_equal(c.nclients, 3);
	assert_int_equal(c.nold, 3);
	assert_int_equal(c.old[1].op_version, 0);
	assert_int_equal(c.old[2].op_version, 0);
	assert_string_equal(c.old[0].addr, "?[31mx?y");
	assert_int_equal(lctl_gluster_clients_parse(refused, sizeof(refused) - 1, &c),
			 LCTL_GLUSTER_NO_ANSWER);
	/* an answer of another command (no volume status) is no answer */
	assert_int_equal(lctl_gluster_clients_parse(opver, sizeof(opver) - 1, &c),
			 LCTL_GLUSTER_NO_ANSWER);
}

static void test_compat_judge(void **state)
{
	struct lctl_compat c = { .op_version = 100000, .nclients = 3 };

	(void)state;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OK);
	c.op_version = LCTL_CLUSTER_MIN_OP_VERSION - 1;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OLD_CLUSTER);
	c.op_version = LCTL_CLUSTER_MIN_OP_VERSION;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OK);
	c.op_version = LCTL_CLUSTER_MAX_OP_VERSION + 1;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_NEWER);
	c.nold = 1;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OLD_CLIENTS);
	c.op_version = 31000;
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OLD_CLUSTER);
}

/* Both questions asked with argument vectors; the volume name is one argument. */
static void test_compat_run(void **state)
{
	char body[4096];
	struct lctl_compat c;

	(void)state;
	snprintf(body, sizeof(body),
		 "case \"$4\" in all) printf '%%s' '%s' ;; *) [ \"$5\" = clients ] && "
		 "[ \"$4\" = 'v; x' ] && printf '%%s' '%s' ;; esac",
		 opver, clients);
	assert_int_equal(lctl_gluster_compat(fake_gluster(body), "v; x", &c), LCTL_GLUSTER_OK);
	assert_int_equal(c.op_version, 100000);
	assert_int_equal(c.nclients, 2);
	assert_int_equal(c.nold, 1);
	assert_int_equal(lctl_compat_judge(&c), LCTL_COMPAT_OLD_CLIENTS);
	assert_int_equal(lctl_gluster_compat(fake_gluster("exit 1"), "v", &c),
			 LCTL_GLUSTER_NO_ANSWER);
}

/*
 * Issue 26: which bricks glusterd says are online (`volume status VOLUME --xml`), for the
 * health probe's bricks without a graph: the volume's bricks only, the daemons' rows (no
 * absolute path) left out, white space around the words ignored; glusterd's refusal, a
 * document of another volume or garbage is no answer. The CLI gets an argument vector.
 */
static const char bricks_status[] = HEAD
	"<opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes><volume>"
	"<volName>v</volName><nodeCount>4</nodeCount>"
	"<node><hostname>srv1</hostname><path>/b/1</path><status>1</status><port>49152</port></node>"
	"<node><hostname>srv2</hostname><path>/b/2</path><status>0</status><port>N/A</port></node>"
	"<node><hostname> srv3\n</hostname><path>/b/&lt;3&gt;</path><status> 1 </status></node>"
	"<node><hostname>Self-heal Daemon</hostname><path>localhost</path><status>1</status></node>"
	"<node><hostname>srv4</hostname><path>/b/4</path></node>"
	"<tasks/></volume></volumes></volStatus></cliOutput>";

static void test_bricks(void **state)
{
	struct lctl_gluster_brick *b;
	char body[4096], *args;
	size_t n;

	(void)state;
	assert_int_equal(lctl_gluster_bricks_parse(bricks_status, sizeof(bricks_status) - 1, "v",
						   &b, &n),
			 LCTL_GLUSTER_OK);
	assert_int_equal(n, 3);
	assert_int_equal(lctl_gluster_brick_online(b, n, "srv1", "/b/1"), 1);
	assert_int_equal(lctl_gluster_brick_online(b, n, "srv2", "/b/2"), 0);
	assert_int_equal(lctl_gluster_brick_online(b, n, "srv3", "/b/<3>"), 1);
	assert_int_equal(lctl_gluster_brick_online(b, n, "srv4", "/b/4"), -1);
	assert_int_equal(lctl_gluster_brick_online(b, n, "srv1", "/b/2"), -1);
	assert_int_equal(lctl_gluster_brick_online(b, n, NULL, "/b/1"), -1);
	lctl_gluster_bricks_free(b, n);
	/* another volume's answer */
	assert_int_equal(lctl_gluster_bricks_parse(bricks_status, sizeof(bricks_status) - 1, "w",
						   &b, &n),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_null(b);
	assert_int_equal(n, 0);
	assert_int_equal(lctl_gluster_bricks_parse(refused, sizeof(refused) - 1, "v", &b, &n),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_int_equal(lctl_gluster_bricks_parse("<node>", 6, "v", &b, &n),
			 LCTL_GLUSTER_NO_ANSWER);
	/* through the CLI: one argument per word, whatever the name holds */
	snprintf(body, sizeof(body),
		 "cd '%s' || exit 1\n"
		 "for a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\"; done >args\n"
		 "printf '%%s' '%s'",
		 dir, no_tasks);
	assert_int_equal(lctl_gluster_bricks(fake_gluster(body), "v x;y", &b, &n),
			 LCTL_GLUSTER_NO_ANSWER); /* the answer names volume v, not "v x;y" */
	args = slurp("args");
	assert_non_null(strstr(args, "\n--mode=script\nvolume\nstatus\nv x;y\n--xml\n"));
	assert_int_equal(lctl_gluster_bricks(fake_gluster(body), "v", &b, &n), LCTL_GLUSTER_OK);
	assert_int_equal(n, 0);
	lctl_gluster_bricks_free(b, n);
	assert_int_equal(lctl_gluster_bricks("/nonexistent/gluster", "v", &b, &n),
			 LCTL_GLUSTER_CANNOT_RUN);
}

/*
 * glusterd refuses a command while another holds its lock on the volume (EG_ANOTRANS, as a
 * `volume status VOLUME clients` waiting on a stopped brick makes it answer here); the older
 * cluster-wide lock says so in words only. The question is asked again: answered on the third
 * time, it is an answer; busy to the end of the bound, LCTL_GLUSTER_BUSY (not "no answer"),
 * for every question (the remove-brick says why).
 */
static const char busy[] = HEAD
	"<opRet>-1</opRet><opErrno>30802</opErrno><opErrstr>Another transaction is in progress "
	"for v. Please try again after some time.</opErrstr><cliOp>volStatus</cliOp>"
	"<output>Another transaction is in progress for v. Please try again after some time."
	"</output></cliOutput>";
static const char busy_old[] = HEAD
	"<opRet>-1</opRet><opErrno>0</opErrno><opErrstr>Another transaction is in progress. "
	"Please try again after sometime.</opErrstr></cliOutput>";
static const char busy_but_done[] = HEAD
	"<opRet>0</opRet><opErrno>30802</opErrno><opErrstr/></cliOutput>";

static void test_busy(void **state)
{
	char body[2048];
	const char *bricks[] = { "h:/b/1" };
	char why[256];
	bool running = true;
	struct lctl_gluster_brick *b;
	struct lctl_compat c;
	char asked[128];
	size_t n;

	(void)state;
	snprintf(asked, sizeof(asked), "%s/asked", dir);
	assert_true(lctl_gluster_busy_parse(busy, sizeof(busy) - 1));
	assert_true(lctl_gluster_busy_parse(busy_old, sizeof(busy_old) - 1));
	assert_false(lctl_gluster_busy_parse(busy_but_done, sizeof(busy_but_done) - 1));
	assert_false(lctl_gluster_busy_parse(refused, sizeof(refused) - 1));
	assert_false(lctl_gluster_busy_parse(no_tasks, sizeof(no_tasks) - 1));
	assert_false(lctl_gluster_busy_parse("Another transaction", 19));
	/* busy twice, then the answer */
	snprintf(body, sizeof(body),
		 "cd '%s' || exit 1\n"
		 "echo x >>asked\n"
		 "if [ $(wc -l <asked) -le 2 ]; then printf '%%s' '%s'; else printf '%%s' '%s'; fi",
		 dir, busy, no_tasks);
	unlink(asked);
	assert_int_equal(lctl_gluster_tasks(fake_gluster(body), "v", &running), LCTL_GLUSTER_OK);
	assert_false(running);
	assert_string_equal(slurp("asked"), "x\nx\nx\n");
	/* busy to the end of the bound: every question says so */
	lctl_gluster_set_busy_wait(400);
	snprintf(body, sizeof(body), "cd '%s' || exit 1\necho x >>asked\nprintf '%%s' '%s'", dir,
		 busy);
	unlink(asked);
	assert_int_equal(lctl_gluster_tasks(fake_gluster(body), "v", &running), LCTL_GLUSTER_BUSY);
	assert_true(strlen(slurp("asked")) >= 2 * 2); /* asked again at least once */
	assert_int_equal(lctl_gluster_bricks(fake_gluster(body), "v", &b, &n), LCTL_GLUSTER_BUSY);
	assert_null(b);
	assert_int_equal(lctl_gluster_compat(fake_gluster(body), "v", &c), LCTL_GLUSTER_BUSY);
	assert_int_equal(lctl_gluster_remove_brick(fake_gluster(body), "v", bricks, 1, why,
						   sizeof(why)),
			 LCTL_GLUSTER_BUSY);
	assert_non_null(strstr(why, "busy"));
	lctl_gluster_set_busy_wait(-1);
}

/* The remove-brick: done when glusterd says so; its refusal's text, one printable line, as why. */
static void test_remove_brick(void **state)
{
	static const char done[] = HEAD "<opRet>0</opRet><opErrno>0</opErrno><opErrstr/>"
					"<volRemoveBrick/></cliOutput>";
	const char *bricks[] = { "h:/b/1", "h:/b/2" };
	char body[2048], why[256], *args;

	(void)state;
	snprintf(body, sizeof(body),
		 "cd '%s' || exit 1\n"
		 "for a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\"; done >args\n"
		 "printf '%%s' '%s'",
		 dir, done);
	assert_int_equal(lctl_gluster_remove_brick(fake_gluster(body), "v", bricks, 2, why,
						   sizeof(why)),
			 LCTL_GLUSTER_OK);
	assert_string_equal(why, "");
	args = slurp("args");
	assert_non_null(strstr(args, "\n--mode=script\nvolume\nremove-brick\nv\nh:/b/1\nh:/b/2\n"
				     "force\n--xml\n"));
	snprintf(body, sizeof(body), "printf '%%s' '%s'", refused);
	assert_int_equal(lctl_gluster_remove_brick(fake_gluster(body), "v", bricks, 1, why,
						   sizeof(why)),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_string_equal(why, "Volume <status>1</status> does not exist");
	assert_int_equal(lctl_gluster_remove_brick(fake_gluster("exit 1"), "v", bricks, 1, why,
						   sizeof(why)),
			 LCTL_GLUSTER_NO_ANSWER);
	assert_string_equal(why, "no answer from glusterd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),	     cmocka_unit_test(test_argv_no_shell),
		cmocka_unit_test(test_answers),	     cmocka_unit_test(test_find),
		cmocka_unit_test(test_brick_ok),     cmocka_unit_test(test_compat_parse),
		cmocka_unit_test(test_compat_judge), cmocka_unit_test(test_compat_run),
		cmocka_unit_test(test_bricks),	     cmocka_unit_test(test_busy),
		cmocka_unit_test(test_remove_brick),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
