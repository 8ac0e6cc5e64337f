#!/usr/bin/env bash
# tools/deps.sh - install the Debian packages sonde needs (idempotent).
#   tools/deps.sh                      install whatever is missing (needs root or sudo)
#   tools/deps.sh --check-or-install   same, but do nothing when everything is present
#   tools/deps.sh --list               print the package names
set -eu
PKGS="gcc make pkg-config clang llvm libclang-rt-14-dev libclang-14-dev libzydis-dev libunwind-dev libdw-dev libelf-dev
libpfm4-dev libzstd-dev libsqlite3-dev sqlite3 linux-perf libc6-dbg binutils time libomp-dev g++ python3 man-db procps
openmpi-bin libopenmpi-dev chromium valgrind"

missing() {
	local m="" p
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || m="$m $p"
	done
	echo "$m"
}

case "${1:-}" in
--list) echo $PKGS; exit 0 ;;
esac

need=$(missing)
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
	echo "sonde: missing Debian packages:$need (run tools/deps.sh as root)" >&2
	exit 1
fi
echo "sonde: installing Debian packages:$need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
