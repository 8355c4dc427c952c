#!/usr/bin/env python3
"""Fault tests of hashjackd on the Bitcoin family, against a real litecoind
in regtest with real transactions (issue 4, item 5), the counterpart of
tests/e2e/test_faults.py (EVM):

  reorg_shallow     confirmations = 3; invalidateblock of tip-1, of the tip
                    and of tip-1 again, the blocks re-mined with other
                    contents (a deposit and a Bet moved, a Hit dropped for
                    good by a conflicting spend, a Stand added) while the
                    daemon sits at the edge: it never logs a replaced block
                    or the dropped transaction, logs no reorganisation, and
                    its log and database equal a fresh daemon's over the
                    final chain and `hashjack replay` of it
  reorg_deep        confirmations = 2; reorgs of depth 2 and 4 after the
                    daemon processed the blocks: exit 3 promptly, heights
                    and both hashes named, card log and database unchanged
                    (also after a restart, which exits 3 again)
  kill9_session     >= 20 kill -9 at random instants (following, a few ms
                    after a start, in the middle of catch-ups onto backlogs)
                    while five players play (Bets, signed actions, forged,
                    stale and replayed signatures, timeouts); restarted each
                    time, resuming at the commit; log and
                    database equal to an uninterrupted daemon's and the log
                    to `hashjack replay`
  node_restart      litecoind stopped and started (a new cookie): the daemon
                    reads the cookie again after the 401 and goes on; node
                    down 5 s: retries, goes on; a second daemon started while
                    the node is down waits, naming the cookie file; no block
                    skipped, logs equal replay, databases equal
  sigterm_catchup   SIGTERM while following with rounds open and three times
                    in the middle of a 2500-block catch-up: exit 0 within
                    5 s, log and cursor agree, the restart resumes at the
                    commit; log and database equal an uninterrupted daemon's
  config_identity   a dealer address of another network (ltc1, bc1, bcrt1,
                    tltc) or the wrong coin -> exit 78 naming both prefixes;
                    a state directory of another dealer, rules or coin ->
                    exit 4 naming the difference, nothing changed; a missing,
                    then malformed cookie file: the daemon retries naming the
                    file and deals once it is right
  mweb_catchup      litecoind with MWEB active from 432 (HogEx, extension
                    blocks, peg-ins, a peg-out paying the dealer): a daemon
                    catching up over blocks 416.. (killed -9 twice on the
                    way) equals one that followed them and `hashjack replay`

    python3 tests/e2e/test_ltc_faults.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--seed N]

Python 3 standard library only; uses the harness of tests/e2e/ (litecoind:
btc_node.py) and the checks shared with tests/e2e/test_faults.py
(tests/e2e/checks.py).
Binds 127.0.0.1 only; every wait has a deadline, the whole run too
(--timeout).  Prints one line per case and a closing "N passed, M failed";
exit status 1 when a case failed.
"""

import json
import os
import random
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from btc_node import (COIN, Litecoind, MWEB_HEIGHT, bet_payload, find_litecoind,  # noqa: E402
                      parse_tx, sats_to_coin)
from checks import (Failed, Kills, check, check_as_uninterrupted, check_bytes,  # noqa: E402
                    check_db_equal, check_eq, check_heights, check_log_matches_cursor,
                    check_no_reorg, check_reorg_refused, check_reorg_report, check_retries,
                    db_rows, error_lines, fault_main,
                    file_size, fmt_counts, hand_total, log_bytes, run_tracked, settle_quiet,
                    sigterm_measured, stderr_since, stderr_size, summary, tail_text, wait_cursor,
                    wait_log_height)
from daemon import litecoind_daemon  # noqa: E402
from logs import last_logged_height  # noqa: E402
from players import CardLogPlayers, LogPlayer  # noqa: E402
from procs import wait_until  # noqa: E402
from tool import replay  # noqa: E402

MIN_BET = 10000          # litoshis; above the 2940 dust limit even halved
MAX_BET = 10 ** 9
TB = 12                  # timeout_blocks (the Bitcoin family's default)
RESUMED = re.compile(r"resuming after block (\d+), (\d+) open rounds, card log at (\d+) bytes")
CHAIN = "bitcoin"        # the card log's "chain"


# --------------------------------------------------------------------------
# Helpers of this file (the generic ones are checks.py's)

def mine_until_empty(n, tries=5):
    for _ in range(tries):
        if not n.mempool():
            return
        n.mine(1)
    check_eq(n.mempool(), [], "mempool after mining")


def gen_block(n, items):
    """generateblock with exactly these transactions (txids from the
    mempool, or raw hex), in this order, to a fresh address (a re-mined
    block must not come out identical to an invalidated one).  Not on an
    MWEB chain: litecoind 0.21.2's generateblock fails there."""
    return n.rpc("generateblock", n.fresh_address(), list(items))["hash"]


def conflict_of(n, wallet, txid):
    """A transaction of wallet spending txid's first input back to the wallet
    (raw hex, not sent): mined instead of txid, it drops txid for good."""
    w = n.wallet(wallet)
    vin = parse_tx(n.sent.get(txid) or n.raw_tx(txid))["vin"][0]
    prev = parse_tx(w.rpc("gettransaction", vin["txid"])["hex"])
    out = prev["vout"][vin["vout"]]
    spent = {"txid": vin["txid"], "vout": vin["vout"]}
    raw = n.rpc("createrawtransaction", [spent],
                [{w.new_address(): sats_to_coin(out["value"] - 5000)}])
    # the coin is spent (by txid): the signer is told what it was
    signed = w.rpc("signrawtransactionwithwallet", raw,
                   [dict(spent, scriptPubKey=out["script"],
                         amount=sats_to_coin(out["value"]))])
    check(signed.get("complete"), "signing the conflicting spend: %s" % signed.get("errors"))
    return signed["hex"]


