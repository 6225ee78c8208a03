#!/bin/bash
# fix --dashboard in tmux against a real fix: labels and counters appear and change, p stops
# progress and r restarts it, a resize redraws cleanly, q ends the run resumably, the terminal
# is sane afterwards, fix --resume finishes it; status --format json parses during and after.
# The rate keys (issue 26): < halves the rate limit and > doubles it (status says the new pace,
# the pace line shows it), 0 lifts it.
# From the first second (issue 16): the screen shows the preflight or layout phase within 2 s of
# the start of the layoutctl process (its start time from /proc, so that a slow tmux or a busy
# machine does not count), status --json names the layout phase while the layout pass runs (110
# more empty directories make it last several seconds), and the settle countdown is shown and
# goes down. Then q in every phase (issue 26): layout, settle, work (linking), data, each within 3 s.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd tmux jq

lctl_glusterd_ensure
lctl_vol_create dist 4 VOL
mnt=$(lctl_mount "$VOL")
for d in $(seq 1 16); do
	mkdir "$mnt/d$d"
	for f in $(seq 1 40); do echo "$d/$f" >"$mnt/d$d/f$f"; done
done
# for a layout pass of several seconds: every directory gets its layout on the new bricks
mkdir -p "$mnt"/t{1..10}/s{1..10}
lctl_vol_add_bricks "$VOL" 2
ls -R "$mnt" >/dev/null

work=$(mktemp -d)
state=$work/state
sess=lctl$$
# a tmux server of the test's own; a new session is made before the old one is killed: the
# last session's end makes the server exit, and a new-session meanwhile fails ("server exited
# unexpectedly", seen in CI)
tm() { tmux -L "lctl$$" "$@"; }
lctl_on_exit tmux -L "lctl$$" kill-server
lctl_on_exit rm -rf "$work"
screen() { tm capture-pane -t "$sess" -p; }
status_phase() { "$LAYOUTCTL" --format json status --state-dir "$state" "$VOL" 2>/dev/null | jq -r .status.phase; }
settle_left() { screen | sed -n 's/^Settle *\([0-9][0-9]*\) s left of .*/\1/p' | head -1; }

t0=$(date +%s%N)
tm new-session -d -s "$sess" -x 150 -y 45 \
	"'$LAYOUTCTL' fix --dashboard --rate 10 --settle 8 --no-task-check --state-dir '$state' '$VOL'; echo EXIT=\$? >'$work/exit'; stty -a >'$work/stty'; sleep 60"
# seconds since the layoutctl process started (/proc/PID/stat field 22, clock ticks after boot)
age() { awk -v hz="$(getconf CLK_TCK)" 'NR == 1 { up = $1; next } { printf "%.2f", up - $22 / hz }' /proc/uptime "/proc/$1/stat"; }
lpid=
until [[ -n $lpid ]]; do
	lpid=$(pgrep -n -f -- "--settle 8 --no-task-check --state-dir $state") || lpid=
	(($(date +%s%N) - t0 <= 30000000000)) || fail "layoutctl did not start in tmux within 30 s"
	[[ -n $lpid ]] || sleep 0.05
done
# the dashboard from the first second: preflight (the volume opening, the locks) or the layout pass
until screen | grep >/dev/null -cE 'phase (preflight|layout)'; do
	a=$(age "$lpid") || fail "layoutctl ended before its dashboard showed a phase"
	awk -v a="$a" 'BEGIN { exit !(a <= 2) }' ||
		{ screen >&2; fail "no preflight or layout phase on the screen $a s after layoutctl started"; }
	sleep 0.05
done
echo "first phase on the screen $(age "$lpid") s after layoutctl started" >&2
# status from another process names the layout pass while it runs, with its directories
for ((i = 0; i < 300; i++)); do
	ph=$(status_phase || true)
	[[ $ph == layout ]] && break
	[[ $ph == @(settle|work|data|top|done) ]] && { screen >&2; fail "status --json never said phase layout (now $ph)"; }
	sleep 0.1
done
[[ $ph == layout ]] || fail "status --json never said phase layout"
screen | grep >/dev/null -cE '^Layout pass +[0-9]+ of [0-9]+ directories' || { screen >&2; fail "the layout pass and its directories are not on the screen"; }
# the settle countdown: shown, and going down
deadline=$((SECONDS + 60))
until s1=$(settle_left || true); [[ -n $s1 ]]; do
	((SECONDS < deadline)) || { screen >&2 || true; fail "no settle countdown on the screen"; }
	sleep 0.1
