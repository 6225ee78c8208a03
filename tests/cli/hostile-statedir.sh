#!/bin/bash
# A state directory prepared by an unprivileged user, used by root: `status` and `top` (no
# volume needed; tests/integration/hostile-state.sh does the same for `fix`). The user plants
# symbolic links to root's files (and to /dev/zero), FIFOs and hard links under every name a
# state file has, the temporaries included. Nothing outside the directory may be written or
# read, nothing may hang: every refusal is exit 3 with one error line.
#
# 1. a directory the user owns, or that sits below one, or is a link the user made: refused;
# 2. a directory root owns (0700) whose entries the user made before (an adopted one): a link,
#    a FIFO, a hard link as progress.json is refused; `top` (in tmux, when it is here) sends a
#    command past a link planted as .control.tmp without writing through it;
# 3. a log root is told to write (--log-file, fix --log) in a directory like /tmp: the user's
#    link to root's file, the user's FIFO (read or not), a name under the user's link to root's
#    directory, a hard link to root's file are refused before the volume is contacted; a new
#    file, /dev/null and /dev/stderr (a file, a pipe) are still written.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

(($(id -u) == 0)) || skip "needs root: root using a directory that another user prepared"
require_cmd setpriv timeout
T=$(mktemp -d /tmp/lctl-hsd.XXXXXX)
trap 'rm -rf -- "$T"' EXIT
chmod 0755 "$T"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }

# root's files that the links point to, and what they hold
mkdir -m 0755 "$T/root"
for f in victim1 victim2 victim3 victim4 victim5; do
	printf 'precious %s\n' "$f" >"$T/root/$f"
done
printf '{"state":"finished","volume":"gv0","secret":"do-not-read"}\n' >"$T/root/status.json"
(cd "$T/root" && sha256sum victim* status.json) >"$T/sums"
victims_intact() { (cd "$T/root" && sha256sum -c --quiet "$T/sums") || fail "a file outside the state directory changed: $1"; }

# A binary without ASan cannot read /dev/zero for ever: the old one did, so cap its memory.
if [[ $(ldd "$LAYOUTCTL" 2>/dev/null || true) == *libasan* ]]; then cap=unlimited; else cap=2000000; fi
# shellcheck disable=SC2317 # called through _lctl_run
capped() { timeout -k 5 20 bash -c 'ulimit -v "$0"; exec "$@"' "$cap" "$LAYOUTCTL" "$@" >"$T/out" 2>"$T/err"; }
# lctl RC ARGS...: layoutctl ARGS as root, within 20 s, exits RC with one error line
lctl() {
	local want=$1
	shift
	_lctl_run capped "$@"
	((LCTL_RC != 124 && LCTL_RC != 137)) || fail "layoutctl hung (killed after 20 s): ${*@Q}"
	((LCTL_RC == want)) || fail "exit $LCTL_RC, want $want: ${*@Q}: $(cat "$T/err")"
	if ((want >= 2)); then
		(($(grep -c . "$T/err") == 1)) || fail "not one error line: $(cat "$T/err")"
		grep -q '^layoutctl: error: ' "$T/err" || fail "not an error line: $(cat "$T/err")"
	fi
	! grep -q do-not-read "$T/out" "$T/err" || fail "printed what a link points to"
}

# plant DIR: as the user, every state file's name as a link, FIFO or link to /dev/zero
plant() {
	as_user bash -ec '
		cd "$1"
		ln -s /dev/zero progress.json
		ln -s "$2/victim1" .progress.json.tmp
		mkfifo control
		ln -s "$2/victim2" .control.tmp
		ln -s "$2/victim3" journal
		ln -s "$2/victim4" .journal.tmp
		ln -s "$2/victim5" lock
		mkfifo modes outcomes.jsonl' plant "$1" "$T/root"
}

# --- 1. the user's directory --------------------------------------------------------------------
mkdir -m 1777 "$T/pub" # as /tmp
as_user mkdir -m 0755 "$T/pub/st"
plant "$T/pub/st"
for cmd in status top; do
	lctl 3 "$cmd" --state-dir "$T/pub/st" gv0
	assert_contains "$(cat "$T/err")" "belongs to uid 65534"
