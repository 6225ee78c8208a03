#!/bin/bash
# Hostile extended attributes written on the bricks of a 3-brick distribute volume, one kind per
# directory: layout values of 8 and 20 bytes, user-set layouts (type 1, on every brick and on
# one), garbage commit words (the same everywhere, and different on each brick); linkto values
# naming no subvolume, naming the subvolume they sit on, two linkto files pointing at each other
# (with the data on the third subvolume, and without data anywhere), a value without its
# trailing NUL, a 300-byte value; a linkto next to a data file on its hashed subvolume (pointing
# at the data, and at a third subvolume); a linkto on the hashed subvolume naming the data's
# subvolume but carrying another gfid; and a directory that is a data file on one subvolume.
# And what GlusterFS's tests/bugs/distribute/bug-1161311.t leaves (a file hard-linked while it
# migrated): one file with 41 names in /hl, /hl/d1, /hl/d2 and /hl/d2/d3 whose linkto files name
# a subvolume without the data (as those of the subvolume the data left do). Fix points them at
# the data and stamps all four directories (scan --path /hl exits 0, lookup-optimize covers them
# all); the file stays where it is, behind correct linkto files; a second fix changes nothing
# there but the commit words; every name keeps its inode and link count through a fresh FUSE
# mount.
#
# "A data file and a linkto both on the hashed subvolume" cannot exist (one name per directory
# on a brick), so it is read as the two states that come closest: the data on the hashed
# subvolume with a linkto *elsewhere* that points back at the hashed one (/stray), and a linkto
# on the hashed subvolume that names that same subvolume (/lt-self, the data being elsewhere).
#
# For each: scan exits 1 and its --json output (valid JSON) names the right problem or entry
# state at the right path; fix then repairs what it can (exit 1, since some of it must be left),
# leaves the user-set layouts bit for bit as they were, never removes the data file that has a
# directory's name, and reports every directory it left by path; the scan afterwards reports
# exactly what is left. Nothing crashes, and every file's checksum is unchanged at the end.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init

lctl_vol_create dist 3 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
DIRS=(len8 len20 user usermix garbage garbmix lt-none lt-self lt-loop lt-ghost lt-nonul lt-long
	lt-gfid stray stray3 strayhl typeconf mig1 mig2 mig3)
for d in "${DIRS[@]}"; do
	mkdir "$MP/$d"
	[[ $d == typeconf || $d == lt-ghost ]] && continue
	for i in $(seq 1 8); do printf '%s %s\n' "$d" "$i" >"$MP/$d/f$i"; done
done
# renames whose new name hashes elsewhere leave a linkto on the new hashed subvolume
for d in lt-none lt-self lt-loop lt-nonul lt-long lt-gfid mig1 strayhl; do
	for i in $(seq 1 8); do mv "$MP/$d/f$i" "$MP/$d/g$i"; done
done
# hard links, which DHT does not migrate: strayhl's files stay where they are
for i in $(seq 1 8); do ln "$MP/strayhl/g$i" "$MP/strayhl/h$i"; done
# one file, hard-linked in four directories (bug-1161311.t): the names DHT did not hash to the
# data's subvolume get linkto files there
mkdir -p "$MP/hl/d1" "$MP/hl/d2/d3"
printf 'hard-linked\n' >"$MP/hl/d1/file"
HL=(hl/d1/file)
for d in hl hl/d1 hl/d2 hl/d2/d3; do
	for i in 1 2 3 4 5 6 7 8 9 10; do
		ln "$MP/hl/d1/file" "$MP/$d/n$i"
		HL+=("$d/n$i")
	done
done
HLDIRS=(/hl /hl/d1 /hl/d2 /hl/d2/d3)
hl_ids() { local p; for p in "${HL[@]}"; do stat -c "$p %h %i" -- "$1/$p"; done; }
hl_ids "$MP" >"$FX/hl.before"
assert_eq "${#HL[@]}" "$(awk '{print $2}' "$FX/hl.before" | sort -u)" "link count of the hard-linked file"
assert_eq 1 "$(awk '{print $3}' "$FX/hl.before" | sort -u | wc -l)" "inodes of the hard-linked file's names"
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"
# From here on nothing goes through a client until the scan: a lookup would heal what we break.

