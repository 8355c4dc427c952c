#!/usr/bin/env python3
"""End-to-end game scenarios: hashjackd against a real anvil, real signed
transactions (cast, through tests/e2e/hj.py), block cards chosen by
grinding, every action and settlement path of the `bethash` preset and every
rejection, checked against values derived from the protocol
(shared/spec/hash-blackjack-v1.md, docs/PROTOCOL.md, docs/LOG.md,
docs/STATE.md).

    python3 tests/e2e/test_game.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [-k NAME] [--keep] [--timeout S]

Two daemon sessions, each on its own anvil (confirmations 2, timeout_blocks
3, min_bet 1000, max_bet 10^18):

- "main": the scenarios one after another, each with fresh player accounts
  (a few deliberately share blocks);
- "void": the daemon reads anvil through a small JSON-RPC proxy (this
  file's RewriteProxy, an hj.RpcProxy) that replaces the hash of chosen
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
model and those checks are shared with tests/e2e/test_ltc_game.py
(tests/e2e/checks.py).

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout).
"""

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hj  # noqa: E402
from checks import (Blk, Failed, GameRunner, Round, SessionModel, Tx, WorkDir,  # noqa: E402
                    bj)

MIN_BET = 1000
MAX_BET = 10 ** 18
TIMEOUT = 3            # timeout_blocks: small, so that timeouts are cheap
CONFIRMATIONS = 2      # grinding replaces the tip block: never deal the tip
N_ACCOUNTS = 80        # a fresh player for every scenario

BET = hj.BET
HIT, STAND, DOUBLE, SPLIT = hj.HIT, hj.STAND, hj.DOUBLE, hj.SPLIT
SURRENDER, PEEK, PEEK_INS = hj.SURRENDER, hj.PEEK, hj.PEEK_INSURED


def bet_payload(pp=None, t3=None):
    """Bet payload (EVM): magic, version, 01, then optional u64 side stakes."""
    p = BET
    if pp is not None:
        p += "%016x" % pp
    if t3 is not None:
        p += "%016x" % t3
    return p


# --------------------------------------------------------------------------
# A JSON-RPC proxy that turns chosen blocks void

class RewriteProxy(hj.RpcProxy):
    """hj.RpcProxy in front of anvil that replaces, in each answer, the
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
    """An anvil of ACCOUNTS dev accounts (the dealer's, then the players')
    and a daemon on it, started.  A subclass may add to the daemon's config
    (daemon_extra(), called once the anvil is up) and start it otherwise
    (start_daemon())."""

    HEX_PREFIX = "0x"
    ACCOUNTS = N_ACCOUNTS

    def __init__(self, ctx, name, proxy=False):
        super().__init__(ctx, name)
        self.a = hj.Anvil(workdir=os.path.join(self.workdir, "anvil"), keep_state=False,
                          accounts=self.ACCOUNTS).start()
        self.dealer = self.a.accounts[0].address
        self.next_player = 1
        self.proxy = RewriteProxy(self.a.url) if proxy else None
        self.rng = random.Random(11)
        self.voids = {}                            # height -> void hash
        self.a.mine_empty(2)
        self.first = self.a.height()
        extra = {"chain": {"rpc_url": self.proxy.url}} if proxy else {}
        extra.update(self.daemon_extra())
        self.dm = hj.Hashjackd(ctx.hashjackd, self.a, self.dealer, MIN_BET, MAX_BET, TIMEOUT,
                               confirmations=CONFIRMATIONS, start_height=self.first,
                               poll_interval_ms=50, workdir=os.path.join(self.workdir, "daemon"),
                               extra=extra or None)
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

    def bet(self, who, stake, data=BET):
        t = self.send(who, data, stake)
        return Round(self, who.address, t, stake)

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
        until its card matches (hj.card_matcher)."""
        if want is None:
            b = self.a.mine()
        else:
            b, _ = self.a.grind(want, expect=[t.txid for t in self.pending])
        h = self._mined(b)
        return Blk(h, b["hash"], hj.card_of(b["hash"]))

    def mine_void(self):
        """The next block, seen by the daemon (through the proxy) and by the
        replay as a void block."""
        if not self.proxy:
            raise Failed("void blocks need the proxy session")
        b = self.a.mine()
        h = self._mined(b)
        v = "0x" + "".join(self.rng.choice("0ef") for _ in range(64))
        assert hj.card_of(v) is None
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
        doc = self.a.export(first, last, self.dealer, MIN_BET, MAX_BET, TIMEOUT)
        if self.proxy and self.proxy.map:
            text = json.dumps(doc)
            for old, new in self.proxy.map.items():
                text = text.replace(old, new)
            doc = json.loads(text)
        return doc

    def close(self):
        hj.close_all(self.dm.close, self.a.stop, self.proxy and self.proxy.close)


# --------------------------------------------------------------------------
# Scenarios of the main session.  Each returns a one-line summary.
# X = the Bet's block, W = the opening of an action window (docs/PROTOCOL.md).

