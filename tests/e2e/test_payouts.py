#!/usr/bin/env python3
"""EVM payouts (issue 5): hashjackd signs and sends what the dealer owes with
[payout] dealer_key, each payout exactly once, on a real anvil
(daemon/payout_evm.h, daemon/payout_evm.c).

    python3 tests/e2e/test_payouts.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--seed N] [--kills N]

Each scenario has an anvil of its own (dealer: dev account 0, players: the
next accounts) and a daemon with [payout] dealer_key (a 0600 file holding
the dealer's key as anvil prints it):

  session   confirmations 2, timeout_blocks 3.  The game matrix of
            tests/e2e/test_game.py ("main": every action, settlement path
            and rejection, cards chosen by grinding) played by a pool of
            eight players, plus three tables of several players at once
            (tests/e2e/book.py's, which tests/e2e/test_ltc_payouts.py plays
            too): 58 rounds.  The expectation model of tests/e2e/checks.py
            (checks.SessionModel, checks.Round) writes down each block's
            events; checks.GameRunner checks the card log byte for byte,
            against `hashjack replay`, and the database's txs and payouts
            tables against it.  The payer runs all along: its transactions
            enter the blocks the session mines (while a block is ground the
            daemon is paused and every transaction of each try, the
            dealer's included, is sent again after the revert).  Then:
            each player's final balance - initial balance == the model's
            returns and refunds to it - the values of its successful
            transactions - gasUsed x effectiveGasPrice of all of them,
            exactly, in wei; every payout confirmed in exactly one batch;
            each confirmed batch's transaction on chain as recorded (from
            the dealer, to its recipient, its value and nonce, its block,
            its gas); the dealer's nonces 0..N-1 each used once, N = the
            confirmed batches; each recipient paid exactly its payouts.
            The batch checks are checks.batch_problems(), as in
            test_ltc_payouts.py; the notify socket and the proxy of
            "kills" are the harness's (daemon.NotifySocket, proxies.RpcProxy).
  kills     confirmations 1.  --kills (30) rounds of: refunds to several
            players (several per block) mined, hashjackd started and
            killed with SIGKILL at a random instant of its payout
            submission (0-3 ms or 0-30 ms after a "payouts: batch" line,
            or 0-600 ms after start), a block mined or not.  Then three
            eth_sendRawTransaction calls lost by a proxy (never reaching
            the node; its answer lost, the daemon alive; its answer lost,
            the daemon killed).  Then one clean run: every payout
            confirmed, each recipient received exactly its refunds (from
            the blocks), none twice, the dealer's nonces contiguous.
  refusals  confirmations 1.  (a) The dealer's balance set to 0 before
            refunds of a few hundred wei arrive: the balance then covers
            what is owed but not the gas, and the node refuses the transfer
            ("Insufficient funds for gas * price + value"): payouts owed
            with the node's message as last_error, "INSUFFICIENT FUNDS" on
            stderr and in STATUS (NOTIFY_SOCKET); the balance set to 1 wei,
            below what is owed: the same warning, also in the
            dealer_balance row; funded: paid once, the warning lifted.
            (b) The next base fee set to 1000 gwei, above max_fee_per_gas
            (100 gwei): refused, owed with the node's message, retried at
            the next block; a restart with max_fee_per_gas 5000 gwei
            re-signs and pays it (a second version).  Then 400 gwei with
            the default cap: refused at every block until the base fee
            falls below the cap; paid once.  (c) Nothing owed but an open
            round whose worst case exceeds the balance: INSUFFICIENT FUNDS;
            funded: lifted.
  small     min_refund = auto (the default; every other scenario sets 0):
            a refund of 1000 wei waits (the rejection's journal line says
            "it waits: below min_refund N wei", N at least 21000 gas x the
            1 gwei tip floor), owed with no transaction after 3 more
            blocks, counted in STATUS and hashjackd_payouts_waiting; a
            second refund of N to the same sender: both in one
            transaction of N + 1000; balances exact.
  stuck     stuck_after 2.  The payout transaction is dropped from anvil's
            pool (anvil_dropTransaction) unmined; a block before 2 s
            changes nothing; a block after it makes the daemon send a
            replacement (same nonce, recipient, value and gas, higher
            fees: a second row in payout_tx_versions), which is mined and
            confirmed; the player is paid once.
  foreign   confirmations 2.  The payout transaction is dropped and the
            dealer key sends another transaction with the same nonce
            (cast); not reverted before that nonce is final; once final
            the batch is reverted, its payouts owed again and paid under
            the next nonce; exactly once; the dealer's transaction count
            is the confirmed batches + 1.
  verify    confirmations 2.  `hashjack verify --payouts` over the
            dealer's log (docs/VERIFY.md, "Payouts"): three refunds paid
            and final, every recipient even (exit 0; the JSON report
            against the log's debts read here, checks.log_debts); then the
            daemon runs without [payout] dealer_key while two refunds are
            owed, and the dealer key sends one player 100 wei of its own:
            those two short by exactly their refunds (exit 1), that one
            over by 100; under the default grace (100 blocks) nothing is
            due (exit 0); a grace ending just before the unpaid refunds'
            block leaves them `later`; the text report (short first, the
            totals); the daemon with its key again pays them: even, the
            100 wei still over, exit 0.  The session above ends with the
            same check of every recipient (checks.check_verify_paid).
  key       dealer_key with mode 0644: exit 78 naming the chmod; the key
            of another address: exit 78 naming both addresses;
            --check-config prints the payouts line with the fees given;
            the secret key is never printed.

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout); every
process started is stopped.
"""

import collections
import contextlib
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
import types

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import checks  # noqa: E402
import test_game  # noqa: E402  (the game matrix and its EVM session)
from cards import card_matcher, card_of  # noqa: E402
from checks import Failed, check  # noqa: E402
from daemon import Hashjackd, NotifySocket, metric, write_key  # noqa: E402
from evm_node import Anvil, BET, ETHER, HIT, find_tool  # noqa: E402
from tool import VerifyFollower, verify  # noqa: E402
from logs import read_cardlog  # noqa: E402
from nodes import RpcError  # noqa: E402
from procs import HarnessError, close_all, install_cleanup, kill_children, wait_until  # noqa: E402
from proxies import RpcProxy  # noqa: E402
from serve import Serve  # noqa: E402

MIN_BET = test_game.MIN_BET
MAX_BET = test_game.MAX_BET
TIMEOUT = test_game.TIMEOUT
GWEI = 10 ** 9
DEFAULT_CAP = 100 * GWEI      # [payout] max_fee_per_gas's default
SESSION_PLAYERS = 8


# --------------------------------------------------------------------------
# Helpers

def rlp_decode(b, i=0):
    """One RLP item of b at i: (bytes or list, next offset)."""
    p = b[i]
    if p < 0x80:
        return b[i:i + 1], i + 1
    if p < 0xb8:
        n = p - 0x80
        return b[i + 1:i + 1 + n], i + 1 + n
    if p < 0xc0:
        k = p - 0xb7
        n = int.from_bytes(b[i + 1:i + 1 + k], "big")
        return b[i + 1 + k:i + 1 + k + n], i + 1 + k + n
    if p < 0xf8:
        n, s = p - 0xc0, i + 1
    else:
        k = p - 0xf7
        n, s = int.from_bytes(b[i + 1:i + 1 + k], "big"), i + 1 + k
    out, j = [], s
    while j < s + n:
        x, j = rlp_decode(b, j)
        out.append(x)
    return out, s + n


def decode_1559(raw):
    """The fields of a signed EIP-1559 transaction (0x02 || rlp(...))."""
    if raw[0] != 2:
        raise Failed("not an EIP-1559 transaction: type %d" % raw[0])
    f, end = rlp_decode(raw, 1)
    if end != len(raw) or len(f) != 12:
        raise Failed("malformed EIP-1559 transaction")
    num = [int.from_bytes(x, "big") for x in f[:5]]
    return {"chain_id": num[0], "nonce": num[1], "tip": num[2], "max_fee": num[3],
            "gas": num[4], "to": "0x" + f[5].hex(), "value": int.from_bytes(f[6], "big"),
            "data": f[7].hex()}


def scan(a, first, last):
    """Every transaction of blocks first..last with its receipt: dicts with
    hash, from, to, value, nonce, block, index, status, gas (gasUsed), price
    (effectiveGasPrice)."""
    out = []
    heights = list(range(first, last + 1))
    for i in range(0, len(heights), 100):
        chunk = heights[i:i + 100]
        blocks = a.rpc_batch([("eth_getBlockByNumber", [hex(h), True]) for h in chunk])
        txs = []
        for h, b in zip(chunk, blocks):
            if b is None:
                raise Failed("no block %d" % h)
            for k, t in enumerate(b["transactions"]):
                txs.append({"hash": t["hash"].lower(), "from": t["from"].lower(),
                            "to": (t.get("to") or "").lower() or None,
                            "value": int(t["value"], 16), "nonce": int(t["nonce"], 16),
                            "block": h, "index": k})
        for j in range(0, len(txs), 200):
            part = txs[j:j + 200]
            recs = a.rpc_batch([("eth_getTransactionReceipt", [t["hash"]]) for t in part])
            for t, r in zip(part, recs):
                if r is None:
                    raise Failed("no receipt for %s" % t["hash"])
                t["status"] = int(r["status"], 16)
                t["gas"] = int(r["gasUsed"], 16)
                t["price"] = int(r["effectiveGasPrice"], 16)
        out += txs
    return out


def cast_send(a, acct, to, value, nonce, timeout=30):
    """A transfer signed by acct with this nonce (cast send --async); returns
    its hash."""
    cmd = [a.cast, "send", "--async", "--rpc-url", a.url, "--private-key", acct.key,
           "--nonce", str(nonce), to, "--value", str(value)]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout)
    out = r.stdout.strip().splitlines()
    if r.returncode != 0 or not out or not re.fullmatch(r"0x[0-9a-f]{64}", out[-1]):
        raise Failed("cast send failed (%s): %s %s" % (r.returncode, r.stderr.strip(),
                                                       r.stdout.strip()))
    return out[-1]


def lines_with(text, pat):
    return [l for l in text.splitlines() if pat in l]


# --------------------------------------------------------------------------
# What every paying session shares: its database, waiting for payouts, the
# daemon started with NOTIFY_SOCKET

