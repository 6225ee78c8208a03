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
#   about 45 a second on the 2-CPU test machine);
#   or with BIGDIR_MODE=data: the clean phase of both volumes by AFTER, then the data phase
#   (fix --resume, --parallel 4) of the first by BEFORE and of the second by AFTER, in the
#   order BIGDIR_ORDER says (default "before after"; "after before" to take turns), each
#   followed by a scan (exit 0: clean).
# Prints one line per run: what, seconds, max RSS (KiB), exit status; and the load average
# before each. The volumes are removed at the end.
#
#   BIGDIR_MODE=proof LCTL_SRCDIR=. bench/bigdir.sh BIN [N]
#
# The proof of issue 27's target for one build BIN (default N 1,000,000): ONE volume of 4
# bricks with /big of N files, grown to 6, and in this order:
#   - scan --path /big (before the fix: exit 1, the layout is not the volume's);
#   - fix --phase clean --parallel 4, then scan --path /big (clean: exit 0);
#   - fix --resume --parallel 4 --max-runtime BIGDIR_DATA_LIMIT (seconds, default 1200): the
#     data phase, cut at the limit when it has not finished (exit 4);
#   - bigdir verify: every file there with its content, every name opened by a fresh client.
# With BIGDIR_WHOLE=1, the two fixes are one: fix --parallel 4 --max-runtime BIGDIR_DATA_LIMIT
# (every phase in one process; default limit 5400 s), then scan --path /big (exit 0: clean).
# A fresh-lookup checker (tests/integration/tools/gfcheck.c lookup, the N names) runs from
# the clean phase's start to the data phase's end (its round then under way is cut: the
# verify looks every name up after); its rounds, ENOENTs and errors (each reported as it
# happens) are counted for each part of the run. Each layoutctl run's RSS is sampled every
# 2 s (ps) with the phase its progress file names, to say where the peak happens; the peak
# figure itself is /usr/bin/time -v's. Creating the N files is timed (files/s).
set -euo pipefail
MODE=${BIGDIR_MODE:-clean}
if [[ $MODE == proof ]]; then
	[[ $# -ge 1 && $# -le 2 ]] || {
		echo "usage: BIGDIR_MODE=proof bench/bigdir.sh BIN [N]" >&2
		exit 2
	}
	BIN=$(realpath "$1")
	N=${2:-1000000}
	WHOLE=${BIGDIR_WHOLE:-0}
	if [[ $WHOLE == 1 ]]; then
		LIMIT=${BIGDIR_DATA_LIMIT:-5400}
	else
		LIMIT=${BIGDIR_DATA_LIMIT:-1200}
	fi
	[[ $N =~ ^[1-9][0-9]*$ && $LIMIT =~ ^[1-9][0-9]*$ ]] || {
		echo "bench/bigdir.sh: N and BIGDIR_DATA_LIMIT must be positive numbers" >&2
		exit 2
	}
else
	[[ $# -ge 2 ]] || {
		echo "usage: bench/bigdir.sh BEFORE AFTER [N]" >&2
		exit 2
	}
	BEFORE=$(realpath "$1")
	AFTER=$(realpath "$2")
	N=${3:-200000}
fi
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
	if [[ -n ${RUN_SAMPLE:-} ]]; then
		# the RSS every 2 s, with the phase of the run's progress file (RUN_SAMPLE)
		/usr/bin/time -v -o "$W/time" "$bin" "$@" >"$W/out" 2>&1 &
		local tp=$! lp="" rss ph
		: >"$W/rss"
		while kill -0 "$tp" 2>/dev/null; do
			[[ -n $lp ]] || lp=$(pgrep -P "$tp" | head -n 1) || true
			if [[ -n $lp ]] && rss=$(ps -o rss= -p "$lp" 2>/dev/null); then
				ph=$(grep -o '"phase": *"[^"]*"' "$RUN_SAMPLE" 2>/dev/null | head -n 1 |
					sed 's/.*"\([^"]*\)"$/\1/') || true
				printf '%s %s %s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" \
					'BEGIN { printf "%.0f", b - a }')" "${rss// /}" "${ph:--}" >>"$W/rss"
			fi
			sleep 2
		done
		wait "$tp" || rc=$?
	else
		/usr/bin/time -v -o "$W/time" "$bin" "$@" >"$W/out" 2>&1 || rc=$?
	fi
	printf '%-34s %8.1f s  max RSS %8d KiB  exit %d\n' "$what" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
		"$(awk -F': ' '/Maximum resident/ { print $2 }' "$W/time")" "$rc"
	if [[ -n ${RUN_SAMPLE:-} && -s $W/rss ]]; then
		sort -k2,2n "$W/rss" | tail -n 1 |
			awk '{ printf "#   sampled peak %d KiB at +%d s (phase %s)\n", $2, $1, $3 }'
	fi
	tail -n "${RUN_TAIL:-3}" "$W/out" | sed 's/^/#   /'
}

# stamp: each line of the input with the epoch seconds it came at
stamp() {
	local l
	while IFS= read -r l; do
		printf '%s %s\n' "$EPOCHREALTIME" "$l"
	done
}

# checker_report FROM TO WHAT: the checker's rounds overlapping [FROM, TO] and the failed
# lookups within it
checker_report() {
	awk -v a="$1" -v b="$2" -v what="$3" '
		$2 == "round" && $4 == "files" { e = $1; s = e - $11 / 1000
			if (s <= b && e >= a) { r++; f += $5 } }
		$2 == "ENOENT" && $1 >= a && $1 <= b { en++ }
		$2 == "ERR" && $1 >= a && $1 <= b { er++ }
		$2 == "HUNG" && $1 >= a && $1 <= b { h++ }
		END { printf "# checker, %s: %d rounds (%d lookups) overlap it; " \
			"%d ENOENT, %d errors, %d hung in it\n", what, r, f, en, er, h }' "$W/check"
}

proof() {
	local vol st=$W/state t c0 c1 d0 d1 cpid n0
	lctl_vol_create dist 4 vol
	t=$(date +%s.%N)
	"$W/bigdir" create "$vol" /big "$N" 4 >&2
	awk -v a="$t" -v b="$(date +%s.%N)" -v n="$N" \
		'BEGIN { printf "# %d files made in %.0f s (%.0f files/s)\n", n, b - a, n / (b - a) }'
	lctl_vol_add_bricks "$vol" 2
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) print "/big/f" i }' >"$W/list"
	run "scan --path /big (before)" "$BIN" scan --path /big "$vol"

	# shellcheck disable=SC2046
	gcc -O2 -o "$W/gfcheck" "$LCTL_SRCDIR/tests/integration/tools/gfcheck.c" \
		$(pkg-config --cflags --libs glusterfs-api)
	{
		"$W/gfcheck" lookup "$vol" "$W/list" "$W/stop" 2>&1 &
		echo "$!" >"$W/gfcheck.pid"
		wait "$!" && echo "exit 0" || echo "exit $?"
	} | stamp >"$W/check" &
	cpid=$!
	c0=$EPOCHREALTIME
	if [[ $WHOLE == 1 ]]; then
		# every phase in one process: does the data phase start from the clean phase's peak?
		RUN_SAMPLE=$st/progress.json RUN_TAIL=40 run "fix --parallel 4 (${LIMIT} s max)" \
			"$BIN" fix --parallel 4 --max-runtime "$LIMIT" --state-dir "$st" "$vol"
		c1=$EPOCHREALTIME
		run "scan --path /big (after the fix)" "$BIN" scan --path /big "$vol"
		d0=$c0 d1=$c1 # the migrations' rate over the whole fix
	else
		RUN_SAMPLE=$st/progress.json RUN_TAIL=40 run "fix --phase clean --parallel 4" \
			"$BIN" fix --phase clean --parallel 4 --state-dir "$st" "$vol"
		c1=$EPOCHREALTIME
		run "scan --path /big (after clean)" "$BIN" scan --path /big "$vol"
		d0=$EPOCHREALTIME
		RUN_SAMPLE=$st/progress.json RUN_TAIL=40 run "fix --resume (data, ${LIMIT} s max)" \
			"$BIN" fix --resume --parallel 4 --max-runtime "$LIMIT" --state-dir "$st" "$vol"
		d1=$EPOCHREALTIME
	fi
	n0=$(grep -c '"outcome": *"migrated"' "$st/outcomes.jsonl" 2>/dev/null || true)
	awk -v a="$d0" -v b="$d1" -v n="$n0" 'BEGIN { printf "# data phase: %d migrated " \
		"outcomes in the outcome log (%.1f files/s of the run)\n", n, n / (b - a) }'
	# The checker stops with the fix: a failed lookup is reported as it happens, and the rest
	# of its round (and its last one) would only look at the volume after the fix, which the
	# verify below does, for up to a quarter of an hour each at 1,000,000 names. Its round's
	# client is killed (gfcheck: "round N: client failed", exit 2).
	touch "$W/stop"
	while kill -0 "$cpid" 2>/dev/null; do
		pkill -KILL -P "$(cat "$W/gfcheck.pid")" || true
		sleep 1
	done
	wait "$cpid" || true
	if [[ $WHOLE == 1 ]]; then
		checker_report "$c0" "$c1" "fix (every phase)"
	else
		checker_report "$c0" "$c1" "fix --phase clean"
		checker_report "$c1" "$d0" "scan between"
		checker_report "$d0" "$d1" "data phase"
	fi
	grep -v '^[0-9.]* ENOENT\|^[0-9.]* ERR' "$W/check" | sed 's/^/#   /'
	grep -m 5 '^[0-9.]* ENOENT\|^[0-9.]* ERR' "$W/check" | sed 's/^/#   /' || true
	run "bigdir verify" "$W/bigdir" verify "$vol" /big "$N" 4
}

