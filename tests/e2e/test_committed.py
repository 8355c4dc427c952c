#!/usr/bin/env python3
"""Committed cards on EVM (docs/PROTOCOL.md section 15): hashjackd keeps a
seed chain, sends its Commit exactly once, deals keyed cards and moves to
the next chain before the one in force runs out, on a real anvil:

    /usr/bin/python3 tests/e2e/test_committed.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [--keep] [--timeout S]

One anvil (dealer: account 0, with [payout] dealer_key), a daemon with
cards = committed, confirmations 2, [seeds] length 12, renew_before 5,
lead 4; in order:

- first: before any Commit every block is void and has no seed; the
  daemon's Commit (a transaction from the dealer to itself, its payload
  48 bytes) is mined and dealt as a commit event from the dealer, its H
  after its block; /healthz says no chain is in force until then, and
  hashjackd_seeds_left counts the chain once it is.
- keyed: every line from H on carries its seed; SHA-256 of each seed is
  the seed before it, or the commitment for the chain's first block; each
  card is the rule of docs/PROTOCOL.md section 2 read on
  HMAC-SHA256(seed, block hash), computed here with Python's hashlib and
  hmac; a round (Bet, Stand) is dealt keyed cards and settles.
- second: before the first chain runs out the daemon commits the next one,
  starting at the block after the first chain's last: no void block
  between the two, each line's seed of the right chain.
- bogus: a Commit from a player is rejected not_dealer and refunded; a
  48-byte payload with L = 0 malformed; a Commit the dealer's key sends
  (cast, while the daemon is stopped) for a chain starting at its own
  block commit_too_late; each as the protocol says, the chain in force
  unchanged.
- kill: hashjackd killed (SIGKILL) at random instants around its Commits
  (0-50 ms after it logs a new chain or its Commit's batch), a block mined
  while it is down, restarted each time: every chain of seed_chains has
  one Commit on chain and is dealt (none late), the seeds keep chaining,
  and no block from the first chain's first block on lacks a seed.
- reorg: a reorganisation deeper than the confirmations takes a Commit's
  block and keyed blocks (checks.check_committed_reorg): exit 3, `hashjack
  reorg` counts the seeds and the Commit that left the chain, --rewind
  removes the Commit and keeps seed_chains; restarted, the daemon deals
  the Commit mined again and every height with the seed it had.
- verify: `hashjack verify` with the daemon's configuration and log,
  against the node: exit 0 (every seed chains, every keyed card is the
  HMAC's).
- stop: SIGTERM, exit 0; the seed files and their checkpoints are mode
  0600 in a 0700 directory, and no seed appears on stderr.

One line per case, then "N passed, M failed"; exit status 1 on failure.
"""
import argparse
import json
import os
import random
import sqlite3
import stat
import sys
import time
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cards import commit_payload, committed_lines  # noqa: E402
from checks import Failed, check, check_committed_reorg  # noqa: E402
from daemon import Hashjackd, find_hashjackd, metric  # noqa: E402
from evm_node import Anvil, BET, STAND  # noqa: E402
from procs import HarnessError, install_cleanup, own_tempdir, wait_until  # noqa: E402
from tool import find_hashjack, verify  # noqa: E402

MIN_BET = 10 ** 15
MAX_BET = 10 ** 18
LENGTH, RENEW, LEAD = 12, 5, 4