class Paying:
    """Mixed into a session with .a (evm_node.Anvil), .dm
    (daemon.Hashjackd), .conf, .dealer, .notify, .workdir."""

    def start(self, *args):
        self.notify.start_daemon(self.dm, *args)

    @property
    def db_path(self):
        return os.path.join(self.dm.state_dir, "hashjackd.sqlite")

    def q(self, sql, args=()):
        if not os.path.exists(self.db_path):
            return []
        db = sqlite3.connect("file:%s?mode=ro" % self.db_path, uri=True, timeout=10)
        try:
            return db.execute(sql, args).fetchall()
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return []
            raise
        finally:
            db.close()

    def payouts(self):
        rows = self.q("SELECT id, lower(hex(recipient)), amount, state, last_error, nonce, "
                      "created_height FROM payouts")
        return {r[0]: {"id": r[0], "to": "0x" + r[1], "amount": int(r[2]), "state": r[3],
                       "last_error": r[4], "nonce": r[5], "created_height": r[6]}
                for r in rows}

    def batches(self):
        rows = self.q("SELECT id, state, total, nonce, lower(hex(txid)), confirmed_height, "
                      "gas_limit, gas_used, fee, attempts, last_error FROM payout_batches "
                      "ORDER BY id")
        return {r[0]: {"id": r[0], "state": r[1], "total": int(r[2]), "nonce": r[3],
                       "txid": "0x" + r[4] if r[4] else None, "confirmed": r[5],
                       "gas_limit": r[6], "gas_used": r[7], "fee": r[8], "attempts": r[9],
                       "last_error": r[10]} for r in rows}

    def versions(self, batch=None):
        rows = self.q("SELECT batch, seq, lower(hex(hash)), raw, max_fee, priority_fee "
                      "FROM payout_tx_versions ORDER BY batch, seq")
        out = [{"batch": r[0], "seq": r[1], "hash": "0x" + r[2], "raw": bytes(r[3]),
                "max_fee": int(r[4]), "tip": int(r[5])} for r in rows]
        return [v for v in out if batch is None or v["batch"] == batch]

    def err_since(self, mark):
        return checks.stderr_since(self.dm, mark)

    def dealer_pool(self):
        """Hashes of the dealer's transactions in anvil's pool."""
        c = self.a.rpc("txpool_content")
        out = []
        for sender, by_nonce in list(c.get("pending", {}).items()) + \
                list(c.get("queued", {}).items()):
            if sender.lower() == self.dealer:
                out += [t["hash"].lower() for t in by_nonce.values()]
        return out

    def processed(self):
        """The height the daemon must have processed for the tip to be
        seen: tip - confirmations + 1."""
        return self.a.height() - (self.conf - 1)

    def settle_wait(self, expect_n=None, timeout=60, mine=None):
        """Mines (mine(), default one plain block) until every payout in the
        database is confirmed, no batch is planned or sent, and (with
        expect_n) the database holds expect_n payouts.  Returns the payout
        rows."""
        mine = mine or (lambda: self.a.mine())
        t0 = time.monotonic()
        while True:
            mine()
            checks.wait_log_height(self.dm, self.processed(), 30)
            time.sleep(0.15)
            rows = self.payouts()
            open_b = [b for b in self.batches().values() if b["state"] in ("planned", "sent")]
            if rows and all(r["state"] == "confirmed" for r in rows.values()) and not open_b \
                    and (expect_n is None or len(rows) == expect_n):
                return rows
            if time.monotonic() - t0 > timeout:
                raise Failed("payouts not all confirmed after %ds: %s; open batches %s"
                             % (timeout, [(r["id"][:20], r["state"], r["last_error"])
                                          for r in rows.values()
                                          if r["state"] != "confirmed"][:4],
                                [(b["id"], b["state"], b["last_error"]) for b in open_b][:3]))

    def close(self):
        close_all(self.dm.close, self.notify.close, self.a.stop)


class PaySession(Paying):
    """A fresh anvil (dealer: account 0; players: the next `players`) and a
    paying daemon (not started).  refund() sends a transaction that is
    rejected with its value refunded; expect holds what each payout must
    be: {payout id: (recipient, amount)}."""

    def __init__(self, R, name, players=6, conf=1, payout=None, min_bet=MIN_BET,
                 metrics=False):
        self.R = R
        self.name = name
        self.conf = conf
        self.workdir = os.path.join(R.workdir, name)
        os.makedirs(self.workdir, exist_ok=True)
        self.a = Anvil(workdir=os.path.join(self.workdir, "anvil"), keep_state=False,
                       accounts=players + 3).start()
        R.sessions.append(self)
        self.dealer_acct = self.a.accounts[0]
        self.dealer = self.dealer_acct.address
        self.players = self.a.accounts[1:1 + players]
        self.spare = self.a.accounts[1 + players:]
        self.min_bet = min_bet
        self.key = write_key(os.path.join(self.workdir, "dealer.key"), self.dealer_acct.key)
        self.a.mine_empty(2)
        self.first = self.a.height()
        self.initial = {p.address: self.a.balance(p.address) for p in self.players}
        # Every refund paid at once, whatever its size: "small" has the
        # default (min_refund = auto) to itself.
        pay = {"dealer_key": self.key, "min_refund": 0}
        pay.update(payout or {})
        self.dm = Hashjackd(R.hashjackd, self.a, self.dealer, min_bet, MAX_BET, TIMEOUT,
                            confirmations=conf, start_height=self.first,
                            poll_interval_ms=50,
                            workdir=os.path.join(self.workdir, "daemon"),
                            extra={"payout": pay}, metrics=metrics)
        self.notify = NotifySocket(os.path.join(self.workdir, "notify.sock"))
        self.expect = {}
        self.foreign = []

    def begin(self):
        """Starts the daemon and waits until it has dealt the first block."""
        self.start()
        if self.conf > 1:
            self.a.mine_empty(self.conf - 1)
        checks.wait_log_height(self.dm, self.processed(), 30)

    def refund(self, who, value=None, kind=None):
        """A Bet below min_bet (bet_out_of_limits) or a Hit without a round
        (no_round): rejected, its value owed back to who."""
        kind = kind or random.choice(("bet", "hit"))
        if kind == "bet":
            value = value or random.randrange(1, self.min_bet)
            t = self.a.send(who, self.dealer, BET, value)
        else:
            value = value or random.randrange(1, 10 ** 12)
            t = self.a.send(who, self.dealer, HIT, value)
        self.expect["refund:" + t[2:]] = (who.address, value)
        return t


# --------------------------------------------------------------------------
# The shared end: everything paid, once

def check_paid(R, S, name, expect, foreign=(), balances=None):
    """What a paying session ends with (the daemon stopped or idle):
    expect {payout id: (recipient, amount)} is exactly the ledger, every
    payout confirmed; each in exactly one confirmed batch (none planned or
    sent), each batch's one output its payouts' recipient and sum; each
    confirmed batch's transaction on chain as recorded; the dealer's
    transactions on chain are the confirmed batches' and the foreign ones,
    with nonces 0..N-1; each recipient received exactly its payouts; with
    balances ({address: initial balance}), each player's balance moved by
    exactly its payouts - the values of its successful transactions - the
    gas of all of them.  Returns True when all held."""
    a, dealer = S.a, S.dealer
    all_ok = True

    def rep(ok, what, detail):
        nonlocal all_ok
        all_ok = all_ok and bool(ok)
        R.report(ok, "%s: %s" % (name, what), detail)

    rows = S.payouts()
    got = {k: (r["to"], r["amount"]) for k, r in rows.items()}
    unconf = [(k[:24], r["state"]) for k, r in rows.items() if r["state"] != "confirmed"]
    diff = {k: (got.get(k), expect.get(k)) for k in set(got) | set(expect)
            if got.get(k) != expect.get(k)}
    rep(not diff and not unconf and expect, "every payout owed is in the ledger, confirmed",
        "%d payouts, %d wei" % (len(expect), sum(v for _, v in expect.values()))
        if not diff and not unconf else "%d differ %s; unconfirmed %s"
        % (len(diff), list(diff.items())[:3], unconf[:4]))

    batches = S.batches()
    versions = collections.defaultdict(list)
    for v in S.versions():
        versions[v["batch"]].append(v)
    confirmed = {i: b for i, b in batches.items() if b["state"] == "confirmed"}
    bad, outs = checks.batch_problems(S.q, expect)
    for bid, b in confirmed.items():
        o = outs.get(bid, [])
        if len(o) != 1 or b["total"] != o[0][1]:
            bad.append("batch %d: total %d, outputs %s" % (bid, b["total"], o))
    kinds = collections.Counter(b["state"] for b in batches.values())
    rep(not bad, "each payout in exactly one confirmed batch, which adds up",
        "%d batches (%s)" % (len(batches), ", ".join("%d %s" % (n, s) for s, n in
                                                     sorted(kinds.items())))
        if not bad else "; ".join(bad[:4]))

    tip = a.height()
    txs = scan(a, 1, tip)
    by_hash = {t["hash"]: t for t in txs}
    bad = []
    for bid, b in sorted(confirmed.items()):
        t = by_hash.get(b["txid"])
        o = outs.get(bid, [])
        if t is None:
            bad.append("batch %d: %s is in no block" % (bid, b["txid"]))
            continue
        want = {"from": dealer, "to": o[0][0] if o else None, "value": b["total"],
                "nonce": b["nonce"], "block": b["confirmed"], "status": 1}
        have = {k: t[k] for k in want}
        if have != want:
            bad.append("batch %d: chain %s, database %s" % (bid, have, want))
        if (b["gas_used"], b["fee"]) != (t["gas"], str(t["gas"] * t["price"])):
            bad.append("batch %d: gas %s fee %s recorded, receipt %d x %d"
                       % (bid, b["gas_used"], b["fee"], t["gas"], t["price"]))
        if b["txid"] not in [v["hash"] for v in versions[bid]]:
            bad.append("batch %d: %s is none of its versions" % (bid, b["txid"]))
    fees = sum(t["gas"] * t["price"] for t in txs if t["hash"] in
               {b["txid"] for b in confirmed.values()})
    rep(not bad, "each confirmed batch's transaction is on chain as recorded",
        "%d transactions from the dealer, to the recipient, value, nonce, block, gas "
        "(%d wei of fees)" % (len(confirmed), fees) if not bad else "; ".join(bad[:3]))

    mine = [t for t in txs if t["from"] == dealer]
    count = int(a.rpc("eth_getTransactionCount", dealer, "latest"), 16)
    nonces = sorted(t["nonce"] for t in mine)
    want_hashes = {b["txid"] for b in confirmed.values()} | set(foreign)
    b_nonces = sorted([b["nonce"] for b in confirmed.values()] +
                      [by_hash[f]["nonce"] for f in foreign if f in by_hash])
    ok = nonces == list(range(count)) and b_nonces == nonces and \
        {t["hash"] for t in mine} == want_hashes and count == len(confirmed) + len(foreign)
    rep(ok, "dealer nonces used once each, none skipped",
        "nonces 0..%d: %d confirmed batches + %d foreign" % (count - 1, len(confirmed),
                                                              len(foreign))
        if ok else "chain nonces %s, count %d, batches+foreign %s; %d transactions not "
        "recorded" % (nonces[:12], count, b_nonces[:12],
                      len({t["hash"] for t in mine} - want_hashes)))

    owed = collections.Counter()
    for to, v in expect.values():
        owed[to] += v
    paid = collections.Counter()
    for t in mine:
        if t["hash"] not in foreign and t["status"] == 1:
            paid[t["to"]] += t["value"]
    bad = ["%s received %d, owed %d" % (k, paid[k], owed[k])
           for k in set(owed) | set(paid) if paid[k] != owed[k]]
    rep(not bad, "each recipient received exactly its payouts' sum (from the blocks)",
        "%d recipients, %d wei in %d transactions" % (len(owed), sum(owed.values()),
                                                       len(mine) - len(foreign))
        if not bad else "; ".join(bad[:4]))

    if balances:
        bad = []
        detail = []
        for addr, initial in sorted(balances.items()):
            final = a.balance(addr)
            own = [t for t in txs if t["from"] == addr]
            sent = sum(t["value"] for t in own if t["status"] == 1)
            gas = sum(t["gas"] * t["price"] for t in own)
            want = owed[addr] - sent - gas
            if final - initial != want:
                bad.append("%s: balance moved by %d, expected %d (payouts %d - sent %d - "
                           "gas %d)" % (addr, final - initial, want, owed[addr], sent, gas))
            detail.append("%d txs" % len(own))
        rep(not bad, "each player's balance change == payouts - values sent - gas, in wei",
            "%d players (%s)" % (len(balances), ", ".join(detail)) if not bad
            else "; ".join(bad[:3]))
    return all_ok


