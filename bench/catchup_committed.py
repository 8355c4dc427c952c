#!/usr/bin/env python3
"""Catch-up benchmark, committed cards against hash cards on one chain.

One anvil chain, in the same run, dealt by hashjackd under `[rules] cards =
committed` and under `cards = hash` (docs/OPERATION.md "Committed cards"):

  - setup: a committed dealer (dealer_key, confirmations 2, [seeds] length
    L, lead 4) follows anvil from block 0, sends its Commit, and deals a
    few keyed blocks; it stops at height H0.  A hash dealer, configured
    the same but for cards = hash, deals the same blocks 0..H0 and stops.
    Their state directories are the two templates.
  - BLOCKS blocks are mined on top with ACTIONS action transactions to the
    dealer (bench/catchup.py's premine).
  - ROUNDS times, the order swapped each round: each template's database
    and seed files copied to a fresh state directory, its card log a new
    file (hashjackd resumes as after a rotation: a copied log is another
    file than the one the state wrote, which it refuses), and hashjackd
    timed from its start until its card log holds the last final block.
    The committed daemon opens the chain in force at its first block (its
    checkpoints read from their cache, daemon/seedchain.h) and then
    reveals one seed and computes one HMAC per block; the hash daemon does
    neither.  The
    node's mempool is emptied after each run (the payouts the run's payer
    sent), so that every run finds the same node.

Prints each run: blocks/s from the start to the last line; the time and
CPU time to the first new line (the committed daemon's opening of the
chain is in it); blocks/s and CPU per block from the first new line to the
last (CPU: every thread of the daemon, /proc/PID/task/*/schedstat).  Then
the best of each mode and the ratios committed/hash of the bests, against
the target 0.95.

anvil's mining slows as its chain grows (anvil 1.7.1: 100 blocks at height
5,000 take 1 to 3 s), hence 5,000 blocks by default.

Usage: catchup_committed.py --build DIR [--blocks N] [--actions N]
                            [--rounds N] [--seeds-length L] [--keep]
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from catchup import MIN_BET, MAX_BET, peak_rss_kib, premine  # noqa: E402
from daemon import Hashjackd  # noqa: E402
from evm_node import Anvil  # noqa: E402
from procs import add_exit_hook, install_cleanup, wait_until  # noqa: E402

TARGET = 0.95
LEAD = 4


class Rpc:
    """catchup.premine's view of an evm_node.Anvil: rpc(method, [params])
    and the accounts' addresses."""

    def __init__(self, anvil):
        self.anvil = anvil
        self.accounts = [a.address for a in anvil.accounts]

    def rpc(self, method, params):
        return self.anvil.rpc(method, *params, timeout=120)


def daemon(build, anvil, dealer, key, cards, workdir, seeds_length):
    extra = {"payout": {"dealer_key": key}, "rules": {"cards": cards}}
    if cards == "committed":
        extra["seeds"] = {"length": seeds_length, "lead": LEAD}
    dm = Hashjackd(os.path.join(build, "hashjackd"), anvil, dealer.address,
                   MIN_BET, MAX_BET, confirmations=2, poll_interval_ms=100,
                   batch_blocks=100, start_height=0, workdir=workdir,
                   extra=extra)
    st, _, err = dm.check_config()
    if st != 0:
        raise SystemExit("hashjackd --check-config failed (%d): %s" % (st, err.strip()))
    return dm


def stop(dm):
    rc = dm.stop(10)
    if rc != 0:
        raise SystemExit("hashjackd exited %s on SIGTERM:\n%s" % (rc, dm.stderr()[-3000:]))


def commits(dm):
    return [e for ln in dm.lines() for e in ln["events"] if e["type"] == "commit"]


