#!/usr/bin/env python3
"""A hosted endpoint's https:// and wss:// (issue 25; docs/OPERATION.md,
"A hosted endpoint") end to end: anvil behind a TLS-terminating proxy of
the test (proxies.TlsProxy: Python's ssl module, a self-signed
certificate made with the openssl command at test time, that certificate
its own CA), which carries both the JSON-RPC and the WebSocket (anvil
serves them on one port):

  https_wss
        rpc_url = https://127.0.0.1:PROXY, no push_url (wss:// derived),
        ca_file = the certificate, poll_interval one hour: --check-config
        says push on over wss:// and the CA file; push comes up over TLS
        ("push: on: wss://..." after "caught up"), and three blocks mined
        one at a time reach the card log (push alone can bring them);
        every block from the first dealt once, in order; every connection
        through the proxy passed its handshake.  Then `hashjack verify -c`
        over https:// passes on that log.
  wrong_ca
        the same with ca_file another self-signed certificate: the RPC's
        certificate error in the log ("node: eth_chainId: the TLS
        certificate of 127.0.0.1 failed verification (SSL certificate
        problem: self-signed certificate)") and in /healthz's 503 ("node
        unreachable: ..."), nothing dealt, every handshake refused by the
        daemon.  Then rpc_url plain http:// to anvil and push_url wss://
        through the proxy with that CA file: "push: unavailable:
        wss://...: the TLS certificate of 127.0.0.1 failed verification:
        self-signed certificate", while polling deals.

    python3 tests/e2e/test_tls.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--timeout S]

Python 3 standard library only (the harness of tests/e2e/), and the
openssl command.  Binds 127.0.0.1 only; every wait has a deadline, the
whole run too.  One line per case, then "N passed, M failed"; exit
status 1 on failure.
"""

import json
import os
import sys
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Failed, check, check_eq, fault_main, tail_text, wait_log_height  # noqa: E402
from daemon import Hashjackd  # noqa: E402
from evm_node import Anvil  # noqa: E402
from logs import read_cardlog  # noqa: E402
from procs import wait_until  # noqa: E402
from proxies import TlsProxy, self_signed  # noqa: E402
from tool import verify  # noqa: E402

# Push alone brings blocks: polled every hour.
POLL_NEVER_MS = 3600000
MIN_BET, MAX_BET = 10 ** 15, 10 ** 18


class Ctx:
    def __init__(self, hashjack, hashjackd, workdir, seed):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.seed = seed
        # The proxy's certificate (the CA of ca_file), and another.
        self.cert, self.key = self_signed(workdir, "proxy")
        self.other, _ = self_signed(workdir, "other", cn="other.example",
                                    san="DNS:other.example")


def node(ctx, tag):
    a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-" + tag)).start()
    a.mine_empty(2)
    return a


def daemon(ctx, a, tag, chain, poll_ms, metrics=False):
    return Hashjackd(ctx.hashjackd, a, a.account(1).address, MIN_BET, MAX_BET,
                     poll_interval_ms=poll_ms, metrics=metrics,
                     workdir=os.path.join(ctx.workdir, "dm-" + tag),
                     extra={"chain": chain})


def wait_text(dm, text, timeout):
    def seen():
        if not dm.running():
            raise Failed("hashjackd exited with %s:\n%s"
                         % (dm.proc.returncode, tail_text(dm.stderr(), 10)))
        return text in dm.stderr()
    try:
        wait_until(seen, timeout, repr(text))
    except TimeoutError as e:
        raise Failed("%s; stderr:\n%s" % (e, tail_text(dm.stderr(), 12)))


def config_says(dm, *wants):
    rc, out, err = dm.check_config()
    check_eq(rc, 0, "--check-config exit status (%s)" % err.strip())
    for want in wants:
        check(want in out, "--check-config does not say %r:\n%s" % (want, out))