class Ctx:
    def __init__(self, hashjack, hashjackd, workdir, seed):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.seed = seed
        self.keydir = os.path.join(workdir, "keys")
        os.makedirs(self.keydir, exist_ok=True)

    def node(self, name, mweb=False):
        """A litecoind of its own, coinbases mature, with a dealer wallet;
        returns (node, dealer address)."""
        n = Litecoind(workdir=os.path.join(self.workdir, "ltc-" + name), mweb=mweb).start()
        n.mine(101)
        return n, n.new_address("dealer")

    def daemon(self, n, dealer, name, **kw):
        kw.setdefault("timeout_blocks", TB)
        kw.setdefault("poll_interval_ms", 50)
        return litecoind_daemon(self.hashjackd, n, dealer, MIN_BET, MAX_BET,
                                workdir=os.path.join(self.workdir, "daemon-" + name), **kw)

    def replay_text(self, n, dealer, first, last, timeout_blocks=TB):
        doc = n.export(first, last, dealer, MIN_BET, MAX_BET, timeout_blocks)
        _, text = replay(doc, self.hashjack, self.workdir)
        return text.encode()

    def player_cmd(self, *args):
        rc, out, err = run_tracked([self.hashjack, "player"] + list(args), timeout=20)
        if rc != 0:
            raise Failed("hashjack player %s: exit %d: %s" % (args[0], rc, err.strip()))
        return out.strip()

    def keygen(self, name):
        path = os.path.join(self.keydir, name + ".key")
        pub = self.player_cmd("keygen", path)
        check(re.fullmatch(r"[0-9a-f]{64}", pub), "keygen printed %r" % pub)
        return path, pub

    def sign(self, action, key, genesis, round_id, seq, insurance=None):
        args = [action, "--key", key, "--genesis", genesis, "--round", round_id,
                "--seq", str(seq)]
        if action == "peek":
            args += ["--insurance", "yes" if insurance else "no"]
        return self.player_cmd(*args)

    def players(self, n, names, utxos=3, sats=COIN):
        """Players: a key file and a node wallet each, funded with `utxos`
        coins of `sats` (one sendmany, mined)."""
        tag = os.path.basename(n.workdir)
        n.funder_mature(len(names) * utxos * sats + COIN)
        out, amounts = [], {}
        for name in names:
            key, pub = self.keygen("%s-%s" % (tag, name))
            p = Player(name, key, pub, self.player_cmd("bet", "--key", key))
            check_eq(p.bet, bet_payload(pub), "bet payload of %s" % name)
            w = n.wallet(name)
            for _ in range(utxos):
                amounts[w.new_address()] = sats_to_coin(sats)
            out.append(p)
        txid = n.wallet(n.FUNDER).rpc("sendmany", "", amounts)
        n.mine(1)
        check(txid not in n.mempool(), "funding not mined")
        return out


# --------------------------------------------------------------------------
# Players that act on what a card log says (the Bitcoin family: a key P per
# player, signed actions)

class Player(LogPlayer):
    def __init__(self, wallet, key, pub, bet):
        super().__init__()
        self.wallet = wallet
        self.key = key
        self.pub = pub
        self.bet = bet
        self.last_payload = None     # of the last signed action sent


