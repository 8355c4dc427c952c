#!/usr/bin/env python3
"""Payouts on the Bitcoin family (issue 5, items 2 and 6): hashjackd pays what
the dealer owes through a wallet of a real litecoind in regtest, each payout
exactly once, also across kill -9 (docs/PAYOUTS.md).

    python3 tests/e2e/test_ltc_payouts.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--seed N]

One node; three daemons, one after the other, each with its own dealer
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
           dust.
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

Amounts are integers (litoshis) throughout; coin amounts from the node are
Decimals.  Every wait has a deadline, and so has the whole run; every
process started is stopped.  One line per check, then "N passed, M failed".

What could move into tests/e2e/ltc.py: tr_address() (a key's tr(P) via
`hashjack player address`), Litecoind.utxo_total() (scantxoutset of an
address), wallet_comments() (a wallet's send transactions by comment) and
NotifySocket (systemd's notify protocol, read by a test).
"""

import argparse
import collections
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hj  # noqa: E402
import ltc  # noqa: E402

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
UTXO_SATS = ltc.COIN


class Failed(Exception):
    pass


def bj(s):
    return s + (s * 6) // 5


# --------------------------------------------------------------------------
# Helpers (candidates for the harness)

class NotifySocket:
    """A datagram socket in the role of systemd's $NOTIFY_SOCKET: keeps every
    STATUS= the daemon sends.  Read all the time by a thread, as systemd
    does: the daemon's sendto blocks once the socket's queue is full."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.statuses = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        while not self.stopping:
            try:
                msg = self.sock.recv(65536).decode("utf-8", "replace")
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                for line in msg.split("\n"):
                    if line.startswith("STATUS="):
                        self.statuses.append(line[7:])
                del self.statuses[:-1000]

    def read(self):
        with self.lock:
            return list(self.statuses)

    def close(self):
        self.stopping = True
        self.thread.join(5)
        self.sock.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


class RpcProxy:
    """A TCP proxy in front of the node's RPC port that can lose a sendmany:
    mode "pass" forwards everything; "swallow" never forwards a request
    holding "sendmany" (it never reaches the node: the client waits for an
    answer that never comes); "lose" forwards it and throws the node's
    answer away (the node has sent the transaction, the client never
    learns its txid).  Other requests pass in every mode."""

    def __init__(self, node_port):
        self.node_port = node_port
        self.mode = "pass"
        self.swallowed = self.lost = 0
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.stopping = False
        self.socks = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopping:
            try:
                c, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.socks.append(c)
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    @staticmethod
    def _read_message(sock, buf):
        """One HTTP message (headers and Content-Length body) from sock;
        returns (message, rest) or (None, buf) at the end."""
        while b"\r\n\r\n" not in buf:
            d = sock.recv(65536)
            if not d:
                return None, buf
            buf += d
        head, _, rest = buf.partition(b"\r\n\r\n")
        n = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v.strip())
        while len(rest) < n:
            d = sock.recv(65536)
            if not d:
                return None, buf
            rest += d
        return head + b"\r\n\r\n" + rest[:n], rest[n:]

    def _serve(self, c):
        up = None
        cbuf = ubuf = b""
        try:
            up = socket.create_connection(("127.0.0.1", self.node_port), timeout=60)
            with self.lock:
                self.socks.append(up)
            while not self.stopping:
                req, cbuf = self._read_message(c, cbuf)
                if req is None:
                    return
                mode = self.mode if b'"sendmany"' in req else "pass"
                if mode == "swallow":
                    with self.lock:
                        self.swallowed += 1
                    while c.recv(65536):    # until the client goes away
                        pass
                    return
                up.sendall(req)
                resp, ubuf = self._read_message(up, ubuf)
                if resp is None:
                    return
                if mode == "lose":
                    with self.lock:
                        self.lost += 1
                    while c.recv(65536):
                        pass
                    return
                c.sendall(resp)
        except OSError:
            return
        finally:
            for x in (c, up):
                if x is not None:
                    x.close()

    def close(self):
        self.stopping = True
        self.listener.close()
        with self.lock:
            for x in self.socks:
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                x.close()
        self.thread.join(5)


def utxo_total(node, address):
    """Sum (litoshis) and count of the unspent outputs paying address, from the
    node's UTXO set (confirmed outputs only)."""
    r = node.rpc("scantxoutset", "start", ["addr(%s)" % address], timeout=60)
    if not r.get("success"):
        raise Failed("scantxoutset failed: %r" % r)
    return sum(ltc.coin_to_sats(u["amount"]) for u in r["unspents"]), len(r["unspents"])


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
        args = [action.lower(), "--key", self.p.key, "--genesis", self.S.genesis,
                "--round", self.id, "--seq", str(self.seq if seq is None else seq)]
        if action == "Peek":
            args += ["--insurance", "yes" if insurance else "no"]
        payload = self.S.tool(*args).strip()
        t = self.S.send(self.p, payload, value)
        if seq is None:
            self.seq += 1
        return t


