#!/bin/bash
# bench/scale.sh: layoutctl against GlusterFS's rebalance at field scale (issue 27), one run each
# on the same trees.
#
#   sudo [LCTL_BENCH_SCALE=S] [LCTL_BENCH_CASES="populate tree wide bigdir seeds"] bench/scale.sh
#
# The cases (every size times LCTL_BENCH_SCALE, default 1: the full sizes; 0.01 proves the
# script in minutes; each at least 1):
#   populate  the tree of "tree" made on fresh 4-brick volumes: bench/populate through gfapi
#             (the way this script makes its trees), then copied brick-wise (bench_clone), the
#             same program writing the same
#             tree through a FUSE mount (-m), and tests/integration/tools/fixtree.py through a
#             FUSE mount (bench/fix.sh's way; its own tree: 0 to 3 MiB, so its bytes differ):
#             files/s of each;
#   tree      1,000,000 files of 0-4 KiB in 10,000 directories, 4 -> 6 bricks;
#   wide      100,000 files in 1,000 directories, 12 -> 24 bricks; after each run the LOOKUP per
#             CREATE of a fresh gfapi client creating 200 files in a directory of the tree,
#             counted by that client below its DHT (tests/integration/tools/fix-lib.sh,
#             fx_client_lookups_per_create: the method of docs/design.md), and the scan's
#             fan-out score (lookup_optimize_coverage: LOOKUPs per miss by file) after the run;
#   bigdir    one directory of 1,000,000 entries, 4 -> 6 bricks; the rebalance is stopped after
#             LCTL_BENCH_LIMIT seconds (default 4 hours times the scale, at least 10 minutes);
#   seeds     issue 27's must-show: 100,000 files in 2,000 directories, 4 -> 6 bricks, with a
#             third contender M, `layoutctl fix --parallel 4 --layout min-move`, on its own copy
#             (not among the default cases: run it by name).
# For tree, wide and bigdir: the tree is made once (bench/populate, seed BENCH_SEED, 42; through
# gfapi, 8 threads on 2 clients) and copied brick-wise into a second volume (bench/lib.sh,
# bench_clone: cp -a of the stopped volume's bricks, a new volume created on the copies with
# force; about 4 times the files/s of populate). Each volume is grown, scanned (`layoutctl scan`, timed: what a miss costs before the run), then
#   G: `gluster volume rebalance VOL start`, from the CLI call until its status says completed
#      (time to clean = time to placed: it stamps the root last), max RSS the peak VmHWM of its
#      process (sampled at each poll of the status, every 0.2 s);
#   C: `layoutctl fix --parallel 4` (clean-first): time to clean from its summary (counted from
#      the command's start), time to placed its wall time, max RSS from /usr/bin/time;
#   M (seeds only): the same with `--layout min-move`.
# LCTL_BENCH_KEYS (default "G C", seeds "G C M") picks the contenders of every case: "C" alone
# times layoutctl without the rebalance beside it (no ratio then: for the per-file costs of one
# tree size against another, which issue 27 asks to stay flat from 100,000 to 1,000,000 files);
# the first contender gets the populated volume, the others copies.
# Afterwards each volume is scanned again (exit 0 required of layoutctl's; the rebalance's
# result is reported). Per-file cost: wall time of the run over the files of the tree.
# Output: a Markdown block on stdout (for docs/benchmarks.md), progress on stderr; the machine's
# load average at the start and end of every run. LAYOUTCTL (default: the build in the source
# tree) is copied first, so a rebuild meanwhile does not change what is timed. BENCH_KEEP=1 keeps
# the volumes. Exit 1 when a correctness check failed (the table is printed anyway).
set -euo pipefail
SCALE=${LCTL_BENCH_SCALE:-1}
CASES=${LCTL_BENCH_CASES:-populate tree wide bigdir}
[[ $SCALE =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] && awk -v s="$SCALE" 'BEGIN { exit !(s > 0) }' ||
	{ echo "bench/scale.sh: LCTL_BENCH_SCALE must be a number above 0, not '$SCALE'" >&2; exit 2; }
for c in $CASES; do
	[[ $c =~ ^(populate|tree|wide|bigdir|seeds)$ ]] || { echo "bench/scale.sh: no case '$c' (populate tree wide bigdir seeds)" >&2; exit 2; }
done
for k in ${LCTL_BENCH_KEYS:-}; do
	[[ $k =~ ^[GCM]$ ]] || { echo "bench/scale.sh: no contender '$k' in LCTL_BENCH_KEYS (G C M)" >&2; exit 2; }
done
sz() { awk -v n="$1" -v s="$SCALE" 'BEGIN { v = int(n * s + 0.5); print (v < 1 ? 1 : v) }'; }
TREE_FILES=$(sz 1000000) TREE_DIRS=$(sz 10000)
WIDE_FILES=$(sz 100000) WIDE_DIRS=$(sz 1000)
BIG_FILES=$(sz 1000000)
SEED_FILES=$(sz 100000) SEED_DIRS=$(sz 2000)
LIMIT=${LCTL_BENCH_LIMIT:-$(awk -v s="$SCALE" 'BEGIN { v = int(14400 * s); print (v < 600 ? 600 : v) }')}
[[ $LIMIT =~ ^[1-9][0-9]*$ ]] || { echo "bench/scale.sh: LCTL_BENCH_LIMIT must be whole seconds" >&2; exit 2; }
export LCTL_REBALANCE_TIMEOUT=$LIMIT
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[[ -x ${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl} ]] || { echo "bench/scale.sh: no layoutctl (make first)" >&2; exit 2; }
cp -- "${LAYOUTCTL:-$LCTL_BUILDDIR/layoutctl}" "$T/layoutctl"
LAYOUTCTL=$T/layoutctl
# shellcheck source=../tests/integration/tools/fix-lib.sh
. "$BENCH_SRC/tests/integration/tools/fix-lib.sh"
fx_init
command -v jq >/dev/null || { echo "bench/scale.sh: jq is needed" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench/scale.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
note() { printf 'bench: %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
per_file() { awk -v s="$1" -v n="$2" 'BEGIN { if (s ~ /^[0-9.]+$/) printf "%.0f µs", 1e6 * s / n; else print "-" }'; }
secs() { if [[ $1 =~ ^[0-9.]+$ ]]; then echo "$1 s"; else echo "$1"; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.1fx", a / b; else print "-" }'; }
bad=0
ROWS=()

# scan_row KEY VOL: `layoutctl --json scan VOL`, timed; its exit status in SCAN_RC, the fan-out
# score in SCAN_FAN ("LOOKUPs per miss by file / LOOKUPs of a fan-out"), time and RSS in
# SCAN_SECS and SCAN_RSS_KIB
scan_row() {
	local t0
	SCAN_RC=0
	t0=$(now)
	/usr/bin/time -f '%M' -o "$T/$1.scan.rss" "$LAYOUTCTL" --json scan "$2" >"$T/$1.scan" 2>"$T/$1.scan.err" || SCAN_RC=$?
	SCAN_SECS=$(since "$t0")
	SCAN_RSS_KIB=$(tail -n 1 "$T/$1.scan.rss")
	SCAN_FAN=$(jq -r '.summary.lookup_optimize_coverage | "\(.lookups_per_miss_by_file * 100 | round / 100) of \(.lookups_per_fan_out)"' \
		"$T/$1.scan" 2>/dev/null) || SCAN_FAN=-
}

# one_case NAME BRICKS ADD FILES DIRS [KEYS]: the rebalance (G) and layoutctl (C, default layout;
# M, min-move) on the same tree; KEYS default "G C", or $LCTL_BENCH_KEYS
declare -A R
SPLIT=() # where each layoutctl run went, by phase and by step
one_case() {
	local name=$1 nbricks=$2 add=$3 nfiles=$4 dirs=$5 keys=${LCTL_BENCH_KEYS:-${6:-G C}} k vol t0 args how
	local first=${keys%% *} clean data
	local -A vols
	lctl_vol_create dist "$nbricks" "vols[$first]"
	bench_populate "${vols[$first]}" "$nfiles" "$dirs"
	for k in $keys; do
		[[ $k != "$first" ]] || continue
		t0=$(now)
		bench_clone "${vols[$first]}" "vols[$k]"
		note "$name: the tree copied brick-wise in $(since "$t0") s"
	done
	for k in $keys; do
		vol=${vols[$k]}
		lctl_vol_add_bricks "$vol" "$add"
		scan_row "$name-$k-before" "$vol"
		R[$k,scan]="$SCAN_SECS s, $(mib "$SCAN_RSS_KIB"), $(per_file "$SCAN_SECS" "$nfiles")/file, score $SCAN_FAN"
		R[$k,load]=$(load)
		if [[ $k == G ]]; then
			bench_rebalance "$vol" "$LIMIT"
			note "$name: rebalance $RB_DONE in $RB_SECS s, $RB_FILES files, peak RSS $(mib "$RB_RSS_KIB")"
			R[G,wall]=$RB_SECS R[G,clean]=$RB_SECS R[G,files]=$RB_FILES R[G,rss]=$RB_RSS_KIB R[G,done]=$RB_DONE
			[[ $RB_DONE == completed* ]] || R[G,clean]="not clean" R[G,wall]="not placed"
		else
			args=()
			[[ $k != M ]] || args=(--layout min-move)
			R[$k,how]="--parallel 4${args[*]:+ ${args[*]}}"
			bench_fix "$name-$k" "$vol" "${args[@]}"
			note "$name: layoutctl fix ${args[*]} exit $FX_RC in $FX_SECS s (clean after $FX_CLEAN s), $FX_FILES files, max RSS $(mib "$FX_RSS_KIB")"
			R[$k,wall]=$FX_SECS R[$k,clean]=$FX_CLEAN R[$k,files]=$FX_FILES R[$k,rss]=$FX_RSS_KIB R[$k,done]="exit $FX_RC"
			# per file, each part of the run: the scan before it, the clean phase, the rest
			clean=- data=-
			[[ $FX_CLEAN == - ]] || clean=$FX_CLEAN data=$(awk -v w="$FX_SECS" -v c="$FX_CLEAN" 'BEGIN { printf "%.1f", w - c }')
			SPLIT+=("- $name${args[*]:+ (${args[*]})}: $(bench_fix_split "$T/$name-$k.json"); per file: scan $(per_file "$SCAN_SECS" "$nfiles"), clean phase $(per_file "$clean" "$nfiles"), data phase $(per_file "$data" "$nfiles")")
			((FX_RC == 0)) || bad=1
		fi
		R[$k,load]+=" / $(load)"
		scan_row "$name-$k-after" "$vol"
		R[$k,check]="scan after: exit $SCAN_RC, score $SCAN_FAN"
		[[ $k == G || $SCAN_RC == 0 ]] || bad=1
		[[ $name != wide ]] ||
			R[$k,check]+="; LOOKUP per CREATE $(fx_client_lookups_per_create "$vol" /d00000 200 "lpc-$k-")"
		if [[ -n ${BENCH_KEEP:-} ]]; then note "keeping $vol"; else lctl_vol_destroy "$vol"; fi
	done
	[[ " $keys " != *" G "* ]] ||
		ROWS+=("| $name | \`gluster volume rebalance\` (${R[G,done]}) | $(secs "${R[G,clean]}") | $(secs "${R[G,wall]}") | ${R[G,files]} | $(mib "${R[G,rss]}") | $(per_file "${R[G,wall]}" "$nfiles") | ${R[G,check]} | ${R[G,load]} |")
	for k in $keys; do
		[[ $k != G ]] || continue
		how=${R[$k,how]}
		ROWS+=("| $name | \`layoutctl fix $how\` (${R[$k,done]}) | $(secs "${R[$k,clean]}") | $(secs "${R[$k,wall]}") | ${R[$k,files]} | $(mib "${R[$k,rss]}") | $(per_file "${R[$k,wall]}" "$nfiles") | ${R[$k,check]} | ${R[$k,load]} |")
		if [[ " $keys " == *" G "* ]]; then
			ROWS+=("| $name | rebalance / \`fix $how\` | **$(ratio "${R[G,clean]}" "${R[$k,clean]}")** | **$(ratio "${R[G,wall]}" "${R[$k,wall]}")** | | $(ratio "${R[G,rss]}" "${R[$k,rss]}") | | layoutctl scan before the runs: ${R[$k,scan]} | |")
		else
			ROWS+=("| $name | (no rebalance beside it) | | | | | | layoutctl scan before the run: ${R[$k,scan]} | |")
		fi
	done
}

POP=()
populate_case() {
	local vol vol2 mp t0 secs
	lctl_vol_create dist 4 vol
	bench_populate "$vol" "$TREE_FILES" "$TREE_DIRS"
	POP+=("| \`bench/populate\` (gfapi, 8 threads, 2 clients) | $TREE_FILES | $POP_RATE |")
	t0=$(now)
	bench_clone "$vol" vol2
	secs=$(since "$t0")
	POP+=("| copied brick-wise (\`bench_clone\`: volume stop, cp -a, volume create force, start) | $TREE_FILES | $(awk -v n="$TREE_FILES" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') |")
	lctl_vol_destroy "$vol"
	lctl_vol_destroy "$vol2"
	lctl_vol_create dist 4 vol
	mp=$(lctl_mount "$vol")
	t0=$(now)
	"$BENCH_POPULATE" -m "$mp" -S "${BENCH_SEED:-42}" "$vol" "$TREE_FILES" "$TREE_DIRS" >&2
	secs=$(since "$t0")
	POP+=("| \`bench/populate -m\` (the same tree through a FUSE mount, 8 threads) | $TREE_FILES | $(awk -v n="$TREE_FILES" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') |")
	lctl_umount "$mp"
	lctl_vol_destroy "$vol"
	lctl_vol_create dist 4 vol
	mp=$(lctl_mount "$vol")
	t0=$(now)
	fx_tree populate "$mp" "$TREE_DIRS" "$TREE_FILES" "${BENCH_SEED:-42}" >/dev/null
	secs=$(since "$t0")
	POP+=("| \`fixtree.py populate\` through a FUSE mount (bench/fix.sh's way; files of 0-3 MiB) | $TREE_FILES | $(awk -v n="$TREE_FILES" -v s="$secs" 'BEGIN { printf "%.0f", n / s }') |")
	lctl_umount "$mp"
	lctl_vol_destroy "$vol"
	note "populate: ${POP[*]}"
}

LOAD0=$(load)
for c in $CASES; do
	case $c in
	populate) populate_case ;;
	tree) one_case tree 4 2 "$TREE_FILES" "$TREE_DIRS" ;;
	wide) one_case wide 12 12 "$WIDE_FILES" "$WIDE_DIRS" ;;
	bigdir) one_case bigdir 4 2 "$BIG_FILES" 1 ;;
	seeds) one_case seeds 4 2 "$SEED_FILES" "$SEED_DIRS" "G C M" ;;
	esac
