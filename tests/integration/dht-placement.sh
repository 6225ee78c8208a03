#!/bin/bash
# The DHT model against real placement: on a 6-brick volume, ~10,000 files with varied names
# (ASCII, UTF-8 ending in bytes >= 0x80, Latin-1 bytes, rsync temp names, 255-byte names,
# blanks and control bytes) are created by GlusterFS itself; then, for every data file found on
# the bricks (find), the subvolume liblayoutctl predicts from the layouts read off the bricks
# (getfattr) must be the one that holds it: 0 mismatches. `layoutctl scan` must agree in bulk.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
. "$LCTL_SRCDIR/tests/integration/tools/dhtmodel-build.sh"
require_cmd jq gcc pkg-config nm

T0=$SECONDS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lctl-placement.XXXXXX")
lctl_on_exit rm -rf -- "$WORK"

# the model, built from the library under test
TOOL=$WORK/dhtmodel
dhtmodel_build "$TOOL"

lctl_vol_create dist 6 VOL
# plain distribute: DHT child i is brick i
BR=("${LCTL_BRICKS[@]}")
N=${#BR[@]}
assert_eq 6 "$N" "brick count"
assert_eq "$N" "$(lctl_subvol_count "$VOL")" "subvolume count"

# GlusterFS places the files: one gfapi client, 4 threads, ~10,300 files in 10 directories
DIRS=(. d0 d0/sub d1 d2 d3 d4 d5 d6 d7)
SPEC=(.:400 d0:1200 d0/sub:300 d1:1200 d2:1200 d3:1200 d4:1200 d5:1200 d6:1200 d7:1200)
TOTAL=10300
t=$SECONDS
out=$(run_check "$TOOL" populate "$VOL" 42 4 "${SPEC[@]}")
assert_eq "created $TOTAL" "$out" "files created"
printf 'populate: %s s\n' $((SECONDS - t)) >&2

# what the bricks hold: every layout (getfattr) and every file (find), read off the bricks
: >"$WORK/layouts"
for d in "${DIRS[@]}"; do
	for ((i = 0; i < N; i++)); do
		v=$(brick_xattr_hex "${BR[i]}" "$d" trusted.glusterfs.dht) || v=-
		printf '%s\t%s\t%s\n' "$d" "$i" "$v" >>"$WORK/layouts"
	done
done
for ((i = 0; i < N; i++)); do
	find "${BR[i]}" -path "${BR[i]}/.glusterfs" -prune -o -type f ! -perm 1000 -printf "$i\t%P\0"
done >"$WORK/records"
linktos=0
for ((i = 0; i < N; i++)); do
	linktos=$((linktos + $(find "${BR[i]}" -path "${BR[i]}/.glusterfs" -prune -o -type f -perm 1000 -print | wc -l)))
done
assert_eq 0 "$linktos" "linkto files after plain creates"
assert_eq "$TOTAL" "$(tr -cd '\0' <"$WORK/records" | wc -c)" "data files on the bricks"

# prediction from liblayoutctl vs the bricks
printf 'setup and bricks read: %s s\n' $((SECONDS - T0)) >&2
rc=0
res=$("$TOOL" predict "$WORK/layouts" <"$WORK/records") || rc=$?
printf '%s\n' "$res" | tail -n 20 >&2
summary=$(printf '%s\n' "$res" | tail -n 1)
read -r _ files _ mism _ sdec _ mdec _ long <<<"$summary"
assert_eq "$TOTAL" "$files" "files predicted"
assert_eq 0 "$mism" "placement mismatches"
assert_eq 0 "$rc" "dhtmodel predict exit status"
# the quirks were exercised: names whose subvolume depends on them
((sdec > 0)) || fail "no name where the signed tail bytes decide the subvolume"
((mdec > 0)) || fail "no name where the rsync munging decides the subvolume"
((long > 0)) || fail "no 255-byte name"

# layoutctl scan, on its own path (raw readdirplus on each subvolume), agrees in bulk
# (exit 1 is expected: the volume root of a never rebalanced volume has commit 1, "unstamped")
t=$SECONDS
rc=0
json=$("$LAYOUTCTL" --json scan "$VOL") || rc=$?
((rc <= 1)) || fail "scan exited $rc"
printf 'scan: %s s\n' $((SECONDS - t)) >&2
assert_eq "$TOTAL" "$(jq .summary.files <<<"$json")" "scan: files"
assert_eq "$TOTAL" "$(jq .summary.entries.placed <<<"$json")" "scan: placed entries"
for ((i = 0; i < N; i++)); do
	want=$(grep -zc "^$i"$'\t' "$WORK/records" || true)
	assert_eq "$want" "$(jq ".summary.subvolumes[$i].files" <<<"$json")" "scan: files on subvolume $i"
done
printf 'dht-placement: %s files, 0 mismatches, %s s\n' "$TOTAL" $((SECONDS - T0)) >&2
exit 0
