#!/bin/bash
# Invalid fix options are refused before anything is written, on a 2-brick distribute volume:
#   - the CLI: each invalid option (range, word, path, a --state-dir or --log longer than its
#     buffer) exits 2 with a one-line message;
#   - the library: lctl_fix_start() given one invalid option at a time (tools/fixopts.c: 65
#     workers, an unknown planner or mode, negative or non-finite throttles, more pool servers
#     than LCTL_POOL_MAX, ...) returns LCTL_EINVAL.
# After all of them every brick is byte-identical (tree, modes, every trusted.* xattr, the
# roots' layouts and volume commit hash included) and no state directory was made.
# Then, on the same volume:
#   - a real run asks glusterd for the versions (the compatibility check, -vv);
#   - the settle period against the client caches: a dry run says none is derived while
#     md-cache has its default timeout, and says the one derived from md-cache-timeout once it
#     is set (-vv); a real run given a --settle shorter than it warns in one line;
#   - --metrics-file: a real fix after a brick was added writes node_exporter metrics while it
#     runs (seen with running 1 and files moved) and at the end: a well-formed exposition
#     (promtool check metrics when installed, and a strict parser here), mode 0644, in a
#     directory of nobody's writable by all, a link planted at its temporary's name not
#     followed; files moved, bytes moved and failed as the bricks and the outcome log say.
#   - retry only the failed files (issue 26, item 6): a brick added, every data file of two
#     directories (names with a newline, a space, a backslash) made immutable on the old bricks
#     (chattr +i), so that each migration of one fails; a fix exits 1 with N failed. Then:
#     --files-from refuses a path with '..' (exit 2), --retry-failed a --log that is no regular
#     file and a run holding the lock (exit 3), the bricks unchanged; once the files are
#     mutable again, fix --retry-failed moves exactly the N failed files (the bricks: no other
#     file's data moved), appends N migrated outcomes, scan is clean; a second --retry-failed
#     finds nothing to do (and warns of a pool worker's failed outcomes dropped past the log's
#     budget, naming that server's own log); --files-from - -0 takes the odd names, one run a
#     directory.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
FIXOPTS=$LCTL_BUILDDIR/tests/integration/tools/fixopts
[[ -x $FIXOPTS ]] || _lctl_hard "$FIXOPTS is not built (make check, or make tests/integration/tools/fixopts)"

lctl_vol_create dist 2 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
mkdir -p "$MP/a/b" "$MP/c"
for i in $(seq 1 20); do echo "$i" >"$MP/a/f$i"; done
lctl_umount "$MP"
T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-fixopts.XXXXXX")
lctl_on_exit rm -rf -- "$T"
S=$T/state

brick_snapshot "${B[@]}" >"$T/snap.before"
grep -q 'trusted.glusterfs.dht.commithash=' "$T/snap.before" ||
	grep -q 'trusted.glusterfs.dht=' "$T/snap.before" || fail "no layout in the brick snapshot"

