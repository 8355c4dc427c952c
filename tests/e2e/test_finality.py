#!/usr/bin/env python3
"""[chain] confirmations = finalized and safe against anvil, and against
ganache, whose tags mean nothing (docs/OPERATION.md, "Finality").

    python3 tests/e2e/test_finality.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [--keep] [--timeout S]

anvil with --slots-in-an-epoch 4 answers "safe" as its tip less 4 blocks
and "finalized" as its tip less 8 (checked here first, as anvil 1.7.1
does).  Blocks are mined on demand (anvil_mine).  Each daemon reaches its
node through a proxy (FinalityProxy) that counts its questions for the
tag, remembers the last final block it was told, and fails the test when
a block above it is asked for; it can also answer the tag with null, a
JSON-RPC error, or a block lower than the last.

  finalized  hashjackd with confirmations = finalized from block 1: its
             card log ends exactly at anvil's finalized block (the hashes
             anvil's), after five more questions for the tag too; and again
             as blocks are mined, three times; the tip it reports is
             eth_blockNumber; --check-config says the finality and what
             the node answers (its finalized block below its tip), and
             neither it nor the daemon warns; nor at anvil's block 0,
             which is its finalized block and its tip.
  no_tag     the same daemon while the node answers the tag with null,
             then with a JSON-RPC error: each logged, asked again at every
             poll, nothing processed; then the node answers again: it
             goes on to the finalized block.
  went_back  the node's finalized block answered 5 lower: logged as the
             tip going back is; nothing changes.
  payout     that dealer pays with [payout] dealer_key: a Bet below
             min_bet, refunded once its block is finalized; the refund's
             transaction, mined in block R, stays "sent" while anvil's
             finalized block is below R (looked at after a payer's pass
             at each new tip), and is confirmed in block R once it is not.
  tools      on that dealer: `hashjack serve`'s /v1/table says
             "confirmations":"finalized"; `hashjack verify --table` of it
             with --payouts counts final blocks up to anvil's finalized
             block (text and --json); `hashjack export` ends by default at
             the finalized block, and notes the blocks past it.
  safe       another hashjackd with confirmations = safe: its log ends
             exactly at anvil's safe block, and follows it.
  reorg      anvil_reorg of 6 blocks (two of them processed by the safe
             dealer): once the next block is safe, the dealer stops with
             exit status 3, "reorganisation of a block the node called
             safe", its log as it was.
  bitcoin    the same keys with family = bitcoin: refused (78), naming
             the key and the value.
  ganache    ganache 7.9.2 (tests/e2e/evm_node.py) answers both tags with
             its tip: --check-config prints the warning for either word
             (the node's answer, the heights, what follows, a number of
             confirmations instead), the daemon logs it once at start, its
             /healthz stays 200 with the warning under "warnings", and every
             block is dealt as soon as it is mined.

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from daemon import Hashjackd, find_hashjackd, write_key  # noqa: E402
from evm_node import Anvil, BET, Ganache  # noqa: E402
from procs import HarnessError, add_exit_hook, close_all, install_cleanup, wait_until  # noqa: E402
from proxies import RpcProxy  # noqa: E402
from serve import Serve  # noqa: E402
from tool import find_hashjack  # noqa: E402

MIN_BET = 10**15
MAX_BET = 10**17
SLOTS = 4  # anvil --slots-in-an-epoch: safe = tip - 4, finalized = tip - 8
TAGS = ("finalized", "safe")
# What hashjackd says of a node whose block of the tag is its tip.
WARNING = ('[chain] confirmations = {tag}: the node says its "{tag}" block is its tip '
           '(block {tip}, tip {tip}), so the word means nothing here: every block is '
           'dealt as soon as it is mined, and a reorganisation of the tip stops the '
           'daemon (exit 3); give a number of confirmations instead (docs/OPERATION.md, '
           '"Finality")')
DEV = "so the word means nothing here"


class FinalityProxy(RpcProxy):
    """The node, as the daemon sees it: counts the daemon's questions for
    a tag (eth_getBlockByNumber("finalized" or "safe", false)), keeps the
    last block number it was told for it, and notes every block asked by
    number above that (`above`) and every tag asked with anything but
    false (`bad`).  `fake` rewrites the tag's answer: "null", "error" (a
    JSON-RPC error -39001, as a node without the block may answer), or
    "back" (the block's number 5 lower); counted in `faked`."""

    def __init__(self, upstream):
        super().__init__(upstream)
        self.asked = 0
        # A daemon that stops (exit 3 below) leaves its last question
        # unread: not worth a traceback.
        default = self.server.handle_error

        def handle_error(request, client_address):
            if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                default(request, client_address)
        self.server.handle_error = handle_error
        self.faked = 0
        self.told = -1
        self.above = []
        self.bad = []
        self.fake = None

    def _calls(self, request):
        try:
            j = json.loads(request)
        except ValueError:
            return []
        return j if isinstance(j, list) else [j]

    def answer_to(self, request, data):
        calls = self._calls(request)
        tag = None
        with self.lock:
            for c in calls:
                if not isinstance(c, dict) or c.get("method") != "eth_getBlockByNumber":
                    continue
                p = c.get("params") or []
                if p and p[0] in TAGS:
                    tag = p[0]
                    self.asked += 1
                    if len(p) != 2 or p[1] is not False:
                        self.bad.append(p)
                elif p and isinstance(p[0], str) and p[0].startswith("0x"):
                    h = int(p[0], 16)
                    if h > self.told:
                        self.above.append((h, self.told))
            fake = self.fake
        if tag is None:
            return data
        j = json.loads(data)
        if not isinstance(j, dict):
            return data
        with self.lock:
            if fake is not None:
                self.faked += 1
            if fake == "null":
                j["result"] = None
            elif fake == "error":
                j.pop("result", None)
                j["error"] = {"code": -39001, "message": "%s block not found" % tag}
            elif fake == "back":
                j["result"]["number"] = hex(int(j["result"]["number"], 16) - 5)
            if isinstance(j.get("result"), dict):
                self.told = max(self.told, int(j["result"]["number"], 16))
        return json.dumps(j).encode()

    def count(self):
        with self.lock:
            return self.asked

    def faked_count(self):
        with self.lock:
            return self.faked

    def set_fake(self, fake):
        with self.lock:
            self.fake = fake
            self.faked = 0


def healthz(d):
    """The daemon's /healthz: (status, the JSON answer)."""
    try:
        with urllib.request.urlopen(d.metrics_url() + "/healthz", timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def db_one(d, sql, *args):
    """One row of the dealer's database, read-only, or None."""
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(d.state_dir, "hashjackd.sqlite"),
                         uri=True, timeout=5)
    try:
        return db.execute(sql, args).fetchone()
    finally:
        db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    install_cleanup(a.timeout)
    hashjack = find_hashjack(a.hashjack)
    hashjackd = find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-finality-", a.keep)
    results = []

    anvil = Anvil(workdir=os.path.join(wd.path, "anvil"),
                  extra_args=["--slots-in-an-epoch", str(SLOTS)])
    anvil.start()
    add_exit_hook(anvil.kill)
    dealer = anvil.accounts[9].address.lower()

    def node(tag):
        return int(anvil.block(tag, False)["number"], 16)

    def daemon(name, tag, payout=None):
        proxy = FinalityProxy(anvil.url)
        add_exit_hook(proxy.close)
        extra = {"chain": {"rpc_url": proxy.url}}
        if payout:
            extra["payout"] = payout
        d = Hashjackd(hashjackd, anvil, dealer, MIN_BET, MAX_BET, timeout_blocks=20,
                      confirmations=tag, start_height=1,
                      workdir=os.path.join(wd.path, name), extra=extra)
        add_exit_hook(d.close)
        return d, proxy

    def ends_at(d, proxy, tag):
        """The card log ends exactly at the node's block of the tag, after
        the daemon has asked for the tag five more times, every line's hash
        the node's; no block above what the daemon was told was asked."""
        want = node(tag)
        d.wait_height(want, 30)
        n = proxy.count()
        wait_until(lambda: proxy.count() >= n + 5 or not d.running(), 10,
                   "five more questions for %s" % tag)
        check(d.running(), "hashjackd exited: %s" % d.stderr()[-2000:])
        lines = d.lines()
        check_eq(lines[-1]["height"], want, "the log's last block (anvil's %s block)" % tag)
        check_eq(d.committed_height(), want, "the database's last block")
        check_eq(node(tag), want, "anvil's %s block, unchanged meanwhile" % tag)
        heights = [l["height"] for l in lines]
        check_eq(heights, list(range(1, want + 1)), "the log's heights")
        got = anvil.rpc_batch([("eth_getBlockByNumber", [hex(h), False]) for h in heights])
        for l, b in zip(lines, got):
            check_eq(l["hash"], b["hash"], "block %d's hash" % l["height"])
        check_eq(proxy.above, [], "blocks asked above the final block told (height, told)")
        check_eq(proxy.bad, [], "questions for the tag with other params")
        return want

    def case(name, fn):
        try:
            detail = fn()
            results.append((name, True))
            print("ok   %s%s" % (name, ": " + detail if detail else ""))
        except (Failed, AssertionError, HarnessError, TimeoutError) as e:
            results.append((name, False))
            print("FAIL %s: %s" % (name, e))

    state = {}

    def anvil_tags():
        # What the test relies on: anvil's tags follow its head.
        out = []
        for mine in (0, 12, 10):
            tip = anvil.mine_empty(mine) if mine else anvil.height()
            if tip == 0:
                # Block 0 is anvil's finalized block and its tip: no
                # warning there.
                g = Hashjackd(hashjackd, anvil, dealer, MIN_BET, MAX_BET,
                              confirmations="finalized", workdir=os.path.join(wd.path, "genesis"))
                rc, said, err = g.check_config()
                check_eq(rc, 0, "--check-config at block 0 (%r)" % err)
                check('node: its "finalized" block 0, tip 0\n' in said, said)
                check(DEV not in err, "a warning at block 0: %r" % err)
            fin, safe = node("finalized"), node("safe")
            check_eq(fin, max(tip - 2 * SLOTS, 0), "finalized at tip %d" % tip)
            check_eq(safe, max(tip - SLOTS, 0), "safe at tip %d" % tip)
            out.append("tip %d: safe %d, finalized %d" % (tip, safe, fin))
        return "; ".join(out)

    def finalized():
        os.makedirs(os.path.join(wd.path, "finalized"), exist_ok=True)
        key = write_key(os.path.join(wd.path, "finalized", "dealer.key"),
                        anvil.accounts[9].key)
        d, proxy = daemon("finalized", "finalized", {"dealer_key": key, "min_refund": 0})
        state["fin"] = (d, proxy)
        rc, out, err = d.check_config()
        check_eq(rc, 0, "--check-config (%r)" % err)
        check(", final at the node's finalized block, poll every 50 ms" in out, out)
        fin, tip = node("finalized"), anvil.height()
        check(fin < tip and 'node: its "finalized" block %d, tip %d\n' % (fin, tip) in out, out)
        check(DEV not in err, "--check-config warned: %r" % err)
        d.start()
        tip = anvil.height()
        f0 = ends_at(d, proxy, "finalized")
        err = d.stderr()
        check("first start: dealing from block 1 (tip %d)" % tip in err, err[-2000:])
        check("caught up: next block %d, tip %d; following" % (f0 + 1, tip) in err,
              err[-2000:])
        seen = [f0]
        for mine in (1, 3, 8):
            anvil.mine_empty(mine)
            seen.append(ends_at(d, proxy, "finalized"))
        check(DEV not in d.stderr(), "the daemon warned: %s" % d.stderr()[-2000:])
        return "log ended at anvil's finalized block %s (tip %d)" % (
            " then ".join(map(str, seen)), anvil.height())

    def no_tag():
        d, proxy = state["fin"]
        last = d.last_height()
        for fake, words in (
                ("null", 'tip: the node has no "finalized" block (null): a chain without '
                         'proof-of-stake finality cannot be followed with [chain] '
                         'confirmations = finalized'),
                ("error", 'tip: the node\'s "finalized" block: eth_getBlockByNumber: '
                          'JSON-RPC error -39001: "finalized block not found"')):
            proxy.set_fake(fake)
            anvil.mine_empty(3)
            wait_until(lambda: proxy.faked_count() >= 4 or not d.running(), 15,
                       "four %s answers" % fake)
            check(d.running(), "hashjackd exited: %s" % d.stderr()[-2000:])
            wait_until(lambda: words in d.stderr(), 10, "the %s logged" % fake)
            check_eq(d.last_height(), last, "the log's last block while the node says %s" % fake)
            check_eq(d.committed_height(), last, "the database's last block")
        proxy.set_fake(None)
        now = ends_at(d, proxy, "finalized")
        check(now > last, "the log went on: %d" % now)
        return "nothing past block %d while null or an error; then on to %d" % (last, now)

    def went_back():
        d, proxy = state["fin"]
        last = d.last_height()
        proxy.set_fake("back")
        words = "node's finalized block went back from %d to %d" % (last, last - 5)
        wait_until(lambda: words in d.stderr() or not d.running(), 15, repr(words))
        check(d.running(), "hashjackd exited: %s" % d.stderr()[-2000:])
        proxy.set_fake(None)
        check_eq(ends_at(d, proxy, "finalized"), last, "the log's last block")
        return words

    def payout():
        d, proxy = state["fin"]
        player = anvil.accounts[1].address.lower()
        tx = anvil.send(1, dealer, BET, MIN_BET // 2)
        b = int(anvil.mine(expect=[tx])["number"], 16)
        # The Bet's block finalized: rejected, a refund owed and sent.
        anvil.mine_empty(2 * SLOTS)
        ends_at(d, proxy, "finalized")
        row = db_one(d, "SELECT kind, amount, lower(hex(recipient)) FROM payouts "
                        "WHERE created_height = ?", b)
        check_eq(row, ("refund", str(MIN_BET // 2), player[2:]), "the refund owed")
        wait_until(lambda: anvil.pending(), 30, "the refund's transaction")
        r = int(anvil.mine()["number"], 16)
        looked = 0
        while node("finalized") < r:
            tip = anvil.height()
            d.wait_height(node("finalized"), 30)
            wait_until(lambda: (db_one(d, "SELECT height FROM dealer_balance") or (0,))[0]
                       >= tip, 30, "a payer's pass at tip %d" % tip)
            st = db_one(d, "SELECT state, confirmed_height FROM payout_batches WHERE id = 1")
            check(st is not None and st[0] == "sent",
                  "the refund's batch at tip %d, finalized %d (mined in %d): %s"
                  % (tip, node("finalized"), r, st))
            looked += 1
            anvil.mine_empty(1)
        wait_until(lambda: db_one(d, "SELECT state, confirmed_height FROM payout_batches "
                                        "WHERE id = 1") == ("confirmed", r), 30,
                   "the refund confirmed in block %d" % r)
        check_eq(db_one(d, "SELECT state FROM payouts WHERE created_height = ?", b),
                 ("confirmed",), "the refund's state")
        check(node("finalized") >= r, "confirmed before block %d was finalized" % r)
        ends_at(d, proxy, "finalized")
        return ("refund of block %d mined in block %d: sent at %d tips below the "
                "finalized block, then confirmed" % (b, r, looked))

    def tools():
        d, proxy = state["fin"]
        fin, tip = node("finalized"), anvil.height()
        check_eq(d.last_height(), fin, "the dealer's last block")
        srv = Serve(hashjack, d, workdir=wd.path)
        srv.start()
        add_exit_hook(srv.stop)
        try:
            table = srv.json("/v1/table")
            check_eq(table.get("confirmations"), "finalized", "/v1/table's confirmations")
            p = subprocess.run([hashjack, "verify", "--table", srv.url, "--rpc", anvil.url,
                                "--card-log", d.card_log, "--chain.start_height=1",
                                "--payouts", "--grace", "0"],
                               capture_output=True, text=True, timeout=120)
            q = subprocess.run([hashjack, "verify", "--table", srv.url, "--rpc", anvil.url,
                                "--card-log", d.card_log, "--chain.start_height=1",
                                "--payouts", "--json"],
                               capture_output=True, text=True, timeout=120)
        finally:
            srv.stop()
        check_eq(p.returncode, 0, "verify --payouts (%r %r)" % (p.stdout, p.stderr))
        want = ("verified blocks 1 to %d: every line agrees\npayouts (amounts in wei): "
                "log blocks 1 to %d; final blocks up to %d (tip %d, the node's finalized "
                "block)" % (fin, fin, fin, tip))
        check(p.stdout.startswith(want), "verify's output %r, want %r" % (p.stdout, want))
        check_eq(q.returncode, 0, "verify --payouts --json (%r)" % q.stderr)
        r = json.loads(q.stdout)
        check_eq((r["confirmations"], r["final"], r["tip"]), ("finalized", fin, tip),
                 "the report's confirmations, final and tip")
        # export: to the finalized block by default; a note past it.
        p = subprocess.run([hashjack, "export", "-c", d.conf, "--from", "1",
                            "--chain.rpc_url=" + anvil.url],
                           capture_output=True, text=True, timeout=120)
        check_eq(p.returncode, 0, "export (%r)" % p.stderr)
        hs = [b["height"] for b in json.loads(p.stdout)["blocks"]]
        check_eq(hs, list(range(1, fin + 1)), "export's blocks")
        p = subprocess.run([hashjack, "export", "-c", d.conf, "--from", str(fin - 1),
                            "--to", str(tip), "--chain.rpc_url=" + anvil.url],
                           capture_output=True, text=True, timeout=120)
        check_eq(p.returncode, 0, "export --to the tip (%r)" % p.stderr)
        note = ("note: blocks from %d on are not final yet (the node's finalized block is "
                "%d): a reorganisation may replace them" % (fin + 1, fin))
        check(note in p.stderr, "export's note %r, want %r" % (p.stderr, note))
        return "table, verify --payouts and export at finalized block %d (tip %d)" % (fin, tip)

    def safe():
        d, proxy = daemon("safe", "safe")
        state["safe"] = (d, proxy)
        d.start()
        seen = [ends_at(d, proxy, "safe")]
        for mine in (2, 5):
            anvil.mine_empty(mine)
            seen.append(ends_at(d, proxy, "safe"))
        check(DEV not in d.stderr(), "the daemon warned: %s" % d.stderr()[-2000:])
        return "log ended at anvil's safe block %s" % " then ".join(map(str, seen))

    def reorg():
        d, proxy = state["safe"]
        last = ends_at(d, proxy, "safe")
        before = d.log_bytes()
        changed = anvil.reorg(SLOTS + 2)
        check(last in changed and last - 1 in changed, "blocks replaced: %s" % sorted(changed))
        anvil.mine_empty(1)
        rc = d.wait_exit(30)
        check_eq(rc, 3, "exit status (%s)" % d.stderr()[-1500:])
        words = ("reorganisation of a block the node called safe: block %d has parent %s, "
                 "but block %d was processed as %s; nothing after block %d was changed"
                 % (last + 1, changed[last][1], last, changed[last][0], last))
        check(words in d.stderr(), "%r not in %r" % (words, d.stderr()[-1500:]))
        check_eq(d.log_bytes(), before, "the card log")
        check_eq(d.committed_height(), last, "the database's last block")
        return "exit 3 at block %d" % (last + 1)

    def bitcoin():
        d, _ = state["fin"]
        out = []
        for tag in TAGS:
            rc, _o, err = d.check_config("--chain.family=bitcoin", "--chain.coin=litecoin",
                                         "--chain.rpc_cookie_file=/nonexistent",
                                         "--payout.dealer_key=", "--payout.min_refund=",
                                         "--chain.confirmations=%s" % tag)
            check_eq(rc, 78, "exit status (%r)" % err)
            words = ("[chain] confirmations = %s: only for family = evm (the Bitcoin family "
                     "has no finalized or safe block: give a number of blocks)" % tag)
            check(words in err, "%r not in %r" % (words, err))
            out.append(tag)
        return "refused: %s" % ", ".join(out)

    def ganache():
        g = Ganache(workdir=os.path.join(wd.path, "ganache")).start()
        add_exit_hook(g.kill)
        try:
            g.mine_empty(3)
            for tag in TAGS:
                check_eq(int(g.block(tag, False)["number"], 16), 3,
                         "ganache's %s block at tip 3" % tag)
            d = Hashjackd(hashjackd, g, g.accounts[9].address, MIN_BET, MAX_BET,
                          timeout_blocks=20, confirmations="finalized", start_height=1,
                          workdir=os.path.join(wd.path, "ganache-dealer"), metrics=True)
            add_exit_hook(d.close)
            for tag in TAGS:
                rc, out, err = d.check_config("--chain.confirmations=" + tag)
                check_eq(rc, 0, "--check-config, %s (%r)" % (tag, err))
                check('node: its "%s" block 3, tip 3\n' % tag in out, out)
                check_eq(err.count("<4>" + WARNING.format(tag=tag, tip=3)), 1,
                         "--check-config's warning, %s: %r" % (tag, err))
            d.start()
            d.wait_height(3, 30)
            warning = WARNING.format(tag="finalized", tip=3)
            wait_until(lambda: warning in d.stderr(), 10, "the warning logged")
            st, h = healthz(d)
            check_eq((st, h.get("ok"), h.get("reasons"), h.get("warnings")),
                     (200, True, [], [warning]), "/healthz")
            g.mine_empty(2)
            d.wait_height(5, 30)
            check_eq(d.last_height(), g.height(), "the log's last block: ganache's tip")
            check_eq(d.stderr().count(DEV), 1, "warnings logged")
            check_eq(healthz(d)[1].get("warnings"), [warning], "/healthz's warnings later")
            check_eq(d.stop(), 0, "exit status on SIGTERM")
        finally:
            g.stop()
        return "warned (--check-config for both words, the log once, /healthz 200); " \
            "blocks 4 and 5 dealt at the tip"

    for name, fn in [("anvil_tags", anvil_tags), ("finalized", finalized),
                     ("no_tag", no_tag), ("went_back", went_back), ("payout", payout),
                     ("tools", tools),
                     ("safe", safe), ("reorg", reorg), ("bitcoin", bitcoin),
                     ("ganache", ganache)]:
        if name in ("no_tag", "went_back", "payout", "tools", "bitcoin") \
                and "fin" not in state:
            results.append((name, False))
            print("FAIL %s: no finalized dealer" % name)
            continue
        if name == "reorg" and "safe" not in state:
            results.append((name, False))
            print("FAIL %s: no safe dealer" % name)
            continue
        case(name, fn)
    for k in ("fin", "safe"):
        if k in state:
            state[k][0].close()
            state[k][1].close()
    close_all(anvil.stop)
    passed = sum(1 for _, ok in results if ok)
    wd.close(passed != len(results))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
