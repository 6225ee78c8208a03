/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: who holds the volume lock (lib/lock.c, lctl_lock_value_dead()). A lock left by
 * a dead run of this host is taken over without --break-lock; before issue 24 (item 6) "this
 * host" meant "the same host name", so a clone with our name, localhost.localdomain on two
 * machines or a container with its own pid namespace took over a live lock. The holder is
 * now named by machine id, boot id, pid namespace, pid and start time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lock.h"

/* a process table: pid 100 started at tick 5000, pid 200 at 7000; no other */
static unsigned long long start_of(long pid)
{
	return pid == 100 ? 5000 : pid == 200 ? 7000 : 0;
}

static const struct lctl_lock_ident me = {
	.host = "node1",
	.machine = "0123456789abcdef0123456789abcdef",
	.boot = "11111111-2222-3333-4444-555555555555",
	.pidns = "pid:[4026531836]",
	.pid = 300,
	.start = 9000,
};

static bool dead(const char *v)
{
	return lctl_lock_value_dead(v, &me, start_of);
}

static void test_same_machine(void **state)
{
	(void)state;
	/* alive: its pid runs with its start time */
	assert_false(dead("node1 100 r1 1700000000 0123456789abcdef0123456789abcdef "
			  "11111111-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
	/* dead: its pid is gone */
	assert_true(dead("node1 150 r1 1700000000 0123456789abcdef0123456789abcdef "
			 "11111111-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
	/* dead: its pid is another, later process's */
	assert_true(dead("node1 200 r1 1700000000 0123456789abcdef0123456789abcdef "
			 "11111111-2222-3333-4444-555555555555 pid:[4026531836] 6000"));
	/* dead: this machine before a reboot (another boot id, same machine and name) */
	assert_true(dead("node1 100 r1 1700000000 0123456789abcdef0123456789abcdef "
			 "99999999-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
}

static void test_cannot_tell(void **state)
{
	(void)state;
	/* another machine with our host name (a clone with its own machine id, its own boot) */
	assert_false(dead("node1 150 r1 1700000000 fedcba9876543210fedcba9876543210 "
			  "99999999-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
	/* a clone with our machine id and another name, running now */
	assert_false(dead("node2 150 r1 1700000000 0123456789abcdef0123456789abcdef "
			  "99999999-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
	/* a container with its own pid namespace: its pids mean nothing here */
	assert_false(dead("node1 150 r1 1700000000 0123456789abcdef0123456789abcdef "
			  "11111111-2222-3333-4444-555555555555 pid:[4026532999] 5000"));
	/* no machine id: another boot cannot be told from another machine */
	assert_false(dead("node1 150 r1 1700000000 - 99999999-2222-3333-4444-555555555555 "
			  "pid:[4026531836] 5000"));
	/* (the same boot needs none: the same kernel, whose pid namespaces are told apart) */
	assert_true(dead("node1 150 r1 1700000000 - 11111111-2222-3333-4444-555555555555 "
			 "pid:[4026531836] 5000"));
	/* a value of an older layoutctl ("HOST PID RUN TIME"): the host name proves nothing */
	assert_false(dead("node1 150 r1 1700000000"));
	assert_false(dead(""));
	assert_false(dead("node1 -5 r1 1700000000 0123456789abcdef0123456789abcdef "
			  "11111111-2222-3333-4444-555555555555 pid:[4026531836] 5000"));
}

/* This process, as lctl_lock_ident() sees it, is alive by its own rule. */
static void test_ident_self(void **state)
{
	struct lctl_lock_ident self;
	char v[512];

	(void)state;
	lctl_lock_ident(&self);
	assert_int_equal(self.pid, (long)getpid());
	assert_true(self.start > 0);
	assert_true(self.boot[0] && strcmp(self.boot, "-"));
	assert_null(strchr(self.host, ' '));
	snprintf(v, sizeof(v), "%s %ld r 1 %s %s %s %llu", self.host, self.pid, self.machine,
		 self.boot, self.pidns, self.start);
	/* by the real process table: this process is alive, one with another start time dead */
	assert_false(lctl_lock_value_dead(v, &self, lctl_proc_start));
	assert_int_equal(lctl_proc_start(self.pid), self.start);
	snprintf(v, sizeof(v), "%s %ld r 1 %s %s %s %llu", self.host, self.pid, self.machine,
		 self.boot, self.pidns, self.start + 1);
	assert_true(lctl_lock_value_dead(v, &self, lctl_proc_start));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_machine),
		cmocka_unit_test(test_cannot_tell),
		cmocka_unit_test(test_ident_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