# a --state-dir of 4999 bytes in components the system accepts, which a 4096-byte buffer cut
long=$T/$(printf 'd%.0s' $(seq 1 200))
while ((${#long} < 5000)); do long+=/$(printf 'd%.0s' $(seq 1 200)); done
long=${long:0:4999}

cases=(
	"--parallel 65"
	"--parallel 0"
	"--layout bogus"
	"--mode bogus"
	"--rate -1"
	"--rate 0"
	"--rate nan"
	"--bandwidth inf"
	"--settle 3601"
	"--max-runtime 0"
	"--until 25:00"
	"--path relative"
	"--path /a/../b"
	"--resume --dry-run"
	"--state-dir relative"
	"--metrics-file relative.prom"
	"--metrics-file /nonexistent/metrics.txt"
)
# fix_usage ARGS...: layoutctl fix ARGS must exit 2 with a one-line error (left in $err),
# followed at most by the usual hint at --help
fix_usage() {
	local rc=0 out
	printf '+ fix %s\n' "${*@Q}" >&2
	out=$("$LAYOUTCTL" fix "$@" 2>&1 >/dev/null) || rc=$?
	assert_eq 2 "$rc" "exit status of fix ${*@Q} ($out)"
	err=$(head -1 <<<"$out")
	[[ $err == "layoutctl: error: "* && $(sed 1d <<<"$out") != *error* ]] ||
		fail "not a one-line error from fix ${*@Q}: $out"
}
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	fix_usage $c --state-dir "$S" --settle 0 "$VOL"
done
fix_usage --state-dir "$long" --settle 0 "$VOL"
assert_contains "$err" "shorter than"
fix_usage --log "$long" --state-dir "$S" --settle 0 "$VOL"
assert_contains "$err" "shorter than"

"$FIXOPTS" "$VOL" "$S" >"$T/fixopts.out" 2>&1 || fail "lctl_fix_start took an invalid option: $(cat "$T/fixopts.out")"
cat "$T/fixopts.out" >&2
assert_eq 16 "$(grep -c '^refused ' "$T/fixopts.out")" "cases refused by lctl_fix_start"

# a metrics file below a directory others may change: refused before anything is written
mkdir -m 0777 "$T/open" && chmod 0777 "$T/open" && mkdir "$T/open/prom"
expect_exit 3 "$LAYOUTCTL" fix --state-dir "$S" --settle 0 --metrics-file "$T/open/prom/x.prom" "$VOL"
[[ ! -e $T/open/prom/x.prom ]] || fail "a metrics file was written below a directory others may change"

brick_snapshot "${B[@]}" >"$T/snap.after"
assert_unchanged "$T/snap.before" "$T/snap.after" "an invalid fix option changed the bricks"
[[ ! -e $S && ! -e $long ]] || fail "an invalid fix option made a state directory"
echo "fix-options: every invalid option refused, nothing written"

# The versions (issue 26, the compatibility check): a real run asks glusterd for the cluster's
# op-version and every client's, and says what it found (-vv); --no-task-check asks nothing.
want=$(lctl_gluster volume get all cluster.op-version --xml | sed -n 's:.*<Value>\([0-9]*\)</Value>.*:\1:p')
[[ $want =~ ^[0-9]+$ ]] || fail "no cluster op-version from glusterd"
out=$("$LAYOUTCTL" -vv fix --state-dir "$T/state-v" --settle 0 "$VOL" 2>&1) ||
	fail "fix of a clean volume failed: $out"
assert_contains "$out" "versions: cluster op-version $want; clients at "
assert_contains "$out" "none older than GlusterFS 3.6"
out=$("$LAYOUTCTL" -vv fix --no-task-check --state-dir "$T/state-v" --settle 0 "$VOL" 2>&1) ||
	fail "fix --no-task-check of a clean volume failed: $out"
[[ $out != *"versions: "* ]] || fail "--no-task-check asked for the versions: $out"

# --- the settle period against the client caches ---------------------------------------------
# settle_said: what a dry run at -vv says of a settle period derived from the client caches
settle_said() {
	"$LAYOUTCTL" -v -v fix --dry-run --state-dir "$S" "$VOL" 2>&1 >/dev/null | grep 'settle period' || true
}
said=$(settle_said)
[[ -z $said ]] || fail "a settle period derived with md-cache's default timeout: $said"
mdc=10
lctl_gluster volume set "$VOL" performance.md-cache-timeout "$mdc" >/dev/null
said=$(settle_said)
assert_contains "$said" "settle period $((mdc + 2)) s, not 5" "the dry run's settle period"
assert_contains "$said" "performance.md-cache-timeout"

# --- metrics of a running fix ------------------------------------------------------------------
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
for i in $(seq 1 40); do head -c $((i * 100)) /dev/urandom >"$MP/c/g$i"; done
lctl_umount "$MP"
# where_files: "PATH BRICK" for every data file (not a linkto) on the bricks
where_files() {
	local b
	for b in "${B[@]}"; do
		find "$b" -path "$b/.glusterfs" -prune -o -type f ! -perm -1000 -printf "%P $b %s\n"
	done | LC_ALL=C sort
}
where_files >"$T/where.before"
# the textfile directory: nobody's, writable by all; a link at the temporary's name
P=$T/textfile
mkdir "$P" && chown nobody "$P" && chmod 0777 "$P"
echo precious >"$T/victim"
ln -s "$T/victim" "$P/.layoutctl.prom.tmp"
S2=$T/state2
"$LAYOUTCTL" fix --state-dir "$S2" --settle 1 --rate 8 --metrics-file "$P/layoutctl.prom" \
	"$VOL" >"$T/fix.out" 2>"$T/fix.err" &
fpid=$!
lctl_on_exit "kill $fpid 2>/dev/null || true"
# metric NAME [LABEL=VALUE]: the value of the sample of NAME (with that label) in the file
metric() {
	awk -v n="$1" -v l="${2:-}" '
		$1 ~ "^" n "[{ ]" || $1 == n { if (l == "" || index($1, l "\"")) print $2 }
	' "$P/layoutctl.prom"
}
seen_running=''
for _ in $(seq 1 600); do
	if [[ -e $P/layoutctl.prom ]] && [[ $(metric layoutctl_fix_running) == 1 ]] &&
		(($(metric layoutctl_fix_files_moved_total) > 0)); then
		seen_running=1
		break
	fi
	kill -0 "$fpid" 2>/dev/null || break
	sleep 0.1
done
rc=0
wait "$fpid" || rc=$?
cat "$T/fix.err" >&2
assert_eq 0 "$rc" "exit status of the fix with --metrics-file"
[[ -n $seen_running ]] || fail "no metrics file with running 1 and files moved while the fix ran"
# the --settle 1 given is shorter than md-cache-timeout: one line says so
assert_eq 1 "$(grep -c "warning: --settle 1 is shorter than the $mdc s" "$T/fix.err")" \
	"the warning about --settle 1"

# well-formed: promtool when installed, and a strict parser of the exposition format
f=$P/layoutctl.prom
if command -v promtool >/dev/null; then
	promtool check metrics <"$f" || fail "promtool check metrics refused $f"
fi
[[ $(tail -c 1 "$f" | od -An -c | tr -d ' ') == '\n' ]] || fail "$f does not end with a newline"
LC_ALL=C awk '
	function bad(m) { printf "%s line %d: %s: %s\n", FILENAME, NR, m, $0; err = 1; exit 1 }
	/^# HELP / {
		if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ || ($3 in help)) bad("HELP")
		help[$3] = 1; next
	}
	/^# TYPE / {
		if (NF != 4 || $4 !~ /^(counter|gauge)$/ || !($3 in help) || ($3 in type)) bad("TYPE")
		if ($4 == "counter" && $3 !~ /_total$/) bad("a counter not named _total")
		type[$3] = $4; cur = $3; next
	}
	/^#/ { bad("a comment") }
	{
		if (!match($0, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) bad("no metric name")
		name = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
		if (name != cur) bad("a sample outside its family")
		series = name
		if (substr(rest, 1, 1) == "{") {
			lab = "[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\[\\\\\"n])*\""
			if (!match(rest, "^[{]" lab "(," lab ")*[}]")) bad("labels")
			series = series substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ -?[0-9]+(\.[0-9]+)?$/) bad("value")
		if (series in seen) bad("a series twice")
		seen[series] = 1; n++
	}
	END { if (!err && !n) { print "no sample"; exit 1 } }
' "$f" || fail "$f is not well-formed"
assert_eq 644 "$(stat -c %a "$f")" "mode of the metrics file"
assert_eq precious "$(cat "$T/victim")" "the file a link at the temporary's name led to"
[[ ! -e $P/.layoutctl.prom.tmp && ! -L $P/.layoutctl.prom.tmp ]] || fail "a temporary left beside $f"

# the counts: as the bricks and the outcome log say
where_files >"$T/where.after"
LC_ALL=C join "$T/where.before" "$T/where.after" | awk '$2 != $4 { n++; b += $3 } END { print n + 0, b + 0 }' >"$T/moved"
read -r moved bytes <"$T/moved"
((moved > 0)) || fail "the fix moved no file: nothing to count"
log=$S2/outcomes.jsonl
host=$(hostname)
assert_eq "$moved" "$(jq -s 'map(select(.outcome == "migrated")) | length' "$log")" "migrated files in the outcome log"
assert_eq "$moved" "$(metric layoutctl_fix_files_moved_total "server=\"$host")" "layoutctl_fix_files_moved_total"
assert_eq "$bytes" "$(metric layoutctl_fix_bytes_moved_total "server=\"$host")" "layoutctl_fix_bytes_moved_total"
assert_eq 0 "$(metric layoutctl_fix_files_failed_total "server=\"$host")" "layoutctl_fix_files_failed_total"
assert_eq "$(find "${B[0]}" -path "${B[0]}/.glusterfs" -prune -o -type d -print | wc -l)" \
	"$(metric layoutctl_fix_directories_done_total "server=\"$host")" "layoutctl_fix_directories_done_total"
