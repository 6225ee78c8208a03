#!/bin/bash
# bench/pool.sh: a fix spread over the pool against a fix from one host and against GlusterFS's
# own rebalance, on three servers whose links, not the 2 CPUs, are the limit.
#
#   sudo [BENCH_SERVERS=6] bench/pool.sh [FILES [DIRS [RATE]]]
#                                        (defaults 1500 files in 20 directories, 200mbit)
#
# A split pool of 3 servers (tests/integration/pool.sh with LCTL_POOL_SPLIT=1: each server in a
# network namespace of its own, 10.211.0.I on a veth to a bridge). For each of six contenders a
# distribute volume with one brick per server gets the same tree (below), grows to 5 bricks
# (bricks 4 and 5 on servers 1 and 2), each server's outgoing traffic is capped at RATE (tc
# units: 200mbit = 25 MB/s; tbf on its veth), and then, timed from server 1:
#   single   `layoutctl fix --single-host`: server 1 moves every file (each byte it does not
#            hold comes in over its link and, unless its target is on server 1, goes out again);
#   spread   `layoutctl fix`: a worker on each server (tests/integration/tools/local-rsh, run in
#            that server's namespace, stands in for ssh) moves the files its own bricks hold;
#   minmove  `layoutctl fix --layout min-move`, spread the same way;
#   single2, spread2  as single and spread with `--migrations 2` (two migrations at a time
#            from or to each subvolume, where the default is one);
#   daemon   `gluster volume rebalance VOL start` (a rebalance process on each of the 3 servers,
#            each migrating its own bricks' files), from the command until node 1's `rebalance
#            status --xml` says completed (polled every 0.5 s).
# layoutctl runs with its defaults (--parallel 4, --settle 5) and --no-task-check (a plain gluster
# CLI would ask the glusterd outside the pool). Per contender: wall time, CPU time of the whole
# machine (bricks, clients, daemons) and CPU time stolen by the hypervisor (bench/lib.sh), files
# and bytes migrated (fix's JSON summary; the rebalance status), bytes each server sent on its
# link (tx counter of its veth, before and after), and per server what its worker or rebalance
# process moved (STATE_DIR/progress.json's "servers"; the status's per-node rows). Afterwards
# each volume must scan clean (`layoutctl scan` exit 0) and hold the same number of data files
# and bytes on its bricks as it was given (no file lost or doubled). Then the volume goes, so
# only one tree is on disk at a time.
#
# BENCH_SERVERS=6: the pool at six servers (issue 27). A split pool of 6 servers, and four
# contenders on the same tree, each volume of 6 bricks grown to 9 (the new ones on servers 1, 2
# and 3):
#   spread3  `layoutctl fix` on a volume whose 9 bricks are on servers 1-3 only (b1-b6 on
#            1 2 3 1 2 3): 3 workers, 3 capped links;
#   spread6  `layoutctl fix` with the 6 bricks on servers 1-6: 6 workers, 6 capped links;
#   daemon3, daemon6  `gluster volume rebalance VOL start` on the same two volumes.
# Servers 4-6 are idle in the runs on 3. The two shapes do not move the same files: GlusterFS's
# layout (the daemon's, and layoutctl's default, which reproduces it) moved twice the files on
# the 6-server shape in the proof (docs/benchmarks.md). So the ratios: the spread fix's
# throughput (bytes moved per second of wall time) on 6 servers against 3 (target at least
# 1.7x), and daemon / spread in wall time on each shape (same plan; target above 1x).
#
# The tree: DIRS directories, FILES files spread over them round robin, sizes uniform from
# BENCH_MIN_KIB to BENCH_MAX_KIB (default 512 to 4096: 0.5 to 4 MiB, 3.5 GB at 1,500 files),
# content a seeded random block shifted per file; seed BENCH_SEED (42). Written
# by 3 writers through a FUSE mount on server 1, before the links are capped. Identical for
# every contender (same names, sizes and bytes, so the same placement and the same plan).
# If the filesystem of the pool's folder (LCTL_POOL_BASE, else /var/tmp) cannot hold a tree
# with room to spare (GlusterFS's cluster.min-free-disk is 10 %), FILES is scaled down, and the
# script says so.
#
# Output: a Markdown block on stdout (for docs/benchmarks.md): the contenders, the per-server
# table, the ratios single/spread, daemon/spread and daemon/min-move (and single/spread,
# daemon/spread with --migrations 2) and whether the targets (2x, more than 1x, 1.3x) are met.
# Progress on stderr. Exit status 1 if a correctness check failed (the figures are printed
# anyway), 0 otherwise, whether or not the targets are met.
# LAYOUTCTL (default: the build in the source tree) is copied first, so a rebuild meanwhile does
# not change what is timed. BENCH_KEEP=1 keeps the pool (and the last volume).
set -euo pipefail
FILES=${1:-1500}
DIRS=${2:-20}
RATE=${3:-200mbit}
MIN_KIB=${BENCH_MIN_KIB:-512}
MAX_KIB=${BENCH_MAX_KIB:-4096}
SEED=${BENCH_SEED:-42}
SERVERS=${BENCH_SERVERS:-3}
[[ $SERVERS == [36] ]] || { echo "bench/pool.sh: BENCH_SERVERS must be 3 or 6, not '$SERVERS'" >&2; exit 2; }
for v in FILES DIRS MIN_KIB MAX_KIB SEED; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench/pool.sh: $v must be a positive number, not '${!v}'" >&2; exit 2; }
done
((MIN_KIB <= MAX_KIB)) || { echo "bench/pool.sh: BENCH_MIN_KIB > BENCH_MAX_KIB" >&2; exit 2; }
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tests/integration/pool.sh
. "$BENCH_SRC/tests/integration/pool.sh"
SRC=$BENCH_SRC
RSH=$SRC/tests/integration/tools/local-rsh
note() { printf 'bench: %s\n' "$*" >&2; }
[[ -x ${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl} ]] || { echo "bench/pool.sh: no layoutctl (make first)" >&2; exit 2; }
cp -- "${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}" "$T/layoutctl"
BIN=$T/layoutctl
BUILD=$(build_kind "$BIN")
COMMIT=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n ${LAYOUTCTL:-} && $(realpath "$LAYOUTCTL") != "$(realpath "$LCTL_BUILDDIR/layoutctl")" ]]; then
	COMMIT="$LAYOUTCTL" DIRTY=' (not the source tree'"'"'s build: its commit is not known here)'
