"""End-to-end harness for hashjack against a real EVM node (anvil).

Python 3, standard library only.  What it gives a test:

- Anvil: starts anvil (from node_modules, see package.json) on 127.0.0.1 with
  blocks mined on demand; stop / kill / pause (SIGSTOP) / resume (SIGCONT);
  restart keeping the chain (``--state FILE``: anvil dumps its chain on
  SIGTERM and loads it on start; block hashes, transactions and receipts
  survive); the dev accounts and keys as anvil prints them (``--config-out``);
  JSON-RPC calls; transactions sent with ``cast send --async``; a transaction
  that is included but fails (``reverting()``); mining a block holding
  exactly the expected pending transactions; grinding a block for a wanted
  card; exporting blocks as a ``hashjack replay`` document.
- card_of(): docs/PROTOCOL.md section 2 in Python (the same object as the
  log's ``card``).
- replay(): runs ``hashjack replay`` and returns the parsed log lines;
  replay_rules(): a replay document's "rules".
- read_cardlog(), wait_until(), close_all(): reading a card log; polling
  with a deadline; closing several things, each even when one fails.
- CardLogPlayers, LogPlayer: the loop of simulated players that act on what
  a card log says while blocks are mined (the fault tests' sessions derive
  from it).
- Hashjackd: runs the daemon with a generated config in a temporary directory.
- verify(), VerifyFollower: `hashjack verify` once, and `--follow` beside
  a test that reads its progress line and its failures as they come.
- Serve, WsClient: `hashjack serve` on a Hashjackd's config (a free port on
  127.0.0.1, [serve] keys on its command line), HTTP requests to it, and
  WebSocket clients of its stream (Debian's python3-websocket, imported
  only by them).
- NotifySocket: systemd's notify protocol read by a test (the STATUS= lines
  hashjackd sends to $NOTIFY_SOCKET).
- RpcProxy: a JSON-RPC proxy between hashjackd and its node (anvil or
  litecoind) that can swallow a method's calls or lose their answers, and
  whose subclasses may rewrite answers.
- TcpProxy: a plain TCP relay to a node's port that can cut every
  connection it carries and refuse new ones (hashjackd's push wake-up:
  a dropped WebSocket or long poll), and counts the connections made.

Things about anvil 1.7.1 this relies on (tests/e2e/test_harness.py checks
each of them):

- ``evm_revert`` does NOT give the transactions of the reverted blocks back to
  the mempool: they are gone.  grind() therefore keeps the signed bytes of
  every transaction of the block (``eth_getRawTransactionByHash``) and sends
  them again after each revert; the hashes stay the same.
- Mining the same transactions with the same timestamp after a revert gives a
  different block hash anyway (the base fee is not reverted), but grind()
  varies the timestamp too.
- ``cast send`` takes the nonce from the latest block, so two pending
  transactions of one account collide; send() passes ``--nonce`` from
  ``eth_getTransactionCount(addr, "pending")``.
- ``anvil_reorg(depth, [[tx, i], ...])`` replaces the last ``depth`` blocks by
  as many new ones (the tip height stays); the transactions of the replaced
  blocks are dropped (not back in the mempool); the listed transactions (raw
  signed hex, or a request object that anvil signs) go into the new block
  ``tip - depth + 1 + i``.
- A void block cannot be ground: the chance that a hash has no rank digit is
  (3/16)^63.  Void blocks are tested with replay documents instead.
"""

import atexit
import collections
import contextlib
import http.client
import http.server
import itertools
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Action payloads (docs/PROTOCOL.md section 11.2, EVM).
BET = "0x484a0101"
HIT = "0x484a0102"
STAND = "0x484a0103"
DOUBLE = "0x484a0104"
SPLIT = "0x484a0105"
SURRENDER = "0x484a0106"
PEEK = "0x484a010700"
PEEK_INSURED = "0x484a010701"
PAYLOADS = {"Bet": BET, "Hit": HIT, "Stand": STAND, "Double": DOUBLE,
            "Split": SPLIT, "Surrender": SURRENDER, "Peek": PEEK,
            "PeekInsured": PEEK_INSURED}

# The card log's format version, every line's "v" (docs/LOG.md): 2 since
# protocol v1.1 (the Peek's card is a "peek" event, "skip" events).
LOG_VERSION = 2

# Runtime code that reverts every call: PUSH1 0 PUSH1 0 REVERT.
REVERT_CODE = "0x60006000fd"

ETHER = 10 ** 18


class HarnessError(Exception):
    pass


class RpcError(HarnessError):
    def __init__(self, method, error):
        super().__init__("%s: %s" % (method, error))
        self.method = method
        self.error = error


# --------------------------------------------------------------------------
# Tools, processes, cleanup

def find_tool(name):
    """anvil or cast: $HJ_ANVIL / $HJ_CAST, else node_modules, else PATH."""
    env = os.environ.get("HJ_" + name.upper())
    if env:
        return env
    p = os.path.join(ROOT, "node_modules", "@foundry-rs",
                     name + "-linux-amd64", "bin", name)
    if os.access(p, os.X_OK):
        return p
    w = shutil.which(name)
    if w:
        return w
    raise HarnessError("%s not found: run scripts/deps.sh (it runs npm ci in %s)"
                       % (name, ROOT))


_children = []          # Popen objects to kill at exit
_exit_hooks = []        # callables run after that (also on a signal)
_cleanup_installed = False


def add_exit_hook(fn):
    """fn() runs at exit, after the children are killed, also when a signal
    or the overall deadline ends the run (e.g. removing a temp directory)."""
    _exit_hooks.append(fn)


def _run_exit_hooks():
    while _exit_hooks:
        try:
            _exit_hooks.pop()()
        except Exception:
            pass


def _track(proc):
    _children.append(proc)
    return proc


def _untrack(proc):
    if proc in _children:
        _children.remove(proc)


def kill_children():
    """Kills every process this module started that is still running."""
    for p in list(_children):
        try:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGCONT)  # a paused one too
                except OSError:
                    pass
                p.kill()
                p.wait(timeout=10)
        except Exception:
            pass
        _untrack(p)


# at exit: first the children are killed, then the hooks run (LIFO order)
atexit.register(_run_exit_hooks)
atexit.register(kill_children)


def _own_tempdir(prefix):
    """A temporary directory removed at exit (kept when $HJ_KEEP is set)."""
    d = tempfile.mkdtemp(prefix=prefix)
    if not os.environ.get("HJ_KEEP"):
        add_exit_hook(lambda: shutil.rmtree(d, ignore_errors=True))
    return d


