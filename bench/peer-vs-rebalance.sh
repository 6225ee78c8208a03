#!/bin/bash
# bench/peer-vs-rebalance.sh: GlusterFS's DHT regression scenarios (tests/integration/peer/*.sh)
# run with GlusterFS's own rebalance and remove-brick (PEER_ENGINE=gluster) and with layoutctl,
# one after the other, each check's result side by side.
#
#   sudo bench/peer-vs-rebalance.sh [LAYOUTCTL [TEST...]]   (defaults ./layoutctl, every peer test)
#
# Each test names its checks after the original .t; tools/peer-lib.sh appends one line per
# check to a results file ("TEST STEP CHECK ok|FAILED"). Prints a markdown table: test, step,
# check, GlusterFS's result, layoutctl's, then each run's wall time. Not part of CI (the
# GlusterFS side fails checks on purpose: they are what the comparison is about).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$SRC/layoutctl}")
shift || true
tests=("$@")
((${#tests[@]})) || tests=("$SRC"/tests/integration/peer/*.sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-peer-bench.XXXXXX")
trap 'rm -rf -- "$T"' EXIT

for t in "${tests[@]}"; do
	for engine in gluster layoutctl; do
		t0=$SECONDS
		rc=0
		PEER_ENGINE=$engine PEER_RESULTS=$T/$engine.tsv LCTL_SRCDIR=$SRC LAYOUTCTL=$BIN \
			LCTL_BUILDDIR=$T/$engine bash "$SRC/tests/run-test.sh" "$t" >"$T/out" 2>&1 || rc=$?
		printf '%s\t%s\t%s\t%s\n' "${t##*/}" "$engine" "$((SECONDS - t0))" "$rc" >>"$T/times"
		echo "${t##*/} ($engine): exit $rc, $((SECONDS - t0)) s" >&2
		((rc <= 1)) || tail -20 "$T/out" >&2
	done
done

echo "| test | step | check | GlusterFS | layoutctl |"
echo "|---|---|---|---|---|"
# the checks in the order the runs made them, each once (gluster first: it has every check
# the layoutctl run has but the layoutctl-only ones)
touch "$T/gluster.tsv" "$T/layoutctl.tsv"
awk -F'\t' '{ k = $1 FS $2 FS $3; if (!(k in seen)) { seen[k] = 1; print k } }' \
	"$T/gluster.tsv" "$T/layoutctl.tsv" >"$T/keys"
while IFS=$'\t' read -r test step check; do
	g=$(awk -F'\t' -v t="$test" -v s="$step" -v c="$check" '$1 == t && $2 == s && $3 == c { r = $4 } END { print r ? r : "-" }' "$T/gluster.tsv")
	l=$(awk -F'\t' -v t="$test" -v s="$step" -v c="$check" '$1 == t && $2 == s && $3 == c { r = $4 } END { print r ? r : "-" }' "$T/layoutctl.tsv")
	printf '| %s | %s | %s | %s | %s |\n' "$test" "$step" "$check" "$g" "$l"
done <"$T/keys"
echo
echo "| test | engine | seconds | exit |"
echo "|---|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$T/times"
