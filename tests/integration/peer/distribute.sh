#!/bin/bash
# GlusterFS's DHT regression scenarios on one distribute volume (issue 28), each in a directory
# of its own: one populate, an add-brick (3 -> 4), a fix-layout, a rebalance, a second add-brick
# (4 -> 5) and a rebalance in migrate mode with the min-move planner, and after each step the
# assertions of the originals (github.com/gluster/glusterfs, tests/...), carried over as facts:
#
#   rebal/     basic/distribute/manual-rebalance.t: files move to the new brick after the
#              rebalance, with their bytes; a second run has nothing to move.
#              basic/distribute/directory-rebalance.t: fix-layout alone moves no data; block
#              devices and names with shell characters; a 255-byte directory name.
#   modes/     bugs/distribute/bug-1086228.t: setuid, setgid and sticky files (chmod +st, 3644
#              and others) keep their exact modes on the bricks after they moved. (Through
#              DHT, setgid and sticky together show or not depending on which call answered:
#              the manifest leaves them out, the bricks are compared exactly.)
#   rename/    bugs/distribute/bug-961615.t (a rename makes a linkto; the rebalance moves the
#              file), bug-915554.t (a 1 MiB file, 5 bytes of data, renamed until it has a
#              linkto, keeps its size).
#   xattr/     bugs/distribute/bug-1193636.t: user xattrs set and removed on a renamed file are
#              as the user left them after the move; bug-1247563.t: the linkto carries none of
#              them (the original sets an ACL, a system.posix_acl_access xattr; setfacl is not a
#              test dependency, so a user xattr stands for it).
#   sparse/    basic/distribute/sparse_file_rebalance.t: sparse copies (3 MiB, one 10 KiB
#              extent) are byte-equal to the original after they moved, and still sparse.
#   hardlink/  bugs/distribute/bug-1161311.t: a renamed file with 9 more hard links in 3
#              directories keeps 10 links and one inode; 4 new links afterwards make 14. (The
#              original makes the links while an 8 GB file migrates; here they exist before.)
#   special/   000-flaky/bugs_distribute_bug-1122443.t (its remove-brick half is in
#              remove-brick.sh): a symlink, block, character and fifo files keep their mtimes.
#   lookup/    features/unhashed-auto.t: after fix-layout a fresh client finds all 100 files;
#              the rebalance changes the directory's commit word; a layout removed from one
#              brick is healed by a lookup with commit word 1; with lookup-optimize off a new
#              directory gets commit word 1. The original's middle part (the volume commit hash
#              removed by hand so that a client misses files) shows a fix-layout hazard that
#              layoutctl's linkto files close: here a miss costs one LOOKUP (design.md) and
#              every file is found.
#   "/" and the scenario directories: bugs/distribute/bug-853258.t: after the add-brick the
#              new layout keeps at least 2/3 of the hash space where it was (min-move: 3/4).
#
# Where the original runs `rebalance fix-layout start`: `layoutctl fix --mode linkto`; where it
# runs `rebalance start [force]`: `layoutctl fix` (clean-first, the gluster planner), and after
# the second add-brick `fix --mode migrate --layout min-move`. After every step, also: every
# file's md5 (and mode, owner, size, links, device numbers, mtime) through a fresh FUSE mount as
# before, `layoutctl scan` exit 0 with 100 % lookup-optimize coverage, and the bricks checked by
# tools/bricks.py. PEER_ENGINE=gluster runs GlusterFS's own rebalance instead (bench/).
# shellcheck disable=SC2317 # the checks are functions that pk_check calls
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/peer-lib.sh"
require_cmd jq
fx_init
pk_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
cd "$MP" || exit 1

# --- populate ------------------------------------------------------------------------------------
mkdir rebal modes rename xattr sparse hardlink special lookup
# manual-rebalance.t, directory-rebalance.t
for i in $(seq 1 40); do head -c $((1024 * (1 + i % 8))) /dev/urandom >"rebal/$i"; done
for i in $(seq 1 10); do
	mknod "rebal/block-$i" b 4 5
	touch "rebal/$i*)('"
