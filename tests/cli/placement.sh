#!/bin/bash
# Global options before or after the command (issue 16): every global option is accepted in
# both places, for every command, with the same effect; the old placement still works; the
# same setting given on both sides with different values is a clear usage error (exit 2);
# -v adds up and --server is a list over both sides. The binary alone, no GlusterFS reached
# (the servers named here refuse connections).
. "$LCTL_SRCDIR/tests/cli/lib.sh"

tmp=$LCTL_TEST_LOGDIR/tmp
rm -rf -- "$tmp"
mkdir -p -- "$tmp/state"
trap 'rm -rf -- "$tmp"' EXIT

commands=$("$LAYOUTCTL" __complete commands)
globals=$("$LAYOUTCTL" __complete global-options)
[[ -n $commands && -n $globals ]] || fail "__complete lists no commands or no global options"

# run ARGS...: sets rc, out (stdout) and err (stderr)
run() {
	rc=0
	out=$("$LAYOUTCTL" "$@" 2>"$tmp/err") || rc=$?
	err=$(cat "$tmp/err")
}

# value OPTION: a valid value for a global option that takes one, from the binary itself
# (__complete values), else by kind; nothing for a flag
value() {
	local v
	v=$("$LAYOUTCTL" __complete values "$1" | head -n 1)
	case $1 in
	--format) v=text ;; # every command has text
	--server) v=127.0.0.1:1 ;;
	--node) v=node1 ;;
	esac
	case $v in
	@dir) v=$tmp ;;
	@file) v=$tmp/gfapi.log ;;
	@host) v=localhost ;;
	esac
	printf '%s' "$v"
}

# takes_value OPTION: as the binary says: alone, it is incomplete
takes_value() {
	run "$1"
	((rc == 2)) && [[ $err == *incomplete* ]]
}

