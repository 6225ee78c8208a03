#!/bin/bash
# LOOKUP per CREATE (brick-side `gluster volume profile VOL info incremental`, summed over all
# bricks; 500 new files from a fresh gfapi client each time), in a fixed directory and in the
# volume root: >= 6.5 on a 4 -> 6 brick volume after `rebalance fix-layout` (every directory
# dirty, dht-facts.md section 8c), <= 1.15 after `layoutctl fix`.
# The fix runs as its clean phase, then `--resume` (the data phase). The clean phase's linkto
# files are made on the hashed bricks directly (lib/directlink.c: a LOOKUP on the data's brick
# under DHT's namespace lock, not DHT's lookup of every brick): at most 4 brick LOOKUPs per
# file linked, the run's per-directory lookups included, counted by the bricks' profile
# (measured: 2.7; 10.4 when DHT's lookups made them, before lib/directlink.c).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
require_cmd jq

lctl_vol_create dist 4 VOL
MP=$(lctl_mount "$VOL")
fx_tree populate "$MP" 12 1200 7 >/dev/null
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

_fx_profile "$VOL" >/dev/null
fx_fix "$VOL" --parallel 4 --phase clean
assert_eq 0 "$LCTL_RC" "fix --phase clean exit status"
lookups=$(_fx_count LOOKUP "$(_fx_profile "$VOL")")
linked=$(jq -s 'map(select(.outcome == "linked")) | length' "$FX/state/outcomes.jsonl")
echo "clean phase: $lookups brick LOOKUPs for $linked files linked" >&2
((linked >= 100)) || fail "the clean phase linked $linked files, not >= 100"
((lookups <= 4 * linked)) || fail "the clean phase cost $lookups brick LOOKUPs for $linked links (> 4 each)"
fx_fix "$VOL" --parallel 4 --resume
assert_eq 0 "$LCTL_RC" "fix --resume exit status"

d=$(fx_lookups_per_create "$VOL" /d001 500 after)
r=$(fx_lookups_per_create "$VOL" / 500 after)
echo "after the fix: /d001 $d, / $r LOOKUP per CREATE" >&2
ratio_at_most "$d" 1.15 || fail "/d001 costs $d LOOKUP per CREATE after the fix"
ratio_at_most "$r" 1.15 || fail "/ costs $r LOOKUP per CREATE after the fix"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --linked-ok
exit 0