def payer_lines(S, err, killed=False):
    """The payer's plan and confirmation lines of a stderr text checked
    against the database: one "payouts: batch N: V wei to A, nonce K, M
    payouts" per batch planned and one "payouts: batch N (nonce K)
    confirmed: H in block B" per batch confirmed, each with the batch's
    values.  killed: the daemon was killed with SIGKILL, which may come
    between a commit and its line (the line comes after the commit), so a
    line may be missing, never doubled nor about a batch that is not so.
    Returns (problems, plan lines, confirmation lines)."""
    plan = re.compile(r"payouts: batch (\d+): (\d+) wei to (0x[0-9a-f]{40}), nonce (\d+), "
                      r"(\d+) payouts")
    conf = re.compile(r"payouts: batch (\d+) \(nonce (\d+)\) confirmed: (0x[0-9a-f]{64}) in "
                      r"block (\d+)")
    batches = S.batches()
    outs = {b: (ad.lower(), int(am)) for b, ad, am in
            S.q("SELECT batch, address, amount FROM payout_batch_outputs")}
    n_items = collections.Counter(b for b, _ in S.q("SELECT batch, payout FROM "
                                                    "payout_batch_items"))
    bad = []
    planned = collections.Counter()
    for m in plan.finditer(err):
        bid, v, to, nonce, n = int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5])
        planned[bid] += 1
        b = batches.get(bid)
        if b is None or (v, to, nonce, n) != (b["total"], outs[bid][0], b["nonce"],
                                              n_items[bid]):
            bad.append("plan line %s vs batch %s" % (m[0], b))
    confd = collections.Counter()
    for m in conf.finditer(err):
        bid = int(m[1])
        confd[bid] += 1
        b = batches.get(bid)
        if b is None or (int(m[2]), m[3], int(m[4])) != (b["nonce"], b["txid"], b["confirmed"]):
            bad.append("confirmation line %s vs batch %s" % (m[0], b))
    def differ(said, want):
        return (not set(said) <= want) if killed else set(said) != want
    if differ(planned, set(batches)) or any(n != 1 for n in planned.values()):
        bad.append("plan lines %s for batches %s" % (dict(planned), sorted(batches)))
    conf_ids = {i for i, b in batches.items() if b["state"] == "confirmed"}
    if differ(confd, conf_ids) or any(n != 1 for n in confd.values()):
        bad.append("confirmation lines %s for confirmed batches %s" % (dict(confd),
                                                                         sorted(conf_ids)))
    return bad, len(planned), len(confd)


# --------------------------------------------------------------------------
# 1. session: the game matrix with the payer running

class GameSession(test_game.Session, Paying):
    """test_game.Session (its scenarios, its expectation model) with a paying
    daemon: [payout] dealer_key, confirmations 2, timeout_blocks 3.  Its
    players come from a pool of SESSION_PLAYERS accounts in turn, so each
    plays many rounds; its rounds (checks.EvmRound) send their own actions,
    and it gives take() and forged(), for the book's tables.  A
    block's transactions from the dealer (payouts) are not the session's:
    the session's own must be the others, in the order sent; their txIndex
    is where they are in the block."""

    ACCOUNTS = SESSION_PLAYERS + 2

    def __init__(self, R, name):
        self.R = R
        self.conf = test_game.CONFIRMATIONS
        self.nstake = 0
        self.tries = 0
        self.pauses = 0
        self.resent = 0                            # dealer's txs sent again by grind()
        self.ground = set()                        # heights of ground blocks
        test_game.Session.__init__(self, R, name)
        self.next_player = 0

    def daemon_extra(self):
        """The anvil is up: the session is R's to close, the players' pool
        and initial balances, the dealer's key file, the notify socket."""
        self.R.sessions.append(self)
        self.pool = self.a.accounts[1:1 + SESSION_PLAYERS]
        self.initial = {p.address: self.a.balance(p.address) for p in self.pool}
        key = write_key(os.path.join(self.workdir, "dealer.key"), self.a.accounts[0].key)
        self.notify = NotifySocket(os.path.join(self.workdir, "notify.sock"))
        return {"payout": {"dealer_key": key, "min_refund": 0}}

    def start_daemon(self):
        self.start()

    def player(self):
        p = self.pool[self.next_player % len(self.pool)]
        self.next_player += 1
        return p

    def take(self, n):
        """n different players (n <= SESSION_PLAYERS), in turn."""
        return [self.player() for _ in range(n)]

    def forged(self, r, action, value):
        """None: EVM actions are not signed (book.sc_vs9_lose_bust_surrender)."""
        return None

    def stake(self):
        """A new odd stake (floor(s/2) and floor(6s/5) round down)."""
        self.nstake += 1
        return 10 ** 15 + 1001 + 2 * self.nstake

    # -- blocks ---------------------------------------------------------------

    @contextlib.contextmanager
    def paused(self):
        """The daemon stopped (SIGSTOP) meanwhile: it sees no try of a ground
        block and sends nothing new."""
        pid = self.dm.proc.pid if self.dm.running() else None
        if pid:
            os.kill(pid, signal.SIGSTOP)
            self.pauses += 1
        try:
            yield
        finally:
            if pid:
                os.kill(pid, signal.SIGCONT)

    def grind(self, want, max_tries=3000):
        """Like evm_node.Anvil.grind, with payouts in the pool: every
        transaction of each try (the dealer's too, also one that reached
        the node while the daemon was being paused) is sent again after the
        revert, in the block's order; one that is there already is left."""
        a = self.a
        match = card_matcher(want)
        parent = a.block("latest", full=False)
        n = int(parent["number"], 16) + 1
        ts0 = int(parent["timestamp"], 16) + 1
        for k in range(max_tries):
            self.tries += 1
            snap = a.rpc("evm_snapshot")
            a.rpc("evm_mine", {"timestamp": ts0 + k})
            b = a.block(n)
            hashes = [t["hash"] for t in b["transactions"]]
            for h in hashes:
                if h not in a.raw:
                    a.raw[h] = a.rpc("eth_getRawTransactionByHash", h)
            if match(card_of(b["hash"])):
                return b
            if not a.rpc("evm_revert", snap):
                raise Failed("evm_revert %s refused" % snap)
            if a.height() != n - 1:
                raise Failed("evm_revert left the tip at %d" % a.height())
            for t in b["transactions"]:
                h = t["hash"]
                try:
                    got = a.send_raw(a.raw[h])
                except RpcError as e:
                    if "already" in str(e):
                        continue
                    raise
                if got != h:
                    raise Failed("re-sent %s came back as %s" % (h, got))
                if t["from"].lower() == self.dealer:
                    self.resent += 1
        raise Failed("no block with card %r after %d tries" % (want, max_tries))

    def _mined(self, b):
        h = int(b["number"], 16)
        own = [(i, t["hash"]) for i, t in enumerate(b["transactions"])
               if t["from"].lower() != self.dealer]
        want = [t.txid for t in self.pending]
        if [x for _, x in own] != want:
            raise Failed("block %d holds %s besides the dealer's, expected %s"
                         % (h, [x for _, x in own], want))
        for (i, _), t in zip(own, self.pending):
            t.h, t.idx = h, i
        self.pending = []
        return h

    def mine(self, want=None):
        if want is None:
            b = self.a.mine()
        else:
            with self.paused():
                b = self.grind(want)
            self.ground.add(int(b["number"], 16))
        h = self._mined(b)
        return checks.Blk(h, b["hash"], card_of(b["hash"]))

    def expected_payouts(self):
        """The model's ledger once everything is paid: every payout
        confirmed (on EVM every payout has a recipient)."""
        out = {}
        for k, v in checks.SessionModel.expected_payouts(self).items():
            out[k] = v[:7] + ("confirmed",) + v[8:]
        return out

    def close(self):
        Paying.close(self)


def sc_table_six_vs_9(S):
    """Six players, 10+6 against 9: book.sc_vs9_lose_bust_surrender (also
    tests/e2e/test_ltc_payouts.py's) on EVM, where actions are not signed
    (no bad_signature)."""
    return book.sc_vs9_lose_bust_surrender(S)


def sc_table_five_vs_7(S):
    """Five players, 10+8 against 7: book.sc_vs7_push_win_bust (also
    test_ltc_payouts.py's) on EVM."""
    return book.sc_vs7_push_win_bust(S)


def sc_table_bj_vs_ace(S):
    """Four blackjacks A, K against an Ace: book.sc_bj_vs_ace (also
    test_ltc_payouts.py's) on EVM."""
    return book.sc_bj_vs_ace(S)


SESSION_SCENARIOS = test_game.MAIN + [sc_table_six_vs_9, sc_table_five_vs_7,
                                      sc_table_bj_vs_ace]


class SessionChecks(checks.GameRunner):
    """checks.GameRunner's end of a session, reporting through Runner."""

    CHAIN = "evm"
    CONFIRMATIONS = test_game.CONFIRMATIONS

    def __init__(self, R):
        super().__init__(types.SimpleNamespace(hashjack=R.hashjack, hashjackd=R.hashjackd,
                                               only=[]), R.workdir)
        self.R = R

    def report(self, ok, name, detail, t0=None):
        self.R.report(ok, name, detail)

    def scenario_detail(self, detail, h0, h1, took):
        return "%s (blocks %d..%d, %.1fs)" % (detail, h0, h1, took)

    def check_db_head(self, S, q, last):
        cur = q("SELECT height FROM cursor").fetchall()
        self.report(cur == [(last,)], "%s: database cursor at the last logged block" % S.name,
                    "cursor %s" % cur)


MALFORMED = ("truncated", "bad_version", "unknown_action", "bad_length", "too_long",
             "bad_field")


# What the session must hold (coverage()): issue 5's outcomes and
# rejections, and protocol v1.1's Peek (both verdicts, a skipped block).
WANTED = ["Win", "Lose", "Push", "Bust", "blackjack 6:5", "DealerBlackjack",
          "late surrender vs a ten", "late surrender vs an Ace", "double win",
          "double lose", "split 10-J", "peek insured", "peek declined",
          "dealer blackjack at the peek", "clear peek",
          "a blackjack block skipped after a clear peek",
          "dealer blackjack found late after a Double",
          "dealer blackjack found late after a Split", "timeouts", "wrong_value",
          "premature", "not_allowed", "bet_out_of_limits", "malformed", "second_round"]


def coverage(S):
    """What the model's events hold: (rounds, hand results, rejections by
    reason, actions, the features issue 5 asks for that are missing)."""
    rounds = 0
    results = collections.Counter()
    rej = collections.Counter()
    acts = collections.Counter()
    actions = collections.defaultdict(list)    # round -> [(action, insurance)]
    up = {}                                    # round -> the dealer's first card
    verdicts = collections.Counter()           # peek cards: dealerBlackjack -> count
    settles = []
    for h in sorted(S.exp):
        for e in S.exp[h]:
            t = e["type"]
            if t == "settle":
                rounds += 1
                settles.append(e)
                for hd in e["playerHands"]:
                    results[hd["status"]] += 1
                if "insurance" in e:
                    results["insured"] += 1
            elif t == "reject":
                rej[e["reason"]] += 1
            elif t == "timeout":
                acts["timeout " + e["action"]] += 1
            elif t == "action":
                acts[e["action"]] += 1
                actions[e["round"]].append((e["action"], e.get("insurance")))
            elif t == "draw" and e["handOwner"] == "Dealer":
                up.setdefault(e["round"], e["card"])
            elif t == "peek":
                verdicts[e["dealerBlackjack"]] += 1
            elif t == "skip":
                acts["skip"] += 1
    have = set(k for k in results if results[k])
    for e in settles:
        acted = [a for a, _ in actions[e["round"]]]
        st = {hd["status"] for hd in e["playerHands"]}
        first = [hd["cards"][0][:-1] for hd in e["playerHands"]]
        u = up.get(e["round"], "")[:-1]
        if "Double" in acted and "Win" in st:
            have.add("double win")
        if "Double" in acted and "Lose" in st:
            have.add("double lose")
        if "Double" in acted and "DealerBlackjack" in st:
            have.add("dealer blackjack found late after a Double")
        if "Split" in acted and "DealerBlackjack" in st:
            have.add("dealer blackjack found late after a Split")
        if "Split" in acted and len(first) == 2 and first[0] != first[1]:
            have.add("split 10-J")
        if "Surrender" in acted and u in ("10", "J", "Q", "K"):
            have.add("late surrender vs a ten")
        if "Surrender" in acted and u == "A":
            have.add("late surrender vs an Ace")
        if "Blackjack" in st:
            have.add("blackjack 6:5")
    for peeks in actions.values():
        for a, ins in peeks:
            if a == "Peek":
                have.add("peek insured" if ins else "peek declined")
    if verdicts[True]:
        have.add("dealer blackjack at the peek")
    if verdicts[False]:
        have.add("clear peek")
    if acts["skip"]:
        have.add("a blackjack block skipped after a clear peek")
    if any(k.startswith("timeout") for k in acts):
        have.add("timeouts")
    for r in ("wrong_value", "premature", "not_allowed", "bet_out_of_limits",
              "second_round"):
        if rej[r]:
            have.add(r)
    if any(rej[r] for r in MALFORMED):
        have.add("malformed")
    return rounds, results, rej, acts, [w for w in WANTED if w not in have]


