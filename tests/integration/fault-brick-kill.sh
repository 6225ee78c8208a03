#!/bin/bash
# A brick process killed (kill -9) in the middle of a scan and of a fix, on a 3 -> 5 brick
# distribute volume:
#   - scan: does not crash, reports the subvolume down, exits 1 (never 0), valid JSON;
#   - fix: goes on with nothing it cannot verify: every directory it cannot read on every
#     subvolume is reported (not-fixed, naming the reason), the run ends with exit 1, a one-line
#     summary of the failure, and the journal says "stopped";
#   - nothing was stamped that was not verified: once the brick is back (`volume start force`),
#     every directory whose layout carries the run's commit hash on every subvolume is clean;
#   - `fix --resume` ends with exit 0, scan exits 0, and every file's checksum is unchanged;
#   - the hold (issue 26), grown to 6 bricks and the new one killed: a run with --hold-limit 3
#     says held (status), then stops resumably, "held too long", exit 1; resumed with the
#     default limit and the brick killed again, it holds, goes on by itself once the brick is
#     restarted and ends with exit 0, no file failed, every checksum unchanged;
#   - a stop while held (issue 26): resumed, the brick lost again, the run holds (status
#     held); the control file's stop ends it within 3 s, exit 1, the journal and status say
#     stopped (resumable: the next section resumes it);
#   - grown to 7 bricks, the new one killed while the data phase's last walk finishes the
#     directories held for their settle period, kept down past it, then restarted: each is done
#     again and finished, exit 0, no file failed, every checksum unchanged.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 500 23
# many small directories, so that a scan takes a few seconds (removed before the fix)
(cd "$MP" && mkdir -p many/{a,b,c,d,e,f,g,h}/{1,2,3,4,5,6,7,8,9}/{x,y,z,w})
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"
victim=${B[3]} # a new brick: the target of many migrations

# --- a scan that loses a brick half-way -------------------------------------------------------
# (through gfapi: reading the local brick folders directly, the default here, the whole scan
# takes a few tens of milliseconds, too short to kill a brick in the middle of it; the scan
# below, with the brick down from the start, reads directly)
"$LAYOUTCTL" --json scan --all --parallel 1 --brick-reads gfapi "$VOL" >"$FX/scan.json" 2>"$FX/scan.err" &
scan=$!
# kill once the scan has reported a few directories
for ((i = 0; i < 300; i++)); do
	(($(grep -o '"path":' "$FX/scan.json" 2>/dev/null | wc -l) >= 20)) && break
	kill -0 "$scan" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$scan" 2>/dev/null || fail "the scan ended before the brick could be killed"
hs_kill_brick "$VOL" "$victim"
rc=0
wait "$scan" || rc=$?
cat "$FX/scan.err" >&2
_lctl_crash_name "$rc" >/dev/null && fail "scan crashed (exit $rc)"
# 1: it saw the brick go (or it was down from the start); 3: it could not even start
[[ $rc == 1 || $rc == 3 ]] || fail "scan exited $rc with a brick killed under it"
if ((rc == 1)); then
	hs_json_ok "$FX/scan.json"
	jq -e '[.directories[] | select(.problems | index("subvolume-down") or index("unreadable"))] |
		length > 0' "$FX/scan.json" >/dev/null || fail "the scan does not report the lost brick"
fi
hs_lctl "$FX/scan2.json" "$FX/scan2.err" --json scan "$VOL"
assert_eq 1 "$LCTL_RC" "scan with a brick down"
hs_json_ok "$FX/scan2.json"
assert_eq '[]' "$(jq -c '[.directories[] | select(.layout[3].state != "down") | .path]' "$FX/scan2.json")" \
	"directories not reported down on the dead brick"
hs_restart_bricks "$VOL"
# a fresh mount: the old one reconnects to the restarted brick only after a while
lctl_umount "$MP"
MP=$(lctl_mount "$VOL")
rm -rf -- "$MP/many"
hs_sums "$MP" >"$FX/sums.before"

# --- a fix that loses a brick half-way --------------------------------------------------------
# (--hold-limit 0: no hold, what this section checks; the hold is checked at the end)
"$LAYOUTCTL" fix --state-dir "$S" --settle 1 --rate 30 --parallel 2 --hold-limit 0 "$VOL" \
	>"$FX/fix.out" 2>"$FX/fix.err" &
fix=$!
hs_wait_until 90 "$fix" eval '[[ $(hs_journal phase) == work ]] && (($(hs_stamped_count "${B[0]}") >= 3))' ||
	fail "the fix ended before the brick could be killed: $(cat "$FX/fix.out" "$FX/fix.err")"