done
DIR255=rebal/$(printf 'a%.0s' $(seq 1 255))
mkdir "$DIR255"
for i in $(seq 1 10); do head -c 1024 /dev/zero >"$DIR255/$i"; done
# bug-1086228.t: the original's file ("chmod +st"), and more of each kind
echo D >modes/file1
chmod +st modes/file1
MODES=(3644 7644 2644 1644 6755 4755 2755 1755 0644)
for m in "${MODES[@]}"; do
	for k in 1 2 3 4; do
		echo D >"modes/m$m-$k"
		chmod "$m" "modes/m$m-$k"
	done
done
# a rename until the new name has a linkto (its hashed brick is not the data's)
rename_until_linkto() { # DIR PREFIX: prints the final name
	local i=1
	until [[ -n $(pk_linkto_brick "$VOL" "$1/$2$i") ]]; do
		mv "$1/$2$i" "$1/$2$((i + 1))"
		i=$((i + 1))
		((i < 50)) || fail "no rename of $1/$2 made a linkto"
	done
	printf '%s\n' "$1/$2$i"
}
touch rename/f1 # bug-961615.t
RENAMED_EMPTY=$(rename_until_linkto rename f)
echo test >rename/s1 # bug-915554.t
truncate -s 1M rename/s1
RENAMED_SIZED=$(rename_until_linkto rename s)
head -c 65536 /dev/urandom >xattr/FILE1 # bug-1193636.t, bug-1247563.t
RENAMED_XATTR=$(rename_until_linkto xattr FILE)
for x in test1 test2 test3 fsetx fremx; do setfattr -n "user.$x" -v "v-$x" "$RENAMED_XATTR"; done
setfattr -x user.test2 "$RENAMED_XATTR"
setfattr -x user.fremx "$RENAMED_XATTR"
# sparse_file_rebalance.t (3 MiB instead of 20 GiB apparent)
dd if=/dev/urandom of=sparse/sparse_file bs=10k count=1 seek=300 status=none
for k in $(seq 3 14); do cp --sparse=always sparse/sparse_file "sparse/sparse_file_$k"; done
find sparse -type f >"$FX/sparse"
# bug-1161311.t
mkdir -p hardlink/dir1 hardlink/dir2/dir3
head -c 65536 /dev/urandom >hardlink/dir1/FILE2
mv hardlink/dir1/FILE2 hardlink/dir1/FILE1
LINKS=(hardlink/dir1/FILE1)
for d in dir1 dir2 dir2/dir3; do
	for n in FILE7 FILE5 FILE3; do
		ln hardlink/dir1/FILE1 "hardlink/$d/$n"
		LINKS+=("hardlink/$d/$n")
	done
done
printf '%s\n' "${LINKS[@]}" >"$FX/hardlinks"
# bugs_distribute_bug-1122443.t, and more special files (some of them move)
ln -s ../ special/symlink
mknod special/special_b b 1 2
mknod special/special_c c 3 4
mknod special/special_u u 5 6
mknod special/special_p p
touch -h --date=@1 special/symlink
touch -h --date=@2 special/special_b
touch -h --date=@3 special/special_c
touch -h --date=@4 special/special_u
touch -h --date=@5 special/special_p
for i in $(seq 1 10); do
	mkfifo "special/fifo-$i"
	mknod "special/blk-$i" b 7 "$i"
	touch -h --date=@$((100 + i)) "special/fifo-$i" "special/blk-$i"
done
# unhashed-auto.t
for i in $(seq 1 100); do touch "$(printf 'lookup/file%02d' "$i")"; done
cd /
LDIRS=("" rebal modes sparse special lookup hardlink/dir1)

