# shellcheck shell=bash
# tests/integration/tools/hostile-lib.sh: helpers for tests/integration/hostile-*.sh and fault-*.sh.
# Source it after tests/integration/lib.sh (and tools/fix-lib.sh, whose fx_init it relies on:
# $FX is the test's temp folder, removed at exit).
#
# Working on the bricks themselves (B=(brick paths) in DHT order, VOL set):
#	hs_sv I				the DHT child name of subvolume I (VOL-client-I)
#	hs_is_linkto BRICK REL		a DHT linkto file there (mode ---------T)
#	hs_data_subvol REL		index of the brick holding the data file of REL
#	hs_linkto_subvol REL		index of a brick holding a linkto file of REL
#	hs_linked_name DIR		a name in DIR that has a linkto (a rename moved its hash)
#	hs_xattr_hex BRICK REL XATTR	the raw value as 0x..., for any name
#	hs_gfid_link BRICK REL		the brick's .glusterfs entry of REL
#	hs_brick_rm BRICK REL		remove REL (and its .glusterfs entry) from one brick
#	hs_set_layout BRICK REL HEX	write a raw trusted.glusterfs.dht value (any length)
#	hs_layout BRICK REL		the raw value, hex without 0x
#	hs_hex STRING			the bytes of STRING in hex
#	hs_mk_linkto I REL TARGETHEX GFID_FROM
#					a linkto file on subvolume I as DHT makes one, with the
#					raw linkto value TARGETHEX and the gfid of REL on GFID_FROM
#	hs_mk_linkto_gfid I REL TARGETHEX 0xGFID	the same with a given gfid
# Running layoutctl:
#	hs_json_ok FILE			FILE is one valid JSON document (strict UTF-8)
#	hs_lctl OUT ERR ARGS...		run layoutctl ARGS, stdout to OUT, stderr to ERR; status in
#					LCTL_RC; a crash (signal, sanitizer report) fails the test
#	hs_one_line ERR			ERR holds exactly one "layoutctl: error: " line (plus the
#					"try ..." hint of a usage error)
#	hs_sums MP > FILE		every entry below MP through the mount: path, type, mode,
#					owner, size, nlink, md5 (tools/fixtree.py manifest)
#	hs_secret_check VOL FILE...	no FILE contains the brick password of VOL's volfile
# Known bugs:
#	soft_fail MSG			report a failure and go on (to prove that nothing is lost and
#					that a re-run works); soft_end fails the test if any was reported
# Faults:
#	hs_brick_pid VOL BRICK		the brick's glusterfsd pid
#	hs_kill_brick VOL BRICK		kill -9 it
#	hs_restart_bricks VOL		`volume start force` (repeated) until every brick is online
#	hs_tmpfs_brick DIR SIZE		a tmpfs of SIZE on DIR (unmounted at exit) with an empty
#					brick folder DIR/brick; skips the test without tmpfs or
#					trusted.* xattrs on it
#	hs_filled_volume N DIRS FILES BYTES
#					a distribute volume of N bricks ($VOL, folder $ROOT, FUSE
#					mount $MP) for a small brick to join: weighted-rebalance
#					off, min-free-disk 1%; DIRS folders d1.. of FILES random
#					files f1.. of BYTES each, checksums in $FX/sums.before,
#					names in $FX/list
#	hs_nothing_lost WHEN		every name in $FX/list found by a fresh gfapi client, and
#					through a new FUSE mount ($MP) every checksum as in
#					$FX/sums.before (these in $FX/sums.WHEN)

hs_sv() { printf '%s-client-%s' "$VOL" "$1"; }

hs_is_linkto() { [[ -f $1/$2 && ! -L $1/$2 && $(stat -c %a -- "$1/$2") == 1000 ]]; }

hs_data_subvol() {
	local i
	for i in "${!B[@]}"; do
		[[ -e ${B[i]}/$1 || -L ${B[i]}/$1 ]] && ! hs_is_linkto "${B[i]}" "$1" && echo "$i" && return
	done
	return 1
}

