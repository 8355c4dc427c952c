#!/usr/bin/env python3
"""`hashjack export` (docs/CLI.md): a node's blocks as a `hashjack replay`
document, replayed into the dealer's card log byte for byte, on both
families.

    python3 tests/e2e/test_export.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [--family evm|bitcoin] [--keep] [--timeout S]

EVM: anvil mining a block every 0.3 s, hashjackd dealing on it from a
[chain] start_height (bethash, confirmations 1, timeout 4 blocks) and
scripts/bot.py playing with four dev accounts, one round each, then (once
every round is settled: a quiet block) one more round each.  Bitcoin
family: litecoind in regtest with the game session of
tests/e2e/test_ltc_game.py (confirmations 2, timeout 3 blocks, both side
bets offered), two of the book's scenarios (tests/e2e/book.py) one after
the other, the quiet block between them.  Then, with `hashjack export -c`
and the dealer's configuration:

- the whole log's range (--from left to [chain] start_height): its replay
  is the card log byte for byte; the same document on standard output
  as in the -o file; its blocks what the Python exporter of the harness
  (evm_node.Anvil.export, btc_node.Litecoind.export) makes of them, value
  for value;
- a range from the quiet block to a block before the end, and one from
  the first block into the middle of a round: each replays into the log's
  lines of those blocks; one beginning inside a round does not (a replay
  starts with no open round), which the middle range's must avoid;
- --to left to the node's tip less the confirmations;
- refused: a range beyond the tip (75, no file left behind), --from after
  --to (64), a height that is none (64); on litecoind a node that refuses
  the credentials (69).

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import argparse
import json
import os
import subprocess
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from daemon import Hashjackd, find_hashjackd  # noqa: E402
from evm_node import Anvil  # noqa: E402
from logs import read_cardlog  # noqa: E402
from procs import (HarnessError, ROOT, add_exit_hook, close_all, install_cleanup,  # noqa: E402
                   wait_until)
from tool import find_hashjack  # noqa: E402

MIN_BET = 10**15
MAX_BET = 10**17


def export(hashjack, conf, *args):
    p = subprocess.run([hashjack, "export", "-c", conf] + list(args),
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def replay_file(hashjack, path):
    p = subprocess.run([hashjack, "replay", path], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        raise Failed("hashjack replay %s: exit %d: %s"
                     % (path, p.returncode, p.stderr.decode("utf-8", "replace").strip()))
    return p.stdout


def open_rounds(lines):
    """{height: the rounds open before it} for each logged height: a Bet
    action opens a round, its settle event closes it."""
    open_, before = set(), {}
    for l in lines:
        j = json.loads(l)
        before[j["height"]] = set(open_)
        for e in j["events"]:
            if e["type"] == "action" and e["action"] == "Bet":
                open_.add(e["round"])
            elif e["type"] == "settle":
                open_.discard(e["round"])
    return before


class Suite:
    """The checks of one family on one dealer's log: ctx gives hashjack,
    conf (the dealer's configuration), lines (the log's, bytes without
    their newlines), first (the dealer's first block), quiet (a block with
    no round open before it and rounds played after), python_export(f, t),
    the node's tip() and, for the Bitcoin family, its other checks."""

    def __init__(self, name, hashjack, conf, lines, workdir):
        self.name = name
        self.hashjack = hashjack
        self.conf = conf
        self.lines = lines
        self.workdir = workdir
        self.heights = [json.loads(l)["height"] for l in lines]
        self.at = {h: i for i, h in enumerate(self.heights)}
        self.results = []

    def case(self, what, fn):
        try:
            detail = fn()
            self.results.append(True)
            print("ok   %s: %s%s" % (self.name, what, ": " + detail if detail else ""), flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            self.results.append(False)
            print("FAIL %s: %s: %s" % (self.name, what, e), flush=True)
            if not isinstance(e, (Failed, AssertionError)):
                traceback.print_exc()

    def log_of(self, f, t):
        return b"".join(l + b"\n" for l in self.lines[self.at[f]:self.at[t] + 1])

    def exported(self, tag, *args):
        """`hashjack export -o FILE ARGS`: the file's path and bytes."""
        path = os.path.join(self.workdir, tag + ".json")
        rc, out, err = export(self.hashjack, self.conf, "-o", path, *args)
        check_eq(rc, 0, "exit status of export %s (stderr %r)" % (" ".join(args), err))
        check_eq(out, b"", "standard output with -o")
        with open(path, "rb") as f:
            return path, f.read()

    def range_replays(self, tag, f, t, *args):
        """Blocks f..t exported and replayed: the log's lines of f..t."""
        path, _ = self.exported(tag, *(args or ("--from", str(f), "--to", str(t))))
        got = replay_file(self.hashjack, path)
        want = self.log_of(f, t)
        if got != want:
            g, w = got.splitlines(), want.splitlines()
            i = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]), min(len(g), len(w)))
            raise Failed("replay of %d..%d differs from the log at line %d of %d/%d:\n  replay %r\n"
                         "  log    %r" % (f, t, i, len(g), len(w), g[i][:300] if i < len(g) else None,
                                          w[i][:300] if i < len(w) else None))
        return "blocks %d..%d, %d lines, %d bytes of document" % (f, t, got.count(b"\n"),
                                                                os.path.getsize(path))

    def run(self, first, quiet, python_export, tip):
        last = self.heights[-1]
        check_eq(self.heights[0], first, "the log's first block")
        before = open_rounds(self.lines)
        check(not before[quiet] and quiet > first, "block %d is quiet" % quiet)
        # a block inside a round, with the round's settlement after it
        inside = next(h for h in self.heights if before[h] and h > first + 2)
        whole = {}

        def whole_range():
            # --from is [chain] start_height
            d = self.range_replays("whole", first, last, "--to", str(last))
            check_eq(replay_file(self.hashjack, os.path.join(self.workdir, "whole.json")),
                     self.log_of(first, last), "replay")
            with open(os.path.join(self.workdir, "whole.json"), "rb") as f:
                whole["bytes"] = f.read()
            return d

        def stdout_same():
            rc, out, err = export(self.hashjack, self.conf, "--from", str(first), "--to", str(last))
            check_eq(rc, 0, "exit status (%r)" % err)
            check(out == whole["bytes"], "standard output is the -o file's bytes")
            return "%d bytes" % len(out)

        def as_python():
            ours = json.loads(whole["bytes"])
            theirs = python_export(first, last)
            for k in ("chain", "genesis", "dealer"):
                check_eq(ours.get(k), theirs.get(k), k)
            check_eq(len(ours["blocks"]), len(theirs["blocks"]), "blocks")
            for a, b in zip(ours["blocks"], theirs["blocks"]):
                check(a == b, "block %d: %s vs %s" % (a["height"], json.dumps(a)[:400],
                                                      json.dumps(b)[:400]))
            # the rules in the configuration's words: the same replay
            path = os.path.join(self.workdir, "python.json")
            with open(path, "w") as f:
                json.dump(theirs, f)
            check(replay_file(self.hashjack, path) == self.log_of(first, last),
                  "the Python document's replay is the log")
            ntx = sum(len(b["txs"]) for b in ours["blocks"])
            return "%d blocks, %d transactions, rules %s" % (len(ours["blocks"]), ntx,
                                                             json.dumps(ours["rules"]))

        def middle():
            t = last - 2
            seg = self.lines[self.at[quiet]:self.at[t] + 1]
            check(any(b'"type":"settle"' in l for l in seg) and
                  any(b'"action":"Bet"' in l for l in seg), "rounds played in %d..%d" % (quiet, t))
            return self.range_replays("middle", quiet, t)

        def prefix():
            return self.range_replays("prefix", first, inside, "--to", str(inside))

        def inside_round():
            path, _ = self.exported("inside", "--from", str(inside), "--to", str(last))
            got = replay_file(self.hashjack, path)
            check(got != self.log_of(inside, last),
                  "a replay from block %d, inside round %s, is not the log"
                  % (inside, sorted(before[inside])[0]))
            return "from %d: %d rounds open before it, the lines differ" % (inside, len(before[inside]))

        def default_to():
            _, doc = self.exported("default_to")
            hs = [b["height"] for b in json.loads(doc)["blocks"]]
            t = tip()
            check_eq(hs[0], first, "first block")
            check(last <= hs[-1] <= t, "last block %d within %d..%d" % (hs[-1], last, t))
            check_eq(hs, list(range(first, hs[-1] + 1)), "heights")
            return "blocks %d..%d, tip %d" % (first, hs[-1], t)

        def beyond_tip():
            t = tip()
            path = os.path.join(self.workdir, "beyond.json")
            rc, out, err = export(self.hashjack, self.conf, "-o", path, "--to", str(t + 1000))
            check_eq(rc, 75, "exit status (%r)" % err)
            check("--to %d is beyond the node's tip" % (t + 1000) in err, err)
            check(not any(n.startswith("beyond.json") for n in os.listdir(self.workdir)),
                  "no file left: %s" % os.listdir(self.workdir))
            return err.strip()

        def from_after_to():
            rc, out, err = export(self.hashjack, self.conf, "--from", str(last), "--to",
                                  str(last - 1))
            check_eq(rc, 64, "exit status (%r)" % err)
            check("--from %d is after --to %d" % (last, last - 1) in err, err)
            return err.splitlines()[0]

        def not_a_height():
            rc, out, err = export(self.hashjack, self.conf, "--from", "12x", "--to", "20")
            check_eq(rc, 64, "exit status (%r)" % err)
            check('--from "12x": not a block height' in err, err)
            return err.splitlines()[0]

        for what, fn in [("whole range, --from [chain] start_height", whole_range),
                         ("standard output", stdout_same),
                         ("the harness's Python exporter's blocks", as_python),
                         ("middle range from a quiet block", middle),
                         ("from the first block into a round", prefix),
                         ("beginning inside a round", inside_round),
                         ("--to the last final block", default_to),
                         ("beyond the tip", beyond_tip),
                         ("--from after --to", from_after_to),
                         ("not a height", not_a_height)]:
            self.case(what, fn)


