#!/usr/bin/env python3
"""hashjackd and `hashjack verify` behind a hosted provider's limits
(docs/OPERATION.md, "A hosted endpoint's limits").

    python3 tests/e2e/test_hosted.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [-k CASE] [--keep]

One anvil, mining on demand, and a chain built first: blocks of 14
transactions to the dealer each (eight players' Bets and Stands, six bad
payloads), then empty blocks in which the open rounds time out, then dense
blocks again: some 100 blocks.  A reference daemon R deals it straight
from anvil.  Each case then runs a fresh daemon T (start_height 1,
confirmations 1, the default batch_blocks of 100, push on) through a
HostedProxy (tests/e2e/proxies.py) that sets one limit, and checks: T
deals every block once and its card log equals R's byte for byte; its
database holds R's rows; it logged no error; it said in plain words what
the provider refused; the proxy refused what it was set to; push was
refused (the proxy takes no WebSocket) and polling found every block.

  batch_whole32005  batches of more than 10 calls refused as a whole,
                    -32005 "batch size too large, max 10"
  batch_geth        the same in geth's words, -32600 "batch too large"
  batch_items       the calls past the 10th each answered -32005
  batch_http400     HTTP 400 for a batch of more than 10
  no_batches        every batch refused, even of one call: single calls
  cap_413           answers above 64 KiB refused with HTTP 413
  cap_cut           answers above 64 KiB cut short
  rate_429          every other request HTTP 429: its retries summarised
                    (one line said, the rest counted)
  rate_retry_after  the same with "Retry-After: 1"
  one_block_too_big answers above 2 KB: a dense block alone is refused,
                    a clear error naming the limit; the daemon keeps
                    running and asking; `hashjack verify` exits 69
                    saying the same
  verify            `hashjack verify -c` of R's log through the batch and
                    size limits together: exit 0, and the limit said
  pays              (last: its payouts extend the chain) a daemon with
                    [payout] dealer_key behind batches capped at 10 and
                    every other request answered 429, its sends
                    included: every payout owed confirmed in exactly one
                    batch, each batch's outputs exactly its payouts, the
                    dealer's nonces each used once
"""

import os
import re
import sqlite3
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import (Failed, batch_problems, check, check_bytes, check_db_equal,  # noqa: E402
                    check_eq, check_heights, db_rows, error_lines, fault_main, log_bytes,
                    run_tracked, wait_log_height)
from daemon import Hashjackd, write_key  # noqa: E402
from evm_node import Anvil, BET, STAND  # noqa: E402
from procs import wait_until  # noqa: E402
from proxies import HostedProxy  # noqa: E402

MIN_BET = 10**15
MAX_BET = 10**17
BAD = "0x484a01"  # a payload too short: rejected and refunded
GAS = hex(30000)


class Ctx:
    """The chain (built once), the reference daemon R, the tools."""

    def __init__(self, hashjack, hashjackd, workdir, seed):
        self.hashjack, self.hashjackd = hashjack, hashjackd
        self.workdir, self.seed = workdir, seed
        self.anvil = None
        self.ref = None
        self.daemons = []

    def dir(self, name):
        d = os.path.join(self.workdir, name)
        os.makedirs(d, exist_ok=True)
        return d

    def daemon(self, name, node, **kw):
        d = Hashjackd(self.hashjackd, node, self.dealer, MIN_BET, MAX_BET,
                      timeout_blocks=5, confirmations=1, start_height=1,
                      workdir=self.dir(name), **kw)
        self.daemons.append(d)
        return d

    def after_case(self):
        """A case's daemons stopped; anvil and its chain stay for the
        next."""
        for d in self.daemons:
            if d.running():
                d.kill9()
        self.daemons = []

    def chain(self):
        """anvil and its chain, built at the first call; then R, which
        dealt it straight from anvil."""
        if self.anvil is not None:
            return self.anvil
        a = self.anvil = Anvil(workdir=self.dir("anvil"), keep_state=False)
        a.start()
        self.dealer = a.accounts[1].address
        players = a.accounts[2:10]
        nonce = {p.address: int(a.rpc("eth_getTransactionCount", p.address, "pending"), 16)
                 for p in players}

        def send(calls):
            a.rpc_batch([("eth_sendTransaction", [c]) for c in calls])

        def dense(k):
            calls = []
            for i, p in enumerate(players):
                act = BET if (k + i) % 2 == 0 else STAND
                calls.append({"from": p.address, "to": self.dealer, "gas": GAS,
                              "nonce": hex(nonce[p.address]), "data": act,
                              "value": hex(MIN_BET if act == BET else 0)})
                nonce[p.address] += 1
            for p in players[:6]:
                calls.append({"from": p.address, "to": self.dealer, "gas": GAS,
                              "nonce": hex(nonce[p.address]), "data": BAD, "value": "0x1"})
                nonce[p.address] += 1
            send(calls)
            b = a.mine()
            check_eq(len(b["transactions"]), 14, "transactions of dense block %s" % b["number"])

        for k in range(12):
            dense(k)
        a.mine_empty(70)
        for k in range(3):
            dense(k)
        self.tip = a.height()
        self.ref = self.daemon("R", a)
        self.ref.start()
        wait_log_height(self.ref, self.tip, timeout=60)
        check_eq(self.ref.stop(), 0, "R's exit status on SIGTERM")
        check_heights(log_bytes(self.ref.card_log), 1, self.tip, "R's card log", "evm")
        self.ref_db = db_rows(self.ref.state_dir, self.dir("scratch"))
        return a