hs_linkto_subvol() {
	local i
	for i in "${!B[@]}"; do hs_is_linkto "${B[i]}" "$1" && echo "$i" && return; done
	return 1
}

hs_linked_name() {
	local b f
	for b in "${B[@]}"; do
		for f in "$b/$1"/*; do
			[[ -e $f ]] || continue
			f=${f##*/}
			hs_is_linkto "$b" "$1/$f" && echo "$f" && return
		done
	done
	fail "no rename in /$1 made a linkto"
}

# brick_xattr_hex parses getfattr's "# file:" line, which breaks on names holding a newline
# and '='; read the raw value instead
hs_xattr_hex() {
	local v
	v=$(getfattr -h --absolute-names --only-values -n "$3" -- "$1/${2#/}" 2>/dev/null |
		od -v -An -tx1 | tr -d ' \n') || return 1
	[[ -n $v ]] || return 1
	printf '0x%s\n' "$v"
}

hs_gfid_link() {
	local h
	h=$(hs_xattr_hex "$1" "$2" trusted.gfid) || fail "no gfid on $1/$2"
	h=${h#0x}
	printf '%s/.glusterfs/%s/%s/%s-%s-%s-%s-%s\n' "$1" "${h:0:2}" "${h:2:2}" \
		"${h:0:8}" "${h:8:4}" "${h:12:4}" "${h:16:4}" "${h:20:12}"
}

hs_brick_rm() {
	local g
	g=$(hs_gfid_link "$1" "$2")
	rm -rf -- "${1:?}/$2" "$g"
}

hs_set_layout() { setfattr -n trusted.glusterfs.dht -v "0x$3" -- "$1/$2"; }

hs_layout() {
	local v
	v=$(hs_xattr_hex "$1" "$2" trusted.glusterfs.dht) || return 1
	printf '%s\n' "${v#0x}"
}

hs_hex() { printf '%s' "$1" | od -v -An -tx1 | tr -d ' \n'; }

hs_mk_linkto() {
	hs_mk_linkto_gfid "$1" "$2" "$3" "$(hs_xattr_hex "${B[$4]}" "$2" trusted.gfid)"
}

hs_mk_linkto_gfid() {
	local f=${B[$1]}/$2 g
	: >"$f"
	chmod 1000 -- "$f"
	setfattr -n trusted.gfid -v "$4" -- "$f"
	setfattr -n trusted.glusterfs.dht.linkto -v "0x$3" -- "$f"
	g=$(hs_gfid_link "${B[$1]}" "$2")
	mkdir -p -- "${g%/*}"
	ln -- "$f" "$g"
}

hs_json_ok() {
	python3 - "$1" <<-'EOF' || fail "not one valid JSON document (strict UTF-8): $1"
		import json, sys
		with open(sys.argv[1], "rb") as f:
		    data = f.read()
		json.loads(data.decode("utf-8", "strict"))
	EOF
}

# hs_jsonl_ok FILE: every line of FILE one valid JSON document (strict UTF-8), in one process
hs_jsonl_ok() {
	python3 - "$1" <<-'EOF' || fail "a line of $1 is not one valid JSON document (strict UTF-8)"
		import json, sys
		with open(sys.argv[1], "rb") as f:
		    for i, line in enumerate(f.read().split(b"\n")):
		        if line:
		            try:
		                json.loads(line.decode("utf-8", "strict"))
		            except ValueError as e:
		                sys.exit("line %d: %s: %r" % (i + 1, e, line[:200]))
	EOF
}

# hs_json_bad FILE...: prints how many FILEs are not one valid JSON document (strict UTF-8), then
# the first of them
hs_json_bad() {
	python3 - "$@" <<-'EOF'
		import json, sys
		bad = []
		for name in sys.argv[1:]:
		    try:
		        json.loads(open(name, "rb").read().decode("utf-8", "strict"))
		    except ValueError:
		        bad.append(name)
		print(len(bad), bad[0] if bad else "")
	EOF
}

hs_lctl() {
	local out=$1 err=$2 why
	shift 2
	printf '+ layoutctl %s\n' "${*@Q}" >&2
	LCTL_RC=0
	"$LAYOUTCTL" "$@" >"$out" 2>"$err" || LCTL_RC=$?
	_lctl_san_check "layoutctl $*"
	if why=$(_lctl_crash_name "$LCTL_RC"); then
		cat -- "$err" >&2
		fail "layoutctl $why: ${*@Q}"
	fi
	if grep -qE 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:' -- "$err"; then
		cat -- "$err" >&2
		fail "sanitizer report on stderr: ${*@Q}"
	fi
}

hs_one_line() {
	local n
	n=$(grep -c '^layoutctl: error: ' -- "$1" || true)
	((n == 1)) || { cat -- "$1" >&2; fail "want exactly one error line in $1, got $n"; }
	# nothing else but that line, warnings, and the usage hint
	if grep -vE '^(layoutctl: (error|warning): |try .layoutctl)' -- "$1" | grep >/dev/null -c .; then
		cat -- "$1" >&2
		fail "more than a one-line message in $1"
	fi
}

hs_tmpfs_brick() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" || skip "cannot mount a tmpfs"
	# lazily: the brick process still has it open when the exit commands run
	lctl_on_exit "umount -l '$1' 2>/dev/null || true"
	mkdir "$1/brick"
	setfattr -n trusted.lctl.probe -v 1 "$1/brick" 2>/dev/null || skip "this tmpfs has no trusted.* xattrs"
	setfattr -x trusted.lctl.probe "$1/brick"
}

