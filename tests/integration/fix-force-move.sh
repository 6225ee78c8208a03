#!/bin/bash
# DHT's free-space balance check, and --force-move. A 2-brick distribute volume gets a 3rd brick
# on a 32 MiB tmpfs filled so that its free percentage is about half the old bricks' (with
# cluster.weighted-rebalance off, so that it still gets a third of every directory's range).
# DHT's migration ("migrate-data" without "force") then keeps every file that belongs on the new
# brick where it is, answering EPERM.
#   - fix without --force-move: exit 0; each of those files is "skipped" (errno 1) with the
#     balance check as its reason (in the outcome log, and counted so in the text report),
#     none is migrated to the new brick;
#     scan exits 0 and the bricks hold a correct linkto for each skipped file;
#   - fix --force-move: exit 0, those files are migrated, none skipped; the journal records it;
#     every file is on its hashed brick (no linkto needed), cluster.min-free-disk (1%) still
#     leaves room on the tmpfs;
#   - nothing changed: every file's checksum, through FUSE, as before.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

hs_filled_volume 2 3 30 4096

# the old bricks' free percentage, as DHT computes it (f_bavail of f_blocks)
pct() { python3 -c 'import os, sys; s = os.statvfs(sys.argv[1]); print(s.f_bavail * 100 // s.f_blocks)' "$1"; }
src=$(pct "$ROOT")
((src >= 10)) || skip "the brick filesystem is only $src% free: no room below it for the new brick"
T=$ROOT/tiny
hs_tmpfs_brick "$T" 32m
# fill it (outside the brick folder) to about half the old bricks' free percentage
head -c $((32 * 1024 * 1024 * (200 - src) / 200)) /dev/zero >"$T/filler"
dst=$(pct "$T")
echo "free: old bricks $src%, new brick $dst%" >&2
((dst >= 3 && dst < src)) || fail "the new brick is $dst% free against $src%: the test set-up is wrong"
lctl_gluster volume add-brick "$VOL" "$LCTL_HOST:$T/brick" force >/dev/null || fail "add-brick"
lctl_wait_bricks_online "$VOL"
NEW=$VOL-client-2

# without --force-move: DHT keeps the files that belong on the new brick
fx_fix "$VOL" --parallel 2 --log "$FX/run1.jsonl"
assert_eq 0 "$LCTL_RC" "fix exit status when DHT kept files"
jq -c -s 'group_by(.outcome, .to, .reason) | map({outcome: .[0].outcome, to: .[0].to,
	reason: .[0].reason, n: length})[]' "$FX/run1.jsonl" >&2
kept=$(jq -s --arg new "$NEW" '[.[] | select(.outcome == "skipped" and .to == $new)] | length' "$FX/run1.jsonl")
((kept >= 5)) || fail "only $kept file(s) for the new brick were skipped"
# (a clean-first run first links each of them: "linked" lines, then the data phase's outcome)
jq -e -s --arg new "$NEW" '[.[] | select(.to == $new and .outcome != "linked")] | all(.outcome == "skipped" and .errno == 1 and
	(.reason | test("free-space balance check: the target would have less free space")))' \
	"$FX/run1.jsonl" >/dev/null ||
	fail "a file for the new brick was not skipped for the balance check: $(jq -c --arg new "$NEW" \
		'select(.to == $new and .outcome != "linked" and (.reason // "" | test("balance check: the target") | not))' "$FX/run1.jsonl" | head -3)"
jq -e -s 'map(select(.outcome == "failed")) | length == 0' "$FX/run1.jsonl" >/dev/null ||
	fail "failed files: $(jq -c 'select(.outcome == "failed")' "$FX/run1.jsonl" | head -3)"
# the text report counts the skipped files by reason
grep -qE "^ +$kept  DHT's free-space balance check: .*--force-move" "$FX/fix.out" ||
	fail "the report does not count the $kept skipped files under the balance check"
grep -q '^force-move' "$FX/state/journal" && fail "the journal records --force-move for a run without it"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
hs_bricks_check "$VOL" --allow-linked "$(fx_linked_ok "$FX/run1.jsonl")"
nlinkto=$(find "$T/brick" -path "$T/brick/.glusterfs" -prune -o -type f -perm 1000 -size 0 -print | wc -l)
assert_eq "$kept" "$nlinkto" "linkto files on the new brick for the skipped files"

# --force-move: DHT moves them; min-free-disk (1%) still holds on the tmpfs
fx_fix "$VOL" --parallel 2 --force-move --log "$FX/run2.jsonl"
assert_eq 0 "$LCTL_RC" "fix --force-move exit status"
moved=$(jq -s --arg new "$NEW" '[.[] | select(.outcome == "migrated" and .to == $new)] | length' "$FX/run2.jsonl")
assert_eq "$kept" "$moved" "files migrated to the new brick by --force-move"
jq -e -s 'map(select(.outcome == "skipped" or .outcome == "failed")) | length == 0' "$FX/run2.jsonl" \
	>/dev/null || fail "skipped or failed with --force-move: $(jq -c 'select(.outcome == "skipped" or .outcome == "failed")' "$FX/run2.jsonl" | head -3)"
grep -qx 'force-move 1' "$FX/state/journal" || fail "the journal does not record --force-move"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
hs_bricks_check "$VOL"
echo "free after: new brick $(pct "$T")%" >&2

hs_nothing_lost after
lctl_umount "$MP"
exit 0
