#!/usr/bin/env python3
"""The web page of `hashjack serve` in a real browser, played as a person
plays it: headless Chromium driven by Selenium (Debian's chromium,
chromium-driver and python3-selenium; scripts/deps.sh installs them).

    python3 tests/e2e/test_web.py [--hashjack build/release/hashjack] \\
        [--hashjackd build/release/hashjackd] [--keep] [--timeout S]

One anvil (blocks mined on demand), hashjackd dealing on it (bethash with
both side bets, confirmations 2) and `hashjack serve` on 127.0.0.1.  The page
gets, before it loads, a browser wallet: an EIP-1193 `window.ethereum` that,
like a wallet extension, answers from outside the page (the server's
Content-Security-Policy stays in force): the test takes each request and
answers it, eth_requestAccounts with one of anvil's dev accounts, the rest
from anvil's JSON-RPC (anvil signs for its unlocked accounts).  The test does
what a player does: connects the wallet, types stakes into the Bet form,
clicks Bet and the action buttons, while it mines the blocks (ground for the
cards each round needs, tests/e2e/evm_node.py) so that every action becomes
available:

- A: a Bet with Perfect Pairs and 21+3 stakes, a pair of eights (a perfect
  pair) against a 6, Split, Hit and Stand on each hand, the dealer busts;
- B: a Bet without side stakes, 11 against a 7, Double, the dealer stands
  on 17;
- C: 16 against an Ace, Peek with insurance (no dealer blackjack), Surrender;
- D: 19 against an Ace, Peek without insurance, Stand, the dealer's soft 19:
  a push.

Between B and C the server is stopped while blocks are dealt and started
again on the same port: the page reconnects and shows the blocks it
missed.  What the page shows (every card, total, status, stake, payout,
the actions offered and their values, the blocks left to act, the side
bets, the transactions it sent) is checked against the dealer's card log
and the API's answers, and the browser's console must stay free of errors
(outside the server's planned downtime and the 400s and 404s asked
for); the Bet payloads the page builds are checked against `hashjack
player bet` (the side stakes are encoded alike on both
families).  Then, each as a person sees it:

- amounts in ETH, exactly (stakes of 0.01 ETH; the form takes ETH), and
  in wei with the header's toggle, the form too, and back (units);
- totals "soft 19" and "hard 17", the default action and its block of
  every open round, a settled Double marked "doubled" (the rounds);
- the payouts' words and numbers never broken over two lines;
- every block of the strip clicked open: its hash with the rank digit,
  the color digit and the digits skipped marked, its card worked out as
  `hashjack card` prints it, each event in words with its rounds linked
  (block_view);
- a malformed or unknown player, round or block says so and nothing
  stays "loading"; a block not dealt yet shows once it is (unknown_views);
- the rules in words (every key of /v1/table), the side bets' pay tables,
  the strategy chart cell for cell (rules); how to play: the dealer's
  address, each action's data (that of every transaction the page sent)
  and value, the window, the fees (how);
- with max_age 4 s, the dealer stopped: "stalled since block N", then
  "live" once it deals again (stalled).

Screenshots of each view go to a directory printed at the start, kept.

One line per check, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline (WebDriverWait on what the page shows, or
procs.wait_until), and so has the whole run (--timeout).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, WorkDir, check, check_eq  # noqa: E402
from daemon import Hashjackd, find_hashjackd  # noqa: E402
from evm_node import Anvil  # noqa: E402
from logs import events  # noqa: E402
from nodes import RpcError  # noqa: E402
from procs import add_exit_hook, close_all, install_cleanup, wait_until  # noqa: E402
from serve import Serve  # noqa: E402
from tool import find_hashjack  # noqa: E402

import browser  # noqa: E402  (first: it finds Debian's selenium)
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

MIN_BET = 1000
MAX_BET = 10 ** 18
TIMEOUT = 10           # timeout_blocks: the test mines only when it must
CONFIRMATIONS = 2      # grinding replaces the tip block: never deal the tip
PERFECT_PAIRS = "25,12,5"
TWENTY_ONE_PLUS_THREE = "100,40,30,10,5"
STAKE = 10 ** 16       # 0.01 ETH
SIDE = 10 ** 15        # 0.001 ETH on each side bet of round A
WAIT = 30              # seconds for the page to show something
STALL_AGE = 4          # [serve] max_age of the last check: a stopped dealer is stalled after it

SUIT_LETTER = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}

# The wallet the page finds: window.ethereum.  As a browser extension does,
# it answers from outside the page (so the page's Content-Security-Policy,
# connect-src 'self', holds as it does for a player): each request waits in
# a queue that the test empties (Web.pump()), answering eth_requestAccounts
# and eth_accounts itself and passing everything else to anvil.
PROVIDER = r"""
(() => {
  const waiting = new Map();
  let id = 0;
  const queue = [];
  const listeners = {};
  Object.defineProperty(window, '__hjWallet', {value: Object.freeze({
    take: () => queue.splice(0),
    answer: (i, result, error) => {
      const w = waiting.get(i);
      if (!w) return;
      waiting.delete(i);
      if (error) {
        const e = new Error(error.message || 'wallet error');
        e.code = error.code;
        w.reject(e);
      } else {
        w.resolve(result);
      }
    },
  })});
  window.ethereum = {
    request({method, params}) {
      return new Promise((resolve, reject) => {
        waiting.set(++id, {resolve, reject});
        queue.push({id, method, params: params || []});
      });
    },
    on(ev, fn) { (listeners[ev] = listeners[ev] || []).push(fn); },
    removeListener(ev, fn) { listeners[ev] = (listeners[ev] || []).filter((f) => f !== fn); },
  };
})();
"""

# Reads the rounds that match a selector as the page shows them (the
# innerText of what is on screen), in one script: the page redraws as
# blocks arrive, so elements held across calls would go stale.
READ_ROUNDS = r"""
const read = (a) => {
const txt = (e) => (e ? e.innerText.trim() : null);
const cards = (e) => (e ? [...e.querySelectorAll('.card')].map((c) => c.classList.contains('back') ? null
  : txt(c.querySelector('.corner .rank')) + txt(c.querySelector('.corner .suit'))) : []);
const hand = (h) => (h ? {title: txt(h.querySelector('h4')), cards: cards(h), total: txt(h.querySelector('.total')),
  status: txt(h.querySelector(':scope > .line > .status')), bet: txt(h.querySelector('.bet')),
  payout: txt(h.querySelector('.payout'))} : null);
const facts = {};
for (const dt of a.querySelectorAll(':scope > dl.facts > dt')) facts[txt(dt)] = txt(dt.nextElementSibling);
return {head: txt(a.querySelector(':scope > header')), dealer: hand(a.querySelector('.hand.dealer')),
  hands: [...a.querySelectorAll('.hand.player')].map(hand), facts};
};
return [...document.querySelectorAll(arguments[0])].map(read);
"""

READ_PAYOUTS = r"""
return [...document.querySelectorAll('#view table.payouts tbody tr')].map((tr) =>
  [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()));
"""

READ_TEXT = r"""
const e = document.querySelector(arguments[0]);
return e ? e.innerText.trim() : null;
"""

# The texts of several elements read in one script, so that all of them are
# of the same drawing of the page (the page may draw again between two calls).
READ_TEXTS = r"""
return [...arguments].map((css) => {
  const e = document.querySelector(css);
  return e ? e.innerText.trim() : null;
});
"""

READ_BLOCKS = r"""
return [...document.querySelectorAll('#blocks .block')].map((b) => {
  const c = b.querySelector('.card');
  return [b.querySelector('.height').innerText.trim(), c.classList.contains('back') ? null
    : c.querySelector('.corner .rank').innerText.trim() + c.querySelector('.corner .suit').innerText.trim()];
});
"""

READ_SENT = r"""
return [...document.querySelectorAll('#txs li.tx')].map((li) =>
  ['.what', '.tx-hash', '.tx-status'].map((c) => li.querySelector(c).innerText.trim()));
