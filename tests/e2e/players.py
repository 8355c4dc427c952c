"""Simulated players that act on what a card log says (the fault tests'
sessions, on either family).

Python 3, standard library only.  CardLogPlayers mines a block every so
often, reads each new line of the log, keeps what each LogPlayer knows of
its round from the log alone (feed(): one reading of the events for both
families) and lets each player decide its next transaction; a family's
session says who acted, what a settlement means to its players, how to
mine and what to send.
"""

import collections
import time

from logs import CardLogTail


class LogPlayer:
    """What a player of CardLogPlayers knows from the log: its open round,
    its first hand's cards, the dealer's, its stake, whether it peeked,
    the actions and timeouts of its round so far (seq: the Bitcoin family
    signs with it), from which height it may act (ready_at) or bet again
    (next_bet_at); what it sent and has not seen logged yet (pending, sent
    at pending_h); whether it leaves this round to time out (lazy) or acts
    too early (premature)."""

    def __init__(self):
        self.round = None
        self.cards = []
        self.dealer = []
        self.stake = 0
        self.peeked = False
        self.seq = 0
        self.ready_at = None
        self.pending = None
        self.pending_h = 0
        self.next_bet_at = 0
        self.lazy = False
        self.premature = False


class CardLogPlayers:
    """Players that act on what a card log says, never on a card not yet
    logged: step() mines a block every `interval` seconds while `mining`
    (mine_block()), gives each new line of the log to feed(line) (which
    sets `height`) and, once a line was seen, lets each player decide(p).
    A new round's player leaves it to time out with probability `lazy`
    and acts before its window with probability `premature`.

    A subclass gives mine_block(), decide(p), actor(e, p) (the player of
    an "action" event: p is the one that sent its transaction, if it was
    one of ours), settled(e, h) (a "settle" event at height h), and may
    give round_began(p) (after a Bet of p's is logged).  Its players are
    LogPlayers."""

    premature = 0.12

    def __init__(self, log_path, players, rng, interval=0.12, lazy=0.12):
        self.tail = CardLogTail(log_path, strict=True)
        self.players = players
        self.by_tx = {}
        self.by_round = {}
        self.rng = rng
        self.interval = interval
        self.lazy = lazy
        self.height = None
        self.next_mine = time.monotonic()
        self.mining = True
        self.betting = True
        self.sent = collections.Counter()

    def step(self):
        now = time.monotonic()
        if self.mining and now >= self.next_mine:
            self.mine_block()
            self.next_mine = max(self.next_mine + self.interval, now)
        for line in self.tail.read():
            self.feed(line)
        if self.height is not None:
            for p in self.players:
                self.decide(p)

    def run(self, seconds, until=None):
        """Steps for `seconds`, or until until() is true (returns True)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            if until and until():
                return True
            time.sleep(0.01)
        return False

    def pending_any(self):
        return any(p.pending for p in self.players)

    def round_began(self, p):
        pass

    def feed(self, line):
        """What the players learn from one line of the log."""
        h = line["height"]
        self.height = h
        rng = self.rng
        for e in line["events"]:
            t = e["type"]
            p = None
            if t in ("action", "reject", "deposit", "ignored"):
                p = self.by_tx.pop(e["tx"], None)
                if p is not None and p.pending == e["tx"]:
                    p.pending = None
            if t == "action":
                a = e["action"]
                q = self.actor(e, p)
                if q is None:
                    continue
                if a == "Bet":
                    q.round, q.seq, q.cards, q.dealer = e["round"], 0, [], []
                    q.stake, q.peeked, q.ready_at = int(e["stake"]), False, h + 3
                    q.lazy = rng.random() < self.lazy
                    q.premature = rng.random() < self.premature
                    self.round_began(q)
                    self.by_round[q.round] = q
                    continue
                q.seq += 1
                if a in ("Hit", "Peek"):
                    q.ready_at = h + 1
                    q.peeked = q.peeked or a == "Peek"
                else:
                    q.ready_at = None          # Stand, Double, Surrender: wait
            elif t == "reject":
                if p is None:
                    continue
                if e.get("reason") == "no_round" and p.round:
                    self.by_round.pop(p.round, None)
                    p.round = None
                if e.get("action") == "Bet" or p.round is None:
                    p.next_bet_at = h + 1
            elif t == "draw":
                q = self.by_round.get(e["round"])
                if q:
                    if e["handOwner"] == "Dealer":
                        q.dealer.append(e["card"])
                    elif e.get("handIndex") == 0:
                        q.cards.append(e["card"])
            elif t == "timeout":
                q = self.by_round.get(e["round"])
                if q:
                    q.seq += 1
                    if e["action"] == "Peek":
                        q.peeked, q.ready_at = True, h + 1
                    else:
                        q.ready_at = None
            elif t == "settle":
                self.settled(e, h)
