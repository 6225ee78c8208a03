#!/bin/bash
# --dashboard on a terminal whose TERM ncurses has no terminfo entry for (in a pty, through
# script(1)): ncurses' initscr() would print "Error opening terminal" and exit the process in
# the middle of the fix, locks held and journal running. The terminal is checked before the
# fix starts: a warning, plain progress instead, and the fix completes (the volume scans
# clean). scan --dashboard does the same; top, which is nothing but a dashboard, exits 2 with
# one error line.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd script jq

lctl_vol_create dist 2 VOL
MP=$(lctl_mount "$VOL")
for d in 1 2 3 4; do
	mkdir "$MP/d$d"
	for f in $(seq 1 20); do echo "$d/$f" >"$MP/d$d/f$f"; done
done
lctl_vol_add_bricks "$VOL" 1
ls -R "$MP" >/dev/null
W=$(mktemp -d "${TMPDIR:-/tmp}/lctl-term.XXXXXX")
lctl_on_exit rm -rf -- "$W"

# in_pty OUT CMD...: CMD on a pseudo-terminal with TERM=nonexistent-term; its exit status
in_pty() {
	local out=$1 rc=0
	shift
	printf '+ (pty) %s\n' "${*@Q}" >&2
	TERM=nonexistent-term script -qec "${*@Q}" /dev/null </dev/null >"$out" 2>&1 || rc=$?
	cat -v -- "$out" >&2
	return "$rc"
}

rc=0
in_pty "$W/fix.out" "$LAYOUTCTL" fix --dashboard --settle 1 --no-task-check \
	--state-dir "$W/state" "$VOL" || rc=$?
grep -q 'Error opening terminal' "$W/fix.out" && fail "ncurses ended the fix: $(cat -v "$W/fix.out")"
assert_eq 0 "$rc" "fix --dashboard exit status with an unknown TERM"
grep -q "warning: --dashboard cannot use terminal type 'nonexistent-term'" "$W/fix.out" ||
	fail "no warning about the terminal type"
grep -q '^phase done' "$W/state/journal" || fail "journal: $(cat "$W/state/journal")"
[[ $(jq -r .status.state <<<"$("$LAYOUTCTL" --json status --state-dir "$W/state" "$VOL")") == finished ]] ||
	fail "the fix did not finish"
run_check "$LAYOUTCTL" scan "$VOL"
[[ $(find "$MP" -type f | wc -l) == 80 ]] || fail "files lost"

rc=0
in_pty "$W/scan.out" "$LAYOUTCTL" scan --dashboard "$VOL" || rc=$?
assert_eq 0 "$rc" "scan --dashboard exit status with an unknown TERM"
grep -q "warning: --dashboard cannot use terminal type 'nonexistent-term'" "$W/scan.out" ||
	fail "scan: no warning about the terminal type"
grep -q '^Verdict: clean' "$W/scan.out" || fail "scan --dashboard printed no report"

rc=0
in_pty "$W/top.out" "$LAYOUTCTL" top --iterations 1 --state-dir "$W/state" "$VOL" || rc=$?
assert_eq 2 "$rc" "top exit status with an unknown TERM"
[[ $(grep -c 'layoutctl: error: top cannot use terminal type' "$W/top.out") == 1 ]] ||
	fail "top: not one clear error line"
exit 0
