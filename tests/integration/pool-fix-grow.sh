#!/bin/bash
# layoutctl fix spread over a pool of 3 servers (issue 13): a distribute volume of 3 bricks, one
# per server, grown to 5 (the new bricks on servers 1 and 2), ~1,500 files in 60 directories
# (sizes 0 to 3 MiB, sparse files, hard links, symlinks, odd names), fixed from server 1 with a
# worker on every server, while a fresh-lookup checker looks every file up by name from a new
# gfapi client per round. Afterwards, as fix-grow.sh: fix exit 0, scan exit 0, the tree through
# FUSE identical (names, md5, mode, owner, size, nlink, symlink targets), every data file on its
# hashed brick except hard links (linked), every directory's commit word = the volume hash on
# every brick, sparse files still sparse, no lookup failed; and the pool's own: only server 1's
# bricks are read as local folders (--node 127.1.1.2: server 2's), `info` lists the servers,
# every server moved files, each only from its own bricks (its outcome log), none moved twice,
# and the report, progress.json and `status` show a row per server, with the plan each sent
# (protocol 4) holding what it moved; the starting host's outcome log holds each server's
# migrations, marked with it. The run allows two
# migrations at a time per subvolume (--migrations 2), passed on to every worker.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/pool.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/pool-fix-lib.sh"
require_cmd jq
pf_init 3
: "${POOL_GROW_DIRS:=60}" "${POOL_GROW_FILES:=1500}"

lctl_pool_vol_create VOL dist 1 2 3
lctl_pool_mount "$VOL" MP
fx_populate "$MP" "$POOL_GROW_DIRS" "$POOL_GROW_FILES" 13
grep '^sparse ' "$FX/special" | cut -d' ' -f2- >"$FX/sparse"
fx_tree manifest "$MP" >"$FX/before" || fail "duplicate names before the fix"
fx_tree list "$MP" >"$FX/list"
nfiles=$(wc -l <"$FX/list")
echo "tree: $nfiles files" >&2
((nfiles >= POOL_GROW_FILES)) || fail "the tree is too small"

lctl_pool_add_bricks "$VOL" 1 2
"${PF_LAYOUTCTL[@]}" info "$VOL" >"$FX/info.out"
cat "$FX/info.out" >&2
assert_contains "$(<"$FX/info.out")" "Servers (3):"
assert_contains "$(<"$FX/info.out")" "(this server)"

# which bricks are this server's: glusterd's view (peer UUIDs) says node 1's, --node overrides;
# only those are read as local folders
direct() {
	"${PF_LAYOUTCTL[@]}" -v "$@" scan "$VOL" 2>&1 >/dev/null |
		sed -n 's/.*reading its brick folder \(.*\) directly$/\1/p' | sort
}
printf '%s\n' "${LCTL_POOL_BRICK_PATHS[@]}" | grep '/node1/' | sort >"$FX/mine1"
assert_files_equal "$FX/mine1" <(direct) "bricks read directly by server 1"
printf '%s\n' "${LCTL_POOL_BRICK_PATHS[@]}" | grep '/node2/' | sort >"$FX/mine2"
assert_files_equal "$FX/mine2" <(direct --node 127.1.1.2) "bricks read directly with --node 127.1.1.2"
[[ $(wc -l <"$FX/mine1") == 2 && $(wc -l <"$FX/mine2") == 2 ]] || fail "not 2 bricks on nodes 1 and 2"
# a hostile glusterd directory (FIFOs, a link to /dev/zero): read without blocking or following,
# so info answers at once, with no server counted as this one
mkdir -p "$FX/gd/vols/$VOL/bricks"
mkfifo "$FX/gd/glusterd.info" "$FX/gd/vols/$VOL/info" "$FX/gd/vols/$VOL/bricks/fifo"
ln -s /dev/zero "$FX/gd/vols/$VOL/bricks/zero"
lctl_pool_exec timeout 60 "$LAYOUTCTL" --server 127.1.1.1 --glusterd-dir "$FX/gd" info "$VOL" \
	>"$FX/hostile-info" || fail "info with a hostile --glusterd-dir: exit $?"
assert_contains "$(<"$FX/hostile-info")" "Servers (3):"
! grep -q '(this server)' "$FX/hostile-info" || fail "a server counted as this one from a hostile store"
# without glusterd's record of the volume nothing is read directly, and -v says why
"${PF_LAYOUTCTL[@]}" --glusterd-dir "$FX" --node 127.1.1.1 -v scan "$VOL" >/dev/null 2>"$FX/norecord" || true
assert_contains "$(<"$FX/norecord")" "no record of volume"
! grep -q 'reading its brick folder' "$FX/norecord" || fail "direct reads without a volume id"