def setup_committed(build, anvil, dealer, key, workdir, seeds_length):
    """The committed dealer until its chain has dealt a few blocks; returns
    (its state directory, the last height it dealt)."""
    dm = daemon(build, anvil, dealer, key, "committed", workdir, seeds_length)
    anvil.mine_empty(3)
    dm.start()
    try:
        start = None
        for _ in range(40):
            anvil.mine()
            dm.wait_height(anvil.height() - 1, 60)
            c = commits(dm)
            if c:
                start = c[0]["start"]
                if dm.last_height() >= start + 3:
                    break
        if start is None or dm.last_height() < start + 3:
            raise SystemExit("the committed dealer's chain did not come in force:\n%s"
                             % dm.stderr()[-3000:])
    finally:
        stop(dm)
    last = dm.lines()[-1]
    if "seed" not in last:
        raise SystemExit("block %d has no seed under committed cards" % last["height"])
    return dm.state_dir, last["height"], start


def setup_hash(build, anvil, dealer, key, workdir, h0):
    """The hash dealer over blocks 0..h0 (the node's final block)."""
    dm = daemon(build, anvil, dealer, key, "hash", workdir, None)
    dm.start()
    try:
        dm.wait_height(h0, 60)
    finally:
        stop(dm)
    if dm.last_height() != h0:
        raise SystemExit("the hash dealer stopped at %s, not %d" % (dm.last_height(), h0))
    return dm.state_dir


