#!/usr/bin/env bash
# Builds an optimised engine benchmark and runs it: card derivations and
# complete rounds per second on one core, against same-run baselines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
build="$root/build/release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_game
"$build/bench_game" "${1:-1}"
