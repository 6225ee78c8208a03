#!/bin/bash
# Install what layoutctl needs to build, test, package (debian/: build-essential, debhelper) and
# demo on Debian 12 (as root).
# Quick when everything is there already: apt-get runs only for missing packages.
set -euo pipefail

pkgs=(
	gcc make autoconf automake libtool autoconf-archive pkg-config
	glusterfs-server glusterfs-client libglusterfs-dev liburcu-dev
	libjson-c-dev libxml2-dev zlib1g-dev libncurses-dev libcmocka-dev
	libxml2-utils jq attr tmux mandoc procps psmisc util-linux clang zsh bash-completion python3 time
	gdb clang-format shellcheck
	build-essential debhelper
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep >/dev/null -c 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	if [[ $(id -u) != 0 ]]; then
		echo "install-deps: missing ${missing[*]}; run as root" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || true
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