# --- layouts ------------------------------------------------------------------------------------
v=$(hs_layout "${B[1]}" len8)
hs_set_layout "${B[1]}" len8 "${v:0:16}"
v=$(hs_layout "${B[2]}" len20)
hs_set_layout "${B[2]}" len20 "${v}deadbeef"
for b in "${B[@]}"; do
	v=$(hs_layout "$b" user)
	hs_set_layout "$b" user "${v:0:8}00000001${v:16}"
done
v=$(hs_layout "${B[0]}" usermix)
hs_set_layout "${B[0]}" usermix "${v:0:8}00000001${v:16}"
for b in "${B[@]}"; do
	v=$(hs_layout "$b" garbage)
	hs_set_layout "$b" garbage "deadbeef${v:8}"
done
for i in 0 1 2; do
	v=$(hs_layout "${B[i]}" garbmix)
	hs_set_layout "${B[i]}" garbmix "$i$i$i$i$i$i$i$i${v:8}"
done

# --- linkto values ------------------------------------------------------------------------------
third() { echo $((3 - $1 - $2)); }
declare -A NAME LINK DATA
for d in lt-none lt-self lt-loop lt-nonul lt-long lt-gfid; do
	NAME[$d]=$(hs_linked_name "$d")
	LINK[$d]=$(hs_linkto_subvol "$d/${NAME[$d]}")
	DATA[$d]=$(hs_data_subvol "$d/${NAME[$d]}")
done
lt() { printf '%s\n' "${B[${LINK[$1]}]}/$1/${NAME[$1]}"; }
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$VOL-client-9")00" -- "$(lt lt-none)"
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "${LINK[lt-self]}")")00" -- "$(lt lt-self)"
# a loop: hashed L -> X and X -> L, the data on the third subvolume D
X=$(third "${LINK[lt-loop]}" "${DATA[lt-loop]}")
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "$X")")00" -- "$(lt lt-loop)"
hs_mk_linkto "$X" "lt-loop/${NAME[lt-loop]}" "$(hs_hex "$(hs_sv "${LINK[lt-loop]}")")00" "${DATA[lt-loop]}"
# a loop without data anywhere: two linkto files "ghost" on 0 and 1 pointing at each other
ghost_gfid=0x$(tr -d - </proc/sys/kernel/random/uuid)
hs_mk_linkto_gfid 0 lt-ghost/ghost "$(hs_hex "$(hs_sv 1)")00" "$ghost_gfid"
hs_mk_linkto_gfid 1 lt-ghost/ghost "$(hs_hex "$(hs_sv 0)")00" "$ghost_gfid"
# the right target, but without DHT's trailing NUL
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "${DATA[lt-nonul]}")")" -- "$(lt lt-nonul)"
# 300 bytes
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(printf 'x%.0s' $(seq 1 299) | od -v -An -tx1 | tr -d ' \n')00" \
	-- "$(lt lt-long)"
# the right target, but the gfid of another file (one of that name, removed while this brick
# was away, say): DHT finds another gfid behind it and asks every subvolume at each lookup
gfid_data=$(hs_xattr_hex "${B[${DATA[lt-gfid]}]}" "lt-gfid/${NAME[lt-gfid]}" trusted.gfid)
hs_brick_rm "${B[${LINK[lt-gfid]}]}" "lt-gfid/${NAME[lt-gfid]}"
hs_mk_linkto_gfid "${LINK[lt-gfid]}" "lt-gfid/${NAME[lt-gfid]}" "$(hs_hex "$(hs_sv "${DATA[lt-gfid]}")")00" \
	"0x$(tr -d - </proc/sys/kernel/random/uuid)"
