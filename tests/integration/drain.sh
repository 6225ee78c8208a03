#!/bin/bash
# layoutctl drain --commit of one brick of a 5-brick distribute volume holding over 3,000 files
# (hard links, sparse files, symlinks, odd names, modes and owners of every kind), while a
# fresh-lookup checker runs from the start to the end of the commit and a FUSE client writes,
# appends and renames in two directories. It must end with: exit 0; the brick gone from the
# volume; nothing but directories left in its folder; no file the writer made ever seen on it
# (its folder is listed every 50 ms during the drain); zero ENOENT; the tree unchanged
# (checksum, mode, owner, size, link count, name); scan exit 0 and the brick check clean on the
# 4 bricks left; its --metrics-file saying a drain that ended clean. Before that: usage errors,
# and a dry run that writes nothing.
# With DRAIN_KIND=rep (drain-replica.sh): the same on a 3 x 2 distributed-replicate volume,
# draining its second replica set, named as a subvolume.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

KIND=${DRAIN_KIND:-dist}
if [[ $KIND == rep ]]; then
	lctl_vol_create rep 3 VOL
else
	lctl_vol_create dist 5 VOL
fi
MP=$(lctl_mount "$VOL")
# the tree with everything special in it (and files of every size), then small and empty
# files to reach 3,000 (empty ones made by a gfapi client: much faster than through FUSE)
fx_populate "$MP" 24 500 17
python3 - "$MP" <<'EOF'
import os, sys
root = sys.argv[1]
for d in range(6):
    p = os.path.join(root, "small%02d" % d)
    os.mkdir(p)
    for i in range(100):
        with open(os.path.join(p, "f%04d" % i), "wb") as f:
            f.write(b"%d:%d\n" % (d, i) * (1 + i % 40))
EOF
for d in 0 1 2 3 4 5; do
	"$FX/gfcheck" create "$VOL" "/small0$d" 320 e >/dev/null || fail "gfcheck create in small0$d"
done
mkdir "$MP/w-a" "$MP/w-b"
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
n=$(wc -l <"$FX/list")
((n >= 3000)) || fail "only $n files"
if [[ $KIND == rep ]]; then
	LEAVES=("${LCTL_BRICKS[@]:2:2}")
	KEEP=("${LCTL_BRICKS[@]:0:2}" "${LCTL_BRICKS[@]:4}")
	leaving=$(lctl_subvol_name "$VOL" 1)
	WHAT=("$leaving")
else
	LEAVES=("${LCTL_BRICKS[2]}")
	KEEP=("${LCTL_BRICKS[@]:0:2}" "${LCTL_BRICKS[@]:3}")
	leaving=$(lctl_subvol_name "$VOL" 2)
	WHAT=("$LCTL_HOST:${LEAVES[0]}")
