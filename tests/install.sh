#!/usr/bin/env bash
# `cmake --install` puts the binaries, the units and the example config where
# docs/OPERATION.md says, and the installed binaries run.
# Usage: install.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pass=0 fail=0
check() {
	if [ -e "$prefix/$1" ]; then
		pass=$((pass + 1))
	else
		echo "install: missing $1" >&2
		fail=$((fail + 1))
	fi
}
check bin/hashjack
check bin/hashjackd
check lib/systemd/system/hashjackd.service
check lib/systemd/system/hashjack-serve.service
check share/doc/hashjack/API.md
check share/doc/hashjack/hashjackd.conf.example
check share/doc/hashjack/CONFIG.md
if "$prefix/bin/hashjackd" --version | grep -q '^hashjackd ' &&
	"$prefix/bin/hashjack" --version | grep -q 'hashjack'; then
	pass=$((pass + 1))
else
	echo "install: installed binaries do not run" >&2
	fail=$((fail + 1))
fi
if grep -q '^ExecStart=/.*/hashjackd ' "$prefix/lib/systemd/system/hashjackd.service" &&
	grep -q '^ExecStart=/.*/hashjack serve ' "$prefix/lib/systemd/system/hashjack-serve.service"; then
	pass=$((pass + 1))
else
	echo "install: a unit's ExecStart has no absolute path" >&2
	fail=$((fail + 1))
fi
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
