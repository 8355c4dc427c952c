#!/usr/bin/env python3
"""End-to-end game scenarios on the Bitcoin family: hashjackd against a real
litecoind in regtest (tests/e2e/btc_node.py), players with `hashjack player`
keys and the node's own wallet RPC (createrawtransaction,
fundrawtransaction, signrawtransactionwithwallet, sendrawtransaction), block
cards chosen by grinding, every action and settlement path of the `bethash`
preset, every rejection, and what only this family has: BIP-340 signatures
(bad, by another player, over another chain, at a stale or future seq),
OP_RETURN payloads too long, values split over several outputs to the
dealer, plain deposits, MWEB peg-outs to the dealer (paid by the HogEx),
zero-value actions and Bets that are nobody's business.  The values come from
the protocol (docs/PROTOCOL.md, docs/LOG.md, docs/STATE.md,
docs/BITCOIN.md).  The scenarios both families play are tests/e2e/book.py's,
played here through this file's Session; the expectation model and the
checks are tests/e2e/checks.py's, as for tests/e2e/test_game.py.

    python3 tests/e2e/test_ltc_game.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--timeout S]

Two daemon sessions, each on its own node (confirmations 2, min_bet 10000,
max_bet 10^8 litoshis):

- "main": MWEB off, timeout_blocks 3, the book's scenarios then this
  family's own but the MWEB one, one after another, each with fresh player
  keys (a few share blocks on purpose); the node keeps Litecoin Core's
  default relay policy (80 bytes of OP_RETURN data at most);
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

import os
import struct
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import checks  # noqa: E402
from book import deal  # noqa: E402
from btc_node import (COIN, Litecoind, MWEB_HEIGHT, bet_payload, find_litecoind,  # noqa: E402
                      parse_tx, sats_to_coin, ser_varint, serialize_unsigned)
from cards import card_of  # noqa: E402
from checks import Failed, GameRunner, SessionModel, Tx, WorkDir, game_args  # noqa: E402
from daemon import litecoind_daemon  # noqa: E402
from nodes import RpcError  # noqa: E402

MIN_BET = 10000
MAX_BET = 10 ** 8
CONFIRMATIONS = 2      # grinding replaces the tip block: never deal the tip
N_WALLETS = 4          # player wallets; a player is a key file and one of them
UTXOS = 40             # confirmed coins per wallet, so that sends never chain
UTXO_SATS = 3 * COIN
FEE_TOP = 400          # sat/vB of the first transaction of a block
FEE_STEP = 6           # each later one pays this much less per vB
MWEB_START = 420       # the mweb session's first dealt block (before 432)
NO_ROUND = "ab" * 32    # the txid of no round of the dealer's
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
    """A litecoind in regtest, its wallets and a daemon on it, started; what
    a scenario of the book asks of a session (tests/e2e/book.py), on the
    Bitcoin family."""

    MIN_BET = MIN_BET
    MAX_BET = MAX_BET
    STAKE = 10 ** 6
    SMALL_STAKE = 10 ** 5
    LITTLE = 1000
    SEES_UNPAID = False

    def __init__(self, ctx, name, mweb=False, timeout_blocks=3, extra_args=(), preset=None,
                 rules=None):
        super().__init__(ctx, name, preset, rules)
        self.mweb = mweb
        self.timeout_cfg = timeout_blocks            # None: the default
        self.T = timeout_blocks or 12                # what the rules are
        self.keydir = os.path.join(self.workdir, "keys")
        os.makedirs(self.keydir, exist_ok=True)
        self.hashjack = ctx.hashjack
        self.nplayers = 0
        self.dm = None
        self.default_policy = not any(a.startswith("-datacarriersize") for a in extra_args)
        self.node = Litecoind(workdir=os.path.join(self.workdir, "node"), mweb=mweb,
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
                amounts[a] = sats_to_coin(UTXO_SATS)
        if mweb:
            self.mwebber = n.create_wallet("mwebber").name
            amounts[n.new_address(self.mwebber)] = sats_to_coin(COIN)
        n.funder_mature(UTXO_SATS * len(amounts) + COIN)
        n.wallet(n.FUNDER).rpc("sendmany", "", amounts)
        n.mine(1)
        self.first = n.height() + 1 if not mweb else MWEB_START
        if mweb and n.height() >= MWEB_START:
            raise Failed("setup went past %d" % MWEB_START)
        self.dm = litecoind_daemon(self.ctx.hashjackd, n, self.dealer, MIN_BET, MAX_BET,
                                   self.timeout_cfg, confirmations=CONFIRMATIONS,
                                   start_height=self.first, poll_interval_ms=50,
                                   preset=self.preset or "bethash",
                                   extra={"rules": dict(self.rule_keys)}
                                   if self.rule_keys else None,
                                   workdir=os.path.join(self.workdir, "daemon"), metrics=True)
        self.dm.start()
        if mweb:
            # deal across the activation: 431 (the harness's funding of its
            # peg-in), 432 (the peg-in and the first HogEx), then MWEB blocks
            n.mine(MWEB_HEIGHT + 3 - n.height())
            if not n.mweb_active():
                raise Failed("MWEB not active at %d" % n.height())
        else:
            n.mine(self.first - n.height())

    # -- tools ----------------------------------------------------------------

    def bet_payload(self, player, pp=None, t3=None):
        """The Bet payload `hashjack player bet` prints (side stakes given as
        options); one that writes a side stake of 0, which the tool leaves
        out, is built by btc_node.bet_payload."""
        if 0 in (pp, t3):
            return bet_payload(player.P, pp, t3)
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
        raws = [struct.pack("<Q", v) + ser_varint(len(sc) // 2) + bytes.fromhex(sc)
                for v, sc in outs]
        w = self.node.wallet(who.wallet)
        funded = w.rpc("fundrawtransaction", serialize_unsigned(2, raws),
                       {"fee_rate": rate}, False)
        signed = w.rpc("signrawtransactionwithwallet", funded["hex"])
        if not signed.get("complete"):
            raise Failed("signing incomplete: %s" % signed.get("errors"))
        got = [(o["value"], o["script"]) for o in parse_tx(signed["hex"])["vout"]]
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

    def send_bet(self, who, value, pp=None, t3=None):
        """A Bet transaction (not necessarily accepted); its sender is P."""
        return self.send(who, self.bet_payload(who, pp, t3), value, sender=who.P)

    def bet(self, who, stake, pp=None, t3=None):
        """A Bet and its round; stake (the main stake) an int, or a list
        (one output each); the side stakes pp, t3 are added to the value
        (to its last output)."""
        sides = (pp or 0) + (t3 or 0)
        if isinstance(stake, (list, tuple)):
            t = self.send_bet(who, list(stake[:-1]) + [stake[-1] + sides], pp, t3)
            total = sum(stake)
        else:
            t = self.send_bet(who, stake + sides, pp, t3)
            total = stake
        return Round(self, who, t, total, pp, t3)

    def stray(self, who, action, value=0, insurance=None):
        """An action signed by who for a round the dealer never had."""
        return self.send(who, self.sign(who, action, NO_ROUND, 0, insurance), value)

    def parts(self, value, n):
        """value in n outputs to the dealer, the last one taking what the
        division leaves."""
        return [value // n] * (n - 1) + [value - (n - 1) * (value // n)]

    def elsewhere(self, value):
        """An output paying value to an address that is not the dealer's."""
        return [(self.other, value)]

    def stale(self, r, action, seq):
        """r's action signed at seq (which the round is past)."""
        return r.send(action, seq=seq)

    def _mined(self, b):
        h = b["height"]
        got = Litecoind.block_txids(b)
        want = [t.txid for t in self.pending]
        if got != want:
            raise Failed("block %d holds %s, expected %s (in this order)" % (h, got, want))
        ids = [t if isinstance(t, str) else t["txid"] for t in b["tx"]]
        for t in self.pending:
            t.h, t.idx = h, ids.index(t.txid)
        self.pending = []
        hogex = ids[-1] if "mweb" in b else None
        return Blk(h, b["hash"], card_of(b["hash"]), hogex,
                   len(ids) - 1 if hogex else None)

    def mine(self, want=None):
        """The next block with every pending transaction, in order; with
        want, ground until its card matches (cards.card_matcher)."""
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
        return self.node.export(first, last, self.dealer, MIN_BET, MAX_BET, self.timeout_cfg,
                                self.preset or "bethash", self.rule_keys)

    def close(self):
        try:
            if self.dm is not None and self.dm.running():
                self.dm.stop()
        finally:
            self.node.stop()