def session(R):
    t0 = time.monotonic()
    S = GameSession(R, "session")
    C = SessionChecks(R)
    played = C.play(S, SESSION_SCENARIOS)
    t_play = time.monotonic() - t0
    n_blocks = S.height() - S.first + 1
    last_played = S.height()
    want = S.expected_payouts()
    try:
        S.settle_wait(expect_n=len(want), timeout=90)
    except Failed as e:
        R.report(False, "session: every payout confirmed", str(e))
    rounds, results, rej, acts, missing = coverage(S)
    C.finish(S, played)              # stops the daemon (SIGTERM, exit 0)
    expect = {k: ("0x" + v[5], int(v[6])) for k, v in want.items()}
    check_paid(R, S, "session", expect, balances=S.initial)
    owed = collections.Counter()
    for to, v in expect.values():
        owed[to] += v
    checks.check_verify_paid(R, "session", S.dm.conf, S.dm.card_log, owed)
    bad, n_plan, n_conf = payer_lines(S, S.dm.stderr())
    R.report(not bad, "session: one plan and one confirmation line per batch, as recorded",
             "%d + %d lines" % (n_plan, n_conf) if not bad else "; ".join(bad[:3]))
    confirmed = {b["txid"]: b for b in S.batches().values() if b["state"] == "confirmed"}
    in_play = [t for t in scan(S.a, S.first, last_played) if t["hash"] in confirmed]
    in_ground = [t for t in in_play if t["block"] in S.ground]
    R.report(len(in_play) >= len(confirmed) // 2 and in_ground and S.resent,
             "session: payouts were mined while the game went on",
             "%d of %d payout transactions in the scenarios' blocks, %d of them in ground "
             "blocks; %d sent again by the grinding" % (len(in_play), len(confirmed),
                                                        len(in_ground), S.resent))
    refused = lines_with(S.dm.stderr(), "refused")
    R.report(not refused, "session: the node refused nothing", refused[0] if refused else "")
    per = collections.Counter()
    for e in (e for evs in S.exp.values() for e in evs if e["type"] == "settle"):
        per[e["player"]] += 1
    hands = sum(v for k, v in results.items() if k != "insured")
    ok = rounds >= 50 and len(per) >= 5 and not any(x[4] for x in played)
    R.report(ok, "session: %d rounds by %d players" % (rounds, len(per)),
             "%d hands: %s; %d insured; rounds per player %s" % (
                 hands, " ".join("%s=%d" % (k, v) for k, v in sorted(results.items())
                                 if k != "insured"),
                 results["insured"], sorted(per.values())))
    R.report(not missing, "session: every outcome and rejection issue 5 names, peeks, skips",
             "all %d present" % len(WANTED) if not missing else "missing: %s" % missing)
    R.report(sum(rej.values()) > 0, "session: %d rejections, value refunded"
             % sum(rej.values()), " ".join("%s=%d" % kv for kv in sorted(rej.items())))
    R.report(True, "session: actions", " ".join("%s=%d" % kv for kv in sorted(acts.items())))
    R.report(True, "session: run time",
             "%.1fs (played in %.1fs: %d blocks, %d tries while grinding, daemon paused "
             "%d times)" % (time.monotonic() - t0, t_play, n_blocks, S.tries, S.pauses))


# --------------------------------------------------------------------------
# 2. kills: kill -9 at random instants of the payout submission

def classify_kill(S):
    """What a kill left: for a planned batch (committed, not recorded as
    accepted), whether its newest version is at the node (pool or block)."""
    out = []
    for b in S.batches().values():
        if b["state"] != "planned":
            continue
        v = S.versions(b["id"])[-1]
        at = S.a.rpc("eth_getTransactionByHash", v["hash"]) is not None
        out.append("planned, at the node" if at else "planned, not at the node")
    return out


def kills(R, n_kills):
    rng = R.rng
    S = PaySession(R, "kills", players=6, conf=1)
    t0 = time.monotonic()
    seen = collections.Counter()
    left = collections.Counter()
    batch_line = re.compile(r"payouts: batch \d+: ")
    for i in range(n_kills):
        for _ in range(rng.randint(2, 6)):
            S.refund(rng.choice(S.players))
        S.a.mine()
        mark = checks.stderr_size(S.dm)
        S.start()
        how = i % 3
        if how < 2:
            def line():
                if not S.dm.running():
                    raise Failed("hashjackd exited: %s" % S.err_since(mark)[-600:])
                return batch_line.search(S.err_since(mark))
            try:
                wait_until(line, 10, "a payouts: batch line", interval=0.0005)
                seen["after a batch line"] += 1
            except TimeoutError:
                seen["no batch line within 10 s"] += 1
            time.sleep(rng.random() * (0.003 if how == 0 else 0.03))
        else:
            time.sleep(rng.random() * 0.6)
            seen["at a random delay"] += 1
        if not S.dm.running():
            raise Failed("hashjackd exited by itself: %s" % S.err_since(mark)[-600:])
        S.dm.kill9()
        for k in classify_kill(S):
            left[k] += 1
        if rng.random() < 0.5:
            S.a.mine()
    R.report(True, "kills: %d kill -9 during payout submission" % n_kills,
             "%.1fs; %d refunds; %s" % (time.monotonic() - t0, len(S.expect),
                                        ", ".join("%s %d" % kv for kv in sorted(seen.items()))))
    R.report(sum(left.values()) > 0, "kills: some kills left a batch planned (committed, "
             "not recorded as sent)", ", ".join("%s %d" % kv for kv in sorted(left.items()))
             or "none")

    lost_sends(R, S)

    # One clean run: all paid once.
    mark = checks.stderr_size(S.dm)
    S.start()
    try:
        S.settle_wait(expect_n=len(S.expect), timeout=90)
    except Failed as e:
        R.report(False, "kills: the clean run pays everything", str(e))
    rc = S.dm.stop()
    R.report(rc == 0, "kills: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    check_paid(R, S, "kills", S.expect, balances=S.initial)
    errs = checks.error_lines(S.dm.stderr())
    R.report(not errs, "kills: no error on stderr over all runs", errs[0] if errs else
             "%d runs" % (n_kills + 5))
    try:
        r = checks.check_log_matches_cursor(S.dm, S.workdir, "kills")
        checks.check_heights(checks.log_bytes(S.dm.card_log), S.first, r["height"],
                             "kills: card log", "evm")
        R.report(True, "kills: the card log holds every block once, ends at the commit",
                 "blocks %d..%d" % (S.first, r["height"]))
    except Failed as e:
        R.report(False, "kills: the card log holds every block once, ends at the commit",
                 str(e))
    bad, n_plan, n_conf = payer_lines(S, S.dm.stderr(), killed=True)
    R.report(not bad, "kills: the confirmation lines match the database",
             "%d plan lines, %d confirmation lines" % (n_plan, n_conf) if not bad
             else "; ".join(bad[:3]))


def lost_sends(R, S):
    """Three eth_sendRawTransaction calls lost by a proxy, each ending paid
    once (checked at the end with the rest):
    a. never reaching the node, the daemon alive: the client's attempt
       times out and is retried with the same bytes;
    b. reaching the node, its answer lost, the daemon alive: the retry is
       "already imported", taken as accepted;
    c. the same, the daemon killed while it waits: the restart sends the
       planned batch again."""
    proxy = RpcProxy(S.a.url, "eth_sendRawTransaction")
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url, "--chain.rpc_timeout_ms=1500"]

    def run(name, mode, kill):
        who = random.choice(S.players)
        n0 = proxy.swallowed + proxy.lost
        mark = checks.stderr_size(S.dm)
        if not S.dm.running():
            S.start()
        proxy.arm(mode, 1)
        try:
            S.refund(who)
            S.a.mine()
            wait_until(lambda: proxy.swallowed + proxy.lost > n0, 20,
                       "the proxy to lose an eth_sendRawTransaction")
            bid = max(S.batches())
            if kill:
                S.dm.kill9()
                S.start()
            # Paid: the batch is sent, then confirmed after a block.
            wait_until(lambda: S.batches()[bid]["state"] in ("sent", "confirmed"), 30,
                       "batch %d to be sent" % bid)
            S.a.mine()
            wait_until(lambda: S.batches()[bid]["state"] == "confirmed", 30,
                       "batch %d to be confirmed" % bid)
            b = S.batches()[bid]
            R.report(True, "kills: eth_sendRawTransaction %s" % name,
                     "batch %d confirmed, nonce %d, %d version(s), %d attempt(s) failed"
                     % (bid, b["nonce"], len(S.versions(bid)), b["attempts"]))
        except (TimeoutError, HarnessError, Failed) as e:
            R.report(False, "kills: eth_sendRawTransaction %s" % name,
                     "%s\n%s" % (e, S.err_since(mark)[-1200:]))
        finally:
            proxy.disarm()

    try:
        run("never reaching the node, daemon alive: retried, paid once", "swallow", False)
        run("answer lost, daemon alive: the retry is already known, paid once", "lose", False)
        run("answer lost, daemon killed: the restart sends it again, paid once", "lose", True)
    finally:
        if S.dm.running():
            S.dm.kill9()
        S.dm.overrides = []
        proxy.release.set()


# --------------------------------------------------------------------------
# 3. refusals: too little ETH; a fee cap below the base fee

def wait_cond(fn, timeout, what):
    try:
        return wait_until(fn, timeout, what, interval=0.05)
    except TimeoutError:
        return None


