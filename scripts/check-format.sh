#!/usr/bin/env bash
# Fails when a C file differs from what clang-format makes of it
# (.clang-format at the top).  Fix with: clang-format -i FILE
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
bad=0
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find game chain daemon cli fuzz tests bench -name '*.[ch]'); do
	if ! clang-format --dry-run -Werror "$f" 2>/dev/null; then
		echo "check-format: $f is not clang-formatted" >&2
		bad=$((bad + 1))
	fi
done
echo "check-format: $((bad == 0)) passed, $((bad > 0)) failed"
[ $bad -eq 0 ]
