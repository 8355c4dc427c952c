#!/usr/bin/env bash
# Installs the Debian 12 packages hashjack needs to build and test, if any
# is missing, and the npm packages of package.json (anvil and cast, for the
# end-to-end tests and scripts/devnet.sh; ganache, the second EVM node of the
# end-to-end tests) when node_modules is missing or older than
# package-lock.json.  Safe to run again: it does nothing, and
# prints nothing, when all are present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# chromium, chromium-driver, python3-selenium: tests/e2e/test_web.py drives the
# web page of hashjack serve in a headless browser.  prometheus: its promtool
# checks hashjackd's /metrics and the alert rules of docs/OPERATION.md
# (tests/e2e/test_metrics.py); the server itself is not started.  openssl:
# the command makes the certificates of the TLS tests (test_wsclient,
# tests/e2e/test_tls.py) at test time.
pkgs=(build-essential cmake pkg-config clang libclang-rt-14-dev clang-format libjansson-dev libcmocka-dev
	libcurl4-openssl-dev libuv1-dev libsqlite3-dev libinih-dev libsecp256k1-dev
	node-llhttp libwslay-dev libssl-dev openssl
	python3 python3-websocket systemd litecoind chromium chromium-driver python3-selenium
	prometheus)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
# npm runs `npm ci` below; Debian's nodejs and npm when there is no npm at all
# (a newer one installed some other way is used as it is).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -q
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# anvil, cast and ganache, pinned in package.json / package-lock.json.  What was
# installed is known by the lock file's hash, not its time: a checkout (a
# fresh clone, a git worktree) makes the lock file new without changing it.
lock_sum=$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)
if [ ! -x "$root/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil" ] ||
	[ ! -x "$root/node_modules/@foundry-rs/cast-linux-amd64/bin/cast" ] ||
	[ ! -x "$root/node_modules/.bin/ganache" ] ||
	[ "$(cat "$root/node_modules/.hashjack-lock" 2>/dev/null)" != "$lock_sum" ]; then
	echo "deps: npm ci (anvil, cast, ganache)" >&2
	(cd "$root" && npm ci --no-audit --no-fund >&2)
	echo "$lock_sum" >"$root/node_modules/.hashjack-lock"
fi
