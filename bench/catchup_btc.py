#!/usr/bin/env python3
"""Catch-up benchmark, Bitcoin family: hashjackd against the raw limit on
litecoind (regtest).

Builds a regtest chain of BLOCKS blocks (tests/e2e/btc_node.py; bulk blocks
pay a burn address, P2WSH(OP_TRUE), so no wallet grows with them) holding
ACTIONS action transactions spread over it, each made with the node's
wallet as a player makes it (createrawtransaction, fundrawtransaction,
signrawtransactionwithwallet, sendrawtransaction):
  - Bets paying the dealer, payload 484a0101 + a random valid x-only key
    (some out of the bet limits, some with the stake split over two
    outputs to the dealer);
  - zero-value signed-looking actions (Hit, Stand, Surrender, Peek) naming
    an earlier Bet by its short id, with random signature bytes;
  - plain deposits to the dealer (no OP_RETURN).
Whether the daemon accepts, rejects or refunds them, they take its path.

Then, in the same run:
  - raw: bench's raw_fetch --btc, a minimal batched client fetching blocks
    0..tip as hashjackd does (batched getblockhash, then batched getblock
    <hash> 0, every block hex-decoded; cookie authentication), once one
    batch at a time and once with --depth batches in flight (default 3,
    as hashjackd), before and after hashjackd's run: the ratio is against
    the better of those two.  litecoind's HTTP server
    writes responses in 16 KiB pieces without TCP_NODELAY, so a response
    over 16 KiB (a batch of more than ~28 regtest blocks) waits about 40 ms
    for the client's delayed ACK: one batch at a time pays it in full,
    several in flight hide it;
  - hashjackd: family = bitcoin, coin = litecoin, cookie file, a fresh state
    directory, start_height 0, confirmations 1, timed from start until its
    card log holds every block.
Prints both rates in blocks/s, their ratio and hashjackd's peak RSS.

Usage: catchup_btc.py --build DIR [--blocks N] [--actions N] [--batch N]
                      [--depth N] [--mweb] [--keep]
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
from btc_node import COIN, Litecoind, action_payload, bet_payload, short_id  # noqa: E402
from catchup import run_daemon, run_raw  # noqa: E402
from procs import add_exit_hook, install_cleanup  # noqa: E402

MIN_BET = 100000          # litoshis; above the 2940 dust limit per output
MAX_BET = 10 ** 8
P = 2 ** 256 - 2 ** 32 - 977   # secp256k1 field


def random_xonly(rng):
    """A random 32-byte x that is on secp256k1 (x^3 + 7 is a square)."""
    while True:
        x = rng.randrange(1, P)
        if pow((x * x * x + 7) % P, (P - 1) // 2, P) == 1:
            return "%064x" % x


def premine(node, blocks, actions, rng, log):
    """Mines blocks 1..blocks with `actions` transactions at random heights.
    Returns (tip, dealer address, counts by kind)."""
    dealer = node.new_address("dealer")
    burn = node.rpc("decodescript", "51")["segwit"]["addresses"][0]
    players = ["p%d" % i for i in range(6)]
    node.mine(101)                                   # the funder's coins
    node.fund(players * 3, 10 * COIN)                # 3 coins each, one transaction
    start = node.height() + 1
    if blocks < start + actions:
        raise SystemExit("--blocks %d too small for %d actions" % (blocks, actions))
    at = sorted(rng.sample(range(start, blocks + 1), actions))
    bets = []
    kinds = {}
    t0 = time.monotonic()
    for i, h in enumerate(at):
        if node.height() < h - 1:
            node.mine(h - 1 - node.height(), address=burn)
        p = rng.choice(players)
        r = rng.random()
        if r < 0.45 or not bets:
            kind, value = "bet", rng.randint(MIN_BET, MAX_BET)
            data = bet_payload(random_xonly(rng))
        elif r < 0.55:
            kind, value = "bet-split", [rng.randint(MIN_BET, MAX_BET // 2) for _ in range(2)]
            data = bet_payload(random_xonly(rng))
        elif r < 0.62:
            kind, value = "bet-out-of-limits", rng.choice([MIN_BET - 1, MAX_BET + 1])
            data = bet_payload(random_xonly(rng))
        elif r < 0.95:
            kind, value = "zero-value", 0
            act = rng.choice(["Hit", "Stand", "Surrender", "Peek"])
            fields = "00" if act == "Peek" else ""
            sig = "%0128x" % rng.getrandbits(512)
            data = action_payload(act, fields, short_id(rng.choice(bets)), sig)
        else:
            kind, value, data = "deposit", rng.randint(10000, 10 ** 6), None
        txid = node.send_action(p, dealer, value, data)
        if kind.startswith("bet"):
            bets.append(txid)
        kinds[kind] = kinds.get(kind, 0) + 1
        node.mine(1, address=burn)
        if log and (i + 1) % 50 == 0:
            log("  %d actions, height %d, %.1fs" % (i + 1, node.height(), time.monotonic() - t0))
    if node.height() < blocks:
        node.mine(blocks - node.height(), address=burn)
    return node.height(), dealer, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="build directory (raw_fetch, hashjackd)")
    ap.add_argument("--blocks", type=int, default=5000)
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--batch", type=int, default=100, help="blocks per batched request")
    ap.add_argument("--depth", type=int, default=3,
                    help="batches in flight for the raw client (hashjackd: 3)")
    ap.add_argument("--mweb", action="store_true", help="activate MWEB at 432 (peg-in)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=1800, help="deadline for the whole run (s)")
    a = ap.parse_args()
    install_cleanup(a.timeout)
    for tool in ("raw_fetch", "hashjackd"):
        if not os.access(os.path.join(a.build, tool), os.X_OK):
            raise SystemExit("%s not found in %s" % (tool, a.build))
    workdir = tempfile.mkdtemp(prefix="hj-bench-btc-")
    if not a.keep:
        add_exit_hook(lambda: shutil.rmtree(workdir, ignore_errors=True))
    node = Litecoind(workdir=os.path.join(workdir, "node"), mweb=a.mweb).start()
    try:
        print("building a regtest chain of %d blocks with %d action transactions%s..."
              % (a.blocks, a.actions, " (MWEB from 432)" if a.mweb else ""), flush=True)
        t = time.monotonic()
        tip, dealer, kinds = premine(node, a.blocks, a.actions, random.Random(7),
                                     lambda s: print(s, flush=True))
        print("built in %.1fs: %s" % (time.monotonic() - t,
                                      ", ".join("%s %d" % kv for kv in sorted(kinds.items()))),
              flush=True)
        node.flush()
        seq_rate, seq_secs, nbytes = run_raw(a.build, node, tip, a.batch, 1, node.cookie_file)
        raw_rate, raw_secs, _ = run_raw(a.build, node, tip, a.batch, a.depth, node.cookie_file)
        print("blocks: %d (0..%d), %.1f MB of raw blocks, %d per batch"
              % (tip + 1, tip, nbytes / 1e6, a.batch))
        print("raw batched client, one batch at a time: %.0f blocks/s (%.2f s)"
              % (seq_rate, seq_secs))
        print("raw batched client, %d batches in flight: %.0f blocks/s (%.2f s)"
              % (a.depth, raw_rate, raw_secs), flush=True)
        rate, elapsed, rss, _ = run_daemon(a.build, node, dealer, tip, a.batch,
                                           os.path.join(workdir, "daemon"), MIN_BET, MAX_BET)
        print("hashjackd catch-up: %.0f blocks/s (%.2f s, start to last line)"
              % (rate, elapsed), flush=True)
        again, again_secs, _ = run_raw(a.build, node, tip, a.batch, a.depth, node.cookie_file)
        print("raw batched client, %d batches in flight, after hashjackd: %.0f blocks/s "
              "(%.2f s)" % (a.depth, again, again_secs))
        raw_rate = max(raw_rate, again)
    finally:
        node.stop()
    print("ratio: %.2f against the better raw run in flight (target >= 0.80)"
          % (rate / raw_rate))
    print("hashjackd peak RSS: %.1f MiB (target < 64 MiB)" % (rss / 1024.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
