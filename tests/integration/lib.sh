# shellcheck shell=bash
# tests/integration/lib.sh: helpers for the tests that run layoutctl against a real volume.
#
# Each integration test starts with
#	. "$LCTL_SRCDIR/tests/integration/lib.sh"
# which brings in tests/cli/lib.sh (fail, skip, require_cmd, assert_*, expect_exit, run_check,
# run_mustfail "reason", run_mayfail; `set -euo pipefail`) and the volume harness
# (tests/integration/harness.sh: lctl_vol_create, lctl_mount, lctl_rebalance, ...), and adds
#
#	brick_xattr_hex BRICK RELPATH XATTR	the xattr's value as 0x..., from the brick itself;
#						fails (status 1, no output) if it is not set
#	brick_snapshot DIR... > FILE		every path under each DIR (without .glusterfs) with
#						type, mode, owner, size and all trusted.* xattrs
#	assert_unchanged BEFORE AFTER [MSG]	two brick_snapshot files are identical
#	scan_readers_agree VOL [SCAN ARGS...]	scan --json --all with the brick folders read
#						directly (the default here) and through gfapi only
#						(--brick-reads gfapi): same exit status, same report
#
# brick_snapshot leaves out what changes without anyone changing the layout or the data: times
# (not recorded at all), directory sizes (allocation), the xattrs matching the extended
# regex $LCTL_SNAPSHOT_IGNORE (default: trusted.glusterfs.mdata, where the ctime feature keeps
# atime/mtime/ctime), and AFR's .glusterfs-anonymous-inode-VOLUMEID folder in a brick's root,
# which the self-heal daemon makes on each brick of a replica set by itself, when it sweeps.

# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
# shellcheck source=harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

: "${LCTL_SNAPSHOT_IGNORE:=^trusted\.glusterfs\.mdata$}"

brick_xattr_hex() {
	local path=$1/${2#/} out
	out=$(getfattr -h --absolute-names -n "$3" -e hex -- "$path" 2>/dev/null) || return 1
	out=${out#*$'\n'}
	[[ $out == *=* ]] || return 1
	printf '%s\n' "${out#*=}"
}

brick_snapshot() {
	local dir
	for dir; do
		[[ -d $dir ]] || fail "brick_snapshot: '$dir' is not a directory"
		dir=${dir%/}
		printf '== %s\n' "$dir"
		# type, mode, owner, size (not for directories), symlink target
		find "$dir" \( -path "$dir/.glusterfs" -o -path "$dir/.glusterfs-anonymous-inode-*" \) -prune -o \
			-type d -printf './%P\t%M\t%U:%G\n' -o \
			-printf './%P\t%M\t%U:%G\t%s\t%l\n' | LC_ALL=C sort
		# one line per xattr: path <TAB> name=value, in a stable order
		find "$dir" \( -path "$dir/.glusterfs" -o -path "$dir/.glusterfs-anonymous-inode-*" \) -prune -o -print0 |
			xargs -0r getfattr -h --absolute-names -d -m '^trusted\.' -e hex -- |
			SNAP_DIR=$dir SNAP_IGNORE=$LCTL_SNAPSHOT_IGNORE awk '
				BEGIN { dir = ENVIRON["SNAP_DIR"]; ignore = ENVIRON["SNAP_IGNORE"] }
				/^# file: / {
					path = substr($0, 9)
					path = "./" ((path == dir) ? "" : substr(path, length(dir) + 2))
					next
				}
				/=/ {
					name = substr($0, 1, index($0, "=") - 1)
					if (ignore == "" || name !~ ignore)
						print path "\t" $0
				}' | LC_ALL=C sort
	done
}

assert_unchanged() {
	diff -u -- "$1" "$2" >&2 || fail "${3:-the bricks changed}: '$1' and '$2' differ"
}

# scan_readers_agree VOL [SCAN ARGS...]: the direct reader of this host's brick folders and the
# gfapi reader must report the same (directories sorted by path; the timing left out), with the
# same exit status; and the direct reader must really have been used (-vv names the folders).
scan_readers_agree() {
	local vol=$1 d rc1=0 rc2=0
	shift
	d=$(mktemp -d "${TMPDIR:-/tmp}/lctl-readers.XXXXXX")
	"$LAYOUTCTL" --json -vv scan --all "$@" "$vol" >"$d/direct.json" 2>"$d/direct.err" || rc1=$?
	"$LAYOUTCTL" --json scan --all --brick-reads gfapi "$@" "$vol" >"$d/gfapi.json" 2>"$d/gfapi.err" || rc2=$?
	grep -q 'directly' "$d/direct.err" || fail "scan did not read any brick folder directly: $(head -5 "$d/direct.err")"
	for f in direct gfapi; do
		jq -S 'del(.summary.seconds) | .directories |= sort_by(.path)' "$d/$f.json" >"$d/$f.norm" ||
			fail "scan ($f) did not write JSON: $(head -3 "$d/$f.err")"
	done
	assert_eq "$rc2" "$rc1" "scan exit status, brick folders read directly vs through gfapi"
	diff -u "$d/gfapi.norm" "$d/direct.norm" >&2 || fail "the direct brick reader and gfapi disagree"
	rm -rf -- "$d"
}
