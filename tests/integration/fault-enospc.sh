#!/bin/bash
# A full brick. A 3-brick distribute volume gets a 4th brick on a 6 MiB tmpfs (tmpfs keeps
# trusted.* xattrs), with cluster.weighted-rebalance off so that the tiny brick gets a quarter of
# every directory's hash range, i.e. ~8 MiB of the 32 MiB of data: DHT's migration must refuse
# once the brick would fall below cluster.min-free-disk (10%) or is out of space.
#   - a dry run names the tiny brick beforehand: only its subvolume's projected free space
#     falls below min-free-disk, with the files that would stay where they are (issue 26);
#   - fix ends with exit 1; the files it could not move are "failed" with ENOSPC in its report
#     and in outcomes.jsonl (valid JSON lines), their directories "not-fixed" by path;
#   - nothing is lost or hidden: every file's checksum, through a FUSE mount, is unchanged and
#     every file is found by name by a client with no cache;
#   - scan then exits 1 and reports exactly the directories fix left, by path;
#   - once the filesystem has room (remount with a larger size), fix --resume ends with exit 0,
#     scan exits 0 and the bricks are consistent;
#   - then a brick 91 % full of other data is added: fix --layout even-usage gives it fewer bytes
#     than GlusterFS's layout would (issue 26), ends with exit 0 and loses nothing.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

# min-free-disk 1%: DHT's own free-space check (file size against free space minus
# min-free-disk) lets concurrent migrations through that together do not fit: those fail with
# ENOSPC while copying
hs_filled_volume 3 4 16 $((700 * 1024))

# the tiny brick
T=$ROOT/tiny
hs_tmpfs_brick "$T" 6m
lctl_gluster volume add-brick "$VOL" "$LCTL_HOST:$T/brick" force >/dev/null || fail "add-brick"
lctl_wait_bricks_online "$VOL"
lctl_vol_bricks "$VOL" B
df -h "$T" >&2

# the plan names the tiny brick beforehand (issue 26): a dry run projects each subvolume's free
# space after its moves, and only the tiny one's falls below cluster.min-free-disk
"$LAYOUTCTL" --json fix --dry-run "$VOL" >"$FX/dry.json" || fail "fix --dry-run failed"
assert_eq "$VOL-client-3" "$(jq -r '[.summary.space[] | select(.crosses_min_free) | .subvolume] | join(" ")' "$FX/dry.json")" \
	"subvolumes the plan would take below min-free-disk"
jq -e '.summary.space[3] | .refused_files > 0 and .refused_bytes > 0 and .in_bytes > .size - .min_free - (.size - .free_now)' \
	"$FX/dry.json" >/dev/null || fail "the tiny brick's projection: $(jq -c '.summary.space[3]' "$FX/dry.json")"
"$LAYOUTCTL" fix --dry-run "$VOL" >"$FX/dry.txt" || fail "fix --dry-run (text) failed"
grep -E "^  $VOL-client-3 .*below cluster.min-free-disk" "$FX/dry.txt" >&2 ||
	fail "the dry run's text does not name the tiny brick: $(grep -A6 '^Space' "$FX/dry.txt")"

mkdir -p "$FX/state"
hs_lctl "$FX/fix.out" "$FX/fix.err" fix --state-dir "$FX/state" --settle 1 --parallel 4 "$VOL"
rc=$LCTL_RC
cat "$FX/fix.out" "$FX/fix.err" >&2
df -h "$T" >&2
while IFS= read -r line; do
	printf '%s\n' "$line" >"$FX/line.json"
	hs_json_ok "$FX/line.json"
done <"$FX/state/outcomes.jsonl"
jq -c -s 'group_by(.outcome, .errno, .reason) | map({outcome: .[0].outcome, errno: .[0].errno,
	reason: .[0].reason, to: ([.[].to] | unique), n: length})[]' "$FX/state/outcomes.jsonl" >&2
nfail=$(jq -s '[.[] | select(.outcome == "failed")] | length' "$FX/state/outcomes.jsonl")
nskip=$(jq -s '[.[] | select(.outcome == "skipped")] | length' "$FX/state/outcomes.jsonl")
((nfail + nskip > 0)) || fail "every migration succeeded on a 6 MiB brick"
# a migration DHT refused for space is "skipped" (EPERM: DHT says so for every file it does not
# move) and the file stays where it is, behind a linkto: the report must not blame hard links
# or locks for files that have neither
if ((nskip > 0)) && jq -e -s '[.[] | select(.outcome == "skipped") | .reason] |
	all(test("space|min-free"; "i") | not)' "$FX/state/outcomes.jsonl" >/dev/null; then
	soft_fail "files DHT did not move for lack of space are reported as: $(jq -r -s '[.[] | select(.outcome == "skipped") | .reason] | unique | join("; ")' "$FX/state/outcomes.jsonl")"