fi
leftovers() { local b; for b; do find "$b" -path "$b/.glusterfs" -prune -o ! -type d -print; done; }
[[ -n $(leftovers "${LEAVES[@]}") ]] || fail "nothing on the bricks to drain"
# each kind of file the drain must handle is on them: a hard-linked file (two names and the
# .glusterfs handle), a sparse file, a symbolic link, a name with a byte outside ASCII
kinds=$(for b in "${LEAVES[@]}"; do
	find "$b" -path "$b/.glusterfs" -prune -o ! -type d -printf '%y %n %s %b %m %f\n'
done | LC_ALL=C awk '$1 == "f" && $2 > 2 && $5 != 1000 { k["hard link"] = 1 }
	$1 == "f" && $3 > 65536 && $4 * 512 < $3 / 2 { k["sparse"] = 1 }
	$1 == "l" { k["symlink"] = 1 }
	/[\200-\377]/ { k["odd name"] = 1 }
	END { for (x in k) print x }' | LC_ALL=C sort | paste -sd,)
assert_eq "hard link,odd name,sparse,symlink" "$kinds" "kinds of files on the leaving bricks"
S=$FX/state

# usage: no brick, an unknown brick, every brick, --commit with --dry-run
expect_exit 2 "$LAYOUTCTL" drain "$VOL"
expect_exit 2 "$LAYOUTCTL" drain --state-dir "$S" "$VOL" "$LCTL_HOST:/no/such/brick"
expect_exit 2 "$LAYOUTCTL" drain --state-dir "$S" "$VOL" "${LCTL_BRICKS[@]/#/$LCTL_HOST:}"
expect_exit 2 "$LAYOUTCTL" drain --dry-run --commit "$VOL" "${WHAT[@]}"
# a replica set leaves whole: one of its bricks alone is refused
[[ $KIND != rep ]] || expect_exit 2 "$LAYOUTCTL" drain --state-dir "$S" "$VOL" "$LCTL_HOST:${LEAVES[0]}"
# a dry run: the plan moves files off the leaving brick only (min-move), writes nothing
brick_snapshot "${LCTL_BRICKS[@]}" >"$FX/snap0"
"$LAYOUTCTL" --json drain --dry-run "$VOL" "${WHAT[@]}" >"$FX/dry.json" ||
	fail "drain --dry-run failed"
jq -e --arg l "$leaving" '.summary.plan | length > 0 and all(.from == $l)' "$FX/dry.json" >/dev/null ||
	fail "the dry-run plan moves other files than those of $leaving: $(jq -c .summary.plan "$FX/dry.json")"
brick_snapshot "${LCTL_BRICKS[@]}" >"$FX/snap1"
assert_files_equal "$FX/snap0" "$FX/snap1" "the dry run changed the bricks"

# the drain, with a writer and a watcher of the leaving brick's writer folders: once the
# drain has written its layouts and let clients settle (journal phase work), no file the
# writer makes from its next round on (w<i>, r<i>: i above the round then) may be there.
# The settle period is the default, 5 s: with 2 s, one run of drain-replica.sh saw the
# writer's rename r20 on a leaving brick two rounds after the work phase began (the FUSE
# client had not re-read the directory's layout yet).
fx_checker_start "$VOL" "$FX/list"
fx_writer_start "$VOL" "$MP" w-a w-b
: >"$FX/seen"
(
	until [[ -e $FX/watch.stop || $(awk '$1 == "phase" { print $2 }' "$S/journal" 2>/dev/null) == work ]]; do
		sleep 0.05
	done
	wc -l <"$MP/w-a/wlog" >"$FX/round0"
	while [[ ! -e $FX/watch.stop ]]; do
		for b in "${LEAVES[@]}"; do
			find "$b/w-a" "$b/w-b" -mindepth 1 ! -type d -printf '%P\n' 2>/dev/null
		done
		sleep 0.05
	done
) >>"$FX/seen" &
WATCH=$!
echo "drain starts after $SECONDS s" >&2
rc=0
"$LAYOUTCTL" --log-file "$FX/gfapi.log" drain --state-dir "$S" --commit --metrics-file "$FX/drain.prom" \
	"$VOL" "${WHAT[@]}" >"$FX/drain.out" 2>&1 || rc=$?
cat "$FX/drain.out" >&2
_lctl_san_check "layoutctl drain"
: >"$FX/watch.stop"
wait "$WATCH"
fx_writer_stop
fx_checker_stop
assert_eq 0 "$rc" "drain --commit exit status (files failed: $(jq -c 'select(.outcome == "failed")' \
	"$S/outcomes.jsonl" 2>/dev/null | head -3 | paste -sd' '))"
assert_contains "$(cat "$FX/drain.out")" "gluster volume remove-brick $VOL ${LEAVES[*]/#/$LCTL_HOST:} force"
# its metrics (--metrics-file): a drain's, its last run ended clean
for want in "layoutctl_fix_info{volume=\"$VOL\",command=\"drain\"} 1" \
	"layoutctl_fix_running{volume=\"$VOL\"} 0" "layoutctl_fix_exit_code{volume=\"$VOL\"} 0" \
	"layoutctl_fix_files_failed_total{volume=\"$VOL\",server=\"$(hostname)\"} 0"; do
	grep -qxF "$want" "$FX/drain.prom" || fail "no '$want' in the drain's metrics: $(cat "$FX/drain.prom")"
done
r0=$(<"$FX/round0")
((r0 > 0)) || fail "the drain never reached its work phase"
sort -u "$FX/seen" | awk -v r0="$r0" 'match($0, /^[wr][0-9]+$/) && substr($0, 2) + 0 > r0 + 1' >"$FX/bad"
[[ ! -s $FX/bad ]] || fail "the writer created files on the leaving brick after round $r0: $(head -5 "$FX/bad")"
echo "drain and commit done after $SECONDS s; writer round $r0 when the drain began to move files" >&2

# the brick is gone, empty; the rest clean; the tree as it was
lctl_vol_bricks "$VOL" NOW
assert_eq "${KEEP[*]}" "${NOW[*]}" "bricks after the commit"
[[ -z $(leftovers "${LEAVES[@]}") ]] || fail "left on the removed bricks: $(leftovers "${LEAVES[@]}" | head -5)"
stat "$MP" >/dev/null
fx_tree manifest "$MP" | grep -v '^w-[ab]/' >"$FX/after"
grep -v '^w-[ab]/' "$FX/before" >"$FX/before.cmp"
assert_files_equal "$FX/before.cmp" "$FX/after" "the tree changed"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
# the writer's renames after the drain went through its directories are linked, as usual
{
	cat "$(fx_linked_ok)"
	(cd "$MP" && find w-a w-b -type f)
} >"$FX/linked-ok-writer"
fx_bricks_check "$VOL" --allow-linked "$FX/linked-ok-writer"

# Space per target subvolume (issue 26): a new brick on a 64 MiB filesystem is given a full
# share (weighted-rebalance off, a fix), then its filesystem is filled almost to the end with
# other data (a file beside the brick folder: the other bricks share one big filesystem here),
# and its neighbour in a directory's layout is drained. All the staying subvolumes together have
# plenty of room, but the plan the drain uses (min-move: a leaving range goes to its neighbours)
# sends files to the full one: the drain must refuse before it writes anything (exit 3), with
# one line naming that subvolume, also as a dry run. Before, the check added all free space
# together and the drain went on (DHT then refusing the files one by one).
if [[ $KIND == dist ]]; then
	. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
	FULL=$(_lctl_vol_root "$VOL")/full
	hs_tmpfs_brick "$FULL" 64m
	# a full share for the small brick, as for a brick of the same size as the others
	lctl_gluster volume set "$VOL" cluster.weighted-rebalance off >/dev/null || fail "weighted-rebalance off"
	lctl_gluster volume add-brick "$VOL" "$LCTL_HOST:$FULL/brick" force >/dev/null || fail "add-brick"
	lctl_wait_bricks_online "$VOL"
	expect_exit 0 "$LAYOUTCTL" fix --state-dir "$FX/state-space-fix" --settle 1 --layout min-move "$VOL"
	[[ -n $(leftovers "$FULL/brick") ]] || fail "the fix gave the new brick no files"
	avail=$(df -B1 --output=avail "$FULL" | tail -1)
	head -c $((avail - 1024 * 1024)) /dev/zero >"$FULL/other-data" || fail "cannot fill the small filesystem"
	df -h "$FULL" >&2
	# the subvolume of the full brick: the only one of that size
	"$LAYOUTCTL" --json fix --dry-run "$VOL" >"$FX/space-names.json" || fail "fix --dry-run"
	full_sv=$(jq -r '[.summary.space[] | select(.size < 128 * 1048576) | .subvolume] | join(" ")' "$FX/space-names.json")
	[[ $full_sv == "$VOL"-client-* ]] || fail "the full brick's subvolume: '$full_sv'"
	# the brick to drain: the full one's neighbour in small00's layout (min-move gives a leaving
	# range to its neighbours), so that the plan sends some of that directory's files there
	lctl_vol_bricks "$VOL" SP_BRICKS
	range() { getfattr -e hex -n trusted.glusterfs.dht "$1/small00" 2>/dev/null |
		sed -n 's/^trusted\.glusterfs\.dht=0x.\{16\}\(.\{8\}\)\(.\{8\}\)$/\1 \2/p'; }
	read -r fs fe < <(range "$FULL/brick") || fail "no layout of small00 on the full brick"
	SP_LEAVE=
	for b in "${SP_BRICKS[@]}"; do
		[[ $b != "$FULL/brick" ]] || continue
		read -r bs be < <(range "$b") || continue
		if ((16#$be + 1 == 16#$fs || 16#$fe + 1 == 16#$bs)); then
			SP_LEAVE=$b
		fi
	done
	[[ -n $SP_LEAVE ]] || fail "no brick next to the full one in small00's layout"
	leftovers "$SP_LEAVE" | sort >"$FX/sp-leave.before"
	leftovers "$FULL/brick" | sort >"$FX/sp-full.before"
	[[ -s $FX/sp-leave.before ]] || fail "nothing on the brick to drain"
	for dry in --dry-run ""; do
		rc=0
		# shellcheck disable=SC2086 # $dry: one option or none
		"$LAYOUTCTL" drain $dry --state-dir "$FX/state-space" --settle 1 "$VOL" \
			"$LCTL_HOST:$SP_LEAVE" >"$FX/drain-space.out" 2>"$FX/drain-space.err" || rc=$?
		cat "$FX/drain-space.out" "$FX/drain-space.err" >&2
		_lctl_san_check "layoutctl drain $dry (one target without room)"
		assert_eq 3 "$rc" "drain $dry with the plan's target $full_sv below min-free-disk"
		assert_eq 1 "$(grep -c "cannot drain '$VOL': the plan moves .* to $full_sv, which has only" "$FX/drain-space.err")" \
			"lines naming the full subvolume"
	done
	# nothing moved: both bricks hold what they held, and there is no journal
	leftovers "$SP_LEAVE" | sort >"$FX/sp-leave.after"
	leftovers "$FULL/brick" | sort >"$FX/sp-full.after"
	assert_files_equal "$FX/sp-leave.before" "$FX/sp-leave.after" "the refused drain moved files off its brick"
	assert_files_equal "$FX/sp-full.before" "$FX/sp-full.after" "the refused drain moved files to the full brick"
	[[ ! -e $FX/state-space/journal ]] || fail "the refused drain wrote a journal"
	rm -f "$FULL/other-data"
	lctl_gluster volume reset "$VOL" cluster.weighted-rebalance >/dev/null || fail "weighted-rebalance reset"
fi

# A listing that fails part of the way in the final check (issue 24, item 3): a brick added,
# one file of a new directory on it, then drained with the leaving subvolume read through
# gfapi only (as a brick on another host is) and every listing that reaches that file failing
# with EIO after drain's space check saw it once. The file cannot move (its directory cannot be
# read there), and the final check cannot tell the brick is empty: the drain refuses the
# remove (exit 1); the brick and its file stay. Before, the failed listing read as an empty
# one and `remove-brick ... force` ran over the file.
if [[ $KIND == dist ]]; then
	fx_preload faultreaddir
	lctl_vol_add_bricks "$VOL" 1
	NEWB=${LCTL_NEW_BRICKS[0]}
	lctl_vol_bricks "$VOL" BRICKS_BEFORE
	mkdir "$MP/victim"
	victim=
	for ((i = 0; i < 200; i++)); do
		printf 'victim %d\n' "$i" >"$MP/victim/v$i"
		if [[ -z $victim && -f $NEWB/victim/v$i ]]; then
			victim=v$i
		else
			rm -- "$MP/victim/v$i"
		fi
	done
	[[ -n $victim ]] || fail "no victim/vN of 200 hashed to the new brick"
	rc=0
	FAULT_READDIR_NAME=$victim FAULT_READDIR_SKIP=1 FAULT_READDIR_LOG=$FX/readdir.log \
		LD_PRELOAD=$FX_PRELOAD "$LAYOUTCTL" drain --state-dir "$FX/state-eio" --settle 1 \
		--brick-reads gfapi --commit "$VOL" "$LCTL_HOST:$NEWB" >"$FX/drain-eio.out" 2>&1 || rc=$?
	cat "$FX/drain-eio.out" >&2
	_lctl_san_check "layoutctl drain (a listing failing in the final check)"
	[[ -s $FX/readdir.log ]] || fail "the listing fault was never hit"
	assert_eq 1 "$rc" "drain --commit whose final check cannot list the leaving brick"
	assert_contains "$(cat "$FX/drain-eio.out")" "cannot tell whether the leaving subvolumes are empty"
	[[ $(grep -c 'Running: gluster volume remove-brick' "$FX/drain-eio.out") == 0 ]] ||
		fail "the remove-brick ran although the final check could not list the leaving brick"
	lctl_vol_bricks "$VOL" NOW
	assert_eq "${BRICKS_BEFORE[*]}" "${NOW[*]}" "bricks after the refused commit"
	[[ -f $NEWB/victim/$victim ]] || fail "the file left the brick whose listing failed"
	assert_eq "victim ${victim#v}" "$(cat "$MP/victim/$victim")" "the file behind the failed listing"
fi
echo "all done after $SECONDS s" >&2
exit 0
