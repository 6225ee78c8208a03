#!/bin/bash
# A leaving replica set whose bricks disagree (issue 24): drain's final check reads each brick
# of the set by its own view, not only through AFR, whose directory listing comes from one
# brick. On a 2 x 2 distributed-replicate volume (self-heal daemon and client heals off, client
# quorum off, so nothing heals behind the test's back), with --brick-reads gfapi (as for
# bricks on another server: no brick folder read directly):
#   - X is made in d/ while the first brick of the leaving set is down: only the second has
#     it (its d/ blames the first);
#   (a) the first brick back, the second (with X) down: through AFR the set looks empty; the
#     drain must refuse the remove as for an unreadable listing (exit 3 from its first check,
#     or 1 from its last), the bricks stay in the volume and X stays on its brick. Before,
#     `remove-brick ... force` ran and X was gone (6526d15's binary, exit 0).
#   (b) both bricks up, X on the second only, waiting for a heal: the drain refuses or
#     migrates X; never removes it.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"

lctl_vol_create rep 2 VOL
for o in cluster.self-heal-daemon cluster.data-self-heal cluster.metadata-self-heal \
	cluster.entry-self-heal; do
	lctl_gluster volume set "$VOL" "$o" off >/dev/null || fail "volume set $o off"
done
lctl_gluster volume set "$VOL" cluster.quorum-type none >/dev/null || fail "volume set quorum-type"
B=("${LCTL_BRICKS[@]}")
leaving=$(lctl_subvol_name "$VOL" 1)
MP=$(lctl_mount "$VOL")
mkdir "$MP/d"
# a name in d/ that DHT places on the leaving set (made and removed while every brick is up)
X=
for ((i = 0; i < 200 && ${#X} == 0; i++)); do
	echo probe >"$MP/d/x$i"
	[[ ! -e ${B[3]}/d/x$i ]] || X=x$i
	rm -- "$MP/d/x$i"
done
[[ -n $X ]] || fail "no d/xN of 200 hashed to the leaving set"
DATA="the data of $X, made while ${B[2]} was down"
hs_kill_brick "$VOL" "${B[2]}"
printf '%s\n' "$DATA" >"$MP/d/$X"
hs_restart_bricks "$VOL"
[[ ! -e ${B[2]}/d/$X && -f ${B[3]}/d/$X ]] ||
	fail "X should be on ${B[3]} only: $(ls -l "${B[2]}/d" "${B[3]}/d")"

# (a) the brick holding X down: the set's AFR view (the other brick) has nothing
hs_kill_brick "$VOL" "${B[3]}"
rc=0
"$LAYOUTCTL" drain --state-dir "$FX/state-a" --settle 1 --brick-reads gfapi --commit "$VOL" \
	"$leaving" >"$FX/drain-a.out" 2>&1 || rc=$?
cat "$FX/drain-a.out" >&2
_lctl_san_check "layoutctl drain (a brick of the leaving set down)"
[[ $rc == 3 || $rc == 1 ]] || fail "drain --commit with the brick holding X down: exit $rc, not 3 or 1"
assert_contains "$(cat "$FX/drain-a.out")" "cannot tell"
[[ $(grep -c 'Running: gluster volume remove-brick' "$FX/drain-a.out") == 0 ]] ||
	fail "the remove-brick ran although a brick of the leaving set could not be read"
lctl_vol_bricks "$VOL" NOW
assert_eq "${B[*]}" "${NOW[*]}" "bricks after the refused drain"
assert_eq "$DATA" "$(cat "${B[3]}/d/$X")" "X on its brick after the refused drain"

# (b) both up again: X on one brick, waiting for a heal to the other
hs_restart_bricks "$VOL"
[[ ! -e ${B[2]}/d/$X ]] || fail "X reached ${B[2]} (a heal) before case (b)"
rc=0
"$LAYOUTCTL" drain --state-dir "$FX/state-b" --settle 1 --brick-reads gfapi --commit "$VOL" \
	"$leaving" >"$FX/drain-b.out" 2>&1 || rc=$?
cat "$FX/drain-b.out" >&2
_lctl_san_check "layoutctl drain (X waiting for a heal)"
lctl_vol_bricks "$VOL" NOW
if [[ $rc == 0 ]]; then
	assert_eq "${B[*]:0:2}" "${NOW[*]}" "bricks after the drain"
	n=0
	for b in "${B[0]}" "${B[1]}"; do
		[[ ! -f $b/d/$X ]] || { assert_eq "$DATA" "$(cat "$b/d/$X")" "X on $b"; n=$((n + 1)); }
	done
	assert_eq 2 "$n" "copies of X on the set that stays"
else
	assert_eq 1 "$rc" "drain --commit with X waiting for a heal (refused)"
	assert_eq "${B[*]}" "${NOW[*]}" "bricks after the refused drain"
	assert_eq "$DATA" "$(cat "${B[3]}/d/$X")" "X on its brick after the refused drain"
fi
assert_eq "$DATA" "$(cat "$MP/d/$X")" "X through the mount"
echo "case (b): drain exit $rc; all done after $SECONDS s" >&2
exit 0
