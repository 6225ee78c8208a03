#!/bin/bash
# bench/scan.sh: how fast `layoutctl scan` walks a real volume, next to the floor (a brick-local
# `find` over every brick folder) and GlusterFS's own crawl (`gluster volume rebalance VOL
# fix-layout start`), and how much memory it needs (peak RSS at a small and at the full size).
#
#	bench/scan.sh [-f FILES] [-d DIRS] [-b BRICKS] [-s SMALL] [-j JOBS] [-r RUNS] [-p PARALLEL] [-F]
#
#	-f FILES	files in the full tree (default 100000)
#	-d DIRS		directories (default 2000): DIRS/50 top-level ones, the rest below them
#	-b BRICKS	bricks of the distribute volume (default 6)
#	-s SMALL	files of the first, small measurement (default FILES/10), same directories
#	-j JOBS		parallel FUSE writers while populating (default 8)
#	-r RUNS		rounds of timed runs (scan, find, fix-layout); medians reported (default 3)
#	-p PARALLEL	pass --parallel to scan (default: scan's own default)
#	-F		no fix-layout (scan, find and memory only: a quicker run)
#
# Method, all from one run on one throwaway volume (removed at exit, also on ^C):
#  1. create the volume; make the directories and SMALL files through a FUSE mount (parallel);
#  2. peak RSS (/usr/bin/time -f %M) of one scan at SMALL files;
#  3. add files through FUSE up to FILES; one untimed scan and find (warm caches for both);
#  4. RUNS rounds of: `layoutctl scan VOL` (which reads the local brick folders directly), and
#     `layoutctl scan --brick-reads gfapi VOL` (everything through the brick processes); the floor `find BRICK... -path '*/.glusterfs'
#     -prune -o -print`; for information, find with a stat of every entry (`-printf '%m'`);
#     GlusterFS's crawl, `gluster volume rebalance VOL fix-layout start`, timed from the
#     command to status "completed" (what a user waits for, daemon start-up included) and its
#     crawl alone from the rebalance log ("gf_defrag_start_crawl using commit hash" to
#     "crawling file-system completed"). Medians are reported.
#     Fairness: one volume, so the very same tree and caches for every tool. The first scan
#     runs before any fix-layout, on the tree as populated (scan is read-only); later rounds
#     follow a fix-layout, which rewrote every directory's layout xattr (same ranges, since no
#     brick changed, and a new commit hash) but changed neither the directories nor the files
#     nor the work of either tool. Rounds alternate the tools so a change in the machine's load
#     hits them alike. CPU seconds of the scan and of the brick processes are reported too.
# Output: a Markdown block on stdout (paste it into docs/benchmarks.md); progress on stderr.
# Needs root, GlusterFS, xmllint, getfattr (the test harness's requirements), /usr/bin/time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/.." && pwd)
: "${LAYOUTCTL:=$srcdir/layoutctl}"
files=100000 dirs=2000 nbricks=6 small='' jobs=8 runs=3 parallel='' fixlayout=1
while getopts "f:d:b:s:j:r:p:Fh" opt; do
	case $opt in
	f) files=$OPTARG ;;
	d) dirs=$OPTARG ;;
	b) nbricks=$OPTARG ;;
	s) small=$OPTARG ;;
	j) jobs=$OPTARG ;;
	r) runs=$OPTARG ;;
	p) parallel=$OPTARG ;;
	F) fixlayout=0 ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		[[ $opt == h ]] && exit 0 || exit 2
		;;
	esac
