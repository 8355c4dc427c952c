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

Committed cards (docs/PROTOCOL.md section 15), on anvil: the dealer of
tests/e2e/test_committed.py (cards = committed, confirmations 2, [seeds]
length 12, renew_before 5, lead 4, from block 1) deals its first chain, a
round (Bet, Stand) and into its second chain, about 25 blocks; then
`hashjack export --log` with its card log:

- the whole range: each block's "seed" is its line's, and the replay is
  the log byte for byte; the log on standard input (--log -), the same
  document;
- from the first Commit's block: the replay is the log's lines from there;
- from inside the first chain: refused (65), naming the Commit's block to
  export from, no file left;
- no --log under cards = committed (64); --log under cards = hash (64); a
  log that ends before --to, one with a line that does not read, one out
  of height order (65, the block or line named); a directory (66);
- every keyed line's card is what `hashjack card --json --seed` says of
  its hash under its seed.

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


def export(hashjack, conf, *args, stdin=None):
    p = subprocess.run([hashjack, "export", "-c", conf] + list(args),
                       stdin=subprocess.DEVNULL if stdin is None else stdin,
                       capture_output=True, timeout=300)
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


def committed(a, wd, hashjack, hashjackd):
    """The committed-cards dealer of test_committed.py, exported with its
    log (module docstring)."""
    import test_committed
    C = test_committed.Case(hashjackd, wd)
    results = []
    try:
        C.a.mine_empty(3)
        C.dm.start()
        C.mine_until(lambda: C.commits(), "the first Commit dealt")
        (y1, first), = C.commits()
        C.mine_until(lambda: C.dm.last_height() >= first["start"] + 1, "the first chain dealing")
        test_committed.case_keyed(C)  # a round: Bet, Stand, settled on keyed cards

        def second_dealing():
            cs = C.commits()
            return len(cs) >= 2 and C.dm.last_height() >= cs[1][1]["start"] + 3
        C.mine_until(second_dealing, "the second chain dealing", limit=80)
        C_second = C.commits()[1][1]
        check_eq(C.dm.stop(), 0, "hashjackd's exit status")
        with open(C.dm.card_log, "rb") as f:
            lines = f.read().splitlines()
        heights = [json.loads(l)["height"] for l in lines]
        at = {h: i for i, h in enumerate(heights)}
        last = heights[-1]
        conf, log = C.dm.conf, C.dm.card_log

        def log_of(f, t):
            return b"".join(l + b"\n" for l in lines[at[f]:at[t] + 1])

        def case(what, fn):
            try:
                detail = fn()
                results.append(True)
                print("ok   committed: %s%s" % (what, ": " + detail if detail else ""), flush=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                results.append(False)
                print("FAIL committed: %s: %s" % (what, e), flush=True)
                if not isinstance(e, (Failed, AssertionError)):
                    traceback.print_exc()

        def exported(tag, *args):
            path = os.path.join(wd, tag + ".json")
            rc, out, err = export(hashjack, conf, "--log", log, "-o", path, *args)
            check_eq(rc, 0, "exit status of export %s (stderr %r)" % (" ".join(args), err))
            with open(path, "rb") as f:
                return path, f.read()

        def same(got, want, what):
            if got != want:
                g, w = got.splitlines(), want.splitlines()
                i = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]),
                         min(len(g), len(w)))
                raise Failed("%s differs from the log at line %d of %d/%d:\n  replay %r\n"
                             "  log    %r" % (what, i, len(g), len(w),
                                              g[i][:300] if i < len(g) else None,
                                              w[i][:300] if i < len(w) else None))

        whole = {}

        def whole_range():
            path, doc = exported("committed-whole", "--to", str(last))
            blocks = json.loads(doc)["blocks"]
            check_eq([b["height"] for b in blocks], heights, "the document's heights")
            for b, l in zip(blocks, lines):
                check_eq(b.get("seed"), json.loads(l).get("seed"),
                         "block %d's seed" % b["height"])
            same(replay_file(hashjack, path), log_of(heights[0], last), "the replay")
            whole["doc"] = doc
            keyed = sum("seed" in b for b in blocks)
            second = C_second["start"]
            check(keyed == last - first["start"] + 1 and second <= last - 3,
                  "keyed blocks: %d, from %d to %d, the second chain from %d"
                  % (keyed, first["start"], last, second))
            return "blocks %d..%d, %d keyed, two chains; the replay is the log, %d bytes" % (
                heights[0], last, keyed, len(log_of(heights[0], last)))

        def log_stdin():
            with open(log, "rb") as f:
                rc, out, err = export(hashjack, conf, "--log", "-", "--to", str(last), stdin=f)
            check_eq(rc, 0, "exit status (%r)" % err)
            check(out == whole.get("doc"), "the document of --log FILE")
            return "%d bytes" % len(out)

        def from_commit():
            path, _ = exported("committed-from-commit", "--from", str(y1), "--to", str(last))
            same(replay_file(hashjack, path), log_of(y1, last), "the replay")
            return "blocks %d..%d (the Commit in block %d, its chain from %d)" % (
                y1, last, y1, first["start"])

        def inside_chain():
            f = first["start"] + 1
            path = os.path.join(wd, "committed-inside.json")
            rc, out, err = export(hashjack, conf, "--log", log, "-o", path, "--from", str(f),
                                  "--to", str(last))
            check_eq(rc, 65, "exit status (%r)" % err)
            check("committed in block %d, before --from %d" % (y1, f) in err and
                  "export from block %d or before" % y1 in err, err)
            check(not any(n.startswith("committed-inside.json") for n in os.listdir(wd)),
                  "no file left: %s" % os.listdir(wd))
            return err.strip()

        def no_log():
            rc, out, err = export(hashjack, conf, "--to", str(last))
            check_eq(rc, 64, "exit status (%r)" % err)
            check("cards = committed: give --log FILE" in err, err)
            check_eq(out, b"", "standard output")
            return err.splitlines()[0]

        def log_under_hash():
            rc, out, err = export(hashjack, conf, "--log", log, "--to", str(last),
                                  "--rules.cards=hash")
            check_eq(rc, 64, "exit status (%r)" % err)
            check("--log: the rules deal cards = hash" in err, err)
            return err.splitlines()[0]

        def short_log():
            cut = os.path.join(wd, "cut.jsonl")
            with open(cut, "wb") as f:
                f.write(log_of(heights[0], last - 3))
            rc, out, err = export(hashjack, conf, "--log", cut, "--to", str(last))
            check_eq(rc, 65, "exit status (%r)" % err)
            check("%s has no line of block %d (its last is block %d)" % (cut, last - 2, last - 3)
                  in err, err)
            return err.strip()

        def bad_logs():
            said = []
            # a line that does not read, then a line out of height order
            k = at[last - 2]
            broken = lines[:k] + [lines[k].replace(b'"hash":"0x', b'"hash":"0y', 1)] + lines[k + 1:]
            backwards = lines[:k + 1] + [lines[k - 1]] + lines[k + 1:]
            for tag, ls, want in (
                    ("broken", broken, ['line %d (block %d): "hash": ' % (k + 1, last - 2)]),
                    ("backwards", backwards, ["line %d: block %d after block %d: the log is not "
                                              "in height order" % (k + 2, last - 3, last - 2)])):
                path = os.path.join(wd, tag + ".jsonl")
                with open(path, "wb") as f:
                    f.write(b"".join(l + b"\n" for l in ls))
                rc, out, err = export(hashjack, conf, "--log", path, "--to", str(last))
                check_eq(rc, 65, "%s: exit status (%r)" % (tag, err))
                check(all(w in err for w in want), "%s: %s" % (tag, err))
                said.append(err.strip().splitlines()[-1])
            rc, out, err = export(hashjack, conf, "--log", wd, "--to", str(last))
            check_eq(rc, 66, "a directory: exit status (%r)" % err)
            check("Is a directory" in err, err)
            return "; ".join(said)

        def card_seed():
            n = 0
            for l in lines:
                j = json.loads(l)
                if "seed" not in j:
                    continue
                p = subprocess.run([hashjack, "card", "--json", "--seed", j["seed"], j["hash"]],
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
                check_eq(p.returncode, 0, "card --seed: exit status (%r)" % p.stderr)
                got = json.loads(p.stdout)
                check_eq(got["seed"], j["seed"], "block %d: seed" % j["height"])
                if j.get("void"):
                    check(got["void"], "block %d: void" % j["height"])
                else:
                    want = {k: got[k] for k in ("rank", "suit", "value", "code", "pos",
                                                "rankDigit", "colorDigit")}
                    check_eq(want, j["card"], "block %d: card" % j["height"])
                n += 1
            return "%d keyed lines" % n

        for what, fn in [("whole range with --log: seeds copied, the replay is the log",
                          whole_range),
                         ("--log - (standard input)", log_stdin),
                         ("from the first Commit's block", from_commit),
                         ("from inside the first chain: refused", inside_chain),
                         ("cards = committed without --log: refused", no_log),
                         ("--log under cards = hash: refused", log_under_hash),
                         ("a log that ends before --to: refused", short_log),
                         ("a line that does not read, one out of order, a directory",
                          bad_logs),
                         ("hashjack card --seed on every keyed line", card_seed)]:
            case(what, fn)
        return results
    finally:
        C.dm.close()
        C.a.stop()


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
    ap.add_argument("--family", choices=("evm", "bitcoin", "committed"), action="append",
                    default=[], help="only this family (repeatable; default all three;"
                    " committed: EVM with cards = committed)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=380)
    a = ap.parse_args()
    install_cleanup(a.timeout)
    hashjack = find_hashjack(a.hashjack)
    hashjackd = find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-export-", a.keep)
    results = []
    for fam, fn in (("evm", evm), ("bitcoin", bitcoin), ("committed", committed)):
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