"""

# The cells of a table (css) whose text the browser broke over two lines
# or more, as a person sees them: their text's line boxes, told apart by
# their tops (a line lower by most of the font size is a new line).
READ_BROKEN = r"""
const out = [];
for (const c of document.querySelectorAll(arguments[0] + ' th, ' + arguments[0] + ' td')) {
  const t = c.innerText.trim();
  if (!t) continue;
  const r = document.createRange();
  r.selectNodeContents(c);
  const tops = [...r.getClientRects()].filter((x) => x.width > 0).map((x) => x.top).sort((a, b) => a - b);
  const fs = parseFloat(getComputedStyle(c).fontSize);
  let lines = tops.length ? 1 : 0;
  for (let i = 1; i < tops.length; i++) if (tops[i] - tops[i - 1] > 0.6 * fs) lines++;
  if (lines > 1) out.push(t);
}
return out;
"""

READ_BUTTONS = r"""
return [...document.querySelectorAll('#my-round button.action')].filter((b) => !b.disabled)
  .map((b) => b.innerText.trim());
"""


def code_of(shown):
    """A card as the page draws it ("10♥") as a log code ("10H")."""
    if shown is None:
        return None
    return shown[:-1] + SUIT_LETTER.get(shown[-1], "?")


def short(i):
    return i[:10] + "\u2026" + i[-6:]


def wei(n):
    return "%s wei" % n


def eth_digits(n):
    """An amount of wei in ether, exactly, as the page writes it: "0.01"."""
    n = int(n)
    s = str(abs(n)).rjust(19, "0")
    whole, frac = s[:-18], s[-18:].rstrip("0")
    return ("-" if n < 0 else "") + whole + ("." + frac if frac else "")


def eth(n):
    return eth_digits(n) + " ETH"


VALUES = {"A": 1, "J": 10, "Q": 10, "K": 10}


def total_words(cards, total):
    """A hand's total as the page says it: "soft 17" when an Ace counts 11,
    else "hard 17" (docs/PROTOCOL.md section 7: a hand is soft when it holds
    an ace that counts 11 without going over 21)."""
    hard = sum(VALUES.get(c[:-1]) or int(c[:-1]) for c in cards)
    soft = any(c[:-1] == "A" for c in cards) and hard + 10 <= 21
    check_eq(hard + 10 if soft else hard, total, "the total of %s" % cards)
    return ("soft %d" if soft else "hard %d") % total


def default_action(rs):
    """The default action of an open round (docs/PROTOCOL.md section 6)."""
    if "Peek" in rs["nextActions"]:
        return "Peek without insurance"
    return "Stand on hand %d" % rs["handIndex"]


class Web:
    """The processes (anvil, hashjackd, hashjack serve, the browser) and
    what the checks share."""

    def __init__(self, args, work, out):
        self.args = args
        self.work = work
        self.out = out
        self.hashjack = find_hashjack(args.hashjack)
        self.a = Anvil(workdir=os.path.join(work, "anvil"), keep_state=False, accounts=4).start()
        self.dealer = self.a.accounts[0].address
        self.player = self.a.accounts[1].address
        self.a.mine_empty(2)
        self.first = self.a.height()
        self.dm = Hashjackd(find_hashjackd(args.hashjackd), self.a, self.dealer, MIN_BET, MAX_BET,
                            TIMEOUT, confirmations=CONFIRMATIONS, start_height=self.first,
                            poll_interval_ms=50, workdir=os.path.join(work, "daemon"),
                            extra={"rules": {"perfect_pairs": PERFECT_PAIRS,
                                             "twenty_one_plus_three": TWENTY_ONE_PLUS_THREE}})
        self.dm.start()
        self.serve = Serve(self.hashjack, self.dm, workdir=self.work)
        self.port = 0
        self.start_serve()
        self.d = None
        self.shots = 0

    # -- hashjack serve -----------------------------------------------------

    def start_serve(self):
        """Starts `hashjack serve` on 127.0.0.1 (the port it had, if any:
        the page reconnects to it) and waits for it to listen."""
        self.serve.start(port=self.port)
        self.port = self.serve.port
        self.url = "http://127.0.0.1:%d/" % self.port

    def stop_serve(self):
        return self.serve.stop(10)

    def api(self, path):
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as r:
            return json.load(r)

    # -- the browser --------------------------------------------------------

    def start_browser(self):
        self.d = browser.chromium(self.work)
        add_exit_hook(self.quit_browser)
        self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROVIDER})
        self.allowed = False     # the wallet gave the page its account

    def pump(self):
        """Answers what the page asked the wallet since the last call: the
        account once allowed (eth_requestAccounts allows, as a player's
        click in a wallet's window would), anvil's answer otherwise."""
        for r in self.d.execute_script("return window.__hjWallet ? window.__hjWallet.take() : [];"):
            m, result, error = r["method"], None, None
            if m == "eth_requestAccounts":
                self.allowed = True
                result = [self.player]
            elif m == "eth_accounts":
                result = [self.player] if self.allowed else []
            else:
                try:
                    result = self.a.rpc(m, *r["params"])
                except RpcError as e:
                    error = e.error if isinstance(e.error, dict) else {"message": str(e.error)}
            self.d.execute_script("window.__hjWallet.answer(arguments[0], arguments[1], arguments[2]);",
                                  r["id"], result, error)

    def console_errors(self):
        """The browser console's errors since the last call."""
        return ["%s %s" % (m.get("source", ""), m.get("message")) for m in self.d.get_log("browser")
                if m.get("level") == "SEVERE"]

    def quit_browser(self):
        if self.d is not None:
            d, self.d = self.d, None
            d.quit()

    def close(self):
        close_all(self.quit_browser, lambda: self.stop_serve(), self.dm.close, self.a.stop)

    def shot(self, name):
        self.shots += 1
        p = os.path.join(self.out, "%02d-%s.png" % (self.shots, name))
        self.d.save_screenshot(p)
        return p

    # -- reading and waiting on the page ---------------------------------------

    def until(self, what, fn, timeout=WAIT):
        try:
            return WebDriverWait(self.d, timeout, poll_frequency=0.05).until(lambda d: self.pump() or fn())
        except TimeoutException:
            raise Failed("the page did not show %s within %ss" % (what, timeout)) from None

    def text(self, css):
        """The text of the first element css selects, None when none does."""
        return self.d.execute_script(READ_TEXT, css)

    def texts(self, *css):
        """The texts of the first elements each css selects (None when none
        does), all of one drawing of the page."""
        return self.d.execute_script(READ_TEXTS, *css)

    def read_rounds(self, css):
        return self.d.execute_script(READ_ROUNDS, css)

    def read_round(self, css):
        r = self.read_rounds(css)
        return r[0] if r else None

    def buttons(self):
        """The enabled action buttons' labels."""
        return self.d.execute_script(READ_BUTTONS)

    def click(self, css, text, what):
        """Clicks the element css selects that reads text (enabled), as
        soon as there is one; again if the page redrew it meanwhile."""
        def once():
            try:
                for e in self.d.find_elements(By.CSS_SELECTOR, css):
                    if e.text == text and e.is_enabled():
                        e.click()
                        return True
            except StaleElementReferenceException:
                pass
            return False
        self.until(what, once)

    def sent(self):
        """The Sent list: [(what, hash, status)], newest first."""
        return [tuple(x) for x in self.d.execute_script(READ_SENT)]

    def wait_sent(self, n_before, what):
        """Waits for the page to list one more sent transaction; returns its hash."""
        self.until("the transaction of %s" % what, lambda: len(self.sent()) > n_before)
        w, h, _ = self.sent()[0]
        check_eq(w, what, "what the page says it sent")
        check(re.fullmatch(r"0x[0-9a-f]{64}", h), "the page shows no transaction hash: %r" % h)
        return h

    def tip(self):
        t = self.text("#tip")
        m = re.fullmatch(r"block (\d+)", t or "")
        return int(m.group(1)) if m else None

    # -- the chain -----------------------------------------------------------

    def mine_tx(self, h):
        """Mines the block that holds exactly the page's transaction h."""
        wait_until(lambda: h in self.a.pending(), 20, "transaction %s in anvil's mempool" % h)
        return int(self.a.mine(expect=[h])["number"], 16)

    def grind(self, want):
        b, _ = self.a.grind(want, expect=[])
        return int(b["number"], 16)

    def confirm(self):
        """One more block, so that the one before is final; waits until
        hashjackd has dealt it and the page shows it."""
        self.a.mine()
        h = self.a.height() - 1
        self.dm.wait_height(h)
        self.until("block %d" % h, lambda: (self.tip() or 0) >= h)
        return h

    def log(self):
        return self.dm.lines()

    def line(self, h):
        for l in self.log():
            if l["height"] == h:
                return l
        raise Failed("no card log line for height %d" % h)


# --------------------------------------------------------------------------
# What the page shows against the log and the API

def check_open_round(W, rid, what):
    """The player's open round as the page shows it (the "Your round" box)
    against /v1/rounds/ID and the log's draws."""
    page = W.read_round("#my-round article.round")
    check(page is not None, "%s: the page shows no round of the player" % what)
    rs = W.api("v1/rounds/" + rid)
    check_eq(rs["round"], rid, "%s: the API's round" % what)
    check(short(rid) in page["head"], "%s: the page's round is not %s: %r" % (what, rid, page["head"]))
    check_eq([code_of(c) for c in page["dealer"]["cards"]], rs["dealerHand"]["cards"],
             "%s: dealer's cards on the page and in the API" % what)
    if rs["dealerHand"]["cards"]:
        check_eq(page["dealer"]["total"], total_words(rs["dealerHand"]["cards"], rs["dealerHand"]["total"]),
                 "%s: dealer's total" % what)
    check_eq(len(page["hands"]), len(rs["playerHands"]), "%s: number of hands" % what)
    for ph, h in zip(page["hands"], rs["playerHands"]):
        i = h["handIndex"]
        check_eq([code_of(c) for c in ph["cards"]], h["cards"], "%s: hand %d's cards" % (what, i))
        check_eq(ph["total"], total_words(h["cards"], h["total"]), "%s: hand %d's total" % (what, i))
        check_eq(ph["status"], h["status"], "%s: hand %d's status" % (what, i))
        check_eq(ph["bet"], eth(h["betAmount"]), "%s: hand %d's stake" % (what, i))
    check_eq(page["facts"].get("Next actions"), ", ".join(rs["nextActions"]) or "none now",
             "%s: next actions" % what)
    tip = W.tip()
    if "timeoutAt" in rs:
        act = page["facts"].get("To act") or ""
        m = re.match(r"(\d+) blocks left", act)
        check(m, "%s: the page shows no blocks left to act: %r" % (what, page["facts"]))
        check_eq(int(m.group(1)), rs["timeoutAt"] - tip, "%s: blocks left (timeoutAt %d, page at block %d)"
                 % (what, rs["timeoutAt"], tip))
        want = "then by default %s, at the end of block %d" % (default_action(rs), rs["timeoutAt"])
        check(want in act, "%s: the default action and its block: %r, not %r" % (what, act, want))
    # The log: the round's draws, in order, are the cards shown.
    drawn = {"D": []}
    for l in W.log():
        for e in l["events"]:
            if e.get("round") == rid and e["type"] == "draw":
                k = "D" if e["handOwner"] == "Dealer" else e["handIndex"]
                drawn.setdefault(k, []).append(e["card"])
    check_eq(drawn["D"], rs["dealerHand"]["cards"], "%s: the log's dealer draws" % what)
    return rs, page


def expected_buttons(rs):
    out = []
    for a in rs["actionValues"]:
        if a["action"] == "Peek":
            name = "Peek with insurance" if a.get("insurance") else "Peek without insurance"
        else:
            name = a["action"]
        out.append(name + (" (%s)" % eth(a["value"]) if a["value"] != "0" else ""))
    return out


def wait_actions(W, rid, actions, what):
    """Waits until the page offers exactly `actions` (nextActions) for the
    player's round; checks the page against the API and the log, and the
    buttons against actionValues."""
    want = ", ".join(actions)

    def shown():
        r = W.read_round("#my-round article.round")
        return r and short(rid) in r["head"] and r["facts"].get("Next actions") == want and W.buttons()
    W.until("the actions %s of round %s" % (want, short(rid)), shown)
    rs, page = check_open_round(W, rid, what)
    check_eq(rs["nextActions"], actions, "%s: the API's nextActions" % what)
    check_eq(W.buttons(), expected_buttons(rs), "%s: the action buttons" % what)
    return rs


def act(W, rid, button, what):
    """Clicks an action button; returns the hash of the transaction sent."""
    n = len(W.sent())
    W.click("#my-round button.action", button, "the button %r" % button)
    name = button.split(" (")[0]
    return W.wait_sent(n, name)


def bet(W, stake, pp, t3, what):
    """Fills the Bet form, checks the transaction it shows, clicks Bet;
    returns the hash."""
    set_form(W, stake, pp, t3)
    W.until("the Bet button enabled", lambda: W.d.find_element(By.ID, "bet-send").is_enabled())
    data = W.text("#bet-data")
    want = "0x484a0101"
    if t3:
        want += "%016x%016x" % (pp, t3)
    elif pp:
        want += "%016x" % pp
    check_eq(data, want, "%s: the Bet's data on the page" % what)
    check_eq((W.text("#bet-amount"), W.text("#bet-value")), (eth(stake + pp + t3), str(stake + pp + t3)),
             "%s: the Bet's value on the page, in ETH and in wei" % what)
    n = len(W.sent())
    W.d.find_element(By.ID, "bet-send").click()
    label = "Bet " + eth(stake) + (" + Perfect Pairs " + eth(pp) if pp else "") + (" + 21+3 " + eth(t3) if t3 else "")
    h = W.wait_sent(n, label)
    tx = W.a.rpc("eth_getTransactionByHash", h)
    check_eq((tx["to"].lower(), int(tx["value"], 16), tx["input"]), (W.dealer, stake + pp + t3, want),
             "%s: the Bet transaction anvil got (to, value, input)" % what)
    return h


def set_form(W, stake, pp, t3, base=False):
    """Types the amounts (wei) into the Bet form, in ETH (or in wei when
    the page shows base units)."""
    for id_, v in (("bet-stake", stake), ("bet-pp", pp), ("bet-t3", t3)):
        e = W.d.find_element(By.ID, id_)
        e.clear()
        e.send_keys(str(v) if base else eth_digits(v))


def deal(W, first, up, second):
    """After the Bet's block: grinds the three cards of the deal and
    confirms the last one."""
    W.grind(first)
    W.grind(up)
    W.grind(second)
    W.confirm()


def check_settled(W, rid, what):
    """The settled round, opened from the settlements list by its link, as
    the page shows it, against the log's settle event and the API."""
    settle = None
    for l in W.log():
        for e in l["events"]:
            if e["type"] == "settle" and e["round"] == rid:
                settle = (l["height"], e)
    check(settle is not None, "%s: the log has no settlement of %s" % (what, rid))
    h, ev = settle
    W.d.get(W.url + "#/")
    link = "#settlements a.round-link"
    W.click(link, short(rid), "the settlement of %s in the list" % short(rid))
    W.until("the page of round %s" % short(rid),
            lambda: W.texts("#view .round-id", "#view .round .state") == [rid, "settled at block %d" % h])
    page = W.read_round("#view article.round")
    rs = W.api("v1/rounds/" + rid)
    check_eq(rs.get("roundEnded"), True, "%s: the API's roundEnded" % what)
    check_eq((rs.get("betAmount"), rs.get("payout"), rs.get("settledAt")), (ev["betAmount"], ev["payout"], h),
             "%s: the API's betAmount, payout, settledAt against the log" % what)
    check_eq([code_of(c) for c in page["dealer"]["cards"]], ev["dealerHand"]["cards"], "%s: dealer's cards" % what)
    check_eq(page["dealer"]["total"], total_words(ev["dealerHand"]["cards"], ev["dealerHand"]["total"]),
             "%s: dealer's total" % what)
    check_eq(len(page["hands"]), len(ev["playerHands"]), "%s: number of hands" % what)
    doubled = {e["handIndex"] for e in events(W.log(), type="action", round=rid) if e["action"] == "Double"}
    for ph, x in zip(page["hands"], ev["playerHands"]):
        i = x["handIndex"]
        check_eq(([code_of(c) for c in ph["cards"]], ph["total"], ph["status"], ph["bet"], ph["payout"]),
                 (x["cards"], total_words(x["cards"], x["total"]), x["status"], eth(x["betAmount"]),
                  eth(x["payout"])),
                 "%s: hand %d (cards, total, status, stake, payout)" % (what, i))
        check_eq(ph["title"].split(" ◀")[0], "Hand %d%s%s" % (i, " (split)" if len(ev["playerHands"]) > 1 else "",
                                                             " doubled" if i in doubled else ""),
                 "%s: hand %d's heading (a Double marked, as the log has it)" % (what, i))
    check_eq(page["facts"].get("Staked"), eth(ev["betAmount"]), "%s: the round's stake" % what)
    check_eq(page["facts"].get("Returned"), eth(ev["payout"]), "%s: the round's return" % what)
    net = int(ev["payout"]) - int(ev["betAmount"])
    check_eq(page["facts"].get("Net"), ("+" if net > 0 else "") + eth(net), "%s: the round's net" % what)
    # The payouts the dealer's ledger holds for the round, as the page lists them
    # (kind, amount, hand; their state moves on its own).
    led = subprocess.run([W.hashjack, "ledger", "--state", W.dm.state_dir, "--round", rid, "--json"],
                         check=True, capture_output=True, text=True, timeout=30).stdout
    want = sorted((r["kind"], eth(r["amount"]), "" if r["handIndex"] is None else str(r["handIndex"]))
                  for r in map(json.loads, led.splitlines()))
    check(want, "%s: the ledger has no payout of the round" % what)
    W.until("the %d payouts of round %s" % (len(want), short(rid)),
            lambda: sorted((r[0], r[2], r[4]) for r in W.d.execute_script(READ_PAYOUTS)) == want)
    check_eq(W.d.execute_script(READ_BROKEN, "#view table.payouts"), [],
             "%s: the payouts' words and numbers each on one line" % what)
    if "insurance" in ev:
        check_eq(page["facts"].get("Insurance"), "bet %s, payout %s" % (eth(ev["insurance"]["betAmount"]),
                                                                       eth(ev["insurance"]["payout"])),
                 "%s: insurance" % what)
    return ev


def check_sent_accepted(W, h, action):
    """The Sent list says the transaction h was accepted at the block where
    the log has its action."""
    where = [(l["height"], e) for l in W.log() for e in l["events"] if e.get("tx") == h]
    check(len(where) == 1 and where[0][1]["type"] == "action" and where[0][1]["action"] == action,
          "the log's events of tx %s: %s" % (h, where))
    want = "accepted at block %d" % where[0][0]
    W.until("%s %s" % (h, want), lambda: any(x[1] == h and x[2] == want for x in W.sent()))


# --------------------------------------------------------------------------
# The checks, in order

def c_load(W):
    """The page loads: the table, the recent blocks, live."""
    W.start_browser()
    W.d.get(W.url)
    W.until("the stream live", lambda: W.text("#conn") == "live")
    t = W.api("v1/table")
    check_eq(W.text("#dealer"), W.dealer, "the dealer on the page")
    check_eq((t["dealer"], t["family"], t["minBet"], t["maxBet"]), (W.dealer, "evm", str(MIN_BET), str(MAX_BET)),
             "the API's table")
    check(W.d.find_element(By.ID, "pp-label").is_displayed() and W.d.find_element(By.ID, "t3-label").is_displayed(),
          "the Bet form shows no side stakes though the table offers both")
    return "table of dealer %s, %s" % (short(W.dealer), W.text("#tip"))


def c_payloads(W):
    """The Bet form's data for side stakes, typed in, against `hashjack
    player bet` (whose payload carries the same u64 fields after the key),
    and a 12-byte payload when only Perfect Pairs is staked."""
    W.d.find_element(By.ID, "connect").click()
    W.until("the wallet connected", lambda: W.text("#wallet") == "Connected: " + W.player)
    key = os.path.join(W.work, "player.key")
    subprocess.run([W.hashjack, "player", "keygen", key], check=True, capture_output=True, timeout=30)
    cases = [(STAKE, 0x0102030405060708, 0), (STAKE, 0, 0xfffefdfcfbfaf9f8),
             (STAKE, 0x0102030405060708, 0x1112131415161718), (STAKE, 1000, 1000), (STAKE, 0, 0),
             (STAKE, 2 ** 64 - 1, 1)]
    for stake, pp, t3 in cases:
        set_form(W, stake, pp, t3)
        cmd = [W.hashjack, "player", "bet", "--key", key]
        if pp:
            cmd += ["--perfect-pairs", str(pp)]
        if t3:
            cmd += ["--21plus3", str(t3)]
        c = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=30).stdout.strip()
        want = "0x" + c[:8] + c[72:]          # the magic, version, action; then what follows the key P
        W.until("the data of a Bet with side stakes %d, %d" % (pp, t3), lambda: W.text("#bet-data") == want)
        problem = W.text("#bet-problem")
        big = pp > stake or t3 > stake
        check_eq(bool(problem), big, "a side stake above the stake is refused (%r)" % problem)
        check_eq(W.d.find_element(By.ID, "bet-send").is_enabled(), not big, "the Bet button's state")
    set_form(W, STAKE, 2 ** 64, 0)
    W.until("a side stake above 2^64 - 1 refused", lambda: "2^64" in (W.text("#bet-problem") or ""))
    e = W.d.find_element(By.ID, "bet-pp")
    e.clear()
    e.send_keys("0.0000000000000000001")
    W.until("19 decimals refused", lambda: "at most 18 digits after the point" in (W.text("#bet-problem") or ""))
    check_eq(W.text("#bet-data"), None, "no data for a side stake above 2^64 - 1")
    return "%d payloads as hashjack player bet writes them" % len(cases)