def sc_win_stand(S):
    """10+9 = 19 against 7; a Split of a non-pair (not_allowed) and a
    malformed Stand (too_long, no round in the rejection) in the window; Stand
    at W; the dealer draws K at W+1: hard 17 stands: Win, 2 x stake.  The Bet
    writes its perfect-pairs side stake as 0 (12 bytes: accepted)."""
    p = S.player()
    s = 10 ** 15 + 1
    r = S.bet(p, s, bet_payload(pp=0))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("7"), "D")
    r.draw(S.mine("9"), 0)
    sp = S.send(p, SPLIT, s)
    bad = S.send(p, "0x484a0103ff", 9)
    st = S.send(p, STAND)
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    S.rej(bad, "too_long", "Stand")
    r.act(st, "Stand", 0)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "19 vs 7+K: Win %d" % (2 * s)


def sc_lose_dealer_play(S):
    """10+7 = 17 against 2; Stand at W, then in the same block a Hit
    (not_allowed: the dealer is playing, checked before premature); the
    dealer draws 9 (11), a Hit with value 3 in that block is not_allowed and
    refunded, then 8: 19.  Lose, return 0.  Bet with both side stakes written
    as 0 (20 bytes: accepted)."""
    p = S.player()
    s = 10 ** 15 + 2
    r = S.bet(p, s, bet_payload(pp=0, t3=0))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("2"), "D")
    r.draw(S.mine("7"), 0)
    st = S.send(p, STAND)
    h1 = S.send(p, HIT)
    S.mine()
    r.act(st, "Stand", 0)
    S.rej(h1, "not_allowed", "Hit", r)
    h2 = S.send(p, HIT, 3)
    b = S.mine("9"); r.draw(b, "D")
    S.rej(h2, "not_allowed", "Hit", r)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "17 vs 2+9+8 = 19: Lose"


def sc_push_min_bet_second_bet(S):
    """Bet of exactly min_bet; a second Bet while it is open (with a side
    stake and a value below min_bet: second_round is checked first, the
    rejection names the open round); 10+8 against 8, Stand, dealer 10: 18
    each, Push, stake back."""
    p = S.player()
    s = MIN_BET
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    again = S.send(p, bet_payload(pp=5), MIN_BET - 1)
    b = S.mine("10"); r.draw(b, 0)
    S.rej(again, "second_round", "Bet", r)
    r.draw(S.mine("8"), "D")
    r.draw(S.mine("8"), 0)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "18 vs 18: Push %d" % s


def sc_bust_premature(S):
    """A Hit (value 5) in the block of the second card: premature (before
    wrong_value), refunded; at W a Hit with value 1 (wrong_value) then a Hit;
    a second Hit in the same block is premature (one action per window); 16
    + 9 busts: settled in that block, the dealer (Q up) never draws."""
    p = S.player()
    s = 10 ** 15 + 4
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("Q"), "D")
    early = S.send(p, HIT, 5)
    b = S.mine("6"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    wv = S.send(p, HIT, 1)
    hit = S.send(p, HIT)
    twice = S.send(p, HIT)
    S.mine()
    S.rej(wv, "wrong_value", "Hit", r)
    r.act(hit, "Hit", 0)
    S.rej(twice, "premature", "Hit", r)
    b = S.mine("9"); r.draw(b, 0)
    r.settle(b, [("Bust", 0)])
    return "16 + 9: Bust, dealer shows one card"


def sc_hit_to_21_dealer_busts(S):
    """5+6 = 11 against 6; Hit: 10 makes 21, the hand stands by itself; a
    Stand in the next block is not_allowed (dealer play); the dealer draws
    10 (16) and K: bust.  Win."""
    p = S.player()
    s = 10 ** 15 + 5
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("5"), 0)
    r.draw(S.mine("6"), "D")
    r.draw(S.mine("6"), 0)
    hit = S.send(p, HIT)
    S.mine(); r.act(hit, "Hit", 0)
    r.draw(S.mine("10"), 0)
    st = S.send(p, STAND)
    b = S.mine("10"); r.draw(b, "D")
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "21 by a Hit vs 6+10+K bust: Win"


