#!/bin/bash
# tests/integration/pool-selftest.sh: the multi-server pool of tests/integration/pool.sh, for
# real: three glusterds in a network namespace of their own, peers on every node, a distribute
# volume with a brick on each node (files spread over the nodes), grown by two bricks, a node
# killed and restarted, a 2 x 2 distributed-replicate volume with each pair on two nodes grown
# to 3 x 2; the EXIT trap on SIGTERM, lctl_pool_cleanup_stale after an owner was killed with
# SIGKILL; and after teardown no process, namespace, folder or socket of the pool is left. A
# glusterd running outside (the default one, on 0.0.0.0:24007) must not notice any of it.
. "${LCTL_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/pool.sh"

t_start=$(_lctl_pool_now_ms)
work=$(mktemp -d "${TMPDIR:-/tmp}/lctl-pool-selftest.XXXXXX")
lctl_on_exit rm -rf -- "$work"
pool_lib=$LCTL_SRCDIR/tests/integration/pool.sh

# files_on BRICK: data files on a brick (without DHT link files and .glusterfs).
files_on() {
	find "$1" -path "$1/.glusterfs" -prune -o -type f ! -perm -1000 -print | wc -l
}

# wait_file FILE PID ERRFILE: until the background child PID wrote FILE.
wait_file() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -s $1 ]] && return
		kill -0 "$2" 2>/dev/null || break
		sleep 0.2
	done
	[[ -s $1 ]] && return
	fail "child $2 wrote no $1; its stderr: $(cat "$3")"
}

# netns_of PID: the inode of PID's network namespace ("net:[N]").
netns_of() {
	readlink "/proc/$1/ns/net" 2>/dev/null
}

# procs_in_netns NETNS: pids of live processes in that network namespace.
procs_in_netns() {
	local d
	for d in /proc/[0-9]*; do
		[[ $(readlink "$d/ns/net" 2>/dev/null) == "$1" ]] || continue
		_lctl_pool_dead "${d#/proc/}" || echo "${d#/proc/}"
	done
}

# pool_gone NS DIR: nothing is left of a pool: namespace, processes, folder, state file.
pool_gone() {
	local ns=$1 dir=$2 pid
	[[ ! -e /run/netns/$ns ]] || fail "namespace $ns still exists"
	[[ ! -e $dir ]] || fail "pool folder $dir still exists"
	[[ ! -e $LCTL_POOL_STATE_DIR/$ns ]] || fail "state file of $ns still exists"
	for pid in $(pgrep -x 'glusterd|glusterfsd|glusterfs'); do
		[[ $(_lctl_pool_cmdline "$pid") != *"$dir/"* ]] || fail "process $pid of $ns still runs"
	done
	! grep -q " $dir/" /proc/mounts || fail "a mount of $ns is left"
}

host_netns=$(netns_of $$)

# --- the glusterd outside, if one runs: it must not notice anything ---------------------------
outside_pid=''
for pid in $(pgrep -x glusterd); do
	[[ $(netns_of "$pid") == "$host_netns" ]] || continue
	out=$(ss -Hltnp 'sport = :24007' 2>/dev/null) || continue
	[[ $out =~ (0\.0\.0\.0|\*|\[::\]):24007[^$'\n']*pid=$pid, ]] || continue
	outside_pid=$pid
done
if [[ -n $outside_pid ]]; then
	outside_id=$(_lctl_pool_proc_identity "$outside_pid")
	outside_peers=$(gluster --mode=script peer status 2>&1) || fail "the glusterd outside does not answer"
	echo "glusterd outside: pid $outside_pid"
else
	echo "no glusterd outside on 0.0.0.0:24007: not checking that it is untouched"
fi

