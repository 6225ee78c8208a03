#!/bin/bash
# A directory whose volume path is longer than gfapi can resolve (PATH_MAX bytes), on one brick
# of a 2-brick distribute volume only, under a stamped parent D.
#
# GlusterFS's posix translator builds a brick's real path, so its mkdir stops near PATH_MAX
# minus the brick folder's path; a brick's own folder (or a brick whose path is shorter, or a
# tree moved there by hand) can hold deeper ones. Here: a tree as deep as the FUSE mount makes it
# (D's path about 4040 bytes), then a subdirectory C (path > 4096 bytes) made on the first
# brick's folder with *at() calls, with a gfid and its .glusterfs handle, as posix would.
#
# Before: scan and fix skipped C with a warning ("path too long"), scan said clean (exit 0) and
# fix stamped D over a subdirectory missing on a brick: a hidden subtree.
#   1. scan exits 1 and reports C (its whole path) unreadable; the direct brick reader and gfapi
#      agree;
#   2. fix exits 1, reports D not fixed (C cannot be checked) and leaves D dirty (commit word 1)
#      on both bricks; C is reported not fixed.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
require_cmd jq python3
fx_init
export LC_ALL=C

lctl_vol_create dist 2 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")

# the longest volume path posix can make on every brick, less a margin
blen=0
for b in "${B[@]}"; do ((${#b} > blen)) && blen=${#b}; done
limit=$((4095 - blen - 10))
name=$(printf 'L%.0s' $(seq 1 240))
D=/deep
(
	cd "$MP" && mkdir deep && cd deep || exit 1
	p=$D
	while ((${#p} + 1 + ${#name} <= limit)); do
		mkdir "$name" && cd "$name" || exit 1
		p+=/$name
	done
	last=$(printf 'E%.0s' $(seq 1 $((limit - ${#p} - 1))))
	mkdir "$last" && cd "$last" && echo data >file || exit 1
	p+=/$last
	printf '%s\n' "$p" >"$FX/D"
) || fail "cannot build the deep tree through the mount"
D=$(<"$FX/D")
((${#D} > 3900 && ${#D} <= limit)) || fail "D is ${#D} bytes long"
lctl_umount "$MP"

# everything stamped clean first
fx_fix "$VOL" --settle 0
assert_eq 0 "$LCTL_RC" "the first fix"
run_check "$LAYOUTCTL" scan "$VOL"

# C: > 4096 bytes, on the first brick only
cname=$(printf 'C%.0s' $(seq 1 $((4100 - ${#D}))))
C=$D/$cname
((${#C} > 4096)) || fail "C is only ${#C} bytes long"
python3 - "${B[0]}" "${D#/}" "$cname" <<-'EOF' || fail "cannot make C on ${B[0]}"
	import os, sys, uuid
	brick, rel, name = sys.argv[1:4]
	fd = os.open(brick, os.O_RDONLY | os.O_DIRECTORY)
	for comp in rel.split("/"):
	    nfd = os.open(comp, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
	    os.close(fd)
	    fd = nfd
	pg = uuid.UUID(bytes=os.getxattr(fd, "trusted.gfid"))
	os.mkdir(name, 0o755, dir_fd=fd)
	cfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
	g = uuid.uuid4()
	os.setxattr(cfd, "trusted.gfid", g.bytes)
	h = os.path.join(brick, ".glusterfs", g.hex[0:2], g.hex[2:4])
	os.makedirs(h, exist_ok=True)
	os.symlink("../../%s/%s/%s/%s" % (pg.hex[0:2], pg.hex[2:4], pg, name), os.path.join(h, str(g)))
EOF

# --- 1. scan --------------------------------------------------------------------------------------
rc=0
"$LAYOUTCTL" --json scan "$VOL" >"$FX/scan.json" 2>"$FX/scan.err" || rc=$?
cat "$FX/scan.err" >&2
assert_eq 1 "$rc" "scan exit status with an unreachable subdirectory"
jq -e --arg c "$C" '[.directories[] | select(.path == $c and (.problems | index("unreadable")))]
	| length == 1' "$FX/scan.json" >/dev/null ||
	fail "scan does not report C unreadable: $(jq -c '[.directories[] | {path: (.path | .[-40:]), problems}]' "$FX/scan.json")"
scan_readers_agree "$VOL"

# --- 2. fix ---------------------------------------------------------------------------------------
h_before=$(fx_vol_hash "$VOL")
fx_fix "$VOL" --settle 0
assert_eq 1 "$LCTL_RC" "fix exit status with an unreachable subdirectory"
# (the paths are letters and slashes only)
grep -E "^not-fixed +$D: " "$FX/fix.out" | grep "subdirectory '$cname' cannot be checked" >/dev/null ||
	fail "fix does not report D not fixed for C"
grep -qE "^not-fixed +$C: " "$FX/fix.out" || fail "fix does not report C not fixed"
for b in "${B[@]}"; do
	v=$(brick_xattr_hex "$b" "$D" trusted.glusterfs.dht) || fail "no layout on D in $b"
	[[ $v == 0x00000001* ]] || fail "D was stamped over C in $b: $v (volume hash was $h_before)"
done
echo "hostile-longpath: C reported unreadable by scan and fix; D left dirty"