def cpu_ns(pid):
    """The process's CPU time so far, every thread's (schedstat: ns)."""
    total = 0
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def timed_run(build, anvil, dealer, key, cards, template, workdir, h0, last,
              seeds_length):
    """hashjackd from a copy of template's database and seed files, its
    card log a new file (as after a rotation: the state's own log is not
    beside it), timed until the new log holds block `last`: a dict of the
    seconds and CPU seconds to the first line after h0 and to the last,
    and the peak RSS in KiB."""
    dm = daemon(build, anvil, dealer, key, cards, workdir, seeds_length)
    shutil.copytree(template, dm.state_dir, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("cards.jsonl*", "hashjackd.lock"))

    def reached(h):
        def done():
            if not dm.running():
                raise SystemExit("hashjackd exited with %s:\n%s"
                                 % (dm.proc.returncode, dm.stderr()[-3000:]))
            got = dm.last_height()
            return got is not None and got >= h
        return done

    out = {}
    t0 = time.monotonic()
    dm.start()
    try:
        wait_until(reached(h0 + 1), 120, "hashjackd to deal block %d" % (h0 + 1), 0.002)
        out["first"], out["first_cpu"] = time.monotonic() - t0, cpu_ns(dm.proc.pid) / 1e9
        wait_until(reached(last), 600, "hashjackd to deal block %d" % last, 0.002)
        out["all"], out["all_cpu"] = time.monotonic() - t0, cpu_ns(dm.proc.pid) / 1e9
        out["rss"] = peak_rss_kib(dm.proc.pid)
    finally:
        rc = dm.stop(10)
    if rc != 0:
        raise SystemExit("hashjackd exited %s on SIGTERM:\n%s" % (rc, dm.stderr()[-3000:]))
    lines = dm.lines()
    if (len(lines) != last - h0 or lines[0]["height"] != h0 + 1
            or lines[-1]["height"] != last):
        raise SystemExit("the new card log holds %d lines (%s..%s), expected %d..%d"
                         % (len(lines), lines and lines[0]["height"],
                            lines and lines[-1]["height"], h0 + 1, last))
    if any(("seed" in ln) != (cards == "committed") for ln in lines):
        raise SystemExit("a line without a seed under committed cards, or with "
                         "one under hash cards")
    # Payouts this run's payer sent stay pending (nothing is mined): the
    # next run must find the node as this one did.
    anvil.rpc("anvil_dropAllTransactions")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="build directory")
    ap.add_argument("--blocks", type=int, default=5000)
    ap.add_argument("--actions", type=int, default=75)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seeds-length", type=int, default=1000000,
                    help="[seeds] length of the committed dealer's chain")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    install_cleanup()
    workdir = tempfile.mkdtemp(prefix="hj-bench-committed-")
    if a.keep:
        print("work directory: %s" % workdir)
    else:
        add_exit_hook(lambda: shutil.rmtree(workdir, ignore_errors=True))
    anvil = Anvil(workdir=os.path.join(workdir, "anvil"), keep_state=False,
                  accounts=12).start()
    add_exit_hook(anvil.kill)
    dealer = anvil.accounts[1]  # catchup.DEALER
    key = os.path.join(workdir, "dealer.key")
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (dealer.key + "\n").encode())
    os.close(fd)

    print("setup: a committed dealer commits its chain (L = %d) and deals with it..."
          % a.seeds_length, flush=True)
    tpl_c, h0, start = setup_committed(a.build, anvil, dealer, key,
                                       os.path.join(workdir, "setup-committed"),
                                       a.seeds_length)
    tpl_h = setup_hash(a.build, anvil, dealer, key,
                       os.path.join(workdir, "setup-hash"), h0)
    print("both templates at block %d (chain in force from block %d)" % (h0, start))
    print("pre-mining %d blocks with %d action transactions..."
          % (a.blocks, a.actions), flush=True)
    tip = premine(Rpc(anvil), a.blocks, a.actions)
    last = tip - 1  # confirmations 2
    n = last - h0
    print("catch-up over blocks %d..%d (%d blocks), confirmations 2, batches of 100"
          % (h0 + 1, last, n))

    runs = {"hash": [], "committed": []}
    for r in range(a.rounds):
        order = ("hash", "committed") if r % 2 == 0 else ("committed", "hash")
        for cards in order:
            wd = os.path.join(workdir, "run-%d-%s" % (r, cards))
            o = timed_run(a.build, anvil, dealer, key, cards,
                          tpl_c if cards == "committed" else tpl_h, wd, h0, last,
                          a.seeds_length)
            shutil.rmtree(wd, ignore_errors=True)
            o["rate"] = n / o["all"]
            o["steady"] = (n - 1) / (o["all"] - o["first"])
            o["us"] = 1e6 * (o["all_cpu"] - o["first_cpu"]) / (n - 1)
            runs[cards].append(o)
            print("round %d  %-9s  %6.0f blocks/s (%.2f s)   first new line %4.0f ms "
                  "(CPU %4.0f ms)   then %6.0f blocks/s, CPU %5.1f us per block   "
                  "RSS %.1f MiB"
                  % (r + 1, cards, o["rate"], o["all"], 1e3 * o["first"],
                     1e3 * o["first_cpu"], o["steady"], o["us"], o["rss"] / 1024.0),
                  flush=True)
    anvil.stop()

    def best(cards, k, f=max):
        return f(o[k] for o in runs[cards])

    for cards in ("hash", "committed"):
        print("%-9s best: %6.0f blocks/s   first new line %4.0f ms (CPU %4.0f ms)   "
              "then %6.0f blocks/s, CPU %5.1f us per block"
              % (cards, best(cards, "rate"), 1e3 * best(cards, "first", min),
                 1e3 * best(cards, "first_cpu", min), best(cards, "steady"),
                 best(cards, "us", min)))
    ratio = best("committed", "rate") / best("hash", "rate")
    steady = best("committed", "steady") / best("hash", "steady")
    cpu = best("hash", "us", min) / best("committed", "us", min)
    print("ratio committed/hash, start to last line: %.2f (target >= %.2f: %s); per round %s"
          % (ratio, TARGET, "met" if ratio >= TARGET else "MISSED",
             ", ".join("%.2f" % (c["rate"] / h["rate"])
                       for c, h in zip(runs["committed"], runs["hash"]))))
    print("ratio committed/hash after the first new line: %.2f (target >= %.2f: %s); "
          "CPU per block hash/committed %.2f"
          % (steady, TARGET, "met" if steady >= TARGET else "MISSED", cpu))
    print("the committed daemon's start-up costs %.0f ms more (its first block opens "
          "the chain of L = %d from its cached checkpoints)"
          % (1e3 * (best("committed", "first", min) - best("hash", "first", min)),
             a.seeds_length))

if __name__ == "__main__":
    main()
