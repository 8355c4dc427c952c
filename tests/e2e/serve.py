"""hashjack serve as a test runs it (docs/API.md), and its clients.

Python 3, standard library only but for python3-websocket (Debian's
websocket-client), which only WsClient imports.  Serve: `hashjack serve`
on a daemon's configuration at a free port, started, stopped, asked over
HTTP (a connection per request, or raw bytes); WsClient: a client of its
/v1/stream whose thread reads every message and answers pings.
"""

import http.client
import itertools
import json
import os
import re
import socket
import signal
import subprocess
import threading

from procs import HarnessError, file_tail, stop_process, track, wait_until


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
        # A daemon's configuration, or a watcher's copy of a dealer's
        # state (dm.serve_args: --db FILE --card-log FILE).
        source = getattr(self.dm, "serve_args", None) or ["-c", self.dm.conf]
        args = [self.hashjack, "serve"] + source + ["--serve.listen=127.0.0.1:%d" % port]
        args += ["--serve.%s=%s" % kv for kv in self.keys.items()]
        err = open(self.stderr_path, "wb")
        self.proc = track(subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err,
                                           stderr=err, start_new_session=True))
        err.close()

        def listening():
            if self.proc.poll() is not None:
                raise HarnessError("hashjack serve exited with %s:\n%s"
                                   % (self.proc.returncode, file_tail(self.stderr_path)))
            m = self.LISTENING.search(self.stderr())
            return m and int(m.group(1))
        self.port = wait_until(listening, timeout, "hashjack serve to listen")
        return self

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=10):
        """SIGTERM; returns the exit status (0 when it stopped cleanly; -9
        when it had to be killed after timeout)."""
        return stop_process(self.proc, signal.SIGTERM, timeout)

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
