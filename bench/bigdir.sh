#!/bin/bash
# bench/bigdir.sh: the memory of one huge directory (issue 27, item 1), two builds side by side.
#
#   LCTL_SRCDIR=. bench/bigdir.sh BEFORE AFTER [N]
#
# BEFORE and AFTER are layoutctl binaries (build them without sanitizers: ASan's shadow
# memory would hide the figure). Two distribute volumes of 4 bricks, each with one directory
# /big of N (default 200,000) small files made through gfapi (tests/integration/tools/bigdir.c,
# "f<i> <i*7919>\n": a few bytes each), grown to 6 bricks. Then, with /usr/bin/time -v:
#   - scan --path /big of the first volume by BEFORE, then by AFTER (read-only: the same tree);
#   - fix --phase clean of the first volume by BEFORE, of the second by AFTER;
#   or with BIGDIR_MODE=full, instead: fix (every phase, from the grown tree) of the first
#   volume by BEFORE, of the second by AFTER (long: the data phase moves a third of the files,
#   about 45 a second on the 2-CPU test machine).
# Prints one line per run: what, seconds, max RSS (KiB), exit status; and the load average
# before each. The volumes are removed at the end.
set -euo pipefail
[[ $# -ge 2 ]] || {
	echo "usage: bench/bigdir.sh BEFORE AFTER [N]" >&2
	exit 2
}
BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
N=${3:-200000}
: "${LCTL_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=tests/integration/harness.sh
. "$LCTL_SRCDIR/tests/integration/harness.sh"
lctl_glusterd_ensure
W=$(mktemp -d "${TMPDIR:-/tmp}/lctl-bench-bigdir.XXXXXX")
lctl_on_exit rm -rf -- "$W"
# shellcheck disable=SC2046
gcc -O2 -pthread -o "$W/bigdir" "$LCTL_SRCDIR/tests/integration/tools/bigdir.c" \
	$(pkg-config --cflags --libs glusterfs-api)

run() { # run WHAT BIN ARGS...: one timed run
	local what=$1 bin=$2 rc=0 t0
	shift 2
	printf '# %s: load %s\n' "$what" "$(cut -d' ' -f1-3 /proc/loadavg)"
	t0=$(date +%s.%N)
	/usr/bin/time -v -o "$W/time" "$bin" "$@" >"$W/out" 2>&1 || rc=$?
	printf '%-34s %8.1f s  max RSS %8d KiB  exit %d\n' "$what" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
		"$(awk -F': ' '/Maximum resident/ { print $2 }' "$W/time")" "$rc"
	tail -n 3 "$W/out" | sed 's/^/#   /'
}

lctl_vol_create dist 4 VA
lctl_vol_create dist 4 VB
for v in "$VA" "$VB"; do
	t=$SECONDS
	"$W/bigdir" create "$v" /big "$N" 4 >&2
	echo "# $v: $N files in $((SECONDS - t)) s" >&2
	lctl_vol_add_bricks "$v" 2
done
if [[ ${BIGDIR_MODE:-clean} == full ]]; then
	run "fix, before" "$BEFORE" fix --settle 1 --state-dir "$W/sa" "$VA"
	run "fix, after" "$AFTER" fix --settle 1 --state-dir "$W/sb" "$VB"
else
	run "scan, before" "$BEFORE" scan --path /big "$VA"
	run "scan, after" "$AFTER" scan --path /big "$VA"
	run "fix --phase clean, before" "$BEFORE" fix --phase clean --settle 1 --state-dir "$W/sa" "$VA"
	run "fix --phase clean, after" "$AFTER" fix --phase clean --settle 1 --state-dir "$W/sb" "$VB"
fi
