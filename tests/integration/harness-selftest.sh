#!/bin/bash
# tests/integration/harness-selftest.sh: the volume harness and the test helpers, against the
# real glusterd: volumes of each kind, add/remove bricks, rebalance, mount, brick snapshots,
# run_* helpers, teardown of exactly our own volumes (also on failure and on SIGTERM), and
# lctl_cleanup_stale after an owner was killed with SIGKILL.
. "$LCTL_SRCDIR/tests/integration/lib.sh"

lib=$LCTL_SRCDIR/tests/integration/lib.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/lctl-selftest.XXXXXX")
lctl_on_exit rm -rf -- "$work"

# gone VOL: the volume, its state file, mounts and temp folder are all gone.
gone() {
	! lctl_gluster volume info "$1" >/dev/null 2>&1 || fail "volume $1 still exists"
	[[ ! -e $LCTL_STATE_DIR/$1 ]] || fail "state file of $1 still exists"
	[[ -z $(_lctl_vol_mounts "$1") ]] || fail "volume $1 is still mounted"
	[[ -z $(_lctl_vol_roots "$1") ]] || fail "temp folder of $1 still exists: $(_lctl_vol_roots "$1")"
}

# wait_file FILE: until a background child wrote FILE.
wait_file() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -s $1 ]] && return
		sleep 0.2
	done
	fail "no $1 after 60s"
}

# files_on BRICK: number of data files on a brick (without DHT link files and .glusterfs).
files_on() {
	find "$1" -path "$1/.glusterfs" -prune -o -type f ! -perm -1000 -print | wc -l
}

# --- volumes of each kind -------------------------------------------------------------------
lctl_vol_create dist 2 DIST
dist_bricks=("${LCTL_BRICKS[@]}")
assert_eq Distribute "$(lctl_vol_field "$DIST" typeStr)"
assert_eq Started "$(lctl_vol_field "$DIST" statusStr)"
assert_eq 2 "$(lctl_vol_field "$DIST" brickCount)"
mapfile -t info_bricks < <(lctl_gluster volume info "$DIST" | sed -n 's/^Brick[0-9]*: [^:]*://p')
assert_eq "${info_bricks[*]}" "${dist_bricks[*]}" "LCTL_BRICKS is not in 'volume info' order"
[[ $DIST == "$LCTL_PREFIX$$"_* ]] || fail "volume name $DIST lacks prefix and pid"
for b in "${dist_bricks[@]}"; do
	brick_xattr_hex "$b" / trusted.glusterfs.volume-id >/dev/null || fail "brick $b has no volume-id"
done
! brick_xattr_hex "${dist_bricks[0]}" / trusted.lctl.nonexistent || fail "brick_xattr_hex found a missing xattr"
assert_eq 2 "$(lctl_subvol_count "$DIST")"
assert_eq "$DIST-client-1" "$(lctl_subvol_name "$DIST" 1)"
assert_eq "${dist_bricks[1]}" "$(lctl_brick_of_subvol "$DIST" 1)"

lctl_vol_create rep 1 REP
rep_bricks=("${LCTL_BRICKS[@]}")
assert_eq Replicate "$(lctl_vol_field "$REP" typeStr)"
assert_eq 2 "$(lctl_vol_field "$REP" replicaCount)"
assert_eq 2 "${#rep_bricks[@]}"
assert_eq 1 "$(lctl_subvol_count "$REP")"
assert_eq "$REP-replicate-0" "$(lctl_subvol_name "$REP" 0)"
assert_eq "${rep_bricks[*]}" "$(lctl_subvol_bricks "$REP" 0 | paste -sd' ')"

lctl_vol_create disp 1 DISP
# shellcheck disable=SC2153 # lctl_vol_create assigns DISP (printf -v)
assert_eq Disperse "$(lctl_vol_field "$DISP" typeStr)"
assert_eq 3 "$(lctl_vol_field "$DISP" disperseCount)"
assert_eq 1 "$(lctl_vol_field "$DISP" redundancyCount)"
assert_eq "$DISP-disperse-0" "$(lctl_subvol_name "$DISP" 0)"
lctl_vol_destroy "$DISP"
gone "$DISP"

# --- mount, write, add a brick, rebalance, remove it ------------------------------------------
MP=$(lctl_mount "$DIST")
for i in $(seq 1 60); do
	echo "file $i" >"$MP/f$i"
done
n0=$(files_on "${dist_bricks[0]}") n1=$(files_on "${dist_bricks[1]}")
((n0 > 0 && n1 > 0 && n0 + n1 == 60)) || fail "files not spread over both bricks: $n0 + $n1"

lctl_vol_add_bricks "$DIST" 1
assert_eq 3 "$(lctl_vol_field "$DIST" brickCount)"
assert_eq 1 "${#LCTL_NEW_BRICKS[@]}"
new=${LCTL_NEW_BRICKS[0]}
assert_eq "${dist_bricks[*]} $new" "${LCTL_BRICKS[*]}"
lctl_rebalance "$DIST" fix-layout
lctl_rebalance "$DIST"
(($(files_on "$new") > 0)) || fail "rebalance moved nothing to the new brick $new"

lctl_vol_remove_bricks "$DIST" "$new"
assert_eq 2 "$(lctl_vol_field "$DIST" brickCount)"
assert_eq "${dist_bricks[*]}" "${LCTL_BRICKS[*]}"
assert_eq 0 "$(files_on "$new")" "data left on the removed brick"
for i in $(seq 1 60); do
	assert_eq "file $i" "$(<"$MP/f$i")"
