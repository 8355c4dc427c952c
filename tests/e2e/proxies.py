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
import os
import select
import socket
import ssl
import subprocess
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
