#!/usr/bin/env python3
"""hashjackd's push wake-up (issue 15; docs/OPERATION.md, "Push wake-up")
end to end, on anvil (a WebSocket, eth_subscribe newHeads) and on litecoind in
regtest (a waitfornewblock long poll on a connection of its own):

  evm_push / ltc_push / ganache_push
        poll_interval one hour, so that no poll comes in the case: five
        blocks mined one at a time each reach the card log: push did it
        ("push: on" logged after "caught up").  --check-config names push
        and its URL; the log says "push: on" once and nothing lost.
        ganache_push: the same on ganache 7.9.2 (tests/e2e/evm_node.py),
        which serves eth_subscribe newHeads on its HTTP port too.
  evm_node_restart / ltc_node_restart
        poll_interval one hour: the node stopped and started again on the
        same port with its chain (anvil by SIGTERM; litecoind flushed and
        killed, as a clean stop waits 30 s for idle connections, and with
        a new cookie): "push: lost" and "push: back" logged once each, and
        the next block reaches the log, by push.
  evm_dropped / ltc_dropped
        push_url through a TCP proxy (proxies.TcpProxy), poll_interval 200 ms:
        a block through it; then the proxy cuts the connection and refuses
        new ones: "push: lost" once, push tries again and is refused, and a
        block mined then still reaches the log, by polling (no connection
        got through); the proxy lets connections through again: "push:
        back" once, through the proxy, and the next block is logged.
  evm_push_off / ltc_push_off
        push = off with push_url at a TCP proxy: blocks by polling
        (poll_interval 200 ms), no connection ever made to the proxy, no
        "push:" line in the log; --check-config says "push: off".

    python3 tests/e2e/test_push.py --hashjack build/hashjack \\
        --hashjackd build/hashjackd [-k NAME] [--keep] [--timeout S]

Python 3 standard library only (the harness of tests/e2e/, checks.py).
Binds 127.0.0.1 only; every wait has a deadline, the whole run too.  One
line per case, then "N passed, M failed"; exit status 1 on failure.
"""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from btc_node import Litecoind, find_litecoind  # noqa: E402
from checks import (Failed, check, check_eq, fault_main, stderr_since,  # noqa: E402
                    stderr_size, tail_text, wait_log_height)
from daemon import Hashjackd, litecoind_daemon  # noqa: E402
from evm_node import Anvil, Ganache  # noqa: E402
from procs import wait_until  # noqa: E402
from proxies import TcpProxy  # noqa: E402

# Push alone brings blocks: polled every hour, so no poll comes in a case;
# the deadline only says "never came".
POLL_NEVER_MS = 3600000
PUSHED_S = 30.0


class Evm:
    name = "anvil"
    how = "eth_subscribe newHeads"
    min_bet, max_bet = 10 ** 15, 10 ** 18

    @staticmethod
    def node(ctx, tag):
        a = Anvil(workdir=os.path.join(ctx.workdir, "anvil-" + tag)).start()
        a.mine_empty(2)
        return a, a.account(1).address

    @staticmethod
    def mine(node):
        return int(node.mine()["number"], 16)

    @staticmethod
    def url(port):
        return "ws://127.0.0.1:%d" % port

    @staticmethod
    def restart(node):
        node.restart()  # SIGTERM (the chain written out), then started

    @classmethod
    def daemon(cls, ctx, node, dealer, tag, poll_ms, chain=None):
        return Hashjackd(ctx.hashjackd, node, dealer, cls.min_bet, cls.max_bet,
                         poll_interval_ms=poll_ms,
                         workdir=os.path.join(ctx.workdir, "dm-%s-%s" % (cls.name, tag)),
                         extra={"chain": chain} if chain else None)


class GanacheEvm(Evm):
    name = "ganache"

    @staticmethod
    def node(ctx, tag):
        g = Ganache(workdir=os.path.join(ctx.workdir, "ganache-" + tag)).start()
        g.mine_empty(2)
        return g, g.account(1).address