def behind(ctx, name, said, **limits):
    """T through a HostedProxy with limits: the checks of the docstring.
    said: a pattern T's stderr must hold.  Returns (T, proxy, stderr)."""
    a = ctx.chain()
    proxy = HostedProxy(a.url, **limits)
    try:
        t = ctx.daemon(name, proxy)
        t.start()
        wait_log_height(t, ctx.tip, timeout=120)
        # Caught up, push is opened: the endpoint refuses the WebSocket,
        # polling goes on.
        wait_until(lambda: proxy.upgrades >= 1 and "push" in t.stderr(), 30,
                   "push to try the endpoint's WebSocket")
        check_eq(t.stop(), 0, "exit status on SIGTERM")
    finally:
        proxy.close()
    data = log_bytes(t.card_log)
    check_heights(data, 1, ctx.tip, "T's card log", "evm")
    check_bytes(data, log_bytes(ctx.ref.card_log), "card logs behind the proxy and straight")
    check_db_equal(db_rows(t.state_dir, ctx.dir("scratch")), ctx.ref_db,
                   "databases behind the proxy and straight")
    err = t.stderr()
    check_eq(error_lines(err), [], "error lines")
    check(not any(l.startswith("<7>") for l in err.splitlines()),
          "debug lines without --debug")
    check(re.search(said, err), "T's log says %r:\n%s" % (said, err[-1500:]))
    push = [l for l in err.splitlines() if "push" in l]
    check(any("403" in l for l in push), "the refused WebSocket said: %s" % push)
    return t, proxy, err


def batch_case(ctx, name, form):
    t, p, err = behind(ctx, name, r"batches of eth_\w+ now go in parts of at most \d+ call",
                       batch_max=10, batch_form=form)
    check(p.refused >= 1, "batches refused: %d" % p.refused)
    limits = [int(x) for x in re.findall(r"parts of at most (\d+) call", err)]
    check(1 <= limits[-1] <= 10, "limits said: %s" % limits)
    check(p.biggest <= 10, "the largest batch passed: %d" % p.biggest)
    return "%d batches refused; limits said %s; largest batch passed %d; %s" % (
        p.refused, limits, p.biggest, dict(sorted(p.calls.items())))


def case_batch_whole32005(ctx):
    return batch_case(ctx, "whole32005", "whole32005")


def case_batch_geth(ctx):
    return batch_case(ctx, "geth", "whole32600")


def case_batch_items(ctx):
    return batch_case(ctx, "items", "items")


def case_batch_http400(ctx):
    return batch_case(ctx, "http400", "http400")


def case_no_batches(ctx):
    t, p, err = behind(ctx, "nobatch", r"parts of at most 1 call\b",
                       batch_max=0, batch_form="nobatch")
    check_eq(p.biggest, 0, "largest batch passed")
    return "%d batches refused; every call alone" % p.refused


def cap_case(ctx, name, form):
    t, p, err = behind(ctx, name, r"batches of eth_getBlockByNumber now go in parts",
                       max_response=65536, cap_form=form)
    check(p.capped >= 1, "answers capped: %d" % p.capped)
    return "%d answers refused (%s), largest batch passed %d" % (p.capped, form, p.biggest)


def case_cap_413(ctx):
    return cap_case(ctx, "cap413", "413")


def case_cap_cut(ctx):
    return cap_case(ctx, "capcut", "cut")


def rate_case(ctx, name, retry_after):
    t, p, err = behind(ctx, name, r"HTTP 429", rate_every=2, retry_after=retry_after)
    check(p.limited >= 3, "requests answered 429: %d" % p.limited)
    said = [l for l in err.splitlines() if "retrying in" in l]
    check(len(said) <= 2, "retries said in full: %d (one per cause and minute):\n%s"
          % (len(said), "\n".join(said)))
    return "%d requests answered 429; %d retry line(s) said" % (p.limited, len(said))


def case_rate_429(ctx):
    return rate_case(ctx, "rate", None)


