#!/usr/bin/env python3
"""End-to-end tests of `hashjack serve` (docs/API.md) on EVM: a real anvil,
hashjackd dealing on it (confirmations 2, timeout_blocks 3, bethash with
both side bets offered), and `hashjack serve` on the daemon's config
(serve.Serve), every answer checked against the card log, `hashjack replay`,
the database and the other tools.

    /usr/bin/python3 tests/e2e/test_serve.py --hashjack build/test/hashjack \\
        --hashjackd build/test/hashjackd [-k NAME] [--keep] [--timeout S]

The cases run in order on one chain, one daemon and one main server, each
later one on what the earlier ones played (-k runs a selection, with the
game cases always first):

- book: scenarios of tests/e2e/book.py (a clear peek with insurance and a
  skipped block, a split with premature and refused actions, timeouts of
  split hands, three players in the same blocks, a Double), through test_game's
  Session; after every block GET /v1/rounds and each /v1/rounds/{id} must
  be `hashjack replay --state` of the blocks so far (api_checks.Api.sync).
- api_players: players that act only on GET /v1/players/{id}, with those
  checks after every block: each action the API lists (with its value)
  must be accepted, each one it does not list rejected.  Meanwhile,
  subscribers by ?player=, ?round= and by message, the Subscribed and
  Error replies, and a client that disconnects and comes back with
  ?from=H (nothing missed, nothing twice).
- serve_restart: a round left open; a second server stopped (SIGTERM:
  exit 0) and started again gives the same bytes on every path, and a
  stream client that comes back to it with ?from= misses nothing.
- endpoints: /v1/table (`hashjack edge --json`, the limits, the last
  block, the database's cursor), /v1/rounds/{id} of every round (settled:
  its settle event and its last RoundUpdate, byte for byte; open or
  settled, "doubled" on the hands the log's Doubles were for), /v1/players
  of every player, /v1/blocks/{h} of every block and ?last=N (the log's
  bytes), /v1/payouts (`hashjack ledger --json`), HEAD, the page.
- errors: 404, 400 (ids, heights, query strings), 405, 413, 414, 431, 426,
  malformed requests, WebSocket refusals, oversized and binary messages.
- metrics: Prometheus text format, every sample typed; counters move.
- healthz: 503 before the dealer's state exists; with max_age 1, 200
  while blocks come, 503 and why once they stop, 200 again; maxAgeSeconds
  in each answer.
- from_too_old: ?from= older than history_blocks: 400 and why.
- connections_per_ip, request_timeout (408), ping_timeout (2 x
  ping_interval_ms), slow_reader (max_send_buffer: dropped, counted,
  the others unaffected).
- dealer_kill: hashjackd stopped with a line beyond its last commit (what
  a crash leaves; the server streams it) whose block the chain then
  reorganises away; started again with its requests for the tip held by
  a proxy (it has cut its log back: the server reloads at its commit),
  let through (it deals the new block: the server streams it again),
  then killed with -9 in a burst of blocks and restarted: the server
  follows.
- stream: the first client, connected before the first block, got every
  RoundUpdate (the replay's state, or the settle event's) and every
  block's BlockUpdate (the log's line, byte for byte, after the block's
  RoundUpdates), once each, in order, but for the blocks a dealer's
  restart sent again (the last of them the log's); every server stops
  with exit 0 on SIGTERM.

One line per case, then "N passed, M failed"; exit status 1 on failure.
Every wait has a deadline and so has the whole run (--timeout).
"""

import json
import os
import re
import socket
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_checks  # noqa: E402
import book  # noqa: E402
import test_game  # noqa: E402
from api_checks import (Api, frames, read_to_eof, status_body, ws_handshake)  # noqa: E402
from checks import check, check_eq  # noqa: E402
from daemon import Hashjackd  # noqa: E402
from evm_node import PAYLOADS  # noqa: E402
from procs import close_all, wait_until  # noqa: E402
from serve import Serve  # noqa: E402

RULES = dict(book.SIDE_BETS)


class Session(test_game.Session):
    """test_game's session (anvil and the daemon), every block of which is
    followed by api.sync() once api is set."""

    api = None

    def mine(self, want=None):
        b = super().mine(want)
        if self.api is not None:
            self.api.sync()
        return b


