#!/usr/bin/env python3
"""Committed cards on the Bitcoin family (docs/PROTOCOL.md section 15):
hashjackd keeps a seed chain and sends its Commit through the node's
wallet, exactly once across crashes, deals keyed cards and moves to the
next chain before the one in force runs out, on a real litecoind regtest:

    /usr/bin/python3 tests/e2e/test_ltc_committed.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [--keep] [--timeout S]

One litecoind; the dealer address is a P2WPKH address of the paying wallet
("pay", [payout] wallet), funded itself with three outputs; a daemon with
cards = committed, confirmations 2, [seeds] length 12, renew_before 5,
lead 4; in order:

- first: before any Commit every block is void and has no seed, /healthz
  says no chain is in force; the daemon's Commit is mined and dealt as a
  commit event (no from on this family), its H after its block; the
  transaction spends one output of the dealer address (its witness key's
  HASH160 is the address's program), carries the 48-byte payload in its
  OP_RETURN and pays its change to the dealer address; seed_chains has it
  (tx, txid) and says dealt.
- keyed: every line from H on carries its seed; SHA-256 of each seed is
  the seed before it, or the commitment for the chain's first block; each
  card is docs/PROTOCOL.md section 2's rule read on HMAC-SHA256(seed,
  block hash), computed here with hashlib and hmac.
- second: before the first chain runs out the daemon commits the next one,
  starting at the block after the first chain's last: no void block
  between the two.
- bogus: a Commit from a player's wallet (its OP_RETURN, 7000 litoshis to
  the dealer) is rejected not_dealer, one with L = 0 malformed, both
  refunded unattributed; the chain in force unchanged.
- kill: hashjackd killed (SIGKILL) right after it logs a Commit step, at
  random instants, restarted each time: on chain every chain of
  seed_chains has at most one Commit paying the dealer (the blocks are
  scanned), exactly one for each dealt, the seeds keep chaining.
- reorg: as on anvil (checks.check_committed_reorg), the Commit back from
  the mempool in the new branch's first block; before that, with the
  node's tip at the fork point, `hashjack reorg` names the blocks not made
  yet whose seeds are public.
- nofunds: the dealer address's outputs spent away (by the wallet, while
  the daemon is stopped): the next chain's Commit cannot be made, the
  journal and /healthz say INSUFFICIENT FUNDS for the Commit; funded
  again, it is sent and dealt.
- verify: `hashjack verify` with the daemon's configuration and log,
  against litecoind: exit 0 (every seed chains, every keyed card is the
  HMAC's, every Commit the dealer's).
- stop: SIGTERM, exit 0.

One line per case, then "N passed, M failed"; exit status 1 on failure.
"""
import argparse
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from btc_node import Litecoind, find_litecoind, parse_tx, sats_to_coin  # noqa: E402
from cards import commit_payload, committed_lines  # noqa: E402
from checks import Failed, check, check_committed_reorg  # noqa: E402
from daemon import find_hashjackd, litecoind_daemon  # noqa: E402
from procs import HarnessError, install_cleanup, own_tempdir, wait_until  # noqa: E402
from tool import find_hashjack, verify  # noqa: E402

MIN_BET = 10000
MAX_BET = 10 ** 8
LENGTH, RENEW, LEAD = 12, 5, 4
COMMIT_MAGIC = "484a0108"


def hash160(b):
    return hashlib.new("ripemd160", hashlib.sha256(b).digest()).digest()


