#!/usr/bin/env python3
"""Payouts on the Bitcoin family (issue 5, items 2 and 6): hashjackd pays what
the dealer owes through a wallet of a real litecoind in regtest, each payout
exactly once, also across kill -9 (docs/PAYOUTS.md).

    python3 tests/e2e/test_ltc_payouts.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--seed N]

One node; five daemons, one after the other, each with its own dealer
address, state directory and paying wallet:

  game     confirmations 2, the paying wallet funded.  Rounds by seven
           players, cards chosen by grinding: two Wins, a late Surrender
           (vs 9), a Blackjack (vs 5), a Push, a Bust; refunds attributed
           (a premature Hit naming a round, a Bet below min_bet) and one
           unattributed (a payload too long); a refund of 3000 litoshis,
           below the dust limit (3300), that waits, and is paid together
           with a second one of 3100 once they add up to 6100.  Then: each
           player's tr(P) holds exactly what the rules give (scantxoutset),
           every attributed payout is confirmed in the database, the
           unattributed one is owed and never paid, the wallet made one
           transaction per batch comment, STATUS showed the amount below
           dust.  `hashjack verify --payouts --grace 0` (docs/VERIFY.md):
           while the 3000 waits, its recipient short by exactly 3000 at
           its tr(P) (exit 1) and everyone else even; at the end every
           recipient even and the unattributed refund listed (exit 0).
  session  confirmations 2, timeout_blocks 3, the paying wallet funded.
           At least 50 rounds by eight players (each its own key P), in
           groups whose players bet in one block and act in the same
           blocks, cards chosen by grinding: every outcome (Win, Lose,
           Push, Bust, Blackjack 6:5 against 5, K and an Ace, dealer
           blackjack at the Peek and found late, late Surrender at once
           and against a ten with the dealer's second card drawn, Double
           won and lost, splits of 8,8 and 10,J, insurance taken and
           declined, a late dealer blackjack after a Double and after a
           Split, default Peek and Stand by timeout, clear peeks whose
           dealer draws its second card later and skips a block that
           would make a blackjack) and rejections
           (wrong_value, premature, not_allowed, bad_signature,
           bet_out_of_limits, side_bets_not_offered, second_round,
           refunded to the key; no_round and too_long, unattributed).
           The expectation model of the game tests (checks.SessionModel)
           writes down every block's events; checks.GameRunner compares
           the card log with it block by block and with `hashjack replay`,
           and the txs and payouts tables with the ledger it implies
           (every attributed payout confirmed).  Then each tr(P) holds
           exactly the model's returns and refunds (scantxoutset), every
           payout is in exactly one confirmed batch, each tr(P)'s outputs
           are exactly those batches' outputs to it, one wallet
           transaction per batch; `hashjack verify --payouts`: every
           recipient even, the unattributed refunds listed.
  faults   confirmations 1, dust_limit 6000.  The paying wallet starts
           empty: the node
           refuses sendmany (Insufficient funds), the payouts stay owed
           with last_error, stderr and STATUS say INSUFFICIENT FUNDS; once
           the wallet is funded they are paid.  A payout transaction whose
           input a block mined by hand spends otherwise (conflicted by a
           final transaction): reverted, owed again, paid by a new one.
           Then at least 20 rounds of:
           new refunds (some below dust) in a new block, hashjackd started,
           and killed with SIGKILL at a random instant of its payout
           submission (after the sendmany log line, or at a random time
           after start).  Finally one clean run: nothing missing, nothing
           paid twice (each recipient's outputs sum to exactly its refunds;
           each batch comment is carried by exactly one wallet
           transaction), every payable payout confirmed.  Also three
           sendmany calls lost on purpose by a proxy in front of the node
           (never reaching it; its answer lost, the daemon alive; its answer
           lost, the daemon killed).
  halt     confirmations 1.  A batch planned, its sendmany swallowed, the
           daemon killed; another sendmany with the batch's comment but
           other outputs is made by hand: the restarted daemon records
           nothing, says PAYOUTS HALTED (stderr, STATUS) and sends nothing
           more.
  unconfirmed
           confirmations 3, through a proxy that loses sendmany's answers.
           A regression: the payer once took a planned batch to be the
           oldest open one and stopped ("two planned batches in the
           store", at every start) when it stood behind a sent batch.
           Batch 1 is sent and never mined until the end; new refunds are
           mined in blocks that hold only them (generateblock); batch 2's
           answer is lost and the daemon killed, so it stays planned
           behind the unconfirmed batch 1; the restarted daemon keeps
           running and finds batch 2 in the wallet by its comment.  Batch
           3 the same, the daemon alive.  Then everything mined: every
           payout in exactly one confirmed batch, each tr(P) paid exactly,
           one wallet transaction per batch, no error on stderr.
  encrypted
           confirmations 1, the paying wallet encrypted (encryptwallet).
           Without [payout] wallet_passphrase a refund stays owed, nothing
           is sent, and the log says to give the passphrase; with a wrong
           passphrase (a 0600 file) PAYOUTS HALTED on stderr and in STATUS,
           nothing sent; with the right one (a file, its newline removed)
           the refunds are paid, exactly, and the wallet is locked again
           (getwalletinfo's unlocked_until 0); neither passphrase is ever
           in the daemon's output.

  sweep    confirmations 1, [payout] sweep_to a P2WPKH cold address,
           sweep_margin 0.01 LTC, sweep_every 6, a round open.  Once every
           final block is dealt a pass records a sweep; its sendmany is
           swallowed and the daemon killed; restarted, it sends it once: the cold address receives exactly the amount
           recorded, and the wallet keeps the open round's worst case and
           the margin less the sweep's fee.  0.5 LTC that comes in is not
           swept within sweep_every blocks, and is after; status, the
           ledger and /metrics count both.
  reorg    confirmations 2, last (it stops the other sessions' daemons:
           the blocks taken away are theirs too).  Refunds A and B, three
           blocks apart, dealt in one catch-up batch and paid; B's block
           invalidated, the new branch mined without B's Bet (generateblock),
           the payout transaction out of the mempool (its locktime).  Exit
           3; `hashjack reorg` names the fork point; `--rewind` goes back
           below A (the log's lines kept aside, both payouts orphaned);
           restarted, A is taken back, the same transaction sent again and
           confirmed; B's stays orphaned (status says so).  Each tr(P) holds
           exactly its refund, one wallet transaction per batch; the log
           verifies and the lines kept aside name the fork point (exit 3).

Amounts are integers (litoshis) throughout; coin amounts from the node are
Decimals.  Every wait has a deadline, and so has the whole run; every
process started is stopped.  One line per check, then "N passed, M failed".

The notify socket (STATUS) and the proxy that loses a sendmany are the
harness's (daemon.NotifySocket, proxies.RpcProxy); the session's model and
checks are tests/e2e/checks.py's, three of its groups tests/e2e/book.py's.
What could move into tests/e2e/btc_node.py: unspents() and utxo_total()
(scantxoutset of an address) and wallet_comments() (a wallet's send
transactions by comment).
"""

import collections
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import checks  # noqa: E402
from btc_node import (COIN, Litecoind, coin_to_sats, find_litecoind, parse_tx,  # noqa: E402
                      sats_to_coin)
from cards import card_matcher, card_of  # noqa: E402
from checks import Failed, bj, hexcol  # noqa: E402
from daemon import NotifySocket, litecoind_daemon, metric  # noqa: E402
from procs import HarnessError, close_all, install_cleanup, kill_children, wait_until  # noqa: E402
from proxies import RpcProxy  # noqa: E402
from serve import Serve  # noqa: E402

MIN_BET = 10000
MAX_BET = 10 ** 8
DUST = 3300            # the daemon's default for litecoin (docs/CONFIG.md)
# A player's wallet refuses to pay the dealer (P2WPKH) less than 2940: the
# only refunds below the default limit are 2940..3299.  The faults session
# sets a higher limit so that more of its refunds wait.
SEND_MIN = 2940
FAULTS_DUST = 6000
N_WALLETS = 4
UTXOS = 30
UTXO_SATS = COIN


# --------------------------------------------------------------------------
# Helpers (candidates for the harness)

def unspents(node, address):
    """[(txid, litoshis)] of the unspent outputs paying address (scantxoutset)."""
    r = node.rpc("scantxoutset", "start", ["addr(%s)" % address], timeout=60)
    if not r.get("success"):
        raise Failed("scantxoutset failed: %r" % r)
    return sorted((u["txid"], coin_to_sats(u["amount"])) for u in r["unspents"])


def utxo_total(node, address):
    """Sum (litoshis) and count of the unspent outputs paying address, from the
    node's UTXO set (confirmed outputs only)."""
    got = unspents(node, address)
    return sum(v for _, v in got), len(got)


def wallet_comments(wallet, prefix="hashjack:"):
    """{comment: set of txids} of the wallet's send transactions whose comment
    begins with prefix."""
    out = collections.defaultdict(set)
    skip = 0
    while True:
        page = wallet.rpc("listtransactions", "*", 500, skip, True)
        for e in page:
            c = e.get("comment", "")
            if e.get("category") == "send" and c.startswith(prefix):
                out[c].add(e["txid"])
        if len(page) < 500:
            return out
        skip += 500


# --------------------------------------------------------------------------
# A session: one daemon with a dealer address and a paying wallet

class Player:
    def __init__(self, S, name, wallet):
        self.S = S
        self.name = name
        self.key = os.path.join(S.keydir, name + ".key")
        self.P = S.tool("keygen", self.key).strip()
        self.addr = S.tool("address", "--key", self.key, "--coin", "litecoin",
                           "--chain", "regtest").strip()
        self.wallet = wallet


class Round:
    def __init__(self, S, player, txid, stake):
        self.S, self.p, self.id, self.stake, self.seq = S, player, txid, stake, 0

    def send(self, action, value=0, seq=None, insurance=None):
        payload = self.S.sign(self.p, action, self.id, self.seq if seq is None else seq,
                              insurance)
        t = self.S.send(self.p, payload, value)
        if seq is None:
            self.seq += 1
        return t


