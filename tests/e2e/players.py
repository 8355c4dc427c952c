"""Simulated players that act on what a card log says (the fault tests'
sessions, on either family).

Python 3, standard library only.  CardLogPlayers mines a block every so
often, gives each new line of the log to its feed() and lets each
LogPlayer decide its next transaction; a family's session says how to
mine, what the log's lines mean to its players and what to send.
"""

import collections
import time

from logs import CardLogTail


class LogPlayer:
    """What a player of CardLogPlayers knows from the log: its open round,
    its first hand's cards, the dealer's, its stake, whether it peeked,
    from which height it may act (ready_at) or bet again (next_bet_at);
    what it sent and has not seen logged yet (pending, sent at pending_h);
    whether it leaves this round to time out (lazy) or acts too early
    (premature)."""

    def __init__(self):
        self.round = None
        self.cards = []
        self.dealer = []
        self.stake = 0
        self.peeked = False
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
    A subclass gives mine_block(), feed() and decide(); its players are
    LogPlayers."""

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