class Ctx:
    """The session, its Api, and what api_checks' cases ask of a family:
    new_player(), alt_ids(id), bet(), act(), fake_round(k), burst(n)."""

    def __init__(self, hashjack, hashjackd, workdir, rng):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.rng = rng
        self.S = Session(self, "serve", rules=RULES)
        self.api = Api(hashjack, self.S, "evm", workdir)
        self.S.api = self.api
        self.S.mine()           # the first dealt block
        self.players = []       # API players' ids
        self.open_round = None
        self.resend = None      # blocks the stream may send again (case_dealer_kill)

    def close(self):
        close_all(self.api.close, self.S.close)

    def new_player(self):
        """(who, id): a dev account and its address."""
        p = self.S.player()
        return p, p.address

    def alt_ids(self, pid):
        return []

    def bet(self, who, stake, pp, t3):
        return self.S.send(who, test_game.bet_payload(pp, t3),
                           stake + (pp or 0) + (t3 or 0)).txid

    def act(self, who, state, action, value, ins):
        name = "PeekInsured" if action == "Peek" and ins else action
        return self.S.send(who, PAYLOADS[name], value).txid

    def fake_round(self, k):
        return "0x%064x" % k

    TIP_METHOD = "eth_blockNumber"

    def reorg(self, depth):
        """The last depth blocks replaced by as many (anvil_reorg)."""
        self.S.a.reorg(depth)

    def node_url(self):
        return self.S.a.url

    def burst(self, n):
        """n blocks at once (anvil_mine), no check after each."""
        self.S.a.mine_empty(n)


# --------------------------------------------------------------------------
# The game, checked after every block

def case_book(ctx):
    """The book's scenarios, /v1/rounds vs replay --state after each block."""
    S = ctx.S
    h0 = S.height()
    for sc in (book.sc_peek_insured_clear_skip, book.sc_split_order,
               book.sc_timeout_split_hands, book.sc_players_same_blocks, book.sc_double_11):
        sc(S)
    return "%d blocks, %d with open rounds" % (S.height() - h0, sum(
        1 for h in ctx.api.synced if ctx.api.states.get(h)))


# --------------------------------------------------------------------------
# Every endpoint against the log

def case_endpoints(ctx):
    """Every endpoint against the log, the tools and the database; HEAD; the
    page."""
    S, sv = ctx.S, ctx.api.sv
    detail = api_checks.check_endpoints(ctx, "evm", "evm:%d" % S.a.chain_id, S.dealer)
    st, hd, body = sv.request("HEAD", "/v1/table")
    st2, body2 = sv.get("/v1/table")
    check_eq((st, body, hd.get("content-length")), (200, b"", str(len(body2))), "HEAD /v1/table")
    check_eq(hd.get("access-control-allow-origin"), "*", "CORS header of a JSON answer")
    st, hd, body = sv.request("GET", "/")
    check_eq(st, 200, "GET /")
    check(hd["content-type"].startswith("text/html") and "content-security-policy" in hd,
          "the page's headers: %s" % hd)
    return detail


def case_errors(ctx):
    """Every error is JSON {"error": ...} with the documented status: ids
    of this family, then api_checks.check_http_errors."""
    sv = ctx.api.sv
    some = ctx.open_round or "0x" + "ab" * 32
    gets = [
        ("/v1/rounds/xyz", 400), ("/v1/rounds/" + some[2:], 400),
        ("/v1/rounds/0x" + "ab" * 31, 400), ("/v1/rounds/0x" + "0" * 64, 404),
        ("/v1/players/0x12", 400), ("/v1/players/0x" + "12" * 20, 404),
        ("/v1/payouts?recipient=zz", 400), ("/v1/payouts?round=xyz", 400),
        ("/v1/payouts?player=" + some, 400),
    ]
    api_checks.check_gets(sv, gets)
    return "%d GETs; %s" % (len(gets), api_checks.check_http_errors(sv))


