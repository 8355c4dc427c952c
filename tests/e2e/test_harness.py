#!/usr/bin/env python3
"""Proves the end-to-end harness (tests/e2e/evm_node.py and what it stands
on) against anvil alone, no daemon: grinding blocks for chosen cards with
transactions pending, scripted rounds settled by `hashjack replay` of the
exported blocks exactly as the protocol says, failed receipts, deposits,
anvil_reorg, a restart that keeps the chain, SIGSTOP/SIGCONT.

    python3 tests/e2e/test_harness.py --hashjack build/release/hashjack [-k NAME] [--keep]

Prints one line per case and a closing "N passed, M failed"; exit status 1
when a case failed.  Every wait has a deadline, the whole run too (--timeout).
"""

import argparse
import functools
import os
import signal
import sys
import time
import urllib.error

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from cards import card_of  # noqa: E402
from checks import Cases, Failed, Skipped, WorkDir, check  # noqa: E402
from daemon import Hashjackd  # noqa: E402
from evm_node import Anvil, BET, ETHER, HIT, PEEK_INSURED, STAND  # noqa: E402
from logs import events, read_cardlog  # noqa: E402
from procs import (ROOT, file_tail, install_cleanup, kill_children, stop_process,  # noqa: E402
                   track, wait_until)
from tool import ReplayFollower, find_hashjack, replay  # noqa: E402

MIN_BET = 1000
MAX_BET = 10 ** 20
TIMEOUT_BLOCKS = 100


class Ctx:
    def __init__(self, hashjack, workdir, hashjackd=None):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self._anvil = None

    @property
    def anvil(self):
        """One anvil shared by the cases that do not restart it."""
        if self._anvil is None or not self._anvil.running():
            self._anvil = Anvil(workdir=os.path.join(self.workdir, "anvil-main"),
                                keep_state=False).start()
        return self._anvil

    def dealer(self):
        return self.anvil.accounts[9].address

    def replay(self, first, last, dealer=None):
        a = self.anvil
        doc = a.export(first, last, dealer or self.dealer(), MIN_BET, MAX_BET, TIMEOUT_BLOCKS)
        lines, _ = replay(doc, self.hashjack, self.workdir)
        check(len(lines) == last - first + 1, "replay printed %d lines for %d blocks"
              % (len(lines), last - first + 1))
        for l, b in zip(lines, doc["blocks"]):
            check(l["height"] == b["height"] and l["hash"] == b["hash"]
                  and l["parent"] == b["parent"], "line %s does not match block %s" % (l, b["height"]))
            c = card_of(l["hash"])
            if c is None:
                check(l.get("void") is True and "card" not in l, "void block %d" % l["height"])
            else:
                check(l["card"] == c, "card of %d: log %s, harness %s" % (l["height"], l["card"], c))
        return lines


# check_eq() of these tests shows the values whole (str)
check_eq = functools.partial(checks.check_eq, show=str)


def check_events(lines, first, expected, what):
    """expected: {height: [events]}; heights not listed must have none."""
    for l in lines:
        check_eq(l["events"], expected.get(l["height"], []),
                 "%s: events of block %d" % (what, l["height"]))


# --------------------------------------------------------------------------
# Cases

def case_card_vectors(ctx):
    """card_of() against the protocol's vectors and `hashjack card --json`."""
    import json
    import random
    import subprocess
    c = card_of("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f")
    check_eq((c["code"], c["pos"], c["colorDigit"]), ("6H", 62, "2"), "bitcoin genesis")
    c = card_of("0x0b6bc29980dbb1e93857d094f4a68184d33f3c956609c997693dea129192b10e")
    check_eq((c["code"], c["pos"], c["colorDigit"]), ("AS", 61, "b"), "vector 2")
    check(card_of("0" * 62 + "ef") is None, "62 zeros + ef must be void")
    check(card_of("d" + "0" * 63) is None, "d + 63 zeros must be void")
    rng = random.Random(7)
    hashes = ["0x" + "".join(rng.choice("0123456789abcdef") for _ in range(64)) for _ in range(40)]
    hashes += ["0x" + "".join(rng.choice("0ef") for _ in range(63)) + "5",
               "0x" + "5" + "".join(rng.choice("0ef") for _ in range(63)),
               "0x" + "".join(rng.choice("0ef") for _ in range(64))]
    r = subprocess.run([ctx.hashjack, "card", "--json"] + hashes, capture_output=True,
                       text=True, timeout=30)
    check_eq(r.returncode, 0, "hashjack card exit status")
    outs = [json.loads(l) for l in r.stdout.splitlines()]
    check_eq(len(outs), len(hashes), "hashjack card lines")
    for h, o in zip(hashes, outs):
        mine = card_of(h)
        if mine is None:
            check(o["void"] is True, "%s: tool says %s, harness void" % (h, o))
        else:
            o = {k: v for k, v in o.items() if k not in ("hash", "void", "colorValue")}
            check_eq(o, mine, "card of %s" % h)
    return "%d hashes agree" % len(hashes)


