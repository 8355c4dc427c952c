#!/usr/bin/env python3
"""End-to-end tests of `hashjack serve` (docs/API.md) on the Bitcoin
family: a real litecoind in regtest, hashjackd dealing on it as
tests/e2e/test_ltc_game.py sets it up (confirmations 2, timeout_blocks 3,
bethash with both side bets offered), and `hashjack serve` on the
daemon's config (serve.Serve), every answer checked against the card log,
`hashjack replay`, the database and the other tools.

    /usr/bin/python3 tests/e2e/test_ltc_serve.py --hashjack build/test/hashjack \\
        --hashjackd build/test/hashjackd [-k NAME] [--keep] [--timeout S]

The cases of tests/e2e/test_serve.py that are about the game and the
log, on this family (api_checks holds them), and what is this family's
own:

- book: a clear peek with insurance and a skipped block, timeouts of
  split hands (each moving the seq), a Double; after every block GET /v1/rounds and
  each /v1/rounds/{id} are `hashjack replay --state`, "seq" included.
- api_players: players that read their round from the API, by their key
  P, and sign each action with `hashjack player ACTION --round ID --seq
  N` at the seq the API gives, sent with the node's wallet: each listed
  action accepted, each other one rejected; subscribers (the second
  player also by its payout address tr(P)); ?from= after a disconnect.
- ids: ids without 0x (with it: 400); a player by its key and by tr(P),
  the same answer; an address of no player (404) or not a taproot one
  (400); "seq" in every open state.
- serve_restart, endpoints (payouts by key, by tr(P) and unattributed,
  `hashjack ledger --json`'s rows).
- page: the web page in headless Chromium (tests/e2e/browser.py):
  amounts in LTC and in litoshi, how to play in this family's words, a
  block's view against `hashjack card`.
- errors (api_checks.check_http_errors),
  from_too_old, connections_per_ip, dealer_kill (the tip held back:
  getblockcount), stream.

The other hostile clients (timeouts, pings, slow readers), the metrics
and /healthz's max_age, the same for both families, are test_serve.py's.  One line per case, then "N passed, M failed"; exit
status 1 on failure.  Every wait has a deadline and so has the whole run
(--timeout).
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_checks  # noqa: E402
import book  # noqa: E402
import browser  # noqa: E402  (it finds Debian's selenium)
import test_ltc_game  # noqa: E402
from api_checks import Api  # noqa: E402
from btc_node import find_litecoind  # noqa: E402
from checks import Failed, check, check_eq  # noqa: E402
from procs import add_exit_hook, close_all  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

RULES = dict(book.SIDE_BETS)


class Session(test_ltc_game.Session):
    """test_ltc_game's session (litecoind, its wallets and the daemon),
    every block of which is followed by api.sync() once api is set."""

    api = None

    def mine(self, want=None):
        b = super().mine(want)
        if self.api is not None:
            self.api.sync()
        return b


class Ctx:
    """The session, its Api, and what api_checks' cases ask of a family."""

    TIP_METHOD = "getblockcount"

    def __init__(self, hashjack, hashjackd, workdir, rng):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.rng = rng
        self.by_key = {}        # P -> Player
        self.addr = {}          # P -> tr(P)
        self.S = Session(self, "serve", rules=RULES)
        self.api = Api(hashjack, self.S, "bitcoin", workdir)
        self.S.api = self.api
        self.S.mine()           # the first dealt block
        self.players = []
        self.open_round = None
        self.resend = None      # blocks the stream may send again (case_dealer_kill)

    def close(self):
        close_all(self.api.close, self.S.close)

    def new_player(self):
        """(who, id): a `hashjack player keygen` key with a node wallet, and
        its key P."""
        p = self.S.player()
        self.by_key[p.P] = p
        return p, p.P

    def tr(self, P):
        """tr(P), as `hashjack player address` prints it."""
        if P not in self.addr:
            self.addr[P] = self.S.tool("address", "--key", self.by_key[P].key, "--coin",
                                       "litecoin", "--chain", "regtest").strip()
        return self.addr[P]

    def alt_ids(self, pid):
        """A player's payout address (for the players this test made)."""
        return [self.tr(pid)] if pid in self.by_key else []

    def bet(self, who, stake, pp, t3):
        return self.S.send(who, self.S.bet_payload(who, pp, t3), stake + (pp or 0) + (t3 or 0),
                           sender=who.P).txid

    def act(self, who, state, action, value, ins):
        """The action signed by `hashjack player` for the state's round at
        the state's seq."""
        payload = self.S.sign(who, action, state["round"], state["seq"],
                              ins if action == "Peek" else None)
        return self.S.send(who, payload, value).txid

    def fake_round(self, k):
        return "%064x" % k

    def reorg(self, depth):
        """The last depth blocks replaced by a longer chain."""
        self.S.node.reorg(depth)

    def node_url(self):
        return self.S.node.url

    def burst(self, n):
        self.S.node.mine(n)


