#!/bin/bash
# The man pages in docs/: each lints clean (mandoc -Tlint, else man --warnings), layoutctl.8
# has an entry for every global option and every command, every visible command has its own
# page layoutctl-CMD.8 (except the built-ins help and version, documented in layoutctl.8),
# installed through dist_man_MANS, with an entry for each of its options and none for an
# option the command does not have.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

docs=$LCTL_SRCDIR/docs
builtins=" help version "
[[ -f $docs/layoutctl.8 ]] || fail "no $docs/layoutctl.8"

# --- lint ------------------------------------------------------------------------------------
linted=0
for page in "$docs"/*.8; do
	if command -v mandoc >/dev/null 2>&1; then
		out=$(mandoc -Tlint -W warning "$page" 2>&1) || fail "mandoc -Tlint $page: $out"
		[[ -z $out ]] || fail "mandoc -Tlint -W warning $page:"$'\n'"$out"
	elif man --help 2>&1 | grep >/dev/null -c -- --warnings; then
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) ||
			fail "man -l $page: $out"
		[[ -z $out ]] || fail "man --warnings $page:"$'\n'"$out"
	else
		echo "neither mandoc nor man --warnings: $page not linted"
		continue
	fi
	linted=$((linted + 1))
done
echo "linted $linted pages"

# --- what a page documents -------------------------------------------------------------------
# tags PAGE SECTION: the words that start the tags (the line after each .TP) of SECTION,
# with roff escapes removed: "\fB\-p\fR, \fB\-\-parallel\fR \fIn\fR" gives -p, --parallel, n
tags() {
	awk -v want="$2" '
		/^\.SH / { sub(/^\.SH +/, ""); gsub(/"/, ""); sect = $0; tp = 0; next }
		/^\.TP/ { tp = (sect == want); next }
		tp { print; tp = 0 }
	' "$1" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z][A-Z]* *//' -e 's/"//g' \
		-e 's/[,[]/ /g' | tr -s ' \t' '\n' | grep -E '^-' || true
}
# has_tag TAGS WORD: WORD is one of the lines of TAGS
has_tag() { grep -qxF -- "$2" <<<"$1"; }

# --- layoutctl.8: global options and commands ------------------------------------------------
gtags=$(tags "$docs/layoutctl.8" "GLOBAL OPTIONS")
[[ -n $gtags ]] || fail "layoutctl.8 has no GLOBAL OPTIONS entries"
for o in $("$LAYOUTCTL" __complete global-options); do
	has_tag "$gtags" "$o" || fail "layoutctl.8: no entry for the global option $o under GLOBAL OPTIONS"
done
known=" $("$LAYOUTCTL" __complete global-options | tr '\n' ' ') "
while read -r o; do
	[[ $o != --* || $known == *" $o "* ]] ||
		fail "layoutctl.8 documents the global option $o, which layoutctl does not have"
done <<<"$gtags"

commands_section=$(awk '/^\.SH / { s = ($2 == "COMMANDS") } s' "$docs/layoutctl.8" | sed 's/\\-/-/g')
see_also=$(awk '/^\.SH / { s = ($0 ~ /SEE ALSO/) } s' "$docs/layoutctl.8" | sed 's/\\-/-/g')
pages=0
for c in $("$LAYOUTCTL" __complete commands); do
	grep -qE "^\.(B|BI|BR) \"?$c( |\"|$)" <<<"$commands_section" ||
		fail "layoutctl.8: no entry for the command '$c' under COMMANDS"
	page=$docs/layoutctl-$c.8
	if [[ ! -f $page ]]; then
		[[ $builtins == *" $c "* ]] || fail "the command '$c' has no man page docs/layoutctl-$c.8"
		for o in $("$LAYOUTCTL" __complete options "$c"); do
			[[ $o == --help ]] || fail "the built-in '$c' has the option $o: it needs its own page"
		done
		continue
	fi
	pages=$((pages + 1))
	grep -q "docs/layoutctl-$c\.8" "$LCTL_SRCDIR/Makefile.am" ||
		fail "docs/layoutctl-$c.8 is not installed (dist_man_MANS in Makefile.am)"
	grep -q "layoutctl-$c (8)" <<<"$see_also" || fail "layoutctl.8: SEE ALSO lacks layoutctl-$c(8)"
	head=$(grep -m1 '^\.TH ' "$page")
	[[ $head == ".TH LAYOUTCTL\\-${c^^} 8 "* ]] || fail "$page: title is not LAYOUTCTL-${c^^}(8): $head"
	grep -q "^layoutctl\\\\-$c \\\\- " "$page" || fail "$page: NAME is not 'layoutctl-$c - ...'"
	grep -q '^\.SH "\?EXIT STATUS' "$page" || fail "$page: no EXIT STATUS section"

	otags=$(tags "$page" OPTIONS)
	for o in $("$LAYOUTCTL" __complete options "$c"); do
		has_tag "$otags" "$o" || fail "layoutctl-$c.8: no entry for $o under OPTIONS"
	done
	known=" $("$LAYOUTCTL" __complete options "$c" | tr '\n' ' ') "
	while read -r o; do
		[[ $o != --* || $known == *" $o "* ]] ||
			fail "layoutctl-$c.8 documents $o, which 'layoutctl $c' does not have"
	done <<<"$otags"