class Session(checks.PlayerTool):
    """A paying daemon on node (not started: start()) with its own dealer
    address, paying wallet and notify socket; its players (player()) and
    what each is owed (expect); its database read (payouts(), batches()).
    `hashjack player` is checks.PlayerTool's."""

    def __init__(self, R, name, node, wallets, payer, confirmations, funded=True,
                 dust=None, payout=None, metrics=False):
        self.R = R
        self.hashjack = R.hashjack
        self.name = name
        self.node = node
        self.wallets = wallets
        self.payer = payer
        self.conf = confirmations
        self.workdir = os.path.join(R.workdir, name)
        self.keydir = os.path.join(self.workdir, "keys")
        os.makedirs(self.keydir, exist_ok=True)
        self.genesis = node.genesis()
        self.dealer = node.new_address("dealer-" + name)
        self.players = []
        self.pending = []                       # txids sent for the next block
        self.expect = collections.Counter()     # P -> litoshis owed in all
        self.unattributed = []                  # (txid, value)
        self.refund_to = {}                     # refund txid -> P or None
        node.create_wallet(payer)
        if funded:
            node.fund(payer, 3 * COIN)
        self.notify = NotifySocket(os.path.join(self.workdir, "notify.sock"))
        self.dust = dust or DUST
        self.first = node.height() + 1
        self.dm = litecoind_daemon(R.hashjackd, node, self.dealer, MIN_BET, MAX_BET,
                                   confirmations=confirmations, poll_interval_ms=50,
                                   start_height=self.first, metrics=metrics,
                                   workdir=os.path.join(self.workdir, "daemon"),
                                   extra={"payout": dict({"wallet": payer, "dust_limit": dust},
                                                         **(payout or {}))})
        self.db_path = os.path.join(self.dm.state_dir, "hashjackd.sqlite")

    # -- players and transactions ---------------------------------------------

    def player(self):
        p = Player(self, "%s-p%d" % (self.name, len(self.players) + 1),
                   self.wallets[len(self.players) % len(self.wallets)])
        self.players.append(p)
        return p

    def start(self):
        self.notify.start_daemon(self.dm)

    def send(self, who, payload, value):
        t = self.node.send_action(who.wallet, self.dealer, value, payload)
        self.pending.append(t)
        return t

    def bet(self, who, stake):
        return Round(self, who, self.send(who, self.tool("bet", "--key", who.key).strip(),
                                          stake), stake)

    def refund_bet(self, who, value, count=True):
        """A Bet below min_bet: rejected, value refunded to P."""
        t = self.send(who, self.tool("bet", "--key", who.key).strip(), value)
        self.refund_to[t] = who.P
        if count:
            self.expect[who.P] += value
        return t

    def mine(self, want=None):
        """The next block: every mempool transaction (the payer's too), or
        with want, ground for that card and holding exactly the
        transactions this session sent since the last block."""
        if want is None:
            self.node.mine(1)
        else:
            self.grind(want)
        self.pending = []
        return self.node.height()

    def grind(self, want, max_tries=3000):
        """Like btc_node.Litecoind.grind, but each try is generateblock with
        the session's own transactions (a payout already in the mempool
        stays there, never mined into a block that is then invalidated), and
        the daemon is paused (SIGSTOP) meanwhile.  Each try is a new tip that
        makes one more block final: a payout sent against a try carries the
        try's height as its locktime (the wallet's anti-fee-sniping), and
        once the try is invalidated the node evicts it from its mempool as
        not final; the wallet then takes its change for unconfirmed coins it
        cannot spend (Insufficient funds) until the daemon's next pass sends
        the evicted transaction again.  That works, but makes the session
        depend on timing; a real chain does not take its tip back forty
        times a second."""
        match = card_matcher(want)
        tip = self.node.height()
        os.kill(self.dm.proc.pid, signal.SIGSTOP)
        try:
            for _ in range(max_tries):
                h = self.node.rpc("generateblock", self.node.fresh_address(),
                                  list(self.pending))["hash"]
                if match(card_of(h)):
                    return h
                self.node.rpc("invalidateblock", h)
                if self.node.height() != tip:
                    raise Failed("invalidateblock left the tip at %d" % self.node.height())
            raise Failed("no block with card %r after %d tries" % (want, max_tries))
        finally:
            os.kill(self.dm.proc.pid, signal.SIGCONT)

    def settle_wait(self, timeout=60):
        """Mines until every payable payout is confirmed (and the daemon has
        processed every block): returns the final payout rows."""
        t0 = time.monotonic()
        while True:
            self.mine()
            last = self.node.height() - (self.conf - 1)
            self.dm.wait_height(last, timeout=30)
            rows = self.payouts()
            left = owed_left(rows)
            pending = [r for r in rows.values() if r["recipient"] and r["state"] != "confirmed"
                       and (r["state"] != "owed" or left[r["recipient"]] >= self.dust)]
            if not pending:
                return rows
            if time.monotonic() - t0 > timeout:
                raise Failed("payouts not confirmed after %ds: %s"
                             % (timeout, [(r["id"], r["state"], r["last_error"])
                                          for r in pending][:4]))
            time.sleep(0.2)

    # -- the database ----------------------------------------------------------

    def query(self, sql, args=()):
        db = sqlite3.connect("file:%s?mode=ro" % self.db_path, uri=True, timeout=5)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()

    def payouts(self):
        rows = self.query(
            "SELECT id, %s, amount, state, %s, confirmed_height, last_error, %s FROM payouts"
            % (hexcol("recipient"), hexcol("submitted_txid"), hexcol("txid")))
        return {r[0]: {"id": r[0], "recipient": r[1], "amount": int(r[2]), "state": r[3],
                       "txid": r[4], "confirmed": r[5], "last_error": r[6], "tx": r[7]}
                for r in rows}

    def batches(self):
        return self.query("SELECT id, state, lower(hex(txid)), attempts, last_error "
                          "FROM payout_batches ORDER BY id")

    def tag(self):
        return self.query("SELECT tag FROM settlement")[0][0]

    def close(self):
        close_all(self.dm.close, self.notify.close)


# --------------------------------------------------------------------------
# Checks shared by both sessions

def owed_left(rows):
    """P -> what is still owed to it (state owed): below dust, it waits."""
    left = collections.Counter()
    for r in rows.values():
        if r["recipient"] and r["state"] == "owed":
            left[r["recipient"]] += r["amount"]
    return left

def check_paid(R, S, rows, what):
    """Each player's tr(P) holds exactly what it was owed; every attributed
    payout is confirmed; unattributed ones owed, never paid; one wallet
    transaction per batch comment."""
    bad = []
    left = owed_left(rows)
    for p in S.players:
        got, n = utxo_total(S.node, p.addr)
        if left[p.P] >= S.dust or got != S.expect[p.P] - left[p.P]:
            bad.append("%s: tr(P) holds %d in %d outputs; owed %d, %d of it still owed"
                       % (p.name, got, n, S.expect[p.P], left[p.P]))
    waiting = sum(1 for v in left.values() if v)
    R.report(not bad, "%s: %s: each tr(P) holds exactly what the rules give" % (S.name, what),
             "%d players, %d litoshis in all; %d wait below dust" % (
                 len(S.players), sum(S.expect.values()), waiting)
             if not bad else "; ".join(bad[:4]))
    db_sum = collections.Counter()
    for r in rows.values():
        if r["recipient"]:
            db_sum[r["recipient"]] += r["amount"]
    R.report(dict(db_sum) == {k: v for k, v in S.expect.items() if v},
             "%s: %s: the ledger's payouts per recipient equal the rules'" % (S.name, what),
             "%d recipients" % len(db_sum) if dict(db_sum) == dict(S.expect)
             else "ledger %s, rules %s" % (dict(db_sum), dict(S.expect)))
    unconf = [(r["id"], r["state"]) for r in rows.values()
              if r["recipient"] and r["state"] != "confirmed"
              and not (r["state"] == "owed" and left[r["recipient"]] < S.dust)]
    R.report(not unconf, "%s: %s: every payable payout confirmed" % (S.name, what),
             "%d confirmed" % sum(1 for r in rows.values() if r["state"] == "confirmed")
             if not unconf else "%s" % unconf[:4])
    unat = [r for r in rows.values() if r["recipient"] is None]
    ok = len(unat) == len(S.unattributed) and all(r["state"] == "owed" for r in unat) and \
        sorted((r["tx"], r["amount"]) for r in unat) == sorted(S.unattributed)
    R.report(ok, "%s: %s: unattributed refunds stay owed, never paid" % (S.name, what),
             "%d unattributed" % len(unat) if ok else "%s vs %s" % (
                 [(r["id"], r["state"], r["amount"]) for r in unat], S.unattributed))
    comments = wallet_comments(S.node.wallet(S.payer), "hashjack:%s:" % S.tag())
    dup = {c: t for c, t in comments.items() if len(t) != 1}
    # A reverted batch's transaction stays in the wallet (conflicted).
    sent = [b for b in S.batches() if b[1] in ("sent", "confirmed", "reverted")]
    txids = {b[2] for b in sent}
    wallet_txids = set().union(*comments.values()) if comments else set()
    ok = not dup and txids == wallet_txids and len(comments) == len(sent)
    R.report(ok, "%s: %s: one wallet transaction per batch, each recorded" % (S.name, what),
             "%d batches sent" % len(sent) if ok else
             "duplicated %s; db %d txids, wallet %d" % (dup, len(txids), len(wallet_txids)))
    return not bad and ok


# --------------------------------------------------------------------------
# The game session

