#!/bin/bash
# bench/pool-scan.sh: `layoutctl scan` on a pool of 3 servers (issue 13, item 4). A scan from one
# server reads that server's bricks directly and every other server's through the brick
# processes (gfapi): is that close enough, or must scan be spread over the servers like fix?
#
#	bench/pool-scan.sh [-f FILES] [-d DIRS] [-b BRICKS] [-j JOBS] [-r RUNS] [-p PARALLEL] [-P POLL]
#	                   [-w MINUTES]
#
#	-f FILES	files in the tree (default 30000)
#	-d DIRS		directories (default 600): DIRS/50 top-level ones, the rest below them
#	-b BRICKS	bricks per server (default 2: 6 bricks on 3 servers)
#	-j JOBS		parallel FUSE writers while populating (default 8)
#	-r RUNS		rounds of timed runs; medians reported (default 3)
#	-p PARALLEL	pass --parallel to scan (default: scan's own default)
#	-P POLL		seconds between two `rebalance status` polls during (d) (default 0.2, as
#			harness.sh's lctl_rebalance)
#	-w MINUTES	before populating and again before the timed rounds, wait (polling every
#			30 s) up to MINUTES for no bench/pool.sh to be running (a network-capped
#			benchmark that would disturb this one, and be disturbed); default 0: do not
#			wait. Whether one ran during the rounds is reported either way.
#
# Method, one run on one throwaway pool (tests/integration/pool.sh, loopback mode: 3 glusterds
# on 127.1.1.1-3 in one network namespace; removed at exit, also on ^C):
#  1. a distribute volume of 3 x BRICKS bricks (node order 1 2 3 1 2 3 ...); the directories and
#     FILES empty files written through a FUSE mount (JOBS writers in parallel), unmounted;
#  2. untimed checks, which also warm the caches: each scan below sees every file, and its -v
#     log names the brick folders it reads directly (server 1's, none, all);
#  3. RUNS rounds of, in this order:
#     (a) `layoutctl --server 127.1.1.1 --glusterd-dir NODE1/wd scan VOL` from server 1: its own
#         bricks read directly, the other servers' through their brick processes;
#     (b) the same with `scan --brick-reads gfapi`: every brick through its brick process;
#     (e) for reference, the same with `--node 127.1.1.1 --node 127.1.1.2 --node 127.1.1.3`:
#         every brick host counts as this server, all bricks read directly (what one host
#         holding all the bricks gets, and about what a scan spread over the servers could
#         reach, less its coordination);
#     (c) the floor: `find` over all brick folders (`-path '*/.glusterfs' -prune -o -print`);
#     (d) GlusterFS's crawl: `gluster volume rebalance VOL fix-layout start` through node 1's
#         CLI, timed from the command to aggregate status "completed" in node 1's
#         `volume rebalance VOL status --xml` (polled every POLL s; one rebalance process per
#         server); for information also, from the servers' rebalance logs, the command to the
#         last server's "Rebalance is completed" (no polling delay), and the crawls alone
#         (earliest "gf_defrag_start_crawl" to latest "crawling file-system completed").
#     Every scan runs inside the pool's namespace (lctl_pool_exec), under /usr/bin/time for its
#     CPU seconds; CPU seconds of the volume's brick processes (all, and server 1's) are taken
#     from /proc around each run, for (d) also those of the 3 glusterds and of the rebalance
#     processes (sampled every 0.1 s while they run); for every run also the machine's busy
#     CPU seconds and the CPU seconds the hypervisor stole (bench/lib.sh). The layoutctl binary
#     is copied before the first run, so a rebuild meanwhile does not change what is measured.
#     Fairness: one volume, so the very same tree and warm caches for every tool; a fix-layout
#     rewrites every directory's layout xattr (same ranges, a new commit hash) and changes
#     neither the tree nor any tool's work; alternating the tools in rounds spreads changes of
#     the machine's load over all of them.
# Output: a Markdown block on stdout (for docs/benchmarks.md); progress on stderr.
# Needs root, GlusterFS, iproute2, xmllint, jq, getfattr, /usr/bin/time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
files=30000 dirs=600 per_server=2 writers=8 runs=3 parallel='' wait_min=0 poll=0.2
while getopts "f:d:b:j:r:p:w:P:h" opt; do
	case $opt in
	f) files=$OPTARG ;;
	d) dirs=$OPTARG ;;
	b) per_server=$OPTARG ;;
	j) writers=$OPTARG ;;
	r) runs=$OPTARG ;;
	p) parallel=$OPTARG ;;
	w) wait_min=$OPTARG ;;
	P) poll=$OPTARG ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		[[ $opt == h ]] && exit 0 || exit 2
		;;
	esac
