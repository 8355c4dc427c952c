#!/usr/bin/env bash
# Installs what is missing; builds the Release configuration with gcc and
# with clang, warnings as errors, so that the README's first command (a
# Release build) prints no warning with either compiler; then builds with
# AddressSanitizer and UndefinedBehaviorSanitizer, warnings as errors, and
# the fuzz targets with clang; runs every test, then every fuzz target for
# a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"

for cc in gcc clang; do
	echo "test: Release build with $cc, -Werror" >&2
	CC=$cc cmake -S "$root" -B "$root/build/release-$cc" -DHJ_WERROR=ON \
		-DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$root/build/release-$cc" -j"$(nproc)" >/dev/null
done

build="$root/build/test"
cmake -S "$root" -B "$build" -DHJ_SANITIZE=ON -DHJ_WERROR=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"

# The fuzz targets (fuzz/README.md): clang, libFuzzer, ASan and UBSan.
fuzz="$root/build/fuzz"
echo "test: fuzz targets with clang, libFuzzer, ASan and UBSan" >&2
CC=clang cmake -S "$root" -B "$fuzz" -DHJ_FUZZ=ON -DHJ_WERROR=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$fuzz" -j"$(nproc)" --target fuzz >/dev/null

# anvil writes older block states under $HOME/.foundry/anvil/tmp and never
# removes them; the tests start it with a HOME of their own
# (tests/e2e/evm_node.py, anvil_env).  Whatever appears in the real one
# during the run is a test that leaks gigabytes a day.
anvil_tmp="$HOME/.foundry/anvil/tmp"
leaks_before=$(ls -A "$anvil_tmp" 2>/dev/null || true)

# Every test, then every fuzz target for a few seconds over its corpus.
cd "$build"
ctest --output-on-failure -j"$(nproc)"
cd "$fuzz"
ctest --output-on-failure -j"$(nproc)" -L fuzz

leaks=$(comm -13 <(echo "$leaks_before") <(ls -A "$anvil_tmp" 2>/dev/null || true))
if [ -n "$leaks" ]; then
	echo "test: a test left anvil's states in $anvil_tmp (start anvil with evm_node.anvil_env):" >&2
	echo "$leaks" >&2
	exit 1
fi