def game_args(doc, timeout, add=None):
    """The command line every game suite takes (--hashjack, --hashjackd,
    -k NAME, --keep, --timeout S), plus what add(parser) adds; parses it,
    installs the cleanup with the run's deadline and returns the args."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--hashjack", help="the hashjack tool (default build/release/hashjack)")
    ap.add_argument("--hashjackd", help="hashjackd (default build/release/hashjackd)")
    ap.add_argument("-k", dest="only", action="append", default=[],
                    help="only scenarios whose name contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--timeout", type=int, default=timeout,
                    help="deadline for the whole run in seconds (default %d)" % timeout)
    if add:
        add(ap)
    args = ap.parse_args()
    install_cleanup(args.timeout)
    return args


def install_cleanup(overall_timeout=None):
    """SIGINT/SIGTERM/SIGHUP handlers that kill every started process and run
    the exit hooks (atexit does the same at a normal exit); with
    overall_timeout, SIGALRM ends the whole run after that many seconds (exit
    status 124)."""
    global _cleanup_installed
    if not _cleanup_installed:
        def on_signal(signum, _frame):
            kill_children()
            _run_exit_hooks()
            sys.stderr.write("hj: stopped by signal %d\n" % signum)
            os._exit(128 + signum)

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, on_signal)
        _cleanup_installed = True
    if overall_timeout:
        def on_alarm(_signum, _frame):
            kill_children()
            _run_exit_hooks()
            sys.stderr.write("hj: overall deadline of %ss exceeded\n" % overall_timeout)
            sys.stderr.flush()
            os._exit(124)
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(int(overall_timeout))


def close_all(*fns):
    """Calls each of fns in turn (None is passed over), every one of them
    even when one raises; then raises the first error, if any (a session's
    close(): the daemon, the node, a socket, a proxy)."""
    err = None
    for fn in fns:
        if fn is None:
            continue
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - the rest must close too
            err = err or e
    if err is not None:
        raise err


def wait_until(pred, timeout, what="condition", interval=0.02):
    """Polls pred() until it returns a true value (returned) or the deadline
    passes (TimeoutError naming `what`)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise TimeoutError("timed out after %.1fs waiting for %s" % (timeout, what))
        time.sleep(interval)


def all_threads_stopped(pid):
    """Whether every thread of pid is in state T (stopped by a signal), as
    /proc/PID/task/*/stat says."""
    task = "/proc/%d/task" % pid
    for tid in os.listdir(task):
        try:
            with open(os.path.join(task, tid, "stat")) as f:
                stat = f.read()
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
        if stat[stat.rindex(")") + 2] not in "Tt":
            return False
    return True


def _tail(path, n=30):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n:])
    except OSError:
        return "(no %s)" % path


