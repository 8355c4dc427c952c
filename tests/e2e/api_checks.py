"""What the round API's end-to-end suites check (tests/e2e/test_serve.py on
anvil, test_ltc_serve.py on litecoind), written once for both families.

Python 3: the standard library, and Debian's python3-websocket for the
stream (serve.WsClient).  A suite gives a game session of its family
(test_game.Session, test_ltc_game.Session) whose mine() calls back after
each block, and Api follows it with `hashjack serve` (serve.Serve):

- Api.sync(), after every block: once the daemon has dealt the block
  below the tip (confirmations 2) and the server has read it, GET
  /v1/rounds must be `hashjack replay --state` of the blocks from the
  first dealt one, byte for byte, each state with its "height", and each
  open round's /v1/rounds/{id} the same state.  The replay's states of
  every block are kept for the stream's check.
- Api.check_stream(client): a client connected from the start got, for
  every block of the card log, once and in order (but for blocks a
  dealer's restart sends again, the last of them standing), one
  RoundUpdate for each round the line changed, in the log's order (an
  open round's state as the replay gives it after that block, a settled
  one as its settle event says), then its BlockUpdate, whose data is the
  log's line byte for byte and which closes the block.
- ApiPlayers: players that act only on what the API says (GET
  /v1/players/{id}: nextActions, actionValues, windowOpen, timeoutAt, and
  on the Bitcoin family seq): every action they send that the API lists
  must be accepted, and every one it does not list rejected
  (docs/PROTOCOL.md section 14: "listed if and only if accepted").
- The endpoints against the log and the database: settled rounds,
  players, blocks, payouts (`hashjack ledger --json`), the table (`hashjack
  edge --json`), errors, /metrics.

A failed check raises checks.Failed.
"""

import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import types

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
from checks import Cases, Failed, WorkDir, check, check_eq, dumps, game_args  # noqa: E402
from daemon import find_hashjackd  # noqa: E402
from logs import last_logged_height, read_cardlog  # noqa: E402
from procs import close_all, kill_children, wait_until  # noqa: E402
from proxies import RpcProxy  # noqa: E402
from serve import Serve  # noqa: E402
from tool import find_hashjack, replay  # noqa: E402

CONFIRMATIONS = 2
# The events that change a round (a RoundUpdate each): a rejection names
# the round it was checked against but leaves it as it was.
CHANGES = ("draw", "peek", "skip", "sidebets", "action", "timeout", "settle")
ACTIONS = ("Hit", "Stand", "Double", "Split", "Surrender", "Peek")


def block_update(h, line):
    """A BlockUpdate's text for the log line `line` (str, no newline)."""
    return '{"eventType":"BlockUpdate","eventId":"%d","height":%d,"data":%s}' % (h, h, line)


def data_text(raw):
    """The "data" of a stream message's text, as sent."""
    i = raw.index(',"data":')
    return raw[i + 8:-1]


def changed_rounds(line):
    """The rounds a parsed log line changes, in order of their first event."""
    out = []
    for e in line["events"]:
        if e["type"] in CHANGES and e["round"] not in out:
            out.append(e["round"])
    return out


def without_height(state, h):
    """A RoundState's text as `hashjack replay --state` prints it: its
    "height" (checked to be h) left out."""
    s = dict(state)
    check_eq(s.pop("height", None), h, "RoundState height")
    return dumps(s)


def check_settled(state, settle, h, what):
    """A settled RoundState against its settle event (docs/LOG.md)."""
    check(state.get("roundEnded") is True, "%s: roundEnded" % what)
    for k in ("round", "player", "dealerHand", "betAmount", "payout"):
        check_eq(state.get(k), settle[k], "%s: %s" % (what, k))
    check_eq(state.get("settledAt"), h, "%s: settledAt" % what)
    check_eq(state.get("height"), h, "%s: height" % what)
    check_eq(state.get("insurance"), settle.get("insurance"), "%s: insurance" % what)
    got = [{k: x[k] for k in ("handIndex", "cards", "total", "betAmount", "status", "payout")}
           for x in state["playerHands"]]
    check_eq(got, settle["playerHands"], "%s: playerHands" % what)
    for k in ("nextActions", "actionValues", "drawsDue"):
        check_eq(state.get(k), [], "%s: %s" % (what, k))


def status_body(resp):
    """(status, parsed JSON body or None) of a raw HTTP response."""
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", resp)
    if not m:
        raise Failed("not an HTTP response: %r" % resp[:200])
    body = resp.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in resp else b""
    try:
        j = json.loads(body) if body else None
    except ValueError:
        j = None
    return int(m.group(1)), j


