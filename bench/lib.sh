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

# What bench/scale.sh and bench/pool.sh share besides (LAYOUTCTL the binary to time):
#	bench_populate [-s SERVER] VOL FILES DIRS	bench/populate (a gfapi client; the tree of
#					FILES files of 0-4 KiB in DIRS directories, seed
#					BENCH_SEED, default 42); its files/s in POP_RATE
#	bench_clone VOL NAMEVAR		a second volume holding VOL's tree, copied brick-wise
#					(below); its name -> $NAMEVAR
#	bench_rebalance VOL LIMIT	`gluster volume rebalance VOL start`, from the CLI call until
#					the status says completed (polled every 0.2 s), or LIMIT
#					seconds (then stopped): RB_SECS, RB_DONE (completed, completed
#					(glusterd lost the end: ...), failed: ..., stopped after ...),
#					RB_FILES, RB_BYTES, RB_SKIPPED, RB_FAILURES, RB_RSS_KIB (peak
#					VmHWM of its process, sampled at each poll)
#	bench_fix KEY VOL ARGS...	`layoutctl --json fix --parallel 4 ARGS VOL` under
#					/usr/bin/time: its JSON in $T/KEY.json; FX_SECS (wall),
#					FX_CLEAN (every directory clean, from the command's start),
#					FX_FILES (migrated), FX_RSS_KIB (max RSS), FX_CPU and
#					FX_STOLEN (cpu_since, stolen_since over the run), FX_RC
BENCH_POPULATE=${BENCH_POPULATE:-$LCTL_BUILDDIR/bench/populate}
# shellcheck disable=SC2034 # its results are read by the scripts that source this file
bench_populate() {
	local out server=()
	[[ $1 != -s ]] || { server=(-s "$2"); shift 2; }
	[[ -x $BENCH_POPULATE ]] || fail "no $BENCH_POPULATE (make first)"
	out=$("$BENCH_POPULATE" "${server[@]}" -S "${BENCH_SEED:-42}" "$@") || fail "populate $* failed: $out"
	printf 'bench: %s: %s\n' "$1" "$out" >&2
	POP_RATE=$(sed -n 's/.* \([0-9]*\) files\/s$/\1/p' <<<"$out")
}

# A file's trusted.gfid in hex, or nothing (and success: under errexit and pipefail a file
# without one must reach the caller's message, not end the script without a word).
_bench_gfid() {
	{ getfattr --absolute-names -n trusted.gfid -e hex -- "$1" 2>/dev/null || :; } |
		sed -n 's/^trusted\.gfid=//p'
}

