"""The EVM nodes of the end-to-end tests: anvil and ganache, and what a
player sends them.

Python 3, standard library only.  What it gives a test:

- EvmNode: what both nodes give a test alike (JSON-RPC calls, the dev
  accounts and keys, transactions sent with cast, a transaction that is
  included but fails (``reverting()``), mining a block holding exactly the
  expected pending transactions, grinding a block for a wanted card,
  exporting blocks as a ``hashjack replay`` document); make_node(kind, ...)
  starts either by name ("anvil" or "ganache"), as an e2e suite's
  ``--node`` says.
- Anvil: starts anvil (from node_modules, see package.json) on 127.0.0.1 with
  blocks mined on demand; stop / kill / pause (SIGSTOP) / resume (SIGCONT);
  restart keeping the chain (``--state FILE``: anvil dumps its chain on
  SIGTERM and loads it on start; block hashes, transactions and receipts
  survive); the dev accounts and keys as anvil prints them (``--config-out``);
  reorganisations (``anvil_reorg``).
- Ganache: ganache 7.9.2 (node_modules, package.json), the second EVM
  implementation the game and verify suites run on: the same calls, no
  restart keeping the chain, no reorganisation.
- Account: a dev account (index, address, private key).
- The action payloads (docs/PROTOCOL.md section 11.2): BET ... PEEK_INSURED
  and PAYLOADS by action name; ETHER (wei).
- find_tool(): anvil, cast or ganache.

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

And about ganache 7.9.2 (seen running it; the e2e suites on it fail
otherwise):

- There is no "mine on demand" flag: blocks are mined as transactions come
  (instamine) or every ``--miner.blockTime`` seconds.  Started with
  ``--miner.instamine strict`` (a transaction's hash is answered before it
  is mined) and then told ``miner_stop``, it mines only on ``evm_mine``
  (``{"timestamp": T}`` for one block at T, ``{"blocks": N}`` for N).
- It has no ``eth_getRawTransactionByHash``: send() signs with ``cast
  mktx`` and keeps the bytes it sends with ``eth_sendRawTransaction``.
- ``eth_getTransactionCount(addr, "pending")`` counts the latest block's
  nonce only, not the transactions waiting: send() counts the nonces it
  gave each account itself.
- ``evm_snapshot`` / ``evm_revert`` drop the reverted blocks'
  transactions, as anvil does (grind() sends them again).
- Code is set with ``evm_setAccountCode`` (anvil: ``anvil_setCode``).
- ``--wallet.deterministic`` gives its fixed dev accounts,
  ``--wallet.accountKeysPath`` writes their keys; chain id 1337 unless
  told otherwise.
- It answers ``eth_getBlockByNumber("finalized")`` and ``("safe")`` with
  its tip (docs/OPERATION.md, "Finality").
- It serves JSON-RPC over WebSocket on its HTTP port, with ``eth_subscribe
  ["newHeads"]`` (hashjackd's push wake-up).
- Its port cannot be 0 (it refuses it): start() picks a free one and tries
  another when that one was taken meanwhile.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.request

from cards import card_matcher, card_of
from nodes import RpcError, batch_results, replay_rules
from procs import (ROOT, HarnessError, all_threads_stopped, file_tail, free_port,
                   own_tempdir, stop_process, track, wait_until)

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

# Runtime code that reverts every call: PUSH1 0 PUSH1 0 REVERT.
REVERT_CODE = "0x60006000fd"

ETHER = 10 ** 18


def find_tool(name):
    """anvil, cast or ganache: $HJ_ANVIL / $HJ_CAST / $HJ_GANACHE, else
    node_modules, else PATH."""
    env = os.environ.get("HJ_" + name.upper())
    if env:
        return env
    if name == "ganache":
        p = os.path.join(ROOT, "node_modules", ".bin", "ganache")
    else:
        p = os.path.join(ROOT, "node_modules", "@foundry-rs",
                         name + "-linux-amd64", "bin", name)
    if os.access(p, os.X_OK):
        return p
    w = shutil.which(name)
    if w:
        return w
    raise HarnessError("%s not found: run scripts/deps.sh (it runs npm ci in %s)"
                       % (name, ROOT))


def anvil_env(home):
    """The environment to start anvil in, with HOME set to home (a directory
    removed with the caller's own).  Once anvil holds more block states than
    it keeps in memory, it writes the older ones under
    $HOME/.foundry/anvil/tmp/anvil-state-*, and it removes that directory on
    no exit of its own, SIGTERM included: left in the real home, every run
    leaked its copy (78 GB after a day of tests and benchmarks)."""
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, HOME=home)


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


class EvmNode:
    """What a test asks of an EVM node, anvil's or ganache's alike: a
    subclass starts the process (start(), setting port, accounts and
    chain_id) and says how the node sets code (set_code), mines several
    blocks (mine_empty) and gives a transaction's signed bytes (raw_of).
    workdir holds its log."""

    NAME = None

    def __init__(self, workdir, accounts, port, timeout):
        self.workdir = workdir or own_tempdir("hj-%s-" % self.NAME)
        os.makedirs(self.workdir, exist_ok=True)
        self.cast = find_tool("cast")
        self.n_accounts = accounts
        self.port = port
        self.timeout = timeout
        self.proc = None
        self.accounts = []
        self.chain_id = None
        self.log_path = os.path.join(self.workdir, "%s.log" % self.NAME)
        self.raw = {}        # tx hash -> signed raw transaction (hex)
        self._id = 0
        self.starts = 0

    # -- process -----------------------------------------------------------

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def _spawn(self, cmd, env=None):
        """Starts the node's command cmd (in env, when given), its output
        appended to its log; returns the log's size before it (where this
        start's lines begin)."""
        log = open(self.log_path, "ab")
        mark = log.tell()
        self.proc = track(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True))
        log.close()
        return mark

    def _try_rpc(self, method, *params):
        try:
            return self.rpc(method, *params, timeout=2) or True
        except (OSError, HarnessError):
            return None

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=20):
        """SIGTERM: the node exits (anvil writes its state file first, when
        keep_state)."""
        if self.proc is None:
            return None
        rc = stop_process(self.proc, signal.SIGTERM, timeout)
        return rc

    def kill(self):
        """SIGKILL: no state is written; the chain since the last stop is lost."""
        if self.proc is None:
            return None
        return stop_process(self.proc, signal.SIGKILL, 10)

    def pause(self):
        """SIGSTOP: the port stays open but nothing answers (requests time out).
        Returns once every thread of the node is stopped: kill() only queues
        the signal, and a thread still running on the other core could
        answer one more request."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        wait_until(lambda: all_threads_stopped(self.proc.pid), 10,
                   "%s to stop (SIGSTOP)" % self.NAME)

    def resume(self):
        os.kill(self.proc.pid, signal.SIGCONT)

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
        h = self._cast("send", acct, nonce, to, data, value, gas_limit, timeout)
        self.raw[h] = self.raw_of(h)
        return h

    def _cast(self, verb, acct, nonce, to, data, value, gas_limit, timeout, extra=()):
        """`cast send --async` (its answer: the hash) or `cast mktx` (the
        signed bytes) of one transaction; extra: more options of cast's."""
        cmd = [self.cast, verb] + (["--async"] if verb == "send" else []) + [
            "--rpc-url", self.url, "--private-key", acct.key, "--nonce", str(nonce)]
        cmd += list(extra)
        if gas_limit is not None:
            cmd += ["--gas-limit", str(gas_limit)]
        cmd += [to, data, "--value", str(value)]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout)
        out = r.stdout.strip().splitlines()
        form = r"0x[0-9a-f]{64}" if verb == "send" else r"0x[0-9a-f]+"
        if r.returncode != 0 or not out or not re.fullmatch(form, out[-1]):
            raise HarnessError("cast %s failed (%s): %s %s"
                               % (verb, r.returncode, r.stderr.strip(), r.stdout.strip()))
        return out[-1]

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
        self.set_code(address, code)
        try:
            yield
        finally:
            self.set_code(address, before)

    # -- mining --------------------------------------------------------------

    def mine(self, expect=None, timestamp=None):
        """Mines one block with every pending transaction (in the order they
        were sent: anvil's fifo order; ganache's, checked by expect).  With expect (a list of tx hashes) checks
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

    def grind(self, want, expect=None, max_tries=3000):
        """Mines the next block again and again until its card matches `want`
        (see card_matcher): evm_snapshot, mine with a chosen timestamp, look at
        the hash, evm_revert and retry with the next timestamp.  The block's
        pending transactions survive: evm_revert drops them from the node
        (anvil and ganache alike), so their signed bytes are sent again, in
        the same order, before each retry.  With expect, the block must hold
        exactly those transactions.  Returns (block, tries)."""
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
                    r = self.raw.get(h) or self.raw_of(h)
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

    # -- what each node does its own way -----------------------------------

    def set_code(self, address, code):
        raise NotImplementedError

    def mine_empty(self, count=1):
        """Mines count blocks at once; the first takes the pending
        transactions, if any.  Returns the tip."""
        raise NotImplementedError

    def raw_of(self, h):
        """The signed bytes (hex) of transaction h, as sent."""
        raise NotImplementedError

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


class Anvil(EvmNode):
    """One anvil process.  workdir holds its log, its config-out file and
    (when keep_state) the state file that survives restarts."""

    NAME = "anvil"

    def __init__(self, workdir=None, mining=False, block_time=None, accounts=10,
                 keep_state=True, port=0, extra_args=(), timeout=30):
        super().__init__(workdir, accounts, port, timeout)
        self.binary = find_tool("anvil")
        self.mining = mining
        self.block_time = block_time
        self.state_file = os.path.join(self.workdir, "state.json") if keep_state else None
        self.extra_args = list(extra_args)

    # -- process -----------------------------------------------------------

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
        mark = self._spawn(cmd + self.extra_args,
                           anvil_env(os.path.join(self.workdir, "home")))

        def listening():
            if self.proc.poll() is not None:
                raise HarnessError("anvil exited with status %s:\n%s"
                                   % (self.proc.returncode, file_tail(self.log_path)))
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

    def restart(self, timeout=20):
        """Stops (state written) and starts again on the same port with the same
        chain: same blocks, hashes, transactions and receipts.  The mempool is
        not kept."""
        self.stop(timeout)
        return self.start()

    # -- anvil's own ---------------------------------------------------------

    def set_code(self, address, code):
        self.rpc("anvil_setCode", address, code)

    def raw_of(self, h):
        return self.rpc("eth_getRawTransactionByHash", h)

    def mine_empty(self, count=1):
        """Mines count blocks at once (anvil_mine); the first takes the pending
        transactions, if any."""
        self.rpc("anvil_mine", _hex(count))
        return self.height()

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


class Ganache(EvmNode):
    """One ganache process (7.9.2, package.json), started as anvil is for
    the game and verify suites: its dev accounts (--wallet.deterministic,
    their keys from --wallet.accountKeysPath), blocks on demand (mining
    False: instamine strict, then miner_stop; evm_mine mines) or every
    block_time seconds, or at each transaction (mining True).  No restart
    keeping the chain, no reorganisation (anvil's).  workdir holds its log
    and its keys file."""

    NAME = "ganache"
    # The first transaction's priority fee and every one's fee cap (wei):
    # each transaction sent offers one wei of priority fee less than the
    # one before.
    TIP_TOP = 10 ** 12
    FEE_CAP = 2 * 10 ** 12

    def __init__(self, workdir=None, mining=False, block_time=None, accounts=10,
                 keep_state=False, port=0, chain_id=1337, extra_args=(), timeout=60):
        if keep_state:
            raise HarnessError("ganache: this harness keeps no chain across restarts")
        super().__init__(workdir, accounts, port, timeout)
        self.binary = find_tool("ganache")
        self.mining = mining
        self.block_time = block_time
        self.want_chain_id = chain_id
        self.extra_args = list(extra_args)
        self.nonces = {}     # address -> the next nonce send() gives it
        self.sent = 0        # transactions send() has signed

    def start(self):
        if self.running():
            raise HarnessError("ganache already running")
        keys = os.path.join(self.workdir, "ganache-keys.json")
        # Its port cannot be 0: a free one, another if it was taken
        # meanwhile (the process then exits).
        for _ in range(5):
            port = self.port or free_port()
            if os.path.exists(keys):
                os.unlink(keys)
            cmd = [self.binary, "--server.host", "127.0.0.1", "--server.port", str(port),
                   "--wallet.deterministic", "--wallet.totalAccounts", str(self.n_accounts),
                   "--wallet.accountKeysPath", keys,
                   "--chain.chainId", str(self.want_chain_id)]
            if self.block_time:
                cmd += ["--miner.blockTime", str(self.block_time)]
            elif not self.mining:
                cmd += ["--miner.instamine", "strict"]
            mark = self._spawn(cmd + self.extra_args)

            def listening():
                with open(self.log_path, "rb") as f:
                    f.seek(mark)
                    text = f.read()
                if self.proc.poll() is not None:
                    return "taken" if b"EADDRINUSE" in text else "exited"
                return re.search(rb"RPC Listening on 127\.0\.0\.1:%d" % port, text) and "up"

            got = wait_until(listening, self.timeout, "ganache to listen")
            if got == "up":
                break
            if got == "exited" or self.port:
                raise HarnessError("ganache exited with status %s:\n%s"
                                   % (self.proc.returncode, file_tail(self.log_path)))
        else:
            raise HarnessError("ganache: no free port after 5 tries")
        self.port = port
        wait_until(lambda: self._try_rpc("eth_chainId"), self.timeout, "ganache to answer")
        if not self.mining and not self.block_time and self.rpc("miner_stop") is not True:
            raise HarnessError("ganache: miner_stop refused")
        with open(keys) as f:
            by_addr = json.load(f)["private_keys"]
        self.accounts = [Account(i, a, by_addr[a.lower()])
                         for i, a in enumerate(self.rpc("eth_accounts"))]
        if len(self.accounts) != self.n_accounts:
            raise HarnessError("ganache has %d accounts, not %d"
                               % (len(self.accounts), self.n_accounts))
        self.chain_id = _int(self.rpc("eth_chainId"))
        self.starts += 1
        return self

    # -- ganache's own -------------------------------------------------------

    def send(self, sender, to, data="0x", value=0, gas_limit=None, timeout=30):
        """Signs with `cast mktx` from sender (an Account or an index) and
        sends the bytes (kept for grind()); returns the transaction hash.
        The nonce is the account's latest count or, when higher, the next
        one this harness has not given yet: ganache's "pending" count does
        not count the transactions waiting.  Ganache fills a block by price,
        ties in no fixed order (a heap): each transaction offers one wei of
        priority fee less than the one sent before it, so that a block holds
        them in the order they were sent, as anvil's fifo order does (an
        account's own go by nonce anyway)."""
        acct = sender if isinstance(sender, Account) else self.accounts[sender]
        nonce = max(_int(self.rpc("eth_getTransactionCount", acct.address, "latest")),
                    self.nonces.get(acct.address, 0))
        tip = self.TIP_TOP - self.sent
        raw = self._cast("mktx", acct, nonce, to, data, value, gas_limit, timeout,
                         ["--priority-gas-price", str(tip), "--gas-price", str(self.FEE_CAP)])
        self.sent += 1
        h = self.send_raw(raw)
        if not re.fullmatch(r"0x[0-9a-f]{64}", h or ""):
            raise HarnessError("eth_sendRawTransaction answered %r" % (h,))
        self.nonces[acct.address] = nonce + 1
        self.raw[h] = raw
        return h

    def raw_of(self, h):
        if h not in self.raw:
            raise HarnessError("ganache has no eth_getRawTransactionByHash, and %s "
                               "was not sent by this harness" % h)
        return self.raw[h]

    def set_code(self, address, code):
        if self.rpc("evm_setAccountCode", address, code) is not True:
            raise HarnessError("evm_setAccountCode refused")

    def mine_empty(self, count=1):
        """Mines count blocks at once (evm_mine {"blocks": count}); the
        first takes the pending transactions, if any."""
        self.rpc("evm_mine", {"blocks": count})
        return self.height()


def make_node(kind, **kw):
    """An EVM node of that kind, not started: "anvil" (Anvil) or
    "ganache" (Ganache), with the keyword arguments both take."""
    if kind == "anvil":
        return Anvil(**kw)
    if kind == "ganache":
        return Ganache(**kw)
    raise HarnessError("no EVM node %r (anvil or ganache)" % kind)


NODES = ("anvil", "ganache")
