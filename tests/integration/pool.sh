# shellcheck shell=bash
# tests/integration/pool.sh: a throwaway pool of several GlusterFS servers on this one machine,
# for the tests that need more than one server (peers, bricks on different nodes, a node that
# dies). A bash library: `source` it (alone, or with tests/integration/lib.sh / harness.sh, in
# either order). It sets no shell options, works under `set -euo pipefail`, and only defines
# lctl_pool_* / _lctl_pool_* functions and LCTL_POOL_* / _LCTL_POOL_* variables.
#
# It is built the way GlusterFS's own regression tests build theirs (tests/cluster.rc): one
# glusterd per node I, bound to 127.1.1.I, each with its own working directory, run directory,
# log directory, CLI socket and pid file. Unlike cluster.rc, the whole pool lives in a network
# namespace of its own (lctlpool<owner pid>), whose loopback holds 127.0.0.0/8: the pool's
# glusterds, bricks, self-heal daemons and clients talk over that loopback only, and neither
# clash with nor can be reached by a glusterd running outside (the default one on
# 0.0.0.0:24007 is left alone: its peers, volumes, logs and run directory are never touched).
#
# Needs root, GlusterFS (glusterd, gluster, mount.glusterfs), iproute2 (ip netns), nsenter,
# xmllint, getfattr/setfattr, flock.
#
# Split mode (LCTL_POOL_SPLIT=1 before lctl_pool_start): each node is a server of its own on the
# network, for what one shared loopback cannot show (which server sends what, a capped link per
# server). Node I lives in a network namespace of its own, lctlpool<pid>-I, with the address
# $LCTL_POOL_SPLIT_NET.I/24 (10.211.0.I by default) on a veth, lctl0, whose peer is a port of a
# bridge in a "switch" namespace, lctlpool<pid> (LCTL_POOL_NS, which then holds no GlusterFS
# process). These addresses exist only inside the pool's namespaces (no route leads out of them).
# Glusterd I binds its address, the bricks of node I are created on it (and so run in node I's
# namespace), and a client in node I's namespace reaches node I's bricks over that namespace's
# lo, as on a real server: only traffic between nodes crosses the veths, which is what
# lctl_pool_cap_egress caps and lctl_pool_tx_bytes counts. lctl_pool_exec, the mounts and
# lctl_pool_with_mount then run in node 1's namespace (a client on server 1), and
# lctl_pool_gluster I in node I's.
#
# Clients of the pool run inside the namespace and name a server: a gfapi program as
# `lctl_pool_exec "$LAYOUTCTL" --server 127.1.1.1 ...`. Beware: a plain `gluster` (no
# --glusterd-sock) talks to /var/run/glusterd.socket, and unix sockets do not belong to a
# network namespace: even inside the namespace it reaches the glusterd OUTSIDE the pool (so
# does anything that runs the gluster CLI by itself). Use lctl_pool_gluster.
#
# Public functions (node numbers I are 1..LCTL_POOL_N; node I is 127.1.1.I):
#	lctl_pool_start [N]			remove stale pools, then start an N-node pool (default 3):
#						namespace, N glusterds, peers probed from node 1 and all
#						"Peer in Cluster (Connected)" on every node
#	lctl_pool_gluster I ARGS...		gluster --mode=script ARGS against node I's glusterd,
#						retried while glusterd is busy (like lctl_gluster)
#	lctl_pool_exec CMD...			run CMD inside the pool's network namespace (split
#						mode: node 1's)
#	lctl_pool_exec_on I CMD...		run CMD in node I's network namespace (the pool's
#						one namespace, unless split)
#	lctl_pool_ns I				the name of node I's network namespace
#	lctl_pool_rsh_env			export what tests/integration/tools/local-rsh needs to
#						stand in for ssh to a node: LCTL_POOL_GLUSTERD_DIRS
#						(each node's glusterd working directory) and, in split
#						mode, LCTL_POOL_RSH_NETNS (each node's namespace); and,
#						as layoutctl hands a remote shell none of its caller's
#						environment, write them into a remote shell of the pool,
#						$LCTL_POOL_RSH (local-rsh with them), for --rsh
#	lctl_pool_cap_egress I RATE|off		split mode: cap what node I sends to the other nodes
#						at RATE (tc units: 200mbit, 25mbps = 25 MB/s; tbf on
#						node I's veth), or lift the cap
#	lctl_pool_tx_bytes I, lctl_pool_rx_bytes I
#						split mode: bytes node I has sent to / received from
#						the other nodes (its veth's counters; take differences)
#	lctl_pool_vol_create NAMEVAR KIND [NODE...]
#						KIND dist (one brick per NODE), rep (replica 2: NODEs
#						in pairs), disp (disperse 3 redundancy 1: NODEs in
#						threes). Default NODEs: dist 1..N; rep 1 2 3 1 (2 x 2,
#						each pair on two nodes); disp 1 2 3. Created from node 1
#						with lookup-optimize on, started, every brick online.
#						The name (lctlpool_<pid>_<n>) -> $NAMEVAR
#	lctl_pool_add_bricks VOL NODE...	add one brick on each NODE (a multiple of the set size,
#						in sets, like create); wait until every brick is online
#	lctl_pool_vol_destroy VOL		stop and delete VOL (made by lctl_pool_vol_create) and
#						remove its bricks' folders, now (teardown does it otherwise)
#	lctl_pool_vol_bricks VOL ARRAYVAR	the bricks of VOL as host:path, in volume order
#	lctl_pool_brick_node BRICK		the node number of a brick (host:path or path)
#	lctl_pool_brick_status VOL BRICK [I]	1 if node I (default 1) reports BRICK online, else 0
#						(a brick of a dead node is not listed at all: 0)
#	lctl_pool_wait_brick_status VOL BRICK 0|1 [TIMEOUT]
#						wait until node 1 reports BRICK offline (0) / online (1)
#	lctl_pool_wait_bricks_online VOL [TIMEOUT]
#						wait until node 1 reports every brick of VOL online
#	lctl_pool_connected_peers I		how many peers node I sees "Peer in Cluster (Connected)"
#	lctl_pool_with_mount VOL CMD...		in ONE `ip netns exec`: FUSE-mount VOL (from node 1),
#						run CMD with $LCTL_POOL_MP set to the mount point,
#						unmount; returns CMD's status. CMD may be a shell
#						function of the caller (all functions and the errexit,
#						nounset and pipefail settings are passed on; variables
#						only when exported)
#	lctl_pool_mount VOL [VAR]		FUSE mount visible to the whole machine (the client
#						process runs in the pool's network namespace, the mount
#						is in the caller's mount namespace); mount point -> $VAR
#						or stdout
#	lctl_pool_umount MOUNTPOINT		unmount and remove the mount point
#	lctl_pool_node_pids I			pids of node I's processes: glusterd, bricks, self-heal
#						daemon, rebalance (one a line)
#	lctl_pool_pids				pids of every process in the pool's namespace (split
#						mode: in the switch's and every node's)
#	lctl_pool_kill_node I			SIGKILL node I's glusterd and all its processes, remove
#						their pid files (as cluster.rc's kill_node)
#	lctl_pool_restart_node I		start node I's glusterd again; wait until the peers are
#						connected and every brick of every started volume is
#						online (`volume start VOL force` if glusterd did not
#						restart them)
#	lctl_pool_teardown			tear the pool down now (the EXIT hook does it otherwise)
#	lctl_pool_cleanup_stale			remove the pools (namespace, processes, mounts, sockets,
#						folder) of owners that are no longer running
# After lctl_pool_start: LCTL_POOL_NS (namespace; split mode: the switch's), LCTL_POOL_N,
# LCTL_POOL_DIR (the pool's temp folder) and LCTL_POOL_HOSTS (127.1.1.1 ... 127.1.1.N; split
# mode: 10.211.0.1 ... 10.211.0.N). After lctl_pool_vol_create and
# lctl_pool_add_bricks: LCTL_POOL_BRICKS (host:path, volume order), LCTL_POOL_BRICK_PATHS (the
# same, paths only) and, after add, LCTL_POOL_NEW_BRICKS (host:path of the bricks added).
#
# Layout of LCTL_POOL_DIR (a folder <base>/lctlpool<pid>.XXXXXX on a filesystem with trusted.*
# xattrs): owner (who owns it), sockets (the brick and daemon sockets the pool made in
# /var/run/gluster, which GlusterFS puts there whatever the run directory), node<I>/{wd,run,log}
# (glusterd's working, run and log directories), node<I>/gd.sock (its CLI socket),
# node<I>/glusterd.pid, bricks/node<I>/<volume>/b<K> (brick K of a volume, on node I), mnt/
# (mount points), clients/ (client logs), tmp/.
#
# One pool per process, started from the main shell (not from a $(...) subshell). Ownership:
# a state file $LCTL_POOL_STATE_DIR/lctlpool<pid> and the folder's owner file name the owner
# (pid, process start time, boot id); they are written, under a lock, before the namespace
# exists, so lctl_pool_cleanup_stale never takes a pool that is being created. At exit (the
# lctl_on_exit hook of harness.sh when that is sourced, else an EXIT trap that keeps an earlier
# one), the process that started the pool tears it down: graceful first (bricks stopped,
# volumes stopped and deleted from node 1), then every process in the namespace (split mode:
# in the switch's and the nodes' namespaces) is killed (SIGTERM, then SIGKILL), mounts under the
# folder are unmounted, the namespaces, the recorded sockets and the folder are removed. When the exit status is not 0, the pool's GlusterFS logs
# are first copied to $LCTL_TEST_LOGDIR/pool/. INT, TERM and HUP exit with 130, 143 and 129
# unless the script already traps them.
#
# Settings (environment; defaults in brackets):
#	LCTL_POOL_BASE [/var/tmp, else /tmp]	where the pool's folder goes (trusted.* xattrs)
#	LCTL_POOL_STATE_DIR [/run/lctl-pool]	state files and the lock
#	LCTL_POOL_TIMEOUT [$LCTL_TIMEOUT, else 60]	seconds for glusterd, peer, brick and busy waits
#	LCTL_POOL_KEEP, LCTL_KEEP_VOLUMES	non-empty: leave the pool at exit (the next start removes it)
#	LCTL_POOL_SPLIT []			1: the next lctl_pool_start makes a split pool (above)
#	LCTL_POOL_SPLIT_NET [10.211.0]		split mode: the first three octets of the nodes' addresses
#	LCTL_TEST_LOGDIR		where logs are kept when the test fails

