# shellcheck shell=bash
# tests/cli/lib.sh: helpers for the tests that run the layoutctl binary alone (no GlusterFS).
#
# Each cli test starts with
#	. "$LCTL_SRCDIR/tests/cli/lib.sh"
# tests/integration/lib.sh sources this file too, so every helper here exists in both tiers.
#
# Sourcing turns on `set -euo pipefail`: any unchecked failure ends the test with that status.
# So a pipe into `grep -q` fails at random: grep exits at the first match, and the writer, if it
# writes after that, dies of SIGPIPE. Write `CMD | grep >/dev/null -c PATTERN`, which reads to
# the end (tests/cli/shellcheck.sh refuses the other form).
# Every helper prints the command it runs on stderr ("+ cmd ..."), so the test's log (automake
# keeps it as tests/<tier>/<name>.log) reads like `set -x` for the interesting commands only;
# stdout carries the command's own output, so `out=$(run_check "$LAYOUTCTL" info --json)` works.
#
#	fail MSG...			print "FAIL: MSG (file:line)" and exit 1
#	skip MSG...			print "SKIP: MSG" and exit 77 (only for a missing optional tool)
#	require_cmd TOOL...		skip unless every TOOL is in PATH (jq, xmllint, ...)
#	assert_eq EXPECTED ACTUAL [MSG]	string equality
#	assert_contains HAYSTACK NEEDLE [MSG]	  / assert_not_contains: substring test
#	assert_files_equal A B [MSG]	files identical (prints a unified diff otherwise)
#	expect_exit N CMD...		CMD must exit with status N
#	run_check CMD...		CMD must exit 0
#	run_mustfail "reason" CMD...	CMD must exit non-zero, but not crash or be killed by a signal
#	run_mayfail CMD...		any exit status, but a crash (SIGSEGV, SIGABRT, ...) fails the test
# After each run_* / expect_exit, LCTL_RC holds the command's exit status (only in the calling
# shell, not when the helper ran inside $(...)). A sanitizer report written by the command into
# $LCTL_TEST_LOGDIR (tests/run-test.sh points the sanitizers' log_path there) fails the test at
# once, whatever the exit status was.

set -euo pipefail

: "${LCTL_SRCDIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${LCTL_BUILDDIR:=$LCTL_SRCDIR}"
: "${LAYOUTCTL:=$LCTL_BUILDDIR/layoutctl}"
export LCTL_SRCDIR LCTL_BUILDDIR LAYOUTCTL
LCTL_RC=0

# The location of the test line that called into these helpers: the first stack frame outside
# the shared libraries.
_lctl_where() {
	local i=0 line file
	while read -r line _ file < <(caller "$i"); do
		case $file in
		*/lib.sh | */harness.sh) ;;
		*)
			printf '%s:%s' "${file##*/}" "$line"
			return
			;;
		esac
		i=$((i + 1))
	done
	printf '?'
}

fail() {
	printf 'FAIL: %s (%s)\n' "$*" "$(_lctl_where)" >&2
	exit 1
}

skip() {
	printf 'SKIP: %s\n' "$*" >&2
	exit 77
}

require_cmd() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null 2>&1 || skip "'$tool' is not installed"
	done
}

assert_eq() {
	[[ $1 == "$2" ]] || fail "${3:-values differ}: expected '$1', got '$2'"
}

assert_contains() {
	[[ $1 == *"$2"* ]] || fail "${3:-missing text}: '$2' not found in: $1"
}

assert_not_contains() {
	[[ $1 != *"$2"* ]] || fail "${3:-unexpected text}: '$2' found in: $1"
}

assert_files_equal() {
	diff -u -- "$1" "$2" >&2 || fail "${3:-files differ}: '$1' and '$2'"
}

# _lctl_run CMD...: trace and run CMD with errexit off, leave its status in LCTL_RC.
_lctl_run() {
	printf '+ %s\n' "${*@Q}" >&2
	LCTL_RC=0
	"$@" || LCTL_RC=$?
	_lctl_san_check "$*"
}

# A sanitizer writes to "$LCTL_SAN_LOG.<pid>" (log_path; tests/run-test.sh sets it and the
# pattern of a report): reports, but also warnings such as ASan's about swapcontext (gfapi).
_lctl_san_check() {
	local f found=''
	[[ -n ${LCTL_SAN_LOG:-} && -n ${LCTL_SAN_PATTERN:-} ]] || return 0
	for f in "$LCTL_SAN_LOG".*; do
		[[ -f $f ]] && grep -qE "$LCTL_SAN_PATTERN" -- "$f" || continue
		cat -- "$f" >&2
		found=$f
	done
	[[ -z $found ]] || fail "sanitizer report (see $found) after: $1"
}

# _lctl_crash_name RC: prints the signal name and succeeds when RC means the command crashed or
# could not run at all. A command killed by SIGINT/SIGTERM (130/143) is an interruption, not a
# crash; layoutctl itself documents 130 as "interrupted after a clean shutdown".
_lctl_crash_name() {
	case $1 in
	126 | 127) printf 'could not be run (exit %s)' "$1" ;;
	130 | 143) return 1 ;;
	*)
		(($1 > 128)) || return 1
		printf 'killed by SIG%s' "$(kill -l "$(($1 - 128))" 2>/dev/null || echo "?$(($1 - 128))")"
		;;
	esac
}

run_check() {
	_lctl_run "$@"
	((LCTL_RC == 0)) || fail "command failed with exit status $LCTL_RC: ${*@Q}"
}

run_mustfail() {
	local reason=${1:?run_mustfail: missing reason} why
	shift
	_lctl_run "$@"
	((LCTL_RC != 0)) || fail "command succeeded but must fail ($reason): ${*@Q}"
	if why=$(_lctl_crash_name "$LCTL_RC") || ((LCTL_RC > 128)); then
		fail "command ${why:-exited $LCTL_RC} instead of failing cleanly ($reason): ${*@Q}"
	fi
}

run_mayfail() {
	local why
	_lctl_run "$@"
	if why=$(_lctl_crash_name "$LCTL_RC"); then
		fail "command $why: ${*@Q}"
	fi
	return 0
}

expect_exit() {
	local want=${1:?expect_exit: missing exit status}
	shift
	_lctl_run "$@"
	((LCTL_RC == want)) || fail "expected exit status $want, got $LCTL_RC: ${*@Q}"
}