def c_round_a(W):
    """Bet with both side stakes; 8H 8H against 6S: Perfect Pairs wins
    (perfectPair, 25:1), 21+3 loses; Split; hand 1 (8H 2D) Hit KS: 20,
    Stand; hand 0 (8H 3C) Hit 9D: 20, Stand; the dealer 6S 10H KC busts:
    both hands Win."""
    pp = t3 = SIDE
    h = bet(W, STAKE, pp, t3, "A")
    W.mine_tx(h)
    rid = h
    deal(W, "8H", "6S", "8H")
    rs = wait_actions(W, rid, ["Split", "Hit", "Stand", "Surrender"], "A: the deal")
    side = [e for e in events(W.log(), type="sidebets", round=rid)]
    check_eq([(e["perfectPairs"]["status"], e["perfectPairs"]["payout"], e["poker"]["status"], e["poker"]["payout"])
              for e in side], [("perfectPair", str(pp * 26), "sidebetLost", "0")], "A: the log's side bets")
    check_eq(page_sidebets(W, "#my-round article.round"),
             {"Perfect Pairs": "bet %s, perfectPair, payout %s" % (eth(pp), eth(pp * 26)),
              "21+3": "bet %s, sidebetLost, payout %s" % (eth(t3), eth(0))}, "A: the side bets on the page")
    check_eq((rs["perfectPairs"]["status"], rs["poker"]["status"]), ("perfectPair", "sidebetLost"),
             "A: the API's side bets")
    W.shot("a-deal")

    sp = act(W, rid, "Split (%s)" % eth(STAKE), "A")
    W.mine_tx(sp)
    W.grind("3C")      # hand 0's second card
    W.grind("2D")      # hand 1's
    W.confirm()
    rs = wait_actions(W, rid, ["Hit", "Stand"], "A: hand 1 after the split")
    check_eq((rs["handIndex"], [x["cards"] for x in rs["playerHands"]]), (1, [["8H", "3C"], ["8H", "2D"]]),
             "A: the hands after the split")
    check(W.read_round("#my-round article.round")["hands"][1]["title"].endswith("to act"),
          "A: the page does not mark hand 1 as the one to act")
    hit = act(W, rid, "Hit", "A")
    W.mine_tx(hit)
    W.grind("KS")
    W.confirm()
    wait_actions(W, rid, ["Hit", "Stand"], "A: hand 1 at 20")
    st = act(W, rid, "Stand", "A")
    W.mine_tx(st)
    W.confirm()
    rs = wait_actions(W, rid, ["Hit", "Stand"], "A: hand 0")
    check_eq(rs["handIndex"], 0, "A: hand 0 acts after hand 1 stood")
    hit0 = act(W, rid, "Hit", "A")
    W.mine_tx(hit0)
    W.grind("9D")
    W.confirm()
    wait_actions(W, rid, ["Hit", "Stand"], "A: hand 0 at 20")
    st0 = act(W, rid, "Stand", "A")
    W.mine_tx(st0)
    W.grind("10H")
    W.grind("KC")
    W.confirm()
    W.until("round A gone from the player's box", lambda: W.text("#my-round") == "You have no open round.")
    for t, a in ((sp, "Split"), (hit, "Hit"), (st, "Stand"), (hit0, "Hit"), (st0, "Stand")):
        check_sent_accepted(W, t, a)
    check_sent_accepted(W, h, "Bet")
    ev = check_settled(W, rid, "A")
    check_eq([(x["status"], x["payout"]) for x in ev["playerHands"]], [("Win", str(2 * STAKE))] * 2,
             "A: the log's results")
    W.shot("a-settled")
    return "round %s: split, hits, stands, perfect pair: %s returned" % (short(rid), ev["payout"])


