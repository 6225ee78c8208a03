#!/bin/bash
# A FUSE client writing new files, appending to a log and renaming files in the root and in two
# directories while `layoutctl fix` runs (3 -> 5 bricks), with a fresh-lookup checker on every
# other file. Nothing is lost: the log has every line in order, every renamed file has its name
# and content, through FUSE and by name from a fresh gfapi client; no lookup fails. A directory
# the writer kept busy may be left dirty (safe: misses still fan out) but nothing else; a second
# fix, once the writer stopped, ends clean (scan and brick check).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 40 1000 13
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
mkdir "$MP/wr" "$MP/d002/wr"
lctl_vol_add_bricks "$VOL" 2

fx_checker_start "$VOL" "$FX/list"
fx_writer_start "$VOL" "$MP" . wr d002/wr
sleep 2
fx_fix "$VOL" --parallel 4
sleep 2
fx_writer_stop
fx_checker_stop
((LCTL_RC == 0 || LCTL_RC == 1)) || fail "fix exit status $LCTL_RC"
# only the writer's directories may be left dirty
if ((LCTL_RC == 1)); then
	awk '/^not-fixed / { sub(/^not-fixed +/, ""); sub(/: .*/, ""); print }' "$FX/fix.out" |
		grep -vxE '/|/wr|/d002/wr' && fail "a directory the writer did not touch was not fixed"
	echo "left dirty by the busy writer: $(grep -c '^not-fixed ' "$FX/fix.out")" >&2
fi

# a second run with no writer finishes
fx_fix "$VOL" --parallel 4
assert_eq 0 "$LCTL_RC" "second fix exit status"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
writer_files=$'^((wr|d002/wr)(/[^\t]*)?|w[0-9]+|r[0-9]+|wlog)\t'
fx_tree manifest "$MP" | grep -Ev "$writer_files" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