pk_manifest "$VOL" "$PK/before"
grep -c . "$PK/before" >&2
# where each regular file's data is now
data_map() (
	cd "$MP" || exit
	for f in rebal/[0-9]* "$DIR255"/* modes/* sparse/* rename/* xattr/*; do
		[[ -f $MP/$f ]] || continue
		b=$(pk_data_brick "$VOL" "$f" | paste -sd,)
		printf '%s\t%s\t%s\n' "$f" "$b" "$(stat -c %a -- "${b%%,*}/$f")"
	done
)
data_map >"$PK/where0"
lookup_commit() { brick_xattr_hex "${LCTL_BRICKS[$1]}" lookup trusted.glusterfs.dht | cut -c3-10; }

# --- checks -----------------------------------------------------------------------------------
# pk_* checks need a fresh mount $FM for some of them
count_lookup_files() { # unhashed-auto.t: a fresh client finds the 100 files by name
	local n=0 i
	for i in $(seq 1 100); do [[ ! -f $(printf '%s/lookup/file%02d' "$FM" "$i") ]] || n=$((n + 1)); done
	pk_eq "files found" 100 "$n"
}
no_data_moved() { # directory-rebalance.t: fix-layout moves no data
	local f b
	while IFS=$'\t' read -r f b _; do
		[[ $(pk_data_brick "$VOL" "$f" | paste -sd,) == "$b" ]] || { echo "$f: moved from $b"; return 1; }
	done <"$PK/where0"
}
overlap_ok() { # bug-853258.t: DIR OLDFILE MIN
	pk_layouts "$VOL" "$1" >"$PK/layout.new"
	local o
	o=$(pk_overlap "$2" "$PK/layout.new")
	((o >= $3)) || { echo "/$1: $o of the hash space kept, at least $3 expected"; cat "$2" "$PK/layout.new"; return 1; }
}
moved_to() { # BRICK DIR...: a regular file of DIR... has its data on BRICK now, with its bytes
	local b=$1 f n=0 sum
	shift
	for f in $(cd "$b" && find "$@" -maxdepth 1 -type f ! -perm -1000); do
		sum=$(md5sum <"$b/$f" | cut -d' ' -f1)
		awk -F'\t' -v p="$f" -v s="$sum" '$1 == p && $2 == "f" && $7 == s { ok = 1 } END { exit !ok }' "$PK/before" ||
			{ echo "$f on $b: md5 $sum is not the original"; return 1; }
		n=$((n + 1))
	done
	((n > 0)) || { echo "no file of $* on $b"; return 1; }
	echo "$n files of $* on $b"
}
exact_modes() { # bug-1086228.t: the data of every modes/ file has the mode it had on its brick
	local f want got b n=0
	for f in "$MP"/modes/*; do
		f=modes/${f##*/}
		want=$(awk -F'\t' -v p="$f" '$1 == p { print $3 }' "$PK/where0")
		b=$(pk_data_brick "$VOL" "$f")
		[[ $(wc -l <<<"$b") == 1 && -n $b ]] || { echo "$f: data on '$b'"; return 1; }
		got=$(stat -c %a "$b/$f")
		pk_eq "mode of $f on $b" "$want" "$got" || return 1
		[[ $b != "$NEWB" ]] || n=$((n + 1))
	done
	((n > 0)) || { echo "no file of modes/ moved to $NEWB"; return 1; }
	echo "$n files of modes/ on $NEWB, modes exact"
}
user_xattrs() { # bug-1193636.t
	local f=$FM/$RENAMED_XATTR x
	for x in test1 test3 fsetx; do pk_eq "user.$x" "v-$x" "$(getfattr --absolute-names --only-values -n "user.$x" "$f" 2>&1)" || return 1; done
	for x in test2 fremx; do ! getfattr --absolute-names -n "user.$x" "$f" >/dev/null 2>&1 || { echo "user.$x is back"; return 1; }; done
}
linkto_no_user_xattrs() { # bug-1247563.t: no linkto file carries a user's xattr
	local b l
	for b in "${LCTL_BRICKS[@]}"; do
		while IFS= read -r -d '' l; do
			_pk_is_linkto "$l" || continue
			[[ -z $(getfattr --absolute-names -d -m '^user\.' "$l" 2>/dev/null) ]] ||
				{ echo "$l carries user xattrs"; return 1; }
		done < <(find "$b" -path "$b/.glusterfs" -prune -o -type f -perm -1000 -print0)
	done
}
renamed_one_copy() { # bug-961615.t, bug-915554.t: one data copy, size kept
	local f
	for f in "$RENAMED_EMPTY" "$RENAMED_SIZED" "$RENAMED_XATTR"; do
		pk_eq "bricks with the data of $f" 1 "$(pk_data_brick "$VOL" "$f" | grep -c .)" || return 1
	done
	pk_eq "size of $RENAMED_SIZED" 1048576 "$(stat -c %s "$FM/$RENAMED_SIZED")"
}
sparse_ok() { # sparse_file_rebalance.t: byte-equal, still sparse, one of them moved
	local f b moved=0
	for f in "$FM"/sparse/sparse_file_*; do cmp "$FM/sparse/sparse_file" "$f" || return 1; done
	while IFS= read -r f; do
		b=$(pk_data_brick "$VOL" "$f")
		(($(stat -c '%b * %B' "$b/$f") < 1048576)) || { echo "$f uses $(stat -c '%b blocks' "$b/$f") on $b"; return 1; }
		[[ $(awk -F'\t' -v p="$f" '$1 == p { print $2 }' "$PK/where0") == "$b" ]] || moved=$((moved + 1))
	done <"$FX/sparse"
	((moved > 0)) || { echo "no sparse file moved"; return 1; }
	echo "$moved sparse files moved"
}
hardlinks_ok() { # bug-1161311.t: NLINK
	local f ino
	ino=$(stat -c %i "$FM/${LINKS[0]}")
	for f in "${LINKS[@]}"; do
		pk_eq "links of $f" "$1" "$(stat -c %h "$FM/$f")" || return 1
		pk_eq "inode of $f" "$ino" "$(stat -c %i "$FM/$f")" || return 1
	done
}
specials_once() { # directory-rebalance.t: special files are on one brick each, as themselves
	local f n
	for f in rebal/block-{1..10} special/special_{b,c,u,p} special/fifo-{1..10} special/blk-{1..10}; do
		n=$(pk_data_brick "$VOL" "$f" | grep -c .)
		pk_eq "bricks holding $f" 1 "$n" || return 1
	done
}
nothing_to_move() { # manual-rebalance.t: a second run has nothing to move (the hard links DHT
	# does not migrate stay behind their linkto files)
	"$LAYOUTCTL" --json scan --all "$VOL" >"$PK/scan-all.json" || true
	jq -r '.directories[] | .path as $d | .entries[]? | select(.state != "placed") |
		"\($d)/\(.name)\t\(.state)" | ltrimstr("/")' "$PK/scan-all.json" | sort >"$PK/unplaced"
	printf '%s\tlinked\n' "${LINKS[@]}" | sort | comm -23 "$PK/unplaced" - | grep . && return 1
	return 0
}

