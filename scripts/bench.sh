#!/usr/bin/env bash
# Benchmarks, each printing its figures and a ratio against a baseline
# measured in the same run:
#   engine:   card derivations and complete rounds per second on one core;
#   catch-up: hashjackd over 20,000 pre-mined anvil blocks against a
#             minimal batched JSON-RPC client fetching the same blocks;
#   catch-up-btc: the same on a 5,000-block litecoind regtest chain
#             (batched getblockhash + getblock <hash> 0, cookie auth);
#   catch-up-committed: hashjackd under cards = committed against cards =
#             hash over the same 5,000 anvil blocks, alternated three times;
#   seeds:    a seed chain of 1,000,000 opened and every seed revealed in
#             order, against one SHA-256 of 32 bytes;
#   verify:   hashjack verify over the catch-up benchmarks' chains (20,000
#             anvil blocks, then 5,000 litecoind regtest blocks), whose
#             card logs hashjackd writes first, against raw_fetch of the
#             same blocks (one batch at a time and three in flight);
#   latency:  a block from the node to its card log line (confirmations 1),
#             hashjackd with push against one polling every second, beside
#             each other, 200 blocks on anvil, then on litecoind regtest;
#   serve:    hashjack serve's round queries per second against /healthz,
#             and the time a block takes to reach 100, 1,000 and 10,000
#             WebSocket subscribers against a bare libuv server writing
#             the same bytes, with the server's RSS;
#   dense:    anvil chains of 0, 10, 100 and 1,000 transactions to the
#             dealer per block (Bets, actions, bad payloads; open rounds
#             up to about 10,000): hashjackd's catch-up against raw_fetch
#             of the same blocks and receipts, and each block's processing
#             time as it follows the tip (median, 99th percentile); about
#             5 minutes.
# Usage: scripts/bench.sh [engine|catchup|catchup-btc|catchup-committed|seeds|
#                          verify|latency|serve|dense|all]
#        (default all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
build="$root/build/release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_game raw_fetch hashjackd \
	hashjack bench_serve bench_seeds
what=${1:-all}
if [ "$what" = engine ] || [ "$what" = all ]; then
	echo "== engine"
	"$build/bench_game" 1
fi
if [ "$what" = catchup ] || [ "$what" = all ]; then
	echo "== catch-up"
	python3 "$root/bench/catchup.py" --build "$build"
fi
if [ "$what" = catchup-btc ] || [ "$what" = all ]; then
	echo "== catch-up, Bitcoin family (litecoind regtest)"
	python3 "$root/bench/catchup_btc.py" --build "$build"
fi
if [ "$what" = catchup-committed ] || [ "$what" = all ]; then
	echo "== catch-up, committed cards against hash cards (anvil)"
	python3 "$root/bench/catchup_committed.py" --build "$build"
fi
if [ "$what" = seeds ] || [ "$what" = all ]; then
	echo "== seed chain: open and reveal"
	"$build/bench_seeds"
fi
if [ "$what" = verify ] || [ "$what" = all ]; then
	echo "== verify (anvil)"
	python3 "$root/bench/verify.py" --build "$build" --family evm
	echo "== verify, Bitcoin family (litecoind regtest)"
	python3 "$root/bench/verify.py" --build "$build" --family btc
fi
if [ "$what" = latency ] || [ "$what" = all ]; then
	echo "== latency: push against polling (anvil, then litecoind regtest)"
	python3 "$root/bench/latency.py" --build "$build"
fi
if [ "$what" = serve ] || [ "$what" = all ]; then
	echo "== serve"
	"$build/bench_serve"
fi
if [ "$what" = dense ] || [ "$what" = all ]; then
	echo "== dense chains: 0 to 1,000 transactions to the dealer per block (anvil)"
	python3 "$root/bench/dense.py" --build "$build"
fi
