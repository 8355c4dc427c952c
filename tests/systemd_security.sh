#!/usr/bin/env bash
# Rates a unit with `systemd-analyze security --offline=yes` and fails when
# the overall exposure is above 2.0, or when systemd-analyze warns about
# the unit (a misspelt hardening line is ignored by systemd, and the rating
# alone might not show it).
#
# Usage: tests/systemd_security.sh [UNIT]
# UNIT is a configured unit (hashjackd.service, hashjack-serve.service), or
# its source systemd/NAME.service.in (default: hashjackd's), whose @PATHS@
# are filled in with the default install prefix's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
unit=${1:-$root/systemd/hashjackd.service.in}
max=2.0

fail() {
	echo "systemd_security: $*" >&2
	echo "systemd_security: 0 passed, 1 failed"
	exit 1
}

command -v systemd-analyze >/dev/null ||
	fail "systemd-analyze not found: install systemd (scripts/deps.sh does)"
[ -r "$unit" ] || fail "$unit: no such unit file"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# systemd-analyze names the unit after the file.
name=$(basename "$unit" .in)
sed -e 's|@CMAKE_INSTALL_FULL_BINDIR@|/usr/local/bin|g' \
	-e 's|@CMAKE_INSTALL_FULL_DOCDIR@|/usr/local/share/doc/hashjack|g' \
	"$unit" >"$tmp/$name"
if grep -q '@[A-Z_]*@' "$tmp/$name"; then
	fail "$unit: unknown @VARIABLE@ left after substitution"
fi

status=0
(cd "$tmp" && systemd-analyze security --offline=yes --no-pager \
	"$name") >"$tmp/out" 2>"$tmp/err" || status=$?
if [ -s "$tmp/err" ]; then
	cat "$tmp/err" >&2
	fail "systemd-analyze warned about $unit (exit status $status)"
fi
level=$(sed -n "s/.*Overall exposure level for ${name//./\\.}: \([0-9][0-9]*\.[0-9]\).*/\1/p" "$tmp/out")
[ -n "$level" ] || {
	cat "$tmp/out" >&2
	fail "no \"Overall exposure level\" in systemd-analyze's output"
}
echo "systemd_security: $name: exposure $level (at most $max)"
if awk -v l="$level" -v m="$max" 'BEGIN { exit !(l + 0 <= m + 0) }'; then
	echo "systemd_security: 1 passed, 0 failed"
else
	grep '✗' "$tmp/out" >&2 || true
	fail "exposure $level is above $max"
fi
