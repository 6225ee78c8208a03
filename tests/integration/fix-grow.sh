#!/bin/bash
# layoutctl fix after growing a distribute volume from 4 to 6 bricks (issue 5, the main proof):
# ~5,000 files in 220 directories (sizes 0 to 3 MiB, sparse files, hard links, symlinks, odd
# names), fixed while a fresh-lookup checker looks up every file by name from a new gfapi client
# per round (fix-writer.sh has the FUSE writer). Afterwards: fix exit 0, scan exit 0,
# the tree as seen through FUSE identical (names, md5, mode, owner, size, nlink, symlink targets;
# no duplicates), every data file on its hashed brick except hard links (EPERM skips; and any
# file DHT's free-space balance check kept, see fx_linked_ok) which have a correct linkto, every
# directory's commit word = the volume hash on every brick (checked from the bricks with
# libglusterfs's own hash), sparse files still sparse, no lookup failed, and
# creates afterwards cost at most 1.15 LOOKUP each (in a directory and in the root).
# Issue 26, item 4: the status's directory estimate, once the walk is past the tree's top
# levels, within 5 % of the directories there are; its bytes moved, the bytes whose data
# changed brick (from the bricks, before and after); bytes to move and left said while it runs.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
require_cmd jq
fx_init
: "${FIX_GROW_DIRS:=221}" "${FIX_GROW_FILES:=5000}"

lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" "$FIX_GROW_DIRS" "$FIX_GROW_FILES" 5
grep '^sparse ' "$FX/special" | cut -d' ' -f2- >"$FX/sparse"
fx_tree manifest "$MP" >"$FX/before" || fail "duplicate names before the fix"
fx_tree list "$MP" >"$FX/list"
ndirs=$(awk -F'\t' '$2 == "d"' "$FX/before" | wc -l)
nfiles=$(wc -l <"$FX/list")
echo "tree: $nfiles files, $ndirs directories" >&2
((nfiles >= 5000 && ndirs >= 200)) || fail "the tree is too small"

lctl_vol_add_bricks "$VOL" 2
# a client that knew the 4-brick volume keeps running across the fix
stat "$MP" >/dev/null

# where each data file is, from the bricks: one line per file, "PATH-IN-HEX BRICK SIZE" (no
# linkto files: mode 1000, empty; symbolic links too: a fix moves them, their size the
# target's length); sorted by path
brick_data() {
	fx_subvol_args "$VOL" | cut -d= -f2 | tr ',' '\n' | python3 -c '
import os, stat, sys
for b in sys.stdin.read().split():
    for d, dirs, files in os.walk(b.encode()):
        if d == b.encode():
            dirs[:] = [x for x in dirs if x != b".glusterfs"]
        for f in files:
            st = os.lstat(os.path.join(d, f))
            if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and
                    not (stat.S_IMODE(st.st_mode) == 0o1000 and st.st_size == 0)):
                print(os.path.relpath(os.path.join(d, f), b.encode()).hex(), b, st.st_size)
' | LC_ALL=C sort
}
brick_data >"$FX/data-before"
# the status while it runs, as `layoutctl status` reads it (one line a sample)
(
	while [[ ! -e $FX/status.stop ]]; do
		# (exit 3 before the fix has written its first status)
		"$LAYOUTCTL" --format json status --state-dir "$FX/state" "$VOL" 2>/dev/null |
			jq -c '.status | select(.state == "running")' >>"$FX/status.jsonl" 2>/dev/null || true
		sleep 0.2
	done
) &
status_pid=$!

fx_checker_start "$VOL" "$FX/list"
sleep 2
t0=$(date +%s)
fx_fix "$VOL" --parallel 4
t1=$(date +%s)
touch "$FX/status.stop"
wait "$status_pid" || fail "the status sampler failed"
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
echo "fix took $((t1 - t0)) s" >&2
assert_contains "$(<"$FX/fix.out")" "migrated"

# the outcome log: every skip is a hard link or a file DHT's free-space balance check kept
# (EPERM both); nothing failed; sparse files moved too
log=$FX/state/outcomes.jsonl
[[ -s $log ]] || fail "no outcome log"
jq -e -s 'map(select(.outcome == "failed")) | length == 0' "$log" >/dev/null ||
	fail "failed files: $(jq -c 'select(.outcome == "failed")' "$log" | head -5)"