# (the brick process remembers the old linkto's gfid by name, and readdirplus would answer with
# it: restart it, as if it came back now)
hs_kill_brick "$VOL" "${B[${LINK[lt-gfid]}]}"
hs_restart_bricks "$VOL"
# a stray linkto beside a placed file: pointing at the data (hashed) subvolume, or at a third
sd=$(hs_data_subvol stray/f1)
hs_mk_linkto $(((sd + 1) % 3)) stray/f1 "$(hs_hex "$(hs_sv "$sd")")00" "$sd"
s3=$(hs_data_subvol stray3/f1)
hs_mk_linkto $(((s3 + 1) % 3)) stray3/f1 "$(hs_hex "$(hs_sv $(((s3 + 2) % 3)))")00" "$s3"
# a hard-linked file away from its hashed subvolume, reached through a correct linkto there,
# and a stray linkto to the data on the third subvolume (left by an older layout, say)
hln=$(hs_linked_name strayhl)
hld=$(hs_data_subvol "strayhl/$hln")
hll=$(hs_linkto_subvol "strayhl/$hln")
hl3=$((3 - hld - hll))
g=$(hs_gfid_link "${B[hld]}" "strayhl/$hln")
g=${B[hl3]}/${g#"${B[hld]}"/}
if [[ -e $g ]]; then
	# the other name's linkto is there already, with this gfid: posix hard-links a new linkto
	# of the same gfid to it, so does this (and it names the data subvolume too)
	ln -- "$g" "${B[hl3]}/strayhl/$hln"
else
	hs_mk_linkto "$hl3" "strayhl/$hln" "$(hs_hex "$(hs_sv "$hld")")00" "$hld"
fi
hs_is_linkto "${B[hl3]}" "strayhl/$hln" || fail "could not make the stray linkto of strayhl/$hln"

# the file moved to D while it was linked (bug-1161311.t): the linkto files of its other names
# still name the subvolume it left. Here those on each of the two other subvolumes name the
# third one (so that every /hl directory has some, whatever the names hash to); on a brick the
# linkto files of one gfid are hard links of one inode.
hlD=$(hs_data_subvol hl/d1/file)
for p in "${HL[@]}"; do
	for i in 0 1 2; do
		((i == hlD)) || ! hs_is_linkto "${B[i]}" "$p" || setfattr -n trusted.glusterfs.dht.linkto \
			-v "0x$(hs_hex "$(hs_sv $((3 - hlD - i)))")00" -- "${B[i]}/$p"
	done
done

# --- what a migration killed half-way leaves (DHT's migration runs inside the fix's process) -----
# phase 1, killed while copying from D (not hashed) to H (hashed): the source on D keeps the
# data, with setgid + sticky and a linkto value naming H; the destination on H is a linkto-mode
# file naming D (here: the renamed file's linkto) that holds part of the data
m1n=$(hs_linked_name mig1)
m1=$(hs_data_subvol "mig1/$m1n")
m1to=$(hs_linkto_subvol "mig1/$m1n")
chmod g+s,+t -- "${B[m1]}/mig1/$m1n"
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "$m1to")")00" -- "${B[m1]}/mig1/$m1n"
head -c 4 "${B[m1]}/mig1/$m1n" >"${B[m1to]}/mig1/$m1n"
# phase 2, killed before the source was truncated: the destination holds all the data, the
# source has become a linkto-mode file (still full size) naming the destination
m2=$(hs_data_subvol mig2/f2)
m2src=$(((m2 + 1) % 3))
hs_mk_linkto "$m2src" mig2/f2 "$(hs_hex "$(hs_sv "$m2")")00" "$m2"
cat "${B[m2]}/mig2/f2" >"${B[m2src]}/mig2/f2"

# killed after the copy, before the source became a linkto: the destination on H (hashed) has
# all the data and its own mode, and still the linkto xattr naming the source's subvolume D; the
# source on D has the data too, setgid + sticky, and a linkto xattr naming H. Clients list the
# name twice.
m3=$(hs_data_subvol mig3/f3)
m3src=$(((m3 + 1) % 3))
f=${B[m3src]}/mig3/f3
cat "${B[m3]}/mig3/f3" >"$f"
chmod "$(stat -c %a "${B[m3]}/mig3/f3")" "$f"
chmod g+s,+t "$f"
setfattr -n trusted.gfid -v "$(hs_xattr_hex "${B[m3]}" mig3/f3 trusted.gfid)" -- "$f"
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "$m3")")00" -- "$f"
g=$(hs_gfid_link "${B[m3src]}" mig3/f3)
mkdir -p -- "${g%/*}"
ln -- "$f" "$g"
setfattr -n trusted.glusterfs.dht.linkto -v "0x$(hs_hex "$(hs_sv "$m3src")")00" -- "${B[m3]}/mig3/f3"

