#!/bin/bash
# layoutctl explain against a real volume: it names the brick that holds a file (find on the
# bricks), the linkto and its target of a renamed file, the same hashed subvolume as DHT's own
# getxattr(dir, "dht.file.hashed-subvol.NAME") for missing names, fan-out for the root of a
# fresh volume (commit 1) and not for a fresh subdirectory, the layout mkdir then writes; it
# exits 1 for a name in a bad state, 2/3 with one line for bad input, and changes no brick.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq xmllint

lctl_vol_create dist 4 VOL
# plain distribute: DHT child i is brick i, "VOL-client-i"
BR=("${LCTL_BRICKS[@]}")
N=${#BR[@]}
assert_eq "$N" "$(lctl_subvol_count "$VOL")" "subvolume count"
sv() { printf '%s-client-%s\n' "$VOL" "$1"; }

is_linkto() { [[ -f $1 && $(stat -c %a -- "$1") == 1000 ]]; }
# data_on REL / linkto_on REL: the subvolume index whose brick holds the data file / a linkto
data_on() {
	local i
	for ((i = 0; i < N; i++)); do
		[[ -f ${BR[i]}/$1 ]] && ! is_linkto "${BR[i]}/$1" && echo "$i" && return
	done
	return 1
}
linkto_on() {
	local i
	for ((i = 0; i < N; i++)); do is_linkto "${BR[i]}/$1" && echo "$i" && return; done
	return 1
}
# explain_json PATH: the "explain" object; exit status must be $WANT (default 0)
explain_json() {
	local out rc=0
	out=$("$LAYOUTCTL" --json explain "$VOL" "$1") || rc=$?
	((rc == ${WANT:-0})) || fail "explain $1: exit $rc, expected ${WANT:-0}"
	jq -e . >/dev/null <<<"$out" || fail "explain $1: JSON does not parse"
	run_check "$LAYOUTCTL" __render --check /dev/stdin <<<"$out" >&2 # the same fields in text
	assert_eq 1 "$(jq .format_version <<<"$out")" "format_version"
	jq -c .explain <<<"$out"
}
field() { jq -r "$1" <<<"$2"; }

lctl_mount "$VOL" MP
mkdir "$MP/sub"
for i in $(seq 1 24); do echo "data $i" >"$MP/sub/f$i"; done
odd=$'caf\xc3\xa9 \xe6\x97\xa5'
echo odd >"$MP/sub/$odd"

# --- an existing file: explain names the brick that holds it ------------------------------------
for f in f1 f2 f3 "$odd"; do
	j=$(explain_json "/sub/$f")
	want=$(data_on "sub/$f") || fail "no data file for sub/$f on any brick"
	assert_eq "$(sv "$want")" "$(field .cached_subvolume "$j")" "cached subvolume of $f"
	assert_eq placed "$(field .state "$j")" "state of $f"
	assert_eq "$(field .hashed_subvolume "$j")" "$(field .cached_subvolume "$j")" "hashed = cached"
	assert_eq agrees "$(field .dht.check "$j")" "DHT's answer for $f"
	assert_eq data "$(field ".subvolumes[$want].entry.kind" "$j")" "entry on its brick"
	assert_eq "${BR[want]}" "$(field ".subvolumes[$want].bricks[0].path" "$j")" "brick path"
done
assert_eq "$odd" "$(field .name "$(explain_json "/sub/$odd")")" "a UTF-8 name is kept as is"

# --- a renamed file whose new name hashes elsewhere: the linkto and its target ------------------
renamed=
for i in $(seq 4 24); do
	mv "$MP/sub/f$i" "$MP/sub/g$i"
	if linkto_on "sub/g$i" >/dev/null; then
		renamed=g$i
		break
	fi
done
[[ -n $renamed ]] || fail "no rename made a linkto"
j=$(explain_json "/sub/$renamed")
l=$(linkto_on "sub/$renamed")
d=$(data_on "sub/$renamed")
assert_eq linked "$(field .state "$j")" "state of a renamed file"
assert_eq "$(sv "$l")" "$(field .linkto.on "$j")" "linkto subvolume"
assert_eq "$(sv "$d")" "$(field .linkto.target "$j")" "linkto target"
assert_eq "$(sv "$d")" "$(field .cached_subvolume "$j")" "data subvolume of a renamed file"
assert_eq "$(sv "$l")" "$(field .hashed_subvolume "$j")" "the linkto is on the hashed subvolume"
assert_eq linkto "$(field ".subvolumes[$l].entry.kind" "$j")" "entry kind on the linkto's brick"
assert_eq "$(sv "$d")" "$(field ".subvolumes[$l].entry.linkto" "$j")" "raw linkto value"
text=$("$LAYOUTCTL" explain "$VOL" "/sub/$renamed")
assert_contains "$text" "Linkto:        on $(sv "$l") -> $(sv "$d")"

# --- missing names: the hashed subvolume is what DHT says through FUSE ----------------------------
for name in missing1 nothing.txt .foo.txt.AbC123 .x.y $'\xc3\xa9' $'\xc3\xbc' $'\xd0\xb6' \
	$'a\xc3\xa92' "with space" "$(printf 'x%.0s' $(seq 1 200))"; do
	j=$(explain_json "/sub/$name")
	assert_eq absent "$(field .state "$j")" "state of a missing name"
	dht=$(getfattr -n "dht.file.hashed-subvol.$name" --only-values --absolute-names "$MP/sub" |
		tr -d '\0')
	assert_eq "$dht" "$(field .hashed_subvolume "$j")" "hashed subvolume of missing '$name'"
	assert_eq agrees "$(field .dht.check "$j")" "DHT check of '$name'"
done
# the rsync regex: ".foo.txt.AbC123" hashes as "foo.txt"
j=$(explain_json /sub/.foo.txt.AbC123)
assert_eq foo.txt "$(field .hashed_name "$j")" "munged name"
assert_eq 0xec803fce "$(field .hash_hex "$j")" "hash of foo.txt (dht-facts 2.2)"
assert_eq true "$(field .munged "$j")" "munged flag"
# the signed tail: "é" hashes to 0x65cfcaa1 (dht-facts 2.2)
assert_eq 0x65cfcaa1 "$(field .hash_hex "$(explain_json $'/sub/\xc3\xa9')")" "hash of é"

# --- fan-out: the root of a fresh volume (commit 1) fans out, a fresh subdirectory does not ------
j=$(explain_json /no-such-name)
assert_eq true "$(field .miss.fans_out "$j")" "root: fans out"
assert_eq $((N + 1)) "$(field .miss.lookups "$j")" "root: LOOKUPs per miss"
assert_eq '["commit-invalid"]' "$(jq -c .miss.reasons <<<"$j")" "root: reason"
assert_eq 1 "$(field .parent_layout.commit "$j")" "root: commit word"
j=$(explain_json /sub/no-such-name)
assert_eq false "$(field .miss.fans_out "$j")" "subdirectory: no fan-out"
assert_eq 1 "$(field .miss.lookups "$j")" "subdirectory: one LOOKUP"
assert_eq '["commit-match"]' "$(jq -c .miss.reasons <<<"$j")" "subdirectory: reason"

# --- mkdir writes the layout explain predicted for the missing name ------------------------------
j=$(explain_json /sub/newdir)
mkdir "$MP/sub/newdir"
for ((i = 0; i < N; i++)); do
	want=$(jq -r ".new_directory_ranges[$i] | [.commit, .type, .start, .stop] |
		map(. | tostring) | join(\" \")" <<<"$j")
	read -r c t s e <<<"$want"
	hex=$(printf '0x%08x%08x%08x%08x' "$c" "$t" "$s" "$e")
	assert_eq "$hex" "$(brick_xattr_hex "${BR[i]}" sub/newdir trusted.glusterfs.dht)" \
		"layout of the new directory on subvolume $i"
done
assert_eq directory "$(field .state "$(explain_json /sub/newdir)")" "a directory"

# --- XML and text -----------------------------------------------------------------------------
"$LAYOUTCTL" --format xml explain "$VOL" "/sub/$renamed" | xmllint --noout - || fail "XML"
"$LAYOUTCTL" --format xml explain "$VOL" "/sub/$odd" | xmllint --noout - || fail "XML, UTF-8 name"
text=$("$LAYOUTCTL" explain "$VOL" /sub/f1)
assert_contains "$text" "Hash:          0x"
assert_contains "$text" "Hashed subvol: "
assert_contains "$text" "DHT says:      "
# an odd byte is escaped, never written raw
out=$("$LAYOUTCTL" explain "$VOL" $'/sub/ctl\x01\tname')
assert_contains "$out" 'ctl\x01\x09name'
assert_not_contains "$out" $'\x01'
jq -e '.explain.name == "ctl\\x01\\x09name"' \
	<<<"$("$LAYOUTCTL" --json explain "$VOL" $'/sub/ctl\x01\tname')" >/dev/null ||
	fail "odd bytes in JSON"
lctl_umount "$MP"

# --- a name in a bad state exits 1: the data of the renamed file removed from its brick ---------
# (from here on nothing goes through a client that would heal it, but for explain's one
# getxattr on the parent directory)
gfid=$(brick_xattr_hex "${BR[d]}" "sub/$renamed" trusted.gfid)
gfid=${gfid#0x}
rm -f -- "${BR[d]}/sub/$renamed" \
	"${BR[d]}/.glusterfs/${gfid:0:2}/${gfid:2:2}/${gfid:0:8}-${gfid:8:4}-${gfid:12:4}-${gfid:16:4}-${gfid:20:12}"
before=$(brick_snapshot "${BR[@]}")
j=$(WANT=1 explain_json "/sub/$renamed")
assert_eq orphan-linkto "$(field .state "$j")" "state after the data file is gone"
assert_eq false "$(field .ok "$j")" "ok flag"
expect_exit 1 "$LAYOUTCTL" explain "$VOL" "/sub/$renamed"
expect_exit 1 "$LAYOUTCTL" --format xml explain "$VOL" "/sub/$renamed"
expect_exit 0 "$LAYOUTCTL" explain --no-dht "$VOL" /sub/f1
expect_exit 0 "$LAYOUTCTL" explain "$VOL" /sub/missing1
# read-only: nothing on any brick changed
after=$(brick_snapshot "${BR[@]}")
[[ $before == "$after" ]] || {
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2
	fail "explain changed a brick"
}

# --- a linkto value longer than explain reads (511 bytes): a linkto naming no subvolume --------
# (it was reported as "out of memory", exit 3; scan took the file for data, placed) explain and
# scan give it the same verdict, through gfapi and reading the brick folder directly
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(printf '41%.0s' $(seq 1 600))00" \
	"${BR[l]}/sub/$renamed"
j=$(WANT=1 explain_json "/sub/$renamed")
assert_eq orphan-linkto "$(field .state "$j")" "state with a 601-byte linkto value"
assert_eq linkto "$(field ".subvolumes[$l].entry.kind" "$j")" "a long linkto is a linkto"
assert_eq null "$(field .linkto.target "$j")" "a long linkto names no subvolume"
for reads in auto gfapi; do
	out=$("$LAYOUTCTL" --json scan --path /sub --brick-reads $reads "$VOL") && rc=0 || rc=$?
	assert_eq 1 "$rc" "scan --brick-reads $reads with a long linkto value"
	assert_eq orphan-linkto "$(jq -r --arg n "$renamed" '.directories[] | select(.path == "/sub") |
		.entries[] | select(.name == $n) | .state' <<<"$out")" \
		"scan --brick-reads $reads: the same verdict as explain"
done

# --- bad input: 2 for usage, 3 for what cannot be explained; one line each ----------------------
one_line() {
	local want=$1 out rc=0
	shift
	printf '+ layoutctl %s\n' "${*@Q}" >&2
	out=$("$LAYOUTCTL" "$@" 2>&1 >/dev/null) || rc=$?
	((rc == want)) || fail "exit $rc, expected $want: layoutctl ${*@Q}: $out"
	(($(printf '%s\n' "$out" | grep -vc "^try 'layoutctl") == 1)) || fail "not one line: $out"
}
one_line 2 explain "$VOL" sub/f1
one_line 2 explain "$VOL" /
one_line 2 explain "$VOL" /sub/../f1
one_line 2 explain "$VOL" "/sub/$(printf 'y%.0s' $(seq 1 256))"
one_line 2 explain "$VOL"
one_line 2 explain "$VOL" /a /b
one_line 2 explain --bogus "$VOL" /a
one_line 3 explain "$VOL" /no-such-dir/f1
one_line 3 explain "$VOL" /sub/f1/below-a-file
one_line 3 explain lctltest_no_such_volume /a
exit 0
