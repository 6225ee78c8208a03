#!/bin/bash
# One directory of 50,000 files (LCTL_BIGDIR_FILES; 100,000 by hand: twice the time), made
# through libgfapi so they are real DHT files, on a 3 -> 4 brick distribute volume. The
# slowest test of the default run (see the timings it prints: most of it creating the files and
# the linkto fix of the one directory, whose lookups its worker spreads over --parallel
# threads); its own test so the others stay short. 100,000 did not fit the test time limit on the 2-core CI machine under ASan while
# other tests ran beside it.
#   - scan of the directory exits 1 (the new brick has no range), counts every file, and its
#     memory stays bounded (max RSS printed; must stay below LCTL_BIGDIR_MAX_RSS_MB, 1024);
#   - fix --mode linkto of the directory exits 0, within LCTL_BIGDIR_FIX_TIMEOUT (900 s), its
#     links shared among threads (the summary's links step counting every thread's time);
#   - afterwards scan exits 0 and a fresh client finds every file by name with its content.
# First, the bucketed inspection of a huge directory (issue 27) forced on a small one:
# LCTL_BIGDIR_THRESHOLD lowered to 500 sightings for a directory of LCTL_BIGDIR_SMALL (3,000)
# files on a 2 -> 3 brick volume, so its listing is spilled to disk and judged in buckets:
#   - scan gives the same JSON bucketed as whole (--all: every entry, in the same order), also
#     under a soft limit of 64 open files (layoutctl raises it to the hard limit);
#   - fix (clean-first, every phase) with the fresh-lookup checker running: exit 0, no
#     ENOENT; its data phase shares the directory's moves among threads, the summary's moves
#     step counting every thread's time; the outcome log has each linked file migrated once;
#     then the bricks hold every file placed (bricks.py), scan exits 0 both ways, and a fresh
#     client reads every file with its content.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init
N=${LCTL_BIGDIR_FILES:-50000}
MAXRSS=${LCTL_BIGDIR_MAX_RSS_MB:-1024}
# shellcheck disable=SC2046
gcc -O2 -pthread -o "$FX/bigdir" "$LCTL_SRCDIR/tests/integration/tools/bigdir.c" \
	$(pkg-config --cflags --libs glusterfs-api) || _lctl_hard "cannot build tools/bigdir.c"
command -v /usr/bin/time >/dev/null || skip "/usr/bin/time is not installed"

# --- the bucketed inspection, forced on a small directory ------------------------------------
NS=${LCTL_BIGDIR_SMALL:-3000}
lctl_vol_create dist 2 VOLS
"$FX/bigdir" create "$VOLS" /small "$NS" 4 >&2 || fail "could not create $NS files"
lctl_vol_add_bricks "$VOLS" 1
# the same scan JSON whole and in buckets; the timings apart
bd_scan() {
	local out=$1
	shift
	LCTL_RC=0
	env "$@" "$LAYOUTCTL" -vv --json scan --all --path /small "$VOLS" >"$out" 2>"$out.err" ||
		LCTL_RC=$?
	hs_json_ok "$out"
	jq -S 'del(.. | .elapsed?, .elapsed_s?, .duration_s?, .seconds?, .started?, .finished?)' \
		"$out" >"$out.n"
}
bd_compare() { # bd_compare STATUS WHEN: scan whole and in buckets, the same JSON
	bd_scan "$FX/whole.json" LCTL_BIGDIR_THRESHOLD=
	assert_eq "$1" "$LCTL_RC" "scan of the directory $2, whole"
	! grep -q 'judged in [0-9]* buckets' "$FX/whole.json.err" || fail "a listing of $NS went to buckets"
	bd_scan "$FX/buckets.json" LCTL_BIGDIR_THRESHOLD=500
	assert_eq "$1" "$LCTL_RC" "scan of the directory $2, in buckets"
	grep -q "'/small': [0-9]* sightings, judged in [0-9]* buckets" "$FX/buckets.json.err" ||
		fail "the lowered threshold did not make the scan use buckets"
	assert_eq "$NS" "$(jq .summary.files "$FX/buckets.json")" "files counted in buckets $2"
	assert_files_equal "$FX/whole.json.n" "$FX/buckets.json.n" "scan JSON whole and in buckets $2"
}
bd_compare 1 "grown"
# a soft limit of open files below what one inspection's bucket files take (about 60 here; a
# scan of 32 workers on huge directories passes the usual 1024): layoutctl raises it to the
# hard limit, so the same JSON (before: "cannot read back the listing ... Too many open
# files", no moves planned)
(
	ulimit -Sn 64 || exit 3
	bd_scan "$FX/nofile.json" LCTL_BIGDIR_THRESHOLD=100
	echo "$LCTL_RC" >"$FX/nofile.rc"
) || fail "the scan under a soft limit of 64 open files did not run"
assert_eq 1 "$(<"$FX/nofile.rc")" "scan of the directory under a soft limit of 64 open files"
! grep -q 'Too many open files' "$FX/nofile.json.err" ||
	fail "the scan ran out of open files: $(grep -m1 'Too many open files' "$FX/nofile.json.err")"
assert_files_equal "$FX/whole.json.n" "$FX/nofile.json.n" "scan JSON whole and under a soft limit of open files"

