#!/bin/bash
# Taking over the volume lock (trusted.layoutctl.lock on the first subvolume's root) is atomic:
# a run that takes over a held value V first creates V's break key (a claim,
# trusted.layoutctl.lock.break.<crc32 of V>) with XATTR_CREATE, which only one run can.
#
# The race is made certain by tools/faultxattr.c (LD_PRELOAD): every read of the lock sleeps
# FAULT_SLOW_MS after it returns, so two runs started a moment apart both read V before either
# replaces it (the log of the reads shows they did: otherwise the test fails, not passes).
#   - two `fix --break-lock` runs (their own state directories) of another host's lock: one goes
#     on and finishes (exit 0), the other exits 3, "another run is taking over the lock";
#   - the same for two runs of this host without --break-lock, of a lock left by a dead run of
#     this host (the flock of one state directory says nothing about another);
#   - after both, neither the lock nor a break key is left;
#   - a claim left by a run that died between its claim and its replacement: of this host, it
#     is passed over; of another host, --break-lock refuses while it is young (exit 3, the lock
#     and the claim unchanged) and passes it once it is 10 minutes old; nothing left after;
#   - a lock that cannot be removed at the end (glfs_removexattr fails): a warning says it
#     stays and how to remove it; the next run of this host takes it over (its run is dead);
#   - a lock of a run named by our host name but of another machine, or of another pid
#     namespace, or in the value of an older layoutctl (host name and pid only): refused,
#     --break-lock needed (issue 24, item 6: the host name alone made them ours, and dead);
#   - a drain's mark (a drain stands): a fix refuses, --break-lock abandons the drain, and a mark
#     naming subvolumes no longer in the volume is removed.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
fx_init
fx_preload faultxattr
FAULTY=(env LD_PRELOAD="$FX_PRELOAD" "$LAYOUTCTL")
LOCK=trusted.layoutctl.lock
SLOW_MS=4000

lctl_vol_create dist 2 VOL
R=$(lctl_brick_of_subvol "$VOL" 0)
MP=$(lctl_mount "$VOL")
mkdir "$MP/d"
for i in $(seq 1 10); do echo "$i" >"$MP/d/f$i"; done
lctl_umount "$MP"
host=$(hostname)

crc32() {
	python3 -c 'import sys, zlib; print("%08x" % zlib.crc32(sys.argv[1].encode()))' "$1"
}
# every trusted.layoutctl.* attribute of the lock's root, "name=value" lines
lock_attrs() {
	getfattr --absolute-names -d -m '^trusted\.layoutctl\.' "$R" 2>/dev/null | grep '=' || true
}
assert_no_lock() {
	local left
	left=$(lock_attrs)
	[[ -z $left ]] || fail "$1: left on the root of $R: $left"
}
# a pid that is no longer running
dead_pid() {
	local p
	sh -c 'exit 0' &
	p=$!
	wait "$p"
	echo "$p"
}
# the lock value of a dead run of this host, TAG its run id: host name, pid, run, time, machine
# id, boot id, pid namespace and start time (lib/lock.c)
dead_here() {
	printf '%s %s %s %s %s %s %s 1' "$host" "$(dead_pid)" "$1" "${2:-1}" \
		"$(cat /etc/machine-id 2>/dev/null || echo -)" "$(</proc/sys/kernel/random/boot_id)" \
		"$(readlink /proc/self/ns/pid)"
}