def page_sidebets(W, css):
    r = W.read_round(css)
    return {k: v for k, v in r["facts"].items() if k in ("Perfect Pairs", "21+3")}


def c_round_b(W):
    """A Bet without side stakes (4-byte payload); 5C 6H against 7D: Double
    9S: 20; the dealer 7D KC stands on 17: Win on a doubled stake."""
    W.d.get(W.url + "#/")
    W.until("the Bet form", lambda: W.d.find_element(By.ID, "bet-send").is_displayed())
    h = bet(W, STAKE, 0, 0, "B")
    W.mine_tx(h)
    deal(W, "5C", "7D", "6H")
    wait_actions(W, h, ["Hit", "Double", "Stand", "Surrender"], "B: 11 against 7")
    db = act(W, h, "Double (%s)" % eth(STAKE), "B")
    W.mine_tx(db)
    W.grind("9S")
    W.grind("KC")
    W.confirm()
    W.until("round B settled", lambda: W.text("#my-round") == "You have no open round.")
    check_sent_accepted(W, db, "Double")
    ev = check_settled(W, h, "B")
    check_eq([(x["status"], x["betAmount"], x["payout"]) for x in ev["playerHands"]],
             [("Win", str(2 * STAKE), str(4 * STAKE))], "B: the log's result")
    W.round_b = (h, ev)
    return "round %s: double: %s returned" % (short(h), ev["payout"])