def sc_h17(S):
    """Dealer H17: 10+7 against 6; Stand; the dealer draws A: soft 17, must
    hit; 2: soft 19, stands.  17 vs 19: Lose (a dealer standing on soft 17
    would have pushed)."""
    p = S.player()
    s = 10 ** 15 + 6
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("6"), "D")
    r.draw(S.mine("7"), 0)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("A"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "dealer 6+A (soft 17) hits, 2: 19 beats 17"


def sc_bj_vs_5_then_bet_and_surrender_vs_9(S):
    """Player blackjack (A, K) against 5 with stake 1007: settles at X+3,
    1007 + floor(6042/5) = 2215.  In that block a Stand is rejected no_round
    (the draw settled the round first) and a new Bet is accepted.  The new
    round: 10+6 against 9, late Surrender at its W: settles at once,
    floor(stake/2) of an odd stake."""
    p = S.player()
    s = 1007
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("5"), "D")
    st = S.send(p, STAND)
    s2 = 10 ** 15 + 7
    r2 = S.bet(p, s2)
    b = S.mine("K"); r.draw(b, 0)
    r.settle(b, [("Blackjack", bj(s))])
    S.rej(st, "no_round", "Stand")
    r2.accepted_bet()
    r2.draw(S.mine("10"), 0)
    r2.draw(S.mine("9"), "D")
    r2.draw(S.mine("6"), 0)
    su = S.send(p, SURRENDER)
    b = S.mine(); r2.act(su, "Surrender", 0)
    r2.settle(b, [("Surrender", s2 // 2)])
    return "BJ vs 5: %d -> %d; then 16 vs 9 Surrender: %d" % (s, bj(s), s2 // 2)


def sc_bj_vs_2(S):
    """Blackjack J, A against 2: settles at X+3, stake + floor(6s/5)."""
    p = S.player()
    s = 10 ** 15 + 3
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("J"), 0)
    r.draw(S.mine("2"), "D")
    b = S.mine("A"); r.draw(b, 0)
    r.settle(b, [("Blackjack", bj(s))])
    return "%d -> %d" % (s, bj(s))


def sc_bj_vs_ten_win(S):
    """Blackjack against K: the dealer's second card comes at X+4 without
    any action (a Stand at X+3 is not_allowed: the dealer is drawing); 7:
    no dealer blackjack, Blackjack paid: 1000001 -> 2200002."""
    p = S.player()
    s = 1000001
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("K"), "D")
    st = S.send(p, STAND)
    b = S.mine("Q"); r.draw(b, 0)
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs K+7: %d" % bj(s)


def sc_bj_vs_ten_push(S):
    """Blackjack (10, A) against J; X+4 gives the dealer an A: dealer
    blackjack, Push.  A Hit in X+4 finds the round settled: no_round."""
    p = S.player()
    s = 10 ** 15 + 9
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("J"), "D")
    r.draw(S.mine("A"), 0)
    hit = S.send(p, HIT)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    S.rej(hit, "no_round", "Hit")
    return "BJ vs J+A: Push"


def sc_bj_vs_ace_even_money(S):
    """Blackjack against an Ace: at W a Stand is not_allowed (Peek due), a
    Peek with insurance carrying floor(bet/2)+1 and a Peek without insurance
    carrying 1 are wrong_value, then Peek with insurance (floor(1001/2) =
    500); the dealer's Q is blackjack: Push 1001 + insurance 1500."""
    p = S.player()
    s = 1001
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("K"), 0)
    st = S.send(p, STAND)
    w1 = S.send(p, PEEK_INS, i + 1)
    w2 = S.send(p, PEEK, 1)
    pk = S.send(p, PEEK_INS, i)
    S.mine()
    S.rej(st, "not_allowed", "Stand", r)
    S.rej(w1, "wrong_value", "Peek", r)
    S.rej(w2, "wrong_value", "Peek", r)
    r.act(pk, "Peek", insurance=True)
    b = S.mine("Q"); r.draw(b, "D")
    r.settle(b, [("Push", s)], ins_payout=3 * i)
    return "even money: staked %d, returned %d" % (s + i, s + 3 * i)


def sc_bj_vs_ace_no_dbj(S):
    """Blackjack Q, A against an Ace: Peek without insurance, the dealer's
    4 is no blackjack: Blackjack paid at Peek+1."""
    p = S.player()
    s = 10 ** 15 + 11
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("Q"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("A"), 0)
    pk = S.send(p, PEEK)
    S.mine(); r.act(pk, "Peek", insurance=False)
    b = S.mine("4"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs A+4: %d" % bj(s)


def sc_bj_vs_ace_insured_no_dbj(S):
    """Blackjack against an Ace, insured, dealer 9: no blackjack, insurance
    lost (payout 0), the blackjack paid 6:5."""
    p = S.player()
    s = 10 ** 15 + 13
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("K"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("A"), 0)
    pk = S.send(p, PEEK_INS, i)
    S.mine(); r.act(pk, "Peek", insurance=True)
    b = S.mine("9"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))], ins_payout=0)
    return "BJ vs A+9, insurance lost: %d for %d" % (bj(s), s + i)


def sc_peek_insured_dbj(S):
    """19 against an Ace with a stake of exactly max_bet: a Peek in the
    block of the second card is premature; Peek with insurance at W; K:
    dealer blackjack, the hand loses, insurance returns 3 x floor(bet/2)."""
    p = S.player()
    s = MAX_BET
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    early = S.send(p, PEEK_INS, i)
    b = S.mine("9"); r.draw(b, 0)
    S.rej(early, "premature", "Peek", r)
    pk = S.send(p, PEEK_INS, i)
    S.mine(); r.act(pk, "Peek", insurance=True)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)], ins_payout=3 * i)
    return "insurance %d returns %d" % (i, 3 * i)


