#!/usr/bin/env python3
"""`hashjack verify` on the Bitcoin family: a dealer's card log checked
against a litecoind in regtest, as a watcher runs it (tests/e2e/
test_verify.py is the same on EVM).

    /usr/bin/python3 tests/e2e/test_ltc_verify.py --hashjack build/test/hashjack \\
        --hashjackd build/test/hashjackd [--keep] [--timeout S]

hashjackd deals as tests/e2e/test_ltc_game.py sets it up (its Session:
confirmations 2, timeout_blocks 3, bethash with both side bets offered,
[chain] start_height its first block) while scenarios of tests/e2e/book.py
and one of this file are played with signed actions from the node's
wallets: a split hand with a wrong_value Split refunded, an insured Peek
against a dealer blackjack, a Double, a perfect pair won, Bets rejected
and refunded, actions whose BIP-340 signatures are bad (signed by
another key, over another chain, at another seq: refunded) beside good
ones.  Between two of them the log is rotated (renamed, hashjackd
sent SIGHUP).  `hashjack verify --follow`, started with the dealer, must
have verified every block, across the rotation, when the session ends
(SIGTERM: exit 0, no failure).  Then hashjackd stops and `hashjack verify
-c` with the dealer's configuration checks:

- the whole log (both files): exit 0, "every line agrees";
- copies tampered once each, exit 1 with the block and what differs: a
  card, a settlement's payout, a rejection's refund, a dropped event, a
  dropped line, a line twice, a cut last line;
- a late log, beginning where a round is open: it verifies with [chain]
  start_height the dealer's first block (the blocks before it dealt from
  the node), and fails without start_height, saying to give it;
- wrong RPC credentials: exit 69, the node's refusal (HTTP 401) named;
  so for a cookie file that is not the node's (read again, the same);
- no configuration: the table from the dealer's `hashjack serve`
  (/v1/table: the coin from its chain), the node from --rpc and
  --rpc-cookie, the log from the file and from serve's stream: exit 0;
  a dealer address of another network than the node's: 69, both named;
- last, the node reorganised below the log's end (invalidateblock and a
  longer chain, which hashjackd, stopped, would refuse): the log leaves
  the node's chain at the fork point, said with both hashes, the lines
  before it verified (exit 3); with the next line changed to follow the
  node's chain, the first line is a line that differs (exit 1).

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout).
"""

import argparse
import json
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import test_ltc_game  # noqa: E402
from btc_node import find_litecoind  # noqa: E402
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from daemon import find_hashjackd  # noqa: E402
from logs import read_cardlog  # noqa: E402
from procs import (HarnessError, add_exit_hook, close_all, install_cleanup,  # noqa: E402
                   kill_children, wait_until)
from serve import Serve  # noqa: E402
from tool import VerifyFollower, find_hashjack, verify as hashjack_verify  # noqa: E402


class Ctx:
    """What test_ltc_game.Session asks of its runner."""

    def __init__(self, hashjack, hashjackd, workdir):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir


def sc_perfect_pair_stand(S):
    """8H, 6S up, 8H with both side bets: a perfect pair (25:1), 21+3
    lost; Stand on 16; the dealer 6+10+K busts: Win."""
    p = S.player()
    s = S.STAKE + 301
    r = S.bet(p, s, pp=book.side_stake(S, 1), t3=book.side_stake(S, 3))
    S.mine(); r.accepted_bet()
    r.draw(S.mine("8H"), 0)
    r.draw(S.mine("6S"), "D")
    b = S.mine("8H"); r.draw(b, 0)
    r.sidebets(b, pp="perfectPair", t3="sidebetLost")
    st = r.send("Stand")
    S.mine(); r.act(st, "Stand", 0)
    r.draw(S.mine("10"), "D")
    b = S.mine("K"); r.draw(b, "D")
    r.settle(b, [("Win", 2 * s)])
    return "perfect pair, 16 vs 6+10+K: Win"