# --- a directory that is a data file on one subvolume --------------------------------------------
hs_brick_rm "${B[2]}" typeconf
printf 'precious\n' >"${B[2]}/typeconf"

# --- scan ---------------------------------------------------------------------------------------
# brick folders read directly and through gfapi: the same report on this hostile state
scan_readers_agree "$VOL"
brick_snapshot "${B[@]/%//user}" "${B[@]/%//usermix}" >"$FX/user.before"
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan "$VOL"
cat "$FX/scan.err" >&2
assert_eq 1 "$LCTL_RC" "scan exit status"
hs_json_ok "$FX/scan.json"
jq -c '.directories[] | select(.clean == false or .user_layout) |
	{path, problems, user_layout, layout: [.layout[] | .state],
	 entries: [.entries[] | select(.state != "placed" and .state != "linked") |
		{name, state, hashed, cached, linkto_on, linkto_target}]}' "$FX/scan.json" >&2

dir_problems() { jq -c --arg d "$1" '[.directories[] | select(.path == $d) | .problems | sort] | .[0]' "$FX/scan.json"; }
dir_field() { jq -c --arg d "$1" ".directories[] | select(.path == \$d) | $2" "$FX/scan.json"; }
entry() { jq -c --arg d "$1" --arg n "$2" '.directories[] | select(.path == $d) | .entries[] |
	select(.name == $n) | [.state, .hashed, .cached, .linkto_on, .linkto_target]' "$FX/scan.json"; }

assert_eq '["hole","malformed-layout"]' "$(dir_problems /len8)" "/len8"
assert_eq '["ok","malformed","ok"]' "$(dir_field /len8 '[.layout[].state]')" "/len8 layout states"
assert_eq '["hole","malformed-layout"]' "$(dir_problems /len20)" "/len20"
assert_eq '["ok","ok","malformed"]' "$(dir_field /len20 '[.layout[].state]')" "/len20 layout states"
# a user-set layout is no problem in itself: counted in the summary, listed with --all
assert_eq 2 "$(jq .summary.directories_user_layout "$FX/scan.json")" "user-set layouts counted"
hs_lctl "$FX/scan-all.json" "$FX/scan.err" --json scan --all "$VOL"
assert_eq 1 "$LCTL_RC" "scan --all exit status"
hs_json_ok "$FX/scan-all.json"
for d in /user /usermix; do
	assert_eq true "$(jq --arg d "$d" '.directories[] | select(.path == $d) | .user_layout' "$FX/scan-all.json")" \
		"$d is reported as a user-set layout"
done
assert_eq '["unstamped"]' "$(dir_problems /garbage)" "/garbage"
assert_eq 3735928559 "$(dir_field /garbage .commit)" "/garbage commit word"
assert_eq '["commit-mixed"]' "$(dir_problems /garbmix)" "/garbmix"
assert_eq '["hole","not-a-directory"]' "$(dir_problems /typeconf)" "/typeconf"
assert_eq '["ok","ok","not-a-directory"]' "$(dir_field /typeconf '[.layout[].state]')" "/typeconf layout states"

n=${NAME[lt-none]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-none]}")\",\"$(hs_sv "${DATA[lt-none]}")\",\"$(hs_sv "${LINK[lt-none]}")\",null]" \
	"$(entry /lt-none "$n")" "linkto naming no subvolume"
n=${NAME[lt-self]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-self]}")\",\"$(hs_sv "${DATA[lt-self]}")\",\"$(hs_sv "${LINK[lt-self]}")\",\"$(hs_sv "${LINK[lt-self]}")\"]" \
	"$(entry /lt-self "$n")" "linkto naming its own subvolume"
n=${NAME[lt-loop]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-loop]}")\",\"$(hs_sv "${DATA[lt-loop]}")\",\"$(hs_sv "${LINK[lt-loop]}")\",\"$(hs_sv "$X")\"]" \
	"$(entry /lt-loop "$n")" "linkto loop with data"
assert_eq '"orphan-linkto"' "$(entry /lt-ghost ghost | jq -c '.[0]')" "linkto loop without data"
n=${NAME[lt-nonul]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-nonul]}")\",\"$(hs_sv "${DATA[lt-nonul]}")\",\"$(hs_sv "${LINK[lt-nonul]}")\",null]" \
	"$(entry /lt-nonul "$n")" "linkto without its NUL"