def case_metrics(ctx):
    """Prometheus text: HELP and TYPE before each family, every sample
    `name{labels} value`; the counters move as they should."""
    sv, api = ctx.api.sv, ctx.api
    m0 = check_metrics_text(sv)
    for _ in range(3):
        sv.get("/nope")
    sv.raw(b"GARBAGE\r\n\r\n")
    m1 = check_metrics_text(sv)
    d = {k: m1[k] - m0.get(k, 0) for k in m1}
    check_eq(d['hashjack_serve_responses_total{code="404"}'], 3, "404 responses counted")
    check_eq(d["hashjack_serve_bad_requests_total"], 1, "bad requests counted")
    check(d["hashjack_serve_requests_total"] >= 4, "requests counted: %s" % d)
    check(d["hashjack_serve_connections_accepted_total"] >= 5, "connections counted")
    check_eq(m1["hashjack_serve_up"], 1, "up")
    check_eq(m1["hashjack_serve_block_height"], api.dealt(), "block height")
    check_eq(m1["hashjack_serve_open_rounds"], len(sv.json("/v1/rounds")["open"]), "open rounds")
    check_eq(m1["hashjack_serve_rounds_known"], len(api.rounds_of_log()), "rounds known")
    check(m1["hashjack_serve_websockets"] >= 1, "the stream client counted")
    check_eq(m1["hashjack_serve_diverged_total"], 0, "no divergence")
    check(m1["hashjack_serve_blocks_streamed_total"] >= len(api.log()), "blocks streamed")
    h = api.dealt()
    ctx.S.mine()
    m2 = check_metrics_text(sv)
    check_eq(m2["hashjack_serve_block_height"], h + 1, "block height after a block")
    for k in ("hashjack_serve_log_lines_total", "hashjack_serve_blocks_streamed_total",
              "hashjack_serve_ws_messages_total"):
        check(m2[k] > m1[k], "%s moved with a block" % k)
    return "%d samples; counters move" % len(m2)


SAMPLE = r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\]*\"" \
         r"(,[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\]*\")*\})? (-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)"


def check_metrics_text(sv):
    st, hd, body = sv.request("GET", "/metrics")
    check_eq(st, 200, "GET /metrics")
    check(hd["content-type"].startswith("text/plain; version=0.0.4"), "type %s" % hd)
    text = body.decode()
    check(text.endswith("\n"), "/metrics ends with a newline")
    typed, helped, out = {}, set(), {}
    for l in text.splitlines():
        if l.startswith("# HELP "):
            helped.add(l.split(" ")[2])
            continue
        if l.startswith("# TYPE "):
            _, _, name, kind = l.split(" ")
            check(kind in ("counter", "gauge"), "TYPE %s" % l)
            typed[name] = kind
            continue
        m = re.fullmatch(SAMPLE, l)
        check(m, "not a sample line: %r" % l)
        name = m.group(1)
        check(name in typed and name in helped, "sample %s without TYPE and HELP" % name)
        check(typed[name] != "counter" or name.endswith("_total"), "counter %s" % name)
        out[name + (m.group(2) or "")] = float(m.group(4))
    return out


def case_healthz(ctx):
    """503 while the dealer's state cannot be read; with max_age 1: 200
    while blocks come, 503 naming max_age when they stop, 200 again."""
    S, api = ctx.S, ctx.api
    nobody = Hashjackd(ctx.hashjackd, S.a, S.dealer, S.MIN_BET, S.MAX_BET,
                       workdir=os.path.join(ctx.workdir, "no-dealer"))
    s0 = Serve(ctx.hashjack, nobody).start()
    try:
        st, body = s0.get("/healthz")
        check_eq(st, 503, "/healthz without a database")
        check("not loaded" in json.loads(body)["error"], "why: %s" % body)
        check_eq((json.loads(body).get("height"), json.loads(body).get("maxAgeSeconds")), (None, 120),
                 "/healthz without a database: no height, max_age 120 (EVM's)")
        check_eq(s0.get("/v1/table")[0], 503, "/v1/table without a database")
        check_eq(s0.metrics()["hashjack_serve_up"], 0, "up without a database")
    finally:
        check_eq(s0.stop(), 0, "exit status")
    s = api.serve(max_age=1)

    seen = []

    def healthy():
        S.mine()
        seen[:] = s.get("/healthz")
        return seen[0] == 200
    wait_until(healthy, 30, "/healthz 200 while blocks come")
    ok = json.loads(seen[1])
    check(ok.get("ok") is True and ok["height"] in api.log(), "200 body %s" % ok)
    check_eq(ok.get("maxAgeSeconds"), 1, "200: maxAgeSeconds")
    got = wait_until(lambda: (lambda r: r[0] == 503 and r)(s.get("/healthz")), 30,
                     "/healthz 503 once blocks stop")
    why = json.loads(got[1])["error"]
    check("max_age (1 s)" in why and str(api.dealt()) in why, "503 says why: %s" % why)
    stale = json.loads(got[1])
    # ageSeconds is cut to a tenth: past max_age, it may read just max_age
    check(stale.get("maxAgeSeconds") == 1 and stale.get("ageSeconds", 0) >= 1,
          "503: ageSeconds past maxAgeSeconds: %s" % stale)
    wait_until(healthy, 30, "/healthz 200 again")
    return "503: %s" % why


