#!/usr/bin/env python3
"""End-to-end game scenarios on the Bitcoin family: hashjackd against a real
litecoind in regtest (tests/e2e/ltc.py), players with `hashjack player` keys
and the node's own wallet RPC (createrawtransaction, fundrawtransaction,
signrawtransactionwithwallet, sendrawtransaction), block cards chosen by
grinding, every action and settlement path of the `bethash` preset, every
rejection, and what only this family has: BIP-340 signatures (bad, by another
player, over another chain, at a stale or future seq), OP_RETURN payloads too
long, values split over several outputs to the dealer, plain deposits, MWEB
peg-outs to the dealer (paid by the HogEx), zero-value actions and Bets that
are nobody's business.  The values come from the protocol
(shared/spec/hash-blackjack-v1.md, docs/PROTOCOL.md, docs/LOG.md,
docs/STATE.md, docs/BITCOIN.md); this file mirrors tests/e2e/test_game.py
and shares its expectation model and checks (tests/e2e/checks.py).

    python3 tests/e2e/test_ltc_game.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--timeout S]

Two daemon sessions, each on its own node (confirmations 2, min_bet 10000,
max_bet 10^8 litoshis):

- "main": MWEB off, timeout_blocks 3, every scenario but the MWEB ones, one
  after another, each with fresh player keys (a few share blocks on
  purpose); the node keeps Litecoin Core's default relay policy (80 bytes of
  OP_RETURN data at most);
- "mweb": MWEB on; the daemon starts at height 420 and deals across the
  activation (432: the first HogEx); timeout_blocks left to its default (12,
  in the daemon and in the replay document); -datacarriersize=400 so that
  payloads of 81..300 bytes get mined (a miner may always include them);
  the peg-outs to the dealer, then every scenario of "main" again, on MWEB
  blocks (each ends with its HogEx).

Void blocks cannot be had from a real litecoind (the hashes are real, and
a proxy rewriting them would fail the daemon's header check), so the void
scenarios of the EVM test are not here; failed receipts do not exist on
this family.

A transaction's position in its block is the one the miner gives it: by fee
rate.  Every transaction of a block is sent with a lower fee rate than the
one before it, and the block is checked to hold exactly the pending
transactions, in that order.

Each scenario writes down, block by block, the exact events the protocol
gives and the rows of the transactions table.  At the end of a session: every
card log line is compared byte for byte with the line built from those
expectations, the log with `hashjack replay` of the blocks exported from the
node, and the daemon's SQLite database (read-only) with the ledger the
expectations imply (refunds to the Bet's key for a rejected Bet, to the named
round's key for a rejected action naming an open round, unattributed
otherwise).

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout).
"""

import argparse
import os
import struct
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import hj  # noqa: E402
import ltc  # noqa: E402
from checks import Failed, GameRunner, SessionModel, Tx, WorkDir, bj  # noqa: E402

MIN_BET = 10000
MAX_BET = 10 ** 8
CONFIRMATIONS = 2      # grinding replaces the tip block: never deal the tip
N_WALLETS = 4          # player wallets; a player is a key file and one of them
UTXOS = 40             # confirmed coins per wallet, so that sends never chain
UTXO_SATS = 3 * ltc.COIN
FEE_TOP = 400          # sat/vB of the first transaction of a block
FEE_STEP = 6           # each later one pays this much less per vB
MWEB_START = 420       # the mweb session's first dealt block (before 432)
# Bitcoin mainnet's genesis: a signature over it is worthless on this chain.
OTHER_GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"


def flip_sig(payload):
    """The payload with the last byte of its signature changed."""
    return payload[:-2] + "%02x" % (int(payload[-2:], 16) ^ 0x01)


# --------------------------------------------------------------------------
# Session: one litecoind, one daemon, the expectations

class Player:
    """A player: a key file of `hashjack player keygen` (P is its x-only key,
    the Bet's key and the log's "player") and a node wallet that pays."""

    def __init__(self, S, n):
        self.name = "p%d" % n
        self.key = os.path.join(S.keydir, self.name + ".key")
        self.P = S.tool("keygen", self.key).strip()
        if len(self.P) != 64:
            raise Failed("keygen printed %r" % self.P)
        self.wallet = S.wallets[n % len(S.wallets)]


class Blk(checks.Blk):
    """A block; hogex (txid) and hogex_idx: its HogEx, on an MWEB block."""

    def __init__(self, h, hash, card, hogex=None, hogex_idx=None):
        super().__init__(h, hash, card)
        self.hogex = hogex
        self.hogex_idx = hogex_idx


# A round of a Player (self.who; the log's "player" is its key P) that also
# tracks its seq (what the next signature covers).
Round = checks.SignedRound


