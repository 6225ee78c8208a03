#!/bin/bash
# The two-phase fix (--mode clean-first, the default) on a 4 -> 6 brick distribute volume, or
# with LCTL_CF_KIND=rep a 3x2 -> 4x2 distributed-replicate one (fix-clean-first-replica.sh):
#   phase clean: every directory stamped with the run's hash, every misplaced file reachable
#	through a linkto, no file migrated; the journal waits in phase "data";
#   (distribute) a file hidden in a clean directory (its linkto removed on the hashed brick: a
#	fresh client's lookup gets ENOENT) is found and placed by the data phase;
#   phase data, throttled: LOOKUP per CREATE half-way through it is <= 1.15 in the root and in
#	a directory (see below for what the bricks' profile counts), every directory stamped; then a FUSE client writes, appends and
#	renames in two directories while it goes on; every directory the writer does not touch
#	stays stamped; kill -9 in the middle, `--resume` ends it, and once the writer stopped,
#	`fix --phase data` moves what it renamed meanwhile;
# and at the end: a fresh-lookup checker saw no ENOENT in either phase, the writer lost
# nothing, the tree is unchanged, every file on its hashed subvolume (hard links behind a
# linkto), scan exits 0.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

KIND=${LCTL_CF_KIND:-dist}
if [[ $KIND == rep ]]; then
	lctl_vol_create rep 3 VOL
	ADD=1
else
	lctl_vol_create dist 4 VOL
	ADD=2
fi
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 40 1200 17
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
mkdir "$MP/wr" "$MP/d002/wr"
lctl_vol_add_bricks "$VOL" "$ADD"
B=("${LCTL_BRICKS[@]}")
S=$FX/state

journal_phase() { awk '$1 == "phase" { print $2 }' "$S/journal" 2>/dev/null; }
migrated() { grep -c '"outcome":"migrated"' "$S/outcomes.jsonl" 2>/dev/null || true; }
# directories on the first brick (the root too) whose commit word is not the run's hash
unstamped_dirs() {
	local h
	h=$(printf '%08x' "$(awk '$1 == "commit" { print $2 }' "$S/journal")")
	find "${B[0]}" -path "${B[0]}/.glusterfs" -prune -o -type d -print0 |
		xargs -0r getfattr --absolute-names -n trusted.glusterfs.dht -e hex 2>/dev/null |
		awk -v h="$h" -v b="${B[0]}" '/^# file: / { f = substr($0, 9); sub("^" b, "", f) }
			/^trusted.glusterfs.dht=/ && substr($0, 25, 8) != h { print (f == "" ? "/" : f) }'
}

# ---- phase clean
fx_checker_start "$VOL" "$FX/list"
fx_fix "$VOL" --phase clean
assert_eq 0 "$LCTL_RC" "exit status of --phase clean"
fx_checker_stop
assert_eq data "$(journal_phase)" "journal phase after --phase clean"
assert_eq 0 "$(migrated)" "files migrated by --phase clean"
grep -q '^Directories clean: all' "$FX/fix.out" || fail "--phase clean does not say every directory is clean"
fx_bricks_check "$VOL" --linked-ok
[[ -z $(unstamped_dirs) ]] || fail "directories left unstamped by --phase clean: $(unstamped_dirs | head -3)"