def sc_peek_dbj(S):
    """17 against an Ace, Peek without insurance, 10: dealer blackjack,
    Lose at Peek+1, no insurance in the settlement."""
    p = S.player()
    s = 10 ** 15 + 15
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("8"), 0)
    pk = S.send(p, PEEK)
    S.mine(); r.act(pk, "Peek", insurance=False)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "A+10 after Peek: Lose"


def sc_peek_insured_no_dbj_dealer_stands(S):
    """19 against an Ace, insured Peek, dealer 7: A+7 soft 18, no
    blackjack; a Stand in that block is premature (window at Peek+2); Stand
    at Peek+2: the dealer stands on its two cards, the round settles in the
    Stand's block: Win, insurance 0."""
    p = S.player()
    s = 10 ** 15 + 17
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("9"), 0)
    pk = S.send(p, PEEK_INS, i)
    S.mine(); r.act(pk, "Peek", insurance=True)
    early = S.send(p, STAND)
    b = S.mine("7"); r.draw(b, "D")
    S.rej(early, "premature", "Stand", r)
    st = S.send(p, STAND)
    b = S.mine(); r.act(st, "Stand", 0)
    r.settle(b, [("Win", 2 * s)], ins_payout=0)
    return "19 vs A+7 (no draw): Win, insurance lost"


def sc_peek_h17_ace(S):
    """PROTOCOL.md round 3 on anvil: 8+4 against an Ace, Peek without
    insurance, 4: A+4 soft 15; at W a Peek is not_allowed (none due), then
    Stand; dealer 2: soft 17, hits (H17); 8: hard 15, hits; J: bust.  Win."""
    p = S.player()
    s = 10 ** 15 + 19
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("4"), 0)
    pk = S.send(p, PEEK)
    S.mine(); r.act(pk, "Peek", insurance=False)
    r.draw(S.mine("4"), "D")
    pk2 = S.send(p, PEEK)
    st = S.send(p, STAND)
    S.mine()
    S.rej(pk2, "not_allowed", "Peek", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("2"), "D")
    r.draw(S.mine("8"), "D")
    b = S.mine("J"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "12 vs A+4+2+8+J (bust): Win"


def sc_double_9(S):
    """Hard 9 (5+4) against 6: a Double carrying stake-1 is wrong_value,
    then Double with the stake; 10 makes 19, the hand stands; dealer 10
    (16) and K: bust.  Win 2 x 2s."""
    p = S.player()
    s = 10 ** 15 + 21
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("5"), 0)
    r.draw(S.mine("6"), "D")
    r.draw(S.mine("4"), 0)
    wv = S.send(p, DOUBLE, s - 1)
    db = S.send(p, DOUBLE, s)
    S.mine()
    S.rej(wv, "wrong_value", "Double", r)
    r.act(db, "Double", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 4 * s)])
    return "doubled 9 -> 19 vs bust: %d" % (4 * s)


