#!/usr/bin/env bash
# Fails when C sources call functions we do not use: unbounded string
# writes and unchecked conversions (see docs/HACKING.md).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
if grep -nE '\b(sprintf|vsprintf|strcpy|strcat|strtok|atoi|atol|atoll|gets)[[:space:]]*\(' \
	$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]'); then
	echo "check-banned: banned functions above" >&2
	exit 1
fi
echo "check-banned: 1 passed, 0 failed"