done
for v in files dirs nbricks jobs runs; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench/scan.sh: -f, -d, -b, -j and -r want positive numbers" >&2; exit 2; }
done
: "${small:=$((files / 10))}"
((small >= 1 && small <= files)) || { echo "bench/scan.sh: -s wants 1..FILES" >&2; exit 2; }
[[ -x $LAYOUTCTL ]] || { echo "bench/scan.sh: no layoutctl at $LAYOUTCTL (make first)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/scan.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

# the test harness makes and removes the volume (its own name prefix, so the test cleanup of
# stale lctltest_ volumes and this never meet)
export LCTL_PREFIX=lctlbench_
# shellcheck source-path=SCRIPTDIR/.. source=tests/integration/harness.sh
. "$srcdir/tests/integration/harness.sh"

note() { printf 'bench: %s\n' "$*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { [[ $2 =~ ^[0-9.]+$ ]] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo "-"; }

scan_args=(scan)
[[ -z $parallel ]] || scan_args+=(--parallel "$parallel")

lctl_vol_create dist "$nbricks" VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")

# directory i (0-based): top-level ones first, then the others spread below them
ntop=$(((dirs + 49) / 50))
dirpath() {
	local i=$1
	if ((i < ntop)); then printf 't%03d' "$i"; else printf 't%03d/s%04d' $(((i - ntop) % ntop)) "$i"; fi
}
note "volume $VOL: $nbricks bricks; $dirs directories ($ntop top-level), $small then $files files"
t0=$(now)
for ((i = 0; i < dirs; i++)); do printf '%s\n' "$MP/$(dirpath "$i")"; done | xargs -d '\n' mkdir -p
# populate FROM TO: files FROM..TO-1, file k in directory k % dirs, JOBS writers in parallel
populate() {
	local from=$1 to=$2
	for ((d = 0; d < dirs; d++)); do printf '%s %s\n' "$d" "$(dirpath "$d")"; done |
		FROM=$from TO=$to DIRS=$dirs MP=$MP xargs -P "$jobs" -L 64 bash -c '
			while (($#)); do
				d=$1 p=$2
				shift 2
				first=$(( (FROM - d + DIRS - 1) / DIRS * DIRS + d ))
				((first >= FROM)) || first=$((first + DIRS))
				for ((k = first; k < TO; k += DIRS)); do : >"$MP/$p/f$k"; done
			done' _
}
populate 0 "$small"
note "populated $small files in $(secs "$t0" "$(now)") s"

# --- memory at the small size ------------------------------------------------------------------
rss_file=$(mktemp "${TMPDIR:-/tmp}/lctl-bench.XXXXXX")
lctl_on_exit rm -f -- "$rss_file"
# CPU seconds (user + system) the volume's brick processes have used so far
brick_cpu() {
	local pid t=0 f
	for pid in $(pgrep -f -- "--volfile-id $VOL\\."); do
		read -r -a f <"/proc/$pid/stat" || continue
		t=$((t + f[13] + f[14]))
	done
	awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}
# -> "seconds rss_kib scan_cpu_seconds brick_cpu_seconds"; the scan exits 1 (the root of a
# never-rebalanced volume is unstamped)
timed_scan() { # [EXTRA SCAN ARGS...]
	local rc=0 b0 b1
	b0=$(brick_cpu)
	/usr/bin/time -f '%e %M %U %S' -o "$rss_file" "$LAYOUTCTL" "${scan_args[@]}" "$@" "$VOL" >/dev/null ||
		rc=$?
	b1=$(brick_cpu)
	((rc <= 1)) || { echo "bench/scan.sh: scan failed (exit $rc)" >&2; exit 1; }
	# the last line: /usr/bin/time writes "Command exited with non-zero status 1" first
	tail -n 1 "$rss_file" | awk -v b="$(secs "$b0" "$b1")" '{ printf "%s %s %.2f %s\n", $1, $2, $3 + $4, b }'
}
timed_scan >/dev/null
read -r _ rss_small _ _ < <(timed_scan)
nseen=$("$LAYOUTCTL" --json scan "$VOL" | jq '.summary.files' || true)
((nseen == small)) || { echo "bench/scan.sh: scan saw $nseen files, not $small" >&2; exit 1; }
note "small: peak RSS $rss_small KiB"

# --- full size -------------------------------------------------------------------------------
t0=$(now)
populate "$small" "$files"
note "populated up to $files files in $(secs "$t0" "$(now)") s"
lctl_umount "$MP"
nseen=$("$LAYOUTCTL" --json scan "$VOL" | jq '.summary.files' || true)
((nseen == files)) || { echo "bench/scan.sh: scan saw $nseen files, not $files" >&2; exit 1; }
ndirs=$("$LAYOUTCTL" --json scan "$VOL" | jq '.summary.directories' || true)

find_plain() { find "${B[@]}" -path '*/.glusterfs' -prune -o -print >/dev/null; }
find_stat() { find "${B[@]}" -path '*/.glusterfs' -prune -o -printf '%m\n' >/dev/null; }
timeit() { local t; t=$(now); "$@"; secs "$t" "$(now)"; }
log=$LCTL_GLUSTER_LOGDIR/$VOL-rebalance.log
# crawl alone: from the daemon's "gf_defrag_start_crawl using commit hash" (all subvolumes up,
# root hash set) to "crawling file-system completed" (the last occurrences in the log)
crawl_time() {
	awk '
	function ts(line,   t, p) {	# [2026-12-02 12:34:56.123456 +0000] -> seconds of the day
		if (!match(line, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]+/)) return -1
		t = substr(line, RSTART, RLENGTH)
		split(t, p, ":")
		return p[1] * 3600 + p[2] * 60 + p[3]
	}
	/gf_defrag_start_crawl using commit hash/ { s = ts($0); e = -1 }
	/crawling file-system completed/ { e = ts($0) }
	END { if (s >= 0 && e >= s) printf "%.3f", e - s; else print "?" }' s=-1 e=-1 "$log" 2>/dev/null ||
		echo "?"
}
fix_layout() { # -> "wall_seconds crawl_seconds", "? ?" when glusterd reports a failure
	local t
	((fixlayout)) || { echo "- -"; return; }
	t=$(now)
	# in a subshell: the harness exits on a failed rebalance (glusterd's status of a daemon
	# that finished is sometimes "failed" while other rebalances run on the node)
	if (lctl_rebalance "$VOL" fix-layout) >&2; then
		printf '%s %s\n' "$(secs "$t" "$(now)")" "$(crawl_time)"
	else
		note "fix-layout: glusterd reported a failure; not counted"
		echo "? ?"
	fi
}
# Rounds of scan, find, find+stat and fix-layout, so that a change in the machine's load hits
# all of them alike. The first scan sees the tree as populated; fix-layout then rewrites every
# directory's layout (same ranges on a volume whose bricks did not change, a new commit hash),
# which changes neither the number of directories and files nor the work of either tool.
find_plain
scan_t=() scan_rss=() find_t=() fstat_t=() scan_cpu=() bricks_cpu=() fl_t=() fl_c=()
gscan_t=() gscan_cpu=() gbricks_cpu=()
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < runs; r++)); do
	read -r t m c bc < <(timed_scan)
	scan_t+=("$t") scan_rss+=("$m") scan_cpu+=("$c") bricks_cpu+=("$bc")
	read -r gt _ gc gbc < <(timed_scan --brick-reads gfapi)
	gscan_t+=("$gt") gscan_cpu+=("$gc") gbricks_cpu+=("$gbc")
	find_t+=("$(timeit find_plain)")
	fstat_t+=("$(timeit find_stat)")
	read -r fw fc < <(fix_layout)
	fl_t+=("$fw") fl_c+=("$fc")
	note "round $((r + 1)): scan ${t} s (${m} KiB, CPU: scan $c s, bricks $bc s), scan through gfapi only $gt s, find ${find_t[-1]} s, find+stat ${fstat_t[-1]} s, fix-layout $fw s (crawl $fc s)"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
scan_med=$(printf '%s\n' "${scan_t[@]}" | median)
gscan_med=$(printf '%s\n' "${gscan_t[@]}" | median)
find_med=$(printf '%s\n' "${find_t[@]}" | median)
fstat_med=$(printf '%s\n' "${fstat_t[@]}" | median)
fl_wall=$(printf '%s\n' "${fl_t[@]}" | grep -E '^[0-9.]+$' | median || true)
fl_crawl=$(printf '%s\n' "${fl_c[@]}" | grep -E '^[0-9.]+$' | median || true)
[[ -n $fl_wall ]] || fl_wall="?"
[[ -n $fl_crawl ]] || fl_crawl="?"
rss_full=$(printf '%s\n' "${scan_rss[@]}" | sort -n | tail -1)

# --- report ------------------------------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
fs=$(df -T "${B[0]}" | awk 'NR == 2 { print $2 }')
rss_delta=$(awk -v a="$rss_small" -v b="$rss_full" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')
cat <<EOF
### scan: $files files, $ndirs directories, $nbricks bricks ($(date -u '+%F %H:%M UTC'))

Machine: $(nproc) x $cpu, $mem RAM, bricks on $fs ($(uname -r)); GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'), single node.
Command: \`bench/scan.sh -f $files -d $dirs -b $nbricks -s $small -r $runs${parallel:+ -p $parallel}$( ((fixlayout)) || echo " -F")\` (layoutctl ${scan_args[*]}, default --parallel unless given).

| measurement | seconds | scan ÷ it |
|---|---:|---:|
| \`layoutctl scan\` (median of $runs: ${scan_t[*]}) | $scan_med | 1.00 |
| \`layoutctl scan --brick-reads gfapi\` (no direct reads of brick folders; median: ${gscan_t[*]}) | $gscan_med | $(ratio "$scan_med" "$gscan_med") |
| floor: brick-local \`find\` over the $nbricks brick folders (median: ${find_t[*]}) | $find_med | $(ratio "$scan_med" "$find_med") |
| brick-local \`find -printf %m\` (stat of every entry; median: ${fstat_t[*]}) | $fstat_med | $(ratio "$scan_med" "$fstat_med") |
| \`gluster volume rebalance fix-layout\`, command to "completed" (median: ${fl_t[*]}) | $fl_wall | $(ratio "$scan_med" "$fl_wall") |
| the same, its crawl alone, from the rebalance log (median: ${fl_c[*]}) | $fl_crawl | $(ratio "$scan_med" "$fl_crawl") |

Peak RSS of the scan: $rss_small KiB at $small files, $rss_full KiB at $files files ($rss_delta %), same $ndirs directories.
CPU seconds per scan run (user + system): layoutctl ${scan_cpu[*]}; the $nbricks brick processes ${bricks_cpu[*]}. With --brick-reads gfapi: layoutctl ${gscan_cpu[*]}; bricks ${gbricks_cpu[*]}.
Load average before and after the timed runs: $load0 / $load1 ($(nproc) CPUs).
EOF