[[ -z ${_LCTL_POOL_LOADED:-} ]] || return 0
_LCTL_POOL_LOADED=1

: "${LCTL_POOL_BASE:=}"
: "${LCTL_POOL_STATE_DIR:=/run/lctl-pool}"
: "${LCTL_POOL_TIMEOUT:=${LCTL_TIMEOUT:-60}}"
: "${LCTL_POOL_SPLIT:=}"
: "${LCTL_POOL_SPLIT_NET:=10.211.0}"
LCTL_POOL_NS=
LCTL_POOL_N=0
LCTL_POOL_DIR=
LCTL_POOL_RSH=
LCTL_POOL_HOSTS=()
LCTL_POOL_BRICKS=()
LCTL_POOL_BRICK_PATHS=()
LCTL_POOL_NEW_BRICKS=()
_LCTL_POOL_SEQ=0
_LCTL_POOL_NS_PREFIX=lctlpool
_LCTL_POOL_VOL_PREFIX=lctlpool_
_LCTL_POOL_NET=127.1.1
_LCTL_POOL_SPLIT=      # 1 while this process's pool is a split one
_LCTL_POOL_IF=lctl0    # split mode: a node's veth, in its namespace
_LCTL_POOL_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
_LCTL_POOL_PREV_TRAP=

# --- messages, small utilities ------------------------------------------------------------------

_lctl_pool_note() {
	printf 'pool: %s\n' "$*" >&2
}

# Setup failures are not test failures: exit 99, automake's "hard error".
_lctl_pool_hard() {
	printf 'pool: error: %s\n' "$*" >&2
	exit 99
}

_lctl_pool_now_ms() {
	local t=${EPOCHREALTIME/,/.}
	printf '%s' "$((${t%.*} * 1000 + 10#${t#*.} / 1000))"
}

_lctl_pool_xpath() {
	xmllint --xpath "string($2)" - <<<"$1" 2>/dev/null || true
}

_lctl_pool_xpath_list() {
	xmllint --xpath "$2" - <<<"$1" 2>/dev/null || true
}

# The owner identity of process PID: "<start time in clock ticks> <boot id>", or nothing.
_lctl_pool_proc_identity() {
	local stat boot fields
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	read -r boot </proc/sys/kernel/random/boot_id
	read -ra fields <<<"${stat##*) }"
	printf '%s %s' "${fields[19]}" "$boot"
}

# _lctl_pool_kv FILE KEY: a value from a key=value file.
_lctl_pool_kv() {
	local k v
	[[ -f $1 ]] || return 1
	while IFS='=' read -r k v; do
		[[ $k != "$2" ]] || {
			printf '%s' "$v"
			return 0
		}
	done <"$1"
	return 1
}

# _lctl_pool_dead PID...: every PID has exited (a zombie counts as exited).
_lctl_pool_dead() {
	local pid st
	for pid; do
		[[ -e /proc/$pid ]] || continue
		st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
		[[ -z $st || $st == Z || $st == X ]] || return 1
	done
}

# _lctl_pool_wait_dead MS PID...: wait up to MS milliseconds until every PID has exited.
_lctl_pool_wait_dead() {
	local deadline=$(($(_lctl_pool_now_ms) + $1))
	shift
	until _lctl_pool_dead "$@"; do
		(($(_lctl_pool_now_ms) < deadline)) || return 1
		sleep 0.05
	done
}

# _lctl_pool_cmdline PID: the command line, arguments separated by spaces.
_lctl_pool_cmdline() {
	local a=()
	mapfile -d '' -t a 2>/dev/null <"/proc/$1/cmdline" || return 1
	printf '%s' "${a[*]}"
}

_lctl_pool_require() {
	[[ -n $LCTL_POOL_NS ]] || _lctl_pool_hard "${FUNCNAME[1]}: no pool (lctl_pool_start first)"
}

_lctl_pool_check_node() {
	if [[ ! $1 =~ ^[1-9][0-9]*$ ]] || (($1 > LCTL_POOL_N)); then
		_lctl_pool_hard "${FUNCNAME[1]}: no node '$1' (the pool has nodes 1..$LCTL_POOL_N)"
	fi
}

# --- the namespace ------------------------------------------------------------------------------

_lctl_pool_ns_exists() {
	[[ -e /run/netns/$1 ]]
}

