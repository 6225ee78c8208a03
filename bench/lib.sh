# shellcheck shell=bash
# bench/lib.sh: what the bench scripts share. Source it after `set -euo pipefail`: it sources
# the test harness (throwaway volumes named lctlbench_*, torn down at exit; BENCH_KEEP=1 keeps
# them), makes the temporary folder $T, and defines
#	now				seconds since the epoch, with nanoseconds
#	since T0			seconds since T0, one decimal
#	cpu_busy			CPU seconds the whole machine has spent busy (/proc/stat's cpu
#					line but idle, iowait and steal): bricks, daemon and client
#	cpu_stolen			CPU seconds the hypervisor gave to other guests (steal): a run
#					with much of it is not comparable
#	cpu_since C0, stolen_since S0	the difference to now, whole seconds
#	build_kind BINARY		"plain build" or which sanitizers it was built with (a
#					sanitized layoutctl is slower: its times are not comparable)
BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LCTL_SRCDIR=$BENCH_SRC LCTL_BUILDDIR=${LCTL_BUILDDIR:-$BENCH_SRC}
export LCTL_PREFIX=${LCTL_PREFIX:-lctlbench_}
[[ -z ${BENCH_KEEP:-} ]] || export LCTL_KEEP_VOLUMES=1
# shellcheck source=../tests/integration/lib.sh
. "$BENCH_SRC/tests/integration/lib.sh"
set +x
T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-bench.XXXXXX")
lctl_on_exit rm -rf -- "$T"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
cpu_busy() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8) / hz; exit }' /proc/stat; }
cpu_stolen() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { print $9 / hz; exit }' /proc/stat; }
cpu_since() { awk -v a="$1" -v b="$(cpu_busy)" 'BEGIN { printf "%.0f", b - a }'; }
stolen_since() { awk -v a="$1" -v b="$(cpu_stolen)" 'BEGIN { printf "%.0f", b - a }'; }
build_kind() {
	local san=()
	grep -qa __asan_init "$1" && san+=(address)
	grep -qa __ubsan_handle "$1" && san+=(undefined)
	grep -qa __tsan_init "$1" && san+=(thread)
	if ((${#san[@]})); then
		printf 'built with -fsanitize=%s (slower: not a figure to quote)' "$(IFS=,; echo "${san[*]}")"
	else
		printf 'plain build'
	fi
}
