#!/usr/bin/env python3
"""Catch-up benchmark (issue 3): hashjackd against the raw limit.

Pre-mines BLOCKS blocks on a local anvil holding a few hundred action
transactions to the dealer, then, in the same run:
  - raw: bench's raw_fetch, a minimal batched JSON-RPC client, fetches the
    same blocks (eth_getBlockByNumber with full transactions);
  - hashjackd: a fresh state directory, start_height 0, confirmations 1,
    timed from start until its card log holds every block.
Prints both rates in blocks/s, their ratio and hashjackd's peak RSS.
Targets: ratio >= 0.8, >= 2000 blocks/s, RSS < 64 MiB.

Usage: catchup.py --build DIR [--blocks N] [--actions N]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from daemon import Hashjackd  # noqa: E402
from evm_node import anvil_env  # noqa: E402
from procs import add_exit_hook, free_port, install_cleanup, wait_until  # noqa: E402

ANVIL = os.path.join(ROOT, "node_modules", ".bin", "anvil")
DEALER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"  # anvil account 1
MIN_BET = 10**15
MAX_BET = 10**18
PAYLOADS = ["0x484a0101", "0x484a0102", "0x484a0103", "0x484a0104",
            "0x484a0105", "0x484a0106", "0x484a010700", "0x484a010701",
            "0x484a01", "0x"]


class Node:
    def __init__(self, home):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.proc = subprocess.Popen(
            [ANVIL, "--host", "127.0.0.1", "--port", str(self.port),
             "--no-mining", "--accounts", "12", "--silent"],
            env=anvil_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            try:
                self.rpc("eth_chainId", [])
                break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit("anvil did not start")
                time.sleep(0.05)
        self.accounts = self.rpc("eth_accounts", [])

    def rpc(self, method, params):
        req = urllib.request.Request(
            self.url, json.dumps({"jsonrpc": "2.0", "id": 1,
                                  "method": method,
                                  "params": params}).encode(),
            {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            out = json.load(r)
        if "error" in out:
            raise RuntimeError("%s: %s" % (method, out["error"]))
        return out["result"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def premine(node, blocks, actions):
    """Spreads `actions` transactions over `blocks` blocks."""
    rng = random.Random(7)
    players = [a for a in node.accounts if a.lower() != DEALER][:10]
    at = sorted(rng.sample(range(1, blocks), actions))
    mined = 0
    for h in at:
        if h - 1 > mined:
            node.rpc("anvil_mine", [hex(h - 1 - mined)])
            mined = h - 1
        p = rng.choice(players)
        data = rng.choice(PAYLOADS)
        value = rng.choice([0, 10**15, 10**16])
        node.rpc("eth_sendTransaction", [{"from": p, "to": DEALER,
                                          "data": data, "value": hex(value),
                                          "gas": hex(100000)}])
        node.rpc("anvil_mine", ["0x1"])
        mined = h
    if blocks > mined:
        node.rpc("anvil_mine", [hex(blocks - mined)])
    return int(node.rpc("eth_blockNumber", []), 16)


def peak_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def run_raw(build, node, tip, batch, depth=1, cookie=None):
    """raw_fetch over blocks 0..tip of node (with cookie: --btc, the
    Bitcoin family's fetch): (blocks/s, seconds, decoded block bytes or
    None)."""
    args = [os.path.join(build, "raw_fetch"), "--depth", str(depth)]
    if cookie:
        args += ["--btc", "--cookie", cookie]
    r = subprocess.run(args + [node.url, "0", str(tip), str(batch)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise SystemExit("raw_fetch failed (%d): %s" % (r.returncode, r.stderr.strip()))
    out = r.stdout.split()
    n, secs = int(out[1]), float(out[3])
    if n != tip + 1:
        raise SystemExit("raw_fetch fetched %d blocks, expected %d" % (n, tip + 1))
    return n / secs, secs, int(out[5]) if len(out) > 5 else None


def run_daemon(build, node, dealer, tip, batch, workdir, min_bet, max_bet):
    """hashjackd (tests/e2e/daemon.py's Hashjackd: its configuration file in
    workdir, its card log workdir/state/cards.jsonl, both left there) over
    blocks 0..tip of node, confirmations 1, timed from its start until its
    card log holds block tip: (blocks/s, seconds, peak RSS KiB, the
    stopped daemon.Hashjackd)."""
    dm = Hashjackd(os.path.join(build, "hashjackd"), node, dealer, min_bet, max_bet,
                   confirmations=1, poll_interval_ms=100, batch_blocks=batch,
                   start_height=0, workdir=workdir)
    st, _, err = dm.check_config()
    if st != 0:
        raise SystemExit("hashjackd --check-config failed (%d): %s" % (st, err.strip()))
    t0 = time.monotonic()
    dm.start()
    try:
        def done():
            if not dm.running():
                raise SystemExit("hashjackd exited with %s:\n%s"
                                 % (dm.proc.returncode, dm.stderr()[-3000:]))
            last = dm.last_height()
            return last is not None and last >= tip
        wait_until(done, 600, "hashjackd to deal block %d" % tip, 0.01)
        elapsed = time.monotonic() - t0
        rss = peak_rss_kib(dm.proc.pid)
    finally:
        rc = dm.stop(10)
    if rc != 0:
        raise SystemExit("hashjackd exited %s on SIGTERM:\n%s" % (rc, dm.stderr()[-3000:]))
    n = len(dm.lines())
    if n != tip + 1:
        raise SystemExit("card log holds %d lines, expected %d" % (n, tip + 1))
    return (tip + 1) / elapsed, elapsed, rss, dm


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="build directory")
    ap.add_argument("--blocks", type=int, default=20000)
    ap.add_argument("--actions", type=int, default=300)
    a = ap.parse_args()
    if not os.path.exists(ANVIL):
        raise SystemExit("anvil not found at %s: run scripts/deps.sh" % ANVIL)
    install_cleanup()
    workdir = tempfile.mkdtemp(prefix="hj-bench-")
    add_exit_hook(lambda: shutil.rmtree(workdir, ignore_errors=True))
    node = Node(os.path.join(workdir, "anvil-home"))
    add_exit_hook(node.proc.kill)
    try:
        print("pre-mining %d blocks with %d action transactions..."
              % (a.blocks, a.actions), flush=True)
        tip = premine(node, a.blocks, a.actions)
        raw_rate = run_raw(a.build, node, tip, 100)[0]
        rate, elapsed, rss, _ = run_daemon(a.build, node, DEALER, tip, 100, workdir,
                                           MIN_BET, MAX_BET)
    finally:
        node.stop()
    print("blocks: %d (0..%d)" % (tip + 1, tip))
    print("raw batched client: %.0f blocks/s" % raw_rate)
    print("hashjackd catch-up: %.0f blocks/s (%.2f s, start to last line)"
          % (rate, elapsed))
    print("ratio: %.2f (target >= 0.80)   rate target >= 2000 blocks/s: %s"
          % (rate / raw_rate, "met" if rate >= 2000 else "MISSED"))
    print("hashjackd peak RSS: %.1f MiB (target < 64 MiB)" % (rss / 1024.0))


if __name__ == "__main__":
    main()
