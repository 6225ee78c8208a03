#!/bin/bash
# layoutctl scan through a volume's life: clean subdirectories on a fresh volume; after add-brick
# the root and every old directory are incomplete (0-0 or no layout) or missing on the new
# subvolume; after `rebalance fix-layout` the layouts are complete but every directory keeps its
# old commit (unstamped) and files are misplaced; after a full `rebalance start` everything,
# root included, is stamped with the volume hash and the scan exits 0. The bricks never change
# under a scan.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq

lctl_vol_create dist 2 VOL
MP=$(lctl_mount "$VOL")
mkdir -p "$MP/d1/s" "$MP/d2" "$MP/d3"
for d in . d1 d1/s d2 d3; do
	for i in $(seq 1 20); do echo "$d $i" >"$MP/$d/f$i"; done
done
lctl_umount "$MP"

snap=$(mktemp -d "${TMPDIR:-/tmp}/lctl-scan-add-brick.XXXXXX")
lctl_on_exit rm -rf -- "$snap"
# scan VOL ARGS... > json, asserting the exit status and that no brick changed
scan_ro() {
	local want=$1 out
	shift
	brick_snapshot "${LCTL_BRICKS[@]}" >"$snap/before"
	expect_exit "$want" "$LAYOUTCTL" --json scan "$@" "$VOL" >"$snap/out"
	brick_snapshot "${LCTL_BRICKS[@]}" >"$snap/after"
	assert_unchanged "$snap/before" "$snap/after" "scan $* changed the bricks"
	out=$(<"$snap/out")
	jq -e .format_version <<<"$out" >/dev/null || fail "scan $*: no json"
	printf '%s\n' "$out"
}
dir_problems() { jq -c '[.directories[] | select(.problems | length > 0) |
	{path, problems: (.problems | sort)}] | sort_by(.path)'; }
bad_entries() { jq -c '[.directories[].entries[] | select(.state != "placed" and .state != "linked")]'; }

# --- fresh volume: subdirectories clean, the root never is before a full rebalance ------------
json=$(scan_ro 1)
assert_eq '[{"path":"/","problems":["unstamped"]}]' "$(dir_problems <<<"$json")" "fresh volume"
assert_eq 1 "$(jq '.directories[0].commit' <<<"$json")" "fresh root commit"
assert_eq 100 "$(jq '.summary.entries.placed' <<<"$json")" "fresh volume: placed"
for d in /d1 /d2 /d3; do
	expect_exit 0 "$LAYOUTCTL" scan --path "$d" "$VOL" >/dev/null
done

# --- add-brick: nothing looked at the new brick yet -------------------------------------------
lctl_vol_add_bricks "$VOL" 1
new=$VOL-client-2
json=$(scan_ro 1)
assert_eq '[{"path":"/","problems":["incomplete","unstamped"]},{"path":"/d1","problems":["missing"]},{"path":"/d1/s","problems":["missing"]},{"path":"/d2","problems":["missing"]},{"path":"/d3","problems":["missing"]}]' \
	"$(dir_problems <<<"$json")" "after add-brick"
jq -e --arg sv "$new" '[.directories[] | {path, s: (.layout[] | select(.subvolume == $sv) | .state)}] ==
	[.directories[] | {path, s: (if .path == "/" then "no-layout" else "missing" end)}]' \
	<<<"$json" >/dev/null || fail "the new subvolume's layout states: $json"
assert_eq '[]' "$(bad_entries <<<"$json")" "entries after add-brick"
assert_eq 100 "$(jq '.summary.entries.placed' <<<"$json")"

# a client looking up /d1 and /d1/s creates them on the new brick, with a 0-0 layout
MP=$(lctl_mount "$VOL")
stat "$MP/d1/s" >/dev/null
lctl_umount "$MP"
json=$(scan_ro 1)
assert_eq '[{"path":"/","problems":["incomplete","unstamped"]},{"path":"/d1","problems":["incomplete"]},{"path":"/d1/s","problems":["incomplete"]},{"path":"/d2","problems":["missing"]},{"path":"/d3","problems":["missing"]}]' \
	"$(dir_problems <<<"$json")" "after lookups of /d1/s"
jq -e --arg sv "$new" '.directories[] | select(.path == "/d1/s") | .layout[] |
	select(.subvolume == $sv) | .state == "ok" and .start == 0 and .stop == 0 and .commit == 0' \
	<<<"$json" >/dev/null || fail "/d1/s on the new subvolume is not 0-0"
expect_exit 1 "$LAYOUTCTL" scan --path /d1/s "$VOL" >/dev/null

# --- fix-layout: complete layouts, a new volume hash, and no directory stamped with it ------
lctl_rebalance "$VOL" fix-layout
json=$(scan_ro 1)
hash=$(jq .summary.volume_commit <<<"$json")
((hash > 1)) || fail "no volume commit hash after fix-layout"
assert_eq '[{"path":"/","problems":["unstamped"]},{"path":"/d1","problems":["unstamped"]},{"path":"/d1/s","problems":["unstamped"]},{"path":"/d2","problems":["unstamped"]},{"path":"/d3","problems":["unstamped"]}]' \
	"$(dir_problems <<<"$json")" "after fix-layout"
assert_eq '["misplaced"]' "$(bad_entries <<<"$json" | jq -c 'map(.state) | unique')" \
	"entry states after fix-layout"
mis=$(jq .summary.entries.misplaced <<<"$json")
((mis > 0)) || fail "no file misplaced after fix-layout onto a third brick"
assert_eq "$mis" "$(jq '[.summary.moves[].files] | add' <<<"$json")" "moves estimate = misplaced"
jq -e '.summary.subvolumes | all(.hash_share > 0.3)' <<<"$json" >/dev/null ||
	fail "fix-layout did not give every subvolume a third of the ring"

# --- full rebalance: everything stamped, root included: clean, exit 0 --------------------------
lctl_rebalance "$VOL"
json=$(scan_ro 0 --all)
hash=$(jq .summary.volume_commit <<<"$json")
((hash > 1)) || fail "no volume commit hash after rebalance"
assert_eq '[]' "$(dir_problems <<<"$json")" "after rebalance"
assert_eq '[]' "$(bad_entries <<<"$json")" "entries after rebalance"
assert_eq 5 "$(jq '.directories | length' <<<"$json")"
jq -e --argjson h "$hash" '.directories | all(.clean and .commit == $h and
	(.layout | all(.state == "ok" and .commit == $h)))' <<<"$json" >/dev/null ||
	fail "not every layout copy carries the volume hash $hash"
assert_eq 100 "$(jq '.summary.entries.placed' <<<"$json")" "placed after rebalance"
assert_eq 1 "$(jq '.summary.lookup_optimize_coverage.directory_share' <<<"$json")"
# the root on the bricks: commithash "H\0" and layout commit word H
for b in "${LCTL_BRICKS[@]}"; do
	v=$(brick_xattr_hex "$b" / trusted.glusterfs.dht)
	assert_eq "$hash" "$((16#${v:2:8}))" "root layout commit on $b"
	v=$(getfattr --absolute-names --only-values -n trusted.glusterfs.dht.commithash "$b" | tr -d '\0')
	assert_eq "$hash" "$v" "root commithash on $b"
done
out=$("$LAYOUTCTL" scan "$VOL")
assert_contains "$out" "Verdict: clean"
exit 0