# ---- a file hidden in a clean directory: data on one brick, no linkto on its hashed one
hidden=
if [[ $KIND == dist ]]; then
	for b in "${B[@]}"; do
		while IFS= read -r -d '' f; do
			rel=${f#"$b"/}
			grep -qxF -- "$rel" "$FX/hardlinks" && continue
			[[ -n $(getfattr --absolute-names -n trusted.glusterfs.dht.linkto "$f" 2>/dev/null) ]] || continue
			g=$(getfattr --absolute-names -n trusted.gfid -e hex "$f" | sed -n 's/^trusted.gfid=0x//p')
			rm -f -- "$f" "$b/.glusterfs/${g:0:2}/${g:2:2}/${g:0:8}-${g:8:4}-${g:12:4}-${g:16:4}-${g:20:12}"
			hidden=$rel
			break 2
		done < <(find "$b/d003" -maxdepth 1 -type f -perm 1000 -size 0 -print0)
	done
	[[ -n $hidden ]] || fail "no linked file in d003 to hide"
	printf '%s\n' "$hidden" >"$FX/hidden.list"
	rc=0
	"$FX/gfcheck" lookup "$VOL" "$FX/hidden.list" >"$FX/hidden.out" 2>&1 || rc=$?
	grep -q '^ENOENT ' "$FX/hidden.out" || fail "the file $hidden is not hidden: $(cat "$FX/hidden.out")"
	echo "hidden in a clean directory: $hidden" >&2
	grep -vxF -- "$hidden" "$FX/list" >"$FX/list2"
else
	cp -- "$FX/list" "$FX/list2"
fi

# ---- phase data, slowed down, a writer busy, LOOKUP per CREATE measured while it runs
fx_checker_start "$VOL" "$FX/list2"
"$LAYOUTCTL" fix --state-dir "$S" --resume --rate 12 --parallel 2 "$VOL" >"$FX/fix2.out" 2>&1 &
FIX_PID=$!
for ((i = 0; i < 600 && $(migrated) < 10; i++)); do
	kill -0 "$FIX_PID" 2>/dev/null || { cat "$FX/fix2.out" >&2; fail "the data phase ended early"; }
	sleep 0.1
done
(($(migrated) >= 10)) || fail "the data phase moved nothing in 60 s"
# The bricks' profile counts every client's LOOKUPs: the checker's (it holds between two
# rounds meanwhile) and layoutctl's own, about 20 per file it moves (revalidating the path, and
# DHT's migration), which are not fan-out. So the ratio is measured twice: with the data phase
# moving files (printed only), and with it paused half-way, its journal and every directory as
# in the middle of the phase (asserted).
ctl() { printf '%s\n' "$1" >"$S/control.tmp" && mv -f -- "$S/control.tmp" "$S/control"; }
fix_state() { jq -r .state "$S/progress.json" 2>/dev/null || true; }
fx_checker_pause
d=$(fx_lookups_per_create "$VOL" /d004 200 run)
echo "while the data phase moves files: /d004 $d LOOKUP per CREATE, layoutctl's own included" >&2
ctl pause
for ((i = 0; i < 100; i++)); do [[ $(fix_state) != paused ]] || break; sleep 0.1; done
assert_eq paused "$(fix_state)" "state of the fix after 'pause'"
n=-1
while (($(migrated) != n)); do n=$(migrated) && sleep 1; done # the migration in flight ends
d=$(fx_lookups_per_create "$VOL" /d004 300 mid)
r=$(fx_lookups_per_create "$VOL" / 300 mid)
kill -0 "$FIX_PID" 2>/dev/null || fail "the data phase ended before LOOKUP per CREATE was measured"
assert_eq data "$(journal_phase)" "journal phase while measuring"
assert_eq "$n" "$(migrated)" "files moved while paused"
ctl resume
fx_checker_resume
echo "half-way through the data phase: /d004 $d, / $r LOOKUP per CREATE ($n files moved so far)" >&2
awk -v r="$d" 'BEGIN { exit !(r <= 1.15) }' || fail "/d004 costs $d LOOKUP per CREATE during the data phase"
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "/ costs $r LOOKUP per CREATE during the data phase"
[[ -z $(unstamped_dirs) ]] || fail "directories made dirty during the data phase: $(unstamped_dirs)"

# the writer (after the measurement: the profile would count its creates)
fx_writer_start "$VOL" "$MP" wr d002/wr
n=$(migrated)
for ((i = 0; i < 300 && $(migrated) < n + 20; i++)); do
	kill -0 "$FIX_PID" 2>/dev/null || fail "the data phase ended before the kill: slow it down"
	sleep 0.1
done

# kill -9 in the middle of it
kill -9 "$FIX_PID"
wait "$FIX_PID" 2>/dev/null || true
assert_eq data "$(journal_phase)" "journal phase after kill -9 in the data phase"
echo "killed after $(migrated) files moved" >&2
left=$(unstamped_dirs | grep -vxE '/wr|/d002/wr' || true)
[[ -z $left ]] || fail "directories dirty after kill -9 in the data phase: $left"

fx_fix "$VOL" --resume --parallel 2
((LCTL_RC == 0 || LCTL_RC == 1)) || fail "resumed fix exit status $LCTL_RC"
sleep 1
fx_writer_stop
# only a directory the writer kept busy may be left with data to move
awk '/^not-fixed / { sub(/^not-fixed +/, ""); sub(/: .*/, ""); print }' "$FX/fix.out" |
	grep -vxE '/wr|/d002/wr' && fail "a directory the writer did not touch was not finished"
# what the writer renamed after the data phase passed its directory is linked: a data-only
# run, as from a nightly timer, moves it
fx_fix "$VOL" --phase data
assert_eq 0 "$LCTL_RC" "exit status of fix --phase data, the writer stopped"
grep -q '^Fix of .*, data phase: ' "$FX/fix.out" || fail "fix --phase data did not say it ran the data phase"
fx_checker_stop
assert_eq "done" "$(journal_phase)" "journal phase at the end"

# ---- the end state
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
writer_files=$'^((wr|d002/wr)(/[^\t]*)?|(d004/)?(mid|run)[0-9]+)\t'
fx_tree manifest "$MP" | grep -Ev "$writer_files" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
if [[ -n $hidden ]]; then
	# (the brick check above has it on its hashed subvolume; a kill may have lost its log line)
	"$FX/gfcheck" lookup "$VOL" "$FX/hidden.list" >&2 || fail "$hidden is still hidden after the data phase"
fi
exit 0
