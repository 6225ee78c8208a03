#!/bin/bash
# layoutctl info against real volumes: subvolumes and bricks agree with `gluster volume info`.
. "$LCTL_SRCDIR/tests/integration/lib.sh"

lctl_glusterd_ensure

# the bricks of each DHT subvolume, from gluster's own XML: "brick brick ..." per line
# shellcheck disable=SC2046 # paste gets one '-' word per brick of a subvolume
gluster_subvols() {
	local vol=$1 per=$2
	gluster --mode=script volume info "$vol" --xml |
		xmllint --xpath '//volume/bricks/brick/name/text()' - | tr ' ' '\n' |
		grep -v '^$' | paste -d' ' $(printf -- '- %.0s' $(seq "$per"))
}

check_info() {
	local vol=$1 per=$2 type=$3 json want got
	json=$("$LAYOUTCTL" --format json info "$vol") || fail "info $vol failed"
	run_check "$LAYOUTCTL" __render --check /dev/stdin <<<"$json" >&2 # the same fields in text
	[ "$(jq -r .format_version <<<"$json")" = 1 ] || fail "no format_version"
	[ "$(jq -r .volume.type <<<"$json")" = "$type" ] || fail "type: $(jq -r .volume.type <<<"$json")"
	want=$(gluster_subvols "$vol" "$per")
	got=$(jq -r '.subvolumes[] | [.bricks[] | .host + ":" + .path] | join(" ")' <<<"$json")
	[ "$want" = "$got" ] || fail "$vol bricks differ: want [$want] got [$got]"
	[ "$(jq '[.subvolumes[] | select(.up)] | length' <<<"$json")" = "$(wc -l <<<"$want")" ] ||
		fail "$vol: not every subvolume is up"
	[ "$(jq -r .volume.commit_hash <<<"$json")" = 0 ] || fail "fresh volume has a commit hash"
	"$LAYOUTCTL" --format xml info "$vol" | xmllint --noout - || fail "xml of $vol"
	"$LAYOUTCTL" info "$vol" | grep >/dev/null -c "^Volume: *$vol$" || fail "text of $vol"
}

lctl_vol_create dist 4 DIST
lctl_vol_create rep 2 REP
check_info "$DIST" 1 Distribute
check_info "$REP" 2 Distributed-Replicate
jq -e '.subvolumes | map(.name) == ["'"$REP"'-replicate-0","'"$REP"'-replicate-1"]' \
	<<<"$("$LAYOUTCTL" --json info "$REP")" >/dev/null || fail "replica subvolume names"

# fast: the user never waits for glfs_fini
start=$(date +%s%N)
"$LAYOUTCTL" info "$DIST" >/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 2000 ] || fail "info took $ms ms"

# options that matter are read from the volume
gluster --mode=script volume set "$DIST" cluster.lookup-optimize off >/dev/null
gluster --mode=script volume set "$DIST" cluster.rsync-hash-regex none >/dev/null
json=$("$LAYOUTCTL" --json info "$DIST")
[ "$(jq .volume.options.lookup_optimize <<<"$json")" = false ] || fail "lookup-optimize off not seen"
[ "$(jq -r .volume.options.rsync_hash_regex <<<"$json")" = none ] || fail "rsync regex not seen"

# a volume that does not exist: exit 3, one line, fast
start=$(date +%s)
expect_exit 3 "$LAYOUTCTL" info lctltest_no_such_volume
out=$("$LAYOUTCTL" info lctltest_no_such_volume 2>&1 || true)
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "not one line: $out"
[ $(($(date +%s) - start)) -le 10 ] || fail "missing volume took too long"

# a brick process killed: that subvolume is reported down, exit 1
lctl_vol_bricks "$DIST" dist_bricks
# shellcheck disable=SC2154 # lctl_vol_bricks assigns dist_bricks (a nameref)
pid=$(gluster --mode=script volume status "$DIST" "$(hostname):${dist_bricks[1]}" --xml |
	xmllint --xpath 'string(//node/pid)' -)
[ -n "$pid" ] || fail "no pid for brick ${dist_bricks[1]}"
kill -9 "$pid"
expect_exit 1 "$LAYOUTCTL" info "$DIST"
json=$("$LAYOUTCTL" --json info "$DIST" 2>/dev/null || true)
[ "$(jq -r '.subvolumes[1].up' <<<"$json")" = false ] || fail "killed brick not down"
[ "$(jq -r '.subvolumes[0].up' <<<"$json")" = true ] || fail "live brick reported down"
# no credential of the volfile is ever printed
secret=$(gluster system:: getspec "$DIST" | awk '$2 == "password" {print $3; exit}')
[ -n "$secret" ] || fail "no password in the volfile to check against"
for f in text json xml; do
	"$LAYOUTCTL" -vvv --format $f info "$DIST" 2>&1 | grep >/dev/null -cF "$secret" && fail "password in $f output"
done
exit 0
