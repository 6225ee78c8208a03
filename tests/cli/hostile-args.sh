#!/bin/bash
# Hostile command lines, the binary alone (no GlusterFS is reached: every case is refused while
# the options are parsed): malformed and out-of-range values, huge numbers, odd bytes. Each must
# exit 2 with "layoutctl: error: ..." and the "try ..." hint on stderr, nothing on stdout, no
# crash, and no raw control character or invalid UTF-8 echoed back to the terminal.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-hostile-args.XXXXXX")
trap 'rm -rf -- "$T"' EXIT

# refused ARGS...: exit 2, a two-line message on stderr, nothing on stdout, no raw control bytes
refused() {
	local rc=0
	printf '+ layoutctl %s\n' "${*@Q}" >&2
	"$LAYOUTCTL" "$@" >"$T/out" 2>"$T/err" || rc=$?
	_lctl_san_check "layoutctl $*"
	((rc == 2)) || { cat "$T/err" >&2; fail "exit $rc, want 2: ${*@Q}"; }
	[[ ! -s $T/out ]] || fail "a usage error wrote to stdout: ${*@Q}"
	[[ $(head -n1 "$T/err") == "layoutctl: error: "* ]] || fail "no error line: $(cat "$T/err")"
	(($(wc -l <"$T/err") <= 2)) || fail "more than two lines: $(cat "$T/err")"
	python3 - "$T/err" <<-'EOF' || fail "raw control characters or invalid UTF-8 on stderr: ${*@Q}: $(od -c "$T/err" | head -5)"
		import re, sys
		b = open(sys.argv[1], "rb").read()
		b.decode("utf-8", "strict")
		sys.exit(1 if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b) else 0)
	EOF
}

big=99999999999999999999999999999999
esc=$'\x1b]0;pwned\x07\x1b[2J'
bad=$'\xff\xfe\x01'

# numbers: out of range, huge, negative, not numbers
for v in 0 65 -1 "$big" 1e3 0x10 " 4" "4 " "" "$esc" "$bad"; do
	refused scan -p "$v" v
	refused fix --parallel "$v" v
done
for v in -1 100001 "$big" x "$esc"; do refused scan --max-depth "$v" v; done
for v in -1 3601 "$big" 1.5 "$bad"; do refused fix --settle "$v" v; done
for v in 0 0s 0m 0h -5 5x 5mm m "" "$big" 18446744073709551616 99999999999999h "$esc"; do
	refused fix --max-runtime "$v" v
done
for v in 25:00 24:00 23:60 7:30 07:3 07:300 "07:30 " " 1:23" "+1:23" "1 :23" "01:+3" "01: 3" \
	-1:00 ab:cd "" "$big" "$esc"; do
	refused fix --until "$v" v
done
for v in 0 -1 nan inf -inf 1e13 x "" "$esc"; do
	refused fix --rate "$v" v
	refused fix --bandwidth "$v" v
done
for v in -1 5 "$big" x; do refused --log-level "$v" info v; done
for v in -1 10 "$big"; do refused --gfapi-log-level "$v" info v; done

# paths and names
refused scan --path relative v
refused scan --path "" v
refused scan --path "$esc" v
refused fix --path relative v
refused fix --path "$bad" v
refused fix --state-dir relative/dir v
refused fix --state-dir "$esc" v
refused fix --resume --dry-run v
refused fix --mode "$esc" v
refused fix --layout "$bad" v
refused info "a/b"
refused fix ".."
refused fix "v" "w"
refused --format "$esc" info v
refused --server "host:$big" info v
refused --server "host:0" info v
refused --server ":24007" info v
refused --server "[::1" info v
refused --transport "$esc" info v
refused --progress "$bad" info v
refused "$esc"
refused help "$esc"
refused scan "--$esc" v
# the global options after the command, checked as before it
refused scan --format "$esc" v
refused fix --progress "$bad" v
refused info --server "host:$big" v
refused status --log-level "$big" v
refused scan -f
refused scan --json=1 v
refused --format json scan --format "$esc" v
refused fix --rsh " " v
refused fix --node "" v

# a volume name the library refuses is a usage error too, and one line
refused info "$(printf 'v%.0s' $(seq 1 300))"
refused info $'v\tw'
# a volume name also names its state folder under /var/lib/layoutctl: never '.' or '..'
for cmd in status fix worker; do
	refused "$cmd" ..
	refused "$cmd" .
	refused "$cmd" a/b
done
# the worker's own options are checked like fix's
refused worker --parallel 0 v
refused worker --bandwidth -1 v
refused worker --state-dir relative v

# bench/populate (when built): a mount path longer than a file's path may be is refused in one
# line (before, one of 4100 '/' passed mkdir as "/" and each thread wrote past its path buffer)
if [[ -x ${LCTL_BUILDDIR:-}/bench/populate ]]; then
	rc=0
	"$LCTL_BUILDDIR/bench/populate" -t 1 -m "$(printf '/%.0s' $(seq 1 4100))" v 1 1 >"$T/out" 2>"$T/err" || rc=$?
	_lctl_san_check "bench/populate -m (4100 bytes)"
	((rc == 2)) || { cat "$T/err" >&2; fail "populate with a 4100-byte mount path: exit $rc, want 2"; }
	[[ $(wc -l <"$T/err") == 1 && $(cat "$T/err") == "populate: the mount path is longer than"* ]] ||
		fail "populate: not the one-line refusal: $(head -c 300 "$T/err")"
fi
exit 0
