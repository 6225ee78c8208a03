#!/bin/bash
# The two-phase fix (--mode clean-first, the default) on a 4 -> 6 brick distribute volume, or
# with LCTL_CF_KIND=rep a 3x2 -> 4x2 distributed-replicate one (fix-clean-first-replica.sh):
#   phase clean, killed in its settle period and resumed with a plain --resume: every
#	directory stamped with the run's hash, every misplaced file reachable through a linkto,
#	no file migrated; the journal waits in phase "data";
#   (distribute) a file hidden in a clean directory (its linkto removed on the hashed brick: a
#	fresh client's lookup gets ENOENT) is found and placed by the data phase;
#   first, while nothing else runs, the LOOKUP per CREATE measurement of one client alone
#	(fx_client_lookups_per_create: io-stats below that client's DHT) sees the fan-out in a
#	directory made dirty on purpose, as the bricks' profile does;
#   phase data, throttled: LOOKUP per CREATE of a fresh client, measured while it moves files,
#	is <= 1.15 in the root and in a directory, every directory stamped; then a FUSE client
#	writes, appends and renames in two directories while it goes on; every directory the
#	writer does not touch
#	stays stamped; kill -9 in the middle; `--resume --max-runtime 3` stops at the end of its
#	window with every directory still clean, and it and `status` say since when (the
#	journal's clean-since, from the first run); `--resume` ends it, and once the writer
#	stopped, `fix --phase data` moves what it renamed meanwhile, and nothing else;
# and at the end: a fresh-lookup checker saw no ENOENT in either phase, the writer lost
# nothing, the tree is unchanged, every file on its hashed subvolume (hard links behind a
# linkto), scan exits 0.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
fx_init
require_cmd jq

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
# files migrated so far, live: progress.json (rewritten every second) counts each file as it
# moves, outcomes.jsonl gets a directory's outcomes when it is done (seen: at --rate 12 the
# root's 26 files ended just after a 2.3-second measurement, which then saw none moved)
moving() { jq '.files.migrated' "$S/progress.json" 2>/dev/null || echo 0; }
# directories on the first brick (the root too) whose commit word is not the run's hash
unstamped_dirs() {
	local h
	h=$(printf '%08x' "$(awk '$1 == "commit" { print $2 }' "$S/journal")")
	find "${B[0]}" -path "${B[0]}/.glusterfs" -prune -o -type d -print0 |
		xargs -0r getfattr --absolute-names -n trusted.glusterfs.dht -e hex 2>/dev/null |
		awk -v h="$h" -v b="${B[0]}" '/^# file: / { f = substr($0, 9); sub("^" b, "", f) }
			/^trusted.glusterfs.dht=/ && substr($0, 25, 8) != h { print (f == "" ? "/" : f) }'
}
# directories holding a symbolic link (or other special file) that a linkto on another brick
# points to: the data phase moves its regular files with it stamped, then makes it dirty while
# the link moves (DHT's migration of a special file removes the linkto before it makes the
# file on the hashed subvolume), and stamps it again
special_dirs() {
	local b
	for b in "${B[@]}"; do
		(cd "$b" && find . -path ./.glusterfs -prune -o \( -type l -o -type p -o -type s -o \
			-type b -o -type c \) -printf 'S %P\n' -o -type f -perm 1000 -size 0 -printf 'L %P\n')
	done | awk '{ t = $1; p = substr($0, 3); if (t == "S") s[p] = 1; else l[p] = 1 }
		END { for (p in s) if (p in l) { d = p; if (!sub("/[^/]*$", "", d)) d = ""; print "/" d } }' |
		sort -u
}
# unstamped_dirs but those of special_dirs, as known before the data phase
dirty_beyond_specials() { unstamped_dirs | grep -vxF -f "$FX/special-dirs" || true; }

# ---- the measurement sees fan-out: /d004 dirty on purpose (commit word 1 on its bricks, as a
# directory created while lookup-optimize was off), a lookup of every subvolume per create,
# and the bricks' profile (nothing else runs now) agrees. Phase clean stamps it.
for b in "${B[@]}"; do
	v=$(brick_xattr_hex "$b" d004 trusted.glusterfs.dht) || continue
	setfattr -n trusted.glusterfs.dht -v "0x00000001${v:10}" "$b/d004"
