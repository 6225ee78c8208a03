#!/bin/bash
# layoutctl fix spread over a pool of 3 servers, distributed-replicate (issue 13): 2 x 2 with
# the two bricks of each replica set on different servers (1+2, 3+1), grown to 3 x 2 (2+3),
# ~1,000 files, fixed from server 1 with a worker on every server under the fresh-lookup
# checker. The servers of a replica set share its files (a hash of the path picks the brick
# whose server moves it). Afterwards: fix exit 0, scan exit 0, the tree through FUSE identical,
# every data file on its hashed replica set (the same on both bricks) except hard links,
# every commit word the volume hash, no lookup failed, every server moved files and each only
# files of a replica set it holds a brick of, none moved twice.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/pool.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/pool-fix-lib.sh"
require_cmd jq
pf_init 3

lctl_pool_vol_create VOL rep 1 2 3 1
lctl_pool_mount "$VOL" MP
fx_populate "$MP" 40 1000 17
fx_tree manifest "$MP" >"$FX/before" || fail "duplicate names before the fix"
fx_tree list "$MP" >"$FX/list"

lctl_pool_add_bricks "$VOL" 2 3
fx_checker_start "$VOL" "$FX/list"
sleep 2
pf_fix "$VOL" --parallel 4
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
rows=$(grep -cE '^127\.1\.1\.[1-3] +done +[0-9]+ +[1-9]' "$FX/fix.out" || true)
assert_eq 3 "$rows" "servers that report done with files migrated"
pf_movers_check "$VOL"

log_ok=$(fx_linked_ok)
fx_scan_after_fix "$VOL" --no-task-check --rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL"
fx_bricks_check "$VOL" --allow-linked "$log_ok"
fx_tree manifest "$MP" >"$FX/after" || fail "duplicate names after the fix"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