class Case:
    def __init__(self, hashjackd, workdir):
        self.workdir = workdir
        self.a = Anvil(workdir=os.path.join(workdir, "anvil"), keep_state=False,
                       accounts=4).start()
        self.dealer = self.a.accounts[0]
        self.players = self.a.accounts[1:]
        key = os.path.join(workdir, "dealer.key")
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, (self.dealer.key + "\n").encode())
        os.close(fd)
        self.dm = Hashjackd(hashjackd, self.a, self.dealer.address, MIN_BET, MAX_BET, 20,
                            confirmations=2, start_height=1,
                            workdir=os.path.join(workdir, "daemon"),
                            metrics=True,
                            extra={"payout": {"dealer_key": key, "min_refund": 0},
                                   "rules": {"cards": "committed"},
                                   "seeds": {"length": LENGTH, "renew_before": RENEW,
                                             "lead": LEAD}})
        self.db_path = os.path.join(self.dm.state_dir, "hashjackd.sqlite")

    def commit_sent(self, timeout=30):
        """Until no chain of the daemon waits for its Commit to reach the
        node: the test mines as fast as the daemon deals, and a Commit still
        on its way would make its chain late by the test's pace alone."""
        def ok():
            if not os.path.exists(self.db_path):
                return True  # not started yet: nothing planned
            rows = self.db("SELECT b.state FROM seed_chains s LEFT JOIN payout_batches b"
                           " ON b.id = s.batch WHERE s.state = 'planned'")
            return not rows or rows[0][0] in ("sent", "confirmed")
        wait_until(ok, timeout, "the planned chain's Commit sent")

    def mine_until(self, pred, what, limit=60):
        """Mines one block at a time (waiting for the daemon, and for a
        planned chain's Commit to be sent, each time) until pred() holds."""
        for _ in range(limit):
            if pred():
                return
            self.commit_sent()
            self.a.mine()
            self.dm.wait_height(self.a.height() - 1, 30)
        if not pred():
            raise Failed("%s: not after %d blocks" % (what, limit))

    def commits(self):
        return [(ln["height"], e) for ln in self.dm.lines() for e in ln["events"]
                if e["type"] == "commit"]

    def db(self, sql, *args):
        c = sqlite3.connect("file:%s?mode=ro" % self.db_path, uri=True)
        try:
            return c.execute(sql, args).fetchall()
        finally:
            c.close()

    def health(self):
        try:
            with urllib.request.urlopen(self.dm.metrics_url() + "/healthz", timeout=5) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def check_lines(self):
        """Every line: seed and card as the chain in force says
        (cards.committed_lines).  Returns the number of keyed lines."""
        keyed, bad = committed_lines(self.dm.lines())
        check(bad is None, bad)
        return keyed


def case_first(C):
    C.a.mine_empty(3)
    C.dm.start()
    C.a.mine()
    C.dm.wait_height(C.a.height() - 1, 30)
    st, h = C.health()
    check(st == 503 and any("no seed chain in force" in r for r in h["reasons"]),
          "healthz before the first Commit: %s %s" % (st, h))
    C.mine_until(lambda: C.commits(), "the first Commit dealt")
    (y, ev), = C.commits()
    check(ev["from"] == C.dealer.address and ev["length"] == LENGTH and ev["start"] > y,
          "commit event: %s in block %d" % (ev, y))
    tx = C.a.rpc("eth_getTransactionByHash", ev["tx"])
    check(tx["from"].lower() == C.dealer.address and tx["to"].lower() == C.dealer.address
          and tx["input"] == "0x" + commit_payload(ev["start"], LENGTH, ev["commitment"]),
          "the Commit transaction: %s" % tx)
    rows = C.db("SELECT state, start, length, hex(commitment) FROM seed_chains")
    check(rows == [("dealt", ev["start"], LENGTH, ev["commitment"].upper())],
          "seed_chains: %s" % rows)
    C.mine_until(lambda: C.dm.last_height() >= ev["start"], "the chain's first block")
    st, h = C.health()
    check(st == 200, "healthz once a chain is in force: %s %s" % (st, h))
    samples, _, _ = C.dm.metrics()
    left = metric(samples, "hashjackd_seeds_left")
    want = ev["start"] + LENGTH - (C.dm.last_height() + 1)
    check(left is not None and 0 < left <= LENGTH, "seeds_left %s (about %d)" % (left, want))
    return "Commit %s in block %d for blocks %d..%d" % (ev["tx"][:12], y, ev["start"],
                                                        ev["start"] + LENGTH - 1)


def case_keyed(C):
    p = C.players[0]
    C.a.send(p, C.dealer.address, BET, MIN_BET)
    C.a.mine()
    C.mine_until(lambda: any(e["type"] == "action" for ln in C.dm.lines()
                             for e in ln["events"]), "the Bet dealt")
    # Stand once the window opens (premature before: sent again), then
    # until the round settles; void blocks (no card) only make it longer.
    for _ in range(80):
        ev = [e for ln in C.dm.lines() for e in ln["events"]]
        if any(e["type"] == "settle" for e in ev):
            break
        if not any(e["type"] == "action" and e["action"] == "Stand" for e in ev):
            C.a.send(p, C.dealer.address, STAND, 0)
        C.commit_sent()
        C.a.mine()
        C.dm.wait_height(C.a.height() - 1, 30)
    settled = [e for ln in C.dm.lines() for e in ln["events"] if e["type"] == "settle"]
    check(len(settled) == 1, "one round settled: %d" % len(settled))
    keyed = C.check_lines()
    check(keyed >= 3, "keyed lines: %d" % keyed)
    return "%d keyed lines checked with hashlib/hmac; the round settled %s" % (
        keyed, settled[0]["playerHands"][0]["status"])


