#!/bin/bash
# A linkto xattr that cannot be read. A read that fails (here EIO, as from a disk error under
# the brick) says neither "linkto" nor "data": scan once took such a file for data, so a
# renamed file's linkto became a second data copy (a false duplicate, "compare and remove a
# copy by hand") and an orphan linkto off the hashed subvolume a misplaced file that fix moved.
#
# The fault is injected into layoutctl (tools/faultxattr.c, LD_PRELOAD): every read of the
# linkto xattr of the files named $N fails with EIO, through gfapi (explain, the gfapi reader,
# fix) and through lgetxattr() (the direct reader of this host's brick folders). Two
# directories of a 2-brick distribute volume hold such a file:
#	/r	a renamed file: its linkto on the hashed brick, its data on the other;
#	/s	an orphan linkto on the brick that is not hashed, no data anywhere;
# and /c, renamed files without any fault, shows that fix does stamp.
# Last, the direct reader meets $N's linkto before its gfid is set (the first read of it finds
# none): it waits a moment and reads again, and the verdicts are those without the fault.
#   - without the fault, scan says /r/$N is linked and /s/$N an orphan linkto;
#   - with it, scan exits 1 and reports /r and /s unreadable (both readers alike), no verdict
#     on $N (neither duplicate nor misplaced), and names the file on stderr;
#   - explain exits 1: the subvolume of the linkto is an error there, the verdict incomplete;
#   - fix (the direct reader, then gfapi only) leaves /r and /s not fixed, never stamps them,
#     and $N's files on both bricks stay exactly as they were; /c is stamped.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq
fx_init
fx_preload faultxattr

lctl_vol_create dist 2 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
for d in r s c; do
	mkdir "$MP/$d"
	for i in $(seq 1 8); do echo "$d $i" >"$MP/$d/f$i"; done
done
# renames whose new name hashes elsewhere leave a linkto on the new hashed subvolume (names
# in /c that are not in /r)
for i in $(seq 1 8); do
	mv "$MP/r/f$i" "$MP/r/g$i"
	mv "$MP/c/f$i" "$MP/c/h$i"
done
N=$(hs_linked_name r)
echo "$N" >"$MP/s/$N"
lctl_umount "$MP"
# /s/$N: its data file removed from its (hashed) brick, an orphan linkto on the other naming it
H=$(hs_data_subvol "s/$N")
gfid=$(hs_xattr_hex "${B[H]}" "s/$N" trusted.gfid)
hs_brick_rm "${B[H]}" "s/$N"
O=$((1 - H))
hs_mk_linkto_gfid "$O" "s/$N" "$(hs_hex "$(hs_sv "$H")")00" "$gfid"
L=$(hs_linkto_subvol "r/$N")
D=$(hs_data_subvol "r/$N")
echo "/r/$N: linkto on $(hs_sv "$L"), data on $(hs_sv "$D"); /s/$N: orphan linkto on $(hs_sv "$O")" >&2

# entry_state JSON DIR: the state scan gives $N in DIR ("" if it lists no entry by that name)
entry_state() {
	jq -r --arg d "$2" --arg n "$N" '.directories[] | select(.path == $d) | .entries[] |
		select(.name == $n) | .state' "$1"
}
dir_problems() {
	jq -c --arg d "$2" '.directories[] | select(.path == $d) | .problems' "$1"
}

# --- without the fault: what the bricks hold --------------------------------------------------
hs_lctl "$FX/scan0.json" "$FX/scan0.err" --json scan --all --brick-reads gfapi "$VOL"
assert_eq linked "$(entry_state "$FX/scan0.json" /r)" "/r/$N without the fault"
assert_eq orphan-linkto "$(entry_state "$FX/scan0.json" /s)" "/s/$N without the fault"

snap() {
	brick_snapshot "${B[@]/%//r}" "${B[@]/%//s}" | grep -F -- "./$N"$'\t' || true
}
snap >"$FX/files.before"
assert_eq 2 "$(grep -c $'\ttrusted.glusterfs.dht.linkto=' "$FX/files.before")" \
	"linkto xattrs of $N on the bricks (/r and /s)"

# the fault from here on, in layoutctl only (the brick tools above must read the xattr)
FAULTY=(env FAULT_LINKTO_EIO="$N" LD_PRELOAD="$FX_PRELOAD" "$LAYOUTCTL")

# --- scan: both readers -----------------------------------------------------------------------
for reads in auto gfapi; do
	printf '+ layoutctl --json scan --all --brick-reads %s %s\n' "$reads" "$VOL" >&2
	LCTL_RC=0
	"${FAULTY[@]}" --json scan --all --brick-reads "$reads" "$VOL" >"$FX/scan.json" \
		2>"$FX/scan.err" || LCTL_RC=$?
	cat "$FX/scan.err" >&2
	_lctl_san_check "layoutctl scan --brick-reads $reads"
	assert_eq 1 "$LCTL_RC" "scan --brick-reads $reads exit status"
	hs_json_ok "$FX/scan.json"
	for d in /r /s; do
		jq -c --arg d "$d" '.directories[] | select(.path == $d) | {problems, entries}' \
			"$FX/scan.json" >&2
		assert_contains "$(dir_problems "$FX/scan.json" "$d")" '"unreadable"' \
			"scan --brick-reads $reads: $d"
		assert_eq "" "$(entry_state "$FX/scan.json" "$d")" \
			"scan --brick-reads $reads: a verdict on $d/$N, whose linkto could not be read"
		assert_contains "$(<"$FX/scan.err")" "'$d/$N' not judged: cannot read its linkto xattr"
	done
	assert_eq '0 0' "$(jq -r '.summary.entries | "\(.duplicate) \(.misplaced)"' "$FX/scan.json")" \
		"scan --brick-reads $reads: duplicate and misplaced entries"
	# the text says it too
	LCTL_RC=0
	"${FAULTY[@]}" -v scan --brick-reads "$reads" "$VOL" >"$FX/scan.txt" 2>/dev/null || LCTL_RC=$?
	assert_eq 1 "$LCTL_RC" "scan --brick-reads $reads (text) exit status"
	for d in /r /s; do
		assert_contains "$(grep -E "^DIR $d:" "$FX/scan.txt")" unreadable "scan text, $d"
	done