done
for v in files dirs per_server writers runs; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench/pool-scan.sh: -f, -d, -b, -j and -r want positive numbers" >&2; exit 2; }
done
[[ -z $parallel || $parallel =~ ^[1-9][0-9]*$ ]] || { echo "bench/pool-scan.sh: -p wants a positive number" >&2; exit 2; }
[[ $wait_min =~ ^[0-9]+$ ]] || { echo "bench/pool-scan.sh: -w wants minutes" >&2; exit 2; }
[[ $poll =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "bench/pool-scan.sh: -P wants seconds" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/pool-scan.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/pool-scan.sh: needs jq" >&2; exit 2; }

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
# shellcheck source-path=SCRIPTDIR/.. source=tests/integration/pool.sh
. "$BENCH_SRC/tests/integration/pool.sh"
[[ -x $LAYOUTCTL ]] || { echo "bench/pool-scan.sh: no layoutctl at $LAYOUTCTL (make first)" >&2; exit 2; }

note() { printf 'bench: %s\n' "$*" >&2; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
secs1() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
median() { grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "?" }'; }
ratio() { [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }' || echo "-"; }
others() { pgrep -fc 'bench/pool[.]sh' || true; }
last() { awk '{ print $NF }' <<<"$1"; }

# the binary measured: a copy, so that a rebuild while this runs changes nothing
lctl_bin=$T/layoutctl
cp -- "$LAYOUTCTL" "$lctl_bin"
build=$(build_kind "$lctl_bin")
binary="$LAYOUTCTL built $(date -u -r "$LAYOUTCTL" '+%F %H:%M:%S UTC'), sha256 $(sha256sum "$lctl_bin" | cut -c1-12)"
commit=$(git -C "$BENCH_SRC" rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(git -C "$BENCH_SRC" status --porcelain -- lib cmd 2>/dev/null | wc -l)

# -w: wait until no bench/pool.sh runs (before populating, and again before the timed rounds)
wait_others() {
	((wait_min > 0)) || return 0
	local deadline=$(($(date +%s) + wait_min * 60))
	while (($(others) > 0)) && (($(date +%s) < deadline)); do
		note "bench/pool.sh is running; waiting (until $(date -d "@$deadline" +%H:%M:%S) at most)"
		sleep 30
	done
}

# --- the pool and the volume --------------------------------------------------------------------
wait_others
t0=$(now)
lctl_pool_start 3
nodes=()
for ((i = 0; i < per_server; i++)); do nodes+=(1 2 3); done
lctl_pool_vol_create VOL dist "${nodes[@]}"
BRICKS=("${LCTL_POOL_BRICKS[@]}")
BPATHS=("${LCTL_POOL_BRICK_PATHS[@]}")
nbricks=${#BRICKS[@]}
GD1=$LCTL_POOL_DIR/node1/wd
note "pool $LCTL_POOL_NS, volume $VOL: ${BRICKS[*]} ($(since "$t0") s)"

MP=
lctl_pool_mount "$VOL" MP
ntop=$(((dirs + 49) / 50))
# directory i (0-based): top-level ones first, then the others spread below them
dirpath() {
	local i=$1
	if ((i < ntop)); then printf 't%03d' "$i"; else printf 't%03d/s%04d' $(((i - ntop) % ntop)) "$i"; fi
}
t0=$(now)
for ((i = 0; i < dirs; i++)); do printf '%s\n' "$MP/$(dirpath "$i")"; done | xargs -d '\n' mkdir -p
# file k in directory k % dirs; JOBS writers, 64 directories each at a time
# shellcheck disable=SC2016 # expanded by the inner bash
for ((d = 0; d < dirs; d++)); do printf '%s %s\n' "$d" "$(dirpath "$d")"; done |
	FILES=$files DIRS=$dirs MP=$MP xargs -P "$writers" -L 64 bash -c '
		while (($#)); do
			for ((k = $1; k < FILES; k += DIRS)); do : >"$MP/$2/f$k"; done
			shift 2
		done' _
note "populated $dirs directories ($ntop top-level), $files files through FUSE in $(since "$t0") s"
lctl_pool_umount "$MP"

# --- the scans ----------------------------------------------------------------------------------
# kind a: from server 1; b: from server 1, gfapi only; e: every brick host is "this server"
glob_a=(--server 127.1.1.1 --glusterd-dir "$GD1")
glob_e=("${glob_a[@]}")
for h in "${LCTL_POOL_HOSTS[@]}"; do glob_e+=(--node "$h"); done
scan_opts=()
[[ -z $parallel ]] || scan_opts+=(--parallel "$parallel")
scan_cmd() { # KIND [GLOBAL ARGS...]: the command line of that scan -> the array cmd
	local kind=$1
	shift
	case $kind in
	a) cmd=("$lctl_bin" "${glob_a[@]}" "$@" scan "${scan_opts[@]}" "$VOL") ;;
	b) cmd=("$lctl_bin" "${glob_a[@]}" "$@" scan "${scan_opts[@]}" --brick-reads gfapi "$VOL") ;;
	e) cmd=("$lctl_bin" "${glob_e[@]}" "$@" scan "${scan_opts[@]}" "$VOL") ;;
	esac
}
hz=$(getconf CLK_TCK)
# ticks PID: the CPU clock ticks (user + system) process PID has used, nothing if it is gone
ticks() {
	local f
	read -r -a f 2>/dev/null <"/proc/$1/stat" || return 0
	echo $((f[13] + f[14]))
}
# CPU seconds (user + system) of the pool's glusterds so far
glusterd_cpu() {
	local i pid t=0 n
	for ((i = 1; i <= LCTL_POOL_N; i++)); do
		read -r pid 2>/dev/null <"$LCTL_POOL_DIR/node$i/glusterd.pid" || continue
		n=$(ticks "$pid")
		t=$((t + ${n:-0}))
	done
	awk -v t="$t" -v hz="$hz" 'BEGIN { printf "%.2f\n", t / hz }'
}
# CPU seconds (user + system) of the volume's brick processes so far: all, server 1's
brick_cpu() {
	local pid t=0 t1=0 n cl
	for pid in $(pgrep -f -- "--volfile-id $VOL\\."); do
		n=$(ticks "$pid")
		cl=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
		t=$((t + ${n:-0}))
		[[ $cl != *"--volfile-id $VOL.127.1.1.1."* ]] || t1=$((t1 + ${n:-0}))
	done
	awk -v t="$t" -v t1="$t1" -v hz="$hz" 'BEGIN { printf "%.2f %.2f\n", t / hz, t1 / hz }'
}

# untimed checks (and warm caches): every scan sees every file, and reads directly what it should
declare -A want_direct=([a]=$per_server [b]=0 [e]=$nbricks)
ndirs='?'
for kind in a b e; do
	scan_cmd "$kind" --json -v
	rc=0
	lctl_pool_exec "${cmd[@]}" >"$T/check.json" 2>"$T/check.err" || rc=$?
	((rc <= 1)) || { cat "$T/check.err" >&2; echo "bench/pool-scan.sh: scan ($kind) failed (exit $rc)" >&2; exit 1; }
	nseen=$(jq '.summary.files' "$T/check.json")
	ndirs=$(jq '.summary.directories' "$T/check.json")
	direct=$(grep -c 'reading its brick folder .* directly' "$T/check.err" || true)
	((nseen == files)) || { echo "bench/pool-scan.sh: scan ($kind) saw $nseen files, not $files" >&2; exit 1; }
	if ((direct != want_direct[$kind])); then
		cat "$T/check.err" >&2
		echo "bench/pool-scan.sh: scan ($kind) reads $direct brick folders directly, not ${want_direct[$kind]}" >&2
		exit 1
	fi
	note "check ($kind): $nseen files, $ndirs directories, $direct of $nbricks brick folders read directly (exit $rc)"
done

# timed_scan KIND -> "seconds scan_cpu bricks_cpu bricks_cpu_server1 machine_cpu stolen"
timed_scan() {
	local kind=$1 rc=0 t c0 s0 c1 s1 b0 b1 w
	scan_cmd "$kind"
	read -r -a b0 < <(brick_cpu)
	c0=$(cpu_busy) s0=$(cpu_stolen) t=$(now)
	lctl_pool_exec /usr/bin/time -f '%U %S' -o "$T/time" "${cmd[@]}" >/dev/null 2>"$T/scan.err" || rc=$?
	w=$(secs "$t" "$(now)") c1=$(cpu_busy) s1=$(cpu_stolen)
	read -r -a b1 < <(brick_cpu)
	((rc <= 1)) || { cat "$T/scan.err" >&2; echo "bench/pool-scan.sh: scan ($kind) failed (exit $rc)" >&2; exit 1; }
	# the last line: /usr/bin/time writes "Command exited with non-zero status 1" first
	printf '%s %s %s %s %s %s\n' "$w" "$(tail -n 1 "$T/time" | awk '{ printf "%.2f", $1 + $2 }')" \
		"$(secs "${b0[0]}" "${b1[0]}")" "$(secs "${b0[1]}" "${b1[1]}")" "$(secs1 "$c0" "$c1")" "$(secs1 "$s0" "$s1")"
}

timed_find() { # -> "seconds machine_cpu stolen"
	local t c0 s0 w
	c0=$(cpu_busy) s0=$(cpu_stolen) t=$(now)
	find "${BPATHS[@]}" -path '*/.glusterfs' -prune -o -print >/dev/null
	w=$(secs "$t" "$(now)")
	printf '%s %s %s\n' "$w" "$(secs1 "$c0" "$(cpu_busy)")" "$(secs1 "$s0" "$(cpu_stolen)")"
}

# --- GlusterFS's crawl --------------------------------------------------------------------------
rebalance_pids() {
	local pid
	for pid in $(pgrep -x glusterfs); do
		[[ $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") == *" --volfile-id rebalance/$VOL "* ]] && echo "$pid"
	done
	return 0
}
rlogs=()
for ((i = 1; i <= LCTL_POOL_N; i++)); do rlogs+=("$LCTL_POOL_DIR/node$i/log/$VOL-rebalance.log"); done
declare -A roff=()
log_mark() { local f; for f in "${rlogs[@]}"; do roff[$f]=$(stat -c %s "$f" 2>/dev/null || echo 0); done; }
# the servers' rebalance log lines written since log_mark
log_new() { local f; for f in "${rlogs[@]}"; do tail -c +$((${roff[$f]} + 1)) "$f" 2>/dev/null || true; done; }
# log_times T0 -> "crawl end": from the servers' logs since log_mark, the earliest start of a
# crawl to the latest end of one, and T0 (epoch seconds, the command) to the latest "Rebalance
# is completed" (the last server done, before glusterd learns it); "?" when not found. The
# logs' times are UTC.
log_times() {
	log_new | awk -v t0="$1" '
	function ts(line,   t, p) {	# [2026-12-02 12:34:56.123456 +0000] -> seconds of the day
		if (!match(line, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]+/)) return -1
		t = substr(line, RSTART, RLENGTH)
		split(t, p, ":")
		return p[1] * 3600 + p[2] * 60 + p[3]
	}
	/gf_defrag_start_crawl using commit hash/ { t = ts($0); if (s < 0 || t < s) s = t }
	/crawling file-system completed/ { t = ts($0); if (t > e) e = t }
	/Rebalance is completed/ { t = ts($0); if (t > d) d = t }
	END {
		if (s >= 0 && e >= s) printf "%.3f ", e - s; else printf "? "
		day = int(t0 / 86400) * 86400
		if (d >= 0) { d += day; if (d < t0 - 60) d += 86400; printf "%.3f\n", d - t0 } else print "?"
	}' s=-1 e=-1 d=-1
}
# rb_sampler FILE: every 0.1 s, "PID TICKS" of each rebalance process of VOL, until killed (or
# the script or its pool is gone)
rb_sampler() {
	local pid n
	while kill -0 $$ 2>/dev/null && [[ -e /run/netns/$LCTL_POOL_NS ]]; do
		for pid in $(rebalance_pids); do
			n=$(ticks "$pid")
			[[ -z $n ]] || echo "$pid $n"
		done
		sleep 0.1
	done >"$1"
}
# fix_layout -> "wall_seconds crawl_seconds logged_end machine_cpu stolen bricks_cpu glusterds_cpu
# rebalance_cpu";
# wall "?" when glusterd reports a failure or never reports the end
fix_layout() {
	local t c0 s0 c1 s1 b0 b1 g0 g1 out id xml st w='?' deadline gone=0 sampler
	log_mark
	read -r -a b0 < <(brick_cpu)
	g0=$(glusterd_cpu)
	rb_sampler "$T/rb.samples" &
	sampler=$!
	c0=$(cpu_busy) s0=$(cpu_stolen) t=$(now)
	if ! out=$(lctl_pool_gluster 1 volume rebalance "$VOL" fix-layout start 2>&1); then
		note "fix-layout did not start: $out"
		kill "$sampler" 2>/dev/null || true
		echo "? ? ? - - - - -"
		return
	fi
	id=$(sed -n 's/^ID: *//p' <<<"$out")
	deadline=$(($(date +%s) + 600))
	# (the namespace test: a ^C tears the pool down while this runs in its own process)
	while (($(date +%s) < deadline)) && [[ -e /run/netns/$LCTL_POOL_NS ]]; do
		xml=$(lctl_pool_gluster 1 volume rebalance "$VOL" status --xml 2>/dev/null) || xml=
		if [[ -z $id || $(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/task-id) == "$id" ]]; then
			st=$(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/status)
			case $st in
			3 | 7)
				w=$(secs "$t" "$(now)") c1=$(cpu_busy) s1=$(cpu_stolen)
				break
				;;
			2 | 4 | 6 | 8)
				note "fix-layout: $(_lctl_pool_xpath "$xml" /cliOutput/volRebalance/aggregate/statusStr); not counted"
				break
				;;
			esac
		fi
		# glusterd may lose the end of a short run (harness.sh, _lctl_wait_task): give up when
		# every rebalance process has been gone for 10 s
		if [[ -n $(rebalance_pids) ]]; then
			gone=0
		elif ((gone == 0)); then
			gone=$(date +%s)
		elif (($(date +%s) - gone > 10)); then
			note "fix-layout: the rebalance processes ended, glusterd still says status '$st'; not counted"
			break
		fi
		sleep "$poll"
	done
	[[ -n ${c1:-} ]] || c1=$(cpu_busy) s1=$(cpu_stolen)
	# the next run starts when every rebalance process has gone
	deadline=$(($(date +%s) + 60))
	while [[ -n $(rebalance_pids) ]] && (($(date +%s) < deadline)); do sleep 0.1; done
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	read -r -a b1 < <(brick_cpu)
	g1=$(glusterd_cpu)
	printf '%s %s %s %s %s %s %s\n' "$w" "$(log_times "$t")" "$(secs1 "$c0" "$c1")" "$(secs1 "$s0" "$s1")" \
		"$(secs "${b0[0]}" "${b1[0]}")" "$(secs "$g0" "$g1")" \
		"$(awk -v hz="$hz" '$2 > m[$1] { m[$1] = $2 } END { for (p in m) t += m[p]; printf "%.2f", t / hz }' "$T/rb.samples")"
}

# --- the rounds ---------------------------------------------------------------------------------
wait_others
others0=$(others)
((others0 == 0)) || note "bench/pool.sh is running: these timings are disturbed"
timed_find >/dev/null
declare -A W=() SC=() BC=() B1=() MC=() ST=()
fw=() fm=() fs=() lw=() lcr=() lend=() lm=() ls=() lb=() lg=() lr=()
load0=$(uptime | sed 's/.*load average: //')
steal_all0=$(cpu_stolen) busy_all0=$(cpu_busy) tr0=$(now)
disturbed=0
for ((r = 1; r <= runs; r++)); do
	o=$(others)
	for kind in a b e; do
		read -r w c b b1 m s < <(timed_scan "$kind")
		W[$kind]+="$w " SC[$kind]+="$c " BC[$kind]+="$b " B1[$kind]+="$b1 " MC[$kind]+="$m " ST[$kind]+="$s "
	done
	read -r w m s < <(timed_find)
	fw+=("$w") fm+=("$m") fs+=("$s")
	read -r w c le m s b g rb < <(fix_layout)
	lw+=("$w") lcr+=("$c") lend+=("$le") lm+=("$m") ls+=("$s") lb+=("$b") lg+=("$g") lr+=("$rb")
	((o + $(others) == 0)) || { disturbed=$((disturbed + 1)) && note "round $r: bench/pool.sh was running"; }
	note "round $r: (a) $(last "${W[a]}") s, (b) $(last "${W[b]}") s, (e) $(last "${W[e]}") s," \
		"(c) find ${fw[-1]} s, (d) fix-layout ${lw[-1]} s (crawls ${lcr[-1]} s); $(stolen_since "$steal_all0") s stolen so far"
done
load1=$(uptime | sed 's/.*load average: //')
rounds_wall=$(since "$tr0")
steal_all=$(stolen_since "$steal_all0") busy_all=$(cpu_since "$busy_all0")
others1=$(others)

med() { tr -s ' ' '\n' <<<"$1" | median; }
ma=$(med "${W[a]}") mb=$(med "${W[b]}") me=$(med "${W[e]}")
mc=$(med "${fw[*]}") md=$(med "${lw[*]}") mdcr=$(med "${lcr[*]}") mdend=$(med "${lend[*]}")
lst() { printf '%s' "$*" | sed 's/ *$//; s/ /, /g'; }

# --- report -------------------------------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
fsys=$(df -T "${BPATHS[0]}" | awk 'NR == 2 { print $2 }')
cat <<EOF
### scan on a pool of 3 servers: $files files, $ndirs directories, $nbricks bricks ($(date -u '+%F %H:%M UTC'))

Machine: $(nproc) x $cpu, $mem RAM, bricks on $fsys ($(uname -r)); GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }').
Pool: tests/integration/pool.sh, 3 glusterds on 127.1.1.1-3 in one network namespace (loopback), so all servers share these $(nproc) CPUs; distribute volume of $nbricks bricks, $per_server per server.
layoutctl: commit $commit$( ((dirty == 0)) || echo " (with $dirty uncommitted changes in lib/ cmd/)"), $build; $binary.
Command: \`bench/pool-scan.sh -f $files -d $dirs -b $per_server -j $writers -r $runs${parallel:+ -p $parallel} -P $poll\`.

| run | seconds ($runs rounds) | median |
|---|---|---:|
| (a) \`layoutctl scan\` from server 1: its $per_server bricks direct, $((nbricks - per_server)) through gfapi | $(lst "${W[a]}") | $ma |
| (b) the same, \`--brick-reads gfapi\`: all $nbricks through gfapi | $(lst "${W[b]}") | $mb |
| (e) \`--node\` for all 3 servers: all $nbricks bricks read directly | $(lst "${W[e]}") | $me |
| (c) floor: brick-local \`find\` over the $nbricks brick folders | $(lst "${fw[@]}") | $mc |
| (d) \`gluster volume rebalance fix-layout\` from node 1, command to "completed" | $(lst "${lw[@]}") | $md |
| (d) the same, command to the last server's "Rebalance is completed" (its log) | $(lst "${lend[@]}") | $mdend |
| (d) the same, crawls alone (rebalance logs of the 3 servers) | $(lst "${lcr[@]}") | $mdcr |

| ratio | value |
|---|---:|
| (a) / (c): scan from server 1 against the floor | $(ratio "$ma" "$mc") |
| (a) / (e): scan from server 1 against all-direct | $(ratio "$ma" "$me") |
| (d) / (a): GlusterFS's fix-layout against the scan from server 1 | $(ratio "$md" "$ma") |
| (b) / (a): gfapi only against the scan from server 1 | $(ratio "$mb" "$ma") |
| (d) / (b), (d) / (e) | $(ratio "$md" "$mb"), $(ratio "$md" "$me") |

CPU seconds per run (user + system; "machine" is every process on the machine during the run:
the pool's bricks, glusterds and CLI calls, and whatever else ran meanwhile):
- (a): layoutctl $(lst "${SC[a]}"); brick processes $(lst "${BC[a]}"), of which server 1's $(lst "${B1[a]}"); machine $(lst "${MC[a]}")
- (b): layoutctl $(lst "${SC[b]}"); brick processes $(lst "${BC[b]}"), of which server 1's $(lst "${B1[b]}"); machine $(lst "${MC[b]}")
- (e): layoutctl $(lst "${SC[e]}"); brick processes $(lst "${BC[e]}"), of which server 1's $(lst "${B1[e]}"); machine $(lst "${MC[e]}")
- (d): the 3 rebalance processes $(lst "${lr[@]}") (sampled every 0.1 s while they ran); brick processes $(lst "${lb[@]}"); the 3 glusterds (they answer the status polls) $(lst "${lg[@]}"); machine $(lst "${lm[@]}")
- (c): machine $(lst "${fm[@]}")

CPU seconds stolen by the hypervisor: (a) $(lst "${ST[a]}"); (b) $(lst "${ST[b]}"); (e) $(lst "${ST[e]}"); (c) $(lst "${fs[@]}"); (d) $(lst "${ls[@]}"); all timed rounds: $steal_all of $rounds_wall s wall ($busy_all s busy).
Load average before and after the timed rounds: $load0 / $load1 ($(nproc) CPUs). bench/pool.sh processes running at their start and end: $others0 / $others1; rounds that began or ended with one running: $disturbed of $runs.
EOF
