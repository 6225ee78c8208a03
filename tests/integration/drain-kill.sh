#!/bin/bash
# layoutctl drain on a 4-brick distribute volume (one brick leaving): refused for lack of room
# above cluster.min-free-disk (nothing written); then killed with SIGKILL while it moves files
# (in the middle of DHT's migration of a symbolic link, its copy made and the source still
# there: tools/faultkill.c), with a fresh-lookup checker running throughout: then `drain --resume
# --commit` while a client holds a POSIX lock on a file on the leaving brick (DHT does not move
# a locked file) must refuse the remove (exit 1, the brick still in the volume, the file still
# there); the file is in the volume's root and named like GlusterFS's internal folders there
# (".glusterfs-held..."), which the emptiness check must not take for one; a fix from another
# state directory refuses while the killed drain stands; once the lock is
# gone, `drain --resume --commit` (a fix from another state directory tried throughout, each
# one refused) ends as an uninterrupted drain would: exit 0, the brick removed and empty, the
# tree unchanged (the symbolic link once, with its owner and mtime), scan exit 0, the brick
# check clean, no ENOENT.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 20 600 23
LEAVE=${LCTL_BRICKS[1]}
KEEP=("${LCTL_BRICKS[0]}" "${LCTL_BRICKS[@]:2}")
# a file in the root, on the leaving brick, named as only GlusterFS's own folders should be
locked=
for ((i = 0; i < 64; i++)); do
	printf 'held %d\n' "$i" >"$MP/.glusterfs-held-$i"
	if [[ -z $locked && -f $LEAVE/.glusterfs-held-$i ]]; then
		locked=.glusterfs-held-$i
	else
		rm -- "$MP/.glusterfs-held-$i"
	fi
done
[[ -n $locked ]] || fail "no .glusterfs-held-N of 64 hashed to the leaving brick"
# and in two folders of the root named as GlusterFS names its own on some volumes (the trash
# feature's, AFR's for inodes pending heal: on this pure distribute volume without the trash
# feature both are a user's), a file each on the leaving brick, locked too: the check counts
# them (issue 24, item 5: it skipped both folders by name on any volume)
anon=.glusterfs-anonymous-inode-$(cat /proc/sys/kernel/random/uuid)
locked_more=()
for dir in .trashcan "$anon"; do
	mkdir "$MP/$dir"
	got=
	for ((i = 0; i < 64; i++)); do
		printf 'held %d\n' "$i" >"$MP/$dir/f$i"
		if [[ -z $got && -f $LEAVE/$dir/f$i ]]; then
			got=$dir/f$i
		else
			rm -- "$MP/$dir/f$i"
		fi
	done
	[[ -n $got ]] || fail "no $dir/fN of 64 hashed to the leaving brick"
	locked_more+=("$got")
done
# a symbolic link on the leaving brick, with an owner and an mtime of its own: the drain is
# killed in its migration (1), which the resumed drain completes as DHT would have (3)
sym=$(cd "$LEAVE" && find . -path ./.glusterfs -prune -o -type l -print | sort | head -1)
sym=${sym#.}
[[ -n $sym ]] || fail "no symbolic link on the leaving brick"
chown -h 4321:8765 "$MP$sym"
touch -h -d '2001-02-03 04:05:06' "$MP$sym"
sym_attrs=$(stat -c '%u:%g %Y %N' "$MP$sym")
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
S=$FX/state

# (0) no room above cluster.min-free-disk on the other bricks (they share a filesystem that is
# not 99 % free): refused before anything is written, a dry run too; "99" is 99 % as DHT reads
# it (a value below 100 is a percentage), not 99 bytes
brick_snapshot "${LCTL_BRICKS[@]}" >"$FX/snap0"
for mfd in 99% 99; do
	lctl_gluster volume set "$VOL" cluster.min-free-disk "$mfd" >/dev/null
	for dry in --dry-run ''; do
		rc=0
		out=$("$LAYOUTCTL" drain ${dry:+"$dry"} --state-dir "$FX/state0" "$VOL" "$LCTL_HOST:$LEAVE" 2>&1) || rc=$?
		assert_eq 3 "$rc" "drain $dry with cluster.min-free-disk $mfd"
		assert_contains "$out" "cannot drain"
	done
done
lctl_gluster volume reset "$VOL" cluster.min-free-disk >/dev/null
brick_snapshot "${LCTL_BRICKS[@]}" >"$FX/snap1"
assert_files_equal "$FX/snap0" "$FX/snap1" "a drain refused for space changed the bricks"
mkdir -p "$S"
leftovers() { find "$1" -path "$1/.glusterfs" -prune -o ! -type d -print; }
journal_phase() { awk '$1 == "phase" { print $2 }' "$S/journal" 2>/dev/null; }
migrated() {
	[[ -f $S/outcomes.jsonl ]] || { echo 0; return; }
	grep -c '"outcome":"migrated"' "$S/outcomes.jsonl" || true
}
fx_checker_start "$VOL" "$FX/list"

# the lock, held from before the drain until (3): a client's lock on a file DHT cannot move
python3 - "$FX/locked" "$FX/unlock" "$MP/$locked" "${locked_more[@]/#/$MP/}" <<'EOF' &
import fcntl, os, sys, time
held = []
for path in sys.argv[3:]:
    f = open(path, "r+b")
    fcntl.lockf(f, fcntl.LOCK_EX)
    held.append(f)
open(sys.argv[1], "w").close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.1)
EOF
LOCKER=$!
for ((i = 0; i < 100; i++)); do
	[[ -e $FX/locked ]] && break
	sleep 0.1