hs_filled_volume() {
	local d i
	lctl_vol_create dist "$1" VOL
	# shellcheck disable=SC2034 # for the test that sources this file
	ROOT=$(_lctl_vol_root "$VOL")
	# a small new brick still gets an equal share of every directory's hash range
	lctl_gluster volume set "$VOL" cluster.weighted-rebalance off >/dev/null
	lctl_gluster volume set "$VOL" cluster.min-free-disk 1% >/dev/null
	lctl_mount "$VOL" MP
	for ((d = 1; d <= $2; d++)); do
		mkdir "$MP/d$d"
		for ((i = 1; i <= $3; i++)); do head -c "$4" /dev/urandom >"$MP/d$d/f$i"; done
	done
	hs_sums "$MP" >"$FX/sums.before"
	fx_tree list "$MP" >"$FX/list"
}

hs_nothing_lost() {
	"$FX/gfcheck" lookup "$VOL" "$FX/list" >"$FX/chk.out" 2>&1 ||
		fail "files not found by name ($1): $(head -5 "$FX/chk.out")"
	lctl_umount "$MP"
	lctl_mount "$VOL" MP
	hs_sums "$MP" >"$FX/sums.$1"
	assert_files_equal "$FX/sums.before" "$FX/sums.$1" "a file changed or went missing ($1)"
}

hs_sums() {
	python3 "$LCTL_SRCDIR/tests/integration/tools/fixtree.py" manifest "$1"
}

hs_secret_check() {
	local vol=$1 pw f
	shift
	pw=$(gluster --mode=script system:: getspec "$vol" 2>/dev/null |
		awk '$1 == "option" && $2 == "password" && !pw { pw = $3 } END { print pw }')
	[[ -n $pw ]] || fail "no brick password in the volfile of $vol"
	for f; do
		[[ -e $f ]] || continue
		if grep -rqaF -- "$pw" "$f"; then
			fail "the brick password of $vol appears in $f"
		fi
	done
}

# hs_brick_pid VOL BRICK: the pid of BRICK's glusterfsd
hs_brick_pid() {
	lctl_gluster volume status "$1" "$LCTL_HOST:$2" --xml |
		xmllint --xpath 'string(//node/pid)' - 2>/dev/null
}

# hs_kill_brick VOL BRICK: kill -9 that brick's process
hs_kill_brick() {
	local pid
	pid=$(hs_brick_pid "$1" "$2")
	[[ $pid =~ ^[1-9][0-9]*$ ]] || fail "no pid for brick $2"
	kill -9 "$pid"
	echo "killed brick $2 (pid $pid)" >&2
}

