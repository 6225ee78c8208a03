#!/bin/bash
# The binary alone, no GlusterFS: help, version, usage errors and exit codes.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

expect_exit 0 "$LAYOUTCTL" --help
expect_exit 0 "$LAYOUTCTL" --version
"$LAYOUTCTL" --version | grep >/dev/null -cx "layoutctl [0-9.]*" || fail "--version output"
expect_exit 2 "$LAYOUTCTL"
expect_exit 2 "$LAYOUTCTL" no-such-command
expect_exit 2 "$LAYOUTCTL" --no-such-option info v
expect_exit 2 "$LAYOUTCTL" --format yaml info v
expect_exit 2 "$LAYOUTCTL" --format prometheus info v
expect_exit 2 "$LAYOUTCTL" info
expect_exit 2 "$LAYOUTCTL" info a b
expect_exit 2 "$LAYOUTCTL" info --bogus v
expect_exit 2 "$LAYOUTCTL" --server host:99999 info v
expect_exit 2 "$LAYOUTCTL" --transport carrier-pigeon info v
expect_exit 2 "$LAYOUTCTL" help no-such-command

# a usage error names the problem and gives a hint, on stderr only, in few lines
out=$("$LAYOUTCTL" no-such-command 2>&1 >/dev/null || true)
assert_contains "$out" "unknown command 'no-such-command'"
assert_contains "$out" "layoutctl --help"
[ "$(printf '%s\n' "$out" | wc -l)" -le 2 ] || fail "usage error is longer than two lines"
[ -z "$("$LAYOUTCTL" no-such-command 2>/dev/null)" ] || fail "usage error wrote to stdout"

# every visible command has help in three spellings, and they agree
for c in $("$LAYOUTCTL" __complete commands); do
	a=$("$LAYOUTCTL" help "$c") || fail "help $c"
	b=$("$LAYOUTCTL" "$c" --help) || fail "$c --help"
	[ "$a" = "$b" ] || fail "'help $c' and '$c --help' differ"
	assert_contains "$a" "usage: "
	# every option of the command appears in its help
	for o in $("$LAYOUTCTL" __complete options "$c"); do
		assert_contains "$a" "$o"
	done
done
# Each command's help is generated from its option table and the global one: its option lines
# ("  -p, --parallel N   ...") are exactly the options the parser knows for it (its own, then
# the global ones, which it accepts too), each once, and an option shows a value (N) exactly
# when the parser wants one ("incomplete" without it).
optre='^  (-([[:alnum:]]), |    )(--[[:alnum:]][[:alnum:]-]*)( ([^ ]+))?( |$)'
globals=$("$LAYOUTCTL" __complete global-options)
for c in $("$LAYOUTCTL" __complete commands) worker; do
	[[ $c == __complete ]] && continue
	help=$("$LAYOUTCTL" help "$c")
	want=$({ "$LAYOUTCTL" __complete options "$c"; printf '%s\n' "$globals"; } | sort -u)
	got=$(while IFS= read -r line; do
		[[ $line =~ $optre ]] && printf '%s\n' "${BASH_REMATCH[3]}"
	done <<<"$help" | sort)
	[[ $got == "$(sort -u <<<"$got")" ]] || fail "help $c lists an option twice"
	assert_eq "$want" "$got" "the option lines of 'help $c'"
	while IFS= read -r line; do
		[[ $line =~ $optre ]] || continue
		o=${BASH_REMATCH[3]} arg=${BASH_REMATCH[5]} short=${BASH_REMATCH[2]}
		[[ $o == --help || $o == --version ]] && continue
		err=$("$LAYOUTCTL" "$c" "$o" 2>&1 >/dev/null </dev/null) || true
		if [[ $arg ]]; then
			[[ $err == *incomplete* ]] || fail "help $c shows '$o $arg', but $o takes no value: $err"
		else
			[[ $err != *incomplete* ]] || fail "help $c shows $o without a value, but it wants one"
		fi
		# the short form is the same option
		if [[ $short ]]; then
			err2=$("$LAYOUTCTL" "$c" "-$short" 2>&1 >/dev/null </dev/null) || true
			[[ $err == *incomplete* ]] && a=1 || a=0
			[[ $err2 == *incomplete* ]] && b=1 || b=0
			((a == b)) || fail "help $c: -$short and $o differ: '$err2' vs '$err'"
		fi
	done <<<"$help"
	# the values the completion offers are the ones the parser takes
	for o in $want; do
		for v in $("$LAYOUTCTL" __complete values "$o"); do
			[[ $v == @* ]] && continue
			[[ $o == --format || $o == -f ]] && continue
			expect_exit 0 "$LAYOUTCTL" "$c" "$o" "$v" --help >/dev/null
		done
	done