def c_units(W):
    """Amounts in ETH, base units on demand: on round B's page (where
    check_settled left the browser) each amount's title has it in wei; the
    header's "wei" button shows every amount in wei, the Bet form's stake
    as the same amount in wei; "ETH" goes back."""
    rid, ev = W.round_b

    def staked():
        r = W.read_round("#view article.round")
        return r and r["facts"].get("Staked")
    check_eq(staked(), eth(ev["betAmount"]), "B's stake in ETH")
    check_eq(W.d.execute_script("return document.querySelector('#view .round-bet').title"),
             "= " + wei(ev["betAmount"]), "the title of B's stake: its wei")
    check_eq(W.d.find_element(By.ID, "bet-stake").get_attribute("value"), eth_digits(STAKE),
             "the form's stake in ETH")
    W.click("#units button", "wei", "the wei button")
    W.until("B's stake in wei", lambda: staked() == wei(ev["betAmount"]))
    page = W.read_round("#view article.round")
    check_eq([(x["bet"], x["payout"]) for x in page["hands"]],
             [(wei(x["betAmount"]), wei(x["payout"])) for x in ev["playerHands"]], "B's hands in wei")
    check_eq(W.d.find_element(By.ID, "bet-stake").get_attribute("value"), str(STAKE), "the form's stake in wei")
    check_eq(W.text("#bet-form .unit"), "wei", "the form's unit")
    check_eq([w for w, h, _ in W.sent() if h == rid], ["Bet " + wei(STAKE)], "B's Bet in the Sent list, in wei")
    check_eq(W.text("#table .min-bet") + " to " + W.text("#table .max-bet"),
             "%s to %s" % (wei(MIN_BET), wei(MAX_BET)), "the table's limits in wei")
    W.shot("units-wei")
    W.click("#units button", "ETH", "the ETH button")
    W.until("B's stake in ETH again", lambda: staked() == eth(ev["betAmount"]))
    check_eq(W.d.find_element(By.ID, "bet-stake").get_attribute("value"), eth_digits(STAKE),
             "the form's stake in ETH again")
    check_eq(W.text("#table .min-bet") + " to " + W.text("#table .max-bet"),
             "%s to %s" % (eth(MIN_BET), eth(MAX_BET)), "the table's limits in ETH")
    return "%s = %s and back" % (eth(ev["betAmount"]), wei(ev["betAmount"]))


def c_reconnect(W):
    """The server stops; two blocks are dealt meanwhile; it starts again on
    the same port: the page reconnects (from the last height it saw) and
    shows both blocks."""
    W.d.get(W.url + "#/")
    W.until("the stream live", lambda: W.text("#conn") == "live")
    seen = W.tip()
    W.stop_serve()
    W.until("the page noticing the drop", lambda: (W.text("#conn") or "").startswith("reconnecting"))
    W.a.mine()
    W.a.mine()
    W.a.mine()
    W.dm.wait_height(seen + 2)
    W.start_serve()
    W.until("the stream live again", lambda: W.text("#conn") == "live", timeout=60)
    W.until("blocks %d and %d" % (seen + 1, seen + 2), lambda: (W.tip() or 0) >= seen + 2)
    shown = {int(x[0][1:]): code_of(x[1]) for x in W.d.execute_script(READ_BLOCKS)}
    for hh in (seen + 1, seen + 2):
        l = W.line(hh)
        check_eq(shown.get(hh), l["card"]["code"] if "card" in l else None, "block %d's card after the reconnection" % hh)
    return "missed blocks %d, %d shown after the reconnection" % (seen + 1, seen + 2)


