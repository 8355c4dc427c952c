"""The Bitcoin-family node of the end-to-end tests: litecoind in regtest,
and what a player sends it.  Python 3, standard library only.

What it gives a test:

- Litecoind: starts litecoind -regtest on 127.0.0.1 with a free RPC port and
  its own data directory (a temp dir unless given), no P2P (-listen=0,
  -connect=0); stop / kill (-9) / restart keeping the data directory;
  JSON-RPC over HTTP with cookie authentication (the cookie changes at every
  start: it is read again after a start and on a 401) and batch calls;
  wallets, per-wallet calls through /wallet/<name>; funding players; actions built
  the way a player with only the node's wallet would (createrawtransaction
  with no inputs, fundrawtransaction, signrawtransactionwithwallet,
  sendrawtransaction), also a value split over several outputs to the
  dealer and zero-value actions; mining with a check of what the block
  holds; grinding a block for a wanted card (mine, look at the hash,
  invalidateblock, retry with another coinbase address); a reorganisation
  (invalidateblock and a longer replacement chain); exporting blocks as a
  `hashjack replay` document in the Bitcoin format.
- MWEB: off by default (-vbparams=mweb:0:0:2147483647:2147483647: litecoind
  0.21.2 takes start and end heights after the times; "mweb:0:0" alone leaves
  garbage heights, off only by accident).
  With mweb=True it activates at height 432 as on regtest by default; a
  block at 432 or above cannot be mined before a peg-in (a transaction to an
  MWEB address) is in the mempool ("bad-txns-vin-empty"), so mine() (and
  grind(), reorg()) make one on the way: at 430 the funder pays the "mweb"
  wallet (into block 431), at 431 that wallet sends its whole balance to
  its own MWEB address (into block 432), so the funder never holds MWEB
  coins (a peg-in's change goes to MWEB).  Both txids are left out of the
  expect checks.  After the first MWEB block every block ends with the
  HogEx transaction and mining needs nothing more.
- parse_tx(), txid_of(), parse_block(): a small independent parser for
  checking raw transactions and blocks in tests (canonical part only);
  ser_varint(), serialize_unsigned() to build them.
- The action payloads (docs/PROTOCOL.md section 11.3): bet_payload(),
  action_payload() (signatures are taken as given), short_id().
- find_litecoind().
- Amounts: integers in base units (litoshis) everywhere; coin amounts go to
  the node as strings made by sats_to_coin() and come back as Decimal (the
  JSON is parsed with parse_float=Decimal), never as float.

Things about litecoind 0.21.2 this relies on (tests/e2e/test_ltc_harness.py
checks them):

- Replies are JSON-RPC 1.0 style ({"result", "error", "id"}, no "jsonrpc"
  member) whatever version is sent.  A failed single call is HTTP 500 (404
  for an unknown method) with the error in the JSON body; a batch is always
  HTTP 200 with an error per element.  Code -28 while warming up.
- createrawtransaction refuses the same address twice in its outputs,
  whether given as an object or as an array of one-key objects ("Invalid
  parameter, duplicated address", code -8, even with the address in upper
  case).  So for a value split over several outputs to the dealer each
  output is made by its own createrawtransaction call (no inputs, one
  output) and the outputs are put together in order into one unsigned
  transaction, which fundrawtransaction (with iswitness=false: a
  transaction with no inputs is otherwise ambiguous with the segwit marker)
  funds as usual.
- invalidateblock gives the transactions of the invalidated blocks back to
  the mempool (grind() checks every try holds the same ones); the same
  template with the same coinbase in the same second is the same block, so
  each try pays another address.
- kill -9 loses every block since the node last flushed its state (on its
  own it flushes rarely: 50 blocks mined, killed, it came back at 0);
  flush() forces it.
- Dust: the wallet refuses an output below 2940 litoshis to a P2WPKH
  address (5460 to P2PKH; "Transaction amount too small"); the relay fee
  is 1 litoshi/vB; regtest has no fee estimates, so the wallet pays
  -fallbackfee (0.0001 LTC/kvB = 10 litoshis/vB).  Zero-value OP_RETURN
  outputs are fine.
- Wallets are legacy (BDB): this build has no sqlite, so createwallet with
  descriptors=true fails.  A new wallet fills its keypool (1000 keys by
  default: 1.2 s); the harness starts the node with -keypool=100.
- A raw block (getblock <hash> 0) is the 80-byte header, the transaction
  count, then every transaction exactly as getblock <hash> 2 shows its
  "hex"; an MWEB block has the MWEB block after that (starting with 01),
  and its last transaction is the HogEx (serialised with flag 08).
"""

import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import struct
import subprocess
from decimal import Decimal

