#!/bin/bash
# A server lost in the middle of a fix spread over the pool, and servers that cannot take part
# from the start (issue 13).
#  1. A remote shell that fails, no layoutctl on the other servers, and a server whose
#     glusterd is down (its bricks up, but no client can learn their ports): fix refuses with
#     exit 3 naming the server or its subvolume, before anything is written (brick roots and
#     layouts unchanged, no journal).
#  2. Distribute 3 -> 5 bricks over 3 servers, a throttled spread fix; while the workers move
#     files, server 3 dies (its glusterd, bricks and worker killed with SIGKILL). The fix ends
#     with exit 1, reports server 3 lost and its directories not fixed. Once server 3 is back,
#     nothing is lost or hidden (the tree through FUSE identical, every file found by name by a
#     fresh client) and `fix --resume` ends clean: exit 0, scan exit 0, placement and commit
#     words checked on the bricks, the tree identical.
#     Meanwhile every data file of two directories is immutable on server 2's old brick, so
#     server 2's worker fails their migrations (issue 26, item 6): its failed lines are in the
#     starting host's outcome log too, marked "server":"127.1.1.2", the same paths as in its
#     own log. They are made mutable again before the resume.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/pool.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/pool-fix-lib.sh"
require_cmd jq
pf_init 3

lctl_pool_vol_create VOL dist 1 2 3
lctl_pool_mount "$VOL" MP
fx_populate "$MP" 30 600 29
fx_tree manifest "$MP" >"$FX/before" || fail "duplicate names before the fix"
fx_tree list "$MP" >"$FX/list"
OLD2=$(printf '%s\n' "${LCTL_POOL_BRICK_PATHS[@]}" | grep '/node2/' | head -1)
[[ -d $OLD2 ]] || fail "no brick of server 2"
lctl_pool_add_bricks "$VOL" 1 2
# imm +i|-i: chattr on every data file of the first two directories on server 2's old brick
mapfile -t IMM_DIRS < <(cd "$MP" && find . -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort | head -2)
imm() {
	local d
	for d in "${IMM_DIRS[@]}"; do
		[[ ! -d $OLD2/$d ]] || find "$OLD2/$d" -type f ! -perm -1000 -exec chattr "$1" {} +
	done
}
lctl_on_exit "imm -i 2>/dev/null || true"

# --- 1. refused at the start --------------------------------------------------------------------
roots() {
	local b
	for b in "${LCTL_POOL_BRICK_PATHS[@]}"; do
		getfattr --absolute-names -d -m 'trusted.glusterfs.dht' -e hex -- "$b" 2>/dev/null
	done
}
roots >"$FX/roots.before"
fx_fix "$VOL" --no-task-check --rsh /bin/false --remote-cmd "$LAYOUTCTL"
assert_eq 3 "$LCTL_RC" "fix with a remote shell that fails"
assert_contains "$(<"$FX/fix.out")" "server 127.1.1."
assert_contains "$(<"$FX/fix.out")" "cannot take part"
# a worker that cannot run on server 3 (no layoutctl there)
fx_fix "$VOL" --no-task-check --rsh "$PF_RSH" --remote-cmd /nonexistent/layoutctl
assert_eq 3 "$LCTL_RC" "fix with no layoutctl on the other servers"
assert_contains "$(<"$FX/fix.out")" "server 127.1.1."
assert_contains "$(<"$FX/fix.out")" "exited with status 127"
# and why, in the shell's own words: its last line on stderr in the error
assert_contains "$(<"$FX/fix.out")" "127: sh: 1: /nonexistent/layoutctl: not found)"
# server 3's glusterd down: a client cannot learn its bricks' ports, so they count as down
kill -KILL "$(<"$LCTL_POOL_DIR/node3/glusterd.pid")"
sleep 1
pf_fix "$VOL"
assert_eq 3 "$LCTL_RC" "fix with server 3's glusterd down"
assert_contains "$(<"$FX/fix.out")" "is down"
roots >"$FX/roots.after"
assert_files_equal "$FX/roots.before" "$FX/roots.after" "a refused fix changed the brick roots"
[[ ! -e $FX/state/journal ]] || fail "a refused fix wrote a journal"
lctl_pool_restart_node 3

# --- 2. server 3 dies while the workers move files ---------------------------------------------
# (--hold-limit 0: what a lost server leaves when the run does not wait for it; by default
# the run would hold, up to 30 minutes, for its bricks to come back: fault-brick-kill.sh)
imm +i
(
	pf_fix "$VOL" --bandwidth 1 --hold-limit 0
	exit "$LCTL_RC"
) &
fix_pid=$!
for ((i = 0; i < 300; i++)); do
	jq -e '.phase == "place" and (.servers | map(.migrated) | add) >= 10' \
		"$FX/state/progress.json" >/dev/null 2>&1 && break
	sleep 0.2
done
((i < 300)) || fail "the workers did not start moving files"
mapfile -t w3 < <(pf_worker_pids 3)
((${#w3[@]})) || fail "no worker of server 3 runs"
kill -KILL "${w3[@]}"
lctl_pool_kill_node 3
LCTL_RC=0
wait "$fix_pid" || LCTL_RC=$?
assert_eq 1 "$LCTL_RC" "exit status of the fix that lost a server"
assert_contains "$(<"$FX/fix.out")" "not-fixed"
grep -qE '^127\.1\.1\.3 +lost' "$FX/fix.out" || fail "server 3 is not reported lost"
jq -e '.servers[] | select(.name == "127.1.1.3") | .state == "lost"' "$FX/state/progress.json" \
	>/dev/null || fail "progress.json does not show server 3 lost"
# (clean-first, the default: every directory was clean before the workers moved data)
grep -qE '^phase data$' "$FX/state/journal" || fail "the journal does not say data: $(grep phase "$FX/state/journal")"
# server 2's failures, in the starting host's log with its name
jq -r 'select(.outcome == "failed") | .path' "$FX/state/server-127.1.1.2/outcomes.jsonl" |
	LC_ALL=C sort >"$FX/failed.worker"
jq -r 'select(.outcome == "failed" and .server == "127.1.1.2") | .path' \
	"$FX/state/outcomes.jsonl" | LC_ALL=C sort >"$FX/failed.host"
[[ -s $FX/failed.worker ]] || fail "server 2's worker failed no migration of an immutable file"
assert_files_equal "$FX/failed.worker" "$FX/failed.host" \
	"server 2's failed files: its own log against the starting host's"
imm -i

lctl_pool_restart_node 3
# nothing lost or hidden: every name through FUSE and by a fresh client
for ((i = 0; i < 30; i++)); do
	fx_tree manifest "$MP" >"$FX/mid" 2>/dev/null && cmp -s "$FX/before" "$FX/mid" && break
	sleep 1
done
assert_files_equal "$FX/before" "$FX/mid" "the tree after losing a server"
lctl_pool_exec "$FX/gfcheck" lookup "$VOL" "$FX/list" >"$FX/mid.chk" 2>&1 ||
	fail "a fresh client misses files after the lost server came back: $(head -3 "$FX/mid.chk")"

pf_fix "$VOL" --resume
assert_eq 0 "$LCTL_RC" "exit status of fix --resume"
log_ok=$(fx_linked_ok)
fx_scan_after_fix "$VOL" --no-task-check --rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL"
fx_bricks_check "$VOL" --allow-linked "$log_ok"
fx_tree manifest "$MP" >"$FX/after" || fail "duplicate names after the fix"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