def sc_double_10(S):
    """Hard 10 (6+4) against 9, Double, 2: 12; dealer 8: 17.  Lose both
    stakes."""
    p = S.player()
    s = 10 ** 15 + 23
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("6"), 0)
    r.draw(S.mine("9"), "D")
    r.draw(S.mine("4"), 0)
    db = S.send(p, DOUBLE, s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("2"), 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "doubled 10 -> 12 vs 17: Lose 2s"


def sc_double_11(S):
    """Hard 11 (7+4) against 5, Double, K: 21; dealer 10 (15) and 2: 17.
    Win 4s."""
    p = S.player()
    s = 10 ** 15 + 25
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("7"), 0)
    r.draw(S.mine("5"), "D")
    r.draw(S.mine("4"), 0)
    db = S.send(p, DOUBLE, s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("K"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Win", 4 * s)])
    return "doubled 11 -> 21 vs 17: %d" % (4 * s)


def sc_double_soft_not_allowed(S):
    """A+8 is a soft 19, not a 9: Double not_allowed (its value refunded);
    Stand; dealer 7+10 = 17: Win."""
    p = S.player()
    s = 10 ** 15 + 27
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("7"), "D")
    r.draw(S.mine("8"), 0)
    db = S.send(p, DOUBLE, s)
    st = S.send(p, STAND)
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "no Double on soft 19; 19 vs 17 Win"


def sc_double_hit_surrender_not_allowed(S):
    """2+3 = hard 5 against 9: Double not_allowed; Hit; 5: hard 10 on three
    cards: Double not_allowed; Surrender after a decision not_allowed;
    Stand; dealer 8: 17.  Lose."""
    p = S.player()
    s = 10 ** 15 + 29
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("2"), 0)
    r.draw(S.mine("9"), "D")
    r.draw(S.mine("3"), 0)
    d1 = S.send(p, DOUBLE, s)
    hit = S.send(p, HIT)
    S.mine()
    S.rej(d1, "not_allowed", "Double", r)
    r.act(hit, "Hit", 0)
    r.draw(S.mine("5"), 0)
    d2 = S.send(p, DOUBLE, s)
    su = S.send(p, SURRENDER)
    st = S.send(p, STAND)
    S.mine()
    S.rej(d2, "not_allowed", "Double", r)
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(st, "Stand", 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "Double on 5 and on 3 cards, Surrender after Hit: not_allowed"


def sc_double_dealer_bj(S):
    """Original bets only after a Double: 6+4 against K, Double, 8: 18;
    the dealer's A is a blackjack found late: DealerBlackjack, the hand
    (stake 2s) returns 2s - s = s."""
    p = S.player()
    s = 10 ** 15 + 31
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("6"), 0)
    r.draw(S.mine("K"), "D")
    r.draw(S.mine("4"), 0)
    db = S.send(p, DOUBLE, s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("8"), 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", s)])
    return "doubled vs K+A: loses only %d" % s


def sc_split_order(S):
    """8,8 against 6: Split with value s+1 wrong_value, then Split; Y+1
    completes hand 0 (10: 18), Y+2 hand 1 (3: 11); a Hit at Y+1 is
    premature.  Hand 1 plays first: Double (no double after split),
    Surrender (split hand) not_allowed; Hit 5, Hit K: bust.  Hand 0: Stand.
    The dealer: 10 (16), 9: bust.  Hand 0 Win, hand 1 Bust (a busted hand
    loses even when the dealer busts)."""
    p = S.player()
    s = 10 ** 15 + 33
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8"), 0)
    r.draw(S.mine("6"), "D")
    r.draw(S.mine("8"), 0)
    wv = S.send(p, SPLIT, s + 1)
    sp = S.send(p, SPLIT, s)
    S.mine()
    S.rej(wv, "wrong_value", "Split", r)
    r.act(sp, "Split", 0)
    early = S.send(p, HIT)
    b = S.mine("10"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    r.draw(S.mine("3"), 1)
    db = S.send(p, DOUBLE, s)
    su = S.send(p, SURRENDER)
    hit = S.send(p, HIT)
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(hit, "Hit", 1)
    r.draw(S.mine("5"), 1)
    hit = S.send(p, HIT)
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("9"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Bust", 0)])
    return "hand 1 first: Bust; hand 0 18: Win"


def sc_split_by_value(S):
    """10 and J split (pairs by value) against 9; hand 0 gets A: a two-card
    21 on a split hand stands by itself and is not a blackjack; hand 1 gets
    Q (20): a second Split is not_allowed (one split), Stand; dealer A:
    9+A = 20.  Hand 0 Win 2s (not 6:5), hand 1 Push."""
    p = S.player()
    s = 10 ** 15 + 35
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("9"), "D")
    r.draw(S.mine("J"), 0)
    sp = S.send(p, SPLIT, s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("Q"), 1)
    sp2 = S.send(p, SPLIT, s)
    st = S.send(p, STAND)
    S.mine()
    S.rej(sp2, "not_allowed", "Split", r)
    r.act(st, "Stand", 1)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Push", s)])
    return "split 21 paid 1:1, 20 vs 20 Push"


def sc_split_aces_not_allowed(S):
    """A,A against 5: Split not_allowed (aces never split); Stand on soft
    12; dealer 10 (15), 3: 18.  Lose."""
    p = S.player()
    s = 10 ** 15 + 37
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("5"), "D")
    r.draw(S.mine("A"), 0)
    sp = S.send(p, SPLIT, s)
    st = S.send(p, STAND)
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("3"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "no split of aces"


def sc_split_dealer_bj(S):
    """Original bets only after a Split: 9,9 against Q; hand 0 9 (18), hand
    1 5 (14), Hit K: hand 1 busts; hand 0 Stand; the dealer's A is a late
    blackjack: hand 0 returns s - s = 0, hand 1 (busted) its stake s."""
    p = S.player()
    s = 10 ** 15 + 39
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("Q"), "D")
    r.draw(S.mine("9"), 0)
    sp = S.send(p, SPLIT, s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("5"), 1)
    hit = S.send(p, HIT)
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0), ("DealerBlackjack", s)])
    return "split vs Q+A: loses only %d" % s


def sc_stand_dealer_bj(S):
    """10+8 against J, Stand; the dealer's second card A: late dealer
    blackjack, DealerBlackjack with return s - s = 0 (no return owed)."""
    p = S.player()
    s = 10 ** 15 + 41
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("J"), "D")
    r.draw(S.mine("8"), 0)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0)])
    return "18 vs J+A: DealerBlackjack, 0"


