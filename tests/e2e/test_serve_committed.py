#!/usr/bin/env python3
"""`hashjack serve` on a dealer under `cards = committed` (docs/PROTOCOL.md
section 15; docs/API.md), and its page's check of a card in a real browser.

    python3 tests/e2e/test_serve_committed.py [--hashjack build/hashjack] [--keep]

hashjackd cannot deal committed cards yet (it refuses them until its seed
chain exists), so the dealer's state is written by `committed_dealer`
(tests/committed_dealer.c, built beside hashjack) with the dealer's own
code: a Commit in block 100 of the protocol's vector chain for blocks 101
to 108, the section's two vector hashes in blocks 101 and 102 (4 of Clubs
and Ace of Diamonds), a second chain scheduled from block 110, blocks 100
to 104.  `hashjack serve --db --card-log` follows it; the test checks
/v1/table's chains, each block's seed in /v1/blocks and in the stream,
then in headless Chromium (tests/e2e/browser.py) the block view's check:
it agrees for a keyed card and its seed chain (the commitment at the
chain's first block, the seed before it after), and flags a wrong seed.
One line per check, then "N passed, M failed"; exit status 1 on failure.
A screenshot of each block view is kept in the work directory (printed).
"""

import argparse
import os
import subprocess
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from procs import add_exit_hook, install_cleanup, kill_children  # noqa: E402
from serve import Serve  # noqa: E402
from tool import find_hashjack  # noqa: E402

S0 = "14941c1005385b6a00a7f729c4c0f68dacfb27205e9e68f3e86cb43fb85fd770"
S1 = "dd3373eab6aea135548438625e4a9bfa38a758a6b7c8de1499b42302e9e3b501"
S2 = "79c45bcea86076fe686de0ecd5c3a2807cf3c7ceb6cb87c9c22fb393385eda80"
# The second chain: s_2 = SHA-256("chain b"), s_0 two hashes below it.
CHAIN_B_S0 = "4c1bea9371e29e2a72b31df201e5f594d654bf9ba0e3d0159ee98a202f45d33d"
TX = "0xde" + "0" * 60


