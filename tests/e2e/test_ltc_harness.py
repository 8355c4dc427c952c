#!/usr/bin/env python3
"""Proves the litecoind harness (tests/e2e/btc_node.py) against a real
litecoind in regtest, no daemon needed: start/stop and cookie
authentication, the JSON-RPC quirks it relies on, actions built with the
node's wallet (a value split over two outputs to the dealer, a zero-value
action), grinding a block for a card, a reorganisation, kill -9 and restart,
the export in the Bitcoin replay format checked against the raw blocks, and
the MWEB mode mining past the activation.

    python3 tests/e2e/test_ltc_harness.py [--hashjack PATH] [--hashjackd PATH] [-k NAME] [--keep]

With --hashjack the exported document is also given to `hashjack replay`;
with --hashjackd the daemon runs on the node.  Both are skipped (said so)
while those tools do not take the Bitcoin family yet.  One line per case and
"N passed, M failed"; exit status 1 when a case failed.  Every wait has a
deadline, the whole run too (--timeout).
"""

import argparse
import base64
import functools
import json
import os
import sys
import time
import urllib.error
import urllib.request
from decimal import Decimal

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from btc_node import (COIN, Litecoind, MWEB_HEIGHT, XONLY_G, action_payload,  # noqa: E402
                      bet_payload, coin_to_sats, find_litecoind, parse_block, parse_tx,
                      sats_to_coin, txid_of)
from cards import card_of  # noqa: E402
from checks import Cases, Failed, Skipped, WorkDir, check  # noqa: E402
from daemon import litecoind_daemon  # noqa: E402
from nodes import RpcError  # noqa: E402
from procs import HarnessError, install_cleanup, kill9, kill_children  # noqa: E402
from tool import replay  # noqa: E402

MIN_BET = 10000
MAX_BET = 10 ** 9
TIMEOUT_BLOCKS = 12


# check_eq() of these tests shows the values whole (str)
check_eq = functools.partial(checks.check_eq, show=str)


class Ctx:
    def __init__(self, workdir, hashjack=None, hashjackd=None):
        self.workdir = workdir
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self._node = None
        self._dealer = None

    @property
    def node(self):
        """One node (MWEB off) shared by the cases that do not restart it,
        with 101 blocks mined and a dealer wallet."""
        if self._node is None or not self._node.running():
            n = Litecoind(workdir=os.path.join(self.workdir, "ltc-main")).start()
            n.mine(101)
            self._dealer = n.new_address("dealer")
            self._node = n
        return self._node

    @property
    def dealer(self):
        self.node
        return self._dealer


def raw_post(port, body, auth=None):
    """(HTTP status, body) of a POST, with a given Authorization or none."""
    h = {"Content-Type": "application/json"}
    if auth:
        h["Authorization"] = "Basic " + base64.b64encode(auth.encode()).decode()
    req = urllib.request.Request("http://127.0.0.1:%d/" % port, json.dumps(body).encode(), h)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def outputs_of(raw):
    return [(o["value"], o["script"]) for o in parse_tx(raw)["vout"]]


# --------------------------------------------------------------------------
# Cases

