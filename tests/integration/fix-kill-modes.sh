#!/bin/bash
# kill -9 of layoutctl fix while DHT migrates a setgid or sticky file, then `fix --resume`.
# A migration marks its source S_ISGID|S_ISVTX while it copies; killed there, the file's own
# setgid or sticky bit would be lost when the resume completes it. fix keeps the mode of such a
# file in STATE_DIR/modes before moving it and gives it back; on a 2 -> 3 brick volume with big
# files of modes 2755, 1644, 6750 and 1600:
#   - the kill lands while a source on a brick carries the marker (checked on the brick), and
#     STATE_DIR/modes holds a record for it;
#   - the resume exits 0, scan exits 0, the bricks are consistent, and every file's mode, owner
#     and checksum are what they were; STATE_DIR/modes is gone once the run is done.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
fx_init

lctl_vol_create dist 2 VOL
MP=$(lctl_mount "$VOL")
mkdir "$MP/d"
modes=(2755 1644 6750 1600)
# 16 files of 24 MiB: about a third of them move to the new brick, each for long enough
head -c $((24 << 20)) /dev/urandom >"$FX/blob"
for i in $(seq 0 15); do
	cp "$FX/blob" "$MP/d/big$i"
	printf '%s' "$i" >>"$MP/d/big$i"
	chmod "${modes[i % 4]}" "$MP/d/big$i"
done
for i in $(seq 1 50); do echo "$i" >"$MP/d/small$i"; done
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"

# a source on an old brick with both marker bits, which none of our files has of its own
marked() {
	local f
	f=$(find "${B[0]}/d" "${B[1]}/d" -maxdepth 1 -type f -perm -3000 -print -quit 2>/dev/null)
	[[ -n $f ]] && MARKED=$f
}
hs_fix_bg "$FX/fix.out" "$FX/fix.err" fix --state-dir "$S" --settle 0 --parallel 1 "$VOL"
MARKED=
for ((i = 0; i < 3000; i++)); do
	marked && break
	kill -0 "$HS_PID" 2>/dev/null || break
	sleep 0.01
done
if [[ -z $MARKED ]] || ! kill -9 "$HS_PID" 2>/dev/null; then
	wait "$HS_PID" 2>/dev/null || true
	cat "$FX/fix.out" "$FX/fix.err" >&2
	fail "the fix ended before a migration could be caught"
fi
wait "$HS_PID" 2>/dev/null || true
caught=$MARKED
m=$(stat -c %a "$caught")
echo "killed while ${caught#"${B[0]%/*}"/} had mode $m on its brick" >&2
[[ $((8#$m & 8#3000)) == $((8#3000)) ]] || fail "the marked source lost its marker: $m"
[[ -s $S/modes ]] || fail "no mode was kept in $S/modes before the migration started"
echo "kept modes: $(wc -l <"$S/modes")" >&2

hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$S" --resume --settle 0 --parallel 2 "$VOL"
cat "$FX/fix2.out" "$FX/fix2.err" >&2
assert_eq 0 "$LCTL_RC" "the resumed fix"
grep -q '"outcome":"migrated"' "$S/outcomes.jsonl" || fail "nothing was migrated"
[[ ! -e $S/modes ]] || fail "$S/modes is still there after the run ended done"
# no file anywhere on the bricks keeps the marker
for b in "${B[@]}"; do
	left=$(find "$b/d" -maxdepth 1 -type f -perm -3000 -print -quit)
	[[ -z $left ]] || fail "a file still carries the migration marker: $left ($(stat -c %a "$left"))"
done
fx_scan_after_fix "$VOL" --parallel 2
hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a mode, an owner or a checksum changed"
lctl_umount "$MP"
exit 0