def game(R):
    node = R.node
    S = Session(R, "game", node, R.wallets, "pay-game", confirmations=2)
    R.sessions.append(S)
    t0 = time.monotonic()
    S.start()
    node.mine(2)
    S.dm.wait_height(S.first, 30)
    p = [S.player() for _ in range(7)]
    P = [x.P for x in p]

    # Group 1: three players bet in one block.  10, 9 up, 9: 19 vs 9.
    # A Hit of p1 in the block of the second card is premature (refund to
    # p1, its round's key).  At W: p1 and p2 Stand, p3 Surrenders (vs 9:
    # floor(s/2) at once); the dealer draws 9: 18 stands, p1 and p2 Win.
    s1, s2, s3 = 200001, 150003, 100001
    r1, r2, r3 = S.bet(p[0], s1), S.bet(p[1], s2), S.bet(p[2], s3)
    S.mine()
    S.mine("10")
    S.mine("9")
    early = r1.send("Hit", 3000, seq=0)
    S.refund_to[early] = P[0]
    S.expect[P[0]] += 3000
    S.mine("9")
    r1.send("Stand")
    r2.send("Stand")
    r3.send("Surrender")
    # An unattributed refund: a Stand payload one byte too long, paying.
    bad = S.send(p[1], S.tool("stand", "--key", p[1].key, "--genesis", S.genesis,
                              "--round", r2.id, "--seq", "0").strip() + "ff", 9000)
    S.unattributed.append((bad, 9000))
    S.mine()
    S.mine("9")
    S.expect[P[0]] += 2 * s1
    S.expect[P[1]] += 2 * s2
    S.expect[P[2]] += s3 // 2

    # Group 2: Blackjack A, K against 5 settles at the third card.
    s4 = 100007
    S.bet(p[3], s4)
    S.mine()
    S.mine("A")
    S.mine("5")
    S.mine("K")
    S.expect[P[3]] += bj(s4)

    # Group 3: 10, 8 up, 8: 18 vs 8.  p5 Stands, p6 Hits; the next card 10
    # busts p6 (no return) and gives the dealer 18: p5 pushes.
    s5, s6 = 120000, 110000
    r5, r6 = S.bet(p[4], s5), S.bet(p[5], s6)
    S.mine()
    S.mine("10")
    S.mine("8")
    S.mine("8")
    r5.send("Stand")
    r6.send("Hit")
    S.mine()
    S.mine("10")
    S.expect[P[4]] += s5
    # p6 lost; a Bet below min_bet is refunded to its key.
    S.refund_bet(p[5], MIN_BET - 1)

    # Dust: 3000 waits (below 3300) ...
    dust1 = S.refund_bet(p[6], 3000, count=False)
    S.mine()
    S.mine()
    last = node.height() - 1
    S.dm.wait_height(last, 30)

    def dust_waits():
        S.notify.read()
        rows = S.payouts()
        r = rows.get("refund:" + dust1)
        st = [x for x in S.notify.read() if "1 below dust 0.00003000" in x]
        return r is not None and r["state"] == "owed" and st and r
    try:
        wait_until(dust_waits, 20, "the 3000 refund to be shown below dust")
        got, _ = utxo_total(node, p[6].addr)
        R.report(got == 0, "game: a refund below dust waits, shown in STATUS",
                 "3000 owed, 0 paid; STATUS ...%s" % [x for x in S.notify.read()
                                                      if "below dust" in x][-1][-140:])
    except (TimeoutError, HarnessError) as e:
        R.report(False, "game: a refund below dust waits, shown in STATUS",
                 "%s; last STATUS %s" % (e, S.notify.read()[-1:]))
    # Everything else paid and final, the 3000 waiting below dust: its
    # recipient is short by 3000 (exit 1), everyone else even.
    S.settle_wait()
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log,
                                              "--grace", "0")
    owed, _ = checks.log_debts(S.dm.card_log)
    got = dict(owed)
    got[P[6]] = 0
    bad = checks.payouts_problems(rep, owed, got)
    row = [r for r in (rep or {}).get("recipients", []) if r["recipient"] == P[6]]
    R.report(rc == 1 and not bad and row and row[0]["difference"] == "-3000" and
             row[0]["address"] == p[6].addr and rep["short"] == 1,
             "game: verify --payouts: the refund waiting below dust is short",
             "%s short by 3000 at %s; %d even" % (P[6][:16], p[6].addr[:16], rep["even"])
             if rc == 1 and not bad and row else "exit %d, %s; %s" % (rc, bad[:3],
                                                                      err.strip()[-300:]))
    # ... until a second refund makes 6100: paid in one output.
    S.refund_bet(p[6], 3100, count=False)
    S.expect[P[6]] += 6100
    S.mine()
    rows = S.settle_wait()
    got, n = utxo_total(node, p[6].addr)
    R.report(got == 6100 and n == 1, "game: dust refunds paid together once above the limit",
             "one output of %d" % got if n == 1 else "%d outputs, %d" % (n, got))
    ok = check_paid(R, S, rows, "rounds")
    un = [(t, v) for t, v in S.unattributed]
    checks.check_verify_paid(R, "game", S.dm.conf, S.dm.card_log, S.expect)
    _, unat = checks.log_debts(S.dm.card_log)
    R.report(sorted((t, v) for t, _, v in unat) == sorted(un),
             "game: the log's unattributed refunds are the session's",
             "%d" % len(un))
    st = (S.notify.read() or [""])[-1]
    want = ("owed", "in flight", "balance")
    R.report(all(w in st for w in want), "game: STATUS shows owed, in flight, balance",
             st[:200])
    errs = [l for l in S.dm.stderr().splitlines() if l.startswith(("<0>", "<1>", "<2>", "<3>"))]
    R.report(not errs, "game: no error on stderr", errs[0] if errs else
             "%.1fs, %d blocks" % (time.monotonic() - t0, node.height()))
    rc = S.dm.stop()
    R.report(rc == 0, "game: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    return ok


# --------------------------------------------------------------------------
# The faults session

def faults(R, kills):
    node = R.node
    rng = R.rng
    S = Session(R, "faults", node, R.wallets, "pay-faults", confirmations=1, funded=False,
                dust=FAULTS_DUST)
    R.sessions.append(S)
    S.start()
    node.mine(1)
    S.dm.wait_height(S.first, 30)
    players = [S.player() for _ in range(6)]

    # 1. An empty wallet: the node refuses, the payouts stay owed.
    for p in players[:3]:
        S.refund_bet(p, rng.randrange(FAULTS_DUST, MIN_BET))
    S.mine()

    def refused():
        S.notify.read()
        rows = S.payouts()
        return rows and all(r["state"] == "owed" and r["last_error"] and
                            "Insufficient funds" in r["last_error"] for r in rows.values()) \
            and "INSUFFICIENT FUNDS" in S.dm.stderr() and \
            any("INSUFFICIENT FUNDS" in x for x in S.notify.read())
    try:
        wait_until(refused, 20, "the refusal to be recorded")
        line = [l for l in S.dm.stderr().splitlines() if "INSUFFICIENT FUNDS" in l][0]
        R.report(True, "faults: an empty wallet: payouts stay owed, plainly warned",
                 line[:170])
    except TimeoutError as e:
        R.report(False, "faults: an empty wallet: payouts stay owed, plainly warned",
                 "%s: %s" % (e, [(r["state"], r["last_error"]) for r in S.payouts().values()]))
    b = S.batches()
    R.report(b and all(x[1] == "refused" for x in b),
             "faults: the refused batches are recorded as refused", "%s" % (b[:3],))
    # Funds arrive (in a block, which also wakes the payer).
    node.fund(S.payer, 2 * COIN)
    rows = S.settle_wait()
    paid = all(r["state"] == "confirmed" for r in rows.values())
    R.report(paid, "faults: paid once the wallet is funded",
             "%d payouts confirmed" % len(rows) if paid else
             "%s" % [(r["id"], r["state"]) for r in rows.values()][:3])

    # 2. A payout transaction conflicted by a final one: owed again, paid
    # again by a new batch.
    conflicted(R, S, players[0])

    # 3. A sendmany lost on the way, through a proxy that loses it.
    S.dm.stop()
    lost_sendmany(R, S, players)

    # 4. kill -9 at random instants of the payout submission.
    mark = 0
    seen = collections.Counter()
    t0 = time.monotonic()
    for i in range(kills):
        # One payable refund at least, so that every run has a batch.
        for k in range(rng.randrange(1, 4)):
            p = rng.choice(players)
            v = rng.choice([rng.randrange(FAULTS_DUST, MIN_BET),
                            rng.randrange(SEND_MIN, FAULTS_DUST)])
            S.refund_bet(p, rng.randrange(FAULTS_DUST, MIN_BET) if k == 0 else v)
        if rng.random() < 0.2:
            w = rng.choice(players)
            junk = S.tool("bet", "--key", w.key).strip() + "00"     # too long
            t = S.send(w, junk, 4000)
            S.unattributed.append((t, 4000))
        S.mine()
        mark = len(S.dm.stderr())
        S.start()
        # Where the kill lands: right after the batch is committed (before
        # or while sendmany reaches the node), a few ms after the call
        # (the node has sent it, the txid is not committed yet), or
        # anywhere from the start.
        how = i % 3
        if how < 2:
            line = "planned:" if how == 0 else "sendmany of"

            def seen_line():
                if not S.dm.running():
                    raise Failed("hashjackd exited: %s" % S.dm.stderr()[mark:][-500:])
                return line in S.dm.stderr()[mark:]
            try:
                wait_until(seen_line, 10, "the payer to log %r" % line, interval=0.0005)
            except TimeoutError:
                pass
            time.sleep(rng.random() * (0.002 if how == 0 else 0.012))
        else:
            time.sleep(rng.random() * 0.5)
        S.dm.kill9()
        out = S.dm.stderr()[mark:]
        for k, pat in (("planned", "planned:"), ("sendmany", "sendmany of"),
                       ("sent", " sent by wallet"), ("found", "was sent before"),
                       ("resent", "sending it (again)")):
            if pat in out:
                seen[k] += 1
    R.report(True, "faults: %d kill -9 during payout submission" % kills,
             "%.1fs; runs that: %s" % (time.monotonic() - t0, dict(seen)))
    R.report(seen["found"] + seen["resent"] > 0,
             "faults: restarts found batches committed without a txid",
             "looked up and found sent %d times, not found and sent %d times"
             % (seen["found"], seen["resent"]))

    # 5. One clean run: everything paid once.
    S.start()
    rows = S.settle_wait(timeout=90)
    ok = check_paid(R, S, rows, "after the kills")
    errs = [l for l in S.dm.stderr().splitlines()
            if l.startswith(("<0>", "<1>", "<2>", "<3>")) and "no answer to sendmany" not in l]
    R.report(not errs, "faults: no error on stderr (but sendmany cut by a kill)",
             errs[0] if errs else "")
    rc = S.dm.stop()
    R.report(rc == 0, "faults: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    return ok


def conflicted(R, S, who):
    """The payer sends a payout transaction T; a block mined by hand spends
    T's input otherwise (back to the paying wallet), so T can never confirm
    (confirmations -1, final at confirmations 1): the batch is reverted, its
    payout owed again and paid by a new transaction, once."""
    node = S.node
    w = node.wallet(S.payer)
    t = S.refund_bet(who, 7500)
    S.mine()
    pid = "refund:" + t

    def submitted():
        r = S.payouts().get(pid)
        return r is not None and r["state"] == "submitted" and r["txid"]
    try:
        wait_until(submitted, 20, "the refund to be submitted")
        T = S.payouts()[pid]["txid"]
        vin = parse_tx(w.rpc("gettransaction", T)["hex"])["vin"][0]
        coin = node.rpc("gettxout", vin["txid"], vin["vout"], False)
        value = coin_to_sats(coin["value"])
        raw = node.rpc("createrawtransaction", [{"txid": vin["txid"], "vout": vin["vout"]}],
                       {w.new_address(): sats_to_coin(value - 10000)})
        signed = w.rpc("signrawtransactionwithwallet", raw)["hex"]
        mark = len(S.dm.stderr())
        node.rpc("generateblock", node.fresh_address(), [signed])

        def repaid():
            r = S.payouts()[pid]
            return r["state"] == "submitted" and r["txid"] != T
        wait_until(repaid, 30, "the refund to be paid again")
        line = [x for x in S.dm.stderr()[mark:].splitlines() if "owed again" in x]
        states = [b[1] for b in S.batches() if b[2] == T]
        R.report(bool(line) and states == ["reverted"],
                 "faults: a payout conflicted by a final transaction is paid again",
                 (line or ["no log line"])[0][:170])
    except (TimeoutError, HarnessError, KeyError) as e:
        R.report(False, "faults: a payout conflicted by a final transaction is paid again",
                 "%s\n%s" % (e, S.dm.stderr()[-1200:]))


def lost_sendmany(R, S, players):
    """Three ways a sendmany goes missing, each ending paid once:
    a. it never reaches the node, the daemon is killed while it waits: the
       restart looks for the batch's comment, does not find it, sends it;
    b. the node sends it but the answer is lost, the daemon lives: its call
       times out (outcome unknown), the batch stays planned, the next pass
       finds it in the wallet and records its txid;
    c. the same, the daemon killed while it waits: the restart finds it."""
    proxy = RpcProxy(S.node.url, "sendmany", timeout=60)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url, "--chain.rpc_timeout_ms=1500"]

    def run(name, mode, kill, want, value, who):
        mark = len(S.dm.stderr())
        proxy.arm(mode)
        n0 = proxy.swallowed + proxy.lost
        if not S.dm.running():
            S.start()
        S.refund_bet(who, value)
        S.mine()
        try:
            wait_until(lambda: proxy.swallowed + proxy.lost > n0, 20,
                       "the proxy to lose a sendmany")
            if kill:
                S.dm.kill9()
            proxy.disarm()
            if not S.dm.running():
                S.start()
            wait_until(lambda: want in S.dm.stderr()[mark:], 30, repr(want))
            out = S.dm.stderr()[mark:]
            line = [x for x in out.splitlines() if want in x][0]
            R.report(True, "faults: sendmany %s" % name, line[:150])
        except (TimeoutError, HarnessError) as e:
            R.report(False, "faults: sendmany %s" % name,
                     "%s\n%s" % (e, S.dm.stderr()[mark:][-1200:]))
        finally:
            proxy.disarm()

    try:
        run("never reached the node, daemon killed: sent again after a lookup",
            "swallow", True, "sending it (again)", 7001, players[3])
        run("sent, answer lost, daemon alive: found by its comment, recorded",
            "lose", False, "was sent before", 7002, players[4])
        run("sent, answer lost, daemon killed: found by its comment, recorded",
            "lose", True, "was sent before", 7003, players[5])
    finally:
        if S.dm.running():
            S.dm.stop()
        S.dm.overrides = []


# --------------------------------------------------------------------------
# The halt session

def halt(R):
    """A planned batch whose comment a transaction carries that does not pay
    its outputs (someone else wrote it): the daemon records nothing, sends
    nothing more, and says PAYOUTS HALTED on stderr and in STATUS."""
    node = R.node
    S = Session(R, "halt", node, R.wallets, "pay-halt", confirmations=1)
    R.sessions.append(S)
    proxy = RpcProxy(node.url, "sendmany", timeout=60)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url]
    S.start()
    node.mine(1)
    S.dm.wait_height(S.first, 30)
    p = S.player()
    proxy.arm("swallow")
    S.refund_bet(p, 8000)
    S.mine()
    wait_until(lambda: proxy.swallowed >= 1, 20, "the sendmany to be swallowed")
    S.dm.kill9()
    proxy.disarm()
    S.dm.overrides = []
    [(bid, state, _, _, _)] = S.batches()
    comment = "hashjack:%s:%d" % (S.tag(), bid)
    forged = node.wallet(S.payer).rpc("sendmany", "", {p.addr: sats_to_coin(7999)}, 1,
                                      comment)
    mark = len(S.dm.stderr())
    S.start()
    try:
        wait_until(lambda: "PAYOUTS HALTED" in S.dm.stderr()[mark:] and
                   any("PAYOUTS HALTED" in x for x in S.notify.read()), 20,
                   "PAYOUTS HALTED")
        line = [x for x in S.dm.stderr()[mark:].splitlines() if "PAYOUTS HALTED" in x][0]
        R.report(state == "planned" and forged in line,
                 "halt: a transaction with a batch's comment and other outputs halts payouts",
                 line[:200])
    except TimeoutError as e:
        R.report(False, "halt: a transaction with a batch's comment and other outputs "
                 "halts payouts", "%s: %s" % (e, S.dm.stderr()[mark:][-800:]))
    # Nothing more is sent, not even a new payout's.
    S.refund_bet(p, 9000)
    S.mine()
    S.dm.wait_height(node.height(), 30)
    time.sleep(1)
    rows = S.payouts()
    b = S.batches()
    comments = wallet_comments(node.wallet(S.payer), "hashjack:%s:" % S.tag())
    ok = all(r["state"] == "owed" for r in rows.values()) and \
        [x[1] for x in b] == ["planned"] and comments == {comment: {forged}}
    R.report(ok, "halt: nothing more is sent, the batch stays planned",
             "%d payouts owed, batches %s" % (len(rows), [x[:2] for x in b]))
    rc = S.dm.stop()
    R.report(rc == 0, "halt: hashjackd exits 0 on SIGTERM", "status %s" % rc)