def _stop_process(proc, sig, timeout):
    """Sends sig, waits up to timeout, then SIGKILL.  Returns the exit code
    (None for a process never started)."""
    if proc is None:
        return None
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGCONT)
            os.kill(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    _untrack(proc)
    return proc.returncode


# --------------------------------------------------------------------------
# Cards (docs/PROTOCOL.md section 2)

_QUALIFIED = "123456789abcd"
_RANKS = {"1": "A", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7",
          "8": "8", "9": "9", "a": "10", "b": "J", "c": "Q", "d": "K"}
SUITS = ("Clubs", "Diamonds", "Hearts", "Spades")


def card_of(block_hash):
    """The card of a block hash as the log's "card" object (same keys, same
    order), or None for a void block."""
    d = block_hash[2:] if block_hash.startswith("0x") else block_hash
    d = d.lower()
    if len(d) != 64 or any(c not in "0123456789abcdef" for c in d):
        raise ValueError("not a 32-byte hash: %r" % block_hash)
    for i in range(63, 0, -1):
        if d[i] in _QUALIFIED:
            rank = _RANKS[d[i]]
            suit = SUITS[int(d[i - 1], 16) % 4]
            value = 1 if rank == "A" else 10 if rank in ("10", "J", "Q", "K") else int(rank)
            return {"rank": rank, "suit": suit, "value": value,
                    "code": rank + suit[0], "pos": i, "rankDigit": d[i],
                    "colorDigit": d[i - 1]}
    return None


def card_matcher(want):
    """A predicate over card_of() results.  want is:
    "void"; "any" (any non-void card); a rank "A" "2".."10" "J" "Q" "K";
    a code "9H", "10S" (rank and suit); "T" (any 10-valued card); an int
    value 1..10 (1 = Ace, 10 = any 10-valued); a list of those (any of);
    or a callable taking the card (None when void)."""
    if callable(want):
        return want
    if isinstance(want, (list, tuple, set)):
        ms = [card_matcher(w) for w in want]
        return lambda c: any(m(c) for m in ms)
    if want == "void":
        return lambda c: c is None
    if want == "any":
        return lambda c: c is not None
    if isinstance(want, int):
        return lambda c: c is not None and c["value"] == want
    if want == "T":
        return lambda c: c is not None and c["value"] == 10
    if want in _RANKS.values():
        return lambda c: c is not None and c["rank"] == want
    m = re.fullmatch(r"(A|[2-9]|10|J|Q|K)([CDHS])", want or "")
    if m:
        return lambda c: c is not None and c["code"] == want
    raise ValueError("bad card wish %r" % (want,))


# --------------------------------------------------------------------------
# JSON-RPC batches and replay documents (anvil and litecoind alike)

def batch_results(calls, resp, base):
    """The results of a JSON-RPC batch reply resp (in any order) to calls
    [(method, params)] sent with ids base, base + 1, ...; RpcError for the
    first call that failed."""
    by_id = {x["id"]: x for x in resp}
    out = []
    for i, (m, _) in enumerate(calls):
        x = by_id[base + i]
        if x.get("error"):
            raise RpcError(m, x["error"])
        out.append(x.get("result"))
    return out


def replay_rules(min_bet, max_bet, timeout_blocks=None, preset=None, keys=None):
    """The "rules" of a `hashjack replay` document: the bets as decimal
    strings; preset and timeout_blocks left out when None; keys: rule keys
    over the preset's ({"perfect_pairs": "25,12,5", ...}, docs/CONFIG.md),
    each written as text."""
    rules = {}
    if preset is not None:
        rules["preset"] = preset
    rules["min_bet"] = str(min_bet)
    rules["max_bet"] = str(max_bet)
    if timeout_blocks is not None:
        rules["timeout_blocks"] = timeout_blocks
    for k, v in (keys or {}).items():
        rules[k] = str(v)
    return rules


# --------------------------------------------------------------------------
# anvil

def _hex(n):
    return hex(n)


def _int(h):
    return int(h, 16)


class Account:
    def __init__(self, index, address, key):
        self.index = index
        self.address = address.lower()
        self.key = key

    def __repr__(self):
        return "Account(%d, %s)" % (self.index, self.address)


class Anvil:
    """One anvil process.  workdir holds its log, its config-out file and
    (when keep_state) the state file that survives restarts."""

    def __init__(self, workdir=None, mining=False, block_time=None, accounts=10,
                 keep_state=True, port=0, extra_args=(), timeout=30):
        self.workdir = workdir or _own_tempdir("hj-anvil-")
        os.makedirs(self.workdir, exist_ok=True)
        self.binary = find_tool("anvil")
        self.cast = find_tool("cast")
        self.mining = mining
        self.block_time = block_time
        self.n_accounts = accounts
        self.state_file = os.path.join(self.workdir, "state.json") if keep_state else None
        self.port = port
        self.extra_args = list(extra_args)
        self.timeout = timeout
        self.proc = None
        self.accounts = []
        self.chain_id = None
        self.log_path = os.path.join(self.workdir, "anvil.log")
        self.raw = {}        # tx hash -> signed raw transaction (hex)
        self._id = 0
        self.starts = 0

    # -- process -----------------------------------------------------------

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self):
        if self.proc is not None and self.proc.poll() is None:
            raise HarnessError("anvil already running")
        cfg = os.path.join(self.workdir, "anvil-config.json")
        if os.path.exists(cfg):
            os.unlink(cfg)
        cmd = [self.binary, "--host", "127.0.0.1", "--port", str(self.port),
               "--accounts", str(self.n_accounts), "--order", "fifo",
               "--config-out", cfg]
        if self.block_time:
            cmd += ["--block-time", str(self.block_time)]
        elif not self.mining:
            cmd += ["--no-mining"]
        if self.state_file:
            cmd += ["--state", self.state_file]
        cmd += self.extra_args
        log = open(self.log_path, "ab")
        mark = log.tell()
        self.proc = _track(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT,
                                            start_new_session=True))
        log.close()

        def listening():
            if self.proc.poll() is not None:
                raise HarnessError("anvil exited with status %s:\n%s"
                                   % (self.proc.returncode, _tail(self.log_path)))
            with open(self.log_path, "rb") as f:
                f.seek(mark)
                m = re.search(rb"Listening on 127\.0\.0\.1:(\d+)", f.read())
            return m and int(m.group(1))

        self.port = wait_until(listening, self.timeout, "anvil to listen")

        def config():
            try:
                with open(cfg) as f:
                    return json.load(f)
            except (OSError, ValueError):
                return None

        c = wait_until(config, self.timeout, "anvil's --config-out file")
        self.accounts = [Account(i, a, k) for i, (a, k) in
                         enumerate(zip(c["available_accounts"], c["private_keys"]))]
        self.mnemonic = c.get("wallet", {}).get("mnemonic")
        wait_until(lambda: self._try_rpc("eth_chainId"), self.timeout, "anvil to answer")
        self.chain_id = _int(self.rpc("eth_chainId"))
        self.starts += 1
        return self

    def _try_rpc(self, method, *params):
        try:
            return self.rpc(method, *params, timeout=2) or True
        except (OSError, HarnessError):
            return None

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=20):
        """SIGTERM: anvil writes its state file (when keep_state), exits."""
        if self.proc is None:
            return None
        rc = _stop_process(self.proc, signal.SIGTERM, timeout)
        return rc

    def kill(self):
        """SIGKILL: no state is written; the chain since the last stop is lost."""
        if self.proc is None:
            return None
        return _stop_process(self.proc, signal.SIGKILL, 10)

    def pause(self):
        """SIGSTOP: the port stays open but nothing answers (requests time out).
        Returns once every thread of anvil is stopped: kill() only queues the
        signal, and a thread still running on the other core could answer
        one more request."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        wait_until(lambda: all_threads_stopped(self.proc.pid), 10, "anvil to stop (SIGSTOP)")

    def resume(self):
        os.kill(self.proc.pid, signal.SIGCONT)

    def restart(self, timeout=20):
        """Stops (state written) and starts again on the same port with the same
        chain: same blocks, hashes, transactions and receipts.  The mempool is
        not kept."""
        self.stop(timeout)
        return self.start()

    # -- JSON-RPC ------------------------------------------------------------

    def rpc(self, method, *params, timeout=15):
        self._id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method,
                           "params": list(params)}).encode()
        req = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            resp = json.load(r)
        if resp.get("error"):
            raise RpcError(method, resp["error"])
        return resp.get("result")

    def rpc_batch(self, calls, timeout=30):
        """calls: [(method, [params])]; returns the results in order."""
        if not calls:
            return []
        base = self._id + 1
        self._id += len(calls)
        body = json.dumps([{"jsonrpc": "2.0", "id": base + i, "method": m, "params": list(p)}
                           for i, (m, p) in enumerate(calls)]).encode()
        req = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            resp = json.load(r)
        return batch_results(calls, resp, base)

    def height(self):
        return _int(self.rpc("eth_blockNumber"))

    def block(self, n="latest", full=True):
        b = self.rpc("eth_getBlockByNumber", n if isinstance(n, str) else _hex(n), full)
        if b is None:
            raise HarnessError("no block %s" % n)
        return b

    def receipt(self, tx):
        return self.rpc("eth_getTransactionReceipt", tx)

    def pending(self):
        """Hashes of the transactions in the mempool (txpool_content)."""
        c = self.rpc("txpool_content")
        out = []
        for by_nonce in c.get("pending", {}).values():
            for t in by_nonce.values():
                out.append(t["hash"])
        return out

    def balance(self, addr):
        return _int(self.rpc("eth_getBalance", addr, "latest"))

    def account(self, i):
        return self.accounts[i]

    # -- transactions --------------------------------------------------------

    def send(self, sender, to, data="0x", value=0, gas_limit=None, timeout=30):
        """Signs and sends with `cast send --async` from sender (an Account or
        an index); returns the transaction hash.  The nonce is the account's
        pending count, so several transactions of one account can wait in the
        mempool together."""
        acct = sender if isinstance(sender, Account) else self.accounts[sender]
        nonce = _int(self.rpc("eth_getTransactionCount", acct.address, "pending"))
        cmd = [self.cast, "send", "--async", "--rpc-url", self.url,
               "--private-key", acct.key, "--nonce", str(nonce)]
        if gas_limit is not None:
            cmd += ["--gas-limit", str(gas_limit)]
        cmd += [to, data, "--value", str(value)]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout)
        out = r.stdout.strip().splitlines()
        if r.returncode != 0 or not out or not re.fullmatch(r"0x[0-9a-f]{64}", out[-1]):
            raise HarnessError("cast send failed (%s): %s %s"
                               % (r.returncode, r.stderr.strip(), r.stdout.strip()))
        h = out[-1]
        self.raw[h] = self.rpc("eth_getRawTransactionByHash", h)
        return h

    def send_raw(self, raw):
        return self.rpc("eth_sendRawTransaction", raw)

    @contextlib.contextmanager
    def reverting(self, address, only_from=None):
        """While inside, `address` holds code that reverts, so a transaction to
        it is included with receipt status 0 (send it with an explicit
        gas_limit: cast cannot estimate a reverting call).  With only_from
        (an address) only that sender's calls revert; others succeed.  The
        previous code is put back on exit.  Mine inside the block."""
        before = self.rpc("eth_getCode", address, "latest")
        if only_from:
            a = only_from.address if isinstance(only_from, Account) else only_from
            a = a.lower()[2:]
            # CALLER PUSH20 a EQ PUSH1 27 JUMPI STOP JUMPDEST PUSH1 0 PUSH1 0 REVERT
            code = "0x33" + "73" + a + "14" + "601b" + "57" + "00" + "5b" + "60006000fd"
        else:
            code = REVERT_CODE
        self.rpc("anvil_setCode", address, code)
        try:
            yield
        finally:
            self.rpc("anvil_setCode", address, before)

    # -- mining --------------------------------------------------------------

    def mine(self, expect=None, timestamp=None):
        """Mines one block with every pending transaction (anvil's fifo order:
        the order they were sent).  With expect (a list of tx hashes) checks
        that the block holds exactly those, in that order.  Returns the block
        (with full transactions)."""
        if expect is not None:
            self._check_pool(expect)
        n = self.height() + 1
        if timestamp is None:
            self.rpc("evm_mine")
        else:
            self.rpc("evm_mine", {"timestamp": timestamp})
        b = self.block(n)
        if expect is not None:
            got = [t["hash"] for t in b["transactions"]]
            if got != list(expect):
                raise HarnessError("block %d holds %s, expected %s" % (n, got, list(expect)))
        return b

    def _check_pool(self, expect):
        pool = self.pending()
        if sorted(pool) != sorted(expect):
            raise HarnessError("mempool holds %s, expected %s (nothing mined)"
                               % (pool, list(expect)))

    def mine_empty(self, count=1):
        """Mines count blocks at once (anvil_mine); the first takes the pending
        transactions, if any."""
        self.rpc("anvil_mine", _hex(count))
        return self.height()

    def grind(self, want, expect=None, max_tries=3000):
        """Mines the next block again and again until its card matches `want`
        (see card_matcher): evm_snapshot, mine with a chosen timestamp, look at
        the hash, evm_revert and retry with the next timestamp.  The block's
        pending transactions survive: evm_revert drops them from the node, so
        their signed bytes are sent again, in the same order, before each
        retry.  With expect, the block must hold exactly those transactions.
        Returns (block, tries)."""
        match = card_matcher(want)
        if expect is not None:
            self._check_pool(expect)
        parent = self.block("latest", full=False)
        n = _int(parent["number"]) + 1
        ts0 = _int(parent["timestamp"]) + 1
        raws = None
        for k in range(max_tries):
            snap = self.rpc("evm_snapshot")
            self.rpc("evm_mine", {"timestamp": ts0 + k})
            b = self.block(n)
            hashes = [t["hash"] for t in b["transactions"]]
            if raws is None:
                raws = []
                for h in hashes:
                    r = self.raw.get(h) or self.rpc("eth_getRawTransactionByHash", h)
                    self.raw[h] = r
                    raws.append(r)
                if expect is not None and hashes != list(expect):
                    raise HarnessError("block %d holds %s, expected %s" % (n, hashes, list(expect)))
            if match(card_of(b["hash"])):
                return b, k + 1
            if not self.rpc("evm_revert", snap):
                raise HarnessError("evm_revert %s refused" % snap)
            if self.height() != n - 1:
                raise HarnessError("evm_revert left the tip at %d" % self.height())
            for h, r in zip(hashes, raws):
                got = self.send_raw(r)
                if got != h:
                    raise HarnessError("re-sent %s came back as %s" % (h, got))
        raise HarnessError("no block with card %r after %d tries" % (want, max_tries))

    def reorg(self, depth, txs=()):
        """anvil_reorg: replaces the last depth blocks by as many new ones; txs
        is [(raw_hex_or_request_object, i)], tx going into block
        tip - depth + 1 + i.  Checks that every replaced block really has a
        new hash: once the base fee has sunk to its floor (7 wei, after ~90
        blocks) anvil rebuilds an empty block byte for byte and the "reorg"
        changes nothing, so the first new block is given another base fee
        (anvil_setNextBlockBaseFeePerGas).  Returns {height: (old, new hash)}."""
        tip = self.height()
        first = tip - depth + 1
        old = {n: self.block(n, False) for n in range(first, tip + 1)}
        self.rpc("anvil_setNextBlockBaseFeePerGas", _hex(_int(old[first]["baseFeePerGas"]) + 1))
        self.rpc("anvil_reorg", depth, [[t, i] for t, i in txs])
        out = {}
        for n in range(first, tip + 1):
            new = self.block(n, False)["hash"]
            if new == old[n]["hash"]:
                raise HarnessError("anvil_reorg(%d) left block %d as it was" % (depth, n))
            out[n] = (old[n]["hash"], new)
        if self.height() != tip:
            raise HarnessError("anvil_reorg moved the tip from %d to %d" % (tip, self.height()))
        return out

    # -- export ---------------------------------------------------------------

    def export(self, first, last, dealer, min_bet, max_bet, timeout_blocks=None,
               preset=None, keys=None):
        """Blocks first..last as a `hashjack replay` document (docs/CLI.md):
        every transaction of each block, lower-case, value in decimal, and the
        receipt status of each transaction to the dealer; keys: rule keys
        over the preset's (replay_rules)."""
        dealer = dealer.lower()
        rules = replay_rules(min_bet, max_bet, timeout_blocks, preset, keys)
        blocks = []
        heights = list(range(first, last + 1))
        for i in range(0, len(heights), 100):
            chunk = heights[i:i + 100]
            got = self.rpc_batch([("eth_getBlockByNumber", [_hex(h), True]) for h in chunk])
            for h, b in zip(chunk, got):
                if b is None:
                    raise HarnessError("no block %d" % h)
                txs = []
                need = []
                for t in b["transactions"]:
                    to = t.get("to")
                    x = {"hash": t["hash"].lower(), "from": t["from"].lower(),
                         "to": to.lower() if to else None,
                         "value": str(_int(t["value"])),
                         "input": (t.get("input") or t.get("data") or "0x").lower()}
                    if to and to.lower() == dealer:
                        need.append(x)
                    txs.append(x)
                if need:
                    recs = self.rpc_batch([("eth_getTransactionReceipt", [x["hash"]]) for x in need])
                    for x, r in zip(need, recs):
                        if r is None:
                            raise HarnessError("no receipt for %s" % x["hash"])
                        x["status"] = "0x1" if _int(r["status"]) == 1 else "0x0"
                blocks.append({"height": _int(b["number"]), "hash": b["hash"].lower(),
                               "parent": b["parentHash"].lower(), "txs": txs})
        return {"chain": "evm", "dealer": dealer, "rules": rules, "blocks": blocks}