done
[[ -e $FX/locked ]] || fail "could not lock $locked"

# (1) killed while files move (slowed down by --rate): by SIGKILL at DHT's setattr of the
# symbolic link's new copy, between its create and the unlink of the source (as a kill at any
# moment may land). DHT would refuse to migrate it again ("file exists in destination"): the
# name listed twice, the brick never emptied.
fx_preload faultkill
rc=0
FAULT_KILL_PATH=$sym FAULT_KILL_SUBVOLS=$VOL-client- LD_PRELOAD=$FX_PRELOAD \
	"$LAYOUTCTL" drain --state-dir "$S" --settle 1 --rate 30 "$VOL" "$LCTL_HOST:$LEAVE" \
	>"$FX/drain1.out" 2>&1 || rc=$?
echo "killed in phase $(journal_phase) after $(migrated) migrations" >&2
assert_eq 137 "$rc" "the drain killed in the migration of $sym"
[[ $(journal_phase) == work ]] || fail "killed in phase $(journal_phase), not work"
[[ -n $(leftovers "$LEAVE") ]] || fail "the leaving brick was empty already when the drain was killed"
copies=0
for b in "${LCTL_BRICKS[@]}"; do
	[[ -L $b$sym ]] && copies=$((copies + 1))
done
assert_eq 2 "$copies" "copies of $sym on the bricks after the kill"

# (1b) the drain stands, stopped (its journal kept, no lock held): a fix from another state
# directory, as a maintenance timer on another server would start one, refuses before it
# writes anything (it would give the leaving brick a range again and move files onto it)
# (the killed drain's lock is taken over and released by the refused fix: its run is dead)
snap_stand() { LCTL_SNAPSHOT_IGNORE='^trusted\.glusterfs\.mdata$|^trusted\.layoutctl\.lock$' brick_snapshot "$@"; }
# (the bricks may still apply what the killed drain's last migration had sent, a hard link's
# linkto removed say: the snapshot is taken once two taken a second apart agree)
snap_stand "${LCTL_BRICKS[@]}" >"$FX/snap-stand0"
for ((i = 0; i < 10; i++)); do
	sleep 1
	snap_stand "${LCTL_BRICKS[@]}" >"$FX/snap-stand0b"
	cmp -s "$FX/snap-stand0" "$FX/snap-stand0b" && break
	mv "$FX/snap-stand0b" "$FX/snap-stand0"
done
rc=0
"$LAYOUTCTL" fix --state-dir "$FX/timer" --settle 1 "$VOL" >"$FX/timer.out" 2>&1 || rc=$?
cat "$FX/timer.out" >&2
assert_eq 3 "$rc" "a fix while the killed drain stands"
assert_contains "$(<"$FX/timer.out")" "stands on '$VOL'"
snap_stand "${LCTL_BRICKS[@]}" >"$FX/snap-stand1"
assert_files_equal "$FX/snap-stand0" "$FX/snap-stand1" "a fix refused beside a standing drain changed the bricks"

# (2) the locked file on the leaving brick: the resumed drain cannot move it, and refuses the
# remove
[[ -f $LEAVE/$locked ]] || fail "the locked file $locked left the leaving brick"
rc=0
"$LAYOUTCTL" drain --state-dir "$S" --resume --commit "$VOL" "$LCTL_HOST:$LEAVE" \
	>"$FX/drain2.out" 2>&1 || rc=$?