# --------------------------------------------------------------------------
# The main session: the book (tests/e2e/book.py), then the Bitcoin family's
# own scenarios.  Each returns a one-line summary.  X = the Bet's block, W =
# the opening of an action window (docs/PROTOCOL.md).  A signed action is
# signed at the seq the round will have when the action is looked at.

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
    Ace; Peek with insurance paid in two outputs (floor(s/2)); peek card 6:
    no blackjack, set aside; a Hit whose two outputs pay 3000 + 3000
    (wrong_value, the sum refunded); Double paid in two outputs plus one to
    another address (which is not value); 10: 19; dealer play: 6, A+6 soft
    17, hits: 2, 19.  Push of the doubled hand, insurance lost."""
    p = S.player()
    s = 300001
    i = s // 2
    parts = [100000, 100000, s - 200000]
    r = S.bet(p, parts)
    deal(S, r, "5", "A", "4")
    pk = r.send("Peek", [i // 2, i - i // 2], insurance=True)
    S.mine(); r.act(pk, "Peek", insurance=True)
    r.peek(S.mine("6"), False)
    wv = r.send("Hit", [3000, 3000])
    db = r.send("Double", [s - 150000, 150000], extra=[(S.other, 7000)])
    S.mine()
    S.rej(wv, "wrong_value", "Hit", r)
    r.act(db, "Double", 0)
    r.draw(S.mine("10"), 0)
    r.draw(S.mine("6"), "D")
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
    deal(S, r, "10", "9", "8")
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
        except RpcError as e:
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
    pegin = w.rpc("sendtoaddress", w.new_address("mweb"), sats_to_coin(w.balance()),
                  "", "", True)
    S.foreign(pegin)
    S.mine()
    p = S.player()
    s = 400001
    r = S.bet(p, s)
    outs = [w.rpc("sendtoaddress", S.dealer, sats_to_coin(v)) for v in (30000, 45000)]
    b = S.mine()
    if not b.hogex:
        raise Failed("block %d has no HogEx" % b.h)
    if any(o in Litecoind.block_txids(n.block(b.h, 1)) for o in outs):
        raise Failed("a peg-out is a canonical transaction")
    r.accepted_bet()
    hog = Tx(b.hogex, 75000, None)
    hog.h, hog.idx = b.h, b.hogex_idx
    raw = parse_tx(n.raw_tx(b.hogex, n.block_hash(b.h)))
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


MAIN = book.BOOK + [sc_signatures, sc_value_split, sc_op_return_forms, sc_malformed,
                   sc_deposits, sc_oversize]
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
                  if parse_tx(b["txs"][-1])["flag"] & 8]
            self.report(mw and mw[0] == MWEB_HEIGHT and mw == list(range(mw[0], last + 1)),
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
    def session_arg(ap):
        ap.add_argument("--session", choices=("main", "mweb"), action="append", default=[],
                        help="only this session (repeatable; default both)")
    args = game_args(__doc__, 600, session_arg)
    find_litecoind()      # a clear message when it is missing
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