elif DIRTY=$(git -C "$SRC" status --porcelain -- lib cmd 2>/dev/null); then
	COMMIT="commit $COMMIT" DIRTY=${DIRTY:+ (with uncommitted changes in lib/ or cmd/)}
else
	COMMIT="commit $COMMIT" DIRTY=' (not a git checkout)'
fi

# rate_bytes RATE: a tc rate in bytes per second (tc: a bare number and "bit" are bits per
# second, "bps" bytes; k m g t decimal, ki mi gi ti binary).
rate_bytes() {
	awk -v r="$1" 'BEGIN {
		if (!match(r, /^[0-9.]+/)) exit 1
		n = substr(r, 1, RLENGTH); u = tolower(substr(r, RLENGTH + 1))
		m["bit"] = 1 / 8; m[""] = 1 / 8; m["bps"] = 1
		split("k m g t", p, " ")
		for (i = 1; i <= 4; i++) {
			m[p[i] "bit"] = 1000 ^ i / 8; m[p[i] "ibit"] = 1024 ^ i / 8
			m[p[i] "bps"] = 1000 ^ i; m[p[i] "ibps"] = 1024 ^ i
		}
		if (!(u in m)) exit 1
		printf "%.0f\n", n * m[u]
	}'
}
RATE_B=$(rate_bytes "$RATE") || { echo "bench/pool.sh: '$RATE' is not a tc rate (200mbit, 25mbps)" >&2; exit 2; }

# the tree's generator: "total" prints FILES and the bytes; "populate" writes this writer's share
cat >"$T/tree.py" <<'EOF'
import os, random, sys
cmd, root, files, dirs, seed, lo, hi = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:8])
w, nw = (int(sys.argv[8]), int(sys.argv[9])) if cmd == "populate" else (0, 1)
size = lambda i: random.Random(seed * 1000003 + i).randint(lo * 1024, hi * 1024)
if cmd == "total":
    print(files, sum(size(i) for i in range(files)))
    sys.exit(0)