class Session(checks.PlayerTool, checks.LitecoindBlocks, SessionModel):
    def __init__(self, ctx, name, mweb=False, timeout_blocks=3, extra_args=()):
        super().__init__(ctx, name)
        self.mweb = mweb
        self.timeout_cfg = timeout_blocks            # None: the default
        self.T = timeout_blocks or 12                # what the rules are
        self.keydir = os.path.join(self.workdir, "keys")
        os.makedirs(self.keydir, exist_ok=True)
        self.hashjack = ctx.hashjack
        self.nplayers = 0
        self.dm = None
        self.default_policy = not any(a.startswith("-datacarriersize") for a in extra_args)
        self.node = ltc.Litecoind(workdir=os.path.join(self.workdir, "node"), mweb=mweb,
                                  extra_args=list(extra_args))
        self.node.start()
        try:
            self._setup()
        except BaseException:
            self.close()
            raise

    def _setup(self):
        n = self.node
        mweb = self.mweb
        n.mine((MWEB_START - 4 if mweb else 130) - n.height())
        self.genesis = n.genesis()
        self.dealer = n.new_address("dealer")
        self.dealer_script = n.script_of(self.dealer)
        self.other = n.new_address(n.FUNDER)       # an address that is not the dealer's
        self.wallets = []
        amounts = {}
        for i in range(N_WALLETS):
            w = n.create_wallet("w%d" % i)
            self.wallets.append(w.name)
            for a in w.rpc_batch([("getnewaddress", ["", "bech32"])] * UTXOS):
                amounts[a] = ltc.sats_to_coin(UTXO_SATS)
        if mweb:
            self.mwebber = n.create_wallet("mwebber").name
            amounts[n.new_address(self.mwebber)] = ltc.sats_to_coin(ltc.COIN)
        n.funder_mature(UTXO_SATS * len(amounts) + ltc.COIN)
        n.wallet(n.FUNDER).rpc("sendmany", "", amounts)
        n.mine(1)
        self.first = n.height() + 1 if not mweb else MWEB_START
        if mweb and n.height() >= MWEB_START:
            raise Failed("setup went past %d" % MWEB_START)
        self.dm = ltc.daemon(self.ctx.hashjackd, n, self.dealer, MIN_BET, MAX_BET,
                             self.timeout_cfg, confirmations=CONFIRMATIONS,
                             start_height=self.first, poll_interval_ms=50,
                             workdir=os.path.join(self.workdir, "daemon"))
        self.dm.start()
        if mweb:
            # deal across the activation: 431 (the harness's funding of its
            # peg-in), 432 (the peg-in and the first HogEx), then MWEB blocks
            n.mine(ltc.MWEB_HEIGHT + 3 - n.height())
            if not n.mweb_active():
                raise Failed("MWEB not active at %d" % n.height())
        else:
            n.mine(self.first - n.height())

    # -- tools ----------------------------------------------------------------

    def bet_payload(self, player, pp=None, t3=None):
        """The Bet payload `hashjack player bet` prints (side stakes given as
        options; a stake of 0 is left out by the tool)."""
        args = ["bet", "--key", player.key]
        if pp is not None:
            args += ["--perfect-pairs", str(pp)]
        if t3 is not None:
            args += ["--21plus3", str(t3)]
        return self.tool(*args).strip()

    def player(self):
        self.nplayers += 1
        return Player(self, self.nplayers)

    # -- chain ------------------------------------------------------------

    def send(self, who, payload, value=0, extra=(), sender=None, wallet=None):
        """A transaction from who's wallet: value to the dealer (an int, or a
        list: one output each), extra outputs, then the OP_RETURN (payload
        hex; None: none).  Its fee rate puts it after every transaction sent
        before it for the same block."""
        rate = FEE_TOP - FEE_STEP * len(self.pending)
        if rate < 20:
            raise Failed("too many transactions for one block")
        txid = self.node.send_action(wallet or who.wallet, self.dealer, value, payload,
                                     extra_outputs=list(extra),
                                     fund_options={"fee_rate": rate})
        total = sum(value) if isinstance(value, (list, tuple)) else value
        t = Tx(txid, total, payload, sender)
        self.pending.append(t)
        return t

    def send_scripts(self, who, outs, sender=None):
        """A transaction whose outputs are given as raw scripts, in this
        order ([(sats, scriptPubKey hex)]): the unsigned transaction is put
        together here (createrawtransaction only writes a "data" output as
        one minimal push, last), then funded, signed and sent by who's wallet
        like send().  The value is what the outputs with the dealer's script
        pay; the payload, the data of the first OP_RETURN output."""
        rate = FEE_TOP - FEE_STEP * len(self.pending)
        raws = [struct.pack("<Q", v) + ltc.ser_varint(len(sc) // 2) + bytes.fromhex(sc)
                for v, sc in outs]
        w = self.node.wallet(who.wallet)
        funded = w.rpc("fundrawtransaction", ltc.serialize_unsigned(2, raws),
                       {"fee_rate": rate}, False)
        signed = w.rpc("signrawtransactionwithwallet", funded["hex"])
        if not signed.get("complete"):
            raise Failed("signing incomplete: %s" % signed.get("errors"))
        got = [(o["value"], o["script"]) for o in ltc.parse_tx(signed["hex"])["vout"]]
        it = iter(got)
        if not all(any(g == x for g in it) for x in outs):
            raise Failed("funded outputs %s do not hold %s in order" % (got, outs))
        txid = self.node.send_raw(signed["hex"])
        value = sum(v for v, sc in outs if sc == self.dealer_script)
        data = next((sc for v, sc in outs if sc.startswith("6a")), None)
        t = Tx(txid, value, data, sender)
        self.pending.append(t)
        return t

    def foreign(self, txid):
        """A transaction sent by other means that the next block must hold
        (after the ones sent before it)."""
        t = Tx(txid, 0, None)
        self.pending.append(t)
        return t

    def send_bet(self, who, value, payload=None):
        """A Bet transaction (not necessarily accepted); its sender is P when
        the payload is a well-formed Bet."""
        payload = payload or self.bet_payload(who)
        return self.send(who, payload, value, sender=who.P)

    def bet(self, who, stake, payload=None):
        t = self.send_bet(who, stake, payload)
        total = sum(stake) if isinstance(stake, (list, tuple)) else stake
        return Round(self, who, t, total)

    def _mined(self, b):
        h = b["height"]
        got = ltc.Litecoind.block_txids(b)
        want = [t.txid for t in self.pending]
        if got != want:
            raise Failed("block %d holds %s, expected %s (in this order)" % (h, got, want))
        ids = [t if isinstance(t, str) else t["txid"] for t in b["tx"]]
        for t in self.pending:
            t.h, t.idx = h, ids.index(t.txid)
        self.pending = []
        hogex = ids[-1] if "mweb" in b else None
        return Blk(h, b["hash"], hj.card_of(b["hash"]), hogex,
                   len(ids) - 1 if hogex else None)

    def mine(self, want=None):
        """The next block with every pending transaction, in order; with
        want, ground until its card matches (hj.card_matcher)."""
        if want is None:
            [h] = self.node.mine(1)
            b = self.node.block(h, 1)
        else:
            b, _ = self.node.grind(want)
        return self._mined(b)

    # -- expectations (the family's own; the rest is SessionModel's) ---------

    def dep(self, t, h=None, idx=None):
        self.add(t.h if h is None else h,
                 {"type": "deposit", "tx": t.txid, "txIndex": t.idx if idx is None else idx,
                  "value": str(t.value)})
        self.txrow(t, "deposit", None, None, None)

    # -- the end ------------------------------------------------------------

    def export(self, first, last):
        return self.node.export(first, last, self.dealer, MIN_BET, MAX_BET, self.timeout_cfg)

    def close(self):
        try:
            if self.dm is not None and self.dm.running():
                self.dm.stop()
        finally:
            self.node.stop()


def deal(S, r, up, first, second):
    """Mines the Bet's block and the three cards of the deal."""
    S.mine()
    r.accepted_bet()
    r.draw(S.mine(first), 0)
    r.draw(S.mine(up), "D")
    b = S.mine(second)
    r.draw(b, 0)
    return b


# --------------------------------------------------------------------------
# Scenarios.  Each returns a one-line summary.  X = the Bet's block, W = the
# opening of an action window (docs/PROTOCOL.md).  A signed action is signed
# at the seq the round will have when the action is looked at.

def sc_win_stand(S):
    """10+9 = 19 against 7; in the window a Split of a non-pair (not_allowed,
    refunded to P), a Stand payload with one byte too many paying the dealer
    (too_long: no round can be read from it, refund unattributed) and a
    Stand that pays another address but nothing to the dealer (stake 0,
    accepted); the dealer draws K: 17 stands: Win.  The Bet writes its
    perfect-pairs stake as 0 (44 bytes: accepted)."""
    p = S.player()
    s = 1000001
    r = S.bet(p, s, ltc.bet_payload(p.P, pp=0))
    deal(S, r, "7", "10", "9")
    sp = r.send("Split", s)
    bad = S.send(p, r.sign("Stand") + "ff", 9000)
    st = r.send("Stand", extra=[(S.other, 5000)])
    S.mine()
    S.rej(sp, "not_allowed", "Split", r)
    S.rej(bad, "too_long", "Stand")
    r.act(st, "Stand", 0)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "19 vs 7+K: Win %d" % (2 * s)


def sc_lose_dealer_play(S):
    """10+7 = 17 against 2; Stand at W, then in the same block a Hit signed
    at seq 1 (not_allowed: the dealer is playing); the dealer draws 9, a Hit
    paying 3000 in that block is not_allowed and refunded to P, then 8: 19.
    Lose.  Bet with both side stakes written as 0 (52 bytes)."""
    p = S.player()
    s = 1000002
    r = S.bet(p, s, ltc.bet_payload(p.P, pp=0, t3=0))
    deal(S, r, "2", "10", "7")
    st = r.send("Stand")
    h1 = r.send("Hit", seq=1)
    S.mine()
    r.act(st, "Stand", 0)
    S.rej(h1, "not_allowed", "Hit", r)
    h2 = r.send("Hit", 3000)
    b = S.mine("9"); r.draw(b, "D")
    S.rej(h2, "not_allowed", "Hit", r)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "17 vs 2+9+8 = 19: Lose"


def sc_push_min_bet_second_bet(S):
    """Bet of exactly min_bet; a second Bet by the same key while it is open
    (with a side stake and a value below min_bet: second_round is checked
    first; the rejection names the open round, from P, refund to P); 10+8
    against 8, Stand, dealer 10: Push, stake back."""
    p = S.player()
    s = MIN_BET
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    again = S.send_bet(p, MIN_BET - 1, S.bet_payload(p, pp=5))
    b = S.mine("10"); r.draw(b, 0)
    S.rej(again, "second_round", "Bet", r)
    r.draw(S.mine("8"), "D")
    r.draw(S.mine("8"), 0)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "18 vs 18: Push %d" % s


def sc_bust_premature(S):
    """A Hit paying 5000 in the block of the second card: premature (its
    signature is good), refunded to P; at W a Hit paying 3000 (wrong_value),
    then a Hit; a second Hit in the same block, signed at seq 1, is premature
    (one action per window); 16 + 9 busts: settled in that block, the dealer
    (Q up) never draws."""
    p = S.player()
    s = 1000004
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("Q"), "D")
    early = r.send("Hit", 5000)
    b = S.mine("6"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    wv = r.send("Hit", 3000)
    hit = r.send("Hit")
    twice = r.send("Hit", seq=1)
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
    s = 1000005
    r = S.bet(p, s)
    deal(S, r, "6", "5", "6")
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 0)
    r.draw(S.mine("10"), 0)
    st = r.send("Stand")
    b = S.mine("10"); r.draw(b, "D")
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "21 by a Hit vs 6+10+K bust: Win"


