#!/bin/bash
# The same guarantees on a distributed-replicate volume grown by one replica set (2 x 2 ->
# 3 x 2): fix with a fresh-lookup checker running (no ENOENT), exit 0, scan exit 0, the brick
# check on every brick of every set (commit words, ranges the same on both replicas, placement,
# linkto), the tree unchanged through FUSE, creates at <= 1.15 LOOKUP each.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create rep 2 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 30 800 23
grep '^sparse ' "$FX/special" | cut -d' ' -f2- >"$FX/sparse"
fx_tree manifest "$MP" >"$FX/before"
fx_tree list "$MP" >"$FX/list"
lctl_vol_add_bricks "$VOL" 1
stat "$MP" >/dev/null

fx_checker_start "$VOL" "$FX/list"
fx_fix "$VOL" --parallel 4
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
fx_scan_after_fix "$VOL" --parallel 4
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)" --sparse "$FX/sparse"
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
r=$(fx_lookups_per_create "$VOL" /d001 300 newfile)
awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || fail "LOOKUP per CREATE in /d001 is $r after the fix"
exit 0
