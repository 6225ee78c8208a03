#!/bin/bash
# kill -9 at three points of a fix, each time followed by `fix --resume`, on one 4 -> 6 brick
# volume, after (0) a Ctrl-C in the settle period (exit 130 at once, nothing moved, journal
# still dirty): (1) in the dirty phase (during --settle), (2) mid-crawl (some directories stamped,
# files being migrated at --rate), (3) just before the root is stamped (every other directory
# stamped on the bricks, the root's own linkto files still being made at --rate). The last resume must end as an
# uninterrupted fix would: exit 0, scan exit 0, the brick check clean, the tree unchanged. A
# fresh-lookup checker runs across all of it and must never get ENOENT.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
# 30 directories, and many files in the root so that the root's own repair takes a while: its
# quiet* files are left out of the checker's list, whose lookups would link the misplaced ones
# through DHT before the fix gets to the root (the window of kill 3 is the fix linking them at
# --rate 15; it used to be the rate limiter booking a slot for each name of the root already
# linked, until the placing rounds stopped doing that)
fx_populate "$MP" 30 600 11
for i in $(seq 1 400); do printf 'root %s\n' "$i" >"$MP/rootfile$i"; done
for i in $(seq 1 240); do printf 'quiet %s\n' "$i" >"$MP/quiet$i"; done
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" | grep -v '^/\?quiet[0-9]*$' >"$FX/list"
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"
fx_checker_start "$VOL" "$FX/list"

journal_phase() { awk '$1 == "phase" { print $2 }' "$S/journal" 2>/dev/null; }
journal_commit() { awk '$1 == "commit" { print $2 }' "$S/journal" 2>/dev/null; }
# directories (below the root) whose commit word is the run's hash on the first brick, and all
stamped_dirs() {
	local h
	h=$(printf '%08x' "$(journal_commit)")
	find "${B[0]}" -mindepth 1 -path "${B[0]}/.glusterfs" -prune -o -type d -print0 |
		xargs -0r getfattr --absolute-names -n trusted.glusterfs.dht -e hex 2>/dev/null |
		grep -c "=0x$h" || true
}
all_dirs() { find "${B[0]}" -mindepth 1 -path "${B[0]}/.glusterfs" -prune -o -type d -print | wc -l; }
root_word() { getfattr --absolute-names -n trusted.glusterfs.dht -e hex "${B[0]}" 2>/dev/null | sed -n 's/.*=0x\(........\).*/\1/p'; }
start_fix() {
	"$LAYOUTCTL" fix --state-dir "$S" "$@" --parallel 2 "$VOL" >>"$FX/fix.out" 2>&1 &
	FIX_PID=$!
}
kill_fix() {
	kill -9 "$FIX_PID"
	wait "$FIX_PID" 2>/dev/null || true
	echo "killed in phase $(journal_phase): $(stamped_dirs)/$(all_dirs) directories stamped, root $(root_word)" >&2
}
wait_for() { # SECONDS CONDITION...
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		"${@:2}" && return 0
		kill -0 "$FIX_PID" 2>/dev/null || { cat "$FX/fix.out" >&2; fail "the fix ended before: $*"; }
		sleep 0.1
	done
	fail "timed out waiting for: ${*:2}"
}

# (0) Ctrl-C (SIGINT) during the settle period: the run ends at once, before anything moves,
# with exit 130 and the journal still in the dirty phase (the resume redoes layouts and settle)
start_fix --settle 20 --rate 40
wait_for 30 eval '[[ $(journal_phase) == dirty ]]'
sleep 2
t0=$SECONDS
kill -INT "$FIX_PID"
rc=0
wait "$FIX_PID" || rc=$?
assert_eq 130 "$rc" "exit status of a fix interrupted while settling"
((SECONDS - t0 <= 10)) || fail "the interrupted fix took $((SECONDS - t0)) s to end"
assert_eq dirty "$(journal_phase)" "phase after an interrupt while settling"
! grep -q '"outcome":"migrated"' "$S/outcomes.jsonl" 2>/dev/null ||
	fail "files moved after an interrupt in the settle period"

# (1) during the settle period of the dirty phase
start_fix --settle 20 --rate 40
wait_for 30 eval '[[ $(journal_phase) == dirty ]]'
sleep 2
kill_fix
assert_eq dirty "$(journal_phase)" "phase at the first kill"

# (2) mid-crawl: a few directories stamped, not all
start_fix --resume --settle 1 --rate 40
wait_for 60 eval '(( $(stamped_dirs) >= 5 ))'
kill_fix
n=$(stamped_dirs)
((n < $(all_dirs))) || fail "the second kill came too late: every directory was stamped"

# (3) every directory but the root stamped, the root not yet
start_fix --resume --settle 1 --rate 15
wait_for 90 eval '(( $(stamped_dirs) == $(all_dirs) ))'
h=$(printf '%08x' "$(journal_commit)")
kill_fix
[[ $(root_word) != "$h" ]] || fail "the third kill came too late: the root was stamped"

expect_exit 0 "$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 --parallel 2 "$VOL"
assert_eq "done" "$(journal_phase)" "journal phase after the last resume"
sleep 1
fx_checker_stop
cat "$FX/fix.out" >&2
fx_scan_after_fix "$VOL" --parallel 2
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