# hs_restart_bricks VOL: `volume start VOL force` until every brick is online. glusterd may not
# have noticed a killed brick yet (then start force does nothing): so poll and repeat.
hs_restart_bricks() {
	local vol=$1 t0=$SECONDS xml online total
	total=$(lctl_vol_field "$vol" brickCount)
	while :; do
		lctl_gluster volume start "$vol" force >/dev/null 2>&1 || true
		for ((i = 0; i < 25; i++)); do
			xml=$(lctl_gluster volume status "$vol" --xml 2>/dev/null) || xml=
			online=$(_lctl_xpath "$xml" 'count(//node[starts-with(path,"/")][status="1"])')
			((online == total)) && return 0
			sleep 0.2
		done
		((SECONDS - t0 < LCTL_TIMEOUT)) || fail "volume $vol: only $online of $total bricks online"
	done
}

HS_SOFT=()
soft_fail() {
	printf 'FAIL (continuing): %s\n' "$*" >&2
	HS_SOFT+=("$*")
}
soft_end() {
	local m
	((${#HS_SOFT[@]} == 0)) && return 0
	for m in "${HS_SOFT[@]}"; do printf 'FAIL: %s\n' "$m" >&2; done
	fail "${#HS_SOFT[@]} failure(s) above"
}

# hs_stamped_are_clean SCANJSON H VOL: in a `scan --all --json` taken with every brick up,
# every directory whose layout carries H on every subvolume (neither unstamped nor
# commit-mixed) is clean: nothing was stamped that was not verified. But for what a kill in the
# data phase of a clean-first run leaves, which moves a linked file with its directory stamped
# (design.md, "Clean first"), each state with the file found by a lookup by name on its hashed
# subvolume (the fresh-lookup checker of the tests that kill proves it), and finished by the
# next run:
#   - migration-leftover away from the hashed subvolume: killed during the copy, the source
#     marked on its cached subvolume, the hashed one holding the linkto being written;
#   - migration-leftover with two data copies (no cached subvolume): killed after the copy
#     took its real mode on the hashed subvolume and before DHT made the source a linkto;
#     `explain` must show data on the hashed subvolume and the marked source on one other;
#   - stale-linkto with the data on its hashed subvolume: killed after DHT made the source a
#     linkto and before it unlinked it;
#   - orphan-linkto: a linkto without data anywhere.
# (lib/repairsteps.c lctl_repair_clean_place() and repair.c repair_harmless_leftover() say
# which of these the next run tidies in place, and which with the directory dirty.)
hs_stamped_are_clean() {
	local bad n two p
	bad=$(jq -c --argjson h "$2" '[.directories[] | select(.commit == $h and
		(.problems | index("unstamped") or index("commit-mixed") | not)) |
		select(.clean == false) |
		select((.problems == [] and
			([.entry_counts | to_entries[] | select(.value > 0 and (.key | IN("placed",
				"linked", "migration-leftover", "stale-linkto", "orphan-linkto") | not))]
			 | length) == 0 and
			([.entries[] | select(
				(.state == "migration-leftover" and
				 (.hashed == null or .cached == .hashed)) or
				(.state == "stale-linkto" and (.cached == null or .cached != .hashed)))]
			 | length) == 0)
			| not) |
		{path, problems, entry_counts, entries: [.entries[] | select(.state != "linked" and .state != "placed")]}]' "$1")
	[[ $bad == '[]' ]] || fail "directories stamped with $2 that are not clean: $bad"
	two=$(jq -r --argjson h "$2" '.directories[] | select(.commit == $h and .clean == false) |
		.path as $d | .entries[] | select(.state == "migration-leftover" and .cached == null) |
		($d | rtrimstr("/")) + "/" + .name' "$1")
	while IFS= read -r p; do
		[[ -n $p ]] || continue
		hs_lctl "$FX/explain.json" "$FX/explain.err" --json explain "$3" "$p"
		jq -e '.explain | [.subvolumes[] | select(.hashed)][0].entry.kind == "data" and
			[.subvolumes[] | select(.hashed | not) | .entry.kind |
			 select(. != "absent")] == ["migrating"]' \
			"$FX/explain.json" >/dev/null ||
			fail "stamped, $p has two data copies and not its data on its hashed subvolume: $(jq -c '[.explain.subvolumes[]? | {name, hashed, kind: .entry.kind}]' "$FX/explain.json")"
	done <<<"$two"
	n=$(jq --argjson h "$2" '[.directories[] | select(.commit == $h and .clean)] | length' "$1")
	echo "directories stamped with $2 and clean: $n" >&2
}

# hs_fix_bg OUT ERR ARGS...: layoutctl ARGS in the background; its pid in HS_PID
hs_fix_bg() {
	local out=$1 err=$2
	shift 2
	printf '+ layoutctl %s &\n' "${*@Q}" >&2
	"$LAYOUTCTL" "$@" >"$out" 2>"$err" &
	# shellcheck disable=SC2034 # for the test that sources this file
	HS_PID=$!
}

# hs_wait_until SECONDS PID CONDITION...: poll CONDITION every 0.1 s while PID runs; 1 if PID
# ended first, fail on time-out
hs_wait_until() {
	local t=$1 pid=$2 i
	shift 2
	for ((i = 0; i < t * 10; i++)); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	fail "timed out waiting for: $*"
}

# hs_status STATEDIR VOL JQ: a value of `layoutctl status` (JSON) of the run in STATEDIR on VOL,
# jq -r JQ of it; empty while there is none (yet)
hs_status() { { "$LAYOUTCTL" --format json status --state-dir "$1" "$2" 2>/dev/null || true; } | jq -r "$3"; }

# hs_journal KEY [STATEDIR]: a value from the fix journal ($S by default)
hs_journal() { awk -v k="$1" '$1 == k { print $2 }' "${2:-$S}/journal" 2>/dev/null; }

# hs_stamped_count BRICK: directories on BRICK whose layout commit word is the journal's hash
hs_stamped_count() {
	local h
	h=$(printf '%08x' "$(hs_journal commit)")
	find "$1" -path "$1/.glusterfs" -prune -o -type d -print0 |
		xargs -0r getfattr --absolute-names -n trusted.glusterfs.dht -e hex 2>/dev/null |
		grep -c "=0x$h" || true
}

# hs_bricks_check VOL [BRICKS.PY OPTIONS...]: tools/bricks.py check with the volume's hash (like
# fx_bricks_check), and it must have checked at least one directory. (fx_subvol_args pipes
# `gluster system:: getspec` into an awk that exits early: under pipefail the SIGPIPE can kill
# the process substitution, and bricks.py then checks no subvolume at all and passes.)
hs_bricks_check() {
	local vol=$1 spec h n=0 name args=() names=()
	shift
	spec=$(gluster --mode=script system:: getspec "$vol" 2>/dev/null) || fail "no volfile for $vol"
	mapfile -t names < <(awk '$1 == "type" && $2 == "cluster/distribute" { dht = 1 }
		dht && $1 == "subvolumes" && !done { for (i = 2; i <= NF; i++) print $i; done = 1 }' <<<"$spec")
	((${#names[@]} > 0)) || fail "no DHT subvolumes in the volfile of $vol"
	for name in "${names[@]}"; do
		args+=("$name=$(lctl_subvol_bricks "$vol" "$n" | paste -sd,)")
		n=$((n + 1))
	done
	h=$(fx_vol_hash "$vol")
	[[ $h =~ ^[0-9]+$ ]] || fail "no volume commit hash on the brick roots of $vol"
	python3 "$LCTL_SRCDIR/tests/integration/tools/bricks.py" check "$@" "$h" "${args[@]}" \
		>"$FX/bricks.out" || {
		cat "$FX/bricks.out" >&2
		fail "brick check of $vol failed"
	}
	cat "$FX/bricks.out" >&2
	grep -q '^bricks: [1-9]' "$FX/bricks.out" || fail "the brick check saw no directory"
}
