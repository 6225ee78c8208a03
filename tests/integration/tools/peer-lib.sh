# shellcheck shell=bash
# tests/integration/tools/peer-lib.sh: helpers of tests/integration/peer/*.sh, GlusterFS's own DHT
# regression scenarios (tests/bugs/distribute/*.t and others in github.com/gluster/glusterfs)
# re-written for layoutctl. Source it after tests/integration/lib.sh and tools/fix-lib.sh.
#
# The engine: PEER_ENGINE=layoutctl (the default, what CI runs) runs `layoutctl fix` and
# `layoutctl drain --commit` where the original runs `rebalance start` and `remove-brick`;
# PEER_ENGINE=gluster runs GlusterFS's own rebalance and remove-brick on the same scenario, for
# the comparison in docs/benchmarks.md (bench/peer-vs-rebalance.sh). Every assertion is a named
# check; a failed check is reported and the test goes on, so that one run tells which of them
# an engine passes; the test fails at pk_finish if any did.
#
#	pk_init				$PK (a folder under $FX); PEER_ENGINE checked
#	pk_step NAME			label the checks that follow (printed, and in the results)
#	pk_check NAME CMD...		run CMD in a subshell: its exit status is the check's result
#	pk_finish			summary; exit 1 when a check failed
#	pk_fix_layout VOL ARGS...	layoutctl fix --mode linkto ARGS | rebalance fix-layout start
#	pk_rebalance VOL ARGS...	layoutctl fix ARGS | rebalance start force
#	pk_remove VOL BRICK		layoutctl drain --commit | remove-brick start, wait, commit
#	pk_manifest VOL OUT		through a fresh FUSE mount: fixtree.py's manifest (path, type,
#					mode but setgid+sticky together, owner, size, nlink, md5 or
#					link target), then one line
#					per non-directory with its file type, device numbers and
#					mtime; names matching $PK_MANIFEST_SKIP (ERE) left out
#	pk_same_tree VOL BEFORE		pk_manifest now equals BEFORE (a check)
#	pk_scan_clean VOL		layoutctl scan exits 0 (fx_scan_after_fix for layoutctl) and
#					its lookup-optimize coverage is 100 % of directories (checks)
#	pk_bricks_clean VOL [OPTS]	tools/bricks.py check (a check)
#	pk_data_brick VOL REL		the brick folders that hold REL as data (not a linkto), one
#					a line; pk_linkto_brick: those holding a linkto of it
#	pk_layouts VOL REL		"BRICK START STOP" per brick (hex; "- - -" when it has none)
#	pk_overlap OLD NEW		the hash space (decimal) that keeps its brick, from two
#					pk_layouts outputs
#	pk_lookups_per_miss VOL DIR TAG	a fresh gfapi client's LOOKUPs per create in DIR (100 new
#					names DIR/new-TAG-<i>), below its DHT (fx_client_lookups_per_create),
#					at most 1.15 (a check; its own lookups of DIR and "/" are in it)
# Settings: PEER_RESULTS, a file to which each check appends "TEST<TAB>STEP<TAB>CHECK<TAB>ok|FAILED".

: "${PEER_ENGINE:=layoutctl}"
: "${PK_MANIFEST_SKIP:=^(\./)?lookup[^/]*/new-}"
PK_FAILED=()
PK_OK=0
PK_STEP=setup

pk_init() {
	case $PEER_ENGINE in
	layoutctl | gluster) ;;
	*) _lctl_hard "PEER_ENGINE must be layoutctl or gluster, not '$PEER_ENGINE'" ;;
	esac
	PK=$FX/peer
	mkdir -p "$PK"
	echo "peer: engine $PEER_ENGINE" >&2
}

pk_step() {
	PK_STEP=$1
	printf '== step: %s (%s s)\n' "$1" "$SECONDS" >&2
}

pk_check() {
	local name=$1 res=ok
	shift
	if ("$@") >"$PK/check.out" 2>&1; then
		PK_OK=$((PK_OK + 1))
	else
		res=FAILED
		# (with the first line of what it printed: CI's summary shows only "FAIL" lines)
		PK_FAILED+=("$PK_STEP: $name: $(sed -n "/./{p;q}" "$PK/check.out" | cut -c1-200)")
	fi
	printf 'check %s: %s: %s\n' "$res" "$PK_STEP" "$name" >&2
	[[ $res == ok ]] || head -n 30 "$PK/check.out" | sed 's/^/    /' >&2
	[[ -z ${PEER_RESULTS:-} ]] ||
		printf '%s\t%s\t%s\t%s\n' "${0##*/}" "$PK_STEP" "$name" "$res" >>"$PEER_RESULTS"
}

