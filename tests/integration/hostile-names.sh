#!/bin/bash
# Hostile names and shapes, made through a FUSE mount so they are real DHT files, on a 3-brick
# distribute volume: a file for every byte value 1-255 but '/' (in a 3-byte name), one name
# holding all those 254 bytes, 255-byte names (ASCII, invalid UTF-8, 3-byte UTF-8 characters),
# control characters (C0, DEL, C1), terminal escapes (an OSC that sets the window title, a CSI),
# noncharacters (U+FFFE, U+FFFF: not XML characters), backslashes, a newline; a directory whose
# name holds all of those; a 100-level-deep tree; a tree whose paths are as long as GlusterFS
# allows (~3800 bytes: 15 levels of 252-byte names).
#
# 1. Every file of those is moved by hand to a brick it does not hash to (misplaced): scan exits 1, its
#    --json output is valid strict UTF-8 JSON and lists exactly those names, each escaped as the
#    man page says (\xHH for bytes outside valid UTF-8, for control characters and for
#    noncharacters, \\ for a backslash). XML is well-formed. No raw control character, invalid
#    UTF-8 or noncharacter reaches stdout or stderr, in any format, of scan, explain, fix (a
#    subtree fix of the hostile directory, with a --log path as hostile) and status.
# 2. Nothing is hidden: every directory is scanned, the 100th level and the one whose path is
#    ~3800 bytes long included.
# 3. fix (after an add-brick, so most files move) migrates all of them: the names survive, every
#    checksum is unchanged, the outcome log is valid JSON lines, and scan exits 0.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/fix-lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/hostile-lib.sh"
require_cmd jq xmllint
fx_init
# bash's read and pattern matching treat an invalid multibyte sequence in a UTF-8 locale as part of
# a character (a name ending in 0xec swallowed the NUL after it): bytes are bytes here
export LC_ALL=C

lctl_vol_create dist 3 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")

# --- names --------------------------------------------------------------------------------------
mkdir "$MP/bytes"
python3 - "$MP/bytes" <<-'EOF'
	import os, sys
	d = os.fsencode(sys.argv[1])
	names = []
	for b in range(1, 256):
	    if b != 0x2f:
	        names.append(b"b" + bytes([b]) + b"z")
	names.append(bytes(b for b in range(1, 256) if b != 0x2f))      # 254 bytes, all of them
	names.append(b"a" * 255)
	names.append(b"\xff" * 255)                                      # invalid UTF-8
	names.append("日".encode() * 85)                                 # 255 bytes of UTF-8
	names.append(b"\xe6\x97" + b"x" * 252 + b"\xc3")                 # truncated sequences
	names += [b"\xc2\x9b[31mred", b"tab\there", b"nl\nnl", b"\\x41", b"back\\slash", b"\x7fdel",
	          b"-n", b"--help", b" ", b"..." , b".x.y", b"\xed\xa0\x80surrogate",
	          b"\x1b]0;pwned\x07osc", b"\x1b[2Jcsi", b"nonchar\xef\xbf\xbe", b"\xef\xbf\xbf"]
	for i, n in enumerate(names):
	    with open(os.path.join(d, n), "wb") as f:
	        f.write(b"%d:" % i + n + b"\n")
EOF

# a directory whose name is not UTF-8, with files that will move after the add-brick
mkdir "$MP/"$'\xff\xfe-dir'
for i in $(seq 1 40); do echo "$i" >"$MP/"$'\xff\xfe-dir'"/g$i"; done
# and one whose name is as hostile as it gets: fixed alone, by --path, after the add-brick
hdir=$'\x1b]0;pwned\x07\x1b[2J\xc2\x9b31m\nnl\xff\xef\xbf\xbe-dir'
mkdir "$MP/$hdir"
for i in $(seq 1 40); do echo "$i" >"$MP/$hdir/h$i"; done

# --- a 100-level-deep tree ----------------------------------------------------------------------
deep=deep
for ((i = 1; i < 100; i++)); do deep+=/d; done
mkdir -p "$MP/$deep"
echo bottom >"$MP/$deep/bottom"
echo middle >"$MP/deep/d/d/d/d/d/middle"

