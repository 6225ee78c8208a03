#!/bin/bash
# Hostile input that needs a volume: odd --path values, a state directory that cannot be written
# (a file where the directory should be, a directory below a file, a read-only bind mount), a
# journal that is damaged or forged (binary garbage, a NUL, too big, a directory, a valid
# checksum over another volume / commit word 1 / a relative scope), and a journal whose commit
# hash is no longer the volume's when the run is resumed. Then security: nothing layoutctl
# prints in any format or at any log level, and nothing in its state directory, holds the brick
# password of the volfile; the state directory is 0700 and its files 0600 after a fix, also
# under umask 000. A state directory an unprivileged user prepared (links to root's files and to
# /dev/zero, FIFOs, hard links under every state file's name) is refused or its entries
# replaced: nothing outside it is written or read, nothing hangs.
#
# Every refusal: exit 3 (2 for a usage error), exactly one "layoutctl: error:" line with no raw
# control character, advice where a journal is refused, and no brick changed. At the end every
# file's checksum is unchanged and scan exits 0.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq setpriv
fx_init

lctl_vol_create dist 3 VOL
MP=$(lctl_mount "$VOL")
fx_populate "$MP" 12 200 31
mkdir -p "$MP/a/b"
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
snap() { brick_snapshot "${B[@]}" >"$FX/snap.$1"; }

# no_raw FILE: no control character (but newline) and valid UTF-8
no_raw() {
	python3 - "$1" <<-'EOF' || fail "raw control characters or invalid UTF-8 in $1: $(od -c "$1" | head -5)"
		import re, sys
		b = open(sys.argv[1], "rb").read()
		b.decode("utf-8", "strict")
		sys.exit(1 if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b) else 0)
	EOF
}
# refuse RC ARGS...: layoutctl ARGS exits RC (a glob: [23] for either) with one clean error line
refuse() {
	local want=$1
	shift
	hs_lctl "$FX/r.out" "$FX/r.err" "$@"
	# shellcheck disable=SC2053 # $want is a glob on purpose
	[[ $LCTL_RC == $want ]] || { cat "$FX/r.err" >&2; fail "exit $LCTL_RC, want $want: ${*@Q}"; }
	hs_one_line "$FX/r.err"
	no_raw "$FX/r.err"
}

# --- paths ----------------------------------------------------------------------------------------
snap before
esc=$'\x1b]0;pwned\x07'
refuse 3 scan --path /no-such-dir "$VOL"
refuse 3 scan --path "/$esc" "$VOL"
refuse 3 scan --path $'/\xff\xfe' "$VOL"
refuse '[23]' scan --path "/$(printf 'x%.0s' $(seq 1 300))" "$VOL"
# fix of a directory that does not exist: like scan, "could not run" (3), and nothing written
for p in /no-such-dir "/$esc"; do
	hs_lctl "$FX/r.out" "$FX/r.err" fix --path "$p" --state-dir "$FX/s0" --settle 0 "$VOL"
	no_raw "$FX/r.err"
	if ((LCTL_RC != 3)); then
		soft_fail "fix --path ${p@Q} (no such directory): exit $LCTL_RC, not 3: $(cat "$FX/r.out" "$FX/r.err")"
	else
		hs_one_line "$FX/r.err"
	fi
done
# a path longer than PATH_MAX: refused, with a message about its length
long=$(printf '/%0250d' $(seq 1 20))
hs_lctl "$FX/r.out" "$FX/r.err" fix --path "$long" --state-dir "$FX/s0" --settle 0 "$VOL"
((LCTL_RC == 2 || LCTL_RC == 3)) || fail "fix with a 5000-byte --path: exit $LCTL_RC"
hs_one_line "$FX/r.err"
grep -q 'not absolute' "$FX/r.err" && soft_fail "a too long --path is called 'not absolute': $(cat "$FX/r.err")"
(($(wc -c <"$FX/r.err") < 600)) || soft_fail "the error about a long --path is $(wc -c <"$FX/r.err") bytes long"
hs_lctl "$FX/r.out" "$FX/r.err" scan --path "$long" "$VOL"
((LCTL_RC == 2 || LCTL_RC == 3)) || fail "scan with a 5000-byte --path: exit $LCTL_RC"
hs_one_line "$FX/r.err"
# '..' and '.' components: a subtree spelled so that it is another one (or the whole volume)
# must not run as that subtree under another name; refuse them (exit 2) or normalise them
for p in /a/.. /a/../a /./a /.. /a/./b; do
	hs_lctl "$FX/r.out" "$FX/r.err" --json scan --path "$p" "$VOL"
	case $LCTL_RC in
	2 | 3) hs_one_line "$FX/r.err" ;;
	*)
		hs_json_ok "$FX/r.out"
		if jq -r '.directories[].path' "$FX/r.out" | grep >/dev/null -cE '(^|/)\.\.?(/|$)'; then
			soft_fail "scan --path $p reports paths with . or ..: $(jq -c '[.directories[].path]' "$FX/r.out")"
		fi
		;;
	esac
