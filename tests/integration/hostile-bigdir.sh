#!/bin/bash
# One directory of 50,000 files (LCTL_BIGDIR_FILES; 100,000 by hand: twice the time), made
# through libgfapi so they are real DHT files, on a 3 -> 4 brick distribute volume. The
# slowest test of the default run (see the timings it prints: most of it creating the files and
# the linkto fix of the one directory, whose lookups its worker spreads over --parallel
# threads); its own test so the others stay short. 100,000 did not fit the test time limit on the 2-core CI machine under ASan while
# other tests ran beside it.
#   - scan of the directory exits 1 (the new brick has no range), counts every file, and its
#     memory stays bounded (max RSS printed; must stay below LCTL_BIGDIR_MAX_RSS_MB, 1024);
#   - fix --mode linkto of the directory exits 0, within LCTL_BIGDIR_FIX_TIMEOUT (900 s);
#   - afterwards scan exits 0 and a fresh client finds every file by name with its content.
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

expect_exit 0 "$LAYOUTCTL" scan --path /big "$VOL"
t=$SECONDS
"$FX/bigdir" verify "$VOL" /big "$N" 4 >&2 || fail "files missing or changed after the fix"
echo "verified in $((SECONDS - t)) s" >&2
exit 0