# (a file whose move DHT failed but that verify then found in place is a skip too: it is not
# behind a linkto, and the bricks check below holds it to its hashed brick like any other;
# each name once: when fx_fix runs the fix again, the second run's skips join the same log)
jq -r 'select(.outcome == "skipped" and ((.reason // "") | startswith("in place now") | not)) | .path' \
	"$log" | sed 's|^/||' | sort -u >"$FX/skipped"
[[ -s $FX/skipped ]] || fail "no hard link was skipped (EPERM expected)"
comm -23 "$FX/skipped" "$(fx_linked_ok)" >"$FX/bad-skips"
[[ ! -s $FX/bad-skips ]] || fail "skipped files neither hard-linked nor kept by the balance check: $(
	head -5 "$FX/bad-skips" | while IFS= read -r f; do
		jq -c --arg p "/$f" 'select(.path == $p)' "$log"
	done)"
jq -c 'select(.outcome == "skipped" and ((.reason // "") | startswith("in place now")))' "$log" >&2
jq -e -s '[.[] | select(.outcome == "skipped" and (.reason | test("^hard links")))] | length > 0' \
	"$log" >/dev/null || fail "no skip gives hard links as its reason"
jq -e -s '[.[] | select(.outcome == "errno" or .errno != null) | select(.errno != 1)] | length == 0' \
	"$log" >/dev/null || fail "an outcome with an errno other than EPERM"
moved_sparse=$(jq -r 'select(.outcome == "migrated") | .path' "$log" | grep -c '/sparse[0-9]\.img$' || true)
((moved_sparse >= 1)) || fail "no sparse file was migrated: the sparse check would prove nothing"

# the directory estimate: every sample of a walk past its top levels (a third of the tree's
# directories visited) within 5 % of the directories there are (the root one more); the failure
# names the samples that are not
estimate='def sampled: (.phase == "layout" or .phase == "work" or .phase == "data") and
		.directories.done >= $n / 3 and .directories.done < $n;
	def within: .directories.estimated_total | . >= ($n + 1) * 0.95 and . <= ($n + 1) * 1.05;'
jq -e -s --argjson n "$ndirs" "$estimate"' [.[] | select(sampled)] | length > 0 and all(within)' \
	"$FX/status.jsonl" >/dev/null || fail "the directory estimate is off (tree: $((ndirs + 1)) directories): $(
		jq -c --argjson n "$ndirs" "$estimate"' select(sampled and (within | not)) |
			[.phase, .directories.done, .directories.seen, .directories.estimated_total]' \
			"$FX/status.jsonl" | head -40 | paste -sd' ')"
# bytes to move and left were said while it ran (the data moves in the data phase)
jq -e -s '[.[] | select(.phase == "data" and .to_move.bytes > 0 and .bytes_left > 0)] | length > 0' \
	"$FX/status.jsonl" >/dev/null || fail "no bytes to move in the status while it ran"
# bytes moved: what changed brick, as the bricks say (one run only: a retry's bytes add up)
brick_data >"$FX/data-after"
gained=$(LC_ALL=C join "$FX/data-before" "$FX/data-after" | awk '$2 != $4 { s += $5 } END { printf "%.0f\n", s }')
said=$("$LAYOUTCTL" --format json status --state-dir "$FX/state" "$VOL" | jq -r .status.bytes_moved)
if [[ -e $FX/retries ]]; then
	echo "bytes moved: $said said, $gained by the bricks over two runs (not compared)" >&2
else
	assert_eq "$gained" "$said" "bytes moved (status) against the bytes that changed brick"
fi
((gained > 0)) || fail "no data changed brick"

# layoutctl's own verdict, then the bricks' (independent hash, every brick)
fx_scan_after_fix "$VOL" --parallel 4
"$LAYOUTCTL" --json scan --all "$VOL" >"$FX/scan.json"
jq -r '.directories[].entries[]? | select(.state != "placed") | .state' "$FX/scan.json" | sort -u >"$FX/states"
[[ ! -s $FX/states ]] || assert_eq linked "$(paste -sd' ' "$FX/states")" "entry states after the fix"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)" --sparse "$FX/sparse"
echo "commit hash $(fx_vol_hash "$VOL") on every directory of every brick" >&2

# the tree through FUSE: identical
fx_tree manifest "$MP" >"$FX/after" || fail "duplicate names after the fix"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"

# lookup-optimize works again: a fresh client's misses cost one LOOKUP
r=$(fx_lookups_per_create "$VOL" /d003 500 newfile)
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "LOOKUP per CREATE in /d003 is $r after the fix"
r=$(fx_lookups_per_create "$VOL" / 500 newfile)
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "LOOKUP per CREATE in / is $r after the fix"
exit 0
