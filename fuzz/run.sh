#!/usr/bin/env bash
# Runs one fuzz target for SECONDS over its committed corpus:
#   fuzz/run.sh BUILD/fuzz/fuzz_NAME SECONDS [libFuzzer options...]
# New inputs go to BUILD/fuzz/corpus/fuzz_NAME (the committed corpus,
# fuzz/corpus/fuzz_NAME, is only read), a finding to
# BUILD/fuzz/artifacts/fuzz_NAME-*; the exit status is libFuzzer's (0: no
# finding).  The last lines say how many inputs ran.
set -euo pipefail
bin=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$bin")
out=$(dirname "$bin")
seeds=$here/corpus/$name
work=$out/corpus/$name
mkdir -p "$work" "$out/artifacts"
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
	-print_final_stats=1 -artifact_prefix="$out/artifacts/$name-")
[ -f "$here/dict/$name.dict" ] && args+=(-dict="$here/dict/$name.dict")
dirs=("$work")
[ -d "$seeds" ] && dirs+=("$seeds")
# Leaks count as findings too; a report names the input that made it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$bin" "${args[@]}" "$@" "${dirs[@]}"
