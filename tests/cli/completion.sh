#!/bin/bash
# Shell completion (completions/layoutctl.bash, and completions/_layoutctl when zsh is here)
# against the binary: what it offers for commands, options and option values, that every
# option `layoutctl __complete options CMD` lists is offered, that options taking a value are
# told apart from flags the way the binary itself parses them, and volume names from a
# (fake) gluster CLI.
. "$LCTL_SRCDIR/tests/cli/lib.sh"
# About two thousand runs of `layoutctl __complete`: under ASan the leak check at each exit (and
# the fake stacks) doubled this test's time. Every other cli test, usage.sh's runs of the same
# __complete paths included, keeps them.
[[ -z ${ASAN_OPTIONS:-} ]] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0:detect_stack_use_after_return=0"

comp=$LCTL_SRCDIR/completions/layoutctl.bash
[[ -f $comp ]] || fail "no $comp"
tmp=$LCTL_TEST_LOGDIR/tmp
rm -rf -- "$tmp"
mkdir -p -- "$tmp"
trap 'rm -rf -- "$tmp"' EXIT

# A fake gluster CLI: `gluster [--mode=script] [--remote-host=H] volume list` prints two
# volumes, `volume info gv0 --xml` the bricks of gv0 (one with a space, which is not offered),
# and it logs its arguments; the broken one fails like a gluster without glusterd.
mkdir -p "$tmp/fake" "$tmp/broken" "$tmp/none"
cat >"$tmp/fake/gluster" <<EOF
#!/bin/bash
printf '%s\n' "\$*" >>"$tmp/gluster.args"
if [[ " \$* " == *" volume info gv0 --xml "* ]]; then
	for b in gl1.example:/bricks/b1 gl2.example:/bricks/b2 'gl3.example:/bricks/a b'; do
		printf '<brick uuid="1b2c">%s<name>%s</name><isArbiter>0</isArbiter></brick>\n' "\$b" "\$b"
	done
	exit 0
fi
[[ " \$* " == *" volume list "* ]] || exit 1
printf 'gv0\nscratch-vol\n'
EOF
cat >"$tmp/broken/gluster" <<'EOF'
#!/bin/bash
echo "Connection failed. Please check if gluster daemon is operational."
exit 1
EOF
chmod +x "$tmp/fake/gluster" "$tmp/broken/gluster"
# the few tools the completion runs, without any gluster
for t in tr head timeout sed; do
	ln -s "$(type -P "$t")" "$tmp/none/$t"
done

# The inner bash of complete_words and complete_many: completes each line of stdin, a command
# line's WORDS after the command's name, each quoted by printf %q, one after another as an
# interactive shell completes them (state left from one completion must not change the next),
# and prints what each offers followed by a line holding only an RS character.
# shellcheck disable=SC2016 # expanded by the inner bash
complete_loop='
	. "$1" || exit 99
	word0=$2
	while IFS= read -r line; do
		eval "words=($line)"
		COMP_WORDS=("$word0" "${words[@]}")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_layoutctl "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"
		printf "\036\n"
	done'

# complete_words [--path DIR] [--cmd WORD0] WORDS...: run the bash completion for the command line
# "layoutctl WORDS..." (the last word is the one being completed; pass '' to complete a new
# word) in a fresh bash, and print what it offers, one per line, sorted. PATH is
# DIR:$tmp/none (default DIR: the fake gluster). Fails when the completion writes to stderr.
complete_words() {
	local dir=$tmp/fake word0=$LAYOUTCTL err=$tmp/stderr
	[[ $1 == --path ]] && dir=$2 && shift 2
	[[ $1 == --cmd ]] && word0=$2 && shift 2
	quote "$@" | PATH=$dir:$tmp/none "$BASH" --norc --noprofile -c "$complete_loop" \
		complete-test "$comp" "$word0" 2>"$err" | sed $'/^\036$/d' | LC_ALL=C sort
	[[ ! -s $err ]] || fail "the completion wrote to stderr for '$*': $(cat "$err")"
}

