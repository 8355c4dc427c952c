#!/usr/bin/env python3
"""Prints a hashjack card log (docs/LOG.md, JSON Lines, format version 1 or 2)
one readable line per block: height, card, and a short summary of the
block's events.  Version 2 (protocol v1.1) adds the peek card of a Peek
("peek: dealer blackjack" or "peek: clear, set aside"), the blocks skipped
for a dealer's second card after a clear peek, and side bets.

    scripts/cardlog_pretty.py [--follow] [--from-end] [FILE|-]

With --follow it waits for FILE to appear and keeps printing lines as they
are appended (like tail -F: a truncated or replaced file is read again from
its start).  Amounts are shown in ether when --unit eth (the default), else
in base units.

    1042  9H  | a1b2 Bet 0.01 by 0x7099..79c8 | 49fa P0 | 49fa SETTLE 0x7099..79c8: D 10H 7C=17 | h0 9S 7D 5C=21 Win | staked 0.01 paid 0.02 (+0.01)
    1043  KD  | 5c3e peek: dealer blackjack
    1050  7S  | 77d0 peek: clear, set aside
    1052  QH  | 77d0 skip: no blackjack for D
"""

import argparse
import json
import os
import signal
import sys
import time

SUIT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def rid(r):
    return r[2:6] if r.startswith("0x") else r[:4]


def who(a):
    return a[:6] + ".." + a[-4:]


class Fmt:
    def __init__(self, unit="eth", symbols=False):
        self.unit = unit
        self.symbols = symbols

    def amount(self, s):
        n = int(s)
        if self.unit != "eth":
            return str(n)
        whole, frac = divmod(n, 10 ** 18)
        if frac == 0:
            return str(whole)
        return ("%d.%018d" % (whole, frac)).rstrip("0")

    def card(self, code):
        if self.symbols:
            return code[:-1] + SUIT[code[-1]]
        return code

    def cards(self, cs):
        return " ".join(self.card(c) for c in cs)

    def event(self, e):
        t = e["type"]
        if t == "draw":
            to = "D" if e["handOwner"] == "Dealer" else "P%d" % e["handIndex"]
            return "%s %s" % (rid(e["round"]), to)
        if t == "peek":
            return "%s peek: %s" % (rid(e["round"]), "dealer blackjack" if e["dealerBlackjack"]
                                    else "clear, set aside")
        if t == "skip":
            return "%s skip: no blackjack for D" % rid(e["round"])
        if t == "sidebets":
            sides = ", ".join("%s %s %s" % (k, e[k]["status"], self.amount(e[k]["payout"]))
                              for k in ("perfectPairs", "poker") if k in e)
            return "%s sidebets: %s; staked %s paid %s" % (
                rid(e["round"]), sides, self.amount(e["betAmount"]), self.amount(e["payout"]))
        if t == "action":
            a = e["action"]
            if a == "Bet":
                sides = "".join(" +%s %s" % (k, self.amount(e[k]))
                                for k in ("perfectPairs", "poker") if k in e)
                return "%s Bet %s%s by %s" % (rid(e["round"]), self.amount(e["stake"]), sides,
                                              who(e["player"]))
            extra = ""
            if a == "Peek":
                extra = " insured %s" % self.amount(e["stake"]) if e.get("insurance") else ""
            elif a in ("Double", "Split"):
                extra = " h%d +%s" % (e["handIndex"], self.amount(e["stake"]))
            elif "handIndex" in e:
                extra = " h%d" % e["handIndex"]
            return "%s %s%s" % (rid(e["round"]), a, extra)
        if t == "reject":
            return "REJECT %s from %s: %s%s" % (
                e.get("action", "?"), who(e["from"]), e["reason"],
                ", refund %s" % self.amount(e["refund"]) if e["refund"] != "0" else "")
        if t == "deposit":
            return "deposit %s from %s" % (self.amount(e["value"]), who(e["from"]))
        if t == "ignored":
            return "ignored tx %s from %s (failed)" % (e["tx"][:10], who(e["from"]))
        if t == "timeout":
            h = " h%d" % e["handIndex"] if "handIndex" in e else ""
            return "%s timeout: %s%s" % (rid(e["round"]), e["action"], h)
        if t == "settle":
            d = e["dealerHand"]
            hands = "; ".join("h%d %s=%d %s" % (h["handIndex"], self.cards(h["cards"]), h["total"],
                                                h["status"]) for h in e["playerHands"])
            net = int(e["payout"]) - int(e["betAmount"])
            sign = "+" if net >= 0 else "-"
            ins = ""
            if "insurance" in e:
                ins = ", insurance paid %s" % self.amount(e["insurance"]["payout"])
            return "%s SETTLE %s: D %s=%d | %s%s | staked %s paid %s (%s%s)" % (
                rid(e["round"]), who(e["player"]), self.cards(d["cards"]), d["total"], hands, ins,
                self.amount(e["betAmount"]), self.amount(e["payout"]), sign, self.amount(str(abs(net))))
        return t

    def line(self, l):
        if l.get("v") not in (1, 2):
            raise ValueError("format version %r, not 1 or 2" % l.get("v"))
        card = "void" if l.get("void") else self.card(l["card"]["code"])
        parts = [self.event(e) for e in l["events"]]
        s = "%8d  %-4s" % (l["height"], card)
        if parts:
            s += " | " + " | ".join(parts)
        return s


def follow(path, fmt, from_end, poll=0.2):
    offset, ino, buf = None, None, b""
    while True:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            time.sleep(poll)
            continue
        if offset is None:
            offset = st.st_size if from_end else 0
        if ino is not None and (st.st_ino != ino or st.st_size < offset):
            offset, buf = 0, b""
        ino = st.st_ino
        if st.st_size > offset:
            with open(path, "rb") as f:
                f.seek(offset)
                data = f.read()
            offset += len(data)
            buf += data
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                show(raw, fmt)
            sys.stdout.flush()
        time.sleep(poll)


def show(raw, fmt):
    if not raw.strip():
        return
    try:
        print(fmt.line(json.loads(raw)))
    except (ValueError, KeyError, TypeError) as e:
        print("?? unreadable line (%s): %s" % (e, raw[:120]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("-f", "--follow", action="store_true")
    ap.add_argument("--from-end", action="store_true", help="with --follow: only new lines")
    ap.add_argument("--unit", choices=("eth", "wei"), default="eth")
    ap.add_argument("--symbols", action="store_true", help="suit symbols instead of letters")
    a = ap.parse_args()
    fmt = Fmt(a.unit, a.symbols)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        if a.follow:
            if a.file == "-":
                ap.error("--follow needs a file")
            follow(a.file, fmt, a.from_end)
        else:
            src = sys.stdin.buffer if a.file == "-" else open(a.file, "rb")
            for raw in src:
                show(raw, fmt)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
