#!/bin/bash
# tests/cli/format.sh [--fix]: every C file of ours (lib/, cmd/, tests/) is formatted as
# .clang-format says; otherwise it fails, listing FILE:LINE for each block that is not and the
# diff that would format it. --fix (what `make format` runs) formats the files in place.
#
# The format is the one clang-format 14 gives (Debian 12's, what CI installs through
# tests/install-deps.sh): another major version formats some lines differently, so without a
# clang-format 14 (CLANG_FORMAT, clang-format-14 or clang-format) the test is skipped.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

want_major=14
style=$LCTL_SRCDIR/.clang-format
fix=false
[[ ${1:-} != --fix ]] || fix=true
[[ -f $style ]] || fail "no $style"

cf=''
for c in ${CLANG_FORMAT:-} clang-format-$want_major clang-format; do
	command -v "$c" >/dev/null 2>&1 || continue
	v=$("$c" --version 2>/dev/null) || continue
	if [[ $v =~ version\ ([0-9]+)\. && ${BASH_REMATCH[1]} == "$want_major" ]]; then
		cf=$c
		break
	fi
	found="$c: $v"
done
if [[ -z $cf ]]; then
	msg="clang-format $want_major is not installed${found:+ (found $found)}"
	$fix && fail "$msg"
	skip "$msg"
fi

# fmt FILE: FILE formatted, on stdout; a clang-format that fails (crashes, bad style) fails us
fmt() {
	"$cf" --style="file:$style" -- "$1" || fail "$cf failed on $1"
}

# unformatted FILE: print FILE:LINE for each block clang-format would change, then the diff;
# status 0 when there is one
unformatted() {
	local formatted=$tmp/formatted

	fmt "$1" >"$formatted" || return 0
	cmp -s -- "$1" "$formatted" && return 1
	# the lines changed (diff -U0: "@@ -LINE[,COUNT] ..."), then the diff with context
	diff -U0 -- "$1" "$formatted" | sed -n 's/^@@ -\([0-9]*\).*/\1/p' |
		while read -r line; do printf '%s:%s: not formatted as .clang-format says\n' "$1" "$line"; done
	diff -u --label "$1" --label "$1 (formatted)" -- "$1" "$formatted"
	return 0
}

# First, the check itself must catch a misformatted file (were .clang-format unreadable or
# clang-format a no-op, every file would pass).
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
printf 'static int f(int a){\n  return a+1;\n}\n' >"$tmp/bad.c"
printf 'static int f(int a)\n{\n\treturn a + 1;\n}\n' >"$tmp/good.c"
unformatted "$tmp/bad.c" >/dev/null || fail "$cf leaves a misformatted file alone"
out=$(unformatted "$tmp/good.c") && fail "$cf changes a formatted file:"$'\n'"$out"

cd "$LCTL_SRCDIR"
mapfile -t files < <(find lib cmd tests -name '*.[ch]' -type f | LC_ALL=C sort)
((${#files[@]} > 20)) || fail "only ${#files[@]} C files found under $LCTL_SRCDIR"

if $fix; then
	for f in "${files[@]}"; do
		"$cf" --style="file:$style" -i -- "$f" || fail "$cf failed on $f"
	done
	echo "formatted ${#files[@]} files with $cf"
	exit 0
fi

bad=0
for f in "${files[@]}"; do
	if unformatted "$f"; then
		bad=$((bad + 1))
	fi
done
((bad == 0)) || fail "$bad of ${#files[@]} C files are not formatted as .clang-format says (make format fixes them)"
echo "checked ${#files[@]} C files with $cf"