done

# --- explain: an error on the linkto's subvolume, an incomplete verdict -------------------------
for x in "r $L" "s $O"; do
	read -r d i <<<"$x"
	LCTL_RC=0
	"${FAULTY[@]}" --json explain "$VOL" "/$d/$N" >"$FX/explain.json" 2>"$FX/explain.err" ||
		LCTL_RC=$?
	jq -c .explain "$FX/explain.json" >&2
	assert_eq 1 "$LCTL_RC" "explain /$d/$N exit status"
	assert_eq true "$(jq .explain.incomplete "$FX/explain.json")" "explain /$d/$N: incomplete"
	assert_eq false "$(jq .explain.ok "$FX/explain.json")" "explain /$d/$N: ok"
	assert_eq error "$(jq -r ".explain.subvolumes[$i].entry.kind" "$FX/explain.json")" \
		"explain /$d/$N: the linkto's subvolume"
	assert_eq "Input/output error" "$(jq -r ".explain.subvolumes[$i].entry.error" "$FX/explain.json")" \
		"explain /$d/$N: its error"
	[[ $(jq -r .explain.state "$FX/explain.json") != duplicate ]] ||
		fail "explain /$d/$N: duplicate"
done

# --- fix: the direct reader, then gfapi only ----------------------------------------------------
FX_LAYOUTCTL=("${FAULTY[@]}")
for reads in auto gfapi; do
	fx_fix "$VOL" --settle 0 --brick-reads "$reads"
	assert_eq 1 "$LCTL_RC" "fix --brick-reads $reads exit status"
	h=$(fx_vol_hash "$VOL") # (the first fix sets it)
	[[ $h =~ ^[0-9]+$ ]] || fail "no volume commit hash on the brick roots"
	hx=$(printf '0x%08x' "$h")
	for d in /r /s; do
		line=$(grep -E "^not-fixed +$d: " "$FX/fix.out") ||
			fail "fix --brick-reads $reads: $d is not reported not fixed"
		assert_contains "$line" "cannot read it on every subvolume"
	done
	assert_not_contains "$(<"$FX/fix.out")" "compare and remove a copy by hand"
	for b in "${B[@]}"; do
		for d in r s; do
			v=$(brick_xattr_hex "$b" "$d" trusted.glusterfs.dht) || fail "no layout on /$d in $b"
			[[ $v != "$hx"* ]] || fail "fix --brick-reads $reads stamped /$d in $b ($v)"
		done
		v=$(brick_xattr_hex "$b" c trusted.glusterfs.dht) || fail "no layout on /c in $b"
		[[ $v == "$hx"* ]] || fail "fix --brick-reads $reads did not stamp /c in $b ($v)"
	done
	snap >"$FX/files.after"
	assert_unchanged "$FX/files.before" "$FX/files.after" "fix --brick-reads $reads changed $N's files"
done
FX_LAYOUTCTL=("$LAYOUTCTL")

# --- the fault gone: the same files as at the start ---------------------------------------------
hs_lctl "$FX/scan1.json" "$FX/scan1.err" --json scan --all --brick-reads gfapi "$VOL"
assert_eq linked "$(entry_state "$FX/scan1.json" /r)" "/r/$N after the fixes"
assert_eq orphan-linkto "$(entry_state "$FX/scan1.json" /s)" "/s/$N after the fixes"
# --- a linkto read from the brick folder before the brick set its gfid --------------------------
# (the brick's MKNOD sets the linkto xattr, then the gfid: for a moment a reader of the folder
# sees a linkto-mode file without a gfid; at b08761f the direct reader took it for data at
# once, and /r/$N, a linkto and its data, for a duplicate: "compare and remove a copy by hand")
# Every first read of $N's gfid finds none; the second finds it. One directory at a time.
for d in /r /s; do
	LCTL_RC=0
	env FAULT_GFID_LATE="$N" LD_PRELOAD="$FX_PRELOAD" "$LAYOUTCTL" --json scan --all \
		--brick-reads auto --parallel 1 --path "$d" "$VOL" >"$FX/late.json" 2>"$FX/late.err" ||
		LCTL_RC=$?
	cat "$FX/late.err" >&2
	_lctl_san_check "layoutctl scan (a gfid read late) $d"
	hs_json_ok "$FX/late.json"
	jq -c --arg d "$d" '.directories[] | select(.path == $d) | {problems, entries}' \
		"$FX/late.json" >&2
	[[ $d == /r ]] && want=linked || want=orphan-linkto
	assert_eq "$want" "$(entry_state "$FX/late.json" "$d")" "$d/$N, its gfid read late"
	assert_eq 0 "$(jq -r '.summary.entries.duplicate' "$FX/late.json")" \
		"duplicate entries, $N's gfid read late"
done

echo "fault-linkto-read: /r and /s unreadable in scan, explain and fix; $N's files unchanged"
