#!/bin/bash
# LOOKUP per CREATE (brick-side `gluster volume profile VOL info incremental`, summed over all
# bricks; 500 new files from a fresh gfapi client each time), in a fixed directory and in the
# volume root: >= 6.5 on a 4 -> 6 brick volume after `rebalance fix-layout` (every directory
# dirty, dht-facts.md section 8c), <= 1.15 after `layoutctl fix`.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init

lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
fx_tree populate "$MP" 12 300 7 >/dev/null
fx_tree manifest "$MP" >"$FX/before"
lctl_vol_add_bricks "$VOL" 2
lctl_rebalance "$VOL" fix-layout
fx_wait_tasks_idle "$VOL"

ratio_at_least() { awk -v r="$1" -v m="$2" 'BEGIN { exit !(r >= m) }'; }
ratio_at_most() { awk -v r="$1" -v m="$2" 'BEGIN { exit !(r <= m) }'; }

d=$(fx_lookups_per_create "$VOL" /d001 500 before)
r=$(fx_lookups_per_create "$VOL" / 500 before)
echo "before the fix: /d001 $d, / $r LOOKUP per CREATE" >&2
ratio_at_least "$d" 6.5 || fail "/d001 costs $d LOOKUP per CREATE before the fix, not >= 6.5"
ratio_at_least "$r" 6.5 || fail "/ costs $r LOOKUP per CREATE before the fix, not >= 6.5"

fx_fix "$VOL" --parallel 4
assert_eq 0 "$LCTL_RC" "fix exit status"

d=$(fx_lookups_per_create "$VOL" /d001 500 after)
r=$(fx_lookups_per_create "$VOL" / 500 after)
echo "after the fix: /d001 $d, / $r LOOKUP per CREATE" >&2
ratio_at_most "$d" 1.15 || fail "/d001 costs $d LOOKUP per CREATE after the fix"
ratio_at_most "$r" 1.15 || fail "/ costs $r LOOKUP per CREATE after the fix"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --linked-ok
exit 0
