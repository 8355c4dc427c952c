#!/usr/bin/env python3
"""Verify benchmark (issue 14): `hashjack verify` against the raw limit.

Builds the chain of a catch-up benchmark (--family evm: bench/catchup.py's
20,000 anvil blocks with 300 action transactions; --family btc:
bench/catchup_btc.py's 5,000 litecoind regtest blocks with 200), lets
hashjackd write its card log of it (catchup.run_daemon: confirmations 1,
start_height 0, batches of --batch), then, in the same run, --rounds times
in turn over the same blocks of the same node:
  - raw: bench's raw_fetch (--btc for litecoind), one batch at a time and
    --depth batches in flight (the rate it prints itself: no process
    start, no connection set-up);
  - verify: `hashjack verify -c` the daemon's configuration file (so its
    [state] card_log, [chain] batch_blocks and node), timed from its start
    to its exit, which must be 0 with "every line agrees".
Prints every run with its CPU time (user + system, the process's own), the
best rate of each, the least CPU per block of each, and the ratio of
verify's best rate to raw's best at each depth and to the best raw run of
either depth (target >= 0.90).

Usage: verify.py --build DIR [--family evm|btc] [--blocks N] [--actions N]
                 [--batch N] [--depth N] [--rounds N] [--keep]
"""
import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
import catchup  # noqa: E402
import catchup_btc  # noqa: E402
from btc_node import Litecoind  # noqa: E402
from procs import add_exit_hook, install_cleanup  # noqa: E402


def child_cpu():
    """CPU seconds (user + system) of the children waited for so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_verify(build, conf, tip):
    """`hashjack verify -c conf` over blocks 0..tip: (seconds from start
    to exit, its CPU seconds)."""
    cpu = child_cpu()
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(build, "hashjack"), "verify", "-c", conf],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    secs = time.monotonic() - t0
    cpu = child_cpu() - cpu
    if p.returncode != 0 or p.stdout != "verified blocks 0 to %d: every line agrees\n" % tip:
        raise SystemExit("hashjack verify exited %d:\n%s%s"
                         % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return secs, cpu


def evm_chain(a, workdir):
    """A started anvil with catchup.py's chain: (node, tip, dealer, stop, cookie)."""
    node = catchup.Node(os.path.join(workdir, "anvil-home"))
    add_exit_hook(node.proc.kill)
    print("pre-mining %d anvil blocks with %d action transactions..."
          % (a.blocks, a.actions), flush=True)
    tip = catchup.premine(node, a.blocks, a.actions)
    return node, tip, catchup.DEALER, node.stop, None, catchup.MIN_BET, catchup.MAX_BET


def btc_chain(a, workdir):
    """A started litecoind with catchup_btc.py's chain."""
    node = Litecoind(workdir=os.path.join(workdir, "node")).start()
    print("building a litecoind regtest chain of %d blocks with %d action transactions..."
          % (a.blocks, a.actions), flush=True)
    t = time.monotonic()
    tip, dealer, _ = catchup_btc.premine(node, a.blocks, a.actions, random.Random(7), None)
    print("built in %.1fs" % (time.monotonic() - t), flush=True)
    node.flush()
    return (node, tip, dealer, node.stop, node.cookie_file, catchup_btc.MIN_BET,
            catchup_btc.MAX_BET)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="build directory (raw_fetch, hashjackd, "
                    "hashjack)")
    ap.add_argument("--family", choices=("evm", "btc"), default="evm")
    ap.add_argument("--blocks", type=int, help="default 20000 (evm), 5000 (btc)")
    ap.add_argument("--actions", type=int, help="default 300 (evm), 200 (btc)")
    ap.add_argument("--batch", type=int, default=100, help="blocks per batched request")
    ap.add_argument("--depth", type=int, default=3,
                    help="batches in flight for the raw client's second run")
    ap.add_argument("--rounds", type=int, default=3, help="raw and verify runs each")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=1800, help="deadline for the whole run (s)")
    a = ap.parse_args()
    evm = a.family == "evm"
    a.blocks = a.blocks or (20000 if evm else 5000)
    a.actions = a.actions or (300 if evm else 200)
    install_cleanup(a.timeout)
    for tool in ("raw_fetch", "hashjackd", "hashjack"):
        if not os.access(os.path.join(a.build, tool), os.X_OK):
            raise SystemExit("%s not found in %s" % (tool, a.build))
    workdir = tempfile.mkdtemp(prefix="hj-bench-verify-")
    if not a.keep:
        add_exit_hook(lambda: shutil.rmtree(workdir, ignore_errors=True))
    node, tip, dealer, stop, cookie, min_bet, max_bet = \
        (evm_chain if evm else btc_chain)(a, workdir)
    raws, verifies = [], []
    try:
        rate, secs, _, dm = catchup.run_daemon(a.build, node, dealer, tip, a.batch,
                                               os.path.join(workdir, "daemon"),
                                               min_bet, max_bet)
        print("blocks: %d (0..%d), %d per batch; hashjackd wrote the card log at "
              "%.0f blocks/s (%.2f s)" % (tip + 1, tip, a.batch, rate, secs), flush=True)
        n = tip + 1
        for _ in range(a.rounds):
            for depth in sorted({1, a.depth}):
                cpu = child_cpu()
                rate, secs, _ = catchup.run_raw(a.build, node, tip, a.batch, depth, cookie)
                cpu = child_cpu() - cpu
                raws.append((rate, depth, cpu))
                print("  raw batched client, %d in flight: %6.0f blocks/s (%.2f s, CPU %.2f s: "
                      "%.1f us/block)" % (depth, rate, secs, cpu, cpu * 1e6 / n), flush=True)
            secs, cpu = run_verify(a.build, dm.conf, tip)
            verifies.append((n / secs, cpu))
            print("  hashjack verify:                 %6.0f blocks/s (%.2f s, CPU %.2f s: "
                  "%.1f us/block)" % (n / secs, secs, cpu, cpu * 1e6 / n), flush=True)
    finally:
        stop()
    ver = max(verifies)
    print("best: hashjack verify %.0f blocks/s; raw %s" % (ver[0], ", ".join(
        "%.0f blocks/s with %d in flight" % (max(r[0] for r in raws if r[1] == d), d)
        for d in sorted({1, a.depth}))))
    print("CPU per block, least of the runs: raw %.1f us, hashjack verify %.1f us"
          % (min(r[2] for r in raws) * 1e6 / n, min(v[1] for v in verifies) * 1e6 / n))
    for d in sorted({1, a.depth}):
        raw = max(r[0] for r in raws if r[1] == d)
        print("ratio against raw with %d in flight: %.2f" % (d, ver[0] / raw))
    raw = max(r[0] for r in raws)
    print("ratio against the best raw run: %.2f (target >= 0.90): %s"
          % (ver[0] / raw, "met" if ver[0] >= 0.9 * raw else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
