#!/bin/bash
# `gluster volume stop VOL force` in the middle of a fix on a 3 -> 5 brick distribute volume:
#   - the fix ends (exit 1) within a minute, says why in one line per directory and names the
#     lost subvolumes, its journal says "stopped", its progress.json is valid;
#   - while the volume is stopped, scan and fix --resume refuse with exit 3 and one line;
#   - nothing was stamped that was not verified (checked once the volume runs again);
#   - after `volume start`, fix --resume ends with exit 0 (the volume lock the stopped run could
#     not remove is taken over: its process is gone), scan exits 0, the bricks are consistent
#     and every file's checksum is unchanged.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 500 29
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"

hs_fix_bg "$FX/fix.out" "$FX/fix.err" fix --state-dir "$S" --settle 1 --rate 30 --parallel 2 "$VOL"
fix=$HS_PID
hs_wait_until 90 "$fix" eval '[[ $(hs_journal phase) == work ]] && (($(hs_stamped_count "${B[0]}") >= 3))' ||
	fail "the fix ended before the volume could be stopped: $(cat "$FX/fix.out" "$FX/fix.err")"
lctl_gluster volume stop "$VOL" force >/dev/null
t0=$SECONDS
rc=0
wait "$fix" || rc=$?
cat "$FX/fix.out" "$FX/fix.err" >&2
echo "the fix ended $((SECONDS - t0)) s after the stop, exit $rc" >&2
_lctl_crash_name "$rc" >/dev/null && fail "fix crashed (exit $rc)"
assert_eq 1 "$rc" "exit status of a fix whose volume was stopped"
((SECONDS - t0 < 60)) || soft_fail "fix went on for $((SECONDS - t0)) s after the volume was stopped"
assert_eq stopped "$(hs_journal phase)" "journal phase"
grep -q '^not-fixed ' "$FX/fix.out" || fail "no directory reported as not fixed"
grep -qiE 'down|not connected' "$FX/fix.out" "$FX/fix.err" || soft_fail "fix does not say that the subvolumes went down"
if grep -E '^not-fixed +/: ' "$FX/fix.out" | grep >/dev/null -cv 'down'; then
	soft_fail "the root reported for another reason than the lost subvolumes: $(grep -E '^not-fixed +/: ' "$FX/fix.out")"
fi
hs_json_ok "$S/progress.json"
assert_eq 1 "$(jq -r .exit_code "$S/progress.json")" "progress.json exit code"

# the volume is stopped: clear refusals, exit 3
hs_lctl "$FX/o" "$FX/e" scan "$VOL"
assert_eq 3 "$LCTL_RC" "scan of a stopped volume"
hs_one_line "$FX/e"
hs_lctl "$FX/o" "$FX/e" fix --state-dir "$S" --resume --settle 1 "$VOL"
assert_eq 3 "$LCTL_RC" "fix --resume of a stopped volume"
hs_one_line "$FX/e"
assert_eq stopped "$(hs_journal phase)" "journal phase after a refused resume"

hs_restart_bricks "$VOL"
h=$(hs_journal commit)
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan --all "$VOL"
hs_json_ok "$FX/scan.json"
hs_stamped_are_clean "$FX/scan.json" "$h" "$VOL"

hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$S" --resume --settle 1 --parallel 2 "$VOL"
cat "$FX/fix2.out" "$FX/fix2.err" >&2
assert_eq 0 "$LCTL_RC" "fix --resume after the volume was started again"
assert_eq "done" "$(hs_journal phase)" "journal phase after the resume"
fx_scan_after_fix "$VOL" --parallel 2
hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
soft_end
exit 0
