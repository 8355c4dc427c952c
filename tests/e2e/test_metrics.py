#!/usr/bin/env python3
"""hashjackd's /metrics and /healthz (issue 15, docs/OPERATION.md "Metrics
and health") on a real anvil, through a JSON-RPC proxy (proxies.RpcProxy):

    /usr/bin/python3 tests/e2e/test_metrics.py --hashjack build/test/hashjack \\
        --hashjackd build/test/hashjackd [--keep] [--timeout S]

One anvil (dealer: account 0, with [payout] dealer_key), one daemon with
[metrics] listen = 127.0.0.1:0 and max_lag 5, confirmations 1, rpc_timeout_ms
1500; in order:

- refused: a listen address in use: the daemon says so and exits 1.
- counts: rounds played (bets, stands, doubles), rejections of several
  reasons, a deposit; then every counter against the card log (blocks,
  transactions, accepted, rejected by reason, deposits, settled), the
  heights against the log and the node, open rounds against the bets not
  settled, payouts by state against the database; the rpc counters of
  eth_getBlockByNumber and eth_blockNumber moved; one debug line per batch
  committed, tiling the log's blocks (bench/dense.py reads them);
  `promtool check metrics`
  finds nothing wrong; every sample's family has HELP and TYPE; HEAD,
  404, 405.
- healthy: /healthz 200 with the height and the tip.
- node_down: anvil stopped (behind the test's proxy, which answers 502
  for it): 503 "node answering HTTP errors, N failed attempts since S s
  ago: ...", hashjackd_node_up 0 and retries counted under cause "http";
  started again: 200 and node_up 1.
- lagging: once the daemon has caught up, the proxy swallows
  eth_getBlockByNumber while 12 blocks are mined, 5 of them after the
  daemon has asked for the first 7: 503 "lagging: 12 final blocks not processed"; lag_blocks 12 and
  lag_seconds > 0; let through: 200, lag 0.
- short_of_funds: the dealer's balance set to 0 with a refund owed: 503
  "insufficient funds: ...", hashjackd_funds_insufficient 1; funded: paid,
  200 again.
- alerts: docs/examples/prometheus (promtool check config, check rules),
  and `promtool test rules` with the scrapes taken above as input series:
  the healthy one fires nothing, node_down fires HashjackdNodeUnreachable,
  lagging HashjackdLagging, short_of_funds HashjackdInsufficientFunds.
- stop: SIGTERM, exit 0, the listener gone.

One line per case, then "N passed, M failed"; exit status 1 on failure.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon import Hashjackd, find_hashjackd, metric, parse_prometheus  # noqa: E402
from evm_node import Anvil, BET, ETHER, HIT, STAND  # noqa: E402
from procs import (ROOT, HarnessError, add_exit_hook, install_cleanup,  # noqa: E402
                   own_tempdir, wait_until)
from proxies import RpcProxy  # noqa: E402
from tool import find_hashjack  # noqa: E402

EXAMPLES = os.path.join(ROOT, "docs", "examples", "prometheus")
MIN_BET = 10 ** 15
MAX_BET = 10 ** 18
MAX_LAG = 5


class Failed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)


def http(url, method="GET", timeout=10):
    """(status, body text) of one request."""
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def parse(text):
    """daemon.parse_prometheus, its refusal a failure of the case."""
    try:
        return parse_prometheus(text)
    except HarnessError as e:
        raise Failed(str(e))


def family(name, types):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[:-len(suffix)] in types:
            return name[:-len(suffix)]
    return name


def value(samples, name, **labels):
    try:
        return metric(samples, name, **labels)
    except HarnessError as e:
        raise Failed(str(e))


class Ctx:
    def __init__(self, args):
        self.args = args
        self.hashjack = find_hashjack(args.hashjack)
        self.hashjackd = find_hashjackd(args.hashjackd)
        self.workdir = own_tempdir("hj-metrics-") if not args.keep else \
            __import__("tempfile").mkdtemp(prefix="hj-metrics-")
        self.a = Anvil(workdir=os.path.join(self.workdir, "anvil"), accounts=8).start()
        add_exit_hook(self.a.kill)
        self.proxy = RpcProxy(self.a.url, method="eth_getBlockByNumber")
        add_exit_hook(self.proxy.close)
        acct = self.a.accounts[0]
        self.dealer = acct.address.lower()
        self.players = self.a.accounts[1:]
        key = os.path.join(self.workdir, "dealer.key")
        with open(key, "w") as f:
            f.write(acct.key + "\n")
        os.chmod(key, 0o600)
        self.a.mine_empty(2)
        self.first = self.a.height()

        class ProxiedNode:  # the daemon's [chain] through the proxy
            url = self.proxy.url
        self.dm = Hashjackd(self.hashjackd, ProxiedNode, self.dealer, MIN_BET, MAX_BET,
                            timeout_blocks=3, confirmations=1, start_height=self.first,
                            workdir=os.path.join(self.workdir, "daemon"),
                            metrics=True,
                            extra={"payout": {"dealer_key": key, "min_refund": 0},
                                   "chain": {"rpc_timeout_ms": 1500},
                                   "metrics": {"max_lag": MAX_LAG}})
        self.url = None
        self.scrapes = {}  # case -> text of /metrics

    def start(self):
        self.dm.start("--debug")
        self.url = self.dm.metrics_url()

    def metrics(self):
        st, text = http(self.url + "/metrics")
        check(st == 200, "/metrics: HTTP %d: %s" % (st, text[:300]))
        return text

    def health(self):
        st, text = http(self.url + "/healthz")
        import json
        return st, json.loads(text)

    def wait_health(self, want, timeout=30, reason=None):
        last = [None]

        def ok():
            st, h = self.health()
            last[0] = (st, h)
            return st == want and (reason is None or any(reason in r for r in h["reasons"]))
        try:
            wait_until(ok, timeout, "/healthz %d" % want, interval=0.05)
        except TimeoutError:
            raise Failed("/healthz: wanted %d%s, last %s" % (
                want, " with %r" % reason if reason else "", last[0]))
        return last[0][1]

    def send(self, who, data, value):
        return self.a.send(who, self.dealer, data, value)

    def mine(self):
        self.a.mine()
        self.dm.wait_height(self.a.height(), 30)

    def db(self, sql):
        import sqlite3
        path = os.path.join(self.dm.state_dir, "hashjackd.sqlite")
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()


def case_refused(C):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        r = subprocess.run([C.hashjackd, "-c", C.dm.conf, "--metrics.listen=127.0.0.1:%d" % port],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=30)
    finally:
        s.close()
    check(r.returncode == 1, "exit %d, wanted 1:\n%s" % (r.returncode, r.stderr[-800:]))
    check("[metrics] listen: cannot listen on 127.0.0.1 port %d: address already in use"
          % port in r.stderr, "stderr: %s" % r.stderr[-800:])
    return "exit 1: [metrics] listen: cannot listen ... address already in use"


def case_counts(C):
    C.start()
    C.dm.wait_height(C.first, 30)
    p = C.players
    # Rounds: bets that stand, a double, and rejections of several reasons.
    C.send(p[0], BET, MIN_BET)
    C.send(p[1], BET, 2 * MIN_BET)
    C.send(p[2], BET, MIN_BET // 2)              # bet_limits
    C.send(p[3], HIT, 12345)                     # no_round
    C.send(p[4], "0x484a0201", 777)              # bad_version
    C.send(p[5], "0x1234", 999)                  # deposit (no magic)
    C.mine()
    C.send(p[0], STAND, 0)
    C.send(p[1], STAND, 5)                       # wrong_value
    C.mine()
    C.send(p[1], STAND, 0)
    # p[6] bets and never acts: its round times out, unless it ends at
    # once (a blackjack, the dealer's or the player's); then it bets again.
    for _ in range(20):
        C.send(p[6], BET, MIN_BET)
        C.mine()
        C.a.mine_empty(4)
        C.dm.wait_height(C.a.height(), 30)
        if any(e["type"] == "timeout" for l in C.dm.lines() for e in l["events"]):
            break

    # Every round ends (timeouts stand for the players who do not act),
    # and every payout is confirmed.
    def done():
        ev = [e for l in C.dm.lines() for e in l["events"]]
        bets = sum(1 for e in ev if e["type"] == "action" and e["action"] == "Bet")
        rows = C.db("SELECT state FROM payouts")
        return bets == sum(1 for e in ev if e["type"] == "settle") and rows and \
            all(r[0] == "confirmed" for r in rows)
    for _ in range(40):
        if done():
            break
        C.mine()
    check(done(), "rounds open or payouts not confirmed after 40 blocks: %s"
          % C.db("SELECT state FROM payouts"))
    C.dm.wait_height(C.a.height(), 30)
    text = C.metrics()
    C.scrapes["healthy"] = text
    samples, types, helps = parse(text)
    for (name, _) in samples:
        fam = family(name, types)
        check(fam in types and fam in helps, "%s has no TYPE or HELP" % name)

    lines = C.dm.lines()
    ev = [e for l in lines for e in l["events"]]
    kinds = {}
    for e in ev:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    reasons = {}
    for e in ev:
        if e["type"] == "reject":
            reasons[e["reason"]] = reasons.get(e["reason"], 0) + 1
    got = {r: value(samples, "hashjackd_actions_rejected_total", reason=r) for r in reasons}
    check(got == reasons, "rejected by reason %s, the log %s" % (got, reasons))
    check(len(reasons) >= 4, "too few reasons played: %s" % reasons)
    total_rej = sum(v for (n, _), v in samples.items() if n == "hashjackd_actions_rejected_total")
    check(total_rej == sum(reasons.values()), "rejected in all %d, the log %d"
          % (total_rej, sum(reasons.values())))
    want = {
        "hashjackd_blocks_total": len(lines),
        "hashjackd_actions_accepted_total": kinds.get("action", 0),
        "hashjackd_deposits_total": kinds.get("deposit", 0),
        "hashjackd_timeouts_total": kinds.get("timeout", 0),
        "hashjackd_rounds_settled_total": kinds.get("settle", 0),
        "hashjackd_transactions_total": sum(kinds.get(k, 0) for k in
                                            ("action", "reject", "deposit", "ignored")),
        "hashjackd_block_height": lines[-1]["height"],
        "hashjackd_node_tip_height": C.a.height(),
        "hashjackd_final_height": C.a.height(),
        "hashjackd_lag_blocks": 0,
        "hashjackd_open_rounds": sum(1 for e in ev if e["type"] == "action"
                                     and e["action"] == "Bet") - kinds.get("settle", 0),
        "hashjackd_node_up": 1,
        "hashjackd_payouts_enabled": 1,
        "hashjackd_payouts_halted": 0,
        "hashjackd_funds_insufficient": 0,
        # min_refund = 0: every refund paid at once, none waiting.
        "hashjackd_payout_minimum": 0,
        "hashjackd_payouts_waiting": 0,
        "hashjackd_payouts_waiting_amount": 0,
    }
    for name, w in want.items():
        check(value(samples, name) == w, "%s = %s, wanted %s" % (name, value(samples, name), w))
    bets = sum(1 for e in ev if e["type"] == "action" and e["action"] == "Bet")
    check(kinds.get("timeout", 0) >= 1 and kinds.get("settle", 0) == bets >= 3,
          "the session should time out and settle its rounds: %s" % kinds)
    n_payouts = C.db("SELECT count(*) FROM payouts")[0][0]
    check(value(samples, "hashjackd_payouts", state="confirmed") == n_payouts,
          "payouts confirmed %s, the database %d"
          % (value(samples, "hashjackd_payouts", state="confirmed"), n_payouts))
    summed = C.db("SELECT amount FROM payouts")
    check(value(samples, "hashjackd_payouts_amount", state="confirmed") ==
          float(sum(int(r[0]) for r in summed)), "payouts' amount")
    # Read at the end of the last payout pass: the dealer holds ETH.
    check(value(samples, "hashjackd_balance") > 0, "balance not read")
    check(value(samples, "hashjackd_payout_passes_total") > 0, "no payout pass counted")
    for m in ("eth_getBlockByNumber", "eth_blockNumber"):
        check(value(samples, "hashjackd_rpc_requests_total", method=m, outcome="ok") > 0,
              "no ok %s" % m)
        check(value(samples, "hashjackd_rpc_duration_seconds_count", method=m) > 0,
              "no duration of %s" % m)
    check(value(samples, "hashjackd_block_duration_seconds_count") == len(lines), "block hist")
    check(value(samples, "hashjackd_commit_duration_seconds_count") ==
          value(samples, "hashjackd_batches_total"), "commit hist")
    check_batch_lines(C.dm.stderr(), lines, samples)

    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, "promtool check metrics: %s%s" % (r.stdout, r.stderr))

    st, body = http(C.url + "/metrics", method="HEAD")
    check(st == 200 and body == "", "HEAD: %d %r" % (st, body[:80]))
    st, body = http(C.url + "/nothing")
    check(st == 404 and "/metrics and /healthz" in body, "404: %d %s" % (st, body))
    st, body = http(C.url + "/metrics", method="POST")
    check(st == 405, "POST: %d %s" % (st, body))
    return "%d blocks, %d accepted, rejected %s, %d settled; promtool: no problems" % (
        len(lines), kinds.get("action", 0), reasons, kinds.get("settle", 0))


# The debug line of each committed batch (daemon/follower.c batch_line),
# which bench/dense.py reads.
BATCH_LINE = re.compile(
    r"<7>blocks (\d+)\.\.(\d+): (\d+) transactions to the dealer, dealt in "
    r"([0-9.]+) ms \(slowest: block (\d+), ([0-9.]+) ms\); committed in "
    r"([0-9.]+) ms \(open rounds saved ([0-9.]+) ms, card log synced "
    r"([0-9.]+) ms, database committed ([0-9.]+) ms, (\d+) pages written\); "
    r"(\d+) open rounds$")


def check_batch_lines(stderr, lines, samples):
    """One debug line per batch committed: their ranges tile the card log's
    blocks in order, their counts add up to the counters, the slowest
    block is one of the batch's, the times add up, the last one's open
    rounds are the gauge's."""
    got = [m.groups() for m in (BATCH_LINE.match(l) for l in stderr.splitlines()
                                if l.startswith("<7>blocks ")) if m]
    check(len(got) == len([l for l in stderr.splitlines() if l.startswith("<7>blocks ")]),
          "a batch line does not read as one")
    check(len(got) == value(samples, "hashjackd_batches_total"),
          "%d batch lines, batches_total %s" % (len(got), value(samples, "hashjackd_batches_total")))
    want = lines[0]["height"]
    for g in got:
        first, last, slowest_h = int(g[0]), int(g[1]), int(g[4])
        dealt, slowest, committed, parts = float(g[3]), float(g[5]), float(g[6]), \
            [float(x) for x in g[7:10]]
        check(first == want and last >= first, "batch %s..%s after block %d" % (first, last, want - 1))
        check(first <= slowest_h <= last and slowest <= dealt + 0.001,
              "slowest block %d (%s ms) of %d..%d dealt in %s ms" % (slowest_h, slowest, first,
                                                                     last, dealt))
        check(abs(sum(parts) - committed) < 0.01, "commit %s ms, parts %s" % (committed, parts))
        # The cursor's row changes with every batch: a page at least.
        check(int(g[10]) >= 1, "batch %s..%s wrote %s pages" % (first, last, g[10]))
        want = last + 1
    check(want == lines[-1]["height"] + 1, "batch lines end at %d, the log at %d"
          % (want - 1, lines[-1]["height"]))
    check(sum(int(g[2]) for g in got) == value(samples, "hashjackd_transactions_total"),
          "batch lines' transactions")
    check(int(got[-1][11]) == value(samples, "hashjackd_open_rounds"), "batch line's open rounds")