# --- a 3-node pool ----------------------------------------------------------------------------
lctl_pool_start 3
assert_eq 3 "$LCTL_POOL_N"
assert_eq "127.1.1.1 127.1.1.2 127.1.1.3" "${LCTL_POOL_HOSTS[*]}"
assert_eq "lctlpool$$" "$LCTL_POOL_NS"
[[ -d $LCTL_POOL_DIR && ${LCTL_POOL_DIR##*/} == "lctlpool$$".?????? ]] || fail "bad pool folder '$LCTL_POOL_DIR'"
[[ -e /run/netns/$LCTL_POOL_NS ]] || fail "no namespace $LCTL_POOL_NS"
pool_netns=$(netns_of "$(_lctl_pool_glusterd_pid 1)")
# hold the namespace (not its processes), so that its inode is not reused before we look
exec {pool_ns_fd}<"/run/netns/$LCTL_POOL_NS"
[[ -n $pool_netns && $pool_netns != "$host_netns" ]] || fail "glusterd of node 1 is not in a namespace of its own"

listen=$(lctl_pool_exec ss -Hltn)
for i in 1 2 3; do
	pid=$(_lctl_pool_glusterd_pid "$i") || fail "no glusterd on node $i"
	assert_eq "$pool_netns" "$(netns_of "$pid")" "glusterd of node $i is not in the pool's namespace"
	assert_contains "$listen" "127.1.1.$i:24007" "glusterd of node $i does not listen on its address"
	out=$(lctl_pool_gluster "$i" peer status)
	assert_eq 2 "$(grep -c 'State: Peer in Cluster (Connected)' <<<"$out")" "peers of node $i: $out"
	for j in 1 2 3; do
		((j == i)) || assert_contains "$out" "Hostname: 127.1.1.$j" "node $i does not know node $j by its address"
	done
done
outside=$(ss -Hltnp)
for pid in $(lctl_pool_pids); do
	assert_eq "$pool_netns" "$(netns_of "$pid")" "process $pid is not in the pool's namespace"
	assert_not_contains "$outside" "pid=$pid," "process $pid of the pool listens outside the namespace"
done

# --- distribute, one brick on each node; files spread over the nodes --------------------------
lctl_pool_vol_create DIST dist 1 2 3
[[ $DIST == "lctlpool_$$_"* ]] || fail "volume name $DIST lacks prefix and pid"
assert_eq Distribute "$(lctl_pool_gluster 1 volume info "$DIST" | sed -n 's/^Type: //p')"
assert_eq 3 "${#LCTL_POOL_BRICKS[@]}"
for k in 0 1 2; do
	b=${LCTL_POOL_BRICKS[k]}
	assert_eq "127.1.1.$((k + 1))" "${b%%:*}" "host of brick $k"
	assert_eq "${b#*:}" "${LCTL_POOL_BRICK_PATHS[k]}"
	assert_eq $((k + 1)) "$(lctl_pool_brick_node "$b")"
	assert_eq $((k + 1)) "$(lctl_pool_brick_node "${b#*:}")"
	[[ ${b#*:} == "$LCTL_POOL_DIR/bricks/node$((k + 1))/"* ]] || fail "brick $b is not under its node's folder"
	assert_eq 1 "$(lctl_pool_brick_status "$DIST" "$b")"
done
assert_contains "$(lctl_pool_gluster 1 volume get "$DIST" cluster.lookup-optimize)" on "lookup-optimize"
mapfile -t info_bricks < <(lctl_pool_gluster 2 volume info "$DIST" | sed -n 's/^Brick[0-9]*: //p')
assert_eq "${LCTL_POOL_BRICKS[*]}" "${info_bricks[*]}" "node 2 does not see the bricks in that order"
dist_paths=("${LCTL_POOL_BRICK_PATHS[@]}")

# write_files N: N files through the mount ($LCTL_POOL_MP), inside the namespace
write_files() {
	local i
	mountpoint -q "${LCTL_POOL_MP:-/nonexistent}" || fail "no mount in \$LCTL_POOL_MP"
	[[ $(readlink /proc/self/ns/net) != "$HOST_NETNS" ]] || fail "the command does not run in the namespace"
	for ((i = 1; i <= $1; i++)); do
		echo "file $i" >"$LCTL_POOL_MP/f$i"
	done
}
export HOST_NETNS=$host_netns
lctl_pool_with_mount "$DIST" write_files 60
total=0
for k in 0 1 2; do
	n=$(files_on "${dist_paths[k]}")
	((n > 0)) || fail "no file landed on node $((k + 1)) (brick ${dist_paths[k]})"
	total=$((total + n))
done
assert_eq 60 "$total" "files on the bricks"
! grep -q " $LCTL_POOL_DIR/mnt/" /proc/mounts || fail "the mount of lctl_pool_with_mount is visible outside"
[[ -z $(ls -A "$LCTL_POOL_DIR/mnt") ]] || fail "lctl_pool_with_mount left a mount point"
rc=0
# shellcheck disable=SC2016 # expanded by that bash
lctl_pool_with_mount "$DIST" bash -c 'test -f "$LCTL_POOL_MP/f7" && exit 7' || rc=$?
assert_eq 7 "$rc" "the status of lctl_pool_with_mount's command"

# --- grow to 5 bricks over 3 servers ----------------------------------------------------------
lctl_pool_add_bricks "$DIST" 1 2
assert_eq 5 "${#LCTL_POOL_BRICKS[@]}"
assert_eq 2 "${#LCTL_POOL_NEW_BRICKS[@]}"
assert_eq "${dist_paths[*]}" "${LCTL_POOL_BRICK_PATHS[*]:0:3}" "the old bricks moved"
assert_eq "${LCTL_POOL_NEW_BRICKS[*]}" "${LCTL_POOL_BRICKS[*]:3:2}"
nodes=()
for b in "${LCTL_POOL_BRICKS[@]}"; do nodes+=("$(lctl_pool_brick_node "$b")"); done
assert_eq "1 2 3 1 2" "${nodes[*]}" "nodes of the bricks"
assert_eq "Number of Bricks: 5" "$(lctl_pool_gluster 3 volume info "$DIST" | grep '^Number of Bricks')"
dist_bricks=("${LCTL_POOL_BRICKS[@]}")
# a mount visible outside (client in the namespace): every file is still there
lctl_pool_mount "$DIST" MP
grep -q " $MP fuse.glusterfs " /proc/mounts || fail "lctl_pool_mount's mount is not visible here"
assert_eq "$pool_netns" "$(netns_of "$(pgrep -f -- "--volfile-id=/$DIST $MP" | head -n 1)")" \
	"the client of lctl_pool_mount is not in the namespace"
for i in 1 17 60; do
	assert_eq "file $i" "$(<"$MP/f$i")"
done
assert_eq 60 "$(find "$MP" -type f | wc -l)"
lctl_pool_umount "$MP"
[[ ! -e $MP ]] || fail "lctl_pool_umount left $MP"

# --- node 3 dies, and comes back --------------------------------------------------------------
mapfile -t node3 < <(lctl_pool_node_pids 3)
((${#node3[@]} >= 2)) || fail "node 3 should have a glusterd and a brick: ${node3[*]}"
lctl_pool_kill_node 3
_lctl_pool_dead "${node3[@]}" || fail "processes of node 3 survived"
assert_eq "" "$(lctl_pool_node_pids 3)" "node 3 has processes left"
lctl_pool_wait_brick_status "$DIST" "${dist_bricks[2]}" 0 20
for k in 0 1 3 4; do
	assert_eq 1 "$(lctl_pool_brick_status "$DIST" "${dist_bricks[k]}")" "brick $k of a live node"
done
assert_contains "$(lctl_pool_gluster 1 peer status)" "$(printf 'Hostname: 127.1.1.3\nUuid: %s' \
	"$(sed -n 's/^UUID=//p' "$LCTL_POOL_DIR/node3/wd/glusterd.info")")" "node 1 lost node 3's uuid"
assert_eq 1 "$(lctl_pool_connected_peers 1)" "node 1 should see one peer connected"
assert_contains "$(lctl_pool_gluster 1 peer status)" "Peer in Cluster (Disconnected)"
lctl_pool_restart_node 3
assert_eq 1 "$(lctl_pool_brick_status "$DIST" "${dist_bricks[2]}")" "brick of node 3 after the restart"
lctl_pool_wait_bricks_online "$DIST" 1
for i in 1 2 3; do
	assert_eq 2 "$(lctl_pool_connected_peers "$i")" "peers of node $i after the restart"
done

# --- 2 x 2 distributed-replicate, each pair on two nodes; then 3 x 2 --------------------------
lctl_pool_vol_create REP rep 1 2 3 1
rep_info=$(lctl_pool_gluster 1 volume info "$REP")
assert_eq Distributed-Replicate "$(sed -n 's/^Type: //p' <<<"$rep_info")"
assert_eq "Number of Bricks: 2 x 2 = 4" "$(grep '^Number of Bricks' <<<"$rep_info")"
rep_paths=("${LCTL_POOL_BRICK_PATHS[@]}")
for s in 0 1; do
	na=$(lctl_pool_brick_node "${LCTL_POOL_BRICKS[2 * s]}") nb=$(lctl_pool_brick_node "${LCTL_POOL_BRICKS[2 * s + 1]}")
	((na != nb)) || fail "replica set $s is on one node ($na)"
done
lctl_pool_with_mount "$REP" write_files 20
for ((i = 1; i <= 20; i++)); do
	on=''
	for k in 0 1 2 3; do
		[[ ! -f ${rep_paths[k]}/f$i ]] || on+="$k"
	done
	[[ $on == 01 || $on == 23 ]] || fail "f$i is on bricks '$on', not on both bricks of one replica set"
done
lctl_pool_add_bricks "$REP" 2 3
assert_eq "Number of Bricks: 3 x 2 = 6" "$(lctl_pool_gluster 1 volume info "$REP" | grep '^Number of Bricks')"
assert_eq "2 3" "$(lctl_pool_brick_node "${LCTL_POOL_NEW_BRICKS[0]}") $(lctl_pool_brick_node "${LCTL_POOL_NEW_BRICKS[1]}")"
assert_eq 6 "${#LCTL_POOL_BRICKS[@]}"

# --- other owners: one gets SIGTERM (its EXIT trap, pool.sh alone), one SIGKILL (stale) ---------
# Both end by themselves when this test dies (the first tears its pool down, the second leaves
# it to the next lctl_pool_cleanup_stale).
LCTL_TEST_LOGDIR=$work/term-logs bash -c 'set -euo pipefail; . "$0"; lctl_pool_start 1; lctl_pool_vol_create V dist
	printf "%s %s\n" "$LCTL_POOL_NS" "$LCTL_POOL_DIR" >"$1"; while kill -0 "$2" 2>/dev/null; do sleep 0.1; done' \
	"$pool_lib" "$work/term" $$ 2>"$work/term.err" &
term_pid=$!
bash -c '. "$0"; . "$1"; lctl_pool_start 2; lctl_pool_vol_create V dist 1 2; lctl_pool_mount "$V" M
	echo hello >"$M/x"; printf "%s %s %s\n" "$LCTL_POOL_NS" "$LCTL_POOL_DIR" "$M" >"$2"
	exec bash -c "while kill -0 \$1 2>/dev/null; do sleep 0.2; done" waiter "$3"' \
	"$LCTL_SRCDIR/tests/integration/lib.sh" "$pool_lib" "$work/kill" $$ 2>"$work/kill.err" &
kill_pid=$!
wait_file "$work/term" "$term_pid" "$work/term.err"
wait_file "$work/kill" "$kill_pid" "$work/kill.err"
read -r term_ns term_dir <"$work/term"
read -r kill_ns kill_dir kill_mp <"$work/kill"
assert_eq "lctlpool$term_pid" "$term_ns"
kill -TERM "$term_pid"
rc=0
wait "$term_pid" || rc=$?
assert_eq 143 "$rc" "exit status of the child that got SIGTERM ($(cat "$work/term.err"))"
pool_gone "$term_ns" "$term_dir"
[[ -s $work/term-logs/pool/node1/glusterd.log ]] || fail "the logs of the pool that ended with 143 were not kept"

kill -KILL "$kill_pid"
wait "$kill_pid" 2>/dev/null || true
kill_netns=$(netns_of "$(cat "$kill_dir/node1/glusterd.pid")")
[[ -n $kill_netns ]] || fail "the killed owner's glusterd should still run"
exec {kill_ns_fd}<"/run/netns/$kill_ns"
grep -q " $kill_mp fuse.glusterfs " /proc/mounts || fail "the killed owner's mount should still be there"
lctl_pool_cleanup_stale
pool_gone "$kill_ns" "$kill_dir"
assert_eq "" "$(procs_in_netns "$kill_netns")" "processes of the killed owner's pool are left"
exec {kill_ns_fd}<&-
# ... and our own, live pool is untouched
assert_eq 2 "$(lctl_pool_connected_peers 1)"
lctl_pool_wait_bricks_online "$DIST" 1
lctl_pool_wait_bricks_online "$REP" 1

# --- teardown ---------------------------------------------------------------------------------
ns=$LCTL_POOL_NS dir=$LCTL_POOL_DIR
mapfile -t pids < <(lctl_pool_pids)
((${#pids[@]} >= 14)) || fail "expected 3 glusterds, 11 bricks and self-heal daemons, got ${#pids[@]} processes"
_lctl_pool_record_sockets
mapfile -t sockets <"$dir/sockets"
((${#sockets[@]} >= 11)) || fail "expected a socket per brick, got: ${sockets[*]}"
lctl_pool_teardown
assert_eq "" "$LCTL_POOL_NS" "LCTL_POOL_NS after teardown"
pool_gone "$ns" "$dir"
_lctl_pool_dead "${pids[@]}" || fail "processes of the pool are left"
assert_eq "" "$(procs_in_netns "$pool_netns")" "processes in the pool's namespace are left"
exec {pool_ns_fd}<&-
for s in "${sockets[@]}"; do
	[[ ! -e $s ]] || fail "socket $s is left"
done
[[ -z $(find /var/log/glusterfs -name "*lctlpool$$*" 2>/dev/null) ]] || fail "the pool wrote logs to /var/log/glusterfs"

# --- the glusterd outside did not notice ------------------------------------------------------
if [[ -n $outside_pid ]]; then
	assert_eq "$outside_id" "$(_lctl_pool_proc_identity "$outside_pid")" "the glusterd outside was restarted or killed"
	out=$(gluster --mode=script peer status 2>&1) || fail "the glusterd outside does not answer: $out"
	assert_eq "$outside_peers" "$out" "the peers of the glusterd outside changed"
	assert_not_contains "$(gluster --mode=script volume list 2>&1)" "lctlpool_" "a pool volume reached the glusterd outside"
	[[ ! -e /var/lib/glusterd/vols/$DIST ]] || fail "the pool's volume is in /var/lib/glusterd"
fi
echo "pool selftest passed ($(($(_lctl_pool_now_ms) - t_start)) ms)"