assert_eq 0 "$(metric layoutctl_fix_running)" "layoutctl_fix_running at the end"
assert_eq 0 "$(metric layoutctl_fix_exit_code)" "layoutctl_fix_exit_code"
assert_eq 1 "$(metric layoutctl_fix_phase 'phase="done')" "layoutctl_fix_phase{phase=done}"
ls=$(metric layoutctl_fix_last_success_timestamp_seconds)
((ls >= $(metric layoutctl_fix_start_timestamp_seconds) && ls <= $(date +%s))) ||
	fail "layoutctl_fix_last_success_timestamp_seconds $ls: not the end of this run"
echo "fix-options: settle derived from md-cache-timeout; metrics of a fix: $moved files, $bytes bytes"

# --- retry only the failed files (issue 26, item 6) --------------------------------------------
MP=$(lctl_mount "$VOL")
mkdir -p "$MP/r/sub dir"
for i in $(seq 1 24); do
	echo "r $i" >"$MP/r/h$i"
	echo "s $i" >"$MP/r/sub dir/k$i"
done
printf 'odd\n' >"$MP/r/new"$'\n'"line"
printf 'odd\n' >"$MP/r/back\\slash"
printf 'odd\n' >"$MP/r/sub dir/sp ace"
lctl_umount "$MP"
OLD=("${B[@]}")
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
# where_q: "PATH<TAB>BRICK" (PATH quoted by %q: a newline in a name too) for every data file
where_q() {
	local b p
	for b in "${B[@]}"; do
		find "$b" -path "$b/.glusterfs" -prune -o -type f ! -perm -1000 -printf '%P\0' |
			while IFS= read -r -d '' p; do printf '%q\t%s\n' "/$p" "$b"; done
	done | LC_ALL=C sort
}
# immutable DIR...: chattr +i (or -i with IMM=-i) on every data file of r/ on the old bricks
immutable() {
	local b
	for b in "${OLD[@]}"; do
		find "$b/r" -type f ! -perm -1000 -exec chattr "${IMM:-+i}" {} +
	done
}
lctl_on_exit "IMM=-i immutable 2>/dev/null || true"
immutable
S3=$T/state3
rc=0
"$LAYOUTCTL" fix --mode migrate --state-dir "$S3" --settle 1 "$VOL" >"$T/fail.out" 2>&1 || rc=$?
assert_eq 1 "$rc" "exit status of the fix whose migrations in r/ fail ($(tail -3 "$T/fail.out"))"
log=$S3/outcomes.jsonl
nfail=$(jq -s 'map(select(.outcome == "failed")) | length' "$log")
((nfail >= 10)) || fail "only $nfail failed migrations with every file of r/ immutable"
# the failed paths, as the log holds them (escaped: lib/escape.c), back to their bytes, quoted
jq -r 'select(.outcome == "failed") | .path' "$log" | while IFS= read -r p; do
	printf -v raw '%b' "$p"
	printf '%q\n' "$raw"
