# shellcheck shell=bash
# tests/integration/tools/fix-lib.sh: helpers shared by tests/integration/fix-*.sh and bench/fix.sh.
# Source it after tests/integration/lib.sh.
#
#	fx_init				temp folder $FX (removed at exit), gfcheck built into it
#	fx_tree ARGS...			tools/fixtree.py (populate, manifest, list)
#	fx_subvol_args VOL		NAME=BRICK[,BRICK] words for tools/bricks.py, DHT order
#	fx_vol_hash VOL			the volume commit hash from the first brick root (decimal)
#	fx_bricks_check VOL [OPTS...]	tools/bricks.py check with the volume's hash: commit words,
#					ranges, placement, linkto, duplicates (fails the test)
#	fx_linked_ok [LOG...]		a file for bricks.py --allow-linked: the hard links, and
#					the files DHT kept for its free-space balance check
#	fx_fix VOL ARGS...		layoutctl fix --state-dir $FX/state --settle 1 ARGS VOL;
#					its output in $FX/fix.out, status in LCTL_RC
#	fx_checker_start VOL LIST	fresh-lookup checker in the background (gfcheck lookup)
#	fx_checker_stop			last round, then fail on any failed lookup; prints rounds
#	fx_checker_pause, fx_checker_resume	hold the checker between rounds, and let it go on
#	fx_writer_start VOL MP DIR...	a FUSE client writing, appending and renaming in each DIR
#	fx_writer_stop			stop it and check nothing it wrote was lost, through the
#					FUSE mount and by name from a fresh gfapi client
#	fx_lookups_per_create VOL DIR N PREFIX
#					LOOKUP/CREATE ratio from `volume profile info incremental`
#					(all bricks) for N creates by a fresh gfapi client in DIR
#	fx_client_lookups_per_create VOL DIR N PREFIX
#					LOOKUP/CREATE ratio of one client alone: what its DHT
#					sends to its subvolumes for N creates by a fresh gfapi
#					client (io-stats below DHT, tools/statvol.py)
#	fx_wait_rebalance_idle VOL	wait until the rebalance of VOL completed
#	fx_scan_after_fix VOL [ARGS]	scan exits 0 (or only stray linkto files, then a second fix)
#
# On a pool of servers (tools/pool-fix-lib.sh), these settings point the helpers at it:
#	FX_LAYOUTCTL	the layoutctl command line (array; default: $LAYOUTCTL)
#	FX_RUN		what runs a gfapi client (gfcheck; array; default: nothing, run it here)
#	FX_SUBVOL_ARGS, FX_VOL_HASH	functions replacing fx_subvol_args and fx_vol_hash

FX_TOOLS=$LCTL_SRCDIR/tests/integration/tools
FX_LAYOUTCTL=("$LAYOUTCTL")
FX_RUN=()

fx_init() {
	FX=$(mktemp -d "${TMPDIR:-/tmp}/lctl-fix.XXXXXX")
	lctl_on_exit rm -rf -- "$FX"
	# shellcheck disable=SC2046
	gcc -O2 -o "$FX/gfcheck" "$FX_TOOLS/gfcheck.c" $(pkg-config --cflags --libs glusterfs-api) ||
		_lctl_hard "cannot build tools/gfcheck.c (gcc, libgfapi-dev)"
	command -v python3 >/dev/null || _lctl_hard "python3 is needed by the fix tests"
}

fx_tree() {
	python3 "$FX_TOOLS/fixtree.py" "$@"
}

# fx_preload NAME [LIBS...]: build the fault injector tools/NAME.c into $FX/NAME.so and set
# FX_PRELOAD to the LD_PRELOAD value that loads it into layoutctl (an ASan build wants its
# runtime first in the process)
fx_preload() {
	local name=$1 asan
	shift
	gcc -shared -fPIC -o "$FX/$name.so" "$FX_TOOLS/$name.c" -ldl "$@" ||
		_lctl_hard "cannot build tools/$name.c"
	asan=$(ldd "$LAYOUTCTL" | awk '/libasan/ { print $3 }')
	# shellcheck disable=SC2034 # read by the tests that source this file
	FX_PRELOAD="${asan:+$asan }$FX/$name.so"
}