# bench_clone: VOL is stopped and each brick folder copied with `cp -a` (which keeps the
# gfids, every other xattr and the hard links of .glusterfs), into a folder of a volume the
# harness owns (torn down at exit like the others). glusterd refuses a brick that was part of a
# volume: the copies' roots lose their volume-id and gfid (the brick process sets the root's
# gfid again). Each brick goes to $root/cN, N its index (two bricks named alike stay apart), and
# one file of each is checked to have kept its gfid. The new volume is created on the copies
# with force and started, then VOL again.
# About 4 times the files/s of bench/populate (docs/benchmarks.md, issue 27).
bench_clone() {
	local src=$1 name root bricks=() b args=() _bc_i _bc_c _bc_f _bc_want _bc_got
	lctl_vol_bricks "$src" bricks
	lctl_gluster volume stop "$src" >/dev/null || fail "cannot stop $src to copy its bricks"
	_lctl_prepare
	# a name claimed as lctl_vol_create claims one (harness.sh): the state file first
	while :; do
		_LCTL_SEQ=$((_LCTL_SEQ + 1))
		name=$LCTL_PREFIX$$_$_LCTL_SEQ
		(set -C && : >"$LCTL_STATE_DIR/$name") 2>/dev/null && break
	done
	_lctl_state_write "$name" ""
	root=$(mktemp -d "$_LCTL_BASE/$name.XXXXXX") || fail "cannot create a temp folder"
	_lctl_state_write "$name" "$root"
	# the new locals _bc_-prefixed: NAMEVAR is assigned with printf -v and must not hit one
	for _bc_i in "${!bricks[@]}"; do
		b=${bricks[_bc_i]} _bc_c=$root/c$_bc_i
		cp -a -- "$b" "$_bc_c" || fail "cannot copy the brick $b of $src"
		# cp -a does not say when it lost an xattr (a file system without trusted.*): a
		# copy whose files have no gfid is no brick, so one file of each is checked
		_bc_f=$(find "$b" -path "$b/.glusterfs" -prune -o -type f -print -quit)
		if [[ -n $_bc_f ]]; then
			_bc_want=$(_bench_gfid "$_bc_f")
			_bc_got=$(_bench_gfid "$_bc_c${_bc_f#"$b"}")
			[[ -n $_bc_want && $_bc_got == "$_bc_want" ]] ||
				fail "the copy of $_bc_f lost its trusted.gfid (${_bc_want:-none} on the brick, ${_bc_got:-none} in $_bc_c)"
		fi
		setfattr -x trusted.glusterfs.volume-id "$_bc_c" || fail "cannot clear the volume-id of the copy of $b"
		setfattr -x trusted.gfid "$_bc_c" || fail "cannot clear the gfid of the copy of $b"
		args+=("$LCTL_HOST:$_bc_c")
	done
	lctl_gluster volume create "$name" "${args[@]}" force >/dev/null || fail "cannot create $name on the copies of $src"
	lctl_gluster volume start "$name" >/dev/null || fail "cannot start $name"
	lctl_wait_bricks_online "$name"
	lctl_gluster volume start "$src" >/dev/null || fail "cannot start $src again"
	lctl_wait_bricks_online "$src"
	printf -v "$2" '%s' "$name"
}

# shellcheck disable=SC2034 # its results are read by the scripts that source this file
bench_rebalance() {
	local vol=$1 limit=$2 t0 xml st pids pid v kib gone=0 line
	RB_RSS_KIB=0 RB_DONE='' RB_FILES=0 RB_BYTES=0 RB_SKIPPED=0 RB_FAILURES=0
	_lctl_task_log_mark "$vol"
	t0=$(now)
	lctl_gluster volume rebalance "$vol" start >/dev/null || fail "cannot start the rebalance of $vol"
	while :; do
		pids=$(_lctl_rebalance_pids "$vol") || pids=
		kib=0
		for pid in $pids; do
			v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || v=0
			kib=$((kib + ${v:-0}))
		done
		((kib <= RB_RSS_KIB)) || RB_RSS_KIB=$kib
		xml=$(lctl_gluster volume rebalance "$vol" status --xml 2>/dev/null) || xml=
		st=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/status)
		# what it moved so far (a stopped rebalance's status may no longer say)
		v=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/files)
		[[ -z $v ]] || RB_FILES=$v
		v=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/size)
		[[ -z $v ]] || RB_BYTES=$v
		case $st in
		3) RB_DONE=completed; break ;;
		2 | 4 | 6 | 8) RB_DONE="failed: $(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/statusStr)"; break ;;
		esac
		if [[ -n $pids ]]; then
			gone=0
		elif [[ $gone == 0 ]]; then
			gone=$(now)
		elif (($(since "$gone" | cut -d. -f1) > 10)); then
			# glusterd lost the end of the run (harness.sh, _lctl_wait_task): its log's word
			line=$(tail -c +$((_LCTL_TASK_LOG_OFFSET + 1)) "$LCTL_GLUSTER_LOGDIR/$vol-rebalance.log" 2>/dev/null |
				grep 'Rebalance is completed' | tail -n 1) || line=
			[[ -n $line ]] || fail "the rebalance process of $vol ended, but glusterd says status '$st'"
			RB_SECS=$(sed -n 's/.*Time taken is \([0-9.]*\) secs.*/\1/p' <<<"$line")
			if [[ $RB_SECS =~ ^[0-9.]+$ ]]; then
				# whole seconds, without the CLI: in GlusterFS's favour
				RB_DONE="completed (glusterd lost the end: its log's time taken, $RB_SECS s)"
				RB_SECS=$(awk -v s="$RB_SECS" 'BEGIN { printf "%.1f", s }')
			else
				RB_DONE="completed (glusterd lost the end: the time includes up to 10 s of waiting)"
				RB_SECS=$(since "$t0")
			fi
			RB_FAILURES=$(sed -n 's/.*failures: \([0-9]*\).*/\1/p' <<<"$line")
			break
		fi
		if (($(since "$t0" | cut -d. -f1) >= limit)); then
			lctl_gluster volume rebalance "$vol" stop >/dev/null || true
			RB_DONE="stopped after $limit s"
			break
		fi
		sleep 0.2
	done
	[[ $RB_DONE == "completed (glusterd lost"* ]] || RB_SECS=$(since "$t0")
	xml=$(lctl_gluster volume rebalance "$vol" status --xml 2>/dev/null) || xml=
	v=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/files)
	[[ -z $v ]] || RB_FILES=$v
	v=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/size)
	[[ -z $v ]] || RB_BYTES=$v
	RB_SKIPPED=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/skipped)
	[[ $RB_DONE == "completed (glusterd lost"* ]] ||
		RB_FAILURES=$(_lctl_xpath "$xml" /cliOutput/volRebalance/aggregate/failures)
}