# --------------------------------------------------------------------------
# Hostile clients

def case_request_timeout(ctx):
    """request_timeout_ms 300: half a request gets 408 and is closed, a
    connection that sends nothing is closed, each after about 300 ms."""
    s = ctx.api.serve(request_timeout_ms=300)
    s.wait_height(ctx.api.dealt())      # its first load done: an idle loop
    # each took from before the connection: the server's clock starts
    # later, so the lower bound holds however slowly this test runs
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as c:
        c.sendall(b"GET /v1/table HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        resp, took = read_to_eof(c, 10, t0)
    st, body = status_body(resp)
    check_eq(st, 408, "half a request")
    check(0.25 <= took < 5, "408 after %.2fs" % took)
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as c:
        resp, took2 = read_to_eof(c, 10, t0)
    check_eq(resp, b"", "a silent connection is closed without an answer")
    check(0.25 <= took2 < 5, "closed after %.2fs" % took2)
    check(s.metrics()["hashjack_serve_timeouts_total"] >= 2, "timeouts counted")
    s2 = ctx.api.serve(idle_timeout_ms=300)
    s2.wait_height(ctx.api.dealt())
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", s2.port), timeout=10) as c:
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        resp, took3 = read_to_eof(c, 10, t0)
    check(resp.startswith(b"HTTP/1.1 200 "), "the answer before the idle timeout: %r" % resp[:100])
    check(0.25 <= took3 < 5, "idle keep-alive closed after %.2fs" % took3)
    return "408 after %.2fs (%s); silent one closed after %.2fs, idle after %.2fs" % (
        took, body["error"], took2, took3)


def case_ping_timeout(ctx):
    """ping_interval_ms 300: a WebSocket that never answers is pinged and
    dropped after 2 x 300 ms; one that answers (websocket-client) stays."""
    S, api = ctx.S, ctx.api
    s = api.serve(ping_interval_ms=300)
    good = s.ws()
    t0 = time.monotonic()
    sock, head = ws_handshake(s.port)
    check(head.startswith(b"HTTP/1.1 101 "), "handshake: %r" % head)
    data, took = read_to_eof(sock, 15, t0)
    sock.close()
    check(9 in frames(data), "a ping was sent (frames %s)" % frames(data))
    check(0.55 <= took < 6, "dropped after %.2fs" % took)
    check(not good.closed.is_set() and time.monotonic() - t0 > 0.6,
          "the answering client is still connected")
    h = api.dealt()
    S.mine()
    good.wait_block(h + 1)
    good.close()
    return "dropped after %.2fs; the answering client stays" % took


def case_slow_reader(ctx):
    """max_send_buffer 4096: a WebSocket that never reads is dropped once
    the kernel's buffers and 4 KiB are full, and counted; a reading client
    gets every block."""
    S, api = ctx.S, ctx.api
    s = api.serve(max_send_buffer=4096)
    h0 = api.dealt()
    slow, head = ws_handshake(s.port, rcvbuf=2048)
    check(head.startswith(b"HTTP/1.1 101 "), "handshake: %r" % head)
    good = s.ws()

    def dropped():
        S.a.mine_empty(20)
        h = S.height() - 1
        api.wait_dealt(h, s)
        return s.metrics()["hashjack_serve_slow_clients_dropped_total"] == 1
    wait_until(dropped, 120, "the slow reader to be dropped", interval=0)
    wait_until(lambda: s.metrics()["hashjack_serve_websockets"] == 1, 10,
               "only the reading client left")
    data, _ = read_to_eof(slow, 30)
    slow.close()
    h = api.dealt()
    good.wait_block(h)
    api.check_stream(good, h0 + 1, h)
    good.close()
    return "dropped after %d blocks (%d bytes it had not read); the reader got every block" % (
        h - h0, len(data))


CASES = [case_book, api_checks.case_api_players, api_checks.case_serve_restart, case_endpoints,
         case_errors, case_metrics, case_healthz, api_checks.case_from_too_old,
         api_checks.case_connections_per_ip,
         case_request_timeout, case_ping_timeout, case_slow_reader,
         api_checks.case_dealer_kill, api_checks.case_stream]


if __name__ == "__main__":
    sys.exit(api_checks.main(__doc__, "hj-e2e-serve-", Ctx, CASES))