fx_checker_start "$VOL" "$FX/list"
sleep 2
# with two migrations at a time per subvolume (--migrations), which every worker must be
# given: the remote shell logs each command line it runs (servers 2 and 3; server 1's worker
# is started without it)
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\nexec "%s" "$@"\n' "$FX/rsh.log" "$PF_RSH" >"$FX/rsh"
chmod +x "$FX/rsh"
PF_RSH=$FX/rsh pf_fix "$VOL" --parallel 4 --migrations 2
sleep 1
fx_checker_stop
assert_eq 0 "$LCTL_RC" "fix exit status"
tr -d "'" <"$FX/rsh.log" >"$FX/rsh.words"
n=$(grep -c -- ' worker ' "$FX/rsh.words" || true)
m=$(grep -c -- ' worker --parallel 4 --migrations 2 ' "$FX/rsh.words" || true)
((n >= 2 && m == n)) || fail "$m of $n workers started with --migrations 2: $(cat "$FX/rsh.log")"
# the per-server report: three servers, all done, each moved something (its outcome log,
# which a resumed run appends to), and, unless the run was resumed after a hung GlusterFS
# call (fx_fix), the report's count is its log's; the same rows in `status` (below)
server_rows() {
	local h row logged
	for h in 1 2 3; do
		row=$(grep -E "^127\.1\.1\.$h +done +[0-9]+ +[0-9]+" "$1" || true)
		[[ -n $row ]] || fail "no row 'done' for server 127.1.1.$h in $2"
		logged=$(jq -s 'map(select(.outcome == "migrated")) | length' \
			"$FX/state/server-127.1.1.$h/outcomes.jsonl")
		((logged > 0)) || fail "server 127.1.1.$h migrated nothing"
		[[ -e $FX/hangs ]] || assert_eq "$logged" "$(awk '{ print $4 }' <<<"$row")" \
			"files migrated by server 127.1.1.$h ($2, outcome log)"
		# and every line of it in the starting host's log, marked with the server (issue 26)
		[[ -e $FX/hangs ]] || assert_eq "$logged" "$(jq -s --arg s "127.1.1.$h" \
			'map(select(.outcome == "migrated" and .server == $s)) | length' \
			"$FX/state/outcomes.jsonl")" "server 127.1.1.$h's migrations in the starting host's log"
	done
}
server_rows "$FX/fix.out" "the report"
pf_movers_check "$VOL"
# the coordinator's status file has the same rows, and `status` shows them
jq -e '.servers | length == 3 and all(.state == "done")' "$FX/state/progress.json" >/dev/null ||
	fail "progress.json has no per-server rows: $(jq -c .servers "$FX/state/progress.json")"
# every server's plan came over its link (protocol 4): what it moved was in it, and the bytes
# to move are the servers' (issue 26, item 4)
jq -e 'all(.servers[]; .plan_files >= .migrated and .plan_bytes >= .bytes_moved and
	.plan_bytes > 0 and .plan_directories > 0) and
	.to_move.bytes >= ([.servers[].plan_bytes] | add) and .to_move.bytes >= .bytes_moved' \
	"$FX/state/progress.json" >/dev/null ||
	fail "the servers' plans did not reach the starting host: $(jq -c '[.to_move, .bytes_moved,
		[.servers[] | {name, migrated, bytes_moved, plan_files, plan_bytes, plan_directories}]]' \
		"$FX/state/progress.json")"
"$LAYOUTCTL" status --state-dir "$FX/state" "$VOL" >"$FX/status.out"
server_rows "$FX/status.out" "the output of layoutctl status"

log_ok=$(fx_linked_ok)
jq -e -s 'map(select(.outcome == "failed")) | length == 0' "$FX"/state/server-*/outcomes.jsonl \
	>/dev/null || fail "failed files in a server's outcome log"
fx_scan_after_fix "$VOL" --no-task-check --rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL"
fx_bricks_check "$VOL" --allow-linked "$log_ok" --sparse "$FX/sparse"
echo "commit hash $(pf_vol_hash "$VOL") on every directory of every brick" >&2

fx_tree manifest "$MP" >"$FX/after" || fail "duplicate names after the fix"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
exit 0