after_rebalance() { # NEWB: the brick just added
	FM=$(lctl_mount "$VOL")
	pk_check "manual-rebalance.t: files moved to the new brick keep their bytes" moved_to "$NEWB" rebal "$DIR255"
	pk_check "bug-1086228.t: exact setuid/setgid/sticky modes on the bricks" exact_modes
	pk_check "unhashed-auto.t: the rebalance changed lookup/'s commit word" \
		test "$(lookup_commit 0)" != "$LOOKUP_COMMIT"
	pk_check "unhashed-auto.t: a fresh client finds 100 of 100 files" count_lookup_files
	pk_check "bug-1193636.t: user xattrs as the user left them" user_xattrs
	pk_check "bug-1247563.t: no linkto carries a user xattr" linkto_no_user_xattrs
	pk_check "bug-961615.t, bug-915554.t: renamed files have one data copy, size kept" renamed_one_copy
	pk_check "sparse_file_rebalance.t: sparse copies byte-equal, still sparse, moved" sparse_ok
	pk_check "bug-1161311.t: 10 links, one inode" hardlinks_ok 10
	pk_check "directory-rebalance.t: every special file on one brick" specials_once
	lctl_umount "$FM"
	pk_same_tree "$VOL" "$PK/before"
	pk_scan_clean "$VOL"
	pk_bricks_clean "$VOL" --allow-linked "$(fx_linked_ok)" --sparse "$FX/sparse"
	[[ $PEER_ENGINE != layoutctl ]] ||
		pk_check "manual-rebalance.t: nothing left to move but hard links (scan --all)" nothing_to_move
}

# --- add-brick, fix-layout ----------------------------------------------------------------------
lctl_vol_add_bricks "$VOL" 1
NEWB=${LCTL_NEW_BRICKS[0]}
for d in "${LDIRS[@]}"; do pk_layouts "$VOL" "$d" >"$PK/layout0.${d//\//_}"; done
stat "$MP" >/dev/null
pk_step "fix-layout (3 -> 4 bricks)"
pk_fix_layout "$VOL"
FM=$(lctl_mount "$VOL")
pk_check "unhashed-auto.t: a fresh client finds 100 of 100 files" count_lookup_files
lctl_umount "$FM"
pk_check "directory-rebalance.t: no data moved" no_data_moved
for d in "${LDIRS[@]}"; do
	pk_check "bug-853258.t: /$d keeps at least 2/3 of the hash space" overlap_ok "$d" "$PK/layout0.${d//\//_}" $((0xaaaaaaab))
