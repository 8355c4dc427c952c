#!/usr/bin/env python3
"""Capture Litecoin MWEB test vectors from a private litecoind regtest node.

Writes tests/data/btc/ltc_mweb_regtest.h (C string constants and the txids,
wtxids and outputs the node itself reports), used by tests/test_btc_tx.c.
Every run makes new keys and times, so the vectors differ from run to run;
the header in the repository is one such run, kept as it was captured.

    tests/data/btc/ltc_mweb_capture.py [--out FILE] [--keep]

Needs litecoind and litecoin-cli 0.21.2 (Debian package litecoind).  The
node runs on 127.0.0.1 only, in a temporary directory, and is stopped at
the end.  The chain it builds:

  431  coinbases only (MWEB activates at 432 on regtest)
  432  the first peg-in (sendtoaddress to an MWEB address, sent at 431:
       block 432 cannot be mined without one, "bad-txns-vin-empty")
  433  nothing but the coinbase and the HogEx (an empty extension block)
  434  an MWEB-to-MWEB transfer; a payment to a P2PKH address of wallet w2
  435  an OP_RETURN 484a... transaction paying the dealer; a peg-in whose
       only input is P2PKH (so the block holds it in legacy form); a
       peg-out to the dealer (an output of the HogEx)
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))


class Node:
    def __init__(self, datadir):
        self.datadir = datadir
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["litecoind", "-regtest", "-datadir=" + datadir,
             "-rpcport=%d" % self.port, "-rpcbind=127.0.0.1",
             "-rpcallowip=127.0.0.1", "-listen=0", "-fallbackfee=0.0001",
             "-printtoconsole=0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.cli("-rpcwait", "getblockchaininfo")

    def cli(self, *args, wallet=None):
        cmd = ["litecoin-cli", "-regtest", "-datadir=" + self.datadir,
               "-rpcport=%d" % self.port]
        if wallet:
            cmd.append("-rpcwallet=" + wallet)
        out = subprocess.run(cmd + [str(a) for a in args], check=True,
                             capture_output=True, text=True).stdout.strip()
        try:
            return json.loads(out, parse_float=Decimal)
        except ValueError:
            return out

    def stop(self):
        try:
            self.cli("stop")
        finally:
            self.proc.wait(timeout=60)


def mine(node, n, addr):
    return node.cli("generatetoaddress", n, addr)


def lock_canonical(node, wallet):
    """Locks the wallet's canonical coins, so that it pays from MWEB."""
    coins = [{"txid": u["txid"], "vout": u["vout"]}
             for u in node.cli("listunspent", 0, wallet=wallet)
             if "vout" in u]
    node.cli("lockunspent", "false", json.dumps(coins), wallet=wallet)


def block_vector(node, height, name, what):
    h = node.cli("getblockhash", height)
    raw = node.cli("getblock", h, 0)
    verbose = node.cli("getblock", h, 2)
    txs = []
    for t in verbose["tx"]:
        outs = [(int(o["value"] * 10**8), o["scriptPubKey"]["hex"])
                for o in t["vout"]]
        txs.append({"txid": t["txid"], "wtxid": t["hash"], "outs": outs})
    return {"name": name, "what": what, "height": height, "hash": h,
            "hex": raw, "txs": txs,
            "mweb_height": verbose.get("mweb", {}).get("height", -1)}


def c_string(hexstr, indent="\t"):
    """Pieces of 72 digits, one a line, within clang-format's 80 columns."""
    return "\n".join('%s"%s"' % (indent, hexstr[i:i + 72])
                     for i in range(0, len(hexstr), 72))