n=${NAME[lt-long]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-long]}")\",\"$(hs_sv "${DATA[lt-long]}")\",\"$(hs_sv "${LINK[lt-long]}")\",null]" \
	"$(entry /lt-long "$n")" "300-byte linkto"
n=${NAME[lt-gfid]}
assert_eq "[\"stale-linkto\",\"$(hs_sv "${LINK[lt-gfid]}")\",\"$(hs_sv "${DATA[lt-gfid]}")\",\"$(hs_sv "${LINK[lt-gfid]}")\",\"$(hs_sv "${DATA[lt-gfid]}")\"]" \
	"$(entry /lt-gfid "$n")" "linkto with another file's gfid"
assert_eq "[\"stale-linkto\",\"$(hs_sv "$sd")\",\"$(hs_sv "$sd")\",\"$(hs_sv $(((sd + 1) % 3)))\",\"$(hs_sv "$sd")\"]" \
	"$(entry /stray f1)" "stray linkto pointing at the hashed subvolume"
assert_eq "[\"stale-linkto\",\"$(hs_sv "$s3")\",\"$(hs_sv "$s3")\",\"$(hs_sv $(((s3 + 1) % 3)))\",\"$(hs_sv $(((s3 + 2) % 3)))\"]" \
	"$(entry /stray3 f1)" "stray linkto pointing at a third subvolume"
assert_eq "[\"stale-linkto\",\"$(hs_sv "$hll")\",\"$(hs_sv "$hld")\",\"$(hs_sv "$hl3")\",\"$(hs_sv "$hld")\"]" \
	"$(entry /strayhl "$hln")" "stray linkto beside a linked, hard-linked file"

# every /hl directory has a name whose linkto on its hashed subvolume names a subvolume without
# the data
for d in "${HLDIRS[@]}"; do
	n=$(jq --arg d "$d" '[.directories[] | select(.path == $d) | .entries[] |
		select(.state == "stale-linkto" and .linkto_on == .hashed and .linkto_target != .cached)] |
		length' "$FX/scan.json")
	((n > 0)) || fail "$d: no stale linkto beside the hard-linked file"
done

echo "mig1/$m1n: $(entry /mig1 "$m1n")" >&2
echo "mig2/f2: $(entry /mig2 f2)" >&2
assert_eq '"migration-leftover"' "$(entry /mig1 "$m1n" | jq -c '.[0]')" "an interrupted migration (phase 1)"
[[ $(entry /mig2 f2 | jq -r '.[0]') != placed ]] || fail "an interrupted migration (phase 2) is not reported"
echo "mig3/f3: $(entry /mig3 f3)" >&2
assert_eq '"migration-leftover"' "$(entry /mig3 f3 | jq -c '.[0]')" "an interrupted migration (copied, not finished)"

# (phase 2 is reported as a stale linkto: a linkto-mode file next to the data; unlike a real
# linkto it is not empty)

# the same in XML and text, without a crash
hs_lctl "$FX/scan.xml" "$FX/scan.err" --format xml scan --all "$VOL"
assert_eq 1 "$LCTL_RC" "scan --format xml exit status"
xmllint --noout "$FX/scan.xml" || fail "scan --format xml is not well-formed"
hs_lctl "$FX/scan.txt" "$FX/scan.err" -vvv scan --all "$VOL"
assert_eq 1 "$LCTL_RC" "scan -vvv exit status"
assert_contains "$(<"$FX/scan.txt")" "DIR /typeconf: not-a-directory"

# --- fix ----------------------------------------------------------------------------------------
mkdir -p "$FX/state"
hs_lctl "$FX/fix.json" "$FX/fix.err" --json -v fix --state-dir "$FX/state" --settle 1 --parallel 2 "$VOL"
cat "$FX/fix.err" >&2
assert_eq 1 "$LCTL_RC" "fix exit status (the type conflict must be left)"
hs_json_ok "$FX/fix.json"
jq -c '.directories[] | {path, outcome, reason}' "$FX/fix.json" >&2
# a clean-first run reports a directory once per phase: the last report is its end state
outcome() { jq -r --arg d "$1" '[.directories[] | select(.path == $d)] | last | .outcome' "$FX/fix.json"; }
assert_eq not-fixed "$(outcome /typeconf)" "/typeconf outcome"
assert_contains "$(jq -r '[.directories[] | select(.path == "/typeconf")] | last | .reason' "$FX/fix.json")" "non-directory"
# the directories the first phase left not fixed and the data phase repaired (the interrupted
# migrations among them) are counted as such in the summary
later=$(jq '[.directories | group_by(.path)[] | select(length > 1 and .[0].outcome == "not-fixed"
	and (last | .outcome) == "fixed")] | length' "$FX/fix.json")