def ws_handshake(port, path="/v1/stream", extra=b"", rcvbuf=None, version=b"13",
                 conn=b"Upgrade"):
    """A WebSocket opened by hand on a raw socket (a client that reads or
    answers only when the test says so): (socket, the answer's head).
    rcvbuf: a small receive buffer and segment size, so that the kernel
    holds little of what the server sends to a client that does not
    read."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    s.settimeout(15)
    s.connect(("127.0.0.1", port))
    key = b"dGhlIHNhbXBsZSBub25jZQ=="
    s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Upgrade: websocket\r\nConnection: " + conn + b"\r\nSec-WebSocket-Key: " + key +
              b"\r\nSec-WebSocket-Version: " + version + b"\r\n" + extra + b"\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            break
        head += b
    return s, head


def read_to_eof(s, timeout, t0=None):
    """What the server sends on s until it closes it: (bytes, seconds since
    t0, default now); Failed when it is still open after timeout."""
    if t0 is None:
        t0 = time.monotonic()
    s.settimeout(timeout)
    out = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        except socket.timeout:
            raise Failed("the server did not close the connection within %ss" % timeout)
        if not b:
            break
        out += b
    return out, time.monotonic() - t0


def frames(data):
    """The opcodes of the (unmasked) WebSocket frames in data."""
    ops, i = [], 0
    while i + 2 <= len(data):
        op, n = data[i] & 0x0f, data[i + 1] & 0x7f
        i += 2
        if n == 126:
            n, i = int.from_bytes(data[i:i + 2], "big"), i + 2
        elif n == 127:
            n, i = int.from_bytes(data[i:i + 8], "big"), i + 8
        ops.append(op)
        i += n
    return ops


class Api:
    """Session S of either family (S.first, S.dm, S.height(), S.export(first,
    last), S.mine() calling back api.sync()) followed by the main `hashjack
    serve` (self.sv) and a stream client connected before the first block
    is dealt (self.A).  chain: the log's "chain"."""

    def __init__(self, hashjack, S, chain, workdir):
        self.hashjack = hashjack
        self.S = S
        self.chain = chain
        self.workdir = workdir
        self.blocks = []            # the replay document's blocks, first..
        self.header = None          # and the rest of the document
        self.states = {}            # height -> replay --state lines (str)
        self.synced = set()
        self.sv = Serve(hashjack, S.dm, workdir).start()
        self.A = self.sv.ws()
        self.extra = []             # other servers and clients to close

    def serve(self, **keys):
        """Another `hashjack serve` on the same daemon, with these [serve]
        keys; stopped by close()."""
        s = Serve(self.hashjack, self.S.dm, self.workdir, **keys).start()
        self.extra.append(s)
        return s

    def close(self):
        close_all(*[x.close for x in self.extra], self.A.close, self.sv.close)

    # -- the card log and the replay ---------------------------------------------

    def dealt(self):
        """The last block the daemon may have dealt: below the tip."""
        return self.S.height() - (CONFIRMATIONS - 1)

    def log(self):
        """The card log's lines: {height: line text without newline}."""
        out = {}
        for l in read_cardlog(self.S.dm.card_log, raw=True).decode().splitlines():
            out[json.loads(l)["height"]] = l
        return out

    def doc(self, h):
        """The replay document of the blocks first..h (exported once each:
        a block below the tip never changes)."""
        S = self.S
        nxt = S.first + len(self.blocks)
        if h >= nxt:
            d = S.export(nxt, h)
            self.blocks += d.pop("blocks")
            self.header = d
        d = dict(self.header)
        d["blocks"] = self.blocks[:h - S.first + 1]
        return d

    def replay_state(self, h):
        """`hashjack replay --state` after block h: its lines (str)."""
        if h in self.states:
            return self.states[h]
        path = os.path.join(self.workdir, "state-doc.json")
        with open(path, "w") as f:
            json.dump(self.doc(h), f)
        r = subprocess.run([self.hashjack, "replay", "--state", path], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise Failed("hashjack replay --state: exit %d: %s" % (r.returncode, r.stderr))
        self.states[h] = r.stdout.splitlines()
        return self.states[h]

    def forget_above(self, h):
        """Blocks above h were replaced (a reorganisation below the tip):
        export and replay them again."""
        del self.blocks[h + 1 - self.S.first:]
        for k in [k for k in self.states if k > h]:
            del self.states[k]

    def wait_dealt(self, h, server=None, timeout=60):
        self.S.dm.wait_height(h, timeout)
        (server or self.sv).wait_height(h, timeout)

    # -- after every block ---------------------------------------------------------

    def sync(self):
        """The daemon has dealt the block below the tip and the server read
        it: /v1/rounds is the replay's --state; so is each round's
        /v1/rounds/{id}."""
        h = self.dealt()
        if h < self.S.first:
            return
        self.wait_dealt(h)
        got = self.sv.json("/v1/rounds")
        check_eq(got["height"], h, "/v1/rounds height")
        want = self.replay_state(h)
        check_eq([without_height(s, h) for s in got["open"]], want,
                 "/v1/rounds after block %d vs hashjack replay --state" % h)
        for s in got["open"]:
            one = self.sv.json("/v1/rounds/" + s["round"])
            check_eq(one, s, "/v1/rounds/%s after block %d" % (s["round"], h))
        self.synced.add(h)

    # -- the stream --------------------------------------------------------------

    def check_stream(self, client, first=None, last=None, rounds=None, resend=None):
        """client's messages against the log from block first (default the
        log's first) to last (default the log's last): each block's
        RoundUpdates (of the rounds in `rounds` only, when given: a
        subscription), then its BlockUpdate, byte for byte, every block
        once, in order.  resend (lo, hi): blocks from lo to hi may come again, after
        a dealer's restart (the server sends what it read beyond the
        dealer's commit again, then goes on in order); the last of them
        must be the log's.  Returns (blocks, RoundUpdates, blocks sent
        again)."""
        log = self.log()
        first = min(log) if first is None else first
        last = max(log) if last is None else last

        def wanted(h):
            return [r for r in changed_rounds(json.loads(log[h])) if rounds is None or r in rounds]

        def groups():
            """[(height, BlockUpdate text, [RoundUpdate texts])] as sent:
            a block's RoundUpdates, then the BlockUpdate that closes it."""
            out, rus = [], []
            for r in list(client.raws):
                head = r[:40]
                if '"eventType":"RoundUpdate"' in head:
                    if rus and json.loads(r)["height"] != json.loads(rus[-1])["height"]:
                        raise Failed("%s: RoundUpdates of two blocks without a BlockUpdate "
                                     "between them: %s" % (client.url, r[:200]))
                    rus.append(r)
                elif '"eventType":"BlockUpdate"' in head:
                    h = json.loads(r)["height"]
                    if rus and json.loads(rus[-1])["height"] != h:
                        raise Failed("%s: RoundUpdates of block %d closed by block %d's "
                                     "BlockUpdate" % (client.url, json.loads(rus[-1])["height"], h))
                    out.append((h, r, rus))
                    rus = []
            return out

        def complete():
            return any(x[0] == last for x in groups())
        if hasattr(client, "wait"):
            # the block's BlockUpdate comes after its RoundUpdates
            wait_until(complete, 30, "%s to get the messages of blocks %d..%d"
                       % (client.url, first, last))
        final, prev, again = {}, first - 1, 0
        for h, bu, rus in groups():
            if h < first or h > last:
                continue
            if h != prev + 1:
                if not (resend and h <= prev and resend[0] <= h <= resend[1]):
                    raise Failed("%s: block %d after block %d" % (client.url, h, prev))
                again += 1
            final[h] = (bu, rus)
            prev = h
        n_rounds = 0
        for h in range(first, last + 1):
            if h not in final:
                raise Failed("%s: no BlockUpdate of block %d (wanted %d..%d)"
                             % (client.url, h, first, last))
            bu, rus = final[h]
            check_eq(bu, block_update(h, log[h]), "BlockUpdate of block %d" % h)
            want = wanted(h)
            check_eq([json.loads(r)["roundId"] for r in rus], want,
                     "%s: the RoundUpdates of block %d" % (client.url, h))
            parsed = json.loads(log[h])
            for rid, r in zip(want, rus):
                m = json.loads(r)
                check_eq((m["eventId"], m["height"]), ("%d:%s" % (h, rid), h),
                         "RoundUpdate %s of block %d" % (rid, h))
                self.check_round_update(h, parsed, rid, r)
                n_rounds += 1
        return last - first + 1, n_rounds, again

    def check_round_update(self, h, line, rid, raw):
        """A RoundUpdate of round rid at block h: the settled state of its
        settle event, else the replay's state after h."""
        st = json.loads(data_text(raw))
        settle = [e for e in line["events"] if e["type"] == "settle" and e["round"] == rid]
        if settle:
            check_settled(st, settle[0], h, "RoundUpdate %d:%s" % (h, rid))
        else:
            want = [s for s in self.replay_state(h) if json.loads(s)["round"] == rid]
            check_eq([without_height(st, h)], want,
                     "RoundUpdate %d:%s vs hashjack replay --state" % (h, rid))
        for e in line["events"]:
            if e["type"] == "sidebets" and e["round"] == rid:
                for k in ("perfectPairs", "poker"):
                    check_eq(st.get(k), e.get(k), "RoundUpdate %d:%s: %s" % (h, rid, k))

    # -- rounds, players, blocks, payouts ---------------------------------------

    def rounds_of_log(self):
        """{round id: (player, Bet height, settle height or None, settle
        event)} of the whole log."""
        out = {}
        for h, l in sorted(self.log().items()):
            for e in json.loads(l)["events"]:
                if e["type"] == "action" and e["action"] == "Bet":
                    out[e["round"]] = [e["player"], h, None, None]
                elif e["type"] == "settle":
                    out[e["round"]][2:] = [h, e]
        return out

    def doubled_hands(self):
        """{round id: the indices of its hands that doubled}, from the log's
        Double and Split actions in order (a Split of hand j moves every
        hand above j up by one)."""
        out = {}
        for h, l in sorted(self.log().items()):
            for e in json.loads(l)["events"]:
                if e["type"] != "action" or e["action"] not in ("Double", "Split"):
                    continue
                d = out.setdefault(e["round"], set())
                if e["action"] == "Double":
                    d.add(e["handIndex"])
                else:
                    out[e["round"]] = {i + 1 if i > e["handIndex"] else i for i in d}
        return out

    def check_settled_rounds(self, server=None):
        """GET /v1/rounds/{id} of every settled round is its settle event's
        state and, byte for byte, its last RoundUpdate on self.A; of every
        open one, its state in /v1/rounds; in both, "doubled" on exactly
        the hands the log's Doubles were for.  Returns (settled, open)."""
        sv = server or self.sv
        last_update = {}
        for r in self.A.raws:
            if '"eventType":"RoundUpdate"' in r[:40]:
                last_update[json.loads(r)["roundId"]] = data_text(r)
        open_now = {s["round"]: s for s in sv.json("/v1/rounds")["open"]}
        n = 0
        doubled = self.doubled_hands()
        for rid, (player, bet, end, settle) in self.rounds_of_log().items():
            st, body = sv.get("/v1/rounds/" + rid)
            check_eq(st, 200, "GET /v1/rounds/%s" % rid)
            hands = json.loads(body)["playerHands"]
            check_eq([x["handIndex"] for x in hands if x.get("doubled") is True], sorted(doubled.get(rid, ())),
                     "/v1/rounds/%s: the hands marked doubled" % rid)
            check(all(x.get("doubled", True) is True for x in hands), "/v1/rounds/%s: doubled false" % rid)
            if end is None:
                check_eq(json.loads(body), open_now.get(rid), "/v1/rounds/%s (open)" % rid)
                continue
            check_settled(json.loads(body), settle, end, "/v1/rounds/%s" % rid)
            check_eq(body.decode(), last_update.get(rid),
                     "/v1/rounds/%s vs its last RoundUpdate" % rid)
            n += 1
        return n, len(open_now)

    def check_players(self, ids=None, server=None):
        """GET /v1/players/{id} of every player of the log (ids(player): the
        other ways to name one, e.g. a payout address): its open round's
        state, or null, and its settled rounds newest first (20 at most),
        each as GET /v1/rounds/{id}.  Returns the number of players."""
        sv = server or self.sv
        by = {}
        for rid, (player, bet, end, settle) in self.rounds_of_log().items():
            by.setdefault(player, []).append((bet, rid, end))
        open_now = {s["round"]: s for s in sv.json("/v1/rounds")["open"]}
        for player, rs in by.items():
            settled = [rid for bet, rid, end in sorted(rs, reverse=True) if end is not None]
            opened = [rid for bet, rid, end in rs if end is None]
            want_recent = [sv.json("/v1/rounds/" + rid) for rid in settled[:20]]
            got = sv.json("/v1/players/" + player)
            check_eq(got["player"], player, "/v1/players/%s: player" % player)
            check_eq(got["open"], open_now[opened[-1]] if opened else None,
                     "/v1/players/%s: open" % player)
            check_eq(got["recent"], want_recent, "/v1/players/%s: recent" % player)
            for other in (ids(player) if ids else ()):
                check_eq(sv.json("/v1/players/" + other), got,
                         "/v1/players/%s (player %s)" % (other, player))
        return len(by)

    def check_blocks(self, server=None):
        """GET /v1/blocks/{h} of every block is its log line, byte for byte;
        /v1/blocks?last=N the last N lines (default 20, at most 100).
        Returns the number of blocks."""
        sv = server or self.sv
        log = self.log()
        for h, line in log.items():
            st, body = sv.get("/v1/blocks/%d" % h)
            check_eq((st, body.decode()), (200, line), "GET /v1/blocks/%d" % h)
        hs = sorted(log)
        for q, n in (("", 20), ("?last=1", 1), ("?last=7", 7), ("?last=100", 100)):
            st, body = sv.get("/v1/blocks" + q)
            want = "[" + ",".join(log[h] for h in hs[-n:]) + "]"
            check_eq((st, body.decode()), (200, want), "GET /v1/blocks%s" % q)
        for h in (hs[0] - 1, hs[-1] + 1):
            check_eq(sv.get("/v1/blocks/%d" % h)[0], 404, "GET /v1/blocks/%d (not logged)" % h)
        return len(hs)

    def ledger(self, *args):
        r = subprocess.run([self.hashjack, "ledger", "--db",
                            os.path.join(self.S.dm.state_dir, "hashjackd.sqlite"), "--json"]
                           + list(args), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60)
        if r.returncode != 0:
            raise Failed("hashjack ledger %s: exit %d: %s" % (args, r.returncode, r.stderr))
        return [json.loads(l) for l in r.stdout.splitlines()]

    def check_payouts(self, recipients, server=None):
        """GET /v1/payouts?round=ID of every round and ?recipient=R of each
        recipient (as the ledger takes them) are `hashjack ledger --json`'s
        rows.  Returns the number of rows seen."""
        sv = server or self.sv
        n = 0
        for rid in self.rounds_of_log():
            got = sv.json("/v1/payouts?round=" + rid)["payouts"]
            check_eq(got, self.ledger("--round", rid), "/v1/payouts?round=%s" % rid)
            n += len(got)
        for r in recipients:
            got = sv.json("/v1/payouts?recipient=" + r)["payouts"]
            check_eq(got, self.ledger("--recipient", r), "/v1/payouts?recipient=%s" % r)
        return n

    def check_table(self, family, chain, dealer, server=None):
        """GET /v1/table: `hashjack edge --config CONF --json` (rules, edges,
        chart), the limits of the config, the last block of the log (also
        the database's cursor) and the open rounds."""
        sv = server or self.sv
        t = sv.json("/v1/table")
        r = subprocess.run([self.hashjack, "edge", "--config", self.S.dm.conf, "--json"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        check_eq(r.returncode, 0, "hashjack edge --json exit status")
        edge = json.loads(r.stdout)
        for k, v in edge.items():
            check_eq(t.get(k), v, "/v1/table %s vs hashjack edge --json" % k)
        S = self.S
        want = {"family": family, "chain": chain, "dealer": dealer,
                "minBet": str(S.MIN_BET), "maxBet": str(S.MAX_BET), "maxExposure": "0",
                "timeoutBlocks": S.T, "confirmations": CONFIRMATIONS}
        check_eq({k: t.get(k) for k in want}, want, "/v1/table limits")
        log = self.log()
        last = json.loads(log[max(log)])
        check_eq(t["lastBlock"], {"height": last["height"], "hash": last["hash"]},
                 "/v1/table lastBlock vs the log's last line")
        check_eq(S.dm.committed_height(), last["height"], "the database's cursor")
        check_eq(t.get("openRounds"), len(sv.json("/v1/rounds")["open"]), "/v1/table openRounds")
        return t

    def answers(self, paths, server=None):
        """{path: (status, body)} of GET path for each path."""
        sv = server or self.sv
        return {p: sv.get(p) for p in paths}

    def all_paths(self, players):
        """The GET paths whose answers depend only on the log and database."""
        ps = ["/v1/table", "/v1/rounds", "/v1/blocks?last=100"]
        ps += ["/v1/rounds/" + rid for rid in self.rounds_of_log()]
        ps += ["/v1/players/" + p for p in players]
        ps += ["/v1/payouts?round=" + rid for rid in self.rounds_of_log()]
        return ps


# --------------------------------------------------------------------------
# Players that act on the API alone

class ApiPlayer:
    """A player of ApiPlayers: who (the family's player object), id (as the
    API names it), wait (a block whose dealing it must see before it acts
    again: where its last transaction went)."""

    def __init__(self, who, pid):
        self.who = who
        self.id = pid
        self.wait = 0


class ApiPlayers:
    """Players that read their round from GET /v1/players/{id} after each
    block and act on it: a Bet (sometimes with side stakes) when they have
    no round; in an open window, now and then nothing (a timeout), mostly
    one of actionValues (action and value as listed), sometimes an action
    that is not listed (then with the value a listed one of that name
    would carry, or the hand's stake for a Double or Split, or 0).  The
    family gives bet(who, stake, pp, t3) and act(who, state, action,
    value, insurance), each returning the txid sent.  expected: txid ->
    ("accept" or "reject", action, the state it acted on (None for a Bet),
    value, insurance) for check()."""

    def __init__(self, api, players, rng, bet, act, sides=True):
        self.api = api
        self.players = players
        self.rng = rng
        self.bet = bet
        self.act = act
        self.sides = sides
        self.expected = {}
        self.table = api.sv.json("/v1/table")

    def step(self):
        """Each player looks at its round after the last dealt block and
        sends what it decides; the next block (tip + 1) will hold it."""
        api, rng = self.api, self.rng
        h = api.dealt()
        landing = api.S.height() + 1
        for p in self.players:
            if h < p.wait:
                continue
            st, body = api.sv.get("/v1/players/" + p.id)
            if st == 404:
                state = None
            else:
                check_eq(st, 200, "GET /v1/players/%s" % p.id)
                got = json.loads(body)
                check_eq(got["height"], h, "/v1/players height")
                state = got["open"]
            if state is None:
                if rng.random() < 0.6:
                    self._bet(p, landing)
                continue
            if not state["nextActions"] or rng.random() < 0.1:
                continue            # cards due, or left to time out
            if not state["windowOpen"] <= landing <= state["timeoutAt"]:
                continue            # the window closes before the next block
            if rng.random() < 0.85:
                av = rng.choice(state["actionValues"])
                verdict, action, value, ins = ("accept", av["action"], int(av["value"]),
                                               av.get("insurance"))
            else:
                unlisted = [a for a in ACTIONS if a not in state["nextActions"]]
                action = rng.choice(unlisted)
                hand = state["playerHands"][state.get("handIndex", 0)]
                value = int(hand["betAmount"]) if action in ("Double", "Split") else 0
                ins = rng.random() < 0.5 if action == "Peek" else None
                if action == "Peek" and ins:
                    value = int(state["playerHands"][0]["betAmount"]) // 2
                verdict = "reject"
            tx = self.act(p.who, state, action, value, ins)
            self.expected[tx] = (verdict, action, state, value, ins)
            p.wait = landing

    def _bet(self, p, landing):
        rng = self.rng
        lo, hi = int(self.table["minBet"]), int(self.table["maxBet"])
        stake = rng.randint(lo, min(hi, 3 * lo))
        pp = t3 = None
        if self.sides and rng.random() < 0.4:
            pp = rng.randint(0, stake // 4)
            t3 = rng.randint(0, stake // 4)
        tx = self.bet(p.who, stake, pp, t3)
        self.expected[tx] = ("accept", "Bet", None, stake + (pp or 0) + (t3 or 0), None)
        p.wait = landing

    def check(self):
        """Every transaction sent: accepted as the action sent (a listed
        one, with its hand and value) or rejected (one not listed).
        Returns a summary."""
        seen = {}
        for h, l in self.api.log().items():
            for e in json.loads(l)["events"]:
                if e.get("tx") in self.expected:
                    seen[e["tx"]] = e
        counts = {}
        for tx, (verdict, action, state, value, ins) in self.expected.items():
            e = seen.get(tx)
            if e is None:
                raise Failed("%s %s (%s) is not in the card log" % (action, tx, verdict))
            what = "%s %s after %s" % (action, tx, "its Bet" if state is None
                                       else "state %s" % dumps(state)[:900])
            if verdict == "accept":
                check(e["type"] == "action", "%s: listed but %s (%s)"
                      % (what, e["type"], e.get("reason")))
                check_eq((e["action"], e["stake"] if action != "Bet" else None,
                          e.get("insurance")),
                         (action, str(value) if action != "Bet" else None,
                          ins if action == "Peek" else None), what)
                if state is not None and "handIndex" in e:
                    check_eq(e["handIndex"], state.get("handIndex"), what + ": handIndex")
            else:
                check(e["type"] == "reject", "%s: not listed but %s" % (what, e["type"]))
            k = "%s %s" % (action, "accepted" if e["type"] == "action" else "rejected")
            counts[k] = counts.get(k, 0) + 1
        return ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))


def check_gets(sv, gets):
    """Each (path, status): GET path answers that status with a JSON
    {"error": ...}."""
    for path, want in gets:
        st, body = sv.get(path)
        check_eq(st, want, "GET %s" % path)
        e = json.loads(body)
        check(isinstance(e.get("error"), str) and e["error"], "GET %s: body %r" % (path, body))


def check_http_errors(sv):
    """What every family's server answers alike: unknown paths (404), bad
    heights and query strings (400), /v1/stream without an upgrade (426),
    methods other than GET and HEAD (405), a body (413), a long target
    (414), large or many headers (431), malformed requests (400), refused
    WebSocket upgrades, pipelined requests, a browser's handshake, and
    WebSocket messages over max_message or binary (closed).  Returns a
    summary."""
    gets = [
        ("/nope", 404), ("/v1", 404), ("/v1/rounds/", 404), ("/v1/table/x", 404),
        ("/v1/blocks/abc", 400), ("/v1/blocks/01", 400), ("/v1/blocks/-1", 400),
        ("/v1/blocks/18446744073709551616", 400), ("/v1/blocks/999999", 404),
        ("/v1/blocks?last=0", 400), ("/v1/blocks?last=101", 400), ("/v1/blocks?last=x", 400),
        ("/v1/blocks?last=5&last=6", 400), ("/v1/blocks?last=%35", 400),
        ("/v1/blocks?from=3", 400), ("/v1/table?x=1", 400), ("/v1/rounds?last=1", 400),
        ("/v1/payouts", 400), ("/v1/stream", 426), ("/v1/stream?from=3", 426),
        ("/v1/stream?round=xyz&round=abc", 426),
    ]
    check_gets(sv, gets)
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        st, _, body = sv.request(method, "/v1/table", body=b"" if method != "POST" else b"x=1")
        check_eq(st, 405, "%s /v1/table" % method)
        check("error" in json.loads(body), "%s: body %r" % (method, body))
    head = b"GET /v1/table HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    raws = [
        (b"GET /v1/" + b"a" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (head + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n", 431),
        (head + b"".join(b"X-H%d: 1\r\n" % i for i in range(70)) + b"\r\n", 431),
        (head + b"Content-Length: 5\r\n\r\nhello", 413),
        (head + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 413),
        (b"GARBAGE\r\n\r\n", 400),
        (head + b"Bad Header Line\r\n\r\n", 400),
        (b"GET v1/table HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),      # TLS
        # WebSocket upgrades refused
        (b"GET /v1/table HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 404),
        (b"GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
        (b"GET /v1/stream?round=xyz HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
         b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         b"Sec-WebSocket-Version: 13\r\n\r\n", 400),
        (b"GET /v1/stream?from=01 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
         b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         b"Sec-WebSocket-Version: 13\r\n\r\n", 400),
        (b"GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 400),
    ]
    for data, want in raws:
        resp = sv.raw(data)
        st, body = status_body(resp)
        check_eq(st, want, "status of %r..." % data[:60])
        check(body and isinstance(body.get("error"), str), "body of %r...: %r" % (data[:60], resp[-200:]))
    # pipelined requests: each answered in order, the connection closed
    # after the one that asks for it
    resp = sv.raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"HEAD /v1/table HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check_eq(re.findall(rb"HTTP/1\.1 (\d+) ", resp), [b"200", b"404", b"200"],
             "statuses of three pipelined requests")
    # a browser's handshake (Connection: keep-alive, Upgrade)
    sock, head = ws_handshake(sv.port, extra=b"", conn=b"keep-alive, Upgrade")
    sock.close()
    check(head.startswith(b"HTTP/1.1 101 ") and
          b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head,
          "handshake with Connection: keep-alive, Upgrade: %r" % head)
    # a WebSocket message over max_message (4096) and a binary one: closed
    for send in (lambda c: c.send("x" * 5000), lambda c: c.ws.send_binary(b"\x01\x02")):
        c = sv.ws()
        send(c)
        check(c.closed.wait(10), "the server closed a WebSocket after a refused message")
        c.close()
    return "%d GETs, 4 methods, %d raw requests, 2 refused messages" % (len(gets), len(raws))


def case_connections_per_ip(ctx):
    """max_connections_per_ip 4: the fifth connection gets 503 and is
    closed; one freed, a new one is served."""
    import http.client
    s = ctx.api.serve(max_connections_per_ip=4)
    # the fourth connection: kept alive, it asks for /metrics
    obs = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)

    def metrics():
        obs.request("GET", "/metrics")
        r = obs.getresponse()
        check_eq(r.status, 200, "/metrics on the kept connection")
        return {l.rsplit(" ", 1)[0]: float(l.rsplit(" ", 1)[1])
                for l in r.read().decode().splitlines() if l and l[0] != "#"}
    metrics()
    idle = [socket.create_connection(("127.0.0.1", s.port), timeout=10) for _ in range(3)]
    resp = s.raw(b"")
    st, body = status_body(resp)
    check_eq(st, 503, "the fifth connection")
    check("too many connections" in body["error"], "why: %s" % body)
    m = metrics()
    check_eq(m['hashjack_serve_connections_refused_total{limit="per_ip"}'], 1, "refusals counted")
    check_eq(m["hashjack_serve_connections"], 4, "open connections")
    idle.pop().close()
    wait_until(lambda: metrics()["hashjack_serve_connections"] == 3, 10,
               "the closed connection to be gone")
    check_eq(s.get("/healthz")[0], 200, "a new connection once one closed")
    for c in idle:
        c.close()
    obs.close()
    s2 = ctx.api.serve(max_connections=2)
    one = socket.create_connection(("127.0.0.1", s2.port), timeout=10)
    obs = http.client.HTTPConnection("127.0.0.1", s2.port, timeout=10)
    obs.connect()
    st, body2 = status_body(s2.raw(b""))
    check_eq((st, body2["error"]), (503, "too many connections"), "over max_connections")
    one.close()
    obs.request("GET", "/metrics")
    r = obs.getresponse()
    check(b'refused_total{limit="total"} 1\n' in r.read(), "refusals counted (total)")
    obs.close()
    return "503: %s; %s" % (body["error"], body2["error"])


# --------------------------------------------------------------------------
# The cases both families run (ctx: a family's context, see test_serve.Ctx)

def subscribe(client, msg, want):
    """Sends msg; waits for the reply (Subscribed or Error), checked
    against want (a dict of keys it must have); returns it."""
    n = sum(1 for m in client.messages() if m["eventType"] in ("Subscribed", "Error"))
    client.send(msg)
    got = client.wait(lambda ms: [m for m in ms if m["eventType"] in ("Subscribed", "Error")][n:],
                      what="the reply to %s" % (msg,))[0]
    for k, v in want.items():
        check_eq(got.get(k), v, "reply to %s: %s" % (msg, k))
    return got


def case_api_players(ctx, nplayers=6, steps=60):
    """Players acting on GET /v1/players/{id} alone; subscribers (one player
    by ?player=, another by message naming it as ctx.alt_ids gives it, a
    round by ?round= and by message); a client that comes back with
    ?from=."""
    S, api, sv = ctx.S, ctx.api, ctx.api.sv
    ps = [ApiPlayer(*ctx.new_player()) for _ in range(nplayers)]
    ctx.players += [p.id for p in ps]
    players = ApiPlayers(api, ps, ctx.rng, ctx.bet, ctx.act)
    # subscribers: one player by ?player=, another by message; a round by
    # ?round= and by message once its Bet is sent
    h_sub = api.dealt()
    by_q = sv.ws("player=" + ps[0].id)
    by_msg = sv.ws()
    subscribe(by_msg, {"unsubscribe": "all"}, {"eventType": "Subscribed", "all": False,
                                               "rounds": [], "players": []})
    # before it has a round, a player is named by its id (an address needs
    # a round in the log on the Bitcoin family); once it has one, any way
    subscribe(by_msg, {"subscribe": {"player": ps[1].id}},
              {"eventType": "Subscribed", "all": False, "players": [ps[1].id]})
    for bad, why in (("not json", "expected"), ({"subscribe": {"round": "0x12"}}, "round 0x12"),
                     ({"subscribe": {"player": "zz"}}, "player zz"), ({"hello": 1}, "expected"),
                     ({"subscribe": {"round": ctx.fake_round(1), "player": ps[0].id}},
                      "subscribe"),
                     ({"subscribe": 5}, "subscribe")):
        e = subscribe(by_msg, bad, {"eventType": "Error"})
        check(why in e["error"], "Error for %s: %s" % (bad, e["error"]))
    many = sv.ws()
    for k in range(16):
        subscribe(many, {"subscribe": {"round": ctx.fake_round(k + 1)}},
                  {"eventType": "Subscribed"})
    e = subscribe(many, {"subscribe": {"round": ctx.fake_round(99)}}, {"eventType": "Error"})
    check("at most 16" in e["error"], "17th subscription: %s" % e["error"])
    subscribe(many, {"unsubscribe": {"round": ctx.fake_round(1)}},
              {"eventType": "Subscribed", "all": True})
    many.close()
    by_round_q = by_round_msg = round_id = None
    h_round = None
    B = B2 = None
    alt_done = False
    for k in range(steps):
        players.step()
        if round_id is None:
            bets = [tx for tx, x in players.expected.items() if x[1] == "Bet"]
            if bets:
                round_id = bets[0]
                h_round = api.dealt()
                by_round_q = sv.ws("round=" + round_id)
                by_round_msg = sv.ws()
                subscribe(by_round_msg, {"unsubscribe": "all"}, {"all": False})
                subscribe(by_round_msg, {"subscribe": {"round": round_id}},
                          {"rounds": [round_id], "players": []})
        if k == steps // 6:
            B, hb0 = sv.ws(), api.dealt()
        if k == steps // 2:
            h1 = api.dealt()
            n = sum(1 for r in api.A.raws if json.loads(r)["height"] > hb0)
            B.wait(lambda ms: len(ms) >= n, what="client B to have the messages of block %d" % h1)
            B.close()
        if k == 3 * steps // 4:
            B2 = sv.ws("from=%d" % h1)
        if k >= steps // 3 and not alt_done and sv.get("/v1/players/" + ps[1].id)[0] == 200:
            # the second player by its other names too, once it has a round
            for other in ctx.alt_ids(ps[1].id):
                subscribe(by_msg, {"unsubscribe": {"player": ps[1].id}}, {"players": []})
                subscribe(by_msg, {"subscribe": {"player": other}}, {"players": [ps[1].id]})
            alt_done = True
        S.mine()
    S.mine()
    S.mine()
    detail = players.check()
    check(alt_done, "the second player had a round to be named by %s" % ctx.alt_ids(ps[1].id))
    last = api.dealt()
    for c in (by_q, by_msg, by_round_q, by_round_msg, B2):
        c.wait_block(last)
    rounds = api.rounds_of_log()
    mine = {p.id: {r for r, x in rounds.items() if x[0] == p.id} for p in ps[:2]}
    api.check_stream(by_q, h_sub + 1, last, mine[ps[0].id])
    api.check_stream(by_msg, h_sub + 1, last, mine[ps[1].id])
    api.check_stream(by_round_q, h_round + 1, last, {round_id})
    api.check_stream(by_round_msg, h_round + 1, last, {round_id})
    # B: from hb0 + 1 to h1, B2: from h1 + 1 on; together what A got
    api.check_stream(B2, h1 + 1, last)
    joined = types.SimpleNamespace(url="B then B2 (?from=%d)" % h1,
                                   raws=[r for r in B.raws if json.loads(r)["height"] <= h1]
                                   + B2.raws)
    api.check_stream(joined, hb0 + 1, last)
    for c in (by_q, by_msg, by_round_q, by_round_msg, B2):
        c.close()
    return "%d blocks: %s; 4 subscribers, B back with ?from=%d" % (steps, detail, h1)


def case_serve_restart(ctx):
    """A round left open (window open); a second server restarted gives the
    same bytes on every path; a client back with ?from= misses nothing."""
    S, api = ctx.S, ctx.api
    p = S.player()
    r = S.bet(p, S.STAKE + 7)
    book.deal(S, r, "10", "6", "7")
    S.mine()        # the window's first block: dealt, nothing sent
    st = api.sv.json("/v1/rounds/" + r.id)
    check(st["nextActions"] and not st["roundEnded"], "the round is open: %s" % st)
    ctx.open_round = r.id
    paths = api.all_paths(ctx.players + [r.player])
    s2 = api.serve()
    s2.wait_height(api.dealt())
    before = api.answers(paths, s2)
    main = api.answers(paths)
    check_eq(before, main, "a second server's answers vs the main one's")
    c = s2.ws()
    h = api.dealt()
    rc = s2.stop()
    check_eq(rc, 0, "hashjack serve exit status on SIGTERM")
    check(c.closed.wait(10), "the stream client was closed by the stopping server")
    s2.start()
    s2.wait_height(h)
    after = api.answers(paths, s2)
    for pth in paths:
        check_eq(after[pth], before[pth], "GET %s after the restart" % pth)
    c2 = s2.ws("from=%d" % h)
    st = r.send("Stand")
    S.mine()
    S.mine()
    S.mine()
    last = api.dealt()
    c2.wait_block(last)
    api.check_stream(c2, h + 1, last)
    c.close()
    c2.close()
    return "%d paths the same after a restart at block %d; ?from=%d" % (len(paths), h, h)


def case_from_too_old(ctx):
    """?from= older than history_blocks is refused (400, why); the oldest
    kept one is served."""
    api = ctx.api
    s = api.serve(history_blocks=5)
    h = api.dealt()
    sock, head = ws_handshake(s.port, "/v1/stream?from=%d" % (h - 6))
    resp, _ = read_to_eof(sock, 10)
    sock.close()
    st, body = status_body(head + resp)
    check_eq(st, 400, "?from=%d with 5 blocks kept" % (h - 6))
    check("no longer kept" in body["error"], "why: %s" % body)
    c = s.ws("from=%d" % (h - 5))
    c.wait_block(h)
    api.check_stream(c, h - 4, h)
    c.close()
    # every block is still kept by the main server (history_blocks 10000):
    # from before the first one is all of them
    first = min(api.log())
    for f in (0, first - 1):
        c = api.sv.ws("from=%d" % f)
        c.wait_block(h)
        api.check_stream(c, first, h)
        c.close()
    m = s.metrics()
    check_eq(m["hashjack_serve_history_blocks"], 5, "history kept")
    return "400: %s" % body["error"]


def case_dealer_kill(ctx):
    """hashjackd stopped with a line beyond its last commit (what a crash
    between the line and the commit leaves; the server streams it), and
    while it is down the chain reorganises that block away (ctx.reorg(2)).
    Started again behind a proxy that holds its requests for the tip
    (ctx.TIP_METHOD), it has cut its log back to its commit: the server
    goes back with it (a reload).  Let through, it deals the new block: the
    server streams it again, and the later message is the log's.  Then
    hashjackd is killed with -9 in a burst of blocks with a round in it,
    and started again.  The server follows all along (case_stream checks
    the whole stream)."""
    S, api = ctx.S, ctx.api
    dm = S.dm
    h = api.dealt()
    check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
    S.mine_plain()
    lines, text = replay(api.doc(h + 1), ctx.hashjack)
    torn = text.splitlines(keepends=True)[-1]
    check_eq(json.loads(torn)["height"], h + 1, "the line beyond the commit")
    fd = os.open(dm.card_log, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, torn.encode())
    finally:
        os.close(fd)
    api.A.wait_block(h + 1)             # the server read it
    ctx.reorg(2)
    api.forget_above(h)
    cuts0 = api.sv.metrics()["hashjack_serve_log_truncated_total"]
    proxy = RpcProxy(ctx.node_url(), method=ctx.TIP_METHOD)
    try:
        proxy.arm("swallow", 1000)
        dm.overrides = ["--chain.rpc_url=" + proxy.url, "--chain.rpc_timeout_ms=300"]
        dm.start()
        wait_until(lambda: last_logged_height(dm.card_log) == h, 30,
                   "hashjackd to cut its log back to block %d" % h)
        wait_until(lambda: api.sv.metrics()["hashjack_serve_log_truncated_total"] > cuts0
                   and api.sv.height() == h, 30, "the server back at block %d" % h)
        proxy.disarm()
        api.wait_dealt(h + 1)
        check_eq(dm.stop(), 0, "hashjackd exit status on SIGTERM")
    finally:
        dm.overrides = []
        proxy.close()
    again = json.loads(api.log()[h + 1])
    check(again["hash"] != json.loads(torn)["hash"], "block %d was reorganised" % (h + 1))
    api.A.wait(lambda ms: [m for m in ms if m.get("eventType") == "BlockUpdate"
                           and m["height"] == h + 1][1:], what="block %d sent again" % (h + 1))
    ctx.resend = (h + 1, 1 << 62)
    dm.start()
    who, pid = ctx.new_player()
    ctx.bet(who, S.MIN_BET + 3, None, None)
    S.pending = []
    ctx.burst(60)
    wait_until(lambda: (dm.last_height() or 0) >= h + 20, 60, "hashjackd in the burst")
    dm.kill9()
    dm.start()
    S.mine()
    m = api.sv.metrics()
    return ("block %d torn, then reorganised (%d tip requests held); kill -9 at about %d; "
            "%d loads, %d cuts" % (h + 1, proxy.swallowed, h + 20,
                                   m["hashjack_serve_loads_total"],
                                   m["hashjack_serve_log_truncated_total"]))


def check_endpoints(ctx, family, chain, dealer):
    """/v1/table, every round, player (also by ctx.alt_ids), block and
    payout list (by round, by each player and its other ids, unattributed)
    against the log, the tools and the database.  Returns a summary."""
    api = ctx.api
    t = api.check_table(family, chain, dealer)
    check(t["perfectPairsEdgePercent"] and t["pokerEdgePercent"], "side bets' edges shown")
    nset, nopen = api.check_settled_rounds()
    ndbl = sum(map(len, api.doubled_hands().values()))
    check(ndbl > 0, "the book doubled no hand: \"doubled\" is not checked")
    npl = api.check_players(ctx.alt_ids)
    nbl = api.check_blocks()
    players = sorted({x[0] for x in api.rounds_of_log().values()})
    recipients = players + [a for p in players for a in ctx.alt_ids(p)] + ["unattributed"]
    nrows = api.check_payouts(recipients)
    check(nrows > 0, "payouts listed")
    return "table, %d settled and %d open rounds (%d hands doubled), %d players, %d blocks, %d payouts" % (
        nset, nopen, ndbl, npl, nbl, nrows)


def case_stream(ctx):
    """The first stream client: every block once, in order, with its
    RoundUpdates (the blocks case_dealer_kill's restarts sent again aside:
    the last of each the log's); the endpoints still the log's; every
    server exits 0."""
    api = ctx.api
    last = api.dealt()
    api.A.wait_block(last)
    nb, nr, again = api.check_stream(api.A, resend=ctx.resend)
    check_eq(api.sv.metrics()["hashjack_serve_diverged_total"], 0,
             "blocks whose events the server's engine did not reproduce")
    api.check_settled_rounds()
    api.check_players(ctx.alt_ids)
    api.check_blocks()
    for s in api.extra:
        if s.running():
            check_eq(s.stop(), 0, "exit status of a server on SIGTERM")
    api.A.close()
    check_eq(api.sv.stop(), 0, "the main server's exit status on SIGTERM")
    return "%d BlockUpdates, %d RoundUpdates; %d blocks sent again after hashjackd's restarts" % (
        nb, nr, again)


def main(doc, prefix, make_ctx, cases):
    """A suite's main: the command line (--hashjack, --hashjackd, -k, --keep,
    --seed, --timeout), the work directory, make_ctx(hashjack, hashjackd,
    workdir, rng), the cases in order (with -k the game's first two
    always), one line each; every process killed at the end.  Returns the
    exit status."""
    def more(ap):
        ap.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    args = game_args(doc, 240, more)
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    wd = WorkDir(prefix, args.keep)
    t0 = time.monotonic()
    res = Cases(22)
    print("seed %d" % args.seed, flush=True)
    ctx = None
    try:
        ctx = make_ctx(find_hashjack(args.hashjack), find_hashjackd(args.hashjackd),
                       wd.path, random.Random(args.seed))
        only = args.only + [c.__name__[5:] for c in cases[:2]] if args.only else []
        res.run(ctx, cases, only)
    except Exception as e:  # noqa: BLE001 - the setup failed
        res.failed += 1
        print("FAIL setup: %s: %s" % (type(e).__name__, e), flush=True)
        import traceback
        traceback.print_exc()
    finally:
        try:
            if ctx:
                ctx.close()
        except Exception as e:  # noqa: BLE001
            res.failed += 1
            print("FAIL close: %s: %s" % (type(e).__name__, e), flush=True)
        kill_children()
        wd.close(res.failed)
    print("%d passed, %d failed (%.0fs, seed %d)" % (res.passed, res.failed,
                                                     time.monotonic() - t0, args.seed))
    return 1 if res.failed or not res.passed else 0
