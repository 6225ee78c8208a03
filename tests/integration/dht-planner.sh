#!/bin/bash
# The GlusterFS planner of liblayoutctl (lctl_plan_gluster) against DHT itself: on 4-, 6- and
# 12-brick volumes, directories made through FUSE (top-level, nested, odd names) get on every
# brick exactly the trusted.glusterfs.dht value the planner computes for their path: start entry
# from the hash of the path, ranges in strcmp order of the subvolume names (client-10 before
# client-2), weights from the bricks' sizes, commit word = volume hash (0 here) with
# lookup-optimize on, 1 with it off. Then, after a rebalance, new directories carry the new
# volume commit hash.
# Drain (issue 17): on the 4-brick volume, one brick added (older directories not yet made on
# it, newer ones over all 5), then `gluster volume remove-brick VOL BRICK start` of another:
# once it completed, every directory's ranges on every brick are exactly the ones
# `layoutctl drain --layout gluster` plans (dhtmodel drain: the drain's own inspection), and
# GlusterFS's commit word is the volume hash it already had (remove-brick reuses it). The bricks
# share one filesystem: equal weights, so DHT's fix-layout maximises the overlap with the old
# ranges (with unequal sizes it does not; that case was checked once by hand, docs/design.md).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/dhtmodel-build.sh"
require_cmd gcc pkg-config nm

T0=$SECONDS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lctl-planner.XXXXXX")
lctl_on_exit rm -rf -- "$WORK"
TOOL=$WORK/dhtmodel
dhtmodel_build "$TOOL"

# 24 directories: top level, nested (the key is the full path), blanks, UTF-8, dots
DIRS=()
for i in $(seq 1 12); do DIRS+=("/d$i"); done
DIRS+=(/d1/a /d1/a/b /d1/a/b/c /d2/x "/d3/with space" $'/d4/caf\xc3\xa9' $'/\xe6\x97\xa5\xe6\x9c\xac'
	/.hidden.dir.AbC123 /.x.y /d5/.foo.txt.AbC123 /UPPER /0)

