#!/bin/bash
# The guard rails of `layoutctl fix` on a 3 -> 4 brick volume:
#   --dry-run changes no brick (tree, modes, owners, sizes, every trusted.* xattr) and prints
#   the plan; a second fix of the same volume (same or another state directory) refuses with
#   exit 3 while one runs; --max-runtime stops cleanly (exit 1, journal "stopped") and --resume
#   finishes; a corrupt or truncated journal is refused on --resume with a clear message; a
#   running `gluster volume rebalance` makes fix and drain refuse with exit 3 (a --metrics-file
#   left unwritten), and so does a subvolume that is down for fix (its --metrics-file says
#   the run ended, exit code 3); glusterd busy with another command on the volume when the fix
#   asks it for tasks ("Another transaction is in progress") is asked again, and the fix runs.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
require_cmd jq
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 20 600 17
fx_tree manifest "$MP" >"$FX/before"
find "$MP" -mindepth 1 -printf '%P\n' >"$FX/all"
lctl_vol_add_bricks "$VOL" 1
stat "$MP" >/dev/null
B=("${LCTL_BRICKS[@]}")
S=$FX/state
mkdir -p "$S"

# --- dry run: nothing written, a plan printed (text and json) -----------------------------------
brick_snapshot "${B[@]}" >"$FX/snap.before"
out=$(run_check "$LAYOUTCTL" fix --dry-run --state-dir "$S" "$VOL")
assert_contains "$out" "Dry run on $VOL: nothing was written."
assert_contains "$out" "Plan (--mode migrate):"
assert_contains "$out" " -> "
"$LAYOUTCTL" --json fix -n --state-dir "$S" "$VOL" >"$FX/plan.json"
run_check "$LAYOUTCTL" __render --check "$FX/plan.json" >&2 # text shows the same fields
jq -e '.summary.dry_run == true and (.summary.plan | length) > 0 and
	([.summary.plan[].files] | add) > 0' "$FX/plan.json" >/dev/null || fail "no plan in the json"
brick_snapshot "${B[@]}" >"$FX/snap.after"
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a dry run changed the bricks"
[[ ! -e $S/journal ]] || fail "a dry run wrote a journal"

# --- a second run while one holds the volume; --max-runtime; resume ----------------------------
"$LAYOUTCTL" fix --state-dir "$S" --settle 1 --rate 20 --max-runtime 12 "$VOL" >"$FX/first.out" 2>&1 &
first=$!
for ((i = 0; i < 100; i++)); do
	[[ $(awk '$1 == "phase" { print $2 }' "$S/journal" 2>/dev/null) == work ]] && break
	sleep 0.1
done
# held still (its locks with it) while the refusals are checked: on a loaded machine its
# --max-runtime could otherwise end it first, and a refused run would find nothing to refuse
kill -STOP "$first" || fail "the first run ended before it could be held: $(<"$FX/first.out")"
expect_exit 3 "$LAYOUTCTL" fix --state-dir "$S" --settle 1 "$VOL"
rc=0
err=$("$LAYOUTCTL" fix --state-dir "$FX/other-state" --settle 1 "$VOL" 2>&1) || rc=$?
assert_eq 3 "$rc" "exit status of a fix refused by another host's volume lock"
assert_contains "$err" "locked by another layoutctl fix"
# another host breaks the lock (--break-lock there) while this run works: at its end this run
# must leave that host's lock alone
setfattr -n trusted.layoutctl.lock -v "otherhost 4242 run-other 1" "${B[0]}"
kill -CONT "$first"
rc=0
wait "$first" || rc=$?
cat "$FX/first.out" >&2
assert_eq 4 "$rc" "exit status of a run stopped by --max-runtime (on schedule, nothing failed)"
assert_contains "$(<"$FX/first.out")" "--resume"
assert_contains "$(<"$FX/first.out")" "no longer ours"
assert_eq "otherhost 4242 run-other 1" \
	"$(getfattr --absolute-names --only-values -n trusted.layoutctl.lock "${B[0]}")" \
	"the lock another host took"