# --- every global option before and after every command: same exit status, same output --------
n=0
for o in $globals; do
	[[ $o == --help || $o == --version ]] && continue
	args=("$o")
	if takes_value "$o"; then
		args+=("$(value "$o")")
	fi
	for c in $commands; do
		run "${args[@]}" "$c" --help
		before_rc=$rc before_out=$out
		run "$c" "${args[@]}" --help
		((rc == before_rc)) || fail "'layoutctl $c ${args[*]} --help' exits $rc, '${args[*]} $c --help' $before_rc: $err"
		[[ $out == "$before_out" ]] || fail "'layoutctl $c ${args[*]} --help': another output than before the command"
		if [[ $o == --json && $c != @(drain|explain|fix|info|scan|status) ]]; then
			((rc == 2)) || fail "'layoutctl $c --json' accepted (exit $rc)"
			assert_contains "$err" "does not support --format json"
		else
			((rc == 0)) || fail "'layoutctl $c ${args[*]} --help' exits $rc: $err"
			assert_contains "$out" "usage: layoutctl [GLOBAL OPTIONS] $c"
		fi
		# the spelling --opt=value too
		if ((${#args[@]} == 2)); then
			run "$c" "$o=${args[1]}" --help
			((rc == before_rc)) || fail "'layoutctl $c $o=${args[1]} --help' exits $rc: $err"
		fi
		n=$((n + 1))
	done
done
echo "checked $n global options x commands in both places"

# the short forms too, bundled with the command's own
for a in "-v" "-q" "-vv" "-f text" "-s 127.0.0.1:1"; do
	# shellcheck disable=SC2086 # split on purpose
	{ expect_exit 0 "$LAYOUTCTL" $a scan --help; expect_exit 0 "$LAYOUTCTL" scan $a --help; }
done
expect_exit 0 "$LAYOUTCTL" scan -vp4 --help
expect_exit 0 "$LAYOUTCTL" fix -vnp4 --help

# --- the effect is the same in both places ------------------------------------------------------
# --format, -f and --json, on status (it reads the state directory only)
cat >"$tmp/state/progress.json" <<'EOF'
{"format_version":1,"command":"fix","volume":"v","path":"/","state":"finished","phase":"done",
 "pid":1,"host":"elsewhere","started":0,"updated":0,"elapsed":1.5,"exit_code":0}
EOF
for f in "--format text" "--format json" "--json" "-f xml" "--format=xml"; do
	# shellcheck disable=SC2086 # split on purpose
	{
		run $f status --state-dir "$tmp/state" v
		before_rc=$rc before_out=$out
		run status $f --state-dir "$tmp/state" v
		after_rc=$rc after_out=$out
		run status --state-dir "$tmp/state" $f v
	}
	((before_rc == 0 && after_rc == 0 && rc == 0)) || fail "status with $f: exit $before_rc/$after_rc/$rc: $err"
	[[ $before_out == "$after_out" && $after_out == "$out" ]] ||
		fail "status with $f after the command differs from before it"
done
run status --json --state-dir "$tmp/state" v
python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" || fail "status --json: not JSON: $out"
run status -f xml --state-dir "$tmp/state" v
[[ $out == "<?xml"* ]] || fail "status -f xml: not XML: $out"
run status --state-dir "$tmp/state" v
[[ $out == Volume:* ]] || fail "status: not text: $out"
# a format the command does not have, in either place
for c in "info v" "status v"; do
	# shellcheck disable=SC2086 # split on purpose
	{
		run --format prometheus $c
		((rc == 2)) || fail "--format prometheus $c: exit $rc"
		assert_contains "$err" "does not support --format prometheus"
		run ${c%% *} --format prometheus ${c#* }
		((rc == 2)) || fail "${c%% *} --format prometheus: exit $rc"
		assert_contains "$err" "does not support --format prometheus"
	}
done
# --server and --transport: the server named after the command is the one tried
run info --server 127.0.0.1:1 v
((rc == 3)) || fail "info --server 127.0.0.1:1: exit $rc, want 3: $err"
assert_contains "$err" "127.0.0.1:1"
run info --transport unix --server "$tmp/no-socket" v
((rc == 3)) || fail "info --transport unix: exit $rc: $err"
assert_contains "$err" "$tmp/no-socket"
run --transport unix info --server "$tmp/no-socket" v
assert_contains "$err" "$tmp/no-socket"
# --server is a list over both sides, in order: the first one is tried first
run --server 127.0.0.1:1 info --server 127.0.0.1:2 v
((rc == 3)) || fail "two servers: exit $rc: $err"
assert_contains "$err" "127.0.0.1:1"
# values are checked after the command as before it, with the same message
for a in "--format yaml" "--transport carrier-pigeon" "--progress sometimes" "--log-level 5" \
	"--gfapi-log-level 10" "--glusterd-dir relative" "--node ''"; do
	eval "set -- $a"
	run "$@" info v
	((rc == 2)) || fail "'$a info v': exit $rc, want 2"
	msg=${err%%$'\n'*}
	run info "$@" v
	((rc == 2)) || fail "'info $a v': exit $rc, want 2"
	[[ ${err%%$'\n'*} == "$msg" ]] || fail "'info $a v' says '${err%%$'\n'*}', before the command '$msg'"
	assert_contains "$msg" "${1}"
done
# the issue's first attempts: no "unknown option" any more
for a in "scan --json" "scan -v" "scan --format prometheus" "fix --progress never"; do
	# shellcheck disable=SC2086 # split on purpose
	run $a --server 127.0.0.1:1 v
	((rc == 3)) || fail "'layoutctl $a VOL': exit $rc, want 3 (could not run): $err"
	assert_not_contains "$err" "unknown option"
done
run -v scan --server 127.0.0.1:1 v
((rc == 3)) || fail "'layoutctl -v scan VOL': exit $rc: $err"

# --- conflicting placements -------------------------------------------------------------------
conflict() { # ARGS...: a usage error that names both placements
	run "$@"
	((rc == 2)) || fail "conflicting placements accepted (exit $rc): ${*@Q}"
	assert_contains "$err" "conflicting placements"
	[[ $(head -n 1 <<<"$err") == "layoutctl: error: "* ]] || fail "no error line: $err"
	(($(wc -l <<<"$err") <= 2)) || fail "more than two lines: $err"
	[[ -z $out ]] || fail "a usage error wrote to stdout: ${*@Q}"
}
conflict --format json scan --format xml v
assert_contains "$err" "'--format json' before the command and '--format xml' after it"
conflict --json scan --format xml v
conflict -f xml status --json v
conflict --format json info -f text v
conflict --transport tcp info --transport rdma v
conflict --progress never fix --progress always v
conflict --log-level 3 scan --log-level 2 v
conflict -q scan --log-level 3 v
conflict --log-file /tmp/a scan --log-file /tmp/b v
conflict --gfapi-log-level 1 scan --gfapi-log-level 2 v
conflict --glusterd-dir /a fix --glusterd-dir /b v
# the conflict is found before --help or the volume is looked at
conflict --format json scan --format xml --help
# the same value on both sides, a repeatable option, or -v: no conflict
expect_exit 0 "$LAYOUTCTL" --format json scan --json --help
expect_exit 0 "$LAYOUTCTL" -f xml status --format xml --state-dir "$tmp/state" v
expect_exit 0 "$LAYOUTCTL" --log-level 2 scan --log-level 2 --help
expect_exit 0 "$LAYOUTCTL" -v scan -v --help
expect_exit 0 "$LAYOUTCTL" -s 127.0.0.1:1 scan -s 127.0.0.1:2 --help
expect_exit 0 "$LAYOUTCTL" --node a fix --node b --help
# on one side the last one counts, as always
expect_exit 0 "$LAYOUTCTL" status --format xml --json --state-dir "$tmp/state" v
run status --format xml --json --state-dir "$tmp/state" v
[[ $out == "{"* ]] || fail "status --format xml --json: the last one does not count: $out"

# --- the command's own options stay its own -------------------------------------------------
run --parallel 4 scan v
((rc == 2)) || fail "a command's option before the command accepted (exit $rc)"
assert_contains "$err" "unknown option '--parallel'"
run scan --bogus v
assert_contains "$err" "unknown option '--bogus'"
run fix --until " 1:23" v
((rc == 2)) || fail "--until ' 1:23' accepted"
run fix --until "+1:23" v
((rc == 2)) || fail "--until '+1:23' accepted"
exit 0