class Session(CardLogPlayers):
    """Players playing rounds with the dealer through their node wallets:
    Bets (some split over two outputs), Peeks, Hits, Stands, Doubles,
    Surrenders, premature and wrong-value actions, actions signed by
    another player's key or with a stale seq (bad_signature), Bets out of
    limits, deposits, lazy rounds left to time out.  Each player acts on the
    events of a card log (never on a card not yet logged;
    players.CardLogPlayers reads it); step() also mines a block every
    `interval` seconds.  A Bet is its key's player's, another action and a
    settlement its round's.  A player acts early after one Bet in five."""

    premature = 0.2

    def __init__(self, ctx, n, dealer, log_path, players, rng, interval=0.12, lazy=0.12,
                 bad=0.06):
        self.ctx = ctx
        self.n = n
        self.d = dealer
        self.genesis = n.genesis()
        super().__init__(log_path, players, rng, interval, lazy)
        self.by_pub = {p.pub: p for p in players}
        self.bad = bad

    def send(self, p, value, payload, what):
        if payload is not None and payload != p.bet:
            p.last_payload = payload
        txid = self.n.send_action(p.wallet, self.d, value, payload)
        p.pending, p.pending_h = txid, self.height
        self.by_tx[txid] = p
        self.sent[what] += 1

    def sign(self, p, action, seq=None, key=None, insurance=None):
        return self.ctx.sign(action, key or p.key, self.genesis, p.round,
                             p.seq if seq is None else seq, insurance)

    def actor(self, e, p):
        if e["action"] == "Bet":
            return self.by_pub.get(e["player"])
        return self.by_round.get(e["round"])

    def round_began(self, p):
        p.last_payload = None

    def settled(self, e, h):
        q = self.by_round.pop(e["round"], None)
        if q and q.round == e["round"]:
            q.round = None
            q.next_bet_at = h + self.rng.randint(1, 3)

    def decide(self, p):
        rng = self.rng
        if p.pending:
            if self.height - p.pending_h > 40:      # never seen: give up on it
                self.by_tx.pop(p.pending, None)
                p.pending = None
            return
        if p.round is None:
            if not self.betting or self.height < p.next_bet_at:
                return
            r = rng.random()
            if r < 0.05:
                self.send(p, rng.randint(3000, 50000), None, "deposit")
            elif r < 0.08:
                self.send(p, MIN_BET - 1, p.bet, "bet_out_of_limits")
            elif r < 0.16:
                a = rng.randint(MIN_BET // 2, 2 * MIN_BET)
                self.send(p, [a, rng.randint(MIN_BET // 2, 2 * MIN_BET)], p.bet, "split Bet")
            else:
                self.send(p, rng.randint(MIN_BET, 5 * MIN_BET), p.bet, "Bet")
            return
        if p.premature:
            # right after the Bet: a valid early Hit (premature), or one
            # that fails the signature check first (bad_signature)
            p.premature = False
            r = rng.random()
            if r < 0.4:
                self.send(p, 0, self.sign(p, "hit"), "early Hit")
            elif r < 0.7:
                other = rng.choice([q for q in self.players if q is not p])
                self.send(p, 0, self.sign(p, "stand", key=other.key), "forged Stand")
            else:
                self.send(p, 0, self.sign(p, "hit", seq=p.seq + 1), "Hit with a wrong seq")
            return
        if p.ready_at is None or self.height < p.ready_at or p.lazy:
            return
        if p.dealer and p.dealer[0].startswith("A") and not p.peeked:
            if rng.random() < 0.5:
                self.send(p, p.stake // 2, self.sign(p, "peek", insurance=True), "Peek insured")
            else:
                self.send(p, 0, self.sign(p, "peek", insurance=False), "Peek")
            return
        total, soft = hand_total(p.cards)
        if total >= 21 or len(p.cards) < 2:
            p.ready_at = None
            return
        r = rng.random()
        if r < self.bad / 3:
            other = rng.choice([q for q in self.players if q is not p])
            self.send(p, 0, self.sign(p, "stand", key=other.key), "forged Stand")
        elif r < 2 * self.bad / 3 and p.last_payload and p.seq > 0:
            # the payload of an action already accepted, sent again: its
            # seq is stale
            self.send(p, 0, p.last_payload, "replayed payload")
        elif r < self.bad:
            stale = p.seq - 1 if p.seq > 0 else p.seq + 1
            self.send(p, 0, self.sign(p, "hit", seq=stale), "stale Hit")
        elif len(p.cards) == 2 and not soft and total in (9, 10, 11) and r < 0.8:
            self.send(p, p.stake, self.sign(p, "double"), "Double")
        elif len(p.cards) == 2 and r < 0.11:
            self.send(p, 0, self.sign(p, "surrender"), "Surrender")
        elif r < 0.14:
            self.send(p, 5000, self.sign(p, "hit"), "wrong-value Hit")
        elif total < 12 or (total < 17 and r < 0.6):
            self.send(p, 0, self.sign(p, "hit"), "Hit")
        else:
            self.send(p, 0, self.sign(p, "stand"), "Stand")

    def mine_block(self):
        self.n.mine(1)

    def finish(self, dms, settle_s=3):
        """No new rounds; what was sent gets mined; mines 2 more blocks.
        Returns the last final height (confirmations 2) after waiting for
        every daemon of dms to log it."""
        self.betting = False
        self.run(settle_s, until=lambda: not self.pending_any())
        self.mining = False
        mine_until_empty(self.n)
        self.n.mine(2)
        last = self.n.height() - 1
        for dm in dms:
            wait_log_height(dm, last, timeout=60)
        return last


# --------------------------------------------------------------------------
# 1. Reorganisations within the confirmations

def case_reorg_shallow(ctx):
    """confirmations = 3 (blocks up to tip - 2 are final).  With the daemon at
    the edge: (A) invalidateblock of tip-1: the deposit of the old tip moves
    into the new tip-1, a premature Hit is dropped for good (a conflicting
    spend of its input is mined instead), a Bet comes in; (B) invalidateblock
    of the tip, re-mined empty, a second deposit moves up a block; (C)
    invalidateblock of tip-1: that deposit moves back, a signed Stand comes
    in.  The daemon never logs a replaced hash nor the dropped transaction,
    logs no reorganisation, and its log and database equal those of a fresh
    daemon run over the final chain, and the log equals `hashjack replay`."""
    n, d = ctx.node("shallow")
    try:
        p1, p2, p3 = ctx.players(n, ["p1", "p2", "p3"])
        g = n.genesis()
        first = n.height() + 1
        n.mine(3)
        dm = ctx.daemon(n, d, "shallow", confirmations=3, start_height=first)
        dm.start()

        def at_edge(want):
            wait_log_height(dm, want)
            check(settle_quiet(dm), "the daemon went on past the final blocks")
            check_eq(last_logged_height(dm.card_log), want, "last logged height (tip - 2)")
            check_eq(n.height() - 2, want, "final height")

        def hashes(lo, hi):
            return {h: n.block_hash(h) for h in range(lo, hi + 1)}

        at_edge(first)
        bet1 = n.send_action(p1.wallet, d, 20000, p1.bet)
        n.mine(1, expect=[bet1])
        x = n.height()
        hit = n.send_action(p1.wallet, d, 0, ctx.sign("hit", p1.key, g, bet1, 0))
        n.mine(1, expect=[hit])                              # X+1 (premature Hit)
        dep = n.send_action(p3.wallet, d, 30000, None)
        n.mine(1, expect=[dep])                              # X+2
        at_edge(x)
        replaced = []
        # (A) tip-1
        old = hashes(x + 1, x + 2)
        conflict = conflict_of(n, p1.wallet, hit)
        n.rpc("invalidateblock", old[x + 1])
        check_eq(sorted(n.mempool()), sorted([hit, dep]), "mempool after invalidating X+1")
        bet2 = n.send_action(p2.wallet, d, 25000, p2.bet)
        gen_block(n, [dep])                                  # X+1': the deposit
        gen_block(n, [conflict, bet2])                       # X+2': Hit gone, Bet
        check(hit not in n.mempool(), "the Hit is still in the mempool")
        dep2 = n.send_action(p3.wallet, d, 40000, None)
        n.mine(1, expect=[dep2])                             # X+3': deposit 2
        replaced += [(h, old[h], n.block_hash(h)) for h in old]
        at_edge(x + 1)
        # (B) the tip alone
        old = hashes(x + 3, x + 3)
        n.rpc("invalidateblock", old[x + 3])
        gen_block(n, [])                                     # X+3'': empty
        check(settle_quiet(dm), "the daemon logged something after (B)")
        n.mine(1, expect=[dep2])                             # X+4'': deposit 2
        replaced += [(h, old[h], n.block_hash(h)) for h in old]
        at_edge(x + 2)
        # (C) tip-1 again: deposit 2 back to X+3, p1's Stand in X+4 (p1's
        # window opened with its second card at X+3)
        old = hashes(x + 3, x + 4)
        n.rpc("invalidateblock", old[x + 3])
        stand1 = n.send_action(p1.wallet, d, 0, ctx.sign("stand", p1.key, g, bet1, 0))
        gen_block(n, [dep2])                                 # X+3'''
        gen_block(n, [stand1])                               # X+4'''
        n.mine(1, expect=[])                                 # X+5'''
        replaced += [(h, o, n.block_hash(h)) for h, o in old.items()]
        at_edge(x + 3)
        for h, o, new in replaced:
            check(o != new, "block %d was not replaced" % h)
        # p2 acts on its round (cards at X+3, X+4, X+5) once its window is
        # open, then the rounds end (p2's by timeout if not before)
        hit2 = n.send_action(p2.wallet, d, 0, ctx.sign("hit", p2.key, g, bet2, 0))
        n.mine(1, expect=[hit2])                             # X+6
        n.mine(TB + 8)
        last = n.height() - 2
        wait_log_height(dm, last)
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        err = dm.stderr()
        check("reorganisation" not in err, "a reorganisation was logged:\n%s" % tail_text(err, 5))
        check(not error_lines(err), "errors logged: %s" % error_lines(err)[:3])
        data = log_bytes(dm.card_log)
        for h, o, _ in replaced:
            check(o.encode() not in data, "replaced block %d (%s) is in the log" % (h, o))
        check(hit.encode() not in data, "the dropped Hit %s is in the log" % hit)
        rows = db_rows(dm.state_dir, ctx.workdir)
        known = {t for r in rows["txs"] for t in (r[0].hex(), r[0][::-1].hex())}
        check(dep in known, "txids in the database are not as expected")
        check(hit not in known, "the dropped Hit is in the database")
        check_heights(data, first, last, "card log", CHAIN)
        lines = {l["height"]: l for l in (json.loads(x_) for x_ in data.splitlines())}
        where = {e.get("tx"): (h, e["type"]) for h, l in lines.items() for e in l["events"]
                 if "tx" in e}
        check_eq(where.get(dep), (x + 1, "deposit"), "the deposit (moved to X+1)")
        check_eq(where.get(bet2), (x + 2, "action"), "p2's Bet (in X+2)")
        check_eq(where.get(dep2), (x + 3, "deposit"), "deposit 2 (X+3 -> X+4 -> X+3)")
        check_eq(where.get(bet1), (x, "action"), "p1's Bet")
        check_bytes(data, ctx.replay_text(n, d, first, last),
                    "card log vs replay of the final chain")
        # a fresh daemon over the final chain
        fresh = ctx.daemon(n, d, "shallow-fresh", confirmations=3, start_height=first)
        fresh.start()
        wait_log_height(fresh, last)
        check_eq(fresh.stop(), 0, "fresh daemon: exit status on SIGTERM")
        check_bytes(data, log_bytes(fresh.card_log), "card log vs a fresh daemon's")
        check_db_equal(rows, db_rows(fresh.state_dir, ctx.workdir),
                       "database vs a fresh daemon's")
        c = summary(data)
    finally:
        n.stop()
    return ("3 reorgs (tip-1, tip, tip-1) replaced %d blocks; a Hit dropped, 2 deposits and "
            "a Bet moved, a Stand added; never logged; log == fresh daemon == replay for "
            "blocks %d..%d (%s)" % (len(replaced), first, last,
                                   fmt_counts(c, ["Bet", "Hit", "Stand", "deposit",
                                                  "timeout", "settle", "reject"])))


# --------------------------------------------------------------------------
# 2. Reorganisation deeper than the confirmations

def case_reorg_deep(ctx):
    """confirmations = 2: reorgs of depth 2 (= confirmations) and 4 after the
    daemon processed the replaced blocks (a Bet, a deposit and a refunded
    wrong-value action in them): exit 3 within 5 s with the heights and
    both hashes, at priority error; card log and database rows (cursor with
    the log's dev/ino, rounds, txs, payouts) unchanged; a restart exits 3
    again, still unchanged.  `hashjack reorg`: exit 0 before; exit 1 after,
    with the fork point, the blocks dealt after it and the node's hash of
    the first, and the open round opened before it."""
    n, d = ctx.node("deep")
    out = []
    try:
        ps = ctx.players(n, ["p1", "p2", "p3"])
        g = n.genesis()
        for k, depth in enumerate((2, 4)):
            first = n.height() + 1
            n.mine(2)
            dm = ctx.daemon(n, d, "deep%d" % depth, confirmations=2, start_height=first,
                            batch_blocks=3)
            dm.start()
            p = ps[k]
            bet = n.send_action(p.wallet, d, 20000 + k, p.bet)
            dep = n.send_action(ps[2].wallet, d, 5000, None)
            n.mine(1, expect=[bet, dep])
            early = n.send_action(p.wallet, d, 7000, ctx.sign("stand", p.key, g, bet, 0))
            n.mine(1, expect=[early])
            n.mine(4)
            tip = n.height()
            wait_log_height(dm, tip - 1)
            before = wait_cursor(dm, tip - 1, ctx.workdir)
            check(settle_quiet(dm), "the daemon went on past the final blocks")
            log_before = log_bytes(dm.card_log)
            check_no_reorg(ctx.hashjack, dm, tip - 1)
            check(len(before["txs"]) == 3 and len(before["payouts"]) >= 1,
                  "3 txs and a refund before the reorg: %d, %d"
                  % (len(before["txs"]), len(before["payouts"])))
            got = n.reorg(depth)                  # depth + 1 new blocks
            t0 = time.monotonic()
            try:
                rc = dm.wait_exit(10)
            except TimeoutError:
                raise Failed("hashjackd still running 10s after a reorg of depth %d:\n%s"
                             % (depth, tail_text(dm.stderr(), 5)))
            dt = time.monotonic() - t0
            dm.stop()
            check_eq(rc, 3, "exit status after a reorg of depth %d" % depth)
            check(dt < 5, "exit 3 took %.1fs" % dt)
            msg = check_reorg_refused(dm, tip, got[tip - 1], before, log_before, ctx.workdir)
            fork = tip - depth
            check_reorg_report(ctx.hashjack, dm, fork, got[fork + 1], "litoshi")
            out.append("depth %d: exit 3 in %.2fs and again on restart; hashjack reorg "
                       "names block %d" % (depth, dt, fork))
    finally:
        n.stop()
    return "; ".join(out) + '; message: "%s"' % msg[:200]


# --------------------------------------------------------------------------
# 3. kill -9 at random instants during a session

def case_kill9_session(ctx):
    """Five players play for at least 25 s (a block every 0.15 s, timeouts
    of 12 blocks; they act on R's log) while daemon T (batch_blocks=2) is
    killed with SIGKILL at random instants at least 24 times: while
    following, a few ms after a start, and in the middle of catch-ups onto
    backlogs of 200-600 blocks (at least 8 of those), and restarted each
    time; daemon R runs uninterrupted over the same chain.  After each kill
    the log is never shorter than the committed offset, and the restart
    resumes exactly at the commit (height and log offset).  Afterwards T's
    card log is byte-identical to R's and to `hashjack replay`, and the
    databases hold the same rows."""
    rng = random.Random(ctx.seed)
    n, d = ctx.node("kill9")
    try:
        players = ctx.players(n, ["p%d" % i for i in range(1, 6)])
        first = n.height() + 1
        n.mine(2)
        T = ctx.daemon(n, d, "kill9-T", confirmations=2, start_height=first, batch_blocks=2)
        R = ctx.daemon(n, d, "kill9-R", confirmations=2, start_height=first)
        R.start()
        T.start()
        K = Kills(T, ctx.workdir)
        s = Session(ctx, n, d, R.card_log, players, rng, interval=0.15)
        t_begin = time.monotonic()
        # The loop ends when its counts are met (about 30 s on a quiet
        # machine); the deadline only stops a run that hangs: a loaded
        # machine mines and catches up slower, not wrongly.
        deadline = t_begin + 240
        mode = "random"
        while ((len(K.kills) < 24 or K.phases["catch-up"] < 8 or K.torn < 2
                or time.monotonic() < t_begin + 25) and time.monotonic() < deadline):
            if mode == "catch-up":
                # T restarted onto a backlog: kill it once its log has grown
                # by 0..60 kB (about 330 bytes per block), a few ms later
                grow = rng.randint(0, 60000)
                wait_until(lambda: not T.running() or file_size(T.card_log) > K.size0 + grow,
                           10, "T to catch up %d bytes" % grow, interval=0.0005)
                time.sleep(rng.uniform(0, 0.003))
            elif mode == "startup":
                time.sleep(rng.uniform(0, 0.01))
            else:
                s.run(rng.uniform(0.0, 1.0))
            K.kill()
            # while T is down the chain goes on; often a backlog
            x = rng.random()
            mode = "catch-up" if x < 0.4 else "startup" if x < 0.5 else "random"
            s.run(rng.uniform(0.0, 0.4))
            if mode == "catch-up":
                n.mine(rng.randint(200, 600))
            K.restart()
        K.check_count()
        last = s.finish([R, T])
        K.check_last_resume()
        t_data, t_db = check_as_uninterrupted(T, R, first, last,
                                              lambda: ctx.replay_text(n, d, first, last),
                                              ctx.workdir, CHAIN)
        c = summary(t_data)
        check(c["settle"] >= 15, "only %d rounds settled" % c["settle"])
        for k in ("Bet", "Hit", "Stand", "timeout", "reject:bad_signature"):
            check(c[k] > 0, "no %s in the session (%s)" % (k, dict(c)))
    finally:
        n.stop()
    return ("%s; %d blocks, %d rounds settled, %s, %d rows in txs, %d payouts; "
            "T == R == replay" % (
                K.describe(), last - first + 1, c["settle"],
                fmt_counts(c, ["Bet", "Peek", "peek", "skip", "Hit", "Stand", "Double",
                               "Surrender", "timeout", "deposit", "reject",
                               "reject:bad_signature"]),
                len(t_db["txs"]), len(t_db["payouts"])))


# --------------------------------------------------------------------------
# 4. Node restart (new cookie), node down

def case_node_restart(ctx):
    """While three players play (rounds open): litecoind stopped and started
    at once on the same port, with a new cookie: the daemon goes on without
    a restart, after logging the 401 and reading the cookie file again.
    Then litecoind down for 5 s: the daemon keeps running, logs its first
    retry and counts the others, says the node answers again after them, and
    goes on once the node is back;
    a second daemon started while the node is down (no cookie file) keeps
    running, says which cookie file it cannot read, and deals once the node
    is up.  Every height exactly once; both logs equal replay; the
    databases are equal."""
    rng = random.Random(ctx.seed + 4)
    n, d = ctx.node("restart")
    try:
        players = ctx.players(n, ["p1", "p2", "p3", "p4"])
        first = n.height() + 1
        n.mine(2)
        dm = ctx.daemon(n, d, "restart", confirmations=2, start_height=first)
        dm.start()
        s = Session(ctx, n, d, dm.card_log, players[:3], rng, lazy=0)
        s.run(3)
        # a round surely open across the restarts
        bet4 = n.send_action(players[3].wallet, d, 3 * MIN_BET, players[3].bet)
        s.run(0.5)
        wait_log_height(dm, n.height() - 1)
        open_rounds = len(db_rows(dm.state_dir, ctx.workdir)["rounds"])
        check(open_rounds >= 1, "no open round when the node restarts")
        # (a) a quick restart: the old cookie is refused
        off = stderr_size(dm)
        cookie = n.cookie()
        port = n.port
        check_eq(n.stop(), 0, "litecoind exit status on stop")
        n.start()
        check_eq(n.port, port, "litecoind port after restart")
        check(n.cookie() != cookie, "the cookie did not change")
        h0 = n.height()
        n.mine(2)
        wait_log_height(dm, h0 + 1, timeout=40)
        quick = stderr_since(dm, off)
        check(any("401" in l and n.cookie_file in l for l in quick.splitlines()),
              "no 401 / cookie re-read logged after the node restarted:\n%s" % quick[-800:])
        check(dm.running(), "hashjackd exited after the node restart")
        s.run(2)
        # (b) down for 6 s, a second daemon started meanwhile
        s.mining = False
        mine_until_empty(n)
        n.mine(1)
        wait_log_height(dm, n.height() - 1)
        tip = n.height()
        off = stderr_size(dm)
        check_eq(n.stop(), 0, "litecoind exit status on stop")
        t_down = time.monotonic()
        late = ctx.daemon(n, d, "restart-late", confirmations=2, start_height=first)
        late.start()
        time.sleep(5)
        check(dm.running(), "hashjackd exited while the node was down (status %s):\n%s"
              % (dm.proc.returncode if dm.proc else None, tail_text(dm.stderr(), 10)))
        check(late.running(), "the daemon started with the node down exited (status %s):\n%s"
              % (late.proc.returncode if late.proc else None, tail_text(late.stderr(), 10)))
        late_err = late.stderr()
        check("cannot read the cookie file %s" % n.cookie_file in late_err,
              "the daemon started with the node down does not name the cookie file:\n%s"
              % tail_text(late_err, 5))
        n.start()
        t_up = time.monotonic()
        check_eq(n.height(), tip, "litecoind tip after the restart")
        retries = check_retries(dm, off)
        n.mine(1)
        wait_log_height(dm, tip, timeout=40)
        resumed_after = time.monotonic() - t_up
        wait_log_height(late, tip, timeout=40)
        s.mining = s.betting = True
        s.run(3)
        last = s.finish([dm, late])
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        check_eq(late.stop(), 0, "second daemon: exit status on SIGTERM")
        data = log_bytes(dm.card_log)
        check_heights(data, first, last, "card log", CHAIN)
        check_bytes(data, ctx.replay_text(n, d, first, last), "card log vs replay")
        check_bytes(log_bytes(late.card_log), data, "the second daemon's log vs the first's")
        check_db_equal(db_rows(late.state_dir, ctx.workdir), db_rows(dm.state_dir, ctx.workdir),
                       "databases of the two daemons")
        check(bet4.encode() in data, "the open round's Bet is not in the log")
        for name, x in (("first", dm), ("second", late)):
            bad = error_lines(x.stderr())
            check(not bad, "the %s daemon logged errors: %s" % (name, bad[:3]))
        c = summary(data)
    finally:
        n.stop()
    return ("quick restart: 401, cookie read again, went on; down %.1fs with %d open rounds: "
            "%d retries logged, next block logged %.1fs after the node came back; the daemon "
            "started meanwhile waited for the cookie; heights %d..%d once each; logs == replay "
            "(%s)" % (t_up - t_down, open_rounds, len(retries), resumed_after, first, last,
                      fmt_counts(c, ["Bet", "Hit", "Stand", "Double", "settle", "reject"])))


# --------------------------------------------------------------------------
# 5. SIGTERM in catch-up

def case_sigterm_catchup(ctx):
    """Daemon D: SIGTERM while following with rounds open (exit 0 within
    5 s, log ends at the committed offset, "stopping after block N" names
    the commit); 2500 blocks mined meanwhile, with a Bet in the first, so
    rounds open and time out in the backlog; three restarts (batch_blocks=1)
    each stopped by SIGTERM in the middle of the catch-up: exit 0 within
    5 s, log and cursor agree, each restart resumes at the commit, with
    no push before it has caught up.  D's log
    and database equal those of daemon R, which ran throughout, and the log
    equals `hashjack replay`."""
    rng = random.Random(ctx.seed + 5)
    n, d = ctx.node("term")
    try:
        players = ctx.players(n, ["p1", "p2", "p3", "p4"])
        first = n.height() + 1
        n.mine(2)
        D = ctx.daemon(n, d, "term-D", confirmations=2, start_height=first)
        R = ctx.daemon(n, d, "term-R", confirmations=2, start_height=first)
        R.start()
        D.start()
        s = Session(ctx, n, d, R.card_log, players[:3], rng, lazy=0.5)
        s.run(4, until=lambda: len(s.by_round) >= 2 and s.height and s.height > first + 20)
        s.run(1)
        wait_log_height(D, n.height() - 1)
        times = []
        rc, dt = sigterm_measured(D)
        times.append(dt)
        check_eq(rc, 0, "exit status on SIGTERM while following")
        check(dt < 5.0, "SIGTERM while following: exited after %.2fs" % dt)
        r = check_log_matches_cursor(D, ctx.workdir, "after SIGTERM while following")
        check_eq([int(x) for x in re.findall(r"SIGTERM: stopping after block (\d+)", D.stderr())],
                 [r["height"]], "\"SIGTERM: stopping after block N\" vs the committed cursor")
        open_rounds = len(r["rounds"])
        s.mining = False
        s.run(0.3)
        # p4 bets and never acts: its round opens and times out in the backlog
        bet4 = n.send_action(players[3].wallet, d, 2 * MIN_BET, players[3].bet)
        n.mine(2500)
        tip = n.height()
        D.overrides = ["--chain.batch_blocks=1"]
        stops = []
        for _ in range(3):
            size0 = os.path.getsize(D.card_log)
            off = stderr_size(D)
            D.start()
            grow = rng.randint(20000, 150000)
            wait_until(lambda: not D.running() or os.path.getsize(D.card_log) > size0 + grow,
                       30, "the catch-up to grow by %d bytes" % grow, interval=0.0005)
            check(D.running(), "D exited: %s" % tail_text(D.stderr(), 5))
            rc, dt = sigterm_measured(D)
            times.append(dt)
            check_eq(rc, 0, "exit status on SIGTERM during catch-up")
            check(dt < 5.0, "SIGTERM during catch-up: exited after %.2fs" % dt)
            said = re.findall(r"SIGTERM: stopping after block (\d+)", stderr_since(D, off))
            check_eq([int(x) for x in said], [db_rows(D.state_dir, ctx.workdir)["height"]],
                     "\"SIGTERM: stopping after block N\" vs the committed cursor")
            m = RESUMED.search(stderr_since(D, off))
            check(m, "no \"resuming after block\" line")
            # No long poll in the catch-up: one left behind by a stop
            # would hold a node thread the next catch-up needs.
            check("push: " not in stderr_since(D, off),
                  "push started in the catch-up: %s" % tail_text(stderr_since(D, off), 5))
            check_eq((int(m.group(1)), int(m.group(3))), (r["height"], r["offset"]),
                     "restart resumed at (height, log offset) vs the commit")
            check_eq(int(m.group(2)), len(r["rounds"]), "open rounds at the restart")
            r = check_log_matches_cursor(D, ctx.workdir, "after SIGTERM in catch-up")
            check(r["height"] < tip - 1, "the catch-up had finished (%d of %d) before SIGTERM"
                  % (r["height"], tip - 1))
            stops.append(r["height"])
        D.overrides = []
        off = stderr_size(D)
        D.start()
        wait_until(lambda: "push: on: " in stderr_since(D, off), 60,
                   "\"push: on\" once D has caught up")
        check(stderr_since(D, off).index("caught up:") < stderr_since(D, off).index("push: on: "),
              "push on before \"caught up\"")
        s.mining = True
        s.run(2)
        last = s.finish([R, D])
        check_eq(D.stop(), 0, "D exit status on SIGTERM")
        check_eq(R.stop(), 0, "R exit status on SIGTERM")
        data = log_bytes(D.card_log)
        check_heights(data, first, last, "card log", CHAIN)
        check_bytes(data, log_bytes(R.card_log), "D's log vs R's")
        check_bytes(data, ctx.replay_text(n, d, first, last), "card log vs replay")
        check_db_equal(db_rows(D.state_dir, ctx.workdir), db_rows(R.state_dir, ctx.workdir),
                       "databases of D and R")
        c = summary(data)
        # p4 never acts: its round times out, unless its first two cards
        # are a blackjack, which may settle it with no decision asked.
        p4 = [e for l in data.splitlines() for e in json.loads(l)["events"]
              if e.get("round") == bet4]
        cards = [e["card"] for e in p4 if e["type"] == "draw" and e["handOwner"] == "Player"]
        check(any(e["type"] == "settle" for e in p4), "p4's round did not settle")
        if hand_total(cards[:2]) != (21, True):
            check(any(e["type"] == "timeout" for e in p4),
                  "p4's round (cards %s) did not time out" % " ".join(cards))
    finally:
        n.stop()
    return ("SIGTERM following (%d open rounds) %.2fs; in catch-up at %s of %d: %s; all exit 0, "
            "resumed at the commit; log == R == replay for %d blocks (%s)"
            % (open_rounds, times[0], stops, tip - 1,
               ", ".join("%.2fs" % t for t in times[1:]), last - first + 1,
               fmt_counts(c, ["Bet", "Hit", "Stand", "timeout", "settle"])))


# --------------------------------------------------------------------------
# 6. Configuration and identity

def case_config_identity(ctx):
    """A dealer address of another network, valid bech32m (tr(P) as `hashjack
    player address` writes it for litecoin main and testnet, bitcoin main and
    regtest), or the right address with coin = bitcoin: exit 78 naming both
    prefixes, nothing bound.  A state directory used with dealer A refuses
    (exit 4, naming the field and both values, nothing changed) dealer B,
    other rules, and coin = bitcoin with a bcrt1 dealer; works again with
    the right ones.  rpc_cookie_file pointing at a missing file: the daemon
    keeps running and says which file, then the file malformed: says so,
    then the right cookie: it deals."""
    n, d = ctx.node("config")
    notes = []
    try:
        key, _ = ctx.keygen("config")
        # (a) another network's address
        for coin, chain, prefix, conf_coin in (("litecoin", "main", "ltc", None),
                                               ("litecoin", "test", "tltc", None),
                                               ("bitcoin", "main", "bc", None),
                                               ("bitcoin", "regtest", "bcrt", None),
                                               (None, None, "rltc", "bitcoin")):
            addr = d if coin is None else ctx.player_cmd("address", "--key", key, "--coin",
                                                         coin, "--chain", chain)
            check(addr.startswith(prefix + "1"), "address %s" % addr)
            label = "%s address with coin %s" % (prefix, conf_coin or "litecoin")
            dm = ctx.daemon(n, addr, "net-%s-%s" % (prefix, conf_coin or "ltc"),
                            confirmations=1, start_height=n.height())
            if conf_coin:
                dm.overrides = ["--chain.coin=" + conf_coin]
            t = time.monotonic()
            rc, out, err = run_tracked([ctx.hashjackd, "-c", dm.conf] + dm.overrides,
                                       timeout=20)
            dt = time.monotonic() - t
            check_eq(rc, 78, "%s: exit status (stderr %r)" % (label, err[-400:]))
            other = "bcrt" if conf_coin == "bitcoin" else "rltc"
            check('"%s1"' % prefix in err and '"%s1"' % other in err,
                  "%s: the message does not name %s1 and %s1: %r" % (label, prefix, other,
                                                                    err[-400:]))
            notes.append("%s1 %.1fs" % (prefix, dt))
            meta = db_rows(dm.state_dir, ctx.workdir)["meta"] \
                if os.path.exists(os.path.join(dm.state_dir, "hashjackd.sqlite")) else []
            check_eq(meta, [], "%s: the state directory was bound" % label)
        msg78 = [l for l in err.splitlines() if "prefix" in l or "begin" in l][-1:]
        # (b) the state directory's identity
        first = n.height() + 1
        dm = ctx.daemon(n, d, "guard", confirmations=1, start_height=first)
        dm.start()
        n.mine(3)
        wait_log_height(dm, n.height())
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        before = db_rows(dm.state_dir, ctx.workdir, with_file_id=True)
        log_before = log_bytes(dm.card_log)
        d2 = n.new_address("dealer")
        bcrt = ctx.player_cmd("address", "--key", key, "--coin", "bitcoin", "--chain", "regtest")
        ident = before["meta"][0][1]
        check(ident.startswith("bitcoin:litecoin:regtest:" + n.genesis()),
              "stored chain identity %r" % ident)
        for args, field, vals in (
                (["--dealer.address=" + d2], "dealer", (d2, d)),
                # each differing rule key named with the stored and the
                # configured value
                (["--rules.min_bet=%d" % (MIN_BET + 1)], "rules.min_bet",
                 ('"%d" in the database' % MIN_BET, '"%d" configured' % (MIN_BET + 1))),
                (["--rules.timeout_blocks=%d" % (TB + 1)], "rules.timeout_blocks",
                 ('"%d" in the database' % TB, '"%d" configured' % (TB + 1))),
                (["--chain.coin=bitcoin", "--dealer.address=" + bcrt], "chain",
                 ("bitcoin:bitcoin:regtest", "bitcoin:litecoin:regtest"))):
            rc, out, err = run_tracked([ctx.hashjackd, "-c", dm.conf] + args, timeout=20)
            check_eq(rc, 4, "%s: exit status (stderr %r)" % (args, err[-300:]))
            check(field in err and all(v in err for v in vals),
                  "%s: the message names %s and both values: %r" % (args, field, err[-500:]))
        msg4 = err.strip().splitlines()[-1]
        check_db_equal(db_rows(dm.state_dir, ctx.workdir, with_file_id=True), before,
                       "database after the refusals")
        check_bytes(log_bytes(dm.card_log), log_before, "card log after the refusals")
        dm.start()
        n.mine(1)
        wait_log_height(dm, n.height())
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        check_bytes(log_bytes(dm.card_log), ctx.replay_text(n, d, first, n.height()),
                    "card log vs replay after the refusals")
        # (c) the cookie file missing, then malformed, then right
        cdir = os.path.join(ctx.workdir, "cookie-elsewhere")
        cpath = os.path.join(cdir, ".cookie")
        first = n.height() + 1
        dm = ctx.daemon(n, d, "cookie", confirmations=1, start_height=first,
                        extra={"chain": {"rpc_cookie_file": cpath}})
        t0 = time.monotonic()
        dm.start()
        missing = "cannot read the cookie file %s" % cpath
        # Said once: the attempts after it are counted (docs/RPC.md, "What
        # is logged"); the malformed file below is a new reason, said.
        wait_until(lambda: missing in dm.stderr() or not dm.running(), 10,
                   "a message naming the missing cookie file")
        check(dm.running(), "the daemon exited without its cookie file (status %s):\n%s"
              % (dm.proc.returncode, tail_text(dm.stderr(), 5)))
        os.makedirs(cdir)
        with open(cpath, "w") as f:
            f.write("no colon here\n")
        malformed = "the cookie file %s does not hold one line" % cpath
        wait_until(lambda: malformed in dm.stderr() or not dm.running(), 15,
                   "a message naming the malformed cookie file")
        check(dm.running(), "the daemon exited on a malformed cookie file (status %s)"
              % dm.proc.returncode)
        with open(cpath, "w") as f:
            f.write(n.cookie())
        n.mine(1)
        wait_log_height(dm, first, timeout=40)
        t_cookie = time.monotonic() - t0
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        check_bytes(log_bytes(dm.card_log), ctx.replay_text(n, d, first, first),
                    "card log after the cookie was fixed vs replay")
        err = dm.stderr()
        check(not error_lines(err), "errors logged while waiting for the cookie: %s"
              % error_lines(err)[:3])
    finally:
        n.stop()
    return ("other network -> 78 (%s): %s; state dir of dealer/min_bet/timeout_blocks/coin "
            "-> 4, unchanged, e.g. %s; cookie missing then malformed: retried, named, dealt "
            "%.1fs after start" % (", ".join(notes), (msg78[0] if msg78 else "")[:200],
                                   msg4[:160], t_cookie))


# --------------------------------------------------------------------------
# 7. MWEB

def case_mweb_catchup(ctx):
    """litecoind with MWEB (active from block 432: the harness's peg-in at
    431, every later block with a HogEx and an extension block).  Three
    players play from block ~415 to past 470 while daemon R follows; after
    activation a player pegs coins in and the harness's MWEB wallet pegs
    out to the dealer (a HogEx output paying the dealer: a deposit).  Then
    daemon T (batch_blocks=1) catches up over all of it from block ~415,
    killed with -9 twice on the way: T's log equals R's and `hashjack
    replay`; the databases are equal; the peg-out shows as a deposit by the
    block's HogEx."""
    rng = random.Random(ctx.seed + 7)
    n, d = ctx.node("mweb", mweb=True)
    try:
        players = ctx.players(n, ["p1", "p2", "p3"])
        n.fund("pegger", COIN)               # pegs in; the players hold no MWEB coins
        n.mine(415 - n.height())
        first = n.height() + 1
        R = ctx.daemon(n, d, "mweb-R", confirmations=2, start_height=first)
        R.start()
        s = Session(ctx, n, d, R.card_log, players, rng, interval=0.1, lazy=0.2)
        s.run(8, until=lambda: n.height() >= MWEB_HEIGHT + 8)
        check(n.mweb_active(), "MWEB not active at %d" % n.height())
        pegin = n.wallet("pegger").rpc("sendtoaddress", n.new_address("pegger", "mweb"), "0.1")
        pegout = n.wallet(n.MWEB_WALLET).rpc("sendtoaddress", d, "0.00123")
        s.run(4)
        last = s.finish([R])
        # the peg-out is an MWEB transaction (its txid is not a block's); in
        # the canonical block it is an output of the HogEx, the last tx
        script = n.script_of(d)
        blocks = {h: n.block(h, 2) for h in range(first, last + 1)}
        check(all("mweb" in blocks[h] for h in range(MWEB_HEIGHT, last + 1)),
              "blocks without MWEB data after 432")
        pegout_h = [h for h in range(MWEB_HEIGHT, last + 1)
                    if any(o["scriptPubKey"]["hex"] == script
                           for o in blocks[h]["tx"][-1]["vout"])]
        check(len(pegout_h) == 1, "no HogEx (or more than one) pays the dealer: %s (peg-out %s)"
              % (pegout_h, pegout))
        hogex = blocks[pegout_h[0]]["tx"][-1]["txid"]
        check(any(t["txid"] == pegin for b in blocks.values() for t in b["tx"]),
              "the peg-in %s was not mined" % pegin)
        T = ctx.daemon(n, d, "mweb-T", confirmations=2, start_height=first, batch_blocks=1)
        kills = 0
        for _ in range(2):
            size0 = file_size(T.card_log)
            T.start()
            grow = rng.randint(0, 200 * (last - first) // 3)
            wait_until(lambda: not T.running() or file_size(T.card_log) > size0 + grow,
                       20, "T to log %d bytes" % grow, interval=0.0005)
            check(T.running(), "T exited: %s" % tail_text(T.stderr(), 5))
            T.kill9()
            kills += 1
        off = stderr_size(T)
        T.start()
        wait_until(lambda: "caught up" in stderr_since(T, off) or not T.running(), 60,
                   "T to catch up")
        wait_log_height(T, last, timeout=60)
        check_eq(T.stop(), 0, "T exit status on SIGTERM")
        check_eq(R.stop(), 0, "R exit status on SIGTERM")
        data = log_bytes(T.card_log)
        check_heights(data, first, last, "T's card log", CHAIN)
        check_bytes(data, log_bytes(R.card_log), "T's log (catch-up) vs R's (following)")
        check_bytes(data, ctx.replay_text(n, d, first, last), "T's log vs replay")
        check_db_equal(db_rows(T.state_dir, ctx.workdir), db_rows(R.state_dir, ctx.workdir),
                       "databases of T and R")
        lines = {l["height"]: l for l in (json.loads(x) for x in data.splitlines())}
        deps = [e for e in lines[pegout_h[0]]["events"] if e.get("tx") == hogex]
        check_eq([(e["type"], e["value"]) for e in deps], [("deposit", "123000")],
                 "the peg-out to the dealer: a deposit by the HogEx")
        check(pegin not in data.decode(), "the peg-in (not to the dealer) is in the log")
        for name, dm in (("T", T), ("R", R)):
            bad = error_lines(dm.stderr())
            check(not bad, "%s logged errors: %s" % (name, bad[:3]))
        c = summary(data)
        check(c["Bet"] > 0 and any(e["type"] == "action" for h in range(MWEB_HEIGHT, last + 1)
                                   for e in lines[h]["events"]),
              "no action after the MWEB activation")
    finally:
        n.stop()
    return ("blocks %d..%d (MWEB from %d, peg-out at %d paid the dealer via HogEx %s..); "
            "T caught up (%d kills on the way) == R == replay (%s)"
            % (first, last, MWEB_HEIGHT, pegout_h[0], hogex[:12], kills,
               fmt_counts(c, ["Bet", "Hit", "Stand", "Double", "deposit", "timeout", "settle",
                              "reject"])))


CASES = [case_reorg_shallow, case_reorg_deep, case_kill9_session, case_node_restart,
         case_sigterm_catchup, case_config_identity, case_mweb_catchup]


def main():
    return fault_main(__doc__, CASES, "hj-e2e-ltc-faults-", 16, 480, Ctx, find_litecoind)


if __name__ == "__main__":
    sys.exit(main())