class Case:
    def __init__(self, hashjackd, workdir):
        self.workdir = workdir
        self.n = Litecoind(workdir=os.path.join(workdir, "ltc")).start()
        self.n.funder_mature(10 * 10 ** 8)
        self.pay = self.n.create_wallet("pay")
        self.player = self.n.create_wallet("player")
        self.dealer = self.n.new_address("pay")
        self.dealer_spk = self.n.script_of(self.dealer)
        check(self.dealer_spk.startswith("0014"), "the dealer address is P2WPKH")
        self.fund_dealer(3)
        self.n.fund("player", 10 ** 8)
        self.dm = litecoind_daemon(hashjackd, self.n, self.dealer, MIN_BET, MAX_BET,
                                   confirmations=2, poll_interval_ms=50,
                                   start_height=self.n.height() + 1,
                                   workdir=os.path.join(workdir, "daemon"),
                                   metrics=True,
                                   extra={"payout": {"wallet": "pay"},
                                          "rules": {"cards": "committed"},
                                          "seeds": {"length": LENGTH,
                                                    "renew_before": RENEW,
                                                    "lead": LEAD}})
        self.db_path = os.path.join(self.dm.state_dir, "hashjackd.sqlite")

    def fund_dealer(self, k, sats=10 ** 8):
        f = self.n.wallet(self.n.FUNDER)
        for _ in range(k):
            f.rpc("sendtoaddress", self.dealer, sats_to_coin(sats))
        self.n.mine(1)

    def mine_until(self, pred, what, limit=60):
        """Mines one block at a time (waiting for the daemon each time) until
        pred() holds."""
        for _ in range(limit):
            if pred():
                return
            self.n.mine(1)
            self.dm.wait_height(self.n.height() - 1, 30)
        if not pred():
            raise Failed("%s: not after %d blocks" % (what, limit))

    def commits(self):
        return [(ln["height"], e) for ln in self.dm.lines() for e in ln["events"]
                if e["type"] == "commit"]

    def db(self, sql, *args):
        c = sqlite3.connect("file:%s?mode=ro" % self.db_path, uri=True, timeout=5)
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

    def chain_commits(self, first):
        """{commitment hex: [txid]} of every transaction in blocks first..tip
        with a Commit payload that pays the dealer address."""
        out = {}
        for h in range(first, self.n.height() + 1):
            b = self.n.rpc("getblock", self.n.block_hash(h), 2)
            for tx in b["tx"]:
                spks = [o["scriptPubKey"]["hex"] for o in tx["vout"]]
                data = [s for s in spks if s.startswith("6a30" + COMMIT_MAGIC)]
                if data and self.dealer_spk in spks:
                    out.setdefault(data[0][-64:], []).append(tx["txid"])
        return out

    def check_commit_tx(self, txid, height, ev):
        """The Commit transaction as the protocol wants it."""
        raw = self.n.raw_tx(txid, self.n.block_hash(height))
        t = parse_tx(raw)
        outs = [(o["value"], o["script"]) for o in t["vout"]]
        want_data = "6a30" + commit_payload(ev["start"], ev["length"], ev["commitment"])
        check(any(s == want_data and v == 0 for v, s in outs),
              "no OP_RETURN with the payload: %s" % outs)
        check(any(s == self.dealer_spk and v > 0 for v, s in outs),
              "no change to the dealer address: %s" % outs)
        dec = self.n.rpc("decoderawtransaction", raw)
        wits = [i.get("txinwitness") or [] for i in dec["vin"]]
        prog = bytes.fromhex(self.dealer_spk[4:])
        check(any(len(w) == 2 and len(w[1]) == 66 and hash160(bytes.fromhex(w[1])) == prog
                  for w in wits), "no input signed by the dealer's key: %s" % wits)
        return len(dec["vin"]), len(outs)

    def check_lines(self):
        """Every line: seed and card as the chain in force says
        (cards.committed_lines).  Returns the number of keyed lines."""
        keyed, bad = committed_lines(self.dm.lines())
        check(bad is None, bad)
        return keyed


def case_first(C):
    C.first = C.n.height() + 1
    C.dm.start()
    C.n.mine(2)
    C.dm.wait_height(C.n.height() - 1, 30)
    st, h = C.health()
    check(st == 503 and any("no seed chain in force" in r for r in h["reasons"]),
          "healthz before the first Commit: %s %s" % (st, h))
    C.mine_until(lambda: C.commits(), "the first Commit dealt")
    (y, ev), = C.commits()
    check("from" not in ev and ev["length"] == LENGTH and ev["start"] > y,
          "commit event: %s in block %d" % (ev, y))
    nin, nout = C.check_commit_tx(ev["tx"], y, ev)
    rows = C.db("SELECT state, start, length, hex(commitment), lower(hex(txid)),"
                " length(tx) FROM seed_chains")
    check(len(rows) == 1 and rows[0][:4] == ("dealt", ev["start"], LENGTH,
                                              ev["commitment"].upper())
          and rows[0][4] == ev["tx"] and rows[0][5] > 0, "seed_chains: %s" % rows)
    C.mine_until(lambda: C.dm.last_height() >= ev["start"], "the chain's first block")
    st, h = C.health()
    check(st == 200, "healthz once a chain is in force: %s %s" % (st, h))
    return "Commit %s in block %d for blocks %d..%d (%d input, %d outputs)" % (
        ev["tx"][:12], y, ev["start"], ev["start"] + LENGTH - 1, nin, nout)