((later > 0)) || fail "no directory left by the first phase was repaired by the data phase"
assert_eq "$later" "$(jq .summary.clean_first.repaired_later "$FX/fix.json")" \
	"summary.clean_first.repaired_later"
for d in /mig1 /mig2; do
	[[ $(outcome "$d") == fixed ]] ||
		soft_fail "$d (what a fix killed during a migration leaves): $(jq -c --arg d "$d" '.directories[] | select(.path == $d)' "$FX/fix.json")"
done
# the stray linkto beside a hard-linked file is removed; the file stays linked
assert_eq fixed "$(outcome /strayhl)" "/strayhl outcome"
[[ ! -e ${B[hl3]}/strayhl/$hln ]] || fail "the stray linkto of /strayhl/$hln is still on ${B[hl3]}"
hs_is_linkto "${B[hll]}" "strayhl/$hln" || fail "the linkto of /strayhl/$hln on its hashed brick is gone"
# the hard-linked file with stale linkto files: every directory fixed and stamped, the data
# where it was, every linkto of it naming the data's subvolume (hl_bricks_check)
hl_bricks_check() {
	local p i h want
	h=$(printf '%08x' "$(fx_vol_hash "$VOL")")
	want=0x$(hs_hex "$(hs_sv "$hlD")")00
	for p in "${HL[@]}"; do
		[[ -f ${B[hlD]}/$p ]] && ! hs_is_linkto "${B[hlD]}" "$p" || fail "/$p: no data on ${B[hlD]}"
		for i in 0 1 2; do
			((i == hlD)) && continue
			[[ -e ${B[i]}/$p ]] || continue
			hs_is_linkto "${B[i]}" "$p" || fail "/$p: data on ${B[i]} too"
			assert_eq "$want" "$(hs_xattr_hex "${B[i]}" "$p" trusted.glusterfs.dht.linkto)" \
				"linkto of /$p on ${B[i]}"
		done
	done
	# the data's own link count on its brick: every name and the .glusterfs handle
	assert_eq $((${#HL[@]} + 1)) "$(stat -c %h -- "${B[hlD]}/hl/d1/file")" "link count on ${B[hlD]}"
	for p in "${HLDIRS[@]}"; do
		for i in 0 1 2; do
			assert_eq "$h" "$(hs_layout "${B[i]}" "$p" | cut -c1-8)" "commit word of $p on ${B[i]}"
		done
	done
}
for d in "${HLDIRS[@]}"; do
	assert_eq fixed "$(outcome "$d")" "$d outcome (stale linkto files of a hard-linked file)"
done
hl_bricks_check
hs_lctl "$FX/hl-scan.json" "$FX/hl-scan.err" --json scan --path /hl "$VOL"
assert_eq 0 "$LCTL_RC" "scan --path /hl after the fix"
assert_eq '[4,1]' "$(jq -c '[.summary.directories, .summary.lookup_optimize_coverage.directory_share]' \
	"$FX/hl-scan.json")" "directories of /hl, and the share lookup-optimize covers"
# /hl on the bricks but the layout xattrs (whose commit word a fix of the whole volume changes)
hl_snapshot() { LCTL_SNAPSHOT_IGNORE='^trusted\.glusterfs\.(mdata|dht)$' brick_snapshot "${B[@]/%//hl}"; }
hl_snapshot >"$FX/hl.fixed"

# the linkto with another file's gfid is gone: the file's own gfid is on its hashed brick now
assert_eq fixed "$(outcome /lt-gfid)" "/lt-gfid outcome"
assert_eq "$gfid_data" "$(hs_xattr_hex "${B[${LINK[lt-gfid]}]}" "lt-gfid/${NAME[lt-gfid]}" trusted.gfid)" \
	"gfid of /lt-gfid/${NAME[lt-gfid]} on its hashed brick after the fix"
# the copied one is finished as DHT would have: one data file, on H, without a linkto xattr
assert_eq fixed "$(outcome /mig3)" "/mig3 outcome"
[[ ! -e ${B[m3src]}/mig3/f3 ]] || fail "the source of /mig3/f3 is still on ${B[m3src]}: $(stat -c %a "${B[m3src]}/mig3/f3")"
[[ -z $(getfattr --absolute-names -n trusted.glusterfs.dht.linkto "${B[m3]}/mig3/f3" 2>/dev/null) ]] ||
	fail "/mig3/f3 keeps a linkto xattr on its data file"
grep '"path":"/mig3/f3"' "$FX/state/outcomes.jsonl" | grep >/dev/null -c 'completed a migration interrupted after its copy' ||
	fail "no outcome line for /mig3/f3: $(grep mig3 "$FX/state/outcomes.jsonl")"
assert_eq left-alone "$(outcome /user)" "/user outcome"
assert_eq left-alone "$(outcome /usermix)" "/usermix outcome"
# the user-set layouts and everything in those directories are exactly as they were
brick_snapshot "${B[@]/%//user}" "${B[@]/%//usermix}" >"$FX/user.after"
# (lib/fixvisit.c dirty_visit writes commit word 1 into the type-0 copies of /usermix, whose type-1
# copy makes repair leave it alone)
diff -u "$FX/user.before" "$FX/user.after" >&2 || soft_fail "fix changed a directory it reports as left alone (user-set layout)"
# the data file with the directory's name is still there, untouched
assert_eq precious "$(cat "${B[2]}/typeconf")" "the file named like a directory"

# --- what is left: exactly the type conflict and the two user-set layouts ------------------------
hs_lctl "$FX/scan2.json" "$FX/scan2.err" --json scan "$VOL"
assert_eq 1 "$LCTL_RC" "scan after the fix"
hs_json_ok "$FX/scan2.json"
left=$(jq -c '[.directories[] | select(.clean == false) | select(.path | test("^/mig") | not) |
	{path, problems: (.problems | sort)}] | sort_by(.path)' "$FX/scan2.json")
assert_eq '[{"path":"/typeconf","problems":["hole","not-a-directory","unstamped"]},{"path":"/user","problems":["unstamped"]},{"path":"/usermix","problems":["unstamped"]}]' \
	"$left" "left after the fix"

# the administrator resolves the conflict (the file goes elsewhere); a second fix ends clean
# but for the user-set layouts, which stay as the user set them
mv -- "${B[2]}/typeconf" "$FX/typeconf.saved"
logged=$(wc -l <"$FX/state/outcomes.jsonl")
fx_fix "$VOL" --parallel 2
[[ $LCTL_RC == 0 ]] || soft_fail "second fix exited $LCTL_RC"
# /hl again: nothing to do but stamp (the file, hard-linked, is left behind its linkto files)
tail -n +$((logged + 1)) "$FX/state/outcomes.jsonl" |
	jq -c 'select(.path | startswith("/hl/")) | select(.outcome != "skipped" or
		(.reason | startswith("hard links") | not))' >"$FX/hl.again"
[[ ! -s $FX/hl.again ]] || fail "the second fix changed /hl: $(head -3 "$FX/hl.again")"
hl_bricks_check
hl_snapshot >"$FX/hl.again"
assert_unchanged "$FX/hl.fixed" "$FX/hl.again" "the second fix changed /hl on the bricks (layout xattrs aside)"
hs_lctl "$FX/scan3.json" "$FX/scan3.err" --json scan "$VOL"
assert_eq 1 "$LCTL_RC" "scan after the second fix"
left=$(jq -c '[.directories[] | select(.clean == false) | .path | select(test("^/mig") | not)] | sort' "$FX/scan3.json")
assert_eq '["/user","/usermix"]' "$left" "left after the second fix"

MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
hl_ids "$MP" >"$FX/hl.after"
assert_files_equal "$FX/hl.before" "$FX/hl.after" "a name of the hard-linked file: link count or inode"
soft_end
exit 0
