#!/usr/bin/env bash
# Installs the Debian 12 packages hashjack needs to build and test, if any
# is missing.  Safe to run again: it does nothing when all are present.
set -euo pipefail

pkgs=(build-essential cmake pkg-config clang-format libjansson-dev libcmocka-dev
	libcurl4-openssl-dev libuv1-dev libsqlite3-dev libinih-dev python3 systemd)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