cat "$FX/drain2.out" >&2
_lctl_san_check "layoutctl drain --resume --commit (a locked file)"
assert_eq 1 "$rc" "drain --resume --commit with a locked file on the leaving brick"
lctl_vol_bricks "$VOL" NOW
assert_eq "${LCTL_BRICKS[*]}" "${NOW[*]}" "bricks after the refused commit"
[[ -f $LEAVE/$locked ]] || fail "the locked file left the leaving brick"
[[ $(grep -c 'remove-brick' "$FX/drain2.out") == 0 ]] || fail "a remove-brick was offered while a file remained"
for f in "${locked_more[@]}"; do
	[[ -f $LEAVE/$f ]] || fail "the locked file $f left the leaving brick"
done
assert_contains "$(<"$FX/drain2.out")" "3 entries are still on the leaving subvolumes"
: >"$FX/unlock"
wait "$LOCKER"

# (3) resumed again: done, removed. Meanwhile a fix from another state directory (as a
# maintenance timer on another server would start one) is tried again and again from the
# moment the drain holds the volume lock, and once more at the very moment the drain runs
# the gluster CLI (its task check before each pass and the final check, and the remove-brick:
# faultspawn.so): every one that ended while the drain ran must have been refused as locked
# (issue 24, item 4: the drain freed the lock with each pass's fix, and ran its final check,
# the remove-brick and the fix after it unlocked).
fx_preload faultspawn
cat >"$FX/other.sh" <<OTHER
#!/bin/bash
rc=0
"$LAYOUTCTL" fix --state-dir "$FX/other" --settle 1 "$VOL" >>"$FX/other.out" 2>&1 || rc=\$?
printf '%s %s %s\n' "\${1:-loop}" "\$rc" "\$(date +%s%N)" >>"$FX/other.rc"
OTHER
chmod +x "$FX/other.sh"
: >"$FX/other.rc"
rc=0
FAULT_SPAWN_WORDS="tasks remove-brick" FAULT_SPAWN_CMD="$FX/other.sh \"\$1\"" LD_PRELOAD=$FX_PRELOAD \
	"$LAYOUTCTL" --log-file "$FX/gfapi.log" drain --state-dir "$S" --resume --commit "$VOL" \
	"$LCTL_HOST:$LEAVE" >"$FX/drain3.out" 2>&1 &
DRAIN=$!
for ((i = 0; i < 300; i++)); do
	getfattr --absolute-names -n trusted.layoutctl.lock "${LCTL_BRICKS[0]}" >/dev/null 2>&1 && break
	kill -0 "$DRAIN" 2>/dev/null || break
	sleep 0.05
done
(until [[ -e $FX/loop.stop ]]; do "$FX/other.sh" loop; done) &
LOOP=$!
wait "$DRAIN" || rc=$?
drain_end=$(date +%s%N)
: >"$FX/loop.stop"
wait "$LOOP"
cat "$FX/drain3.out" >&2
_lctl_san_check "layoutctl drain --resume --commit"
fx_checker_stop
assert_eq 0 "$rc" "the last drain --resume --commit"
cat "$FX/other.rc" >&2
awk -v end="$drain_end" '$1 != "loop" || $3 <= end' "$FX/other.rc" >"$FX/other.during"
(($(grep -c '^remove-brick ' "$FX/other.during") >= 1)) || fail "no fix was tried at the remove-brick"
(($(grep -c '^loop ' "$FX/other.during") >= 1)) || fail "no fix was tried while the drain ran"
awk '$2 != 3' "$FX/other.during" >"$FX/other.ran"
[[ ! -s $FX/other.ran ]] || fail "a fix from another state directory ran during the drain: $(head -3 "$FX/other.ran")"
assert_contains "$(<"$FX/other.out")" "is locked by another layoutctl fix"
# the bricks are removed: the drain no longer stands
for b in "${KEEP[@]}"; do
	if getfattr --absolute-names -n trusted.layoutctl.drain "$b" >/dev/null 2>&1; then
		fail "the mark of the drain is left on $b"
	fi
done
lctl_vol_bricks "$VOL" NOW
assert_eq "${KEEP[*]}" "${NOW[*]}" "bricks after the commit"
assert_eq "$sym_attrs" "$(stat -c '%u:%g %Y %N' "$MP$sym")" \
	"$sym: owner, mtime and target after the drain"
[[ -z $(leftovers "$LEAVE") ]] || fail "left on the removed brick: $(leftovers "$LEAVE" | head -5)"
stat "$MP" >/dev/null
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
echo "done after $SECONDS s" >&2
exit 0
