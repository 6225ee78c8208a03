#!/bin/bash
# bench/fix.sh: layoutctl fix against GlusterFS's own rebalance on identical trees.
#
#   sudo bench/fix.sh [FILES [DIRS]]        (defaults 20000 files in 400 directories)
#
# Five throwaway distribute volumes of 4 bricks get the same tree (tests/integration/tools/
# fixtree.py populate, same seed: sizes 0 to 3 MiB, hard links, symlinks, odd names), then 2
# bricks each. Volume G: `gluster volume rebalance G start`, timed from the CLI call until the
# status says completed (its time to clean: it stamps the root last). Volume C: `layoutctl fix
# --parallel 4` (--mode clean-first, the default), with its time to clean (every directory
# stamped, the lookup fan-out gone) from its summary. Volume L: `--mode migrate`. Volume M:
# `--layout min-move` (clean-first). Volume K: `--mode linkto` (no data moves: a linkto on the
# hashed brick for every misplaced file; the volume is as clean for lookups, the data stays). Wall times, the CPU time the whole
# machine spent during each run (bricks, daemon and client: what the run cost the servers), the
# CPU time the hypervisor gave to other guests meanwhile (steal: a run with much of it is not
# comparable), files and bytes moved, and a markdown table on stdout (for docs/benchmarks.md).
# Settle is 5 s (the default) in the timed layoutctl runs, as an operator would run it.
# BENCH_KEEP=1 keeps the volumes.
set -euo pipefail
FILES=${1:-20000}
DIRS=${2:-400}
export LCTL_REBALANCE_TIMEOUT=3600
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
SRC=$BENCH_SRC
LAYOUTCTL=${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}
note() { printf 'bench: %s\n' "$*" >&2; }

declare -A V
for k in G C L M K; do
	lctl_vol_create dist 4 "V[$k]"
	mp=$(lctl_mount "${V[$k]}")
	t0=$(now)
	python3 "$SRC/tests/integration/tools/fixtree.py" populate "$mp" "$DIRS" "$FILES" 42 >/dev/null
	note "${V[$k]}: $FILES files in $DIRS directories written in $(since "$t0") s"
	sync
	lctl_umount "$mp"
	lctl_vol_add_bricks "${V[$k]}" 2
done
planned_gl=$("$LAYOUTCTL" --json fix -n "${V[L]}" | jq '[.summary.plan[].bytes] | add')
planned_mm=$("$LAYOUTCTL" --json fix -n --layout min-move "${V[M]}" | jq '[.summary.plan[].bytes] | add')

# GlusterFS: from the CLI call until `rebalance status` says completed (bench/lib.sh)
c0=$(cpu_busy) s0=$(cpu_stolen)
bench_rebalance "${V[G]}" "$LCTL_REBALANCE_TIMEOUT"
gl_cpu=$(cpu_since "$c0") gl_st=$(stolen_since "$s0")
[[ $RB_DONE == completed* ]] || fail "the rebalance of ${V[G]}: $RB_DONE"
((${RB_FAILURES:-0} == 0)) || fail "the rebalance of ${V[G]} completed with $RB_FAILURES failures"
gl_s=$RB_SECS gl_files=$RB_FILES gl_bytes=$RB_BYTES gl_skipped=$RB_SKIPPED gl_note=
[[ $RB_DONE == completed ]] || gl_note=" (${RB_DONE#completed (})"
expect_exit 0 "$LAYOUTCTL" scan "${V[G]}" >/dev/null

declare -A CPU ST WALL
run_fix() { # KEY ARGS...: bench_fix (bench/lib.sh); wall, CPU and stolen seconds in WALL, CPU, ST
	local k=$1
	shift
	bench_fix "$k" "${V[$k]}" "$@"
	((FX_RC == 0)) || fail "layoutctl fix of ${V[$k]} exited $FX_RC"
	WALL[$k]=$FX_SECS CPU[$k]=$FX_CPU ST[$k]=$FX_STOLEN
}
run_fix C
run_fix L --mode migrate
run_fix M --layout min-move
run_fix K --mode linkto
c_s=${WALL[C]} l_s=${WALL[L]} m_s=${WALL[M]} k_s=${WALL[K]}
for k in C L M K; do
	expect_exit 0 "$LAYOUTCTL" scan "${V[$k]}" >/dev/null