def evm(a, wd, hashjack, hashjackd):
    anvil = Anvil(workdir=os.path.join(wd, "anvil"), block_time=0.3)
    anvil.start()
    dealer = anvil.accounts[9].address.lower()
    first = anvil.height() + 3
    d = Hashjackd(hashjackd, anvil, dealer, MIN_BET, MAX_BET, timeout_blocks=4,
                  confirmations=1, start_height=first, workdir=os.path.join(wd, "dealer"))
    d.start()

    def bot(seed, rounds):
        p = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "bot.py"),
                              "--rpc-url", anvil.url, "--dealer", dealer,
                              "--card-log", d.card_log, "--min-bet", str(MIN_BET),
                              "--max-bet", str(MAX_BET), "--anvil-config",
                              os.path.join(anvil.workdir, "anvil-config.json"),
                              "--players", "1,2,3,4", "--pause", "0.3", "--seed", str(seed),
                              "--rounds", str(rounds)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        add_exit_hook(p.kill)
        return p

    def settles():
        return sum(e["type"] == "settle" for l in read_cardlog(d.card_log)
                   for e in l["events"])

    # one round each, then a block with no round open, then one more each
    b = bot(7, 1)
    wait_until(lambda: settles() >= 4 and not open_rounds_after(d.card_log), 150,
               "4 settled rounds and none open", interval=0.2)
    b.terminate()
    b.wait(10)
    quiet = d.last_height() + 1
    d.wait_height(quiet)
    b = bot(8, 2)
    wait_until(lambda: settles() >= 8 and not open_rounds_after(d.card_log), 150,
               "8 settled rounds and none open", interval=0.2)
    b.terminate()
    b.wait(10)
    d.wait_height(d.last_height() + 3)
    d.stop()
    with open(d.card_log, "rb") as f:
        lines = f.read().splitlines()
    s = Suite("evm", hashjack, d.conf, lines, wd)
    s.run(first, quiet, lambda f, t: anvil.export(f, t, dealer, MIN_BET, MAX_BET, 4, "bethash"),
          anvil.height)
    close_all(anvil.stop)
    return s.results