# fx_populate MOUNT DIRS FILES SEED: fixtree.py populate; what it made specially goes to
# $FX/special, the hard links among it (one "a b" pair per line) to $FX/hardlinks
fx_populate() {
	fx_tree populate "$@" >"$FX/special"
	grep '^hardlink ' "$FX/special" | cut -d' ' -f2- >"$FX/hardlinks"
}

# The DHT children's xlator names come from the volfile: after a remove-brick commit they keep
# their old numbers (gaps), which the linkto xattrs on the bricks use.
fx_subvol_args() {
	# awk reads to the end (no exit): under pipefail an early exit would kill getspec with
	# SIGPIPE and fail the pipeline
	gluster --mode=script system:: getspec "$1" 2>/dev/null | awk '
		$1 == "volume" { name = $2 }
		$1 == "type" && $2 == "cluster/distribute" { dht = 1 }
		dht && !done && $1 == "subvolumes" { for (i = 2; i <= NF; i++) print $i; done = 1 }' \
		>"$FX/subvols"
	[[ -s $FX/subvols ]] || fail "no DHT subvolumes in the volfile of $1"
	local n=0 name i
	while read -r name; do
		printf '%s=%s\n' "$name" "$(lctl_subvol_bricks "$1" "$n" | paste -sd,)"
		n=$((n + 1))
	done <"$FX/subvols"
}

fx_vol_hash() {
	local b
	b=$(lctl_brick_of_subvol "$1" 0)
	getfattr --absolute-names --only-values -n trusted.glusterfs.dht.commithash -- "$b" 2>/dev/null | tr -d '\0'
}

fx_bricks_check() {
	local vol=$1 h args
	shift
	h=$("${FX_VOL_HASH:-fx_vol_hash}" "$vol")
	[[ $h =~ ^[0-9]+$ ]] || fail "no volume commit hash on the brick roots of $vol"
	mapfile -t args < <("${FX_SUBVOL_ARGS:-fx_subvol_args}" "$vol")
	python3 "$FX_TOOLS/bricks.py" check "$@" "$h" "${args[@]}" >"$FX/bricks.out" || {
		cat "$FX/bricks.out" >&2
		fail "brick check of $vol failed"
	}
	cat "$FX/bricks.out" >&2
}

