#!/bin/bash
# What the starting host says to the workers of a fix spread over the pool after "go", and
# workers that fall silent or answer garbage (issue 24, items 1, 2, 8 and 10). Distribute 3 -> 5
# bricks over 3 servers, the workers throttled (--rate) so that the place phase lasts:
#  0. a remote shell named ssh is given BatchMode=yes and "--" before the host, the remote
#     command one quoted word, and "--" before the volume (each other server's whole line:
#     its server, brick name, options and state directory); and of the fix's environment only
#     what a remote shell needs (HOME), with PATH the system's and LC_ALL=C (before, all of
#     it: a variable of the caller's reached it, and the caller's PATH); the run's hold limit
#     (default 1800 s) goes with the options, so that the workers hold too (issue 26);
#  1. pause, then resume, through the control file once the workers place: while paused, no
#     server's count of migrated files grows for 4 s; after resume it grows again (before, a
#     worker read the commands after go two lines late: pause never reached it);
#  1b. `layoutctl set VOL rate=0.25` while the workers place: every worker slows to a file
#     every 4 s (at most 1.5 files a second between the three), status says the pace; then
#     `set VOL rate=2`: at least 3 files a second and 3 times the slow pace (issue 26);
#  2. stop through the control file: every worker gone within 2 s, the fix ended within 5 s,
#     exit 1 (stopped, resumable), nothing migrated after the stop (before, stop reached a
#     worker only when its link closed: 13 s more, measured on a 3-server pool);
#  3. --resume, and server 3's worker stopped with SIGSTOP once it places (the others then
#     unpaced: `set VOL rate=0`): lost within the hang timeout (6 s here) and a little, its
#     process group killed, the run ends (exit 1) with directories not fixed (before, the
#     place phase had no liveness timeout: the starting host waited for ever with the lock
#     held);
#  4. --resume with a remote shell that answers for server 3 with a valid hello, then, after
#     go, 1,023 bytes of garbage and a "done" line: lost with a protocol error, never done
#     (before, the tail of an overlong line was read as a line of its own);
#  4b. --resume with --max-runtime 25 and --rate 0.5, whose end comes while the workers place:
#     the run ends within 5 s of it (on 6cebc4d: 13 s more);
#  4c. --resume with --hold-limit 6 and --rate 0.5, a new brick killed while server 3's worker
#     places what it has left (issue 26): it holds and says so, status shows that server held
#     and why; at the limit it stops, the run ends with exit 1, resumable (journal stopped or
#     data), the server "stopped while held" (each worker holds the same way: checked by the
#     ones that still place); the brick restarted (`volume start force`);
#  5. --resume: exit 0, scan clean, the tree unchanged, every file found by a fresh client.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/pool.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/pool-fix-lib.sh"
require_cmd jq
pf_init 3

lctl_pool_vol_create VOL dist 1 2 3
lctl_pool_mount "$VOL" MP
fx_populate "$MP" 20 600 31
fx_tree manifest "$MP" >"$FX/before" || fail "duplicate names before the fix"
fx_tree list "$MP" >"$FX/list"
lctl_pool_add_bricks "$VOL" 1 2
S=$FX/state
P=$S/progress.json

# the count of files the servers' workers migrated so far, from the progress file
migrated() { jq '[.servers[]?.migrated] | add // 0' "$P" 2>/dev/null || echo 0; }
control() { printf '%s\n' "$1" >"$S/control"; }
# the pace of the run in $S from now on (`layoutctl set VOL rate=$1`), every server's worker
set_rate() { "$LAYOUTCTL" set --state-dir "$S" "$VOL" "rate=$1" || fail "layoutctl set rate=$1 failed"; }
# wait for the place phase with some files moved; $1: the fix's pid, $2: how many (default 5)
wait_placing() {
	local i
	for ((i = 0; i < 600; i++)); do
		jq -e --argjson n "${2:-5}" '.phase == "place" and ([.servers[]?.migrated] | add // 0) >= $n' \
			"$P" >/dev/null 2>&1 && return 0
		kill -0 "$1" 2>/dev/null || fail "the fix ended before its workers placed files"
		sleep 0.1
	done
	fail "the workers did not start moving files"
}
# each server's share of the run that wrote the progress file: state, migrated of planned
shares() {
	echo "shares after $1: $(jq -c '[.servers[]? | {name, state, migrated, plan_files}]' "$P")" >&2
}
workers_left() { { pf_worker_pids 1; pf_worker_pids 2; pf_worker_pids 3; } | wc -l; }
ms() { date +%s%3N; }