done
# even one the user made group- or world-writable for root to use
as_user chmod 0777 "$T/pub/st"
lctl 3 status --state-dir "$T/pub/st" gv0
# below the user's directory (the user could swap what is under it)
as_user mkdir "$T/pub/nb"
mkdir -m 0700 "$T/pub/nb/state"
printf '{"state":"running"}\n' >"$T/pub/nb/state/progress.json"
lctl 3 status --state-dir "$T/pub/nb/state" gv0
assert_contains "$(cat "$T/err")" "above the state directory"
# a link the user made, to root's own state directory
mkdir -m 0700 "$T/rootstate"
cp "$T/root/status.json" "$T/rootstate/progress.json"
as_user ln -s "$T/rootstate" "$T/pub/st-link"
lctl 3 status --state-dir "$T/pub/st-link" gv0
lctl 3 status --state-dir "$T/pub/st-link/" gv0
as_user mkdir "$T/pub/via"
as_user ln -s "$T" "$T/pub/via/up"
lctl 3 status --state-dir "$T/pub/via/up/rootstate" gv0
victims_intact "refused directories"

# --- 2. a directory root adopted, with the user's entries in it ---------------------------------
mkdir -m 0700 "$T/adopted"
chown 65534:65534 "$T/adopted"
plant "$T/adopted"
chown 0:0 "$T/adopted"
chmod 0700 "$T/adopted"
lctl 3 status --state-dir "$T/adopted" gv0 # progress.json -> /dev/zero
assert_contains "$(cat "$T/err")" "symbolic link"
lctl 3 top --state-dir "$T/adopted" --iterations 1 gv0
rm "$T/adopted/progress.json"
mkfifo "$T/adopted/progress.json" # nobody writes it
lctl 3 status --state-dir "$T/adopted" gv0
assert_contains "$(cat "$T/err")" "not a regular file"
rm "$T/adopted/progress.json"
ln "$T/root/status.json" "$T/adopted/progress.json" # a hard link to a file outside
lctl 3 status --state-dir "$T/adopted" gv0
assert_contains "$(cat "$T/err")" "hard links"
rm "$T/adopted/progress.json"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$T/adopted/progress.json"
lctl 3 status --state-dir "$T/adopted" gv0
assert_contains "$(cat "$T/err")" "too big"
printf '{"state":"running","volume":"gv0","pid":1,"host":"elsewhere","updated":0}\n' \
	>"$T/adopted/progress.json"
lctl 1 status --state-dir "$T/adopted" gv0 # readable now: a dead run of another host
victims_intact "status and top against an adopted directory"

# --- 3. a log named for root to write: --log-file (gfapi's), fix --log -------------------------
# Both are opened before the volume is contacted: with the volfile server at a closed port, a
# log that is taken gives "cannot reach volfile server", one refused is the only error line.
nosrv=(-s 127.0.0.1:1)
# logs RC LOG TEXT: `--log-file LOG info` and `fix --log LOG` exit RC with TEXT in the error line
# (escaped: no raw control byte)
logs() {
	lctl "$1" "${nosrv[@]}" --log-file "$2" info nosuchvol
	assert_contains "$(cat "$T/err")" "$3" "--log-file ${2@Q}"
	! grep -q '[[:cntrl:]]' "$T/err" || fail "a raw control byte in: $(cat -v "$T/err")"
	lctl "$1" "${nosrv[@]}" fix --state-dir "$T/fixstate" --log "$2" nosuchvol
	assert_contains "$(cat "$T/err")" "$3" "fix --log ${2@Q}"
	! grep -q '[[:cntrl:]]' "$T/err" || fail "a raw control byte in: $(cat -v "$T/err")"
	[[ ! -e $T/fixstate ]] || fail "fix made its state directory: --log ${2@Q}"
}
as_user ln -s "$T/root/victim1" "$T/pub/link.log"
logs 3 "$T/pub/link.log" "is a symbolic link owned by uid 65534"
as_user mkfifo "$T/pub/fifo.log"
logs 3 "$T/pub/fifo.log" "is a FIFO of uid 65534"
# the user reading it: the open would not fail, the writes would block once the pipe is full
# (setpriv itself in the background, not as_user's subshell: $! is then the reader to kill)
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	bash -c 'exec 3<>"$1"; exec sleep 60' reader "$T/pub/fifo.log" &
reader=$!
trap 'kill "$reader" 2>/dev/null || true; rm -rf -- "$T"' EXIT
for _ in $(seq 50); do
	[[ $(readlink "/proc/$reader/fd/3") == "$T/pub/fifo.log" ]] && break
	sleep 0.1