class Ltc:
    name = "litecoind"
    how = "waitfornewblock long poll"
    min_bet, max_bet = 10000, 10 ** 9

    @staticmethod
    def node(ctx, tag):
        n = Litecoind(workdir=os.path.join(ctx.workdir, "ltc-" + tag)).start()
        n.mine(2)
        return n, n.fresh_address()

    @staticmethod
    def mine(node):
        node.mine(1)
        return node.height()

    @staticmethod
    def url(port):
        return "http://127.0.0.1:%d" % port

    @staticmethod
    def restart(node):
        # Flushed, then kill -9 and started: the same chain, a new cookie.
        # Not a clean stop: litecoind's stops wait up to -rpcservertimeout
        # (30 s) for an idle keep-alive connection, here the daemon's node
        # client with nothing to ask for 60 s (push off does the same).
        node.flush()
        node.restart(kill=True)

    @classmethod
    def daemon(cls, ctx, node, dealer, tag, poll_ms, chain=None):
        return litecoind_daemon(ctx.hashjackd, node, dealer, cls.min_bet, cls.max_bet,
                                poll_interval_ms=poll_ms,
                                workdir=os.path.join(ctx.workdir, "dm-%s-%s" % (cls.name, tag)),
                                extra={"chain": chain} if chain else None)


class Ctx:
    def __init__(self, hashjack, hashjackd, workdir, seed):
        self.hashjack = hashjack
        self.hashjackd = hashjackd
        self.workdir = workdir
        self.seed = seed


# --------------------------------------------------------------------------

def wait_text(dm, text, timeout, offset=0):
    """Until dm's stderr after offset holds text (Failed when the daemon
    exits or the deadline passes); returns the time it was seen."""
    def seen():
        if not dm.running():
            raise Failed("hashjackd exited with %s:\n%s"
                         % (dm.proc.returncode, tail_text(dm.stderr(), 10)))
        return text in stderr_since(dm, offset)
    try:
        wait_until(seen, timeout, repr(text))
    except TimeoutError as e:
        raise Failed("%s; stderr:\n%s" % (e, tail_text(stderr_since(dm, offset), 12)))
    return time.monotonic()


def started(dm):
    """Starts dm and waits until it follows with push on, which comes
    after it has caught up."""
    dm.start()
    wait_text(dm, "caught up", 30)
    wait_text(dm, "push: on: ", 30)
    err = dm.stderr()
    check(err.index("caught up") < err.index("push: on: "),
          "push on before the catch-up ended:\n%s" % tail_text(err, 8))


def block_within(fam, node, dm, limit):
    """Mines one block; its line must reach the card log within limit
    seconds of the mining call (the call included: the harness's mine()
    asks the node again after the block).  Returns (height, seconds)."""
    t = time.monotonic()
    h = fam.mine(node)
    try:
        wait_log_height(dm, h, timeout=limit)
    except Failed as e:
        raise Failed("block %d not logged within %.1f s: %s" % (h, limit, e))
    return h, time.monotonic() - t


def once(dm, offset, text):
    n = stderr_since(dm, offset).count(text)
    check_eq(n, 1, "%r lines logged" % text)


def config_says(dm, want):
    rc, out, err = dm.check_config()
    check_eq(rc, 0, "--check-config exit status (%s)" % err.strip())
    check(want in out, "--check-config does not say %r:\n%s" % (want, out))


# --------------------------------------------------------------------------

def push_case(ctx, fam):
    node, dealer = fam.node(ctx, "push")
    try:
        dm = fam.daemon(ctx, node, dealer, "push", POLL_NEVER_MS)
        config_says(dm, "push: on, %s (%s), polling stays" % (fam.url(node.port), fam.how))
        started(dm)
        lat = [block_within(fam, node, dm, PUSHED_S)[1] for _ in range(5)]
        err = dm.stderr()
        check_eq(err.count("push: on: "), 1, "'push: on' lines")
        check("push: lost" not in err and "push: unavailable" not in err,
              "push was lost:\n%s" % tail_text(err, 8))
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
    finally:
        node.stop()
    return "5 blocks by push, %.0f to %.0f ms from mined to logged (poll every hour)" % (
        min(lat) * 1000, max(lat) * 1000)