def case_accounts(ctx):
    """Dev accounts and keys come from anvil's own output (--config-out)."""
    a = ctx.anvil
    check_eq(len(a.accounts), 10, "accounts")
    check_eq(a.accounts[0].address, "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "account 0")
    check_eq(a.accounts[0].key,
             "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "key 0")
    check_eq(a.mnemonic, "test test test test test test test test test test test junk", "mnemonic")
    check_eq(a.chain_id, 31337, "chain id")
    check(a.balance(a.accounts[5].address) == 10000 * ETHER, "balance")
    h0 = a.height()
    check_eq(a.pending(), [], "mempool")
    time.sleep(0.3)  # --no-mining: nothing happens on its own
    check_eq(a.height(), h0, "height without mining")
    return "port %d, %d accounts" % (a.port, len(a.accounts))


def case_send_order_nonces(ctx):
    """Several pending txs of one account (explicit nonces) and of others are
    mined in one block in the order sent (anvil --order fifo)."""
    a, d = ctx.anvil, ctx.dealer()
    hs = [a.send(3, d, "0x", 11), a.send(4, d, "0x", 12), a.send(3, d, "0x4849", 13),
          a.send(5, d, "0x", 14), a.send(3, d, "0x", 15)]
    check_eq(sorted(a.pending()), sorted(hs), "mempool")
    b = a.mine(expect=hs)
    n = int(b["number"], 16)
    lines = ctx.replay(n, n)
    senders = [3, 4, 3, 5, 3]
    want = [{"type": "deposit", "tx": h, "txIndex": i, "from": a.accounts[s].address,
             "value": str(11 + i)} for i, (h, s) in enumerate(zip(hs, senders))]
    check_eq(lines[0]["events"], want, "deposits")
    return "5 txs in block %d" % n


def case_revert_drops_pending(ctx):
    """anvil behaviour: evm_revert does not return the reverted block's txs to
    the mempool; re-sending their raw bytes gives the same hashes."""
    a, d = ctx.anvil, ctx.dealer()
    h = a.send(6, d, "0x", 21)
    raw = a.raw[h]
    n = a.height() + 1
    snap = a.rpc("evm_snapshot")
    a.mine(expect=[h])
    check(a.rpc("evm_revert", snap), "evm_revert")
    check_eq(a.height(), n - 1, "height after revert")
    check_eq(a.pending(), [], "mempool after revert (anvil drops the txs)")
    check(a.rpc("eth_getTransactionByHash", h) is None, "tx gone after revert")
    check_eq(a.send_raw(raw), h, "re-sent hash")
    check_eq(a.pending(), [h], "mempool after re-send")
    a.mine(expect=[h])
    r = a.receipt(h)
    check_eq(int(r["status"], 16), 1, "receipt status")
    return "dropped on revert, same hash when re-sent"


def case_grind_with_pending(ctx):
    """grind() for rank+suit with 3 pending txs: every retry keeps them, the
    final block holds exactly them, in order; then a rank-only and a value
    grind."""
    a, d = ctx.anvil, ctx.dealer()
    hs = [a.send(7, d, "0x", 31), a.send(8, d, "0x", 32), a.send(7, d, "0x", 33)]
    b, tries = a.grind("QD", expect=hs)
    check_eq(card_of(b["hash"])["code"], "QD", "ground card")
    check_eq([t["hash"] for t in b["transactions"]], hs, "txs of the ground block")
    check_eq(a.pending(), [], "mempool after grind")
    for h in hs:
        check_eq(int(a.receipt(h)["status"], 16), 1, "receipt")
    check_eq(a.block("latest", False)["hash"], b["hash"], "tip is the ground block")
    b2, t2 = a.grind("7")
    check_eq(card_of(b2["hash"])["rank"], "7", "rank grind")
    b3, t3 = a.grind("T")
    check_eq(card_of(b3["hash"])["value"], 10, "ten-valued grind")
    check_eq(int(b3["number"], 16), int(b["number"], 16) + 2, "heights")
    return "QD after %d tries, 7 after %d, 10-valued after %d" % (tries, t2, t3)


def _deal(a, player, stake, cards):
    """Bet from player, then grinds X+1..X+len(cards) for cards; returns
    (X, [card dicts of X+1..])."""
    bet = a.send(player, a.accounts[9].address, BET, stake)
    x = int(a.mine(expect=[bet])["number"], 16)
    got = []
    for want in cards:
        b, _ = a.grind(want, expect=[])
        got.append(card_of(b["hash"]))
    return bet, x, got


def case_round_hit_to_21(ctx):
    """Bet at X; 9 (X+1), dealer 10 (X+2), 7 (X+3) while a premature Hit waits
    in that block; Hit at X+4; 5 at X+5 makes 21 (stands by itself); dealer 7
    at X+6 makes 17: Win, payout 2 x stake, settled at X+6."""
    a, d = ctx.anvil, ctx.dealer()
    p = a.accounts[1]
    s = 10 ** 16
    bet, x, (c1, c2) = _deal(a, p, s, ["9", "10"])
    early = a.send(p, d, HIT, 0)
    b3, _ = a.grind("7", expect=[early])
    c3 = card_of(b3["hash"])
    hit = a.send(p, d, HIT, 0)
    a.mine(expect=[hit])
    c5 = card_of(a.grind("5", expect=[])[0]["hash"])
    c6 = card_of(a.grind("7", expect=[])[0]["hash"])
    a.mine(expect=[])
    lines = ctx.replay(x, x + 7)
    R, P = bet, p.address

    def draw(c, hand=0):
        e = {"type": "draw", "round": R, "handOwner": "Player" if hand is not None else "Dealer"}
        if hand is not None:
            e["handIndex"] = hand
        e["card"] = c["code"]
        return e
    want = {
        x: [{"type": "action", "action": "Bet", "round": R, "player": P, "tx": bet,
             "txIndex": 0, "stake": str(s)}],
        x + 1: [draw(c1)],
        x + 2: [draw(c2, None)],
        x + 3: [draw(c3), {"type": "reject", "tx": early, "txIndex": 0, "from": P,
                           "action": "Hit", "round": R, "reason": "premature", "refund": "0"}],
        x + 4: [{"type": "action", "action": "Hit", "round": R, "player": P, "tx": hit,
                 "txIndex": 0, "handIndex": 0, "stake": "0"}],
        x + 5: [draw(c5)],
        x + 6: [draw(c6, None),
                {"type": "settle", "round": R, "player": P,
                 "dealerHand": {"cards": [c2["code"], c6["code"]], "total": 17},
                 "playerHands": [{"handIndex": 0, "cards": [c1["code"], c3["code"], c5["code"]],
                                  "total": 21, "betAmount": str(s), "status": "Win",
                                  "payout": str(2 * s)}],
                 "betAmount": str(s), "payout": str(2 * s)}],
    }
    check_events(lines, x, want, "hit to 21")
    return "X=%d: %s %s %s, Hit, %s -> 21 vs %s %s = 17: Win %d" % (
        x, c1["code"], c2["code"], c3["code"], c5["code"], c2["code"], c6["code"], 2 * s)


def case_round_peek_insurance(ctx):
    """Ace up: Peek with insurance (value floor(bet/2)); the peek card K at
    Y+1 makes a dealer blackjack (a "peek" event with its verdict; K is the
    dealer's second card): the hand loses, insurance returns 3 x its
    stake."""
    a, d = ctx.anvil, ctx.dealer()
    p = a.accounts[2]
    s = 10 ** 16 + 1
    i = s // 2
    bet, x, (c1, c2) = _deal(a, p, s, ["T", "A"])
    early = a.send(p, d, PEEK_INSURED, i)     # in X+3, with the second card: premature
    c3 = card_of(a.grind("9", expect=[early])[0]["hash"])
    wrong = a.send(p, d, PEEK_INSURED, i + 1)
    peek = a.send(p, d, PEEK_INSURED, i)
    a.mine(expect=[wrong, peek])
    c5 = card_of(a.grind("K", expect=[])[0]["hash"])
    lines = ctx.replay(x, x + 5)
    R, P = bet, p.address
    want = {
        x: [{"type": "action", "action": "Bet", "round": R, "player": P, "tx": bet,
             "txIndex": 0, "stake": str(s)}],
        x + 1: [{"type": "draw", "round": R, "handOwner": "Player", "handIndex": 0, "card": c1["code"]}],
        x + 2: [{"type": "draw", "round": R, "handOwner": "Dealer", "card": c2["code"]}],
        x + 3: [{"type": "draw", "round": R, "handOwner": "Player", "handIndex": 0, "card": c3["code"]},
                {"type": "reject", "tx": early, "txIndex": 0, "from": P, "action": "Peek",
                 "round": R, "reason": "premature", "refund": str(i)}],
        x + 4: [{"type": "reject", "tx": wrong, "txIndex": 0, "from": P, "action": "Peek",
                 "round": R, "reason": "wrong_value", "refund": str(i + 1)},
                {"type": "action", "action": "Peek", "round": R, "player": P, "tx": peek,
                 "txIndex": 1, "insurance": True, "stake": str(i)}],
        x + 5: [{"type": "peek", "round": R, "card": c5["code"], "dealerBlackjack": True},
                {"type": "settle", "round": R, "player": P,
                 "dealerHand": {"cards": [c2["code"], c5["code"]], "total": 21},
                 "playerHands": [{"handIndex": 0, "cards": [c1["code"], c3["code"]], "total": 19,
                                  "betAmount": str(s), "status": "Lose", "payout": "0"}],
                 "insurance": {"betAmount": str(i), "payout": str(3 * i)},
                 "betAmount": str(s + i), "payout": str(3 * i)}],
    }
    check_events(lines, x, want, "peek with insurance")
    return "Ace up, insured Peek, dealer %s %s: insurance pays %d" % (c2["code"], c5["code"], 3 * i)


def case_failed_receipt_ignored(ctx):
    """A transaction to the dealer whose receipt failed (dealer made a
    reverting contract with anvil_setCode, explicit gas limit) is "ignored";
    its value does not move."""
    a, d = ctx.anvil, ctx.dealer()
    p = a.accounts[3]
    before = a.balance(d)
    with a.reverting(d):
        h = a.send(p, d, BET, 5000, gas_limit=100000)
        n = int(a.mine(expect=[h])["number"], 16)
    check_eq(a.rpc("eth_getCode", d, "latest"), "0x", "dealer code restored")
    check_eq(int(a.receipt(h)["status"], 16), 0, "receipt status")
    check_eq(a.balance(d), before, "dealer balance")
    # only one sender's calls revert: a failing Bet and a successful deposit
    # in the same block
    with a.reverting(d, only_from=p):
        h2 = a.send(p, d, BET, 6000, gas_limit=100000)
        h3 = a.send(4, d, "0x", 77)
        a.mine(expect=[h2, h3])
    check_eq(int(a.receipt(h2)["status"], 16), 0, "receipt of the failing Bet")
    check_eq(int(a.receipt(h3)["status"], 16), 1, "receipt of the deposit")
    lines = ctx.replay(n, n + 1)
    check_eq(lines[0]["events"], [{"type": "ignored", "tx": h, "txIndex": 0, "from": p.address,
                                   "reason": "tx_failed"}], "failed Bet")
    check_eq(lines[1]["events"], [{"type": "ignored", "tx": h2, "txIndex": 0, "from": p.address,
                                   "reason": "tx_failed"},
                                  {"type": "deposit", "tx": h3, "txIndex": 1,
                                   "from": a.accounts[4].address, "value": "77"}],
             "failed Bet and deposit")
    return "status 0 -> ignored (blocks %d, %d)" % (n, n + 1)


def case_deposit_and_reject(ctx):
    """No magic: "deposit" (not refunded); magic without a round: reject
    no_round, refunded; a tx to another address is not the dealer's."""
    a, d = ctx.anvil, ctx.dealer()
    p = a.accounts[5]
    h1 = a.send(p, d, "0x", 123)
    h2 = a.send(p, d, "0x48", 124)
    h3 = a.send(p, d, HIT, 125)
    h4 = a.send(p, a.accounts[8].address, BET, 126)
    h5 = a.send(p, d, "0x484a0201", 0)
    n = int(a.mine(expect=[h1, h2, h3, h4, h5])["number"], 16)
    lines = ctx.replay(n, n)
    P = p.address
    check_eq(lines[0]["events"], [
        {"type": "deposit", "tx": h1, "txIndex": 0, "from": P, "value": "123"},
        {"type": "deposit", "tx": h2, "txIndex": 1, "from": P, "value": "124"},
        {"type": "reject", "tx": h3, "txIndex": 2, "from": P, "action": "Hit",
         "reason": "no_round", "refund": "125"},
        {"type": "reject", "tx": h5, "txIndex": 4, "from": P, "reason": "bad_version",
         "refund": "0"}], "events")
    return "deposit, deposit, reject no_round, (not ours), reject bad_version"


def case_reorg(ctx):
    """anvil_reorg: the tip height stays; the replaced blocks get new hashes
    and drop their txs; txs given to it land at tip - depth + 1 + index.
    Recorded too: with the base fee at its floor, a bare anvil_reorg rebuilds
    empty blocks identically (Anvil.reorg works around it)."""
    a, d = ctx.anvil, ctx.dealer()
    a.mine_empty(200)  # base fee down to its floor (7 wei)
    tip = a.height()
    floor = int(a.block(tip, False)["baseFeePerGas"], 16)
    before = a.block(tip, False)["hash"]
    a.rpc("anvil_reorg", 1, [])
    bare = "no-op" if a.block(tip, False)["hash"] == before else "new hash"
    h = a.send(6, d, "0x", 41)
    a.mine(expect=[h])
    a.mine(expect=[])
    a.mine(expect=[])
    tip = a.height()
    old = {n: a.block(n, False)["hash"] for n in range(tip - 3, tip + 1)}
    changed = a.reorg(2)
    check_eq(sorted(changed), [tip - 1, tip], "replaced heights")
    check_eq(a.height(), tip, "tip height after reorg 2")
    new = {n: a.block(n, False) for n in range(tip - 3, tip + 1)}
    check_eq(new[tip - 3]["hash"], old[tip - 3], "block below the reorg")
    check_eq(new[tip - 2]["hash"], old[tip - 2], "block below the reorg (holds the tx)")
    for n in (tip - 1, tip):
        check(new[n]["hash"] != old[n], "block %d replaced" % n)
        check_eq(new[n]["parentHash"], new[n - 1]["hash"], "parent link %d" % n)
        check_eq(new[n]["transactions"], [], "replaced block %d empty" % n)
    # now reorg 3 so that the tx's block is replaced too: the tx is dropped
    a.reorg(3)
    check_eq(a.height(), tip, "tip height after reorg 3")
    check(a.rpc("eth_getTransactionByHash", h) is None, "tx of a replaced block dropped")
    check_eq(a.pending(), [], "dropped tx not back in the mempool")
    # and put back explicitly, one block later than before
    a.reorg(3, [(a.raw[h], 1)])
    b = a.block(tip - 1, True)
    check_eq([t["hash"] for t in b["transactions"]], [h], "tx put back at tip-3+1+1")
    check_eq(int(a.receipt(h)["status"], 16), 1, "receipt after reorg")
    check_eq(int(a.receipt(h)["blockNumber"], 16), tip - 1, "receipt block")
    lines = ctx.replay(tip - 2, tip)
    check_eq(events(lines, type="deposit"),
             [{"type": "deposit", "tx": h, "txIndex": 0, "from": a.accounts[6].address,
               "value": "41"}], "replay after reorg")
    return ("tip %d kept; last 2/3 blocks replaced, their txs dropped or re-placed; "
            "bare anvil_reorg at base fee %d: %s" % (tip, floor, bare))


def case_restart_keeps_chain(ctx):
    """An anvil with --state restarted (SIGTERM then start) has the same blocks,
    hashes, txs and receipts, on the same port; the mempool is not kept; a
    SIGKILL loses everything since the last dump."""
    a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-state")).start()
    d = a.accounts[9].address
    try:
        hs = [a.send(1, d, BET, 5000), a.send(2, d, "0x", 9)]
        a.grind("8", expect=hs)
        a.mine_empty(3)
        tip = a.height()
        hashes = [a.block(n, False)["hash"] for n in range(tip + 1)]
        doc1 = a.export(0, tip, d, MIN_BET, MAX_BET)
        port = a.port
        waiting = a.send(3, d, "0x", 10)
        check_eq(a.stop(), 0, "anvil exit status on SIGTERM")
        check(os.path.getsize(a.state_file) > 0, "state file written")
        a.start()
        check_eq(a.port, port, "same port")
        check_eq(a.height(), tip, "tip after restart")
        check_eq([a.block(n, False)["hash"] for n in range(tip + 1)], hashes, "block hashes")
        check_eq(a.export(0, tip, d, MIN_BET, MAX_BET), doc1, "export after restart")
        check_eq(int(a.receipt(hs[0])["status"], 16), 1, "receipt after restart")
        kept = a.pending()
        mempool = "kept" if kept == [waiting] else "lost" if kept == [] else repr(kept)
        new = a.mine()
        check_eq(new["parentHash"], hashes[-1], "new block's parent")
        # SIGKILL: no dump; the next start has the chain of the last SIGTERM
        a.kill()
        a.start()
        check_eq(a.height(), tip, "tip after SIGKILL + start (last dump)")
        check_eq(a.block(tip, False)["hash"], hashes[-1], "hash after SIGKILL")
    finally:
        a.stop()
    return "%d blocks survive SIGTERM/start; mempool %s; SIGKILL -> back to last dump" % (
        tip + 1, mempool)


def case_pause_resume(ctx):
    """SIGSTOP: requests time out; SIGCONT: it answers again; stop/start."""
    a = ctx.anvil
    h = a.height()
    a.pause()
    try:
        t = time.monotonic()
        try:
            a.rpc("eth_blockNumber", timeout=1)
            raise Failed("a paused anvil answered")
        except (OSError, urllib.error.URLError):
            pass
        waited = time.monotonic() - t
    finally:
        a.resume()
    check_eq(a.height(), h, "height after resume")
    return "paused request timed out after %.1fs" % waited


def case_bot_plays(ctx):
    """scripts/bot.py with 4 dev accounts against a card log written by
    `hashjack replay` of the chain (tool.ReplayFollower, standing in for the
    daemon), blocks mined every 0.2 s: every tx it sends is accepted, no
    round times out, each player settles 3 rounds; the bot is restarted in
    the middle and carries on from the log."""
    import subprocess
    a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-bot"), keep_state=False).start()
    try:
        d = a.accounts[9].address
        log = os.path.join(a.workdir, "cards.jsonl")
        fol = ReplayFollower(a, ctx.hashjack, d, 1000, 50000, log, a.height() + 1,
                             confirmations=2, timeout_blocks=100)
        players = [a.accounts[i].address for i in (1, 2, 3, 4)]
        out_path = os.path.join(a.workdir, "bot.out")
        cmd = [sys.executable, os.path.join(ROOT, "scripts", "bot.py"),
               "--rpc-url", a.url, "--dealer", d, "--card-log", log,
               "--min-bet", "1000", "--max-bet", "50000",
               "--anvil-config", os.path.join(a.workdir, "anvil-config.json"),
               "--players", "1,2,3,4", "--seed", "5", "--pause", "0.3", "--poll", "0.05",
               "--rounds", "3", "-v"]

        def start_bot():
            out = open(out_path, "ab")
            p = track(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True))
            out.close()
            return p

        def settled():
            n = {p: 0 for p in players}
            for e in events(read_cardlog(log), type="settle"):
                if e["player"] in n:
                    n[e["player"]] += 1
            return n

        bot = start_bot()
        restarted = False
        deadline = time.monotonic() + 150
        while True:
            a.mine()
            fol.update()
            n = settled()
            if not restarted and sum(n.values()) >= 4:
                check_eq(stop_process(bot, signal.SIGTERM, 5), 0, "bot exit status on SIGTERM")
                bot = start_bot()
                restarted = True
            if all(v >= 3 for v in n.values()) and not a.pending():
                break
            if bot.poll() is not None:
                raise Failed("bot exited with %s:\n%s" % (bot.returncode, file_tail(out_path)))
            if time.monotonic() > deadline:
                raise Failed("players settled %s only:\n%s" % (n, file_tail(out_path)))
            time.sleep(0.2)  # the block time of this little chain
        stop_process(bot, signal.SIGTERM, 5)
        lines = read_cardlog(log)
        ours = set(players)
        rejects = [e for e in events(lines, type="reject") if e["from"] in ours]
        timeouts = events(lines, type="timeout")
        acts = [e for e in events(lines, type="action") if e["player"] in ours]
        with open(out_path) as f:
            sent = [l for l in f if l.startswith("bot: 0x") and "  tx 0x" in l]
        check_eq(rejects, [], "rejected bot transactions")
        check_eq(timeouts, [], "timeouts")
        check_eq(len(sent), len(acts), "transactions sent vs actions accepted")
        kinds = sorted({e["action"] for e in acts})
        return "%d rounds, %d actions (%s) in %d blocks, bot restarted once" % (
            sum(settled().values()), len(acts), ",".join(kinds), len(lines))
    finally:
        a.stop()


def case_daemon_smoke(ctx):
    """Only with --hashjackd: daemon.Hashjackd runs the daemon on anvil with 2
    confirmations (grinding replaces the tip block, so a daemon that deals
    the tip itself, confirmations = 1, would see every retry as a reorg); a
    round played by grinding; the card log equals `hashjack replay` of the
    same blocks byte for byte; SIGTERM exits 0; a restart resumes where it
    stopped."""
    if not ctx.hashjackd:
        raise Skipped("no --hashjackd given")
    a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-daemon")).start()
    try:
        d = a.accounts[9].address
        a.mine_empty(3)
        first = a.height()
        dm = Hashjackd(ctx.hashjackd, a, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS,
                       confirmations=2, start_height=first,
                       workdir=os.path.join(ctx.workdir, "daemon"))
        dm.start()
        p = a.accounts[1]
        bet, x, _ = _deal(a, p, 10 ** 15, ["8", "T", "9"])
        stand = a.send(p, d, STAND, 0)
        a.mine(expect=[stand])
        a.grind("9", expect=[])  # dealer 10 + 9 = 19 beats the player's 8 + 9 = 17
        a.mine()

        def same():
            last = a.height() - 1  # 2 confirmations
            dm.wait_height(last)
            doc = a.export(first, last, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS)
            _, text = replay(doc, ctx.hashjack, ctx.workdir)
            check_eq(dm.log_bytes().decode(), text, "daemon log vs hashjack replay")
            return events(read_cardlog(dm.card_log), type="settle")
        settles = same()
        check_eq([e["playerHands"][0]["status"] for e in settles], ["Lose"], "settlement")
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
        a.mine_empty(5)
        dm.start()
        same()
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
        last = a.height() - 1
    finally:
        a.stop()
    return "log == replay for blocks %d..%d, across a restart" % (first, last)


def case_daemon_start_beyond_final(ctx):
    """Only with --hashjackd: a start height beyond the final blocks (tip 3,
    confirmations 2, start 6) must not stall: the daemon says it is caught
    up, keeps polling, and deals block 6 on as soon as each is final."""
    if not ctx.hashjackd:
        raise Skipped("no --hashjackd given")
    a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-beyond")).start()
    try:
        d = a.accounts[9].address
        a.mine_empty(3)
        start = a.height() + 3
        dm = Hashjackd(ctx.hashjackd, a, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS,
                       confirmations=2, start_height=start,
                       workdir=os.path.join(ctx.workdir, "daemon-beyond"))
        dm.start()
        wait_until(lambda: "caught up" in dm.stderr(), 10, "caught up")
        a.mine_empty(6)
        last = a.height() - 1
        dm.wait_height(last, timeout=15)
        check_eq([l["height"] for l in dm.lines()], list(range(start, last + 1)),
                 "heights dealt")
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
    finally:
        a.stop()
    return "blocks %d..%d dealt after starting beyond the final blocks" % (start, last)


CASES = [case_card_vectors, case_accounts, case_send_order_nonces, case_revert_drops_pending,
         case_grind_with_pending, case_round_hit_to_21, case_round_peek_insurance,
         case_failed_receipt_ignored, case_deposit_and_reject, case_reorg,
         case_restart_keeps_chain, case_pause_resume, case_bot_plays,
         case_daemon_smoke, case_daemon_start_beyond_final]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="path to the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="path to hashjackd: also run the daemon smoke case")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="run only cases whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=600, help="deadline for the whole run (s)")
    args = ap.parse_args()
    install_cleanup(args.timeout)
    hashjack = find_hashjack(args.hashjack)
    wd = WorkDir("hj-e2e-harness-", args.keep)
    ctx = Ctx(hashjack, wd.path, args.hashjackd)
    cases = Cases(26)
    try:
        cases.run(ctx, CASES, args.only)
    finally:
        kill_children()
        wd.close(cases.failed)
    print("%d passed, %d failed%s" % (cases.passed, cases.failed,
                                      ", %d skipped" % cases.skipped if cases.skipped else ""))
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
