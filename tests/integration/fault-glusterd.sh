#!/bin/bash
# The volfile server going away and coming back in the middle of a fix ("glusterd restarted"),
# on a 3 -> 5 brick distribute volume.
#
# First layoutctl fetches its volfile through a TCP relay that the test owns
# (tools/tcpproxy.py, -s 127.0.0.1:PORT), and the relay is killed and started again on the same
# port: its management connection drops and comes back (the bricks keep running), and while
# it is away other runs can be seen to refuse:
#   - the fix goes on and ends with exit 0; scan exits 0; the bricks are consistent; every
#     file's checksum is unchanged;
#   - while the relay is down, scan and fix (with -s pointing at it) refuse quickly with exit 3
#     and one line.
# Then glusterd itself is restarted (SIGTERM and start, the bricks keep running) in the middle
# of a second fix (after one more brick): it too ends with exit 0, and so does what follows.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 400 37
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"

PROXY=$LCTL_SRCDIR/tests/integration/tools/tcpproxy.py
PPID_=
proxy_start() { # [PORT]
	rm -f "$FX/port"
	python3 "$PROXY" "${1:-0}" 127.0.0.1 24007 "$FX/port" 2>>"$FX/proxy.err" &
	PPID_=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $FX/port ]] && break
		sleep 0.05
	done
	[[ -s $FX/port ]] || fail "the relay did not start: $(cat "$FX/proxy.err")"
	PORT=$(<"$FX/port")
}
proxy_stop() {
	kill "$PPID_" 2>/dev/null || true
	wait "$PPID_" 2>/dev/null || true
	PPID_=
}
lctl_on_exit '[[ -z $PPID_ ]] || kill "$PPID_" 2>/dev/null || true'
proxy_start
SRV=(-s "127.0.0.1:$PORT")
expect_exit 0 "$LAYOUTCTL" "${SRV[@]}" info "$VOL" >/dev/null

# --- the relay goes away mid-fix and comes back ---------------------------------------------------
hs_fix_bg "$FX/fix.out" "$FX/fix.err" "${SRV[@]}" fix --state-dir "$S" --settle 1 --rate 40 --parallel 2 "$VOL"
fix=$HS_PID
hs_wait_until 90 "$fix" eval '[[ $(hs_journal phase) == work ]] && (($(hs_stamped_count "${B[0]}") >= 3))' ||
	fail "the fix ended before the relay could be stopped: $(cat "$FX/fix.out" "$FX/fix.err")"
proxy_stop
echo "volfile server relay stopped" >&2
# while it is away: other runs cannot start, and say so in one line
t=$SECONDS
hs_lctl "$FX/o" "$FX/e" "${SRV[@]}" scan "$VOL"
assert_eq 3 "$LCTL_RC" "scan without a volfile server"
hs_one_line "$FX/e"
((SECONDS - t < 15)) || fail "scan took $((SECONDS - t)) s to give up on an unreachable server"
sleep 2
proxy_start "$PORT"
echo "volfile server relay back on port $PORT" >&2
rc=0
wait "$fix" || rc=$?
cat "$FX/fix.out" "$FX/fix.err" >&2
_lctl_crash_name "$rc" >/dev/null && fail "fix crashed (exit $rc)"
assert_eq 0 "$rc" "exit status of a fix whose volfile server restarted"
assert_eq "done" "$(hs_journal phase)" "journal phase"

proxy_stop

# --- glusterd itself restarted mid-fix -------------------------------------------------------------
# (one more brick, so there is work again; the fix talks to glusterd directly this time)
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
S=$FX/state2
mkdir -p "$S"
hs_fix_bg "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$S" --settle 1 --rate 40 --parallel 2 "$VOL"
fix=$HS_PID
hs_wait_until 90 "$fix" eval '[[ $(hs_journal phase) == work ]] && (($(hs_stamped_count "${B[0]}") >= 3))' ||
	fail "the fix ended before glusterd could be restarted: $(cat "$FX/fix2.out" "$FX/fix2.err")"
lctl_glusterd_restart
rc=0
wait "$fix" || rc=$?
cat "$FX/fix2.out" "$FX/fix2.err" >&2
_lctl_crash_name "$rc" >/dev/null && fail "fix crashed (exit $rc)"
assert_eq 0 "$rc" "exit status of a fix whose glusterd restarted"
assert_eq "done" "$(hs_journal phase)" "journal phase (glusterd restarted)"
# and a new run reaches glusterd again
expect_exit 0 "$LAYOUTCTL" info "$VOL" >/dev/null

fx_scan_after_fix "$VOL" --parallel 2
hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
lctl_umount "$MP"
soft_end
exit 0