def restart_case(ctx, fam):
    node, dealer = fam.node(ctx, "restart")
    try:
        dm = fam.daemon(ctx, node, dealer, "restart", POLL_NEVER_MS)
        started(dm)
        block_within(fam, node, dm, PUSHED_S)
        off = stderr_size(dm)
        port = node.port
        fam.restart(node)
        check_eq(node.port, port, "the node's port after its restart")
        wait_text(dm, "push: lost: ", 20, off)
        wait_text(dm, "push: back: ", 40, off)
        h, lat = block_within(fam, node, dm, PUSHED_S)
        once(dm, off, "push: lost: ")
        once(dm, off, "push: back: ")
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
    finally:
        node.stop()
    return "lost and back once each; block %d by push %.0f ms after it was mined" % (
        h, lat * 1000)


def dropped_case(ctx, fam):
    node, dealer = fam.node(ctx, "dropped")
    proxy = TcpProxy(node.port)
    try:
        dm = fam.daemon(ctx, node, dealer, "dropped", 200,
                        {"push_url": fam.url(proxy.port)})
        config_says(dm, "push: on, %s (%s)" % (fam.url(proxy.port), fam.how))
        started(dm)
        check(proxy.passed >= 1, "push did not connect through the proxy")
        block_within(fam, node, dm, PUSHED_S)
        # Cut, and nothing through: push is lost, tries again, is refused,
        # and polling goes on.
        off = stderr_size(dm)
        proxy.refuse(True)
        proxy.cut()
        passed = proxy.passed
        wait_text(dm, "push: lost: ", 20, off)
        wait_until(lambda: proxy.accepted > passed, 30,
                   "push to try again while the proxy refuses")
        h1, lat1 = block_within(fam, node, dm, PUSHED_S)
        check_eq(proxy.passed, passed, "connections through the proxy while it refused")
        # Through again (after push's backoff, at most 30 s): back.
        proxy.refuse(False)
        wait_text(dm, "push: back: ", 60, off)
        check(proxy.passed > passed, "push back without a connection through the proxy")
        h2, lat2 = block_within(fam, node, dm, PUSHED_S)
        once(dm, off, "push: lost: ")
        once(dm, off, "push: back: ")
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
    finally:
        proxy.close()
        node.stop()
    return ("cut: refused %d times, block %d by polling (%.0f ms); back through the proxy, "
            "block %d (%.0f ms)" % (proxy.accepted - proxy.passed, h1, lat1 * 1000, h2,
                                     lat2 * 1000))


def off_case(ctx, fam):
    node, dealer = fam.node(ctx, "off")
    proxy = TcpProxy(node.port)
    try:
        dm = fam.daemon(ctx, node, dealer, "off", 200,
                        {"push": "off", "push_url": fam.url(proxy.port)})
        config_says(dm, "push: off")
        dm.start()
        wait_text(dm, "caught up", 30)
        lat = [block_within(fam, node, dm, 10)[1] for _ in range(3)]
        check_eq(proxy.accepted, 0, "connections made to push_url with push = off")
        check("push:" not in dm.stderr(), "a push line with push = off:\n%s"
              % tail_text(dm.stderr(), 8))
        check_eq(dm.stop(), 0, "exit status on SIGTERM")
    finally:
        proxy.close()
        node.stop()
    return "3 blocks by polling (%.0f to %.0f ms), no connection to push_url" % (
        min(lat) * 1000, max(lat) * 1000)


def case_evm_push(ctx):
    return push_case(ctx, Evm)


def case_evm_node_restart(ctx):
    return restart_case(ctx, Evm)


def case_evm_dropped(ctx):
    return dropped_case(ctx, Evm)


def case_evm_push_off(ctx):
    return off_case(ctx, Evm)


def case_ganache_push(ctx):
    return push_case(ctx, GanacheEvm)


def case_ltc_push(ctx):
    return push_case(ctx, Ltc)


def case_ltc_node_restart(ctx):
    return restart_case(ctx, Ltc)


def case_ltc_dropped(ctx):
    return dropped_case(ctx, Ltc)


def case_ltc_push_off(ctx):
    return off_case(ctx, Ltc)


CASES = [case_evm_push, case_evm_node_restart, case_evm_dropped, case_evm_push_off,
         case_ganache_push, case_ltc_push, case_ltc_node_restart, case_ltc_dropped, case_ltc_push_off]


def main():
    return fault_main(__doc__, CASES, "hj-e2e-push-", 18, 600, Ctx, find_litecoind)


if __name__ == "__main__":
    sys.exit(main())