# --- 0: how the other servers' workers are started (issue 24, item 10) ------------------------
# a remote shell named ssh that records its arguments and fails: ssh is told never to ask on
# the terminal (BatchMode), "--" ends its options before the host, the remote command is one
# quoted word, and "--" ends the worker's options before the volume
mkdir -p "$FX/bin"
cat >"$FX/bin/ssh" <<'EOF'
#!/bin/bash
# one file per call: the servers' workers are started side by side, and lines appended by
# two calls at once interleave
printf '%s\n' "$@" >"${0%/*}/ssh.args.$$"
env >"${0%/*}/ssh.env.$$"
exit 255
EOF
chmod +x "$FX/bin/ssh"
HOME=/root/lctl-test-home LCTL_TEST_SECRET=hunter2 PATH=$FX/bin:$PATH \
	fx_fix "$VOL" --no-task-check --rsh "$FX/bin/ssh -q" --remote-cmd "$LAYOUTCTL"
assert_eq 3 "$LCTL_RC" "fix whose remote shell fails"
argsfile=$(find "$FX/bin" -name "ssh.args.*" | head -1)
[[ -n $argsfile ]] || fail "the remote shell was not called"
mapfile -t words <"$argsfile"
assert_eq "-q -o BatchMode=yes -- ${words[4]} '$LAYOUTCTL'" "${words[*]:0:6}" "the remote shell's first words"
assert_eq "'--' '$VOL'" "${words[*]: -2}" "the worker's last words"
# every other server's whole line (lib/workerline.c): its own volfile server and brick name,
# the run's options, its own state directory; this host's worker goes without a remote shell
hosts=()
for f in "$FX"/bin/ssh.args.*; do
	mapfile -t words <"$f"
	h=${words[4]}
	hosts+=("$h")
	assert_eq "-q -o BatchMode=yes -- $h '$LAYOUTCTL' '--server' '$h' '--node' '$h' 'worker' \
'--parallel' '4' '--hang-timeout' '120' '--hold-limit' '1800' '--state-dir' '$S/server-$h' \
'--' '$VOL'" "${words[*]}" \
		"the remote shell's words for server $h"
done
assert_eq "${LCTL_POOL_HOSTS[1]} ${LCTL_POOL_HOSTS[2]}" "$(printf '%s\n' "${hosts[@]}" | sort | paste -sd' ')" \
	"the servers started through the remote shell"
# its environment: lib/run.c's, whatever the fix's
env_file=${argsfile/ssh.args./ssh.env.}
[[ -s $env_file ]] || fail "the remote shell's environment was not recorded"
! grep -q LCTL_TEST_SECRET "$env_file" || fail "a variable of the fix's caller reached the remote shell"
assert_eq "PATH=/usr/sbin:/usr/bin:/sbin:/bin" "$(grep '^PATH=' "$env_file")" "the remote shell's PATH"
assert_eq "LC_ALL=C" "$(grep '^LC_ALL=' "$env_file")" "the remote shell's LC_ALL"
assert_eq "HOME=/root/lctl-test-home" "$(grep '^HOME=' "$env_file")" "the remote shell's HOME"
[[ ! -e $S/journal ]] || fail "a refused fix wrote a journal"

# --- 1 and 2: pause, resume, stop after go ---------------------------------------------------
# (15 files a second: the clean phase's links are paced too)
(
	pf_fix "$VOL" --rate 15
	exit "$LCTL_RC"
) &
fix_pid=$!
# then, from the place phase on, 2 files a second per worker: server 3 has about 120 files of
# its own to place, and sections 3, 4b and 4c need many of them left (at 15 all along, sections
# 1 and 2 placed 95 of them, and section 4b's window then found no work for the workers; at 4,
# 56 to 73)
wait_placing "$fix_pid" 0
set_rate 2
wait_placing "$fix_pid"
control pause
# the control file is read once a second, the workers read theirs within a fraction of one;
# the migrations in flight then end, and their counts reach the progress file a second or two
# later: the counts must come to rest (two samples 1.5 s apart equal) within 15 s, and stay so
m0=
for ((i = 0; i < 10; i++)); do
	a=$(migrated)
	sleep 1.5
	b=$(migrated)
	if ((a == b)); then
		m0=$b
		break
	fi
