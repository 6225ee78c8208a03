#!/bin/bash
# Symbolic links put in a brick folder where the volume has directories, as a directory swapped
# for a link between two reads would leave them: the direct brick reader (scan's default on
# this host's bricks) runs as root, and must never follow one out of the brick. /d is a link
# to a host folder on one brick (a real directory on the others), /e/f a link on another brick,
# /g a link that stays inside the brick (to /d2). The host folder holds a marker file and a
# marker folder at the depth where the volume's /d/sub and /e/f/sub are read.
#
# scan --all (also of --path /d/sub alone) must report those directories as not directories on
# the brick that has the link, list nothing of the host folder (no marker name in any report)
# and read nothing there (the marker files' access times stay as they were).
. "$LCTL_SRCDIR/tests/integration/lib.sh"
require_cmd jq

lctl_vol_create dist 3 VOL
B=("${LCTL_BRICKS[@]}")
MP=$(lctl_mount "$VOL")
mkdir -p "$MP/d/sub/deeper" "$MP/e/f/sub" "$MP/d2/sub"
for i in 1 2 3 4 5 6; do
	echo "$i" >"$MP/d/sub/file$i"
	echo "$i" >"$MP/e/f/sub/file$i"
	echo "$i" >"$MP/d2/sub/file$i"
done
lctl_umount "$MP"

W=$(mktemp -d "${TMPDIR:-/tmp}/lctl-links.XXXXXX")
lctl_on_exit rm -rf -- "$W"
mark=lctlmarker$$
host=$W/host
mkdir -p "$host/sub/$mark-dir" "$host/f/sub/$mark-dir2" "$W/aside"
for p in "$host/$mark-top" "$host/sub/$mark-file" "$host/f/sub/$mark-file2"; do echo secret >"$p"; done
# a layout xattr on the host folders, as if they were volume directories worth reading
for p in "$host" "$host/sub" "$host/f" "$host/f/sub"; do
	setfattr -n trusted.glusterfs.dht -v 0x00000001000000000000000055555554 "$p"
	setfattr -n trusted.gfid -v 0x0123456789abcdef0123456789abcdef "$p"
done
# old access times, so that any read of them shows (stat(1) reads none: listing the folders
# again to find them would)
find "$host" | sort >"$W/hostpaths"
xargs -d '\n' touch -a -d '2001-01-01 00:00:00' <"$W/hostpaths"
atimes() { xargs -d '\n' stat -c '%n %X' <"$W/hostpaths"; }
atimes >"$W/atime.before"

# brick 1: /d a link to the host folder (absolute); brick 2: /e/f one (relative, out of the
# brick); brick 0: /g a link to its own /d2 (inside the brick: still not followed)
mv "${B[1]}/d" "$W/aside/d1"
ln -s "$host" "${B[1]}/d"
mv "${B[2]}/e/f" "$W/aside/f2"
ln -s "$(realpath --relative-to="${B[2]}/e" "$host")" "${B[2]}/e/f"
ln -s d2 "${B[0]}/g"

sv() { printf '%s-client-%s' "$VOL" "$1"; }
scan_json() { # scan_json OUT ARGS...
	local out=$1 rc=0
	shift
	"$LAYOUTCTL" --json -vv scan --all "$@" "$VOL" >"$W/$out.json" 2>"$W/$out.err" || rc=$?
	((rc == 1)) || { cat "$W/$out.err" >&2; fail "scan $*: exit $rc, want 1 (problems found)"; }
	grep -q 'directly' "$W/$out.err" || fail "scan did not read the brick folders directly"
	jq -e . "$W/$out.json" >/dev/null || fail "scan $*: not JSON"
	if grep -q "$mark" "$W/$out.json" "$W/$out.err"; then
		grep "$mark" "$W/$out.json" "$W/$out.err" >&2
		fail "scan $* listed the host folder behind a link in a brick"
	fi
}
# not_dir OUT PATH I: PATH is reported as no directory on subvolume I (and only there)
not_dir() {
	local got
	got=$(jq -c --arg p "$2" '[.directories[] | select(.path == $p) |
		(.problems | index("not-a-directory") != null),
		[.layout[] | select(.state == "not-a-directory") | .subvolume]]' "$W/$1.json")
	[[ $got == "[true,[\"$(sv "$3")\"]]" ]] ||
		{ jq --arg p "$2" '.directories[] | select(.path == $p)' "$W/$1.json" >&2;
		  fail "$2 is not reported as no directory on $(sv "$3") (only): $got"; }
}

scan_json all
jq -r '.directories[].path' "$W/all.json" | sort >"$W/paths"
for p in / /d /d/sub /e /e/f /e/f/sub /d2 /d2/sub; do
	grep -qx -- "$p" "$W/paths" || fail "scan did not report $p"
done
not_dir all /d 1
not_dir all /d/sub 1
not_dir all /e/f 2
not_dir all /e/f/sub 2
scan_json sub --path /d/sub
not_dir sub /d/sub 1
scan_json deep --path /e/f/sub
not_dir deep /e/f/sub 2
atimes >"$W/atime.after"
diff -u "$W/atime.before" "$W/atime.after" >&2 || fail "scan read the host folder behind a link in a brick"
exit 0
