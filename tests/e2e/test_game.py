#!/usr/bin/env python3
"""End-to-end game scenarios: hashjackd against a real anvil, real signed
transactions (cast, through tests/e2e/evm_node.py), block cards chosen by
grinding, every action and settlement path of the `bethash` preset and every
rejection, checked against values derived from the protocol
(docs/PROTOCOL.md, docs/LOG.md, docs/STATE.md).

    python3 tests/e2e/test_game.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [--node anvil|ganache] [-k NAME] \\
        [--keep] [--timeout S]

Two daemon sessions, each on its own anvil, or ganache with --node ganache
(tests/e2e/evm_node.py; confirmations 2, timeout_blocks 3, min_bet 1000,
max_bet 10^18):

- "main": the scenarios both families play (tests/e2e/book.py, through
  this file's Session), then EVM's own (malformed calldata, deposits,
  failed receipts), one after another, each with fresh player accounts (a
  few deliberately share blocks);
- "void": the daemon reads anvil through a small JSON-RPC proxy (this
  file's RewriteProxy, a proxies.RpcProxy) that replaces the hash of chosen
  blocks by a hash without a rank digit (and the next block's parent hash
  with it), since anvil cannot be ground for a void block ((3/16)^63).  The
  same replacement is applied to the exported blocks given to `hashjack
  replay`.

Each scenario writes down, block by block, the exact events the protocol
gives (draws, actions, rejections with reasons and refunds, deposits,
ignored transactions, timeouts, settlements with every hand's status and
return), and the transactions table rows.  At the end of a session: every
card log line is compared byte for byte with the line built from those
expectations (docs/LOG.md's key order, compact JSON), the log with
`hashjack replay` of the blocks exported from the node, and the daemon's
SQLite database (read-only) with the ledger the expectations imply.  The
book, the model and those checks are shared with tests/e2e/test_ltc_game.py
(tests/e2e/checks.py).

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout).
"""

import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
from book import deal  # noqa: E402
from cards import card_of  # noqa: E402
from checks import (Blk, EvmRound, Failed, GameRunner, SessionModel, Tx, WorkDir,  # noqa: E402
                    game_args)
from daemon import Hashjackd  # noqa: E402
from evm_node import BET, NODES, PAYLOADS, STAND, make_node  # noqa: E402
from procs import close_all  # noqa: E402
from proxies import RpcProxy  # noqa: E402

MIN_BET = 1000
MAX_BET = 10 ** 18
TIMEOUT = 3            # timeout_blocks: small, so that timeouts are cheap
CONFIRMATIONS = 2      # grinding replaces the tip block: never deal the tip
N_ACCOUNTS = 80        # a fresh player for every scenario


def bet_payload(pp=None, t3=None):
    """Bet payload (EVM): magic, version, 01, then optional u64 side stakes
    (a 21+3 stake alone writes a perfect-pairs stake of 0 before it)."""
    if t3 is not None and pp is None:
        pp = 0
    p = BET
    if pp is not None:
        p += "%016x" % pp
    if t3 is not None:
        p += "%016x" % t3
    return p


# --------------------------------------------------------------------------
# A JSON-RPC proxy that turns chosen blocks void

class RewriteProxy(RpcProxy):
    """proxies.RpcProxy in front of anvil that replaces, in each answer, the
    strings of self.map (a real block hash -> a void hash).  The node's
    answers name a block hash as the block's "hash", as the next block's
    "parentHash" and in receipts: all are replaced alike, so the chain the
    daemon sees stays linked."""

    def __init__(self, upstream):
        self.map = {}
        self.requests = 0
        super().__init__(upstream)

    def answer(self, data):
        with self.lock:
            self.requests += 1
            text = data.decode()
            for old, new in self.map.items():
                text = text.replace(old, new)
        return text.encode()

    def add(self, real, void):
        with self.lock:
            self.map[real.lower()] = void


# --------------------------------------------------------------------------
# Session: one anvil, one daemon, the expectations

