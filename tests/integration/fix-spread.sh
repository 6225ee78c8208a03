#!/bin/bash
# cluster.subvols-per-directory (issue 28; GlusterFS's tests/bugs/distribute/bug-884455.t):
# on a 3-brick distribute volume with the option at 2, DHT makes every directory over 2 of
# the 3 subvolumes (the third 0-0). Such a layout is complete: scan exits 0 on it; fix keeps
# it (the ranges on the bricks are the same before and after, only the commit words change)
# and exits 0; a directory made after the fix is still clean; the files keep their bytes.
# (Before: scan said "incomplete", fix spread every directory over 3, and the next mkdir was
# "incomplete commit-mixed" again.)
. "$LCTL_SRCDIR/tests/integration/lib.sh"

lctl_vol_create dist 3 VOL
B=("${LCTL_BRICKS[@]}")
lctl_gluster volume set "$VOL" cluster.subvols-per-directory 2 >/dev/null
T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-spread.XXXXXX")
lctl_on_exit rm -rf -- "$T"
MP=$(lctl_mount "$VOL")


mkdir "$MP/d1" "$MP/d2" "$MP/d2/sub"
for d in d1 d2 d2/sub; do
	for i in 1 2 3 4; do head -c $((i * 1000)) /dev/urandom >"$MP/$d/f$i"; done
done
(cd "$MP" && find . -type f -print0 | sort -z | xargs -0 md5sum) >"$T/sums"

# ranges DIR: "start-stop" of each brick's layout of DIR (without the commit word), one line
ranges() {
	local b h
	for b in "${B[@]}"; do
		h=$(brick_xattr_hex "$b" "$1" trusted.glusterfs.dht) || h=none
		printf '%s\n' "${h:18:8}-${h:26:8}"
	done
}
# spread_of DIR: on how many bricks DIR has a range (not 0-0)
spread_of() { ranges "$1" | grep -cv '^00000000-00000000$' || true; }

for d in / d1 d2 d2/sub; do
	assert_eq 2 "$(spread_of "$d")" "bricks with a range of '$d' as DHT made it"
	ranges "$d" >"$T/before.${d//\//_}"
done

# a directory DHT made over 2 is complete (and clean: a fresh volume has no commit hash yet)
expect_exit 0 "$LAYOUTCTL" scan --path /d2 "$VOL"
json=$("$LAYOUTCTL" --json scan "$VOL" || true)
assert_eq "" "$(jq -r '[.directories[] | select(.problems | index("incomplete"))] | map(.path) | join(" ")' <<<"$json")" \
	"directories reported incomplete"

# the fix keeps the ranges DHT chose (it stamps them) and ends clean
expect_exit 0 "$LAYOUTCTL" fix --settle 1 --state-dir "$T/state" "$VOL"
for d in / d1 d2 d2/sub; do
	ranges "$d" >"$T/after"
	diff -u "$T/before.${d//\//_}" "$T/after" >&2 || fail "fix rewrote the ranges of '$d'"
done
expect_exit 0 "$LAYOUTCTL" scan "$VOL"

# a directory made after the fix: DHT's layout over 2, the volume hash on its ranges, 0 on
# the 0-0 one; clean all the same, and a second fix leaves it as it is
stat "$MP" >/dev/null
mkdir "$MP/d3"
for i in 1 2 3; do head -c $((i * 700)) /dev/urandom >"$MP/d3/g$i"; done
(cd "$MP" && md5sum d3/g*) >>"$T/sums"
assert_eq 2 "$(spread_of d3)" "bricks with a range of d3"
ranges d3 >"$T/before.d3"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
expect_exit 0 "$LAYOUTCTL" fix --settle 1 --state-dir "$T/state" "$VOL"
ranges d3 >"$T/after"
diff -u "$T/before.d3" "$T/after" >&2 || fail "the second fix rewrote the ranges of d3"

# every file as it was, through a fresh mount
M2=$(lctl_mount "$VOL")
(cd "$M2" && md5sum --quiet -c "$T/sums") >&2 || fail "a file changed"
lctl_umount "$M2"
lctl_umount "$MP"
exit 0