setfattr -x trusted.layoutctl.lock "${B[0]}"
assert_eq stopped "$(awk '$1 == "phase" { print $2 }' "$S/journal")" "journal phase after --max-runtime"
expect_exit 1 "$LAYOUTCTL" scan "$VOL"
# stopped half-way, every directory and file is still found by a client with no cache (a
# directory stamped clean before its subdirectories existed on the new brick hid them)
"$FX/gfcheck" lookup "$VOL" "$FX/all" >"$FX/stopped.chk" 2>&1 ||
	fail "entries invisible after a stopped run: $(head -5 "$FX/stopped.chk")"

# --- a damaged journal is refused on --resume --------------------------------------------------
cp -- "$S/journal" "$FX/journal.good"
sed -i 's/^mode .*$/mode linkto/' "$S/journal"
cmp -s "$S/journal" "$FX/journal.good" && fail "the journal was not changed"
err=$("$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 "$VOL" 2>&1) && fail "a corrupt journal was accepted"
assert_contains "$err" "checksum does not match"
head -c 60 "$FX/journal.good" >"$S/journal"
expect_exit 3 "$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 "$VOL"
err=$("$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 "$VOL" 2>&1 || true)
assert_contains "$err" "truncated"
: >"$S/journal"
expect_exit 3 "$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 "$VOL"
cp -- "$FX/journal.good" "$S/journal"

expect_exit 0 "$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 --parallel 4 "$VOL"
assert_eq "done" "$(awk '$1 == "phase" { print $2 }' "$S/journal")" "journal phase after the resume"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
fx_bricks_check "$VOL" --allow-linked "$(fx_linked_ok)"
fx_tree manifest "$MP" >"$FX/after"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
err=$("$LAYOUTCTL" fix --state-dir "$S" --resume --settle 1 "$VOL" 2>&1) && fail "resumed a finished run"
assert_contains "$err" "nothing to resume"

# --- a rebalance of GlusterFS's own runs -------------------------------------------------------
lctl_vol_add_bricks "$VOL" 1
lctl_gluster volume rebalance "$VOL" start >/dev/null
# held still (SIGSTOP) while the refusals are checked: glusterd still says "in progress",
# and a small volume's rebalance cannot end between them (it once did, and the fix ran)
for ((i = 0; i < 100; i++)); do
	rebal=$(_lctl_rebalance_pids "$VOL") && break
	sleep 0.1
done
[[ $rebal =~ ^[0-9\ ]+$ ]] || fail "no rebalance process for $VOL"
# shellcheck disable=SC2086 # one or more pids
kill -STOP $rebal
lctl_on_exit "kill -CONT $rebal 2>/dev/null || true"
# a fix and a drain are refused (both move files with DHT's migration), saying why
rc=0
mkdir "$FX/prom"
err=$("$LAYOUTCTL" fix --state-dir "$S" --settle 1 --metrics-file "$FX/prom/rebal.prom" "$VOL" 2>&1) || rc=$?
assert_eq 3 "$rc" "exit status of a fix beside a rebalance"
[[ $err == *"rebalance"* ]] || fail "the fix gave no reason: $err"
[[ ! -e $FX/prom/rebal.prom ]] || fail "a fix refused beside a rebalance wrote metrics: $(cat "$FX/prom/rebal.prom")"
rc=0
err=$("$LAYOUTCTL" drain --state-dir "$FX/drain-state" --settle 1 "$VOL" "$LCTL_HOST:${B[0]}" 2>&1) || rc=$?
assert_eq 3 "$rc" "exit status of a drain beside a rebalance"
[[ $err == *"rebalance"* ]] || fail "the drain gave no reason: $err"
# shellcheck disable=SC2086
kill -CONT $rebal
# stop it (or let it finish): no task in progress any more
lctl_gluster volume rebalance "$VOL" stop >/dev/null 2>&1 || true
for ((i = 0; i < 120; i++)); do
	lctl_gluster volume status "$VOL" tasks --xml 2>/dev/null | grep >/dev/null -c '<status>1</status>' || break
	sleep 0.5
done

# brick_pid BRICK: the pid of the brick process glusterd names for BRICK
brick_pid() {
	local pid
	pid=$(lctl_gluster volume status "$VOL" "$LCTL_HOST:$1" --xml | xmllint --xpath 'string(//node/pid)' -)
	[[ $pid =~ ^[0-9]+$ ]] || fail "no pid for brick $1"
	echo "$pid"
}

# --- glusterd busy with another command ---------------------------------------------------------
# glusterd runs one command on a volume at a time and refuses any other meanwhile ("Another
# transaction is in progress"): here a `volume status VOL clients` waiting on a stopped brick
# holds its lock for 3 s from the moment the fix asks for the volume's tasks (faultspawn.so).
# The fix asks again and runs; it used to exit 3, "glusterd did not answer", as a drain's last
# task check did beside an administrator's `gluster volume status`.
fx_preload faultspawn
pid=$(brick_pid "${B[0]}")
cat >"$FX/hold.sh" <<HOLD
#!/bin/bash
[[ \$1 == tasks && ! -e $FX/held ]] || exit 0
kill -STOP $pid
gluster --mode=script volume status $VOL clients </dev/null >/dev/null 2>&1 &
for ((i = 0; i < 100; i++)); do
	if gluster --mode=script volume status $VOL tasks --xml 2>/dev/null | grep >/dev/null -c '<opErrno>30802</opErrno>'; then
		date +%s%N >$FX/held
		break
	fi
	sleep 0.1
done
(sleep 3; kill -CONT $pid; date +%s%N >$FX/released) </dev/null >/dev/null 2>&1 &
HOLD
chmod +x "$FX/hold.sh"
lctl_on_exit "kill -CONT $pid 2>/dev/null || true"
rc=0
FAULT_SPAWN_WORDS=tasks FAULT_SPAWN_CMD="$FX/hold.sh \"\$1\"" LD_PRELOAD=$FX_PRELOAD \
	"$LAYOUTCTL" fix --state-dir "$FX/busy-state" --settle 1 "$VOL" >"$FX/busy.out" 2>&1 || rc=$?
done_ns=$(date +%s%N)
cat "$FX/busy.out" >&2
_lctl_san_check "layoutctl fix (glusterd busy)"
[[ -s $FX/held ]] || fail "glusterd never said another transaction was in progress: the lock was not held"
for ((i = 0; i < 100; i++)); do [[ -s $FX/released ]] && break; sleep 0.1; done
assert_eq 0 "$rc" "exit status of a fix that met glusterd busy"
(($(<"$FX/released") < done_ns)) || fail "the fix ended before glusterd's lock was free"
[[ $(<"$FX/busy.out") != *"did not answer"* ]] || fail "the fix said glusterd did not answer"

# --- a subvolume down --------------------------------------------------------------------------
pid=$(brick_pid "${B[1]}")
kill -9 "$pid"
brick_snapshot "${B[0]}" "${B[2]}" >"$FX/down.before"
expect_exit 3 "$LAYOUTCTL" fix --state-dir "$S" --settle 1 --metrics-file "$FX/prom/down.prom" "$VOL"
# the metrics of a run refused at its start: ended, with its exit status
grep -qx "layoutctl_fix_running{volume=\"$VOL\"} 0" "$FX/prom/down.prom" ||
	fail "the metrics of a refused fix do not say it ended: $(cat "$FX/prom/down.prom")"
grep -qx "layoutctl_fix_exit_code{volume=\"$VOL\"} 3" "$FX/prom/down.prom" ||
	fail "the metrics of a refused fix lack its exit code 3: $(cat "$FX/prom/down.prom")"
err=$("$LAYOUTCTL" fix --state-dir "$S" --settle 1 "$VOL" 2>&1 || true)
assert_contains "$err" "down"
brick_snapshot "${B[0]}" "${B[2]}" >"$FX/down.after"
assert_unchanged "$FX/down.before" "$FX/down.after" "a refused fix changed the bricks"
exit 0
