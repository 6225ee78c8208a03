#!/bin/bash
# tests/run-test.sh SCRIPT [ARGS...]: automake's LOG_COMPILER for the shell tests (SH_LOG_COMPILER).
#
# Runs SCRIPT with bash; automake keeps its output as the test's .log. Each test gets a folder
# $LCTL_TEST_LOGDIR (<builddir>/test-logs/<script path without .sh>, emptied first) where the
# sanitizers write their reports (log_path; a test that swallows stderr cannot hide them) and
# where the harness keeps GlusterFS logs when the test fails. Afterwards the test fails (exit 1)
# when its log or a file in that folder holds a sanitizer report, whatever SCRIPT returned.
#
# Exit status: SCRIPT's (0 pass, 77 skip, 99 hard error, else fail), or 1 as above.
# Environment: LAYOUTCTL, LCTL_SRCDIR, LCTL_BUILDDIR (set by Makefile.am; guessed when this runs
# by hand); LCTL_TEST_TIMEOUT [900, or what the script asks in a line "# lctl-test-timeout: N"]
# seconds, 0 for none; LCTL_DETECT_LEAKS [0 for integration tests, whose gfapi is never
# glfs_fini'd; 1 otherwise]; ASAN_OPTIONS, UBSAN_OPTIONS, TSAN_OPTIONS given by the caller are
# appended, so they win.
set -uo pipefail

# What counts as a sanitizer report (also used by tests/cli/lib.sh and tests/run-all.sh).
LCTL_SAN_PATTERN='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:'
LCTL_SAN_PATTERN+='|ERROR: UndefinedBehaviorSanitizer|WARNING: ThreadSanitizer|ERROR: ThreadSanitizer'
if [[ ${1:-} == --sanitizer-pattern ]]; then
	printf '%s\n' "$LCTL_SAN_PATTERN"
	exit 0
fi

