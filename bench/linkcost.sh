#!/bin/bash
# bench/linkcost.sh: where the clean phase's time goes (issue 27 item 4), in brick operations.
#
#   sudo [LCTL_LINKCOST_BRICKS="B A"] [LCTL_LINKCOST_RUNS="P1 P4 G"] bench/linkcost.sh [FILES [DIRS]]
#                                                (defaults 20000 files in 400 directories)
#
# One tree of FILES files of 0-4 KiB in DIRS directories on B bricks (default 4; bench/populate,
# then copied brick-wise: the same names, so the same files to link), grown by A bricks (default
# 2). Then, each on its own copy, with `gluster volume profile` counting every brick's operations
# (LCTL_LINKCOST_RUNS picks them; all three by default):
#   - `layoutctl fix --phase clean --settle 0` at --parallel 1 and --parallel 4 (a linkto on its
#     hashed brick for each misplaced file, made by a lookup through DHT in the dirty directory);
#   - GlusterFS's rebalance (which moves the data instead; every directory clean at its end).
# For each: wall time, files linked or moved per second, brick operations per file by kind, and
# the CPU time the whole machine spent (bricks, daemon, client) against the wall time: a run
# whose machine was busy all along is bound by the bricks, and more client threads would not
# make it faster. layoutctl's own steps (summary.step_seconds, in thread-seconds) show which
# step the clean phase spends its time in. A markdown table on stdout (for docs/benchmarks.md).
set -euo pipefail
FILES=${1:-20000}
DIRS=${2:-400}
read -r BRICKS ADD <<<"${LCTL_LINKCOST_BRICKS:-4 2}"
RUNS=" ${LCTL_LINKCOST_RUNS:-P1 P4 G} "
[[ $BRICKS =~ ^[1-9][0-9]*$ && $ADD =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench/linkcost.sh: LCTL_LINKCOST_BRICKS is 'BRICKS ADDED', e.g. '4 2'" >&2; exit 2; }
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
LAYOUTCTL=${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}
note() { printf 'bench: %s\n' "$*" >&2; }
command -v /usr/bin/time >/dev/null || fail "/usr/bin/time is needed (apt-get install time)"

# profile_start VOL / profile_ops VOL OUT: the bricks' operation counts between the two, summed
# over the bricks, as "NAME COUNT" lines in OUT
profile_start() {
	lctl_gluster volume profile "$1" start >/dev/null 2>&1 || true
	lctl_gluster volume profile "$1" info clear >/dev/null || fail "cannot clear the profile of $1"
}
profile_ops() {
	lctl_gluster volume profile "$1" info cumulative --xml >"$T/profile.xml" ||
		fail "cannot read the profile of $1"
	python3 - "$T/profile.xml" >"$2" <<-'EOF'
		import collections, sys
		import xml.etree.ElementTree as ET
		tot = collections.Counter()
		for b in ET.parse(sys.argv[1]).iter('brick'):
		    for cs in b.iter('cumulativeStats'):
		        for f in cs.iter('fop'):
		            tot[f.findtext('name')] += int(f.findtext('hits'))
		for k, v in sorted(tot.items()):
		    print(k, v)
	EOF
}
# per_file OPSFILE N: "LOOKUP 9.2, MKNOD 1.0, ..." (operations per file, the common ones first)
per_file() {
	awk -v n="$2" 'n > 0 && $2 / n >= 0.05 { printf "%s%s %.1f", sep, $1, $2 / n; sep = ", " }' \
		<(sort -k2,2nr "$1")
}
total_per_file() { awk -v n="$2" '{ s += $2 } END { printf "%.1f", (n > 0 ? s / n : 0) }' "$1"; }

lctl_vol_create dist "$BRICKS" SRC
bench_populate "$SRC" "$FILES" "$DIRS"
lctl_vol_add_bricks "$SRC" "$ADD"
TO=$((BRICKS + ADD))
declare -A V
for k in $RUNS; do bench_clone "$SRC" "V[$k]"; done
note "tree: $FILES files in $DIRS directories, $BRICKS -> $TO bricks (load $(cut -d' ' -f1-3 /proc/loadavg))"

rows=()
for k in P1 P4; do
	[[ $RUNS == *" $k "* ]] || continue
	p=${k#P}
	profile_start "${V[$k]}"
	t0=$(now) c0=$(cpu_busy)
	rc=0
	/usr/bin/time -f '%M' -o "$T/$k.rss" "$LAYOUTCTL" --json fix --state-dir "$T/state-$k" \
		--phase clean --settle 0 --parallel "$p" "${V[$k]}" >"$T/$k.json" 2>"$T/$k.err" || rc=$?
	secs=$(since "$t0") cpu=$(cpu_since "$c0")
	((rc == 0)) || fail "layoutctl fix of ${V[$k]} exited $rc: $(tail -n 3 "$T/$k.err")"
	profile_ops "${V[$k]}" "$T/$k.ops"
	n=$(jq '.summary.file_outcomes.linked' "$T/$k.json")
	steps=$(jq -r '.summary.step_seconds | to_entries | map(select(.value >= 0.05) |
		"\(.key) \(.value * 10 | round / 10)") | join(", ")' "$T/$k.json")
	rows+=("| layoutctl fix --phase clean --parallel $p | $secs | $n linked | $(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') | $(total_per_file "$T/$k.ops" "$n"): $(per_file "$T/$k.ops" "$n") | $cpu of $(awk -v s="$secs" 'BEGIN { printf "%.0f", 2 * s }') | $steps |")
	note "${rows[-1]}"
done

if [[ $RUNS == *" G "* ]]; then
	profile_start "${V[G]}"
	c0=$(cpu_busy)
	bench_rebalance "${V[G]}" 3600
	cpu=$(cpu_since "$c0")
	profile_ops "${V[G]}" "$T/G.ops"
	rows+=("| gluster volume rebalance ($RB_DONE) | $RB_SECS | $RB_FILES moved | $(awk -v n="$RB_FILES" -v s="$RB_SECS" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }') | $(total_per_file "$T/G.ops" "$RB_FILES"): $(per_file "$T/G.ops" "$RB_FILES") | $cpu of $(awk -v s="$RB_SECS" 'BEGIN { printf "%.0f", 2 * s }') | - |")
	note "${rows[-1]}"
fi

echo "$FILES files of 0-4 KiB in $DIRS directories, $BRICKS -> $TO bricks; $(build_kind "$LAYOUTCTL"); load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | wall s | files | files/s | brick ops per file (all: by kind) | machine CPU s of the 2-core wall | layoutctl steps (thread-s) |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