def case_healthy(C):
    h = C.wait_health(200, 10)
    check(h["ok"] is True and h["reasons"] == [] and h["height"] == C.a.height()
          and h["tip"] == C.a.height() and h["lagBlocks"] == 0, "healthz: %s" % h)
    return str(h)


def case_node_down(C):
    C.a.stop()
    # Its proxy answers 502 for it: the reason says the node answers HTTP
    # errors, and since when.
    h = C.wait_health(503, 30, "node answering HTTP errors")
    text = C.metrics()
    C.scrapes["node_down"] = text
    samples, _, _ = parse(text)
    check(value(samples, "hashjackd_node_up") == 0, "node_up not 0")
    check(value(samples, "hashjackd_rpc_retries_total", cause="http") > 0,
          "no retry counted under cause http")
    C.a.start()
    h2 = C.wait_health(200, 60)
    samples, _, _ = parse(C.metrics())
    check(value(samples, "hashjackd_node_up") == 1, "node_up not 1 again")
    return "%s; then 200" % h["reasons"]


def case_lagging(C):
    # Caught up first: a block request already out when the proxy starts
    # swallowing would be retried without a new tip, and the lag read
    # from the tip the daemon last had.
    C.dm.wait_height(C.a.height(), 60)
    C.proxy.arm("swallow", 10 ** 6)
    try:
        # 12 blocks: beyond max_lag, and the alert rule's 10.  7 first,
        # until the daemon has read that tip and its request for them is
        # out (swallowed); then 5 more, which it learns only by asking the
        # tip again when that request fails (no poll runs while it is out).
        tip = C.a.mine_empty(7)
        wait_until(lambda: C.health()[1].get("tip") == tip, 30, "the daemon at tip %d" % tip, interval=0.05)
        C.a.mine_empty(5)
        h = C.wait_health(503, 30, "lagging: 12 final blocks not processed")
        text = C.metrics()
        C.scrapes["lagging"] = text
        samples, _, _ = parse(text)
        check(value(samples, "hashjackd_lag_blocks") == 12, "lag_blocks")
        check(value(samples, "hashjackd_lag_seconds") > 0, "lag_seconds 0")
    finally:
        C.proxy.disarm()
    C.dm.wait_height(C.a.height(), 60)
    C.wait_health(200, 30)
    samples, _, _ = parse(C.metrics())
    check(value(samples, "hashjackd_lag_blocks") == 0 and
          value(samples, "hashjackd_lag_seconds") == 0, "lag not 0 again")
    return "%s; then 200" % [r for r in h["reasons"] if r.startswith("lagging")]