hs_kill_brick "$VOL" "$victim"
t0=$SECONDS
rc=0
wait "$fix" || rc=$?
cat "$FX/fix.out" "$FX/fix.err" >&2
echo "the fix ended $((SECONDS - t0)) s after the kill, exit $rc" >&2
_lctl_crash_name "$rc" >/dev/null && fail "fix crashed (exit $rc)"
assert_eq 1 "$rc" "exit status of a fix that lost a brick"
assert_eq stopped "$(hs_journal phase)" "journal phase"
grep -q '^not-fixed ' "$FX/fix.out" || fail "no directory reported as not fixed"
hs_json_ok "$S/progress.json"
# a clear message: the reports name the lost subvolume as the cause
grep -qiE 'down|not connected' "$FX/fix.out" "$FX/fix.err" || soft_fail "fix does not say that a subvolume went down"
((SECONDS - t0 < 120)) || soft_fail "fix went on for $((SECONDS - t0)) s with a subvolume down"
# gfapi answers opendir("/") on a disconnected subvolume graph with ENOTDIR (and getxattr("/")
# with -1 and errno 0): the root must not be reported as "not a directory"
if grep -E '^not-fixed +/: ' "$FX/fix.out" | grep >/dev/null -cv 'down'; then
	soft_fail "the root reported for another reason than the lost subvolume: $(grep -E '^not-fixed +/: ' "$FX/fix.out")"
fi

# nothing stamped that was not verified: with every brick back, a directory whose layout
# carries the run's hash everywhere must be clean
hs_restart_bricks "$VOL"
h=$(hs_journal commit)
hs_lctl "$FX/scan3.json" "$FX/scan3.err" --json scan --all "$VOL"
hs_json_ok "$FX/scan3.json"
hs_stamped_are_clean "$FX/scan3.json" "$h" "$VOL"

# --- resume: everything clean, nothing lost --------------------------------------------------
lctl_umount "$MP"
MP=$(lctl_mount "$VOL")
hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$S" --resume --settle 1 --parallel 2 "$VOL"
cat "$FX/fix2.out" "$FX/fix2.err" >&2
assert_eq 0 "$LCTL_RC" "fix --resume after the brick came back"
assert_eq "done" "$(hs_journal phase)" "journal phase after the resume"
fx_scan_after_fix "$VOL" --parallel 2
hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
hs_secret_check "$VOL" "$FX/fix.out" "$FX/fix.err" "$FX/fix2.out" "$FX/fix2.err" "$S"

# --- the hold (issue 26): a brick lost half-way holds the run instead of failing its files ----
# grown once more (5 -> 6 bricks); the new brick, the target of many migrations, is killed
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
victim=${B[5]}
S2=$FX/state2
mkdir -p "$S2"
st_field() { hs_status "$S2" "$VOL" "$1"; }
# first with --hold-limit 3: held, then stopped, resumable, saying why
"$LAYOUTCTL" fix --state-dir "$S2" --settle 1 --rate 30 --parallel 2 --hold-limit 3 "$VOL" \
	>"$FX/hold1.out" 2>"$FX/hold1.err" &
fix=$!
hs_wait_until 90 "$fix" eval '[[ $(hs_journal phase "$S2") == work ]]' ||
	fail "the fix ended before the brick could be killed: $(cat "$FX/hold1.out" "$FX/hold1.err")"
hs_kill_brick "$VOL" "$victim"
hs_wait_until 30 "$fix" eval '[[ $(st_field .status.state) == held ]]' ||
	fail "status never said held: $(cat "$FX/hold1.out" "$FX/hold1.err")"
assert_contains "$(st_field .status.held.reason)" "does not answer"
rc=0
wait "$fix" || rc=$?
cat "$FX/hold1.out" "$FX/hold1.err" >&2
assert_eq 1 "$rc" "exit status of a run held past --hold-limit"
grep -q 'held too long' "$FX/hold1.out" || fail "the run does not say it was held too long"
assert_eq stopped "$(hs_journal phase "$S2")" "journal phase after the hold limit"
# a stop while held: resumed with the brick back, the brick lost again once the run works
hs_restart_bricks "$VOL"
"$LAYOUTCTL" fix --state-dir "$S2" --resume --settle 1 --rate 30 --parallel 2 "$VOL" \
	>"$FX/hold-stop.out" 2>"$FX/hold-stop.err" &
fix=$!
hs_wait_until 90 "$fix" eval '[[ $(st_field .status.state) == running ]] && (($(st_field .status.directories.done) >= 3))' ||
	fail "the resumed fix ended before the brick could be killed: $(cat "$FX/hold-stop.out" "$FX/hold-stop.err")"
hs_kill_brick "$VOL" "$victim"
hs_wait_until 30 "$fix" eval '[[ $(st_field .status.state) == held ]]' ||
	fail "the resumed run never said held: $(cat "$FX/hold-stop.out" "$FX/hold-stop.err")"
t0=$(date +%s%N)
printf 'stop\n' >"$S2/control"
while kill -0 "$fix" 2>/dev/null; do
	(($(date +%s%N) - t0 < 30000000000)) || fail "the held run still runs 30 s after stop"
	sleep 0.05