done
grep -q 'layoutctl\.8' "$LCTL_SRCDIR/Makefile.am" || fail "docs/layoutctl.8 is not installed"

# --- synopses and option entries agree with the option tables ---------------------------------
# the words of a roff text, escapes and macros removed
plain() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z][A-Z]* *//' -e 's/"//g' -e 's/[][,|]/ /g'; }
# wants_value CMD OPTION: the parser says so ("incomplete" when it is given last, alone)
wants_value() {
	local err
	err=$("$LAYOUTCTL" "$1" "$2" 2>&1 </dev/null) || true
	[[ $err == *incomplete* ]]
}
globals=" $("$LAYOUTCTL" __complete global-options | tr '\n' ' ') "
for c in $("$LAYOUTCTL" __complete commands); do
	page=$docs/layoutctl-$c.8
	[[ -f $page ]] || continue
	known=" $("$LAYOUTCTL" __complete options "$c" | tr '\n' ' ')$globals"
	help=$("$LAYOUTCTL" help "$c")
	# the first synopsis: the options it names are the command's, its operands the table's
	syn=$(awk '/^\.SH / { s = ($2 == "SYNOPSIS") } s && /^\.YS/ { exit } s && !/^\.S[HY]/' "$page")
	for w in $(plain <<<"$syn"); do
		[[ $w == -* ]] || continue
		[[ $w == --* ]] || w=$(grep -oE -- "-${w#-}, --[a-z-]+" <<<"$help" | sed -n '1s/.*, //p')
		[[ $known == *" $w "* ]] || fail "layoutctl-$c.8: the synopsis names $w, which 'layoutctl $c' does not have"
	done
	# (alternatives, A|B, read as the roff words A B)
	want=$(sed -n 1p <<<"$help" | sed -e "s/.* $c //" -e 's/\[OPTIONS\] *//' -e 's/|/ /g' |
		tr '[:upper:]' '[:lower:]')
	got=$(grep -E '^\.I ' <<<"$syn" | plain | tr -s ' \n' ' ' | sed 's/ $//')
	[[ $got == "$want" ]] || fail "layoutctl-$c.8: the synopsis has the operands '$got', the binary '$want'"
	# an OPTIONS entry shows a value exactly when the option wants one
	while IFS= read -r tag; do
		words=$(plain <<<"$tag")
		read -r -a w <<<"$words"
		[[ ${w[0]:-} == -* ]] || continue
		long=''
		value=''
		for x in "${w[@]}"; do
			case $x in
			--*) long=$x ;;
			-*) ;;
			*) value=$x ;;
			esac
		done
		[[ $long && $long != --help ]] || continue
		if wants_value "$c" "$long"; then
			[[ $value ]] || fail "layoutctl-$c.8: $long wants a value, its entry shows none"
		else
			[[ -z $value ]] || fail "layoutctl-$c.8: $long takes no value, its entry shows '$value'"
		fi
	done < <(awk '/^\.SH / { s = ($2 == "OPTIONS") } s && /^\.TP/ { getline; print }' "$page")
done
echo "checked layoutctl.8 and $pages command pages"
exit 0
