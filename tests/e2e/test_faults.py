#!/usr/bin/env python3
"""Fault tests of hashjackd against a real anvil with real transactions
(issue 3, item 8) and its operational checks:

  first_start_ahead   a first start at a block not final yet (the defaults:
                      start at the tip, 12 confirmations) waits, then deals;
                      SIGTERM before and after its first block says which
  restart_mid_round   SIGTERM during a round and during catch-up: exit 0
                      within 5 s, the state matches the log, the round goes on
  node_down           anvil stopped for 10 s (chain kept) and restarted on the
                      same port: the daemon retries, resumes, skips nothing;
                      a first start meanwhile, stopped, says it dealt nothing
  reorg_shallow       anvil_reorg of depth < confirmations, transactions
                      dropped and moved: the daemon never sees the old blocks
  reorg_deep          depth >= confirmations after the daemon processed the
                      blocks: exit 3, heights and both hashes named, database
                      and card log unchanged (also after a restart)
  kill9_session       >= 20 random kill -9 (many during catch-up batches)
                      while five players play, blocks mined continuously; log
                      and database equal to those of an uninterrupted daemon
                      and to `hashjack replay`
  sighup_rotation     logrotate-style move + SIGHUP, also kill -9 right after
                      it (following, and in catch-up): the pieces in order
                      equal replay
  config_errors       malformed configs -> 78 with file:line: key,
                      --check-config, usage error
  state_dir_guard     a second daemon on a state dir -> 1; another dealer or
                      rules -> 4; card log cut or replaced -> 1; SIGINT -> 0
  sd_notify           READY=1 after catch-up, STATUS=, WATCHDOG=1, STOPPING=1

    python3 tests/e2e/test_faults.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [-k NAME] [--keep] [--seed N]

Python 3 standard library only; uses the harness of tests/e2e/ (anvil:
evm_node.py) and the checks shared with tests/e2e/test_ltc_faults.py
(tests/e2e/checks.py).  Binds 127.0.0.1 only; every wait has a deadline,
the whole run too.  Prints one line per check and a closing "N passed, M
failed"; exit status 1 when a check failed.
"""

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import (Failed, Kills, check, check_as_uninterrupted, check_bytes,  # noqa: E402
                    check_db_equal, check_eq, check_heights, check_log_matches_cursor,
                    check_no_reorg, check_reorg_refused, check_reorg_report, check_retries,
                    db_rows, fault_main, file_size,
                    fmt_counts, hand_total, heights_of, log_bytes, settle_quiet,
                    sigterm_measured, stderr_since, stderr_size, summary, tail_text,
                    wait_cursor, wait_log_height)
from daemon import Hashjackd, NotifySocket  # noqa: E402
from evm_node import Anvil, BET, DOUBLE, HIT, PEEK, PEEK_INSURED, STAND, SURRENDER  # noqa: E402
from logs import events, last_logged_height  # noqa: E402
from players import CardLogPlayers, LogPlayer  # noqa: E402
from procs import wait_until  # noqa: E402
from tool import replay  # noqa: E402

MIN_BET = 1000
MAX_BET = 10 ** 18
TB = 100            # timeout_blocks of the scripted scenarios
CHAIN = "evm"       # the card log's "chain"


# --------------------------------------------------------------------------
# Helpers of this file (the generic ones are checks.py's)

class Ctx:
    def __init__(self, hashjack, hashjackd, workdir, seed):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.seed = seed

    def anvil(self, name, keep_state=False):
        return Anvil(workdir=os.path.join(self.workdir, "anvil-" + name),
                     keep_state=keep_state).start()

    def daemon(self, a, name, **kw):
        kw.setdefault("timeout_blocks", TB)
        return Hashjackd(self.hashjackd, a, a.accounts[9].address, MIN_BET, MAX_BET,
                         workdir=os.path.join(self.workdir, "daemon-" + name), **kw)

    def replay_text(self, a, first, last, timeout_blocks=TB):
        doc = a.export(first, last, a.accounts[9].address, MIN_BET, MAX_BET, timeout_blocks)
        _, text = replay(doc, self.hashjack, self.workdir)
        return text.encode()


@contextlib.contextmanager
def environ(**kv):
    """daemon.Hashjackd.start() has no env parameter: the child inherits ours."""
    old = {k: os.environ.get(k) for k in kv}
    try:
        for k, v in kv.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start_point(a, conf):
    """The first block for a daemon with `conf` confirmations: the next one,
    with enough blocks mined on it that it is final when the daemon starts
    (a first start ahead of the final blocks is case_first_start_ahead's)."""
    first = a.height() + 1
    a.mine_empty(conf)
    return first


def mine_until_empty(a, tries=5):
    for _ in range(tries):
        if not a.pending():
            return
        a.rpc("evm_mine")
    check_eq(a.pending(), [], "mempool after mining")


# --------------------------------------------------------------------------
# Players that act on what a card log says

class Player(LogPlayer):
    def __init__(self, acct):
        super().__init__()
        self.acct = acct