# --------------------------------------------------------------------------
# An encrypted wallet: [payout] wallet_passphrase

def encrypted(R):
    node = R.node
    S = Session(R, "encrypted", node, R.wallets, "pay-enc", confirmations=1)
    R.sessions.append(S)
    w = node.wallet(S.payer)
    secret = "horse battery %08x" % random.getrandbits(32)
    w.rpc("encryptwallet", secret)

    def pass_file(name, text):
        path = os.path.join(S.workdir, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path

    def said(text, mark, timeout=30):
        try:
            wait_until(lambda: text in S.dm.stderr()[mark:], timeout, text)
            return True
        except TimeoutError:
            return False

    # No passphrase: the wallet cannot sign; the log names the key.
    S.start()
    node.mine(1)
    S.dm.wait_height(S.first, 30)
    p = S.player()
    mark = len(S.dm.stderr())
    S.refund_bet(p, 8000)
    S.mine()
    ok = said("give its passphrase in [payout] wallet_passphrase", mark)
    rows = S.payouts()
    R.report(ok and all(r["state"] == "owed" for r in rows.values())
             and not wallet_comments(w, "hashjack:%s:" % S.tag()),
             "encrypted: without the passphrase the refund stays owed, the log says which key",
             S.dm.stderr()[mark:][-300:])
    S.dm.stop()
    # A wrong passphrase: halted, said, nothing sent.
    wrong = "wrong %08x" % random.getrandbits(32)
    S.dm.overrides = ["--payout.wallet_passphrase=" + pass_file("wrong.pass", wrong)]
    mark = len(S.dm.stderr())
    S.start()
    S.mine()
    ok = said("PAYOUTS HALTED: wallet pay-enc refused the passphrase", mark)
    try:
        wait_until(lambda: any("PAYOUTS HALTED" in x for x in S.notify.read()), 10,
                   "PAYOUTS HALTED in STATUS")
        in_status = True
    except TimeoutError:
        in_status = False
    R.report(ok and in_status and all(r["state"] == "owed" for r in S.payouts().values())
             and not wallet_comments(w, "hashjack:%s:" % S.tag()),
             "encrypted: a wrong passphrase halts payouts (stderr, STATUS), nothing sent",
             [x for x in S.dm.stderr()[mark:].splitlines() if "HALTED" in x][:1])
    S.dm.stop()
    # The right one: paid, exactly; the wallet locked again.
    S.dm.overrides = ["--payout.wallet_passphrase=" + pass_file("wallet.pass", secret + "\n")]
    rc, out, err = S.dm.check_config()
    R.report(rc == 0 and "unlocked only while it signs, with the passphrase of" in out,
             "encrypted: --check-config reads the passphrase file and says how it is used",
             (out + err).strip()[-200:])
    S.start()
    S.refund_bet(p, 9000)
    rows = S.settle_wait()
    check_paid(R, S, rows, "encrypted")
    info = w.rpc("getwalletinfo")
    R.report(info.get("unlocked_until") == 0,
             "encrypted: the wallet is locked again after paying (unlocked_until 0)",
             "unlocked_until %s" % info.get("unlocked_until"))
    texts = S.dm.stderr() + "\n".join(S.notify.texts()) + out + err
    R.report(secret not in texts and wrong not in texts,
             "encrypted: neither passphrase is in the daemon's output",
             "%d bytes read" % len(texts))
    rc = S.dm.stop()
    R.report(rc == 0, "encrypted: hashjackd exits 0 on SIGTERM", "status %s" % rc)


# --------------------------------------------------------------------------
# The unconfirmed session: a batch planned behind a sent, unconfirmed one

def mine_own(S, blocks=1):
    """blocks blocks (generateblock), the first holding exactly the
    transactions the session sent since the last block (in that order), the
    others nothing: never the payer's transactions, which stay in the
    mempool.  Returns the first block's height."""
    node = S.node
    txs = list(S.pending)
    first = None
    for i in range(blocks):
        h = node.rpc("generateblock", node.fresh_address(), txs if i == 0 else [])["hash"]
        b = node.block(h, 1)
        got = Litecoind.block_txids(b)
        if got != (txs if i == 0 else []):
            raise Failed("block %d holds %s, expected %s" % (b["height"], got, txs))
        first = b["height"] if first is None else first
    S.pending = []
    return first


def unconfirmed(R):
    """Regression: the payer took a planned batch to be the oldest open one.
    Batch 1 is sent and stays unconfirmed (never mined until the end;
    confirmations 3); new refunds are mined in blocks that hold only them
    (generateblock); batch 2's sendmany reaches the node but its answer is
    lost (proxy), and the daemon is killed while it waits, so batch 2 stays
    planned behind the sent batch 1.  The restarted daemon must not stop
    ("two planned batches in the store", at every start before the fix) and
    must find batch 2 in the wallet by its comment.  Then batch 3 the same
    way with the daemon alive (its call times out; the next pass finds it).
    In the end everything is mined: every payout in exactly one confirmed
    batch, each tr(P) paid exactly its refunds, one wallet transaction per
    batch."""
    node = R.node
    t0 = time.monotonic()
    S = Session(R, "unconfirmed", node, R.wallets, "pay-unconfirmed", confirmations=3)
    R.sessions.append(S)
    proxy = RpcProxy(node.url, "sendmany", timeout=60)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url, "--chain.rpc_timeout_ms=1500"]
    wallet = node.wallet(S.payer)
    want = {}           # payout id -> (address, amount)

    def refund(value):
        p = S.player()
        t = S.refund_bet(p, value)
        want["refund:" + t] = (p.addr, value)
        return t

    def alive():
        if not S.dm.running():
            raise Failed("hashjackd exited with %s: %s" % (
                S.dm.proc.returncode, S.dm.stderr().strip().splitlines()[-1:]))
        return True

    def stderr_has(text, mark, timeout):
        wait_until(lambda: alive() and text in S.dm.stderr()[mark:], timeout, repr(text))
        return [x for x in S.dm.stderr()[mark:].splitlines() if text in x][0]

    def batch_states():
        return [(b[0], b[1]) for b in S.batches()]

    def unconfirmed_tx(txid):
        return wallet.rpc("gettransaction", txid)["confirmations"] == 0 and \
            txid in node.mempool()

    def lose(value, kill):
        """A refund made final in blocks of its own; its batch's sendmany
        reaches the node, its answer is lost; the daemon killed at once
        (kill) or left alone.  Returns the stderr offset before."""
        mark = len(S.dm.stderr())
        n0 = proxy.lost
        proxy.arm("lose")
        refund(value)
        mine_own(S, S.conf)
        try:
            wait_until(lambda: alive() and proxy.lost > n0, 20,
                       "the proxy to lose a sendmany's answer")
            if kill:
                S.dm.kill9()
        finally:
            proxy.disarm()
        return mark

    name = "unconfirmed: "
    try:
        S.start()
        # Batch 1: sent, left unconfirmed in the mempool.
        refund(7001)
        mine_own(S, S.conf)
        wait_until(lambda: alive() and batch_states() == [(1, "sent")], 20,
                   "batch 1 to be sent")
        T1 = S.batches()[0][2]
        R.report(unconfirmed_tx(T1), name + "batch 1 sent, its transaction unconfirmed",
                 "txid %s in the mempool" % T1)

        # Batch 2: planned after it, its answer lost, the daemon killed.
        lose(7002, True)
        states = batch_states()
        comments = wallet_comments(wallet, "hashjack:%s:" % S.tag())
        c2 = "hashjack:%s:2" % S.tag()
        R.report(states == [(1, "sent"), (2, "planned")] and len(comments.get(c2, ())) == 1
                 and unconfirmed_tx(T1),
                 name + "batch 2 planned behind the sent batch 1, in the wallet",
                 "batches %s; wallet comments %s" % (
                     states, {c.rsplit(":", 1)[1]: sorted(t) for c, t in comments.items()}))

        # The restart: no stop, batch 2 found by its comment.
        mark = len(S.dm.stderr())
        S.start()
        try:
            line = stderr_has("batch 2 was sent before", mark, 20)
            time.sleep(0.5)
            alive()
            b = S.batches()
            ok = [x[:2] for x in b] == [(1, "sent"), (2, "sent")] and \
                b[1][2] in comments[c2] and unconfirmed_tx(T1) and \
                "two planned batches" not in S.dm.stderr()
            R.report(ok, name + "restart: still running, batch 2 found by its comment",
                     line[:170] if ok else "batches %s" % b)
        except (Failed, TimeoutError, HarnessError) as e:
            R.report(False, name + "restart: still running, batch 2 found by its comment",
                     "%s\n%s" % (e, S.dm.stderr()[mark:][-800:]))
            return

        # Batch 3: behind two sent ones, its answer lost, the daemon alive.
        mark = lose(7003, False)
        try:
            stderr_has("batch 3: no answer to sendmany", mark, 10)
            line = stderr_has("batch 3 was sent before", mark, 20)
            time.sleep(0.5)
            alive()
            b = S.batches()
            ok = [x[:2] for x in b] == [(1, "sent"), (2, "sent"), (3, "sent")] and \
                unconfirmed_tx(T1) and "two planned batches" not in S.dm.stderr()
            R.report(ok, name + "alive: batch 3 found by its comment after a lost answer",
                     line[:170] if ok else "batches %s" % b)
        except (Failed, TimeoutError, HarnessError) as e:
            R.report(False, name + "alive: batch 3 found by its comment after a lost answer",
                     "%s\n%s" % (e, S.dm.stderr()[mark:][-800:]))
            return

        # The end: everything mined, every payout paid once.
        rows = S.settle_wait(timeout=30)
        alive()
        bad, _ = checks.batch_problems(S.query, want, paying=("sent", "confirmed"))
        states = batch_states()
        if states != [(1, "confirmed"), (2, "confirmed"), (3, "confirmed")]:
            bad.append("batches %s" % states)
        R.report(not bad, name + "every payout in exactly one confirmed batch",
                 "%d payouts, batches %s" % (len(want), [s for _, s in states])
                 if not bad else "; ".join(bad[:4]))
        check_paid(R, S, rows, "the end")
        err = S.dm.stderr()
        errs = [l for l in err.splitlines()
                if l.startswith(("<0>", "<1>", "<2>", "<3>")) and "no answer to sendmany" not in l]
        R.report(not errs and "two planned batches" not in err,
                 name + "no error on stderr (but the lost answer)", errs[0] if errs else "")
        rc = S.dm.stop()
        R.report(rc == 0, name + "hashjackd exits 0 on SIGTERM",
                 "status %s; %.1fs" % (rc, time.monotonic() - t0))
    except (Failed, TimeoutError, HarnessError) as e:
        R.report(False, name + "session", "%s\n%s" % (e, S.dm.stderr()[-800:]))


# --------------------------------------------------------------------------
# The session: at least 50 rounds by several players through one paying
# daemon, every outcome, rejections; the expectation model of the game tests
# (checks.SessionModel, checks.SignedRound) says what each tr(P) must
# receive.

SESSION_T = 3           # the session daemon's timeout_blocks
SESSION_PLAYERS = 8
REFUND = 4000           # value of most rejected actions: above the dust limit


def flip_sig(payload):
    """The payload with the last byte of its signature changed."""
    return payload[:-2] + "%02x" % (int(payload[-2:], 16) ^ 0x01)


def mempool_order(pool, first):
    """The txids of getrawmempool (verbose) pool that are not in first, each
    after the ones it depends on (first's are taken as placed before)."""
    done = set(first)
    left = [t for t in sorted(pool) if t not in done]
    out = []
    while left:
        ready = [t for t in left if all(d in done or d not in pool for d in pool[t]["depends"])]
        if not ready:
            raise Failed("mempool dependencies form a cycle: %s" % left[:3])
        for t in ready:
            out.append(t)
            done.add(t)
        left = [t for t in left if t not in done]
    return out