def small(R):
    """[payout] min_refund = auto (the default): a refund below a
    transfer's own cost waits, said in the rejection's line, STATUS and
    /metrics; the sender's next refund carries the sum past it and both
    go in one transaction."""
    S = PaySession(R, "small", players=2, payout={"min_refund": "auto"}, metrics=True)
    p = S.players
    S.begin()
    mark = len(S.dm.stderr())
    t1 = S.refund(p[0], 1000, kind="hit")
    S.a.mine_empty(1)
    said = wait_cond(lambda: [ln for ln in lines_with(S.err_since(mark), t1[2:])
                              if "it waits: below min_refund" in ln], 30,
                     "the rejection's line")
    m = re.search(r"below min_refund (\d+) wei", said[0]) if said else None
    mins = int(m.group(1)) if m else 0
    R.report(m and mins >= 21000 * 10 ** 9,
             "small: the rejection's line says the refund waits, below min_refund",
             said[0][-200:] if said else S.err_since(mark)[-300:])

    def held_seen():
        mx = S.dm.metrics()[0]
        st = (S.notify.read() or [""])[-1]
        return (mx, st) if metric(mx, "hashjackd_payouts_waiting") == 1 and \
            "1 refunds held below min_refund" in st else None
    got = wait_cond(held_seen, 30, "the refund held in STATUS and /metrics")
    S.a.mine_empty(3)
    rows = S.payouts()
    R.report(got and rows and all(r["state"] == "owed" for r in rows.values())
             and not S.batches()
             and metric(got[0], "hashjackd_payouts_waiting_amount") == 1000
             and 21000 * 10 ** 9 <= metric(got[0], "hashjackd_payout_minimum") <= mins,
             "small: held, owed, no transaction, after 3 more blocks; STATUS and /metrics say so",
             "%s; %s; batches %s" % ([(r["state"], r["amount"]) for r in rows.values()],
                                     got[1][-160:] if got else "(not seen)", S.batches()))
    # The next refund carries the sum past the threshold: both paid together.
    S.refund(p[0], mins, kind="hit")
    S.settle_wait(expect_n=2, timeout=60)
    batches = S.batches()
    R.report(len(batches) == 1 and list(batches.values())[0]["total"] == 1000 + mins,
             "small: once owed min_refund, the two refunds go in one transaction",
             str([(b["state"], b["total"]) for b in batches.values()]))
    check_paid(R, S, "small", S.expect, balances=S.initial)


def sweep(R):
    """[payout] sweep_to: the balance above what must stay goes to the cold
    address, recorded as a payout of kind sweep before it is signed, so
    once across a kill -9; at most one per sweep_every blocks."""
    margin = 5 * ETHER
    S = PaySession(R, "sweep", players=2, metrics=True)
    cold = S.spare[0].address.lower()
    S.dm.overrides = ["--payout.sweep_to=" + cold, "--payout.sweep_every=6",
                      "--payout.sweep_margin=%d" % margin]
    a = S.a
    cold0 = a.balance(cold)
    mark = len(S.dm.stderr())
    S.begin()
    # The first pass sweeps: killed at once, the restart pays it once.
    said = wait_cond(lambda: [ln for ln in S.err_since(mark).splitlines()
                              if "payouts: sweep of" in ln], 30, "the sweep's line")
    S.dm.kill9()
    S.start()

    def sweeps():
        return {k: r for k, r in S.payouts().items() if k.startswith("sweep:")}
    S.settle_wait(expect_n=1, timeout=60)
    rows = sweeps()
    first = list(rows.values())[0] if len(rows) == 1 else None
    to_cold = [t for t in scan(a, S.first, a.height()) if t["to"] == cold]
    R.report(said and first and first["state"] == "confirmed" and first["to"] == cold
             and len(to_cold) == 1 and to_cold[0]["value"] == first["amount"]
             and a.balance(cold) - cold0 == first["amount"],
             "sweep: recorded, killed at once, paid once after the restart: one transfer to "
             "the cold address of exactly the recorded amount",
             "%s; %s; to cold %s" % (said[0][-160:] if said else "(no line)",
                                     [(k, r["state"], r["amount"]) for k, r in rows.items()],
                                     [(t["value"], t["block"]) for t in to_cold]))
    dealer_left = a.balance(S.dealer)
    R.report(first and margin <= dealer_left <= margin + 10 ** 17,
             "sweep: the dealer keeps the margin and the gas reserve, no more",
             "dealer %d wei, margin %d" % (dealer_left, margin))
    # A deposit (no magic: kept) raises the balance; no second sweep before
    # sweep_every blocks, one after.
    a.send(S.players[0], S.dealer, "0x", 2 * ETHER)
    h0 = first["created_height"] if first else 0
    S.a.mine_empty(2)
    S.dm.wait_height(S.processed(), 30)
    n_early = len(sweeps())
    for _ in range(12):
        a.mine_empty(1)
        S.dm.wait_height(S.processed(), 30)
        if len(sweeps()) == 2:
            break
    S.settle_wait(expect_n=2, timeout=60)
    rows = sweeps()
    second = [r for k, r in rows.items() if r["created_height"] != h0]
    R.report(n_early == 1 and len(rows) == 2 and second
             and second[0]["created_height"] >= h0 + 6
             and abs(second[0]["amount"] - 2 * ETHER) < 10 ** 16
             and all(r["state"] == "confirmed" for r in rows.values()),
             "sweep: none within sweep_every blocks; then the deposit swept",
             "%d early; %s" % (n_early, [(r["created_height"], r["amount"], r["state"])
                                         for r in rows.values()]))
    total = sum(r["amount"] for r in rows.values())
    mx = wait_cond(lambda: (lambda m: m if metric(m, "hashjackd_sweeps") == 2 else None)(
        S.dm.metrics()[0]), 10, "hashjackd_sweeps 2")
    st = subprocess.run([R.hashjack, "status", "--db", S.db_path, "--json"],
                        capture_output=True, text=True, timeout=30)
    js = json.loads(st.stdout) if st.returncode == 0 else {}
    R.report(mx and metric(mx, "hashjackd_swept_amount") == float(total)
             and js.get("swept") == {"count": 2, "amount": str(total)}
             and js.get("sweeping") == {"count": 0, "amount": "0"},
             "sweep: /metrics and hashjack status count the sweeps apart",
             "metrics %s; status swept %s sweeping %s" % (
                 mx and metric(mx, "hashjackd_swept_amount"), js.get("swept"),
                 js.get("sweeping")))
    check_paid(R, S, "sweep", {k: (r["to"], r["amount"]) for k, r in rows.items()})


def reorg(R, rotate=False):
    """A reorganisation deeper than the confirmations takes the blocks of
    two refunds and the transactions that paid them: hashjackd stops (exit
    3); `hashjack reorg` reports; `--rewind` takes the state back to the
    batch boundary below the fork point (the log's lines past it kept
    aside). Restarted, the daemon deals the blocks below the fork point
    again (refund A, taken back: not paid twice) and the new branch, which
    has no refund B (paid, orphaned: the dealer's loss); the payer finds
    both payout transactions gone and sends them again. Afterwards the log
    verifies against the node, each payout is paid exactly once on the
    chain that stands, and a `hashjack serve` that ran throughout serves
    the new branch's blocks.  rotate: the card log is rotated twice (logrotate's
    way: .1 renamed to .2, the log to .1, SIGHUP; a block dealt between)
    after the boundary, so that the lines taken back are in three files;
    the rewind keeps them aside in order, puts the oldest file back as the
    card log and removes .1 (no watcher then).  Before that, with the
    oldest file compressed, --rewind finds no fork point and changes
    nothing; uncompressed again (a new inode), the file is found by its
    lines."""
    S = PaySession(R, "reorg_rotated" if rotate else "reorg", players=2, conf=2, metrics=True)
    S.dm.overrides = ["--payout.stuck_after=2"]
    a, p = S.a, S.players
    S.begin()
    S.dm.stop()
    # One catch-up batch holds both refunds: its boundary is below A.
    tA = S.refund(p[0], 1111, kind="hit")
    a.mine(expect=[tA])
    hA = a.height()
    a.mine_empty(2)
    fork = a.height()
    tB = S.refund(p[1], 2222, kind="hit")
    a.mine(expect=[tB])
    a.mine_empty(2)
    S.start()
    # The round API follows the dealer through the reorganisation, the
    # rewind and the restart.
    api = Serve(R.hashjack, S.dm)
    api.start()
    S.settle_wait(expect_n=2, timeout=60)
    paid = {k: r["state"] for k, r in S.payouts().items()}
    rotated = S.dm.card_log + ".2"
    if rotate:
        for _ in range(2):
            if os.path.exists(S.dm.card_log + ".1"):
                os.rename(S.dm.card_log + ".1", S.dm.card_log + ".2")
            os.rename(S.dm.card_log, S.dm.card_log + ".1")
            os.kill(S.dm.proc.pid, signal.SIGHUP)
            a.mine_empty(1)
            wait_cond(lambda: os.path.exists(S.dm.card_log)
                      and os.path.getsize(S.dm.card_log) > 0, 15, "a line in the new card log")
        watcher = None
    else:
        # A watcher following the log has verified every line before the
        # reorganisation.
        last = json.loads(open(S.dm.card_log, "rb").read().splitlines()[-1])["height"]
        watcher = VerifyFollower(R.hashjack, S.dm.conf, S.dm.card_log)
        watcher.wait_verified(last)
    # The round API has read every line before the reorganisation (a
    # rotation may have had it load again): it sees the rewind happen.
    api.wait_height(json.loads(open(S.dm.card_log, "rb").read().splitlines()[-1])["height"], 30)
    depth = a.height() - fork
    a.reorg(depth)
    a.rpc("evm_mine")
    try:
        rc = S.dm.wait_exit(15)
    except TimeoutError:
        rc = None
    S.dm.stop()
    R.report(rc == 3 and all(v == "confirmed" for v in paid.values()),
             "reorg: both refunds paid, then a reorganisation of depth %d stops the daemon"
             % depth, "exit %s; %s" % (rc, paid))
    rep = subprocess.run([R.hashjack, "reorg", "-c", S.dm.conf], capture_output=True,
                         text=True, timeout=60)
    R.report(rep.returncode == 1 and "fork point      block %d" % fork in rep.stdout
             and "1 confirmed (2222)" in rep.stdout,
             "reorg: hashjack reorg names the fork point and refund B, paid",
             rep.stdout[-600:] + rep.stderr[-300:])
    if rotate:
        # The boundary's file compressed: its lines are not read, the fork
        # point not found, nothing changed.  Uncompressed again (another
        # inode than the one the cursor names), it is found by its lines.
        cursor = S.q("SELECT height, log_offset FROM cursor")
        subprocess.run(["gzip", rotated], check=True)
        first = json.loads(open(S.dm.card_log + ".1", "rb").readline())["height"]
        rf = subprocess.run([R.hashjack, "reorg", "-c", S.dm.conf, "--rewind"],
                            capture_output=True, text=True, timeout=60)
        subprocess.run(["gunzip", rotated + ".gz"], check=True)
        R.report(rf.returncode == 65 and ("the fork point is before block %d, the first line read"
                                          % first) in rf.stderr
                 and S.q("SELECT height, log_offset FROM cursor") == cursor
                 and not any(".rewound-" in f for f in os.listdir(os.path.dirname(S.dm.card_log))),
                 "reorg: --rewind with the boundary's file compressed: refused, nothing changed",
                 "exit %s: %s" % (rf.returncode, rf.stderr[-600:]))
    log_before = b"".join(open(f, "rb").read() for f in
                          ([rotated, S.dm.card_log + ".1"] if rotate else []) + [S.dm.card_log])
    rw = subprocess.run([R.hashjack, "reorg", "-c", S.dm.conf, "--rewind"],
                        capture_output=True, text=True, timeout=60)
    m = re.search(r"rewound to block (\d+) .*\n.*kept aside in (\S+);", rw.stdout)
    to = int(m.group(1)) if m else None
    aside = open(m.group(2), "rb").read() if m and os.path.exists(m.group(2)) else b""
    log_after = open(S.dm.card_log, "rb").read()
    orphans = S.q("SELECT id, state FROM payouts WHERE orphaned IS NOT NULL")
    R.report(rw.returncode == 0 and to is not None and to < hA
             and log_after + aside == log_before
             and json.loads(aside.split(b"\n")[0])["height"] == to + 1
             and "2 paid or in flight kept, orphaned (3333 wei)" in rw.stdout
             and len(orphans) == 2 and S.q("SELECT height FROM cursor") == [(to,)]
             and (not rotate or ("%s, which logrotate had renamed it to, is the card log again" % rotated
                                 in rw.stdout and not os.path.exists(rotated)
                                 and "%s.1 removed: its lines are aside" % S.dm.card_log in rw.stdout
                                 and not os.path.exists(S.dm.card_log + ".1"))),
             "reorg: --rewind goes back below refund A, keeps the log's lines aside, "
             "orphans both payouts" + (" (the oldest of three files the card log again)" if rotate else ""),
             "%s%s; orphans %s" % (rw.stdout[-900:], rw.stderr[-300:], orphans))
    # The kept-aside lines verified: those up to the fork point agree, the
    # next names a block that left the chain (status 3).
    vrc, vout, verr = verify(R.hashjack, S.dm.conf, m.group(2)) if m else (None, "", "")
    R.report(vrc == 3 and ("block %d: the log's block is " % (fork + 1)) in vout
             and ("both after block %d: the log leaves your node's chain there, the fork point" % fork) in vout
             and ("verified blocks %d to %d: every line agrees" % (to + 1, fork)) in vout,
             "reorg: verify on the lines kept aside names the fork point", "exit %s: %s%s"
             % (vrc, vout[-700:], verr[-300:]))
    mark = len(S.dm.stderr())
    S.start()
    S.expect.pop("refund:" + tB[2:])
    S.settle_wait(timeout=90)
    # The round API, never restarted, serves the new log: its last block
    # and the new branch's first block, byte for byte.
    lines = open(S.dm.card_log, "rb").read().splitlines()
    top = json.loads(lines[-1])["height"]
    try:
        api.wait_height(top, 30)
        st, got = api.get("/v1/blocks/%d" % (fork + 1))
    except (HarnessError, TimeoutError) as e:
        st, got = None, str(e).encode()
    want = [ln for ln in lines if json.loads(ln)["height"] == fork + 1]
    said = api.stderr()
    R.report(st == 200 and want and got.rstrip(b"\n") == want[0] and api.height() >= top
             and (not rotate or "the log went back (a dealer's rewind after a reorganisation" in said),
             "reorg: hashjack serve, running throughout, serves the new branch's blocks",
             "status %s: %s; want %s; serve's stderr %s" % (st, got[:200], want[:1],
                                                            said[-600:]))
    api.stop()
    # The watcher sees the log cut and written again with another block
    # after the fork point: it ends with status 3, to be started again.
    if watcher:
        try:
            wrc = watcher.proc.wait(30)
        except subprocess.TimeoutExpired:
            wrc = watcher.stop()
        for t in watcher.threads:
            t.join(10)
        R.report(wrc == 3 and ("block %d: the log was cut and written again with another block" % (fork + 1))
                 in watcher.out and "whose fork point is block %d" % fork in watcher.out,
                 "reorg: verify --follow says the log was rewound, and where", "exit %s: %s | %s"
                 % (wrc, watcher.out[-600:], watcher.err[-300:]))
    orphans = S.q("SELECT id, state, orphaned FROM payouts WHERE orphaned IS NOT NULL")
    R.report(orphans == [("refund:" + tB[2:], "confirmed", to)],
             "reorg: refund A taken back when its block is dealt again; refund B, gone "
             "from the chain, stays orphaned and paid: the dealer's loss",
             "%s; %s" % (orphans, S.err_since(mark)[-400:]))
    # The loss said apart: status (text and JSON) and the ledger's rows.
    st = subprocess.run([R.hashjack, "status", "-c", S.dm.conf], capture_output=True, text=True, timeout=60)
    sj = subprocess.run([R.hashjack, "status", "-c", S.dm.conf, "--json"], capture_output=True, text=True,
                        timeout=60)
    lj = subprocess.run([R.hashjack, "ledger", "-c", S.dm.conf, "--json"], capture_output=True, text=True,
                        timeout=60)
    lt = subprocess.run([R.hashjack, "ledger", "-c", S.dm.conf], capture_output=True, text=True, timeout=60)
    rows = [json.loads(l) for l in lj.stdout.splitlines()] if lj.returncode == 0 else []
    said = {r["id"]: r["orphaned"] for r in rows}
    mx = S.dm.metrics()[0]
    R.report(re.search(r"^  orphaned +1 payout, 2222 wei \(.*\): sent for blocks that left the chain$", st.stdout, re.M)
             and sj.returncode == 0 and json.loads(sj.stdout)["orphaned"] == {"count": 1, "amount": "2222"}
             and said.get("refund:" + tB[2:]) == to
             and sum(1 for v in said.values() if v is not None) == 1
             and re.search(r"^of which orphaned +1 +2222 ", lt.stdout, re.M)
             and metric(mx, "hashjackd_orphaned_payouts") == 1
             and metric(mx, "hashjackd_orphaned_amount") == 2222,
             "reorg: status, the ledger and /metrics say the orphaned payout apart",
             st.stdout[-700:] + sj.stdout[-300:] + lt.stdout[-600:] + st.stderr + lj.stderr)
    v = subprocess.run([R.hashjack, "verify", "-c", S.dm.conf], capture_output=True,
                       text=True, timeout=120)
    R.report(v.returncode == 0, "reorg: the card log verifies against the new chain",
             v.stdout[-300:] + v.stderr[-300:])
    S.expect["refund:" + tB[2:]] = (p[1].address, 2222)
    check_paid(R, S, "reorg", S.expect, balances=S.initial)