if (($# < 1)); then
	echo "usage: run-test.sh SCRIPT [ARGS...]" >&2
	exit 99
fi
script=$1
shift
[[ -f $script ]] || {
	echo "run-test.sh: no test script '$script'" >&2
	exit 99
}

: "${LCTL_SRCDIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${LCTL_BUILDDIR:=$PWD}"
: "${LAYOUTCTL:=$LCTL_BUILDDIR/layoutctl}"
export LCTL_SRCDIR LCTL_BUILDDIR LAYOUTCTL

# tests/cli/usage.sh -> <builddir>/test-logs/tests/cli/usage
abs=$(cd "$(dirname "$script")" && pwd)/${script##*/}
rel=${abs#"$LCTL_SRCDIR"/}
[[ $rel != /* ]] || rel=${script##*/}
LCTL_TEST_LOGDIR=$LCTL_BUILDDIR/test-logs/${rel%.sh}
rm -rf -- "$LCTL_TEST_LOGDIR"
mkdir -p -- "$LCTL_TEST_LOGDIR" || exit 99
export LCTL_TEST_LOGDIR

# Sanitizer reports: halt at the first one, abort (so a crash is a crash to run_mustfail), full
# stacks, and a file per process under the log folder. Without sanitizers these do nothing.
export LCTL_SAN_LOG=$LCTL_TEST_LOGDIR/san LCTL_SAN_PATTERN
san="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$LCTL_SAN_LOG"
asan="$san:strict_string_checks=1:check_initialization_order=1"
case $rel in
# gfapi runs its synctasks on swapcontext stacks, which fake stacks do not follow
*/integration/*) asan+=":detect_leaks=${LCTL_DETECT_LEAKS:-0}" ;;
*) asan+=":detect_leaks=${LCTL_DETECT_LEAKS:-1}:detect_stack_use_after_return=1" ;;
esac
export ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="$san${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export TSAN_OPTIONS="$san:second_deadlock_stack=1:suppressions=$LCTL_SRCDIR/tests/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
ulimit -c 0

# The tests' python3 is Debian's (tests/install-deps.sh installs it), started directly: a
# version manager's shim first in PATH (pyenv's: about 0.4 s of CPU a call, ten times the
# interpreter's own start, in a dozen processes) made python3 and its shims a sixth of the
# whole suite's CPU time. Without /usr/bin/python3 the PATH's python3 is used.
if [[ -x /usr/bin/python3 && $(type -P python3) != /usr/bin/python3 ]]; then
	pybin=$LCTL_BUILDDIR/test-logs/.bin
	mkdir -p -- "$pybin" && { [[ -e $pybin/python3 ]] || ln -s /usr/bin/python3 "$pybin/python3" 2>/dev/null || true; }
	[[ -x $pybin/python3 ]] && PATH=$pybin:$PATH
fi

printf '== %s (%s)\n== LAYOUTCTL=%s\n== logs: %s\n' "$rel" "$(date '+%F %T')" "$LAYOUTCTL" "$LCTL_TEST_LOGDIR"

# The test runs under timeout(1) (0: no time limit) in the background: INT/TERM/HUP sent to this
# script are passed to timeout, which passes them to the test's whole process group, so the
# harness's traps tear the volumes down. (A background bash would ignore SIGINT for good;
# timeout resets that for the test.)
# A test may ask for a longer limit with a line "# lctl-test-timeout: SECONDS" (one that chases
# a writer on a loaded machine); LCTL_TEST_TIMEOUT, when given, wins.
asked=$(sed -n 's/^# lctl-test-timeout: \([1-9][0-9]*\)$/\1/p' "$script" | head -n 1)
timeout_s=${LCTL_TEST_TIMEOUT:-${asked:-900}}
t_start=$SECONDS
timeout -k 30 "$timeout_s" bash "$script" "$@" &
child=$!
# A test that hangs tells where: 20 s before the limit, the processes of its group (timeout(1)
# made one, with its own pid as id) and the stacks of our programs in it go to the test's log.
watchdog=
if ((timeout_s > 40)); then
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		sleep $((timeout_s - 20)) &
		nap=$!
		wait "$nap"
		kill -0 "$child" 2>/dev/null || exit 0
		echo "run-test.sh: $rel still running after $((timeout_s - 20)) s; its processes:"
		ps -o pid,ppid,etimes,stat,args -p "$(pgrep -d, -g "$child")" 2>/dev/null | cut -c1-200
		for pid in $(pgrep -g "$child" -x 'layoutctl|lt-layoutctl|gfcheck' 2>/dev/null); do
			echo "--- stacks of $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
			timeout 30 gdb -p "$pid" -batch -nx -ex 'thread apply all bt 12' 2>/dev/null |
				grep -E '^(Thread|#)' | head -150
		done
	) &
	watchdog=$!
fi
trap 'kill -INT "$child" 2>/dev/null' INT
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -HUP "$child" 2>/dev/null' HUP
while :; do
	wait "$child"
	rc=$?
	# wait returns early (>128) when a trapped signal arrived: wait again for the real status
	((rc > 128)) && kill -0 "$child" 2>/dev/null || break
done
trap - INT TERM HUP
[[ -z $watchdog ]] || kill "$watchdog" 2>/dev/null
# 124: ended by TERM at the limit; 137: killed 30 s later, still running
((timeout_s == 0 || (rc != 124 && rc != 137))) || echo "run-test.sh: $rel timed out after ${timeout_s}s"

# Sanitizer reports: in the files of the log folder (not the GlusterFS logs kept in its
# subfolders) and in this test's own log, when our stdout is that file.
reports=()
for f in "$LCTL_TEST_LOGDIR"/*; do
	[[ -f $f ]] && grep -qE "$LCTL_SAN_PATTERN" -- "$f" && reports+=("$f")
done
log=$(readlink /proc/$$/fd/1 2>/dev/null) || log=
[[ -f $log ]] && grep -qE "$LCTL_SAN_PATTERN" -- "$log" && reports+=("$log")
if ((${#reports[@]})); then
	for f in "${reports[@]}"; do
		[[ $f == "$log" ]] && continue
		printf '== sanitizer report %s:\n' "$f"
		cat -- "$f"
	done
	printf 'run-test.sh: %s: sanitizer report in %s\n' "$rel" "${reports[*]}"
	((rc != 0 && rc != 77)) || rc=1
fi

rmdir -- "$LCTL_TEST_LOGDIR" 2>/dev/null
case $rc in
0) res=PASS ;;
77) res=SKIP ;;
99) res=ERROR ;;
*) res=FAIL ;;
esac
# "== duration": tests/run-all.sh lists the slowest tests of a run from these lines
printf '== %s: %s (exit %s)\n== duration %d s\n' "$rel" "$res" "$rc" $((SECONDS - t_start))
exit "$rc"
