#!/bin/bash
# tests/cli/shellcheck.sh: shellcheck finds nothing in our shell scripts: every *.sh and *.bash
# file and every file whose first line is a sh or bash #! line (.ci/run, contrib/, tests/,
# bench/, completions/), with the settings of .shellcheckrc. Those in git when the source
# tree is a git checkout, else those found in it, without autotools' own (configure,
# libtool, build-aux/). It fails listing FILE:LINE:COL for each finding; skipped only when
# there is no shellcheck (tests/install-deps.sh installs it, as CI does).
. "$LCTL_SRCDIR/tests/cli/lib.sh"

command -v shellcheck >/dev/null 2>&1 ||
	skip "shellcheck is not installed: the shell scripts are not checked (tests/install-deps.sh installs it)"
[[ -f $LCTL_SRCDIR/.shellcheckrc ]] || fail "no $LCTL_SRCDIR/.shellcheckrc"

# First, shellcheck must flag an unquoted variable (were it a no-op, every script would pass).
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
printf '#!/bin/bash\nrm -rf $1/cache\n' >"$tmp/bad.sh"
printf '#!/bin/bash\nrm -rf "$1/cache"\n' >"$tmp/good.sh"
out=$(shellcheck --norc -f gcc "$tmp/bad.sh") && fail "shellcheck passes an unquoted variable"
assert_contains "$out" "SC2086" "shellcheck on an unquoted variable"
out=$(shellcheck --norc -f gcc "$tmp/good.sh") || fail "shellcheck fails a clean script: $out"

cd "$LCTL_SRCDIR"
# is_script FILE: a shell script of ours by its name or its #! line (not zsh: shellcheck
# does not read it)
is_script() {
	local first
	case $1 in
	*.sh | *.bash) return 0 ;;
	esac
	[[ -f $1 && ! -L $1 ]] || return 1
	IFS= read -r first <"$1" 2>/dev/null || return 1
	[[ $first =~ ^#!\ *(/usr)?/bin/(env\ +)?(ba|da)?sh([[:space:]]|$) ]]
}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	[[ $(git rev-parse --show-toplevel) -ef . ]]; then
	mapfile -t candidates < <(git ls-files)
else
	# (a build directory inside the tree, as distcheck's _build, holds autotools' scripts)
	mapfile -t candidates < <(find . \( -name .git -o -name build-aux -o -name autom4te.cache \
		-o -name m4 -o -name test-logs -o -name fuzz-out -o -name '*.dSYM' -o -name _build \) \
		-prune -o -type f ! -name configure ! -name config.status ! -name libtool -print |
		sed 's|^\./||')
fi
scripts=()
for f in "${candidates[@]}"; do
	if is_script "$f"; then
		scripts+=("$f")
	fi
done
((${#scripts[@]} >= 30)) || fail "only ${#scripts[@]} shell scripts found under $LCTL_SRCDIR"

# Under pipefail, a pipe into grep -q fails when its writer writes after the first match (cli/lib.sh)
if grep -nE '\|[[:space:]]*grep[[:space:]]+(-[[:alpha:]]*q|--quiet)' -- "${scripts[@]}"; then
	fail "a pipe into grep -q: CMD dies of SIGPIPE when it writes after the match; use grep >/dev/null -c"
fi

out=$(shellcheck -f gcc -- "${scripts[@]}" 2>&1) && rc=0 || rc=$?
if ((rc != 0)); then
	printf '%s\n' "$out"
	fail "shellcheck (exit $rc) finds $(grep -c ': \(error\|warning\|note\|style\):' <<<"$out") problems in the shell scripts (fix them, or disable a check on its line with a reason)"
fi
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p'): ${#scripts[@]} scripts clean"