def case_amounts(ctx):
    """Base units <-> coin strings, exact, no float anywhere."""
    check_eq(sats_to_coin(0), "0.00000000", "0")
    check_eq(sats_to_coin(1), "0.00000001", "1")
    check_eq(sats_to_coin(2100000000000000), "21000000.00000000", "21M coins")
    check_eq(coin_to_sats(Decimal("0.29999999")), 29999999, "Decimal")
    check_eq(coin_to_sats("50"), 50 * COIN, "str")
    for bad in (0.1, "0.000000001", -1):
        try:
            (coin_to_sats if not isinstance(bad, int) else sats_to_coin)(bad)
        except (TypeError, ValueError):
            continue
        raise Failed("%r accepted" % (bad,))
    check_eq(bet_payload(), "484a0101" + XONLY_G, "bet payload")
    check_eq(len(action_payload("Hit")) // 2, 4 + 8 + 64, "hit payload length")
    return "ok"


def case_start_stop_cookie(ctx):
    """A node of its own: RPC on 127.0.0.1 only with the cookie (no auth or
    a wrong one: 401); JSON-RPC 1.0-style replies; a failed call is HTTP 500
    (404 for an unknown method) with the error in the body, a batch HTTP
    200 with one error per element; restart keeps the chain and loads the
    wallets again under a new cookie; stop exits 0 and the port closes."""
    n = Litecoind(workdir=os.path.join(ctx.workdir, "ltc-cookie")).start()
    try:
        port = n.port
        cookie = n.cookie()
        check(cookie.startswith("__cookie__:"), "cookie %r" % cookie)
        body = {"jsonrpc": "1.0", "id": 1, "method": "getblockcount", "params": []}
        check_eq(raw_post(port, body)[0], 401, "no auth")
        check_eq(raw_post(port, body, "__cookie__:00")[0], 401, "wrong cookie")
        st, text = raw_post(port, body, cookie)
        check_eq((st, json.loads(text)), (200, {"result": 0, "error": None, "id": 1}),
                 "reply (no \"jsonrpc\" member)")
        st, text = raw_post(port, dict(body, method="getblockhash", params=[5]), cookie)
        check_eq((st, json.loads(text)["error"]["code"]), (500, -8), "failed call")
        st, text = raw_post(port, dict(body, method="nosuch"), cookie)
        check_eq((st, json.loads(text)["error"]["code"]), (404, -32601), "unknown method")
        st, text = raw_post(port, [dict(body, id=1, method="getblockhash", params=[0]),
                                   dict(body, id=2, method="getblockhash", params=[5])], cookie)
        r = json.loads(text)
        check_eq((st, [x["id"] for x in r], r[0]["result"] == n.genesis(),
                  r[1]["error"]["code"]), (200, [1, 2], True, -8), "batch")
        n.mine(3)
        w = n.create_wallet("w1")
        a = w.new_address()
        n.restart()
        check_eq(n.port, port, "port after restart")
        check(n.cookie() != cookie, "the cookie did not change on restart")
        check_eq(n.height(), 3, "height after restart")
        check(n.wallet("w1").rpc("getaddressinfo", a)["ismine"], "w1 lost its address")
        check_eq(n.stop(), 0, "exit status of a clean stop")
        check(not os.path.exists(n.cookie_file), "cookie left after a clean stop")
        try:
            raw_post(port, body, cookie)
            raise Failed("port %d still answers after stop" % port)
        except urllib.error.URLError:
            pass
    finally:
        n.stop()
    return "port %d, cookie auth, restart, stop" % port


def case_split_action(ctx):
    """A funded player sends a Bet paying the dealer 30000 + 45000 in two
    outputs: the raw transaction (from the node, not from what the harness
    kept) has both outputs to the dealer's script with those values, the
    OP_RETURN with the payload bytes, inputs signed; it is mined in the next
    block exactly."""
    n, d = ctx.node, ctx.dealer
    n.fund("split", 2 * COIN)
    payload = bet_payload()
    txid = n.send_action("split", d, [30000, 45000], payload)
    raw = n.raw_tx(txid)                     # from the mempool
    tx = parse_tx(raw)
    check_eq(tx["txid"], txid, "txid of the raw transaction")
    script = n.script_of(d)
    check(script.startswith("0014") and len(script) == 44, "dealer script %s" % script)
    to_dealer = [v for v, s in outputs_of(raw) if s == script]
    check_eq(to_dealer, [30000, 45000], "outputs to the dealer")
    rets = [s for v, s in outputs_of(raw) if s.startswith("6a")]
    check_eq(rets, ["6a24" + payload], "OP_RETURN outputs")
    check_eq([v for v, s in outputs_of(raw) if s.startswith("6a")], [0], "OP_RETURN value")
    check(all(i["script"] == "" for i in tx["vin"]) and tx["flag"] == 1,
          "segwit inputs expected")
    dec = n.rpc("decoderawtransaction", raw)
    check_eq(sorted(coin_to_sats(o["value"]) for o in dec["vout"]
                    if o["scriptPubKey"].get("addresses") == [d]), [30000, 45000],
             "the node's decoding")
    [h] = n.mine(1, expect=[txid])
    check(txid in n.block(h)["tx"], "not in block")
    return "tx %s: 2 outputs to %s, %d outputs in all" % (txid[:16], d, len(tx["vout"]))


def case_zero_value_action(ctx):
    """An action paying the dealer nothing: one OP_RETURN (76 bytes, pushed
    with OP_PUSHDATA1), no output to the dealer; funded by the wallet's
    inputs and change."""
    n, d = ctx.node, ctx.dealer
    n.fund("zero", COIN)
    payload = action_payload("Stand", short_id="ab" * 8, sig="cd" * 64)
    txid = n.send_action("zero", d, 0, payload)
    raw = n.raw_tx(txid)
    outs = outputs_of(raw)
    check_eq([s for v, s in outs if s == n.script_of(d)], [], "outputs to the dealer")
    check_eq([(v, s) for v, s in outs if s.startswith("6a")], [(0, "6a4c4c" + payload)],
             "OP_RETURN")
    n.mine(1, expect=[txid])
    return "%d outputs (OP_RETURN + change)" % len(outs)


def case_grind(ctx):
    """grind("QH") with a transaction pending: the accepted block's hash
    (computed here from its raw header) gives the Queen of Hearts by the
    protocol's rule; the pending transaction is in it; the tries before were
    invalidated (getchaintips), the tip is the ground block."""
    n, d = ctx.node, ctx.dealer
    n.fund("grinder", COIN)
    txid = n.send_action("grinder", d, 20000, bet_payload())
    h0 = n.height()
    b, tries = n.grind("QH", expect=[txid])
    check_eq(n.height(), h0 + 1, "height")
    raw = n.raw_block(h0 + 1)
    blk = parse_block(raw)
    check_eq(blk["hash"], b["hash"], "hash of the raw header")
    c = card_of(blk["hash"])
    check(c is not None and c["code"] == "QH", "card %s" % c)
    check_eq([txid_of(t) for t in blk["txs"]][1:], [txid], "block transactions")
    invalid = [t for t in n.rpc("getchaintips") if t["status"] == "invalid"
               and t["height"] == h0 + 1]
    check(len(invalid) >= tries - 1, "%d invalid tips for %d tries" % (len(invalid), tries))
    b2, t2 = n.grind(["A", "T"])
    check(card_of(b2["hash"])["value"] in (1, 10), "second grind")
    return "QH after %d tries, then A/T after %d" % (tries, t2)


def case_reorg(ctx):
    """reorg(2) with a transaction in the tip block: both blocks replaced,
    one more on top; the old ones are invalid (confirmations -1); the
    transaction is in the new chain."""
    n, d = ctx.node, ctx.dealer
    n.fund("reorger", COIN)
    n.mine(2)
    txid = n.send_action("reorger", d, 25000, bet_payload())
    n.mine(1, expect=[txid])
    tip = n.height()
    changed = n.reorg(2)
    check_eq(sorted(changed), [tip - 1, tip], "replaced heights")
    check_eq(n.height(), tip + 1, "new tip")
    for h, (old, new) in changed.items():
        check(old != new, "block %d unchanged" % h)
        check_eq(n.rpc("getblockheader", old)["confirmations"], -1, "old block %d" % h)
        check_eq(n.block_hash(h), new, "block %d" % h)
    found = [h for h in (tip - 1, tip, tip + 1) if txid in n.block(h)["tx"]]
    check_eq(found, [tip - 1], "the transaction went into the first new block")
    return "blocks %d..%d replaced" % (tip - 1, tip)


def _check_export(n, doc, first, last, dealer):
    check_eq(list(doc), ["chain", "genesis", "dealer", "rules", "blocks"], "keys")
    check_eq((doc["chain"], doc["genesis"], doc["dealer"]),
             ("bitcoin", n.block_hash(0), dealer), "header")
    check_eq(doc["rules"], {"preset": "bethash", "min_bet": str(MIN_BET),
                            "max_bet": str(MAX_BET), "timeout_blocks": TIMEOUT_BLOCKS}, "rules")
    check_eq([b["height"] for b in doc["blocks"]], list(range(first, last + 1)), "heights")
    ntx = 0
    for b in doc["blocks"]:
        check_eq(list(b), ["height", "hash", "parent", "txs"], "block keys")
        blk = parse_block(n.raw_block(b["height"]))
        check_eq((b["hash"], b["parent"]), (blk["hash"], blk["parent"]),
                 "hash and parent of %d" % b["height"])
        check_eq(b["txs"], blk["txs"], "transactions of %d" % b["height"])
        check_eq([txid_of(t) for t in b["txs"]], n.block(b["hash"])["tx"],
                 "txids of %d" % b["height"])
        ntx += len(b["txs"])
    return ntx


def case_export(ctx):
    """export(): the Bitcoin replay document; every block's hash and parent
    as computed from its raw header, and its txs exactly the transactions
    of the raw block (getblock 0), in order.  With --hashjack, `hashjack
    replay` of it gives one line per block with the card of its hash."""
    n, d = ctx.node, ctx.dealer
    n.fund("exporter", COIN)
    first = n.height()
    t1 = n.send_action("exporter", d, [15000, 16000], bet_payload())
    t2 = n.send_action("exporter", d, 0, action_payload("Hit"))
    n.mine(1, expect=[t1, t2])
    n.mine(3)
    last = n.height()
    doc = n.export(first, last, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS)
    ntx = _check_export(n, doc, first, last, d)
    json.dumps(doc)
    if not ctx.hashjack:
        return "%d blocks, %d txs (no --hashjack: replay not run)" % (last - first + 1, ntx)
    try:
        lines, _ = replay(doc, ctx.hashjack, ctx.workdir)
    except HarnessError as e:
        if 'unknown key "genesis"' in str(e) or "not supported" in str(e):
            raise Skipped("hashjack replay does not take the Bitcoin format yet: %s" % e)
        raise
    check_eq([(l["height"], l["hash"], l["parent"]) for l in lines],
             [(b["height"], b["hash"], b["parent"]) for b in doc["blocks"]], "replay lines")
    for l in lines:
        check_eq(l.get("card"), card_of(l["hash"]), "card of %d" % l["height"])
    return "%d blocks, %d txs, replayed" % (last - first + 1, ntx)


def case_kill9_restart(ctx):
    """kill -9 and start again: the node comes back at its last flushed tip
    (flush() after a transaction was mined), the 4 blocks mined after it are
    gone and its transaction is not; the wallets are back, under a new
    cookie; mining goes on."""
    n = Litecoind(workdir=os.path.join(ctx.workdir, "ltc-kill")).start()
    try:
        d = n.new_address("dealer")
        n.fund("p", COIN)
        txid = n.send_action("p", d, 20000, bet_payload())
        n.mine(1, expect=[txid])
        n.mine(2)
        kept = n.flush()
        check_eq(kept, n.height(), "flushed height")
        kept_hash = n.block_hash(kept)
        lost = n.mine(4)
        cookie = n.cookie()
        check_eq(kill9(n), -9, "exit status of kill -9")
        n.start()
        check_eq((n.height(), n.block_hash(kept)), (kept, kept_hash), "tip after kill -9")
        check(n.cookie() != cookie, "cookie unchanged")
        check_eq(n.wallet("p").rpc("gettransaction", txid)["confirmations"], 3, "wallet tx")
        check(not any(_known(n, h) for h in lost), "the node still knows a lost block")
        n.mine(4)
        check_eq(n.height(), kept + 4, "mining after the restart")
    finally:
        n.stop()
    return "back at the flushed tip %d, 4 later blocks lost" % kept


def _known(n, h):
    try:
        n.rpc("getblockheader", h)
        return True
    except RpcError:
        return False


def case_mweb(ctx):
    """mweb=True: MWEB activates at 432 (the harness makes the peg-in at
    431), mining goes on past 450; blocks from 432 carry MWEB data after
    their transactions and end with the HogEx; an action after the
    activation is mined; the funder holds no MWEB coins; the export of
    blocks across the activation matches the raw blocks."""
    n = Litecoind(workdir=os.path.join(ctx.workdir, "ltc-mweb"), mweb=True).start()
    try:
        d = n.new_address("dealer")
        n.mine(440)
        check(n.mweb_active(), "MWEB not active at %d" % n.height())
        n.fund("p", COIN)
        txid = n.send_action("p", d, [20000, 30000], bet_payload())
        n.mine(1, expect=[txid])
        n.mine(20)
        check(n.height() > 450, "height %d" % n.height())
        for h in (431, 432, n.height()):
            blk = parse_block(n.raw_block(h))
            b = n.block(h, 1)
            check_eq("mweb" in b, h >= MWEB_HEIGHT, "mweb in block %d" % h)
            check_eq(blk["rest"] != "", h >= MWEB_HEIGHT, "MWEB data after block %d" % h)
            if h >= MWEB_HEIGHT:
                check_eq(parse_tx(blk["txs"][-1])["flag"] & 8, 8, "HogEx of %d" % h)
        check(n._pegin in n.block(MWEB_HEIGHT)["tx"], "peg-in not in block 432")
        check_eq([u["address"] for u in n.wallet("funder").rpc("listunspent", 0)
                  if not u["address"].startswith("rltc1")], [], "funder's MWEB coins")
        first = MWEB_HEIGHT - 2
        doc = n.export(first, first + 5, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS)
        _check_export(n, doc, first, first + 5, d)
        b, tries = n.grind("5")
        check_eq(card_of(b["hash"])["rank"], "5", "ground card with MWEB")
        n.reorg(2)
        n.mine(2)
        tip = n.height()
    finally:
        n.stop()
    return "tip %d, MWEB active since 432" % tip


def case_daemon_config(ctx):
    """daemon.Hashjackd on a Litecoind writes the Bitcoin-family [chain] keys;
    with --hashjackd: --check-config accepts them (skipped while the daemon
    refuses the family), and the daemon deals the blocks as
    `hashjack replay` does."""
    n, d = ctx.node, ctx.dealer
    dm = litecoind_daemon(ctx.hashjackd or "/bin/false", n, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS,
                          confirmations=2, start_height=n.height(),
                          workdir=os.path.join(ctx.workdir, "daemon"))
    with open(dm.conf) as f:
        conf = f.read()
    for line in ("family = bitcoin", "coin = litecoin", "rpc_url = %s" % n.url,
                 "rpc_cookie_file = %s" % n.cookie_file, "confirmations = 2",
                 "poll_interval_ms = 100", "address = %s" % d):
        check(("\n%s\n" % line) in conf, "%r not in the config:\n%s" % (line, conf))
    if not ctx.hashjackd:
        return "config written (no --hashjackd)"
    st, out, err = dm.check_config()
    if st != 0:
        if "bitcoin" in err.lower() or "unknown key" in err:
            raise Skipped("this hashjackd refuses the config: %s" % err.strip())
        raise Failed("--check-config exited %d: %s" % (st, err))
    first = n.height()
    dm.start()
    try:
        n.fund("daemon-p", COIN)
        txid = n.send_action("daemon-p", d, 20000, bet_payload())
        n.mine(1, expect=[txid])
        n.mine(6)
        last = n.height() - 1
        dm.wait_height(last, timeout=30)
        doc = n.export(first, last, d, MIN_BET, MAX_BET, TIMEOUT_BLOCKS)
        _, text = replay(doc, ctx.hashjack, ctx.workdir)
        check_eq(dm.log_bytes().decode(), text, "daemon log vs hashjack replay")
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
    finally:
        dm.stop()
    return "log == replay for blocks %d..%d" % (first, last)


CASES = [case_amounts, case_start_stop_cookie, case_split_action, case_zero_value_action,
         case_grind, case_reorg, case_export, case_kill9_restart, case_mweb,
         case_daemon_config]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool: also replay the export")
    ap.add_argument("--hashjackd", help="hashjackd: also run the daemon on the node")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="run only cases whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=300, help="deadline for the whole run (s)")
    args = ap.parse_args()
    install_cleanup(args.timeout)
    find_litecoind()      # a clear message when it is missing
    wd = WorkDir("hj-e2e-ltc-", args.keep)
    ctx = Ctx(wd.path, args.hashjack, args.hashjackd)
    cases = Cases(22)
    t0 = time.monotonic()
    try:
        cases.run(ctx, CASES, args.only)
    finally:
        kill_children()
        wd.close(cases.failed)
    print("%d passed, %d failed%s in %.1fs" % (cases.passed, cases.failed,
                                               ", %d skipped" % cases.skipped
                                               if cases.skipped else "",
                                               time.monotonic() - t0))
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