# fx_linked_ok [LOG...]: prints the path of a file listing (relative paths) what may stay behind
# a linkto after a fix: the hard links of fx_populate ($FX/hardlinks), and every file that an
# outcome log (LOG..., default every outcomes.jsonl under $FX) reports as skipped (EPERM) with a
# reason naming DHT's free-space balance check: that reason, or the general one that lists it
# among the causes (fix's fresh statfs may no longer show an imbalance that has passed; the
# tests hold no POSIX locks). The test bricks share one filesystem, whose free percentage moves
# while files are copied: now and then DHT keeps a file that way (fix-force-move.sh makes it
# happen on purpose).
fx_linked_ok() {
	local logs=("$@") n
	((${#logs[@]})) || mapfile -d '' -t logs < <(find "$FX" -name outcomes.jsonl -print0)
	: >"$FX/linked-balance"
	((${#logs[@]} == 0)) || cat -- "${logs[@]}" | jq -r 'select(.outcome == "skipped" and
		.errno == 1 and (.reason // "" | test("free-space balance"))) | .path | ltrimstr("/")' \
		>"$FX/linked-balance"
	n=$(wc -l <"$FX/linked-balance")
	((n == 0)) || echo "fx_linked_ok: $n file(s) kept by DHT's free-space balance check" >&2
	{
		[[ ! -f $FX/hardlinks ]] || cat -- "$FX/hardlinks"
		cat -- "$FX/linked-balance"
	} | sort -u >"$FX/linked-ok"
	printf '%s\n' "$FX/linked-ok"
}

# A run that stops because a GlusterFS call hung (--hang-timeout: GlusterFS 10.3's DHT can loop
# for ever in a lookup that meets a file another client, the tests' checker say, is creating;
# gluster issue 3688) is resumed once, as the error tells an administrator to: the test then
# judges the end state. FX_HANG_TIMEOUT [120] seconds; FX_HANG_RESUME=0 leaves it to the test.
fx_fix() {
	local vol=$1
	shift
	mkdir -p "$FX/state"
	printf '+ layoutctl fix %s %s\n' "$*" "$vol" >&2
	LCTL_RC=0
	# gfapi's own log is kept in $FX (and shown when the run fails) for post-mortems
	local cmd=("${FX_LAYOUTCTL[@]}" --log-file "$FX/gfapi.log" fix --state-dir "$FX/state"
		--settle 1 --hang-timeout "${FX_HANG_TIMEOUT:-120}" "$@" "$vol")
	# FX_STDOUT=FILE: the standard output there, apart from the messages (a --json document)
	if [[ -n ${FX_STDOUT:-} ]]; then
		"${cmd[@]}" >"$FX_STDOUT" 2>"$FX/fix.out" || LCTL_RC=$?
	else
		"${cmd[@]}" >"$FX/fix.out" 2>&1 || LCTL_RC=$?
	fi
	if ((LCTL_RC != 0)) && [[ -n ${LCTL_TEST_LOGDIR:-} ]]; then
		cp -- "$FX/gfapi.log" "$LCTL_TEST_LOGDIR/fix-gfapi.log" 2>/dev/null || true
	fi
	cat "$FX/fix.out" >&2
	_lctl_san_check "layoutctl fix $*"
	# design.md, "A linkto undone behind our back": with the checker's fresh clients busy, a
	# round that read a directory's old layout can outlast the tests' 1-second settle period
	# and unlink our linkto again after each of fix's placing rounds; the directory is left
	# dirty (exit 1, nothing hidden) for the next run. Then a new run, once, logged in
	# $FX/retries; never without the checker (fault-linkto.sh proves the rounds relink).
	if ((LCTL_RC == 1)) && [[ ${FX_MISPLACED_RETRY:-1} != 0 && " $* " != *" --resume "* ]] &&
		[[ -n ${FX_CHK_PID:-} && ! -e $FX/chk.stop ]] && kill -0 "$FX_CHK_PID" 2>/dev/null &&
		grep -qE '^not-fixed .*: (data phase: )?cannot verify: misplaced$' "$FX/fix.out" &&
		(($(grep -E '^not-fixed ' "$FX/fix.out" | grep -cvE ': (data phase: )?cannot verify: misplaced$') == 0)); then
		echo "fx_fix: a stale-layout client of the checker undid a linkto: running again" >&2
		echo "$vol" >>"$FX/retries"
		FX_MISPLACED_RETRY=0 fx_fix "$vol" "$@"
		return
	fi
	if ((LCTL_RC == 3)) && [[ ${FX_HANG_RESUME:-1} != 0 ]] &&
		grep -q "^layoutctl: error: a GlusterFS call in .* has not returned for" "$FX/fix.out"; then
		echo "fx_fix: a GlusterFS call hung (gluster issue 3688): resuming the run" >&2
		echo "$vol" >>"$FX/hangs"
		# the resume keeps how the run reached its servers (a pool's --rsh, --remote-cmd,
		# --no-task-check: the task check would ask the wrong glusterd) and how hard it
		# worked (--parallel, --migrations: options of each run, not in the journal)
		local keep=() a
		while (($#)); do
			a=$1
			shift
			case $a in
			--no-task-check) keep+=("$a") ;;
			--rsh | --remote-cmd | --parallel | --migrations) keep+=("$a" "$1") && shift ;;
			esac
		done
		FX_HANG_RESUME=0 fx_fix "$vol" "${keep[@]}" --resume
	fi
}

fx_checker_start() {
	rm -f -- "$FX/chk.stop" "$FX/chk.stop.pause" "$FX/chk.stop.paused"
	"${FX_RUN[@]}" "$FX/gfcheck" lookup "$1" "$2" "$FX/chk.stop" >"$FX/chk.out" 2>&1 &
	FX_CHK_PID=$!
}

# fx_checker_pause / fx_checker_resume: no new round in between (the current one ends first)
fx_checker_pause() {
	local i
	: >"$FX/chk.stop.pause"
	for ((i = 0; i < 1800; i++)); do
		[[ -e $FX/chk.stop.paused ]] && return 0
		sleep 0.1
	done
	fail "the checker did not pause"
}

fx_checker_resume() {
	rm -f -- "$FX/chk.stop.pause"
}

fx_checker_stop() {
	local rc=0 rounds bad hung
	: >"$FX/chk.stop"
	wait "$FX_CHK_PID" || rc=$?
	rounds=$(grep -c '^round .* files' "$FX/chk.out" || true)
	bad=$(grep -c '^ENOENT ' "$FX/chk.out" || true)
	hung=$(grep -c '^HUNG ' "$FX/chk.out" || true)
	printf 'checker: %s rounds of fresh lookups, %s ENOENT, %s rounds killed (a client hung)\n' \
		"$rounds" "$bad" "$hung" >&2
	grep -v '^round ' "$FX/chk.out" | head -20 >&2 || true
	# a round killed because its GlusterFS client hung (gluster issue 3688: a lookup that meets
	# a linkto being made, before its gfid is set, loops in 10.3's DHT) ran during the fix all
	# the same; the last one must end (exit 3 otherwise, below)
	((rounds + hung >= 2)) || fail "the checker ran only $rounds rounds ($hung killed)"
	((rc == 0 && bad == 0)) ||
		fail "fresh lookups failed during the fix (exit $rc, $bad ENOENT; first: $(grep -m1 -E '^(ENOENT|ERR|HUNG|round [0-9]+: )' "$FX/chk.out"))"
}

# The writer: in each DIR, file w<i> is written whole, the file wlog gets line i appended and
# w<i-1> is renamed to r<i-1> (a new name, usually hashed elsewhere: a linkto).
fx_writer_start() {
	local mp=$2
	FX_WRITER_VOL=$1
	shift 2
	rm -f -- "$FX/writer.stop"
	(
		set +e
		i=0
		printf -v x '%200s' ''
		x=${x// /x}
		while [[ ! -e $FX/writer.stop ]]; do
			i=$((i + 1))
			for d in "$@"; do
				printf 'w%s %s\n' "$i" "$x" >"$mp/$d/w$i"
				printf '%s\n' "$i" >>"$mp/$d/wlog"
				((i == 1)) || mv -- "$mp/$d/w$((i - 1))" "$mp/$d/r$((i - 1))"
			done
			sleep 0.02
		done
		echo "$i" >"$FX/writer.count"
	) >"$FX/writer.out" 2>&1 &
	FX_WRITER_PID=$!
	FX_WRITER_MP=$mp
	FX_WRITER_DIRS=("$@")
}

fx_writer_stop() {
	local n d i mp=$FX_WRITER_MP p
	: >"$FX/writer.stop"
	wait "$FX_WRITER_PID" || fail "the writer failed: $(cat "$FX/writer.out")"
	[[ ! -s $FX/writer.out ]] || fail "the writer had errors: $(head -5 "$FX/writer.out")"
	n=$(<"$FX/writer.count")
	printf 'writer: %s rounds in %s\n' "$n" "${FX_WRITER_DIRS[*]}" >&2
	((n >= 5)) || fail "the writer ran only $n rounds"
	for d in "${FX_WRITER_DIRS[@]}"; do
		seq 1 "$n" | cmp -s - "$mp/$d/wlog" || fail "$d/wlog lost appends"
		for ((i = 1; i < n; i++)); do
			[[ $(head -c 20 "$mp/$d/r$i") == "w$i x"* && ! -e $mp/$d/w$i ]] ||
				fail "$d/r$i is lost or wrong"
		done
		[[ $(head -c 20 "$mp/$d/w$n") == "w$n x"* ]] || fail "$d/w$n is lost"
	done
	# a client with no cache finds every one by name
	for d in "${FX_WRITER_DIRS[@]}"; do
		p=${d#.}
		p=${p#/}
		p=${p:+$p/}
		printf '%swlog\n%sw%s\n' "$p" "$p" "$n"
		for ((i = 1; i < n; i++)); do printf '%sr%s\n' "$p" "$i"; done
	done >"$FX/writer.list"
	"${FX_RUN[@]}" "$FX/gfcheck" lookup "$FX_WRITER_VOL" "$FX/writer.list" >"$FX/writer.chk" 2>&1 ||
		fail "a fresh client misses files the writer made: $(head -5 "$FX/writer.chk")"
}

# _fx_profile VOL: fop counts summed over all bricks since the last call, "FOP COUNT" lines.
_fx_profile() {
	lctl_gluster volume profile "$1" info incremental 2>/dev/null |
		awk '/ [nu]s / && $(NF-1) ~ /^[0-9]+$/ && $NF ~ /^[A-Z]+$/ { c[$NF] += $(NF-1) }
		     END { for (k in c) print k, c[k] }'
}

fx_lookups_per_create() {
	local vol=$1 dir=$2 n=$3 prefix=$4 out lookups creates
	lctl_gluster volume profile "$vol" start >/dev/null 2>&1 || true
	_fx_profile "$vol" >/dev/null
	"$FX/gfcheck" create "$vol" "$dir" "$n" "$prefix" >&2 || fail "gfcheck create in $dir failed"
	out=$(_fx_profile "$vol")
	lookups=$(awk '$1 == "LOOKUP" { print $2 }' <<<"$out")
	creates=$(awk '$1 == "CREATE" { print $2 }' <<<"$out")
	# each replica brick counts its own CREATE: a multiple of N
	((${creates:-0} >= n && creates % n == 0)) || fail "profile counted ${creates:-0} CREATEs for $n files"
	printf 'lookups per create in %s: %s LOOKUP / %s CREATE\n' "$dir" "$lookups" "$creates" >&2
	awk -v l="$lookups" -v c="$creates" 'BEGIN { printf "%.2f\n", l / c }'
}

# Where the client's io-stats xlators write their dumps (GlusterFS's DEFAULT_VAR_RUN_DIRECTORY).
: "${FX_IOS_DIR:=/var/run/gluster}"

# _fx_ios_counts DUMP NAMESFILE: fop counts summed over the io-stats xlators listed in NAMESFILE
# (their cumulative section, since the client started), "FOP COUNT" lines; the dump files go.
_fx_ios_counts() {
	local x f files=()
	while read -r x; do
		f=$FX_IOS_DIR/$1.$x
		[[ -s $f ]] || fail "io-stats xlator $x wrote no dump ($f)"
		files+=("$f")
	done <"$2"
	awk '/^=== / { cum = /Cumulative/ } cum && NF >= 2 && $1 ~ /^[A-Z]+$/ && $2 ~ /^[0-9]+$/ { c[$1] += $2 }
	     END { for (k in c) print k, c[k] }' "${files[@]}"
	rm -f -- "${files[@]}"
}

# _fx_count FOP LINES: the count of FOP in "FOP COUNT" lines, 0 when it is not there
_fx_count() {
	awk -v f="$1" '$1 == f { n = $2 } END { print n + 0 }' <<<"$2"
}

# fx_client_lookups_per_create VOL DIR N PREFIX: LOOKUP per CREATE of one fresh gfapi client
# alone, counted below its DHT. Its graph is the volume's client volfile (getspec) with an
# io-stats xlator between DHT and each of DHT's children and the top io-stats left out
# (tools/statvol.py); gfcheck create looks DIR up, dumps the counters (a setxattr of
# trusted.io-stats-dump on "/", which DHT winds to every child), creates N new files
# DIR/PREFIX<i> with O_EXCL and dumps again: (sum over the children of LOOKUP) / (sum of
# CREATE) between the dumps. The bricks' profile (fx_lookups_per_create) counts every client's
# LOOKUPs; this counts one client's, so it holds while other clients (a fix) are busy.
# (Not FUSE: its GETATTR of the mount root is a LOOKUP of "/", which DHT sends to every
# subvolume, and a create in the root costs that plus three lookups of the name.)
fx_client_lookups_per_create() {
	local vol=$1 dir=$2 n=$3 prefix=$4 vf=$FX/client-$1.vol dump before after lookups creates
	lctl_gluster system:: getspec "$vol" >"$vf.orig" 2>/dev/null || fail "getspec $vol failed"
	python3 "$FX_TOOLS/statvol.py" "$vf.orig" "$vf" >"$vf.names" ||
		fail "statvol.py failed on the volfile of $vol"
	dump=lctl-ios-$BASHPID-$RANDOM
	"$FX/gfcheck" create "$vol" "$dir" "$n" "$prefix" "$vf" "$dump" >&2 ||
		fail "gfcheck create in $dir with io-stats below DHT failed"
	before=$(_fx_ios_counts "$dump.before" "$vf.names")
	after=$(_fx_ios_counts "$dump.after" "$vf.names")
	lookups=$(($(_fx_count LOOKUP "$after") - $(_fx_count LOOKUP "$before")))
	creates=$(($(_fx_count CREATE "$after") - $(_fx_count CREATE "$before")))
	((creates == n)) || fail "the io-stats xlators below DHT counted $creates CREATEs for $n files in $dir"
	printf 'one client'"'"'s lookups per create in %s: %s LOOKUP / %s CREATE below DHT (%s subvolumes)\n' \
		"$dir" "$lookups" "$creates" "$(wc -l <"$vf.names")" >&2
	awk -v l="$lookups" -v c="$creates" 'BEGIN { printf "%.2f\n", l / c }'
}

# fx_wait_tasks_idle VOL: until `gluster volume status VOL tasks` shows no task in progress
# (status 1), as fix's own check reads it: that view lags `rebalance status` under load
fx_wait_tasks_idle() {
	local i xml
	for ((i = 0; i < 120; i++)); do
		xml=$(lctl_gluster volume status "$1" tasks --xml 2>/dev/null) &&
			[[ $(_lctl_xpath "$xml" "count(//tasks/task[normalize-space(status) = '1'])") == 0 ]] &&
			return 0
		sleep 0.5
	done
	fail "glusterd still shows a task in progress on $1 after 60 s"
}

fx_wait_rebalance_idle() {
	_lctl_wait_task "rebalance of $1" volRebalance "$LCTL_REBALANCE_TIMEOUT" \
		volume rebalance "$1" status --xml
}

# fx_scan_after_fix VOL [FIX ARGS...]: `layoutctl scan` must exit 0. The one exception: stray
# linkto files (a linkto on a non-hashed subvolume next to a data file that is on its hashed
# one), which a concurrent client still holding an old layout creates by lookup healing after
# the fix finished the directory. They hide nothing (checked: no other problem, every entry
# otherwise placed or linked); a second fix must then remove them and scan must exit 0.
fx_scan_after_fix() {
	local vol=$1 rc=0 bad strays
	shift
	"${FX_LAYOUTCTL[@]}" --json -v scan "$vol" >"$FX/scan-after.json" || rc=$?
	((rc != 0)) || return 0
	((rc == 1)) || fail "scan of $vol exited $rc"
	bad=$(jq '[.directories[] | select(.clean == false) |
		(.problems | length), (.entries[]? | select(.state != "linked") |
		select(.state != "stale-linkto" or .hashed != .cached))] | map(select(. != 0)) | length' \
		"$FX/scan-after.json")
	strays=$(jq '[.directories[].entries[]? | select(.state == "stale-linkto")] | length' "$FX/scan-after.json")
	((bad == 0)) || {
		jq -c '.directories[] | select(.clean == false) | {path, problems, entries}' "$FX/scan-after.json" | head -5 >&2
		fail "scan after the fix found problems other than stray linkto files"
	}
	echo "scan after the fix: $strays stray linkto files left by clients with an old layout; fixing again" >&2
	fx_fix "$vol" "$@"
	assert_eq 0 "$LCTL_RC" "exit status of the second fix (stray linkto files)"
	expect_exit 0 "${FX_LAYOUTCTL[@]}" scan "$vol"
}