def refusals(R):
    S = PaySession(R, "refusals", players=4, conf=1)
    a = S.a
    S.begin()

    # (a) insufficient funds
    a.rpc("anvil_setBalance", S.dealer, "0x0")
    for p in S.players[:3]:
        S.refund(p, random.randrange(100, MIN_BET), kind="bet")
    mark = checks.stderr_size(S.dm)
    a.mine()
    checks.wait_log_height(S.dm, a.height(), 30)

    def refused():
        rows = S.payouts()
        errs = [r for r in rows.values() if r["last_error"]]
        return len(rows) == 3 and all(r["state"] == "owed" for r in rows.values()) and \
            errs and "payouts: the node refused" in S.err_since(mark) and errs
    errs = wait_cond(refused, 15, "the refusal")
    planned = [b for b in S.batches().values() if b["state"] == "planned"]
    R.report(bool(errs) and all("Insufficient funds" in r["last_error"] for r in errs)
             and len(planned) == 1,
             "refusals: too little ETH: the node refuses, payouts owed with its message",
             ("%d owed; last_error %r; batch %d stays planned"
              % (len(S.payouts()), errs[0]["last_error"], planned[0]["id"]))
             if errs and planned else "payouts %s; batches %s; stderr %s" % (
                 list(S.payouts().values())[:3], list(S.batches().values()),
                 S.err_since(mark)[-600:]))
    # The balance covers what is owed (the refunded values arrived) but not
    # the gas: the warning must come from the refusal itself.
    bal = a.balance(S.dealer)
    owed = sum(v for _, v in S.expect.values())
    got = wait_cond(lambda: "INSUFFICIENT FUNDS" in S.err_since(mark) and
                    any("INSUFFICIENT FUNDS" in x for x in S.notify.read()), 5,
                    "INSUFFICIENT FUNDS")
    st = [x for x in S.notify.read() if "payouts:" in x]
    R.report(bool(got), "refusals: refused for funds (balance %d >= owed %d, gas not "
             "covered): stderr and STATUS say INSUFFICIENT FUNDS" % (bal, owed),
             (lines_with(S.err_since(mark), "INSUFFICIENT FUNDS") or [""])[0][:200]
             if got else "no INSUFFICIENT FUNDS within 5 s; stderr:\n%s\n      last STATUS %s"
             % (S.err_since(mark)[-700:], st[-1:]))

    mark = checks.stderr_size(S.dm)
    a.rpc("anvil_setBalance", S.dealer, "0x1")
    a.mine()
    got = wait_cond(lambda: "INSUFFICIENT FUNDS" in S.err_since(mark) and
                    any("INSUFFICIENT FUNDS" in x and "holds 1 wei" in x
                        for x in S.notify.read()), 10, "INSUFFICIENT FUNDS")
    rows = S.payouts()
    row = S.q("SELECT amount, warning FROM dealer_balance")
    R.report(bool(got) and all(r["state"] == "owed" for r in rows.values()) and
             row and row[0][0] == "1" and "INSUFFICIENT FUNDS" in (row[0][1] or ""),
             "refusals: balance 1 wei, below what is owed: stderr, STATUS and the "
             "dealer_balance row say INSUFFICIENT FUNDS",
             (lines_with(S.err_since(mark), "INSUFFICIENT FUNDS") or [""])[0][:200]
             if got else "stderr:\n%s\n      last STATUS %s"
             % (S.err_since(mark)[-700:], S.notify.read()[-1:]))
    mark = checks.stderr_size(S.dm)
    a.rpc("anvil_setBalance", S.dealer, hex(10 * ETHER))
    try:
        rows = S.settle_wait(expect_n=3, timeout=30)
        b = S.batches()
        R.report(all(r["state"] == "confirmed" for r in rows.values()) and
                 "funds suffice again" in S.err_since(mark),
                 "refusals: funded: paid, the warning lifted",
                 "%d payouts in %d batches; %s" % (len(rows), len(b), (lines_with(
                     S.err_since(mark), "funds suffice") or ["no 'funds suffice' line"])[0]))
    except Failed as e:
        R.report(False, "refusals: funded: paid, the warning lifted", str(e))

    # (b1) a fee cap below the base fee: refused; the cap raised by a restart
    fee_cap_raised(R, S)
    # (b2) the base fee falls below the cap
    fee_falls(R, S)
    # an open round's worst case above the balance
    exposure(R, S)

    rc = S.dm.stop()
    R.report(rc == 0, "refusals: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    check_paid(R, S, "refusals", S.expect, balances=S.initial)
    errs = checks.error_lines(S.dm.stderr())
    R.report(not errs, "refusals: no error on stderr", errs[0] if errs else "")


def exposure(R, S):
    """Nothing owed, but an open round's worst case above the dealer's
    balance: INSUFFICIENT FUNDS; funded: lifted.  The round stays open (too
    few blocks for it to settle): it owes nothing."""
    a = S.a
    checks.wait_log_height(S.dm, S.processed(), 30)
    stake = 10 ** 15
    a.send(S.players[3], S.dealer, BET, stake)
    a.mine()
    checks.wait_log_height(S.dm, S.processed(), 30)
    mark = checks.stderr_size(S.dm)
    a.rpc("anvil_setBalance", S.dealer, hex(stake))
    a.mine()
    pat = re.compile(r"INSUFFICIENT FUNDS: the dealer 0x[0-9a-f]{40} holds %d wei, below owed "
                     r"0 \+ in flight 0 \+ open rounds' worst case (\d+) = (\d+)" % stake)

    def warned():
        m = pat.search(S.err_since(mark))
        return m and any(pat.search(x) for x in S.notify.read()) and m
    m = wait_cond(warned, 10, "INSUFFICIENT FUNDS")
    R.report(bool(m) and int(m[1]) > stake,
             "refusals: an open round's worst case above the balance: INSUFFICIENT FUNDS",
             m[0][:200] if m else "stderr:\n%s" % S.err_since(mark)[-600:])
    mark = checks.stderr_size(S.dm)
    a.rpc("anvil_setBalance", S.dealer, hex(10 * ETHER))
    a.mine()
    got = wait_cond(lambda: "funds suffice again" in S.err_since(mark), 10, "the warning lifted")
    R.report(bool(got), "refusals: funded again: the warning lifted",
             (lines_with(S.err_since(mark), "funds suffice") or [""])[0])


def base_fee(a):
    return int(a.block("pending", full=False)["baseFeePerGas"], 16)


def high_fee_refunds(S, fee, who):
    """Refunds to who mined with the daemon paused, then the next block's
    base fee set to fee: the daemon's first pass on them sees it."""
    a = S.a
    for p in who:
        S.refund(p, random.randrange(100, MIN_BET), kind="bet")
    os.kill(S.dm.proc.pid, signal.SIGSTOP)
    try:
        a.mine()
        a.rpc("anvil_setNextBlockBaseFeePerGas", hex(fee))
    finally:
        os.kill(S.dm.proc.pid, signal.SIGCONT)


def fee_cap_raised(R, S):
    a = S.a
    n0 = len(S.payouts())
    b0 = max(S.batches() or [0])
    mark = checks.stderr_size(S.dm)
    high_fee_refunds(S, 1000 * GWEI, S.players[:1])

    def refused():
        rows = [r for r in S.payouts().values() if r["last_error"]]
        return len(S.payouts()) == n0 + 1 and rows and rows
    rows = wait_cond(refused, 15, "the refusal")
    msg = (lines_with(S.err_since(mark), "payouts: the node refused") or [""])[0]
    R.report(bool(rows) and "max fee per gas less than block base fee" in rows[0]["last_error"]
             and "max fee per gas less than block base fee" in msg,
             "refusals: max_fee_per_gas 100 gwei below a base fee of 1000 gwei: refused, "
             "owed with the node's message",
             msg[:230] if rows else "payouts %s; stderr %s" % (
                 list(S.payouts().values())[-2:], S.err_since(mark)[-600:]))
    bid = max(S.batches())
    att0 = S.batches()[bid]["attempts"]
    a.mine()            # a block: sent again, refused again (base fee ~875 gwei)
    ok = wait_cond(lambda: S.batches()[bid]["attempts"] > att0, 10, "a retry")
    b = S.batches()[bid]
    R.report(bool(ok) and b["state"] == "planned" and S.payouts() and
             all(r["state"] == "owed" for r in S.payouts().values() if r["last_error"]),
             "refusals: retried at the next block, still owed",
             "batch %d: %d attempts, base fee now %d gwei" % (bid, b["attempts"],
                                                              base_fee(a) // GWEI))
    # Restart with a higher cap: the planned batch is re-signed (a second
    # version, same nonce) and paid.
    S.dm.stop()
    S.dm.overrides = ["--payout.max_fee_per_gas=%d" % (5000 * GWEI)]
    mark = checks.stderr_size(S.dm)
    try:
        S.start()
        rows = S.settle_wait(expect_n=n0 + 1, timeout=30)
        vs = S.versions(bid)
        b = S.batches()[bid]
        dec = [decode_1559(v["raw"]) for v in vs]
        same = len({(d["nonce"], d["to"], d["value"], d["gas"]) for d in dec}) == 1
        R.report(b["state"] == "confirmed" and b["id"] > b0 and len(vs) == 2 and same and
                 dec[1]["max_fee"] > dec[0]["max_fee"] and b["txid"] == vs[1]["hash"],
                 "refusals: a restart with max_fee_per_gas 5000 gwei re-signs it: paid once",
                 "batch %d: versions max_fee %s gwei, the second mined, nonce %d"
                 % (bid, [d["max_fee"] // GWEI for d in dec], b["nonce"]))
    except Failed as e:
        R.report(False, "refusals: a restart with max_fee_per_gas 5000 gwei re-signs it: "
                 "paid once", str(e))
    S.dm.stop()
    S.dm.overrides = []
    S.start()


def fee_falls(R, S):
    a = S.a
    old = set(S.payouts())
    n0 = len(old)
    mark = checks.stderr_size(S.dm)
    checks.wait_log_height(S.dm, S.processed(), 30)
    high_fee_refunds(S, 400 * GWEI, S.players[1:3])
    ok = wait_cond(lambda: len(S.payouts()) == n0 + 2 and
                   "max fee per gas less than block base fee" in S.err_since(mark), 15,
                   "the refusal")
    fees = []
    blocks = 0
    try:
        if not ok:
            raise Failed("no refusal: %s" % S.err_since(mark)[-600:])

        def mine():
            nonlocal blocks
            fees.append(base_fee(a) // GWEI)
            blocks += 1
            a.mine()
        # While the next block's base fee is above the cap nothing can be
        # paid; each block is a retry.
        new = set(S.payouts()) - old
        while True:
            mine()
            checks.wait_log_height(S.dm, S.processed(), 30)
            time.sleep(0.2)
            if base_fee(a) <= DEFAULT_CAP:
                break
            rows = S.payouts()
            if any(rows[k]["state"] != "owed" for k in new):
                raise Failed("paid with the next base fee at %d gwei, above the cap: %s"
                             % (base_fee(a) // GWEI, [rows[k]["state"] for k in new]))
            if blocks > 40:
                raise Failed("the base fee does not fall: %s" % fees[-5:])
        above = blocks
        bid = min(b["id"] for b in S.batches().values()
                  if set(S.q("SELECT payout FROM payout_batch_items WHERE batch = ?",
                             (b["id"],))) & {(k,) for k in new})
        attempts = S.batches()[bid]["attempts"]
        rows = S.settle_wait(expect_n=n0 + 2, timeout=30, mine=mine)
        R.report(True, "refusals: base fee 400 gwei above the 100 gwei cap: owed and retried "
                 "each block until it falls below, then paid once",
                 "refused at %d blocks (base fee gwei %s), batch %d refused %d times, paid "
                 "after %d more blocks" % (above, fees[:2] + ["..."] + fees[above - 2:above],
                                           bid, attempts, blocks - above))
    except Failed as e:
        R.report(False, "refusals: base fee 400 gwei above the 100 gwei cap: owed and retried "
                 "until it falls below, then paid once", str(e))


# --------------------------------------------------------------------------
# 4. stuck: a payout dropped from the pool is replaced with higher fees

def stuck(R):
    S = PaySession(R, "stuck", players=2, conf=1, payout={"stuck_after": 2})
    a = S.a
    S.begin()
    who = S.players[0]
    S.refund(who, 777, kind="bet")
    a.mine()
    try:
        wait_until(lambda: S.dealer_pool(), 15, "the payout transaction in the pool")
        t_sent = time.monotonic()
        [v1] = S.versions()
        pool = S.dealer_pool()
        check(pool == [v1["hash"]], "pool %s, version 1 %s" % (pool, v1["hash"]))
        a.rpc("anvil_dropTransaction", v1["hash"])
        check(not S.dealer_pool(), "still in the pool after anvil_dropTransaction")
        # A block at once: not stuck yet.
        a.mine()
        checks.wait_log_height(S.dm, a.height(), 10)
        time.sleep(0.3)
        early = len(S.versions())
        early_t = time.monotonic() - t_sent
        # signed_at has whole seconds: the pass must come within 1 s of
        # the signature for "below stuck_after" to be sure.
        R.report((early == 1 and not S.dealer_pool()) or early_t > 0.9,
                 "stuck: a block %.1fs after sending (below stuck_after 2 s): no replacement"
                 % early_t, "%d version(s)%s" % (early, "" if early_t <= 0.9 else
                                                  " (not conclusive: the machine is slow)"))
        time.sleep(max(0, 3.2 - (time.monotonic() - t_sent)))
        mark = checks.stderr_size(S.dm)
        a.mine()
        wait_until(lambda: len(S.versions()) == 2 and S.dealer_pool(), 10,
                   "a replacement")
        v1, v2 = S.versions()
        d1, d2 = decode_1559(v1["raw"]), decode_1559(v2["raw"])
        line = (lines_with(S.err_since(mark), "replaced with higher fees") or [""])[0]
        same = all(d1[k] == d2[k] for k in ("nonce", "to", "value", "gas", "chain_id"))
        higher = d2["max_fee"] >= d1["max_fee"] + d1["max_fee"] // 8 + 1 and \
            d2["tip"] >= d1["tip"] + d1["tip"] // 8 + 1
        R.report(same and higher and line and S.dealer_pool() == [v2["hash"]] and
                 (v2["max_fee"], v2["tip"]) == (d2["max_fee"], d2["tip"]),
                 "stuck: after stuck_after a replacement: same nonce, recipient, value; fees "
                 "up by at least 1/8",
                 "%s; max fee %d -> %d, tip %d -> %d wei" % (
                     line[:110], d1["max_fee"], d2["max_fee"], d1["tip"], d2["tip"]))
        rows = S.settle_wait(expect_n=1, timeout=20)
        [b] = S.batches().values()
        R.report(b["state"] == "confirmed" and b["txid"] == v2["hash"],
                 "stuck: the replacement is mined and confirmed",
                 "batch %d: %s in block %s" % (b["id"], b["txid"][:18], b["confirmed"]))
    except (Failed, TimeoutError, HarnessError, ValueError) as e:
        R.report(False, "stuck: replacement of a dropped payout",
                 "%s\n%s" % (e, S.dm.stderr()[-1200:]))
    rc = S.dm.stop()
    R.report(rc == 0, "stuck: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    check_paid(R, S, "stuck", S.expect, balances=S.initial)
    errs = checks.error_lines(S.dm.stderr())
    R.report(not errs, "stuck: no error on stderr", errs[0] if errs else "")


# --------------------------------------------------------------------------
# 5. foreign: the nonce taken by a transaction the daemon did not sign

def foreign(R):
    S = PaySession(R, "foreign", players=2, conf=2)
    a = S.a
    S.begin()
    who = S.players[0]
    other = S.spare[0]
    S.refund(who, 555, kind="bet")
    S.refund(who, 444, kind="hit")
    a.mine()
    a.mine()          # final at confirmations 2
    try:
        wait_until(lambda: S.dealer_pool(), 15, "the payout transaction in the pool")
        [b1] = S.batches().values()
        [v1] = S.versions()
        a.rpc("anvil_dropTransaction", v1["hash"])
        check(not S.dealer_pool(), "still in the pool after anvil_dropTransaction")
        f = cast_send(a, S.dealer_acct, other.address, 1, b1["nonce"])
        S.foreign.append(f)
        a.mine()
        h = a.height()
        check(a.receipt(f) is not None, "the foreign transaction was not mined")
        checks.wait_log_height(S.dm, h - 1, 10)
        time.sleep(0.5)
        st = S.batches()[b1["id"]]["state"]
        R.report(st == "sent", "foreign: nonce %d taken in block %d, not final yet: the batch "
                 "waits" % (b1["nonce"], h), "batch %d %s" % (b1["id"], st))
        mark = checks.stderr_size(S.dm)
        a.mine()
        wait_until(lambda: S.batches()[b1["id"]]["state"] == "reverted", 10,
                   "the batch to be reverted")
        line = (lines_with(S.err_since(mark), "owed again") or [""])[0]
        rows = S.payouts()
        R.report("nonce %d was taken" % b1["nonce"] in line and
                 S.batches()[b1["id"]]["last_error"],
                 "foreign: once final the batch is reverted, its payouts owed again",
                 line[:200])
        rows = S.settle_wait(expect_n=2, timeout=30)
        bs = S.batches()
        new = [b for b in bs.values() if b["state"] == "confirmed"]
        R.report(len(new) == 1 and new[0]["nonce"] == b1["nonce"] + 1 and
                 all(r["nonce"] == b1["nonce"] + 1 for r in rows.values()),
                 "foreign: paid again under the next nonce",
                 "batch %d: nonce %d, %d wei" % (new[0]["id"], new[0]["nonce"], new[0]["total"])
                 if new else "%s" % list(bs.values()))
    except (Failed, TimeoutError, HarnessError) as e:
        R.report(False, "foreign: a nonce taken by another transaction",
                 "%s\n%s" % (e, S.dm.stderr()[-1200:]))
    rc = S.dm.stop()
    R.report(rc == 0, "foreign: hashjackd exits 0 on SIGTERM", "status %s" % rc)
    check_paid(R, S, "foreign", S.expect, foreign=S.foreign, balances=S.initial)
    errs = [l for l in checks.error_lines(S.dm.stderr()) if "owed again" not in l]
    R.report(not errs, "foreign: no error on stderr but the reversal", errs[0] if errs else "")


# --------------------------------------------------------------------------
# 6. verify: `hashjack verify --payouts` over the dealer's log

def verify_scenario(R):
    S = PaySession(R, "verify", players=4, conf=2)
    a = S.a
    p = S.players
    S.begin()
    S.refund(p[0], 555, kind="bet")
    S.refund(p[1], 777, kind="hit")
    S.refund(p[2], 999, kind="bet")
    S.settle_wait(expect_n=3, timeout=30)
    check_paid(R, S, "verify", S.expect)
    # Every debt paid and final: even, exit 0.
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log,
                                              "--grace", "0")
    owed, unat = checks.log_debts(S.dm.card_log)
    want = collections.Counter()
    for to, v in S.expect.values():
        want[to.lower()] += v
    bad = checks.payouts_problems(rep, owed, owed)
    R.report(rc == 0 and not bad and owed == want and not unat,
             "verify: every recipient even once paid (exit 0)",
             "%d recipients, %d wei" % (len(owed), sum(owed.values())) if rc == 0 and not bad
             and owed == want else "exit %d, %s; log %s, ledger %s; %s" %
             (rc, bad[:3], owed, want, err.strip()[-300:]))
    # The daemon runs without [payout] for a while: what it owes then is
    # in the log and not paid.  The dealer key sends p2 100 wei of its own.
    S.dm.stop()
    S.start("--payout.dealer_key=")
    S.refund(p[1], 876, kind="bet")      # below min_bet
    S.refund(p[3], 4321, kind="hit")
    a.mine()
    nonce = int(a.rpc("eth_getTransactionCount", S.dealer, "pending"), 16)
    cast_send(a, S.dealer_acct, p[2].address, 100, nonce)
    a.mine()
    a.mine()
    checks.wait_log_height(S.dm, S.processed(), 30)
    S.dm.stop()
    owed, _ = checks.log_debts(S.dm.card_log)
    got = {p[0].address: 555, p[1].address: 777, p[2].address: 999 + 100}
    got = {k.lower(): v for k, v in got.items()}
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log,
                                              "--grace", "0")
    bad = checks.payouts_problems(rep, owed, got)
    short = sorted(r["recipient"] for r in (rep or {}).get("recipients", [])
                   if r["status"] == "short")
    R.report(rc == 1 and not bad and short == sorted([p[1].address.lower(),
                                                     p[3].address.lower()])
             and rep["missing"] == str(876 + 4321) and rep["excess"] == "100",
             "verify: the debts left unpaid are short (exit 1), p2 over",
             "%s short, missing %s; %d over by %s" % (len(short), rep["missing"], rep["over"],
                                                     rep["excess"]) if rc == 1 and not bad
             else "exit %d, %s; %s" % (rc, bad[:3], err.strip()[-300:]))
    # Within the default grace period (100 blocks) nothing is due yet.
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log)
    bad = checks.payouts_problems(rep, {}, got, later=owed)
    R.report(rc == 0 and not bad and rep["grace"] == 100 and rep["due"] is None,
             "verify: within the default grace (100 blocks) nothing is due",
             "%d even, %d over" % (rep["even"], rep["over"]) if rc == 0 and not bad
             else "exit %d, %s; %s" % (rc, bad[:3], err.strip()[-300:]))
    # A grace that reaches back just past the unpaid debts' block.
    last = read_cardlog(S.dm.card_log)[-1]["height"]
    unpaid_at = [ln["height"] for ln in read_cardlog(S.dm.card_log)
                 if any(e.get("refund") == "4321" for e in ln["events"])][0]
    final = a.height() - 1
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log,
                                              "--grace", str(final - unpaid_at + 1))
    early = {k: v for k, v in owed.items() if k != p[3].address.lower()}
    early[p[1].address.lower()] = 777
    bad = checks.payouts_problems(rep, early, got,
                                  later={p[1].address.lower(): 876,
                                         p[3].address.lower(): 4321})
    R.report(rc == 0 and not bad and rep["due"] == unpaid_at - 1,
             "verify: a debt counts once its block is final + grace",
             "due up to block %d of %d" % (rep["due"], last) if rc == 0 and not bad
             else "exit %d, %s; %s" % (rc, bad[:3], err.strip()[-300:]))
    # The text report.
    pr = subprocess.run([R.hashjack, "verify", "-c", S.dm.conf, "--card-log", S.dm.card_log,
                         "--payouts", "--grace", "0"], capture_output=True, text=True,
                        timeout=120)
    lines = pr.stdout.splitlines()
    rows = [ln.split() for ln in lines if ln.startswith("  ") and "0x" in ln]
    ok = pr.returncode == 1 and lines[0].startswith("verified blocks ") and \
        lines[1].startswith("payouts (amounts in wei): log blocks ") and \
        [r[0] for r in rows] == ["short", "short", "even", "over"] and \
        rows[0][1:] in ([p[1].address.lower(), "1653", "0", "777", "-876"],
                        [p[3].address.lower(), "4321", "0", "0", "-4321"]) and \
        "4 recipients: 2 short (5197 missing), 1 even, 1 over (100 beyond what the log owes)" \
        in pr.stdout
    R.report(ok, "verify: the text report, short first", lines[-1] if ok else pr.stdout[-600:])
    # Paid at last: even again; the foreign 100 wei stay over, which is no
    # failure.
    S.start()
    S.settle_wait(expect_n=5, timeout=30)
    S.dm.stop()
    got[p[1].address.lower()] += 876
    got[p[3].address.lower()] = 4321
    rc, rep, out, err = checks.verify_payouts(R.hashjack, S.dm.conf, S.dm.card_log,
                                              "--grace", "0")
    bad = checks.payouts_problems(rep, owed, got)
    R.report(rc == 0 and not bad and rep["short"] == 0 and rep["over"] == 1,
             "verify: paid later: even, the extra 100 wei over (exit 0)",
             "%d even, %d over" % (rep["even"], rep["over"]) if rc == 0 and not bad
             else "exit %d, %s; %s" % (rc, bad[:3], err.strip()[-300:]))


# --------------------------------------------------------------------------
# 7. key: the key file's mode and address; --check-config

def key(R):
    wd = os.path.join(R.workdir, "key")
    os.makedirs(wd, exist_ok=True)
    a = Anvil(workdir=os.path.join(wd, "anvil"), keep_state=False, accounts=3).start()
    try:
        dealer, other = a.accounts[0], a.accounts[1]
        secrets = [dealer.key[2:].lower(), other.key[2:].lower()]

        def daemon(name, key_path, payout=None):
            pay = {"dealer_key": key_path}
            pay.update(payout or {})
            return Hashjackd(R.hashjackd, a, dealer.address, MIN_BET, MAX_BET, TIMEOUT,
                             workdir=os.path.join(wd, name), extra={"payout": pay})

        def leaks(*texts):
            return any(s in t.lower() for s in secrets for t in texts)

        def refused(name, key_path):
            """--check-config, then a start, with this key: (the check's
            status, stdout and stderr, the start's exit status and stderr)."""
            dm = daemon(name, key_path)
            rc, out, err = dm.check_config()
            dm.start()
            try:
                rc2 = dm.wait_exit(15)
            except TimeoutError:
                dm.stop()
                rc2 = "still running"
            return rc, out, err, rc2, dm.stderr()

        # mode 0644
        p = write_key(os.path.join(wd, "open.key"), dealer.key, 0o644)
        rc, out, err, rc2, err2 = refused("open", p)
        want = "chmod 600 %s" % p
        R.report(rc == 78 and rc2 == 78 and want in err and want in err2 and
                 "0644" in err2 and not leaks(out, err, err2),
                 "key: mode 0644: exit 78 naming the chmod (start and --check-config)",
                 "%s, %s: %s" % (rc, rc2, (lines_with(err2, "chmod") or [err2])[0][:200]))
        # another address's key
        p = write_key(os.path.join(wd, "other.key"), other.key)
        rc, out, err, rc2, err2 = refused("other", p)
        R.report(rc == 78 and rc2 == 78 and all(x in e.lower() for x in
                                                (dealer.address, other.address)
                                                for e in (err, err2))
                 and not leaks(out, err, err2),
                 "key: a key of another address: exit 78 naming both addresses",
                 "%s, %s: %s" % (rc, rc2, err2.strip().splitlines()[-1][:220]
                                 if err2.strip() else "(no stderr)"))
        # --check-config with a good key
        p = write_key(os.path.join(wd, "dealer.key"), dealer.key)
        dm = daemon("good", p, {"max_fee_per_gas": 123 * GWEI, "min_priority_fee": 2 * GWEI,
                                "stuck_after": 45})
        rc, out, err = dm.check_config()
        line = (lines_with(out, "payouts:") or [""])[0]
        want = ("payouts: signed with the key %s (its address is the dealer's), fees at most "
                "%d wei per gas, tip at least %d, replaced when unmined for 45 s, "
                "min_refund auto" % (p, 123 * GWEI, 2 * GWEI))
        R.report(rc == 0 and line == want and not leaks(out, err),
                 "key: --check-config prints the payouts line", line or out[-300:])
        dm = daemon("default", p)
        rc, out, err = dm.check_config()
        line = (lines_with(out, "payouts:") or [""])[0]
        R.report(rc == 0 and "fees at most %d wei per gas, tip at least %d, replaced when "
                 "unmined for 300 s" % (DEFAULT_CAP, GWEI) in line,
                 "key: --check-config shows the defaults (100 gwei, 1 gwei, 300 s)", line)
    finally:
        a.stop()


# --------------------------------------------------------------------------

class Runner(checks.PayoutRunner):
    WIDTH = 70


SCENARIOS = ("session", "kills", "refusals", "small", "sweep", "reorg", "reorg_rotated", "stuck", "foreign",
             "verify", "key")


def main():
    args = checks.payout_args(__doc__, "only scenarios whose name contains this (%s)"
                              % ", ".join(SCENARIOS), 360)
    install_cleanup(args.timeout)
    find_tool("anvil")
    wd = checks.WorkDir("hj-e2e-payouts-", args.keep)
    t0 = time.monotonic()
    print("seed %d" % args.seed, flush=True)
    random.seed(args.seed)
    R = Runner(args, wd.path)
    fns = {"session": session, "kills": lambda r: kills(r, args.kills), "refusals": refusals,
           "small": small, "sweep": sweep, "reorg": reorg,
           "reorg_rotated": lambda R: reorg(R, rotate=True), "stuck": stuck, "foreign": foreign, "verify": verify_scenario, "key": key}
    try:
        for name in SCENARIOS:
            if args.only and not any(k in name for k in args.only):
                continue
            t1 = time.monotonic()
            try:
                fns[name](R)
            except Exception as e:  # noqa: BLE001 - report, go on
                traceback.print_exc()
                R.report(False, "%s: scenario" % name, "%s: %s" % (type(e).__name__, e))
            finally:
                R.close()
                kill_children()
            print("---- %s: %.1fs" % (name, time.monotonic() - t1), flush=True)
    finally:
        R.close()
        kill_children()
        wd.close(R.failed)
    print("%d passed, %d failed (%.0fs, seed %d)" % (R.passed, R.failed,
                                                     time.monotonic() - t0, args.seed))
    return 1 if R.failed or not R.passed else 0


if __name__ == "__main__":
    sys.exit(main())