fi
mapfile -t notfixed < <(sed -n 's/^not-fixed *\(\/[^:]*\): .*/\1/p' "$FX/fix.out" | sort)
if ((nfail > 0)); then
	# a migration that failed (ENOSPC while copying): documented as "the directory then stays
	# dirty" and exit status 1 ("some directories or files were not fixed")
	((rc == 1)) || soft_fail "fix exited $rc although $nfail migration(s) failed"
	((${#notfixed[@]} > 0)) || soft_fail "a migration failed, yet no directory is reported as not fixed"
	jq -e -s '[.[] | select(.outcome == "failed") | .errno] | unique == [28]' "$FX/state/outcomes.jsonl" \
		>/dev/null || fail "failures other than ENOSPC"
else
	assert_eq 0 "$rc" "exit status when DHT only skipped files"
	((${#notfixed[@]} == 0)) || fail "directories not fixed without a failed file"
fi
echo "failed $nfail, skipped $nskip, directories not fixed: ${notfixed[*]:-none}" >&2

# nothing lost, nothing hidden
hs_nothing_lost mid

# scan reports exactly the directories left
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan "$VOL"
hs_json_ok "$FX/scan.json"
left=$(jq -r '.directories[] | select(.clean == false) | .path' "$FX/scan.json" | sort | paste -sd' ')
assert_eq "${notfixed[*]:-}" "$left" "directories scan reports against those fix left"
assert_eq $((${#notfixed[@]} ? 1 : 0)) "$LCTL_RC" "scan exit status after the fix"

# room again: the resume (or a new run) finishes
mount -o remount,size=256m "$T"
if [[ $(hs_journal phase "$FX/state") == "done" ]]; then
	hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$FX/state" --settle 1 --parallel 2 "$VOL"
else
	hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$FX/state" --resume --settle 1 --parallel 2 "$VOL"
fi
cat "$FX/fix2.out" "$FX/fix2.err" >&2
assert_eq 0 "$LCTL_RC" "fix with room on the brick"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
hs_bricks_check "$VOL"
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"

# The even-usage planner end to end (issue 26): one more brick, on a 64 MiB filesystem already
# 91 % full of other data. GlusterFS's layout (weighted-rebalance off) would give it a quarter of
# every directory; fix --layout even-usage sizes the shares by the bricks' fill, and the full
# brick must receive fewer bytes than the default layout's plan gives it, with nothing failed.
F2=$ROOT/fuller
hs_tmpfs_brick "$F2" 64m
head -c $((58 * 1024 * 1024)) /dev/zero >"$F2/other-data" || fail "cannot fill the fuller filesystem"
lctl_gluster volume add-brick "$VOL" "$LCTL_HOST:$F2/brick" force >/dev/null || fail "add-brick"
lctl_wait_bricks_online "$VOL"
"$LAYOUTCTL" --json fix --dry-run "$VOL" >"$FX/dry-default.json" || fail "fix --dry-run (gluster) failed"
f2_sv=$(jq -r '[.summary.space[] | select(.size > 60 * 1048576 and .size < 70 * 1048576) | .subvolume] | join(" ")' "$FX/dry-default.json")
[[ $f2_sv == "$VOL"-client-* ]] || fail "the fuller brick's subvolume: '$f2_sv'"
default_in=$(jq --arg s "$f2_sv" '.summary.space[] | select(.subvolume == $s) | .in_bytes' "$FX/dry-default.json")
((default_in > 1024 * 1024)) || fail "GlusterFS's layout gives the fuller brick only $default_in bytes"
# --force-move: without it DHT's own balance check (the target must keep as much free space as
# the source) keeps every file off the small bricks, whatever the layout
hs_lctl "$FX/fix3.out" "$FX/fix3.err" fix --state-dir "$FX/state3" --settle 1 --parallel 2 --force-move \
	--layout even-usage "$VOL"
cat "$FX/fix3.out" "$FX/fix3.err" >&2
assert_eq 0 "$LCTL_RC" "fix --layout even-usage"
f2_bytes=$(find "$F2/brick" -path "$F2/brick/.glusterfs" -prune -o -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
echo "the fuller brick holds $f2_bytes bytes after even-usage; GlusterFS's layout would give it $default_in" >&2
((f2_bytes < default_in)) ||
	fail "the fuller brick received $f2_bytes bytes under even-usage, no fewer than GlusterFS's layout ($default_in)"
jq -e -s '[.[] | select(.outcome == "failed")] | length == 0' "$FX/state3/outcomes.jsonl" >/dev/null ||
	fail "files failed under even-usage"
# not for want of moving: files did move (to the emptier bricks)
jq -e -s '[.[] | select(.outcome == "migrated")] | length > 0' "$FX/state3/outcomes.jsonl" >/dev/null ||
	fail "even-usage moved no file at all"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
hs_sums "$MP" >"$FX/sums.even"
assert_files_equal "$FX/sums.before" "$FX/sums.even" "a file changed or went missing (even-usage)"
lctl_umount "$MP"
soft_end
exit 0