done | LC_ALL=C sort >"$T/failed"
odd=("/r/new"$'\n'"line" "/r/back\\slash" "/r/sub dir/sp ace")
for o in "${odd[@]}"; do
	grep -qxF "$(printf '%q' "$o")" "$T/failed" || echo "(${o@Q} did not have to move)" >&2
done
IMM=-i immutable
where_q >"$T/where.r0"
nlines=$(wc -l <"$log")

# refused: a path with '..', a run holding the state directory's lock; nothing moved
printf 'r/h1\nr/../etc/passwd\n' >"$T/list"
rc=0
"$LAYOUTCTL" fix --files-from "$T/list" --state-dir "$S3" --settle 0 "$VOL" >/dev/null 2>"$T/err" || rc=$?
assert_eq 2 "$rc" "exit status of --files-from with a '..' path ($(cat "$T/err"))"
assert_contains "$(<"$T/err")" "'..'"
rc=0
"$LAYOUTCTL" fix --retry-failed --log /dev/null --state-dir "$S3" --settle 0 "$VOL" >/dev/null \
	2>"$T/err" || rc=$?
assert_eq 3 "$rc" "exit status of --retry-failed reading a --log that is no file ($(cat "$T/err"))"
assert_contains "$(<"$T/err")" "not a regular file"
exec {lockfd}>>"$S3/lock"
flock -n "$lockfd" || fail "cannot take the state directory's lock for the test"
rc=0
"$LAYOUTCTL" fix --retry-failed --state-dir "$S3" --settle 0 "$VOL" >/dev/null 2>"$T/err" || rc=$?
exec {lockfd}>&-
assert_eq 3 "$rc" "exit status of --retry-failed while another run holds the lock ($(cat "$T/err"))"
where_q >"$T/where.r1"
assert_files_equal "$T/where.r0" "$T/where.r1" "a refused retry moved a file"
assert_eq "$nlines" "$(wc -l <"$log")" "outcome lines written by a refused retry"