done

# --- brick_snapshot ---------------------------------------------------------------------------
brick_snapshot "${dist_bricks[@]}" >"$work/before"
grep -q $'^./f1\t-rw' "$work/before" || fail "brick_snapshot lacks f1"
grep -q $'trusted.glusterfs.dht=0x' "$work/before" || fail "brick_snapshot lacks the layout xattr"
! grep -q 'trusted.glusterfs.mdata' "$work/before" || fail "brick_snapshot keeps the time xattr"
ls -lR "$MP" >/dev/null
cat "$MP"/f* >/dev/null
brick_snapshot "${dist_bricks[@]}" >"$work/after"
assert_unchanged "$work/before" "$work/after" "reading the volume changed the bricks"
setfattr -n trusted.lctl.selftest -v 1 "${dist_bricks[0]}/f1" 2>/dev/null ||
	setfattr -n trusted.lctl.selftest -v 1 "${dist_bricks[1]}/f1"
brick_snapshot "${dist_bricks[@]}" >"$work/changed"
! diff -q "$work/before" "$work/changed" >/dev/null || fail "brick_snapshot missed a new xattr"
chmod 600 "$MP/f2"
brick_snapshot "${dist_bricks[@]}" >"$work/changed2"
! diff -q "$work/changed" "$work/changed2" >/dev/null || fail "brick_snapshot missed a mode change"

# --- run_* helpers ----------------------------------------------------------------------------
run_check true
out=$(run_check echo hello)
assert_eq hello "$out"
run_mustfail "false fails" false
run_mayfail false
assert_eq 1 "$LCTL_RC"
expect_exit 3 bash -c 'exit 3'
# each of these must fail the (sub)test: exit 1
for bad in 'run_check false' 'run_mustfail "must fail" true' \
	'run_mustfail "crash" bash -c "kill -SEGV \$\$"' 'run_mayfail bash -c "kill -ABRT \$\$"' \
	'run_mustfail "not found" /nonexistent/cmd' 'expect_exit 2 true' 'assert_eq a b' \
	'assert_contains abc x'; do
	rc=0
	(eval "$bad") 2>/dev/null || rc=$?
	assert_eq 1 "$rc" "'$bad' did not fail the test"
done

# --- teardown of exactly our volumes when a test fails -----------------------------------------
mkdir "$work/child-logs"
rc=0
LCTL_TEST_LOGDIR=$work/child-logs bash -c '
	trap "echo prev >>\"$1\"" EXIT
	. "$0"
	lctl_on_exit "echo first >>\"$1\""
	lctl_on_exit sh -c "echo second >>\"\$1\"" sh "$1"
	lctl_vol_create dist 1 V
	M=$(lctl_mount "$V")
	echo hi >"$M/x"
	echo "$V" >"$2"
	exit 3' "$lib" "$work/order" "$work/child-vol" || rc=$?
assert_eq 3 "$rc" "the child's exit status was lost"
child=$(<"$work/child-vol")
gone "$child"
assert_eq "second first prev" "$(paste -sd' ' "$work/order")" "lctl_on_exit order"
compgen -G "$work/child-logs/gluster/$child/*-b1.log" >/dev/null || fail "brick log of failed $child not kept"
for v in "$DIST" "$REP"; do
	assert_eq Started "$(lctl_vol_field "$v" statusStr)" "the child touched $v"
done

# --- SIGTERM during a test ----------------------------------------------------------------------
mkdir "$work/term-logs"
LCTL_TEST_LOGDIR=$work/term-logs \
	bash -c '. "$0"; lctl_vol_create dist 1 V; echo "$V" >"$1"; while :; do sleep 0.1; done' \
	"$lib" "$work/term-vol" &
pid=$!
wait_file "$work/term-vol"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
assert_eq 143 "$rc"
gone "$(<"$work/term-vol")"

# --- stale volumes: owner killed with SIGKILL, no state file, another prefix ----------------------
bash -c '. "$0"; lctl_vol_create rep 1 V; M=$(lctl_mount "$V"); echo "$V" >"$1"; exec sleep 600' \
	"$lib" "$work/killed-vol" &
pid=$!
LCTL_PREFIX=lctlother_ bash -c '. "$0"; lctl_vol_create dist 1 V; echo "$V" >"$1"; exec sleep 600' \
	"$lib" "$work/other-vol" &
pid2=$!
wait_file "$work/killed-vol"
wait_file "$work/other-vol"
kill -KILL "$pid" "$pid2"
wait "$pid" "$pid2" || true
killed=$(<"$work/killed-vol") other=$(<"$work/other-vol")
[[ -n $(_lctl_vol_mounts "$killed") ]] || fail "the killed child's mount is not there"
# a volume with our name pattern but no state file (e.g. the state folder was lost)
orphan=${LCTL_PREFIX}4194305_1
base=$_LCTL_BASE
oroot=$(mktemp -d "$base/$orphan.XXXXXX")
lctl_gluster volume create "$orphan" "$LCTL_HOST:$oroot/b1" force >/dev/null
lctl_gluster volume start "$orphan" >/dev/null

lctl_cleanup_stale
gone "$killed"
gone "$orphan"
assert_eq Started "$(lctl_vol_field "$other" statusStr)" "cleanup took a volume of another prefix"
for v in "$DIST" "$REP"; do
	assert_eq Started "$(lctl_vol_field "$v" statusStr)" "cleanup took the live volume $v"
done
lctl_cleanup_stale lctlother_
gone "$other"
echo "harness selftest passed"