# check_dirs VOL MOUNT DIR...: mkdir each DIR through MOUNT, then compare every brick's layout
# with the planner's, 0 mismatches
check_dirs() {
	local vol=$1 mp=$2 n i d p s v got mism=0 count=0 br=() names=()
	local -A plan=()
	shift 2
	# plain distribute: DHT child i is brick i, "VOL-client-i" (one gluster CLI call)
	lctl_vol_bricks "$vol" br
	n=${#br[@]}
	for ((i = 0; i < n; i++)); do names+=("$vol-client-$i"); done
	for d; do mkdir -- "$mp$d"; done
	"$TOOL" plan "$vol" "$@" >"$WORK/plan" || fail "dhtmodel plan $vol failed"
	head -n 1 "$WORK/plan" >&2
	while IFS=$'\t' read -r p s v; do
		plan["$p"$'\t'"$s"]=$v
	done < <(tail -n +2 "$WORK/plan")
	for d; do
		for ((i = 0; i < n; i++)); do
			got=$(brick_xattr_hex "${br[i]}" "$d" trusted.glusterfs.dht) || got=none
			v=${plan["$d"$'\t'"${names[i]}"]:-none}
			count=$((count + 1))
			if [[ $got != "$v" ]]; then
				mism=$((mism + 1))
				printf 'MISMATCH %s %q %s: brick %s, planner %s\n' "$vol" "$d" "${names[i]}" \
					"$got" "$v" >&2
			fi
		done
	done
	printf '%s: %s directories x %s subvolumes: %s layouts compared, %s mismatches\n' \
		"$vol" "$#" "$n" "$count" "$mism" >&2
	((count == $# * n)) || fail "compared $count layouts, expected $(($# * n))"
	((mism == 0)) || fail "$mism layouts differ from the planner on $vol"
}

# check_drain VOL LEAVE DIR...: remove-brick start of DHT child LEAVE (not committed); the
# ranges DHT wrote to each DIR and "/" on every brick against the drain's plan made before it
check_drain() {
	local vol=$1 leave=$2 n i d p s v got h mism=0 count=0 br=() names=() dirs
	local -A plan=()
	shift 2
	dirs=("$@" /)
	lctl_vol_bricks "$vol" br
	n=${#br[@]}
	for ((i = 0; i < n; i++)); do names+=("$vol-client-$i"); done
	"$TOOL" drain "$vol" "${names[leave]}" "${dirs[@]}" >"$WORK/drain" ||
		fail "dhtmodel drain $vol failed"
	head -n 1 "$WORK/drain" >&2
	while IFS=$'\t' read -r p s v; do
		plan["$p"$'\t'"$s"]=$v
	done < <(tail -n +2 "$WORK/drain")
	# the volume hash, "N\0" in decimal on the brick roots
	h=$(getfattr -h --absolute-names --only-values -n trusted.glusterfs.dht.commithash \
		-- "${br[0]}" 2>/dev/null | tr -d '\0') || fail "no volume commit hash on $vol"
	h=0x$(printf '%08x' "$h")
	lctl_vol_remove_start "$vol" "${br[leave]}"
	lctl_wait_remove_complete "$vol" "${br[leave]}"
	for d in "${dirs[@]}"; do
		for ((i = 0; i < n; i++)); do
			got=$(brick_xattr_hex "${br[i]}" "$d" trusted.glusterfs.dht) || got=none
			v=${plan["$d"$'\t'"${names[i]}"]:-none}
			count=$((count + 1))
			# type, start, stop; the drain writes commit 1 first and stamps its own hash later
			if [[ ${got:10} != "${v:10}" || $v == none ]]; then
				mism=$((mism + 1))
				printf 'MISMATCH remove-brick %s %q %s: brick %s, drain plan %s\n' "$vol" "$d" \
					"${names[i]}" "$got" "$v" >&2
			elif [[ ${got:0:10} != "$h" ]]; then
				mism=$((mism + 1))
				printf 'COMMIT %s %q %s: brick %s, volume hash %s\n' "$vol" "$d" "${names[i]}" \
					"$got" "$h" >&2
			fi
		done
	done
	printf '%s: remove-brick of %s: %s layouts compared, %s mismatches\n' "$vol" \
		"${names[leave]}" "$count" "$mism" >&2
	((count == ${#dirs[@]} * n)) || fail "compared $count layouts, expected $((${#dirs[@]} * n))"
	((mism == 0)) || fail "$mism layouts differ from the drain's plan after remove-brick on $vol"
}

for n in 4 6 12; do
	t=$SECONDS
	lctl_vol_create dist "$n" VOL
	lctl_mount "$VOL" MP
	check_dirs "$VOL" "$MP" "${DIRS[@]}"
	if ((n == 6)); then
		# lookup-optimize off: new directories get commit 1 (a fresh mount reads the new volfile)
		lctl_gluster volume set "$VOL" cluster.lookup-optimize off >/dev/null
		lctl_mount "$VOL" MP2
		check_dirs "$VOL" "$MP2" /off1 /off2 /off3 /d1/off4 $'/off\xc3\xa9'
		v=$(brick_xattr_hex "$(lctl_brick_of_subvol "$VOL" 0)" /off1 trusted.glusterfs.dht)
		[[ $v == 0x00000001* ]] || fail "lookup-optimize off: commit word is not 1: $v"
		lctl_umount "$MP2"
	fi
	if ((n == 4)); then
		# after a rebalance the volume has a commit hash, and new directories carry it
		lctl_rebalance "$VOL"
		lctl_mount "$VOL" MP2
		check_dirs "$VOL" "$MP2" /after1 /after2 /d1/after3 /d2/x/after4
		v=$(brick_xattr_hex "$(lctl_brick_of_subvol "$VOL" 0)" /after1 trusted.glusterfs.dht)
		[[ $v != 0x00000000* && $v != 0x00000001* ]] || fail "no commit hash after rebalance: $v"
		lctl_umount "$MP2"
		# a drain after an add-brick: the new brick lacks the older directories (DHT's
		# remove-brick makes them there before it fixes their layouts)
		t2=$SECONDS
		lctl_vol_add_bricks "$VOL" 1
		lctl_mount "$VOL" MP2
		for d in /new1 /d1/new2 $'/new\xc3\xa9'; do mkdir -- "$MP2$d"; done
		check_drain "$VOL" 1 "${DIRS[@]}" /after1 /after2 /d1/after3 /d2/x/after4 \
			/new1 /d1/new2 $'/new\xc3\xa9'
		lctl_umount "$MP2"
		printf 'drain section: %s s\n' $((SECONDS - t2)) >&2
	fi
	lctl_umount "$MP"
	printf '%s bricks: %s s\n' "$n" $((SECONDS - t)) >&2
done
printf 'dht-planner: %s s\n' $((SECONDS - T0)) >&2
exit 0