class Session:
    def __init__(self, R, name, node, wallets, payer, confirmations, funded=True,
                 dust=None):
        self.R = R
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
            node.fund(payer, 3 * ltc.COIN)
        self.notify = NotifySocket(os.path.join(self.workdir, "notify.sock"))
        self.dust = dust or DUST
        self.first = node.height() + 1
        self.dm = ltc.daemon(R.hashjackd, node, self.dealer, MIN_BET, MAX_BET,
                             confirmations=confirmations, poll_interval_ms=50,
                             start_height=self.first,
                             workdir=os.path.join(self.workdir, "daemon"),
                             extra={"payout": {"wallet": payer, "dust_limit": dust}})
        self.db_path = os.path.join(self.dm.state_dir, "hashjackd.sqlite")

    # -- tools --------------------------------------------------------------

    def tool(self, *args):
        r = subprocess.run([self.R.hashjack, "player"] + list(args),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 0:
            raise Failed("hashjack player %s: %s" % (args[0], r.stderr.strip()))
        return r.stdout

    def player(self):
        p = Player(self, "%s-p%d" % (self.name, len(self.players) + 1),
                   self.wallets[len(self.players) % len(self.wallets)])
        self.players.append(p)
        return p

    def start(self):
        os.environ["NOTIFY_SOCKET"] = self.notify.path
        try:
            self.dm.start()
        finally:
            del os.environ["NOTIFY_SOCKET"]

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
        """Like ltc.Litecoind.grind, but each try is generateblock with the
        session's own transactions (a payout already in the mempool stays
        there, never mined into a block that is then invalidated), and the
        daemon is paused (SIGSTOP) meanwhile.  Each try is a new tip that
        makes one more block final: a payout sent against a try carries
        the try's height as its locktime (the wallet's anti-fee-sniping),
        and once the try is invalidated the node evicts it from its mempool
        as not final; the wallet then takes its change for unconfirmed
        coins it cannot spend (Insufficient funds) until the daemon's next
        pass sends the evicted transaction again.  That works, but makes
        the session depend on timing; a real chain does not take its tip
        back forty times a second."""
        match = hj.card_matcher(want)
        tip = self.node.height()
        os.kill(self.dm.proc.pid, signal.SIGSTOP)
        try:
            for _ in range(max_tries):
                h = self.node.rpc("generateblock", self.node.fresh_address(),
                                  list(self.pending))["hash"]
                if match(hj.card_of(h)):
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
        try:
            if self.dm.running():
                self.dm.stop()
        finally:
            self.notify.close()


# --------------------------------------------------------------------------
# Checks shared by both sessions

def hexcol(c):
    """A BLOB column as lower-case hex, NULL kept (hex(NULL) is '')."""
    return "CASE WHEN %s IS NULL THEN NULL ELSE lower(hex(%s)) END" % (c, c)


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
        hj.wait_until(dust_waits, 20, "the 3000 refund to be shown below dust")
        got, _ = utxo_total(node, p[6].addr)
        R.report(got == 0, "game: a refund below dust waits, shown in STATUS",
                 "3000 owed, 0 paid; STATUS ...%s" % [x for x in S.notify.read()
                                                      if "below dust" in x][-1][-140:])
    except (TimeoutError, hj.HarnessError) as e:
        R.report(False, "game: a refund below dust waits, shown in STATUS",
                 "%s; last STATUS %s" % (e, S.notify.read()[-1:]))
    # ... until a second refund makes 6100: paid in one output.
    S.refund_bet(p[6], 3100, count=False)
    S.expect[P[6]] += 6100
    S.mine()
    rows = S.settle_wait()
    got, n = utxo_total(node, p[6].addr)
    R.report(got == 6100 and n == 1, "game: dust refunds paid together once above the limit",
             "one output of %d" % got if n == 1 else "%d outputs, %d" % (n, got))
    ok = check_paid(R, S, rows, "rounds")
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
        hj.wait_until(refused, 20, "the refusal to be recorded")
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
    node.fund(S.payer, 2 * ltc.COIN)
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
                hj.wait_until(seen_line, 10, "the payer to log %r" % line, interval=0.0005)
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
        hj.wait_until(submitted, 20, "the refund to be submitted")
        T = S.payouts()[pid]["txid"]
        vin = ltc.parse_tx(w.rpc("gettransaction", T)["hex"])["vin"][0]
        coin = node.rpc("gettxout", vin["txid"], vin["vout"], False)
        value = ltc.coin_to_sats(coin["value"])
        raw = node.rpc("createrawtransaction", [{"txid": vin["txid"], "vout": vin["vout"]}],
                       {w.new_address(): ltc.sats_to_coin(value - 10000)})
        signed = w.rpc("signrawtransactionwithwallet", raw)["hex"]
        mark = len(S.dm.stderr())
        node.rpc("generateblock", node.fresh_address(), [signed])

        def repaid():
            r = S.payouts()[pid]
            return r["state"] == "submitted" and r["txid"] != T
        hj.wait_until(repaid, 30, "the refund to be paid again")
        line = [x for x in S.dm.stderr()[mark:].splitlines() if "owed again" in x]
        states = [b[1] for b in S.batches() if b[2] == T]
        R.report(bool(line) and states == ["reverted"],
                 "faults: a payout conflicted by a final transaction is paid again",
                 (line or ["no log line"])[0][:170])
    except (TimeoutError, hj.HarnessError, KeyError) as e:
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
    proxy = RpcProxy(S.node.port)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url, "--chain.rpc_timeout_ms=1500"]

    def run(name, mode, kill, want, value, who):
        mark = len(S.dm.stderr())
        proxy.mode = mode
        n0 = proxy.swallowed + proxy.lost
        if not S.dm.running():
            S.start()
        S.refund_bet(who, value)
        S.mine()
        try:
            hj.wait_until(lambda: proxy.swallowed + proxy.lost > n0, 20,
                          "the proxy to lose a sendmany")
            if kill:
                S.dm.kill9()
            proxy.mode = "pass"
            if not S.dm.running():
                S.start()
            hj.wait_until(lambda: want in S.dm.stderr()[mark:], 30, repr(want))
            out = S.dm.stderr()[mark:]
            line = [x for x in out.splitlines() if want in x][0]
            R.report(True, "faults: sendmany %s" % name, line[:150])
        except (TimeoutError, hj.HarnessError) as e:
            R.report(False, "faults: sendmany %s" % name,
                     "%s\n%s" % (e, S.dm.stderr()[mark:][-1200:]))
        finally:
            proxy.mode = "pass"

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
    proxy = RpcProxy(node.port)
    R.proxies.append(proxy)
    S.dm.overrides = ["--chain.rpc_url=" + proxy.url]
    S.start()
    node.mine(1)
    S.dm.wait_height(S.first, 30)
    p = S.player()
    proxy.mode = "swallow"
    S.refund_bet(p, 8000)
    S.mine()
    hj.wait_until(lambda: proxy.swallowed >= 1, 20, "the sendmany to be swallowed")
    S.dm.kill9()
    proxy.mode = "pass"
    S.dm.overrides = []
    [(bid, state, _, _, _)] = S.batches()
    comment = "hashjack:%s:%d" % (S.tag(), bid)
    forged = node.wallet(S.payer).rpc("sendmany", "", {p.addr: ltc.sats_to_coin(7999)}, 1,
                                      comment)
    mark = len(S.dm.stderr())
    S.start()
    try:
        hj.wait_until(lambda: "PAYOUTS HALTED" in S.dm.stderr()[mark:] and
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

class Runner:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.hashjack = hj.find_hashjack(args.hashjack)
        self.hashjackd = hj.find_hashjackd(args.hashjackd)
        self.rng = random.Random(args.seed)
        self.passed = self.failed = 0
        self.sessions = []
        self.node = None
        self.wallets = []
        self.proxies = []

    def report(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("%s %-62s %s" % ("ok  " if ok else "FAIL", name, detail), flush=True)

    def setup(self):
        n = self.node = ltc.Litecoind(workdir=os.path.join(self.workdir, "node"))
        n.start()
        n.mine(110)
        amounts = {}
        for i in range(N_WALLETS):
            w = n.create_wallet("w%d" % i)
            self.wallets.append(w.name)
            for a in w.rpc_batch([("getnewaddress", ["", "bech32"])] * UTXOS):
                amounts[a] = ltc.sats_to_coin(UTXO_SATS)
        n.funder_mature(UTXO_SATS * len(amounts) + 20 * ltc.COIN)
        n.wallet(n.FUNDER).rpc("sendmany", "", amounts)
        n.mine(1)

    def close(self):
        for x in self.proxies:
            x.close()
        for S in self.sessions:
            try:
                S.close()
            except Exception:  # noqa: BLE001
                traceback.print_exc()
        if self.node is not None:
            self.node.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only the session whose name contains this (game, faults, halt)")
    ap.add_argument("--kills", type=int, default=30, help="kill -9 rounds (default 30)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=280,
                    help="deadline for the whole run in seconds (default 280)")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    hj.install_cleanup(args.timeout)
    ltc.find_litecoind()
    workdir = tempfile.mkdtemp(prefix="hj-e2e-ltc-payouts-")
    kept = [args.keep]
    hj.add_exit_hook(lambda: kept[0] or shutil.rmtree(workdir, ignore_errors=True))
    t0 = time.monotonic()
    print("seed %d" % args.seed, flush=True)
    R = Runner(args, workdir)
    try:
        R.setup()
        for name, fn in (("game", game), ("faults", lambda r: faults(r, args.kills)),
                         ("halt", halt)):
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
        hj.kill_children()
        if R.failed:
            kept[0] = True
        if kept[0]:
            print("work directory kept: %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print("%d passed, %d failed (%.0fs)" % (R.passed, R.failed, time.monotonic() - t0))
    return 1 if R.failed or not R.passed else 0


if __name__ == "__main__":
    sys.exit(main())
