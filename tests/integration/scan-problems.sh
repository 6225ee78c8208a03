#!/bin/bash
# layoutctl scan against a distribute volume where every kind of problem was built by hand on
# the bricks, one per directory: the scan reports exactly those (kind and path, from --json):
# incomplete, missing, hole, overlap, commit-mixed, unstamped, malformed-layout; misplaced,
# orphan-linkto, stale-linkto (wrong target, stray linkto), duplicate (gfid copy, plain file),
# migration-leftover (not a user's setgid+sticky file); linked entries are clean. Each problem's subtree exits 1, a linked-only
# one exits 0. Directories without a gfid on a brick are reported, never looked up (a lookup
# would make the brick assign one). No scan changes any brick (tree and trusted.* xattrs).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq

lctl_vol_create dist 3 VOL
B=("${LCTL_BRICKS[@]}")
sv() { printf '%s-client-%s' "$VOL" "$1"; }

# --- helpers working on the bricks themselves ---------------------------------------------------
# is_linkto BRICK REL: a DHT linkto file (mode ---------T)
is_linkto() { [[ -f $1/$2 && $(stat -c %a -- "$1/$2") == 1000 ]]; }
# data_subvol REL / linkto_subvol REL: index of the brick holding the data file / the linkto
data_subvol() {
	local i
	for i in "${!B[@]}"; do
		[[ -f ${B[i]}/$1 ]] && ! is_linkto "${B[i]}" "$1" && echo "$i" && return
	done
	return 1
}
linkto_subvol() {
	local i
	for i in "${!B[@]}"; do is_linkto "${B[i]}" "$1" && echo "$i" && return; done
	return 1
}
# third I J: the subvolume index that is neither I nor J (3 subvolumes)
third() { echo $((3 - $1 - $2)); }
# gfid_link BRICK REL: the brick's .glusterfs entry of REL (hard link for files, symlink for dirs)
gfid_link() {
	local h
	h=$(brick_xattr_hex "$1" "$2" trusted.gfid) || fail "no gfid on $1/$2"
	h=${h#0x}
	printf '%s/.glusterfs/%s/%s/%s-%s-%s-%s-%s\n' "$1" "${h:0:2}" "${h:2:2}" \
		"${h:0:8}" "${h:8:4}" "${h:12:4}" "${h:16:4}" "${h:20:12}"
}
# brick_rm BRICK REL: remove a file or directory tree from one brick, with its gfid entry
brick_rm() {
	local g
	g=$(gfid_link "$1" "$2")
	rm -rf -- "${1:?}/$2" "$g"
}
# set_layout BRICK REL HEX32: write a raw 16-byte layout xattr [commit type start stop]
set_layout() { setfattr -n trusted.glusterfs.dht -v "0x$3" -- "$1/$2"; }
hexstr() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
# mk_linkto I REL TARGET GFID_FROM: a linkto file as DHT makes it on subvolume I (mode 01000,
# the data file's gfid and its .glusterfs hard link, the target's name with its NUL)
mk_linkto() {
	local f=${B[$1]}/$2 g
	: >"$f"
	chmod 1000 -- "$f"
	setfattr -n trusted.gfid -v "$(brick_xattr_hex "${B[$4]}" "$2" trusted.gfid)" -- "$f"
	setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hexstr "$(sv "$3")")00" -- "$f"
	g=$(gfid_link "${B[$1]}" "$2")
	mkdir -p -- "${g%/*}"
	ln -- "$f" "$g"
}

# --- build the tree through FUSE ----------------------------------------------------------------
MP=$(lctl_mount "$VOL")
for d in ok lnk noxattr gone hole overlap mixed unstamped malformed \
	mis orphan stale stray stray2 dup dupplain leftover; do
	mkdir "$MP/$d"
done
for d in ok lnk mis orphan stale stray stray2 dup dupplain leftover; do
	for i in $(seq 1 8); do echo "$d $i" >"$MP/$d/f$i"; done
