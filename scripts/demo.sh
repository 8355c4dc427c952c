#!/usr/bin/env bash
# The main job, for now: installs what is missing, builds, and replays a
# sample session of Hash Blackjack rounds, printing the block-to-card log the
# daemon writes for those blocks (docs/LOG.md explains every field).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"

build="$root/build/release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target hashjack
session="$root/docs/examples/session.json"
echo "== hashjack replay $session" >&2
"$build/hashjack" replay "$session"