def sc_h17(S):
    """Dealer H17: 10+7 against 6; Stand; the dealer draws A: soft 17, must
    hit; 2: soft 19, stands.  17 vs 19: Lose."""
    p = S.player()
    s = 1000006
    r = S.bet(p, s)
    deal(S, r, "6", "10", "7")
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("A"), "D")
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "dealer 6+A (soft 17) hits, 2: 19 beats 17"


def sc_bj_vs_5_then_bet_and_surrender_vs_9(S):
    """Player blackjack (A, K) against 5 with an odd stake: settles at X+3,
    s + floor(6s/5).  In that block (after the draw settled the round) a
    Stand paying nothing names the closed round: not the dealer's business,
    no event; the same Stand paying 3000 is no_round (no round in the
    rejection, refund unattributed); a new Bet by the same key is accepted.
    The new round: 10+6 against 9, late Surrender at its W: settles at
    once, floor(stake/2) of an odd stake."""
    p = S.player()
    s = 100007
    r = S.bet(p, s)
    S.mine(); r.accepted_bet()
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("5"), "D")
    r.send("Stand")
    st = r.send("Stand", 3000)
    s2 = 1000007
    r2 = S.bet(p, s2)
    b = S.mine("K"); r.draw(b, 0)
    r.settle(b, [("Blackjack", bj(s))])
    S.rej(st, "no_round", "Stand")
    r2.accepted_bet()
    r2.draw(S.mine("10"), 0)
    r2.draw(S.mine("9"), "D")
    r2.draw(S.mine("6"), 0)
    su = r2.send("Surrender")
    b = S.mine(); r2.act(su, "Surrender", 0)
    r2.settle(b, [("Surrender", s2 // 2)])
    return "BJ vs 5: %d -> %d; then 16 vs 9 Surrender: %d" % (s, bj(s), s2 // 2)


def sc_bj_vs_2(S):
    """Blackjack J, A against 2: settles at X+3, stake + floor(6s/5)."""
    p = S.player()
    s = 1000003
    r = S.bet(p, s)
    b = deal(S, r, "2", "J", "A")
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
    st = r.send("Stand")
    b = S.mine("Q"); r.draw(b, 0)
    S.rej(st, "not_allowed", "Stand", r)
    b = S.mine("7"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs K+7: %d" % bj(s)


def sc_bj_vs_ten_push(S):
    """Blackjack (10, A) against J; X+4 gives the dealer an A: dealer
    blackjack, Push.  A Hit paying nothing in X+4 names the settled round:
    no event at all (on EVM: no_round)."""
    p = S.player()
    s = 1000009
    r = S.bet(p, s)
    deal(S, r, "J", "10", "A")
    r.send("Hit")
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "BJ vs J+A: Push"


def sc_bj_vs_ace_even_money(S):
    """Blackjack against an Ace: at W a Stand is not_allowed (Peek due), a
    Peek with insurance paying floor(bet/2)+1 and a Peek without insurance
    paying 3000 are wrong_value, then Peek with insurance (floor(100001/2) =
    50000); the dealer's Q is blackjack: Push 100001 + insurance 150000."""
    p = S.player()
    s = 100001
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "A", "A", "K")
    st = r.send("Stand")
    w1 = r.send("Peek", i + 1, insurance=True)
    w2 = r.send("Peek", 3000, insurance=False)
    pk = r.send("Peek", i, insurance=True)
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
    s = 1000011
    r = S.bet(p, s)
    deal(S, r, "A", "Q", "A")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    b = S.mine("4"); r.draw(b, "D")
    r.settle(b, [("Blackjack", bj(s))])
    return "BJ vs A+4: %d" % bj(s)


def sc_bj_vs_ace_insured_no_dbj(S):
    """Blackjack against an Ace, insured, dealer 9: no blackjack, insurance
    lost (payout 0), the blackjack paid 6:5."""
    p = S.player()
    s = 1000013
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "A", "K", "A")
    pk = r.send("Peek", i, insurance=True)
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
    early = r.send("Peek", i, insurance=True)
    b = S.mine("9"); r.draw(b, 0)
    S.rej(early, "premature", "Peek", r)
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)], ins_payout=3 * i)
    return "insurance %d returns %d" % (i, 3 * i)