# --------------------------------------------------------------------------
# hashjack replay, card logs

def find_hashjack(path=None):
    for p in (path, os.environ.get("HJ_HASHJACK"),
              os.path.join(ROOT, "build", "release", "hashjack")):
        if p and os.access(p, os.X_OK):
            return p
    raise HarnessError("hashjack not found: pass --hashjack PATH")


def replay(doc, hashjack, workdir=None):
    """Runs `hashjack replay` on doc; returns (parsed lines, raw text)."""
    fd, path = tempfile.mkstemp(prefix="hj-replay-", suffix=".json", dir=workdir)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    try:
        r = subprocess.run([hashjack, "replay", path], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        raise HarnessError("hashjack replay exited %d: %s"
                           % (r.returncode, r.stderr.decode("utf-8", "replace").strip()))
    text = r.stdout.decode()
    return [json.loads(l) for l in text.splitlines()], text


def read_cardlog(path, raw=False):
    """The complete lines of a card log (a last line without its newline is
    not complete yet and is left out).  Parsed dicts, or the raw bytes of
    the complete part with raw=True."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return b"" if raw else []
    end = data.rfind(b"\n") + 1
    if raw:
        return data[:end]
    return [json.loads(l) for l in data[:end].splitlines()]


class CardLogTail:
    """Incremental reader: new complete lines since the last call.  Across a
    logrotate-style move the moved file is read to its end before the new
    one (the daemon writes no more to the old file once it reopened); a
    file that shrinks (cut back on a restart) is read again from the top.
    strict: a line that is not JSON raises instead of being skipped."""

    def __init__(self, path, strict=False):
        self.path = path
        self.strict = strict
        self.f = None
        self.buf = b""

    def read(self):
        if self.f is None:
            try:
                self.f = open(self.path, "rb")
            except FileNotFoundError:
                return []
        while True:
            if os.fstat(self.f.fileno()).st_size < self.f.tell():
                self.f.seek(0)
                self.buf = b""
            self.buf += self.f.read()
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                break
            if st.st_ino == os.fstat(self.f.fileno()).st_ino:
                break
            self.buf += self.f.read()
            self.f.close()
            self.f = open(self.path, "rb")
        end = self.buf.rfind(b"\n") + 1
        lines, self.buf = self.buf[:end], self.buf[end:]
        out = []
        for l in lines.splitlines():
            try:
                out.append(json.loads(l))
            except ValueError:
                if self.strict:
                    raise
        return out

    def close(self):
        if self.f:
            self.f.close()
            self.f = None


def last_logged_height(path):
    """The height of the last complete line of a card log, reading only its
    tail (cheap for big logs); None when there is none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 65536))
            tail = f.read()
    except FileNotFoundError:
        return None
    end = tail.rfind(b"\n")
    if end < 0:
        return None
    start = tail.rfind(b"\n", 0, end) + 1
    m = re.match(rb'\{"v":%d,"chain":"[a-z0-9-]+","height":(\d+),' % LOG_VERSION,
                 tail[start:end])
    return int(m.group(1)) if m else None