done
nsub=$(lctl_subvol_count "$VOL")
c=$(fx_client_lookups_per_create "$VOL" /d004 200 dirty)
g=$(fx_lookups_per_create "$VOL" /d004 200 gdirty)
echo "/d004 made dirty: $c LOOKUP per CREATE (one client, below DHT), $g (bricks' profile, gfapi), $nsub subvolumes" >&2
awk -v c="$c" -v g="$g" 'BEGIN { exit !(c > 1.5 && c >= 0.8 * g && c <= 1.25 * g) }' ||
	fail "a dirty /d004 measures $c LOOKUP per CREATE for one client, $g from the bricks' profile"

# ---- phase clean, killed (kill -9) in its settle period; a plain --resume goes on with
# phase clean only, as the run was started (the journal says so), and moves no data
fx_checker_start "$VOL" "$FX/list"
mkdir -p "$S"
"${FX_LAYOUTCTL[@]}" fix --state-dir "$S" --settle 60 --phase clean "$VOL" >"$FX/fix0.out" 2>&1 &
pid=$!
hs_wait_until 60 "$pid" eval '[[ $(journal_phase) == dirty ]] && grep -qs "\"phase\":\"settle\"" "$S/progress.json"' ||
	{ cat "$FX/fix0.out" >&2; fail "--phase clean ended before its settle period"; }
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
grep -qx 'clean-only 1' "$S/journal" || fail "the journal of a --phase clean run does not say so: $(cat "$S/journal")"
fx_fix "$VOL" --resume
assert_eq 0 "$LCTL_RC" "exit status of --phase clean, resumed"
fx_checker_stop
assert_eq data "$(journal_phase)" "journal phase after --phase clean"
assert_eq 0 "$(migrated)" "files migrated by --phase clean"
grep -q '^Directories clean: all' "$FX/fix.out" || fail "--phase clean does not say every directory is clean"
# since when: in the journal, for the runs that resume it in its data phase to say
clean_since=$(awk '$1 == "clean-since" { print $2 }' "$S/journal")
[[ $clean_since =~ ^[0-9]+$ ]] && ((clean_since >= $(date +%s) - 600)) ||
	fail "the journal does not say since when the directories are clean: $(cat "$S/journal")"
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

# ---- phase data, slowed down, LOOKUP per CREATE measured while it moves files, a writer busy
special_dirs >"$FX/special-dirs"
[[ -s $FX/special-dirs ]] || fail "no symbolic link to move: the data phase's dirty period for one goes untested"
echo "directories with special files to move: $(paste -sd' ' "$FX/special-dirs")" >&2
fx_checker_start "$VOL" "$FX/list2"
"$LAYOUTCTL" fix --state-dir "$S" --resume --rate 12 --parallel 2 "$VOL" >"$FX/fix2.out" 2>&1 &
FIX_PID=$!
for ((i = 0; i < 600 && $(migrated) < 10; i++)); do
	kill -0 "$FIX_PID" 2>/dev/null || { cat "$FX/fix2.out" >&2; fail "the data phase ended early"; }
	sleep 0.1
done
(($(migrated) >= 10)) || fail "the data phase moved nothing in 60 s"
# A fresh gfapi client creates 300 files in /d004 and in the root while the fix moves files and
# the checker looks up; only that client's own calls to DHT's subvolumes are counted.
m0=$(moving)
d=$(fx_client_lookups_per_create "$VOL" /d004 300 during)
r=$(fx_client_lookups_per_create "$VOL" / 300 during)
m1=$(moving)
kill -0 "$FIX_PID" 2>/dev/null || fail "the data phase ended before LOOKUP per CREATE was measured"
assert_eq data "$(journal_phase)" "journal phase while measuring"
((m1 > m0)) || fail "the data phase moved no file while LOOKUP per CREATE was measured ($m0 moved)"
echo "while the data phase moved files ($m0 -> $m1 moved): /d004 $d, / $r LOOKUP per CREATE" >&2
awk -v r="$d" 'BEGIN { exit !(r <= 1.15) }' || fail "/d004 costs $d LOOKUP per CREATE during the data phase"
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "/ costs $r LOOKUP per CREATE during the data phase"
[[ -z $(dirty_beyond_specials) ]] || fail "directories made dirty during the data phase: $(dirty_beyond_specials)"