done
hs_lctl "$FX/r.out" "$FX/r.err" fix --path /a/.. --state-dir "$FX/sdots" --settle 0 --dry-run "$VOL"
if ((LCTL_RC != 2 && LCTL_RC != 3)); then
	soft_fail "fix --path /a/.. is accepted (exit $LCTL_RC): a whole-volume run under a subtree's rules"
fi
snap after
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a refused command changed the bricks"

# --- a state directory that cannot be written -----------------------------------------------------
: >"$FX/afile"
refuse 3 fix --state-dir "$FX/afile" --settle 0 "$VOL"
refuse 3 fix --state-dir "$FX/afile/sub" --settle 0 "$VOL"
mkdir -p "$FX/ro"
mount --bind "$FX/ro" "$FX/ro"
lctl_on_exit "umount -l '$FX/ro' 2>/dev/null || true"
mount -o remount,bind,ro "$FX/ro"
touch "$FX/ro/x" 2>/dev/null && fail "the read-only bind mount is writable"
refuse 3 fix --state-dir "$FX/ro" --settle 0 "$VOL"
refuse 3 fix --state-dir "$FX/ro/sub" --settle 0 "$VOL"
# a state directory on a full filesystem: the journal cannot be written
mkdir -p "$FX/full"
mount -t tmpfs -o size=64k tmpfs "$FX/full"
lctl_on_exit "umount -l '$FX/full' 2>/dev/null || true"
head -c 1M /dev/zero >"$FX/full/filler" 2>/dev/null || true
refuse 3 fix --state-dir "$FX/full/state" --settle 0 "$VOL"
snap after
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a fix refused for its state directory changed the bricks"
# a dry run writes nothing, so a read-only state directory is no obstacle
hs_lctl "$FX/r.out" "$FX/r.err" fix --dry-run --state-dir "$FX/ro" "$VOL"
((LCTL_RC == 0 || LCTL_RC == 1)) || fail "fix --dry-run with a read-only state directory: exit $LCTL_RC"

# --- damaged and forged journals ------------------------------------------------------------------
S=$FX/state
mkdir -p "$S"
# a real one, stopped at once
hs_lctl "$FX/r.out" "$FX/r.err" fix --state-dir "$S" --settle 0 --max-runtime 1 --rate 1 "$VOL"
assert_eq 4 "$LCTL_RC" "a fix stopped by --max-runtime (on schedule, nothing failed)"
# stopped in the layout pass (dirty: nothing moved yet) or later (stopped)
[[ $(hs_journal phase) == @(dirty|stopped) ]] || fail "journal phase $(hs_journal phase)"
cp "$S/journal" "$FX/journal.good"
snap before
# journal BODY: write BODY with a correct crc32 line (zlib's CRC-32 is the journal's)
forge() {
	python3 - "$S/journal" "$1" <<-'EOF'
		import sys, zlib
		body = sys.argv[2].encode("utf-8", "surrogateescape")
		open(sys.argv[1], "wb").write(body + b"crc32 %08x\n" % zlib.crc32(body))
	EOF
}
good_body=$(sed '$d' "$FX/journal.good")
resume_refused() { # WHAT: --resume must be refused with advice
	refuse 3 fix --state-dir "$S" --resume --settle 0 "$VOL"
	grep -qi 'new run\|without --resume\|move' "$FX/r.err" ||
		soft_fail "no advice when the journal is refused ($1): $(cat "$FX/r.err")"
}
head -c 3000 /dev/urandom >"$S/journal"
resume_refused "binary garbage"
{ head -c 40 "$FX/journal.good"; printf '\0'; tail -c +41 "$FX/journal.good"; } >"$S/journal"
resume_refused "a NUL byte"
{ cat "$FX/journal.good"; head -c 20000 /dev/zero | tr '\0' x; } >"$S/journal"
resume_refused "too big"
rm -f "$S/journal" && mkdir "$S/journal"
resume_refused "a directory"
rmdir "$S/journal"
forge "${good_body/volume $VOL/volume other-volume}
"
resume_refused "another volume (valid checksum)"
# shellcheck disable=SC2001 # ^ anchors each line of the body
forge "$(sed 's/^commit .*/commit 1/' <<<"$good_body")
"
resume_refused "commit word 1 (valid checksum)"
# shellcheck disable=SC2001 # ^ anchors each line of the body
forge "$(sed 's/^scope .*/scope relative/' <<<"$good_body")
"
resume_refused "a relative scope (valid checksum)"
# shellcheck disable=SC2001 # ^ anchors each line of the body
forge "$(sed 's/^phase .*/phase sideways/' <<<"$good_body")
"
resume_refused "an unknown phase (valid checksum)"
rm -f "$S/journal"
refuse 3 fix --state-dir "$S" --resume --settle 0 "$VOL"
snap after
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a refused resume changed the bricks"

