#!/bin/bash
# fix after a remove-brick (start, wait, commit) on a 5-brick distribute volume: the remove
# reuses the old commit hash and leaves the root dirty; fix (with a fresh-lookup checker
# running) ends with exit 0, scan exit 0, the brick check clean on the 4 bricks left, the tree
# unchanged through FUSE.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create dist 5 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 800 29
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
lctl_vol_remove_bricks "$VOL" "${LCTL_BRICKS[2]}"
stat "$MP" >/dev/null
fx_tree manifest "$MP" >"$FX/removed"
assert_files_equal "$FX/before" "$FX/removed" "the remove-brick changed the tree"

fx_checker_start "$VOL" "$FX/list"
fx_fix "$VOL" --parallel 4
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
fx_scan_after_fix "$VOL" --parallel 4
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