done
t1=$(date +%s%N)
rc=0
wait "$fix" || rc=$?
cat "$FX/hold-stop.out" "$FX/hold-stop.err" >&2
echo "stop while held: the run ended $(((t1 - t0) / 1000000)) ms after it" >&2
(((t1 - t0) <= 3000000000)) || fail "stop while held: $(((t1 - t0) / 1000000)) ms to end (at most 3 s)"
assert_eq 1 "$rc" "exit status of a run stopped while held"
assert_eq stopped "$(hs_journal phase "$S2")" "journal phase after a stop while held"
assert_eq stopped "$(st_field .status.state)" "status after a stop while held"
# then resumed with the default limit, the brick lost again and restarted while it is held:
# the run goes on by itself and ends clean, no file failed
hs_restart_bricks "$VOL"
"$LAYOUTCTL" fix --state-dir "$S2" --resume --settle 1 --rate 30 --parallel 2 "$VOL" \
	>"$FX/hold2.out" 2>"$FX/hold2.err" &
fix=$!
hs_wait_until 90 "$fix" eval '[[ $(st_field .status.state) == running ]] && (($(st_field .status.directories.done) >= 3))' ||
	fail "the resumed fix ended before the brick could be killed: $(cat "$FX/hold2.out" "$FX/hold2.err")"
hs_kill_brick "$VOL" "$victim"
hs_wait_until 30 "$fix" eval '[[ $(st_field .status.state) == held ]]' ||
	fail "status never said held after the second kill: $(cat "$FX/hold2.out" "$FX/hold2.err")"
sleep 2
kill -0 "$fix" 2>/dev/null || fail "the held run ended: $(cat "$FX/hold2.out" "$FX/hold2.err")"
hs_restart_bricks "$VOL"
rc=0
wait "$fix" || rc=$?
cat "$FX/hold2.out" "$FX/hold2.err" >&2
# the failed files and why, for a failure's log
jq -c 'select(.outcome == "failed")' "$S2/outcomes.jsonl" >&2 || true
# why, on the FAIL line itself (CI shows a failed test's FAIL lines and little else)
((rc == 0)) || fail "exit status $rc of a run held while a brick was restarted: $(
	{ grep -ahE '^(not-fixed|stopped|layoutctl: error)' "$FX/hold2.out" "$FX/hold2.err"
	  jq -c 'select(.outcome == "failed") | [.path, .reason, .error]' "$S2/outcomes.jsonl"; } 2>/dev/null |
		head -4 | tr '\n' '|')"
assert_eq 0 "$(jq -s '[.[] | select(.outcome == "failed")] | length' "$S2/outcomes.jsonl")" \
	"files failed in the held runs"
lctl_umount "$MP"
MP=$(lctl_mount "$VOL")
fx_scan_after_fix "$VOL" --parallel 2
hs_sums "$MP" >"$FX/sums.held"
assert_files_equal "$FX/sums.before" "$FX/sums.held" "a file changed or went missing in the held runs"

# --- a brick lost while the data phase's last walk finishes its held directories -------------
# grown once more (6 -> 7); a data-phase directory with files to move is made dirty and held
# for its settle period (20 s here); once the data walk is over, the last walk finishes the
# held ones. The new brick, their target, is killed then and kept down past their settle
# period: each is done again once the brick is back, held once more, and finished by that
# walk (before: held once more and never finished, "stopped before it was finished", exit 1).
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
victim=${B[6]}
S3=$FX/state3
mkdir -p "$S3"
"$LAYOUTCTL" fix --state-dir "$S3" --settle 20 --parallel 2 "$VOL" >"$FX/last.out" 2>"$FX/last.err" &
fix=$!
hs_wait_until 120 "$fix" eval '[[ $(hs_status "$S3" "$VOL" .status.phase) == data ]]' ||
	fail "the fix ended before its data phase: $(cat "$FX/last.out" "$FX/last.err")"
# the data walk is over, only directories held for their settle period left (status says so)
hs_wait_until 120 "$fix" eval '[[ $(hs_status "$S3" "$VOL" .status.directories.settling_only) == true ]]' ||
	fail "the run ended with no directory held at the end of its data walk: $(cat "$FX/last.out" "$FX/last.err")"
hs_kill_brick "$VOL" "$victim"
sleep 22 # past every held directory's settle period, the brick down
kill -0 "$fix" 2>/dev/null || fail "the run ended while the brick was down: $(cat "$FX/last.out" "$FX/last.err")"
hs_restart_bricks "$VOL"
rc=0
wait "$fix" || rc=$?
cat "$FX/last.out" "$FX/last.err" >&2
((rc == 0)) || fail "exit status $rc of a run whose last walk lost a brick: $(
	grep -ahE '^(not-fixed|stopped|layoutctl: error)' "$FX/last.out" "$FX/last.err" | head -3 | tr '\n' '|')"
assert_eq 0 "$(jq -s '[.[] | select(.outcome == "failed")] | length' "$S3/outcomes.jsonl")" \
	"files failed in a run whose last walk lost a brick"
lctl_umount "$MP"
MP=$(lctl_mount "$VOL")
fx_scan_after_fix "$VOL" --parallel 2
hs_sums "$MP" >"$FX/sums.last"
assert_files_equal "$FX/sums.before" "$FX/sums.last" "a file changed or went missing when the last walk lost a brick"
soft_end
exit 0
