#!/bin/bash
# contrib/: the systemd units pass `systemd-analyze verify` (when systemd-analyze is here),
# the scripts parse (bash -n, and shellcheck when it is here), the cron example is well
# formed, and layoutctl-maintenance does what contrib/README.md says, against a fake
# layoutctl: atomic metrics, resume or start, the exit codes, the locks.
# shellcheck disable=SC2174 # mkdir -p -m: only the last directory is new (and to be private)
. "$LCTL_SRCDIR/tests/cli/lib.sh"

contrib=$LCTL_SRCDIR/contrib
wrapper=$contrib/layoutctl-maintenance
tmp=$LCTL_TEST_LOGDIR/tmp
rm -rf -- "$tmp"
mkdir -p -- "$tmp"
trap 'rm -rf -- "$tmp"' EXIT
checked=0

# --- scripts ---------------------------------------------------------------------------------
[[ -x $wrapper ]] || fail "$wrapper is not executable"
bash -n "$wrapper" || fail "bash -n $wrapper"
checked=$((checked + 1))
if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -s bash "$wrapper" || fail "shellcheck $wrapper"
fi

# --- systemd units ---------------------------------------------------------------------------
units=("$contrib"/*@.service "$contrib"/*@.timer)
((${#units[@]} == 4)) || fail "expected 4 unit templates in contrib/, found ${#units[@]}"
for u in "${units[@]}"; do
	base=${u##*/}
	# every service runs the wrapper; every timer has its service
	case $base in
	*.service)
		grep -q '^ExecStart=/usr/local/sbin/layoutctl-maintenance \(scan\|fix\) %i$' "$u" ||
			fail "$base: ExecStart is not the wrapper"
		grep -q '^StandardOutput=journal$' "$u" || fail "$base: output not to the journal"
		;;
	*.timer) [[ -f $contrib/${base%.timer}.service ]] || fail "$base has no service" ;;
	esac
done
grep -q '^SuccessExitStatus=.*\b1\b' "$contrib/layoutctl-scan@.service" ||
	fail "a scan that finds problems (exit 1) must not fail layoutctl-scan@.service"
if command -v systemd-analyze >/dev/null 2>&1; then
	# the units as installed, but running the wrapper of this tree, and man pages of this tree
	mkdir -p "$tmp/units" "$tmp/man/man8"
	for u in "${units[@]}"; do
		sed "s|/usr/local/sbin/layoutctl-maintenance|$wrapper|" "$u" >"$tmp/units/${u##*/}"
	done
	ln -s "$LCTL_SRCDIR"/docs/*.8 "$tmp/man/man8/"
	inst=()
	for u in "${units[@]}"; do
		b=${u##*/}
		inst+=("$tmp/units/${b/@./@gv0.}")
		cp "$tmp/units/$b" "$tmp/units/${b/@./@gv0.}"
	done
	out=$(cd "$tmp/units" && MANPATH=$tmp/man SYSTEMD_LOG_LEVEL=notice \
		systemd-analyze verify "${inst[@]}" 2>&1) || fail "systemd-analyze verify:"$'\n'"$out"
	[[ $out != *layoutctl* ]] || fail "systemd-analyze verify complains:"$'\n'"$out"
	checked=$((checked + 1))
else
	echo "systemd-analyze is not installed: the units were not verified"
fi