if [[ $MODE == proof ]]; then
	proof
	exit 0
fi
lctl_vol_create dist 4 VA
lctl_vol_create dist 4 VB
for v in "$VA" "$VB"; do
	t=$SECONDS
	"$W/bigdir" create "$v" /big "$N" 4 >&2
	echo "# $v: $N files in $((SECONDS - t)) s" >&2
	lctl_vol_add_bricks "$v" 2
done
if [[ $MODE == full ]]; then
	run "fix, before" "$BEFORE" fix --settle 1 --state-dir "$W/sa" "$VA"
	run "fix, after" "$AFTER" fix --settle 1 --state-dir "$W/sb" "$VB"
elif [[ $MODE == data ]]; then
	# the same clean phase on both (AFTER's), then each data phase alone, in the order asked
	for v in A B; do
		vol=VA && [[ $v == B ]] && vol=VB
		run "fix --phase clean, volume $v" "$AFTER" fix --phase clean --settle 1 \
			--state-dir "$W/s$v" "${!vol}"
	done
	for who in ${BIGDIR_ORDER:-before after}; do
		bin=$BEFORE st=$W/sA vol=$VA
		[[ $who == after ]] && bin=$AFTER st=$W/sB vol=$VB
		RUN_TAIL=4 run "data phase, $who" "$bin" -vv fix --resume --state-dir "$st" "$vol"
		grep -h "entries to place over" "$W/out" | sed 's/^/#   /' || true
		run "scan after, $who" "$bin" scan "$vol"
	done
else
	run "scan, before" "$BEFORE" scan --path /big "$VA"
	run "scan, after" "$AFTER" scan --path /big "$VA"
	run "fix --phase clean, before" "$BEFORE" fix --phase clean --settle 1 --state-dir "$W/sa" "$VA"
	run "fix --phase clean, after" "$AFTER" fix --phase clean --settle 1 --state-dir "$W/sb" "$VB"
fi