done
[[ -n $m0 ]] || fail "the workers' counts still grew 15 s after the pause (last: $a, then $b)"
sleep 4
m1=$(migrated)
jq -e '.state == "paused"' "$P" >/dev/null || fail "the run does not say paused: $(jq -c .state "$P")"
assert_eq "$m0" "$m1" "files migrated by the workers during 4 s of pause"
control resume
for ((i = 0; i < 100; i++)); do
	(($(migrated) > m1)) && break
	sleep 0.1
done
(($(migrated) > m1)) || fail "the workers did not go on after resume"
# 1b: the pace changed while the workers place (issue 26): `layoutctl set VOL rate=0.25` slows
# every server's worker to a file every 4 s, `set VOL rate=2` speeds them up again at once
# (not faster: the sections below need server 3's files still to place)
set_rate 0.25
jq -e '.pace.files_per_sec == 0.25' "$P" >/dev/null || sleep 1.2
jq -e '.pace.files_per_sec == 0.25' "$P" >/dev/null || fail "status does not say the new pace: $(jq -c .pace "$P")"
sleep 2 # the migrations in flight end, their counts reach the progress file
a=$(migrated) ta=$(ms)
sleep 6
b=$(migrated) tb=$(ms)
set_rate 2
# the starting host takes the pace at its next once-a-second tick and sends it on; the counts
# reach the progress file a second or two after the files moved: measure from 3 s after status
# says the new pace, over 3 s (on CI's loaded 2-core machine, a window from 1 s after the set to
# 3 s after it still counted mostly files moved at the slow pace: 2.4 files a second)
for ((i = 0; i < 30; i++)); do
	jq -e '.pace.files_per_sec == 2' "$P" >/dev/null 2>&1 && break
	sleep 0.1
done
jq -e '.pace.files_per_sec == 2' "$P" >/dev/null || fail "status does not say the new pace: $(jq -c .pace "$P")"
sleep 3
c=$(migrated) tc=$(ms)
sleep 3
d=$(migrated) td=$(ms)
# (slow again at once: server 3's files are wanted by the sections below)
set_rate 0.25
slow=$(((b - a) * 100000 / (tb - ta))) fast=$(((d - c) * 100000 / (td - tc)))
echo "pace: $((b - a)) files in $((tb - ta)) ms at rate=0.25, $((d - c)) in $((td - tc)) ms at rate=2 (x100 files/s: $slow, $fast)" >&2
((slow <= 150)) || fail "after set rate=0.25 the 3 workers moved $((b - a)) files in $((tb - ta)) ms"
((fast >= 300 && fast >= 3 * slow)) || fail "set rate=2 did not speed the workers up again: $slow then $fast (x100 files/s)"
control stop
t0=$(ms)
gone=
for ((i = 0; i < 100; i++)); do
	if [[ -z $gone ]] && (($(workers_left) == 0)); then
		gone=$(($(ms) - t0))
	fi
	kill -0 "$fix_pid" 2>/dev/null || break
	sleep 0.05
done
rc=0
wait "$fix_pid" || rc=$?
ended=$(($(ms) - t0))
[[ -n $gone ]] || (($(workers_left) == 0)) || fail "workers still run after the fix ended: $(pf_worker_pids 1; pf_worker_pids 2; pf_worker_pids 3)"
gone=${gone:-$ended}
echo "stop: every worker gone after $gone ms, the fix ended after $ended ms" >&2
# the control file is taken at the next once-a-second tick: 2 s for the workers after that
((gone <= 3000)) || fail "the workers ended $gone ms after the stop was sent (allowed: 1 s to read it, 2 s to end)"
((ended <= 5000)) || fail "the fix ended $ended ms after the stop was sent (allowed 5 s)"
assert_eq 1 "$rc" "exit status of the stopped fix"
grep -qE '^phase (stopped|data)$' "$S/journal" || fail "the journal does not say the run can resume: $(grep phase "$S/journal")"
cat "$S"/server-*/outcomes.jsonl 2>/dev/null | wc -l >"$FX/outcomes.n"
sleep 2
n=$(cat "$S"/server-*/outcomes.jsonl 2>/dev/null | wc -l)
assert_eq "$(<"$FX/outcomes.n")" "$n" "outcome lines written after the fix stopped"
shares "section 2"