base = random.Random(seed).randbytes(2 * hi * 1024)
for d in range(dirs):
    os.makedirs(os.path.join(root, "d%03d" % d), exist_ok=True)
for i in range(w, files, nw):
    n, off = size(i), (i * 7919 * 64) % (hi * 1024)
    with open(os.path.join(root, "d%03d" % (i % dirs), "f%05d" % i), "wb") as f:
        f.write(b"%08d" % i + base[off:off + n - 8] if n >= 8 else base[:n])
EOF
read -r _ TREE_BYTES < <(python3 "$T/tree.py" total - "$FILES" "$DIRS" "$SEED" "$MIN_KIB" "$MAX_KIB")

# room for one tree (only one is on disk at a time), a quarter more, and 10 % of the filesystem
# left free for cluster.min-free-disk, plus 1 GiB
base=${LCTL_POOL_BASE:-/var/tmp}
read -r fs_size fs_avail < <(df -B1 --output=size,avail "$base" | tail -n 1)
need=$((TREE_BYTES * 5 / 4 + fs_size / 10 + (1 << 30)))
if ((need > fs_avail)); then
	files0=$FILES
	FILES=$((FILES * (fs_avail - fs_size / 10 - (1 << 30)) * 4 / 5 / TREE_BYTES))
	((FILES >= 50)) || { echo "bench/pool.sh: $base has $((fs_avail >> 20)) MiB free: too little even for 50 files" >&2; exit 2; }
	read -r _ TREE_BYTES < <(python3 "$T/tree.py" total - "$FILES" "$DIRS" "$SEED" "$MIN_KIB" "$MAX_KIB")
	note "NOTE: $base has $((fs_avail >> 20)) MiB free, too little for $files0 files;" \
		"scaled down to $FILES files ($((TREE_BYTES >> 20)) MiB)"
fi
SCALED=${files0:+ (scaled down from $files0 for lack of disk space)}
note "tree: $FILES files in $DIRS directories, $((TREE_BYTES >> 20)) MiB; links capped at $RATE ($RATE_B bytes/s)"
note "layoutctl: $BIN, copied from ${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl} ($BUILD)"

# The CPU time of the pool alone (its glusterds, bricks, rebalance processes, FUSE clients and
# layoutctl with its workers, all started from here): this shell moves into a cgroup of its own
# (cpuacct, cgroup v1; or cgroup v2) before the pool starts, so they all land there. The rest
# of the machine's CPU time during a run is someone else's. Without cgroups, "n/a".
CG='' CG_PARENT=''
for d in /sys/fs/cgroup/cpuacct /sys/fs/cgroup; do
	[[ -w $d/cgroup.procs && ($d != /sys/fs/cgroup || -e $d/cgroup.controllers) ]] || continue
	[[ ! -e $d/lctl-bench.$$ ]] || continue
	mkdir "$d/lctl-bench.$$" 2>/dev/null || continue
	if ! echo $$ >"$d/lctl-bench.$$/cgroup.procs" 2>/dev/null; then
		rmdir "$d/lctl-bench.$$" 2>/dev/null || true
		continue
	fi
	CG=$d/lctl-bench.$$ CG_PARENT=$d
	break