done
pk_same_tree "$VOL" "$PK/before"
pk_scan_clean "$VOL"
pk_check "a miss in lookup/ costs one LOOKUP (lookup-optimize)" pk_lookups_per_miss "$VOL" /lookup fl
pk_bricks_clean "$VOL" --linked-ok --sparse "$FX/sparse"
LOOKUP_COMMIT=$(lookup_commit 0)

# --- rebalance --------------------------------------------------------------------------------------
pk_step "rebalance (4 bricks)"
pk_rebalance "$VOL"
after_rebalance

# --- unhashed-auto.t, its last part: DHT's own heal of a layout --------------------------------------
pk_step "layout removed from one brick; lookup-optimize off"
setfattr -x trusted.glusterfs.dht "${LCTL_BRICKS[0]}/lookup"
FM=$(lctl_mount "$VOL")
pk_check "unhashed-auto.t: lookup/ is there" test -d "$FM/lookup"
pk_check "unhashed-auto.t: healed with commit word 1 on brick 1" pk_eq commit 00000001 "$(lookup_commit 0)"
pk_check "unhashed-auto.t: healed with commit word 1 on brick 2" pk_eq commit 00000001 "$(lookup_commit 1)"
lctl_umount "$FM"
lctl_gluster volume set "$VOL" cluster.lookup-optimize off >/dev/null
FM=$(lctl_mount "$VOL")
mkdir "$FM/lookup-off"
for i in 0 1; do
	pk_check "unhashed-auto.t: lookup-optimize off: a new directory has commit word 1 on brick $((i + 1))" \
		pk_eq commit 00000001 "$(brick_xattr_hex "${LCTL_BRICKS[$i]}" lookup-off trusted.glusterfs.dht | cut -c3-10)"
done
lctl_umount "$FM"
lctl_gluster volume set "$VOL" cluster.lookup-optimize on >/dev/null
LOOKUP_COMMIT=00000001
pk_manifest "$VOL" "$PK/before"

# --- add-brick, rebalance in migrate mode with min-move -----------------------------------------------
lctl_vol_add_bricks "$VOL" 1
NEWB=${LCTL_NEW_BRICKS[0]}
for d in "${LDIRS[@]}"; do pk_layouts "$VOL" "$d" >"$PK/layout1.${d//\//_}"; done
data_map >"$PK/where0"
stat "$MP" >/dev/null
pk_step "second rebalance (4 -> 5 bricks; layoutctl: --mode migrate --layout min-move)"
if [[ $PEER_ENGINE == gluster ]]; then
	pk_rebalance "$VOL"
	min=$((0xaaaaaaab))
else
	pk_rebalance "$VOL" --mode migrate --layout min-move
	min=$((0xc0000000))
fi
for d in "${LDIRS[@]}"; do
	[[ $d != lookup ]] || continue # its layout is DHT's heal from scratch, not the old one
	pk_check "bug-853258.t: /$d keeps at least $((min * 100 >> 32)) % of the hash space" overlap_ok "$d" "$PK/layout1.${d//\//_}" "$min"
done
after_rebalance

# --- bug-1161311.t: new links afterwards --------------------------------------------------------------
pk_step "new hard links"
cd "$MP/hardlink" || exit 1
ln dir1/FILE1 FILE1
ln dir2/FILE3 FILE3
ln dir2/dir3/FILE5 FILE5
ln dir1/FILE7 FILE7
cd /
LINKS+=(hardlink/FILE1 hardlink/FILE3 hardlink/FILE5 hardlink/FILE7)
FM=$(lctl_mount "$VOL")
pk_check "bug-1161311.t: 14 links, one inode" hardlinks_ok 14
lctl_umount "$FM"
pk_scan_clean "$VOL"
pk_check "a miss in lookup/ costs one LOOKUP (lookup-optimize)" pk_lookups_per_miss "$VOL" /lookup end
pk_check "a miss in lookup-off/ costs one LOOKUP (lookup-optimize)" pk_lookups_per_miss "$VOL" /lookup-off end
pk_finish