def c_round_c(W):
    """10C 6D against AS: only Peek, offered with and without insurance;
    Peek with insurance (floor(stake / 2)); the peek card 5H: no dealer
    blackjack, insurance lost; Surrender: half the stake back."""
    h = bet(W, STAKE, 0, 0, "C")
    W.mine_tx(h)
    deal(W, "10C", "AS", "6D")
    wait_actions(W, h, ["Peek"], "C: 16 against an Ace")
    pk = act(W, h, "Peek with insurance (%s)" % eth(STAKE // 2), "C")
    W.mine_tx(pk)
    W.grind("5H")
    W.confirm()
    rs = wait_actions(W, h, ["Hit", "Stand", "Surrender"], "C: after a clear peek")
    check_eq((rs.get("peekNoBlackjack"), rs.get("insurance")), (True, {"betAmount": str(STAKE // 2)}),
             "C: the API after the peek")
    check("peeked: no blackjack" in W.text("#my-round .hand.dealer"),
          "C: the page does not say the peek found no blackjack")
    sr = act(W, h, "Surrender", "C")
    W.mine_tx(sr)
    W.confirm()
    W.until("round C settled", lambda: W.text("#my-round") == "You have no open round.")
    check_sent_accepted(W, pk, "Peek")
    check_sent_accepted(W, sr, "Surrender")
    ev = check_settled(W, h, "C")
    check_eq(([(x["status"], x["payout"]) for x in ev["playerHands"]], ev["insurance"]),
             ([("Surrender", str(STAKE // 2))], {"betAmount": str(STAKE // 2), "payout": "0"}),
             "C: the log's result")
    return "round %s: peek with insurance, surrender: %s returned" % (short(h), ev["payout"])


def c_round_d(W):
    """KH 9C against AD; Peek without insurance; the peek card 7S is set
    aside; Stand; the dealer's second card 8C (soft 19): a push."""
    W.d.get(W.url + "#/")
    h = bet(W, STAKE, 0, 0, "D")
    W.mine_tx(h)
    deal(W, "KH", "AD", "9C")
    wait_actions(W, h, ["Peek"], "D: 19 against an Ace")
    pk = act(W, h, "Peek without insurance", "D")
    W.mine_tx(pk)
    W.grind("7S")
    W.confirm()
    wait_actions(W, h, ["Hit", "Stand", "Surrender"], "D: after a clear peek")
    st = act(W, h, "Stand", "D")
    W.mine_tx(st)
    W.grind("8C")
    W.confirm()
    W.until("round D settled", lambda: W.text("#my-round") == "You have no open round.")
    check_sent_accepted(W, pk, "Peek")
    ev = check_settled(W, h, "D")
    check_eq(([(x["status"], x["payout"]) for x in ev["playerHands"]], ev["dealerHand"]["cards"]),
             ([("Push", str(STAKE))], ["AD", "8C"]), "D: the log's result")
    return "round %s: peek without insurance, stand: a push" % short(h)


def c_blocks(W):
    """The home view's block strip, newest first: every card as the log
    has it."""
    W.d.get(W.url + "#/")
    last = W.log()[-1]["height"]
    W.until("block %d in the strip" % last,
            lambda: (W.d.execute_script(READ_BLOCKS) or [["#0"]])[0][0] == "#%d" % last)
    shown = W.d.execute_script(READ_BLOCKS)
    lines = {l["height"]: l for l in W.log()}
    want = [("#%d" % hh, lines[hh]["card"]["code"] if "card" in lines[hh] else None)
            for hh in range(last, last - len(shown), -1)]
    check_eq([(x[0], code_of(x[1])) for x in shown], want, "the block strip against the card log")
    W.shot("home")
    return "%d blocks, %d to %d" % (len(shown), last - len(shown) + 1, last)


READ_BLOCK = r"""
const v = document.querySelector('#view');
const txt = (e) => (e ? e.innerText.trim() : null);
const f = v.querySelector('.block-facts');
return {title: txt(v.querySelector('h2')), error: txt(v.querySelector('#view-error')),
  hash: txt(f && f.querySelector('.hash')), card: txt(f && f.querySelector('.card-name')),
  rankDigit: txt(f && f.querySelector('.hash .rank-digit')),
  colorDigit: txt(f && f.querySelector('.hash .color-digit')),
  skipped: f ? [...f.querySelectorAll('.hash .skipped')].map(txt).join('') : null,
  derivation: txt(v.querySelector('#derivation')), none: txt(v.querySelector('#no-events')),
  events: [...v.querySelectorAll('#events > li')].map((li) => ({
    type: txt(li.querySelector('.event-type')).toLowerCase(), text: txt(li),
    rounds: [...li.querySelectorAll('a.round-link')].map((a) => a.title)})),
  touched: [...v.querySelectorAll('#touched a.round-link')].map((a) => a.title)};
"""

SUIT_SYMBOL = {v: k for k, v in SUIT_LETTER.items()}


def card_text(code):
    return code[:-1] + SUIT_SYMBOL[code[-1]]


def click_block(W, h):
    """Clicks block h in the strip."""
    def once():
        a = W.d.execute_script("return [...document.querySelectorAll('#blocks a.block-open')].find((a) => "
                               "a.querySelector('.height').innerText.trim() === arguments[0]) || null;", "#%d" % h)
        try:
            if a is not None:
                a.click()
                return True
        except StaleElementReferenceException:
            pass
        return False
    W.until("block %d in the strip" % h, once)


def check_block_view(W, line, explained):
    """The block view of a log line, as the page shows it, against the line
    and `hashjack card`'s words (explained: its lines for the hash)."""
    h = line["height"]
    def shown():
        b = W.d.execute_script(READ_BLOCK)
        return b["title"] == "Block %d" % h and (b["derivation"] or b["error"]) and b
    b = W.until("the view of block %d" % h, shown)
    check_eq(b["error"], None, "block %d: an error" % h)
    check_eq(b["hash"], line["hash"], "block %d: the hash" % h)
    check_eq(b["derivation"].splitlines(), explained, "block %d: the card worked out, as hashjack card says" % h)
    c = line["card"]
    check_eq((b["card"].rsplit(" ", 1)[-1], b["rankDigit"], b["colorDigit"], b["skipped"]),
             ("(%s)" % c["code"], c["rankDigit"], c["colorDigit"], line["hash"][2:][c["pos"] + 1:]),
             "block %d: the card, its rank digit, color digit and skipped digits marked in the hash" % h)
    evs = line["events"]
    check_eq([e["type"] for e in b["events"]], [e["type"] for e in evs], "block %d: its events" % h)
    if not evs:
        check(b["none"], "block %d: nothing says it has no event" % h)
    for shown, e in zip(b["events"], evs):
        if "round" in e:
            check(e["round"] in shown["rounds"],
                  "block %d: %s does not link round %s: %s" % (h, e["type"], e["round"], shown))
        want = []
        if e["type"] in ("draw", "peek", "skip"):
            want.append(card_text(e["card"]))
        if e["type"] == "draw":
            want.append("to the dealer" if e["handOwner"] == "Dealer" else "to hand %d" % e["handIndex"])
        if e["type"] == "action":
            want.append(e["action"])
            if e["stake"] != "0":
                want.append(eth(e["stake"]))
        if e["type"] == "timeout":
            want.append("Peek without insurance" if e["action"] == "Peek" else "Stand on hand %d" % e["handIndex"])
        if e["type"] == "settle":
            want += ["staked " + eth(e["betAmount"]), "returned " + eth(e["payout"])]
            want += ["hand %d %s" % (x["handIndex"], x["status"].lower()) for x in e["playerHands"]
                     if x["status"] != "DealerBlackjack"]
        for w in want:
            check(w in shown["text"],
                  "block %d: the %s event does not say %r: %r" % (h, e["type"], w, shown["text"]))
    rounds = []
    for e in evs:
        if "round" in e and e["round"] not in rounds:
            rounds.append(e["round"])
    check_eq(b["touched"], rounds, "block %d: the rounds it touched" % h)
    return b


def c_block_view(W):
    """Each block of the strip, clicked, opens its view: the hash with the
    rank digit, the color digit and the digits skipped marked, the card
    worked out line for line as `hashjack card` explains it, each event in
    words with its rounds linked; a round's link opens the round."""
    W.d.get(W.url + "#/")
    shown = [int(x[0][1:]) for x in W.until("the strip", lambda: W.d.execute_script(READ_BLOCKS))]
    lines = {l["height"]: l for l in W.log()}
    hashes = [lines[h]["hash"] for h in shown]
    out = subprocess.run([W.hashjack, "card"] + hashes, check=True, capture_output=True, text=True,
                         timeout=30).stdout
    explained, cur = {}, None
    for l in out.splitlines():
        if not l.startswith(" "):
            cur = explained.setdefault(l.strip(), [])
        else:
            cur.append(l.strip())
    busiest = max(shown, key=lambda h: (len(lines[h]["events"]), h))
    n = 0
    for h in shown:
        click_block(W, h)
        check_block_view(W, lines[h], explained[lines[h]["hash"]])
        n += len(lines[h]["events"])
        if h == busiest:
            W.shot("block")
    click_block(W, busiest)
    check_block_view(W, lines[busiest], explained[lines[busiest]["hash"]])
    rid = [e["round"] for e in lines[busiest]["events"] if "round" in e][0]
    W.click("#touched a.round-link", rid, "the link of round %s" % short(rid))
    W.until("the page of round %s" % short(rid), lambda: W.text("#view .round-id") == rid)
    return "%d blocks, %d events; block %d's round %s opens" % (len(shown), n, busiest, short(rid))


EXPECTED_404 = re.compile(r"/v1/(players|rounds|blocks|payouts)[/?]\S* - Failed to load resource: "
                          r"the server responded with a status of 40[04] ")


def c_unknown_views(W):
    """Every view ends its loading: a malformed or unknown player, round or
    block says so and nothing stays "loading"; a block not dealt yet says
    so, and shows once it is."""
    tip = W.tip()
    stranger = W.a.accounts[3].address
    cases = [
        ("#/player/0x12", "Not a player (an address: 0x and 40 hex digits).", ["Open round", "Payouts"]),
        ("#/player/" + stranger, "No round of this player in the card log.", []),
        ("#/round/0x1234", "Not a round id (the Bet's transaction id: 0x and 64 hex digits).", ["Payouts"]),
        ("#/round/0x" + "ab" * 32, "No round with this id in the card log this server reads.", []),
        ("#/block/abc", "Not a block height: \"abc\".", []),
        ("#/block/0", "Block 0 is not in the card log this server reads.", []),
        ("#/block/%d" % (tip + 1000),
         "Block %d is not dealt yet: the dealer's last block is %d." % (tip + 1000, tip), []),
    ]
    for route, words, absent in cases:
        W.d.get(W.url + route)

        def said():
            t, err = W.texts("#view", "#view-error")
            return words in (err or "") and "loading" not in (t or "") and t
        t = re.sub(r"\s+", " ", W.until("%s saying %r, nothing loading" % (route, words), said))
        for a in absent:
            check(a not in t, "%s: %r on a page with nothing to show: %r" % (route, a, t))
        if route.startswith("#/player/0x") and len(route) > 20:
            check("Open round none Recent rounds none Payouts no payouts" in t,
                  "%s: the player's sections: %r" % (route, t))
            W.shot("unknown-player")
        if route.startswith("#/round/0x") and len(route) > 20:
            check("Payouts no payouts" in t, "%s: the round's payouts: %r" % (route, t))
    # The next block, before and after it is dealt.
    nxt = tip + 1
    W.d.get(W.url + "#/block/%d" % nxt)
    W.until("block %d not dealt yet" % nxt, lambda: "is not dealt yet" in (W.text("#view-error") or ""))
    W.confirm()
    out = subprocess.run([W.hashjack, "card", W.line(nxt)["hash"]], check=True, capture_output=True, text=True,
                         timeout=30).stdout
    check_block_view(W, W.line(nxt), [l.strip() for l in out.splitlines()[1:]])
    errors = [e for e in W.console_errors() if not EXPECTED_404.search(e)]
    check(not errors, "the browser's console, besides the 400 and 404 answers asked for:\n  " + "\n  ".join(errors))
    return "%d views say what is wrong; block %d shown once dealt" % (len(cases), nxt)


READ_RULES = r"""
const txt = (e) => (e ? e.innerText.trim() : null);
const rows = (css) => [...document.querySelectorAll(css)].map((tr) =>
  [...tr.querySelectorAll('th, td')].map(txt));
const charts = {};
for (const t of document.querySelectorAll('#view table.chart')) {
  charts[t.id.replace('chart-', '')] = rows('#' + t.id + ' tbody tr');
}
return {rules: rows('#rules-words tbody tr'), pp: rows('#pays-pp tr'), t3: rows('#pays-t3 tr'), charts,
  limits: txt(document.querySelector('#limits'))};
"""

RULE_WORDS = {   # what each rule key of this table's (bethash with both side bets) must say
    "preset": "starts from the bethash preset",
    "blackjack_pays": "pays 6:5: the stake back plus 6/5 of it, rounded down",
    "dealer_soft17": "The dealer hits soft 17",
    "peek": "With an Ace up, your first move must be a Peek",
    "double_on": "when they make a hard 9, 10 or 11",
    "double_after_split": "You may not double after a split.",
    "max_hands": "You may split once: two hands at most.",
    "split_by_value": "Any two 10-valued cards are a pair",
    "split_aces": "Aces never split.",
    "hit_split_aces": "takes one card and stands",
    "surrender": "Late surrender",
    "split_21_is_blackjack": "is an ordinary 21, paid 1:1, not a blackjack",
    "perfect_pairs": "The Perfect Pairs side bet is offered",
    "twenty_one_plus_three": "The 21+3 side bet is offered",
    "cards": "Each card is read from its block's hash",
}


def c_rules(W):
    """The Rules link: every rule key of /v1/table in a sentence, the side
    bets' pay tables, the limits, and the strategy chart as /v1/table has
    it, cell for cell."""
    W.d.get(W.url + "#/")
    W.click("#nav a", "Rules", "the Rules link")
    W.until("the rules in words", lambda: W.d.execute_script(READ_RULES)["rules"])
    t = W.api("v1/table")
    r = W.d.execute_script(READ_RULES)
    check_eq([k for _, k in r["rules"]], ["%s = %s" % kv for kv in t["rules"].items()], "every rule key and its value")
    check_eq(sorted(RULE_WORDS), sorted(t["rules"]), "the test knows every rule key")
    for sentence, key in r["rules"]:
        k = key.split(" = ")[0]
        check(RULE_WORDS[k] in sentence, "%s: %r does not say %r" % (key, sentence, RULE_WORDS[k]))
    check_eq([x[2] for x in r["pp"]], ["%s to 1" % p for p in PERFECT_PAIRS.split(",")], "Perfect Pairs' pays")
    check_eq([x[0] for x in r["pp"]], ["perfectPair", "colouredPair", "mixedPair"], "Perfect Pairs' results")
    check_eq([x[2] for x in r["t3"]], ["%s to 1" % p for p in TWENTY_ONE_PLUS_THREE.split(",")], "21+3's pays")
    check_eq([x[0] for x in r["t3"]], ["suitedTrips", "straightFlush", "threeOfAKind", "straight", "flush"],
             "21+3's results")
    for w in ("from %s to %s" % (eth(MIN_BET), eth(MAX_BET)), "you have %d blocks" % TIMEOUT,
              "%d confirmations" % CONFIRMATIONS, "no bankroll limit"):
        check(w in r["limits"], "the limits do not say %r: %r" % (w, r["limits"]))
    label = {"hard": lambda k: "hard " + k, "soft": lambda k: "soft %s (A+%d)" % (k, int(k) - 11),
             "pairs": lambda k: "%s-%s" % (k, k)}
    for part in ("hard", "soft", "pairs"):
        want = [[label[part](k)] + [row[u] for u in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")]
                for k, row in t["chart"][part].items()]
        check_eq(r["charts"].get(part), want, "the %s chart against /v1/table" % part)
    W.shot("rules")
    return "%d rules in words, 2 pay tables, %d chart rows" % (len(r["rules"]),
                                                               sum(len(c) for c in r["charts"].values()))


READ_HOW = r"""
const txt = (e) => (e ? e.innerText.trim() : null);
return {dealer: txt(document.querySelector('#how-dealer')), steps: txt(document.querySelector('#howto')),
  fees: txt(document.querySelector('#how-fees')),
  actions: [...document.querySelectorAll('#how-actions tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map(txt))};
"""

PAYLOADS = {"Bet": "0x484a0101", "Hit": "0x484a0102", "Stand": "0x484a0103", "Double": "0x484a0104",
            "Split": "0x484a0105", "Surrender": "0x484a0106", "Peek without insurance": "0x484a010700",
            "Peek with insurance": "0x484a010701"}


def c_how(W):
    """The How to play link: to the dealer's address, each action's input
    data (docs/PROTOCOL.md section 11.2: the very data of every transaction
    this page sent) and value, the window and its default action, and what
    fees do to a stake."""
    W.click("#nav a", "How to play", "the How to play link")
    W.until("how to play", lambda: W.d.execute_script(READ_HOW)["actions"])
    h = W.d.execute_script(READ_HOW)
    check_eq(h["dealer"], W.dealer, "the dealer's address")
    check_eq([(a, d) for a, d, _, _ in h["actions"]], list(PAYLOADS.items()), "each action's input data")
    values = {a: v for a, _, v, _ in h["actions"]}
    check("from %s to %s" % (eth(MIN_BET), eth(MAX_BET)) in values["Bet"], "the Bet's value: %r" % values["Bet"])
    check_eq([values[a] for a in ("Hit", "Stand", "Surrender", "Peek without insurance")], ["0"] * 4, "the 0 values")
    check_eq((values["Double"], values["Split"], values["Peek with insurance"]),
             ("the hand's stake again", "the hand's stake again", "half the Bet's stake, rounded down"),
             "the other values")
    sent = 0
    for what, tx, _ in W.sent():
        name = what.split(" ")[0] if what.startswith("Bet ") else what
        data = W.a.rpc("eth_getTransactionByHash", tx)["input"]
        want = PAYLOADS[name] if name != "Bet" else None
        check(data == want if want else data.startswith(PAYLOADS["Bet"]),
              "%s sent %s, the page tells %s" % (what, data, want or PAYLOADS["Bet"]))
        sent += 1
    for w in ("for %d blocks" % TIMEOUT, "premature and refunded", "the default action is taken for you: Stand, or a "
              "Peek without insurance where a Peek is due"):
        check(w in h["steps"], "the steps do not say %r: %r" % (w, h["steps"]))
    fee = 2 * 21000 * 10 ** 9
    pct = fee * 10000 // 10 ** 16     # the page's example: 0.01 ETH, within the limits
    for w in ("its own network fee", "gas", "at a gas price of 1 gwei a Bet and a Stand cost at least %s: %d.%02d %% of "
              "a stake of %s" % (eth(fee), pct // 100, pct % 100, eth(10 ** 16)), "Waiting costs no fee"):
        check(w in h["fees"], "the fees do not say %r: %r" % (w, h["fees"]))
    W.shot("how")
    return "%d actions; the data of the %d transactions sent" % (len(h["actions"]), sent)


def c_player_page(W):
    """The player's page: no open round, the four rounds settled, newest
    first, each with its return as the log has it."""
    W.d.get(W.url + "#/player/" + W.player)
    settles = [e for e in events(W.log(), type="settle") if e["player"] == W.player]
    W.until("the player's %d rounds" % len(settles),
            lambda: len(W.read_rounds("#recent-rounds article.round")) == len(settles))
    shown = [r["facts"].get("Returned") for r in W.read_rounds("#recent-rounds article.round")]
    check_eq(shown, [eth(e["payout"]) for e in reversed(settles)], "the player's rounds' returns, newest first")
    check_eq(W.text("#view .player-id"), W.player, "the player's id")
    W.shot("player")
    return "%d rounds" % len(settles)


def c_stalled(W):
    """"live" follows the dealer's progress: with max_age STALL_AGE, a stopped
    dealer is "stalled since block N" (its last block) on the page; once it
    deals again, "live"."""
    W.d.get(W.url + "#/")
    W.stop_serve()
    W.serve.keys["max_age"] = STALL_AGE
    W.start_serve()
    W.until("the stream again", lambda: not re.match(r"(reconnecting|connecting|offline)", W.text("#conn") or "x"),
            timeout=60)
    check_eq(W.dm.stop(), 0, "hashjackd's exit status")
    last = W.dm.last_height()
    W.until("stalled since block %d" % last, lambda: W.text("#conn") == "stalled since block %d" % last)
    prog = W.text("#progress")
    check(re.fullmatch(r"stalled since block %d: last block %d, written \d+ s ago "
                       r"\(stalled after %d s without a block\)" % (last, last, STALL_AGE), prog),
          "the dealer's progress: %r" % prog)
    W.shot("stalled")
    W.dm.start()
    mined = [0.0]

    def live():
        if time.monotonic() - mined[0] > 1:  # a block a second until the dealer's line is fresh
            W.a.mine()
            mined[0] = time.monotonic()
        return W.text("#conn") == "live"
    W.until("live again", live)
    check(W.dm.last_height() > last, "live, but no block after %d" % last)
    return "stalled since block %d; live again at block %d" % (last, W.dm.last_height())


CHECKS = [c_load, c_payloads, c_round_a, c_round_b, c_units, c_reconnect, c_round_c, c_round_d, c_blocks,
          c_block_view, c_unknown_views, c_rules, c_how, c_player_page, c_stalled]
# The stream's failed attempts while the server is down reach the console.
SERVER_DOWN = (c_reconnect, c_stalled)


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=900,
                    help="deadline for the whole run in seconds (default 900)")
    args = ap.parse_args()
    install_cleanup(args.timeout)
    wd = WorkDir("hj-e2e-web-", args.keep)
    out = tempfile.mkdtemp(prefix="hj-web-shots-")
    print("screenshots: %s" % out, flush=True)
    passed = failed = 0
    W = None
    try:
        W = Web(args, wd.path, out)
        for c in CHECKS:
            name = c.__name__[2:]
            t0 = time.monotonic()
            try:
                detail = c(W)
                errors = W.console_errors()
                if c not in SERVER_DOWN:
                    check(not errors, "the browser's console:\n  " + "\n  ".join(errors))
                passed += 1
                print("ok   %-12s %5.1fs  %s" % (name, time.monotonic() - t0, detail), flush=True)
            except Failed as e:
                failed += 1
                print("FAIL %-12s %s" % (name, e), flush=True)
                break
            except Exception:  # noqa: BLE001 - a broken test is a failure too
                failed += 1
                print("FAIL %-12s\n%s" % (name, traceback.format_exc()), flush=True)
                break
    finally:
        if W is not None:
            if failed and W.d is not None:
                try:
                    print("screenshot of the failure: %s" % W.shot("failure"))
                    for m in W.d.get_log("browser"):
                        print("browser: %s %s" % (m.get("level"), m.get("message")))
                except Exception:  # noqa: BLE001
                    pass
            W.close()
    wd.close(failed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
