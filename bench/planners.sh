#!/bin/bash
# bench/planners.sh: the layout planners on a volume with uneven bricks (issue 26).
#
#   sudo bench/planners.sh [MIB_PER_BRICK [DIRS]]     (defaults 96 MiB bricks, 8 directories)
#
# Three throwaway distribute volumes, one per planner, each built the same way with every brick
# on a tmpfs of its own (so that each brick's statvfs is its own: here the usual bricks share
# one filesystem): 3 bricks of MIB_PER_BRICK, the first already 40 % full of other data (a file
# beside the brick folder), receive the same tree through FUSE (DIRS directories of 256 KiB
# files, 28 % of the three bricks); then 2 more bricks are added, one 2/3 full of other data,
# one empty. `layoutctl fix --force-move` runs with --layout gluster (GlusterFS's own layout:
# what rebalance writes), min-move and even-usage (--force-move as `rebalance start force`:
# without it DHT's own balance check, the target keeping as much free space as the source,
# skips files whatever the layout; BENCH_FORCE=0 runs without). For each: the bytes it moved,
# the files DHT skipped (its summary) and
# the fill spread, max - min of the bricks' used % (df of each tmpfs), before and after, and a
# markdown table on stdout (for docs/benchmarks.md). About 3 minutes on 2 cores; needs
# 5 x 3 x MIB_PER_BRICK of RAM at most (tmpfs). BENCH_KEEP=1 keeps the volumes.
set -euo pipefail
MIB=${1:-96}
DIRS=${2:-8}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tests/integration/tools/hostile-lib.sh
. "$BENCH_SRC/tests/integration/tools/hostile-lib.sh"
LAYOUTCTL=${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}
FORCE=()
[[ ${BENCH_FORCE:-1} == 0 ]] || FORCE=(--force-move)
command -v jq >/dev/null || { echo "bench: jq is needed" >&2; exit 1; }
note() { printf 'bench: %s\n' "$*" >&2; }

# the files: 28 % of three bricks, in 256 KiB files
NFILES=$((MIB * 3 * 28 * 4 / 100 / DIRS))

# tmpfs_brick VOL ROOT NAME OTHER_MIB: a brick on its own tmpfs, OTHER_MIB of other data beside it
tmpfs_brick() {
	hs_tmpfs_brick "$2/$3" "${MIB}m"
	((!$4)) || head -c $(($4 * 1048576)) /dev/zero >"$2/$3/other-data"
	lctl_gluster volume add-brick "$1" "$LCTL_HOST:$2/$3/brick" force >/dev/null || fail "add-brick $3"
}

# fills ROOT NAME...: each tmpfs's used %, one per line
fills() {
	local root=$1 n
	shift
	for n; do df -B1 --output=used,size "$root/$n" | awk 'NR == 2 { printf "%.1f\n", 100 * $1 / $2 }'; done
}
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f", hi - lo }'; }

declare -A BYTES SKIPPED BEFORE AFTER FILLS_B FILLS_A SECS
for P in gluster min-move even-usage; do
	lctl_vol_create dist 1 VOL
	root=$(_lctl_vol_root "$VOL")
	placeholder=${LCTL_BRICKS[0]}
	tmpfs_brick "$VOL" "$root" t0 $((MIB * 40 / 100))
	tmpfs_brick "$VOL" "$root" t1 0
	tmpfs_brick "$VOL" "$root" t2 0
	lctl_wait_bricks_online "$VOL"
	# the volume on the tmpfs bricks alone: the placeholder leaves while it is empty
	lctl_gluster volume remove-brick "$VOL" "$LCTL_HOST:$placeholder" force >/dev/null ||
		fail "remove-brick of the placeholder"
	mp=$(lctl_mount "$VOL")
	python3 - "$mp" "$DIRS" "$NFILES" <<'EOF'
import os, sys
root, dirs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(root, "d%02d" % d)
    os.mkdir(p)
    for i in range(files):
        with open(os.path.join(p, "f%04d" % i), "wb") as f:
            f.write(os.urandom(256 * 1024))
EOF
	sync
	lctl_umount "$mp"
	tmpfs_brick "$VOL" "$root" t3 $((MIB * 2 / 3))
	tmpfs_brick "$VOL" "$root" t4 0
	lctl_wait_bricks_online "$VOL"
	FILLS_B[$P]=$(fills "$root" t0 t1 t2 t3 t4 | paste -sd/)
	BEFORE[$P]=$(fills "$root" t0 t1 t2 t3 t4 | spread)
	note "$P: fill before ${FILLS_B[$P]} % (spread ${BEFORE[$P]})"
	t0=$(now)
	rc=0
	"$LAYOUTCTL" --json fix --state-dir "$T/state-$P" --settle 1 "${FORCE[@]}" --layout "$P" "$VOL" >"$T/$P.json" 2>"$T/$P.err" || rc=$?
	SECS[$P]=$(since "$t0")
	((rc == 0)) || { cat "$T/$P.err" >&2; fail "fix --layout $P exited $rc"; }
	BYTES[$P]=$(jq '.summary.bytes_moved' "$T/$P.json")
	SKIPPED[$P]=$(jq '.summary.file_outcomes.skipped // 0' "$T/$P.json")
	FILLS_A[$P]=$(fills "$root" t0 t1 t2 t3 t4 | paste -sd/)
	AFTER[$P]=$(fills "$root" t0 t1 t2 t3 t4 | spread)
	note "$P: moved ${BYTES[$P]} bytes in ${SECS[$P]} s; fill after ${FILLS_A[$P]} % (spread ${AFTER[$P]})"
done

cat <<EOF
Command: \`${FORCE[*]:+BENCH_FORCE=1 }bench/planners.sh $MIB $DIRS\` ($(build_kind "$LAYOUTCTL"); fix ${FORCE[*]:-without --force-move}). Five bricks of $MIB MiB, each
on its own tmpfs: t0-t2 hold the volume's $((DIRS * NFILES)) files of 256 KiB, t0 also 40 % of other data;
t3 (2/3 other data) and t4 (empty) were just added. Fill = each tmpfs's used % (df), t0/t1/t2/t3/t4.

Machine: $(nproc) CPUs, $(. /etc/os-release; echo "$PRETTY_NAME"), GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'), one node; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).

| \`fix --layout\` | bytes moved | files DHT skipped | fill before (%) | spread before | fill after (%) | spread after | wall time |
|---|---|---|---|---|---|---|---|
EOF
for P in gluster min-move even-usage; do
	printf '| %s | %s | %s | %s | %s | %s | %s | %s s |\n' "$P" "$(numfmt --to=iec-i --suffix=B "${BYTES[$P]}")" "${SKIPPED[$P]}" \
		"${FILLS_B[$P]}" "${BEFORE[$P]}" "${FILLS_A[$P]}" "${AFTER[$P]}" "${SECS[$P]}"
done