done
# nothing of the option tables is written by hand in a usage text
if grep -nE '^\s*"(-[[:alnum:]], |    )--[[:alnum:]]' "$LCTL_SRCDIR"/cmd/cmd-*.c "$LCTL_SRCDIR"/cmd/layoutctl.c; then
	fail "an option line is written by hand in a usage text: it must come from the option table"
fi

# every global option appears in the main help
main=$("$LAYOUTCTL" --help)
for o in $("$LAYOUTCTL" __complete global-options); do
	assert_contains "$main" "$o"
done

# a command's options after its operands, as GNU getopt permutes them (issue 28): each is
# applied, not taken for one operand too many (the server the error names is the one given)
for c in "scan v -p2 --json" "fix v --dry-run --parallel 2" "info v --json" "explain v /x --json" \
	"drain v b1 --dry-run"; do
	rc=0
	# shellcheck disable=SC2086 # the words of $c
	out=$("$LAYOUTCTL" $c --server 127.0.0.1:1 2>&1) || rc=$?
	[ "$rc" = 3 ] || fail "'$c --server 127.0.0.1:1': exit $rc, want 3: $out"
	assert_contains "$out" "127.0.0.1:1"
done
sd=$(mktemp -d)
out=$("$LAYOUTCTL" status v --json --state-dir "$sd" 2>&1) && fail "status of nothing exited 0"
assert_contains "$out" "recorded in '$sd'"
# --help after the operand is the command's help
assert_eq "$("$LAYOUTCTL" fix --help)" "$("$LAYOUTCTL" fix v --help)" "fix v --help"
# the global options after the operands conflict with the ones before the command as anywhere
expect_exit 2 "$LAYOUTCTL" --json scan v --format text
# "--" ends the options: what follows is an operand, also when it starts with '-'
expect_exit 2 "$LAYOUTCTL" scan v -- --server 127.0.0.1:1
out=$("$LAYOUTCTL" info -- v --json 2>&1) && fail "info -- v --json exited 0"
assert_contains "$out" "too many arguments"
out=$("$LAYOUTCTL" status --state-dir "$sd" -- -v 2>&1) && fail "status -- -v exited 0"
assert_contains "$out" "no fix of '-v' recorded in '$sd'"
rmdir "$sd"

# an unreachable server is "could not run", quickly, with one line
start=$(date +%s)
expect_exit 3 "$LAYOUTCTL" --server 127.0.0.1:1 info v
out=$("$LAYOUTCTL" --server 127.0.0.1:1 info v 2>&1 || true)
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "unreachable server: not one line: $out"
[ $(($(date +%s) - start)) -le 10 ] || fail "unreachable server took too long"
# commands that read the bricks' trusted.* xattrs refuse to run without root, in one line
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	d=$(mktemp -d)
	chmod 755 "$d"
	cp "$LAYOUTCTL" "$d/layoutctl"
	for c in info scan fix explain; do
		args=(v)
		[ $c = explain ] && args=(v /x)
		rc=0
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$d/layoutctl" $c "${args[@]}" 2>&1) || rc=$?
		[ $rc = 3 ] || fail "$c as non-root: exit $rc, want 3"
		assert_contains "$out" "needs root"
		[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$c as non-root: not one line"
	done
	rm -rf "$d"
fi
exit 0
