#!/bin/bash
# bench/ab.sh: two layoutctl builds against each other, `fix --parallel 4` on identical trees.
#
#   sudo bench/ab.sh BUILD_A BUILD_B [FILES [DIRS [ROUNDS]]]   (defaults 10000 200 2)
#
# BUILD_A and BUILD_B are layoutctl binaries (say, a build of the commit before a change and one
# of the change). Each round makes two throwaway 4-brick distribute volumes with the same tree
# (tests/integration/tools/fixtree.py populate, seed 42), grows each to 6 bricks, then runs A on
# one and B on the other, alternating which goes first. Per run: wall time, CPU time the whole
# machine spent meanwhile (bricks and client: what the run cost the servers), CPU time the
# hypervisor gave to other guests meanwhile (steal: a run with much of it is not comparable),
# files migrated.
# Each volume must scan clean afterwards. A markdown table on stdout.
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 BUILD_A BUILD_B [FILES [DIRS [ROUNDS]]]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2")
FILES=${3:-10000} DIRS=${4:-200} ROUNDS=${5:-2}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
SRC=$BENCH_SRC
rows=()
for ((r = 1; r <= ROUNDS; r++)); do
	declare -A V=()
	for k in A B; do
		lctl_vol_create dist 4 "V[$k]"
		mp=$(lctl_mount "${V[$k]}")
		python3 "$SRC/tests/integration/tools/fixtree.py" populate "$mp" "$DIRS" "$FILES" 42 >/dev/null
		sync
		lctl_umount "$mp"
		lctl_vol_add_bricks "${V[$k]}" 2
	done
	order="A B"
	((r % 2)) || order="B A"
	for k in $order; do
		bin=$A
		[[ $k == B ]] && bin=$B
		t0=$(now) c0=$(cpu_busy) s0=$(cpu_stolen)
		"$bin" --json fix --state-dir "$T/state-$r$k" --parallel 4 "${V[$k]}" >"$T/$r$k.json"
		row="| $r | $k | $(since "$t0") s | $(cpu_since "$c0") s | $(stolen_since "$s0") s"
		expect_exit 0 "$bin" scan "${V[$k]}" >/dev/null
		rows+=("$row | $(jq .summary.file_outcomes.migrated "$T/$r$k.json") |")
	done
	for k in A B; do lctl_vol_destroy "${V[$k]}"; done
done

cat <<EOT
Machine: $(nproc) CPUs, GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
Command: \`bench/ab.sh A B $FILES $DIRS $ROUNDS\`; A = $A ($(build_kind "$A")), B = $B ($(build_kind "$B")).

| round | build | wall time | CPU time (machine) | CPU stolen | files migrated |
|---|---|---|---|---|---|
$(printf '%s\n' "${rows[@]}")
EOT