# bd_steps STEP "PHASE...": the summary's STEP (seconds of this host's threads) is over 1.5
# times the wall time of the PHASEs it ran in: the directory's work went over the threads of
# --parallel 4, and each helper thread's time counts (it did not, once)
bd_steps() {
	local step phases
	step=$(sed -n "s/.*Steps (s of this host's threads):.* $1 \([0-9.]*\).*/\1/p" "$FX/fix.out")
	phases=$(for p in $2; do
		sed -n "s/.*Time (s):.* $p \([0-9.]*\).*/\1/p" "$FX/fix.out"
	done | awk '{ s += $1 } END { print s + 0 }')
	[[ -n $step ]] || fail "no $1 step in the fix's summary"
	echo "step $1: $step s of threads in $phases s of $2" >&2
	awk -v s="$step" -v p="$phases" 'BEGIN { exit !(p > 0 && s > 1.5 * p) }' ||
		fail "step $1 $step s, not over 1.5 x the $phases s of $2: its helper threads not counted"
}

# the fix in buckets, a fresh-lookup checker running: the clean phase first, then the same
# comparison with names on two subvolumes (data and its linkto), then every phase
for ((i = 0; i < NS; i++)); do printf 'small/f%d\n' "$i"; done >"$FX/small.list"
fx_checker_start "$VOLS" "$FX/small.list"
LCTL_BIGDIR_THRESHOLD=500 fx_fix "$VOLS" -vv --phase clean
grep -q "judged in [0-9]* buckets" "$FX/fix.out" || fail "the fix did not use buckets"
assert_eq 0 "$LCTL_RC" "fix --phase clean of the directory in buckets"
bd_compare 0 "linked"
(($(jq '.summary.entries.linked' "$FX/buckets.json") > 0)) || fail "no linked entries to compare"
linked=$(jq '.summary.entries.linked' "$FX/buckets.json")
LCTL_BIGDIR_THRESHOLD=500 fx_fix "$VOLS" -vv
fx_checker_stop
grep -q "judged in [0-9]* buckets" "$FX/fix.out" || fail "the fix did not use buckets"
assert_eq 0 "$LCTL_RC" "fix of the directory in buckets"
# the data phase shared the directory's moves among its threads, and every linked file moved
# once, whichever thread moved it (each thread's outcomes merged into the directory's report)
grep -q "'/small': [0-9]* entries to place over [2-9] threads" "$FX/fix.out" ||
	fail "the data phase placed the directory's $linked linked files on one thread"
bd_steps moves "data phase"
jq -r 'select(.outcome == "migrated") | .path' "$FX/state/outcomes.jsonl" | sort >"$FX/moved"
assert_eq "$linked" "$(wc -l <"$FX/moved")" "files migrated (outcome log) of the $linked linked"
assert_eq "" "$(uniq -d "$FX/moved" | head -3)" "files migrated twice (outcome log)"
fx_bricks_check "$VOLS"
expect_exit 0 env LCTL_BIGDIR_THRESHOLD=500 "$LAYOUTCTL" scan --path /small "$VOLS"
expect_exit 0 "$LAYOUTCTL" scan --path /small "$VOLS"
"$FX/bigdir" verify "$VOLS" /small "$NS" 4 >&2 || fail "files missing or changed after the fix"
lctl_vol_destroy "$VOLS"

lctl_vol_create dist 3 VOL
t=$SECONDS
"$FX/bigdir" create "$VOL" /big "$N" 4 >&2 || fail "could not create $N files"
echo "created $N files in $((SECONDS - t)) s" >&2
lctl_vol_add_bricks "$VOL" 1

t=$SECONDS
LCTL_RC=0
/usr/bin/time -f '%M' -o "$FX/scan.rss" "$LAYOUTCTL" --json scan --path /big "$VOL" \
	>"$FX/scan.json" 2>"$FX/scan.err" || LCTL_RC=$?
cat "$FX/scan.err" >&2
rss=$(tail -n1 "$FX/scan.rss")
echo "scan: $((SECONDS - t)) s, max RSS $((rss / 1024)) MiB" >&2
assert_eq 1 "$LCTL_RC" "scan of the big directory"
hs_json_ok "$FX/scan.json"
assert_eq "$N" "$(jq .summary.files "$FX/scan.json")" "files counted by scan"
((rss / 1024 < MAXRSS)) || fail "scan used $((rss / 1024)) MiB for one directory of $N files"

t=$SECONDS
LCTL_RC=0
timeout "${LCTL_BIGDIR_FIX_TIMEOUT:-900}" /usr/bin/time -f '%M' -o "$FX/fix.rss" \
	"$LAYOUTCTL" fix --mode linkto --path /big --state-dir "$FX/state" --settle 1 "$VOL" \
	>"$FX/fix.out" 2>"$FX/fix.err" || LCTL_RC=$?
cat "$FX/fix.out" "$FX/fix.err" >&2
echo "fix --mode linkto: $((SECONDS - t)) s, max RSS $(($(tail -n1 "$FX/fix.rss") / 1024)) MiB" >&2
assert_eq 0 "$LCTL_RC" "fix of the big directory"
bd_steps links "settle walk top"

expect_exit 0 "$LAYOUTCTL" scan --path /big "$VOL"
t=$SECONDS
"$FX/bigdir" verify "$VOL" /big "$N" 4 >&2 || fail "files missing or changed after the fix"
echo "verified in $((SECONDS - t)) s" >&2
exit 0
