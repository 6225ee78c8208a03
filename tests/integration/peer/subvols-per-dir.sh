#!/bin/bash
# GlusterFS's tests/bugs/distribute/bug-884455.t re-written for layoutctl (issue 28): a 2-brick
# distribute volume with cluster.subvols-per-directory 2, directories dir1..dir10, one brick
# added, a lookup of every directory (`ls -l`), then the rebalance; afterwards no two bricks may
# hold the same layout of "/" or of any dirN (the bug gave two bricks overlapping ranges). Here
# each directory also holds a few files (the original's are empty), and after the fix: every
# file's md5 (and mode, size, ...) through a fresh FUSE mount as before, and `layoutctl scan`
# exit 0 with 100 % lookup-optimize coverage; each directory's layout spans exactly 2 bricks.
# PEER_ENGINE=gluster runs the original's `rebalance start force` instead (bench/).
# shellcheck disable=SC2317 # the checks are functions that pk_check calls
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/peer-lib.sh"
require_cmd jq
fx_init
pk_init

lctl_vol_create dist 2 VOL
lctl_gluster volume set "$VOL" cluster.subvols-per-directory 2 >/dev/null
MP=$(lctl_mount "$VOL")
for d in $(seq 1 10); do
	mkdir "$MP/dir$d"
	for i in $(seq 1 6); do head -c $((512 * i)) /dev/urandom >"$MP/dir$d/f$i"; done
done
pk_manifest "$VOL" "$PK/before"
lctl_vol_add_bricks "$VOL" 1
sleep 2
ls -l "$MP" >/dev/null
pk_step "rebalance (2 -> 3 bricks, subvols-per-directory 2)"
pk_rebalance "$VOL"

# the original's get_layout: the three bricks' trusted.glusterfs.dht values all differ
layouts_differ() {
	local b v vals=()
	for b in "${LCTL_BRICKS[@]}"; do
		v=$(brick_xattr_hex "$b" "$1" trusted.glusterfs.dht) || v=
		vals+=("$v")
	done
	printf '%s\n' "${vals[@]}"
	[[ ${vals[0]} != "${vals[1]}" && ${vals[0]} != "${vals[2]}" && ${vals[1]} != "${vals[2]}" ]]
}
# each layout gives ranges to 2 bricks, 0-0 to the third
spans_two() {
	local n
	n=$(pk_layouts "$VOL" "$1" | awk '$2 != "-" && !($2 == "00000000" && $3 == "00000000")' | grep -c .)
	pk_layouts "$VOL" "$1"
	pk_eq "bricks with a range in /$1" 2 "$n"
}
for d in "" dir{1..10}; do
	pk_check "bug-884455.t: the 3 layouts of /$d differ" layouts_differ "$d"
done
for d in dir{1..10}; do
	pk_check "subvols-per-directory 2: /$d has ranges on 2 bricks" spans_two "$d"
done
pk_same_tree "$VOL" "$PK/before"
pk_scan_clean "$VOL"
pk_finish
