#!/bin/bash
# The brick credentials of the trusted client volfile (option username / option password, the
# password also in the bricks' own volfiles as auth.login.USER.password) never reach gfapi's
# log file: gfapi dumps every graph it builds there ("Final graph", from level 5, warnings,
# up: not only in debug logs) and, at level 9, its parser logs every option. With --log-file
# at level 5, 7 and 9 (the highest) for scan, and 9 for info and fix --dry-run, the log holds
# the graph dumps with the values redacted, and neither credential. And a command that opens
# a volume is not dumpable (no core file, no ptrace or /proc/PID/mem by other users) while it
# runs, with core files off (RLIMIT_CORE 0).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd gdb

lctl_vol_create dist 2 VOL
W=$(mktemp -d "${TMPDIR:-/tmp}/lctl-secrets.XXXXXX")
lctl_on_exit rm -rf -- "$W"

pw=$(awk '$1 == "option" && $2 ~ /^auth\.login\..*\.password$/ { print $3; exit }' \
	/var/lib/glusterd/vols/"$VOL"/*.vol)
user=$(awk '$1 == "option" && $2 == "username" { print $3; exit }' \
	/var/lib/glusterd/vols/"$VOL"/trusted-"$VOL".tcp-fuse.vol)
[[ -n $pw && -n $user ]] || fail "no brick credentials in /var/lib/glusterd/vols/$VOL"
grep -q -- "option password $pw" /var/lib/glusterd/vols/"$VOL"/trusted-"$VOL".tcp-fuse.vol ||
	fail "the trusted client volfile has another password than the bricks"

# run01 ARGS...: layoutctl ARGS exits 0 or 1 (a fresh volume's root is not stamped)
run01() {
	run_mayfail "$LAYOUTCTL" "$@"
	((LCTL_RC <= 1)) || fail "exit status $LCTL_RC: layoutctl ${*@Q}"
}
check_log() { # check_log FILE WHAT
	[[ -s $1 ]] || fail "$2: gfapi wrote no log"
	if grep -naF -e "$pw" -e "$user" "$1" >&2; then
		fail "$2: the brick credentials are in the gfapi log $1"
	fi
	grep -q 'Final graph' "$1" || fail "$2: no graph dump in the gfapi log (nothing to redact?)"
	grep -qE 'option password <redacted>' "$1" || fail "$2: the password option is not shown redacted"
}
for level in 5 7 9; do
	run01 --log-file "$W/scan.$level.log" --gfapi-log-level "$level" scan "$VOL"
	check_log "$W/scan.$level.log" "scan at gfapi log level $level"
done
grep -qE 'Option:.*:password:<redacted>' "$W/scan.9.log" || fail "no parser trace at level 9"
run01 --log-file "$W/info.log" --gfapi-log-level 9 info "$VOL"
check_log "$W/info.log" "info"
run01 --log-file "$W/fix.log" --gfapi-log-level 9 fix --dry-run \
	--state-dir "$W/state" "$VOL"
check_log "$W/fix.log" "fix --dry-run"
# the log file is the user's: appended to, 0600 when we create it
n=$(grep -c 'Final graph' "$W/fix.log")
run01 --log-file "$W/fix.log" --gfapi-log-level 5 fix --dry-run --state-dir "$W/state" "$VOL"
(($(grep -c 'Final graph' "$W/fix.log") > n)) || fail "the gfapi log was not appended to"
[[ $(stat -c %a "$W/scan.9.log") == 600 ]] || fail "gfapi log mode $(stat -c %a "$W/scan.9.log")"

# not dumpable while it runs (asked inside it: PR_GET_DUMPABLE through gdb; /proc does not
# say), and no core files: a fix waits --settle seconds once the volume is open (its journal
# written)
"$LAYOUTCTL" fix --settle 30 --state-dir "$W/state2" "$VOL" >"$W/bg.out" 2>"$W/bg.err" &
pid=$!
for ((i = 0; i < 300; i++)); do
	[[ -s $W/state2/journal ]] && break
	kill -0 "$pid" 2>/dev/null || { cat "$W/bg.err" >&2; fail "the fix ended early"; }
	sleep 0.1
done
[[ -s $W/state2/journal ]] || fail "the fix did not start"
out=$(timeout 60 gdb -q -batch -p "$pid" -ex 'print (int)prctl(3, 0, 0, 0, 0)' 2>&1) || true
dumpable=$(sed -n 's/^\$1 = //p' <<<"$out")
limits=$(cat "/proc/$pid/limits")
kill -INT "$pid"
wait "$pid" || true
# some machines' kernels refuse gdb's call into a process ("Couldn't write extended state
# status", its XSAVE area): there the question cannot be asked, which is not a failure of ours
if [[ -z $dumpable && $out == *"Couldn't write extended state"* ]]; then
	echo "secrets: gdb cannot call into a process on this machine: PR_GET_DUMPABLE not asked" >&2
else
	[[ $dumpable == 0 ]] || fail "the fix was dumpable while it ran (PR_GET_DUMPABLE: '$dumpable')"
fi
grep -qE '^Max core file size +0 +0 ' <<<"$limits" ||
	fail "core files are on: $(grep core <<<"$limits")"
exit 0