# _lctl_pool_all_ns NS: the namespaces of pool NS that exist: NS and (split mode) the nodes'
# NS-<I>, one a line.
_lctl_pool_all_ns() {
	local f re="^${1//./\\.}-[0-9]+\$"
	! _lctl_pool_ns_exists "$1" || printf '%s\n' "$1"
	for f in /run/netns/"$1"-*; do
		[[ -e $f && ${f##*/} =~ $re ]] && printf '%s\n' "${f##*/}"
	done
	return 0
}

# _lctl_pool_ns_pids NS: the pids of every process in the namespaces of pool NS, one a line.
_lctl_pool_ns_pids() {
	local n
	for n in $(_lctl_pool_all_ns "$1"); do
		ip netns pids "$n" 2>/dev/null || true
	done
}

lctl_pool_pids() {
	_lctl_pool_require
	_lctl_pool_ns_pids "$LCTL_POOL_NS"
}

# _lctl_pool_nsof I: node I's namespace, without checks (for internal callers).
_lctl_pool_nsof() {
	if [[ -n $_LCTL_POOL_SPLIT ]]; then
		printf '%s\n' "$LCTL_POOL_NS-$1"
	else
		printf '%s\n' "$LCTL_POOL_NS"
	fi
}

lctl_pool_ns() {
	_lctl_pool_require
	_lctl_pool_check_node "${1:-}"
	_lctl_pool_nsof "$1"
}

lctl_pool_exec() {
	_lctl_pool_require
	ip netns exec "$(_lctl_pool_nsof 1)" "$@"
}

lctl_pool_exec_on() {
	local node=${1:-}
	_lctl_pool_require
	_lctl_pool_check_node "$node"
	shift
	ip netns exec "$(_lctl_pool_nsof "$node")" "$@"
}

# _lctl_pool_split_net: make the switch (a bridge in LCTL_POOL_NS) and, for each node I, its
# namespace with lo and the veth lctl0 ($_LCTL_POOL_NET.I/24), whose peer n<I> is a port of
# the bridge. Nothing of it is in the caller's namespace.
_lctl_pool_split_net() {
	local i ns=$LCTL_POOL_NS
	if ! { ip -n "$ns" link add br0 type bridge && ip -n "$ns" link set br0 up; }; then
		_lctl_pool_hard "cannot create the bridge in $ns"
	fi
	for ((i = 1; i <= LCTL_POOL_N; i++)); do
		! _lctl_pool_ns_exists "$ns-$i" || _lctl_pool_hard "namespace $ns-$i exists already"
		ip netns add "$ns-$i" || _lctl_pool_hard "cannot create network namespace $ns-$i"
		if ! { ip -n "$ns" link add "n$i" type veth peer name "$_LCTL_POOL_IF" netns "$ns-$i" &&
			ip -n "$ns" link set "n$i" master br0 &&
			ip -n "$ns" link set "n$i" up &&
			ip -n "$ns-$i" link set lo up &&
			ip -n "$ns-$i" addr add "$_LCTL_POOL_NET.$i/24" dev "$_LCTL_POOL_IF" &&
			ip -n "$ns-$i" link set "$_LCTL_POOL_IF" up; }; then
			_lctl_pool_hard "cannot connect node $i's namespace $ns-$i to the switch"
		fi
	done
}

_lctl_pool_require_split() {
	_lctl_pool_require
	[[ -n $_LCTL_POOL_SPLIT ]] ||
		_lctl_pool_hard "${FUNCNAME[1]}: only in split mode (LCTL_POOL_SPLIT=1 before lctl_pool_start)"
}

lctl_pool_cap_egress() {
	local node=${1:-} rate=${2:-} ns
	_lctl_pool_require_split
	_lctl_pool_check_node "$node"
	command -v tc >/dev/null || _lctl_pool_hard "'tc' (iproute2) is not installed"
	ns=$(_lctl_pool_nsof "$node")
	if [[ $rate == off ]]; then
		tc -n "$ns" qdisc del dev "$_LCTL_POOL_IF" root 2>/dev/null || true
		return 0
	fi
	[[ $rate =~ ^[0-9]+(\.[0-9]+)?[A-Za-z]*$ ]] ||
		_lctl_pool_hard "lctl_pool_cap_egress: RATE must be a tc rate (200mbit, 25mbps) or off, not '$rate'"
	# A token bucket (tbf: in every kernel that has traffic control, unlike fq_codel), with a
	# queue of 50 ms at that rate, as on a link that is the bottleneck; larger GSO packets are
	# segmented to fit the 128 KB burst.
	tc -n "$ns" qdisc replace dev "$_LCTL_POOL_IF" root tbf rate "$rate" burst 128kb latency 50ms ||
		_lctl_pool_hard "cannot cap node $node's egress at $rate"
}

# _lctl_pool_counter I NAME: a statistics counter of node I's veth.
_lctl_pool_counter() {
	local v
	_lctl_pool_require_split
	_lctl_pool_check_node "${1:-}"
	v=$(ip netns exec "$(_lctl_pool_nsof "$1")" cat "/sys/class/net/$_LCTL_POOL_IF/statistics/$2") || v=
	[[ $v =~ ^[0-9]+$ ]] || _lctl_pool_hard "cannot read $2 of node $1's $_LCTL_POOL_IF"
	printf '%s\n' "$v"
}

lctl_pool_tx_bytes() {
	_lctl_pool_counter "${1:-}" tx_bytes
}

lctl_pool_rx_bytes() {
	_lctl_pool_counter "${1:-}" rx_bytes
}

lctl_pool_rsh_env() {
	local i wds=() nss=()
	_lctl_pool_require
	for ((i = 1; i <= LCTL_POOL_N; i++)); do
		wds+=("$_LCTL_POOL_NET.$i=$LCTL_POOL_DIR/node$i/wd")
		nss+=("$_LCTL_POOL_NET.$i=$(_lctl_pool_nsof "$i")")
	done
	export LCTL_POOL_GLUSTERD_DIRS="${wds[*]}"
	if [[ -n $_LCTL_POOL_SPLIT ]]; then
		export LCTL_POOL_RSH_NETNS="${nss[*]}"
	else
		unset LCTL_POOL_RSH_NETNS
	fi
	LCTL_POOL_RSH=$LCTL_POOL_DIR/rsh
	{
		printf '#!/bin/sh\n# tools/local-rsh for pool %s (lctl_pool_rsh_env)\n' "$LCTL_POOL_NS"
		printf 'LCTL_POOL_GLUSTERD_DIRS=%s\nexport LCTL_POOL_GLUSTERD_DIRS\n' \
			"$(_lctl_pool_shq "$LCTL_POOL_GLUSTERD_DIRS")"
		[[ -z ${LCTL_POOL_RSH_NETNS:-} ]] ||
			printf 'LCTL_POOL_RSH_NETNS=%s\nexport LCTL_POOL_RSH_NETNS\n' \
				"$(_lctl_pool_shq "$LCTL_POOL_RSH_NETNS")"
		printf 'exec %s "$@"\n' \
			"$(_lctl_pool_shq "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tools/local-rsh")"
	} >"$LCTL_POOL_RSH" && chmod 0755 "$LCTL_POOL_RSH" ||
		_lctl_pool_hard "cannot write $LCTL_POOL_RSH"
}

# _lctl_pool_shq WORD: WORD quoted for sh (single quotes)
_lctl_pool_shq() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

# --- gluster CLI --------------------------------------------------------------------------------

# _lctl_pool_cli I ARGS...: one CLI call against node I (no retries), time-boxed.
_lctl_pool_cli() {
	local d=$LCTL_POOL_DIR/node$1 t=$((LCTL_POOL_TIMEOUT > 10 ? 2 * LCTL_POOL_TIMEOUT : 20)) ns
	ns=$(_lctl_pool_nsof "$1")
	shift
	timeout -k 5 "$t" ip netns exec "$ns" gluster --mode=script --glusterd-sock="$d/gd.sock" \
		--log-file="$d/log/cli.log" "$@"
}

# lctl_pool_gluster I ARGS...: like harness.sh's lctl_gluster, against node I's glusterd (its
# own CLI socket). "Another transaction is in progress", "Locking failed" and "Connection
# failed" are retried until LCTL_POOL_TIMEOUT. With --xml, opRet decides.
lctl_pool_gluster() {
	local node=${1:-} out err rc errf deadline xml='' arg
	_lctl_pool_require
	_lctl_pool_check_node "$node"
	shift
	for arg; do [[ $arg != --xml ]] || xml=1; done
	errf=$(mktemp "$LCTL_POOL_DIR/tmp/cli.XXXXXX")
	deadline=$(($(_lctl_pool_now_ms) + LCTL_POOL_TIMEOUT * 1000))
	while :; do
		rc=0
		out=$(_lctl_pool_cli "$node" "$@" 2>"$errf") || rc=$?
		err=$(<"$errf")
		if ((rc == 0)) && [[ -n $xml ]] && [[ $(_lctl_pool_xpath "$out" /cliOutput/opRet) != 0 ]]; then
			rc=1
			err=$(_lctl_pool_xpath "$out" /cliOutput/opErrstr)
			[[ -n $err ]] || err="gluster $* failed: $out"
		fi
		((rc != 0)) || break
		case $err$out in
		*"Another transaction is in progress"* | *"ocking failed"* | *"try again after some time"* | \
			*"Connection failed. Please check if gluster daemon is operational"*)
			(($(_lctl_pool_now_ms) < deadline)) || break
			sleep "0.$((RANDOM % 3 + 2))"
			continue
			;;
		esac
		break
	done
	rm -f -- "$errf"
	[[ -z $out ]] || printf '%s\n' "$out"
	[[ -z $err ]] || printf '%s\n' "$err" >&2
	return "$rc"
}

# --- glusterds ----------------------------------------------------------------------------------

# _lctl_pool_glusterd_start I: start node I's glusterd in the namespace, with the options of
# cluster.rc: working, run and log directory, CLI socket, bind address, pid file. A clean
# environment, no inherited stdout (nobody must wait for a pipe the daemon keeps).
_lctl_pool_glusterd_start() {
	local d=$LCTL_POOL_DIR/node$1
	mkdir -p -- "$d/wd" "$d/run" "$d/log" || _lctl_pool_hard "cannot create $d"
	rm -f -- "$d/glusterd.pid"
	env -i PATH="$_LCTL_POOL_PATH" LANG=C.UTF-8 \
		ip netns exec "$(_lctl_pool_nsof "$1")" glusterd -p "$d/glusterd.pid" --log-file="$d/log/glusterd.log" \
		--xlator-option "management.working-directory=$d/wd" \
		--xlator-option "management.transport.socket.bind-address=$_LCTL_POOL_NET.$1" \
		--xlator-option "management.run-directory=$d/run" \
		--xlator-option "management.glusterd-sockfile=$d/gd.sock" \
		--xlator-option "management.logging-directory=$d/log" \
		</dev/null >/dev/null 2>&1 || _lctl_pool_hard "cannot start glusterd of node $1 (log $d/log/glusterd.log)"
}

_lctl_pool_glusterd_answers() {
	timeout 20 ip netns exec "$(_lctl_pool_nsof "$1")" gluster --mode=script --glusterd-sock="$LCTL_POOL_DIR/node$1/gd.sock" \
		--log-file="$LCTL_POOL_DIR/node$1/log/cli.log" peer status >/dev/null 2>&1
}

_lctl_pool_wait_glusterd() {
	local deadline=$(($(_lctl_pool_now_ms) + LCTL_POOL_TIMEOUT * 1000)) log=$LCTL_POOL_DIR/node$1/log/glusterd.log
	until _lctl_pool_glusterd_answers "$1"; do
		if (($(_lctl_pool_now_ms) >= deadline)); then
			_lctl_pool_note "glusterd of node $1 does not answer; last lines of $log:"
			tail -n 20 "$log" >&2 2>/dev/null || true
			_lctl_pool_hard "glusterd of node $1 does not answer after ${LCTL_POOL_TIMEOUT}s"
		fi
		sleep 0.1
	done
}

# _lctl_pool_glusterd_pid I: the pid of node I's glusterd, if it runs.
_lctl_pool_glusterd_pid() {
	local pid=''
	read -r pid 2>/dev/null <"$LCTL_POOL_DIR/node$1/glusterd.pid" || return 1
	[[ $pid =~ ^[1-9][0-9]*$ ]] && ! _lctl_pool_dead "$pid" &&
		[[ $(_lctl_pool_cmdline "$pid") == *" -p $LCTL_POOL_DIR/node$1/glusterd.pid "* ]] || return 1
	printf '%s\n' "$pid"
}

lctl_pool_connected_peers() {
	local out
	out=$(lctl_pool_gluster "$1" peer status 2>/dev/null) || {
		echo 0
		return 0
	}
	grep -c 'State: Peer in Cluster (Connected)' <<<"$out" || true
}

# _lctl_pool_wait_peers I...: until each node I sees all the other nodes connected.
_lctl_pool_wait_peers() {
	local i n deadline=$(($(_lctl_pool_now_ms) + LCTL_POOL_TIMEOUT * 1000))
	for i; do
		while n=$(lctl_pool_connected_peers "$i") && ((n != LCTL_POOL_N - 1)); do
			if (($(_lctl_pool_now_ms) >= deadline)); then
				lctl_pool_gluster "$i" peer status >&2 || true
				_lctl_pool_hard "node $i sees $n of $((LCTL_POOL_N - 1)) peers connected after ${LCTL_POOL_TIMEOUT}s"
			fi
			sleep 0.2
		done
	done
}

# _lctl_pool_probe I: peer probe 127.1.1.I from node 1 (retried: node I may still be starting).
_lctl_pool_probe() {
	local out deadline=$(($(_lctl_pool_now_ms) + LCTL_POOL_TIMEOUT * 1000))
	until out=$(lctl_pool_gluster 1 peer probe "$_LCTL_POOL_NET.$1" 2>&1); do
		[[ $out != *"already in peer list"* ]] || return 0
		(($(_lctl_pool_now_ms) < deadline)) || _lctl_pool_hard "peer probe $_LCTL_POOL_NET.$1 failed: $out"
		sleep 0.3
	done
}

# --- ownership, stale pools ---------------------------------------------------------------------

# _lctl_pool_lock / _lctl_pool_unlock: the lock under which pools are claimed and cleaned up.
# Never held while a daemon is started (it would inherit the lock for good).
_lctl_pool_lock() {
	mkdir -p -- "$LCTL_POOL_STATE_DIR" || _lctl_pool_hard "cannot create $LCTL_POOL_STATE_DIR"
	exec {_LCTL_POOL_LOCKFD}>>"$LCTL_POOL_STATE_DIR/lock"
	flock -w "$LCTL_POOL_TIMEOUT" "$_LCTL_POOL_LOCKFD" || _lctl_pool_note "could not take $LCTL_POOL_STATE_DIR/lock"
}

_lctl_pool_unlock() {
	exec {_LCTL_POOL_LOCKFD}>&-
}

# _lctl_pool_bases: the candidate folders for pool folders.
_lctl_pool_bases() {
	local b
	local -A seen=()
	for b in ${LCTL_POOL_BASE:-} /var/tmp /tmp; do
		[[ -z ${seen[$b]:-} ]] || continue
		seen[$b]=1
		printf '%s\n' "$b"
	done
}

# _lctl_pool_find_base: the first candidate whose filesystem takes trusted.* xattrs.
_lctl_pool_find_base() {
	local base probe ok
	for base in ${LCTL_POOL_BASE:-/var/tmp /tmp}; do
		ok=''
		probe=$(mktemp -d "$base/lctlpool-xattr-probe.XXXXXX" 2>/dev/null) || continue
		setfattr -n trusted.lctl.probe -v 1 "$probe" 2>/dev/null &&
			[[ $(getfattr --absolute-names --only-values -n trusted.lctl.probe "$probe" 2>/dev/null) == 1 ]] &&
			ok=1
		rm -rf -- "$probe"
		if [[ -n $ok ]]; then
			printf '%s\n' "$base"
			return 0
		fi
		_lctl_pool_note "$base does not support trusted.* xattrs, not using it for bricks"
	done
	_lctl_pool_hard "no folder for bricks supports trusted.* xattrs" \
		"(tried ${LCTL_POOL_BASE:-/var/tmp /tmp}; set LCTL_POOL_BASE)"
}

# _lctl_pool_alive PID ID: is PID still the process that had identity ID?
_lctl_pool_alive() {
	[[ $1 =~ ^[0-9]+$ && -n $2 && $(_lctl_pool_proc_identity "$1") == "$2" ]]
}

# _lctl_pool_sockets_of PID...: the -S sockets (/var/run/gluster/...) on these command lines.
_lctl_pool_sockets_of() {
	local pid a=() i
	for pid; do
		mapfile -d '' -t a 2>/dev/null <"/proc/$pid/cmdline" || continue
		for ((i = 0; i + 1 < ${#a[@]}; i++)); do
			[[ ${a[i]} == -S && ${a[i + 1]} == /*.socket ]] && printf '%s\n' "${a[i + 1]}"
		done
	done
	return 0
}

# _lctl_pool_record_sockets: remember the sockets the pool's processes made outside the folder.
_lctl_pool_record_sockets() {
	local f=$LCTL_POOL_DIR/sockets new
	# shellcheck disable=SC2046 # one pid a word
	new=$(_lctl_pool_sockets_of $(_lctl_pool_ns_pids "$LCTL_POOL_NS"))
	[[ -n $new ]] || return 0
	{
		[[ ! -f $f ]] || cat -- "$f"
		printf '%s\n' "$new"
	} | sort -u >"$f.tmp" && mv -f -- "$f.tmp" "$f"
}

# _lctl_pool_kill_all NS DIR: end every process of a pool: those in its namespace, and (should
# the namespace be gone already) gluster processes whose command line names its folder.
_lctl_pool_kill_all() {
	local ns=$1 dir=$2 pid pids=() cmd sig re
	re="^${_LCTL_POOL_NS_PREFIX}[0-9]+\.[A-Za-z0-9]{6}\$"
	# only a real pool folder name may select processes by command line
	[[ ${dir##*/} =~ $re ]] || dir=
	# KILL twice: glusterd may have started something while it got TERM
	for sig in TERM KILL KILL; do
		pids=()
		for pid in $(_lctl_pool_ns_pids "$ns"); do
			[[ $pid != "$$" && $pid != "$BASHPID" ]] && pids+=("$pid")
		done
		if [[ -n $dir ]]; then
			for pid in $(pgrep -x 'glusterd|glusterfsd|glusterfs' 2>/dev/null); do
				cmd=$(_lctl_pool_cmdline "$pid") || continue
				[[ $cmd == *"$dir/"* ]] && pids+=("$pid")
			done
		fi
		((${#pids[@]})) || return 0
		kill -"$sig" "${pids[@]}" 2>/dev/null || true
		_lctl_pool_wait_dead "$([[ $sig == TERM ]] && echo 3000 || echo 10000)" "${pids[@]}" || true
	done
	pids=()
	for pid in $(_lctl_pool_ns_pids "$ns"); do
		_lctl_pool_dead "$pid" || pids+=("$pid")
	done
	((${#pids[@]} == 0)) || {
		_lctl_pool_note "processes of pool $ns still running: ${pids[*]}"
		return 1
	}
}

# _lctl_pool_umount_under DIR: unmount every mount (in our mount namespace) below DIR.
_lctl_pool_umount_under() {
	local mp ok=0
	while read -r _ mp _; do
		mp=$(printf '%b' "$mp")
		[[ $mp == "$1"/* ]] || continue
		umount -- "$mp" 2>/dev/null || umount -l -- "$mp" 2>/dev/null || {
			_lctl_pool_note "cannot unmount $mp"
			ok=1
		}
	done < <(tac /proc/mounts)
	return "$ok"
}

# _lctl_pool_destroy NS DIR: kill, unmount, remove the sockets, the namespace, the folder and
# the state file. Tolerant of half-made and half-removed pools. Returns 1 if something stayed.
_lctl_pool_destroy() {
	local ns=$1 dir=$2 ok=0 s n
	if [[ -n $dir && -d $dir ]]; then
		_lctl_pool_umount_under "$dir" || ok=1
	fi
	_lctl_pool_kill_all "$ns" "$dir" || ok=1
	if [[ -n $dir && -f $dir/sockets ]]; then
		while IFS= read -r s; do
			[[ $s =~ ^(/var)?/run/gluster/[0-9a-f]+\.socket$ ]] && rm -f -- "$s"
		done <"$dir/sockets"
	fi
	# the nodes' namespaces (split mode) first, the switch's last
	for n in $(_lctl_pool_all_ns "$ns" | sort -r); do
		ip netns del "$n" 2>/dev/null || {
			_lctl_pool_note "cannot delete namespace $n"
			ok=1
		}
	done
	if [[ -n $dir && -d $dir ]]; then
		_lctl_pool_umount_under "$dir" || ok=1
		rm -rf --one-file-system -- "$dir" || ok=1
	fi
	((ok != 0)) || rm -f -- "$LCTL_POOL_STATE_DIR/$ns"
	return "$ok"
}

# _lctl_pool_cleanup_stale_locked: lctl_pool_cleanup_stale, with the lock held.
_lctl_pool_cleanup_stale_locked() {
	local name pid d id ns re_ns re_dir
	local -A dirs=() owners=()
	re_ns="^${_LCTL_POOL_NS_PREFIX}([0-9]+)(-[0-9]+)?\$" # the pool's, or (split) a node's
	re_dir="^${_LCTL_POOL_NS_PREFIX}([0-9]+)\.[A-Za-z0-9]{6}\$"
	# Every place a leftover can be: namespaces, state files, folders.
	while read -r name _; do
		[[ $name =~ $re_ns ]] && owners[${BASH_REMATCH[1]}]=1
	done < <(ip netns list 2>/dev/null)
	for d in "$LCTL_POOL_STATE_DIR"/"$_LCTL_POOL_NS_PREFIX"*; do
		name=${d##*/}
		[[ -f $d && $name =~ $re_ns ]] || continue
		owners[${BASH_REMATCH[1]}]=1
		d=$(_lctl_pool_kv "$d" dir) && [[ ${d##*/} =~ $re_dir && -d $d ]] && dirs[${BASH_REMATCH[1]}]+=" $d"
	done
	while IFS= read -r d; do
		for d in "$d"/"$_LCTL_POOL_NS_PREFIX"*.??????; do
			[[ -d $d && ! -L $d && ${d##*/} =~ $re_dir ]] || continue
			owners[${BASH_REMATCH[1]}]=1
			[[ ${dirs[${BASH_REMATCH[1]}]:-} == *" $d"* ]] || dirs[${BASH_REMATCH[1]}]+=" $d"
		done
	done < <(_lctl_pool_bases)

	for pid in "${!owners[@]}"; do
		ns=$_LCTL_POOL_NS_PREFIX$pid
		[[ $ns != "$LCTL_POOL_NS" ]] || continue # our own, live pool
		# The owner is alive when it is still the process named in the state file or in the
		# owner file of one of its folders (both written before the namespace, under the lock).
		id=$(_lctl_pool_kv "$LCTL_POOL_STATE_DIR/$ns" owner_id) && _lctl_pool_alive "$pid" "$id" && continue
		for d in ${dirs[$pid]:-}; do
			id=$(_lctl_pool_kv "$d/owner" owner_id) && _lctl_pool_alive "$pid" "$id" && continue 2
		done
		_lctl_pool_note "removing stale pool $ns${dirs[$pid]:+ (${dirs[$pid]# })}"
		if [[ -z ${dirs[$pid]:-} ]]; then
			_lctl_pool_destroy "$ns" "" || _lctl_pool_note "could not remove everything of stale pool $ns"
		fi
		for d in ${dirs[$pid]:-}; do
			_lctl_pool_destroy "$ns" "$d" || _lctl_pool_note "could not remove everything of stale pool $ns ($d)"
		done
	done
	return 0
}

# lctl_pool_cleanup_stale: remove every pool (namespace lctlpool<pid> and a split pool's node
# namespaces lctlpool<pid>-<I>, its processes, mounts, sockets, folder <base>/lctlpool<pid>.XXXXXX and state file) whose owner is not running.
# Namespaces, folders and volumes of any other name are not looked at.
lctl_pool_cleanup_stale() {
	_lctl_pool_lock
	_lctl_pool_cleanup_stale_locked
	_lctl_pool_unlock
}

# --- the pool -----------------------------------------------------------------------------------

lctl_pool_start() {
	local n=${1:-3} i base dir id t0 jobs=()
	[[ -z $LCTL_POOL_NS ]] || _lctl_pool_hard "lctl_pool_start: this process already has pool $LCTL_POOL_NS"
	[[ $BASHPID == "$$" ]] || _lctl_pool_hard "lctl_pool_start: call it from the main shell, not a subshell"
	[[ $n =~ ^[1-9][0-9]?$ ]] || _lctl_pool_hard "lctl_pool_start: N must be 1..99, not '$n'"
	((EUID == 0)) || _lctl_pool_hard "a GlusterFS pool needs root (network namespace, glusterd, FUSE)"
	for i in ip nsenter glusterd gluster mount.glusterfs xmllint getfattr setfattr flock; do
		command -v "$i" >/dev/null || _lctl_pool_hard "'$i' is not installed"
	done
	t0=$(_lctl_pool_now_ms)
	id=$(_lctl_pool_proc_identity $$)

	# Claim the pool under the lock: stale pools gone, state file, folder, owner file, namespace.
	_lctl_pool_lock
	_lctl_pool_cleanup_stale_locked
	base=$(_lctl_pool_find_base) || exit 99
	LCTL_POOL_NS=$_LCTL_POOL_NS_PREFIX$$
	printf 'owner_pid=%s\nowner_id=%s\ndir=\n' "$$" "$id" >"$LCTL_POOL_STATE_DIR/$LCTL_POOL_NS"
	dir=$(mktemp -d "$base/$LCTL_POOL_NS.XXXXXX") || _lctl_pool_hard "cannot create a folder in $base"
	printf 'owner_pid=%s\nowner_id=%s\nns=%s\n' "$$" "$id" "$LCTL_POOL_NS" >"$dir/owner"
	printf 'owner_pid=%s\nowner_id=%s\ndir=%s\n' "$$" "$id" "$dir" >"$LCTL_POOL_STATE_DIR/$LCTL_POOL_NS"
	LCTL_POOL_DIR=$dir
	LCTL_POOL_N=$n
	_LCTL_POOL_SPLIT='' _LCTL_POOL_NET=127.1.1
	if [[ -n $LCTL_POOL_SPLIT && $LCTL_POOL_SPLIT != 0 ]]; then
		[[ $LCTL_POOL_SPLIT_NET =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
			_lctl_pool_hard "LCTL_POOL_SPLIT_NET must be three octets (10.211.0), not '$LCTL_POOL_SPLIT_NET'"
		_LCTL_POOL_SPLIT=1 _LCTL_POOL_NET=$LCTL_POOL_SPLIT_NET
	fi
	mkdir -p -- "$dir/tmp" "$dir/mnt" "$dir/clients" "$dir/bricks" || _lctl_pool_hard "cannot populate $dir"
	# unix socket paths have 107 characters at most
	((${#dir} + 20 < 108)) || _lctl_pool_hard "the pool folder $dir is too long a path for the CLI sockets"
	if _lctl_pool_ns_exists "$LCTL_POOL_NS"; then
		_lctl_pool_hard "namespace $LCTL_POOL_NS exists already"
	fi
	ip netns add "$LCTL_POOL_NS" || _lctl_pool_hard "cannot create network namespace $LCTL_POOL_NS"
	[[ -z $_LCTL_POOL_SPLIT ]] || _lctl_pool_split_net
	_lctl_pool_unlock
	ip netns exec "$LCTL_POOL_NS" ip link set lo up || _lctl_pool_hard "cannot bring up lo in $LCTL_POOL_NS"

	# glusterd returns once it has initialised, which takes seconds (it runs gsyncd some twenty
	# times to configure geo-replication): start them all at once.
	LCTL_POOL_HOSTS=()
	for ((i = 1; i <= n; i++)); do
		LCTL_POOL_HOSTS+=("$_LCTL_POOL_NET.$i")
		mkdir -p -- "$dir/bricks/node$i"
		_lctl_pool_glusterd_start "$i" &
		jobs+=("$!")
	done
	for i in "${jobs[@]}"; do
		wait "$i" || exit 99
	done
	for ((i = 1; i <= n; i++)); do
		_lctl_pool_wait_glusterd "$i"
	done
	for ((i = 2; i <= n; i++)); do
		_lctl_pool_probe "$i"
	done
	_lctl_pool_wait_peers $(seq 1 "$n")
	_lctl_pool_note "pool $LCTL_POOL_NS up: $n node$( ((n == 1)) || echo s) (${LCTL_POOL_HOSTS[*]}${_LCTL_POOL_SPLIT:+, a namespace each}) in $dir" \
		"($(($(_lctl_pool_now_ms) - t0)) ms)"
}

# _lctl_pool_save_logs DEST: copy the pool's logs (and what node 1 says) to DEST/pool.
_lctl_pool_save_logs() {
	local dest=$1/pool i
	mkdir -p -- "$dest" || return 0
	for ((i = 1; i <= LCTL_POOL_N; i++)); do
		[[ ! -d $LCTL_POOL_DIR/node$i/log ]] || cp -pr -- "$LCTL_POOL_DIR/node$i/log" "$dest/node$i" 2>/dev/null
	done
	[[ ! -d $LCTL_POOL_DIR/clients ]] || cp -pr -- "$LCTL_POOL_DIR/clients" "$dest/clients" 2>/dev/null
	if _lctl_pool_glusterd_answers 1; then
		{
			_lctl_pool_cli 1 peer status
			_lctl_pool_cli 1 volume info
			_lctl_pool_cli 1 volume status
		} >"$dest/node1-status.txt" 2>&1
	fi
	_lctl_pool_note "kept the GlusterFS logs of pool $LCTL_POOL_NS in $dest"
}

# _lctl_pool_stop_volumes: the graceful part of the teardown, from node 1 while it answers:
# each volume's brick processes get SIGTERM (`volume stop` spends about a second per brick
# otherwise), then `volume stop force` and `volume delete`. Busy retries are short here.
_lctl_pool_stop_volumes() {
	local LCTL_POOL_TIMEOUT=10 vol netns
	_lctl_pool_glusterd_answers 1 || return 0
	netns=$(_lctl_pool_netns_ids)
	[[ -n $netns ]] || return 0
	for vol in $(lctl_pool_gluster 1 volume list 2>/dev/null); do
		[[ $vol == "$_LCTL_POOL_VOL_PREFIX"* ]] || continue
		_lctl_pool_stop_volume "$vol" "$netns"
		lctl_pool_gluster 1 volume delete "$vol" >/dev/null 2>&1 || true
	done
}

# _lctl_pool_netns_ids: " net:[INODE] " for each of the pool's namespaces (for matching
# /proc/PID/ns/net), on one line.
_lctl_pool_netns_ids() {
	local n i netns=''
	for n in $(_lctl_pool_all_ns "$LCTL_POOL_NS"); do
		i=$(stat -L -c %i "/run/netns/$n" 2>/dev/null) && netns+=" net:[$i] "
	done
	printf '%s' "$netns"
}

# _lctl_pool_stop_volume VOL NETNS_IDS: SIGTERM to VOL's brick processes (those in the pool's
# namespaces), then `volume stop VOL force`. Errors are ignored.
_lctl_pool_stop_volume() {
	local vol=$1 netns=$2 xml pid pids=()
	xml=$(lctl_pool_gluster 1 volume status "$vol" --xml 2>/dev/null) || xml=
	for pid in $(_lctl_pool_xpath_list "$xml" '//node[starts-with(path,"/")]/pid/text()'); do
		[[ $pid =~ ^[1-9][0-9]*$ && $netns == *" $(readlink "/proc/$pid/ns/net" 2>/dev/null) "* ]] || continue
		[[ $(_lctl_pool_cmdline "$pid") == *" --volfile-id $vol."* ]] || continue
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	done
	((${#pids[@]} == 0)) || _lctl_pool_wait_dead 5000 "${pids[@]}" || true
	lctl_pool_gluster 1 volume stop "$vol" force >/dev/null 2>&1 || true
}

# _lctl_pool_teardown_body STATUS: tear down this process's pool (errexit is off in here: it is
# only called on the left of ||). Returns 1 if something stayed.
_lctl_pool_teardown_body() {
	local st=$1 ok=0 t0
	t0=$(_lctl_pool_now_ms)
	if ((st != 0 && st != 77)); then
		_lctl_pool_save_logs "${LCTL_TEST_LOGDIR:-${TMPDIR:-/tmp}/lctl-logs.$$}"
	fi
	_lctl_pool_record_sockets
	_lctl_pool_stop_volumes
	_lctl_pool_record_sockets
	_lctl_pool_destroy "$LCTL_POOL_NS" "$LCTL_POOL_DIR" || ok=1
	_lctl_pool_note "pool $LCTL_POOL_NS removed ($(($(_lctl_pool_now_ms) - t0)) ms)"
	LCTL_POOL_NS='' LCTL_POOL_DIR='' LCTL_POOL_RSH='' LCTL_POOL_N=0 _LCTL_POOL_SPLIT='' _LCTL_POOL_NET=127.1.1
	LCTL_POOL_HOSTS=() LCTL_POOL_BRICKS=() LCTL_POOL_BRICK_PATHS=() LCTL_POOL_NEW_BRICKS=()
	return "$ok"
}

lctl_pool_teardown() {
	local ns=$LCTL_POOL_NS ok=0
	[[ -n $ns ]] || return 0
	_lctl_pool_teardown_body 0 || ok=1
	((ok == 0)) || _lctl_pool_hard "could not remove pool $ns completely"
}

# _lctl_pool_exit_trap: the EXIT trap (or harness.sh's lctl_on_exit command, whose handler
# keeps the exit status in its local variable rc). Never calls exit: the status stays.
_lctl_pool_exit_trap() {
	local st=$? ok=0
	if [[ ${FUNCNAME[1]:-} == _lctl_exit_handler && ${rc:-} =~ ^[0-9]+$ ]]; then
		st=$rc
	fi
	# Only the process that started the pool tears it down, not a subshell.
	if [[ $BASHPID == "$$" && -n $LCTL_POOL_NS ]]; then
		if [[ -n ${LCTL_POOL_KEEP:-}${LCTL_KEEP_VOLUMES:-} ]]; then
			_lctl_pool_note "keeping pool $LCTL_POOL_NS in $LCTL_POOL_DIR (LCTL_POOL_KEEP or LCTL_KEEP_VOLUMES)"
		else
			_lctl_pool_teardown_body "$st" || ok=1
			((ok == 0)) || _lctl_pool_note "could not remove everything of the pool: the next lctl_pool_start does"
		fi
	fi
	if [[ -n $_LCTL_POOL_PREV_TRAP && ${FUNCNAME[1]:-} != _lctl_exit_handler ]]; then
		eval "$_LCTL_POOL_PREV_TRAP" || true
	fi
	return 0
}

if declare -F lctl_on_exit >/dev/null; then
	# harness.sh is there: its EXIT handler runs ours (before it removes its own volumes).
	lctl_on_exit _lctl_pool_exit_trap
else
	# Our own EXIT trap, keeping one the script set before (run after ours). Should
	# harness.sh be sourced later, it keeps this trap as one of its lctl_on_exit commands.
	_lctl_pool_prev=$(trap -p EXIT)
	if [[ -n $_lctl_pool_prev ]]; then
		eval "_lctl_pool_prev=(${_lctl_pool_prev})"
		_LCTL_POOL_PREV_TRAP=${_lctl_pool_prev[2]}
	fi
	unset _lctl_pool_prev
	trap _lctl_pool_exit_trap EXIT
	[[ -n $(trap -p INT) ]] || trap 'exit 130' INT
	[[ -n $(trap -p TERM) ]] || trap 'exit 143' TERM
	[[ -n $(trap -p HUP) ]] || trap 'exit 129' HUP
fi

# --- volumes ------------------------------------------------------------------------------------

_lctl_pool_vol_xml() {
	lctl_pool_gluster 1 volume info "$1" --xml 2>/dev/null
}

lctl_pool_vol_bricks() {
	local _lctl_pool_xml _lctl_pool_b
	_lctl_pool_require
	_lctl_pool_xml=$(_lctl_pool_vol_xml "$1") || _lctl_pool_hard "no volume '$1' in the pool"
	local -n _lctl_pool_out=$2
	_lctl_pool_out=()
	while IFS= read -r _lctl_pool_b; do
		[[ -z $_lctl_pool_b ]] || _lctl_pool_out+=("$_lctl_pool_b")
	done < <(_lctl_pool_xpath_list "$_lctl_pool_xml" '/cliOutput/volInfo/volumes/volume/bricks/brick/name/text()')
}

# _lctl_pool_set_size VOL: bricks per DHT subvolume (replica or disperse count, else 1).
_lctl_pool_set_size() {
	local xml rep disp
	xml=$(_lctl_pool_vol_xml "$1") || _lctl_pool_hard "no volume '$1' in the pool"
	rep=$(_lctl_pool_xpath "$xml" //volume/replicaCount)
	disp=$(_lctl_pool_xpath "$xml" //volume/disperseCount)
	if ((${disp:-0} > 0)); then echo "$disp"; else echo "${rep:-1}"; fi
}

# _lctl_pool_refresh_bricks VOL: LCTL_POOL_BRICKS and LCTL_POOL_BRICK_PATHS from volume info.
_lctl_pool_refresh_bricks() {
	local b
	lctl_pool_vol_bricks "$1" LCTL_POOL_BRICKS
	LCTL_POOL_BRICK_PATHS=()
	for b in "${LCTL_POOL_BRICKS[@]}"; do LCTL_POOL_BRICK_PATHS+=("${b#*:}"); done
}

lctl_pool_brick_node() {
	local b=${1:-} re_host re_path
	re_host="^${_LCTL_POOL_NET//./\\.}\\.([0-9]+):"
	re_path="/bricks/node([0-9]+)/"
	if [[ $b =~ $re_host || $b =~ $re_path ]]; then
		printf '%s\n' "${BASH_REMATCH[1]}"
	else
		_lctl_pool_note "lctl_pool_brick_node: '$b' is not a brick of the pool"
		return 1
	fi
}

# _lctl_pool_brick_arg BRICK: host:path (a bare path gets the host of its node).
_lctl_pool_brick_arg() {
	local node
	if [[ $1 == *:* ]]; then
		printf '%s\n' "$1"
	else
		node=$(lctl_pool_brick_node "$1") || _lctl_pool_hard "'$1' is not a brick of the pool"
		printf '%s\n' "$_LCTL_POOL_NET.$node:$1"
	fi
}

lctl_pool_brick_status() {
	local vol=$1 b node=${3:-1} xml st
	b=$(_lctl_pool_brick_arg "$2") || exit 99
	xml=$(lctl_pool_gluster "$node" volume status "$vol" --xml 2>/dev/null) || xml=
	st=$(_lctl_pool_xpath "$xml" "//node[hostname=\"${b%%:*}\"][path=\"${b#*:}\"]/status")
	if [[ $st == 1 ]]; then echo 1; else echo 0; fi
}

lctl_pool_wait_brick_status() {
	local vol=$1 b=$2 want=$3 timeout=${4:-$LCTL_POOL_TIMEOUT} deadline
	[[ $want == [01] ]] || _lctl_pool_hard "lctl_pool_wait_brick_status: want 0 or 1, not '$want'"
	deadline=$(($(_lctl_pool_now_ms) + timeout * 1000))
	until [[ $(lctl_pool_brick_status "$vol" "$b") == "$want" ]]; do
		(($(_lctl_pool_now_ms) < deadline)) ||
			_lctl_pool_hard "brick $b of $vol is not $([[ $want == 1 ]] && echo online || echo offline) after ${timeout}s"
		sleep 0.2
	done
}

lctl_pool_wait_bricks_online() {
	local vol=$1 timeout=${2:-$LCTL_POOL_TIMEOUT} bricks=() xml online=0 deadline
	lctl_pool_vol_bricks "$vol" bricks
	deadline=$(($(_lctl_pool_now_ms) + timeout * 1000))
	while :; do
		if xml=$(lctl_pool_gluster 1 volume status "$vol" --xml 2>/dev/null); then
			online=$(_lctl_pool_xpath "$xml" 'count(//node[starts-with(path,"/")][status="1"])')
			((online != ${#bricks[@]})) || return 0
		fi
		(($(_lctl_pool_now_ms) < deadline)) || break
		sleep 0.2
	done
	lctl_pool_gluster 1 volume status "$vol" >&2 || true
	_lctl_pool_hard "volume $vol: only $online of ${#bricks[@]} bricks online after ${timeout}s"
}

# _lctl_pool_check_nodes SIZE NODE...: NODEs are nodes of the pool, a positive multiple of SIZE.
_lctl_pool_check_nodes() {
	local size=$1 i
	shift
	(($# > 0 && $# % size == 0)) ||
		_lctl_pool_hard "${FUNCNAME[1]}: $# bricks, not a positive multiple of the set size $size"
	for i; do
		if [[ ! $i =~ ^[1-9][0-9]*$ ]] || ((i > LCTL_POOL_N)); then
			_lctl_pool_hard "${FUNCNAME[1]}: no node '$i' (the pool has nodes 1..$LCTL_POOL_N)"
		fi
	done
}

# _lctl_pool_brick_specs VOL FIRST NODE...: host:path of new bricks b<FIRST>... on NODEs (their
# parent folders are made; glusterd makes the brick folder itself).
_lctl_pool_brick_specs() {
	local vol=$1 k=$2 node
	shift 2
	for node; do
		mkdir -p -- "$LCTL_POOL_DIR/bricks/node$node/$vol" || _lctl_pool_hard "cannot create brick folders"
		printf '%s\n' "$_LCTL_POOL_NET.$node:$LCTL_POOL_DIR/bricks/node$node/$vol/b$k"
		k=$((k + 1))
	done
}

lctl_pool_vol_create() {
	# Locals are _lctl_pool_-prefixed: NAMEVAR is assigned with printf -v and must not hit one.
	local _lctl_pool_var=${1:-} _lctl_pool_kind=${2:-} _lctl_pool_size _lctl_pool_name _lctl_pool_t0
	local _lctl_pool_opts=() _lctl_pool_nodes=() _lctl_pool_bricks=() _lctl_pool_i
	_lctl_pool_require
	[[ $_lctl_pool_var =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] ||
		_lctl_pool_hard "lctl_pool_vol_create: NAMEVAR must be a variable name, not '$_lctl_pool_var'"
	shift 2 || true
	_lctl_pool_nodes=("$@")
	case $_lctl_pool_kind in
	dist)
		_lctl_pool_size=1
		((${#_lctl_pool_nodes[@]})) || mapfile -t _lctl_pool_nodes < <(seq 1 "$LCTL_POOL_N")
		;;
	rep)
		_lctl_pool_size=2 _lctl_pool_opts=(replica 2)
		if ((${#_lctl_pool_nodes[@]} == 0)); then
			for _lctl_pool_i in 0 1 2 3; do _lctl_pool_nodes+=($((_lctl_pool_i % LCTL_POOL_N + 1))); done
		fi
		;;
	disp)
		_lctl_pool_size=3 _lctl_pool_opts=(disperse 3 redundancy 1)
		if ((${#_lctl_pool_nodes[@]} == 0)); then
			for _lctl_pool_i in 0 1 2; do _lctl_pool_nodes+=($((_lctl_pool_i % LCTL_POOL_N + 1))); done
		fi
		;;
	*) _lctl_pool_hard "lctl_pool_vol_create: KIND must be dist, rep or disp, not '$_lctl_pool_kind'" ;;
	esac
	_lctl_pool_check_nodes "$_lctl_pool_size" "${_lctl_pool_nodes[@]}"
	_lctl_pool_t0=$(_lctl_pool_now_ms)
	_LCTL_POOL_SEQ=$((_LCTL_POOL_SEQ + 1))
	_lctl_pool_name=$_LCTL_POOL_VOL_PREFIX$$_$_LCTL_POOL_SEQ
	mapfile -t _lctl_pool_bricks < <(_lctl_pool_brick_specs "$_lctl_pool_name" 1 "${_lctl_pool_nodes[@]}")
	((${#_lctl_pool_bricks[@]} == ${#_lctl_pool_nodes[@]})) || _lctl_pool_hard "cannot create brick folders"
	# force: the bricks are on the root filesystem, and a test may want a replica set on one node
	lctl_pool_gluster 1 volume create "$_lctl_pool_name" "${_lctl_pool_opts[@]}" "${_lctl_pool_bricks[@]}" \
		force >/dev/null || _lctl_pool_hard "cannot create volume $_lctl_pool_name"
	# the default in 10.x, but say so: the tests count on it
	lctl_pool_gluster 1 volume set "$_lctl_pool_name" cluster.lookup-optimize on >/dev/null ||
		_lctl_pool_hard "cannot set lookup-optimize on $_lctl_pool_name"
	lctl_pool_gluster 1 volume start "$_lctl_pool_name" >/dev/null ||
		_lctl_pool_hard "cannot start volume $_lctl_pool_name"
	lctl_pool_wait_bricks_online "$_lctl_pool_name"
	_lctl_pool_record_sockets
	printf -v "$_lctl_pool_var" '%s' "$_lctl_pool_name"
	_lctl_pool_refresh_bricks "$_lctl_pool_name"
	_lctl_pool_note "created $_lctl_pool_kind volume $_lctl_pool_name: bricks on nodes ${_lctl_pool_nodes[*]}" \
		"($(($(_lctl_pool_now_ms) - _lctl_pool_t0)) ms)"
}

lctl_pool_add_bricks() {
	local vol=${1:-} size bricks=() b k=0 t0
	_lctl_pool_require
	shift || true
	size=$(_lctl_pool_set_size "$vol") || exit 99
	_lctl_pool_check_nodes "$size" "$@"
	t0=$(_lctl_pool_now_ms)
	# new bricks are numbered on from the highest b<K> the volume has
	lctl_pool_vol_bricks "$vol" bricks
	for b in "${bricks[@]}"; do
		[[ ! $b =~ /b([0-9]+)$ ]] || ((BASH_REMATCH[1] <= k)) || k=${BASH_REMATCH[1]}
	done
	mapfile -t LCTL_POOL_NEW_BRICKS < <(_lctl_pool_brick_specs "$vol" $((k + 1)) "$@")
	(($# == ${#LCTL_POOL_NEW_BRICKS[@]})) || _lctl_pool_hard "cannot create brick folders"
	lctl_pool_gluster 1 volume add-brick "$vol" "${LCTL_POOL_NEW_BRICKS[@]}" force >/dev/null ||
		_lctl_pool_hard "cannot add bricks to $vol"
	lctl_pool_wait_bricks_online "$vol"
	_lctl_pool_record_sockets
	_lctl_pool_refresh_bricks "$vol"
	_lctl_pool_note "added to $vol: bricks on nodes $* ($(($(_lctl_pool_now_ms) - t0)) ms)"
}

lctl_pool_vol_destroy() {
	local vol=${1:-} n t0
	_lctl_pool_require
	[[ $vol == "$_LCTL_POOL_VOL_PREFIX$$_"* ]] || _lctl_pool_hard "lctl_pool_vol_destroy: '$vol' is not a volume of this pool"
	t0=$(_lctl_pool_now_ms)
	_lctl_pool_record_sockets
	_lctl_pool_stop_volume "$vol" "$(_lctl_pool_netns_ids)"
	lctl_pool_gluster 1 volume delete "$vol" >/dev/null || _lctl_pool_hard "cannot delete volume $vol"
	for n in "$LCTL_POOL_DIR"/bricks/node*/"$vol"; do
		[[ ! -d $n ]] || rm -rf --one-file-system -- "$n" || _lctl_pool_hard "cannot remove the bricks in $n"
	done
	_lctl_pool_note "destroyed volume $vol ($(($(_lctl_pool_now_ms) - t0)) ms)"
}

# --- mounts -------------------------------------------------------------------------------------

lctl_pool_with_mount() {
	local vol=${1:-} mp log marker env rc=0
	_lctl_pool_require
	shift || true
	(($#)) || _lctl_pool_hard "lctl_pool_with_mount: no command"
	mp=$(mktemp -d "$LCTL_POOL_DIR/mnt/$vol.XXXXXX") || _lctl_pool_hard "cannot create a mount point"
	log=$LCTL_POOL_DIR/clients/${mp##*/}.log
	marker=$(mktemp "$LCTL_POOL_DIR/tmp/mount.XXXXXX")
	env=$(mktemp "$LCTL_POOL_DIR/tmp/env.XXXXXX")
	# what CMD may need from this shell: its functions and its errexit/nounset/pipefail
	{
		declare -f
		shopt -po errexit nounset pipefail
	} >"$env"
	# The inner bash mounts in the mount namespace `ip netns exec` gives it, runs CMD in a
	# subshell (so that errexit there ends CMD, not the unmount) and unmounts. The client
	# daemon gets a file as output, not this function's stdout (a $(...) would wait for it).
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$(_lctl_pool_nsof 1)" bash -c '
		mp=$1 vol=$2 log=$3 marker=$4 env=$5 server=$6
		shift 6
		if ! mount -t glusterfs -o log-file="$log" "$server:/$vol" "$mp" </dev/null >"$marker.err" 2>&1 ||
			! mountpoint -q "$mp" || ! stat "$mp" >/dev/null 2>>"$marker.err"; then
			exit 99
		fi
		echo mounted >"$marker"
		(
			. "$env"
			export LCTL_POOL_MP=$mp
			"$@"
		)
		rc=$?
		cd /
		umount "$mp" 2>/dev/null || { sleep 0.5; umount "$mp" 2>/dev/null; } || umount -l "$mp" || rc=99
		exit "$rc"' lctl-pool-mount "$mp" "$vol" "$log" "$marker" "$env" "$_LCTL_POOL_NET.1" "$@" || rc=$?
	if [[ $(<"$marker") != mounted ]]; then
		_lctl_pool_note "mount: $(cat -- "$marker.err" 2>/dev/null)"
		rm -f -- "$marker" "$marker.err" "$env"
		_lctl_pool_hard "cannot mount $vol on $mp in $(_lctl_pool_nsof 1) (client log $log)"
	fi
	rm -f -- "$marker" "$marker.err" "$env"
	rmdir -- "$mp" 2>/dev/null || true
	return "$rc"
}

lctl_pool_mount() {
	local _lctl_pool_mp _lctl_pool_out
	_lctl_pool_require
	_lctl_pool_mp=$(mktemp -d "$LCTL_POOL_DIR/mnt/$1.XXXXXX") || _lctl_pool_hard "cannot create a mount point"
	_lctl_pool_out=$(mktemp "$LCTL_POOL_DIR/tmp/mount.XXXXXX")
	# nsenter --net: the client runs (and talks) in the pool's network namespace, the mount is
	# made in ours, where the caller sees it.
	if ! nsenter --net="/run/netns/$(_lctl_pool_nsof 1)" mount -t glusterfs \
		-o log-file="$LCTL_POOL_DIR/clients/${_lctl_pool_mp##*/}.log" "$_LCTL_POOL_NET.1:/$1" "$_lctl_pool_mp" \
		</dev/null >"$_lctl_pool_out" 2>&1; then
		_lctl_pool_note "mount: $(<"$_lctl_pool_out")"
		rm -f -- "$_lctl_pool_out"
		_lctl_pool_hard "cannot mount $1 on $_lctl_pool_mp"
	fi
	rm -f -- "$_lctl_pool_out"
	if ! mountpoint -q -- "$_lctl_pool_mp" || ! stat -- "$_lctl_pool_mp" >/dev/null; then
		_lctl_pool_hard "the mount of $1 on $_lctl_pool_mp does not answer"
	fi
	if [[ -n ${2:-} ]]; then
		printf -v "$2" '%s' "$_lctl_pool_mp"
	else
		printf '%s\n' "$_lctl_pool_mp"
	fi
}

lctl_pool_umount() {
	umount -- "$1" 2>/dev/null || umount -l -- "$1" 2>/dev/null || _lctl_pool_hard "cannot unmount $1"
	rmdir -- "$1" 2>/dev/null || true
}

# --- nodes --------------------------------------------------------------------------------------

# lctl_pool_node_pids I: every process of node I: in the namespace, with node I's folders
# (pid file, log, brick) on its command line.
lctl_pool_node_pids() {
	local pid cmd
	_lctl_pool_require
	_lctl_pool_check_node "${1:-}"
	for pid in $(_lctl_pool_ns_pids "$LCTL_POOL_NS"); do
		_lctl_pool_dead "$pid" && continue
		cmd=$(_lctl_pool_cmdline "$pid") || continue
		[[ $cmd == *"$LCTL_POOL_DIR/node$1/"* || $cmd == *"$LCTL_POOL_DIR/bricks/node$1/"* ]] &&
			printf '%s\n' "$pid"
	done
	return 0
}

lctl_pool_kill_node() {
	local node=${1:-} pids=()
	_lctl_pool_require
	_lctl_pool_check_node "$node"
	_lctl_pool_record_sockets
	mapfile -t pids < <(lctl_pool_node_pids "$node")
	((${#pids[@]})) || _lctl_pool_hard "node $node has no processes to kill"
	kill -KILL "${pids[@]}" 2>/dev/null || true
	_lctl_pool_wait_dead 10000 "${pids[@]}" || _lctl_pool_hard "processes of node $node survive SIGKILL: ${pids[*]}"
	# as cluster.rc's kill_node: no pid file may name a dead (or reused) pid
	find "$LCTL_POOL_DIR/node$node/run" -name '*.pid' -type f -delete 2>/dev/null || true
	rm -f -- "$LCTL_POOL_DIR/node$node/glusterd.pid"
	_lctl_pool_note "killed node $node (pids ${pids[*]})"
}

lctl_pool_restart_node() {
	local node=${1:-} vol xml st half t0
	_lctl_pool_require
	_lctl_pool_check_node "$node"
	! _lctl_pool_glusterd_pid "$node" >/dev/null || _lctl_pool_hard "glusterd of node $node is running"
	t0=$(_lctl_pool_now_ms)
	_lctl_pool_glusterd_start "$node"
	_lctl_pool_wait_glusterd "$node"
	_lctl_pool_wait_peers $(seq 1 "$LCTL_POOL_N")
	# glusterd starts the bricks of started volumes itself; if it did not, start them.
	half=$(((LCTL_POOL_TIMEOUT + 1) / 2))
	for vol in $(lctl_pool_gluster 1 volume list 2>/dev/null); do
		xml=$(_lctl_pool_vol_xml "$vol") || continue
		st=$(_lctl_pool_xpath "$xml" //volume/statusStr)
		[[ $st == Started ]] || continue
		if ! (lctl_pool_wait_bricks_online "$vol" "$half") 2>/dev/null; then
			_lctl_pool_note "bricks of $vol are not back after ${half}s: volume start force"
			lctl_pool_gluster "$node" volume start "$vol" force >/dev/null ||
				_lctl_pool_hard "cannot start the bricks of $vol again"
			lctl_pool_wait_bricks_online "$vol"
		fi
	done
	_lctl_pool_record_sockets
	_lctl_pool_note "restarted node $node ($(($(_lctl_pool_now_ms) - t0)) ms)"
}