def case_short_of_funds(C):
    C.a.rpc("anvil_setBalance", C.dealer, "0x0")
    C.send(C.players[2], BET, 1000)      # bet_limits: 1000 wei owed back
    C.mine()
    h = C.wait_health(503, 30, "insufficient funds: INSUFFICIENT FUNDS")
    text = C.metrics()
    C.scrapes["short_of_funds"] = text
    samples, _, _ = parse(text)
    check(value(samples, "hashjackd_funds_insufficient") == 1, "funds_insufficient not 1")
    check(value(samples, "hashjackd_payouts", state="owed") >= 1, "nothing owed")
    C.a.rpc("anvil_setBalance", C.dealer, hex(10 * ETHER))
    for _ in range(20):
        C.mine()
        if C.health()[0] == 200 and \
                all(r[0] == "confirmed" for r in C.db("SELECT state FROM payouts")):
            break
    h2 = C.wait_health(200, 10)
    return "%s; funded: 200" % [r[:60] for r in h["reasons"]]


def rule_annotations(path):
    """{alert: {annotation: text}} of the rules file, read as written (one
    `key: "text"` per line under annotations; no YAML library here)."""
    out, alert, inside = {}, None, False
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*- alert: (\w+)", line)
            if m:
                alert, inside = m.group(1), False
                out[alert] = {}
                continue
            if re.match(r"\s*annotations:\s*$", line):
                inside = True
                continue
            m = re.match(r'\s*(\w+): "(.*)"\s*$', line)
            if inside and alert and m:
                out[alert][m.group(1)] = m.group(2)
            elif not re.match(r"\s*$", line):
                inside = inside and line.startswith(" " * 10)
    return out