# complete_many: complete_words for many command lines in one bash: each line of stdin is a
# command line's WORDS, each quoted by printf %q. Fills the array ANSWERS, one element per
# command line: what it offers, sorted, each followed by a space.
complete_many() {
	local err=$tmp/stderr line offers=()
	ANSWERS=()
	PATH=$tmp/fake:$tmp/none "$BASH" --norc --noprofile -c "$complete_loop" \
		complete-test "$comp" "$LAYOUTCTL" >"$tmp/answers" 2>"$err" || fail "complete_many: exit $?"
	[[ ! -s $err ]] || fail "the completion wrote to stderr: $(cat "$err")"
	while IFS= read -r line; do
		if [[ $line == $'\036' ]]; then
			ANSWERS+=("$( ((${#offers[@]} == 0)) || printf '%s\n' "${offers[@]}" | lines)")
			offers=()
		else
			offers+=("$line")
		fi
	done <"$tmp/answers"
}
# quote WORDS...: one line for complete_many
quote() {
	printf '%q ' "$@"
	echo
}

sorted() { printf '%s\n' "$@" | LC_ALL=C sort; }
lines() { LC_ALL=C sort | tr '\n' ' '; }

commands=$("$LAYOUTCTL" __complete commands | LC_ALL=C sort)
[[ -n $commands ]] || fail "__complete commands printed nothing"
global=$("$LAYOUTCTL" __complete global-options | LC_ALL=C sort)

# --- the script loads cleanly and registers itself -----------------------------------------
# shellcheck disable=SC2016 # expanded by the inner bash
out=$("$BASH" --norc --noprofile -c '. "$1" && complete -p layoutctl' _ "$comp" 2>&1)
assert_contains "$out" "complete -F _layoutctl layoutctl"
bash -n "$comp" || fail "bash -n $comp"

# --- the cases named in issue 7 ----------------------------------------------------------------
assert_eq "$commands" "$(complete_words '')" "layoutctl <TAB>"
assert_eq "$({ "$LAYOUTCTL" __complete options fix; printf '%s\n' "$global"; } | LC_ALL=C sort -u)" \
	"$(complete_words fix --)" \
	"layoutctl fix --<TAB>"
assert_eq "$(sorted clean-first linkto migrate)" "$(complete_words fix --mode '')" "layoutctl fix --mode <TAB>"
assert_eq "$(sorted all clean data)" "$(complete_words fix --phase '')" "layoutctl fix --phase <TAB>"
assert_eq "$(sorted json prometheus text xml)" "$(complete_words --format '')" \
	"layoutctl --format <TAB>"

# --- every option of every command, and every global option, is offered ---------------------
# (the global options after the command too, where they are accepted as well)
assert_eq "$global" "$(complete_words --)" "layoutctl --<TAB>"
for c in $commands; do
	want=$({ "$LAYOUTCTL" __complete options "$c"; printf '%s\n' "$global"; } | LC_ALL=C sort -u)
	got=$(complete_words "$c" --)
	for o in $want; do
		grep -qxF -- "$o" <<<"$got" || fail "'layoutctl $c --<TAB>' does not offer $o (offers: $got)"
	done
	assert_eq "$want" "$got" "layoutctl $c --<TAB>"
done

# options after the operands too (the binary permutes them, issue 28), but not after "--"
assert_eq "$({ "$LAYOUTCTL" __complete options fix; printf '%s\n' "$global"; } | LC_ALL=C sort -u)" \
	"$(complete_words fix gv0 --)" "layoutctl fix gv0 --<TAB>"
assert_eq "$(sorted clean-first linkto migrate)" "$(complete_words fix gv0 --mode '')" \
	"layoutctl fix gv0 --mode <TAB>"
assert_eq "" "$(complete_words fix -- gv0 --)" "layoutctl fix -- gv0 --<TAB>"
assert_eq "" "$(complete_words fix -- --mode '')" "layoutctl fix -- --mode <TAB>"

# --- options that take a value vs. flags, with the binary as the judge ----------------------
# The binary itself says which options want a value: given last without one, an option that
# wants a value is "incomplete" (a flag leaves at most the operand missing).
takes_value() { # CMD|'' OPTION
	local err rc=0
	err=$("$LAYOUTCTL" ${1:+"$1"} "$2" 2>&1 >/dev/null </dev/null) || rc=$?
	((rc != 0)) && [[ $err == *incomplete* ]]
}
# after a flag the next word is an operand (a volume), after an option with a value it is that
# value: never a volume, an option or a command
# (the command lines of both loops are completed in one shell, complete_many; the other cases
# here each get a fresh one)
pairs=()
for o in $global; do
	pairs+=("" "$o")