from cards import card_matcher, card_of
from nodes import RpcError, batch_results, replay_rules
from procs import (HarnessError, file_tail, free_port, own_tempdir, stop_process, track,
                   untrack, wait_until)

COIN = 10 ** 8
MWEB_HEIGHT = 432           # regtest: the first block with MWEB (BIP9, period 144)

# Action payloads (docs/PROTOCOL.md section 11.3, Bitcoin family), hex
# without 0x.
MAGIC = "484a"
VERSION = "01"
ACTIONS = {"Bet": 1, "Hit": 2, "Stand": 3, "Double": 4, "Split": 5, "Surrender": 6,
           "Peek": 7}
# A valid x-only key (the x coordinate of secp256k1's generator).
XONLY_G = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"


def bet_payload(xonly=XONLY_G, pp=None, t3=None):
    """Bet: magic, version, 01, the 32-byte x-only key, optional u64 side
    stakes (hex)."""
    if not re.fullmatch(r"[0-9a-f]{64}", xonly):
        raise ValueError("x-only key must be 64 lower-case hex digits")
    p = MAGIC + VERSION + "01" + xonly
    if pp is not None or t3 is not None:
        p += "%016x" % (pp or 0)
    if t3 is not None:
        p += "%016x" % t3
    return p


def action_payload(action, fields="", short_id="00" * 8, sig="00" * 64):
    """Any other action: magic, version, code, fields (hex), the 8-byte short
    round id (16 hex digits: the first 16 of the Bet's txid) and a 64-byte
    signature (hex).  No signing here: the signature is taken as given."""
    code = ACTIONS[action] if isinstance(action, str) else action
    p = MAGIC + VERSION + "%02x" % code + fields + short_id + sig
    if len(p) % 2 or not re.fullmatch(r"[0-9a-f]*", p):
        raise ValueError("payload is not hex: %r" % p)
    return p


def short_id(txid):
    return txid[:16]


# --------------------------------------------------------------------------
# Amounts