class LogPlayer:
    """What a player of CardLogPlayers knows from the log: its open round,
    its first hand's cards, the dealer's, its stake, whether it peeked,
    from which height it may act (ready_at) or bet again (next_bet_at);
    what it sent and has not seen logged yet (pending, sent at pending_h);
    whether it leaves this round to time out (lazy) or acts too early
    (premature)."""

    def __init__(self):
        self.round = None
        self.cards = []
        self.dealer = []
        self.stake = 0
        self.peeked = False
        self.ready_at = None
        self.pending = None
        self.pending_h = 0
        self.next_bet_at = 0
        self.lazy = False
        self.premature = False


class CardLogPlayers:
    """Players that act on what a card log says, never on a card not yet
    logged: step() mines a block every `interval` seconds while `mining`
    (mine_block()), gives each new line of the log to feed(line) (which
    sets `height`) and, once a line was seen, lets each player decide(p).
    A subclass gives mine_block(), feed() and decide(); its players are
    LogPlayers."""

    def __init__(self, log_path, players, rng, interval=0.12, lazy=0.12):
        self.tail = CardLogTail(log_path, strict=True)
        self.players = players
        self.by_tx = {}
        self.by_round = {}
        self.rng = rng
        self.interval = interval
        self.lazy = lazy
        self.height = None
        self.next_mine = time.monotonic()
        self.mining = True
        self.betting = True
        self.sent = collections.Counter()

    def step(self):
        now = time.monotonic()
        if self.mining and now >= self.next_mine:
            self.mine_block()
            self.next_mine = max(self.next_mine + self.interval, now)
        for line in self.tail.read():
            self.feed(line)
        if self.height is not None:
            for p in self.players:
                self.decide(p)

    def run(self, seconds, until=None):
        """Steps for `seconds`, or until until() is true (returns True)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            if until and until():
                return True
            time.sleep(0.01)
        return False

    def pending_any(self):
        return any(p.pending for p in self.players)


class ReplayFollower:
    """A stand-in for the daemon's card log, for testing what reads it (the
    bot) before hashjackd exists: each update() exports the new confirmed
    blocks (tip - confirmations + 1 at most) and appends, one write per line,
    the lines `hashjack replay` prints for them.  Replays everything from
    `first` each time (a replay starts with no open rounds), so only for
    short runs; it assumes no reorganisation."""

    def __init__(self, anvil, hashjack, dealer, min_bet, max_bet, card_log, first,
                 confirmations=1, timeout_blocks=None):
        self.anvil = anvil
        self.hashjack = hashjack
        self.dealer = dealer.lower()
        self.rules = (min_bet, max_bet, timeout_blocks)
        self.card_log = card_log
        self.first = first
        self.confirmations = confirmations
        self.blocks = []
        self.written = 0

    def update(self):
        last = self.anvil.height() - self.confirmations + 1
        nxt = self.first + len(self.blocks)
        if last < nxt:
            return 0
        doc = self.anvil.export(nxt, last, self.dealer, *self.rules)
        self.blocks += doc["blocks"]
        doc["blocks"] = self.blocks
        lines, text = replay(doc, self.hashjack)
        raw = text.encode().splitlines(keepends=True)
        fd = os.open(self.card_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            for l in raw[self.written:]:
                os.write(fd, l)
        finally:
            os.close(fd)
        n = len(raw) - self.written
        self.written = len(raw)
        return n



# --------------------------------------------------------------------------
# hashjack verify (tests/e2e/test_verify.py, test_ltc_verify.py)

def verify(hashjack, conf, log, *args, timeout=120):
    """`hashjack verify -c CONF --card-log LOG ARGS`: (status, stdout,
    stderr)."""
    p = subprocess.run([hashjack, "verify", "-c", conf, "--card-log", log] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


class VerifyFollower:
    """`hashjack verify --follow` (--interval 50) with stderr on a pty (so
    that it shows the block verified) and stdout on a pipe (one line per
    failure), each read by a thread of its own."""

    def __init__(self, hashjack, conf, log, *args):
        import pty
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [hashjack, "verify", "-c", conf, "--card-log", log, "--follow",
             "--interval", "50"] + list(args),
            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, text=True)
        add_exit_hook(self.proc.kill)
        os.close(slave)
        self.err = ""
        self.out = ""
        self.lock = threading.Lock()

        def pump_err():
            while True:
                try:
                    b = os.read(master, 4096)
                except OSError:
                    break
                if not b:
                    break
                with self.lock:
                    self.err += b.decode(errors="replace")
            os.close(master)

        def pump_out():
            for line in self.proc.stdout:
                with self.lock:
                    self.out += line
        self.threads = [threading.Thread(target=f, daemon=True) for f in (pump_err, pump_out)]
        for t in self.threads:
            t.start()

    def verified(self):
        """The last block the progress line says verified (-1: none yet)."""
        with self.lock:
            got = re.findall(r"following: block (\d+) verified", self.err)
        return int(got[-1]) if got else -1

    def _wait(self, pred, timeout, what):
        """wait_until, saying what verify had written when it gave up."""
        try:
            wait_until(pred, timeout, what, interval=0.05)
        except TimeoutError as e:
            raise TimeoutError("%s (stderr then: %r, stdout then: %r)"
                               % (e, self.err[-600:], self.out[-300:])) from None

    def wait_verified(self, height, timeout=60):
        self._wait(lambda: self.verified() >= height, timeout,
                   "verify --follow at block %d" % height)

    def wait_err(self, words, timeout=30):
        self._wait(lambda: words in self.err, timeout, "%r on verify's stderr" % words)

    def wait_out(self, words, timeout=30):
        self._wait(lambda: words in self.out, timeout, "%r on verify's stdout" % words)

    def stop(self):
        """SIGTERM; returns the exit status once both pipes are read."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(30)
        for t in self.threads:
            t.join(10)
        return rc