done

cat <<EOT
### Field scale: layoutctl against \`gluster volume rebalance\` ($(date -u '+%Y-%m-%d'))

Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(. /etc/os-release; echo "$PRETTY_NAME"), GlusterFS $(gluster --version | awk 'NR == 1 { print $2 }'), all bricks on one filesystem, one node; load average at the start / end: $LOAD0 / $(load).
Command: \`LCTL_BENCH_SCALE=$SCALE LCTL_BENCH_CASES="$CASES"${LCTL_BENCH_KEYS:+ LCTL_BENCH_KEYS=\"$LCTL_BENCH_KEYS\"} bench/scale.sh\` (tree: $TREE_FILES files in $TREE_DIRS directories, 4 -> 6 bricks; wide: $WIDE_FILES files in $WIDE_DIRS directories, 12 -> 24 bricks; bigdir: one directory of $BIG_FILES entries, 4 -> 6 bricks, the rebalance stopped after $LIMIT s; seeds: $SEED_FILES files in $SEED_DIRS directories, 4 -> 6 bricks, min-move too; files of 0-4 KiB, bench/populate seed ${BENCH_SEED:-42}).
layoutctl: $(build_kind "$LAYOUTCTL").
EOT
if ((${#POP[@]})); then
	printf '\nMaking the tree (files/s):\n\n| how | files | files/s |\n|---|---:|---:|\n'
	printf '%s\n' "${POP[@]}"
fi
if ((${#ROWS[@]})); then
	printf '\n| case | run | time to clean | time to placed | files moved | max RSS | per-file cost | exit, checks | load average start / end |\n'
	printf '|---|---|---:|---:|---:|---:|---:|---|---|\n'
	printf '%s\n' "${ROWS[@]}"
	cat <<EOT

Time to clean: every directory stamped (a miss costs one LOOKUP); the rebalance stamps the root last, so its whole run. Per-file cost: the run's wall time over the files of the tree. Max RSS: layoutctl's from /usr/bin/time, the rebalance process's peak VmHWM. "score": \`layoutctl scan\`'s LOOKUPs per miss by file, of the LOOKUPs a fan-out costs (1 when every directory is stamped). LOOKUP per CREATE: 200 creates in /d00000 by a fresh gfapi client, counted below its DHT.

Where each layoutctl run went (its summary: wall seconds per phase, then the seconds its threads spent in each step of the directories, summed over the threads):

EOT
	printf '%s\n' "${SPLIT[@]}"
fi
((bad == 0)) || echo "**A correctness check failed: see the checks column.**"
exit "$bad"