class ModelSession(Session, checks.LitecoindBlocks, checks.SessionModel):
    """A paying Session (a daemon with [payout] wallet, confirmations 2,
    timeout_blocks SESSION_T) that writes down what the protocol gives, as
    test_ltc_game.py's sessions do: each block's events and the rows of the
    transactions table; expected_payouts() is the ledger they imply, every
    attributed payout confirmed in the end, unattributed ones owed.

    Blocks are made with generateblock: first the transactions the session
    sent since the last block, in the order sent (so their txIndex is known),
    then whatever else the mempool holds (the daemon's payout transactions,
    parents first), so that payouts confirm as the session goes.  A block
    with a wanted card is ground (made, looked at, invalidated, made again)
    with the daemon paused."""

    def __init__(self, R, name, payer, timeout_blocks=SESSION_T):
        checks.SessionModel.__init__(self, R, name)
        Session.__init__(self, R, name, R.node, R.wallets, payer, confirmations=2)
        self.T = timeout_blocks
        self.dm = litecoind_daemon(R.hashjackd, self.node, self.dealer, MIN_BET, MAX_BET,
                                   timeout_blocks=timeout_blocks, confirmations=self.conf,
                                   poll_interval_ms=50, start_height=self.first,
                                   workdir=os.path.join(self.workdir, "daemon"),
                                   extra={"payout": {"wallet": payer}})
        self.next_player = 0
        self.nstake = 0
        self.tries = 0

    # -- players and transactions ---------------------------------------------

    def take(self, n):
        """n different players, taken in turn from the session's players."""
        if n > len(self.players):
            raise Failed("%d players wanted, %d exist" % (n, len(self.players)))
        out = [self.players[(self.next_player + i) % len(self.players)] for i in range(n)]
        self.next_player = (self.next_player + n) % len(self.players)
        return out

    def stake(self):
        """A new odd stake (floor(s/2) and floor(6s/5) round down)."""
        self.nstake += 1
        return 10001 + 7918 * self.nstake

    def send(self, who, payload, value, extra=(), sender=None):
        txid = self.node.send_action(who.wallet, self.dealer, value, payload,
                                     extra_outputs=list(extra))
        t = checks.Tx(txid, value, payload, sender)
        self.pending.append(t)
        return t

    def send_bet(self, who, value, payload=None):
        """A Bet (accepted or not): its sender is P."""
        return self.send(who, payload or self.tool("bet", "--key", who.key).strip(), value,
                         sender=who.P)

    def bet(self, who, stake):
        return checks.SignedRound(self, who, self.send_bet(who, stake), stake)

    def forged(self, r, action, value):
        """r's action paying value, its signature flipped (bad_signature)."""
        return r.send(action, value, mutate=flip_sig)

    # -- blocks ------------------------------------------------------------------

    def mine(self, want=None, max_tries=3000):
        """The next block: the pending transactions in order, then the rest of
        the mempool; with want, ground for that card (cards.card_matcher).
        Returns its checks.Blk; the pending transactions get h and idx."""
        node = self.node
        mine = [t.txid for t in self.pending]
        pool = node.rpc("getrawmempool", True)
        for t in mine:
            if t not in pool:
                raise Failed("transaction %s is not in the mempool" % t)
            if any(d in pool and d not in mine for d in pool[t]["depends"]):
                raise Failed("transaction %s depends on one the session did not send" % t)
        txs = mine + mempool_order(pool, mine)
        match = card_matcher(want if want is not None else "any")
        tip = node.height()
        os.kill(self.dm.proc.pid, signal.SIGSTOP)
        try:
            for _ in range(max_tries):
                self.tries += 1
                h = node.rpc("generateblock", node.fresh_address(), txs)["hash"]
                if want is None or match(card_of(h)):
                    break
                node.rpc("invalidateblock", h)
                if node.height() != tip:
                    raise Failed("invalidateblock left the tip at %d" % node.height())
            else:
                raise Failed("no block with card %r after %d tries" % (want, max_tries))
        finally:
            os.kill(self.dm.proc.pid, signal.SIGCONT)
        b = node.block(h, 1)
        got = Litecoind.block_txids(b)
        if got != txs:
            raise Failed("block %d holds %s, expected %s" % (b["height"], got, txs))
        for i, t in enumerate(self.pending):
            t.h, t.idx = b["height"], i + 1
        self.pending = []
        return checks.Blk(b["height"], h, card_of(h))

    # -- what checks.GameRunner.finish() needs (with LitecoindBlocks') --------

    def export(self, first, last):
        return self.node.export(first, last, self.dealer, MIN_BET, MAX_BET, self.T)

    def expected_payouts(self):
        """The model's ledger as it must stand once everything is paid: every
        attributed payout confirmed, the unattributed ones owed."""
        out = {}
        for k, v in checks.SessionModel.expected_payouts(self).items():
            out[k] = v[:7] + ("confirmed" if v[5] else "owed",) + v[8:]
        return out


# Groups of rounds.  Each group's players bet in one block (two blocks in a
# few groups: their cards shift by one) and act in the same blocks; X = the
# Bet's block, W = the opening of the first action window.  Each returns a
# one-line summary.  Three groups are book.py's, which the EVM payout test
# (tests/e2e/test_payouts.py) plays too: sc_vs9_lose_bust_surrender,
# sc_vs7_push_win_bust, sc_bj_vs_ace.

def sc_bj_vs_ten(S):
    """a1, a2 bet at X, b1..b3 at X+1 (their cards shift by one).  a: A, K
    up, Q: blackjack against a ten, a Stand of a1 paying 4000 is
    not_allowed (the dealer draws); X+4 (A): the dealer's blackjack, Push.
    b: K, Q up, A: blackjack; X+5 (7): Blackjack paid 6:5."""
    a1, a2, b1, b2, b3 = S.take(5)
    ra = [S.bet(p, S.stake()) for p in (a1, a2)]
    S.mine()
    for r in ra:
        r.accepted_bet()
    rb = [S.bet(p, S.stake()) for p in (b1, b2, b3)]
    b = S.mine("A")
    for r in ra:
        r.draw(b, 0)
    for r in rb:
        r.accepted_bet()
    b = S.mine("K")
    for r in ra:
        r.draw(b, "D")
    for r in rb:
        r.draw(b, 0)
    st = ra[0].send("Stand", REFUND)
    b = S.mine("Q")
    for r in ra:
        r.draw(b, 0)
    for r in rb:
        r.draw(b, "D")
    S.rej(st, "not_allowed", "Stand", ra[0])
    b = S.mine("A")
    for r in ra:
        r.draw(b, "D"); r.settle(b, [("Push", r.bet)])
    for r in rb:
        r.draw(b, 0)
    b = S.mine("7")
    for r in rb:
        r.draw(b, "D"); r.settle(b, [("Blackjack", bj(r.bet))])
    return "5 rounds: 2 blackjacks pushed by the dealer's, 3 paid 6:5 against Q+7"


