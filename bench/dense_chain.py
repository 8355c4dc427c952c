"""Dense chains for bench/dense.py: anvil blocks holding D transactions to
the dealer each, from thousands of players.

Python 3, standard library only.  What it gives:

- DenseAnvil: anvil on 127.0.0.1 for dense blocks: any sender accepted
  without a key (--auto-impersonate), no fees (base fee and gas price 0),
  a block gas limit for thousands of transactions, transactions mined in
  the order sent, requests of any size (--no-request-size-limit: a
  receipts batch of 100 blocks of 1,000 transactions is 12 MB, anvil's
  default limit 2 MB); JSON-RPC calls and batches.
- Players: the players' side of the chain, block after block: each block
  gets D transactions to the dealer, a tenth of them bad payloads (rejected,
  half of them refunded), then actions of open rounds whose window is open,
  then Bets of players without an open round.  A player plays each round
  by the cards of the blocks already mined (tests/e2e/cards.py): Peek when
  the up card is an Ace, Hit below 17 (soft 18), else Stand.  With
  `players` = 18 D, the open rounds grow to about 10 D.  The model knows
  no split, double, insurance or dealer play, so a few of its actions are
  rejected (premature, no round, second round): they are still actions.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from cards import card_of  # noqa: E402
from evm_node import anvil_env  # noqa: E402
from procs import track, wait_until  # noqa: E402

ANVIL = os.path.join(ROOT, "node_modules", ".bin", "anvil")
DEALER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"  # anvil account 1
BET_VALUE = 10**15
GAS = 30000  # 21,000 + 16 per payload byte, with room
# A player acts 0 to THINK - 1 blocks after its window opens (at random):
# rounds then stay open long enough for about 10 D of them.
THINK = 26

# docs/PROTOCOL.md section 11.2 (EVM).
BET = "0x484a0101"
HIT = "0x484a0102"
STAND = "0x484a0103"
PEEK = "0x484a010700"  # insurance declined
# Rejected payloads (docs/PROTOCOL.md section 11.2): truncated,
# unknown_action, bad_version, bad_length, too_long.
BAD = ["0x484a01", "0x484a0100", "0x484a0201", "0x484a010100", "0x484a0102ff"]


class DenseAnvil:
    """anvil for dense blocks (see the module's doc), mining on demand."""

    def __init__(self, workdir):
        self.log_path = os.path.join(workdir, "anvil.log")
        log = open(self.log_path, "wb")
        self.proc = track(subprocess.Popen(
            [ANVIL, "--host", "127.0.0.1", "--port", "0", "--accounts", "2",
             "--no-mining", "--auto-impersonate", "--order", "fifo",
             "--base-fee", "0", "--gas-price", "0",
             "--gas-limit", "1000000000", "--no-request-size-limit"],
            env=anvil_env(os.path.join(workdir, "home")),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True))
        log.close()

        def port():
            if self.proc.poll() is not None:
                raise SystemExit("anvil exited (%s): see %s"
                                 % (self.proc.returncode, self.log_path))
            with open(self.log_path, "rb") as f:
                m = re.search(rb"Listening on 127\.0\.0\.1:(\d+)", f.read())
            return m and int(m.group(1))

        self.port = wait_until(port, 30, "anvil to listen")
        self.url = "http://127.0.0.1:%d" % self.port
        self._id = 0

    def _post(self, body):
        req = urllib.request.Request(self.url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.load(r)

    def rpc(self, method, *params):
        self._id += 1
        out = self._post({"jsonrpc": "2.0", "id": self._id, "method": method,
                          "params": list(params)})
        if "error" in out:
            raise SystemExit("anvil: %s: %s" % (method, out["error"]))
        return out["result"]

    def batch(self, calls):
        """[(method, params)] in one request: the results in order."""
        if not calls:
            return []
        out = self._post([{"jsonrpc": "2.0", "id": i, "method": m,
                           "params": p} for i, (m, p) in enumerate(calls)])
        by_id = {o.get("id"): o for o in out}
        res = []
        for i, (m, _) in enumerate(calls):
            o = by_id.get(i, {"error": "no answer"})
            if "error" in o:
                raise SystemExit("anvil: %s: %s" % (m, o["error"]))
            res.append(o["result"])
        return res

    def tip(self):
        return int(self.rpc("eth_blockNumber"), 16)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def _total(values):
    """A hand's total and whether it is soft (an Ace counted 11)."""
    t = sum(values)
    if 1 in values and t + 10 <= 21:
        return t + 10, True
    return t, False


class Player:
    __slots__ = ("addr", "nonce", "free_at", "bet_h", "stage", "cards",
                 "ready", "pending", "pending_h")

    def __init__(self, addr):
        self.addr = addr
        self.nonce = 0
        self.free_at = 0   # may Bet from this block on (no round, as modelled)
        self.bet_h = None  # block of the open round's Bet, None: no round
        self.stage = None  # "deal", "peek", "play"
        self.cards = []
        self.ready = 0     # the round's window opens here (as modelled)
        self.pending = None  # "hit" or "peek" sent at pending_h, card unseen
        self.pending_h = 0


class Players:
    """The players of one chain and what each sends next (module doc)."""

    def __init__(self, n, seed):
        self.rng = random.Random(seed)
        self.players = [Player("0x" + hashlib.sha256(b"hj-dense %d %d" % (seed, i))
                               .hexdigest()[:40]) for i in range(n)]
        self.values = {}  # height -> card value (1..10), None: void
        self.idle = list(range(n))  # indexes that may Bet (checked lazily)
        self.open = []              # indexes with an open round (modelled)
        self.sent = {"bet": 0, "hit": 0, "stand": 0, "peek": 0, "bad": 0}

    def balances(self):
        return [("anvil_setBalance", [p.addr, hex(10**24)]) for p in self.players]

    def saw_block(self, height, block_hash):
        c = card_of(block_hash)
        self.values[height] = c["value"] if c else None

    def _card(self, h):
        return self.values.get(h)

    def _close(self, p, free_at):
        p.bet_h = None
        p.stage = None
        p.free_at = free_at

    def _advance(self, p, h):
        """What the cards mined since its last action did to p's round:
        False when it ended (as modelled)."""
        if p.stage == "deal":
            b = p.bet_h
            c1, up, c2 = self._card(b + 1), self._card(b + 2), self._card(b + 3)
            if None in (c1, up, c2):  # a void block moves every card
                self._close(p, h + 12)
                return False
            p.cards = [c1, c2]
            if sorted(p.cards) == [1, 10]:  # a natural: settles
                self._close(p, b + 12)
                return False
            p.stage = "peek" if up == 1 else "play"
        if p.pending == "peek":
            c = self._card(p.pending_h + 1)
            p.pending = None
            if c == 10:  # the dealer's blackjack: settled
                self._close(p, p.pending_h + 2)
                return False
            p.stage = "play"
        elif p.pending == "hit":
            c = self._card(p.pending_h + 1)
            p.pending = None
            p.cards.append(c or 0)
            t, _ = _total(p.cards)
            if t > 21:  # bust: settled
                self._close(p, p.pending_h + 2)
                return False
            if t == 21:  # the dealer plays
                self._close(p, p.pending_h + 12)
                return False
        return True

    def _action(self, p, h):
        """p's next action at block h: a payload, or None (its round
        ended: it may Bet again later)."""
        if not self._advance(p, h):
            return None
        if p.stage == "peek":
            p.pending, p.pending_h, p.ready = "peek", h, h + 2 + self._think()
            self.sent["peek"] += 1
            return PEEK
        t, soft = _total(p.cards)
        if t < 17 or (soft and t < 18):
            p.pending, p.pending_h, p.ready = "hit", h, h + 2 + self._think()
            self.sent["hit"] += 1
            return HIT
        self._close(p, h + 12)  # Stand: the dealer plays, then it settles
        self.sent["stand"] += 1
        return STAND

    def _think(self):
        """Blocks a player waits once its window is open (0 to THINK - 1)."""
        return self.rng.randrange(THINK)

    def _tx(self, p, data, value):
        tx = {"from": p.addr, "to": DEALER, "data": data, "value": hex(value),
              "gas": hex(GAS), "gasPrice": "0x0", "nonce": hex(p.nonce)}
        p.nonce += 1
        return tx

    def block(self, h, d):
        """The d transactions of block h, in block order: ("bad", "act",
        "bet") as planned (module doc)."""
        rng = self.rng
        n_bad = d // 10
        want_act = d * 6 // 10
        acts, bets = [], []
        # Actions: open rounds whose window is open, at random.
        rng.shuffle(self.open)
        keep = []
        for i in self.open:
            p = self.players[i]
            if p.bet_h is None:
                continue
            if len(acts) >= want_act or p.ready > h:
                keep.append(i)
                continue
            data = self._action(p, h)
            if data is None:
                self.idle.append(i)
                continue
            acts.append(self._tx(p, data, 0))
            if p.bet_h is not None:
                keep.append(i)
            else:
                self.idle.append(i)
        self.open = keep
        # Bets: players without a round, those free longest first.
        self.idle.sort(key=lambda i: self.players[i].free_at)
        k = 0
        while k < len(self.idle) and len(bets) < d - n_bad - len(acts):
            p = self.players[self.idle[k]]
            if p.free_at > h:
                break
            p.bet_h, p.stage, p.cards, p.ready = h, "deal", [], h + 4 + self._think()
            p.pending = None
            bets.append(self._tx(p, BET, BET_VALUE))
            self.open.append(self.idle[k])
            self.sent["bet"] += 1
            k += 1
        del self.idle[:k]
        # Bad payloads fill the rest, from any player.
        bad = []
        while len(acts) + len(bets) + len(bad) < d:
            p = self.players[rng.randrange(len(self.players))]
            bad.append(self._tx(p, rng.choice(BAD), BET_VALUE if len(bad) % 2 else 0))
            self.sent["bad"] += 1
        txs = bad[:n_bad] + acts + bets + bad[n_bad:]
        rng.shuffle(txs)
        # One account's transactions must keep their nonce order.
        by = {}
        for tx in txs:
            by.setdefault(tx["from"], []).append(tx)
        for lst in by.values():
            lst.sort(key=lambda t: int(t["nonce"], 16))
        it = {a: iter(lst) for a, lst in by.items()}
        return [next(it[tx["from"]]) for tx in txs]

    def modelled_open(self):
        return sum(1 for i in self.open if self.players[i].bet_h is not None)


def premine(node, density, blocks, players=None, seed=1, say=None):
    """Mines block 1 (the players' balances, set with anvil_setBalance: no
    transaction), then `blocks` blocks 2..blocks + 1, each with `density`
    transactions to the dealer (density 0: anvil_mine at once).  Returns
    the tip and the Players (None for density 0)."""
    if density == 0:
        node.rpc("anvil_mine", hex(blocks + 1))
        return node.tip(), None
    pl = Players(players or 18 * density, seed)
    bal = pl.balances()
    for i in range(0, len(bal), 2000):
        node.batch(bal[i:i + 2000])
    node.rpc("evm_mine")  # block 1: the balances
    pl.saw_block(1, node.rpc("eth_getBlockByNumber", "0x1", False)["hash"])
    t0 = time.monotonic()
    for h in range(2, blocks + 2):
        txs = pl.block(h, density)
        node.batch([("eth_sendTransaction", [tx]) for tx in txs])
        node.rpc("evm_mine")
        b = node.rpc("eth_getBlockByNumber", "latest", False)
        if int(b["number"], 16) != h or len(b["transactions"]) != len(txs):
            raise SystemExit("block %d: mined %s with %d transactions, expected %d"
                             % (h, b["number"], len(b["transactions"]), len(txs)))
        pl.saw_block(h, b["hash"])
        if say and (h % 100 == 0 or h == blocks + 1):
            say("  block %d/%d, %d open rounds (modelled), %.1f s"
                % (h, blocks + 1, pl.modelled_open(), time.monotonic() - t0))
    return node.tip(), pl