done
c_clean=$(jq '.summary.clean_first.clean_after_seconds' "$T/C.json")
[[ $c_clean =~ ^[0-9.]+$ ]] || { note "the clean-first run never had every directory clean"; exit 1; }
# counted from the command's start, as the others are (clean_after_seconds counts from the
# job's start, after the volume is open and the task check done)
c_run=$(jq '.summary.seconds' "$T/C.json")
c_clean=$(awk -v w="$c_s" -v r="$c_run" -v s="$c_clean" 'BEGIN { printf "%.1f", w - (r - s) }')
c_files=$(jq '.summary.file_outcomes.migrated' "$T/C.json")
c_bytes=$(jq '.summary.bytes_moved' "$T/C.json")
l_files=$(jq '.summary.file_outcomes.migrated' "$T/L.json")
l_bytes=$(jq '.summary.bytes_moved' "$T/L.json")
m_files=$(jq '.summary.file_outcomes.migrated' "$T/M.json")
m_bytes=$(jq '.summary.bytes_moved' "$T/M.json")
k_files=$(jq '.summary.file_outcomes.linked' "$T/K.json")
ratio=$(awk -v g="$gl_s" -v l="$l_s" 'BEGIN { printf "%.1f", g / l }')
ratio_c=$(awk -v g="$gl_s" -v l="$c_s" 'BEGIN { printf "%.1f", g / l }')
ratio_clean=$(awk -v g="$gl_s" -v l="$c_clean" 'BEGIN { printf "%.1f", g / l }')
ratio_cl=$(awk -v c="$c_s" -v l="$l_s" 'BEGIN { printf "%.2f", l / c }')
ratio_m=$(awk -v g="$gl_s" -v l="$m_s" 'BEGIN { printf "%.1f", g / l }')
ratio_k=$(awk -v g="$gl_s" -v l="$k_s" 'BEGIN { printf "%.1f", g / l }')
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

cat <<EOT
### Fix: layoutctl against \`gluster volume rebalance\` ($(date -u '+%Y-%m-%d'))

Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(. /etc/os-release; echo "$PRETTY_NAME"), GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'), all bricks on one filesystem, one node; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
Command: \`bench/fix.sh $FILES $DIRS\`: $FILES files in $DIRS directories per volume (fixtree.py, seed 42), 4 bricks grown to 6.
layoutctl: $(build_kind "$LAYOUTCTL").

| run | wall time | CPU time (machine) | CPU stolen | files moved | bytes moved |
|---|---|---|---|---|---|
| \`gluster volume rebalance VOL start\` (until completed)$gl_note | $gl_s s | $gl_cpu s | $gl_st s | $gl_files (skipped $gl_skipped) | $(mb "$gl_bytes") MB |
| \`layoutctl fix --parallel 4\` (clean-first; every directory clean after **$c_clean s**) | $c_s s | ${CPU[C]} s | ${ST[C]} s | $c_files | $(mb "$c_bytes") MB |
| \`layoutctl fix --parallel 4 --mode migrate\` | $l_s s | ${CPU[L]} s | ${ST[L]} s | $l_files | $(mb "$l_bytes") MB |
| \`layoutctl fix --parallel 4 --layout min-move\` | $m_s s | ${CPU[M]} s | ${ST[M]} s | $m_files | $(mb "$m_bytes") MB |
| \`layoutctl fix --parallel 4 --mode linkto\` | $k_s s | ${CPU[K]} s | ${ST[K]} s | $k_files linked | 0 MB |

Where the clean-first run's time went (its summary: wall seconds per phase; the seconds its threads spent in each step of the directories, summed over the threads): $(bench_fix_split "$T/C.json"). The same for min-move: $(bench_fix_split "$T/M.json").

Time to clean (every directory stamped, a miss costs one LOOKUP), rebalance / clean-first: **${ratio_clean}x** (the rebalance stamps the root last: its whole run). Whole runs: rebalance / clean-first ${ratio_c}x; migrate / clean-first **${ratio_cl}x** (above 1: the two phases are faster than moving data before each stamp). Rebalance / migrate mode ${ratio}x, min-move (clean-first) ${ratio_m}x, linkto mode ${ratio_k}x. Dry-run plans: $(mb "$planned_gl") MB with GlusterFS's layout, $(mb "$planned_mm") MB with min-move. Every volume scanned clean afterwards.
EOT