class Session(SessionModel):
    """An EVM node of ACCOUNTS dev accounts (the dealer's, then the
    players'), anvil or ganache (node, evm_node.make_node), and a daemon on
    it, started; what a scenario of the book asks of a session
    (tests/e2e/book.py), on EVM.  A subclass may add to the
    daemon's config (daemon_extra(), called once the anvil is up) and
    start it otherwise (start_daemon())."""

    HEX_PREFIX = "0x"
    ACCOUNTS = N_ACCOUNTS
    T = TIMEOUT
    MIN_BET = MIN_BET
    MAX_BET = MAX_BET
    STAKE = 10 ** 15
    SMALL_STAKE = 1000
    LITTLE = 1

    def __init__(self, ctx, name, proxy=False, preset=None, rules=None, node="anvil"):
        super().__init__(ctx, name, preset, rules)
        self.a = make_node(node, workdir=os.path.join(self.workdir, node), keep_state=False,
                           accounts=self.ACCOUNTS).start()
        self.dealer = self.a.accounts[0].address
        self.next_player = 1
        self.proxy = RewriteProxy(self.a.url) if proxy else None
        self.rng = random.Random(11)
        self.voids = {}                            # height -> void hash
        self.a.mine_empty(2)
        self.first = self.a.height()
        extra = {"chain": {"rpc_url": self.proxy.url}} if proxy else {}
        if self.rule_keys:
            extra["rules"] = dict(self.rule_keys)
        extra.update(self.daemon_extra())
        self.dm = Hashjackd(ctx.hashjackd, self.a, self.dealer, MIN_BET, MAX_BET, TIMEOUT,
                            confirmations=CONFIRMATIONS, start_height=self.first,
                            poll_interval_ms=50, preset=preset or "bethash",
                            workdir=os.path.join(self.workdir, "daemon"),
                            extra=extra or None, metrics=True)
        self.start_daemon()

    def daemon_extra(self):
        """More sections of the daemon's config ({section: {key: value}})."""
        return {}

    def start_daemon(self):
        self.dm.start()

    # -- chain ------------------------------------------------------------

    def player(self):
        if self.next_player >= len(self.a.accounts):
            raise Failed("out of dev accounts")
        p = self.a.accounts[self.next_player]
        self.next_player += 1
        return p

    def send(self, who, data, value=0, gas_limit=None):
        h = self.a.send(who, self.dealer, data, value, gas_limit=gas_limit)
        t = Tx(h, value, data, who.address)
        self.pending.append(t)
        return t

    def bet(self, who, stake, pp=None, t3=None):
        """A Bet of main stake `stake` and side stakes pp, t3 (its value
        adds them)."""
        t = self.send_bet(who, stake + (pp or 0) + (t3 or 0), pp, t3)
        return EvmRound(self, who, t, stake, pp, t3)

    def send_bet(self, who, value, pp=None, t3=None):
        return self.send(who, bet_payload(pp, t3), value)

    def stray(self, who, action, value=0, insurance=None):
        """An action of a player without a round (EVM names the round by
        its sender)."""
        name = "PeekInsured" if action == "Peek" and insurance else action
        return self.send(who, PAYLOADS[name], value)

    def parts(self, value, n):
        """A transaction pays one output: value."""
        return value

    def elsewhere(self, value):
        """A transaction pays one address: no other output."""
        return ()

    def stale(self, r, action, seq):
        """Nothing is signed: None."""
        return None

    def _mined(self, b):
        h = int(b["number"], 16)
        got = [t["hash"] for t in b["transactions"]]
        want = [t.txid for t in self.pending]
        if got != want:
            raise Failed("block %d holds %s, expected %s" % (h, got, want))
        for i, t in enumerate(self.pending):
            t.h, t.idx = h, i
        self.pending = []
        return h

    def mine(self, want=None):
        """The next block with every pending transaction; with want, ground
        until its card matches (cards.card_matcher)."""
        if want is None:
            b = self.a.mine()
        else:
            b, _ = self.a.grind(want, expect=[t.txid for t in self.pending])
        h = self._mined(b)
        return Blk(h, b["hash"], card_of(b["hash"]))

    def mine_void(self):
        """The next block, seen by the daemon (through the proxy) and by the
        replay as a void block."""
        if not self.proxy:
            raise Failed("void blocks need the proxy session")
        b = self.a.mine()
        h = self._mined(b)
        v = "0x" + "".join(self.rng.choice("0ef") for _ in range(64))
        assert card_of(v) is None
        self.proxy.add(b["hash"], v)
        self.voids[h] = v
        return Blk(h, v, None)

    def height(self):
        return self.a.height()

    def mine_plain(self):
        self.a.mine()

    def mine_leftovers(self):
        if self.a.pending():
            self.a.mine()

    # -- expectations (EVM's own; the rest is SessionModel's) ---------------

    def dep(self, t):
        self.add(t.h, {"type": "deposit", "tx": t.txid, "txIndex": t.idx, "from": t.sender,
                       "value": str(t.value)})
        self.txrow(t, "deposit", None, None, None)

    def ign(self, t):
        self.add(t.h, {"type": "ignored", "tx": t.txid, "txIndex": t.idx, "from": t.sender,
                       "reason": "tx_failed"})
        self.txrow(t, "ignored", None, None, None)

    # -- the end ------------------------------------------------------------

    def export(self, first, last):
        doc = self.a.export(first, last, self.dealer, MIN_BET, MAX_BET, TIMEOUT,
                            self.preset, self.rule_keys)
        if self.proxy and self.proxy.map:
            text = json.dumps(doc)
            for old, new in self.proxy.map.items():
                text = text.replace(old, new)
            doc = json.loads(text)
        return doc

    def close(self):
        close_all(self.dm.close, self.a.stop, self.proxy and self.proxy.close)