def sc_peek(S):
    """Five rounds 10+9 against an Ace.  At W: a Peeks with insurance; b's
    Stand paying 4000 is not_allowed (Peek due), b's insured Peek paying
    floor(s/2)+1 is wrong_value, b Peeks without.  W+1 (K): the peek card
    makes a dealer blackjack: a Loses, insurance 3 x floor(s/2); b Loses;
    c Peeks insured, d without.  W+2 (7): a clear peek card for c and d, set
    aside.  W+3: d Surrenders: floor(s/2); e never acted: the default Peek.
    W+4 (4): e's peek card, clear; c Stands.  W+5 (Q): a blackjack behind
    c's Ace, skipped for its dealer's second card; e's Stand signed at seq
    0 paying 4000 is bad_signature (the timeout counted).  W+6 (7): c's
    dealer A+7 soft 18 stands: Win, insurance lost.  The default Stand of e
    at W+8; W+9 (6): e's dealer A+6 soft 17 hits; W+10 (10): hard 17, e
    Wins."""
    ra, rb, rc, rd, re = S.table(S.take(5), "10", "A", "9")
    pk_a = ra.send("Peek", ra.bet // 2, insurance=True)
    st_b = rb.send("Stand", REFUND)
    wv_b = rb.send("Peek", rb.bet // 2 + 1, insurance=True)
    pk_b = rb.send("Peek", insurance=False)
    S.mine()
    ra.act(pk_a, "Peek", insurance=True)
    S.rej(st_b, "not_allowed", "Stand", rb)
    S.rej(wv_b, "wrong_value", "Peek", rb)
    rb.act(pk_b, "Peek", insurance=False)
    pk_c = rc.send("Peek", rc.bet // 2, insurance=True)
    pk_d = rd.send("Peek", insurance=False)
    b = S.mine("K")
    ra.peek(b, True); ra.settle(b, [("Lose", 0)], ins_payout=3 * (ra.bet // 2))
    rb.peek(b, True); rb.settle(b, [("Lose", 0)])
    rc.act(pk_c, "Peek", insurance=True)
    rd.act(pk_d, "Peek", insurance=False)
    b = S.mine("7")
    rc.peek(b, False)
    rd.peek(b, False)
    su_d = rd.send("Surrender")
    b = S.mine()
    rd.act(su_d, "Surrender", 0); rd.settle(b, [("Surrender", rd.bet // 2)])
    re.timeout(b, "Peek")
    st_c = rc.send("Stand")
    b = S.mine("4")
    re.peek(b, False)
    rc.act(st_c, "Stand", 0)
    stale = re.send("Stand", REFUND, seq=0)
    b = S.mine("Q")
    w = b.h                               # e's window opens
    rc.skip(b)
    S.rej(stale, "bad_signature", "Stand", re)
    b = S.mine("7")
    rc.draw(b, "D"); rc.settle(b, [("Win", 2 * rc.bet)], ins_payout=0)
    while S.height() + 1 < w + S.T:
        S.mine()
    b = S.mine()
    re.timeout(b, "Stand", 0)
    re.draw(S.mine("6"), "D")
    b = S.mine("10")
    re.draw(b, "D"); re.settle(b, [("Win", 2 * re.bet)])
    return "5 rounds: insured and plain Peek into a blackjack, insured clear Peek, a " \
        "skipped Q, then Win; Surrender after Peek, default Peek and Stand (H17)"


def sc_bj_vs_5_bets_refused(S):
    """a, b, c bet at X with three Bets refused in the same block (below
    min_bet, above max_bet, a perfect-pairs side stake: refunded to their
    keys); d, e at X+1.  a..c: J, 5 up, A: Blackjack at X+3.  d, e: 5, A up,
    6 = 11.  X+5: d Peeks, e Peeks insured; X+6 (2): a clear peek card, set
    aside.  X+7: d Doubles, e Stands.  X+8 (10): d's card, 21; e's dealer
    plays: a 10 behind its Ace would be a blackjack, skipped for its second
    card (the same card d took).  X+9 (6): both dealers' second card, A+6
    soft 17, both hit (H17).  X+10 (3): soft 20; d's doubled 21 Wins 4s, e
    Loses (insurance lost)."""
    a, b, c, d, e, f, g, h = S.take(8)
    ra = [S.bet(p, S.stake()) for p in (a, b, c)]
    low = S.send_bet(f, MIN_BET - 1)
    high = S.send_bet(g, MAX_BET + 1)
    side = S.send_bet(h, 20001, S.tool("bet", "--key", h.key, "--perfect-pairs",
                                       "1000").strip())
    S.mine()
    for r in ra:
        r.accepted_bet()
    S.rej(low, "bet_out_of_limits", "Bet")
    S.rej(high, "bet_out_of_limits", "Bet")
    S.rej(side, "side_bets_not_offered", "Bet")
    rd, re = S.bet(d, S.stake()), S.bet(e, S.stake())
    x = S.mine("J")
    for r in ra:
        r.draw(x, 0)
    rd.accepted_bet(); re.accepted_bet()
    x = S.mine("5")
    for r in ra:
        r.draw(x, "D")
    rd.draw(x, 0); re.draw(x, 0)
    x = S.mine("A")
    for r in ra:
        r.draw(x, 0); r.settle(x, [("Blackjack", bj(r.bet))])
    rd.draw(x, "D"); re.draw(x, "D")
    x = S.mine("6")
    rd.draw(x, 0); re.draw(x, 0)
    pk_d = rd.send("Peek", insurance=False)
    pk_e = re.send("Peek", re.bet // 2, insurance=True)
    S.mine()
    rd.act(pk_d, "Peek", insurance=False)
    re.act(pk_e, "Peek", insurance=True)
    x = S.mine("2")
    rd.peek(x, False); re.peek(x, False)
    db_d = rd.send("Double", rd.bet)
    st_e = re.send("Stand")
    S.mine()
    rd.act(db_d, "Double", 0)
    re.act(st_e, "Stand", 0)
    x = S.mine("10")
    rd.draw(x, 0); re.skip(x)
    x = S.mine("6")
    rd.draw(x, "D"); re.draw(x, "D")
    x = S.mine("3")
    rd.draw(x, "D"); rd.settle(x, [("Win", 4 * rd.bet)])
    re.draw(x, "D"); re.settle(x, [("Lose", 0)], ins_payout=0)
    return "5 rounds: 3 Blackjacks vs 5, a doubled 11 Wins after Peek, insured Lose " \
        "(a 10 skipped for its dealer); 3 Bets refused"


def sc_doubles(S):
    """Five rounds 6+4 against 6.  At W: a Doubles; b's Double paying s-1 is
    wrong_value; c Hits; d Surrenders (at once); e Stands.  W+1 (K): a 20, c
    20; b Doubles.  W+2 (2): b 12; e's dealer 6+K+2 = 18, e Loses; c's Double
    on three cards is not_allowed, c Stands.  W+3 (10): a's dealer 18, a's
    doubled 20 Wins.  W+4 (5): b's and c's dealer 21: b's doubled 12 Loses,
    c Loses."""
    ra, rb, rc, rd, re = S.table(S.take(5), "6", "6", "4")
    db_a = ra.send("Double", ra.bet)
    wv_b = rb.send("Double", rb.bet - 1)
    hit_c = rc.send("Hit")
    st_e = re.send("Stand")
    su_d = rd.send("Surrender")
    S.mine()
    ra.act(db_a, "Double", 0)
    S.rej(wv_b, "wrong_value", "Double", rb)
    rc.act(hit_c, "Hit", 0)
    re.act(st_e, "Stand", 0)
    rd.act(su_d, "Surrender", 0); rd.settle(S.at(su_d), [("Surrender", rd.bet // 2)])
    db_b = rb.send("Double", rb.bet)
    b = S.mine("K")
    ra.draw(b, 0)
    rc.draw(b, 0)
    re.draw(b, "D")
    rb.act(db_b, "Double", 0)
    dd_c = rc.send("Double", rc.bet)
    st_c = rc.send("Stand")
    b = S.mine("2")
    ra.draw(b, "D")
    rb.draw(b, 0)
    re.draw(b, "D"); re.settle(b, [("Lose", 0)])
    S.rej(dd_c, "not_allowed", "Double", rc)
    rc.act(st_c, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, "D"); ra.settle(b, [("Win", 4 * ra.bet)])
    rb.draw(b, "D")
    rc.draw(b, "D")
    b = S.mine("5")
    rb.draw(b, "D"); rb.settle(b, [("Lose", 0)])
    rc.draw(b, "D"); rc.settle(b, [("Lose", 0)])
    return "5 rounds: Double Win, Double Lose, Surrender, 2 Lose; wrong_value, not_allowed"


def sc_split_8s(S):
    """Three rounds 8,8 against 6.  At W: a and b Split, c Stands.  W+1 (10):
    hands 0 get 18; c's dealer 16.  W+2 (3): hands 1 get 11; c's dealer 19, c
    Loses.  W+3: a Hits hand 1; b's Double of a split hand is not_allowed, b
    Stands hand 1.  W+4 (K): a's hand 1 21 stands; b Stands hand 0.  W+5
    (9): b's dealer 15; a Stands hand 0.  W+6 (10): b's dealer busts: both
    hands Win; a's dealer 16.  W+7 (5): 21: a's 18 Loses, its 21 Pushes."""
    ra, rb, rc = S.table(S.take(3), "8", "6", "8")
    sp_a = ra.send("Split", ra.bet)
    sp_b = rb.send("Split", rb.bet)
    st_c = rc.send("Stand")
    S.mine()
    ra.act(sp_a, "Split", 0)
    rb.act(sp_b, "Split", 0)
    rc.act(st_c, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, 0); rb.draw(b, 0); rc.draw(b, "D")
    b = S.mine("3")
    ra.draw(b, 1); rb.draw(b, 1)
    rc.draw(b, "D"); rc.settle(b, [("Lose", 0)])
    hit_a = ra.send("Hit")
    db_b = rb.send("Double", rb.bet)
    st_b = rb.send("Stand")
    S.mine()
    ra.act(hit_a, "Hit", 1)
    S.rej(db_b, "not_allowed", "Double", rb)
    rb.act(st_b, "Stand", 1)
    st_b = rb.send("Stand")
    b = S.mine("K")
    ra.draw(b, 1)
    rb.act(st_b, "Stand", 0)
    st_a = ra.send("Stand")
    b = S.mine("9")
    rb.draw(b, "D")
    ra.act(st_a, "Stand", 0)
    b = S.mine("10")
    ra.draw(b, "D")
    rb.draw(b, "D"); rb.settle(b, [("Win", 2 * rb.bet), ("Win", 2 * rb.bet)])
    b = S.mine("5")
    ra.draw(b, "D"); ra.settle(b, [("Lose", 0), ("Push", ra.bet)])
    return "3 rounds: split Win+Win, split Lose+Push, Lose; no Double after a split"


def sc_split_10j(S):
    """Four rounds 10, J against 9.  At W: a and c Split (pairs by value), b
    Stands, d Hits.  W+1 (A): hands 0 make a two-card 21 (not a blackjack);
    b's dealer 20: Push; d 21.  W+2 (Q): hands 1 20; d's dealer 19, d Wins.
    W+3: a Stands hand 1; c's second Split is not_allowed, c Stands.  W+4 (A):
    the dealer 20: hands 0 Win 1:1, hands 1 Push."""
    ra, rb, rc, rd = S.table(S.take(4), "10", "9", "J")
    sp_a = ra.send("Split", ra.bet)
    st_b = rb.send("Stand")
    sp_c = rc.send("Split", rc.bet)
    hit_d = rd.send("Hit")
    S.mine()
    ra.act(sp_a, "Split", 0)
    rb.act(st_b, "Stand", 0)
    rc.act(sp_c, "Split", 0)
    rd.act(hit_d, "Hit", 0)
    b = S.mine("A")
    ra.draw(b, 0)
    rb.draw(b, "D"); rb.settle(b, [("Push", rb.bet)])
    rc.draw(b, 0)
    rd.draw(b, 0)
    b = S.mine("Q")
    ra.draw(b, 1)
    rc.draw(b, 1)
    rd.draw(b, "D"); rd.settle(b, [("Win", 2 * rd.bet)])
    st_a = ra.send("Stand")
    sp2_c = rc.send("Split", rc.bet)
    st_c = rc.send("Stand")
    S.mine()
    ra.act(st_a, "Stand", 1)
    S.rej(sp2_c, "not_allowed", "Split", rc)
    rc.act(st_c, "Stand", 1)
    b = S.mine("A")
    for r in (ra, rc):
        r.draw(b, "D"); r.settle(b, [("Win", 2 * r.bet), ("Push", r.bet)])
    return "4 rounds: 2 splits of 10-J (21 paid 1:1, Push), Push, Win; a second Split refused"


def sc_vs_ten_surrender(S):
    """Four rounds 10+6 against K.  At W: a Surrenders (the dealer's second
    card is due: a Stand after it paying 4000 is not_allowed); d Hits.  W+1
    (7): no blackjack: a gets floor(s/2); d busts; b Surrenders, c Stands.
    W+2 (A): dealer blackjack: b's Surrender Loses all, c DealerBlackjack."""
    ra, rb, rc, rd = S.table(S.take(4), "10", "K", "6")
    su_a = ra.send("Surrender")
    st_a = ra.send("Stand", REFUND, seq=1)
    hit_d = rd.send("Hit")
    S.mine()
    ra.act(su_a, "Surrender", 0)
    S.rej(st_a, "not_allowed", "Stand", ra)
    rd.act(hit_d, "Hit", 0)
    su_b = rb.send("Surrender")
    st_c = rc.send("Stand")
    b = S.mine("7")
    ra.draw(b, "D"); ra.settle(b, [("Surrender", ra.bet // 2)])
    rd.draw(b, 0); rd.settle(b, [("Bust", 0)])
    rb.act(su_b, "Surrender", 0)
    rc.act(st_c, "Stand", 0)
    b = S.mine("A")
    rb.draw(b, "D"); rb.settle(b, [("Lose", 0)])
    rc.draw(b, "D"); rc.settle(b, [("DealerBlackjack", 0)])
    return "4 rounds: Surrender vs K+7, Surrender vs K+A, DealerBlackjack, Bust"


def sc_vs_ten_double_split(S):
    """Four rounds 5,5 against Q.  At W: a Doubles, b Splits, c Stands.  W+1
    (9): a 19; b's hand 0 14; c's dealer 19, c Loses; d Doubles.  W+2 (A):
    a's dealer blackjack found late: the doubled hand returns s; b's hand 1
    soft 16; d 21.  W+3 (8): d's dealer 18, d's doubled 21 Wins; b Stands
    hand 1.  W+4: b Stands hand 0.  W+5 (A): dealer blackjack: b's hands
    return 0 and s."""
    ra, rb, rc, rd = S.table(S.take(4), "5", "Q", "5")
    db_a = ra.send("Double", ra.bet)
    sp_b = rb.send("Split", rb.bet)
    st_c = rc.send("Stand")
    S.mine()
    ra.act(db_a, "Double", 0)
    rb.act(sp_b, "Split", 0)
    rc.act(st_c, "Stand", 0)
    db_d = rd.send("Double", rd.bet)
    b = S.mine("9")
    ra.draw(b, 0)
    rb.draw(b, 0)
    rc.draw(b, "D"); rc.settle(b, [("Lose", 0)])
    rd.act(db_d, "Double", 0)
    b = S.mine("A")
    ra.draw(b, "D"); ra.settle(b, [("DealerBlackjack", ra.bet)])
    rb.draw(b, 1)
    rd.draw(b, 0)
    st_b = rb.send("Stand")
    b = S.mine("8")
    rd.draw(b, "D"); rd.settle(b, [("Win", 4 * rd.bet)])
    rb.act(st_b, "Stand", 1)
    st_b = rb.send("Stand")
    S.mine()
    rb.act(st_b, "Stand", 0)
    b = S.mine("A")
    rb.draw(b, "D"); rb.settle(b, [("DealerBlackjack", 0), ("DealerBlackjack", rb.bet)])
    return "4 rounds: late dealer blackjack after a Double and after a Split " \
        "(added stakes back), Double Win, Lose"


def sc_timeouts_and_strays(S):
    """Three rounds 10+8 against 9.  At W: a Hit for a's round signed by c's
    key, paying 4000: bad_signature, refunded to a's key.  W+1: c
    Surrenders (at once).  W+2: c's Stand for its settled round paying
    4000 is no_round, a Stand payload one byte too long paying 4000 is
    too_long (both unattributed: never paid).  W+3: b Stands in the last
    block of its window; a never acted: the default Stand.  W+4 (8): 17,
    both Win."""
    ra, rb, rc = S.table(S.take(3), "10", "9", "8")
    foreign = ra.send("Hit", REFUND, signer=rc.who)
    S.mine()
    S.rej(foreign, "bad_signature", "Hit", ra)
    su_c = rc.send("Surrender")
    S.mine()
    rc.act(su_c, "Surrender", 0); rc.settle(S.at(su_c), [("Surrender", rc.bet // 2)])
    late = rc.send("Stand", REFUND)
    toolong = S.send(rb.who, rb.sign("Stand") + "ff", REFUND)
    S.mine()
    S.rej(late, "no_round", "Stand")
    S.rej(toolong, "too_long", "Stand")
    st_b = rb.send("Stand")
    b = S.mine()
    if b.h != ra.tx.h + 4 + S.T:
        raise Failed("window arithmetic: %d != %d" % (b.h, ra.tx.h + 4 + S.T))
    rb.act(st_b, "Stand", 0)
    ra.timeout(b, "Stand", 0)
    b = S.mine("8")
    for r in (ra, rb):
        r.draw(b, "D"); r.settle(b, [("Win", 2 * r.bet)])
    return "3 rounds: default Stand, a Stand at W+T, Surrender; 2 unattributed refunds"


SESSION_GROUPS = [book.sc_vs9_lose_bust_surrender, book.sc_vs7_push_win_bust,
                  sc_bj_vs_ten, sc_peek, book.sc_bj_vs_ace, sc_bj_vs_5_bets_refused,
                  sc_doubles, sc_split_8s, sc_split_10j, sc_vs_ten_surrender,
                  sc_vs_ten_double_split, sc_timeouts_and_strays]


class SessionChecks(checks.GameRunner):
    """checks.GameRunner's end of a session (the card log byte for byte
    against the model, group by group; the log against `hashjack replay`;
    the transactions and payouts tables against the model; stderr; SIGTERM),
    reporting through this file's Runner."""

    CHAIN = "bitcoin"
    CONFIRMATIONS = 2

    def __init__(self, R):
        super().__init__(R.args, R.workdir)
        self.R = R

    def report(self, ok, name, detail, t0=None):
        self.R.report(ok, name, detail)

    def scenario_detail(self, detail, h0, h1, took):
        return "%s (blocks %d..%d, %.1fs)" % (detail, h0, h1, took)

    def payouts_detail(self, want, kinds):
        return "%d rows (%s; %d unattributed, owed)" % (len(want), ", ".join(
            "%d %s" % (n, k) for k, n in sorted(kinds.items())),
            sum(1 for v in want.values() if v[5] is None))


def model_counts(S):
    """What the model says the session holds: rounds, hand results, insurance
    taken, timeouts, rejections by reason, actions by name, peek cards by
    verdict ("peek blackjack", "peek clear") and skipped blocks ("skip")."""
    rounds = 0
    results = collections.Counter()
    rej = collections.Counter()
    acts = collections.Counter()
    for evs in S.exp.values():
        for e in evs:
            if e["type"] == "settle":
                rounds += 1
                for hd in e["playerHands"]:
                    results[hd["status"]] += 1
                if "insurance" in e:
                    results["insured"] += 1
            elif e["type"] == "reject":
                rej[e["reason"]] += 1
            elif e["type"] == "timeout":
                acts["timeout " + e["action"]] += 1
            elif e["type"] == "action":
                acts[e["action"]] += 1
            elif e["type"] == "peek":
                acts["peek blackjack" if e["dealerBlackjack"] else "peek clear"] += 1
            elif e["type"] == "skip":
                acts["skip"] += 1
    return rounds, results, rej, acts


def check_session_paid(R, S):
    """After the daemon stopped: each player's tr(P) holds exactly what the
    model's ledger owes it; every payout is in exactly one confirmed batch
    (the unattributed ones in none) and each tr(P)'s outputs are exactly
    those batches' outputs to it; one wallet transaction per batch."""
    want = S.expected_payouts()
    owed = collections.Counter()
    for v in want.values():
        if v[5]:
            owed[v[5]] += int(v[6])
    bad = []
    outs = 0
    for p in S.players:
        got = unspents(S.node, p.addr)
        outs += len(got)
        total = sum(v for _, v in got)
        if total != owed[p.P]:
            bad.append("%s: tr(P) received %d in %d outputs, the model says %d"
                       % (p.name, total, len(got), owed[p.P]))
    R.report(not bad and sum(owed.values()) > 0,
             "session: each tr(P) received exactly the model's returns and refunds",
             "%d players (%d paid), %d litoshis in %d outputs (%s)" % (
                 len(S.players), len(owed), sum(owed.values()), outs,
                 ", ".join(str(owed[p.P]) for p in S.players))
             if not bad else "; ".join(bad[:4]))

    # Nothing twice: each payout in one batch, confirmed; each batch
    # output paid once, to the address and amount its payouts add up to.
    addr_of = {p.P: p.addr for p in S.players}
    bad, outs = checks.batch_problems(
        S.query, {pid: (v[5] and addr_of.get(v[5], "P=" + v[5]), int(v[6]))
                  for pid, v in want.items()}, paying=("sent", "confirmed"))
    paid = collections.defaultdict(list)
    for bid, state, txid, _, _ in S.batches():
        if state in ("sent", "confirmed"):
            for addr, amount in outs.get(bid, []):
                paid[addr].append((txid, amount))
    for p in S.players:
        got = unspents(S.node, p.addr)
        if sorted(paid[p.addr]) != got:
            bad.append("%s: tr(P) holds %s, the batches paid %s"
                       % (p.name, got, sorted(paid[p.addr])))
        dup = [t for t, n in collections.Counter(t for t, _ in got).items() if n > 1]
        if dup:
            bad.append("%s: paid twice by %s" % (p.name, dup))
    comments = wallet_comments(S.node.wallet(S.payer), "hashjack:%s:" % S.tag())
    sent = [b for b in S.batches() if b[1] in ("sent", "confirmed", "reverted")]
    dup = {c: t for c, t in comments.items() if len(t) != 1}
    if dup or len(comments) != len(sent) or \
            {b[2] for b in sent} != (set().union(*comments.values()) if comments else set()):
        bad.append("wallet: %d comments for %d batches, duplicated %s"
                   % (len(comments), len(sent), dup))
    R.report(not bad, "session: every payout paid once, in one confirmed batch",
             "%d payouts in %d batches, one wallet transaction each" % (
                 sum(1 for v in want.values() if v[5]), len(sent))
             if not bad else "; ".join(bad[:4]))
    return not bad


def session(R):
    node = R.node
    t0 = time.monotonic()
    S = ModelSession(R, "session", "pay-session")
    R.sessions.append(S)
    for _ in range(SESSION_PLAYERS):
        S.player()
    S.start()
    node.mine(2)
    S.dm.wait_height(S.first, 30)
    C = SessionChecks(R)
    played = C.play(S, SESSION_GROUPS)
    n_blocks = node.height() - S.first + 1
    t_play = time.monotonic() - t0
    try:
        S.settle_wait(timeout=60)
    except Failed as e:
        R.report(False, "session: every payout confirmed", str(e))
    rounds, results, rej, acts = model_counts(S)
    C.finish(S, played)
    check_session_paid(R, S)
    owed = collections.Counter()
    for v in S.expected_payouts().values():
        if v[5]:
            owed[v[5]] += int(v[6])
    checks.check_verify_paid(R, "session", S.dm.conf, S.dm.card_log, owed)
    hands = sum(v for k, v in results.items() if k != "insured")
    missing = [k for k in ("Win", "Lose", "Push", "Bust", "Blackjack", "DealerBlackjack",
                           "Surrender", "insured") if not results[k]]
    R.report(rounds >= 50 and not missing and not any(x[4] for x in played),
             "session: %d rounds by %d players, every outcome" % (rounds, len(S.players)),
             "%d hands: %s; %d insured" % (hands, " ".join(
                 "%s=%d" % (k, v) for k, v in sorted(results.items()) if k != "insured"),
                 results["insured"]) + ("; missing %s" % missing if missing else ""))
    missing = [k for k in ("wrong_value", "premature", "not_allowed", "bad_signature",
                           "bet_out_of_limits", "too_long") if not rej[k]]
    R.report(not missing, "session: %d rejections" % sum(rej.values()),
             " ".join("%s=%d" % kv for kv in sorted(rej.items()))
             + ("; missing %s" % missing if missing else ""))
    missing = [k for k in ("Hit", "Stand", "Double", "Split", "Surrender", "Peek",
                           "timeout Peek", "timeout Stand", "peek blackjack", "peek clear",
                           "skip") if not acts[k]]
    R.report(not missing, "session: every action, timeouts, both peek verdicts, skips",
             " ".join("%s=%d" % kv for kv in sorted(acts.items()))
             + ("; missing %s" % missing if missing else ""))
    R.report(True, "session: run time",
             "%.1fs (played in %.1fs: %d blocks, %d generateblock tries)"
             % (time.monotonic() - t0, t_play, n_blocks, S.tries))


# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# Sweeps to cold storage: [payout] sweep_to

def sweep(R):
    """The paying wallet holds 3 LTC; a round is open.  Once the daemon has
    dealt every final block, a pass records a sweep of what exceeds the
    reserve (the open round's worst case and the margin); its sendmany is
    swallowed by a proxy and the daemon killed; restarted, it finds nothing
    sent and sends it, once: the cold address (P2WPKH) receives exactly the amount
    recorded, and the wallet keeps the reserve less the sweep's fee.
    Funds that come in are not swept within sweep_every blocks, and are
    after.  status, the ledger and /metrics say the sweeps apart."""
    node = R.node
    margin, every = 1000000, 6
    cold_wallet = node.create_wallet("cold-sweep")
    cold = cold_wallet.new_address()
    S = Session(R, "sweep", node, R.wallets, "pay-sweep", confirmations=1,
                payout={"sweep_to": cold, "sweep_margin": margin, "sweep_every": every},
                metrics=True)
    R.sessions.append(S)
    w = node.wallet(S.payer)
    p = S.player()
    S.bet(p, 20000)  # an open round: its worst case stays in the wallet
    S.mine()
    rc, out, _ = S.dm.check_config()
    R.report(rc == 0 and ("sweeps: what the wallet holds beyond the reserve goes to %s, at most "
                          "once every %d blocks" % (cold, every)) in out,
             "sweep: --check-config prints the rule", out[-400:])
    # Its sendmany never reaches the node (a proxy swallows it) and the
    # daemon is killed meanwhile: the restart must find nothing sent and
    # send it, once.
    proxy = RpcProxy(node.url, "sendmany", timeout=60)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url]
    proxy.arm("swallow")
    mark = len(S.dm.stderr())
    S.start()
    try:
        wait_until(lambda: "payouts: sweep of" in S.dm.stderr()[mark:] and proxy.swallowed >= 1, 30,
                   "a sweep recorded and its sendmany sent")
    finally:
        S.dm.kill9()
        proxy.disarm()
        S.dm.overrides = []
    line = [x for x in S.dm.stderr()[mark:].splitlines() if "payouts: sweep of" in x]
    rows = S.query("SELECT p.id, p.kind, p.amount, p.state, b.state FROM payouts p "
                   "JOIN payout_batch_items i ON i.payout = p.id JOIN payout_batches b ON b.id = i.batch")
    R.report(len(rows) == 1 and rows[0][1] == "sweep" and rows[0][4] == "planned" and line,
             "sweep: a pass records a sweep once every final block is dealt (a round open); its "
             "sendmany lost, the daemon killed",
             "%s; %s" % (rows, line[:1]))
    S.start()
    try:
        wait_until(lambda: S.query("SELECT state FROM payouts") == [("submitted",)] or
                   S.query("SELECT state FROM payouts") == [("confirmed",)], 30, "the sweep sent")
        S.mine()
        wait_until(lambda: S.query("SELECT state FROM payouts") == [("confirmed",)], 30,
                   "the sweep confirmed")
    except TimeoutError as e:
        R.report(False, "sweep: sent after the restart", "%s: %s" % (e, S.dm.stderr()[-600:]))
        return
    (sid, _, amount, _), = S.query("SELECT id, kind, amount, state FROM payouts")
    amount = int(amount)
    got, n = utxo_total(node, cold)
    [(txid,)] = S.query("SELECT lower(hex(txid)) FROM payout_batches")
    tx = w.rpc("gettransaction", txid)
    fee = -coin_to_sats(tx["fee"])
    bal = coin_to_sats(w.rpc("getbalance"))
    expo = int(json.loads(subprocess.run([R.hashjack, "status", "-c", S.dm.conf, "--json"],
                                         capture_output=True, text=True, timeout=60).stdout)["exposure"])
    R.report(got == amount and n == 1 and bal + fee == expo + margin,
             "sweep: the cold address received exactly the amount recorded, once; the wallet keeps "
             "the open round's worst case and the margin, less the sweep's fee",
             "cold %d in %d outputs, recorded %d; wallet %d + fee %d, worst case %d + margin %d"
             % (got, n, amount, bal, fee, expo, margin))
    # 0.5 LTC comes in: not swept before sweep_every blocks from the first.
    h0 = int(sid.split(":")[1])
    node.fund(S.payer, COIN // 2)
    while node.height() < h0 + every - 1:
        S.mine()
        S.dm.wait_height(node.height(), 30)
    early = S.query("SELECT count(*) FROM payouts")
    S.mine()
    try:
        wait_until(lambda: S.query("SELECT count(*) FROM payouts WHERE state = 'submitted'") == [(1,)],
                   30, "the second sweep sent")
        S.mine()
        wait_until(lambda: S.query("SELECT count(*) FROM payouts WHERE state <> 'confirmed'") == [(0,)],
                   30, "the second sweep confirmed")
    except TimeoutError as e:
        R.report(False, "sweep: a second sweep after sweep_every blocks", "%s: %s"
                 % (e, S.dm.stderr()[-600:]))
        return
    sweeps = S.query("SELECT id, amount FROM payouts ORDER BY created_height")
    got, n = utxo_total(node, cold)
    R.report(early == [(1,)] and len(sweeps) == 2 and int(sweeps[1][0].split(":")[1]) >= h0 + every
             and got == sum(int(a) for _, a in sweeps) and n == 2,
             "sweep: nothing within sweep_every blocks; what came in is swept after",
             "%s; cold %d in %d outputs" % (sweeps, got, n))
    st = json.loads(subprocess.run([R.hashjack, "status", "-c", S.dm.conf, "--json"],
                                   capture_output=True, text=True, timeout=60).stdout)
    lj = subprocess.run([R.hashjack, "ledger", "-c", S.dm.conf, "--kind", "sweep", "--json"],
                        capture_output=True, text=True, timeout=60)
    rows = [json.loads(x) for x in lj.stdout.splitlines()]
    mx = S.dm.metrics()[0]
    total = sum(int(a) for _, a in sweeps)
    sv = Serve(R.hashjack, S.dm)
    try:
        sv.start()
        api = sv.json("/v1/payouts?kind=sweep")["payouts"]
    finally:
        sv.close()
    R.report(st["swept"] == {"count": 2, "amount": str(total)}
             and [r["recipient"] for r in rows] == [cold, cold] and lj.returncode == 0
             and metric(mx, "hashjackd_sweeps") == 2 and metric(mx, "hashjackd_swept_amount") == total
             and api == rows,
             "sweep: status, the ledger (the cold address), /metrics and the API's "
             "/v1/payouts?kind=sweep count both sweeps",
             "%s; %s; %s; api %s" % (st["swept"], [(r["id"], r["recipient"]) for r in rows], lj.stderr,
                                     api))
    rc = S.dm.stop()
    R.report(rc == 0, "sweep: hashjackd exits 0 on SIGTERM", "status %s" % rc)


# --------------------------------------------------------------------------
# A reorganisation deeper than the confirmations: hashjack reorg --rewind

def reorg(R):
    """Two refunds, A then B three blocks later, dealt in one catch-up batch
    and paid; the node then invalidates B's block, so that B's Bet stays in
    the mempool (the new branch is mined without it, by generateblock) and
    the payout transaction leaves the mempool if its locktime is now in the
    future (the wallet's anti-fee-sniping locktime is the tip when it was
    made, or, one time in ten, up to 99 blocks before it: then it stays).  hashjackd stops (exit 3); `hashjack reorg` names the fork
    point; `--rewind` goes back below A, keeps the log's lines aside and
    orphans both payouts.  Restarted, the daemon deals A again (taken back,
    not paid twice), sends the same transaction again once the chain is past
    its locktime, and it confirms: each tr(P) holds exactly its refund, B's
    the dealer's loss (orphaned, in status); the log verifies, and the lines
    kept aside name the fork point."""
    node = R.node
    # The blocks taken away were dealt by every daemon on this node: the
    # other sessions' are stopped first.
    for other in R.sessions:
        other.dm.close()
    S = Session(R, "reorg", node, R.wallets, "pay-reorg", confirmations=2)
    R.sessions.append(S)
    S.start()
    node.mine(2)
    S.dm.wait_height(S.first, 30)
    S.dm.stop()
    pa, pb = S.player(), S.player()
    tA = S.refund_bet(pa, 8000)
    hA = S.mine()
    node.mine(2)
    fork = node.height()
    tB = S.refund_bet(pb, 9000)
    S.mine()
    node.mine(2)
    S.start()
    rows = S.settle_wait()
    paid = sorted((r["id"], r["state"]) for r in rows.values())
    sent = {r["txid"] for r in rows.values()}
    pay = node.wallet(S.payer)
    lock = {t: node.rpc("decoderawtransaction", pay.rpc("gettransaction", t)["hex"])["locktime"]
            for t in sent}
    tip = node.height()
    node.rpc("invalidateblock", node.rpc("getblockhash", fork + 1))
    pool = set(node.rpc("getrawmempool"))
    # What stays is final in the block after the new tip (fork): its
    # locktime at or below the fork point.
    stays = {t for t, lt in lock.items() if lt <= fork}
    for _ in range(tip - fork + 1):
        node.rpc("generateblock", node.fresh_address(), [])
    try:
        rc = S.dm.wait_exit(15)
    except TimeoutError:
        rc = None
    S.dm.stop()
    R.report(rc == 3 and len(paid) == 2 and all(st == "confirmed" for _, st in paid)
             and tB in pool and sent & pool == stays,
             "reorg: both refunds paid; block %d invalidated: B's Bet back in the mempool, the "
             "payout transaction out of it unless its locktime is at or below the fork point; "
             "the daemon stops" % (fork + 1),
             "exit %s; %s; mempool %s, payouts %s, locktimes %s" % (rc, paid, sorted(pool), sent,
                                                                   lock))
    rep = subprocess.run([R.hashjack, "reorg", "-c", S.dm.conf], capture_output=True, text=True,
                         timeout=60)
    R.report(rep.returncode == 1 and "fork point      block %d" % fork in rep.stdout
             and "1 confirmed (9000)" in rep.stdout,
             "reorg: hashjack reorg names the fork point and refund B, paid",
             rep.stdout[-600:] + rep.stderr[-300:])
    log_before = open(S.dm.card_log, "rb").read()
    rw = subprocess.run([R.hashjack, "reorg", "-c", S.dm.conf, "--rewind"], capture_output=True,
                        text=True, timeout=60)
    m = re.search(r"rewound to block (\d+) .*\n.*kept aside in (\S+);", rw.stdout)
    to = int(m.group(1)) if m else None
    aside = open(m.group(2), "rb").read() if m and os.path.exists(m.group(2)) else b""
    log_after = open(S.dm.card_log, "rb").read()
    orphans = S.query("SELECT id FROM payouts WHERE orphaned IS NOT NULL")
    R.report(rw.returncode == 0 and to is not None and to < hA and log_after + aside == log_before
             and "2 paid or in flight kept, orphaned (17000 litoshi)" in rw.stdout
             and len(orphans) == 2,
             "reorg: --rewind goes back below refund A, keeps the log's lines aside, orphans both "
             "payouts", "%s%s; orphans %s" % (rw.stdout[-900:], rw.stderr[-300:], orphans))
    S.start()
    # The new branch, without B's Bet: the payout transaction comes back
    # once the chain is past its locktime, and is mined.
    t0 = time.monotonic()
    while True:
        txs = [t for t in node.rpc("getrawmempool") if t != tB]
        node.rpc("generateblock", node.fresh_address(), txs)
        S.dm.wait_height(node.height() - 1, timeout=30)
        rows = S.payouts()
        if all(r["state"] == "confirmed" for r in rows.values()) and \
                S.query("SELECT count(*) FROM payouts WHERE orphaned IS NULL") == [(1,)]:
            break
        if time.monotonic() - t0 > 60:
            break
        time.sleep(0.2)
    orphans = S.query("SELECT id, state, orphaned FROM payouts WHERE orphaned IS NOT NULL")
    R.report(orphans == [("refund:" + tB, "confirmed", to)] and tB in node.rpc("getrawmempool"),
             "reorg: refund A taken back when its block is dealt again; refund B, whose Bet is not "
             "on the chain, stays orphaned and paid: the dealer's loss",
             "%s; %s" % (orphans, [(r["id"], r["state"]) for r in rows.values()]))
    st = subprocess.run([R.hashjack, "status", "-c", S.dm.conf], capture_output=True, text=True,
                        timeout=60)
    R.report(re.search(r"^  orphaned +1 payout, 9000 litoshi \(.*\): sent for blocks that left the "
                       r"chain$", st.stdout, re.M),
             "reorg: status says the orphaned payout apart", st.stdout[-600:] + st.stderr)
    v = subprocess.run([R.hashjack, "verify", "-c", S.dm.conf], capture_output=True, text=True,
                       timeout=120)
    R.report(v.returncode == 0, "reorg: the card log verifies against the new chain",
             v.stdout[-300:] + v.stderr[-300:])
    va = subprocess.run([R.hashjack, "verify", "-c", S.dm.conf, "--card-log", m.group(2)],
                        capture_output=True, text=True, timeout=120) if m else None
    R.report(va is not None and va.returncode == 3
             and "both after block %d: the log leaves your node's chain there" % fork in va.stdout,
             "reorg: verify on the lines kept aside names the fork point",
             (va.stdout[-500:] + va.stderr[-300:]) if va else "no file aside")
    check_paid(R, S, rows, "after the rewind")
    rc = S.dm.stop()
    R.report(rc == 0, "reorg: hashjackd exits 0 on SIGTERM", "status %s" % rc)


class Runner(checks.PayoutRunner):
    """checks.PayoutRunner with the one node all sessions share and the
    players' wallets on it."""

    def __init__(self, args, workdir):
        super().__init__(args, workdir)
        self.node = None
        self.wallets = []

    def setup(self):
        n = self.node = Litecoind(workdir=os.path.join(self.workdir, "node"))
        n.start()
        n.mine(110)
        amounts = {}
        for i in range(N_WALLETS):
            w = n.create_wallet("w%d" % i)
            self.wallets.append(w.name)
            for a in w.rpc_batch([("getnewaddress", ["", "bech32"])] * UTXOS):
                amounts[a] = sats_to_coin(UTXO_SATS)
        n.funder_mature(UTXO_SATS * len(amounts) + 20 * COIN)
        n.wallet(n.FUNDER).rpc("sendmany", "", amounts)
        n.mine(1)

    def close(self):
        super().close()
        if self.node is not None:
            self.node.stop()


def main():
    args = checks.payout_args(__doc__, "only the session whose name contains this "
                              "(game, session, faults, halt, unconfirmed, encrypted, sweep, reorg)", 280)
    install_cleanup(args.timeout)
    find_litecoind()
    wd = checks.WorkDir("hj-e2e-ltc-payouts-", args.keep)
    t0 = time.monotonic()
    print("seed %d" % args.seed, flush=True)
    R = Runner(args, wd.path)
    try:
        R.setup()
        for name, fn in (("game", game), ("session", session),
                         ("faults", lambda r: faults(r, args.kills)), ("halt", halt),
                         ("unconfirmed", unconfirmed), ("encrypted", encrypted),
                         ("sweep", sweep), ("reorg", reorg)):
            if args.only and not any(k in name for k in args.only):
                continue
            try:
                fn(R)
            except Exception as e:  # noqa: BLE001 - report, go on
                traceback.print_exc()
                R.report(False, "%s: session" % name, "%s: %s" % (type(e).__name__, e))
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        R.report(False, "setup", "%s: %s" % (type(e).__name__, e))
    finally:
        R.close()
        kill_children()
        wd.close(R.failed)
    print("%d passed, %d failed (%.0fs)" % (R.passed, R.failed, time.monotonic() - t0))
    return 1 if R.failed or not R.passed else 0


if __name__ == "__main__":
    sys.exit(main())
