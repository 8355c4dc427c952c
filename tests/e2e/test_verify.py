#!/usr/bin/env python3
"""`hashjack verify` as a watcher runs it (EVM): a dealer's card log checked
against the watcher's own node.

    python3 tests/e2e/test_verify.py --hashjack build/release/hashjack \\
        --hashjackd build/release/hashjackd [--keep] [--timeout S]

anvil mining a block every 0.3 s, hashjackd dealing on it (bethash,
confirmations 1, timeout 4 blocks) and scripts/bot.py playing with four dev
accounts until the log holds 60 blocks with settled rounds; then hashjackd
stops and `hashjack verify -c` with the dealer's configuration runs on
the log as written (exit 0, "every line agrees"), and on copies of it,
each tampered once, where it must exit 1 naming the block and what
differs: a card, a payout, a dropped event, a dropped line, a line twice,
a hash from elsewhere, a cut last line, a line that is not JSON; a log
beginning after [chain] start_height is refused (65).

One line per check, then "N passed, M failed"; exit status 1 on failure.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hj  # noqa: E402
from checks import Failed, WorkDir, check, check_eq  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIN_BET = 10**15
MAX_BET = 10**17


def verify(hashjack, conf, log, *args):
    p = subprocess.run([hashjack, "verify", "-c", conf, "--card-log", log] + list(args),
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashjack", default=None)
    ap.add_argument("--hashjackd", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    hj.install_cleanup(a.timeout)
    hashjack = hj.find_hashjack(a.hashjack)
    hashjackd = hj.find_hashjackd(a.hashjackd)
    wd = WorkDir("hj-verify-", a.keep)
    results = []

    anvil = hj.Anvil(workdir=os.path.join(wd.path, "anvil"), block_time=0.3)
    anvil.start()
    dealer = anvil.accounts[9].address.lower()
    d = hj.Hashjackd(hashjackd, anvil, dealer, MIN_BET, MAX_BET, timeout_blocks=4,
                     confirmations=1, workdir=os.path.join(wd.path, "dealer"))
    d.start()
    bot = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "bot.py"),
                            "--rpc-url", anvil.url, "--dealer", dealer,
                            "--card-log", d.card_log, "--min-bet", str(MIN_BET),
                            "--max-bet", str(MAX_BET), "--anvil-config",
                            os.path.join(anvil.workdir, "anvil-config.json"),
                            "--players", "1,2,3,4", "--pause", "0.5", "--seed", "7"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hj.add_exit_hook(bot.kill)

    def settled():
        lines = hj.read_cardlog(d.card_log)
        return len(lines) >= 60 and sum(
            e["type"] == "settle" for l in lines for e in l["events"]) >= 4
    hj.wait_until(settled, 150, "60 blocks with 4 settled rounds in the card log", interval=0.2)
    bot.terminate()
    bot.wait(10)
    d.stop()
    with open(d.card_log) as f:
        lines = f.read().splitlines()

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
        rc, out, err = verify(hashjack, d.conf, d.card_log)
        check_eq(rc, 0, "exit status (%r %r)" % (out, err))
        h0, h1 = json.loads(lines[0])["height"], json.loads(lines[-1])["height"]
        check_eq(out, "verified blocks %d to %d: every line agrees\n" % (h0, h1), "output")
        return out.strip()

    def with_settle():
        i = next(i for i, l in enumerate(lines) if '"type":"settle"' in l)
        return i, json.loads(lines[i])

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
        h = json.loads(lines[20])["height"]
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

    def late_start():
        path = tampered("late_start", lines[10:])
        rc, out, err = verify(hashjack, d.conf, path, "--chain.start_height=0")
        check_eq(rc, 65, "exit status (%r %r)" % (out, err))
        h = json.loads(lines[10])["height"]
        check("begins at block %d, after the dealer's first block" % h in err, err)
        return err.strip()

    for name, fn in [("clean", clean), ("late_start", late_start), ("card", card), ("payout", payout),
                     ("dropped_event", dropped_event), ("dropped_line", dropped_line),
                     ("line_twice", line_twice), ("other_hash", other_hash),
                     ("cut_last", cut_last), ("not_json", not_json)]:
        case(name, fn)
    hj.close_all(anvil.stop)
    passed = sum(1 for _, ok in results if ok)
    wd.close(passed != len(results))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