# the retry: exactly the failed files move, each migrated once in the log
rc=0
"$LAYOUTCTL" fix --retry-failed --state-dir "$S3" --settle 1 "$VOL" >"$T/retry.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "exit status of fix --retry-failed ($(tail -5 "$T/retry.out"))"
where_q >"$T/where.r2"
LC_ALL=C join -t $'\t' "$T/where.r0" "$T/where.r2" | awk -F'\t' '$2 != $3 { print $1 }' |
	LC_ALL=C sort >"$T/moved"
assert_files_equal "$T/failed" "$T/moved" "the files the retry moved against the failed ones"
tail -n +$((nlines + 1)) "$log" >"$T/retry.log"
assert_eq "$nfail" "$(jq -s 'map(select(.outcome == "migrated")) | length' "$T/retry.log")" \
	"migrated outcomes the retry appended"
assert_eq "$nfail" "$(wc -l <"$T/retry.log")" "outcome lines the retry appended"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
# the latest outcome wins: nothing failed is left, a second retry moves nothing; a line
# saying a pool worker's failed outcomes were dropped past the log's budget (lib/pool.c) makes
# it warn that its list may be incomplete for that server, naming that server's own log
printf '{"time":1,"server":"srv9","dropped":5,"failed":2}\n' >>"$log"
rc=0
out=$("$LAYOUTCTL" fix --retry-failed --state-dir "$S3" --settle 0 "$VOL" 2>&1) || rc=$?
assert_eq 0 "$rc" "exit status of a second --retry-failed ($out)"
assert_contains "$out" "no failed file"
assert_contains "$out" "retry list may be incomplete for server srv9"
assert_contains "$out" "$S3/server-srv9/outcomes.jsonl"
# --files-from -0 on stdin: the odd names, placed by now, are found and left as they are; a
# name in r/ that sorts after "r/sub dir/..." is still r/'s (one run a directory)
rc=0
printf '%s\0' "${odd[@]#/}" r/zz-absent | "$LAYOUTCTL" fix --files-from - -0 --state-dir "$S3" \
	--settle 0 "$VOL" >"$T/odd.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "exit status of fix --files-from - -0 ($(tail -3 "$T/odd.out"))"
assert_contains "$(<"$T/odd.out")" "3 listed files in '/r'"
assert_contains "$(<"$T/odd.out")" "1 listed files in '/r/sub dir'"
assert_eq 2 "$(grep -c '^Fix of ' "$T/odd.out")" "runs of fix --files-from (one a directory)"
where_q >"$T/where.r3"
assert_files_equal "$T/where.r2" "$T/where.r3" "--files-from of placed files moved one"
echo "fix-options: --retry-failed moved exactly the $nfail failed files"
