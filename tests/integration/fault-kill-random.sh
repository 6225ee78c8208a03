#!/bin/bash
# kill -9 of layoutctl fix at random moments (complementing fix-kill.sh's three chosen points),
# on a 3 -> 5 brick distribute volume: five runs, each killed 0.2 to 4 s after it started
# (so also while it opens the volume, writes the new volume commit hash, or walks the layout
# pass), each but the first with --resume. The seed is printed; LCTL_KILL_SEED repeats a run.
#   - after every kill: nothing stamped that was not verified (a scan --all of the volume);
#   - a fresh-lookup checker runs across all of it and never gets ENOENT;
#   - the last resume ends with exit 0, scan exits 0, the bricks are consistent and every
#     file's checksum, mode and owner are unchanged; the outcome log holds whole JSON lines.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

SEED=${LCTL_KILL_SEED:-$RANDOM}
RANDOM=$SEED
echo "kill seed: $SEED (LCTL_KILL_SEED=$SEED repeats this run)" >&2

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 500 41
hs_sums "$MP" >"$FX/sums.before"
fx_tree list "$MP" >"$FX/list"
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"
# keep the outcome logs of a failed run
lctl_on_exit '[[ -z ${LCTL_TEST_LOGDIR:-} ]] || cp -r -- "$S" "$LCTL_TEST_LOGDIR/state" 2>/dev/null || true'
fx_checker_start "$VOL" "$FX/list"

resume=()
for round in 1 2 3 4 5; do
	delay=$((RANDOM % 39 + 2))
	hs_fix_bg "$FX/fix.$round.out" "$FX/fix.$round.err" fix --state-dir "$S" "${resume[@]}" \
		--settle 1 --rate 60 --parallel 2 "$VOL"
	sleep "$((delay / 10)).$((delay % 10))"
	if ! kill -9 "$HS_PID" 2>/dev/null; then
		wait "$HS_PID" || true
		echo "round $round: the fix ended before the kill at ${delay}00 ms" >&2
		cat "$FX/fix.$round.out" "$FX/fix.$round.err" >&2
		break
	fi
	wait "$HS_PID" 2>/dev/null || true
	echo "round $round: killed after ${delay}00 ms, journal phase '$(hs_journal phase)'," \
		"$(hs_stamped_count "${B[0]}") directories stamped on ${B[0]}" >&2
	[[ -s $S/journal ]] && resume=(--resume)
	if [[ -n $(hs_journal commit) ]]; then
		hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan --all "$VOL"
		hs_json_ok "$FX/scan.json"
		hs_stamped_are_clean "$FX/scan.json" "$(hs_journal commit)" "$VOL"
	fi
done
if [[ $(hs_journal phase) != "done" ]]; then
	hs_lctl "$FX/fix.out" "$FX/fix.err" fix --state-dir "$S" "${resume[@]}" --settle 1 --parallel 2 "$VOL"
	cat "$FX/fix.out" "$FX/fix.err" >&2
	# (a kill between DHT's copy and its truncation of the source leaves a full-size
	# linkto-mode file next to the data, which fix refuses to remove: see hostile-xattrs /mig2)
	[[ $LCTL_RC == 0 ]] || soft_fail "the last fix exited $LCTL_RC: $(grep '^not-fixed' "$FX/fix.out" | head -3)"
fi
# the outcome log of runs killed at random moments holds whole JSON lines only
python3 - "$S/outcomes.jsonl" <<-'EOF' || soft_fail "the outcome log has a line that is not JSON"
	import json, sys
	for n, line in enumerate(open(sys.argv[1], "rb"), 1):
	    try:
	        json.loads(line.decode("utf-8", "strict"))
	    except ValueError:
	        print("line %d: %r" % (n, line[:200]), file=sys.stderr)
	        sys.exit(1)
EOF
sleep 1
fx_checker_stop
if ((${#HS_SOFT[@]} == 0)); then
	assert_eq "done" "$(hs_journal phase)" "journal phase at the end"
	fx_scan_after_fix "$VOL" --parallel 2
	hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
fi
MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
lctl_umount "$MP"
soft_end
exit 0