# --------------------------------------------------------------------------
# hashjackd

def find_hashjackd(path=None):
    for p in (path, os.environ.get("HJ_HASHJACKD"),
              os.path.join(ROOT, "build", "release", "hashjackd")):
        if p and os.access(p, os.X_OK):
            return p
    raise HarnessError("hashjackd not found: pass its path")


class Hashjackd:
    """The daemon with a generated config in workdir (a temp dir by default)
    on an Anvil, or on any node with a daemon_chain() method giving its
    [chain] keys (tests/e2e/ltc.py's Litecoind: family = bitcoin):
    workdir/hashjackd.conf, workdir/state/ (its state directory, card log
    workdir/state/cards.jsonl), stderr in workdir/hashjackd.stderr."""

    def __init__(self, binary, anvil, dealer, min_bet, max_bet, timeout_blocks=None,
                 confirmations=1, poll_interval_ms=50, batch_blocks=None,
                 start_height=None, preset="bethash", workdir=None, extra=None,
                 overrides=(), metrics=False):
        self.binary = binary
        self.anvil = anvil      # the node: an Anvil, or ltc.Litecoind
        self.node = anvil
        self.workdir = workdir or _own_tempdir("hj-daemon-")
        self.state_dir = os.path.join(self.workdir, "state")
        os.makedirs(self.state_dir, exist_ok=True)
        self.card_log = os.path.join(self.state_dir, "cards.jsonl")
        self.conf = os.path.join(self.workdir, "hashjackd.conf")
        self.stderr_path = os.path.join(self.workdir, "hashjackd.stderr")
        self.overrides = list(overrides)
        self.dealer = dealer.lower()
        self.proc = None
        # A node other than anvil says what [chain] needs (family, url, auth).
        chain = dict(anvil.daemon_chain()) if hasattr(anvil, "daemon_chain") \
            else {"family": "evm", "rpc_url": anvil.url}
        chain.update(confirmations=confirmations, poll_interval_ms=poll_interval_ms,
                     batch_blocks=batch_blocks, start_height=start_height)
        sections = {
            "chain": chain,
            "dealer": {"address": self.dealer},
            "rules": {"preset": preset, "min_bet": min_bet, "max_bet": max_bet,
                      "timeout_blocks": timeout_blocks},
            "state": {"directory": self.state_dir, "card_log": self.card_log},
        }
        # [metrics] on a free port: metrics() reads the one taken
        self.metrics_on = metrics
        if metrics:
            sections["metrics"] = {"listen": "127.0.0.1:0"}
        self.starts = 0
        for sec, kv in (extra or {}).items():
            sections.setdefault(sec, {}).update(kv)
        with open(self.conf, "w") as f:
            f.write("# written by tests/e2e/hj.py\n")
            for sec, kv in sections.items():
                f.write("\n[%s]\n" % sec)
                for k, v in kv.items():
                    if v is not None:
                        f.write("%s = %s\n" % (k, v))

    def start(self, *args):
        if self.proc is not None and self.proc.poll() is None:
            raise HarnessError("hashjackd already running")
        err = open(self.stderr_path, "ab")
        self.starts += 1
        self.proc = _track(subprocess.Popen([self.binary, "-c", self.conf] + self.overrides
                                            + list(args),
                                            stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                            start_new_session=True))
        err.close()
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def check_config(self, *args, timeout=30):
        """`hashjackd -c CONF [overrides] --check-config ARGS`: (status, stdout, stderr)."""
        r = subprocess.run([self.binary, "-c", self.conf] + self.overrides
                           + ["--check-config"] + list(args),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def stop(self, timeout=5):
        """SIGTERM; returns the exit status (SIGKILL after timeout: -9)."""
        return _stop_process(self.proc, signal.SIGTERM, timeout)

    def close(self):
        """stop() if it is running (a session's end)."""
        if self.running():
            self.stop()

    def kill9(self):
        return _stop_process(self.proc, signal.SIGKILL, 10)

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError("hashjackd still running after %ss" % timeout)

    def lines(self):
        return read_cardlog(self.card_log)

    def log_bytes(self):
        return read_cardlog(self.card_log, raw=True)

    def last_height(self):
        return last_logged_height(self.card_log)

    def committed_height(self):
        """The last block the database holds as processed (its cursor), or
        None.  The card log line of a block is written before the commit of
        its database transaction, so the log may be ahead for a moment."""
        path = os.path.join(self.state_dir, "hashjackd.sqlite")
        if not os.path.exists(path):
            return None
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
            try:
                row = db.execute("SELECT height FROM cursor WHERE id = 1").fetchone()
            finally:
                db.close()
        except sqlite3.Error:
            return None
        return None if row is None or row[0] < 0 else row[0]

    def wait_height(self, h, timeout=30):
        """Until the card log has a line for height h and the database has
        committed it (or the daemon dies)."""
        def done():
            if not self.running():
                raise HarnessError("hashjackd exited with %s:\n%s"
                                   % (self.proc.returncode, _tail(self.stderr_path)))
            last = self.last_height()
            if last is None or last < h:
                return False
            db = self.committed_height()
            return db is not None and db >= h
        return wait_until(done, timeout, "hashjackd to log and commit height %d" % h)

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    METRICS_LISTENING = re.compile(r"metrics: listening on http://127\.0\.0\.1:(\d+)/")

    def metrics_url(self, timeout=30):
        """The running daemon's [metrics] listener (metrics=True): the port
        its last start logged."""
        def port():
            if not self.running():
                raise HarnessError("hashjackd is not running:\n%s" % _tail(self.stderr_path))
            found = self.METRICS_LISTENING.findall(self.stderr())
            return found and int(found[-1])
        return "http://127.0.0.1:%d" % wait_until(port, timeout, "the metrics listener")

    def metrics(self):
        """GET /metrics, parsed (parse_prometheus)."""
        with urllib.request.urlopen(self.metrics_url() + "/metrics", timeout=10) as r:
            return parse_prometheus(r.read().decode())


def parse_prometheus(text):
    """Prometheus text format: ({(name, frozenset of (label, value)): value},
    {family: type}, {family: help}).  A line it cannot read raises
    HarnessError."""
    samples, types, helps = {}, {}, {}
    sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
    label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, h = line[7:].partition(" ")
            helps[name] = h
        elif line.startswith("# TYPE "):
            name, _, t = line[7:].partition(" ")
            types[name] = t
        elif line and not line.startswith("#"):
            m = sample.match(line)
            if not m:
                raise HarnessError("not a Prometheus sample line: %r" % line)
            samples[(m.group(1), frozenset(label.findall(m.group(3) or "")))] = \
                float(m.group(4))
    return samples, types, helps


def metric(samples, name, **labels):
    """One sample's value (HarnessError when it is not there)."""
    key = (name, frozenset(labels.items()))
    if key not in samples:
        raise HarnessError("no sample %s%s" % (name, labels or ""))
    return samples[key]


# --------------------------------------------------------------------------
# hashjack serve: the read-only round API beside a daemon (docs/API.md)

class Serve:
    """`hashjack serve -c CONF` on a Hashjackd's config, listening on
    127.0.0.1 at a free port (read from its "listening on" line); keys are
    [serve] settings given as --serve.KEY=VALUE (max_age=1, ...).  Each
    start's stderr goes to a file of its own, workdir/serve-N.stderr (N
    counts the starts of every Serve of the run).  get(),
    json(), request() and raw() talk HTTP to it (a connection each);
    ws() opens a WebSocket (python3-websocket, Debian's websocket-client)
    read by a thread of its own, so that pings are answered."""

    LISTENING = re.compile(r"hashjack serve: listening on http://127\.0\.0\.1:(\d+)/")
    _runs = itertools.count(1)

    def __init__(self, hashjack, dm, workdir=None, **keys):
        self.hashjack = hashjack
        self.dm = dm
        self.workdir = workdir or dm.workdir
        self.keys = dict(keys)
        self.proc = None
        self.port = None
        self.starts = 0
        self.stderr_path = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, timeout=30, port=0):
        """Starts it on port (0: a free one; a restart may ask for the
        port it had, as a client reconnecting would find it)."""
        if self.running():
            raise HarnessError("hashjack serve already running")
        self.starts += 1
        self.stderr_path = os.path.join(self.workdir, "serve-%d.stderr" % next(Serve._runs))
        args = [self.hashjack, "serve", "-c", self.dm.conf,
                "--serve.listen=127.0.0.1:%d" % port]
        args += ["--serve.%s=%s" % kv for kv in self.keys.items()]
        err = open(self.stderr_path, "wb")
        self.proc = _track(subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err,
                                            stderr=err, start_new_session=True))
        err.close()

        def listening():
            if self.proc.poll() is not None:
                raise HarnessError("hashjack serve exited with %s:\n%s"
                                   % (self.proc.returncode, _tail(self.stderr_path)))
            m = self.LISTENING.search(self.stderr())
            return m and int(m.group(1))
        self.port = wait_until(listening, timeout, "hashjack serve to listen")
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=10):
        """SIGTERM; returns the exit status (0 when it stopped cleanly; -9
        when it had to be killed after timeout)."""
        return _stop_process(self.proc, signal.SIGTERM, timeout)

    def close(self):
        if self.running():
            self.stop()

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""

    # -- HTTP -----------------------------------------------------------------

    def request(self, method, path, headers=None, body=None, timeout=15):
        """One request on a new connection: (status, headers as a dict with
        lower-case names, body bytes)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body, headers or {})
            r = c.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            c.close()

    def get(self, path, timeout=15):
        """GET path: (status, body bytes)."""
        st, _, body = self.request("GET", path, timeout=timeout)
        return st, body

    def json(self, path, status=200):
        """GET path, parsed; HarnessError unless the status is `status`."""
        st, body = self.get(path)
        if st != status:
            raise HarnessError("GET %s: %d, expected %d: %s" % (path, st, status, body[:300]))
        return json.loads(body)

    def raw(self, data, timeout=10, limit=1 << 20):
        """Sends bytes on a new connection and reads until the server
        closes it (or `limit` bytes): what came back."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            if data:
                s.sendall(data)
            out = b""
            while len(out) < limit:
                try:
                    b = s.recv(65536)
                except ConnectionResetError:
                    break
                if not b:
                    break
                out += b
            return out

    def metrics(self):
        """/metrics as {"name{labels}": value}."""
        st, body = self.get("/metrics")
        if st != 200:
            raise HarnessError("/metrics: %d" % st)
        out = {}
        for l in body.decode().splitlines():
            if l and not l.startswith("#"):
                k, v = l.rsplit(" ", 1)
                out[k] = float(v)
        return out

    def height(self):
        """The last block it has read (/v1/table's lastBlock), or None."""
        st, body = self.get("/v1/table")
        return json.loads(body)["lastBlock"]["height"] if st == 200 else None

    def wait_height(self, h, timeout=30):
        return wait_until(lambda: (self.height() or -1) >= h, timeout,
                          "hashjack serve to read block %d" % h)

    # -- WebSocket ------------------------------------------------------------

    def ws(self, query="", timeout=15):
        """A WebSocket on /v1/stream?query, read by its own thread."""
        return WsClient("ws://127.0.0.1:%d/v1/stream%s" % (self.port, "?" + query if query else ""),
                        timeout)