def case_keyed(C):
    (_, ev), = C.commits()[:1]
    C.mine_until(lambda: C.dm.last_height() >= ev["start"] + 3, "keyed blocks")
    keyed = C.check_lines()
    check(keyed >= 4, "keyed lines: %d" % keyed)
    return "%d keyed lines checked with hashlib/hmac" % keyed


def case_second(C):
    (y1, first), = C.commits()[:1]
    end = first["start"] + LENGTH
    C.mine_until(lambda: len(C.commits()) >= 2, "the second Commit dealt", limit=80)
    y2, second = C.commits()[1]
    check(second["start"] == end and y2 < end,
          "second chain from %d (the first ends at %d), committed in %d"
          % (second["start"], end, y2))
    C.check_commit_tx(second["tx"], y2, second)
    C.mine_until(lambda: C.dm.last_height() >= end + 2, "the second chain dealing")
    keyed = C.check_lines()
    lines = {ln["height"]: ln for ln in C.dm.lines()}
    check(all("seed" in lines[h] for h in range(first["start"], end + 2)),
          "a block without a seed between the chains")
    return "second chain from block %d, no gap; %d keyed lines" % (end, keyed)


def case_bogus(C):
    h0 = C.dm.last_height()
    fake = "ab" * 32
    t1 = C.n.send_action("player", C.dealer, 7000, commit_payload(h0 + 50, 5, fake))
    t2 = C.n.send_action("player", C.dealer, 8000, commit_payload(h0 + 50, 0, fake))
    C.n.mine(1)
    y = C.n.height()
    C.mine_until(lambda: C.dm.last_height() >= y, "the bogus Commits dealt")
    ev = {e["tx"]: e for ln in C.dm.lines() for e in ln["events"] if "tx" in e}
    got = [(ev[t]["type"], ev[t].get("reason"), ev[t].get("refund")) for t in (t1, t2)]
    check(got == [("reject", "not_dealer", "7000"), ("reject", "malformed", "8000")],
          "bogus Commits: %s" % got)
    rows = C.db("SELECT lower(hex(txid)), amount, recipient IS NULL FROM payouts"
                " WHERE kind = 'refund'")
    want = {(t1, "7000", 1), (t2, "8000", 1)}
    check(want <= set(rows), "refunds: %s" % rows)
    C.check_lines()
    return "not_dealer, malformed; refunded unattributed 7000 and 8000"


def case_kill(C):
    rng = random.Random(7)
    kills = 0
    for k in range(6):
        if not C.dm.running():
            C.dm.start()
        C.dm.wait_height(C.n.height() - 1, 30)
        n = len(C.dm.stderr().splitlines())
        # The instants: as soon as the chain is planned (before its
        # transaction is built or recorded), as soon as it is recorded (sent
        # or not), or a little later.
        mark = ("new seed chain", "recorded; sending", "recorded; sending")[k % 3]
        late = rng.uniform(0, 0.02) if k >= 3 else 0
        for _ in range(40):
            C.n.mine(1)
            t_end = time.monotonic() + 0.3
            seen = False
            while time.monotonic() < t_end and not seen:
                seen = any(mark in ln for ln in C.dm.stderr().splitlines()[n:])
            if seen:
                break
        time.sleep(late)
        C.dm.kill9()
        kills += 1
        C.n.mine(1)
    C.dm.start()
    C.dm.wait_height(C.n.height() - 1, 30)
    C.mine_until(lambda: C.db("SELECT count(*) FROM seed_chains WHERE state = 'planned'")
                 == [(0,)] and C.dm.last_height() >= C.n.height() - 1, "no chain planned")
    rows = C.db("SELECT lower(hex(commitment)), state, lower(hex(txid)) FROM seed_chains")
    on_chain = C.chain_commits(C.first)
    per = {}
    for _, e in C.commits():
        per[e["commitment"]] = per.get(e["commitment"], 0) + 1
    check(all(v == 1 for v in per.values()), "a chain dealt twice: %s" % per)
    for c, state, txid in rows:
        got = on_chain.get(c, [])
        check(len(got) <= 1, "chain %s has %d Commits on chain: %s" % (c[:16], len(got), got))
        if state == "dealt":
            check(got == [txid], "dealt chain %s: on chain %s, recorded %s"
                  % (c[:16], got, txid))
    dealt = [r for r in rows if r[1] == "dealt"]
    check(sorted(r[0] for r in dealt) == sorted(per),
          "dealt chains %s, commit events %s" % (dealt, per))
    C.check_lines()
    return "%d kills; %d chains, %d dealt, each with one Commit on chain" % (
        kills, len(rows), len(dealt))