def case_book(ctx):
    """The book's scenarios, /v1/rounds vs replay --state after each block."""
    S = ctx.S
    h0 = S.height()
    for sc in (book.sc_peek_insured_clear_skip, book.sc_timeout_split_hands, book.sc_double_11):
        sc(S)
    return "%d blocks, %d with open rounds" % (S.height() - h0, sum(
        1 for h in ctx.api.synced if ctx.api.states.get(h)))


def case_api_players(ctx):
    return api_checks.case_api_players(ctx, nplayers=4, steps=45)


def case_ids(ctx):
    """Ids in the family's form: without 0x; a player by key P or tr(P)."""
    api, sv, S = ctx.api, ctx.api.sv, ctx.S
    rounds = api.rounds_of_log()
    rid = next(iter(rounds))
    P = rounds[rid][0]
    check(len(rid) == 64 and len(P) == 64, "ids without 0x: %s, %s" % (rid, P))
    check_eq(sv.json("/v1/rounds/" + rid)["round"], rid, "a round by its id")
    by_key = sv.json("/v1/players/" + P)
    check_eq(by_key["player"], P, "a player by its key")
    mine = [p for p in rounds.values() if p[0] in ctx.by_key][0][0]
    check_eq(sv.json("/v1/players/" + ctx.tr(mine)), sv.json("/v1/players/" + mine),
             "a player by tr(P) and by P")
    stranger = S.player()
    ctx.by_key[stranger.P] = stranger
    for path, want in (("/v1/rounds/0x" + rid, 400), ("/v1/rounds/" + rid[:-1], 400),
                       ("/v1/rounds/" + rid.upper()[:-1] + "g", 400),
                       ("/v1/players/0x" + P, 400), ("/v1/players/" + P[:-2], 400),
                       ("/v1/players/" + ctx.tr(stranger.P), 404),
                       ("/v1/players/" + stranger.P, 404),
                       ("/v1/players/" + S.dealer, 400),
                       ("/v1/players/" + ctx.tr(mine).replace("rltc", "tltc"), 400),
                       ("/v1/payouts?round=0x" + rid, 400)):
        check_eq(sv.get(path)[0], want, "GET %s" % path)
    states = sv.json("/v1/rounds")["open"]
    states += [ctx.api.A.msgs[i]["data"] for i in range(len(ctx.api.A.msgs))
               if ctx.api.A.msgs[i]["eventType"] == "RoundUpdate"]
    check(all(isinstance(s.get("seq"), int) and s["seq"] >= 0 for s in states),
          "seq in every RoundState")
    check(any(s["seq"] > 0 for s in states), "some round's seq moved")
    st, body = sv.get("/healthz")
    check_eq(st, 200, "/healthz (max_age 3600 on this family)")
    check_eq(json.loads(body).get("maxAgeSeconds"), 3600, "/healthz's maxAgeSeconds on this family")
    return "%d states with seq; tr(P) %s" % (len(states), ctx.tr(mine))


def case_endpoints(ctx):
    S = ctx.S
    return api_checks.check_endpoints(ctx, "bitcoin", "bitcoin:litecoin:regtest:" + S.genesis,
                                      S.dealer)


def litecoins(n):
    """Litoshis in litecoins, exactly, as the page writes them."""
    s = str(int(n)).rjust(9, "0")
    whole, frac = s[:-8], s[-8:].rstrip("0")
    return whole + ("." + frac if frac else "") + " LTC"


PAGE_TEXT = r"""
const e = document.querySelector(arguments[0]);
return e ? e.innerText.trim() : null;
"""