def sc_peek_dbj(S):
    """17 against an Ace, Peek without insurance, 10: dealer blackjack,
    Lose at Peek+1, no insurance in the settlement."""
    p = S.player()
    s = 1000015
    r = S.bet(p, s)
    deal(S, r, "A", "9", "8")
    pk = r.send("Peek", insurance=False)
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
    s = 1000017
    i = s // 2
    r = S.bet(p, s)
    deal(S, r, "A", "10", "9")
    pk = r.send("Peek", i, insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    early = r.send("Stand")
    b = S.mine("7"); r.draw(b, "D")
    S.rej(early, "premature", "Stand", r)
    st = r.send("Stand")
    b = S.mine(); r.act(st, "Stand", 0)
    r.settle(b, [("Win", 2 * s)], ins_payout=0)
    return "19 vs A+7 (no draw): Win, insurance lost"


def sc_peek_h17_ace(S):
    """8+4 against an Ace, Peek without insurance, 4: A+4 soft 15; at W a
    Peek is not_allowed (none due), then Stand; dealer 2: soft 17, hits
    (H17); 8: hard 15, hits; J: bust.  Win."""
    p = S.player()
    s = 1000019
    r = S.bet(p, s)
    deal(S, r, "A", "8", "4")
    pk = r.send("Peek", insurance=False)
    S.mine(); r.act(pk, "Peek", insurance=False)
    r.draw(S.mine("4"), "D")
    pk2 = r.send("Peek", insurance=False)
    st = r.send("Stand")
    S.mine()
    S.rej(pk2, "not_allowed", "Peek", r)
    r.act(st, "Stand", 0)
    r.draw(S.mine("2"), "D")
    r.draw(S.mine("8"), "D")
    b = S.mine("J"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "12 vs A+4+2+8+J (bust): Win"


def sc_double_9(S):
    """Hard 9 (5+4) against 6: a Double paying stake-1 is wrong_value, then
    a Double whose stake is split over two outputs to the dealer (accepted:
    the value is their sum); 10 makes 19; dealer 10 (16) and K: bust.  Win
    2 x 2s."""
    p = S.player()
    s = 1000021
    r = S.bet(p, s)
    deal(S, r, "6", "5", "4")
    wv = r.send("Double", s - 1)
    db = r.send("Double", [s // 2, s - s // 2])
    S.mine()
    S.rej(wv, "wrong_value", "Double", r)
    r.act(db, "Double", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 4 * s)])
    return "doubled 9 (two outputs) -> 19 vs bust: %d" % (4 * s)


def sc_double_10(S):
    """Hard 10 (6+4) against 9, Double, 2: 12; dealer 8: 17.  Lose both
    stakes."""
    p = S.player()
    s = 1000023
    r = S.bet(p, s)
    deal(S, r, "9", "6", "4")
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("2"), 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "doubled 10 -> 12 vs 17: Lose 2s"


def sc_double_11(S):
    """Hard 11 (7+4) against 5, Double, K: 21; dealer 10 (15) and 2: 17.
    Win 4s."""
    p = S.player()
    s = 1000025
    r = S.bet(p, s)
    deal(S, r, "5", "7", "4")
    db = r.send("Double", s)
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
    s = 1000027
    r = S.bet(p, s)
    deal(S, r, "7", "A", "8")
    db = r.send("Double", s)
    st = r.send("Stand")
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
    s = 1000029
    r = S.bet(p, s)
    deal(S, r, "9", "2", "3")
    d1 = r.send("Double", s)
    hit = r.send("Hit")
    S.mine()
    S.rej(d1, "not_allowed", "Double", r)
    r.act(hit, "Hit", 0)
    r.draw(S.mine("5"), 0)
    d2 = r.send("Double", s)
    su = r.send("Surrender")
    st = r.send("Stand")
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
    s = 1000031
    r = S.bet(p, s)
    deal(S, r, "K", "6", "4")
    db = r.send("Double", s)
    S.mine(); r.act(db, "Double", 0)
    r.draw(S.mine("8"), 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", s)])
    return "doubled vs K+A: loses only %d" % s


def sc_split_order(S):
    """8,8 against 6: a Split paying s+1 over two outputs is wrong_value
    (the sum refunded), then a Split over two outputs summing s; Y+1
    completes hand 0 (10: 18), Y+2 hand 1 (3: 11); a Hit at Y+1 is
    premature.  Hand 1 plays first: Double (no double after split),
    Surrender (split hand) not_allowed; Hit 5, Hit K: bust.  Hand 0: Stand.
    The dealer: 10 (16), 9: bust.  Hand 0 Win, hand 1 Bust."""
    p = S.player()
    s = 1000033
    r = S.bet(p, s)
    deal(S, r, "6", "8", "8")
    wv = r.send("Split", [s // 2, s - s // 2 + 1])
    sp = r.send("Split", [s // 2, s - s // 2])
    S.mine()
    S.rej(wv, "wrong_value", "Split", r)
    r.act(sp, "Split", 0)
    early = r.send("Hit")
    b = S.mine("10"); r.draw(b, 0)
    S.rej(early, "premature", "Hit", r)
    r.draw(S.mine("3"), 1)
    db = r.send("Double", s)
    su = r.send("Surrender")
    hit = r.send("Hit")
    S.mine()
    S.rej(db, "not_allowed", "Double", r)
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(hit, "Hit", 1)
    r.draw(S.mine("5"), 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = r.send("Stand")
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
    s = 1000035
    r = S.bet(p, s)
    deal(S, r, "9", "10", "J")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("A"), 0)
    r.draw(S.mine("Q"), 1)
    sp2 = r.send("Split", s)
    st = r.send("Stand")
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
    s = 1000037
    r = S.bet(p, s)
    deal(S, r, "5", "A", "A")
    sp = r.send("Split", s)
    st = r.send("Stand")
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
    s = 1000039
    r = S.bet(p, s)
    deal(S, r, "Q", "9", "9")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("5"), 1)
    hit = r.send("Hit")
    S.mine(); r.act(hit, "Hit", 1)
    r.draw(S.mine("K"), 1)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0), ("DealerBlackjack", s)])
    return "split vs Q+A: loses only %d" % s


def sc_stand_dealer_bj(S):
    """10+8 against J, Stand; the dealer's second card A: late dealer
    blackjack, DealerBlackjack with return s - s = 0 (no return owed)."""
    p = S.player()
    s = 1000041
    r = S.bet(p, s)
    deal(S, r, "J", "10", "8")
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("DealerBlackjack", 0)])
    return "18 vs J+A: DealerBlackjack, 0"


def sc_surrender_vs_ten(S):
    """10+6 against K, Surrender; a Stand after it in the same block (seq
    1) is not_allowed (the dealer's second card is due); Y+1 7: no
    blackjack, Surrender floor(s/2)."""
    p = S.player()
    s = 1000043
    r = S.bet(p, s)
    deal(S, r, "K", "10", "6")
    su = r.send("Surrender")
    st = r.send("Stand", seq=1)
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
    s = 1000045
    r = S.bet(p, s)
    deal(S, r, "10", "10", "5")
    su = r.send("Surrender")
    S.mine(); r.act(su, "Surrender", 0)
    b = S.mine("A"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "vs 10+A: Lose"


def sc_surrender_vs_ace(S):
    """10+6 against an Ace: Surrender before the Peek is not_allowed; Peek
    (no insurance), 5: no blackjack; Surrender at Peek+2 settles at once:
    floor(s/2)."""
    p = S.player()
    s = 1000047
    r = S.bet(p, s)
    deal(S, r, "A", "10", "6")
    su = r.send("Surrender")
    pk = r.send("Peek", insurance=False)
    S.mine()
    S.rej(su, "not_allowed", "Surrender", r)
    r.act(pk, "Peek", insurance=False)
    r.draw(S.mine("5"), "D")
    su = r.send("Surrender")
    b = S.mine(); r.act(su, "Surrender", 0)
    r.settle(b, [("Surrender", s // 2)])
    return "after Peek (A+5): %d back" % (s // 2)


def sc_timeout_stand_last_block(S):
    """Two players bet in one block (same cards: 10, 7 up, 9).  B stands in
    the last block of the window (W+timeout): accepted; A says nothing: the
    default Stand is applied at the end of that block.  Both dealers draw 10
    at the next block: 17, both Win, in opening order."""
    pa, pb = S.player(), S.player()
    s = 1000049
    ra = S.bet(pa, s)
    rb = S.bet(pb, s + 2)
    S.mine(); ra.accepted_bet(); rb.accepted_bet()
    for want, hand in (("10", 0), ("7", "D"), ("9", 0)):
        b = S.mine(want)
        ra.draw(b, hand)
        rb.draw(b, hand)
    w = b.h + 1
    S.mine_n(S.T)
    st = rb.send("Stand")
    b = S.mine()
    if b.h != w + S.T:
        raise Failed("window arithmetic: %d != %d" % (b.h, w + S.T))
    rb.act(st, "Stand", 0)
    ra.timeout(b, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Win", 2 * s)])
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * (s + 2))])
    return "timeout Stand at W+%d, action at W+%d accepted" % (S.T, S.T)


def sc_timeout_peek_then_stand_h17(S):
    """10+9 against an Ace, no action: default Peek at W+timeout (it counts
    as an action: seq 1); 6: A+6 soft 17, no blackjack; a Stand signed at
    seq 0, as if the timeout had not counted, is bad_signature; default
    Stand timeout_blocks after the new window; the dealer hits its soft 17:
    10, hard 17.  Win."""
    p = S.player()
    s = 1000053
    r = S.bet(p, s)
    deal(S, r, "A", "10", "9")
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Peek")
    r.draw(S.mine("6"), "D")
    stale = r.send("Stand", seq=0)
    b = S.mine()
    S.rej(stale, "bad_signature", "Stand", r)
    S.mine_n(S.T - 1)
    b = S.mine(); r.timeout(b, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "default Peek, stale seq refused, default Stand, dealer A+6+10"


def sc_timeout_peek_dbj(S):
    """9+9 against an Ace, no action: default Peek; K: dealer blackjack,
    Lose."""
    p = S.player()
    s = 1000055
    r = S.bet(p, s)
    deal(S, r, "A", "9", "9")
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Peek")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Lose", 0)])
    return "default Peek finds A+K"


def sc_timeout_split_hands(S):
    """7,7 against 5, Split (seq 0); hand 0 gets 10 (17), hand 1 gets 2 (9);
    hand 1 is stood by timeout (seq 1); hand 0 gets its own window from the
    next block: a Stand signed at seq 1 is bad_signature (the timeout
    counted), and the window times out too; dealer 10 (15), 10: bust.  Both
    Win."""
    p = S.player()
    s = 1000057
    r = S.bet(p, s)
    deal(S, r, "5", "7", "7")
    sp = r.send("Split", s)
    S.mine(); r.act(sp, "Split", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("2"), 1)
    S.mine_n(S.T)
    b = S.mine(); r.timeout(b, "Stand", 1)
    stale = r.send("Stand", seq=1)
    b = S.mine()
    S.rej(stale, "bad_signature", "Stand", r)
    S.mine_n(S.T - 1)
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
    sa, sb, sc = 1000059, 1000061, 1000063
    ra, rb, rc = S.bet(pa, sa), S.bet(pb, sb), S.bet(pc, sc)
    S.mine()
    for r in (ra, rb, rc):
        r.accepted_bet()
    for want, hand in (("10", 0), ("6", "D"), ("6", 0)):
        b = S.mine(want)
        for r in (ra, rb, rc):
            r.draw(b, hand)
    st, hit, su = ra.send("Stand"), rb.send("Hit"), rc.send("Surrender")
    S.mine()
    ra.act(st, "Stand", 0)
    rb.act(hit, "Hit", 0)
    rc.act(su, "Surrender", 0)
    rc.settle(S.at(su), [("Surrender", sc // 2)])
    b = S.mine("5")
    ra.draw(b, "D")
    rb.draw(b, 0)
    s2 = 1000065
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
    su2 = ra2.send("Surrender")
    b = S.mine(); ra2.act(su2, "Surrender", 0)
    ra2.settle(b, [("Surrender", s2 // 2)])
    return "3 rounds sharing cards; a new Bet in the settling block"


def sc_signatures(S):
    """P's round, 5+6 = 11 against 6, Q with a round of its own.  In the
    block of P's second card, a Double signed by Q's key for P's round:
    bad_signature (checked before premature), refunded to P's key.  At W:
    a Double with one signature byte flipped, one signed over Bitcoin's
    genesis, one signed at seq 1 (future), a Hit signed by Q: all
    bad_signature (refunds to P); a Hit whose signature lost its last byte
    (75 bytes) paying 4000: bad_length, no round can be read, unattributed;
    then the Double, valid.  Next block (its card): the accepted Double's
    payload sent again (stale seq): bad_signature, refunded to P; Q's own
    Stand (valid) in the same block.  P: 11 + 9 = 20; dealer 10 (16), 5:
    21.  Lose 2s.  After the settlement the Double payload once more,
    paying s: no_round, unattributed; paying nothing: no event."""
    p, q = S.player(), S.player()
    s = 1000069
    sq = 200001
    r = S.bet(p, s)
    rq = S.bet(q, sq)
    S.mine(); r.accepted_bet(); rq.accepted_bet()
    b = S.mine("5"); r.draw(b, 0); rq.draw(b, 0)
    b = S.mine("6"); r.draw(b, "D"); rq.draw(b, "D")
    foreign_early = r.send("Double", s, signer=q)
    b = S.mine("6"); r.draw(b, 0); rq.draw(b, 0)
    S.rej(foreign_early, "bad_signature", "Double", r)
    flipped = r.send("Double", s, mutate=flip_sig)
    other_chain = r.send("Double", s, genesis=OTHER_GENESIS)
    future = r.send("Double", s, seq=1)
    foreign = r.send("Hit", signer=q)
    cut = S.send(p, r.sign("Hit")[:-2], 4000)
    db = r.send("Double", s)
    S.mine()
    for t in (flipped, other_chain, future):
        S.rej(t, "bad_signature", "Double", r)
    S.rej(foreign, "bad_signature", "Hit", r)
    S.rej(cut, "bad_length", "Hit")
    r.act(db, "Double", 0)
    again = S.send(p, db.payload, s)
    st = rq.send("Stand")
    b = S.mine("9"); r.draw(b, 0)
    S.rej(again, "bad_signature", "Double", r)
    rq.act(st, "Stand", 0)
    b = S.mine("10"); r.draw(b, "D"); rq.draw(b, "D")
    b = S.mine("5")
    r.draw(b, "D"); r.settle(b, [("Lose", 0)])
    rq.draw(b, "D"); rq.settle(b, [("Lose", 0)])
    late = S.send(p, db.payload, s)
    S.send(p, db.payload, 0)
    S.mine()
    S.rej(late, "no_round", "Double")
    return "7 bad signatures refunded to P, a cut one unattributed"


def sc_value_split(S):
    """A Bet paying its stake in three outputs to the dealer; 5+4 against an
    Ace; Peek with insurance paid in two outputs (floor(s/2)); dealer 6: A+6
    soft 17, no blackjack; a Hit whose two outputs pay 3000 + 3000
    (wrong_value, the sum refunded); Double paid in two outputs plus one to
    another address (which is not value); 10: 19; the dealer hits soft 17:
    2, 19.  Push of the doubled hand, insurance lost."""
    p = S.player()
    s = 300001
    i = s // 2
    parts = [100000, 100000, s - 200000]
    r = S.bet(p, parts)
    deal(S, r, "A", "5", "4")
    pk = r.send("Peek", [i // 2, i - i // 2], insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    r.draw(S.mine("6"), "D")
    wv = r.send("Hit", [3000, 3000])
    db = r.send("Double", [s - 150000, 150000], extra=[(S.other, 7000)])
    S.mine()
    S.rej(wv, "wrong_value", "Hit", r)
    r.act(db, "Double", 0)
    r.draw(S.mine("10"), 0)
    b = S.mine("2"); r.draw(b, "D")
    r.settle(b, [("Push", 2 * s)], ins_payout=0)
    return "Bet in 3 outputs, insurance and Double in 2: Push %d" % (2 * s)


def sc_op_return_forms(S):
    """The forms of OP_RETURN the protocol reads (one push of the whole
    payload, minimal or not) and one it does not.  A Bet pushed with
    OP_PUSHDATA1 although 36 bytes need no more than a direct push, its
    OP_RETURN before the dealer's output: accepted.  A Bet payload in two
    pushes (48 4a | the rest) paying the dealer: no data output begins with
    the magic, so a deposit.  10+8 against 9; a Stand pushed with
    OP_PUSHDATA2 (an 80-byte script, the most the relay policy allows):
    accepted; dealer 9+8 = 17: Win."""
    p, q = S.player(), S.player()
    s = 500001
    bet = S.bet_payload(p)
    t = S.send_scripts(p, [(0, "6a4c24" + bet), (s, S.dealer_script)], sender=p.P)
    r = Round(S, p, t, s)
    qb = S.bet_payload(q)
    two = S.send_scripts(q, [(30000, S.dealer_script), (0, "6a02" + qb[:4] + "22" + qb[4:])])
    two.payload = None
    deal(S, r, "9", "10", "8")
    S.dep(two)
    st = r.sign("Stand")
    st = S.send_scripts(p, [(0, "6a4d4c00" + st)])
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "PUSHDATA1 Bet, PUSHDATA2 Stand accepted; a two-push Bet is a deposit"


def sc_malformed(S):
    """Every malformed Bitcoin payload, each paying the dealer its own value
    (refunded, unattributed: no key can be read from it; no round), from a
    player without a round, in one block: truncated (2 and 3 bytes),
    bad_version, unknown_action (00, 08), bad_length (the EVM Bet and Hit, a
    35- and a 40-byte Bet, a 75-byte Hit, the 5-byte Peek, a 76-byte Peek),
    too_long (53-byte Bet, 77-byte Hit, 78-byte Peek, 80 bytes: the most
    the default relay policy carries), bad_field (Peek flag 02).  The same
    kind of payloads paying the dealer nothing are nobody's business: no
    event."""
    p = S.player()
    P = p.P
    sig = "11" * 8 + "22" * 64
    cases = [("484a", "truncated", None), ("484a01", "truncated", None),
             ("484a0201" + P, "bad_version", None), ("484a0100" + sig, "unknown_action", None),
             ("484a0108" + sig, "unknown_action", None),
             ("484a0101", "bad_length", "Bet"), ("484a0102", "bad_length", "Hit"),
             ("484a0101" + P[:-2], "bad_length", "Bet"),
             ("484a0101" + P + "00" * 4, "bad_length", "Bet"),
             ("484a0102" + sig[:-2], "bad_length", "Hit"),
             ("484a010700", "bad_length", "Peek"), ("484a010700" + sig[:-2], "bad_length", "Peek"),
             ("484a0101" + P + "00" * 17, "too_long", "Bet"),
             ("484a0102" + sig + "00", "too_long", "Hit"),
             ("484a010700" + sig + "00", "too_long", "Peek"),
             ("484a0103" + sig + "00" * 4, "too_long", "Stand"),
             ("484a010702" + sig, "bad_field", "Peek")]
    for data, _, _ in cases:
        if len(data) // 2 > 80:
            raise Failed("case of %d bytes" % (len(data) // 2))
    txs = [(S.send(p, data, 3100 + k), why, act) for k, (data, why, act) in enumerate(cases)]
    for data in ("484a", "484a0201" + P, "484a0101" + P[:-2], "484a010702" + sig):
        S.send(p, data, 0)
    S.mine()
    for t, why, act in txs:
        S.rej(t, why, act)
    return "%d payloads rejected, 4 more paying nothing ignored" % len(cases)


def sc_bet_rejections(S):
    """Bets rejected without a round, refunded to their key P ("from"):
    below min_bet, above max_bet, a perfect-pairs side stake, a 21+3 side
    stake with a value also out of limits (side bets are checked first); a
    Bet paying the dealer nothing: not the dealer's business (no event);
    actions naming no round of the dealer: paying 7000, no_round
    (unattributed); paying nothing, no event."""
    p1, p2, p3 = S.player(), S.player(), S.player()
    nobody = "ab" * 32
    t = [S.send_bet(p1, MIN_BET - 1), S.send_bet(p1, MAX_BET + 1),
         S.send_bet(p2, 5000, S.bet_payload(p2, pp=1000)),
         S.send_bet(p2, 9999, ltc.bet_payload(p2.P, pp=0, t3=1)),
         S.send(p3, S.sign(p3, "Hit", nobody, 0), 7000)]
    S.send(p3, S.bet_payload(p3), 0)
    S.send(p3, S.sign(p3, "Peek", nobody, 0, insurance=True), 0)
    S.mine()
    S.rej(t[0], "bet_out_of_limits", "Bet")
    S.rej(t[1], "bet_out_of_limits", "Bet")
    S.rej(t[2], "side_bets_not_offered", "Bet")
    S.rej(t[3], "side_bets_not_offered", "Bet")
    S.rej(t[4], "no_round", "Hit")
    return "limits, side bets, no_round; a stakeless Bet and a foreign Peek ignored"


def sc_deposits(S):
    """Payments to the dealer without the magic are deposits (logged, kept,
    not refunded): a plain payment, one split over two outputs (the sum),
    one with an OP_RETURN of other data ("4849..."), one whose OP_RETURN is
    the single byte 48; a transaction with such an OP_RETURN paying the
    dealer nothing is not seen at all.  In the same block a Bet: the
    deposits around it change nothing."""
    p, q = S.player(), S.player()
    d1 = S.send(p, None, 5000)
    d2 = S.send(p, None, [3000, 4000])
    r = S.bet(q, 200003)
    d3 = S.send(p, "4849" + "00" * 40, 6000)
    d4 = S.send(p, "48", 3500)
    S.send(p, "4849deadbeef", 0)
    S.mine()
    for d in (d1, d2):
        S.dep(d)
    r.accepted_bet()
    for d in (d3, d4):
        S.dep(d)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("5"), "D")
    r.draw(S.mine("10"), 0)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("8"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * 200003)])
    return "4 deposits, 1 foreign OP_RETURN; 20 vs 5+10+8 bust: Win"


def sc_oversize(S):
    """OP_RETURN data longer than any payload.  Under the default relay
    policy (main session) a magic payload of 81 bytes paying the dealer is
    refused by the node's mempool ("scriptpubkey"): it can only come from a
    miner.  With -datacarriersize=400 (mweb session) the node mines 81-,
    255- (OP_PUSHDATA1) and 300-byte (OP_PUSHDATA2) payloads: each too_long,
    refunded unattributed."""
    p = S.player()
    sig = "33" * 8 + "44" * 64
    big = [("484a0102" + sig + "00" * 5, "Hit"),
           ("484a010700" + sig + "00" * 178, "Peek"),
           ("484a0103" + sig + "00" * 224, "Stand")]
    if S.default_policy:
        try:
            S.node.send_action(p.wallet, S.dealer, 4000, big[0][0])
        except hj.RpcError as e:
            if e.error.get("code") != -26 or "scriptpubkey" not in e.error.get("message", ""):
                raise Failed("the node refused 81 bytes otherwise: %s" % e)
            return "the default policy refuses 81 bytes of OP_RETURN data: %s" % e.error["message"]
        raise Failed("the node relayed 81 bytes of OP_RETURN data under its default policy")
    txs = [(S.send(p, data, 4000 + k), act) for k, (data, act) in enumerate(big)]
    S.mine()
    for t, act in txs:
        S.rej(t, "too_long", act)
    return "payloads of %s bytes mined and rejected" % [len(d) // 2 for d, _ in big]


def sc_mweb_pegout(S):
    """MWEB: a wallet pegs its coins into MWEB (a canonical transaction
    paying an MWEB address: nothing for the dealer), then pays the dealer
    twice from MWEB.  Peg-outs are outputs of the block's HogEx, its last
    transaction: one deposit of the sum, under the HogEx's txid, after the
    Bet sent in the same block (not refunded: the dealer cannot tell who
    paid)."""
    if not S.mweb:
        raise Failed("needs the mweb session")
    n = S.node
    w = n.wallet(S.mwebber)
    pegin = w.rpc("sendtoaddress", w.new_address("mweb"), ltc.sats_to_coin(w.balance()),
                  "", "", True)
    S.foreign(pegin)
    S.mine()
    p = S.player()
    s = 400001
    r = S.bet(p, s)
    outs = [w.rpc("sendtoaddress", S.dealer, ltc.sats_to_coin(v)) for v in (30000, 45000)]
    b = S.mine()
    if not b.hogex:
        raise Failed("block %d has no HogEx" % b.h)
    if any(o in ltc.Litecoind.block_txids(n.block(b.h, 1)) for o in outs):
        raise Failed("a peg-out is a canonical transaction")
    r.accepted_bet()
    hog = Tx(b.hogex, 75000, None)
    hog.h, hog.idx = b.h, b.hogex_idx
    raw = ltc.parse_tx(n.raw_tx(b.hogex, n.block_hash(b.h)))
    paid = [o["value"] for o in raw["vout"] if o["script"] == S.dealer_script]
    if sorted(paid) != [30000, 45000]:
        raise Failed("the HogEx pays the dealer %s" % paid)
    S.dep(hog)
    r.draw(S.mine("9"), 0)
    r.draw(S.mine("9"), "D")
    r.draw(S.mine("9"), 0)
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    b = S.mine("9"); r.draw(b, "D")
    r.settle(b, [("Push", s)])
    return "HogEx %s pays 30000 + 45000 (txIndex %d)" % (hog.txid[:16], hog.idx)


MAIN = [sc_win_stand, sc_lose_dealer_play, sc_push_min_bet_second_bet, sc_bust_premature,
        sc_hit_to_21_dealer_busts, sc_h17, sc_bj_vs_5_then_bet_and_surrender_vs_9,
        sc_bj_vs_2, sc_bj_vs_ten_win, sc_bj_vs_ten_push, sc_bj_vs_ace_even_money,
        sc_bj_vs_ace_no_dbj, sc_bj_vs_ace_insured_no_dbj, sc_peek_insured_dbj, sc_peek_dbj,
        sc_peek_insured_no_dbj_dealer_stands, sc_peek_h17_ace, sc_double_9, sc_double_10,
        sc_double_11, sc_double_soft_not_allowed, sc_double_hit_surrender_not_allowed,
        sc_double_dealer_bj, sc_split_order, sc_split_by_value, sc_split_aces_not_allowed,
        sc_split_dealer_bj, sc_stand_dealer_bj, sc_surrender_vs_ten, sc_surrender_vs_ten_dbj,
        sc_surrender_vs_ace, sc_timeout_stand_last_block, sc_timeout_peek_then_stand_h17,
        sc_timeout_peek_dbj, sc_timeout_split_hands, sc_players_same_blocks, sc_signatures,
        sc_value_split, sc_op_return_forms, sc_malformed, sc_bet_rejections, sc_deposits,
        sc_oversize]

MWEB = [sc_mweb_pegout] + MAIN


# --------------------------------------------------------------------------
# Running and checking (checks.GameRunner; what is the Bitcoin family's own)

class Runner(GameRunner):
    CHAIN = "bitcoin"
    CONFIRMATIONS = CONFIRMATIONS

    def session(self, name, scenarios, **kw):
        sel = self.select(scenarios)
        if not sel:
            return
        t0 = time.monotonic()
        try:
            S = Session(self, name, **kw)
        except Exception as e:  # noqa: BLE001 - report, go on with the next session
            traceback.print_exc()
            self.report(False, "%s: node and daemon up" % name,
                        "%s: %s" % (type(e).__name__, e), t0)
            return
        try:
            self.report(True, "%s: node and daemon up" % name,
                        "height %d, dealing from %d, MWEB %s" % (
                            S.height(), S.first, "active" if S.node.mweb_active() else "off"),
                        t0)
            self.finish(S, self.play(S, sel))
        finally:
            S.close()

    def scenario_detail(self, detail, h0, h1, took):
        return "%s (%s, %.1fs)" % (detail, "blocks %d..%d" % (h0, h1)
                                   if h1 >= h0 else "no block", took)

    def check_chain(self, S, doc, got_line, last):
        if S.mweb:
            mw = [b["height"] for b in doc["blocks"]
                  if ltc.parse_tx(b["txs"][-1])["flag"] & 8]
            self.report(mw and mw[0] == ltc.MWEB_HEIGHT and mw == list(range(mw[0], last + 1)),
                        "%s: MWEB blocks dealt (HogEx last)" % S.name,
                        "heights %d..%d of %d..%d" % (mw[0], mw[-1], S.first, last)
                        if mw else "none")

    def check_db_head(self, S, q, last):
        name = S.name
        meta = q("SELECT family, chain, dealer FROM meta").fetchall()
        want = [("bitcoin", "bitcoin:litecoin:regtest:" + S.genesis, S.dealer)]
        self.report(meta == want, "%s: database meta: this chain and dealer" % name,
                    "%s" % (meta,) if meta == want else "got %s, want %s" % (meta, want))
        cur = q("SELECT height, lower(hex(hash)) FROM cursor").fetchall()
        want = [(last, S.node.block_hash(last))]
        self.report(cur == want, "%s: database cursor at the last logged block" % name,
                    "cursor %s" % (cur,) if cur == want else "got %s, want %s" % (cur, want))

    def payouts_detail(self, want, kinds):
        unattr = sum(1 for v in want.values() if v[5] is None)
        return "%d rows (%s; %d refunds unattributed)" % (len(want), ", ".join(
            "%d %s" % (n, k) for k, n in sorted(kinds.items())), unattr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only scenarios whose name contains this (repeatable)")
    ap.add_argument("--session", choices=("main", "mweb"), action="append", default=[],
                    help="only this session (repeatable; default both)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=600,
                    help="deadline for the whole run in seconds (default 600)")
    args = ap.parse_args()
    hj.install_cleanup(args.timeout)
    ltc.find_litecoind()  # a clear message when it is missing
    wd = WorkDir("hj-e2e-ltc-game-", args.keep)
    t0 = time.monotonic()
    R = Runner(args, wd.path)
    only = args.session or ["main", "mweb"]

    def sessions():
        if "main" in only:
            R.session("main", MAIN)
        if "mweb" in only:
            R.session("mweb", MWEB, mweb=True, timeout_blocks=None,
                      extra_args=["-datacarriersize=400"])
    return R.run(sessions, wd, t0)


if __name__ == "__main__":
    sys.exit(main())