def sc_surrender_vs_ten(S):
    """10+6 against K, Surrender; a Stand after it in the same block is
    not_allowed (the dealer's second card is due); Y+1 7: no blackjack,
    Surrender floor(s/2)."""
    p = S.player()
    s = 10 ** 15 + 43
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("K"), "D")
    r.draw(S.mine("6"), 0)
    su = S.send(p, SURRENDER)
    st = S.send(p, STAND)
    S.mine()
    r.act(su, "Surrender", 0)
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Surrender", s // 2)])
    return "vs K+7: %d back" % (s // 2)


def sc_surrender_vs_ten_dbj(S):
    """10+5 against 10, Surrender; Y+1 A: dealer blackjack takes the whole
    stake (Lose, 0)."""
    p = S.player()
    s = 10 ** 15 + 45
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("10"), "D")
    r.draw(S.mine("5"), 0)
    su = S.send(p, SURRENDER)
    S.mine(); r.act(su, "Surrender", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "vs 10+A: Lose"


def sc_surrender_vs_ace(S):
    """10+6 against an Ace: Surrender before the Peek is not_allowed; Peek
    (no insurance), 5: no blackjack; Surrender at Peek+2 settles at once:
    floor(s/2)."""
    p = S.player()
    s = 10 ** 15 + 47
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("6"), 0)
    su = S.send(p, SURRENDER)
    pk = S.send(p, PEEK)
    S.mine()
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(pk, "Peek", insurance=False)
    r.draw(S.mine("5"), "D")
    su = S.send(p, SURRENDER)
    b = S.mine(); r.act(su, "Surrender", 0)
    r.settle(b, [("Surrender", s // 2)])
    return "after Peek (A+5): %d back" % (s // 2)


def sc_timeout_stand_last_block(S):
    """Two players bet in one block (same cards: 10, 7 up, 9).  B stands in
    the last block of the window (W+timeout): accepted; A says nothing: the
    default Stand is applied at the end of that block.  Both dealers draw 10
    at the next block: 17, both Win, in opening order."""
    pa, pb = S.player(), S.player()
    s = 10 ** 15 + 49
    ra = S.bet(pa, s)
    rb = S.bet(pb, s + 2)
    S.mine(); ra.accepted_bet(); rb.accepted_bet()
    for want, hand in (("10", 0), ("7", "D"), ("9", 0)):
        b = S.mine(want)
        ra.draw(b, hand)
        rb.draw(b, hand)
    w = b.h + 1
    for _ in range(TIMEOUT):
        S.mine()
    st = S.send(pb, STAND)
    b = S.mine()
    if b.h != w + TIMEOUT:
        raise Failed("window arithmetic: %d != %d" % (b.h, w + TIMEOUT))
    rb.act(st, "Stand", 0)
    ra.timeout(b, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Win", 2 * s)])
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * (s + 2))])
    return "timeout Stand at W+%d, action at W+%d accepted" % (TIMEOUT, TIMEOUT)


def sc_timeout_peek_then_stand_h17(S):
    """10+9 against an Ace, no action at all: default Peek at W+timeout; 6:
    A+6 soft 17, no blackjack; default Stand timeout_blocks after the new
    window; the dealer hits its soft 17: 10, hard 17.  Win."""
    p = S.player()
    s = 10 ** 15 + 53
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("9"), 0)
    for _ in range(TIMEOUT):
        S.mine()
    b = S.mine(); r.timeout(b, "Peek")
    r.draw(S.mine("6"), "D")
    for _ in range(TIMEOUT):
        S.mine()
    b = S.mine(); r.timeout(b, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "default Peek, default Stand, dealer A+6+10"


def sc_timeout_peek_dbj(S):
    """9+9 against an Ace, no action: default Peek; K: dealer blackjack,
    Lose."""
    p = S.player()
    s = 10 ** 15 + 55
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("9"), 0)
    for _ in range(TIMEOUT):
        S.mine()
    b = S.mine(); r.timeout(b, "Peek")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "default Peek finds A+K"


def sc_timeout_split_hands(S):
    """7,7 against 5, Split; hand 0 gets 10 (17), hand 1 gets 2 (9); no
    more actions: hand 1 is stood by timeout, then hand 0 gets its own
    window from the next block and is stood by timeout too; dealer 10 (15),
    10: bust.  Both Win."""
    p = S.player()
    s = 10 ** 15 + 57
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("7"), 0)
    r.draw(S.mine("5"), "D")
    r.draw(S.mine("7"), 0)
    sp = S.send(p, SPLIT, s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("2"), 1)
    for _ in range(TIMEOUT):
        S.mine()
    b = S.mine(); r.timeout(b, "Stand", 1)
    for _ in range(TIMEOUT):
        S.mine()
    b = S.mine(); r.timeout(b, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Win", 2 * s)])
    return "two default Stands, one window each"


def sc_players_same_blocks(S):
    """Three players bet in one block and get the same cards (10, 6 up, 6):
    at W, A stands, B hits, C surrenders (settled at once).  W+1 (5): A's
    dealer 11, B's hand 21 (stands by itself), in opening order.  W+2 (10):
    A's dealer 21, A loses; A bets again in that block (accepted).  W+3 (4):
    B's dealer 20, B wins 21 vs 20; A's new round takes the same 4.  A's new
    round: 9 up, 10: 14, Surrender."""
    pa, pb, pc = S.player(), S.player(), S.player()
    sa, sb, sc = 10 ** 15 + 59, 10 ** 15 + 61, 10 ** 15 + 63
    ra, rb, rc = S.bet(pa, sa), S.bet(pb, sb), S.bet(pc, sc)
    S.mine()
    for r in (ra, rb, rc):
        r.accepted_bet()
    for want, hand in (("10", 0), ("6", "D"), ("6", 0)):
        b = S.mine(want)
        for r in (ra, rb, rc):
            r.draw(b, hand)
    st, hit, su = S.send(pa, STAND), S.send(pb, HIT), S.send(pc, SURRENDER)
    S.mine()
    ra.act(st, "Stand", 0)
    rb.act(hit, "Hit", 0)
    rc.act(su, "Surrender", 0)
    rc.settle(S.at(su), [("Surrender", sc // 2)])
    b = S.mine("5")
    ra.draw(b, "D")
    rb.draw(b, 0)
    s2 = 10 ** 15 + 65
    ra2 = S.bet(pa, s2)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Lose", 0)])
    rb.draw(b, "D")
    ra2.accepted_bet()
    b = S.mine("4")
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * sb)])
    ra2.draw(b, 0)
    ra2.draw(S.mine("9"), "D")
    ra2.draw(S.mine("10"), 0)
    su2 = S.send(pa, SURRENDER)
    b = S.mine(); ra2.act(su2, "Surrender", 0)
    ra2.settle(b, [("Surrender", s2 // 2)])
    return "3 rounds sharing cards; a new Bet in the settling block"


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


def sc_bet_rejections(S):
    """Bets rejected without a round: below min_bet, above max_bet, a
    perfect-pairs side stake, a 21+3 side stake with a value also out of
    limits (side bets are checked first); actions without a round (no_round,
    refunded; one with value 0: nothing owed); deposits without the magic
    (empty input, "48", "4849", other bytes, value 0 too): logged, not
    refunded."""
    p1, p2, p3 = S.player(), S.player(), S.player()
    t = [S.send(p1, BET, MIN_BET - 1), S.send(p1, BET, MAX_BET + 1),
         S.send(p2, bet_payload(pp=1000), 5000), S.send(p2, bet_payload(pp=0, t3=1), 999),
         S.send(p3, HIT, 77), S.send(p3, PEEK_INS, 0),
         S.send(p1, "0x", 5000), S.send(p2, "0x48", 6), S.send(p3, "0x4849", 0),
         S.send(p1, "0xdeadbeef", 8)]
    S.mine()
    S.rej(t[0], "bet_out_of_limits", "Bet")
    S.rej(t[1], "bet_out_of_limits", "Bet")
    S.rej(t[2], "side_bets_not_offered", "Bet")
    S.rej(t[3], "side_bets_not_offered", "Bet")
    S.rej(t[4], "no_round", "Hit")
    S.rej(t[5], "no_round", "Peek")
    for x in t[6:]:
        S.dep(x)
    return "limits, side bets, no_round, 4 deposits"


def sc_failed_receipts(S):
    """Transactions whose receipt failed (the dealer address made to revert
    with anvil_setCode): a Bet with value and a deposit are "ignored", owe
    nothing; then a round: at W a failing Stand (only that sender's calls
    revert) is ignored while another player's deposit in the same block is
    a deposit; the Stand at W+1 is accepted (the round did not change); 19
    vs 8+10: Win."""
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
    s = 10 ** 15 + 67
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("8"), "D")
    r.draw(S.mine("9"), 0)
    with S.a.reverting(S.dealer, only_from=p):
        f3 = S.send(p, STAND, gas_limit=100000)
        d = S.send(q, "0x", 9)
        S.mine()
    if int(S.a.receipt(f3.txid)["status"], 16) != 0:
        raise Failed("receipt of the Stand did not fail")
    S.ign(f3)
    S.dep(d)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "3 failed receipts ignored, round unchanged"


MAIN = [sc_win_stand, sc_lose_dealer_play, sc_push_min_bet_second_bet, sc_bust_premature,
        sc_hit_to_21_dealer_busts, sc_h17, sc_bj_vs_5_then_bet_and_surrender_vs_9,
        sc_bj_vs_2, sc_bj_vs_ten_win, sc_bj_vs_ten_push, sc_bj_vs_ace_even_money,
        sc_bj_vs_ace_no_dbj, sc_bj_vs_ace_insured_no_dbj, sc_peek_insured_dbj, sc_peek_dbj,
        sc_peek_insured_no_dbj_dealer_stands, sc_peek_h17_ace, sc_double_9, sc_double_10,
        sc_double_11, sc_double_soft_not_allowed, sc_double_hit_surrender_not_allowed,
        sc_double_dealer_bj, sc_split_order, sc_split_by_value, sc_split_aces_not_allowed,
        sc_split_dealer_bj, sc_stand_dealer_bj, sc_surrender_vs_ten, sc_surrender_vs_ten_dbj,
        sc_surrender_vs_ace, sc_timeout_stand_last_block, sc_timeout_peek_then_stand_h17,
        sc_timeout_peek_dbj, sc_timeout_split_hands, sc_players_same_blocks, sc_malformed,
        sc_bet_rejections, sc_failed_receipts]


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
    s = 10 ** 15 + 101
    rp, rq = S.bet(pp, s), S.bet(pq, s + 2)
    x = S.mine().h
    rp.accepted_bet(); rq.accepted_bet()
    b = S.mine("10"); rp.draw(b, 0); rq.draw(b, 0)
    d = S.send(pd, "0x", 12)
    b = S.mine_void()
    S.dep(d)
    b = S.mine("7"); rp.draw(b, "D"); rq.draw(b, "D")
    early = S.send(pp, HIT)
    b = S.mine("9"); rp.draw(b, 0); rq.draw(b, 0)
    S.rej(early, "premature", "Hit", rp)
    st = S.send(pp, STAND)
    w = S.mine()
    if w.h != x + 5:
        raise Failed("heights: W %d, X %d" % (w.h, x))
    rp.act(st, "Stand", 0)
    S.mine_void()
    b = S.mine("10"); rp.draw(b, "D"); rp.settle(b, [("Win", 2 * s)])
    # Q's window opened at X+5: the default Stand is due at X+5+TIMEOUT
    while S.a.height() + 1 < w.h + TIMEOUT:
        S.mine()
    b = S.mine_void(); rq.timeout(b, "Stand", 0)
    b = S.mine("10"); rq.draw(b, "D"); rq.settle(b, [("Win", 2 * (s + 2))])
    return "3 void blocks: deal, dealer play and a timeout block"


def sc_void_peek(S):
    """10+9 against an Ace, Peek with insurance; the block after the Peek
    is void (a Stand in it is premature): the dealer's second card comes one
    block later: K, dealer blackjack: Lose, insurance 3 x floor(s/2)."""
    p = S.player()
    s = 10 ** 15 + 103
    i = s // 2
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("A"), "D")
    r.draw(S.mine("9"), 0)
    pk = S.send(p, PEEK_INS, i)
    S.mine(); r.act(pk, "Peek", insurance=True)
    st = S.send(p, STAND)
    S.mine_void()
    S.rej(st, "premature", "Stand", r)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)], ins_payout=3 * i)
    return "Peek's card shifted past a void block"