def healthz(dm):
    """(status, body) of the daemon's /healthz."""
    try:
        with urllib.request.urlopen(dm.metrics_url() + "/healthz", timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# --------------------------------------------------------------------------

def case_https_wss(ctx):
    a = node(ctx, "ok")
    proxy = TlsProxy(a.port, ctx.cert, ctx.key)
    try:
        url = "https://127.0.0.1:%d" % proxy.port
        wss = "wss://127.0.0.1:%d" % proxy.port
        dm = daemon(ctx, a, "ok", {"rpc_url": url, "ca_file": ctx.cert}, POLL_NEVER_MS)
        config_says(dm, "chain: evm at %s," % url,
                    "push: on, %s (eth_subscribe newHeads), polling stays" % wss,
                    "tls: the node's certificates checked against ca_file %s only"
                    % ctx.cert)
        dm.start()
        wait_text(dm, "caught up", 30)
        wait_text(dm, "push: on: %s (eth_subscribe newHeads)" % wss, 30)
        err = dm.stderr()
        check(err.index("caught up") < err.index("push: on: "),
              "push on before the catch-up ended:\n%s" % tail_text(err, 8))
        first = wait_until(lambda: read_cardlog(dm.card_log), 30,
                           "a first line in the card log")[0]["height"]
        for _ in range(3):
            h = int(a.mine()["number"], 16)
            wait_log_height(dm, h, timeout=30)
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        heights = [l["height"] for l in read_cardlog(dm.card_log)]
        check_eq(heights, list(range(first, h + 1)), "heights of the card log")
        err = dm.stderr()
        check_eq(err.count("push: on: "), 1, "'push: on' lines")
        check("push: lost" not in err and "push: unavailable" not in err
              and "retrying" not in err, "trouble logged:\n%s" % tail_text(err, 8))
        check(proxy.passed >= 2 and proxy.failed == 0,
              "handshakes through the proxy: %d passed, %d failed %s"
              % (proxy.passed, proxy.failed, proxy.failures))
        # hashjack verify -c: the same https:// node, the same CA file.
        rc, out, verr = verify(ctx.hashjack, dm.conf, dm.card_log)
        check_eq(rc, 0, "hashjack verify exit status (%r %r)" % (out, verr))
        check_eq(out, "verified blocks %d to %d: every line agrees\n" % (first, h),
                 "hashjack verify's output")
    finally:
        proxy.close()
        a.stop()
    return "blocks %d to %d dealt once each, the last 3 by push over wss://; verify -c " \
           "over https:// agrees (%d connections through TLS)" % (first, h, proxy.passed)


def case_wrong_ca(ctx):
    a = node(ctx, "wrong")
    proxy = TlsProxy(a.port, ctx.cert, ctx.key)
    try:
        # The RPC over https:// with a CA file that is not the proxy's.
        dm = daemon(ctx, a, "wrong-rpc", {"rpc_url": "https://127.0.0.1:%d" % proxy.port,
                                          "ca_file": ctx.other}, 50, metrics=True)
        dm.start()
        rpc_err = ("the TLS certificate of 127.0.0.1 failed verification (SSL "
                   "certificate problem: self-signed certificate)")
        wait_text(dm, "node: eth_chainId: " + rpc_err, 30)
        status, body = healthz(dm)
        check_eq(status, 503, "/healthz status (%r)" % body)
        why = [r for r in body["reasons"]
               if r.startswith("node's TLS refused (certificate or handshake), ")]
        check(why and rpc_err in why[0],
              "/healthz does not name the certificate: %r" % body)
        check_eq(read_cardlog(dm.card_log), [], "card log lines")
        check(proxy.failed >= 1 and proxy.passed == 0,
              "handshakes: %d passed, %d failed" % (proxy.passed, proxy.failed))
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        rpc_why = why[0]

        # Push alone over wss:// with that CA file; the RPC plain.
        wss = "wss://127.0.0.1:%d" % proxy.port
        dm = daemon(ctx, a, "wrong-push", {"push_url": wss, "ca_file": ctx.other}, 50)
        dm.start()
        wait_text(dm, "caught up", 30)
        want = ("push: unavailable: %s: the TLS certificate of 127.0.0.1 failed "
                "verification: self-signed certificate; polling every 50 ms until it is up"
                % wss)
        wait_text(dm, want, 30)
        h = int(a.mine()["number"], 16)
        wait_log_height(dm, h, timeout=30)
        check_eq(dm.stderr().count("push: unavailable: "), 1, "'push: unavailable' lines")
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
        check_eq(proxy.passed, 0, "handshakes passed")
    finally:
        proxy.close()
        a.stop()
    return "%s; push: %s" % (rpc_why, want.split(": ", 2)[2].split(";")[0])


CASES = [case_https_wss, case_wrong_ca]


def main():
    return fault_main(__doc__, CASES, "hj-e2e-tls-", 10, 120, Ctx)


if __name__ == "__main__":
    sys.exit(main())
