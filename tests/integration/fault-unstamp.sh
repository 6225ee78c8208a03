#!/bin/bash
# A directory that changes while it is stamped must be marked dirty again; when that write
# fails, fix must not report it "left dirty": it is still stamped, and unsafe.
#
# The fault is injected at gfapi (tools/faultxattr.c, LD_PRELOAD into layoutctl): right after
# the stamp of /p reaches the first brick, a file appears in /p on both bricks (a duplicate,
# as a client with an old layout can leave), so the check after the stamp finds /p unsafe;
# and every later write of commit word 1 to /p fails with EROFS, as on a brick whose file
# system went read-only. (Killing a brick between the stamp and its check cannot be timed.)
#   - fix exits 1 and reports /p not fixed, "stamped but unsafe", naming the error;
#   - which is what the bricks hold: /p carries the run's commit hash on both.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
fx_preload faultxattr

lctl_vol_create dist 2 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
mkdir "$MP/p"
for i in $(seq 1 10); do echo "$i" >"$MP/p/f$i"; done
lctl_umount "$MP"

export FAULT_DIR=/p
export FAULT_CMD="echo dup >'${B[0]}/p/dup' && echo dup >'${B[1]}/p/dup'"
LD_PRELOAD="$FX_PRELOAD" fx_fix "$VOL" --settle 0
unset FAULT_DIR FAULT_CMD
[[ -e ${B[0]}/p/dup ]] || fail "the fault was not injected (no stamp of /p seen)"
assert_eq 1 "$LCTL_RC" "fix exit status"
line=$(grep -E '^not-fixed +/p: ' "$FX/fix.out") || fail "/p is not reported not fixed"
assert_contains "$line" "stamped but unsafe"
assert_contains "$line" "Read-only file system"
h=$(fx_vol_hash "$VOL")
hx=$(printf '0x%08x' "$h")
for b in "${B[@]}"; do
	v=$(brick_xattr_hex "$b" /p trusted.glusterfs.dht) || fail "no layout on /p in $b"
	[[ $v == "$hx"* ]] || fail "/p in $b is $v, not stamped with $hx: the report is wrong"
done
echo "fault-unstamp: /p reported stamped but unsafe, as the bricks show"
