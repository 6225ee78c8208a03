#!/bin/bash
# bench/drain-fence.sh: does GlusterFS's own fence, `remove-brick start`, belong after a drain?
# (issue 24: "Prefer GlusterFS's own fence over force ... measure whether this closes the window")
#
#   sudo LCTL_SRCDIR=. LAYOUTCTL=./layoutctl tests/run-test.sh bench/drain-fence.sh
#
# A 4-brick distribute volume with the tests' tree (20 directories, 800 files: hard links,
# symlinks, odd names), its fourth brick drained by `layoutctl drain` (min-move) until nothing
# but directories is left on it; then, with a fresh-lookup checker running (a new gfapi client
# per round, every name looked up), `gluster volume remove-brick ... start` and its status until
# it ends. Prints what the remove-brick moved, how it ended, and how many fresh lookups found no
# file (ENOENT): every one is a file hidden from clients. Exit 0 either way: a measurement.
set -euo pipefail
# shellcheck source=../tests/integration/lib.sh
. "$LCTL_SRCDIR/tests/integration/lib.sh"
# shellcheck source=../tests/integration/tools/fix-lib.sh
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 20 800 7
fx_tree list "$MP" >"$FX/list"
LEAVE=${LCTL_BRICKS[3]}
rc=0
"$LAYOUTCTL" drain --state-dir "$FX/s" --settle 1 "$VOL" "$LCTL_HOST:$LEAVE" >"$FX/d.out" 2>&1 || rc=$?
left=$(find "$LEAVE" -path "$LEAVE/.glusterfs" -prune -o ! -type d -print | wc -l)
echo "drain: exit $rc, $left entries left on the leaving brick" >&2
fx_checker_start "$VOL" "$FX/list"
sleep 3
t0=$SECONDS
lctl_gluster volume remove-brick "$VOL" "$LCTL_HOST:$LEAVE" start >/dev/null
st=
for ((i = 0; i < 300; i++)); do
	st=$(gluster --mode=script volume remove-brick "$VOL" "$LCTL_HOST:$LEAVE" status --xml 2>/dev/null |
		xmllint --xpath 'string(//aggregate/statusStr)' - 2>/dev/null || true)
	[[ $st == completed || $st == failed || $st == stopped ]] && break
	sleep 1
done
echo "remove-brick start: $st after $((SECONDS - t0)) s" >&2
gluster --mode=script volume remove-brick "$VOL" "$LCTL_HOST:$LEAVE" status 2>&1 | tail -1 >&2 || true
sleep 5
: >"$FX/chk.stop"
wait "$FX_CHK_PID" || true
echo "fresh lookups during and after the fence: $(grep -c '^round' "$FX/chk.out" || true) rounds," \
	"$(grep -c '^ENOENT' "$FX/chk.out" || true) ENOENT" >&2
lctl_gluster volume remove-brick "$VOL" "$LCTL_HOST:$LEAVE" stop >/dev/null 2>&1 || true
exit 0