# --- cron ------------------------------------------------------------------------------------
cron=$contrib/layoutctl.cron
n=0
while IFS= read -r line; do
	[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
	[[ $line =~ ^[A-Z_]+= ]] && continue
	[[ $line =~ ^[0-9*,/-]+\ +[0-9*,/-]+\ +[0-9*,/-]+\ +[0-9*,/-]+\ +[0-9*,/-]+\ +root\ +. ]] ||
		fail "layoutctl.cron: not 'm h dom mon dow root command': $line"
	[[ $line != *%* ]] || fail "layoutctl.cron: '%' is a newline to cron: $line"
	[[ $line == *logger* ]] || fail "layoutctl.cron: output not to syslog: $line"
	cmd=${line#*root }
	bash -n <<<"$cmd" || fail "layoutctl.cron: the command does not parse: $cmd"
	n=$((n + 1))
done <"$cron"
((n >= 2)) || fail "layoutctl.cron: expected a scan and a fix line"
grep -q 'flock' "$cron" || fail "layoutctl.cron: no flock"
checked=$((checked + 1))

((checked > 0)) || skip "nothing could be checked"

# --- layoutctl-maintenance against a fake layoutctl ------------------------------------------
# The fake logs its arguments to $tmp/calls and behaves as FAKE_SCAN_RC / FAKE_FIX_RC say; a
# fix writes FAKE_PROGRESS (one line of JSON) as progress.json; FAKE_SLEEP makes it slow.
cat >"$tmp/layoutctl" <<'EOF'
#!/bin/bash
printf '%s\n' "$*" >>"$FAKE_DIR/calls"
sleep "${FAKE_SLEEP:-0}"
case " $* " in
*" scan "*)
	[[ " $* " == *" --format prometheus "* ]] &&
		printf 'layoutctl_scan_success{volume="gv0"} 1\nlayoutctl_scan_clean{volume="gv0"} %s\n' \
			"$((FAKE_SCAN_RC == 0))"
	exit "${FAKE_SCAN_RC:-0}"
	;;
*" fix "*)
	all="$*"
	sd=${all##*--state-dir }
	sd=${sd%% *}
	mkdir -p -m 0700 "$sd"
	[[ -n ${FAKE_PROGRESS:-} ]] && printf '%s\n' "$FAKE_PROGRESS" >"$sd/progress.json"
	exit "${FAKE_FIX_RC:-0}"
	;;
esac
exit 2
EOF
chmod +x "$tmp/layoutctl"
export FAKE_DIR=$tmp LAYOUTCTL=$tmp/layoutctl LAYOUTCTL_LOCK_DIR=$tmp/lock
export LAYOUTCTL_TEXTFILE_DIR=$tmp/textfile LAYOUTCTL_STATE_DIR=$tmp/state
mkdir -p -m 0700 "$LAYOUTCTL_LOCK_DIR"
prom=$LAYOUTCTL_TEXTFILE_DIR/layoutctl-gv0.prom
calls() { cat "$tmp/calls" 2>/dev/null; }
reset() { rm -rf -- "$tmp/calls" "$LAYOUTCTL_STATE_DIR" "$LAYOUTCTL_TEXTFILE_DIR"; }

expect_exit 2 "$wrapper"
expect_exit 2 "$wrapper" scan
expect_exit 2 "$wrapper" defrag gv0
expect_exit 2 "$wrapper" scan '../etc'
LAYOUTCTL=/nonexistent/layoutctl expect_exit 3 "$wrapper" scan gv0

# scan: clean, not clean, could not run; the metrics file is replaced whole
reset
FAKE_SCAN_RC=0 expect_exit 0 "$wrapper" scan gv0
assert_contains "$(cat "$prom")" 'layoutctl_scan_clean{volume="gv0"} 1'
assert_contains "$(calls)" "--format prometheus --progress never scan gv0"
[[ $(stat -c %a "$prom") == 644 ]] || fail "the metrics file is not world-readable"
FAKE_SCAN_RC=1 expect_exit 1 "$wrapper" scan gv0
assert_contains "$(cat "$prom")" 'layoutctl_scan_clean{volume="gv0"} 0'
FAKE_SCAN_RC=3 expect_exit 3 "$wrapper" scan gv0
assert_eq 'layoutctl_scan_success{volume="gv0"} 0' "$(grep -v '^#' "$prom")" "metrics after a failed scan"
assert_eq "layoutctl-gv0.prom" "$(ls -A "$LAYOUTCTL_TEXTFILE_DIR")" "files left in the textfile directory"
LAYOUTCTL_GLOBAL_OPTS="-s gl1 -s gl2" LAYOUTCTL_SCAN_OPTS="--parallel 3" expect_exit 0 "$wrapper" scan gv0
assert_contains "$(calls)" "-s gl1 -s gl2 --format prometheus --progress never scan --parallel 3 gv0"

# fix: nothing recorded and clean -> nothing at all; not clean -> a new run until 06:00
reset
FAKE_SCAN_RC=0 expect_exit 0 "$wrapper" fix gv0
assert_not_contains "$(calls)" " fix "
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=0 expect_exit 0 "$wrapper" fix gv0
assert_contains "$(calls)" "fix --until 06:00 --state-dir $LAYOUTCTL_STATE_DIR gv0"
assert_not_contains "$(calls)" "--resume"
# a journal that did not finish -> resume, without scanning first; a finished one -> scan.
# In phase data (a clean-first fix moving data behind its linkto files) scan says clean: the
# data is still to be moved, so the fix is resumed all the same.
for phase in stopped work dirty place data 'done'; do
	reset
	mkdir -p -m 0700 "$LAYOUTCTL_STATE_DIR"
	printf 'layoutctl-journal 1\nvolume gv0\nphase %s\ncrc32 00000000\n' "$phase" \
		>"$LAYOUTCTL_STATE_DIR/journal"
	scan_rc=1
	[[ $phase == data ]] && scan_rc=0
	FAKE_SCAN_RC=$scan_rc LAYOUTCTL_FIX_UNTIL=05:30 LAYOUTCTL_FIX_OPTS="--bandwidth 50" \
		expect_exit 0 "$wrapper" fix gv0
	if [[ $phase == 'done' ]]; then
		assert_contains "$(calls)" "scan gv0"
		assert_contains "$(calls)" "fix --until 05:30 --state-dir $LAYOUTCTL_STATE_DIR --bandwidth 50 gv0"
	else
		assert_not_contains "$(calls)" "scan"
		assert_contains "$(calls)" "fix --resume --until 05:30 --state-dir $LAYOUTCTL_STATE_DIR --bandwidth 50 gv0"
	fi
done
# the end of the window with nothing failed is success (layoutctl's exit status 4, or 1 with a
# progress file saying so, as layoutctl said before 4); directories not fixed are not
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=4 expect_exit 0 "$wrapper" fix gv0
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=1 \
	FAKE_PROGRESS='{"state":"stopped","directories":{"done":5,"not-fixed":0}}' \
	expect_exit 0 "$wrapper" fix gv0
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=1 \
	FAKE_PROGRESS='{"state":"finished","directories":{"done":5,"not-fixed":2}}' \
	expect_exit 1 "$wrapper" fix gv0
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=1 \
	FAKE_PROGRESS='{"state":"stopped","directories":{"done":5,"not-fixed":2}}' \
	expect_exit 1 "$wrapper" fix gv0
reset
FAKE_SCAN_RC=1 FAKE_FIX_RC=3 expect_exit 3 "$wrapper" fix gv0
reset
FAKE_SCAN_RC=3 expect_exit 3 "$wrapper" fix gv0
assert_not_contains "$(calls)" " fix "
LAYOUTCTL_FIX_UNTIL=6am expect_exit 2 "$wrapper" fix gv0

# locks: a second run is skipped with 75, also while a fix started by hand holds its lock
reset
FAKE_SLEEP=3 FAKE_SCAN_RC=0 "$wrapper" scan gv0 &
first=$!
for _ in $(seq 50); do [[ -s $tmp/calls ]] && break; sleep 0.1; done
FAKE_SCAN_RC=0 expect_exit 75 "$wrapper" scan gv0
FAKE_SCAN_RC=1 expect_exit 0 "$wrapper" fix gv0 # a fix does not wait for a scan
wait "$first" || fail "the first scan failed"
reset
mkdir -p -m 0700 "$LAYOUTCTL_STATE_DIR"
flock "$LAYOUTCTL_STATE_DIR/lock" sleep 3 &
holder=$!
for _ in $(seq 50); do ! flock -n "$LAYOUTCTL_STATE_DIR/lock" true 2>/dev/null && break; sleep 0.1; done
FAKE_SCAN_RC=1 expect_exit 75 "$wrapper" fix gv0
wait "$holder"

# the locks live where only root (we) can write: a local user cannot hold them. The default is
# /run/layoutctl; a lock directory others can write (as /run/lock, where any user could hold
# layoutctl-VOLUME.lock and make every night "skipped", 75, which the units count as success),
# or that is a link or someone else's, is refused: 3, which the units report as a failure
grep -q '^lock_dir=${LAYOUTCTL_LOCK_DIR:-/run/layoutctl}$' "$wrapper" ||
	fail "the wrapper's default lock directory is not /run/layoutctl"
assert_contains "$(cat "$contrib/layoutctl.cron")" "/run/layoutctl/layoutctl-scan-gv0.lock"
assert_not_contains "$(cat "$contrib/layoutctl.cron")" "/run/lock"
held() { # held DIR: a lock of gv0 in DIR, held by another user (as root) for 3 s
	if ((EUID == 0)); then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- flock "$1/layoutctl-gv0.lock" sleep 3 &
	else
		flock "$1/layoutctl-gv0.lock" sleep 3 &
	fi
	holder=$!
	for _ in $(seq 50); do [[ -e $1/layoutctl-gv0.lock ]] && break; sleep 0.1; done
	sleep 0.3
}
reset
mkdir -m 1777 "$tmp/publock"
held "$tmp/publock"
LAYOUTCTL_LOCK_DIR=$tmp/publock FAKE_SCAN_RC=1 expect_exit 3 "$wrapper" fix gv0
assert_not_contains "$(calls)" " fix "
wait "$holder" || true
ln -s "$LAYOUTCTL_LOCK_DIR" "$tmp/locklink"
LAYOUTCTL_LOCK_DIR=$tmp/locklink FAKE_SCAN_RC=0 expect_exit 3 "$wrapper" scan gv0
if ((EUID == 0)); then
	mkdir -m 0700 "$tmp/theirlock"
	chown 65534:65534 "$tmp/theirlock"
	LAYOUTCTL_LOCK_DIR=$tmp/theirlock FAKE_SCAN_RC=0 expect_exit 3 "$wrapper" scan gv0
fi
# a missing lock directory is created 0700
LAYOUTCTL_LOCK_DIR=$tmp/newlock FAKE_SCAN_RC=0 expect_exit 0 "$wrapper" scan gv0
assert_eq 700 "$(stat -c %a "$tmp/newlock")" "mode of a new lock directory"
# a FIFO or a link as a lock, a journal, a progress.json: refused at once, never opened
reset
rm -f "$LAYOUTCTL_LOCK_DIR/layoutctl-gv0.lock"
mkfifo "$LAYOUTCTL_LOCK_DIR/layoutctl-gv0.lock"
FAKE_SCAN_RC=1 expect_exit 3 timeout 10 "$wrapper" fix gv0
rm "$LAYOUTCTL_LOCK_DIR/layoutctl-gv0.lock"
for f in lock journal progress.json; do
	reset
	mkdir -p -m 0700 "$LAYOUTCTL_STATE_DIR"
	mkfifo "$LAYOUTCTL_STATE_DIR/$f"
	FAKE_SCAN_RC=1 expect_exit 3 timeout 10 "$wrapper" fix gv0
	assert_not_contains "$(calls)" " fix "
	rm "$LAYOUTCTL_STATE_DIR/$f"
	ln -s /dev/zero "$LAYOUTCTL_STATE_DIR/$f"
	FAKE_SCAN_RC=1 expect_exit 3 timeout 10 "$wrapper" fix gv0
done
# a state directory others can write, or a link: refused
reset
mkdir -p -m 0700 "$LAYOUTCTL_STATE_DIR"
chmod 0777 "$LAYOUTCTL_STATE_DIR"
FAKE_SCAN_RC=1 expect_exit 3 "$wrapper" fix gv0
assert_not_contains "$(calls)" " fix "
reset
mkdir -p "$tmp/realstate"
ln -s "$tmp/realstate" "$LAYOUTCTL_STATE_DIR"
FAKE_SCAN_RC=1 expect_exit 3 "$wrapper" fix gv0
rm -f "$LAYOUTCTL_STATE_DIR"

# SIGTERM reaches layoutctl, and its status (130 after a clean stop) is the wrapper's
cat >"$tmp/slow-layoutctl" <<'EOF'
#!/bin/bash
trap 'kill "$s"; echo stopping >>"$FAKE_DIR/calls"; echo "layoutctl_scan_success{volume=\"gv0\"} 0"; exit 130' TERM
echo started >>"$FAKE_DIR/calls"
sleep 30 9>&- &
s=$!
wait
EOF
chmod +x "$tmp/slow-layoutctl"
reset
LAYOUTCTL=$tmp/slow-layoutctl "$wrapper" scan gv0 &
w=$!
for _ in $(seq 50); do [[ -s $tmp/calls ]] && break; sleep 0.1; done
kill -TERM "$w"
rc=0
wait "$w" || rc=$?
assert_eq 130 "$rc" "wrapper exit status after SIGTERM"
assert_contains "$(calls)" "stopping"
assert_contains "$(cat "$prom")" 'layoutctl_scan_success{volume="gv0"} 0'
# interrupted before it wrote anything: still 130, and the metrics say the scan failed
# shellcheck disable=SC2016 # for the fake
printf '#!/bin/bash\ntrap "exit 130" TERM\nkill -TERM $PPID\nsleep 5 9>&- &\nwait\nexit 130\n' \
	>"$tmp/slow-layoutctl"
reset
LAYOUTCTL=$tmp/slow-layoutctl expect_exit 130 "$wrapper" scan gv0
assert_contains "$(cat "$prom")" 'layoutctl_scan_success{volume="gv0"} 0'
exit 0