done
for c in $commands; do
	[[ $("$LAYOUTCTL" help "$c" | head -n 1) == *VOLUME* ]] || continue
	for o in $("$LAYOUTCTL" __complete options "$c") $global; do
		[[ $o == --help || $o == --version ]] || pairs+=("$c" "$o")
	done
done
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
	# shellcheck disable=SC2086 # no command: no word
	quote ${pairs[i]:+"${pairs[i]}"} "${pairs[i + 1]}" ''
done >"$tmp/queries"
complete_many <"$tmp/queries"
((${#ANSWERS[@]} * 2 == ${#pairs[@]})) ||
	fail "${#ANSWERS[@]} answers from the completion for $((${#pairs[@]} / 2)) command lines"
# the same completion in a fresh shell, for one of them: what complete_many reports is what
# complete_words does
assert_eq "$(complete_words fix --parallel '' | lines)" \
	"${ANSWERS[$(grep -nxF -- "$(quote fix --parallel '')" "$tmp/queries" | cut -d: -f1) - 1]}" \
	"fix --parallel <TAB> in one shell and in a fresh one"
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
	c=${pairs[i]} o=${pairs[i + 1]} got=${ANSWERS[i / 2]}
	if [[ -z $c ]]; then
		if takes_value '' "$o"; then
			for k in $commands; do
				[[ " $got " != *" $k "* ]] || fail "'layoutctl $o <TAB>' offers command '$k': $got"
			done
		elif [[ $o != --help && $o != --version ]]; then
			assert_eq "$(lines <<<"$commands")" "$got" "layoutctl $o <TAB> (a flag)"
		fi
	elif takes_value "$c" "$o"; then
		[[ " $got " != *" gv0 "* ]] || fail "'layoutctl $c $o <TAB>' offers volumes: $got"
		[[ " $got " != *" --"* ]] || fail "'layoutctl $c $o <TAB>' offers options: $got"
	else
		assert_eq "gv0 scratch-vol " "$got" "layoutctl $c $o <TAB> (a flag, then VOLUME)"
	fi
done

# --- option values: offered, and every value offered is accepted by the binary ---------------
assert_eq "$(sorted always auto never)" "$(complete_words --progress '')" "--progress"
assert_eq "$(sorted rdma tcp unix)" "$(complete_words --transport '')" "--transport"
assert_eq "$(sorted even-usage gluster min-move)" "$(complete_words fix --layout '')" "fix --layout"
assert_eq "$(sorted even-usage gluster min-move)" "$(complete_words scan --layout '')" "scan --layout"
for v in $(complete_words --format ''); do
	expect_exit 0 "$LAYOUTCTL" --format "$v" scan --help >/dev/null
done
for v in $(complete_words --progress ''); do
	expect_exit 0 "$LAYOUTCTL" --progress "$v" version >/dev/null
done
for v in $(complete_words --transport ''); do
	expect_exit 0 "$LAYOUTCTL" --transport "$v" version >/dev/null
done
for v in $(complete_words --log-level ''); do
	expect_exit 0 "$LAYOUTCTL" --log-level "$v" version >/dev/null
done
for c in fix scan; do
	for v in $(complete_words "$c" --layout ''); do
		expect_exit 0 "$LAYOUTCTL" "$c" --layout "$v" --help >/dev/null
	done
done
for v in $(complete_words fix --mode ''); do
	expect_exit 0 "$LAYOUTCTL" fix --mode "$v" --help >/dev/null
done
expect_exit 2 "$LAYOUTCTL" fix --mode bogus --help # the judge above can say no

# a prefix, the --opt=value spellings (bash splits at '='), short options
assert_eq "json" "$(complete_words --format j)" "--format j"
assert_eq "$(sorted json prometheus text xml)" "$(complete_words --format =)" "--format=<TAB>"
assert_eq "migrate" "$(complete_words fix --mode = mi)" "fix --mode=mi<TAB>"
assert_eq "xml" "$(complete_words -f x)" "-f x"
assert_eq "$(sorted scan set status)" "$(complete_words --format = json s)" "--format=json s<TAB>"
assert_eq "$(sorted scan set status)" "$(complete_words -f json -v s)" "-f json -v s<TAB>"
# global options after the command: their values, and what follows them
assert_eq "$(sorted json prometheus text xml)" "$(complete_words scan --format '')" "scan --format <TAB>"
assert_eq "$(sorted always auto never)" "$(complete_words fix --progress '')" "fix --progress <TAB>"
assert_eq "gv0 scratch-vol " "$(complete_words scan --json '' | lines)" "scan --json <TAB>"
assert_eq "gv0 scratch-vol " "$(complete_words scan -f json -v '' | lines)" "scan -f json -v <TAB>"
assert_eq "gv0 scratch-vol " "$(complete_words fix -p 4 '' | lines)" "fix -p 4 <TAB>"
assert_eq "gv0 scratch-vol " "$(complete_words fix -p4 '' | lines)" "fix -p4 <TAB>"

# directories for --state-dir, files for --log and --log-file
mkdir -p "$tmp/files/state.d"
: >"$tmp/files/state.log"
assert_eq "$tmp/files/state.d" "$(complete_words fix --state-dir "$tmp/files/st")" "--state-dir"
assert_eq "$(sorted "$tmp/files/state.d" "$tmp/files/state.log")" \
	"$(complete_words fix --log "$tmp/files/st")" "fix --log"
assert_eq "$(sorted "$tmp/files/state.d" "$tmp/files/state.log")" \
	"$(complete_words --log-file "$tmp/files/st")" "--log-file"

# operands: help takes a command, explain a volume and then a path (nothing to offer)
assert_eq "$commands" "$(complete_words help '')" "help <TAB>"
assert_eq "" "$(complete_words help fix '')" "help fix <TAB>"
assert_eq "" "$(complete_words version '')" "version <TAB>"
# drain: a volume, then its bricks, as many as wanted
brick_list=(gl1.example:/bricks/b1 gl2.example:/bricks/b2)
bricks="${brick_list[*]} "
assert_eq "gv0 scratch-vol " "$(complete_words drain '' | lines)" "drain <TAB>"
assert_eq "$bricks" "$(complete_words drain gv0 '' | lines)" "drain gv0 <TAB>"
assert_eq "$bricks" "$(complete_words drain gv0 gl2.example:/bricks/b2 '' | lines)" "drain gv0 BRICK <TAB>"
assert_eq "gl2.example:/bricks/b2 " "$(complete_words drain --commit gv0 gl2 | lines)" "drain --commit gv0 gl2<TAB>"
if grep -qx explain <<<"$commands"; then
	assert_eq "gv0 scratch-vol " "$(complete_words explain '' | lines)" "explain <TAB>"
	assert_eq "" "$(complete_words explain gv0 '')" "explain gv0 <TAB>"
fi

# --- volume names from the gluster CLI ----------------------------------------------------
rm -f "$tmp/gluster.args"
assert_eq "gv0" "$(complete_words scan g)" "scan g<TAB>"
assert_contains "$(cat "$tmp/gluster.args")" "volume list"
assert_not_contains "$(cat "$tmp/gluster.args")" "--remote-host"
rm -f "$tmp/gluster.args"
assert_eq "gv0 scratch-vol " "$(complete_words -s gl9.example.org info '' | lines)" "-s H info"
assert_contains "$(cat "$tmp/gluster.args")" "--remote-host=gl9.example.org"
# bash splits HOST:PORT at ':' (COMP_WORDBREAKS): "-s" "gl8" ":" "24007"
rm -f "$tmp/gluster.args"
assert_eq "gv0 scratch-vol " "$(complete_words -s gl8 : 24007 info '' | lines)" "-s H:P info"
assert_contains "$(cat "$tmp/gluster.args")" "--remote-host=gl8 "
rm -f "$tmp/gluster.args"
assert_eq "gv0 scratch-vol " "$(complete_words --server = gl7 : 24007 -v scan '' | lines)" \
	"--server=H:P -v scan"
assert_contains "$(cat "$tmp/gluster.args")" "--remote-host=gl7 "
# the server given after the command counts too
rm -f "$tmp/gluster.args"
assert_eq "gv0 scratch-vol " "$(complete_words scan -s gl6 '' | lines)" "scan -s H"
assert_contains "$(cat "$tmp/gluster.args")" "--remote-host=gl6"
# quietly nothing without a gluster CLI, or when it fails
assert_eq "" "$(complete_words --path "$tmp/none" scan '')" "scan <TAB> without gluster"
assert_eq "" "$(complete_words --path "$tmp/broken" scan '')" "scan <TAB>, gluster failing"

# --- the layoutctl in PATH, when the command word is just "layoutctl" ----------------------
ln -s "$LAYOUTCTL" "$tmp/fake/layoutctl"
assert_eq "$commands" "$(complete_words --cmd layoutctl '')" "layoutctl from PATH"
assert_eq "$(sorted clean-first linkto migrate)" "$(complete_words --cmd layoutctl fix --mode '')" \
	"layoutctl from PATH, fix --mode"

# --- zsh -----------------------------------------------------------------------------------
zcomp=$LCTL_SRCDIR/completions/_layoutctl
[[ -f $zcomp ]] || fail "no $zcomp"
if ! command -v zsh >/dev/null 2>&1; then
	echo "zsh is not installed: the zsh completion is not checked"
	exit 0
fi
zsh -n "$zcomp" || fail "zsh -n $zcomp"
# zsh completes by command name: the binary under the name layoutctl
mkdir -p "$tmp/bin"
ln -s "$LAYOUTCTL" "$tmp/bin/layoutctl"
zl=$tmp/bin/layoutctl
# zsh_complete LINE...: the candidates the zsh completion offers for each LINE, sorted, one per
# line, into the array ZANSWERS (all in one zsh: tests/cli/zsh-complete.zsh)
zsh_complete() {
	local rc=0 k
	rm -f -- "$tmp"/zsh.out.*
	PATH=$tmp/fake:$PATH timeout 300 zsh -f "$LCTL_SRCDIR/tests/cli/zsh-complete.zsh" \
		"$LCTL_SRCDIR/completions" "$tmp/zsh.out" "$@" || rc=$?
	((rc != 2)) || return 2
	((rc == 0)) || fail "zsh completion of '$*' did not finish (exit $rc)"
	ZANSWERS=()
	for ((k = 1; k <= $#; k++)); do
		[[ -f $tmp/zsh.out.$k ]] || fail "zsh completion of '${!k}': no answer"
		ZANSWERS+=("$(LC_ALL=C sort -u "$tmp/zsh.out.$k")")
	done
}
lines_z=("$zl " "$zl fix --mode " "$zl --format " "$zl --" "$zl drain gv0 " "$zl drain gv0 gl1.example:/bricks/b1 ")
for c in $commands; do
	lines_z+=("$zl $c --")
done
if ! zsh_complete "${lines_z[@]}"; then
	echo "zsh has no zpty module: only the syntax of the zsh completion was checked"
	exit 0
fi
assert_eq "$commands" "${ZANSWERS[0]}" "zsh: layoutctl <TAB>"
assert_eq "$(sorted clean-first linkto migrate)" "${ZANSWERS[1]}" "zsh: layoutctl fix --mode <TAB>"
assert_eq "$(sorted json prometheus text xml)" "${ZANSWERS[2]}" "zsh: layoutctl --format <TAB>"
got=${ZANSWERS[3]}
for o in $global; do
	grep -qxF -- "$o" <<<"$got" || fail "zsh: 'layoutctl --<TAB>' does not offer $o"
done
assert_eq "$(sorted "${brick_list[@]}")" "${ZANSWERS[4]}" "zsh: layoutctl drain gv0 <TAB>"
assert_eq "$(sorted "${brick_list[@]}")" "${ZANSWERS[5]}" "zsh: layoutctl drain gv0 BRICK <TAB>"
k=6
for c in $commands; do
	got=${ZANSWERS[k]}
	k=$((k + 1))
	for o in $("$LAYOUTCTL" __complete options "$c") $global; do
		grep -qxF -- "$o" <<<"$got" || fail "zsh: 'layoutctl $c --<TAB>' does not offer $o (offers: $got)"
	done
done
# each line alone in a fresh zsh: the same answer (nothing carried over from the one before)
zsh_complete "$zl fix --mode "
assert_eq "$(sorted clean-first linkto migrate)" "${ZANSWERS[0]}" "zsh: fix --mode <TAB> in a fresh zsh"
exit 0