def case_alerts(C):
    for f in ("prometheus.yml",):
        r = subprocess.run(["promtool", "check", "config", os.path.join(EXAMPLES, f)],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "promtool check config: %s%s" % (r.stdout, r.stderr))
    r = subprocess.run(["promtool", "check", "rules",
                        os.path.join(EXAMPLES, "hashjackd.rules.yml")],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "promtool check rules: %s%s" % (r.stdout, r.stderr))
    expect = {"healthy": [], "node_down": ["HashjackdNodeUnreachable"],
              "lagging": ["HashjackdLagging"], "short_of_funds": ["HashjackdInsufficientFunds"]}
    alerts = ["HashjackdNodeUnreachable", "HashjackdLagging", "HashjackdInsufficientFunds",
              "HashjackdPayoutsHalted"]
    ann = rule_annotations(os.path.join(EXAMPLES, "hashjackd.rules.yml"))
    check(all(a in ann and "summary" in ann[a] for a in alerts), "annotations: %s" % ann)
    out = []
    for name, firing in expect.items():
        check(name in C.scrapes, "no scrape of %s" % name)
        samples, _, _ = parse(C.scrapes[name])
        series = []
        for (n, labels), v in sorted(samples.items(), key=lambda kv: (kv[0][0], sorted(kv[0][1]))):
            lab = dict(labels, instance="hashjackd:9464", job="hashjackd")
            sel = "%s{%s}" % (n, ",".join('%s="%s"' % (k, lab[k]) for k in sorted(lab)))
            series.append("      - series: '%s'\n        values: '%s'\n" % (sel, " ".join(
                [repr(v) if v == v else "NaN"] * 31)))
        def expected(a):
            if a not in firing:
                return " []"
            notes = "".join("              %s: '%s'\n" % (k, v.replace(
                "{{ $labels.instance }}", "hashjackd:9464").replace("'", "''"))
                for k, v in ann[a].items())
            return ("\n          - exp_labels:\n              severity: page\n"
                    "              instance: hashjackd:9464\n"
                    "              job: hashjackd\n"
                    "            exp_annotations:\n" + notes)
        tests = "".join(
            "      - eval_time: 30m\n        alertname: %s\n        exp_alerts:%s\n"
            % (a, expected(a)) for a in alerts)
        doc = ("rule_files:\n  - %s\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n"
               "    input_series:\n%s    alert_rule_test:\n%s" % (
                   os.path.join(EXAMPLES, "hashjackd.rules.yml"), "".join(series), tests))
        path = os.path.join(C.workdir, "alerts-%s.yml" % name)
        with open(path, "w") as f:
            f.write(doc)
        r = subprocess.run(["promtool", "test", "rules", path], capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 0, "promtool test rules (%s): %s%s" % (name, r.stdout[-3000:],
                                                                     r.stderr[-2000:]))
        out.append("%s: %s" % (name, firing or "none"))
    return "; ".join(out)


