#!/bin/bash
# The README demo: on a throwaway local GlusterFS volume, the mission end to end.
# Installs what it needs, builds layoutctl, starts glusterd if needed, makes a 4-brick
# volume with files, adds 2 bricks (layouts now out of date, files misplaced), then
#   layoutctl info, scan (not clean), fix --dry-run, fix, scan (clean),
# and tears the volume down. Run as root on Debian 12.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$top"

tests/install-deps.sh
if [[ ! -x ./layoutctl ]]; then
	[[ -x ./configure ]] || autoreconf -fi >/dev/null
	[[ -f Makefile ]] || ./configure -q
	make -j"$(nproc)" >/dev/null
fi

export LCTL_PREFIX=lctldemo_
. tests/integration/harness.sh
lctl_glusterd_ensure
lctl_cleanup_stale lctldemo_

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@" || printf '(exit status %d)\n' "$?"; }

step "a 4-brick distribute volume with 2,000 files in 40 directories"
lctl_vol_create dist 4 VOL
mnt=$(lctl_mount "$VOL")
for d in $(seq 1 40); do
	mkdir "$mnt/dir$d"
	for f in $(seq 1 50); do printf 'file %d of dir %d\n' "$f" "$d" >"$mnt/dir$d/file$f"; done
done
sums() { (cd "$mnt" && find . -type f -exec md5sum {} + | sort -k2); }
work=$(mktemp -d)
lctl_on_exit rm -rf "$work"
sums >"$work/before.md5"
run ./layoutctl info "$VOL"

step "add 2 bricks: directory layouts no longer cover them, files are away from their hash"
lctl_vol_add_bricks "$VOL" 2
ls -R "$mnt" >/dev/null # clients looking around make DHT create the directories on the new bricks
run ./layoutctl scan "$VOL"

step "what a fix would do, without doing it"
run ./layoutctl fix --dry-run "$VOL"

step "fix: dirty, rewrite layouts, migrate, verify, stamp"
run ./layoutctl fix --settle 2 --state-dir "$work/state" "$VOL"

step "scan again: clean, and every file still has its content"
run ./layoutctl scan "$VOL"
if sums | cmp -s - "$work/before.md5"; then
	echo "all 2,000 checksums unchanged"
else
	echo "checksums differ!" >&2
	exit 1
fi
step "done: the volume is torn down on exit"