def case_reorg(C, hashjack):
    """checks.check_committed_reorg on litecoind: invalidateblock after the
    fork point, then a longer branch; the Commit, back in the mempool, goes
    into its first block.  First, while the node's chain ends at the fork
    point (invalidateblock, then reconsiderblock), `hashjack reorg` names
    the blocks whose seeds are public and that are not made yet."""
    def reorg(fork, y, ev):
        check(y == fork + 1, "the Commit in the block after the fork point")
        last = max(ln["height"] for ln in C.dm.lines() if "seed" in ln)
        gone = C.n.block_hash(fork + 1)
        C.n.rpc("invalidateblock", gone)
        rep = subprocess.run([hashjack, "reorg", "-c", C.dm.conf], capture_output=True,
                             text=True, timeout=60)
        C.n.rpc("reconsiderblock", gone)
        want = "blocks %d to %d are not made yet: their seeds are public" % (fork + 1, last)
        check(rep.returncode == 1 and want in rep.stdout,
              "hashjack reorg, the node's tip at the fork point: exit %s\n%s%s"
              % (rep.returncode, rep.stdout, rep.stderr))
        depth = C.n.height() - fork
        C.n.reorg(depth)
        return depth
    return check_committed_reorg(C, hashjack, reorg)


def case_nofunds(C):
    check(C.dm.stop() == 0, "SIGTERM before emptying the dealer address")
    # Every output of the dealer address (and the rest of the wallet) to
    # the funder: the wallet keeps nothing the Commit could spend.
    bal = C.pay.rpc("getbalance")
    C.pay.rpc("sendtoaddress", C.n.miner_address(), bal, "", "", True)
    C.n.mine(1)
    check(C.pay.rpc("listunspent", 0, 9999999, [C.dealer]) == [], "dealer outputs left")
    C.dm.start()
    n = len(C.dm.stderr().splitlines())
    base = len(C.commits())

    def warned():
        return any("INSUFFICIENT FUNDS for the Commit" in ln
                   for ln in C.dm.stderr().splitlines()[n:])
    C.mine_until(warned, "the Commit's warning", limit=30)
    st, h = C.health()
    check(st == 503 and any("INSUFFICIENT FUNDS for the Commit" in r for r in h["reasons"]),
          "healthz without a dealer output: %s %s" % (st, h))
    C.fund_dealer(1)
    C.mine_until(lambda: len(C.commits()) > base, "a Commit after funding", limit=40)
    C.mine_until(lambda: C.health()[0] == 200, "healthz back", limit=30)
    return "warned (journal, /healthz); funded again, Commit dealt"


def case_verify(C, hashjack):
    """hashjack verify against litecoind with the daemon's own log."""
    rc, out, err = verify(hashjack, C.dm.conf, C.dm.card_log)
    check(rc == 0, "verify: exit %s\n%s%s" % (rc, out[-800:], err[-800:]))
    lines = C.dm.lines()
    return "exit 0 over %d lines, %d keyed" % (len(lines),
                                               sum(1 for ln in lines if "seed" in ln))


def case_stop(C):
    rc = C.dm.stop()
    check(rc == 0, "exit %s" % rc)
    return "exit 0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack")
    ap.add_argument("--hashjackd")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=280)
    args = ap.parse_args()
    if args.keep:
        os.environ["HJ_KEEP"] = "1"
    install_cleanup(args.timeout)
    find_litecoind()
    workdir = own_tempdir("hj-e2e-ltc-committed-")
    C = Case(find_hashjackd(args.hashjackd), workdir)
    hashjack = find_hashjack(args.hashjack)
    passed = failed = 0
    try:
        for name, fn in (("first", case_first), ("keyed", case_keyed),
                         ("second", case_second), ("bogus", case_bogus),
                         ("kill", case_kill),
                         ("reorg", lambda C: case_reorg(C, hashjack)),
                         ("nofunds", case_nofunds),
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
        C.n.stop()
    print("%d passed, %d failed" % (passed, failed))
    if args.keep:
        print("kept %s" % workdir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