done
json=$("$LAYOUTCTL" --format json status --state-dir "$state" "$VOL")
[ "$(jq -r .status.phase <<<"$json")" = settle ] || fail "status phase during the settle period: $(jq -r .status.phase <<<"$json")"
jq -e '.status.settle.seconds == 8 and .status.settle.remaining_seconds < 8' <<<"$json" >/dev/null ||
	fail "status --json has no settle countdown: $(jq -c .status.settle <<<"$json")"
sleep 2.5
s2=$(settle_left || true)
[[ -n $s2 && $s2 -lt $s1 ]] || { screen >&2; fail "the settle countdown did not go down ($s1 -> ${s2:-gone})"; }

field() { screen | sed -n "s/.*$1 *\([0-9][0-9]*\).*/\1/p" | head -1; }
wait_for() { # wait_for TEXT SECONDS
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		screen | grep >/dev/null -cF -- "$1" && return 0
		sleep 0.2
	done
	screen >&2
	fail "'$1' never appeared on the dashboard"
}

wait_for "Directories" 20
wait_for "migrated" 5
for label in "layoutctl fix $VOL" "state running" "Bytes moved" "Rates" "Subvolume" "Workers" "q stop"; do
	screen | grep >/dev/null -cF -- "$label" || fail "label '$label' missing"
done
# clean-first (the default): the dashboard says when every directory was clean; files move after
wait_for "Clean first" 20
wait_for "every directory clean after" 90
sleep 3
m1=$(field migrated)
sleep 3
m2=$(field migrated)
[ "$m2" -gt "$m1" ] || fail "migrated did not grow ($m1 -> $m2)"

# status from another process, while it runs
json=$("$LAYOUTCTL" --format json status --state-dir "$state" "$VOL")
[ "$(jq -r .status.state <<<"$json")" = running ] || fail "status state: $(jq -r .status.state <<<"$json")"
[ "$(jq .status.files.migrated <<<"$json")" -gt 0 ] || fail "status has no migrated count"

# p pauses: the counter stops
tm send-keys -t "$sess" p
wait_for "PAUSED" 5
sleep 2
p1=$(field migrated)
sleep 3
p2=$(field migrated)
[ "$p1" = "$p2" ] || fail "progress while paused ($p1 -> $p2)"
screen | grep >/dev/null -c "state paused" || fail "state not paused"
# r resumes
tm send-keys -t "$sess" r
sleep 3
r1=$(field migrated)
[ "$r1" -gt "$p2" ] || fail "no progress after resume ($p2 -> $r1)"
# < and >: the rate limit (--rate 10) halved, then doubled back, as `layoutctl set` changes it
screen | grep >/dev/null -cF "< > 0 rate" || fail "the rate keys are not on the key line"
pace_rate() { { "$LAYOUTCTL" --format json status --state-dir "$state" "$VOL" 2>/dev/null || true; } | jq -r .status.pace.files_per_sec; }
wait_rate() { # wait_rate VALUE KEY: status says the rate VALUE within 5 s of KEY
	local i r
	for ((i = 0; i < 25; i++)); do
		r=$(pace_rate)
		awk -v r="$r" -v w="$1" 'BEGIN { exit !(r == w) }' && return 0
		sleep 0.2
	done
	screen >&2
	fail "status says rate $r after $2 (want $1)"
}
tm send-keys -t "$sess" '<'
wait_rate 5 '<'
wait_for "rate 5 files/s" 5
tm send-keys -t "$sess" '>'
wait_rate 10 '>'
wait_for "rate 10 files/s" 5
# 0: no limit (paused meanwhile, so that the run does not end at once); `layoutctl set` then
# gives the limit back through the same control word
tm send-keys -t "$sess" p
wait_for "PAUSED" 5
tm send-keys -t "$sess" 0
wait_rate 0 0
wait_for "rate no limit" 5
run_check "$LAYOUTCTL" set --state-dir "$state" "$VOL" rate=10
wait_rate 10 "set rate=10"
tm send-keys -t "$sess" r
# resize: redrawn, no garbage (every line fits, the header is on the first line)
tm resize-window -t "$sess" -x 100 -y 30 2>/dev/null || tm resize-pane -t "$sess" -x 100 -y 30
sleep 2
[ "$(screen | head -1 | cut -c1-13)" = "layoutctl fix" ] || { screen >&2; fail "header not redrawn after resize"; }
[ "$(screen | awk 'length > 100' | wc -l)" = 0 ] || fail "lines wider than the window after resize"
screen | grep >/dev/null -cF "q stop" || fail "key line lost after resize"

