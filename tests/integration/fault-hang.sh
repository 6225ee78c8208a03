#!/bin/bash
# A GlusterFS call that never returns. GlusterFS 10.3's DHT can loop for ever in a lookup that
# meets a file another client is creating (gluster issue 3688, fixed in 11): a fix worker
# caught in one must not hold the run for ever. The hang is injected below layoutctl
# (tools/faulthang.c, LD_PRELOAD into layoutctl): every lookup, migration or linkto made on a
# brick's graph (lib/directlink.c) of a name in /h blocks for good.
#   - fix --hang-timeout 5 stops by itself: exit 3, one error line naming /h and the timeout,
#     within a minute, the other directories fixed (stamped) meanwhile;
#   - /h stays dirty on every brick (commit word 1: lookups there still ask every brick), the
#     journal is not "done";
#   - fix --resume without the fault finishes: exit 0, scan exit 0, every file where its hash
#     says with its content, none lost or doubled.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
fx_preload faulthang
journal_phase() { awk '$1 == "phase" { print $2 }' "$FX/state/journal" 2>/dev/null; }

lctl_vol_create dist 2 VOL
MP=$(lctl_mount "$VOL")
for d in a b h; do
	mkdir "$MP/$d"
	for i in $(seq 1 40); do echo "$d $i" >"$MP/$d/f$i"; done
done
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 2
B=("${LCTL_BRICKS[@]}")

t0=$SECONDS
HANG_DIR=/h HANG_MARK=$FX/hung LD_PRELOAD="$FX_PRELOAD" FX_HANG_TIMEOUT=5 \
	FX_HANG_RESUME=0 fx_fix "$VOL" --settle 0
took=$((SECONDS - t0))
[[ -e $FX/hung ]] || fail "the fault was not hit (nothing looked up or moved in /h)"
assert_eq 3 "$LCTL_RC" "fix exit status with a hung call"
((took < 60)) || fail "the run took $took s to stop after a 5 s hang timeout"
n=$(grep -c "has not returned for 5 s" "$FX/fix.out" || true)
assert_eq 1 "$n" "error lines about the hung call"
grep -q "^layoutctl: error: .*'/h' has not returned" "$FX/fix.out" || fail "the error does not name /h"
[[ $(journal_phase) != "done" ]] || fail "the journal says done after a hung run"
# /h never got its stamp: dirty on every brick
for b in "${B[@]}"; do
	v=$(brick_xattr_hex "$b" /h trusted.glusterfs.dht) || fail "no layout on /h in $b"
	[[ $v == 0x00000001* ]] || fail "/h in $b is $v: not dirty after the hung run"
done
# the others were fixed meanwhile: stamped with the run's hash
hx=$(printf '%08x' "$(awk '$1 == "commit" { print $2 }' "$FX/state/journal")")
for b in "${B[@]}"; do
	for d in a b; do
		v=$(brick_xattr_hex "$b" "/$d" trusted.glusterfs.dht) || fail "no layout on /$d in $b"
		[[ $v == "0x$hx"* ]] || fail "/$d in $b is $v, not stamped ($hx) by the hung run"
	done
done

fx_fix "$VOL" --resume
assert_eq 0 "$LCTL_RC" "fix --resume without the fault"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL"
MP=$(lctl_mount "$VOL")
for d in a b h; do
	for i in $(seq 1 40); do
		assert_eq "$d $i" "$(cat "$MP/$d/f$i")" "content of /$d/f$i"
	done
done
lctl_umount "$MP"
exit 0