# The scenarios, and after which one the log is rotated.
BEFORE_ROTATION = [book.sc_split_order, book.sc_peek_insured_dbj]
AFTER_ROTATION = [sc_perfect_pair_stand, book.sc_double_11, book.sc_bet_rejections,
                  test_ltc_game.sc_signatures]


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def conf_variant(conf, path, drop=(), add=""):
    """A copy of the configuration conf at path without the keys in drop,
    with add (lines) at the end of its [chain] section."""
    out = []
    for line in open(conf).read().splitlines():
        if line.split("=")[0].strip() in drop:
            continue
        out.append(line)
        if line.strip() == "[chain]":
            out.append(add.rstrip("\n"))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    install_cleanup(a.timeout)
    find_litecoind()      # a clear message when it is missing
    hashjack = find_hashjack(a.hashjack)
    hashjackd = find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-e2e-ltc-verify-", a.keep)
    results = []

    def case(name, fn):
        try:
            detail = fn()
            results.append((name, True))
            print("ok   %s%s" % (name, ": " + detail if detail else ""), flush=True)
        except (Failed, AssertionError, TimeoutError, HarnessError) as e:
            results.append((name, False))
            print("FAIL %s: %s" % (name, e), flush=True)

    S = None
    try:
        S = test_ltc_game.Session(Ctx(hashjack, hashjackd, wd.path), "verify",
                                  rules=book.SIDE_BETS)
        run(S, hashjack, wd, case)
    except Exception as e:  # noqa: BLE001 - reported as a failed check
        results.append(("session", False))
        print("FAIL session: %s: %s" % (type(e).__name__, e), flush=True)
    finally:
        if S is not None:
            close_all(S.close)
        kill_children()
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    wd.close(failed)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if passed and not failed else 1


