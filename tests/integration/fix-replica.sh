#!/bin/bash
# The same guarantees on a distributed-replicate volume grown by one replica set (2 x 2 ->
# 3 x 2): fix with a fresh-lookup checker running (no ENOENT), exit 0, scan exit 0, the brick
# check on every brick of every set (commit words, ranges the same on both replicas, placement,
# linkto), the tree unchanged through FUSE, creates at <= 1.15 LOOKUP each.
# Then the hold (issue 26) on a replica set that still answers: grown to 4 x 2, one brick of the
# new set killed mid-run: status says held, naming the brick; restarted (`volume start force`),
# the run goes on by itself and ends with exit 0, no file failed, the bricks check passes, both
# bricks of the set hold the same files, and the tree is unchanged.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

lctl_vol_create rep 2 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 800 23
grep '^sparse ' "$FX/special" | cut -d' ' -f2- >"$FX/sparse"
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
lctl_vol_add_bricks "$VOL" 1
stat "$MP" >/dev/null

fx_checker_start "$VOL" "$FX/list"
fx_fix "$VOL" --parallel 4
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
fx_scan_after_fix "$VOL" --parallel 4
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)" --sparse "$FX/sparse"
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
r=$(fx_lookups_per_create "$VOL" /d001 300 newfile)
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "LOOKUP per CREATE in /d001 is $r after the fix"

# --- the hold on a degraded replica set (issue 26) ---------------------------------------------
rm -f -- "$MP"/d001/newfile*
fx_tree manifest "$MP" >"$FX/before2"
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
victim=${B[6]} # a brick of the new set: the target of many migrations
S=$FX/hold
mkdir -p "$S"
st_field() { { "$LAYOUTCTL" --format json status --state-dir "$S" "$VOL" 2>/dev/null || true; } | jq -r "$1"; }
"$LAYOUTCTL" fix --state-dir "$S" --settle 1 --rate 10 --parallel 2 "$VOL" \
	>"$FX/hold.out" 2>"$FX/hold.err" &
fix=$!
hs_wait_until 90 "$fix" eval '[[ $(st_field .status.state) == running && $(st_field .status.phase) == work ]] &&
	(($(st_field .status.directories.done) >= 3))' ||
	fail "the fix ended before the brick could be killed: $(cat "$FX/hold.out" "$FX/hold.err")"
hs_kill_brick "$VOL" "$victim"
hs_wait_until 30 "$fix" eval '[[ $(st_field .status.state) == held ]]' ||
	fail "status never said held with a brick of a set down: $(cat "$FX/hold.out" "$FX/hold.err")"
assert_contains "$(st_field .status.held.reason)" "brick "
assert_contains "$(st_field .status.held.reason)" "$victim down"
hs_restart_bricks "$VOL"
rc=0
wait "$fix" || rc=$?
cat "$FX/hold.out" "$FX/hold.err" >&2
assert_eq 0 "$rc" "exit status of a run held while a brick of a set was down"
assert_eq 0 "$(jq -s '[.[] | select(.outcome == "failed")] | length' "$S/outcomes.jsonl")" \
	"files failed in the held run"
grep -q 'held: brick ' "$FX/hold.err" || fail "the run did not say why it held"
fx_scan_after_fix "$VOL" --parallel 4
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)" --sparse "$FX/sparse"
# both bricks of the set hold every file once the heals are done (the run waited for those it
# saw pending; the self-heal daemon may still be finishing the last ones)
set_files() { (cd "$1" && find . -path ./.glusterfs -prune -o -print | sort); }
for ((i = 0; i < 300; i++)); do
	[[ $(set_files "${B[6]}") == "$(set_files "${B[7]}")" ]] && break
	sleep 0.2
done
assert_eq "$(set_files "${B[7]}")" "$(set_files "${B[6]}")" "the bricks of the set differ"
fx_tree manifest "$MP" >"$FX/after2"
assert_files_equal "$FX/before2" "$FX/after2" "the tree changed in the held run"
exit 0