def case_second(C):
    (y1, first), = C.commits()[:1]
    end = first["start"] + LENGTH
    C.mine_until(lambda: len(C.commits()) >= 2, "the second Commit dealt", limit=80)
    y2, second = C.commits()[1]
    check(second["start"] == end and y2 < end,
          "second chain from %d (the first ends at %d), committed in %d"
          % (second["start"], end, y2))
    C.mine_until(lambda: C.dm.last_height() >= end + 2, "the second chain dealing")
    keyed = C.check_lines()
    lines = {ln["height"]: ln for ln in C.dm.lines()}
    check(all("seed" in lines[h] for h in range(first["start"], end + 2)),
          "a block without a seed between the chains")
    return "second chain from block %d, no gap; %d keyed lines" % (end, keyed)


def case_bogus(C):
    h0 = C.dm.last_height()
    fake = "ab" * 32
    player = C.players[1]
    # The dealer key's own transaction is sent while the daemon is stopped:
    # its payer would otherwise race cast for the same nonce.
    check(C.dm.stop() == 0, "SIGTERM before the dealer's own Commit")
    t1 = C.a.send(player, C.dealer.address, "0x" + commit_payload(h0 + 50, 5, fake), 7)
    t2 = C.a.send(player, C.dealer.address, "0x" + commit_payload(h0 + 50, 0, fake), 8)
    y = C.a.height() + 1
    t3 = C.a.send(C.dealer, C.dealer.address, "0x" + commit_payload(y, 5, fake), 0)
    C.a.mine()
    C.dm.start()
    C.mine_until(lambda: C.dm.last_height() >= y, "the bogus Commits dealt")
    ev = {e["tx"]: e for ln in C.dm.lines() for e in ln["events"] if "tx" in e}
    got = [(ev[t]["type"], ev[t].get("reason"), ev[t].get("refund")) for t in (t1, t2, t3)]
    check(got == [("reject", "not_dealer", "7"), ("reject", "malformed", "8"),
                  ("reject", "commit_too_late", "0")], "bogus Commits: %s" % got)
    C.check_lines()
    return "not_dealer, malformed, commit_too_late; refunds 7 and 8 owed"


def case_kill(C):
    rng = random.Random(7)
    for k in range(6):
        if not C.dm.running():
            C.dm.start()
        C.dm.wait_height(C.a.height() - 1, 30)
        n = len(C.dm.stderr().splitlines())
        # Mine (as the daemon deals, its Commits sent) until it logs
        # something about a Commit: a new chain, its batch; then kill at
        # a random instant around its sending, a block mined meanwhile.
        for _ in range(40):
            C.commit_sent()
            C.a.mine()
            C.dm.wait_height(C.a.height() - 1, 30)
            if any("committed cards" in ln for ln in C.dm.stderr().splitlines()[n:]):
                break
        time.sleep(rng.uniform(0, 0.05))
        C.dm.kill9()
        C.a.mine()
    C.dm.start()
    C.dm.wait_height(C.a.height() - 1, 30)
    C.mine_until(lambda: C.db("SELECT count(*) FROM seed_chains WHERE state = 'planned'")
                 == [(0,)] and C.dm.last_height() >= C.a.height() - 1, "no chain planned")
    rows = C.db("SELECT hex(commitment), state FROM seed_chains")
    commits = C.commits()
    per = {}
    for _, e in commits:
        per[e["commitment"].upper()] = per.get(e["commitment"].upper(), 0) + 1
    check(all(v == 1 for v in per.values()), "a chain committed twice: %s" % per)
    dealt = [r for r, s in rows if s == "dealt"]
    check(sorted(dealt) == sorted(per), "dealt chains %s, commit events %s" % (dealt, per))
    check(all(s != "late" for _, s in rows), "a chain went late: %s" % rows)
    first = commits[0][1]["start"]
    gaps = [ln["height"] for ln in C.dm.lines() if ln["height"] >= first and "seed" not in ln]
    check(not gaps, "blocks without a seed after the first chain began: %s" % gaps[:10])
    C.check_lines()
    return "6 kills; %d chains, all dealt, each committed once; no block without a seed" % (
        len(rows))