def run(S, hashjack, wd, case):
    dm = S.dm
    conf = dm.conf

    def verify(log, *args, config=conf):
        return hashjack_verify(hashjack, config, log, *args)

    # -- the session, followed live ------------------------------------------

    S.mine()                                    # the first block dealt
    wait_until(lambda: os.path.exists(dm.card_log), 30, "the card log")
    live = VerifyFollower(hashjack, conf, dm.card_log)
    played = []

    def play(scenarios):
        for sc in scenarios:
            played.append("%s (%s)" % (sc.__name__[3:], sc(S)))

    play(BEFORE_ROTATION)
    # logrotate: the log renamed, then hashjackd told to open a new one
    # once it has logged what is final.
    S.mine_plain()
    dm.wait_height(S.height() - 1)
    rotated = dm.card_log + ".1"
    os.rename(dm.card_log, rotated)
    os.kill(dm.proc.pid, signal.SIGHUP)
    play(AFTER_ROTATION)
    S.mine_plain()                              # the last scenario block is final
    last = S.height() - 1
    dm.wait_height(last, timeout=60)
    check(os.path.getsize(dm.card_log) > 0, "a line in the new log")

    def follow_live():
        """The follower started with the dealer saw every block, across the
        rotation, and no failure."""
        live.wait_verified(last)
        rc = live.stop()
        check_eq(rc, 0, "exit status (stdout %r)" % live.out)
        check("was rotated: following the new file" in live.err, live.err[-500:])
        check_eq(live.out, "verified blocks %d to %d, 0 failures\n" % (S.first, last),
                 "stdout")
        return "blocks %d to %d, rotated once; played %s" % (S.first, last, "; ".join(played))
    case("follow_live", follow_live)
    check_eq(dm.stop(), 0, "hashjackd's exit status on SIGTERM")

    whole = os.path.join(wd.path, "whole.jsonl")
    with open(whole, "wb") as f:
        f.write(read_cardlog(rotated, raw=True) + read_cardlog(dm.card_log, raw=True))
    with open(whole) as f:
        lines = f.read().splitlines()
    parsed = [json.loads(l) for l in lines]
    heights = [j["height"] for j in parsed]
    check_eq(heights, list(range(S.first, last + 1)), "the log's heights")

    def tampered(name, new_lines, tail="\n"):
        path = os.path.join(wd.path, name + ".jsonl")
        with open(path, "w") as f:
            f.write("\n".join(new_lines) + tail)
        return path

    def expect(path, first_line, *args, config=conf):
        """verify fails (1) and its first line of output is first_line."""
        rc, out, err = verify(path, *args, config=config)
        check_eq(rc, 1, "exit status (stdout %r, stderr %r)" % (out[:400], err[:400]))
        got = out.splitlines()[0] if out else ""
        check_eq(got, first_line, "the first line")
        return got

    def with_event(pred):
        """(line index, event index, parsed line) of the first event for
        which pred(event) holds."""
        for i, j in enumerate(parsed):
            for k, e in enumerate(j["events"]):
                if pred(e):
                    return i, k, json.loads(lines[i])
        raise Failed("no such event in the log")

    # -- the log as written --------------------------------------------------

    def session():
        """What the log holds: the kinds of lines the cases below need."""
        evs = [e for j in parsed for e in j["events"]]
        kinds = {
            "split": any(e["type"] == "settle" and len(e["playerHands"]) == 2 for e in evs),
            "double": any(e.get("action") == "Double" and e["type"] == "action" for e in evs),
            "insurance": any(e["type"] == "settle" and "insurance" in e
                             and e["insurance"]["payout"] != "0" for e in evs),
            "side bet won": any(e["type"] == "sidebets" and e["payout"] != "0" for e in evs),
            "refund": any(e["type"] == "reject" and e["refund"] != "0" for e in evs),
            "bad signature": any(e["type"] == "reject" and e["reason"] == "bad_signature"
                                 for e in evs),
        }
        check(all(kinds.values()), "the log holds %s" % kinds)
        return "%d lines, %d events: %s" % (len(lines), len(evs), ", ".join(kinds))

    def clean():
        rc, out, err = verify(whole)
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        check_eq(out, "verified blocks %d to %d: every line agrees\n" % (S.first, last),
                 "output")
        return out.strip()

    # -- each kind of tampering, at its block ----------------------------------

    def card():
        i = len(lines) // 3
        j = json.loads(lines[i])
        old = j["card"]["code"]
        j["card"]["code"] = "KS" if old != "KS" else "QS"
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("card", m),
                      'block %d: card.code: the dealer\'s "%s", the protocol\'s "%s"'
                      % (heights[i], j["card"]["code"], old))

    def payout():
        i, k, j = with_event(lambda e: e["type"] == "settle" and e["payout"] != "0")
        old = j["events"][k]["payout"]
        j["events"][k]["payout"] = str(int(old) + 1)
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("payout", m),
                      'block %d: events[%d].payout: the dealer\'s "%d", the protocol\'s "%s"'
                      % (heights[i], k, int(old) + 1, old))

    def refund():
        i, k, j = with_event(lambda e: e["type"] == "reject" and e["refund"] != "0")
        old = j["events"][k]["refund"]
        j["events"][k]["refund"] = str(int(old) - 1)
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("refund", m),
                      'block %d: events[%d].refund: the dealer\'s "%d", the protocol\'s "%s"'
                      % (heights[i], k, int(old) - 1, old))

    def dropped_event():
        i, _, j = with_event(lambda e: e["type"] == "settle")
        gone = j["events"].pop()
        m = lines[:]
        m[i] = compact(j)
        return expect(tampered("dropped_event", m),
                      "block %d: events[%d]: the dealer's nothing, the protocol's %s"
                      % (heights[i], len(j["events"]),
                         (lambda s: s if len(s) <= 80 else s[:77] + "...")(compact(gone))))

    def dropped_line():
        i = len(lines) // 2
        return expect(tampered("dropped_line", lines[:i] + lines[i + 1:]),
                      "block %d: missing: the next line is block %d, after block %d"
                      % (heights[i], heights[i + 1], heights[i - 1]))

    def line_twice():
        i = len(lines) // 2
        return expect(tampered("line_twice", lines[:i + 1] + [lines[i]] + lines[i + 1:]),
                      "block %d: a line again: block %d after block %d"
                      % (heights[i], heights[i], heights[i]))

    def cut_last():
        path = tampered("cut_last", lines[:-1] + [lines[-1][:60]], tail="")
        return expect(path, "line %d: cut: no newline at its end (a partial line)" % len(lines))

    # -- where the log begins ----------------------------------------------------

    def late_start():
        """A log beginning at a line with an event of a round whose Bet is
        on an earlier line: with start_height the dealer's first block the
        blocks before it are dealt from the node; without start_height it
        cannot agree, and the report says why."""
        bets, i = {}, None
        for n, j in enumerate(parsed):
            for e in j["events"]:
                if e["type"] == "action" and e.get("action") == "Bet":
                    bets[e["round"]] = n
                elif e.get("round") in bets and bets[e["round"]] < n - 1 and n > 20:
                    i = n
            if i is not None:
                break
        if i is None:
            raise Failed("no round spans lines")
        path = tampered("late_start", lines[i:])
        rc, out, err = verify(path, "--chain.start_height=%d" % S.first)
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        check_eq(out, "verified blocks %d to %d: every line agrees (blocks %d to %d before "
                 "it dealt from the node, unchecked)\n"
                 % (heights[i], last, S.first, heights[i] - 1), "output")
        check("dealing blocks %d to %d from the node first" % (S.first, heights[i] - 1)
              in err, err)
        # The dealer's configuration says start_height: the same.
        rc2, out2, _ = verify(path)
        check_eq((rc2, out2), (rc, out), "with the dealer's configuration's start_height")
        # Without start_height the log's first line is taken for the
        # dealer's first block: a round open there is unknown.
        bare = conf_variant(conf, os.path.join(wd.path, "no-start.conf"), ["start_height"])
        rc, out, err = verify(path, config=bare)
        check_eq(rc, 1, "exit status without start_height (%r %r)" % (out, err))
        check(out.startswith("block "), out)
        check("was taken for the dealer's first block: if the dealer began before it, give "
              "[chain] start_height" in out, out)
        return "from block %d: %s" % (heights[i], out.splitlines()[0])

    # -- bad input -----------------------------------------------------------------

    def bad_credentials():
        bad = conf_variant(conf, os.path.join(wd.path, "bad-auth.conf"), ["rpc_cookie_file"],
                           "rpc_user = watcher\nrpc_password = not-the-password\n")
        rc, out, err = verify(whole, config=bad)
        check_eq(rc, 69, "exit status (%r %r)" % (out, err))
        check_eq(out, "", "stdout")
        check("HTTP 401 from the node, not retried (check the URL's path and the "
              "credentials)" in err, err)
        return err.strip()

    def wrong_cookie():
        path = os.path.join(wd.path, "wrong.cookie")
        with open(path, "w") as f:
            f.write("__cookie__:" + "ab" * 32 + "\n")
        rc, out, err = verify(whole, "--chain.rpc_cookie_file=" + path)
        check_eq(rc, 69, "exit status (%r %r)" % (out, err))
        check("it refuses the cookie file %s as it is" % path in err, err)
        return err.strip().splitlines()[-1]

    def table_from_api():
        srv = Serve(hashjack, dm, workdir=wd.path)
        srv.start()
        add_exit_hook(srv.stop)
        url = srv.url
        chain = dict(S.node.daemon_chain())
        p = subprocess.run([hashjack, "verify", "--table", url, "--rpc", chain["rpc_url"],
                            "--rpc-cookie", chain["rpc_cookie_file"], "--card-log", whole,
                            "--chain.start_height=%d" % json.loads(lines[0])["height"]],
                           capture_output=True, text=True, timeout=120)
        # The log from the API's stream too (the current file after the
        # rotation: the blocks before it dealt from the node).
        q = subprocess.run([hashjack, "verify", "--table", url, "--rpc", chain["rpc_url"],
                            "--rpc-cookie", chain["rpc_cookie_file"], "--card-log", url,
                            "--chain.start_height=%d" % json.loads(lines[0])["height"]],
                           capture_output=True, text=True, timeout=120)
        srv.stop()
        check_eq(p.returncode, 0, "exit status (%r %r)" % (p.stdout, p.stderr))
        check(p.stdout.endswith("every line agrees\n"), p.stdout)
        check_eq(q.returncode, 0, "from the API (%r %r)" % (q.stdout, q.stderr))
        check(q.stdout.startswith("verified blocks ") and
              (" to %d: every line agrees" % json.loads(lines[-1])["height"]) in q.stdout,
              q.stdout)
        return p.stdout.strip() + "; from the API: " + q.stdout.strip()

    def other_network():
        """The dealer's address of Litecoin's main network, the node on
        regtest: the node is not the dealer's chain."""
        addr = S.tool("address", "--key", os.path.join(S.keydir, "p1.key"), "--coin",
                      "litecoin", "--chain", "main").strip()
        check(addr.startswith("ltc1p"), addr)
        rc, out, err = verify(whole, "--dealer.address=" + addr)
        check_eq(rc, 69, "exit status (%r %r)" % (out, err))
        check_eq(out, "", "stdout")
        check('the dealer address is for addresses beginning "ltc1", but the node runs '
              'litecoin regtest, whose addresses begin "rltc1"; check [dealer] address and '
              "[chain] coin" in err, err)
        return err.strip()

    # -- a reorganisation below the log's end -----------------------------------------

    def reorg():
        """The log kept, then the node's last blocks replaced by a longer
        chain from 2 lines before the log's end: the first of them is the
        first line that differs, by its hash."""
        tip = S.node.height()
        check_eq(tip, last + 1, "the node's tip (confirmations 2)")
        first = last - 2
        replaced = S.node.reorg(tip - first + 1)
        old, new = replaced[first]
        check_eq(old, parsed[heights.index(first)]["hash"], "the log's hash of block %d" % first)
        rc, out, err = verify(whole)
        check_eq(rc, 3, "exit status (%r %r)" % (out, err))
        ls = out.splitlines()
        check_eq(ls[0], "block %d: the log's block is %s, your node's %s, both after block %d: the log "
                 "leaves your node's chain there, the fork point; a reorganisation took the log's blocks "
                 "from %d on off the chain (docs/VERIFY.md, \"A log after a reorganisation\")"
                 % (first, old, new, first - 1, first), "the first line")
        check_eq(ls[1], "verified blocks %d to %d: every line agrees; the lines after block %d are not "
                 "checked: their blocks are not your node's" % (heights[0], first - 1, first - 1),
                 "the second line")
        check_eq(len(ls), 2, "two lines")
        # The same log with the line after the fork point's first block
        # changed to follow the node's chain again: a line that differs
        # (its hash), not a fork.
        i = heights.index(first)
        j = json.loads(lines[i + 1])
        j["parent"] = new
        rc, out, err = verify(tampered("reorg_no_fork", lines[:i + 1] + [compact(j)] + lines[i + 2:]))
        check_eq(rc, 1, "exit status, the next line not after it (%r %r)" % (out, err))
        check_eq(out.splitlines()[0], 'block %d: hash: the dealer\'s "%s", the protocol\'s "%s" (the '
                 "dealer's hash is not the node's block at that height)" % (first, old, new),
                 "the first line, the next line not after it")
        return ls[0]

    for name, fn in [("session", session), ("clean", clean), ("card", card),
                     ("payout", payout), ("refund", refund),
                     ("dropped_event", dropped_event), ("dropped_line", dropped_line),
                     ("line_twice", line_twice), ("cut_last", cut_last),
                     ("late_start", late_start), ("bad_credentials", bad_credentials),
                     ("wrong_cookie", wrong_cookie), ("table_from_api", table_from_api),
                     ("other_network", other_network),
                     ("reorg", reorg)]:
        case(name, fn)


if __name__ == "__main__":
    sys.exit(main())