pk_finish() {
	printf 'peer (%s): %s checks passed, %s failed, %s s\n' "$PEER_ENGINE" "$PK_OK" "${#PK_FAILED[@]}" "$SECONDS" >&2
	((${#PK_FAILED[@]} == 0)) || {
		printf 'FAIL: check: %s\n' "${PK_FAILED[@]}" >&2
		fail "${#PK_FAILED[@]} check(s) failed"
	}
	exit 0
}

# pk_eq WHAT EXPECTED ACTUAL: for checks (prints both when they differ)
pk_eq() {
	[[ $2 == "$3" ]] || {
		printf '%s: expected "%s", got "%s"\n' "$1" "$2" "$3"
		return 1
	}
}

pk_fix_layout() {
	local vol=$1
	shift
	if [[ $PEER_ENGINE == gluster ]]; then
		pk_check "rebalance fix-layout completes without failures" lctl_rebalance "$vol" fix-layout
	else
		fx_fix "$vol" --mode linkto "$@"
		pk_check "layoutctl fix --mode linkto $* exits 0" pk_eq "exit status" 0 "$LCTL_RC"
	fi
}

pk_rebalance() {
	local vol=$1
	shift
	if [[ $PEER_ENGINE == gluster ]]; then
		pk_check "rebalance start force completes without failures" lctl_rebalance "$vol" force
	else
		fx_fix "$vol" "$@"
		pk_check "layoutctl fix $* exits 0" pk_eq "exit status" 0 "$LCTL_RC"
	fi
}

pk_remove() {
	local vol=$1 brick=$2 rc=0
	if [[ $PEER_ENGINE == gluster ]]; then
		pk_check "remove-brick start completes without failures" _pk_remove_gluster "$vol" "$brick"
		pk_check "remove-brick status: no file skipped" pk_eq "skipped" 0 "$(cat "$PK/remove-skipped" 2>/dev/null)"
		# (force: glusterd may have lost the end of the migration, see harness.sh)
		lctl_gluster volume remove-brick "$vol" "$LCTL_HOST:$brick" commit >/dev/null ||
			lctl_gluster volume remove-brick "$vol" "$LCTL_HOST:$brick" commit force >/dev/null ||
			_lctl_hard "cannot commit removing $brick from $vol"
		lctl_vol_bricks "$vol" LCTL_BRICKS
	else
		mkdir -p "$FX/state"
		"$LAYOUTCTL" --log-file "$FX/gfapi.log" drain --state-dir "$FX/state" --settle 1 --commit \
			"$vol" "$LCTL_HOST:$brick" >"$FX/drain.out" 2>&1 || rc=$?
		cat "$FX/drain.out" >&2
		_lctl_san_check "layoutctl drain"
		pk_check "layoutctl drain --commit exits 0" pk_eq "exit status" 0 "$rc"
		pk_check "outcome log: no file failed or skipped" _pk_outcomes_clean "$FX/state/outcomes.jsonl"
		lctl_vol_bricks "$vol" LCTL_BRICKS
	fi
}

_pk_remove_gluster() {
	local xml
	lctl_vol_remove_start "$1" "$2"
	lctl_wait_remove_complete "$1" "$2"
	xml=$(lctl_gluster volume remove-brick "$1" "$LCTL_HOST:$2" status --xml)
	_lctl_xpath "$xml" /cliOutput/volRemoveBrick/aggregate/skipped >"$PK/remove-skipped"
}

_pk_outcomes_clean() {
	[[ -s $1 ]] || return 0
	jq -c 'select(.outcome == "failed" or .outcome == "skipped")' "$1" >"$PK/outcomes.bad"
	head -n 5 "$PK/outcomes.bad"
	[[ ! -s $PK/outcomes.bad ]]
}

pk_manifest() {
	local vol=$1 out=$2 mp rc=0
	mp=$(lctl_mount "$vol")
	# A regular file with setgid and sticky both set (chmod 3644: bug-1086228.t) shows them or
	# not through DHT, depending on which call answered (dht-common.h: DHT_STRIP_PHASE1_FLAGS,
	# for a migration's marker; a readdirp answer keeps them): recorded without them here, and
	# exactly from the bricks by the tests
	fx_tree manifest "$mp" | awk -F'\t' -v OFS='\t' '
		function oct(s, i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 8 + substr(s, i, 1); return n }
		$2 == "f" && int(oct($3) / 1024) % 2 == 1 && int(oct($3) / 512) % 2 == 1 { $3 = sprintf("%o", oct($3) - 1536) }
		{ print }' >"$out.tmp" || rc=$?
	((rc == 0)) || echo "duplicate or vanishing names under $vol" >>"$out.tmp"
	(cd "$mp" && find . -mindepth 1 ! -type d -exec stat --printf '%n\t%F\t%t:%T\t%Y\n' -- {} + |
		LC_ALL=C sort) >>"$out.tmp"
	lctl_umount "$mp"
	grep -Ev -- "$PK_MANIFEST_SKIP" "$out.tmp" >"$out" || true
	rm -f -- "$out.tmp"
}

_pk_same_tree() {
	pk_manifest "$1" "$PK/manifest.now"
	cmp -s "$2" "$PK/manifest.now" && return 0
	diff -u "$2" "$PK/manifest.now" >"$PK/manifest.diff"
	head -n 40 "$PK/manifest.diff"
	return 1
}

pk_same_tree() {
	pk_check "every file's md5, mode, owner, size, links, type, device and mtime through a fresh mount are as before" \
		_pk_same_tree "$1" "$2"
}

_pk_scan() {
	local rc=0
	if [[ $PEER_ENGINE == layoutctl ]]; then
		fx_scan_after_fix "$1"
	else
		"$LAYOUTCTL" scan "$1" || rc=$?
		((rc == 0)) || {
			"$LAYOUTCTL" scan "$1" | tail -15
			return "$rc"
		}
	fi
}

_pk_coverage() {
	local share
	share=$("$LAYOUTCTL" --json scan "$1" | jq '.summary.lookup_optimize_coverage.directory_share')
	pk_eq "lookup-optimize coverage (share of directories)" 1 "$share"
}

pk_scan_clean() {
	pk_check "layoutctl scan exits 0" _pk_scan "$1"
	pk_check "layoutctl scan: lookup-optimize coverage 100 % of directories" _pk_coverage "$1"
}

pk_bricks_clean() {
	pk_check "bricks: every directory and file where DHT looks for it, commit word = volume hash" \
		fx_bricks_check "$@"
}

# _pk_is_linkto PATH: a DHT linkto file (sticky only, size 0, linkto xattr)
_pk_is_linkto() {
	[[ -f $1 && ! -s $1 && $(stat -c %a -- "$1") == 1000 ]] &&
		getfattr --absolute-names -n trusted.glusterfs.dht.linkto -- "$1" >/dev/null 2>&1
}

pk_data_brick() {
	local b
	for b in "${LCTL_BRICKS[@]}"; do
		[[ -e $b/$2 || -L $b/$2 ]] && ! _pk_is_linkto "$b/$2" && printf '%s\n' "$b"
	done
	return 0
}

pk_linkto_brick() {
	local b
	for b in "${LCTL_BRICKS[@]}"; do
		! _pk_is_linkto "$b/$2" || printf '%s\n' "$b"
	done
	return 0
}

pk_layouts() {
	local b x
	for b in "${LCTL_BRICKS[@]}"; do
		if x=$(brick_xattr_hex "$b" "$2" trusted.glusterfs.dht); then
			printf '%s %s %s\n' "$b" "${x:18:8}" "${x:26:8}"
		else
			printf '%s - -\n' "$b"
		fi
	done
}

pk_overlap() {
	local b s0 e0 s1 e1 total=0 lo hi
	declare -A old
	while read -r b s0 e0; do old[$b]="$s0 $e0"; done <"$1"
	while read -r b s1 e1; do
		[[ $s1 != - && -n ${old[$b]:-} ]] || continue
		read -r s0 e0 <<<"${old[$b]}"
		[[ $s0 != - ]] || continue
		# a 0-0 entry takes no part
		[[ $((16#$s0)) != 0 || $((16#$e0)) != 0 ]] || continue
		[[ $((16#$s1)) != 0 || $((16#$e1)) != 0 ]] || continue
		lo=$((16#$s0 > 16#$s1 ? 16#$s0 : 16#$s1))
		hi=$((16#$e0 < 16#$e1 ? 16#$e0 : 16#$e1))
		((hi < lo)) || total=$((total + hi - lo + 1))
	done <"$2"
	printf '%s\n' "$total"
}

pk_lookups_per_miss() {
	local r
	r=$(fx_client_lookups_per_create "$1" "$2" 100 "new-$3-") || return 1
	awk -v r="$r" 'BEGIN { exit !(r <= 1.15) }' || {
		echo "LOOKUP per CREATE in $2: $r (at most 1.15 expected)"
		return 1
	}
}
