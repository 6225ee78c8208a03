#!/bin/bash
# A --glusterd-dir whose record of the volume (DIR/vols/VOL/info, its volume-id) did not fit
# read_volume_id()'s 512-byte path buffer, on a 2-brick distribute volume of this host.
#
# Before: the path was cut at 511 bytes, inside one of DIR's components, and so named another
# file: a sibling of that component, which whoever can write where it is can make. A volume-id
# planted there made scan read the brick folders directly, on a record that is not glusterd's.
#   1. the setup is sound: a short glusterd directory with that record makes scan read both
#      brick folders directly;
#   2. a 4080-byte one whose record's path is cut at 511 bytes to the planted file: nothing is
#      read directly, and -v says the record's path is too long to read.
. "$LCTL_SRCDIR/tests/integration/lib.sh"
export LC_ALL=C

lctl_vol_create dist 2 VOL
T=$(mktemp -d "${TMPDIR:-/tmp}/lctl-gdir.XXXXXX")
lctl_on_exit rm -rf -- "$T"
id=$(lctl_gluster volume info "$VOL" | sed -n 's/^Volume ID: *//p')
[[ $id =~ ^[0-9a-f-]{36}$ ]] || fail "no volume id for $VOL: '$id'"

# scan_direct DIR: the brick folders scan -v reads directly with --glusterd-dir DIR ($T/err: -v)
scan_direct() {
	local rc=0
	"$LAYOUTCTL" --glusterd-dir "$1" -v scan "$VOL" >/dev/null 2>"$T/err" || rc=$?
	((rc <= 1)) || fail "scan with --glusterd-dir of ${#1} bytes: exit $rc: $(cat "$T/err")"
	sed -n 's/.*reading its brick folder \(.*\) directly$/\1/p' "$T/err" | sort
}

# 1. glusterd's record of the volume, in a glusterd directory of our own
mkdir -p "$T/gd/vols/$VOL"
printf 'type=0\nvolume-id=%s\n' "$id" >"$T/gd/vols/$VOL/info"
assert_eq 2 "$(scan_direct "$T/gd" | wc -l)" "brick folders read directly with the volume's record"

# 2. G: 4080 bytes in components of 200 after a first one of F, which puts byte 511 well inside
# a component: the first 511 bytes name a file next to that component
((${#T} < 400)) || _lctl_hard "TMPDIR too long for this test: $T"
for ((f = 100; f < 255; f += 10)); do
	for ((b = ${#T} + 1 + f; b < 511; b += 201)); do :; done
	((b - 511 >= 20 && b - 511 <= 180)) && break
done
G=$T/$(printf 'g%.0s' $(seq 1 "$f"))
while ((${#G} < 4080)); do G+=/$(printf 'g%.0s' $(seq 1 200)); done
G=${G:0:4080}
[[ $G != */ ]] || G=${G:0:4079}h
mkdir -p "$G/vols/$VOL"
cut=$G/vols/$VOL/info
cut=${cut:0:511}
[[ -d $(dirname "$cut") && ! -e $cut ]] || fail "the first 511 bytes of the record's path name no new file"
printf 'type=0\nvolume-id=%s\n' "$id" >"$cut"
got=$(scan_direct "$G")
[[ -z $got ]] || fail "brick folders read directly on a record cut at 511 bytes: $got"
assert_contains "$(cat "$T/err")" "not reading vols/$VOL/info in the glusterd directory"
assert_contains "$(cat "$T/err")" "no record of volume"
echo "hostile-glusterd-dir: a record whose path does not fit is not read"
