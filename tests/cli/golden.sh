#!/bin/bash
# Every command's text, JSON and XML from the same fixed records (tests/golden/CMD.record.json),
# compared with tests/golden/CMD.{text,json,xml}; and the three formats carry the same fields
# (`layoutctl __render --check`). No GlusterFS: the records hold what a volume would give,
# odd names included (control bytes, invalid UTF-8, XML specials), in the escaped form every
# document uses. LCTL_UPDATE_GOLDEN=1 (or `make update-golden`) rewrites the golden files.
. "$LCTL_SRCDIR/tests/cli/lib.sh"

gold=$LCTL_SRCDIR/tests/golden
# status prints times in local time
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
for rec in "$gold"/*.record.json; do
	cmd=$(basename "$rec" .record.json)
	for fmt in text json xml; do
		run_check "$LAYOUTCTL" --format "$fmt" __render "$rec" >"$tmp/$cmd.$fmt"
		if [ "${LCTL_UPDATE_GOLDEN:-0}" = 1 ]; then
			cp "$tmp/$cmd.$fmt" "$gold/$cmd.$fmt"
		fi
		assert_files_equal "$gold/$cmd.$fmt" "$tmp/$cmd.$fmt" "$cmd --format $fmt differs from its golden file"
	done
	if command -v xmllint >/dev/null; then
		xmllint --noout "$tmp/$cmd.xml" || fail "$cmd: the XML is not well-formed"
	fi
	n=$((n + 1))
done
for cmd in scan fix info explain status; do
	[ -e "$gold/$cmd.record.json" ] || fail "no golden record for $cmd"
done
# the same fields in the three formats, and no stale "hidden" entry in a view
out=$(run_check "$LAYOUTCTL" __render --check-hidden "$gold"/*.record.json) ||
	fail "the formats carry different fields: $out"

# The check fails when one format has a field the others lack: a field the text view neither
# shows nor names hidden, as when a record gains a key and the text table is not told.
sed 's/"summary":{/"summary":{"zz_new_field":1,/' "$tmp/scan.json" >"$tmp/drift.json"
out=$("$LAYOUTCTL" __render --check "$tmp/drift.json") && fail "a field in JSON only passed the check"
assert_contains "$out" "summary.zz_new_field is in JSON and XML, not in text"