# the writer
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
left=$(dirty_beyond_specials | grep -vxE '/wr|/d002/wr' || true)
[[ -z $left ]] || fail "directories dirty after kill -9 in the data phase: $left"
# the directories where the kill cut a migration short (a migration's source or copy left, a
# linkto naming the wrong brick: scan's stale-linkto, duplicate, migration-leftover): the next
# data phase makes each dirty while it finishes that file (lctl_repair_clean_place()), and a
# window that ends meanwhile leaves it so, resumable; every other directory must stay clean
"$LAYOUTCTL" --json scan --all "$VOL" 2>/dev/null |
	jq -r '.directories[] | select(.entry_counts["stale-linkto"] + .entry_counts.duplicate +
		.entry_counts["migration-leftover"] > 0) | .path' >"$FX/cut-short" || true
[[ ! -s $FX/cut-short ]] || echo "the kill cut migrations short in: $(paste -sd' ' "$FX/cut-short")" >&2

# a window shorter than what is left (--max-runtime), as from a nightly timer: the run stops
# resumably in the data phase, the directories stay clean, and what it and `status` report
# is that they are, since the first run made them so (not "0 directories so far")
fx_fix "$VOL" --resume --parallel 2 --rate 12 --max-runtime 3
assert_eq 4 "$LCTL_RC" "exit status of the data phase stopped by --max-runtime (on schedule, nothing failed)"
grep -q '^Stopped at the end of the time window' "$FX/fix.out" || fail "the data phase was not stopped by --max-runtime"
assert_eq data "$(journal_phase)" "journal phase after a data phase stopped by --max-runtime"
assert_eq "$clean_since" "$(awk '$1 == "clean-since" { print $2 }' "$S/journal")" "the journal's clean-since after the window"
left=$(dirty_beyond_specials | grep -vxE '/wr|/d002/wr' | grep -vxF -f "$FX/cut-short" || true)
[[ -z $left ]] || fail "directories dirty after the data phase's window: $left"
grep -q '^Directories clean: all, since .* (an earlier run of this job' "$FX/fix.out" ||
	fail "the data phase's report does not say since when the directories are clean"
assert_eq "true $clean_since null" \
	"$(jq -r '[.clean_first.all_clean, .clean_first.clean_since, .clean_first.clean_after_seconds] | map(tostring) | join(" ")' \
		"$S/progress.json")" "status: clean, since when, after the window"
"$LAYOUTCTL" status --state-dir "$S" "$VOL" >"$FX/status.out" 2>&1 || true
grep -q '^Clean: *every directory, since .* (an earlier run of this job)' "$FX/status.out" ||
	fail "layoutctl status does not say since when the directories are clean: $(cat "$FX/status.out")"

fx_fix "$VOL" --resume --parallel 2
((LCTL_RC == 0 || LCTL_RC == 1)) || fail "resumed fix exit status $LCTL_RC"
sleep 1
fx_writer_stop
# only a directory the writer kept busy may be left with data to move
awk '/^not-fixed / { sub(/^not-fixed +/, ""); sub(/: .*/, ""); print }' "$FX/fix.out" |
	grep -vxE '/wr|/d002/wr' && fail "a directory the writer did not touch was not finished"
# what the writer renamed after the data phase passed its directory is linked: a data-only
# run, as from a nightly timer, moves it; and only that: the resumed run left nothing else
logged=$(wc -l <"$S/outcomes.jsonl")
fx_fix "$VOL" --phase data
assert_eq 0 "$LCTL_RC" "exit status of fix --phase data, the writer stopped"
grep -q '^Fix of .*, data phase: ' "$FX/fix.out" || fail "fix --phase data did not say it ran the data phase"
others=$(tail -n +"$((logged + 1))" "$S/outcomes.jsonl" |
	jq -r 'select(.outcome == "migrated") | .path' | grep -vE '^/(wr|d002/wr)/' || true)
[[ -z $others ]] || fail "fix --phase data moved what the resumed run had left: $(head -3 <<<"$others")"
fx_checker_stop
assert_eq "done" "$(journal_phase)" "journal phase at the end"
[[ -z $(unstamped_dirs) ]] || fail "directories left dirty at the end: $(unstamped_dirs)"

# ---- the end state
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
writer_files=$'^((wr|d002/wr)(/[^\t]*)?|(d004/)?during[0-9]+|d004/g?dirty[0-9]+)\t'
fx_tree manifest "$MP" | grep -Ev "$writer_files" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
if [[ -n $hidden ]]; then
	# (the brick check above has it on its hashed subvolume; a kill may have lost its log line)
	"$FX/gfcheck" lookup "$VOL" "$FX/hidden.list" >&2 || fail "$hidden is still hidden after the data phase"
fi
exit 0