# q: graceful, resumable stop
tm send-keys -t "$sess" q
for ((i = 0; i < 50; i++)); do [ -s "$work/exit" ] && break; sleep 0.2; done
[ -s "$work/exit" ] || fail "fix did not end after q"
grep -q '^EXIT=1$' "$work/exit" || fail "exit after q: $(cat "$work/exit") (want 1: stopped, resumable)"
# terminal sane: canonical mode and echo back on
grep -q -- ' icanon' "$work/stty" || fail "terminal left without icanon"
grep -q -- ' echo ' "$work/stty" || fail "terminal left without echo"
json=$("$LAYOUTCTL" --format json status --state-dir "$state" "$VOL" || true)
[ "$(jq -r .status.state <<<"$json")" = stopped ] || fail "status after q: $(jq -r .status.state <<<"$json")"
expect_exit 1 "$LAYOUTCTL" status --state-dir "$state" "$VOL"
# stopped in the data phase of a clean-first run: every directory is clean, --resume moves the rest
grep -q '^phase data$' "$state/journal" || fail "journal not in phase data: $(grep phase "$state/journal")"

# resume finishes it
run_check "$LAYOUTCTL" fix --resume --settle 1 --no-task-check --state-dir "$state" "$VOL"
run_check "$LAYOUTCTL" scan "$VOL"
expect_exit 0 "$LAYOUTCTL" status --state-dir "$state" "$VOL"
[ "$(find "$mnt" -type f | wc -l)" = 640 ] || fail "files lost"
[ "$(find "$mnt" -type d | wc -l)" = 127 ] || fail "directories lost"

# A prompt q in every phase (issue 26): grown again (6 -> 8 bricks, every directory out of date
# again), a run started and stopped by q in its layout pass, then resumed and stopped in its
# settle period, then in its linking phase (work), then in its data phase: each time layoutctl
# has ended within 3 s of the key, status says stopped (resumable), and the last resume ends clean.
lctl_vol_add_bricks "$VOL" 2
ls -R "$mnt" >/dev/null
q_in() { # q_in PHASE FIX-ARGS...: a dashboard run, q once status says PHASE, timed
	local phase=$1 ph pid t1 t2 i st
	shift
	rm -f "$work/exit"
	local old=$sess
	sess=lctl$$-$phase
	tm new-session -d -s "$sess" -x 150 -y 45 \
		"'$LAYOUTCTL' fix --dashboard --no-task-check --state-dir '$state' $* '$VOL'; echo EXIT=\$? >'$work/exit'; sleep 60"
	tm kill-session -t "$old" 2>/dev/null || true
	pid=
	for ((i = 0; i < 1200; i++)); do
		[[ -n $pid ]] || pid=$(pgrep -n -f -- "fix --dashboard --no-task-check --state-dir $state") || pid=
		ph=$(status_phase || true)
		[[ -n $pid && $ph == "$phase" ]] && break
		[[ ! -s $work/exit ]] || { cat "$work/exit" >&2; fail "the run ended before its $phase phase"; }
		sleep 0.1
	done
	[[ $ph == "$phase" ]] || { screen >&2; fail "status never said phase $phase (last: $ph)"; }
	t1=$(date +%s%N)
	tm send-keys -t "$sess" q
	while kill -0 "$pid" 2>/dev/null; do
		(($(date +%s%N) - t1 < 30000000000)) || fail "layoutctl still runs 30 s after q in its $phase phase"
		sleep 0.02
	done
	t2=$(date +%s%N)
	echo "q in the $phase phase: layoutctl ended after $(((t2 - t1) / 1000000)) ms" >&2
	(((t2 - t1) <= 3000000000)) || fail "q in the $phase phase: $(((t2 - t1) / 1000000)) ms to end (at most 3 s)"
	for ((i = 0; i < 50; i++)); do [ -s "$work/exit" ] && break; sleep 0.1; done
	grep -q '^EXIT=1$' "$work/exit" || fail "exit after q in the $phase phase: $(cat "$work/exit")"
	st=$({ "$LAYOUTCTL" --format json status --state-dir "$state" "$VOL" || true; } | jq -r .status.state)
	[[ $st == stopped ]] || fail "status after q in the $phase phase: $st (want stopped)"
}
q_in layout --rate 10 --settle 8
q_in settle --resume --rate 10 --settle 8
q_in work --resume --rate 10 --settle 1
q_in data --resume --rate 40 --settle 1
run_check "$LAYOUTCTL" fix --resume --settle 1 --no-task-check --state-dir "$state" "$VOL"
run_check "$LAYOUTCTL" scan "$VOL"
[ "$(find "$mnt" -type f | wc -l)" = 640 ] || fail "files lost after the stops"
[ "$(find "$mnt" -type d | wc -l)" = 127 ] || fail "directories lost after the stops"
exit 0
