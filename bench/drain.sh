#!/bin/bash
# bench/drain.sh: layoutctl drain --commit against GlusterFS's remove-brick on identical trees.
#
#   sudo bench/drain.sh [FILES [DIRS]]        (defaults 2000 files in 40 directories)
#
# Two throwaway 4-brick distribute volumes get the same tree (tests/integration/tools/
# fixtree.py populate, seed 42: sizes 0 to 3 MiB, hard links, symlinks, odd names); the third
# brick of each leaves. Volume G: `gluster volume remove-brick G BRICK start`, timed from the
# CLI call until its status says completed, then `commit`. Volume D: `layoutctl drain --commit
# D BRICK` (settle 5 s, the default). A fresh-lookup checker (tests/integration/tools/gfcheck.c:
# a new gfapi client looks every file up by name, round after round) runs from the start of
# each until its end: failed lookups (ENOENT) are files hidden from new clients. Wall time,
# bytes moved, failed lookups, and a markdown table on stdout (for docs/benchmarks.md).
# BENCH_KEEP=1 keeps the volumes.
set -euo pipefail
FILES=${1:-2000}
DIRS=${2:-40}
export LCTL_REBALANCE_TIMEOUT=3600
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
SRC=$BENCH_SRC
LAYOUTCTL=${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}
note() { printf 'bench: %s\n' "$*" >&2; }
# shellcheck disable=SC2046
gcc -O2 -o "$T/gfcheck" "$SRC/tests/integration/tools/gfcheck.c" $(pkg-config --cflags --libs glusterfs-api)

declare -A V B
for k in G D; do
	lctl_vol_create dist 4 "V[$k]"
	mp=$(lctl_mount "${V[$k]}")
	python3 "$SRC/tests/integration/tools/fixtree.py" populate "$mp" "$DIRS" "$FILES" 42 >/dev/null
	python3 "$SRC/tests/integration/tools/fixtree.py" list "$mp" >"$T/$k.list"
	sync
	lctl_umount "$mp"
	B[$k]=${LCTL_BRICKS[2]}
done
checker_start() { rm -f "$T/$1.stop"; "$T/gfcheck" lookup "${V[$1]}" "$T/$1.list" "$T/$1.stop" >"$T/$1.chk" 2>&1 & CHK=$!; }
checker_stop() { : >"$T/$1.stop"; wait "$CHK" || true; grep -c '^ENOENT ' "$T/$1.chk" || true; }
rounds() { grep -c '^round .* files' "$T/$1.chk" || true; }

# GlusterFS: remove-brick start, until completed, then commit
checker_start G
t0=$(now)
lctl_vol_remove_start "${V[G]}" "${B[G]}"
lctl_wait_remove_complete "${V[G]}" "${B[G]}"
xml=$(lctl_gluster volume remove-brick "${V[G]}" "$LCTL_HOST:${B[G]}" status --xml)
lctl_vol_remove_commit "${V[G]}" "${B[G]}"
gl_s=$(since "$t0")
gl_bad=$(checker_stop G)
gl_files=$(_lctl_xpath "$xml" /cliOutput/volRemoveBrick/aggregate/files)
gl_bytes=$(_lctl_xpath "$xml" /cliOutput/volRemoveBrick/aggregate/size)
gl_failed=$(_lctl_xpath "$xml" /cliOutput/volRemoveBrick/aggregate/failures)
gl_left=$(find "${B[G]}" -path "${B[G]}/.glusterfs" -prune -o ! -type d -print | wc -l)

# layoutctl drain --commit
checker_start D
t0=$(now)
"$LAYOUTCTL" drain --state-dir "$T/state" --commit "${V[D]}" "$LCTL_HOST:${B[D]}" >"$T/D.out" 2>&1 ||
	{ cat "$T/D.out" >&2; note "layoutctl drain failed"; exit 1; }
d_s=$(since "$t0")
d_bad=$(checker_stop D)
d_files=$(jq -s '[.[] | select(.outcome == "migrated")] | length' "$T/state/outcomes.jsonl")
d_bytes=$(jq -s '[.[] | select(.outcome == "migrated") | .size] | add // 0' "$T/state/outcomes.jsonl")
d_left=$(find "${B[D]}" -path "${B[D]}/.glusterfs" -prune -o ! -type d -print | wc -l)
expect_exit 0 "$LAYOUTCTL" scan "${V[D]}" >/dev/null
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

cat <<EOT
### Drain: layoutctl against \`gluster volume remove-brick\` ($(date -u '+%Y-%m-%d'))

Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(. /etc/os-release; echo "$PRETTY_NAME"), GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'), all bricks on one filesystem, one node; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
Command: \`bench/drain.sh $FILES $DIRS\`: $FILES files in $DIRS directories per volume (fixtree.py, seed 42), the third of 4 bricks removed.
layoutctl: $(build_kind "$LAYOUTCTL").

| run | wall time | files moved | bytes moved | fresh lookups failed (ENOENT) | left on the removed brick |
|---|---|---|---|---|---|
| \`gluster volume remove-brick VOL BRICK start\` (until completed) + \`commit\` | $gl_s s | $gl_files (failures $gl_failed) | $(mb "$gl_bytes") MB | **$gl_bad** in $(rounds G) rounds | $gl_left |
| \`layoutctl drain --commit VOL BRICK\` | $d_s s | $d_files | $(mb "$d_bytes") MB | **$d_bad** in $(rounds D) rounds | $d_left |
EOT