class Session(CardLogPlayers):
    """Several dev accounts playing rounds with the dealer: Bets, Peeks,
    Hits, Stands, Doubles, a few Surrenders, premature and wrong-value
    actions, Bets out of limits, deposits, lazy rounds left to time out.
    Each player acts on the events of a card log (never on a card not yet
    logged; players.CardLogPlayers reads it); step() also mines a block
    every `interval` seconds.  An action is its sender's, a settlement its
    player's (an address)."""

    def __init__(self, a, log_path, players, rng, interval=0.12, lazy=0.12):
        self.a = a
        self.d = a.accounts[9].address
        super().__init__(log_path, [Player(a.accounts[i]) for i in players], rng,
                         interval, lazy)
        self.by_addr = {p.acct.address: p for p in self.players}

    def send(self, p, data, value, what):
        h = self.a.send(p.acct, self.d, data, value)
        p.pending, p.pending_h = h, self.height
        self.by_tx[h] = p
        self.sent[what] += 1

    def actor(self, e, p):
        return p

    def settled(self, e, h):
        p = self.by_addr.get(e["player"])
        if p:
            self.by_round.pop(e["round"], None)
            if p.round == e["round"]:
                p.round = None
            p.next_bet_at = h + self.rng.randint(1, 3)

    def decide(self, p):
        rng = self.rng
        if p.pending:
            if self.height - p.pending_h > 60:      # never seen: give up on it
                self.by_tx.pop(p.pending, None)
                p.pending = None
            return
        if p.round is None:
            if not self.betting or self.height < p.next_bet_at:
                return
            r = rng.random()
            if r < 0.05:
                self.send(p, "0x", rng.randint(1, 10 ** 6), "deposit")
            elif r < 0.08:
                self.send(p, BET, MIN_BET - 1, "bet_out_of_limits")
            else:
                self.send(p, BET, rng.randint(MIN_BET, 50 * MIN_BET), "Bet")
            return
        if p.premature:
            p.premature = False
            self.send(p, HIT, 0, "early Hit")
            return
        if p.ready_at is None or self.height < p.ready_at or p.lazy:
            return
        if p.dealer and p.dealer[0].startswith("A") and not p.peeked:
            if rng.random() < 0.5:
                self.send(p, PEEK_INSURED, p.stake // 2, "Peek insured")
            else:
                self.send(p, PEEK, 0, "Peek")
            return
        total, soft = hand_total(p.cards)
        if total >= 21 or len(p.cards) < 2:
            p.ready_at = None
            return
        r = rng.random()
        if len(p.cards) == 2 and not soft and total in (9, 10, 11) and r < 0.8:
            self.send(p, DOUBLE, p.stake, "Double")
        elif len(p.cards) == 2 and r < 0.05:
            self.send(p, SURRENDER, 0, "Surrender")
        elif r < 0.08:
            self.send(p, HIT, 7, "wrong-value Hit")
        elif total < 12 or (total < 17 and r < 0.6):
            self.send(p, HIT, 0, "Hit")
        else:
            self.send(p, STAND, 0, "Stand")

    def mine_block(self):
        self.a.rpc("evm_mine")


# --------------------------------------------------------------------------
# 1. Restart mid-round

def case_restart_mid_round(ctx):
    """SIGTERM while a round is being dealt and again during dealer play:
    exit 0 within 5 s, the log ends at the committed offset, the round
    continues after each restart and settles as the cards say; then SIGTERM
    in the middle of a 1500-block catch-up (batch_blocks=2): exit 0 within
    5 s, log and cursor agree; the final log equals `hashjack replay`."""
    a = ctx.anvil("restart")
    try:
        d = a.accounts[9].address
        first = start_point(a, 2)
        dm = ctx.daemon(a, "restart", confirmations=2, start_height=first)
        dm.start()
        p = a.accounts[1]
        stake = 12345
        bet = a.send(p, d, BET, stake)
        x = int(a.mine(expect=[bet])["number"], 16)
        a.grind("8", expect=[])                      # X+1 player
        a.grind("9", expect=[])                      # X+2 dealer up 9
        wait_log_height(dm, x + 1)
        ls = dm.lines()
        check(any(e["type"] == "draw" for e in events(ls, height=x + 1)), "no draw at X+1")
        times = []
        rc, dt = sigterm_measured(dm)
        times.append(dt)
        check_eq(rc, 0, "exit status on SIGTERM mid-deal")
        check(dt < 5.0, "SIGTERM mid-deal: exited after %.2fs (limit 5s)" % dt)
        r = check_log_matches_cursor(dm, ctx.workdir, "after SIGTERM mid-deal")
        check_eq(len(r["rounds"]), 1, "open rounds in the database after SIGTERM")
        # while it is down: the player's second card, the window opens
        a.grind("7", expect=[])                      # X+3: 8 + 7 = 15 vs 9
        a.mine_empty(1)                              # X+4
        dm.start()
        wait_log_height(dm, x + 3)
        stand = a.send(p, d, STAND, 0)
        a.mine(expect=[stand])                       # X+5
        a.grind("7", expect=[])                      # X+6: dealer 9 + 7 = 16
        wait_log_height(dm, x + 5)
        acc = [e for e in events(dm.lines(), height=x + 5, type="action")]
        check_eq([e["action"] for e in acc], ["Stand"], "Stand at X+5")
        rc, dt = sigterm_measured(dm)
        times.append(dt)
        check_eq(rc, 0, "exit status on SIGTERM during dealer play")
        check(dt < 5.0, "SIGTERM during dealer play: exited after %.2fs" % dt)
        check_log_matches_cursor(dm, ctx.workdir, "after SIGTERM in dealer play")
        a.grind("K", expect=[])                      # X+7: 26, dealer busts
        a.mine_empty(1)
        dm.start()
        wait_log_height(dm, x + 7)
        st = events(dm.lines(), type="settle")
        check_eq(len(st), 1, "settlements")
        check_eq((st[0]["round"], st[0]["playerHands"][0]["status"], st[0]["payout"],
                  st[0]["dealerHand"]["total"]), (bet, "Win", str(2 * stake), 26), "settlement")
        # SIGTERM in the middle of a catch-up
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        a.mine_empty(1500)
        tip = a.height()
        dm.overrides = ["--chain.batch_blocks=2"]
        size0 = os.path.getsize(dm.card_log)
        dm.start()
        wait_until(lambda: os.path.getsize(dm.card_log) > size0 + 20000, 30,
                   "the catch-up to begin", interval=0.001)
        # Freeze the node so the catch-up cannot finish before the signal
        # lands (on a busy machine it once did): the daemon is then mid
        # catch-up with requests in flight, which is the case to measure.
        a.pause()
        try:
            rc, dt = sigterm_measured(dm)
        finally:
            a.resume()
        times.append(dt)
        check_eq(rc, 0, "exit status on SIGTERM during catch-up")
        check(dt < 5.0, "SIGTERM during catch-up: exited after %.2fs" % dt)
        r = check_log_matches_cursor(dm, ctx.workdir, "after SIGTERM in catch-up")
        stopped_at = r["height"]
        check(stopped_at < tip - 1, "the catch-up had finished (%d of %d) before SIGTERM:"
              " no SIGTERM during catch-up measured" % (stopped_at, tip - 1))
        dm.overrides = []
        dm.start()
        wait_log_height(dm, tip - 1, timeout=60)
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        data = log_bytes(dm.card_log)
        check_heights(data, first, tip - 1, "card log", CHAIN)
        check_bytes(data, ctx.replay_text(a, first, tip - 1), "card log vs hashjack replay")
        r = db_rows(dm.state_dir, ctx.workdir)
        check_eq(len(r["rounds"]), 0, "open rounds at the end")
        check_eq([(x_[0], x_[6]) for x_ in r["payouts"]],
                 [("return:%s:0" % bet[2:], str(2 * stake))], "payouts")
    finally:
        a.stop()
    return ("SIGTERM mid-deal %.2fs, in dealer play %.2fs, in catch-up (at %d of %d) %.2fs; "
            "all exit 0; round settled Win; log == replay for %d blocks"
            % (times[0], times[1], stopped_at, tip - 1, times[2], tip - first))


# --------------------------------------------------------------------------
# 2. Node down for 10 s

def case_node_down(ctx):
    """anvil stopped (SIGTERM, chain written to its --state file) for 10 s
    while rounds are open, then started again on the same port: the daemon
    keeps running, logs its first retry and counts the others, says the
    node answers again after them, resumes after the node is back, and every height is logged exactly once; log equals
    replay.  A daemon started on a new state while the node is down and
    stopped after its first retry says it stops before dealing any block."""
    a = ctx.anvil("down", keep_state=True)
    try:
        first = start_point(a, 2)
        dm = ctx.daemon(a, "down", confirmations=2, start_height=first)
        dm.start()
        rng = random.Random(ctx.seed + 2)
        s = Session(a, dm.card_log, [1, 2, 3], rng, lazy=0)
        s.run(4)
        s.betting = False
        s.mining = False
        # a round surely open across the outage: a Bet from a sixth account
        a.send(6, a.accounts[9].address, BET, 3 * MIN_BET)
        # the mempool does not survive an anvil restart: empty it first
        mine_until_empty(a)
        a.rpc("evm_mine")
        tip = a.height()
        wait_log_height(dm, tip - 1)
        open_rounds = len(db_rows(dm.state_dir, ctx.workdir)["rounds"])
        check(open_rounds >= 1, "no open round when the node goes down")
        off = stderr_size(dm)
        port = a.port
        check_eq(a.stop(), 0, "anvil exit status on SIGTERM")
        t_down = time.monotonic()
        # a first start while the node is down: stopped before it knows
        # the chain, where it starts, or any block
        fresh = ctx.daemon(a, "down-fresh", confirmations=2)
        fresh.start()
        try:
            wait_until(lambda: not fresh.running() or "retrying in" in fresh.stderr(), 8,
                       "the fresh daemon's first retry")
        finally:
            check_eq(fresh.stop(), 0, "exit status on SIGTERM of the fresh daemon")
        said = "SIGTERM: stopping before dealing any block (still waiting for the node's " \
               "first answers)\n"
        check(said in fresh.stderr(), "%r in:\n%s" % (said, tail_text(fresh.stderr(), 5)))
        time.sleep(max(0.0, 10 - (time.monotonic() - t_down)))
        check(dm.running(), "hashjackd exited while the node was down (status %s):\n%s"
              % (dm.proc.returncode if dm.proc else None, tail_text(dm.stderr(), 10)))
        a.start()
        t_up = time.monotonic()
        check_eq(a.port, port, "anvil port after restart")
        check_eq(a.height(), tip, "anvil tip after restart")
        retries = check_retries(dm, off)
        a.rpc("evm_mine")
        wait_log_height(dm, tip, timeout=40)
        resumed_after = time.monotonic() - t_up
        s.mining = s.betting = True
        s.run(3)
        s.betting = False
        s.run(2, until=lambda: not s.pending_any())
        s.mining = False
        mine_until_empty(a)
        a.rpc("evm_mine")
        last = a.height() - 1
        wait_log_height(dm, last)
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
        data = log_bytes(dm.card_log)
        check_heights(data, first, last, "card log", CHAIN)
        check_bytes(data, ctx.replay_text(a, first, last), "card log vs hashjack replay")
        c = summary(data)
    finally:
        a.stop()
    return ("node down %.1fs with %d open rounds: %d retries logged, next block logged %.1fs "
            "after the node came back; heights %d..%d once each; log == replay (%s)"
            % (t_up - t_down, open_rounds, len(retries), resumed_after, first, last,
               fmt_counts(c, ["Bet", "Hit", "Stand", "Double", "settle", "reject"])))


# --------------------------------------------------------------------------
# 3. Reorganisation within the confirmations

def case_reorg_shallow(ctx):
    """confirmations = 4; three anvil_reorg of depth 3, 1 and 3 while the
    daemon sits at the edge (tip - 3): a Hit and a deposit dropped, the
    deposit and a Bet moved into other blocks, a Stand added by the reorg.
    The daemon never logs a replaced hash nor records a dropped transaction,
    logs no reorganisation, and its log equals replay of the final chain."""
    a = ctx.anvil("reorg")
    try:
        d = a.accounts[9].address
        first = start_point(a, 4)
        dm = ctx.daemon(a, "reorg", confirmations=4, start_height=first)
        dm.start()
        p1, p2, p4, p5 = (a.accounts[i] for i in (1, 2, 4, 5))
        bet1 = a.send(p1, d, BET, 5000)
        x = int(a.mine(expect=[bet1])["number"], 16)
        hit4 = a.send(p4, d, HIT, 0)
        a.mine(expect=[hit4])                          # X+1
        dep5 = a.send(p5, d, "0x", 77)
        a.mine(expect=[dep5])                          # X+2
        a.mine(expect=[])                              # X+3
        old = []
        dropped = [hit4]

        def at_edge(want):
            wait_log_height(dm, want)
            check(settle_quiet(dm), "the daemon went on past the final blocks")
            check_eq(last_logged_height(dm.card_log), want, "last logged height (tip - 3)")

        at_edge(x)
        # reorg A: X+1..X+3 replaced; the deposit moves to X+1, p2's Bet
        # (signed by anvil) goes into X+3, p4's Hit is gone
        got = a.reorg(3, [(a.raw[dep5], 0),
                          ({"from": p2.address, "to": d, "value": hex(7000),
                            "input": BET}, 2)])
        old.extend((h, o) for h, (o, _) in got.items())
        b3 = a.block(x + 3)
        check_eq(len(b3["transactions"]), 1, "txs of the new X+3")
        bet2 = b3["transactions"][0]["hash"]
        check_eq([t["hash"] for t in a.block(x + 1)["transactions"]], [dep5], "new X+1")
        check(a.rpc("eth_getTransactionByHash", hit4) is None, "the Hit was dropped")
        check(settle_quiet(dm), "the daemon logged something after reorg A")
        a.mine_empty(2)                                # X+4, X+5
        at_edge(x + 2)
        # reorg B: the tip alone
        got = a.reorg(1)
        old.extend((h, o) for h, (o, _) in got.items())
        # reorg C: X+3..X+5 replaced: p2's Bet moves to X+4, p1's Stand
        # comes in X+5 (p1's window opens at X+4)
        raw2 = a.rpc("eth_getRawTransactionByHash", bet2)
        got = a.reorg(3, [(raw2, 1),
                          ({"from": p1.address, "to": d, "value": "0x0",
                            "input": STAND}, 2)])
        old.extend((h, o) for h, (o, _) in got.items())
        check_eq([t["hash"] for t in a.block(x + 4)["transactions"]], [bet2], "new X+4")
        a.mine_empty(3)                                # X+6..X+8
        at_edge(x + 5)
        stand2 = a.send(p2, d, STAND, 0)
        a.mine(expect=[stand2])
        a.mine_empty(14)
        last = a.height() - 3
        wait_log_height(dm, last)
        check(dm.running(), "hashjackd exited")
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        err = dm.stderr()
        check("reorganisation" not in err, "a reorganisation was logged:\n%s"
              % tail_text(err, 5))
        data = log_bytes(dm.card_log)
        for h, oh in old:
            check(oh.encode() not in data, "replaced block %d (%s) is in the log" % (h, oh))
        for t in dropped:
            check(t.encode() not in data, "dropped tx %s is in the log" % t)
        txids = {"0x" + r[0].hex() for r in db_rows(dm.state_dir, ctx.workdir)["txs"]}
        check(not (set(dropped) & txids), "dropped tx recorded in the database")
        check_heights(data, first, last, "card log", CHAIN)
        check_bytes(data, ctx.replay_text(a, first, last), "card log vs replay of the final chain")
        ls = [json.loads(l) for l in data.splitlines()]
        acts = [(e["action"], e["tx"]) for e in events(ls, type="action")]
        check(("Bet", bet2) in acts and ("Bet", bet1) in acts, "both Bets accepted: %s" % acts)
    finally:
        a.stop()
    return ("3 reorgs (depth 3, 1, 3) replaced %d blocks, dropped 1 tx, moved 2, added 2; "
            "never logged; log == replay of blocks %d..%d" % (len(old), first, last))


# --------------------------------------------------------------------------
# 4. Reorganisation deeper than the confirmations

def case_reorg_deep(ctx):
    """confirmations = 2: reorgs of depth 2 (= confirmations) and 5 after the
    daemon processed the replaced blocks: exit 3 within 10 s with the heights
    and both hashes; card log and database rows (cursor with log dev/ino,
    rounds, txs, payouts) unchanged; a restart exits 3 again, still
    unchanged.  `hashjack reorg` says "no reorganisation" (exit 0) before,
    and after it (exit 1) the fork point, the blocks dealt after it, the
    rejection's refund among their events and payouts, and the open round
    opened before it."""
    a = ctx.anvil("deep")
    out = []
    try:
        d = a.accounts[9].address
        for k, depth in enumerate((2, 5)):
            first = start_point(a, 2)
            dm = ctx.daemon(a, "deep%d" % depth, confirmations=2, start_height=first,
                            batch_blocks=3)
            dm.start()
            p = a.accounts[1 + k]
            bet = a.send(p, d, BET, 4000 + k)
            dep = a.send(a.accounts[5], d, "0x", 5)
            a.mine(expect=[bet, dep])
            early = a.send(p, d, STAND, 3)             # premature, refunded
            a.grind("8", expect=[early])               # 8, dealer 9, 7: the
            a.grind("9", expect=[])                    # round stays open
            a.grind("7", expect=[])
            a.mine_empty(2)
            tip = a.height()
            wait_log_height(dm, tip - 1)
            before = wait_cursor(dm, tip - 1, ctx.workdir)
            check(settle_quiet(dm), "the daemon went on past the final blocks")
            log_before = log_bytes(dm.card_log)
            check_no_reorg(ctx.hashjack, dm, tip - 1)
            check(len(before["rounds"]) == 1 and len(before["payouts"]) == 1,
                  "an open round and a refund before the reorg: %d, %d"
                  % (len(before["rounds"]), len(before["payouts"])))
            got = a.reorg(depth)
            a.rpc("evm_mine")
            try:
                rc = dm.wait_exit(10)
            except TimeoutError:
                raise Failed("hashjackd still running 10s after a reorg of depth %d:\n%s"
                             % (depth, tail_text(dm.stderr(), 5)))
            dm.stop()
            check_eq(rc, 3, "exit status after a reorg of depth %d" % depth)
            msg = check_reorg_refused(dm, tip, got[tip - 1], before, log_before, ctx.workdir)
            fork = tip - depth
            want = check_reorg_report(ctx.hashjack, dm, fork, got[fork + 1], "wei")
            # depth 5 takes the premature Stand's block and its refund
            check(("1 rejections (refunds 3 wei)" in want[3]) == (depth == 5),
                  "the model: %s" % want[3])
            out.append("depth %d: exit 3 twice, names %d/%d and both hashes"
                       % (depth, tip, tip - 1))
        last_msg = msg
    finally:
        a.stop()
    return "; ".join(out) + '; message: "%s"' % last_msg[:160]


# --------------------------------------------------------------------------
# 5. kill -9 at random instants during a session

def case_kill9_session(ctx):
    """Five players play for at least 45 s (blocks mined every 0.12 s,
    timeouts of 12 blocks; they act on R's log) while daemon T
    (batch_blocks=2) is killed with SIGKILL at random instants at least 24
    times: while following, a few ms after a start, and in the middle of a
    catch-up onto a backlog of 80-200 blocks (at least 8 of those, and at
    least 2 kills that left lines beyond the last commit), and restarted each
    time; daemon R runs uninterrupted over the same chain with its own state
    dir.  Afterwards T's card log is
    byte-identical to R's and to `hashjack replay`, and the databases hold
    the same rows (meta, cursor height/hash/log_offset, txs, rounds,
    payouts).  After each kill the log is never shorter than the committed
    offset, and the restart cuts it back to exactly that offset."""
    tb = 12
    rng = random.Random(ctx.seed)
    a = ctx.anvil("kill9")
    try:
        first = start_point(a, 2)
        T = ctx.daemon(a, "kill9-T", confirmations=2, start_height=first, batch_blocks=2,
                       timeout_blocks=tb)
        R = ctx.daemon(a, "kill9-R", confirmations=2, start_height=first, timeout_blocks=tb)
        R.start()
        T.start()
        K = Kills(T, ctx.workdir)
        s = Session(a, R.card_log, [1, 2, 3, 4, 5], rng)
        t_begin = time.monotonic()
        # The loop ends when its counts are met (about 50 s on a quiet
        # machine); the deadline only stops a run that hangs: a loaded
        # machine mines and catches up slower, not wrongly.
        deadline = t_begin + 300
        mode = "random"
        while ((len(K.kills) < 24 or K.phases["catch-up"] < 8 or K.torn < 2
                or time.monotonic() < t_begin + 45) and time.monotonic() < deadline):
            if mode == "catch-up":
                # T was restarted onto a backlog of 80-200 blocks: kill it
                # once its log has grown by 0..30 kB, and by less than the
                # backlog writes (~300 B per empty block), a few ms later;
                # a T killed before it made its card log may not have made
                # it yet (size 0)
                grow = rng.randint(0, min(30000, 250 * backlog))
                wait_until(lambda: not T.running()
                           or file_size(T.card_log) > K.size0 + grow,
                           10, "T to catch up %d bytes" % grow, interval=0.0005)
                time.sleep(rng.uniform(0, 0.005))
            elif mode == "startup":
                time.sleep(rng.uniform(0, 0.01))
            else:
                s.run(rng.uniform(0.0, 1.0))
            K.kill()
            # while T is down the chain goes on; half the time a backlog
            r = rng.random()
            mode = "catch-up" if r < 0.4 else "startup" if r < 0.5 else "random"
            s.run(rng.uniform(0.0, 0.5))
            if mode == "catch-up":
                backlog = rng.randint(80, 200)
                a.mine_empty(backlog)
            K.restart()
        K.check_count()
        # the end: no new rounds, everything sent gets mined
        s.betting = False
        s.run(3, until=lambda: not s.pending_any())
        s.mining = False
        mine_until_empty(a)
        a.mine_empty(2)
        last = a.height() - 1
        wait_log_height(R, last, timeout=30)
        wait_log_height(T, last, timeout=30)
        K.check_last_resume()
        t_data, t_db = check_as_uninterrupted(T, R, first, last,
                                              lambda: ctx.replay_text(a, first, last, tb),
                                              ctx.workdir, CHAIN)
        c = summary(t_data)
        check(c["settle"] >= 20, "only %d rounds settled" % c["settle"])
        # (Double too, most of the time; but a hand to double on may
        # not come, and the game tests play every action on ground cards)
        for k in ("Bet", "Hit", "Stand"):
            check(c[k] > 0, "no %s in the session" % k)
    finally:
        a.stop()
    return ("%s; %d blocks, %d rounds settled, %s, %d rows in txs, %d payouts; "
            "T == R == replay" % (
                K.describe(), last - first + 1, c["settle"],
                fmt_counts(c, ["Bet", "Peek", "peek", "skip", "Hit", "Stand", "Double",
                               "Surrender", "timeout", "deposit", "reject"]),
                len(t_db["txs"]), len(t_db["payouts"])))


# --------------------------------------------------------------------------
# 6. SIGHUP after moving the card log

def case_sighup_rotation(ctx):
    """logrotate style: the card log moved to .N, then SIGHUP.  (a) While
    following: the daemon says "card log reopened", continues in a new file,
    the moved one no longer grows.  (b) While following, kill -9 0, 2 or
    10 ms after the SIGHUP, then a restart.  (c) In the middle of a
    300-block catch-up (batch_blocks=2), move + SIGHUP + kill -9 at once, six
    times.  At the end the pieces in order, concatenated, equal replay:
    every height exactly once."""
    a = ctx.anvil("hup")
    rng = random.Random(ctx.seed + 6)
    try:
        first = start_point(a, 2)
        dm = ctx.daemon(a, "hup", confirmations=2, start_height=first, batch_blocks=2)
        dm.start()
        s = Session(a, dm.card_log, [1, 2, 3], rng, lazy=0)
        s.run(2)
        pieces = []

        def rotate():
            dst = "%s.%d" % (dm.card_log, len(pieces) + 1)
            os.rename(dm.card_log, dst)
            pieces.append(dst)
            return dst

        # (a)
        off = stderr_size(dm)
        old = rotate()
        os.kill(dm.proc.pid, signal.SIGHUP)
        wait_until(lambda: "card log reopened" in stderr_since(dm, off), 5,
                   "\"card log reopened\"")
        size_old = os.path.getsize(old)
        check(s.run(30, until=lambda: os.path.exists(dm.card_log)
                    and os.path.getsize(dm.card_log) > 0),
              "no new card log after SIGHUP, blocks mined for 30 s")
        check_eq(os.path.getsize(old), size_old, "size of the moved log after the reopen")
        check(dm.running(), "hashjackd exited after SIGHUP")
        # (b) and (c)
        handled = 0
        beyond = []      # moved files left holding lines beyond the commit
        for k, delay in enumerate([0, 0.002, 0.01] + ["catch-up"] * 6):
            if delay == "catch-up":
                check_eq(dm.stop(), 0, "exit status on SIGTERM")
                s.mining = False
                a.mine_empty(300)
                size0 = os.path.getsize(dm.card_log)
                dm.start()
                grow = rng.randint(2000, 60000)
                wait_until(lambda: os.path.getsize(dm.card_log) > size0 + grow, 20,
                           "the catch-up to begin", interval=0.0005)
                delay = 0
            off = stderr_size(dm)
            moved = rotate()
            os.kill(dm.proc.pid, signal.SIGHUP)
            if delay:
                time.sleep(delay)
            dm.kill9()
            if "card log reopened" in stderr_since(dm, off):
                handled += 1
            r = db_rows(dm.state_dir, ctx.workdir, with_file_id=True)
            st = os.stat(moved)
            cur = r["cursor"][0]
            if ((cur[3] % 2 ** 64, cur[4] % 2 ** 64) == (st.st_dev, st.st_ino)
                    and st.st_size > r["offset"]):
                beyond.append((os.path.basename(moved), st.st_size - r["offset"]))
            dm.start()
            s.mining = True
            s.run(0.7)
        s.betting = False
        s.run(2, until=lambda: not s.pending_any())
        s.mining = False
        mine_until_empty(a)
        a.rpc("evm_mine")
        last = a.height() - 1
        wait_log_height(dm, last, timeout=20)
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        data = b"".join(log_bytes(p) for p in pieces) + log_bytes(dm.card_log)
        try:
            check_heights(data, first, last, "the logs concatenated", CHAIN)
            check_bytes(data, ctx.replay_text(a, first, last), "logs concatenated vs replay")
        except Failed as e:
            if beyond:
                raise Failed("%s\n  %d time(s) the kill came before the SIGHUP was handled, "
                             "with a batch written but not committed: the moved file kept "
                             "the uncommitted lines (%s) and the restart wrote those blocks "
                             "again into the new file" % (e, len(beyond), beyond))
            raise
    finally:
        a.stop()
    return ("%d rotations (%d with kill -9 right after SIGHUP, 6 of them in catch-up; %d "
            "handled before the kill, %d left uncommitted lines in the moved file); pieces + "
            "current == replay of blocks %d..%d"
            % (len(pieces), len(pieces) - 1, handled, len(beyond), first, last))


# --------------------------------------------------------------------------
# 7. Operational checks

GOOD_CONF = """\
[chain]
family = evm
rpc_url = http://127.0.0.1:1
confirmations = 3

[dealer]
address = 0x70997970C51812dc3A010C7d01b50e0d17dc79C8

[rules]
min_bet = 1000
max_bet = 5000

[state]
directory = {state}
"""


def run_daemon(ctx, args, timeout=20, env=None):
    r = subprocess.run([ctx.hashjackd] + list(args), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


def case_config_errors(ctx):
    """Malformed files (unknown key, unknown section, bad values, duplicate
    key, key above any section, min_bet above max_bet) exit 78 with
    file:line: and the key on stderr, with and without --check-config, and
    create no state; a missing required key exits 78 naming the file and the
    key; a bad override exits 78; --check-config on a good file exits 0 and
    prints the house edge; a rule set that favours the player exits 78
    unless allow_player_edge = yes; an unknown argument exits 64."""
    d = os.path.join(ctx.workdir, "config")
    os.makedirs(d)
    state = os.path.join(d, "state-never")
    good = GOOD_CONF.format(state=state)
    lines = good.splitlines()

    def variant(name, edit):
        path = os.path.join(d, name + ".conf")
        ls = list(lines)
        edit(ls)
        with open(path, "w") as f:
            f.write("\n".join(ls) + "\n")
        return path

    def at(ls, prefix):
        return next(i for i, l in enumerate(ls) if l.startswith(prefix))

    # (name, edit, the offending line as written, its occurrence, what the
    # message must name)
    cases = [
        ("unknown_key", lambda ls: ls.insert(at(ls, "confirmations") + 1, "confirmatons = 4"),
         "confirmatons = 4", 1, "confirmatons"),
        ("unknown_section", lambda ls: ls.extend(["[chian]", "x = 1"]), "[chian]", 1, "chian"),
        ("bad_number", lambda ls: ls.__setitem__(at(ls, "confirmations"), "confirmations = abc"),
         "confirmations = abc", 1, "confirmations"),
        ("leading_zero", lambda ls: ls.__setitem__(at(ls, "confirmations"), "confirmations = 012"),
         "confirmations = 012", 1, "confirmations"),
        ("out_of_range", lambda ls: ls.__setitem__(at(ls, "confirmations"),
                                                   "confirmations = 10001"),
         "confirmations = 10001", 1, "confirmations"),
        ("bad_address", lambda ls: ls.__setitem__(at(ls, "address"), "address = 0x1234"),
         "address = 0x1234", 1, "address"),
        ("bad_url", lambda ls: ls.__setitem__(at(ls, "rpc_url"), "rpc_url = ftp://x"),
         "rpc_url = ftp://x", 1, "rpc_url"),
        ("bad_bool", lambda ls: ls.append("log_fsync = maybe"), "log_fsync = maybe", 1,
         "log_fsync"),
        ("duplicate", lambda ls: ls.insert(at(ls, "confirmations") + 1, "confirmations = 3"),
         "confirmations = 3", 2, "confirmations"),
        ("above_section", lambda ls: ls.insert(0, "batch_blocks = 3"), "batch_blocks = 3", 1,
         "batch_blocks"),
        ("min_above_max", lambda ls: ls.__setitem__(at(ls, "max_bet"), "max_bet = 999"),
         "max_bet = 999", 1, "max_bet"),
    ]
    done = []
    for name, edit, marker, nth, key in cases:
        path = variant(name, edit)
        with open(path) as f:
            where = [i + 1 for i, l in enumerate(f.read().splitlines()) if l == marker]
        line = where[nth - 1]
        for extra in (["--check-config"], []):
            rc, out, err = run_daemon(ctx, ["-c", path] + extra)
            check_eq(rc, 78, "%s%s: exit status (stderr %r)"
                     % (name, " --check-config" if extra else "", err))
            check("%s:%d:" % (path, line) in err and key in err,
                  "%s: stderr lacks %s:%d: and %s: %r" % (name, path, line, key, err))
        done.append(name)
    check(not os.path.exists(state), "a failed start created the state directory")
    # missing required keys: nowhere to point, so the file and the key
    for name, prefix, key in (("no_dealer", "address", "[dealer] address"),
                              ("no_min_bet", "min_bet", "[rules] min_bet"),
                              ("no_max_bet", "max_bet", "[rules] max_bet")):
        path = variant(name, lambda ls: ls.pop(at(ls, prefix)))
        rc, out, err = run_daemon(ctx, ["-c", path, "--check-config"])
        check_eq(rc, 78, "%s: exit status" % name)
        check(path in err and key in err and "required" in err,
              "%s: stderr %r" % (name, err))
        done.append(name)
    gpath = variant("good", lambda ls: None)
    rc, out, err = run_daemon(ctx, ["-c", gpath, "--chain.confirmations=0", "--check-config"])
    check_eq(rc, 78, "bad override: exit status")
    check("confirmations" in err and "command line" in err, "bad override: stderr %r" % err)
    rc, out, err = run_daemon(ctx, ["-c", gpath, "--check-config"])
    check_eq(rc, 0, "--check-config on a good file: exit status (stderr %r)" % err)
    check("configuration OK" in out and "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" in out,
          "--check-config output: %r" % out)
    check("house edge: 2.436355 %" in out, "--check-config prints the house edge: %r" % out)
    # a rule set that favours the player: refused, unless allowed
    for arg, what in (("--rules.blackjack_pays=3:1", "the house edge is -"),
                      ("--rules.perfect_pairs=25,12,6",
                       "perfect_pairs' house edge is -1.923077 %")):
        rc, out, err = run_daemon(ctx, ["-c", gpath, arg, "--check-config"])
        check_eq(rc, 78, "%s: exit status (stderr %r)" % (arg, err[-300:]))
        check(what in err and "allow_player_edge = yes" in err,
              "%s: stderr %r" % (arg, err[-300:]))
        rc, out, err = run_daemon(ctx, ["-c", gpath, arg, "--rules.allow_player_edge=yes",
                                        "--check-config"])
        check_eq(rc, 0, "%s allowed: exit status (stderr %r)" % (arg, err[-300:]))
        check("(allow_player_edge = yes)" in out, "%s allowed: %r" % (arg, out))
    rc, out, err = run_daemon(ctx, ["-c", gpath, "--chain.rpc_url=http://127.0.0.1:2",
                                    "--check-config"])
    check_eq(rc, 0, "good override: exit status")
    check("127.0.0.1:2" in out, "override shown: %r" % out)
    rc, out, err = run_daemon(ctx, ["-c", gpath, "--bogus"])
    check_eq(rc, 64, "unknown argument: exit status")
    check(not os.path.exists(state), "--check-config created the state directory")
    return ("%d malformed files -> 78 with file:line:/file + key; override 78; good 0; "
            "usage 64" % len(done))


def case_state_dir_guard(ctx):
    """A second daemon on a state dir in use exits 1 and says another one uses
    it; the first keeps running.  The state dir then refuses (exit 4, naming
    the field and both values, nothing changed) another dealer, other
    min_bet / max_bet / timeout_blocks / rule key / preset... and works again
    with the right ones."""
    a = ctx.anvil("guard")
    try:
        dm = ctx.daemon(a, "guard", confirmations=1)
        dm.start()
        a.mine_empty(3)
        wait_log_height(dm, a.height())
        rc, out, err = run_daemon(ctx, ["-c", dm.conf])
        check_eq(rc, 1, "second daemon on the same state dir: exit status (stderr %r)" % err)
        check("another hashjackd" in err and dm.state_dir in err, "message: %r" % err)
        check(dm.running(), "the first daemon stopped")
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        before = db_rows(dm.state_dir, ctx.workdir, with_file_id=True)
        log_before = log_bytes(dm.card_log)
        other = a.accounts[8].address
        for arg, field, vals in (
                ("--dealer.address=" + other, "dealer", (other, a.accounts[9].address)),
                # a rule set that differs: each differing key named with
                # the stored and the configured value
                ("--rules.min_bet=999", "rules.min_bet",
                 ('"1000" in the database', '"999" configured')),
                ("--rules.max_bet=%d" % (MAX_BET - 1), "rules.max_bet",
                 ('"%d" in the database' % MAX_BET, '"%d" configured' % (MAX_BET - 1))),
                ("--rules.timeout_blocks=99", "rules.timeout_blocks",
                 ('"100" in the database', '"99" configured')),
                ("--rules.surrender=early", "rules.surrender",
                 ('"late" in the database', '"early" configured')),
                ("--rules.preset=annakai", "rules.preset",
                 ('"bethash" in the database', '"annakai" configured'))):
            rc, out, err = run_daemon(ctx, ["-c", dm.conf, arg])
            check_eq(rc, 4, "%s: exit status (stderr %r)" % (arg, err[-300:]))
            check(field in err and all(v in err for v in vals),
                  "%s: the message names %s and both values: %r" % (arg, field, err[-400:]))
        check_db_equal(db_rows(dm.state_dir, ctx.workdir, with_file_id=True), before,
                       "database after the refusals")
        check_bytes(log_bytes(dm.card_log), log_before, "card log after the refusals")
        # the card log shorter than committed, or replaced: refused (exit 1)
        os.truncate(dm.card_log, len(log_before) - 1)       # same file, cut
        rc, out, err = run_daemon(ctx, ["-c", dm.conf])
        check_eq(rc, 1, "card log shorter than committed: exit status (stderr %r)" % err[-300:])
        check("restore the file" in err, "message: %r" % err[-300:])
        check_eq(os.path.getsize(dm.card_log), len(log_before) - 1, "size of the cut log")
        os.rename(dm.card_log, dm.card_log + ".cut")
        with open(dm.card_log, "wb") as f:                # another file
            f.write(log_before + b"\n")
        rc, out, err = run_daemon(ctx, ["-c", dm.conf])
        check_eq(rc, 1, "card log replaced by another file: exit status (stderr %r)" % err[-300:])
        check("replaced" in err, "message: %r" % err[-300:])
        with open(dm.card_log, "wb") as f:     # a new inode again, same bytes
            f.write(log_before)
        rc, out, err = run_daemon(ctx, ["-c", dm.conf])
        check_eq(rc, 1, "card log replaced by a copy: exit status (stderr %r)" % err[-300:])
        check_db_equal(db_rows(dm.state_dir, ctx.workdir, with_file_id=True), before,
                       "database after the refused starts")
        # move the new card log away: the daemon starts a fresh file
        os.rename(dm.card_log, dm.card_log + ".old")
        dm.start()
        a.mine_empty(1)
        wait_log_height(dm, a.height())
        os.kill(dm.proc.pid, signal.SIGINT)
        check_eq(dm.wait_exit(5), 0, "exit status on SIGINT")
        dm.stop()
        check_eq(heights_of(log_bytes(dm.card_log), CHAIN), [a.height()],
                 "heights in the new card log")
    finally:
        a.stop()
    return ("second daemon -> 1 (\"another hashjackd\"); dealer, min_bet, max_bet, "
            "timeout_blocks -> 4; log shorter / replaced -> 1; state unchanged; SIGINT -> 0")


def case_sd_notify(ctx):
    """NOTIFY_SOCKET and WATCHDOG_USEC=200000: STATUS= "catching up" with
    heights during a 300-block catch-up, READY=1 once (when the log has the
    last final block), STATUS= "following" after it, WATCHDOG=1 about every
    100 ms, STOPPING=1 on SIGTERM, exit 0.  Without WATCHDOG_USEC, or with a
    WATCHDOG_PID of another process, no WATCHDOG=1."""
    a = ctx.anvil("notify")
    sock_dir = tempfile.mkdtemp(prefix="hjn-", dir="/tmp")
    try:
        a.mine_empty(300)
        tip = a.height()
        dm = ctx.daemon(a, "notify", confirmations=2, start_height=1, batch_blocks=5)
        ns = NotifySocket(os.path.join(sock_dir, "notify"), dm.card_log)
        try:
            with environ(NOTIFY_SOCKET=ns.path, WATCHDOG_USEC="200000", WATCHDOG_PID=None):
                dm.start()
            wait_log_height(dm, tip - 1)
            wait_until(lambda: "READY=1" in ns.texts(), 5, "READY=1")
            time.sleep(1.2)
            a.mine_empty(2)
            wait_log_height(dm, tip + 1)
            time.sleep(1.1)
            os.kill(dm.proc.pid, signal.SIGTERM)
            rc = dm.wait_exit(5)
            dm.stop()
            time.sleep(0.2)
        finally:
            ns.close()
        check_eq(rc, 0, "exit status on SIGTERM")
        msgs = ns.msgs
        texts = [m for _, m, _ in msgs]
        ready = [i for i, m in enumerate(texts) if m == "READY=1"]
        check_eq(len(ready), 1, "READY=1 messages")
        check(msgs[ready[0]][2] is not None and msgs[ready[0]][2] >= tip - 1,
              "READY=1 arrived with the log at %s, before the catch-up to %d ended"
              % (msgs[ready[0]][2], tip - 1))
        st = [(i, m) for i, m in enumerate(texts) if m.startswith("STATUS=")]
        for _, m in st:
            check(re.search(r"block \d+", m) and re.search(r"tip \d+", m)
                  and re.search(r"\d+ open rounds", m),
                  "STATUS= line without heights and open rounds: %r" % m)
        before = [m for i, m in st if i < ready[0]]
        after = [m for i, m in st if i > ready[0]]
        check(before and all("catching up" in m for m in before),
              "STATUS= before READY=1: %s" % before)
        check(after and all("following" in m for m in after), "STATUS= after READY=1: %s" % after)
        check(int(re.search(r"block (\d+)", after[-1]).group(1)) >= tip - 1
              and int(re.search(r"tip (\d+)", after[-1]).group(1)) >= tip,
              "heights of the last STATUS=: %s" % after[-1])
        check_eq(texts[-1], "STOPPING=1", "last message")
        # every 100 ms, counted from the first (the start under ASan
        # takes its time) to STOPPING=1
        wdt = [t for t, m, _ in msgs if m == "WATCHDOG=1"]
        span = msgs[-1][0] - wdt[0] if wdt else 0
        check(span > 1 and len(wdt) >= span / 0.1 * 0.6,
              "%d WATCHDOG=1 in %.1fs with WATCHDOG_USEC=200000" % (len(wdt), span))
        # no watchdog without WATCHDOG_USEC, nor for another process's
        quiet = {}
        for label, env in (("no WATCHDOG_USEC", {"WATCHDOG_USEC": None}),
                           ("WATCHDOG_PID=1", {"WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"})):
            ns2 = NotifySocket(os.path.join(sock_dir, "notify2"), dm.card_log)
            try:
                env = dict(env)
                env.setdefault("WATCHDOG_PID", None)
                with environ(NOTIFY_SOCKET=ns2.path, **env):
                    dm.start()
                wait_until(lambda: "READY=1" in ns2.texts(), 10, "READY=1 (%s)" % label)
                time.sleep(0.6)
                check_eq(dm.stop(), 0, "exit status on SIGTERM (%s)" % label)
                time.sleep(0.1)
            finally:
                ns2.close()
            quiet[label] = ns2.texts()
            check("WATCHDOG=1" not in quiet[label], "WATCHDOG=1 sent with %s" % label)
            check_eq(quiet[label][-1], "STOPPING=1", "last message (%s)" % label)
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)
        a.stop()
    return ("READY=1 once with the log at %d; %d STATUS= (%d catching up), %d WATCHDOG=1 in %.1fs; "
            "STOPPING=1 last; e.g. %r" % (msgs[ready[0]][2], len(st), len(before), len(wdt), span,
                                          after[-1][:90]))


def case_first_start_ahead(ctx):
    """A first start at a block that is not final yet, as the defaults give
    (start_height unset = the tip at first start, 12 confirmations), and a
    start_height above the tip: the daemon waits until the block is final,
    then deals it and follows."""
    a = ctx.anvil("ahead")
    bad, good = [], []
    try:
        a.mine_empty(5)
        for k, (label, conf, ahead) in enumerate((
                ("start_height unset, confirmations unset (12)", None, None),
                ("start_height unset, confirmations = 3", 3, None),
                ("start_height = tip + 3, confirmations = 1", 1, 3))):
            tip0 = a.height()
            first = tip0 + ahead if ahead else tip0
            dm = ctx.daemon(a, "ahead%d" % k, confirmations=conf,
                            start_height=first if ahead else None)
            off = stderr_size(dm)
            dm.start()
            # the first start picks its block before anything is mined
            said = "first start: dealing from block %d " % first
            wait_until(lambda: not dm.running() or said in stderr_since(dm, off), 30,
                       repr(said))
            if ahead:
                # stopped and started again before its first block: the
                # cursor is the block before it, which it never dealt
                check_eq(dm.stop(), 0, "exit status on SIGTERM before the first block")
                said = "SIGTERM: stopping before its first block, %d\n" % first
                check(said in stderr_since(dm, off), "%r in:\n%s"
                      % (said, tail_text(stderr_since(dm, off), 5)))
                off = stderr_size(dm)
                dm.start()
                said = "resuming before its first block, %d, card log at 0 bytes\n" % first
                wait_until(lambda: not dm.running() or said in stderr_since(dm, off), 30,
                           repr(said))
            final_tip = first + (conf or 12) - 1 + 2     # first..first+2 final
            a.mine_empty(final_tip - a.height())
            try:
                wait_log_height(dm, first + 2, timeout=5)
                check_eq(dm.stop(), 0, "exit status on SIGTERM")
                said = "SIGTERM: stopping after block %d\n" % (first + 2)
                check(said in stderr_since(dm, off), "%r in:\n%s"
                      % (said, tail_text(stderr_since(dm, off), 5)))
                check_bytes(log_bytes(dm.card_log), ctx.replay_text(a, first, first + 2),
                            "%s: card log vs replay" % label)
                good.append(label)
            except (TimeoutError, Failed) as e:
                err = dm.stderr().strip().splitlines()
                bad.append("%s: tip %d at start, first block %d, tip now %d, nothing logged "
                           "after 5 s (%s); last stderr line: %s"
                           % (label, tip0, first, a.height(), str(e).splitlines()[0],
                              err[-1] if err else ""))
                dm.stop()
    finally:
        a.stop()
    check(not bad, "\n    ".join(["the daemon never deals:"] + bad))
    return "; ".join(good)


CASES = [case_first_start_ahead, case_restart_mid_round, case_node_down, case_reorg_shallow,
         case_reorg_deep,
         case_kill9_session, case_sighup_rotation, case_config_errors, case_state_dir_guard,
         case_sd_notify]


def main():
    return fault_main(__doc__, CASES, "hj-e2e-faults-", 20, 600, Ctx)


if __name__ == "__main__":
    sys.exit(main())
