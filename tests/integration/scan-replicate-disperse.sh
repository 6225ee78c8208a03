#!/bin/bash
# layoutctl scan on a distributed-replicate (2 x 2) and a distributed-disperse (2 x (2+1))
# volume: linkto files made by renames read through AFR/EC are linked (clean); after add-brick
# the root and the old directories are incomplete or missing on the new replica/disperse set
# and nothing else; a data file whose linkto was removed on every brick of its set is
# misplaced; after a full rebalance the scan is clean (exit 0); no brick changes under a scan.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq

snap=$(mktemp -d "${TMPDIR:-/tmp}/lctl-scan-repdisp.XXXXXX")
lctl_on_exit rm -rf -- "$snap"
dir_problems() { jq -c '[.directories[] | select(.problems | length > 0) |
	{path, problems: (.problems | sort)}] | sort_by(.path)'; }
bad_entries() { jq -c '[.directories[] | .path as $d | .entries[] |
	select(.state != "placed" and .state != "linked") | {path: ($d + "/" + .name), state}]'; }

check_kind() {
	local kind=$1 json vol sv b i mis='' bricks
	lctl_vol_create "$kind" 2 vol
	local mp
	mp=$(lctl_mount "$vol")
	mkdir -p "$mp/d1/s" "$mp/d2"
	for d in d1 d1/s d2; do
		for i in $(seq 1 12); do echo "$d $i" >"$mp/$d/f$i"; done
	done
	for i in $(seq 1 12); do mv "$mp/d1/f$i" "$mp/d1/g$i"; done
	lctl_umount "$mp"

	# renamed files: linked through the replicate/disperse graph, and the directory is clean
	json=$("$LAYOUTCTL" --json scan --all --path /d1 "$vol")
	jq -e '.summary.clean and .summary.entries.linked > 0 and
		.summary.entries.linked + .summary.entries.placed == .summary.files' \
		<<<"$json" >/dev/null || fail "$kind: /d1 with renamed files is not clean and linked: $json"
	sv=$(lctl_subvol_name "$vol" 0)
	jq -e --arg sv "$sv" '.volume.subvolume_count == 2 and
		([.directories[].layout[].subvolume] | index($sv))' <<<"$json" >/dev/null ||
		fail "$kind: subvolumes are not the $kind sets"

	# add-brick: one more set; no client looked at it
	lctl_vol_add_bricks "$vol" 1
	bricks=("${LCTL_BRICKS[@]}")
	brick_snapshot "${bricks[@]}" >"$snap/before"
	expect_exit 1 "$LAYOUTCTL" --json scan "$vol" >"$snap/json"
	json=$(<"$snap/json")
	assert_eq '[{"path":"/","problems":["incomplete","unstamped"]},{"path":"/d1","problems":["missing"]},{"path":"/d1/s","problems":["missing"]},{"path":"/d2","problems":["missing"]}]' \
		"$(dir_problems <<<"$json")" "$kind after add-brick"
	assert_eq 3 "$(jq .volume.subvolume_count <<<"$json")"
	sv=$(lctl_subvol_name "$vol" 2)
	jq -e --arg sv "$sv" '[.directories[] | .layout[] | select(.subvolume == $sv) | .state] |
		sort == ["missing", "missing", "missing", "no-layout"]' <<<"$json" >/dev/null ||
		fail "$kind: states on the new set $sv"
	assert_eq '[]' "$(bad_entries <<<"$json")" "$kind entries after add-brick"
	assert_eq 36 "$(jq '.summary.entries.placed + .summary.entries.linked' <<<"$json")"

	# remove one linkto from every brick of its set: that file is misplaced
	for i in $(seq 1 12); do
		for b in "${bricks[@]}"; do
			if [[ -f $b/d1/g$i && $(stat -c %a "$b/d1/g$i") == 1000 ]]; then
				mis=g$i
				break 2
			fi
		done
	done
	[[ -n $mis ]] || fail "$kind: no linkto found on the bricks"
	for b in "${bricks[@]}"; do
		[[ -f $b/d1/$mis && $(stat -c %a "$b/d1/$mis") == 1000 ]] || continue
		rm -f -- "$b/d1/$mis"
	done
	brick_snapshot "${bricks[@]}" >"$snap/before"
	expect_exit 1 "$LAYOUTCTL" --json scan "$vol" >"$snap/json"
	assert_eq "[{\"path\":\"/d1/$mis\",\"state\":\"misplaced\"}]" "$(bad_entries <"$snap/json")" \
		"$kind: misplaced after the linkto went"
	brick_snapshot "${bricks[@]}" >"$snap/after"
	assert_unchanged "$snap/before" "$snap/after" "$kind: scan changed the bricks"

	# a full rebalance makes it all clean
	lctl_rebalance "$vol"
	expect_exit 0 "$LAYOUTCTL" --json scan "$vol" >"$snap/json"
	jq -e '.summary.clean and .summary.directories == 4 and .summary.directories_clean == 4 and
		.summary.entries.placed == 36 and .summary.volume_commit > 1' "$snap/json" >/dev/null ||
		fail "$kind: not clean after rebalance: $(<"$snap/json")"
	lctl_vol_destroy "$vol"
}

lctl_glusterd_ensure
check_kind rep
check_kind disp
exit 0