def case_reorg(C, hashjack):
    """checks.check_committed_reorg on anvil: anvil_reorg replaces the
    blocks after the fork point, the Commit again first in the new
    branch's first block; one block more makes hashjackd see it."""
    def reorg(fork, y, ev):
        C.commit_sent()
        raw = C.a.rpc("eth_getRawTransactionByHash", ev["tx"])
        idx = int(C.a.rpc("eth_getTransactionReceipt", ev["tx"])["transactionIndex"], 16)
        check(raw and idx == 0, "the Commit's raw transaction, first of its block: %s" % idx)
        depth = C.a.height() - fork
        C.a.reorg(depth, [(raw, y - fork - 1)])
        C.a.mine()
        return depth
    return check_committed_reorg(C, hashjack, reorg)


def case_verify(C, hashjack):
    """hashjack verify against the node with the dealer's own log."""
    C.dm.wait_height(C.a.height() - 1, 30)
    rc, out, err = verify(hashjack, C.dm.conf, C.dm.card_log)
    check(rc == 0, "verify: exit %s\n%s%s" % (rc, out[-800:], err[-800:]))
    n = sum(1 for ln in C.dm.lines() if "seed" in ln)
    return "exit 0 over %d lines, %d keyed" % (len(C.dm.lines()), n)


def case_stop(C):
    rc = C.dm.stop()
    check(rc == 0, "exit %s" % rc)
    d = os.path.join(C.dm.state_dir, "seeds")
    check(stat.S_IMODE(os.stat(d).st_mode) == 0o700, "seeds/ mode %o" % os.stat(d).st_mode)
    files = os.listdir(d)
    check(files and all(stat.S_IMODE(os.stat(os.path.join(d, f)).st_mode) == 0o600
                        for f in files), "seed files: %s" % files)
    chains = [f for f in files if not f.endswith(".marks")]
    check(sorted(f + ".marks" for f in chains) == sorted(f for f in files
                                                         if f.endswith(".marks")),
          "each chain's file with its checkpoints: %s" % files)
    err = C.dm.stderr()
    for ln in C.dm.lines():
        if "seed" in ln:
            check(ln["seed"] not in err, "a seed on stderr")
    for f in chains:
        with open(os.path.join(d, f)) as fh:
            s = fh.read().split("seed ")[1].strip()
        check(s not in err, "s_L on stderr")
    return ("exit 0; %d chains' files and checkpoints 0600 in 0700; no seed on stderr"
            % len(chains))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack")
    ap.add_argument("--hashjackd")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=280)
    args = ap.parse_args()
    install_cleanup(args.timeout)
    workdir = own_tempdir("hj-e2e-committed-")
    C = Case(find_hashjackd(args.hashjackd), workdir)
    hashjack = find_hashjack(args.hashjack)
    passed = failed = 0
    try:
        for name, fn in (("first", case_first), ("keyed", case_keyed),
                         ("second", case_second), ("bogus", case_bogus),
                         ("kill", case_kill),
                         ("reorg", lambda C: case_reorg(C, hashjack)),
                         ("verify", lambda C: case_verify(C, hashjack)),
                         ("stop", case_stop)):
            t0 = time.monotonic()
            try:
                what = fn(C)
                print("ok   %s (%.1fs): %s" % (name, time.monotonic() - t0, what), flush=True)
                passed += 1
            except (Failed, HarnessError, TimeoutError) as e:
                print("FAIL %s: %s" % (name, e), flush=True)
                print("  hashjackd's stderr ends:\n    " +
                      "\n    ".join(C.dm.stderr().splitlines()[-8:]), flush=True)
                failed += 1
                if name in ("first",):
                    break
    finally:
        C.dm.close()
        C.a.stop()
    print("%d passed, %d failed" % (passed, failed))
    if args.keep:
        print("kept %s" % workdir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
