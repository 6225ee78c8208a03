#!/bin/bash
# GlusterFS's remove-brick regression scenarios re-written for `layoutctl drain --commit`
# (issue 28), on one volume: a 1-brick distribute volume, one brick added, the first one
# removed (as in 000-flaky/bugs_distribute_bug-1122443.t):
#   - tests/bugs/distribute/bug-1066798.t: file1 and 40 hard links to it (50 in the original:
#     on ext4 bricks the 45th fails with ENOSPC, as each link adds a trusted.gfid2path xattr
#     and ext4 keeps a file's xattrs in one 4 KiB block), all on the leaving brick (the
#     original removes the file's hashed brick): afterwards every link is a data
#     file on the other brick (not a linkto: its mode is file1's), each found through the
#     mount, and no file failed or was skipped;
#   - 000-flaky/bugs_distribute_bug-1122443.t: a symlink (to ../), block, character and fifo
#     files with mtimes 1..5 keep their mtimes.
# Also: the brick gone from the volume, every file's md5 (and mode, owner, size, links, device
# numbers, mtime) through a fresh FUSE mount as before, `layoutctl scan` exit 0 with 100 %
# lookup-optimize coverage, the bricks checked by tools/bricks.py.
# PEER_ENGINE=gluster runs the originals' remove-brick start, status and commit instead (bench/).
# shellcheck disable=SC2317 # the checks are functions that pk_check calls
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/peer-lib.sh"
require_cmd jq
fx_init
pk_init

lctl_vol_create dist 1 VOL
MP=$(lctl_mount "$VOL")
touch "$MP/file1"
PERM=$(stat -c %A "$MP/file1")
for i in $(seq 1 40); do ln "$MP/file1" "$MP/link$i"; done
mkdir "$MP/subdir"
ln -s ../ "$MP/subdir/symlink"
mknod "$MP/subdir/special_b" b 1 2
mknod "$MP/subdir/special_c" c 3 4
mknod "$MP/subdir/special_u" u 5 6
mknod "$MP/subdir/special_p" p
touch -h --date=@1 "$MP/subdir/symlink"
touch -h --date=@2 "$MP/subdir/special_b"
touch -h --date=@3 "$MP/subdir/special_c"
touch -h --date=@4 "$MP/subdir/special_u"
touch -h --date=@5 "$MP/subdir/special_p"
MTIMES=$(stat -c %n:%Y "$MP"/subdir/* | sort)
pk_manifest "$VOL" "$PK/before"
LEAVING=${LCTL_BRICKS[0]}
lctl_vol_add_bricks "$VOL" 1
OTHER=${LCTL_NEW_BRICKS[0]}
stat "$MP" >/dev/null

pk_step "remove the first brick"
pk_remove "$VOL" "$LEAVING"

links_moved() { # bug-1066798.t
	local i
	for i in $(seq 1 40); do
		[[ -f $OTHER/link$i && -f $FM/link$i ]] || { echo "link$i: not on $OTHER or not found"; return 1; }
		pk_eq "mode of link$i on $OTHER" "$PERM" "$(stat -c %A "$OTHER/link$i")" || return 1
	done
}
mtimes_kept() { # bug-1122443.t
	local now
	now=$(stat -c %n:%Y "$FM"/subdir/* | sed "s|^$FM|$MP|" | sort)
	pk_eq "mtimes" "$MTIMES" "$now"
}
leftovers() { find "$LEAVING" -path "$LEAVING/.glusterfs" -prune -o ! -type d -printf '%p %M %s\n'; }
brick_empty() {
	echo "$(leftovers | wc -l) entries left"
	leftovers | head -n 20
	[[ -z $(leftovers) ]]
}
lctl_vol_bricks "$VOL" NOW
pk_check "the brick is gone from the volume" pk_eq bricks "$OTHER" "${NOW[*]}"
pk_check "nothing but directories left in the removed brick" brick_empty
FM=$(lctl_mount "$VOL")
pk_check "bug-1066798.t: 40 links on the other brick as data, found through the mount" links_moved
pk_check "bug-1122443.t: mtimes of the symlink and the special files kept" mtimes_kept
lctl_umount "$FM"
pk_same_tree "$VOL" "$PK/before"
pk_scan_clean "$VOL"
pk_bricks_clean "$VOL"
pk_finish