# --------------------------------------------------------------------------
# The main session: the book (tests/e2e/book.py), then EVM's own scenarios.
# Each returns a one-line summary.  X = the Bet's block, W = the opening of
# an action window (docs/PROTOCOL.md).

def sc_malformed(S):
    """Every malformed payload, each with its own value (refunded), from a
    player without a round, in one block: truncated (2 and 3 bytes),
    bad_version, unknown_action (00, 08), bad_length (5- and 13-byte Bet,
    Peek without flag), too_long (21-byte Bet, Hit + 1 byte, Peek + 1
    byte), bad_field (Peek flag 02)."""
    p = S.player()
    cases = [("0x484a", "truncated", None), ("0x484a01", "truncated", None),
             ("0x484a0201", "bad_version", None), ("0x484a0100", "unknown_action", None),
             ("0x484a0108", "unknown_action", None), ("0x484a010100", "bad_length", "Bet"),
             (BET + "00" * 9, "bad_length", "Bet"), ("0x484a0107", "bad_length", "Peek"),
             (BET + "00" * 17, "too_long", "Bet"), ("0x484a0102ff", "too_long", "Hit"),
             ("0x484a01070100", "too_long", "Peek"), ("0x484a010702", "bad_field", "Peek")]
    txs = [(S.send(p, data, 1100 + k), why, act) for k, (data, why, act) in enumerate(cases)]
    S.mine()
    for t, why, act in txs:
        S.rej(t, why, act)
    return "%d payloads" % len(cases)


def sc_deposits(S):
    """Transactions to the dealer without the magic are deposits (logged,
    not refunded): empty input, "48", "4849", other bytes, value 0 too."""
    p1, p2, p3 = S.player(), S.player(), S.player()
    t = [S.send(p1, "0x", 5000), S.send(p2, "0x48", 6), S.send(p3, "0x4849", 0),
         S.send(p1, "0xdeadbeef", 8)]
    S.mine()
    for x in t:
        S.dep(x)
    return "%d deposits" % len(t)


def sc_failed_receipts(S):
    """Transactions whose receipt failed (the dealer address made to revert
    with anvil_setCode): a Bet with value and a deposit are "ignored", owe
    nothing; then a round: at W a failing Stand (only that sender's calls
    revert) is ignored while another player's deposit in the same block is
    a deposit; the Stand at W+1 is accepted (the round did not change); 19
    vs 8+10: Win.  On ganache each setting of the code mines an empty block
    of its own (evm_setAccountCode): the failing Stand comes at W+1, the
    Stand at W+3, the window's last block, and is accepted all the same."""
    p, q = S.player(), S.player()
    with S.a.reverting(S.dealer):
        f1 = S.send(p, BET, 5000, gas_limit=100000)
        f2 = S.send(q, "0x", 7, gas_limit=100000)
        S.mine()
    for t in (f1, f2):
        if int(S.a.receipt(t.txid)["status"], 16) != 0:
            raise Failed("receipt of %s did not fail" % t.txid)
    S.ign(f1)
    S.ign(f2)
    s = S.STAKE + 67
    r = S.bet(p, s)
    deal(S, r, "10", "8", "9")
    with S.a.reverting(S.dealer, only_from=p):
        f3 = S.send(p, STAND, gas_limit=100000)
        d = S.send(q, "0x", 9)
        S.mine()
    if int(S.a.receipt(f3.txid)["status"], 16) != 0:
        raise Failed("receipt of the Stand did not fail")
    S.ign(f3)
    S.dep(d)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "3 failed receipts ignored, round unchanged"


MAIN = book.BOOK + [sc_malformed, sc_deposits, sc_failed_receipts]


# --------------------------------------------------------------------------
# Scenarios of the void session (blocks made void by the proxy)