def write_header(path, blocks, txs, dealer_spk):
    w = []
    w.append("/*")
    w.append(" * Litecoin MWEB vectors, captured from a private litecoind "
             "0.21.2 regtest")
    w.append(" * node by tests/data/btc/ltc_mweb_capture.py (see there for "
             "the chain it")
    w.append(" * builds).  Generated: edit the script, not this file.  Every "
             "txid, wtxid")
    w.append(" * and output below is what the node reported (getblock "
             "<hash> 2,")
    w.append(" * decoderawtransaction), not what the code under test "
             "computes.")
    w.append(" */")
    w.append("")
    w.append("/* The dealer's scriptPubKey in block 435 (a P2WPKH of the "
             "node's wallet). */")
    w.append('#define LTC_DEALER_SPK "%s"' % dealer_spk)
    w.append("")
    for b in blocks:
        cname = "LTC_" + b["name"].upper()
        for i, t in enumerate(b["txs"]):
            w.append("static const struct ltc_out %s_TX%d_OUT[] = {"
                     % (cname, i))
            for v, spk in t["outs"]:
                w.append('\t{%dULL, "%s"},' % (v, spk))
            w.append("};")
        w.append("static const struct ltc_tx %s_TX[] = {" % cname)
        for i, t in enumerate(b["txs"]):
            w.append('\t{"%s",\n\t "%s",\n\t %s_TX%d_OUT,\n\t %d},'
                     % (t["txid"], t["wtxid"], cname, i, len(t["outs"])))
        w.append("};")
        w.append("/* Height %d: %s. */" % (b["height"], b["what"]))
        w.append("static const char %s_HEX[] =" % cname)
        w.append(c_string(b["hex"]) + ";")
        w.append("")
    w.append("static const struct ltc_block LTC_BLOCKS[] = {")
    for b in blocks:
        cname = "LTC_" + b["name"].upper()
        w.append('\t{%d, "%s", %s_HEX, %s_TX, %d},'
                 % (b["height"], b["hash"], cname, cname, len(b["txs"])))
    w.append("};")
    w.append("")
    for t in txs:
        w.append("/* %s */" % t["what"])
        w.append('#define %s_TXID "%s"' % (t["name"], t["txid"]))
        w.append('#define %s_WTXID "%s"' % (t["name"], t["wtxid"]))
        w.append("static const char %s_HEX[] =" % t["name"])
        w.append(c_string(t["hex"]) + ";")
        w.append("")
    with open(path, "w") as f:
        f.write("\n".join(w))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE,
                                                  "ltc_mweb_regtest.h"))
    ap.add_argument("--keep", action="store_true",
                    help="keep the node's directory")
    args = ap.parse_args()
    datadir = tempfile.mkdtemp(prefix="ltc-mweb-")
    node = Node(datadir)
    try:
        n = node
        n.cli("createwallet", "w")
        n.cli("createwallet", "w2")
        n.cli("createwallet", "dealer")
        a = n.cli("getnewaddress", wallet="w")
        mine(n, 431, a)

        m1 = n.cli("getnewaddress", "", "mweb", wallet="w")
        pegin = n.cli("sendtoaddress", m1, 1, wallet="w")
        pegin_hex = n.cli("gettransaction", pegin, wallet="w")["hex"]
        mine(n, 1, a)  # 432
        mine(n, 1, a)  # 433

        lock_canonical(n, "w")
        m2 = n.cli("getnewaddress", "", "mweb", wallet="w")
        transfer = n.cli("sendtoaddress", m2, 0.5, wallet="w")
        mweb_only_hex = n.cli("getrawtransaction", transfer)
        n.cli("lockunspent", "true", wallet="w")
        legacy = n.cli("getnewaddress", "", "legacy", wallet="w2")
        n.cli("sendtoaddress", legacy, 3, wallet="w")
        mine(n, 1, a)  # 434

        dealer = n.cli("getnewaddress", "", "bech32", wallet="dealer")
        dealer_spk = n.cli("getaddressinfo", dealer,
                           wallet="dealer")["scriptPubKey"]
        raw = n.cli("createrawtransaction", "[]",
                    json.dumps([{"data": "484a01020304"},
                                {dealer: 0.0625}]), wallet="w")
        funded = n.cli("fundrawtransaction", raw, wallet="w")["hex"]
        signed = n.cli("signrawtransactionwithwallet", funded,
                       wallet="w")["hex"]
        n.cli("sendrawtransaction", signed)
        legacy_pegin = n.cli("sendtoaddress", m2, 1.5, wallet="w2")
        legacy_pegin_hex = n.cli("getrawtransaction", legacy_pegin)
        lock_canonical(n, "w")
        n.cli("sendtoaddress", dealer, 0.375, wallet="w")
        mine(n, 1, a)  # 435

        blocks = [
            block_vector(n, 432, "b432", "the first peg-in: coinbase, "
                         "peg-in (segwit), the first HogEx"),
            block_vector(n, 433, "b433", "coinbase and HogEx only, an "
                         "empty extension block"),
            block_vector(n, 434, "b434", "an MWEB-to-MWEB transfer (in "
                         "the extension block only) and a payment to "
                         "P2PKH"),
            block_vector(n, 435, "b435", "an OP_RETURN 484a transaction "
                         "paying the dealer, a peg-in in legacy form, a "
                         "peg-out to the dealer (HogEx output 1)"),
        ]
        txs = []
        for name, h, what in [
                ("LTC_PEGIN_WALLET", pegin_hex,
                 "The peg-in of block 432 as the wallet holds it "
                 "(gettransaction): flag 09, its MWEB transaction "
                 "attached."),
                ("LTC_PEGIN_MEMPOOL", legacy_pegin_hex,
                 "The legacy peg-in of block 435 as the mempool held it "
                 "(getrawtransaction): flag 08, its MWEB transaction "
                 "attached."),
                ("LTC_MWEB_ONLY", mweb_only_hex,
                 "The MWEB-to-MWEB transfer of block 434 as the mempool "
                 "held it: flag 08, no canonical input or output.")]:
            d = n.cli("decoderawtransaction", h)
            txs.append({"name": name, "hex": h, "txid": d["txid"],
                        "wtxid": d["hash"], "what": what})
        # The wallet picks the coins; make sure it picked as intended.
        shape = [[len(t["outs"]) for t in b["txs"]] for b in blocks]
        assert len(shape[0]) == 3 and len(shape[1]) == 2, shape
        assert len(shape[2]) == 3, shape
        b435 = blocks[3]["txs"]
        assert len(b435) == 4 and len(b435[-1]["outs"]) == 2, shape
        assert b435[-1]["outs"][1][1] == dealer_spk, b435[-1]
        spks = [o[1] for t in b435[1:-1] for o in t["outs"]]
        assert any(x.startswith("6a06484a") for x in spks), b435
        assert any(x.startswith("5920") for x in spks), b435
        for b in blocks:
            sys.stderr.write("block %d: %d bytes, %d transactions\n"
                             % (b["height"], len(b["hex"]) // 2,
                                len(b["txs"])))
        write_header(args.out, blocks, txs, dealer_spk)
    finally:
        node.stop()
        if not args.keep:
            shutil.rmtree(datadir, ignore_errors=True)
    subprocess.run(["clang-format", "-i", args.out], check=False)
    sys.stderr.write("wrote %s\n" % args.out)


if __name__ == "__main__":
    main()
