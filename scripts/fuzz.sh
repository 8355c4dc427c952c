#!/usr/bin/env bash
# Runs one fuzz target (fuzz/README.md) for as long as you like:
#
#   scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]   default 60 s
#   scripts/fuzz.sh --list                                    the targets
#
# Installs what is missing, builds the targets with clang, libFuzzer, ASan
# and UBSan in build/fuzz, and runs TARGET over its committed corpus
# (fuzz/corpus/TARGET, only read) and what earlier runs found
# (build/fuzz/fuzz/corpus/TARGET).  A finding stops the run with the
# sanitizer's report; the input is kept as build/fuzz/fuzz/artifacts/
# TARGET-crash-... and replays with: build/fuzz/fuzz/TARGET FILE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
targets() { (cd "$root/fuzz" && ls fuzz_*.c | sed 's/\.c$//'); }
usage() {
	echo "usage: scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]" >&2
	echo "       scripts/fuzz.sh --list" >&2
	exit 64
}
[ $# -ge 1 ] || usage
case $1 in
--list) targets; exit 0 ;;
-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
target=$1
seconds=${2:-60}
shift $(($# >= 2 ? 2 : 1))
targets | grep -qx "$target" || {
	echo "scripts/fuzz.sh: no target \"$target\" (scripts/fuzz.sh --list)" >&2
	exit 64
}
case $seconds in '' | *[!0-9]*) usage ;; esac
"$root/scripts/deps.sh"
build="$root/build/fuzz"
CC=clang cmake -S "$root" -B "$build" -DHJ_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target "$target" >/dev/null
exec "$root/fuzz/run.sh" "$build/fuzz/$target" "$seconds" "$@"