# --- a tree whose paths come close to PATH_MAX ---------------------------------------------------
# GlusterFS's posix translator builds the brick's real path, so a volume path cannot be longer
# than PATH_MAX minus the brick's own path; the mount point's path is about as long. So: 252-byte
# names, as many levels as keep the path on the mount below 4000 bytes (15 here, ~3800 bytes).
long=$(printf 'L%.0s' $(seq 1 250))
nlong=$(((4000 - ${#MP} - 20) / 253))
(
	cd "$MP" && mkdir toolong && cd toolong
	for ((i = 10; i < 10 + nlong; i++)); do mkdir "$long$i" && cd "$long$i"; done
	echo "far away" >far
	mkdir s && echo "further" >s/further
)
hs_sums "$MP" >"$FX/sums.before"
lctl_umount "$MP"

# move every data file of /bytes to the next brick by hand (with its .glusterfs hard link): all
# of them are misplaced now
: >"$FX/misplaced"
for i in 0 1 2; do
	b=${B[i]} to=${B[$(((i + 1) % 3))]}
	find "$b/bytes" -maxdepth 1 -type f -print0 >"$FX/list.$i"
done
for i in 0 1 2; do
	b=${B[i]} to=${B[$(((i + 1) % 3))]}
	while IFS= read -r -d '' f; do
		n=${f##*/}
		g=$(hs_gfid_link "$b" "bytes/$n")
		mv -- "$f" "$to/bytes/$n"
		rm -f -- "$g"
		g=$(hs_gfid_link "$to" "bytes/$n")
		mkdir -p -- "${g%/*}"
		ln -- "$to/bytes/$n" "$g"
		printf '%s\0' "$n" >>"$FX/misplaced"
	done <"$FX/list.$i"
done
nmis=$(tr -cd '\0' <"$FX/misplaced" | wc -c)
assert_eq 275 "$nmis" "files moved to a wrong brick"

# --- scan ---------------------------------------------------------------------------------------
# brick folders read directly and through gfapi: the same report on this hostile state
scan_readers_agree "$VOL"
hs_lctl "$FX/scan.json" "$FX/scan.err" --json scan "$VOL"
cat "$FX/scan.err" >&2
assert_eq 1 "$LCTL_RC" "scan exit status"
hs_json_ok "$FX/scan.json"
# exactly the misplaced names, escaped as documented
python3 - "$FX/scan.json" "$FX/misplaced" <<-'EOF' || fail "misplaced names in the scan output"
	import json, sys

	def utf8_len(b, i):
	    c = b[i]
	    if c < 0x80:
	        return 1
	    try:
	        for n in (2, 3, 4):
	            if i + n <= len(b):
	                try:
	                    b[i:i + n].decode("utf-8", "strict")
	                    return n
	                except UnicodeDecodeError:
	                    pass
	    except Exception:
	        pass
	    return 0

	def escape(b):
	    out, i = [], 0
	    while i < len(b):
	        n = utf8_len(b, i)
	        if b[i] == 0x5c:
	            out.append("\\\\")
	            i += 1
	            continue
	        ch = b[i:i + n].decode("utf-8") if n else None
	        # C0, DEL and C1 control characters, and noncharacters, are escaped byte by byte
	        if n and not (ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or
	                      0xfdd0 <= ord(ch) <= 0xfdef or ord(ch) & 0xfffe == 0xfffe):
	            out.append(ch)
	            i += n
	        else:
	            for k in range(max(n, 1)):
	                out.append("\\x%02x" % b[i + k])
	            i += max(n, 1)
	    return "".join(out)

	scan = json.load(open(sys.argv[1], encoding="utf-8"))
	want = sorted(escape(n) for n in open(sys.argv[2], "rb").read().split(b"\0") if n)
	got = sorted(e["name"] for d in scan["directories"] if d["path"] == "/bytes"
	             for e in d["entries"] if e["state"] == "misplaced")
	others = [(d["path"], d["problems"], [e["state"] for e in d["entries"]])
	          for d in scan["directories"] if d["path"] not in ("/", "/bytes") and not d["clean"]]
	if want != got:
	    print("want:", want, "\ngot: ", got, file=sys.stderr)
	    print("missing:", sorted(set(want) - set(got)), "\nextra:", sorted(set(got) - set(want)),
	          file=sys.stderr)
	    sys.exit(1)
	if others:
	    print("unexpected problems:", others, file=sys.stderr)
	    sys.exit(1)
EOF
hs_lctl "$FX/scan.xml" "$FX/scan.err" --format xml scan --all "$VOL"
assert_eq 1 "$LCTL_RC" "scan --format xml exit status"
xmllint --noout "$FX/scan.xml" || fail "the XML output is not well-formed"
# no_raw FILE...: strict UTF-8, no control character but tab and newline, no noncharacter
no_raw() {
	local f
	for f in "$@"; do
		python3 - "$f" <<-'EOF' || fail "raw control characters, noncharacters or invalid UTF-8 in $f: $(od -c "$f" | grep -m3 -E '033|377|357')"
			import re, sys
			t = open(sys.argv[1], "rb").read()
			t.decode("utf-8", "strict")
			sys.exit(1 if re.search(rb"[\x01-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xbf[\xbe\xbf]|\xef\xb7[\x90-\xaf]", t) else 0)
		EOF
	done
}
no_raw "$FX/scan.json" "$FX/scan.xml" "$FX/scan.err"
hs_lctl "$FX/scan.txt" "$FX/scan.err" -v scan "$VOL"
assert_eq 1 "$LCTL_RC" "scan -v exit status"
no_raw "$FX/scan.txt" "$FX/scan.err"
grep -qF 'csi (data on' "$FX/scan.txt" || fail "scan -v does not list the hostile names"
# explain: a hostile name, in every format
for n in $'\x1b]0;pwned\x07osc' $'nonchar\xef\xbf\xbe' $'nl\nnl'; do
	hs_lctl "$FX/explain.txt" "$FX/explain.err" explain "$VOL" "/bytes/$n"
	assert_eq 1 "$LCTL_RC" "explain of a misplaced hostile name"
	hs_lctl "$FX/explain.json" "$FX/explain.err2" --json explain "$VOL" "/bytes/$n"
	hs_json_ok "$FX/explain.json"
	hs_lctl "$FX/explain.xml" "$FX/explain.err3" --format xml explain "$VOL" "/bytes/$n"
	xmllint --noout "$FX/explain.xml" || fail "explain --format xml is not well-formed for ${n@Q}"
	no_raw "$FX"/explain.{txt,json,xml,err,err2,err3}
done
# every directory was visited, the deepest (100 levels) and the ones beyond PATH_MAX included,
# or reported: the scan must not pass over a directory in silence
hs_lctl "$FX/scan-all.json" "$FX/scan-all.err" --json scan --all "$VOL"
cat "$FX/scan-all.err" >&2
hs_json_ok "$FX/scan-all.json"
assert_eq 1 "$LCTL_RC" "scan --all exit status"
ndirs=$(jq '.summary.directories' "$FX/scan-all.json")
echo "directories scanned: $ndirs" >&2
# / bytes \xff\xfe-dir $hdir deep (100 levels) toolong (1 + nlong + s)
assert_eq $((4 + 100 + 2 + nlong)) "$ndirs" "directories scanned"
assert_eq 1 "$(jq "[.directories[] | select(.path == \"/$deep\")] | length" "$FX/scan-all.json")" \
	"the 100th level was scanned"
assert_eq 1 "$(jq '[.directories[] | select(.path | endswith("/s")) | select(.path | length > 3700)] | length' \
	"$FX/scan-all.json")" "the deepest directory of the long paths was scanned"

# --- add a brick, fix: everything moves, names and checksums survive ----------------------------
lctl_vol_add_bricks "$VOL" 1
B=("${LCTL_BRICKS[@]}")
mkdir -p "$FX/state"
# the hostile directory alone, with a --log as hostile: in a folder that does not exist (refused
# before the volume is opened, exit 3, with an error that quotes it), then beside the others;
# then status of that run in every format
mkdir -m 0700 "$FX/state-h"
hs_lctl "$FX/fixh.out" "$FX/fixh.err" -v fix --state-dir "$FX/state-h" --settle 1 \
	--log "$FX/no-such-dir/$hdir.jsonl" --path "/$hdir" "$VOL"
cat "$FX/fixh.out" "$FX/fixh.err" >&2
assert_eq 3 "$LCTL_RC" "fix --log in a folder that does not exist"
grep -qF 'cannot open the outcome log' "$FX/fixh.err" || fail "no error about the --log path"
no_raw "$FX/fixh.out" "$FX/fixh.err"
hs_lctl "$FX/fixh.out" "$FX/fixh.err" -v fix --state-dir "$FX/state-h" --settle 1 \
	--log "$FX/$hdir.jsonl" --path "/$hdir" "$VOL"
cat "$FX/fixh.out" "$FX/fixh.err" >&2
assert_eq 0 "$LCTL_RC" "fix --path of the hostile directory"
[[ -f $FX/$hdir.jsonl ]] || fail "no outcome log under the hostile name"
no_raw "$FX/fixh.out" "$FX/fixh.err" "$FX/state-h/progress.json" "$FX/$hdir.jsonl"
hs_jsonl_ok "$FX/$hdir.jsonl"
hs_json_ok "$FX/state-h/progress.json"
hs_lctl "$FX/fixh.json" "$FX/fixh.err" --json fix --state-dir "$FX/state-h" --settle 1 \
	--path "/$hdir" "$VOL"
hs_json_ok "$FX/fixh.json"
run_check "$LAYOUTCTL" __render --check "$FX/fixh.json" >&2 # text shows the same fields
no_raw "$FX/fixh.json" "$FX/fixh.err"
for fmt in text json xml; do
	hs_lctl "$FX/status.$fmt" "$FX/status.err" --format "$fmt" status --state-dir "$FX/state-h" "$VOL"
	assert_eq 0 "$LCTL_RC" "status --format $fmt after the fix of the hostile directory"
	no_raw "$FX/status.$fmt" "$FX/status.err"
done
hs_json_ok "$FX/status.json"
run_check "$LAYOUTCTL" __render --check "$FX/status.json" >&2
xmllint --noout "$FX/status.xml" || fail "status --format xml is not well-formed"
# the path as the man page escapes it, the same in the status file, text and JSON
assert_eq '/\x1b]0;pwned\x07\x1b[2J\xc2\x9b31m\x0anl\xff\xef\xbf\xbe-dir' \
	"$(jq -r .status.path "$FX/status.json")" "the path in status --json"
grep -qF 'path /\x1b]0;pwned\x07\x1b[2J\xc2\x9b31m\x0anl\xff\xef\xbf\xbe-dir)' "$FX/status.text" ||
	fail "status does not show the escaped path: $(cat "$FX/status.text")"
# 4 workers, so that a directory and its subdirectories can be worked on at once. progress.json
# is sampled all along: it names the directories being worked on, and must stay valid JSON
# (strict UTF-8) meanwhile
mkdir -p "$FX/samples"
(
	i=0
	while [[ ! -e $FX/samples.stop ]]; do
		cp "$FX/state/progress.json" "$FX/samples/$i.json" 2>/dev/null && i=$((i + 1))
		sleep 0.2
	done
) &
sampler=$!
hs_lctl "$FX/fix.out" "$FX/fix.err" fix --state-dir "$FX/state" --settle 1 --parallel 4 --rate 25 "$VOL"
cat "$FX/fix.out" "$FX/fix.err" >&2
rc1=$LCTL_RC
: >"$FX/samples.stop"
wait "$sampler"
read -r nbad bad < <(hs_json_bad "$FX/samples"/*.json)
echo "progress.json: $(find "$FX/samples" -mindepth 1 -maxdepth 1 | wc -l) samples, $nbad not valid" >&2
((nbad == 0)) || soft_fail "progress.json was not valid UTF-8 JSON while the fix ran: $(grep -ao '"states":[^]]*]' "$bad" | od -c | head -3)"
# the first run fixes everything: every directory gets its layout before its subdirectories are
# looked at, so DHT never heals a parent with a layout of its own while ours is being written
if ((rc1 != 0)); then
	soft_fail "the first fix exited $rc1: $(grep '^not-fixed' "$FX/fix.out" | head -3)"
	# a second run finishes what the first left; the checks below still hold then
	hs_lctl "$FX/fix2.out" "$FX/fix2.err" fix --state-dir "$FX/state" --settle 1 --parallel 4 "$VOL"
	cat "$FX/fix2.out" "$FX/fix2.err" >&2
	assert_eq 0 "$LCTL_RC" "second fix"
fi
hs_jsonl_ok "$FX/state/outcomes.jsonl"
grep -c '"outcome":"migrated"' "$FX/state/outcomes.jsonl" >&2 || fail "nothing migrated"
hs_json_ok "$FX/state/progress.json"
MP=$(lctl_mount "$VOL")
hs_sums "$MP" >"$FX/sums.after"
assert_files_equal "$FX/sums.before" "$FX/sums.after" "a name or a checksum changed"
hs_lctl "$FX/scan2.json" "$FX/scan2.err" --json scan "$VOL"
hs_json_ok "$FX/scan2.json"
assert_eq 0 "$LCTL_RC" "scan after the fix"
soft_end
exit 0
