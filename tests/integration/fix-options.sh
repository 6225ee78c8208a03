#!/bin/bash
# Invalid fix options are refused before anything is written, on a 2-brick distribute volume:
#   - the CLI: each invalid option (range, word, path, a --state-dir or --log longer than its
#     buffer) exits 2 with a one-line message;
#   - the library: lctl_fix_start() given one invalid option at a time (tools/fixopts.c: 65
#     workers, an unknown planner or mode, negative or non-finite throttles, more pool servers
#     than LCTL_POOL_MAX, ...) returns LCTL_EINVAL.
# After all of them every brick is byte-identical (tree, modes, every trusted.* xattr, the
# roots' layouts and volume commit hash included) and no state directory was made.
# Then a real run on it asks glusterd for the versions (the compatibility check, -vv).
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