class WsClient:
    """A WebSocket client (websocket-client) whose thread reads every
    message into msgs (parsed JSON, in order; text in raws) and answers
    pings, until the server closes (closed set) or close()."""

    def __init__(self, url, timeout=15):
        import websocket  # python3-websocket: only the serve suites need it
        self.url = url
        self.msgs = []
        self.raws = []
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.error = None
        self.ws = websocket.create_connection(url, timeout=timeout)
        self.ws.settimeout(None)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                m = self.ws.recv()
                if not m:          # a close frame
                    break
                with self.lock:
                    self.raws.append(m)
                    self.msgs.append(json.loads(m))
        except Exception as e:  # noqa: BLE001 - the connection ended
            self.error = e
        finally:
            self.closed.set()

    def send(self, obj):
        self.ws.send(obj if isinstance(obj, str) else json.dumps(obj))

    def messages(self):
        with self.lock:
            return list(self.msgs)

    def wait(self, pred, timeout=30, what="a WebSocket message"):
        """Until pred(messages) is true; returns its value."""
        return wait_until(lambda: pred(self.messages()), timeout, what)

    def wait_block(self, h, timeout=30):
        """Until the BlockUpdate of height h has come."""
        return self.wait(lambda ms: any(m.get("eventType") == "BlockUpdate" and m["height"] >= h
                                        for m in ms), timeout, "BlockUpdate %d" % h)

    def close(self):
        """The closing handshake (the thread reads the server's answer),
        then the socket is shut."""
        try:
            self.ws.send_close()
        except Exception:  # noqa: BLE001 - already closed
            pass
        self.closed.wait(3)
        try:
            self.ws.shutdown()
        except Exception:  # noqa: BLE001
            pass
        self.thread.join(5)