done
# renames whose new name hashes elsewhere leave a linkto on the new hashed subvolume
for d in lnk mis orphan stale stray2; do
	for i in $(seq 1 8); do mv "$MP/$d/f$i" "$MP/$d/g$i"; done
done
lctl_umount "$MP"
# From here on nothing goes through a client, which would heal what we break.

# one renamed file per directory that got a linkto
linked_name() {
	local i
	for i in $(seq 1 8); do linkto_subvol "$1/g$i" >/dev/null && echo "g$i" && return; done
	fail "no rename in /$1 made a linkto"
}
((${#B[@]} == 3)) || fail "want 3 bricks"

# a layout xattr removed on one brick: that subvolume has no range, which also leaves a hole
setfattr -x trusted.glusterfs.dht -- "${B[1]}/noxattr"
# the directory removed from one brick
brick_rm "${B[0]}" gone
# hand-written layouts (commit 0 = the fresh volume's hash, type 0)
set_layout "${B[0]}" hole 00000000000000000000000040000000
set_layout "${B[1]}" hole 00000000000000005000000090000000
set_layout "${B[2]}" hole 0000000000000000a0000000ffffffff
set_layout "${B[0]}" overlap 0000000000000000000000005fffffff
set_layout "${B[1]}" overlap 0000000000000000500000009fffffff
set_layout "${B[2]}" overlap 0000000000000000a0000000ffffffff
# different commit words across bricks
v=$(brick_xattr_hex "${B[1]}" mixed trusted.glusterfs.dht)
set_layout "${B[1]}" mixed "12345678${v:10}"
# the same commit word everywhere, but not the volume's: misses fan out
for b in "${B[@]}"; do
	v=$(brick_xattr_hex "$b" unstamped trusted.glusterfs.dht)
	set_layout "$b" unstamped "00000001${v:10}"
done
# a layout of an unknown type
v=$(brick_xattr_hex "${B[2]}" malformed trusted.glusterfs.dht)
set_layout "${B[2]}" malformed "${v:2:8}00000007${v:18}"

# misplaced: the linkto of a renamed file deleted
mis=$(linked_name mis)
brick_rm "${B[$(linkto_subvol "mis/$mis")]}" "mis/$mis"
mis_data=$(data_subvol "mis/$mis")
# orphan-linkto: the data file of a renamed file deleted
orphan=$(linked_name orphan)
orphan_link=$(linkto_subvol "orphan/$orphan")
orphan_data=$(data_subvol "orphan/$orphan")
brick_rm "${B[orphan_data]}" "orphan/$orphan"
# stale-linkto: a linkto naming the subvolume that does not have the data (value with its NUL)
stale=$(linked_name stale)
stale_link=$(linkto_subvol "stale/$stale")
stale_data=$(data_subvol "stale/$stale")
stale_wrong=$(third "$stale_link" "$stale_data")
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hexstr "$(sv "$stale_wrong")")00" -- \
	"${B[stale_link]}/stale/$stale"
# stale-linkto too: a stray linkto on a subvolume that is not the hashed one, for a placed file
stray_data=$(data_subvol stray/f1)
stray_on=$(((stray_data + 1) % 3))
mk_linkto "$stray_on" stray/f1 "$stray_data" "$stray_data"
# stale-linkto also: a renamed file reachable through its linkto, plus a stray linkto elsewhere
stray2=$(linked_name stray2)
stray2_link=$(linkto_subvol "stray2/$stray2")
stray2_data=$(data_subvol "stray2/$stray2")
stray2_on=$(third "$stray2_link" "$stray2_data")
mk_linkto "$stray2_on" "stray2/$stray2" "$stray2_data" "$stray2_data"
# duplicate: a copy of a data file, gfid and all, on a second brick
dup_data=$(data_subvol dup/f1)
dup_copy=$(((dup_data + 1) % 3))
cp -a -- "${B[dup_data]}/dup/f1" "${B[dup_copy]}/dup/f1"
assert_eq "$(brick_xattr_hex "${B[dup_data]}" dup/f1 trusted.gfid)" \
	"$(brick_xattr_hex "${B[dup_copy]}" dup/f1 trusted.gfid)" "cp -a did not copy the gfid"
g=$(gfid_link "${B[dup_copy]}" dup/f1)
mkdir -p -- "${g%/*}"
ln -- "${B[dup_copy]}/dup/f1" "$g"
# duplicate: a plain file (no gfid) of the same name on a second brick
dp_data=$(data_subvol dupplain/f2)
echo plain >"${B[$(((dp_data + 2) % 3))]}/dupplain/f2"
# migration-leftover: a migration's source, with the phase-1 bits (setgid + sticky) and the
# linkto xattr naming its destination, as DHT marks it
lo_data=$(data_subvol leftover/f3)
chmod g+s,+t -- "${B[lo_data]}/leftover/f3"
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hexstr "$(sv $(((lo_data + 1) % 3)))")00" -- \
	"${B[lo_data]}/leftover/f3"
# the same bits without the xattr are a user's (chmod 3644, 7755): data, placed (issue 28)
chmod 3644 -- "${B[$(data_subvol leftover/f5)]}/leftover/f5"
chmod 7755 -- "${B[$(data_subvol ok/f2)]}/ok/f2"

# a directory made on the bricks by hand, without a gfid: a lookup would give it one (a
# different one on each brick), so the scan must not read it, and says so
for b in "${B[@]}"; do mkdir -p -- "$b/nogfid/sub"; done
# a directory made by hand with a gfid on two bricks and without one on the first: neither it
# nor what is below it is read there (the brick processes never saw any of it)
brick_mkdir() { # BRICK REL GFID(uuid) PARENT_GFID(uuid) LAYOUT(hex)
	local g=${3//-/}
	mkdir -- "$1/$2"
	setfattr -n trusted.gfid -v "0x$g" -- "$1/$2"
	setfattr -n trusted.glusterfs.dht -v "0x$5" -- "$1/$2"
	mkdir -p -- "$1/.glusterfs/${g:0:2}/${g:2:2}"
	ln -s -- "../../${4:0:2}/${4:2:2}/$4/${2##*/}" "$1/.glusterfs/${g:0:2}/${g:2:2}/$3"
}
root_gfid=00000000-0000-0000-0000-000000000001
g1=$(cat /proc/sys/kernel/random/uuid) g2=$(cat /proc/sys/kernel/random/uuid)
brick_mkdir "${B[1]}" halfgfid "$g1" "$root_gfid" 00000000000000000000000080000000
brick_mkdir "${B[2]}" halfgfid "$g1" "$root_gfid" 000000000000000080000001ffffffff
brick_mkdir "${B[1]}" halfgfid/sub "$g2" "$g1" 00000000000000000000000080000000
brick_mkdir "${B[2]}" halfgfid/sub "$g2" "$g1" 000000000000000080000001ffffffff
mkdir -p -- "${B[0]}/halfgfid/sub"

# --- scan -------------------------------------------------------------------------------------
snap=$(mktemp -d "${TMPDIR:-/tmp}/lctl-scan-problems.XXXXXX")
lctl_on_exit rm -rf -- "$snap"
brick_snapshot "${B[@]}" >"$snap/before"

expect_exit 1 "$LAYOUTCTL" --json scan "$VOL" >"$snap/scan.json"
json=$(<"$snap/scan.json")
jq -e '.format_version == 1' <<<"$json" >/dev/null || fail "no format_version 1"

# directories: exactly these, with exactly these problems
want_dirs='[
 {"path":"/","problems":["unstamped"]},
 {"path":"/gone","problems":["hole","missing"]},
 {"path":"/hole","problems":["hole"]},
 {"path":"/malformed","problems":["hole","malformed-layout"]},
 {"path":"/mixed","problems":["commit-mixed"]},
 {"path":"/halfgfid","problems":["unreadable"]},
 {"path":"/halfgfid/sub","problems":["unreadable"]},
 {"path":"/nogfid","problems":["hole","unreadable"]},
 {"path":"/noxattr","problems":["hole","incomplete"]},
 {"path":"/overlap","problems":["overlap"]},
 {"path":"/unstamped","problems":["unstamped"]}
]'
got_dirs=$(jq -c '[.directories[] | select(.problems | length > 0) |
	{path, problems: (.problems | sort)}] | sort_by(.path)' <<<"$json")
assert_eq "$(jq -c "sort_by(.path)" <<<"$want_dirs")" "$got_dirs" "directory problems"

# entries: exactly these are not reachable by name
want_entries=$(jq -nc --arg mis "/mis/$mis" --arg orphan "/orphan/$orphan" \
	--arg stale "/stale/$stale" \
	--arg stray2 "/stray2/$stray2" '[
 {"path":"/dup/f1","state":"duplicate"},
 {"path":"/dupplain/f2","state":"duplicate"},
 {"path":"/leftover/f3","state":"migration-leftover"},
 {"path":$mis,"state":"misplaced"},
 {"path":$orphan,"state":"orphan-linkto"},
 {"path":$stale,"state":"stale-linkto"},
 {"path":"/stray/f1","state":"stale-linkto"},
 {"path":$stray2,"state":"stale-linkto"}
] | sort_by(.path)')
got_entries=$(jq -c '[.directories[] | .path as $d | .entries[] |
	select(.state != "placed" and .state != "linked") |
	{path: ((if $d == "/" then "" else $d end) + "/" + .name), state}] | sort_by(.path)' <<<"$json")
assert_eq "$want_entries" "$got_entries" "entry states"

jq -e '.directories[] | select(.path == "/nogfid") | .layout | map(.state) | unique == ["no-gfid"]' \
	<<<"$json" >/dev/null || fail "/nogfid: layout states are not no-gfid"
for d in /halfgfid /halfgfid/sub; do
	jq -e --arg d "$d" '.directories[] | select(.path == $d) | .layout | map(.state) ==
		["no-gfid", "ok", "ok"]' <<<"$json" >/dev/null || fail "$d: layout states"
done

# the details name the right subvolumes
entry() { jq -c --arg d "$1" --arg n "$2" '.directories[] | select(.path == $d) | .entries[] |
	select(.name == $n) | [.state, .hashed, .cached, .linkto_on, .linkto_target]' <<<"$json"; }
mis_hashed=$(jq -r --arg n "$mis" '.directories[] | select(.path == "/mis") | .entries[] |
	select(.name == $n) | .hashed' <<<"$json")
[[ $mis_hashed != "$(sv "$mis_data")" && $mis_hashed == "$VOL"-client-[0-2] ]] ||
	fail "misplaced: hashed subvolume '$mis_hashed' (data on $(sv "$mis_data"))"
assert_eq "[\"misplaced\",\"$mis_hashed\",\"$(sv "$mis_data")\",null,null]" "$(entry /mis "$mis")"
assert_eq "[\"orphan-linkto\",\"$(sv "$orphan_link")\",null,\"$(sv "$orphan_link")\",\"$(sv "$orphan_data")\"]" \
	"$(entry /orphan "$orphan")"
assert_eq "[\"stale-linkto\",\"$(sv "$stale_link")\",\"$(sv "$stale_data")\",\"$(sv "$stale_link")\",\"$(sv "$stale_wrong")\"]" \
	"$(entry /stale "$stale")"
assert_eq "[\"stale-linkto\",\"$(sv "$stray_data")\",\"$(sv "$stray_data")\",\"$(sv "$stray_on")\",\"$(sv "$stray_data")\"]" \
	"$(entry /stray f1)"
assert_eq "[\"stale-linkto\",\"$(sv "$stray2_link")\",\"$(sv "$stray2_data")\",\"$(sv "$stray2_on")\",\"$(sv "$stray2_data")\"]" \
	"$(entry /stray2 "$stray2")"
assert_eq "[\"duplicate\",null,null,null]" "$(entry /dup f1 | jq -c '.[0:1] + .[2:5]')"
assert_eq "[\"migration-leftover\",\"$(sv "$lo_data")\",\"$(sv "$lo_data")\",null,null]" \
	"$(entry /leftover f3)"

# renamed files with their linkto are fine: /lnk and /ok are clean, so not listed
jq -e '[.directories[] | select(.path == "/lnk" or .path == "/ok")] | length == 0' \
	<<<"$json" >/dev/null || fail "/lnk or /ok listed as not clean"
linked=$(jq '.summary.entries.linked' <<<"$json")
((linked >= 1)) || fail "summary counts no linked entry"
assert_eq 21 "$(jq .summary.directories <<<"$json")" "directories scanned"
assert_eq 2 "$(jq .summary.directories_clean <<<"$json")" "clean directories (/ok, /lnk)"

# each problem alone makes its subtree exit 1; a subtree that is only linked exits 0
for d in gone hole overlap mixed unstamped malformed noxattr mis orphan stale stray stray2 dup dupplain leftover; do
	expect_exit 1 "$LAYOUTCTL" scan --path "/$d" "$VOL"
done
# a walk that starts at or below a directory without a gfid does not look it up either
for d in /nogfid /halfgfid /halfgfid/sub; do
	out=$("$LAYOUTCTL" --json scan --path "$d" "$VOL" || true)
	assert_eq "$(jq -c --arg d "$d" '[.[] | select(.path == $d or (.path | startswith($d + "/")))] |
		sort_by(.path)' <<<"$want_dirs")" \
		"$(jq -c '[.directories[] | {path, problems: (.problems | sort)}] | sort_by(.path)' <<<"$out")" \
		"--path $d"
done
expect_exit 0 "$LAYOUTCTL" scan --path /lnk "$VOL"
expect_exit 0 "$LAYOUTCTL" scan --path /ok "$VOL"
out=$("$LAYOUTCTL" --json scan --all --path /lnk "$VOL")
jq -e '.directories | length == 1 and .[0].path == "/lnk" and .[0].clean and
	(.[0].entries | length == 8) and
	(.[0].entries | map(.state) | unique - ["linked", "placed"] == []) and
	(.[0].entries | any(.state == "linked")) and
	(.[0].entries | map(select(.state == "linked")) |
		all(.linkto_target == .cached and .linkto_on == .hashed and .cached != .hashed))' \
	<<<"$out" >/dev/null || fail "--all does not list the placed and linked entries of /lnk: $out"

# the verdicts in text too
out=$("$LAYOUTCTL" -v scan "$VOL" || true)
for want in "DIR /gone: missing hole" "DIR /overlap: overlap" "DIR /mixed: commit-mixed" \
	"misplaced          /mis/$mis " "orphan-linkto      /orphan/$orphan " \
	"duplicate          /dup/f1 " "migration-leftover /leftover/f3 " "Verdict: NOT CLEAN"; do
	assert_contains "$out" "$want" "-v output"
done

# read-only: other formats and options too, then every brick is as it was
# the brick folders read directly (the default on the bricks' own host) and through gfapi:
# the same report, problem for problem
scan_readers_agree "$VOL"
expect_exit 1 "$LAYOUTCTL" --format xml scan --all "$VOL" >/dev/null
expect_exit 1 "$LAYOUTCTL" --format prometheus scan "$VOL" >/dev/null
expect_exit 1 "$LAYOUTCTL" -vvv scan --all --layout min-move --parallel 1 "$VOL" >/dev/null 2>&1
brick_snapshot "${B[@]}" >"$snap/after"
assert_unchanged "$snap/before" "$snap/after" "scan changed the bricks"
exit 0