# --- resuming after the volume commit hash changed underneath ------------------------------------
# (as `gluster volume rebalance` does): the run's hash is no longer the volume's, so stamping
# with it would leave every directory dirty while fix reports it fixed
cp "$FX/journal.good" "$S/journal"
for b in "${B[@]}"; do
	setfattr -n trusted.glusterfs.dht.commithash -v "0x$(hs_hex 1234567890)00" "$b"
done
hs_lctl "$FX/r.out" "$FX/r.err" fix --state-dir "$S" --resume --settle 0 --parallel 2 "$VOL"
cat "$FX/r.out" "$FX/r.err" >&2
rc=$LCTL_RC
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan "$VOL"
if ((rc == 0 && LCTL_RC != 0)); then
	soft_fail "fix --resume exited 0 after the volume hash changed, but scan finds $(jq '.summary.directories - .summary.directories_clean' "$FX/scan.json") directories not clean ($(jq -c '[.directories[].problems[]] | unique' "$FX/scan.json"))"
fi

# --- a complete fix under umask 000, then modes and secrets --------------------------------------
rm -rf "$FX/state2"
(
	umask 000
	"$LAYOUTCTL" -vvvv --log-level 4 fix --state-dir "$FX/state2/sub" --settle 0 --parallel 2 "$VOL" \
		>"$FX/fix.out" 2>"$FX/fix.err"
) || true
cat "$FX/fix.out" "$FX/fix.err" | tail -20 >&2
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
assert_eq 700 "$(stat -c %a "$FX/state2/sub")" "mode of the state directory"
for f in "$FX/state2/sub"/*; do
	assert_eq 600 "$(stat -c %a "$f")" "mode of $f"
done
[[ -s $FX/state2/sub/outcomes.jsonl && -s $FX/state2/sub/progress.json && -s $FX/state2/sub/journal ]] ||
	fail "the state directory lacks a file: $(ls -la "$FX/state2/sub")"

# every command, every format, the most verbose level: the password appears nowhere
for fmt in text json xml; do
	L=("$LAYOUTCTL" -vvvv --log-level 4 --format "$fmt")
	"${L[@]}" info "$VOL" || true
	"${L[@]}" scan --all "$VOL" || true
	"${L[@]}" explain "$VOL" /a/b || true
	"${L[@]}" status --state-dir "$FX/state2/sub" "$VOL" || true
	"${L[@]}" fix --dry-run --state-dir "$FX/state2/sub" "$VOL" || true
done >"$FX/all.out" 2>&1
"$LAYOUTCTL" -vvvv --format prometheus scan "$VOL" >>"$FX/all.out" 2>&1 || true
grep -q "$VOL-client-0" "$FX/all.out" || fail "the commands printed nothing about the volume"
hs_secret_check "$VOL" "$FX/all.out" "$FX/fix.out" "$FX/fix.err" "$FX/state2" "$S" "$FX/r.out" "$FX/r.err"
# the secret is not in the environment or command line of a running fix either
hs_fix_bg "$FX/bg.out" "$FX/bg.err" fix --state-dir "$FX/state3" --settle 5 "$VOL"
sleep 2
cat "/proc/$HS_PID/cmdline" "/proc/$HS_PID/environ" >"$FX/proc.txt" 2>/dev/null || true
ls -l "/proc/$HS_PID/fd" >>"$FX/proc.txt" 2>/dev/null || true
kill -INT "$HS_PID" 2>/dev/null || true
wait "$HS_PID" || true
hs_secret_check "$VOL" "$FX/proc.txt" "$FX/state3"

# --- a state directory another user prepared -------------------------------------------------
# An unprivileged user plants, under every name a state file has (the temporaries included),
# symbolic links to root's files, FIFOs, links to /dev/zero. Root's fix must neither write nor
# read through them, nor hang (a FIFO named control once held a fix for 621 s, with the lock).
H=$(mktemp -d /tmp/lctl-hsd.XXXXXX)
lctl_on_exit "rm -rf -- '$H'"
chmod 0755 "$H"
mkdir -m 0755 "$H/root"
for f in 1 2 3 4 5 6; do printf 'precious %s\n' "$f" >"$H/root/victim$f"; done
(cd "$H/root" && sha256sum victim*) >"$H/sums"
victims_intact() { (cd "$H/root" && sha256sum -c --quiet "$H/sums") || fail "a file outside the state directory changed: $1"; }
printf '#!/bin/bash\nexec timeout -k 10 300 "%s" "$@"\n' "$LAYOUTCTL" >"$H/lctl"
chmod +x "$H/lctl"
tfix() { # tfix RC ARGS...: fix ARGS (within 300 s) exits RC
	local want=$1
	shift
	LAYOUTCTL=$H/lctl hs_lctl "$FX/r.out" "$FX/r.err" fix --settle 0 --parallel 2 "$@" "$VOL"
	((LCTL_RC != 124 && LCTL_RC != 137)) || fail "fix hung (killed after 300 s): ${*@Q}"
	((LCTL_RC == want)) || { cat "$FX/r.out" "$FX/r.err" >&2; fail "fix ${*@Q}: exit $LCTL_RC, want $want"; }
	((want != 3)) || hs_one_line "$FX/r.err"
}
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
plant() { # plant DIR: as the user
	as_user bash -ec '
		cd "$1"
		ln -s /dev/zero progress.json
		ln -s "$2/victim1" .progress.json.tmp
		mkfifo control
		ln -s "$2/victim2" .control.tmp
		ln -s "$2/victim3" journal
		ln -s "$2/victim4" .journal.tmp
		ln -s "$2/victim5" lock
		ln -s "$2/victim6" modes
		mkfifo outcomes.jsonl' plant "$1" "$H/root"
}
snap before
# the user's own directory, one below it, and a link the user made to root's directory
mkdir -m 1777 "$H/pub"
as_user mkdir -m 0755 "$H/pub/st"
plant "$H/pub/st"
tfix 3 --state-dir "$H/pub/st"
grep -q 'belongs to uid 65534' "$FX/r.err" || fail "no reason given: $(cat "$FX/r.err")"
tfix 3 --state-dir "$H/pub/st/sub"
[[ ! -e $H/pub/st/sub ]] || fail "a state directory was created in the user's directory"
mkdir -m 0700 "$H/mine"
as_user ln -s "$H/mine" "$H/pub/link"
tfix 3 --state-dir "$H/pub/link"
[[ -z $(ls -A "$H/mine") ]] || fail "fix wrote through the user's link: $(ls -A "$H/mine")"
snap after
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a fix refused for its state directory changed the bricks"
victims_intact "fix refused the user's directories"
# a directory root adopted with the user's entries in it: the lock and the kept modes (opened
# in place) are refused while they are links, FIFOs or hard links; the rest is replaced
mkdir -m 0700 "$H/adopted"
chown 65534:65534 "$H/adopted"
plant "$H/adopted"
chown 0:0 "$H/adopted"
tfix 3 --state-dir "$H/adopted"
grep -q "lock' is a symbolic link" "$FX/r.err" || fail "refused for another reason: $(cat "$FX/r.err")"
rm "$H/adopted/lock"
ln "$H/root/victim5" "$H/adopted/lock"
tfix 3 --state-dir "$H/adopted"
grep -q "hard links" "$FX/r.err" || fail "refused for another reason: $(cat "$FX/r.err")"
rm "$H/adopted/lock"
tfix 3 --state-dir "$H/adopted"
grep -q "modes' is a symbolic link" "$FX/r.err" || fail "refused for another reason: $(cat "$FX/r.err")"
rm "$H/adopted/modes"
mkfifo "$H/adopted/modes"
tfix 3 --state-dir "$H/adopted"
grep -q "modes' is not a regular file" "$FX/r.err" || fail "refused for another reason: $(cat "$FX/r.err")"
rm "$H/adopted/modes"
snap after
assert_unchanged "$FX/snap.before" "$FX/snap.after" "a fix refused for a state file changed the bricks"
victims_intact "fix refused the adopted directory's lock and modes"
# now a whole fix: the control FIFO is dropped unread, the outcome log FIFO refused (a
# warning), journal and progress.json links replaced, the temporaries' links removed
tfix 0 --state-dir "$H/adopted"
grep -q "warning: cannot open the outcome log.*not a regular file" "$FX/r.err" ||
	soft_fail "no warning about the outcome log FIFO: $(cat "$FX/r.err")"
victims_intact "a fix in the adopted directory"
for f in journal progress.json; do
	[[ -f $H/adopted/$f && ! -L $H/adopted/$f ]] || fail "$f was not replaced: $(ls -la "$H/adopted")"
done
for f in control .progress.json.tmp .journal.tmp; do # .control.tmp is top's: fix never opens it
	[[ ! -e $H/adopted/$f && ! -L $H/adopted/$f ]] || fail "$f is still there: $(ls -la "$H/adopted")"
done
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
# status reads it; a link to /dev/zero there again is refused, at once
expect_exit 0 "$LAYOUTCTL" status --state-dir "$H/adopted" "$VOL"
ln -sf /dev/zero "$H/adopted/progress.json"
LAYOUTCTL=$H/lctl hs_lctl "$FX/r.out" "$FX/r.err" status --state-dir "$H/adopted" "$VOL"
assert_eq 3 "$LCTL_RC" "status with progress.json linked to /dev/zero"
hs_one_line "$FX/r.err"

# --- a volume commit hash that is not glusterd's plain decimal --------------------------------
# DHT reads it with strtoul(s, NULL, 0): "0x10" is 16 to every client. layoutctl must judge
# the directories by that value (here: none carries it, so all are unstamped), and say so.
for b in "${B[@]}"; do
	setfattr -n trusted.glusterfs.dht.commithash -v "0x$(hs_hex 0x10)00" "$b"
done
hs_lctl "$FX/info.json" "$FX/info.err" --json info "$VOL"
assert_eq 0 "$LCTL_RC" "info with a hexadecimal volume commit hash"
assert_eq 16 "$(jq .volume.commit_hash "$FX/info.json")" "the volume commit hash as DHT reads it"
grep -q 'warning' "$FX/info.err" || soft_fail "no warning about the odd volume commit hash"
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan "$VOL"
assert_eq 1 "$LCTL_RC" "scan with a hexadecimal volume commit hash"
assert_eq "$(jq .summary.directories "$FX/scan.json")" \
	"$(jq '[.directories[] | select(.problems | index("unstamped"))] | length' "$FX/scan.json")" \
	"directories unstamped under volume hash 16"
hs_lctl "$FX/r.out" "$FX/r.err" fix --state-dir "$FX/state4" --settle 0 --parallel 2 "$VOL"
assert_eq 0 "$LCTL_RC" "fix after the odd volume commit hash"
expect_exit 0 "$LAYOUTCTL" scan "$VOL"
hs_xattr_hex "${B[0]}" / trusted.glusterfs.dht.commithash | grep >/dev/null -cE '^0x(3[0-9])+00$' ||
	fail "the volume commit hash was not rewritten in decimal"

MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a file changed or went missing"
lctl_umount "$MP"
soft_end
exit 0