done
# shellcheck disable=SC2317 # run at exit
cg_remove() { # everything back to the parent cgroup (the pool goes down after this), then rmdir
	local pid i
	for ((i = 0; i < 5; i++)); do
		while read -r pid; do echo "$pid" >"$CG_PARENT/cgroup.procs" 2>/dev/null || true; done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null && return 0
		sleep 0.2
	done
	note "could not remove the cgroup $CG"
}
[[ -z $CG ]] || lctl_on_exit cg_remove
cg_cpu() { # CPU seconds of this cgroup so far
	if [[ -z $CG ]]; then
		echo 0
	elif [[ -e $CG/cpuacct.usage ]]; then
		awk '{ printf "%.2f\n", $1 / 1e9 }' "$CG/cpuacct.usage"
	else
		awk '$1 == "usage_usec" { printf "%.2f\n", $2 / 1e6 }' "$CG/cpu.stat"
	fi
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
LCTL_POOL_SPLIT=1 lctl_pool_start "$SERVERS"
lctl_pool_rsh_env # LCTL_POOL_GLUSTERD_DIRS and LCTL_POOL_RSH_NETNS, for local-rsh
RSH=$LCTL_POOL_RSH # local-rsh with them written in: layoutctl passes a remote shell neither
GD1=$LCTL_POOL_DIR/node1/wd
S1=${LCTL_POOL_HOSTS[0]}

# shellcheck disable=SC2317,SC2153 # run by lctl_pool_with_mount, which sets LCTL_POOL_MP
populate() { # in node 1's namespace, $LCTL_POOL_MP the mount
	local w pids=()
	for w in 0 1 2; do
		python3 "$TREE_PY" populate "$LCTL_POOL_MP" "$FILES" "$DIRS" "$SEED" "$MIN_KIB" "$MAX_KIB" "$w" 3 &
		pids+=($!)
	done
	for w in "${pids[@]}"; do wait "$w"; done
}
export TREE_PY=$T/tree.py FILES DIRS SEED MIN_KIB MAX_KIB

# data_on_bricks: "FILES BYTES": data files on the volume's bricks (no DHT link files, which have
# the sticky bit and no data; no .glusterfs)
data_on_bricks() {
	local b
	for b in "${LCTL_POOL_BRICK_PATHS[@]}"; do
		find "$b" -path "$b/.glusterfs" -prune -o -type f ! -perm -1000 -printf '%s\n'
	done | awk '{ n++; s += $1 } END { printf "%.0f %.0f\n", n, s }'
}

tx() { local i; for ((i = 1; i <= SERVERS; i++)); do lctl_pool_tx_bytes "$i"; done | paste -sd' '; }
sent() { # K I: bytes server I sent during run K
	local a b
	read -ra a <<<"${TX0[$1]}"
	read -ra b <<<"${TX1[$1]}"
	echo $((b[$2 - 1] - a[$2 - 1]))
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
sent_all() { # K SEP: MB each server sent during run K, joined by SEP
	local i out=''
	for ((i = 1; i <= SERVERS; i++)); do out+="${out:+$2}$(mb "$(sent "$1" "$i")")"; done
	printf '%s\n' "$out"
}
cap() { local i; for ((i = 1; i <= SERVERS; i++)); do lctl_pool_cap_egress "$i" "$1"; done; }

declare -A WALL CPU PCPU ST FILESM BYTESM TX0 TX1 RC CHECK
bad=0
# per contender K: the per-server rows "node files bytes seconds" (one a line) in $T/K.servers
RUNS=(single spread minmove single2 spread2 daemon)
# the volume's bricks' servers, and the added bricks'
VOL_NODES=(1 2 3) ADD_NODES=(1 2)
if ((SERVERS == 6)); then
	RUNS=(spread3 spread6 daemon3 daemon6)
	ADD_NODES=(1 2 3)
fi
for k in "${RUNS[@]}"; do
	case $k in
	*3) VOL_NODES=(1 2 3 1 2 3) ;;
	*6) VOL_NODES=(1 2 3 4 5 6) ;;
	esac
	lctl_pool_vol_create V dist "${VOL_NODES[@]}"
	t0=$(now)
	lctl_pool_with_mount "$V" populate
	sync
	note "$V: $FILES files written in $(since "$t0") s"
	lctl_pool_add_bricks "$V" "${ADD_NODES[@]}"
	read -r nf nb < <(data_on_bricks)
	[[ "$nf $nb" == "$FILES $TREE_BYTES" ]] || { echo "bench/pool.sh: the bricks hold $nf files, $nb bytes, not $FILES, $TREE_BYTES" >&2; exit 1; }
	cap "$RATE"
	TX0[$k]=$(tx)
	rc=0
	t0=$(now) c0=$(cpu_busy) s0=$(cpu_stolen) p0=$(cg_cpu)
	case $k in
	daemon*)
		lctl_pool_gluster 1 volume rebalance "$V" start >/dev/null
		while :; do
			xml=$(lctl_pool_gluster 1 volume rebalance "$V" status --xml 2>/dev/null) || xml=
			st=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/status)
			case $st in 3) break ;; 2 | 4 | 6 | 8) rc=$st; break ;; esac
			(($(since "$t0" | cut -d. -f1) < 7200)) || { rc=timeout; break; }
			sleep 0.5
		done
		;;
	*)
		args=()
		[[ $k != single* ]] || args=(--single-host)
		[[ $k != minmove ]] || args=(--layout min-move)
		[[ $k != *2 ]] || args+=(--migrations 2)
		lctl_pool_exec "$BIN" --server "$S1" --glusterd-dir "$GD1" --json fix --no-task-check \
			--state-dir "$T/state-$k" --rsh "$RSH" --remote-cmd "$BIN" "${args[@]}" "$V" \
			>"$T/$k.json" 2>"$T/$k.err" || rc=$?
		;;
	esac
	WALL[$k]=$(since "$t0") CPU[$k]=$(cpu_since "$c0") ST[$k]=$(stolen_since "$s0")
	PCPU[$k]=$(awk -v a="$p0" -v b="$(cg_cpu)" 'BEGIN { printf "%.0f", b - a }')
	[[ -n $CG ]] || PCPU[$k]=n/a
	TX1[$k]=$(tx)
	cap off
	RC[$k]=$rc
	if [[ $k == daemon* ]]; then
		FILESM[$k]=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/files)
		BYTESM[$k]=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/size)
		skipped=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/skipped)
		failures=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/failures)
		((skipped + failures == 0)) || RC[$k]="$rc (skipped $skipped, failures $failures)"
		n=$(_lctl_pool_xpath "$xml" 'count(/cliOutput/volRebalance/node)')
		for ((j = 1; j <= n; j++)); do
			name=$(_lctl_pool_xpath "$xml" "/cliOutput/volRebalance/node[$j]/nodeName")
			[[ $name != localhost ]] || name=$S1
			printf '%s %s %s %s\n' "${name##*.}" \
				"$(_lctl_pool_xpath "$xml" "/cliOutput/volRebalance/node[$j]/files")" \
				"$(_lctl_pool_xpath "$xml" "/cliOutput/volRebalance/node[$j]/size")" \
				"$(_lctl_pool_xpath "$xml" "/cliOutput/volRebalance/node[$j]/runtime")"
		done >"$T/$k.servers"
	else
		FILESM[$k]=$(jq '.summary.file_outcomes.migrated' "$T/$k.json" 2>/dev/null || echo '?')
		BYTESM[$k]=$(jq '.summary.bytes_moved' "$T/$k.json" 2>/dev/null || echo 0)
		jq -r '.servers[]? | "\(.name | split(".") | last) \(.migrated) \(.bytes_moved) \(.seconds)"' \
			"$T/state-$k/progress.json" >"$T/$k.servers" 2>/dev/null || true
		# a single-host run has no workers: server 1 moved everything
		[[ -s $T/$k.servers ]] || printf '1 %s %s %s\n' "${FILESM[$k]}" "${BYTESM[$k]}" "${WALL[$k]}" >"$T/$k.servers"
		((rc == 0)) || note "$k: layoutctl fix exited $rc; its stderr: $(tail -n 5 "$T/$k.err")"
	fi
	# correctness: the same data files and bytes on the bricks; the scan clean (a layoutctl run
	# that leaves it otherwise fails the bench; for the daemon, what the scan finds is reported)
	CHECK[$k]=ok
	src=0
	lctl_pool_exec "$BIN" --server "$S1" --glusterd-dir "$GD1" --json scan "$V" >"$T/$k.scan" 2>"$T/$k.scan.err" || src=$?
	read -r nf nb < <(data_on_bricks)
	if ((src != 0)); then
		problems=$(jq -r '[.directories[]?.problems[]?] | group_by(.) | map("\(length) directories \(.[0])") | join(", ")' \
			"$T/$k.scan" 2>/dev/null) || problems=
		CHECK[$k]="scan exit $src${problems:+: $problems}"
		note "$k: scan exit $src: ${problems:-$(tail -n 5 "$T/$k.scan.err")}"
		[[ $k == daemon* ]] || bad=1
	fi
	if [[ "$nf $nb" != "$FILES $TREE_BYTES" ]]; then
		CHECK[$k]+="; bricks hold $nf files, $nb bytes (given $FILES, $TREE_BYTES)"
		CHECK[$k]=${CHECK[$k]#ok; }
		bad=1
	fi
	note "$k: ${WALL[$k]} s, ${FILESM[$k]} files, $(mb "${BYTESM[$k]:-0}") MB moved; sent per server (MB):" \
		"$(sent_all "$k" ' ');" \
		"exit ${RC[$k]}; check ${CHECK[$k]}"
	if [[ -n ${BENCH_KEEP:-} && $k == "${RUNS[-1]}" ]]; then
		note "keeping $V (BENCH_KEEP)"
	else
		lctl_pool_vol_destroy "$V"
	fi
done

# --- the report ------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
met() { awk -v r="$1" -v t="$2" -v strict="${3:-}" 'BEGIN { print ((strict ? r > t : r >= t) ? "**met**" : "**not met**") }'; }
# shellcheck disable=SC2016 # Markdown code, not expansions
declare -A LABEL=(
	[single]='`layoutctl fix --single-host` (server 1 moves everything)'
	[spread]='`layoutctl fix` (a worker per server)'
	[minmove]='`layoutctl fix --layout min-move` (a worker per server)'
	[single2]='`layoutctl fix --single-host --migrations 2`'
	[spread2]='`layoutctl fix --migrations 2` (a worker per server)'
	[daemon]='`gluster volume rebalance VOL start` (until completed)'
	[spread3]='`layoutctl fix` on 3 servers (a worker per server)'
	[spread6]='`layoutctl fix` on 6 servers (a worker per server)'
	[daemon3]='`gluster volume rebalance VOL start` on 3 servers (until completed)'
	[daemon6]='`gluster volume rebalance VOL start` on 6 servers (until completed)'
)
if ((SERVERS == 3)); then
	r_ss=$(ratio "${WALL[single]}" "${WALL[spread]}")
	r_ds=$(ratio "${WALL[daemon]}" "${WALL[spread]}")
	r_dm=$(ratio "${WALL[daemon]}" "${WALL[minmove]}")
	r_ss2=$(ratio "${WALL[single2]}" "${WALL[spread2]}")
	r_ss21=$(ratio "${WALL[single]}" "${WALL[spread2]}")
	r_ds2=$(ratio "${WALL[daemon]}" "${WALL[spread2]}")
	TITLE="a fix spread over 3 servers with capped links"
	SHAPE="3 bricks (one per server) grown to 5 (the new ones on servers 1 and 2)"
	RATIOS="Wall-time ratios: single-host / spread **${r_ss}x** (target 2x: $(met "$r_ss" 2)); daemon / spread **${r_ds}x** (target: faster, above 1x: $(met "$r_ds" 1 strict)); daemon / min-move **${r_dm}x** (target 1.3x: $(met "$r_dm" 1.3)).
With \`--migrations 2\`: single-host / spread **${r_ss2}x** (target 2x: $(met "$r_ss2" 2)); single-host with the default / spread **${r_ss21}x**; daemon / spread **${r_ds2}x**."
else
	# throughput: bytes moved per second of wall time (the two shapes' plans differ)
	thr() { awk -v b="${BYTESM[$1]:-0}" -v w="${WALL[$1]}" 'BEGIN { printf "%.2f", b / w / 1e6 }'; }
	r_66=$(ratio "$(thr spread6)" "$(thr spread3)")
	r_d3=$(ratio "${WALL[daemon3]}" "${WALL[spread3]}")
	r_d6=$(ratio "${WALL[daemon6]}" "${WALL[spread6]}")
	r_dd=$(ratio "$(thr daemon6)" "$(thr daemon3)")
	TITLE="the pool at six servers against three, with capped links"
	SHAPE="6 bricks grown to 9 (the new ones on servers 1, 2 and 3): on servers 1-3 (two bricks each, then three) for the runs on 3, on servers 1-6 for the runs on 6"
	RATIOS="Throughput (bytes moved per second of wall time): spread fix $(thr spread3) MB/s on 3 servers, $(thr spread6) MB/s on 6: 6 / 3 **${r_66}x** (target 1.7x: $(met "$r_66" 1.7)); the daemon $(thr daemon3) MB/s on 3, $(thr daemon6) MB/s on 6 (${r_dd}x).
Wall-time ratios daemon / spread: on 3 servers **${r_d3}x**, on 6 **${r_d6}x** (target: faster, above 1x: $(met "$r_d3" 1 strict) on 3, $(met "$r_d6" 1 strict) on 6)."
fi

cat <<EOT
### Pool: $TITLE ($(date -u '+%Y-%m-%d'))

Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'); $SERVERS servers as network namespaces of this one machine (bricks on one filesystem), each server's outgoing traffic capped at $RATE ($(mb "$RATE_B") MB/s, tc tbf); load average at the start / end: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg).
Command: \`${BENCH_SERVERS:+BENCH_SERVERS=$SERVERS }bench/pool.sh $FILES $DIRS $RATE\`: $FILES files$SCALED in $DIRS directories, $MIN_KIB to $MAX_KIB KiB each, $(mb "$TREE_BYTES") MB per tree (seed $SEED), $SHAPE, a fresh volume per run.
layoutctl: $BUILD, $COMMIT$DIRTY.

| run | wall time | CPU time: machine (the pool's) | CPU stolen | files moved | bytes moved | sent by server $(seq -s ' / ' 1 "$SERVERS") | busiest link | exit | check |
|---|---:|---:|---:|---:|---:|---|---:|---|---|
$(for k in "${RUNS[@]}"; do
	max=$(for ((i = 1; i <= SERVERS; i++)); do sent "$k" "$i"; done | sort -n | tail -n 1)
	printf '| %s | %s s | %s s (%s s) | %s s | %s | %s MB | %s MB | %s %% | %s | %s |\n' "${LABEL[$k]}" \
		"${WALL[$k]}" "${CPU[$k]}" "${PCPU[$k]}" "${ST[$k]}" "${FILESM[$k]}" "$(mb "${BYTESM[$k]:-0}")" \
		"$(sent_all "$k" ' / ')" \
		"$(awk -v m="$max" -v w="${WALL[$k]}" -v r="$RATE_B" 'BEGIN { printf "%.0f", 100 * m / (w * r) }')" \
		"${RC[$k]}" "${CHECK[$k]}"
done)

"CPU time": what the whole machine spent busy during the run, of $(nproc) x the wall time, and in brackets what of it the pool's own processes spent (servers, clients, layoutctl; a cgroup): the difference is someone else's load. "Busiest link": what the server that sent most sent, as a share of what its capped link could carry over the run's wall time.

Per server (files and bytes its worker or rebalance process migrated, and for how long; bytes it sent on its link, which includes what it served to others):

| run | server | files migrated | bytes migrated | its time | bytes sent |
|---|---:|---:|---:|---:|---:|
$(for k in "${RUNS[@]}"; do
	for ((i = 1; i <= SERVERS; i++)); do
		read -r _ f b s < <(awk -v i="$i" '$1 == i' "$T/$k.servers") || f='' b='' s=''
		printf '| %s | %s | %s | %s | %s | %s MB |\n' "$k" "$i" "${f:-0}" "$(mb "${b:-0}") MB" \
			"$( [[ -n $s ]] && awk -v s="$s" 'BEGIN { printf "%.1f s", s }' || echo -)" "$(mb "$(sent "$k" "$i")")"
	done
done)

$RATIOS
$( ((bad == 0)) || echo "**A correctness check failed: see the check column.**")
"Check": afterwards every volume must hold the same data files and bytes on its bricks as it was given, and \`layoutctl scan\` must exit 0 (for the daemon's volume, what the scan found is reported, not judged).
EOT
exit "$bad"