# race TAG ARGS...: two runs of `fix ARGS` with their own state directories, the second started
# once the first has read the lock; both must have read the same value before either could
# write. Sets RC_a, RC_b.
race() {
	local tag=$1 log=$FX/$1.reads a b t0 ta tb va vb
	shift
	export FAULT_SLOW_XATTR=$LOCK FAULT_SLOW_MS=$SLOW_MS FAULT_SLOW_LOG=$log
	"${FAULTY[@]}" fix --state-dir "$FX/$tag-a" --settle 1 "$@" "$VOL" >"$FX/$tag-a.out" 2>&1 &
	a=$!
	for ((t0 = 0; t0 < 600; t0++)); do
		[[ -s $log ]] && break
		sleep 0.1
	done
	[[ -s $log ]] || fail "$tag: the first run never read the lock: $(cat "$FX/$tag-a.out")"
	"${FAULTY[@]}" fix --state-dir "$FX/$tag-b" --settle 1 "$@" "$VOL" >"$FX/$tag-b.out" 2>&1 &
	b=$!
	RC_a=0 RC_b=0
	wait "$a" || RC_a=$?
	wait "$b" || RC_b=$?
	unset FAULT_SLOW_XATTR FAULT_SLOW_MS FAULT_SLOW_LOG
	cat "$FX/$tag-a.out" "$FX/$tag-b.out" "$log" >&2
	# the first read of each run ("PID MS VALUE"): the same value, the second within the
	# first one's sleep (nothing written by then)
	read -r _ ta va < <(awk -v p="$a" '$1 == p' "$log" | head -1) || true
	read -r _ tb vb < <(awk -v p="$b" '$1 == p' "$log" | head -1) || true
	[[ -n $ta && -n $tb ]] || fail "$tag: a run did not read the lock"
	assert_eq "$va" "$vb" "$tag: what the two runs read first"
	((tb < ta + SLOW_MS)) ||
		fail "$tag: the second run read the lock $((tb - ta)) ms after the first: no race (slow machine?)"
}

# race_check TAG: exactly one of the two runs went on (and finished), the other was refused
race_check() {
	local tag=$1 won lost rc n=0
	[[ -e $FX/$tag-a/journal ]] && n=$((n + 1))
	[[ -e $FX/$tag-b/journal ]] && n=$((n + 1))
	if [[ -e $FX/$tag-a/journal && ! -e $FX/$tag-b/journal ]]; then
		won=a lost=b
	elif [[ -e $FX/$tag-b/journal && ! -e $FX/$tag-a/journal ]]; then
		won=b lost=a
	else
		fail "$tag: not exactly one run went on ($n journals); exit statuses $RC_a and $RC_b"
	fi
	rc=RC_$won
	assert_eq 0 "${!rc}" "$tag: exit status of the run that took the lock"
	rc=RC_$lost
	assert_eq 3 "${!rc}" "$tag: exit status of the run that lost"
	assert_contains "$(<"$FX/$tag-$lost.out")" \
		"another run is taking over the lock of '$VOL' at the same time"
	assert_no_lock "$tag: after both runs"
}

# --- two --break-lock runs of another host's lock ---------------------------------------------
setfattr -n $LOCK -v "otherhost 4242 run-other 1" "$R"
race break --break-lock
race_check break

# --- two runs taking over a lock left by a dead run of this host (two state directories) ------
setfattr -n $LOCK -v "$(dead_here run-dead)" "$R"
race stale
race_check stale

# --- claims left by runs that died in the middle of a take-over -------------------------------
V="otherhost 4243 run-other2 1"
K=$LOCK.break.$(crc32 "$V")
setfattr -n $LOCK -v "$V" "$R"
setfattr -n "$K" -v "$(dead_here run-claim "$(date +%s)")" "$R"
fx_fix "$VOL" --break-lock
assert_eq 0 "$LCTL_RC" "exit status past a claim of a dead run of this host"
assert_no_lock "past a dead claim of this host"