done
[[ $(readlink "/proc/$reader/fd/3") == "$T/pub/fifo.log" ]] || fail "the user's reader did not start"
logs 3 "$T/pub/fifo.log" "is a FIFO of uid 65534"
kill "$reader"
wait "$reader" 2>/dev/null || true
trap 'rm -rf -- "$T"' EXIT
as_user ln -s "$T/root" "$T/pub/rootdir"
logs 3 "$T/pub/rootdir/new.log" "symbolic link owned by uid 65534"
[[ ! -e $T/root/new.log ]] || fail "created a log through the user's link to root's directory"
# (root makes the link: protected_hardlinks keeps the user from linking a file of root's)
ln "$T/root/victim2" "$T/pub/hard.log"
logs 3 "$T/pub/hard.log" "has 2 hard links"
as_user mkdir "$T/pub/theirs"
logs 3 "$T/pub/theirs/new"$'\e[2J'".log" "can be changed by others (owner uid 65534"
assert_contains "$(cat "$T/err")" 'new\x1b[2J.log' "the path, escaped"
victims_intact "logs refused"
# taken: a new file (0600, root's), /dev/null (its mode kept), /dev/stderr as a file
logs 3 "$T/pub/new.log" "cannot reach volfile server"
[[ -f $T/pub/new.log && ! -L $T/pub/new.log ]] || fail "no new log file"
assert_eq "600 0" "$(stat -c '%a %u' "$T/pub/new.log")" "the new log's mode and owner"
nullmode=$(stat -c %a /dev/null)
logs 3 /dev/null "cannot reach volfile server"
assert_eq "$nullmode" "$(stat -c %a /dev/null)" "the mode of /dev/null"
logs 3 /dev/stderr "cannot reach volfile server"
# /dev/stderr as a pipe
for args in "--log-file /dev/stderr info" "fix --state-dir $T/fixstate --log /dev/stderr"; do
	# shellcheck disable=SC2086 # the words of $args
	err=$({
		rc=0
		timeout -k 5 20 "$LAYOUTCTL" "${nosrv[@]}" $args nosuchvol 2>&1 >/dev/null || rc=$?
		echo "exit $rc"
	} | cat)
	assert_contains "$err" "cannot reach volfile server" "$args with stderr a pipe"
	assert_contains "$err" "exit 3" "$args with stderr a pipe"
done
victims_intact "logs taken"

# top's keys reach the fix past the link planted as .control.tmp, not through it
if command -v tmux >/dev/null 2>&1; then
	printf '{"state":"running","volume":"gv0","pid":%d,"host":"%s","updated":%d}\n' \
		$$ "$(hostname)" "$(date +%s)" >"$T/adopted/progress.json"
	rm -f "$T/adopted/control"
	sock=lctl-hsd-$$
	tm() { tmux -L "$sock" -f /dev/null "$@"; }
	trap 'tm kill-server 2>/dev/null || true; rm -rf -- "$T"' EXIT
	tm new-session -d -s top -x 120 -y 40 \
		"TERM=xterm '$LAYOUTCTL' top --state-dir '$T/adopted' --iterations 20 gv0; sleep 30"
	for _ in $(seq 50); do
		tm capture-pane -t top -p | grep >/dev/null -c 'q stop' && break
		sleep 0.2
	done
	tm capture-pane -t top -p | grep >/dev/null -c 'q stop' || fail "top did not start: $(tm capture-pane -t top -p)"
	tm send-keys -t top p
	for _ in $(seq 50); do
		[[ -f $T/adopted/control ]] && break
		sleep 0.1
	done
	tm kill-server
	victims_intact "top's control file"
	[[ -f $T/adopted/control && ! -L $T/adopted/control ]] ||
		fail "top sent no control file: $(ls -la "$T/adopted")"
	assert_eq pause "$(cat "$T/adopted/control")" "the command top sent"
	[[ ! -e $T/adopted/.control.tmp ]] || fail "the planted .control.tmp is still there"
else
	echo "tmux is not installed: top's keys were not tried"
fi
exit 0
