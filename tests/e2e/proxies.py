"""Proxies a test puts between hashjackd and its node.

Python 3, standard library only.  RpcProxy: an HTTP proxy in front of a
node's JSON-RPC that can swallow a method's calls or lose their answers,
and whose subclasses may rewrite answers; TcpProxy: a TCP relay to a
node's port that can cut every connection it carries and refuse new ones
(the push wake-up's WebSocket or long poll dropped), and counts the
connections made; TlsProxy: a TLS-terminating relay to a node's port (a
hosted endpoint's https:// and wss:// in front of anvil, which serves
JSON-RPC and WebSocket on one port), with self_signed() making its
certificate at test time with the openssl command.
"""

import http.server
import json
import os
import select
import socket
import ssl
import subprocess
import sys
import threading
import urllib.error
import urllib.request


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
                # The client may be gone (a daemon killed meanwhile).
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

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


def listening():
    """A socket listening on 127.0.0.1 at a free port: (socket, port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock, sock.getsockname()[1]


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
        self.sock, self.port = listening()
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


class HostedProxy:
    """A node as a hosted provider serves it: an HTTP proxy on 127.0.0.1 in
    front of upstream's JSON-RPC (POST only: a WebSocket upgrade, GET, is
    refused with 403, as an endpoint without push), with the limits such
    providers set, each counted:

    - batch_max: a batch of more calls is refused (`refused`), in the form
      batch_form: "whole32005" (one error object, -32005 "batch size too
      large, max N", some providers' words), "whole32600" (geth's: -32600
      "batch too large"), "items" (the first N calls answered, each one
      after them an error -32005), "http400", or "nobatch" (every batch
      refused, even of one call: -32600);
    - max_response: an answer longer than this many bytes is refused
      (`capped`) with HTTP 413 (cap_form "413") or cut short: its whole
      length announced, max_response bytes sent, the connection closed
      ("cut");
    - rate_every: every rate_every-th POST is answered HTTP 429
      (`limited`; `limited_sends` of them eth_sendRawTransaction), with
      "Retry-After: retry_after" when that is set.

    Every call passed on is counted by method (`calls`); `biggest` is the
    largest batch passed on."""

    def __init__(self, upstream, batch_max=None, batch_form="whole32005",
                 max_response=None, cap_form="413", rate_every=None, retry_after=None):
        self.upstream = upstream.rstrip("/")
        self.batch_max, self.batch_form = batch_max, batch_form
        self.max_response, self.cap_form = max_response, cap_form
        self.rate_every, self.retry_after = rate_every, retry_after
        self.lock = threading.Lock()
        self.posts = self.refused = self.capped = self.limited = self.upgrades = 0
        self.limited_sends = 0
        self.biggest = 0
        self.calls = {}
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def reply(self, code, body, extra=()):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                with proxy.lock:
                    proxy.upgrades += 1
                self.reply(403, b"websocket not enabled on this endpoint")
                self.close_connection = True

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                code, out, extra, cut = proxy._answer(body)
                if cut:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out[:proxy.max_response])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.reply(code, out, extra)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        default = self.server.handle_error

        def handle_error(request, client_address):
            # A client that went away (a daemon stopped mid-answer, a cut
            # answer's reader) is not worth a traceback.
            if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                default(request, client_address)
        self.server.handle_error = handle_error
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _refusal(self, req):
        """The batch limit's answer to req (a list of calls)."""
        n = self.batch_max
        if self.batch_form == "http400":
            return 400, b"too many calls in one batch"
        if self.batch_form == "items":
            out = []
            for i, c in enumerate(req):
                if i < n:
                    out.append(None)  # answered by the node
                else:
                    out.append({"jsonrpc": "2.0", "id": c.get("id"), "error": {
                        "code": -32005, "message": "batch size too large, max %d" % n}})
            return "items", out
        if self.batch_form == "whole32600" or self.batch_form == "nobatch":
            err = {"code": -32600, "message": "batch too large"}
        else:
            err = {"code": -32005, "message": "batch size too large, max %d" % n}
        return 200, json.dumps({"jsonrpc": "2.0", "id": None, "error": err}).encode()

    def _forward(self, body):
        req = urllib.request.Request(self.upstream, body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return 200, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except (OSError, urllib.error.URLError) as e:
            return 502, ("proxy: %s" % e).encode()

    def _answer(self, body):
        """(status, body, extra headers, cut) for one POST."""
        with self.lock:
            self.posts += 1
            if self.rate_every and self.posts % self.rate_every == 0:
                self.limited += 1
                if b"eth_sendRawTransaction" in body:
                    self.limited_sends += 1
                extra = [("Retry-After", str(self.retry_after))] if self.retry_after else []
                return 429, b'{"error":"too many requests"}', extra, False
        try:
            req = json.loads(body)
        except ValueError:
            req = None
        calls = req if isinstance(req, list) else [req] if isinstance(req, dict) else []
        partial = None
        if isinstance(req, list) and self.batch_max is not None and (
                len(req) > self.batch_max or self.batch_form == "nobatch"):
            with self.lock:
                self.refused += 1
            code, out = self._refusal(req)
            if code != "items":
                return code, out, [], False
            partial = out
            keep = [c for c, o in zip(req, out) if o is None]
            calls = keep
            body = json.dumps(keep).encode()
        with self.lock:
            for c in calls:
                if isinstance(c, dict):
                    m = c.get("method")
                    self.calls[m] = self.calls.get(m, 0) + 1
            if isinstance(req, list):
                self.biggest = max(self.biggest, len(calls))
        code, out = self._forward(body)
        if partial is not None and code == 200:
            got = {a.get("id"): a for a in json.loads(out)}
            out = json.dumps([got.get(c.get("id")) if o is None else o
                              for c, o in zip(req, partial)]).encode()
        if self.max_response is not None and len(out) > self.max_response:
            with self.lock:
                self.capped += 1
            if self.cap_form == "cut":
                return 200, out, [], True
            return 413, b"response too large for this plan", [], False
        return code, out, [], False

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def self_signed(directory, name, cn="localhost", san="IP:127.0.0.1,DNS:localhost"):
    """A self-signed certificate (its own CA) made with the openssl command:
    (DIR/NAME.pem, DIR/NAME.key), for cn with the subjectAltName san."""
    crt, key = (os.path.join(directory, name + ext) for ext in (".pem", ".key"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-keyout", key, "-out", crt, "-subj", "/CN=" + cn,
                    "-addext", "subjectAltName=" + san],
                   check=True, capture_output=True, timeout=30)
    return crt, key


class TlsProxy:
    """A TLS-terminating relay on 127.0.0.1 (a free port, self.port) to
    127.0.0.1:upstream_port: each connection's TLS handshake is made with
    certfile and keyfile (Python's ssl module, TLS 1.2 at least), then its
    bytes are relayed both ways in one thread (an SSL object is never used
    by two threads).  accepted counts the connections made to it, passed
    those whose handshake succeeded and were relayed, failed those whose
    handshake failed (a client that refused the certificate), with the
    reasons in failures."""

    def __init__(self, upstream_port, certfile, keyfile):
        self.upstream_port = upstream_port
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        self.ctx.load_cert_chain(certfile, keyfile)
        self.lock = threading.Lock()
        self.pairs = []
        self.accepted = self.passed = self.failed = 0
        self.failures = []
        self.closed = False
        self.sock, self.port = listening()
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
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        c.settimeout(10)
        try:
            t = self.ctx.wrap_socket(c, server_side=True)
        except (OSError, ssl.SSLError) as e:
            with self.lock:
                self.failed += 1
                self.failures.append(str(e))
            c.close()
            return
        try:
            u = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
        except OSError:
            t.close()
            return
        for x in (t, u):
            x.settimeout(None)
            x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            if self.closed:
                t.close()
                u.close()
                return
            self.passed += 1
            self.pairs.append((t, u))
        try:
            while True:
                # What TLS has decrypted already first: select() does
                # not see it.
                ready = [t] if t.pending() else select.select([t, u], [], [], 1.0)[0]
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        raise EOFError
                    (u if s is t else t).sendall(data)
        except (OSError, EOFError, ValueError):
            pass
        for x in (t, u):
            try:
                x.close()
            except OSError:
                pass

    def close(self):
        with self.lock:
            self.closed = True
            pairs, self.pairs = self.pairs, []
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        for pair in pairs:
            for x in pair:
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
