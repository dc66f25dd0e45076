#!/bin/sh
# Install the Debian packages ptbrowse needs, only those missing.
# Quiet when everything is there; uses sudo when not root.
pkgs="build-essential pkg-config libncurses-dev libreadline-dev libxxhash-dev
libcmocka-dev libipt-dev libelf-dev libdw-dev libzydis-dev tmux clang
libclang-rt-dev gzip"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
sudo=
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "deps: missing:$missing; run as root (no sudo here):" >&2
		echo "  apt-get install$missing" >&2
		exit 1
	fi
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || exit 1
$sudo apt-get install -y -qq $missing >/dev/null || {
	echo "deps: apt-get install failed for:$missing" >&2
	exit 1
}
