#!/usr/bin/env python3
"""`hashjack verify` as a watcher runs it (EVM): a dealer's card log checked
against the watcher's own node.

    python3 tests/e2e/test_verify.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [--node anvil|ganache] [--keep] \\
        [--timeout S]

anvil (or ganache, --node ganache: tests/e2e/evm_node.py) mining a block
every 0.3 s, hashjackd dealing on it (bethash, confirmations 1, timeout 4
blocks) and paying with [payout] dealer_key, and scripts/bot.py playing
with four dev accounts until the log holds 60 blocks with settled rounds
and every payout is confirmed; then hashjackd stops and `hashjack verify
-c` with the dealer's configuration runs on the log as written (exit 0,
"every line agrees"), with --payouts (every recipient even: received
exactly what the log owes, read here on its own, and what the dealer's
database paid), and on copies of it,
each tampered once, where it must exit 1 naming the block and what
differs: a card, a payout, a dropped event, a dropped line, a line twice,
a hash from elsewhere, a cut last line, a line that is not JSON; a log
beginning after [chain] start_height is verified after dealing the blocks
before it from the node (and fails without them, when a round was open),
one beginning before it is refused (65).

--follow: one runs beside the dealer from its start, across a logrotate
(the log renamed, hashjackd sent SIGHUP), and must have verified every
block, with no failure, when stopped (SIGTERM: exit 0); another follows
the dealer's `hashjack serve` stream the same way, across a restart of
serve (it connects again from its last block).  Once, from the API:
the blocks serve no longer has (before the rotation) dealt from the
node; without [chain] start_height refused (64).  Another follows a
file this test writes line by line from the dealer's log: a tampered
line, a missing one, a partial line completed later, the file cut and
the same lines written again (a dealer's restart), cut and written again
differently, renamed for a new file; each failure is one line and the
run goes on (SIGTERM: exit 1).  A node held behind the log's end (a
proxy lowering its tip): the lines up to the tip agree, exit 75; --follow
waits there and goes on once the node has the blocks.  Without a
configuration: the table from the dealer's `hashjack serve` (GET
/v1/table) or a copy of it, the node from --rpc; a table of another
chain (69), with a bad or missing field (65), another rule set (1).
Through a proxy that answers some batches of blocks short (the client
asks again) while several are in flight, the log still verifies, and of
two changed cards the first is reported, though its batch came last;
lines read ahead of a changed card (a missing line, a line that is not
one) are said only after it.  Both read the blocks verified from the
progress line, which is on stderr when it is a terminal (a pty here).

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from checks import log_debts, payouts_problems, verify_payouts  # noqa: E402
from daemon import Hashjackd, find_hashjackd, write_key  # noqa: E402
from evm_node import NODES, make_node  # noqa: E402
from logs import read_cardlog  # noqa: E402
from procs import ROOT, add_exit_hook, close_all, install_cleanup, wait_until  # noqa: E402
from proxies import RpcProxy  # noqa: E402
from serve import Serve  # noqa: E402
from tool import VerifyFollower, find_hashjack, verify  # noqa: E402

MIN_BET = 10**15
MAX_BET = 10**17


class TipProxy(RpcProxy):
    """The node, with its tip held at `tip` while that is not None."""
    tip = None

    def answer_to(self, request, data):
        if self.tip is not None and b'"eth_blockNumber"' in request:
            j = json.loads(data)
            if isinstance(j, dict) and "result" in j:
                j["result"] = hex(self.tip)
                return json.dumps(j).encode()
        return data


class ShortProxy(RpcProxy):
    """proxies.RpcProxy in front of the node that answers the first batch of
    blocks asked from each height in `heights` with its last block left out
    (the client must ask again), holds the first batch of blocks until a
    second is asked for (at most 10 s), and counts the batches of blocks in
    flight at once (`most`)."""

    def __init__(self, upstream, heights):
        super().__init__(upstream)
        self.heights = set(heights)
        self.shortened = self.now = self.most = self.seen = 0
        self.together = threading.Event()

    def _take(self, body):
        if b'"eth_getBlockByNumber"' in body:
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
                self.seen += 1
                first = self.seen == 1
                if self.now >= 2:
                    self.together.set()
            if first:
                self.together.wait(10)
        return super()._take(body)

    def answer(self, data):
        try:
            j = json.loads(data)
        except ValueError:
            return data
        if not (isinstance(j, list) and j and all(
                isinstance(e, dict) and isinstance(e.get("result"), dict)
                and "transactions" in e["result"] for e in j)):
            return data
        with self.lock:
            self.now -= 1
            first = min(int(e["result"]["number"], 16) for e in j)
            if first not in self.heights or len(j) < 2:
                return data
            self.heights.discard(first)
            self.shortened += 1
        return json.dumps(j[:-1]).encode()


def unpaid(d):
    """What the dealer still has to settle, from its database (read-only):
    open rounds and payouts not confirmed; None while it cannot be read."""
    path = os.path.join(d.state_dir, "hashjackd.sqlite")
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
        try:
            return (db.execute("SELECT count(*) FROM rounds").fetchone()[0]
                    + db.execute("SELECT count(*) FROM payouts WHERE state != 'confirmed'")
                    .fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


def paid(d):
    """The confirmed payouts of the dealer's database: {recipient (0x, lower
    case): wei}."""
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(d.state_dir, "hashjackd.sqlite"),
                         uri=True, timeout=5)
    try:
        out = {}
        for who, amount in db.execute("SELECT recipient, amount FROM payouts "
                                      "WHERE state = 'confirmed'"):
            k = "0x" + bytes(who).hex()
            out[k] = out.get(k, 0) + int(amount)
        return out
    finally:
        db.close()


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--node", choices=NODES, default="anvil",
                    help="the EVM node the dealer and the watcher use (default anvil)")
    a = ap.parse_args()
    install_cleanup(a.timeout)
    hashjack = find_hashjack(a.hashjack)
    hashjackd = find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-verify-", a.keep)
    results = []

    node = make_node(a.node, workdir=os.path.join(wd.path, a.node), block_time=0.3)
    node.start()
    dealer = node.accounts[9].address.lower()
    key = write_key(os.path.join(wd.path, "dealer.key"), node.accounts[9].key)
    d = Hashjackd(hashjackd, node, dealer, MIN_BET, MAX_BET, timeout_blocks=4,
                  confirmations=1, workdir=os.path.join(wd.path, "dealer"),
                  extra={"payout": {"dealer_key": key, "min_refund": 0}})
    d.start()
    wait_until(lambda: os.path.exists(d.card_log), 30, "the card log")
    live = VerifyFollower(hashjack, d.conf, d.card_log)
    # The same, from the dealer's API: `hashjack serve`'s stream.
    wait_until(lambda: read_cardlog(d.card_log), 30, "the first line")
    first = read_cardlog(d.card_log)[0]["height"]
    srv_live = Serve(hashjack, d, workdir=wd.path)
    srv_live.start()
    add_exit_hook(srv_live.stop)
    live_api = VerifyFollower(hashjack, d.conf, srv_live.url, "--chain.start_height=%d" % first)
    if a.node == "anvil":
        players = ["--anvil-config", os.path.join(node.workdir, "anvil-config.json"),
                   "--players", "1,2,3,4"]
    else:
        players = [x for i in (1, 2, 3, 4) for x in ("--key", node.accounts[i].key)]
    bot = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "bot.py"),
                            "--rpc-url", node.url, "--dealer", dealer,
                            "--card-log", d.card_log, "--min-bet", str(MIN_BET),
                            "--max-bet", str(MAX_BET)] + players +
                           ["--pause", "0.5", "--seed", "7"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    add_exit_hook(bot.kill)

    # logrotate: the log renamed, then hashjackd told to open a new one.
    wait_until(lambda: len(read_cardlog(d.card_log)) >= 25, 60, "25 lines")
    rotated = d.card_log + ".1"
    os.rename(d.card_log, rotated)
    os.kill(d.proc.pid, signal.SIGHUP)
    # The API restarted: its follower connects again from its last block.
    wait_until(lambda: len(read_cardlog(d.card_log)) >= 5, 60, "5 lines after the rotation")
    port = srv_live.port
    srv_live.stop()
    srv_live.start(port=port)

    def settled():
        lines = read_cardlog(rotated) + read_cardlog(d.card_log)
        return len(lines) >= 60 and sum(
            e["type"] == "settle" for l in lines for e in l["events"]) >= 4
    wait_until(settled, 150, "60 blocks with 4 settled rounds in the card log", interval=0.2)
    # The bot ends once the transaction it is sending, if any, is sent
    # (cast's own deadline is 30 s).
    bot.terminate()
    bot.wait(60)
    # The bot's last transaction mined and dealt (the node goes on mining),
    # then every round settled (by timeouts) and every payout confirmed
    # before the dealer stops: nothing is owed after that.
    d.wait_height(node.height() + 1)
    wait_until(lambda: unpaid(d) == 0, 90, "no open round and every payout confirmed",
               interval=0.2)
    d.stop()
    whole = os.path.join(wd.path, "whole.jsonl")
    with open(whole, "wb") as f:
        f.write(read_cardlog(rotated, raw=True) + read_cardlog(d.card_log, raw=True))
    with open(whole) as f:
        lines = f.read().splitlines()
    heights = [json.loads(l)["height"] for l in lines]

    def case(name, fn):
        try:
            detail = fn()
            results.append((name, True))
            print("ok   %s%s" % (name, ": " + detail if detail else ""))
        except (Failed, AssertionError) as e:
            results.append((name, False))
            print("FAIL %s: %s" % (name, e))

    def tampered(name, new_lines, tail="\n"):
        path = os.path.join(wd.path, name + ".jsonl")
        with open(path, "w") as f:
            f.write("\n".join(new_lines) + tail)
        return path

    def expect(path, block, words):
        rc, out, err = verify(hashjack, d.conf, path)
        check_eq(rc, 1, "exit status (stdout %r, stderr %r)" % (out[:300], err[:300]))
        first = out.splitlines()[0] if out else ""
        check(first.startswith(block), "first line %r starts with %r" % (first, block))
        for w in words:
            check(w in first, "%r in %r" % (w, first))
        return first

    def clean():
        rc, out, err = verify(hashjack, d.conf, whole)
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        h0, h1 = json.loads(lines[0])["height"], json.loads(lines[-1])["height"]
        check_eq(out, "verified blocks %d to %d: every line agrees\n" % (h0, h1), "output")
        return out.strip()

    def with_settle():
        i = next(i for i, l in enumerate(lines) if '"type":"settle"' in l)
        return i, json.loads(lines[i])

    def payouts():
        """--payouts: every recipient even, each received exactly what the
        log owes (log_debts, read here on its own) and what the dealer's
        database says it paid; nothing unattributed (every transaction
        has a sender on EVM)."""
        rc, rep, out, err = verify_payouts(hashjack, d.conf, whole, "--grace", "0")
        check_eq(rc, 0, "exit status (%r %r)" % (out[-300:], err[-300:]))
        owed, unattributed = log_debts(whole)
        check(owed, "the log owes nothing")
        bad = payouts_problems(rep, owed, owed)
        check(not bad, "the report: %s" % bad[:3])
        check_eq(paid(d), owed, "the dealer's confirmed payouts against the log's debts")
        check_eq((rep["short"], rep["over"], rep["unattributed"], unattributed),
                 (0, 0, [], []), "short, over, unattributed")
        return "%d recipients even, %s wei owed and received" % (len(owed), rep["owed"])

    def card():
        i = 5
        j = json.loads(lines[i])
        old = j["card"]["code"]
        j["card"]["code"] = "KS" if old != "KS" else "QS"
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("card", m), "block %d:" % j["height"],
                      ["card.code", '"%s"' % old])

    def payout():
        i, j = with_settle()
        ev = next(e for e in j["events"] if e["type"] == "settle")
        ev["payout"] = str(int(ev["payout"]) + 1)
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("payout", m), "block %d:" % j["height"], ["payout"])

    def dropped_event():
        i = next(i for i, l in enumerate(lines) if json.loads(l)["events"])
        j = json.loads(lines[i])
        j["events"] = j["events"][:-1]
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("dropped_event", m), "block %d:" % j["height"],
                      ["events[%d]" % len(j["events"]), "nothing"])

    def dropped_line():
        m = lines[:20] + lines[21:]
        h = json.loads(lines[20])["height"]
        return expect(tampered("dropped_line", m), "block %d:" % h, ["missing"])

    def line_twice():
        m = lines[:20] + [lines[19]] + lines[20:]
        h = json.loads(lines[19])["height"]
        return expect(tampered("line_twice", m), "block %d:" % h, ["a line again"])

    def other_hash():
        j = json.loads(lines[30])
        j["hash"] = "0x" + "ab" * 32
        m = lines[:]
        m[30] = compact(j)
        return expect(tampered("other_hash", m), "block %d:" % j["height"],
                      ["not the node's block"])

    def cut_last():
        path = tampered("cut_last", lines[:-1] + [lines[-1][:40]], tail="")
        rc, out, _ = verify(hashjack, d.conf, path)
        check_eq(rc, 1, "exit status")
        check("line %d: cut" % len(lines) in out, out)
        return out.strip()

    def not_json():
        path = tampered("not_json", lines[:10] + ["{nope"] + lines[11:])
        rc, out, _ = verify(hashjack, d.conf, path)
        check_eq(rc, 1, "exit status")
        check("line 11: not a card log line" in out, out)
        return out.strip()

    def open_round_at():
        """The index of a line with an event of a round whose Bet is on an
        earlier line: a log beginning there cannot be dealt alone."""
        bets = {}
        for i, l in enumerate(lines):
            for e in json.loads(l)["events"]:
                if e.get("action") == "Bet" and e["type"] == "action":
                    bets[e["round"]] = i
                elif e.get("round") in bets and bets[e["round"]] < i - 1 and i > 5:
                    return i
        raise Failed("no round spans lines")

    def late_start():
        i = open_round_at()
        path = tampered("late_start", lines[i:])
        rc, out, err = verify(hashjack, d.conf, path,
                              "--chain.start_height=%d" % heights[0])
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        check_eq(out, "verified blocks %d to %d: every line agrees (blocks %d to %d before "
                 "it dealt from the node, unchecked)\n"
                 % (heights[i], heights[-1], heights[0], heights[i] - 1), "output")
        check("dealing blocks %d to %d from the node first" % (heights[0], heights[i] - 1)
              in err, err)
        # Without the blocks before it, a round open at its first line is
        # unknown: the log cannot agree.
        rc, out, err = verify(hashjack, d.conf, path,
                              "--chain.start_height=%d" % heights[i])
        check_eq(rc, 1, "exit status without the blocks before (%r %r)" % (out, err))
        return out.splitlines()[0]

    def early_start():
        rc, out, err = verify(hashjack, d.conf, whole,
                              "--chain.start_height=%d" % (heights[0] + 1))
        check_eq(rc, 65, "exit status (%r %r)" % (out, err))
        check("begins at block %d, before the dealer's first" % heights[0] in err, err)
        return err.strip()

    def follow_live():
        """The follower started with the dealer saw every block, across the
        rotation."""
        live.wait_verified(heights[-1])
        rc = live.stop()
        check_eq(rc, 0, "exit status (stdout %r)" % live.out)
        check("was rotated: following the new file" in live.err, live.err[-500:])
        check("verified blocks %d to %d, 0 failures" % (heights[0], heights[-1])
              in live.out, live.out)
        return "blocks %d to %d, rotated once" % (heights[0], heights[-1])

    def behind_tip():
        """A node behind the log: the lines up to its tip are checked (75);
        --follow waits for the node and goes on."""
        proxy = TipProxy(node.url)
        add_exit_hook(proxy.close)
        proxy.tip = heights[40]
        rc, out, err = verify(hashjack, d.conf, whole, "--chain.rpc_url=" + proxy.url)
        check_eq(rc, 75, "exit status (%r %r)" % (out, err))
        check_eq(out, "verified blocks %d to %d: every line agrees; the log goes on past the "
                 "node's tip (%d): not checked yet\n" % (heights[0], heights[40], heights[40]),
                 "output")
        f = VerifyFollower(hashjack, d.conf, whole, "--chain.rpc_url=" + proxy.url)
        f.wait_verified(heights[40])
        proxy.tip = None
        f.wait_verified(heights[-1])
        check_eq(f.stop(), 0, "--follow exit status (%r)" % f.out)
        proxy.close()
        return out.strip()

    def other_chain():
        """Your node on another chain than the log: its first line's hash
        not the node's, or, for a log that begins past the node's tip, the
        node's block before it not the line's parent: exit 2, said as
        such, never a dealer's difference (1) or a range of no block."""
        out = []
        j = json.loads(lines[0])
        j["hash"] = "0x" + "ab" * 32
        rc, o, e = verify(hashjack, d.conf, tampered("first_hash", [compact(j)] + lines[1:]))
        check_eq(rc, 2, "first line's hash: exit status (%r %r)" % (o, e))
        check(o.startswith("block %d: your node's block is " % heights[0]) and
              "follows another chain" in o and "0x" + "ab" * 32 in o, o)
        out.append(o.split(":")[0])
        # The node's tip held at block 40: the log from 41 on.
        proxy = TipProxy(node.url)
        add_exit_hook(proxy.close)
        proxy.tip = heights[40]
        late = tampered("past_tip", lines[41:])
        rc, o, e = verify(hashjack, d.conf, late, "--chain.rpc_url=" + proxy.url)
        check_eq(rc, 75, "log past the tip: exit status (%r %r)" % (o, e))
        check_eq(o, "no line verified: the log begins at block %d, beyond your node's tip "
                 "(%d): not checked yet; your node's block before it is the log's parent\n"
                 % (heights[41], heights[40]), "log past the tip: output")
        j = json.loads(lines[41])
        j["parent"] = "0x" + "cd" * 32
        rc, o, e = verify(hashjack, d.conf, tampered("past_tip_parent", [compact(j)] + lines[42:]),
                          "--chain.rpc_url=" + proxy.url)
        check_eq(rc, 2, "another parent past the tip: exit status (%r %r)" % (o, e))
        check(o.startswith("block %d: your node's block is " % heights[40]) and
              "the log's 0x" + "cd" * 32 in o and "follows another chain" in o, o)
        out.append(o.split(":")[0])
        proxy.close()
        return "exit 2 at " + ", ".join(out)

    def table_from_api():
        """No configuration: the dealer's table from its API (or a copy of
        it), the node from --rpc."""
        srv = Serve(hashjack, d, workdir=wd.path)
        srv.start()
        add_exit_hook(srv.stop)
        table = srv.json("/v1/table")
        srv_url = srv.url
        # The log from the API: serve has the current file only (rotated
        # once), so the blocks before it come from the node.
        p = subprocess.run([hashjack, "verify", "-c", d.conf, "--card-log", srv_url,
                            "--chain.start_height=%d" % heights[0]],
                           capture_output=True, text=True, timeout=120)
        check_eq(p.returncode, 0, "from the API (%r %r)" % (p.stdout, p.stderr))
        m = re.match(r"verified blocks (\d+) to (\d+): every line agrees \(blocks (\d+) to "
                     r"(\d+) before it dealt from the node, unchecked\)\n$", p.stdout)
        check(m and int(m.group(2)) == heights[-1] and int(m.group(3)) == heights[0]
              and int(m.group(4)) + 1 == int(m.group(1)), p.stdout)
        # An API that keeps the last 10 blocks only: refused from further
        # back (400), so from the oldest it keeps.
        short = Serve(hashjack, d, workdir=wd.path, history_blocks=10)
        short.start()
        add_exit_hook(short.stop)
        p = subprocess.run([hashjack, "verify", "-c", d.conf, "--card-log", short.url,
                            "--chain.start_height=%d" % heights[0]],
                           capture_output=True, text=True, timeout=120)
        short.stop()
        check_eq(p.returncode, 0, "from an API keeping 10 blocks (%r %r)" % (p.stdout, p.stderr))
        check("the dealer's API keeps blocks from %d on" % (heights[-1] - 9) in p.stderr, p.stderr)
        check(p.stdout == "verified blocks %d to %d: every line agrees (blocks %d to %d before "
              "it dealt from the node, unchecked)\n" % (heights[-1] - 9, heights[-1], heights[0],
                                                          heights[-1] - 10), p.stdout)
        p = subprocess.run([hashjack, "verify", "-c", d.conf, "--card-log", srv_url],
                           capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 64, "from the API without start_height (%r)" % p.stderr)
        check("needs its first block: --chain.start_height=N" in p.stderr, p.stderr)
        p = subprocess.run([hashjack, "verify", "--table", srv_url, "--rpc", node.url,
                            "--card-log", whole], capture_output=True, text=True, timeout=120)
        srv.stop()
        check_eq(p.returncode, 0, "exit status (%r %r)" % (p.stdout, p.stderr))
        check_eq(p.stdout, "verified blocks %d to %d: every line agrees\n"
                 % (heights[0], heights[-1]), "output")

        def with_table(name, t, *args):
            path = os.path.join(wd.path, name + ".json")
            with open(path, "w") as f:
                json.dump(t, f)
            return subprocess.run([hashjack, "verify", "--table", path, "--rpc", node.url,
                                   "--card-log", whole] + list(args),
                                  capture_output=True, text=True, timeout=120)
        p = with_table("table", table)
        check_eq(p.returncode, 0, "from a file (%r %r)" % (p.stdout, p.stderr))
        p = with_table("other_chain", dict(table, chain="evm:1"))
        check_eq(p.returncode, 69, "another chain (%r)" % p.stderr)
        check("the dealer's table on evm:1" in p.stderr, p.stderr)
        p = with_table("bad_preset", dict(table, rules=dict(table["rules"], preset="nope")))
        check_eq(p.returncode, 65, "a bad preset (%r)" % p.stderr)
        check("table: rules.preset:" in p.stderr, p.stderr)
        p = with_table("no_dealer", {k: v for k, v in table.items() if k != "dealer"})
        check_eq(p.returncode, 65, "no dealer (%r)" % p.stderr)
        check("table: dealer: missing" in p.stderr, p.stderr)
        # Another table (every Bet below its minimum): the lines cannot agree.
        p = with_table("other_rules", dict(table, minBet=table["maxBet"]))
        check_eq(p.returncode, 1, "other rules (%r)" % p.stdout)
        p = subprocess.run([hashjack, "verify", "--table", srv_url, "--rpc", node.url,
                            "--card-log", whole], capture_output=True, text=True, timeout=60)
        check_eq(p.returncode, 66, "the API gone (%r)" % p.stderr)
        return "from %s/v1/table and from a copy" % srv_url

    def follow_api():
        """The follower of the dealer's API saw every block, across the
        rotation and a restart of the API, as the one of the file did."""
        live_api.wait_verified(heights[-1])
        rc = live_api.stop()
        srv_live.stop()
        check_eq(rc, 0, "exit status (stdout %r, stderr %r)" % (live_api.out, live_api.err[-500:]))
        check("connecting again" in live_api.err, live_api.err[-500:])
        # ?from= asks for the blocks after a height: a dealer that began
        # at block 0 has that block dealt from the node, not read.
        api_first = heights[0] + 1 if heights[0] == 0 else heights[0]
        check("verified blocks %d to %d, 0 failures" % (api_first, heights[-1])
              in live_api.out, live_api.out)
        return "blocks %d to %d from %s" % (api_first, heights[-1], srv_live.url)

    def follow_written():
        """A file written here, line by line, as a broken dealer might."""
        path = os.path.join(wd.path, "follow.jsonl")
        data = [l + "\n" for l in lines]

        def write(text, mode="a"):
            with open(path, mode) as f:
                f.write(text)

        def size(n):
            return sum(len(x) for x in data[:n])

        write("".join(data[:20]), "w")
        f = VerifyFollower(hashjack, d.conf, path)
        f.wait_verified(heights[19])
        # A card tampered: one line, and the run goes on.  data is what
        # the file holds, so that size(n) is where its line n begins: the
        # code written may be shorter than the true one ("KS" for "10H").
        j = json.loads(lines[22])
        j["card"]["code"] = "KS" if j["card"]["code"] != "KS" else "QS"
        data[22] = compact(j) + "\n"
        write("".join(data[20:26]))
        check_eq(os.path.getsize(path), size(26), "the file's size after block 25")
        f.wait_out("block %d: card.code" % heights[22])
        f.wait_verified(heights[25])
        # A partial line, completed later.
        write(data[26][:30])
        write(data[26][30:] + data[27])
        f.wait_verified(heights[27])
        # Cut back three lines (seen cut) and written again the same: a
        # restart.
        os.truncate(path, size(25))
        # (How far it had read when it looked is its own affair.)
        f.wait_err(" to %d bytes (the dealer restarted?)" % size(25))
        write("".join(data[25:31]))
        f.wait_verified(heights[30])
        # Cut (seen cut) and written again differently.
        os.truncate(path, size(29))
        f.wait_err(" to %d bytes (the dealer restarted?)" % size(29))
        j = json.loads(lines[29])
        j["hash"] = "0x" + "cd" * 32
        write(compact(j) + "\n" + "".join(data[30:33]))
        f.wait_out("block %d: written again, differently" % heights[29])
        f.wait_verified(heights[32])
        # Written over in place, the file no longer (the same length).
        j = json.loads(lines[31])
        j["card"]["colorDigit"] = "1" if j["card"]["colorDigit"] != "1" else "2"
        with open(path, "r+") as g:
            g.seek(size(29) + len(compact(json.loads(lines[29]))) + 1 + len(data[30]))
            g.write(compact(j) + "\n")
        f.wait_out("block %d: written again, differently" % heights[31])
        # A line missing: said, and the blocks are dealt all the same.
        write("".join(data[34:36]))
        f.wait_out("block %d: missing" % heights[33])
        f.wait_verified(heights[35])
        # The last line written over in place by bytes that are no line:
        # said once, and not looked at again and again.
        end = os.path.getsize(path)
        with open(path, "r+") as g:
            g.seek(end - len(data[35]))
            g.write("x" * (len(data[35]) - 1))
        f.wait_out("not a card log line")
        f.wait_err("was written over from byte %d" % (end - len(data[35])))
        # Renamed away; a new file goes on.
        os.rename(path, path + ".1")
        write("".join(data[36:40]), "w")
        f.wait_verified(heights[39])
        rc = f.stop()
        check_eq(rc, 1, "exit status (stdout %r)" % f.out)
        fails = [l for l in f.out.splitlines() if l.startswith("block ")]
        check_eq(len(fails), 4, "failures %r" % fails)
        bad = [l for l in f.out.splitlines() if "not a card log line" in l]
        check_eq(len(bad), 1, "lines that are no line %r" % bad[:3])
        check("verified blocks %d to %d, 5 failures" % (heights[0], heights[39]) in f.out,
              f.out)
        check("was written over from byte" in f.err, f.err[-800:])
        return "; ".join(fails)

    def short_answers():
        # Batches of 5: several in flight; the first one and a later one
        # come short, are asked again, and the batches after them, come
        # first, wait their turn.
        h0 = json.loads(lines[0])["height"]
        proxy = ShortProxy(node.url, [h0, h0 + 10])
        try:
            rc, out, err = verify(hashjack, d.conf, whole, "--chain.rpc_url=" + proxy.url,
                                  "--chain.batch_blocks=5")
        finally:
            proxy.close()
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        check_eq(out, "verified blocks %d to %d: every line agrees\n"
                 % (h0, json.loads(lines[-1])["height"]), "output")
        check_eq(proxy.shortened, 2, "batches answered short")
        check("retrying" in err, "the retries said on stderr: %r" % err)
        check(proxy.most >= 2, "batches of blocks in flight at once: %d" % proxy.most)
        return "%d batches in flight at most, %d answered short" % (proxy.most, proxy.shortened)

    def short_first_difference():
        # A card changed in the first batch, which comes short and so
        # last, and another in the third: the first is the one reported.
        m = lines[:]
        changed = []
        for i in (2, 12):
            j = json.loads(m[i])
            j["card"]["code"] = "KS" if j["card"]["code"] != "KS" else "QS"
            m[i] = compact(j)
            changed.append(j["height"])
        path = tampered("short_first_difference", m)
        proxy = ShortProxy(node.url, [json.loads(lines[0])["height"]])
        try:
            rc, out, err = verify(hashjack, d.conf, path, "--chain.rpc_url=" + proxy.url,
                                  "--chain.batch_blocks=5")
        finally:
            proxy.close()
        check_eq(rc, 1, "exit status (stdout %r, stderr %r)" % (out[:300], err[:300]))
        first = out.splitlines()[0] if out else ""
        check(first.startswith("block %d: card.code" % changed[0]), first)
        check_eq(proxy.shortened, 1, "batches answered short")
        check(proxy.most >= 2, "batches of blocks in flight at once: %d" % proxy.most)
        return first

    def read_ahead_order():
        # Batches of 5 in flight: lines read ahead of a changed card (a
        # missing line, a line that is not one) are said only after it.
        j = json.loads(lines[2])
        j["card"]["code"] = "KS" if j["card"]["code"] != "KS" else "QS"
        out = []
        for name, later in (("missing", lines[13:]), ("not_json", ["{nope"] + lines[13:])):
            m = lines[:2] + [compact(j)] + lines[3:12] + later
            rc, o, err = verify(hashjack, d.conf, tampered("ahead_" + name, m),
                                "--chain.batch_blocks=5")
            check_eq(rc, 1, "exit status (stdout %r, stderr %r)" % (o[:300], err[:300]))
            first = o.splitlines()[0] if o else ""
            check(first.startswith("block %d: card.code" % j["height"]), first)
            out.append(first)
        return "; ".join(out)

    for name, fn in [("clean", clean), ("payouts", payouts), ("follow_live", follow_live),
                     ("follow_api", follow_api),
                     ("late_start", late_start), ("early_start", early_start),
                     ("behind_tip", behind_tip), ("other_chain", other_chain),
                     ("table_from_api", table_from_api),
                     ("follow_written", follow_written), ("card", card), ("payout", payout),
                     ("dropped_event", dropped_event), ("dropped_line", dropped_line),
                     ("line_twice", line_twice), ("other_hash", other_hash),
                     ("cut_last", cut_last), ("not_json", not_json),
                     ("short_answers", short_answers), ("read_ahead_order", read_ahead_order),
                     ("short_first_difference", short_first_difference)]:
        case(name, fn)
    close_all(node.stop)
    passed = sum(1 for _, ok in results if ok)
    wd.close(passed != len(results))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