# bench_fix_split JSON: where a layoutctl fix went, from its --json summary: the wall seconds of
# each phase (those above 0), then the seconds its threads spent in each step of the
# directories, summed over the threads
bench_fix_split() {
	jq -r '.summary | "phases: " + ([.phase_seconds | to_entries[] | select(.value > 0) |
		"\(.key) \(.value) s"] | join(", ")) + "; steps: " +
		([.step_seconds | to_entries[] | "\(.key) \(.value) s"] | join(", "))' "$1" 2>/dev/null ||
		echo "(no summary)"
}

# shellcheck disable=SC2034 # its results are read by the scripts that source this file
bench_fix() {
	local k=$1 vol=$2 t0 c0 s0 run clean
	shift 2
	FX_RC=0
	t0=$(now) c0=$(cpu_busy) s0=$(cpu_stolen)
	/usr/bin/time -f '%M' -o "$T/$k.rss" "$LAYOUTCTL" --json fix --state-dir "$T/state-$k" \
		--parallel 4 "$@" "$vol" >"$T/$k.json" 2>"$T/$k.err" || FX_RC=$?
	FX_SECS=$(since "$t0") FX_CPU=$(cpu_since "$c0") FX_STOLEN=$(stolen_since "$s0")
	FX_RSS_KIB=$(tail -n 1 "$T/$k.rss")
	FX_FILES=$(jq '.summary.file_outcomes.migrated // 0' "$T/$k.json" 2>/dev/null) || FX_FILES='?'
	# clean_after_seconds counts from the job's start (after the volume is open): from the
	# command's start, as the rebalance is timed, it is the wall time less the rest of the run
	run=$(jq '.summary.seconds' "$T/$k.json" 2>/dev/null) || run=
	clean=$(jq '.summary.clean_first.clean_after_seconds' "$T/$k.json" 2>/dev/null) || clean=
	if [[ $clean =~ ^[0-9.]+$ && $run =~ ^[0-9.]+$ ]]; then
		FX_CLEAN=$(awk -v w="$FX_SECS" -v r="$run" -v s="$clean" 'BEGIN { printf "%.1f", w - (r - s) }')
	else
		FX_CLEAN=-
	fi
	((FX_RC == 0)) || printf 'bench: layoutctl fix of %s exited %s: %s\n' "$vol" "$FX_RC" "$(tail -n 3 "$T/$k.err")" >&2
}