def sc_void_shifts(S):
    """P and Q bet in one block; X+2 is void: the up card comes from X+3,
    the second card from X+4, the window opens at X+5 (a Hit at X+4 is
    premature; a deposit in the void block is processed normally).  P
    stands at X+5; X+6 is void: P's dealer card comes from X+7 (10: 17),
    Win.  Q never acts: its timeout falls at X+5+timeout, a void block,
    and applies there; its dealer draws at the next block: 17, Win."""
    pp, pq, pd = S.player(), S.player(), S.player()
    s = S.STAKE + 101
    rp, rq = S.bet(pp, s), S.bet(pq, s + 2)
    x = S.mine().h
    rp.accepted_bet(); rq.accepted_bet()
    b = S.mine("10"); rp.draw(b, 0); rq.draw(b, 0)
    d = S.send(pd, "0x", 12)
    b = S.mine_void()
    S.dep(d)
    b = S.mine("7"); rp.draw(b, "D"); rq.draw(b, "D")
    early = rp.send("Hit")
    b = S.mine("9"); rp.draw(b, 0); rq.draw(b, 0)
    S.rej(early, "premature", "Hit", rp)
    st = rp.send("Stand")
    w = S.mine()
    if w.h != x + 5:
        raise Failed("heights: W %d, X %d" % (w.h, x))
    rp.act(st, "Stand", 0)
    S.mine_void()
    b = S.mine("10"); rp.draw(b, "D"); rp.settle(b, [("Win", 2 * s)])
    # Q's window opened at X+5: the default Stand is due at X+5+TIMEOUT
    while S.a.height() + 1 < w.h + S.T:
        S.mine()
    b = S.mine_void(); rq.timeout(b, "Stand", 0)
    b = S.mine("10"); rq.draw(b, "D"); rq.settle(b, [("Win", 2 * (s + 2))])
    return "3 void blocks: deal, dealer play and a timeout block"


def sc_void_peek(S):
    """10+9 against an Ace, Peek with insurance; the block after the Peek
    is void (a Stand in it is premature): the peek card comes one block
    later: K, dealer blackjack: Lose, insurance 3 x floor(s/2)."""
    p = S.player()
    s = S.STAKE + 103
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "10", "A", "9")
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    st = r.send("Stand")
    S.mine_void()
    S.rej(st, "premature", "Stand", r)
    b = S.mine("K"); r.peek(b, True)
    r.settle(b, [("Lose", 0)], ins_payout=3 * i)
    return "Peek's card shifted past a void block"


def sc_void_clear_peek_skip(S):
    """10+9 against an Ace, Peek without insurance; the peek card 5 is no
    blackjack, set aside; Stand at Peek+2; dealer play: Peek+3 is void (no
    card, no event: the dealer's second card comes from a later block),
    Peek+4 J would make a blackjack behind the Ace: skipped; Peek+5 8: A+8
    soft 19 stands.  19 vs 19: Push."""
    p = S.player()
    s = S.STAKE + 107
    r = S.bet(p, s)
    deal(S, r, "10", "A", "9")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    r.peek(S.mine("5"), False)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    S.mine_void()
    r.skip(S.mine("J"))
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "clear peek, then a void block and a skipped J before the dealer's 8"


def sc_void_split(S):
    """8,8 against 7, Split; Y+1 is void: hand 0's second card comes at
    Y+2 (3: 11), hand 1's at Y+3 (10: 18), the window at Y+4.  Hand 1
    stands, hand 0 hits: 10 makes 21.  Dealer 10: 17.  Both Win."""
    p = S.player()
    s = S.STAKE + 105
    r = S.bet(p, s)
    deal(S, r, "8", "7", "8")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    S.mine_void()
    r.draw(S.mine("3"), 0)
    early = r.send("Stand")
    b = S.mine("10"); r.draw(b, 1)
    S.rej(early, "premature", "Stand", r)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 0)
    r.draw(S.mine("10"), 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Win", 2 * s)])
    return "split cards shifted past a void block"


VOID = [sc_void_shifts, sc_void_peek, sc_void_clear_peek_skip, sc_void_split]


# --------------------------------------------------------------------------
# Running and checking (checks.GameRunner; what is EVM's own)

class Runner(GameRunner):
    CHAIN = "evm"
    CONFIRMATIONS = CONFIRMATIONS

    def session(self, name, scenarios, proxy=False, preset=None, rules=None):
        sel = self.select(scenarios)
        if not sel:
            return
        S = Session(self, name, proxy=proxy, preset=preset, rules=rules,
                    node=getattr(self.args, "node", "anvil"))
        try:
            self.finish(S, self.play(S, sel))
        finally:
            S.close()

    def check_chain(self, S, doc, got_line, last):
        voids = [h for h in S.voids if h <= last]
        if S.proxy:
            seen = [h for h in voids if json.loads(got_line[h]).get("void") is True]
            self.report(voids and seen == voids, "%s: daemon saw the void blocks" % S.name,
                        "heights %s" % voids)

    def check_db_head(self, S, q, last):
        cur = q("SELECT height FROM cursor").fetchall()
        self.report(cur == [(last,)], "%s: database cursor at the last logged block" % S.name,
                    "cursor %s" % cur)


def main():
    args = game_args(__doc__, 600, add=lambda ap: ap.add_argument(
        "--node", choices=NODES, default="anvil",
        help="the EVM node the sessions run on (default anvil)"))
    wd = WorkDir("hj-e2e-game-", args.keep)
    t0 = time.monotonic()
    R = Runner(args, wd.path)

    def sessions():
        R.session("main", MAIN)
        R.session("void", VOID, proxy=True)
    return R.run(sessions, wd, t0)


if __name__ == "__main__":
    sys.exit(main())