claim="otherhost 99 run-claim2 $(date +%s)"
setfattr -n $LOCK -v "$V" "$R"
setfattr -n "$K" -v "$claim" "$R"
fx_fix "$VOL" --break-lock
assert_eq 3 "$LCTL_RC" "exit status before another host's fresh claim"
assert_contains "$(<"$FX/fix.out")" "another run is taking over the lock of '$VOL' at the same time"
assert_eq "$V" "$(getfattr --absolute-names --only-values -n $LOCK "$R")" "the lock after a refusal"
assert_eq "$claim" "$(getfattr --absolute-names --only-values -n "$K" "$R")" "the claim after a refusal"
setfattr -n "$K" -v "otherhost 99 run-claim2 $(($(date +%s) - 601))" "$R"
fx_fix "$VOL" --break-lock
assert_eq 0 "$LCTL_RC" "exit status past another host's claim 10 minutes old"
assert_no_lock "past an old claim of another host"

# --- a lock that cannot be removed at the end --------------------------------------------------
FAULT_REMOVE_EIO=$LOCK "${FAULTY[@]}" fix --state-dir "$FX/rm" --settle 1 "$VOL" >"$FX/rm.out" 2>&1 ||
	fail "a run whose lock cannot be removed failed: $(cat "$FX/rm.out")"
assert_contains "$(<"$FX/rm.out")" "cannot remove the volume lock of '$VOL'"
assert_contains "$(<"$FX/rm.out")" "setfattr -x $LOCK"
[[ $(getfattr --absolute-names --only-values -n $LOCK "$R") == "$host "* ]] ||
	fail "the lock that could not be removed is gone"
fx_fix "$VOL"
assert_eq 0 "$LCTL_RC" "exit status of a run after a lock left by a dead run of this host"
assert_no_lock "after taking over a lock left behind"

# --- a live run's lock is not "dead" for having our host name (issue 24, item 6) --------------
# a run of another machine named as this one (a clone, localhost.localdomain), and one in
# another pid namespace on this kernel, whose pid here is dead: both need --break-lock
for v in "$host $(dead_pid) run-clone 1 ffffffffffffffffffffffffffffffff 00000000-1111-2222-3333-444444444444 pid:[1] 1" \
	"$host $(dead_pid) run-ns 1 $(cat /etc/machine-id 2>/dev/null || echo -) $(</proc/sys/kernel/random/boot_id) pid:[1] 1" \
	"$host $(dead_pid) run-old 1"; do
	setfattr -n $LOCK -v "$v" "$R"
	fx_fix "$VOL"
	assert_eq 3 "$LCTL_RC" "exit status before a lock named '$v'"
	assert_contains "$(<"$FX/fix.out")" "use --break-lock"
	assert_eq "$v" "$(getfattr --absolute-names --only-values -n $LOCK "$R")" "the lock after a refusal"
	setfattr -x $LOCK "$R"
done
# --- a drain that stands (its mark on the first subvolume's root) ------------------------------
MARK=trusted.layoutctl.drain
setfattr -n $MARK -v "$VOL-client-1 otherhost" "$R"
fx_fix "$VOL"
assert_eq 3 "$LCTL_RC" "exit status of a fix while a drain stands"
assert_contains "$(<"$FX/fix.out")" "a drain of $VOL-client-1 stands on '$VOL'"
getfattr --absolute-names -n $MARK "$R" >/dev/null 2>&1 || fail "a refused fix removed the drain's mark"
# --break-lock abandons it
fx_fix "$VOL" --break-lock
assert_eq 0 "$LCTL_RC" "exit status of fix --break-lock beside a standing drain"
assert_contains "$(<"$FX/fix.out")" "abandoning the drain of $VOL-client-1"
! getfattr --absolute-names -n $MARK "$R" >/dev/null 2>&1 || fail "the abandoned drain's mark is left"
# a mark naming subvolumes that left the volume: the drain is over, the mark goes
setfattr -n $MARK -v "$VOL-client-9 otherhost" "$R"
fx_fix "$VOL"
assert_eq 0 "$LCTL_RC" "exit status of a fix beside the mark of a drain whose subvolumes are gone"
! getfattr --absolute-names -n $MARK "$R" >/dev/null 2>&1 || fail "a stale drain mark is left"
assert_no_lock "at the end"
echo "fix-break-lock: one take-over of a lock at a time; nothing left behind"
