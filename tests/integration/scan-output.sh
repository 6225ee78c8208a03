#!/bin/bash
# shellcheck disable=SC2034 # the odd names below are used through ${!v}
# layoutctl scan output on a real volume: JSON parses and has format_version, XML passes xmllint,
# Prometheus output is valid textfile format, --path and --max-depth bound the walk, -v lists
# the bad entries by path, odd names (UTF-8, control bytes, invalid UTF-8, backslash, spaces,
# 255 bytes) are escaped as out_name() says and keep every format valid; a wrong --path and a
# brick that is down are reported as such.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq xmllint

lctl_vol_create dist 2 VOL
B=("${LCTL_BRICKS[@]}")

# odd names: raw bytes, and how out_name() writes them (used through ${!v})
n_utf8=$'h\xc3\xa9llo w\xc3\xb6rld' e_utf8=$'h\xc3\xa9llo w\xc3\xb6rld'
n_cjk=$'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt' e_cjk=$'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt'
n_ctl=$'ctl\x01\x1b[31mred' e_ctl='ctl\x01\x1b[31mred'
n_nl=$'new\nline' e_nl='new\x0aline'
n_tab=$'tab\there' e_tab='tab\x09here'
n_del=$'del\x7f' e_del='del\x7f'
n_sp='  two  spaces ' e_sp='  two  spaces '
n_bs='back\slash' e_bs='back\\slash'
n_bad=$'bad\xff\xfe\xc3' e_bad='bad\xff\xfe\xc3'
n_long=$(printf 'x%.0s' {1..255}) e_long=$n_long
n_longu=$(printf '\xe6\x97\xa5%.0s' {1..85}) e_longu=$n_longu
n_dir=$'d\x02ir \xc3\xbc' e_dir='d\x02ir '$'\xc3\xbc'
names=(n_utf8 n_cjk n_ctl n_nl n_tab n_del n_sp n_bs n_bad n_long n_longu)
((${#n_long} == 255)) || fail "long name is ${#n_long} bytes"
((${#n_longu} == 85 && $(printf '%s' "$n_longu" | wc -c) == 255)) || fail "long UTF-8 name"

MP=$(lctl_mount "$VOL")
mkdir -p "$MP/a/b/c/d" "$MP/a/x" "$MP/e" "$MP/odd" "$MP/$n_dir"
for d in a a/b a/b/c a/b/c/d a/x e; do
	for i in $(seq 1 6); do echo "$d $i" >"$MP/$d/f$i"; done
done
for v in "${names[@]}"; do echo "${!v}" >"$MP/odd/${!v}"; done
echo in-odd-dir >"$MP/$n_dir/$n_ctl"
# a renamed file whose linkto goes away becomes misplaced
for i in $(seq 1 6); do mv "$MP/a/b/c/f$i" "$MP/a/b/c/g$i"; done
lctl_umount "$MP"
mis=
for i in $(seq 1 6); do
	for b in "${B[@]}"; do
		if [[ $(stat -c %a "$b/a/b/c/g$i") == 1000 ]]; then
			rm -f -- "$b/a/b/c/g$i"
			mis=g$i
			break 2
		fi
	done
done
[[ -n $mis ]] || fail "no rename in /a/b/c made a linkto"
# the odd control-byte name copied onto the other brick too: a duplicate
for b in "${B[@]}"; do
	[[ -e $b/odd/$n_ctl ]] || echo dup >"$b/odd/$n_ctl"
done

# --- JSON ---------------------------------------------------------------------------------------
expect_exit 1 "$LAYOUTCTL" --json scan --all "$VOL" >/dev/null
json=$("$LAYOUTCTL" --json scan --all "$VOL" || true)
# the live records: their every field is in text too, as in XML (tests/cli/golden.sh: fixed ones)
run_check "$LAYOUTCTL" __render --check /dev/stdin <<<"$json" >&2
jq -e '.format_version == 1 and .command == "scan" and (.summary | type) == "object"' \
	<<<"$json" >/dev/null || fail "json: format_version, command or summary missing"
assert_eq 9 "$(jq '.directories | length' <<<"$json")" "json --all lists every directory"
want=$(for v in "${names[@]}"; do e=e_${v#n_}; printf '%s\n' "${!e}"; done | LC_ALL=C sort)
got=$(jq -r '.directories[] | select(.path == "/odd") | .entries[].name' <<<"$json" | LC_ALL=C sort)
assert_eq "$want" "$got" "escaped names in json"
assert_eq "/$e_dir" "$(jq -r '.directories[] | select(.files == 1) | .path' <<<"$json")" "escaped dir"
assert_eq "duplicate" "$(jq -r --arg n "$e_ctl" '.directories[] | select(.path == "/odd") |
	.entries[] | select(.name == $n) | .state' <<<"$json")" "odd duplicate"
assert_eq 48 "$(jq '.summary.files' <<<"$json")" "files counted"

# --- XML ----------------------------------------------------------------------------------------
xml=$("$LAYOUTCTL" --format xml scan --all "$VOL" || true)
xmllint --noout - <<<"$xml" || fail "xml does not parse"
assert_eq 1 "$(xmllint --xpath 'string(/cliOutput/layoutctl/@formatVersion)' - <<<"$xml")" "xml version"
assert_eq 9 "$(xmllint --xpath 'count(//directories/directory)' - <<<"$xml")" "xml directories"
assert_eq "$e_ctl" "$(xmllint --xpath 'string(//directory[path="/odd"]/entries/entry[state="duplicate"]/name)' - <<<"$xml")" \
	"xml escaped name"
assert_eq 0 "$(xmllint --xpath 'string(/cliOutput/opRet)' - <<<"$xml")" "xml opRet"

# --- Prometheus textfile ------------------------------------------------------------------------
expect_exit 1 "$LAYOUTCTL" --format prometheus scan "$VOL" >/dev/null
prom=$("$LAYOUTCTL" --format prometheus scan "$VOL" || true)
declare -A help=() type=()
samples=0
while IFS= read -r line; do
	if [[ $line =~ ^#\ HELP\ ([a-z_]+)\ .+$ ]]; then
		[[ -z ${help[${BASH_REMATCH[1]}]:-} ]] || fail "prometheus: HELP twice for ${BASH_REMATCH[1]}"
		help[${BASH_REMATCH[1]}]=1
	elif [[ $line =~ ^#\ TYPE\ ([a-z_]+)\ (gauge|counter|untyped)$ ]]; then
		[[ -n ${help[${BASH_REMATCH[1]}]:-} ]] || fail "prometheus: TYPE before HELP: $line"
		[[ -z ${type[${BASH_REMATCH[1]}]:-} ]] || fail "prometheus: TYPE twice: $line"
		type[${BASH_REMATCH[1]}]=1
	elif [[ $line =~ ^([a-z_]+)(\{[^}]*\})?\ [0-9.e+-]+$ ]]; then
		[[ -n ${type[${BASH_REMATCH[1]}]:-} ]] || fail "prometheus: sample without TYPE: $line"
		samples=$((samples + 1))
	else
		fail "prometheus: invalid line: $line"
	fi
done <<<"$prom"
((samples > 10)) || fail "prometheus: only $samples samples"
assert_contains "$prom" "layoutctl_scan_clean{volume=\"$VOL\"} 0"
assert_contains "$prom" "layoutctl_scan_entries{volume=\"$VOL\",state=\"misplaced\"} 1"
assert_contains "$prom" "layoutctl_scan_entries{volume=\"$VOL\",state=\"duplicate\"} 1"

# --- --path, --max-depth ------------------------------------------------------------------------
paths() { jq -r '.directories[].path' | LC_ALL=C sort | paste -sd' '; }
assert_eq "/a/b /a/b/c /a/b/c/d" "$("$LAYOUTCTL" --json scan --all --path /a/b "$VOL" | paths)" "--path"
assert_eq "/a/b/c/d" "$("$LAYOUTCTL" --json scan --all --path /a/b/c/d "$VOL" | paths)" "--path leaf"
expect_exit 0 "$LAYOUTCTL" scan --path /a/b/c/d "$VOL" >/dev/null
expect_exit 1 "$LAYOUTCTL" scan --path /a/b "$VOL" >/dev/null
assert_eq "/" "$("$LAYOUTCTL" --json scan --all --max-depth 0 "$VOL" | paths)" "--max-depth 0"
assert_eq "/ /a /d"$'\x5c'"x02ir "$'\xc3\xbc'" /e /odd" \
	"$("$LAYOUTCTL" --json scan --all --max-depth 1 "$VOL" | paths)" "--max-depth 1"
assert_eq "/a /a/b /a/x" "$("$LAYOUTCTL" --json scan --all --path /a --max-depth 1 "$VOL" | paths)" \
	"--path with --max-depth"
# without --all only what is not clean, and its summary counts only the subtree
j=$("$LAYOUTCTL" --json scan --path /a "$VOL" || true)
assert_eq "/a/b/c" "$(paths <<<"$j")" "--path /a lists the bad directory only"
assert_eq 5 "$(jq .summary.directories <<<"$j")" "--path /a counts its subtree"

# --- text and -v --------------------------------------------------------------------------------
text=$("$LAYOUTCTL" -v scan "$VOL" || true)
assert_contains "$text" "misplaced          /a/b/c/$mis (data on " "-v names the misplaced entry"
assert_contains "$text" "duplicate          /odd/$e_ctl (data on -" "-v names the odd duplicate"
assert_contains "$text" "DIR /a/b/c: 1 entry not reachable from the hashed subvolume"
assert_not_contains "$text" "/a/b/c/d" "-v lists clean directories"
! grep -qE '^  (placed|linked) +/' <<<"$text" || fail "-v lists placed or linked entries"
text=$("$LAYOUTCTL" -v scan --all "$VOL" || true)
for v in "${names[@]}"; do
	e=e_${v#n_}
	assert_contains "$text" "/odd/${!e} (data on" "-v --all lists /odd/${!e}"
done
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$text"; then
	fail "raw control bytes in the text output"
fi

# --- the global options after the command: the same as before it (issue 16) ----------------------
# (the elapsed time and the timestamp differ from run to run, the order of directories too)
norm() {
	local x
	x=$(cat)
	if [[ $x == "{"* ]]; then
		jq -cS '.directories |= sort_by(.path) | del(.summary.seconds)' <<<"$x"
	else
		grep -vE 'scanned in|_seconds|<seconds>' <<<"$x" | LC_ALL=C sort
	fi
}
same() { # BEFORE-ARGS -- AFTER-ARGS: both exit 1 (not clean) with the same output
	local -a a=() b=()
	while [[ $1 != -- ]]; do a+=("$1"); shift; done
	shift
	b=("$@")
	expect_exit 1 "$LAYOUTCTL" "${b[@]}" >/dev/null
	assert_eq "$({ "$LAYOUTCTL" "${a[@]}" || true; } | norm)" "$({ "$LAYOUTCTL" "${b[@]}" || true; } | norm)" \
		"layoutctl ${b[*]} against ${a[*]}"
}
same -v scan "$VOL" -- scan -v "$VOL"
same -v scan --all "$VOL" -- scan --all -v "$VOL"
same --format prometheus scan "$VOL" -- scan --format prometheus "$VOL"
same --json scan --all "$VOL" -- scan --json --all "$VOL"
same --format xml scan "$VOL" -- scan -f xml "$VOL"

# --- errors -------------------------------------------------------------------------------------
expect_exit 3 "$LAYOUTCTL" scan --path /no/such/dir "$VOL"
j=$("$LAYOUTCTL" --json scan --path /no/such "$VOL" 2>/dev/null || true)
jq -e '.error.op_errno == 2 and (.error.message | test("no directory"))' <<<"$j" >/dev/null ||
	fail "json of a missing --path has no error: $j"
expect_exit 3 "$LAYOUTCTL" scan --path /a/f1 "$VOL"
expect_exit 2 "$LAYOUTCTL" scan --path a/b "$VOL"
expect_exit 2 "$LAYOUTCTL" scan --max-depth -1 "$VOL"
expect_exit 2 "$LAYOUTCTL" scan --parallel 0 "$VOL"
expect_exit 3 "$LAYOUTCTL" scan lctltest_no_such_volume

# --- a brick down: every directory is still visited, and says which subvolume is down ----------
all_dirs=$(jq '.summary.directories' <<<"$json")
pid=$(gluster --mode=script volume status "$VOL" "$(hostname):${B[1]}" --xml |
	xmllint --xpath 'string(//node/pid)' -)
[[ $pid =~ ^[0-9]+$ ]] || fail "no pid for brick ${B[1]}"
kill -9 "$pid"
j=$("$LAYOUTCTL" --json scan "$VOL") && fail "scan with a brick down exited 0"
assert_eq "$all_dirs" "$(jq '.summary.directories' <<<"$j")" "directories visited with a brick down"
jq -e --arg sv "$VOL-client-1" '.directories | length > 0 and
	all(.problems | index("subvolume-down")) and
	all(.layout[] | select(.subvolume == $sv) | .state == "down")' <<<"$j" >/dev/null ||
	fail "not every directory reports $VOL-client-1 down"
exit 0