def open_rounds_after(path):
    """The rounds open after the last block of the log at path."""
    open_ = set()
    for j in read_cardlog(path):
        for e in j["events"]:
            if e["type"] == "action" and e["action"] == "Bet":
                open_.add(e["round"])
            elif e["type"] == "settle":
                open_.discard(e["round"])
    return open_


class _Ctx:
    """What test_ltc_game.Session asks of its runner."""

    def __init__(self, hashjack, hashjackd, workdir):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir


def bitcoin(a, wd, hashjack, hashjackd):
    import book
    import test_ltc_game
    from btc_node import find_litecoind
    find_litecoind()
    S = test_ltc_game.Session(_Ctx(hashjack, hashjackd, wd), "ltc", timeout_blocks=3,
                              rules=dict(book.SIDE_BETS))
    try:
        S.mine()
        book.sc_win_stand(S)
        S.mine()
        quiet = S.height() + 1
        book.sc_timeout_split_hands(S)
        book.sc_peek_insured_clear_skip(S)
        for _ in range(3):
            S.mine()
        last = S.height() - (test_ltc_game.CONFIRMATIONS - 1)
        S.dm.wait_height(last)
        S.dm.stop()
        with open(S.dm.card_log, "rb") as f:
            lines = f.read().splitlines()
        s = Suite("bitcoin", hashjack, S.dm.conf, lines, wd)
        s.run(S.first, quiet, S.export, S.node.height)

        def credentials():
            # the same node, asked with a user and password it does not know
            bad = os.path.join(wd, "bad-credentials.conf")
            with open(S.dm.conf) as f:
                text = f.read()
            with open(bad, "w") as f:
                f.write("\n".join(l for l in text.splitlines()
                                  if not l.startswith("rpc_cookie_file")) + "\n")
            rc, out, err = export(hashjack, bad, "--to", str(last),
                                  "--chain.rpc_user=nobody", "--chain.rpc_password=wrong")
            check_eq(rc, 69, "exit status (%r)" % err)
            check("node:" in err and "401" in err, err)
            check_eq(out, b"", "standard output")
            return err.strip()
        s.case("a node that refuses the credentials", credentials)
        return s.results
    finally:
        S.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)
    ap.add_argument("--family", choices=("evm", "bitcoin"), action="append", default=[],
                    help="only this family (repeatable; default both)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=380)
    a = ap.parse_args()
    install_cleanup(a.timeout)
    hashjack = find_hashjack(a.hashjack)
    hashjackd = find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-export-", a.keep)
    results = []
    for fam, fn in (("evm", evm), ("bitcoin", bitcoin)):
        if a.family and fam not in a.family:
            continue
        sub = os.path.join(wd.path, fam)
        os.makedirs(sub)
        try:
            results += fn(a, sub, hashjack, hashjackd)
        except (Failed, AssertionError, HarnessError, TimeoutError) as e:
            results.append(False)
            print("FAIL %s: the session: %s" % (fam, e), flush=True)
    passed = sum(results)
    wd.close(passed != len(results))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if results and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