def case_stop(C):
    rc = C.dm.stop(timeout=20)
    check(rc == 0, "exit %s" % rc)
    try:
        http(C.url + "/healthz", timeout=2)
    except OSError:
        return "exit 0; the listener is gone"
    raise Failed("the listener still answers after exit")


CASES = [("refused", case_refused), ("counts", case_counts), ("healthy", case_healthy),
         ("node_down", case_node_down), ("lagging", case_lagging),
         ("short_of_funds", case_short_of_funds), ("alerts", case_alerts),
         ("stop", case_stop)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hashjack")
    ap.add_argument("--hashjackd")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    install_cleanup(args.timeout)
    if not shutil.which("promtool"):
        print("promtool not found (Debian's prometheus package; scripts/deps.sh installs it)")
        return 1
    C = Ctx(args)
    passed = failed = 0
    try:
        for name, fn in CASES:
            t = time.monotonic()
            try:
                detail = fn(C)
                passed += 1
                print("ok   %s (%.1fs): %s" % (name, time.monotonic() - t, detail), flush=True)
            except (Failed, HarnessError, TimeoutError) as e:
                failed += 1
                print("FAIL %s: %s" % (name, e), flush=True)
                if C.dm.running() is False and name not in ("refused", "stop"):
                    print("     hashjackd stderr:\n%s" % C.dm.stderr()[-2000:], flush=True)
    finally:
        C.dm.close()
    print("%d passed, %d failed" % (passed, failed))
    if args.keep:
        print("kept %s" % C.workdir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