def case_rate_retry_after(ctx):
    return rate_case(ctx, "retryafter", 1)


def case_one_block_too_big(ctx):
    a = ctx.chain()
    proxy = HostedProxy(a.url, max_response=2048)
    try:
        t = ctx.daemon("toobig", proxy)
        t.start()
        # Block 1 (14 transactions) alone is above the cap: said plainly,
        # and the daemon keeps running, asking again.
        wait_until(lambda: "nothing smaller can be asked" in t.stderr() or not t.running(),
                   60, "hashjackd to say one block is too large for the endpoint")
        check(t.running(), "hashjackd keeps running")
        err = t.stderr()
        line = [l for l in err.splitlines() if "nothing smaller can be asked" in l][0]
        check("HTTP 413" in line, "the refusal named: %s" % line)
        rc, out, verr = run_tracked([ctx.hashjack, "verify", "-c", t.conf, "--card-log",
                                     ctx.ref.card_log], timeout=120)
        check_eq(rc, 69, "verify's exit status:\n%s" % verr[-800:])
        check("nothing smaller can be asked" in verr, "verify says why:\n%s" % verr[-800:])
        check_eq(t.stop(), 0, "exit status on SIGTERM")
    finally:
        proxy.close()
    return "said: %s" % line.split(": ", 1)[-1][:160]


def case_verify(ctx):
    a = ctx.chain()
    proxy = HostedProxy(a.url, batch_max=10, batch_form="items", max_response=65536,
                        cap_form="cut")
    try:
        conf = os.path.join(ctx.dir("verify"), "hashjackd.conf")
        with open(ctx.ref.conf) as f:
            text = f.read().replace(a.url, proxy.url)
        with open(conf, "w") as f:
            f.write(text)
        rc, out, err = run_tracked([ctx.hashjack, "verify", "-c", conf, "--card-log",
                                    ctx.ref.card_log], timeout=120)
    finally:
        proxy.close()
    check_eq(rc, 0, "verify's exit status:\n%s" % err[-800:])
    check("now go in parts of at most" in err, "verify says the limit:\n%s" % err[-800:])
    check("verified blocks 1 to %d" % ctx.tip in out + err, "verify's summary:\n%s%s"
          % (out[-400:], err[-400:]))
    return "%d batches refused, %d answers cut" % (proxy.refused, proxy.capped)


def case_pays(ctx):
    a = ctx.chain()
    key = os.path.join(ctx.dir("pays"), "dealer.key")
    write_key(key, a.accounts[1].key)
    proxy = HostedProxy(a.url, batch_max=10, batch_form="items", rate_every=2)
    t = ctx.daemon("pays", proxy, extra={"payout": {"dealer_key": key, "min_refund": 0}})
    db = os.path.join(t.state_dir, "hashjackd.sqlite")

    def q(sql):
        if not os.path.exists(db):
            return []
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
        try:
            return c.execute(sql).fetchall()
        except sqlite3.OperationalError:
            return []
        finally:
            c.close()

    def all_confirmed():
        a.mine_empty(1)
        states = [r[0] for r in q("SELECT state FROM payouts")]
        return states and all(st == "confirmed" for st in states)
    try:
        t.start()
        wait_log_height(t, ctx.tip, timeout=120)
        wait_until(all_confirmed, 120, "every payout confirmed", interval=0.3)
        check_eq(t.stop(), 0, "exit status on SIGTERM")
    finally:
        proxy.close()
    want = {r[0]: ("0x" + r[1], int(r[2]))
            for r in q("SELECT id, lower(hex(recipient)), amount FROM payouts")}
    bad, outs = batch_problems(q, want)
    check_eq(bad, [], "payout batch problems")
    confirmed = [r[0] for r in q("SELECT id FROM payout_batches WHERE state = 'confirmed'")]
    nonce = int(a.rpc("eth_getTransactionCount", ctx.dealer, "latest"), 16)
    check_eq(nonce, len(confirmed), "the dealer's transactions on chain")
    check_eq(error_lines(t.stderr()), [], "error lines")
    return "%d payouts (%d wei) in %d batches; %d requests answered 429, %d sends among them" % (
        len(want), sum(v for _, v in want.values()), len(confirmed), proxy.limited,
        proxy.limited_sends)


CASES = [case_batch_whole32005, case_batch_geth, case_batch_items, case_batch_http400,
         case_no_batches, case_cap_413, case_cap_cut, case_rate_429, case_rate_retry_after,
         case_one_block_too_big, case_verify, case_pays]


def main():
    return fault_main(__doc__, CASES, "hj-e2e-hosted-", 18, 600, Ctx,
                      after_each=Ctx.after_case)


if __name__ == "__main__":
    sys.exit(main())