def case_page(ctx):
    """The page on this family, in headless Chromium, as a person reads it:
    amounts in LTC (8 decimals) and, with the header's toggle, in litoshi;
    a settled round's stake both ways; how to play in this family's words
    (an OP_RETURN payload, `hashjack player`, miner fees); a block's view,
    its hash without 0x, its card worked out as `hashjack card` says."""
    api, S = ctx.api, ctx.S
    d = browser.chromium(ctx.workdir)
    add_exit_hook(d.quit)
    text = lambda css: d.execute_script(PAGE_TEXT, css)  # noqa: E731

    def until(what, fn):
        try:
            return WebDriverWait(d, 30, poll_frequency=0.05).until(lambda _: fn())
        except TimeoutException:
            raise Failed("the page did not show %s within 30 s" % what) from None

    def press(label):
        for b in d.find_elements(By.CSS_SELECTOR, "#units button"):
            if b.text == label:
                b.click()
                return
        raise Failed("no %r button" % label)
    try:
        url = "http://127.0.0.1:%d/" % api.sv.port
        d.get(url)
        until("live", lambda: text("#conn") == "live")
        check_eq([b.text for b in d.find_elements(By.CSS_SELECTOR, "#units button")], ["LTC", "litoshi"],
                 "the unit toggle")
        check_eq((text("#table .min-bet"), text("#table .max-bet")),
                 (litecoins(test_ltc_game.MIN_BET), litecoins(test_ltc_game.MAX_BET)),
                 "the table's limits in LTC")
        rid, (_, _, end, settle) = next((k, v) for k, v in api.rounds_of_log().items() if v[2] is not None)
        d.get(url + "#/round/" + rid)
        staked = lambda: text("#view .round-bet")  # noqa: E731
        want = litecoins(settle["betAmount"])
        until("round %s staked %s" % (rid, want), lambda: staked() == want)
        press("litoshi")
        until("its stake in litoshi", lambda: staked() == "%s litoshi" % settle["betAmount"])
        check_eq(text("#table .min-bet"), "%d litoshi" % test_ltc_game.MIN_BET, "the minimum bet in litoshi")
        press("LTC")
        until("its stake in LTC again", lambda: staked() == want)
        d.get(url + "#/how")
        until("how to play", lambda: text("#how-actions"))
        steps, fees = text("#howto"), text("#how-fees")
        for w in ("hashjack player bet --key player.key", "OP_RETURN output"):
            check(w in steps, "how to play does not say %r: %r" % (w, steps))
        check("its own network fee (its size in vbytes times the fee rate)" in fees, "the fees: %r" % fees)
        check(text("#how-actions tbody tr td:nth-child(2)") == "484a0101 …", "the Bet's payload, without 0x")
        line = json.loads(api.log()[end])
        d.get(url + "#/block/%d" % end)
        until("block %d" % end, lambda: text("#derivation"))
        check_eq(text("#view .block-facts .hash"), line["hash"], "the block's hash, without 0x")
        out = subprocess.run([ctx.hashjack, "card", line["hash"]], check=True, capture_output=True, text=True,
                             timeout=30).stdout
        check_eq(text("#derivation").splitlines(), [x.strip() for x in out.splitlines()[1:]],
                 "block %d's card as hashjack card works it out" % end)
        errors = [m["message"] for m in d.get_log("browser") if m.get("level") == "SEVERE"]
        check(not errors, "the browser's console: %s" % errors)
    finally:
        d.quit()
    return "round %s: %s = %s litoshi; how to play; block %d" % (rid[:16], litecoins(settle["betAmount"]),
                                                                 settle["betAmount"], end)


def case_errors(ctx):
    """The HTTP errors and refusals of every family."""
    return api_checks.check_http_errors(ctx.api.sv)


CASES = [case_book, case_api_players, case_ids, api_checks.case_serve_restart, case_endpoints, case_page,
         case_errors, api_checks.case_from_too_old, api_checks.case_connections_per_ip,
         api_checks.case_dealer_kill, api_checks.case_stream]


if __name__ == "__main__":
    find_litecoind()
    sys.exit(api_checks.main(__doc__, "hj-e2e-ltc-serve-", Ctx, CASES))