# --------------------------------------------------------------------------
# In front of hashjackd: systemd's notify socket, a JSON-RPC proxy

class NotifySocket:
    """A datagram socket in the role of systemd's $NOTIFY_SOCKET: keeps every
    STATUS= the daemon sends.  Read all the time by a thread, as systemd
    does: the daemon's sendto blocks once the socket's queue is full."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.statuses = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        while not self.stopping:
            try:
                msg = self.sock.recv(65536).decode("utf-8", "replace")
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                for line in msg.split("\n"):
                    if line.startswith("STATUS="):
                        self.statuses.append(line[7:])
                del self.statuses[:-1000]

    def start_daemon(self, dm, *args):
        """dm.start(*args) (a Hashjackd) with $NOTIFY_SOCKET naming this
        socket; the environment is put back after."""
        os.environ["NOTIFY_SOCKET"] = self.path
        try:
            dm.start(*args)
        finally:
            del os.environ["NOTIFY_SOCKET"]

    def read(self):
        with self.lock:
            return list(self.statuses)

    def close(self):
        self.stopping = True
        self.thread.join(5)
        self.sock.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


class RpcProxy:
    """An HTTP proxy in front of a node's JSON-RPC (anvil or litecoind), for
    hashjackd's [chain] rpc_url: each POST goes on to upstream (same path,
    so a litecoind wallet's /wallet/NAME too, with the client's
    Authorization), and the node's answer (its status and body, an error
    too) comes back through answer(), which a subclass may override to
    rewrite it.  With method (e.g. "eth_sendRawTransaction", "sendmany"),
    arm(mode, n): the next n requests whose body names that method are
    "swallow"ed (never forwarded: the client waits for an answer that
    never comes) or "lose"d (forwarded: the node acts on them, their
    answers are never returned); swallowed and lost count them (a lost one
    once the node has answered).  A held connection is closed without an
    answer at close() or after 20 s.  Every other request passes."""

    def __init__(self, upstream, method=None, timeout=10):
        self.upstream = upstream.rstrip("/")
        self.method = method
        self.lock = threading.Lock()
        self.mode, self.left = "pass", 0
        self.swallowed = self.lost = 0
        self.release = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                mode = proxy._take(body)
                if mode == "swallow":
                    proxy.release.wait(20)
                    self.close_connection = True
                    return
                headers = {"Content-Type": "application/json"}
                if self.headers.get("Authorization"):
                    headers["Authorization"] = self.headers["Authorization"]
                try:
                    req = urllib.request.Request(proxy.upstream + self.path, body, headers)
                    with urllib.request.urlopen(req, timeout=timeout) as r:
                        out, code = proxy.answer_to(body, r.read()), 200
                except urllib.error.HTTPError as e:
                    out, code = e.read(), e.code
                except (OSError, urllib.error.URLError) as e:
                    out, code = ("proxy: %s" % e).encode(), 502
                if mode == "lose":
                    with proxy.lock:
                        proxy.lost += 1
                    proxy.release.wait(20)
                    self.close_connection = True
                    return
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _take(self, body):
        with self.lock:
            if self.left <= 0 or not self.method or \
                    ('"%s"' % self.method).encode() not in body:
                return "pass"
            self.left -= 1
            if self.mode == "swallow":
                self.swallowed += 1
            return self.mode

    def answer(self, data):
        """The node's answer (bytes, status 200) as the client gets it."""
        return data

    def answer_to(self, request, data):
        """The same, for a subclass that needs the request (bytes)."""
        return self.answer(data)

    def arm(self, mode, n=1):
        with self.lock:
            self.mode, self.left = mode, n

    def disarm(self):
        with self.lock:
            self.left = 0

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class TcpProxy:
    """A TCP relay on 127.0.0.1 (a free port, self.port) to
    127.0.0.1:upstream_port, byte for byte, for a connection a test must
    drop: cut() closes every connection it carries (both ends, at once);
    refuse(True) makes it accept every new connection and close it at once,
    before a byte (a node that is not there), until refuse(False).
    accepted counts the connections made to it, passed those it relayed."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.pairs = []
        self.refusing = False
        self.accepted = self.passed = 0
        self.closed = False
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return  # closed
            with self.lock:
                self.accepted += 1
                refuse = self.refusing or self.closed
            if refuse:
                c.close()
                continue
            try:
                u = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
                u.settimeout(None)
            except OSError:
                c.close()
                continue
            for x in (c, u):
                x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.passed += 1
                self.pairs.append((c, u))
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        """Closes every connection it carries."""
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for x in pair:
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                x.close()

    def refuse(self, on=True):
        with self.lock:
            self.refusing = on

    def live(self):
        """Connections relayed and not cut (either end may have closed)."""
        with self.lock:
            return len(self.pairs)

    def close(self):
        with self.lock:
            self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.cut()


# --------------------------------------------------------------------------
# Small helpers for tests

def events(lines, height=None, type=None, round=None):
    """The events of parsed log lines, filtered."""
    out = []
    for l in lines:
        if height is not None and l["height"] != height:
            continue
        for e in l["events"]:
            if type is not None and e["type"] != type:
                continue
            if round is not None and e.get("round") != round:
                continue
            out.append(e)
    return out


def random_stake(min_bet, max_bet, rng=random):
    return rng.randint(min_bet, max_bet)