def sc_void_split(S):
    """8,8 against 7, Split; Y+1 is void: hand 0's second card comes at
    Y+2 (3: 11), hand 1's at Y+3 (10: 18), the window at Y+4.  Hand 1
    stands, hand 0 hits: 10 makes 21.  Dealer 10: 17.  Both Win."""
    p = S.player()
    s = 10 ** 15 + 105
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8"), 0)
    r.draw(S.mine("7"), "D")
    r.draw(S.mine("8"), 0)
    sp = S.send(p, SPLIT, s)
    S.mine(); r.act(sp, "Split", 0)
    S.mine_void()
    r.draw(S.mine("3"), 0)
    early = S.send(p, STAND)
    b = S.mine("10"); r.draw(b, 1)
    S.rej(early, "premature", "Stand", r)
    st = S.send(p, STAND)
    S.mine(); r.act(st, "Stand", 1)
    hit = S.send(p, HIT)
    S.mine(); r.act(hit, "Hit", 0)
    r.draw(S.mine("10"), 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s), ("Win", 2 * s)])
    return "split cards shifted past a void block"


VOID = [sc_void_shifts, sc_void_peek, sc_void_split]


# --------------------------------------------------------------------------
# Running and checking (checks.GameRunner; what is EVM's own)

class Runner(GameRunner):
    CHAIN = "evm"
    CONFIRMATIONS = CONFIRMATIONS

    def session(self, name, scenarios, proxy=False):
        sel = self.select(scenarios)
        if not sel:
            return
        S = Session(self, name, proxy=proxy)
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only scenarios whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=600,
                    help="deadline for the whole run in seconds (default 600)")
    args = ap.parse_args()
    hj.install_cleanup(args.timeout)
    wd = WorkDir("hj-e2e-game-", args.keep)
    t0 = time.monotonic()
    R = Runner(args, wd.path)

    def sessions():
        R.session("main", MAIN)
        R.session("void", VOID, proxy=True)
    return R.run(sessions, wd, t0)


if __name__ == "__main__":
    sys.exit(main())