# --- 3: a worker stopped with SIGSTOP is lost within the hang timeout --------------------------
(
	FX_HANG_TIMEOUT=6 pf_fix "$VOL" --resume --rate 4
	exit "$LCTL_RC"
) &
fix_pid=$!
wait_placing "$fix_pid"
# server 3's worker, or (its share of the resumed run done already, as CI once saw) another
# one still placing: the silent worker must be one that has work left
vn=
for n in 3 2 1; do
	mapfile -t w3 < <(pf_worker_pids "$n")
	if ((${#w3[@]})) && jq -e --arg h "${LCTL_POOL_HOSTS[n - 1]}" \
		'.servers[] | select(.name == $h) | .state == "placing"' "$P" >/dev/null 2>&1; then
		vn=$n
		break
	fi
done
[[ -n $vn ]] || fail "no worker is placing: $(jq -c '[.servers[] | {name, state, error}]' "$P")"
if ((vn != 3)); then
	# only a worker that finished its share may be gone: any other end is a failure
	jq -e --arg h "${LCTL_POOL_HOSTS[2]}" '.servers[] | select(.name == $h) | .state == "done"' \
		"$P" >/dev/null || fail "server 3's worker is not placing: $(jq -c '[.servers[] | {name, state, error}]' "$P")"
	echo "server 3's worker has placed its share already: server $vn's is stopped" >&2
fi
vhost=${LCTL_POOL_HOSTS[vn - 1]}
kill -STOP "${w3[@]}"
t0=$(ms)
# (the others' workers then place the rest of their shares without a limit: the run ends when
# they are done, the silent one lost; at 4 files a second that took 30 s)
set_rate 0
rc=0
for ((i = 0; i < 600; i++)); do
	kill -0 "$fix_pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$fix_pid" 2>/dev/null && { kill -CONT "${w3[@]}" 2>/dev/null; fail "the fix still waits 60 s after a worker stopped answering"; }
wait "$fix_pid" || rc=$?
echo "SIGSTOP: the fix ended $(($(ms) - t0)) ms after server $vn's worker stopped" >&2
assert_eq 1 "$rc" "exit status of the fix that lost a silent worker"
shares "section 3"
grep -qE "^${vhost//./\\.} +lost" "$FX/fix.out" || fail "server $vn is not reported lost"
assert_contains "$(<"$FX/fix.out")" "sent nothing for 6 s"
for p in "${w3[@]}"; do
	if kill -0 "$p" 2>/dev/null && [[ $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) != Z ]]; then
		kill -KILL "$p"
		fail "the silent worker's process $p was left running"
	fi
done

# --- 4: a worker's link carrying garbage ---------------------------------------------------------
# (the protocol's version from the public header that defines it)
PROTO=$(grep -h -m1 -oE 'define LCTL_POOL_PROTO [0-9]+' "$LCTL_SRCDIR"/lib/lctl/*.h | awk '{ print $3 }')
[[ $PROTO =~ ^[0-9]+$ ]] || fail "no LCTL_POOL_PROTO in lib/lctl/*.h"
cat >"$FX/garbage-rsh" <<EOF
#!/bin/bash
# server 3 answers with a valid hello, then garbage: 1,023 bytes and a done line
if [[ \$1 == ${LCTL_POOL_HOSTS[2]} ]]; then
	echo "hello $PROTO \$1"
	read -r go
	head -c 1023 /dev/zero | tr '\\0' A
	echo 'done 7 7 0 0 0 0 0 0 0'
	exec sleep 30
fi
exec "$PF_RSH" "\$@"
EOF
chmod +x "$FX/garbage-rsh"
fx_fix "$VOL" --no-task-check --rsh "$FX/garbage-rsh" --remote-cmd "$LAYOUTCTL" --resume
assert_eq 1 "$LCTL_RC" "exit status of the fix whose server 3 sent garbage"
grep -qE '^127\.1\.1\.3 +lost' "$FX/fix.out" || fail "server 3 is not reported lost"
assert_contains "$(<"$FX/fix.out")" "protocol error"
shares "section 4"
jq -e '.servers[] | select(.name == "127.1.1.3") | .state == "lost" and .migrated == 0' "$P" \
	>/dev/null || fail "progress.json: $(jq -c '.servers[] | select(.name == "127.1.1.3")' "$P")"

# --- 4b: the end of a --max-runtime window in the middle of the place phase --------------------
# (server 3's share is left, the others placed theirs: --rate 0.5 makes it last)
# (the finding as measured on 6cebc4d: such a run took 13 s more to end, its stop reaching the
# workers only when their links closed): the run ends within 5 s of the window's end, exit 1
t0=$(ms)
pf_fix "$VOL" --resume --rate 0.5 --max-runtime 25
ended=$(($(ms) - t0))
echo "--max-runtime 25: the fix ended after $ended ms" >&2
shares "section 4b"
assert_eq 4 "$LCTL_RC" "exit status of the fix stopped by --max-runtime (on schedule, nothing failed)"
grep -q '^Stopped at the end of the time window' "$FX/fix.out" || fail "the fix was not stopped by --max-runtime"
jq -e '[.servers[]?.migrated] | add > 0' "$P" >/dev/null || fail "the window ended before the workers placed a file"
((ended <= 30000)) || fail "the fix ended $ended ms after it started, the window being 25 s (allowed: 5 s more)"
(($(workers_left) == 0)) || fail "workers still run after the fix stopped by --max-runtime"

# --- 4c: a held pool (server 3 still has files to place, slowly) --------------------------------
brick_pid() { # the pid of the last brick in the volume's status
	lctl_pool_gluster 1 volume status "$VOL" --xml |
		xmllint --xpath 'string((//node[starts-with(path,"/")])[last()]/pid)' - 2>/dev/null
}
rc=0
"${FX_LAYOUTCTL[@]}" --log-file "$FX/gfapi-held.log" fix --state-dir "$S" --settle 1 --no-task-check \
	--rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL" --resume --rate 0.5 --hold-limit 6 "$VOL" \
	>"$FX/held.out" 2>&1 &
fix=$!
for ((i = 0; i < 600; i++)); do
	jq -e '.phase == "place" and ([.servers[]? | select(.state == "placing")] | length) >= 1' "$P" \
		>/dev/null 2>&1 && break
	kill -0 "$fix" 2>/dev/null || { cat "$FX/held.out" >&2; fail "the fix ended before its workers placed files"; }
	sleep 0.1
done
bp=$(brick_pid)
[[ $bp =~ ^[1-9][0-9]*$ ]] || fail "no pid for the last brick of $VOL"
kill -9 "$bp"
for ((i = 0; i < 100; i++)); do
	(($(jq '[.servers[]? | select(.state == "held")] | length' "$P" 2>/dev/null || echo 0) >= 1)) && break
	kill -0 "$fix" 2>/dev/null || break
	sleep 0.1
done
jq -c '.servers' "$P" >&2 || true
(($(jq '[.servers[]? | select(.state == "held")] | length' "$P") >= 1)) ||
	fail "status never showed the servers held: $(jq -c '.servers' "$P")"
jq -e '[.servers[]? | select(.state == "held") | .held.reason | test("does not answer")] | all' "$P" \
	>/dev/null || fail "a held server does not say why: $(jq -c '.servers' "$P")"
wait "$fix" || rc=$?
cat "$FX/held.out" >&2
assert_eq 1 "$rc" "exit status of the pool run held past --hold-limit"
grep -qE '^phase (stopped|data)$' "$S/journal" || fail "journal after the held pool run: $(grep phase "$S/journal")"
jq -e '[.servers[]? | select(.error // "" | startswith("stopped while held"))] | length >= 1' "$P" \
	>/dev/null || fail "the servers do not say they stopped while held: $(jq -c '.servers' "$P")"
(($(workers_left) == 0)) || fail "workers still run after the held pool run"
lctl_pool_gluster 1 volume start "$VOL" force >/dev/null || fail "volume start force"
for ((i = 0; i < 100; i++)); do
	[[ $(brick_pid) =~ ^[1-9][0-9]*$ ]] && break
	sleep 0.2
done

# --- 5: resumed to the end -----------------------------------------------------------------------
for ((i = 0; i < 30; i++)); do
	fx_tree manifest "$MP" >"$FX/mid" 2>/dev/null && cmp -s "$FX/before" "$FX/mid" && break
	sleep 1
done
assert_files_equal "$FX/before" "$FX/mid" "the tree after the stopped, lost and garbage runs"
pf_fix "$VOL" --resume
assert_eq 0 "$LCTL_RC" "exit status of the last fix --resume"
log_ok=$(fx_linked_ok)
fx_scan_after_fix "$VOL" --no-task-check --rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL"
fx_bricks_check "$VOL" --allow-linked "$log_ok"
fx_tree manifest "$MP" >"$FX/after" || fail "duplicate names after the fix"
assert_files_equal "$FX/before" "$FX/after" "the tree changed"
lctl_pool_exec "$FX/gfcheck" lookup "$VOL" "$FX/list" >"$FX/after.chk" 2>&1 ||
	fail "a fresh client misses files: $(head -3 "$FX/after.chk")"
exit 0