def sats_to_coin(n):
    """Base units (int) to the node's decimal string: 150000000 -> "1.50000000"."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError("amount in base units must be a non-negative int: %r" % (n,))
    return "%d.%08d" % divmod(n, COIN)


def coin_to_sats(x):
    """A coin amount (Decimal, str or int; never float) to base units, exactly."""
    if isinstance(x, float):
        raise TypeError("float amount %r: use Decimal or str" % x)
    d = x if isinstance(x, Decimal) else Decimal(str(x))
    s = d * COIN
    if s != s.to_integral_value():
        raise ValueError("%s is not a whole number of base units" % x)
    return int(s)


# --------------------------------------------------------------------------
# Raw transactions and blocks (independent of the node, for checks)

def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def _varint(b, i):
    n = b[i]
    if n < 0xfd:
        return n, i + 1
    if n == 0xfd:
        return struct.unpack_from("<H", b, i + 1)[0], i + 3
    if n == 0xfe:
        return struct.unpack_from("<I", b, i + 1)[0], i + 5
    return struct.unpack_from("<Q", b, i + 1)[0], i + 9


def ser_varint(n):
    if n < 0xfd:
        return bytes([n])
    if n <= 0xffff:
        return b"\xfd" + struct.pack("<H", n)
    if n <= 0xffffffff:
        return b"\xfe" + struct.pack("<I", n)
    return b"\xff" + struct.pack("<Q", n)


def _parse_tx_at(b, i, allow_no_inputs=False):
    start = i
    version = struct.unpack_from("<i", b, i)[0]
    i += 4
    flag = 0
    if b[i] == 0 and not allow_no_inputs:
        flag = b[i + 1]
        if flag == 0:
            raise HarnessError("bad segwit flag 00")
        i += 2
    body0 = i
    nin, i = _varint(b, i)
    vin = []
    for _ in range(nin):
        prev = b[i:i + 32][::-1].hex()
        vout = struct.unpack_from("<I", b, i + 32)[0]
        ln, i = _varint(b, i + 36)
        script = b[i:i + ln].hex()
        i += ln
        seq = struct.unpack_from("<I", b, i)[0]
        i += 4
        vin.append({"txid": prev, "vout": vout, "script": script, "sequence": seq})
    nout, i = _varint(b, i)
    vout = []
    for _ in range(nout):
        value = struct.unpack_from("<Q", b, i)[0]
        ln, i = _varint(b, i + 8)
        vout.append({"value": value, "script": b[i:i + ln].hex()})
        i += ln
    body1 = i
    if flag & 1:
        for _ in range(nin):
            n, i = _varint(b, i)
            for _ in range(n):
                ln, i = _varint(b, i)
                i += ln
    if flag & 8:
        if b[i] != 0:
            raise HarnessError("transaction with MWEB data: not parsed here")
        i += 1
    if flag & ~9:
        raise HarnessError("unknown transaction flag %02x" % flag)
    locktime = struct.unpack_from("<I", b, i)[0]
    i += 4
    if i > len(b):
        raise HarnessError("truncated transaction")
    stripped = b[start:start + 4] + b[body0:body1] + b[i - 4:i]
    return {"txid": sha256d(stripped)[::-1].hex(), "version": version, "flag": flag,
            "vin": vin, "vout": vout, "locktime": locktime,
            "raw": b[start:i].hex()}, i


def parse_tx(raw_hex, allow_no_inputs=False):
    """A raw transaction (hex) as {"txid", "version", "flag", "vin": [{"txid",
    "vout", "script", "sequence"}], "vout": [{"value" (int), "script" (hex)}],
    "locktime", "raw"}.  allow_no_inputs: read a 00 after the version as an
    empty input list (an unfunded createrawtransaction result), not as the
    segwit marker."""
    b = bytes.fromhex(raw_hex)
    tx, end = _parse_tx_at(b, 0, allow_no_inputs)
    if end != len(b):
        raise HarnessError("%d bytes after the transaction" % (len(b) - end))
    return tx


def txid_of(raw_hex):
    return parse_tx(raw_hex)["txid"]


def serialize_unsigned(version, outputs_raw, locktime=0):
    """An input-less transaction: version, 00 (no inputs), the outputs (each
    the raw bytes value || script length || script), locktime."""
    return (struct.pack("<i", version) + b"\x00" + ser_varint(len(outputs_raw))
            + b"".join(outputs_raw) + struct.pack("<I", locktime)).hex()


def parse_block(raw_hex):
    """A raw block: {"hash", "parent", "header", "txs": [raw hex, ...],
    "rest": hex after the transactions (the MWEB block, or "")}."""
    b = bytes.fromhex(raw_hex)
    header = b[:80]
    n, i = _varint(b, 80)
    txs = []
    for _ in range(n):
        tx, j = _parse_tx_at(b, i)
        txs.append(b[i:j].hex())
        i = j
    return {"hash": sha256d(header)[::-1].hex(), "parent": header[4:36][::-1].hex(),
            "header": header.hex(), "txs": txs, "rest": b[i:].hex()}


# --------------------------------------------------------------------------
# Tools

def find_litecoind(path=None):
    for p in (path, os.environ.get("HJ_LITECOIND"), shutil.which("litecoind")):
        if p and os.access(p, os.X_OK):
            return p
    raise HarnessError("litecoind not found: run scripts/deps.sh (Debian package litecoind)")


def _json_default(x):
    if isinstance(x, Decimal):
        return str(x)
    raise TypeError("not JSON: %r" % (x,))


class Wallet:
    """A wallet of a Litecoind: rpc() goes to /wallet/<name>."""

    def __init__(self, node, name):
        self.node = node
        self.name = name

    def rpc(self, method, *params, timeout=30):
        return self.node.rpc(method, *params, wallet=self.name, timeout=timeout)

    def rpc_batch(self, calls, timeout=60):
        return self.node.rpc_batch(calls, wallet=self.name, timeout=timeout)

    def new_address(self, type="bech32"):
        return self.rpc("getnewaddress", "", type)

    def balance(self, minconf=1):
        """Confirmed balance in base units."""
        return coin_to_sats(self.rpc("getbalance", "*", minconf))

    def __repr__(self):
        return "Wallet(%s)" % self.name


# --------------------------------------------------------------------------
# litecoind

class Litecoind:
    """One litecoind -regtest process.  workdir holds the data directory
    (workdir/data, kept across restarts) and the console output
    (workdir/litecoind.out); the node's own log is datadir/regtest/debug.log.

    Wallets: "funder" (the default miner; its coinbases fund the players) is
    made on the first start; others with create_wallet().  Every wallet is
    created with load_on_startup, so a restart loads it again."""

    FUNDER = "funder"
    MWEB_WALLET = "mweb"

    def __init__(self, workdir=None, mweb=False, port=0, extra_args=(), timeout=60,
                 keypool=100, binary=None):
        self.workdir = workdir or own_tempdir("hj-ltc-")
        os.makedirs(self.workdir, exist_ok=True)
        self.datadir = os.path.join(self.workdir, "data")
        os.makedirs(self.datadir, exist_ok=True)
        self.binary = find_litecoind(binary)
        self.mweb = mweb
        self.port = port
        self.extra_args = list(extra_args)
        self.timeout = timeout
        self.keypool = keypool
        self.proc = None
        self.out_path = os.path.join(self.workdir, "litecoind.out")
        self.cookie_file = os.path.join(self.datadir, "regtest", ".cookie")
        self._auth = None
        self._conn = None
        self._id = 0
        self.starts = 0
        self.wallets = {}
        self.sent = {}          # txid -> signed raw hex of what send_*() sent
        self._addr_pool = []
        self._miner = None
        self._genesis = None
        self._internal = set()   # txids the harness sent for itself (MWEB)
        self._pegin = None

    # -- process -----------------------------------------------------------

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def debug_log(self):
        return os.path.join(self.datadir, "regtest", "debug.log")

    def command(self):
        cmd = [self.binary, "-regtest", "-datadir=" + self.datadir,
               "-rpcport=%d" % self.port, "-rpcbind=127.0.0.1", "-rpcallowip=127.0.0.1",
               "-listen=0", "-connect=0", "-dnsseed=0", "-discover=0", "-upnp=0",
               "-server=1", "-daemon=0", "-printtoconsole=0",
               "-fallbackfee=0.0001", "-keypool=%d" % self.keypool,
               "-rpcworkqueue=64"]
        if not self.mweb:
            cmd.append("-vbparams=mweb:0:0:2147483647:2147483647")
        return cmd + self.extra_args

    def start(self):
        """Starts the node and waits until it answers.  The first start picks a
        free port when none was given (another one if it is taken by then);
        later starts keep the port (what a daemon was configured with)."""
        if self.running():
            raise HarnessError("litecoind already running")
        pick = not self.port
        for attempt in range(3):
            if pick:
                self.port = free_port()
            try:
                self._start_once()
                break
            except _PortTaken as e:
                if not pick or attempt == 2:
                    raise HarnessError("litecoind could not bind port %d:\n%s"
                                       % (self.port, e))
        self.starts += 1
        self._load_wallets()
        if self._genesis is None:
            self._genesis = self.rpc("getblockhash", 0)
        return self

    def _start_once(self):
        # A cookie left by a killed node must not be taken for the new one.
        try:
            os.unlink(self.cookie_file)
        except FileNotFoundError:
            pass
        self._close_conn()
        self._auth = None
        out = open(self.out_path, "ab")
        mark = out.tell()
        self.proc = track(subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                               stdout=out, stderr=subprocess.STDOUT,
                                               start_new_session=True))
        out.close()

        def ready():
            if self.proc.poll() is not None:
                untrack(self.proc)
                with open(self.out_path, "rb") as f:
                    f.seek(mark)
                    text = f.read().decode("utf-8", "replace").strip()
                if "Unable to bind" in text or "Unable to start HTTP server" in text:
                    raise _PortTaken(text)
                raise HarnessError("litecoind exited with status %s:\n%s\n%s"
                                   % (self.proc.returncode, text,
                                      file_tail(self.debug_log, 10)))
            if not os.path.exists(self.cookie_file):
                return None
            try:
                return self.rpc("getblockchaininfo", timeout=5)
            except RpcError as e:
                if e.error.get("code") == -28:      # warming up
                    return None
                raise
            except (OSError, http.client.HTTPException):
                return None
        wait_until(ready, self.timeout, "litecoind to answer on port %d" % self.port, 0.05)

    def _load_wallets(self):
        loaded = set(self.rpc("listwallets"))
        on_disk = {w["name"] for w in self.rpc("listwalletdir")["wallets"]}
        for name in sorted(on_disk | set(self.wallets)):
            if name not in loaded:
                self.rpc("loadwallet", name)
            self.wallets.setdefault(name, Wallet(self, name))
        if self.FUNDER not in self.wallets:
            self.create_wallet(self.FUNDER)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30):
        """A clean shutdown (SIGTERM, as the `stop` RPC): the node flushes and
        exits 0.  SIGKILL after timeout."""
        self._close_conn()
        if self.proc is None:
            return None
        return stop_process(self.proc, signal.SIGTERM, timeout)

    def flush(self):
        """Writes the block index and chain state to disk now (gettxoutsetinfo
        "none" flushes as a side effect; about 2 ms).  A node killed with -9
        comes back at the last flushed tip: every block after it is lost."""
        return self.rpc("gettxoutsetinfo", "none")["height"]

    def kill(self):
        """kill -9: nothing is flushed.  The next start comes back at the last
        flushed tip (see flush()): blocks mined since are gone (mined again
        to the same address in the same second they come back identical;
        otherwise a follower sees a reorganisation)."""
        self._close_conn()
        if self.proc is None:
            return None
        return stop_process(self.proc, signal.SIGKILL, 10)

    kill9 = kill

    def restart(self, timeout=30, kill=False):
        """Stops (or kills) and starts again on the same port with the same data
        directory: same chain and wallets; the mempool is kept on a clean stop
        (mempool.dat) only.  The cookie changes."""
        if kill:
            self.kill()
        else:
            self.stop(timeout)
        return self.start()

    # -- JSON-RPC ------------------------------------------------------------

    def _read_cookie(self):
        with open(self.cookie_file) as f:
            cookie = f.read().strip()
        self._auth = "Basic " + base64.b64encode(cookie.encode()).decode()

    def cookie(self):
        """The current cookie, "__cookie__:<hex>" (user:password)."""
        with open(self.cookie_file) as f:
            return f.read().strip()

    def _close_conn(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _post(self, path, body, timeout):
        """POST body; returns (status, parsed JSON or None).  One kept-alive
        connection; a request that finds it closed by the node is sent once
        more on a new one."""
        if self._auth is None:
            self._read_cookie()
        for attempt in range(3):
            fresh = self._conn is None
            if fresh:
                self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            self._conn.timeout = timeout
            if self._conn.sock is not None:
                self._conn.sock.settimeout(timeout)
            try:
                self._conn.request("POST", path, body, {"Content-Type": "application/json",
                                                        "Authorization": self._auth})
                r = self._conn.getresponse()
                data = r.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self._close_conn()
                if fresh:
                    raise
                continue
            except Exception:
                self._close_conn()
                raise
            if r.status == 401:
                self._close_conn()
                if attempt == 0:
                    self._read_cookie()  # the node restarted: new cookie
                    continue
                raise HarnessError("litecoind refused the cookie (HTTP 401)")
            if r.getheader("Connection", "").lower() == "close":
                self._close_conn()
            try:
                return r.status, json.loads(data, parse_float=Decimal)
            except ValueError:
                raise HarnessError("HTTP %d, not JSON: %r" % (r.status, data[:200]))
        raise HarnessError("litecoind closed the connection again and again")

    def rpc(self, method, *params, wallet=None, timeout=30):
        self._id += 1
        body = json.dumps({"jsonrpc": "1.0", "id": self._id, "method": method,
                           "params": list(params)}, default=_json_default)
        path = "/wallet/" + wallet if wallet is not None else "/"
        status, resp = self._post(path, body, timeout)
        if not isinstance(resp, dict):
            raise HarnessError("%s: HTTP %d: %r" % (method, status, resp))
        if resp.get("error"):
            raise RpcError(method, resp["error"])
        return resp.get("result")

    def rpc_batch(self, calls, wallet=None, timeout=60):
        """calls: [(method, [params])]; one HTTP request; the results in order
        (RpcError for the first call that failed)."""
        if not calls:
            return []
        base = self._id + 1
        self._id += len(calls)
        body = json.dumps([{"jsonrpc": "1.0", "id": base + i, "method": m, "params": list(p)}
                           for i, (m, p) in enumerate(calls)], default=_json_default)
        path = "/wallet/" + wallet if wallet is not None else "/"
        status, resp = self._post(path, body, timeout)
        if not isinstance(resp, list):
            raise HarnessError("batch: HTTP %d: %r" % (status, resp))
        return batch_results(calls, resp, base)

    # -- chain ----------------------------------------------------------------

    def height(self):
        return self.rpc("getblockcount")

    def genesis(self):
        return self._genesis or self.rpc("getblockhash", 0)

    def block_hash(self, h):
        return self.rpc("getblockhash", h)

    def block(self, h, verbosity=1):
        """getblock by height (int) or hash (str)."""
        if isinstance(h, int):
            h = self.block_hash(h)
        return self.rpc("getblock", h, verbosity)

    def raw_block(self, h):
        return self.block(h, 0)

    def mempool(self):
        return self.rpc("getrawmempool")

    def mweb_active(self):
        fork = self.rpc("getblockchaininfo")["softforks"].get("mweb", {})
        return bool(fork.get("active"))

    @staticmethod
    def block_txids(b):
        """The txids of a getblock (verbosity 1 or 2) result other than the
        coinbase and, in an MWEB block, the HogEx (the last one)."""
        ids = [t if isinstance(t, str) else t["txid"] for t in b["tx"]]
        if "mweb" in b:
            ids = ids[:-1]
        return ids[1:]

    # -- wallets --------------------------------------------------------------

    def create_wallet(self, name):
        """A new legacy wallet, loaded at every later start."""
        if name in self.wallets:
            raise HarnessError("wallet %s exists" % name)
        self.rpc("createwallet", name, False, False, "", False, False, True, timeout=60)
        w = self.wallets[name] = Wallet(self, name)
        return w

    def wallet(self, name):
        """The Wallet named name (created when missing)."""
        if isinstance(name, Wallet):
            return name
        return self.wallets.get(name) or self.create_wallet(name)

    def new_address(self, wallet, type="bech32"):
        """getnewaddress of a wallet: type "bech32", "p2sh-segwit", "legacy"
        or "mweb"."""
        return self.wallet(wallet).new_address(type)

    def script_of(self, address):
        """The scriptPubKey (hex) of an address (validateaddress, no wallet)."""
        v = self.rpc("validateaddress", address)
        if not v.get("isvalid"):
            raise HarnessError("invalid address %s" % address)
        return v["scriptPubKey"]

    def miner_address(self):
        if self._miner is None:
            self._miner = self.new_address(self.FUNDER)
        return self._miner

    def fresh_address(self):
        """A new funder address from a pool filled in batches (grind, reorg)."""
        if not self._addr_pool:
            self._addr_pool = self.wallet(self.FUNDER).rpc_batch(
                [("getnewaddress", ["", "bech32"])] * 64)
        return self._addr_pool.pop()

    def funder_mature(self, need_sats=0):
        """Mines to the funder until it has at least need_sats spendable (and
        in any case until coinbases mature: height >= 101)."""
        f = self.wallet(self.FUNDER)
        if self.height() < 101:
            self.mine(101 - self.height())
        for _ in range(50):
            bal = f.balance()
            if bal >= need_sats:
                return bal
            self.mine(100)
        raise HarnessError("the funder has %d, needs %d" % (f.balance(), need_sats))

    def fund(self, wallets, sats, mine=True):
        """Sends sats from the funder to a new bech32 address of each wallet
        (names or Wallets; created when missing), in one transaction
        (sendmany), and mines it.  Returns the txid."""
        if isinstance(wallets, (str, Wallet)):
            wallets = [wallets]
        ws = [self.wallet(w) for w in wallets]
        self.funder_mature(sats * len(ws) + COIN)
        amounts = {w.new_address(): sats_to_coin(sats) for w in ws}
        txid = self.wallet(self.FUNDER).rpc("sendmany", "", amounts)
        if mine:
            self.mine(1, expect=None)
            if txid in self.mempool():
                raise HarnessError("funding %s not mined" % txid)
        return txid

    # -- transactions ----------------------------------------------------------

    def _unsigned(self, outputs):
        """outputs: [(address or "data", sats or hex)] -> an unsigned raw
        transaction with no inputs, the outputs in that order."""
        spec = []
        for k, v in outputs:
            if k == "data":
                spec.append({"data": v})
            else:
                spec.append({k: sats_to_coin(v)})
        keys = [list(s)[0] for s in spec]
        if len(set(keys)) == len(keys):
            return self.rpc("createrawtransaction", [], spec)
        # The node refuses a repeated address: make each output on its own
        # and put them together (same version and locktime as the node's).
        raws = self.rpc_batch([("createrawtransaction", [[], [s]]) for s in spec])
        outs = []
        version = None
        for r in raws:
            t = parse_tx(r, allow_no_inputs=True)
            if len(t["vout"]) != 1 or t["vin"]:
                raise HarnessError("createrawtransaction gave %s" % r)
            version = t["version"]
            o = t["vout"][0]
            s = bytes.fromhex(o["script"])
            outs.append(struct.pack("<Q", o["value"]) + ser_varint(len(s)) + s)
        return serialize_unsigned(version, outs)

    def send_outputs(self, wallet, outputs, fund_options=None, broadcast=True):
        """A transaction paying outputs ([(address, sats)] or ("data", hex)),
        in that order, funded, signed and sent by wallet's node wallet:
        createrawtransaction [] outputs, fundrawtransaction (inputs and a
        change output added by the wallet, at a position of its choice),
        signrawtransactionwithwallet, sendrawtransaction.  Checks the signed
        transaction holds the outputs in that order.  Returns the txid (the
        signed hex is self.sent[txid]); with broadcast=False returns the
        signed hex without sending it."""
        w = self.wallet(wallet)
        unsigned = self._unsigned(outputs)
        funded = w.rpc("fundrawtransaction", unsigned, fund_options or {}, False)
        signed = w.rpc("signrawtransactionwithwallet", funded["hex"])
        if not signed.get("complete"):
            raise HarnessError("signing incomplete: %s" % signed.get("errors"))
        tx = parse_tx(signed["hex"])
        want = [(0, "6a" + _push(v)) if k == "data" else (v, self.script_of(k))
                for k, v in outputs]
        got = [(o["value"], o["script"]) for o in tx["vout"]]
        it = iter(got)
        if not all(any(g == x for g in it) for x in want):
            raise HarnessError("funded transaction outputs %s do not hold %s" % (got, want))
        if not broadcast:
            return signed["hex"]
        txid = self.rpc("sendrawtransaction", signed["hex"])
        if txid != tx["txid"]:
            raise HarnessError("sendrawtransaction says %s, computed %s" % (txid, tx["txid"]))
        self.sent[txid] = signed["hex"]
        return txid

    def send_action(self, wallet, dealer, value_sats, data_hex, extra_outputs=(),
                    fund_options=None, broadcast=True):
        """An action as a player sends it: value_sats (an int, or a list of
        ints: the value split over that many outputs to the dealer; 0 or []
        pays the dealer nothing) to dealer, then extra_outputs
        ([(address, sats)] or ("data", hex)), then the OP_RETURN with
        data_hex (None: no OP_RETURN, a plain deposit).  Returns the txid."""
        parts = value_sats if isinstance(value_sats, (list, tuple)) else [value_sats]
        outputs = [(dealer, v) for v in parts if v]
        outputs += list(extra_outputs)
        if data_hex is not None:
            if data_hex.startswith("0x"):
                data_hex = data_hex[2:]
            outputs.append(("data", data_hex.lower()))
        if not outputs:
            raise HarnessError("a transaction needs an output")
        return self.send_outputs(wallet, outputs, fund_options, broadcast)

    def send_raw(self, raw_hex):
        txid = self.rpc("sendrawtransaction", raw_hex)
        self.sent[txid] = raw_hex
        return txid

    def raw_tx(self, txid, blockhash=None):
        """getrawtransaction (no -txindex: mempool, or give the block)."""
        if blockhash:
            return self.rpc("getrawtransaction", txid, False, blockhash)
        return self.rpc("getrawtransaction", txid, False)

    # -- mining ----------------------------------------------------------------

    def mine(self, n=1, expect=None, address=None, expect_txids=None):
        """Mines n blocks to address (default the funder's miner address).
        With expect (txids; expect_txids is the same), the mempool must hold exactly those and the first
        block must take them all (any order: the miner orders by fee; the
        coinbase, the HogEx and the harness's own MWEB funding and peg-in
        aside).  In mweb mode, mining past height 430 before MWEB is active
        makes the peg-in on the way (see _mweb_step).  Returns the block
        hashes."""
        if expect is None:
            expect = expect_txids
        if expect is not None:
            self._check_pool(expect)
        address = address or self.miner_address()
        hashes = []
        while n > 0:
            k = min(n, 1000)
            if self._mweb_pending():
                h = self.height()
                if h < MWEB_HEIGHT - 2:
                    k = min(k, MWEB_HEIGHT - 2 - h)   # up to 430
                else:
                    self._mweb_step()
                    k = 1
            hashes += self._generate(k, address)
            n -= k
        if expect is not None and hashes:
            got = [t for t in self.block_txids(self.block(hashes[0], 1))
                   if t not in self._internal or t in expect]
            if sorted(got) != sorted(expect):
                raise HarnessError("block %s holds %s, expected %s" % (hashes[0], got, list(expect)))
        return hashes

    def _check_pool(self, expect):
        pool = [t for t in self.mempool() if t not in self._internal or t in expect]
        if sorted(pool) != sorted(expect):
            raise HarnessError("mempool holds %s, expected %s (nothing mined)"
                               % (pool, list(expect)))

    def _generate(self, k, address):
        return self.rpc("generatetoaddress", k, address, timeout=120 + k // 10)

    def _mweb_pending(self):
        """mweb mode, MWEB not active yet and no peg-in made."""
        if not self.mweb or self._pegin is not None:
            return False
        if self.height() >= MWEB_HEIGHT:
            return False            # a data directory where it happened before
        return True

    def _mweb_step(self):
        """Before mining block 431 or 432 in mweb mode.  At 430: the funder
        sends 1 coin to the "mweb" wallet (into block 431).  At 431: that
        wallet sends its whole balance to its own MWEB address, no change (the
        peg-in, into block 432).  Without that funding (block 431 made another
        way) the funder pays the peg-in and then holds MWEB change.  Both
        txids are in self._internal."""
        if not self._mweb_pending():
            return None
        h = self.height()
        m = self.wallet(self.MWEB_WALLET)
        if h == MWEB_HEIGHT - 2:
            f = self.wallet(self.FUNDER)
            if f.balance() < COIN:
                raise HarnessError("the funder cannot fund the MWEB peg-in: mine to it")
            t = f.rpc("sendtoaddress", m.new_address(), sats_to_coin(COIN))
            self._internal.add(t)
            return t
        if h == MWEB_HEIGHT - 1:
            to = m.new_address("mweb")
            bal = m.balance()
            if bal > 0:
                t = m.rpc("sendtoaddress", to, sats_to_coin(bal), "", "", True)
            else:
                t = self.wallet(self.FUNDER).rpc("sendtoaddress", to, sats_to_coin(COIN))
            self._internal.add(t)
            self._pegin = t
            return t
        return None

    def grind(self, want, expect=None, max_tries=3000):
        """Mines the next block again and again until its card matches want
        (see card_matcher): mine to a fresh address, look at the hash,
        invalidateblock it and retry (its transactions go back to the
        mempool).  With expect (txids), the mempool must hold exactly those.
        Every try must take the same transactions as the first (checked).
        Returns (getblock verbosity 1 of the accepted block, tries)."""
        match = card_matcher(want)
        if expect is not None:
            self._check_pool(expect)
        self._mweb_step()
        tip = self.height()
        first = None
        for k in range(max_tries):
            [h] = self._generate(1, self.fresh_address())
            b = self.block(h, 1)
            txs = sorted(t for t in self.block_txids(b)
                         if t not in self._internal or expect is None or t in expect)
            if first is None:
                first = txs
                if expect is not None and txs != sorted(expect):
                    raise HarnessError("block %d holds %s, expected %s"
                                       % (tip + 1, txs, sorted(expect)))
            elif txs != first:
                raise HarnessError("try %d of block %d holds %s, the first held %s"
                                   % (k + 1, tip + 1, txs, first))
            if match(card_of(h)):
                return b, k + 1
            self.rpc("invalidateblock", h)
            if self.height() != tip:
                raise HarnessError("invalidateblock left the tip at %d" % self.height())
        raise HarnessError("no block with card %r after %d tries" % (want, max_tries))

    def reorg(self, depth, blocks=None):
        """Replaces the last depth blocks: invalidateblock at tip - depth + 1,
        then mines blocks (default depth + 1: a longer chain, as a real
        reorganisation) to fresh addresses.  The transactions of the replaced
        blocks go back to the mempool and into the first new block.  Returns
        {height: (old hash, new hash)} for the replaced heights (the new tip
        is tip - depth + blocks)."""
        if blocks is None:
            blocks = depth + 1
        if depth < 1 or blocks < depth:
            raise ValueError("reorg(%d, %d): depth >= 1 and blocks >= depth" % (depth, blocks))
        tip = self.height()
        first = tip - depth + 1
        old = dict(zip(range(first, tip + 1),
                       self.rpc_batch([("getblockhash", [h]) for h in range(first, tip + 1)])))
        self.rpc("invalidateblock", old[first])
        if self.height() != first - 1:
            raise HarnessError("invalidateblock left the tip at %d" % self.height())
        for _ in range(blocks):
            self._mweb_step()
            self._generate(1, self.fresh_address())
        new = self.rpc_batch([("getblockhash", [h]) for h in range(first, tip + 1)])
        out = {}
        for h, n in zip(range(first, tip + 1), new):
            if n == old[h]:
                raise HarnessError("reorg(%d) left block %d as it was" % (depth, h))
            out[h] = (old[h], n)
        if self.height() != first - 1 + blocks:
            raise HarnessError("reorg: tip at %d, expected %d" % (self.height(), first - 1 + blocks))
        return out

    # -- export ---------------------------------------------------------------

    def export(self, first, last, dealer, min_bet, max_bet, timeout_blocks=12,
               preset="bethash", keys=None):
        """Blocks first..last as a `hashjack replay` document, Bitcoin format:
        {"chain": "bitcoin", "genesis", "dealer", "rules", "blocks": [{"height",
        "hash", "parent", "txs": [raw hex of every transaction of the block, in
        order]}]}; hashes as getblockhash gives them (64 hex, no 0x).  rules:
        preset and timeout_blocks are left out when None; keys: rule keys
        over the preset's (nodes.replay_rules)."""
        rules = replay_rules(min_bet, max_bet, timeout_blocks, preset, keys)
        blocks = []
        heights = list(range(first, last + 1))
        for i in range(0, len(heights), 100):
            chunk = heights[i:i + 100]
            hashes = self.rpc_batch([("getblockhash", [h]) for h in chunk])
            got = self.rpc_batch([("getblock", [x, 2]) for x in hashes], timeout=120)
            for h, x, b in zip(chunk, hashes, got):
                if b["hash"] != x or b["height"] != h:
                    raise HarnessError("block %d changed while exporting" % h)
                blocks.append({"height": h, "hash": x,
                               "parent": b.get("previousblockhash", "0" * 64),
                               "txs": [t["hex"] for t in b["tx"]]})
        return {"chain": "bitcoin", "genesis": self.genesis(), "dealer": dealer,
                "rules": rules, "blocks": blocks}

    # -- the daemon's view ---------------------------------------------------------

    def daemon_chain(self):
        """The [chain] keys daemon.Hashjackd writes for this node."""
        return {"family": "bitcoin", "coin": "litecoin", "rpc_url": self.url,
                "rpc_cookie_file": self.cookie_file}


class _PortTaken(Exception):
    pass


def _push(hex_data):
    """The push of data in an OP_RETURN script as the node writes it."""
    n = len(hex_data) // 2
    if n <= 75:
        return "%02x" % n + hex_data
    if n <= 255:
        return "4c%02x" % n + hex_data
    return "4d" + struct.pack("<H", n).hex() + hex_data

