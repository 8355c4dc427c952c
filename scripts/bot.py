#!/usr/bin/env python3
"""Bot players for Hash Blackjack: several EVM accounts play basic strategy
against a hashjackd dealer, following the dealer's card log.

    scripts/bot.py --rpc-url URL --dealer ADDR --card-log FILE
                   --min-bet WEI --max-bet WEI (--key HEX ... | --anvil-config FILE --players 1,2,3)

Each player bets, waits for its cards in the card log (docs/LOG.md, format
version 2: draw, peek, skip, action, reject, timeout, settle events; a
sidebets event it never causes), and once its round's action window
is open (the log shows the last card it was waiting for; the log runs behind
the chain, so a transaction sent then lands after that block) sends its next
action with `cast send`.  When its round is settled it bets again, a random
stake within the limits.  It prints one line per transaction it sends.

Strategy, for the bethash rules (H17, blackjack 6:5, double on hard 9-11
only, no double after split, one split, no ace split, late surrender, no
hole card with "original bets only"): the usual multi-deck H17 basic
strategy without soft doubles or doubles after split; Peek (never insurance)
when the up card is an Ace.  Protocol v1.1: the Peek's card is a peek
card; unless it makes a dealer blackjack (the round settles) it is set
aside and the dealer keeps its Ace alone until dealer play, so the player
decides knowing only that the dealer has no blackjack, as in a hole-card
game, which is what that basic strategy assumes.

It rebuilds its state from the whole log when it starts, so it can be
restarted at any time; a round it cannot follow (lines it never saw) it
leaves to the dealer's timeout and bets again once that round settles.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from evm_node import find_tool  # noqa: E402
from logs import CardLogTail  # noqa: E402

PAYLOAD = {"Bet": "0x484a0101", "Hit": "0x484a0102", "Stand": "0x484a0103",
           "Double": "0x484a0104", "Split": "0x484a0105", "Surrender": "0x484a0106",
           "Peek": "0x484a010700"}


# --------------------------------------------------------------------------
# Cards and strategy

def card_value(code):
    r = code[:-1]
    return 1 if r == "A" else 10 if r in ("10", "J", "Q", "K") else int(r)


def total(cards):
    """(best total, soft) of card codes."""
    t = sum(card_value(c) for c in cards)
    if any(c[:-1] == "A" for c in cards) and t + 10 <= 21:
        return t + 10, True
    return t, False


def strategy(cards, up, can_double, can_split, can_surrender):
    """Basic strategy for bethash.  cards: the hand's codes; up: the dealer's
    up card code.  Returns Hit, Stand, Double, Split or Surrender."""
    u = card_value(up)
    u = 11 if u == 1 else u
    t, soft = total(cards)
    if len(cards) == 2 and card_value(cards[0]) == card_value(cards[1]):
        v = card_value(cards[0])
        split_vs = {9: (2, 3, 4, 5, 6, 8, 9), 8: tuple(range(2, 12)), 7: (2, 3, 4, 5, 6, 7),
                    6: (3, 4, 5, 6), 3: (4, 5, 6, 7), 2: (4, 5, 6, 7)}.get(v, ())
        if v == 8 and u == 11 and can_surrender:
            return "Surrender"
        if can_split and u in split_vs:
            return "Split"
    if soft:
        if t >= 19:
            return "Stand"
        if t == 18:
            return "Stand" if u <= 8 else "Hit"
        return "Hit"
    if can_surrender and ((t == 15 and u in (10, 11)) or (t == 16 and u in (9, 10, 11))
                          or (t == 17 and u == 11)):
        return "Surrender"
    if t >= 17:
        return "Stand"
    if 13 <= t <= 16:
        return "Stand" if u <= 6 else "Hit"
    if t == 12:
        return "Stand" if 4 <= u <= 6 else "Hit"
    if t == 11:
        return "Double" if can_double else "Hit"
    if t == 10:
        return "Double" if can_double and u <= 9 else "Hit"
    if t == 9:
        return "Double" if can_double and 3 <= u <= 6 else "Hit"
    return "Hit"


# --------------------------------------------------------------------------
# Following rounds in the log

class Round:
    def __init__(self, rid, stake):
        self.id = rid
        self.stake = stake
        self.hands = [{"cards": [], "done": False, "doubled": False}]
        self.dealer = []
        self.pending = 3        # cards still due before the player decides
        self.peeked = False     # Peek accepted (or applied by timeout)
        self.decisions = 0      # Hit, Stand, Double, Split, Surrender accepted
        self.split = False

    def active(self):
        for i in range(len(self.hands) - 1, -1, -1):
            if not self.hands[i]["done"]:
                return i
        return None

    def peek_due(self):
        return (len(self.dealer) == 1 and self.dealer[0][:-1] == "A" and not self.peeked)

    def on_draw(self, e):
        if e["handOwner"] == "Dealer":
            self.dealer.append(e["card"])
        else:
            h = self.hands[e["handIndex"]]
            h["cards"].append(e["card"])
            t, _ = total(h["cards"])
            if t >= 21 or h["doubled"]:
                h["done"] = True
        if self.pending > 0:
            self.pending -= 1

    def on_peek(self, e):
        """The peek card: the dealer's second card when it makes a
        blackjack (the round settles in that block), else set aside."""
        if e["dealerBlackjack"]:
            self.dealer.append(e["card"])
        if self.pending > 0:
            self.pending -= 1

    def on_action(self, action, hand):
        if action == "Peek":
            self.peeked = True
            self.pending = 1
            return
        self.decisions += 1
        if action == "Hit":
            self.pending = 1
        elif action == "Stand":
            self.hands[hand]["done"] = True
            self.pending = 0
        elif action == "Double":
            self.hands[hand]["doubled"] = True
            self.pending = 1
        elif action == "Split":
            c = self.hands[hand]["cards"]
            self.hands[hand] = {"cards": c[:1], "done": False, "doubled": False}
            self.hands.insert(hand + 1, {"cards": c[1:], "done": False, "doubled": False})
            self.split = True
            self.pending = 2
        elif action == "Surrender":
            for h in self.hands:
                h["done"] = True
            self.pending = 0


class Player:
    def __init__(self, address, key):
        self.address = address.lower()
        self.key = key
        self.round = None          # Round we follow
        self.blocked = False       # an open round we could not follow
        self.awaiting = None       # (tx hash, action, sent at) not yet seen in the log
        self.next_bet = 0.0        # monotonic time before which it does not bet
        self.fallback = False      # after a refused action: play Stand (or Peek)
        self.rounds = 0

    def short(self):
        return self.address[:6] + ".." + self.address[-4:]


class Bot:
    def __init__(self, args, players):
        self.a = args
        self.players = {p.address: p for p in players}
        self.rounds = {}           # round id -> Player, for our rounds
        self.cast = find_tool("cast")
        self.rng = random.Random(args.seed)
        self.height = None         # last log height seen
        self._id = 0
        self.stop = False
        self.live = False          # past the log's backlog at start
        # players start at different moments: players betting in the same
        # block would be dealt the same cards
        for p in self.players.values():
            p.next_bet = time.monotonic() + self.rng.uniform(0, 2 * args.pause)

    # -- log -------------------------------------------------------------

    def on_line(self, line):
        self.height = line["height"]
        for e in line["events"]:
            t = e["type"]
            if t == "action":
                p = self.players.get(e["player"])
                if p is None:
                    continue
                if p.awaiting and p.awaiting[0] == e["tx"]:
                    p.awaiting = None
                if e["action"] == "Bet":
                    p.round = Round(e["round"], int(e["stake"]))
                    p.blocked = False
                    self.rounds[e["round"]] = p
                elif p.round and p.round.id == e["round"]:
                    p.round.on_action(e["action"], e.get("handIndex"))
            elif t == "draw":
                p = self.rounds.get(e["round"])
                if p and p.round and p.round.id == e["round"]:
                    p.round.on_draw(e)
            elif t == "peek":
                p = self.rounds.get(e["round"])
                if p and p.round and p.round.id == e["round"]:
                    p.round.on_peek(e)
            elif t == "timeout":
                p = self.rounds.get(e["round"])
                if p and p.round and p.round.id == e["round"]:
                    p.round.on_action(e["action"], e.get("handIndex"))
                    if p.awaiting:
                        p.awaiting = None
            elif t == "settle":
                p = self.players.get(e["player"])
                if p is None:
                    continue
                self.rounds.pop(e["round"], None)
                if (p.round and p.round.id == e["round"]) or p.blocked:
                    p.round = None
                    p.blocked = False
                    p.fallback = False
                    p.rounds += 1
                    p.next_bet = time.monotonic() + self.rng.uniform(0, self.a.pause)
                    if self.a.verbose and self.live:
                        print("bot: %s round %s settled: %s" % (
                            p.short(), e["round"][:10],
                            ", ".join("%s %s" % (h["status"], h["total"]) for h in e["playerHands"])),
                            flush=True)
            elif t == "reject":
                p = self.players.get(e["from"])
                if p is None or not p.awaiting or p.awaiting[0] != e["tx"]:
                    continue
                what = p.awaiting[1]
                p.awaiting = None
                print("bot: %s %s refused: %s" % (p.short(), what, e["reason"]), flush=True)
                if e["reason"] == "second_round":
                    p.blocked = p.round is None
                elif e["reason"] == "no_round":
                    # its round ended in lines this bot did not see
                    p.round = None
                elif e["reason"] not in ("premature",):
                    p.fallback = True
            elif t == "ignored":
                p = self.players.get(e["from"])
                if p and p.awaiting and p.awaiting[0] == e["tx"]:
                    p.awaiting = None

    # -- chain -----------------------------------------------------------

    def rpc(self, method, *params):
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method,
                           "params": list(params)}).encode()
        req = urllib.request.Request(self.a.rpc_url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            resp = json.load(r)
        if resp.get("error"):
            raise RuntimeError("%s: %s" % (method, resp["error"]))
        return resp["result"]

    def in_flight(self, p):
        """True when p has a transaction the log has not shown yet: included
        after the last logged block, or still in the mempool (its pending
        nonce is above its nonce at the logged height).  This is what makes a
        restarted bot wait for what it sent before it stopped."""
        try:
            logged = int(self.rpc("eth_getTransactionCount", p.address, hex(self.height)), 16)
            pending = int(self.rpc("eth_getTransactionCount", p.address, "pending"), 16)
        except (OSError, RuntimeError, ValueError):
            return True
        return pending > logged

    def send(self, p, action, value, why):
        try:
            nonce = int(self.rpc("eth_getTransactionCount", p.address, "pending"), 16)
            r = subprocess.run([self.cast, "send", "--async", "--rpc-url", self.a.rpc_url,
                                "--private-key", p.key, "--nonce", str(nonce),
                                self.a.dealer, PAYLOAD[action], "--value", str(value)],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=30)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
            print("bot: %s %s not sent: %s" % (p.short(), action, e), flush=True)
            return False
        out = r.stdout.strip().splitlines()
        if r.returncode != 0 or not out or not re.fullmatch(r"0x[0-9a-f]{64}", out[-1]):
            print("bot: %s %s not sent: %s" % (p.short(), action,
                                                (r.stderr or r.stdout).strip()[:200]), flush=True)
            return False
        tx = out[-1]
        p.awaiting = (tx, action, time.monotonic())
        print("bot: %s %-9s %s  tx %s" % (p.short(), action, why, tx[:18]), flush=True)
        return True

    # -- decisions -------------------------------------------------------

    def act(self, p):
        now = time.monotonic()
        if p.awaiting:
            if now - p.awaiting[2] < self.a.resend_after:
                return
            print("bot: %s %s not in the log after %ss, deciding again"
                  % (p.short(), p.awaiting[1], self.a.resend_after), flush=True)
            p.awaiting = None
        if p.blocked:
            return
        r = p.round
        if r is None:
            if self.a.rounds and p.rounds >= self.a.rounds:
                return
            if now < p.next_bet or self.in_flight(p):
                return
            lo, hi = self.a.min_bet, self.a.max_bet
            step = lo
            stake = lo * self.rng.randint(1, max(1, min(hi // step, 20)))
            stake = min(stake, hi)
            self.send(p, "Bet", stake, "stake %d" % stake)
            return
        if r.pending > 0 or self.in_flight(p):
            return
        if r.peek_due():
            self.send(p, "Peek", 0, "dealer shows %s, no insurance  round %s" % (r.dealer[0], r.id[:10]))
            return
        i = r.active()
        if i is None or len(r.hands[i]["cards"]) < 2 or not r.dealer:
            return
        cards = r.hands[i]["cards"]
        first = not r.split and len(cards) == 2 and r.decisions == 0
        t, soft = total(cards)
        if p.fallback:
            move = "Stand"
        else:
            move = strategy(cards, r.dealer[0], can_double=first and not soft and 9 <= t <= 11,
                            can_split=first and card_value(cards[0]) == card_value(cards[1])
                            and cards[0][:-1] != "A",
                            can_surrender=first)
        value = r.stake if move in ("Double", "Split") else 0
        why = "hand %d [%s]=%s%d vs %s  round %s" % (i, " ".join(cards), "soft " if soft else "",
                                                      t, r.dealer[0], r.id[:10])
        self.send(p, move, value, why)

    def run(self):
        tail = CardLogTail(self.a.card_log)
        deadline = time.monotonic() + self.a.duration if self.a.duration else None
        started = False
        while not self.stop:
            if deadline and time.monotonic() >= deadline:
                break
            lines = tail.read()
            for l in lines:
                self.on_line(l)
            self.live = True
            # act only once the daemon logs blocks (a Bet before its start
            # height would never be seen)
            if self.height is not None:
                if not started:
                    print("bot: following %s from height %d with %d players"
                          % (self.a.card_log, self.height, len(self.players)), flush=True)
                    started = True
                for p in self.players.values():
                    if self.stop:
                        break  # SIGTERM: no more transactions
                    self.act(p)
            time.sleep(self.a.poll)
        return 0


def self_test():
    """Checks the strategy table and the round follower on a scripted log."""
    s = strategy
    assert s(["10H", "6C"], "10S", True, False, True) == "Surrender"
    assert s(["10H", "6C"], "10S", False, False, False) == "Hit"
    assert s(["10H", "6C"], "6S", False, False, False) == "Stand"
    assert s(["5H", "6C"], "AS", True, False, True) == "Double"
    assert s(["5H", "6C"], "AS", False, False, False) == "Hit"
    assert s(["AH", "7C"], "9S", False, False, False) == "Hit"
    assert s(["AH", "7C"], "8S", False, False, False) == "Stand"
    assert s(["AH", "6C"], "5S", False, False, False) == "Hit"  # no soft doubles
    assert s(["8H", "8C"], "10S", False, True, True) == "Split"
    assert s(["8H", "8C"], "AS", False, True, True) == "Surrender"
    assert s(["AH", "AC"], "6S", False, False, True) == "Hit"
    assert s(["KH", "QC"], "6S", False, True, True) == "Stand"
    assert s(["9H", "9C"], "7S", False, True, True) == "Stand"
    assert s(["4H", "4C"], "5S", True, True, True) == "Hit"
    assert s(["5H", "5C"], "9S", True, True, True) == "Double"
    assert s(["2H", "10C"], "3S", False, False, False) == "Hit"
    assert s(["2H", "10C"], "4S", False, False, False) == "Stand"
    r = Round("0xr", 100)
    for c in ("8H",):
        r.on_draw({"handOwner": "Player", "handIndex": 0, "card": c})
    r.on_draw({"handOwner": "Dealer", "card": "AS"})
    assert r.pending == 1 and r.peek_due() is True
    r.on_draw({"handOwner": "Player", "handIndex": 0, "card": "8C"})
    assert r.pending == 0
    r.on_action("Peek", None)
    assert r.pending == 1 and not r.peek_due()
    # the log lines go through Bot.on_line, of a Bot without its chain (no
    # cast needed): what on_line reads
    b = Bot.__new__(Bot)
    p = Player("0x" + "11" * 20, "0x" + "22" * 32)
    p.round = r
    b.players, b.rounds, b.height, b.live = {p.address: p}, {r.id: p}, None, False
    b.on_line({"height": 9, "events": [
        {"type": "peek", "round": "0xr", "card": "7D", "dealerBlackjack": False}]})
    # a clear peek card is set aside: the dealer keeps its Ace alone
    assert r.pending == 0 and not r.peek_due() and r.dealer == ["AS"]
    assert r.active() == 0 and b.height == 9
    r.on_action("Split", 0)
    assert [h["cards"] for h in r.hands] == [["8H"], ["8C"]] and r.pending == 2
    r.on_draw({"handOwner": "Player", "handIndex": 0, "card": "3D"})
    r.on_draw({"handOwner": "Player", "handIndex": 1, "card": "KD"})
    assert r.pending == 0 and r.active() == 1
    r.on_action("Stand", 1)
    assert r.active() == 0
    r.on_action("Hit", 0)
    r.on_draw({"handOwner": "Player", "handIndex": 0, "card": "10D"})
    assert r.active() is None  # 8+3+10 = 21 stands by itself
    # dealer play: a 10 behind the Ace is skipped for its second card
    b.on_line({"height": 15, "events": [{"type": "skip", "round": "0xr", "card": "KD"}]})
    assert r.dealer == ["AS"]
    b.on_line({"height": 16, "events": [
        {"type": "draw", "round": "0xr", "handOwner": "Dealer", "card": "6D"}]})
    assert r.dealer == ["AS", "6D"]
    # a peek card that makes a blackjack is the dealer's second card
    r2 = Round("0xr2", 100)
    r2.on_draw({"handOwner": "Player", "handIndex": 0, "card": "9H"})
    r2.on_draw({"handOwner": "Dealer", "card": "AC"})
    r2.on_draw({"handOwner": "Player", "handIndex": 0, "card": "9C"})
    assert r2.peek_due()
    r2.on_action("Peek", None)
    r2.on_peek({"type": "peek", "round": "0xr2", "card": "QH", "dealerBlackjack": True})
    assert r2.dealer == ["AC", "QH"] and r2.pending == 0
    print("bot: self-test passed")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rpc-url")
    ap.add_argument("--dealer")
    ap.add_argument("--card-log")
    ap.add_argument("--min-bet", type=int)
    ap.add_argument("--max-bet", type=int)
    ap.add_argument("--key", action="append", default=[], help="a player's private key (repeatable)")
    ap.add_argument("--anvil-config", help="anvil's --config-out file (accounts and keys)")
    ap.add_argument("--players", default="1,2,3,4",
                    help="with --anvil-config: indexes of the accounts that play")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--poll", type=float, default=0.2, help="log poll interval (s)")
    ap.add_argument("--pause", type=float, default=3.0,
                    help="at most this many seconds (random) between a settle and the next Bet")
    ap.add_argument("--resend-after", type=float, default=60.0,
                    help="decide again when a sent tx is not in the log after this many seconds")
    ap.add_argument("--rounds", type=int, default=0, help="rounds per player, 0 = no limit")
    ap.add_argument("--duration", type=float, default=0, help="stop after this many seconds")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print settlements")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    for k in ("rpc_url", "dealer", "card_log", "min_bet", "max_bet"):
        if getattr(a, k) is None:
            ap.error("--%s is required" % k.replace("_", "-"))
    if a.min_bet < 1 or a.max_bet < a.min_bet:
        ap.error("need 1 <= --min-bet <= --max-bet")
    players = []
    if a.anvil_config:
        with open(a.anvil_config) as f:
            c = json.load(f)
        for i in (int(x) for x in a.players.split(",") if x.strip()):
            players.append(Player(c["available_accounts"][i], c["private_keys"][i]))
    for k in a.key:
        r = subprocess.run([find_tool("cast"), "wallet", "address", "--private-key", k],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            ap.error("bad key: %s" % r.stderr.strip())
        players.append(Player(r.stdout.strip(), k))
    if not players:
        ap.error("no players: give --key or --anvil-config")
    if any(p.address == a.dealer.lower() for p in players):
        ap.error("the dealer cannot play")
    bot = Bot(a, players)

    def on_signal(_s, _f):
        bot.stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return bot.run()


if __name__ == "__main__":
    sys.exit(main())
