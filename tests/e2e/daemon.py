"""hashjackd as a test runs it, and what it tells systemd and Prometheus.

Python 3, standard library only.  What it gives a test:

- Hashjackd: the daemon with a configuration written for it on a node,
  started, stopped (SIGTERM, kill -9), its card log and database cursor
  waited for, its stderr, its [metrics] listener; find_hashjackd();
  litecoind_daemon(): a Hashjackd as the Bitcoin-family suites run it;
  write_key(): an EVM dealer key file for [payout] dealer_key.
- NotifySocket: systemd's notify protocol read by a test ($NOTIFY_SOCKET:
  every message, with when it came, and the STATUS= lines).
- parse_prometheus(), metric(): its /metrics page read.
"""

import os
import re
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.request

from logs import last_logged_height, read_cardlog
from procs import (ROOT, HarnessError, file_tail, own_tempdir, stop_process, track,
                   wait_until)


def find_hashjackd(path=None):
    for p in (path, os.environ.get("HJ_HASHJACKD"),
              os.path.join(ROOT, "build", "release", "hashjackd")):
        if p and os.access(p, os.X_OK):
            return p
    raise HarnessError("hashjackd not found: pass its path")


class Hashjackd:
    """The daemon with a generated config in workdir (a temp dir by default)
    on a node: one with a daemon_chain() method giving its [chain] keys
    (btc_node.Litecoind: family = bitcoin), else an EVM node at node.url
    (an evm_node.Anvil, or a proxy in front of one):
    workdir/hashjackd.conf, workdir/state/ (its state directory, card log
    workdir/state/cards.jsonl), stderr in workdir/hashjackd.stderr."""

    def __init__(self, binary, node, dealer, min_bet, max_bet, timeout_blocks=None,
                 confirmations=1, poll_interval_ms=50, batch_blocks=None,
                 start_height=None, preset="bethash", workdir=None, extra=None,
                 overrides=(), metrics=False):
        self.binary = binary
        self.node = node
        self.workdir = workdir or own_tempdir("hj-daemon-")
        self.state_dir = os.path.join(self.workdir, "state")
        os.makedirs(self.state_dir, exist_ok=True)
        self.card_log = os.path.join(self.state_dir, "cards.jsonl")
        self.conf = os.path.join(self.workdir, "hashjackd.conf")
        self.stderr_path = os.path.join(self.workdir, "hashjackd.stderr")
        self.overrides = list(overrides)
        self.dealer = dealer.lower()
        self.proc = None
        # A node other than anvil says what [chain] needs (family, url, auth).
        chain = dict(node.daemon_chain()) if hasattr(node, "daemon_chain") \
            else {"family": "evm", "rpc_url": node.url}
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
            f.write("# written by tests/e2e/daemon.py\n")
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
        self.proc = track(subprocess.Popen([self.binary, "-c", self.conf] + self.overrides
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
        return stop_process(self.proc, signal.SIGTERM, timeout)

    def close(self):
        """stop() if it is running (a session's end)."""
        if self.running():
            self.stop()

    def kill9(self):
        return stop_process(self.proc, signal.SIGKILL, 10)

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
                                   % (self.proc.returncode, file_tail(self.stderr_path)))
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
                raise HarnessError("hashjackd is not running:\n%s" % file_tail(self.stderr_path))
            found = self.METRICS_LISTENING.findall(self.stderr())
            return found and int(found[-1])
        return "http://127.0.0.1:%d" % wait_until(port, timeout, "the metrics listener")

    def metrics(self):
        """GET /metrics, parsed (parse_prometheus)."""
        with urllib.request.urlopen(self.metrics_url() + "/metrics", timeout=10) as r:
            return parse_prometheus(r.read().decode())


def write_key(path, key, mode=0o600):
    """The dealer key file ([payout] dealer_key, docs/PAYOUTS-EVM.md): "0x"
    and 64 hex digits and a newline, as the nodes print keys; created (over
    any file there) with `mode`."""
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, (key + "\n").encode())
    finally:
        os.close(fd)
    os.chmod(path, mode)
    return path


def litecoind_daemon(binary, node, dealer, min_bet, max_bet, timeout_blocks=None,
                     confirmations=1, poll_interval_ms=100, **kw):
    """Hashjackd on a btc_node.Litecoind as the Bitcoin-family suites run
    it: polling every 100 ms; [chain] family = bitcoin, coin = litecoin,
    rpc_url, rpc_cookie_file = the node's cookie (the daemon reads it again
    when the node restarts), from the node's daemon_chain()."""
    return Hashjackd(binary, node, dealer, min_bet, max_bet, timeout_blocks,
                     confirmations=confirmations, poll_interval_ms=poll_interval_ms, **kw)


# --------------------------------------------------------------------------
# systemd's notify socket

class NotifySocket:
    """A datagram socket in the role of systemd's $NOTIFY_SOCKET, read all
    the time by a thread, as systemd does: the daemon's sendto blocks once
    the socket's queue is full.  msgs holds every message as (time.monotonic()
    when it came, its text, the last height of card_log then, when a card
    log is given, else None); texts() the texts, read() the STATUS= lines
    (without "STATUS="), the last 1000.  At most MAX_MSGS messages are kept,
    the last ones (a daemon says STATUS= at most once a second)."""

    MAX_MSGS = 100000
    MAX_STATUSES = 1000

    def __init__(self, path, card_log=None):
        self.path = path
        self.card_log = card_log
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.05)
        self.msgs = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _keep(self, data):
        height = last_logged_height(self.card_log) if self.card_log else None
        with self.lock:
            self.msgs.append((time.monotonic(), data.decode("utf-8", "replace"), height))
            del self.msgs[:-self.MAX_MSGS]

    def _drain(self):
        while not self.stopping:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self._keep(data)

    def start_daemon(self, dm, *args):
        """dm.start(*args) (a Hashjackd) with $NOTIFY_SOCKET naming this
        socket; the environment is put back after."""
        os.environ["NOTIFY_SOCKET"] = self.path
        try:
            dm.start(*args)
        finally:
            del os.environ["NOTIFY_SOCKET"]

    def texts(self):
        """Every message's text, in order."""
        with self.lock:
            return [m for _, m, _ in self.msgs]

    def read(self):
        """The STATUS= lines of the messages, in order, the last 1000."""
        out = [line[7:] for m in self.texts() for line in m.split("\n")
               if line.startswith("STATUS=")]
        return out[-self.MAX_STATUSES:]

    def close(self):
        """Stops the thread, keeps what is still queued (a daemon that has
        exited sent all it will), closes and removes the socket."""
        self.stopping = True
        self.thread.join(5)
        self.sock.setblocking(False)
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                break
            self._keep(data)
        self.sock.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


# --------------------------------------------------------------------------
# Prometheus

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
