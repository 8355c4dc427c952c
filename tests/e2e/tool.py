"""The hashjack tool as a test runs it (docs/CLI.md): replay, verify.

Python 3, standard library only.  find_hashjack(); replay(): `hashjack
replay` of a document, its lines parsed and as text; ReplayFollower: a
card log written by replay in the daemon's stead, for what reads a card
log (the bot) without hashjackd; verify(): `hashjack verify` once;
VerifyFollower: `hashjack verify --follow` beside a test that reads its
progress line and its failures as they come.  `hashjack serve` is
serve.py's.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import threading

from procs import ROOT, HarnessError, add_exit_hook, wait_until


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
