#!/bin/bash
# `status` reads STATE_DIR/progress.json, a file: its strings reach the terminal, JSON and XML
# escaped like names from the volume, whatever the file holds (the binary alone, no GlusterFS).
#   1. A progress.json holding raw terminal escapes (an OSC that sets the window title, a CSI,
#      a C1 CSI), a newline, bytes that are not UTF-8 and U+FFFE in every string field: no raw
#      control character on stdout or stderr; the JSON parses as strict UTF-8; the XML is
#      well-formed (xmllint); each string is shown in its escaped form.
#   2. A progress.json as layoutctl writes it (strings already escaped) is shown as it is:
#      the escaping round-trips, a backslash is not doubled on the way.
. "$LCTL_SRCDIR/tests/cli/lib.sh"
require_cmd python3 xmllint

T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-hostile-status.XXXXXX")
trap 'rm -rf -- "$T"' EXIT
S=$T/state
mkdir -m 0700 "$S"

# no_raw FILE WHAT: strict UTF-8, no C0 (but newline), DEL, C1, no U+FFFE/U+FFFF
no_raw() {
	python3 - "$1" <<-'EOF' || fail "$2: raw control characters or invalid UTF-8: $(od -c "$1" | head -8)"
		import re, sys
		b = open(sys.argv[1], "rb").read()
		b.decode("utf-8", "strict")
		sys.exit(1 if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xbf[\xbe\xbf]", b) else 0)
	EOF
}

# every string field of the status file, and a server row and an error, hostile
python3 - "$S/progress.json" <<-'EOF'
	import sys
	bad = b"\x1b]0;pwned\x07\x1b[2J\xc2\x9b31m\nnl\xff\xef\xbf\xbeend"
	def js(b):
	    # a JSON string of raw bytes, as a careless writer would put them (json-c reads them)
	    out = b'"'
	    for c in b:
	        if c == 0x22 or c == 0x5c:
	            out += b"\\" + bytes([c])
	        elif c == 0x0a:
	            out += b"\\n"
	        else:
	            out += bytes([c])
	    return out + b'"'
	s = b'{"format_version":1,"command":' + js(bad) + b',"volume":' + js(bad) + \
	    b',"path":' + js(b"/" + bad) + b',"host":' + js(bad) + b',"pid":1,"state":"finished",' \
	    b'"phase":' + js(bad) + b',"dry_run":false,"mode":' + js(bad) + b',"layout":' + js(bad) + \
	    b',"started":0,"updated":0,"elapsed":1,"exit_code":1,' \
	    b'"servers":[{"name":' + js(bad) + b',"state":' + js(bad) + b',"error":' + js(bad) + b'}],' \
	    b'"workers":{"active":1,"paused":false,"states":[' + js(bad) + b']},' \
	    b'"subvolumes":[{"name":' + js(bad) + b'}],"errors":[' + js(bad) + b']}\n'
	open(sys.argv[1], "wb").write(s)
EOF

want='\x1b]0;pwned\x07\x1b[2J\xc2\x9b31m\x0anl\xff\xef\xbf\xbeend'
for fmt in text json xml; do
	rc=0
	"$LAYOUTCTL" --format "$fmt" status --state-dir "$S" vol >"$T/out.$fmt" 2>"$T/err.$fmt" || rc=$?
	_lctl_san_check "status --format $fmt"
	assert_eq 1 "$rc" "status --format $fmt of a finished run with exit code 1"
	no_raw "$T/out.$fmt" "status --format $fmt, stdout"
	no_raw "$T/err.$fmt" "status --format $fmt, stderr"
done
assert_contains "$(cat "$T/out.text")" "Volume:      $want (path /$want)"
assert_contains "$(cat "$T/out.text")" "Mode:        $want, layout $want"
python3 - "$T/out.json" "$want" <<-'EOF' || fail "status --json: not strict JSON, or not the escaped strings"
	import json, sys
	d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
	st, want = d["status"], sys.argv[2]
	for v in (st["volume"], st["host"], st["mode"], st["path"][1:], st["servers"][0]["name"],
	          st["servers"][0]["error"], st["workers"]["states"][0], st["errors"][0]):
	    assert v == want, (v, want)
EOF
xmllint --noout "$T/out.xml" || fail "status --format xml is not well-formed"

# as layoutctl writes it: strings escaped once; shown the same, not escaped twice
printf '%s\n' '{"format_version":1,"command":"fix","volume":"vol","path":"/a\\x1bb\\\\c","host":"h","pid":1,"state":"finished","phase":"done","mode":"migrate","layout":"gluster","started":0,"updated":0,"elapsed":1,"exit_code":0,"errors":["/a\\x1bb: boom"]}' \
	>"$S/progress.json"
out=$("$LAYOUTCTL" status --state-dir "$S" vol) || fail "status of a clean finished run"
assert_contains "$out" 'Volume:      vol (path /a\x1bb\\c)'
json=$("$LAYOUTCTL" --json status --state-dir "$S" vol)
python3 -c 'import json, sys; d = json.loads(sys.argv[1])["status"]
assert d["path"] == "/a\\x1bb\\\\c", d["path"]
assert d["errors"] == ["/a\\x1bb: boom"], d["errors"]' "$json" || fail "status --json changed an escaped string"
exit 0