class State:
    """The dealer's state directory, as Serve takes a daemon."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.serve_args = ["--db", os.path.join(workdir, "hashjackd.sqlite"),
                           "--card-log", os.path.join(workdir, "cards.jsonl")]


def case_table(sv):
    t = sv.json("/v1/table")
    check_eq(t["rules"]["cards"], "committed", "/v1/table's rules.cards")
    check_eq(t["chains"], [
        {"start": 101, "length": 8, "commitment": S0, "tx": TX + "01", "height": 100,
         "inForce": True, "seedsLeft": 4},
        {"start": 110, "length": 2, "commitment": CHAIN_B_S0, "tx": TX + "02", "height": 102,
         "inForce": False},
    ], "/v1/table's chains")
    return "chains in force and scheduled, 4 seeds left"


def case_blocks(sv):
    b100 = sv.json("/v1/blocks/100")
    check("seed" not in b100 and b100.get("void") is True, "block 100: void, no seed: %r" % b100)
    check_eq([e["type"] for e in b100["events"]], ["commit"], "block 100's events")
    for h, seed, code in ((101, S1, "4C"), (102, S2, "AD")):
        b = sv.json("/v1/blocks/%d" % h)
        check_eq((b.get("seed"), b["card"]["code"]), (seed, code), "block %d's seed and card" % h)
    last = sv.json("/v1/blocks?last=5")
    check_eq([x.get("seed") for x in last][:3], [None, S1, S2], "/v1/blocks?last=5's seeds")
    return "the vectors' seeds and cards"


def case_stream(sv):
    ws = sv.ws("from=99")
    try:
        ws.wait_block(104)
        ups = [m for m in ws.messages() if m["eventType"] == "BlockUpdate"]
        check_eq([m["height"] for m in ups], [100, 101, 102, 103, 104], "BlockUpdates")
        check_eq([m["data"].get("seed") for m in ups][:3], [None, S1, S2], "the BlockUpdates' seeds")
        lines = {m["height"]: sv.get("/v1/blocks/%d" % m["height"])[1] for m in ups}
        for m, raw in zip(ups, ws.raws[-len(ups):]):
            check(lines[m["height"]] in raw.encode(), "BlockUpdate %d: the line byte for byte" % m["height"])
    finally:
        ws.close()
    return "every BlockUpdate with its line's seed"


PAGE_TEXT = r"""
const e = document.querySelector(arguments[0]);
return e ? e.innerText.trim() : null;
"""


def case_page(sv, workdir):
    import browser
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    d = browser.chromium(workdir)
    add_exit_hook(d.quit)
    text = lambda css: d.execute_script(PAGE_TEXT, css)  # noqa: E731

    def until(what, fn):
        try:
            return WebDriverWait(d, 30, poll_frequency=0.05).until(lambda _: fn())
        except TimeoutException:
            raise Failed("the page did not show %s within 30 s (it shows %r)"
                         % (what, text("#view"))) from None

    def act(what, fn):
        """fn() until it returns true, the elements it uses found again
        when the page re-rendered them meanwhile (a stale reference)."""
        try:
            return WebDriverWait(d, 30, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException,)
                                 ).until(lambda _: fn())
        except TimeoutException:
            raise Failed("%s: not within 30 s (the page shows %r)"
                         % (what, text("#view"))) from None

    def typed(seed):
        i = d.find_element(By.ID, "check-seed")
        i.clear()
        i.send_keys(seed)
        return i.get_attribute("value") == seed

    def check_block(h, seed=None):
        """Opens block h (a page load of its own, so that no element of
        the view before it is found), types seed (or keeps the line's),
        clicks the check; its card's and its chain's results."""
        d.get("about:blank")
        d.get("http://127.0.0.1:%d/#/block/%d" % (sv.port, h))
        until("block %d's check" % h, lambda: d.find_elements(By.ID, "check-card"))
        act("block %d: the check is enabled on 127.0.0.1" % h,
            lambda: d.find_element(By.ID, "check-card").is_enabled())
        if seed is not None:
            act("block %d: the seed typed" % h, lambda: typed(seed))
        act("block %d: the check clicked" % h,
            lambda: d.find_element(By.ID, "check-card").click() or True)
        until("block %d's result" % h, lambda: text("#check-chain-result"))
        d.save_screenshot(os.path.join(shots, "block-%d%s.png" % (h, "-wrong" if seed else "")))
        cls = lambda css: d.find_element(By.CSS_SELECTOR, css).get_attribute("class")  # noqa: E731
        return (text("#check-card-result"), cls("#check-card-result"),
                text("#check-chain-result"), cls("#check-chain-result"))

    shots = os.path.join(workdir, "screenshots")
    os.makedirs(shots, exist_ok=True)
    try:
        d.get("http://127.0.0.1:%d/" % sv.port)
        until("the cards' summary", lambda: text("#cards-summary"))
        check_eq(text("#cards-summary"), "committed: the seed chain of blocks 101 to 108, 4 seeds left; "
                 "scheduled from block 110 (the chains)", "the table's cards")
        # 101: the chain's first block, checked against its commitment.
        card, ccls, chain, chcls = check_block(101)
        check(card.startswith("Agrees:") and "Four of Clubs (4C)" in card and ccls == "ok",
              "block 101's card: %r (%s)" % (card, ccls))
        check("is the commitment" in chain and chcls == "ok", "block 101's chain: %r (%s)" % (chain, chcls))
        check_eq(text("#check-derivation").splitlines()[0], "card:  Four of Clubs (4C), value 4",
                 "block 101's HMAC worked out")
        # 102: the seed before it.
        card, ccls, chain, chcls = check_block(102)
        check(card.startswith("Agrees:") and "Ace of Diamonds (AD)" in card and ccls == "ok",
              "block 102's card: %r (%s)" % (card, ccls))
        check_eq((chain, chcls), ("SHA-256 of the seed is the seed of block 101: the same chain.", "ok"),
                 "block 102's chain")
        # A wrong seed (block 101's) on block 102: flagged twice.
        card, ccls, chain, chcls = check_block(102, S1)
        check(card.startswith("Does not agree:") and ccls == "error", "a wrong seed's card: %r (%s)" % (card, ccls))
        check("is not the seed of block 101" in chain and chcls == "error",
              "a wrong seed's chain: %r (%s)" % (chain, chcls))
        # The void block before the chain: nothing to check.
        d.get("http://127.0.0.1:%d/#/block/100" % sv.port)
        until("block 100's words", lambda: text("#check-none"))
        check("The dealer's Commit: a chain of 8 seeds dealing blocks 101 to 108" in (text("#events") or ""),
              "block 100's commit event in words: %r" % text("#events"))
        logs = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        check_eq(logs, [], "the browser's console errors")
    finally:
        d.quit()
    return "agrees on 101 and 102, flags a wrong seed; screenshots in %s" % shots


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hashjack")
    ap.add_argument("--hashjackd")  # the suites' common command line; unused
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    install_cleanup(120)
    hashjack = find_hashjack(args.hashjack)
    wd = WorkDir("hj-e2e-serve-committed-", args.keep)
    print("work directory: %s" % wd.path, flush=True)
    passed = failed = 0
    sv = None
    try:
        state = os.path.join(wd.path, "dealer")
        os.mkdir(state)
        subprocess.run([os.path.join(os.path.dirname(hashjack), "committed_dealer"), state],
                       check=True, timeout=30)
        sv = Serve(hashjack, State(state), wd.path).start()
        sv.wait_height(104)
        for name, fn in (("table", lambda: case_table(sv)), ("blocks", lambda: case_blocks(sv)),
                         ("stream", lambda: case_stream(sv)), ("page", lambda: case_page(sv, wd.path))):
            try:
                print("ok   %-8s %s" % (name, fn()), flush=True)
                passed += 1
            except Failed as e:
                print("FAIL %-8s %s" % (name, e), flush=True)
                failed += 1
            except Exception as e:  # noqa: BLE001 - a broken test
                print("FAIL %-8s %s: %s" % (name, type(e).__name__, e), flush=True)
                traceback.print_exc()
                failed += 1
    finally:
        if sv:
            sv.close()
        kill_children()
        wd.close(failed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
