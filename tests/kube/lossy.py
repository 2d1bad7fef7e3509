"""tests/kube/lossy.py - an HTTPS proxy in front of the API server that
misbehaves on purpose, as networks between a user and a cluster do
(test_cli.py):

- it loses the answer to a request the server carried out (`lose`): the
  request goes through and the server acts on it, but the client gets
  no answer, as when a connection dies after the request was sent;
- it ends every watch and follow stream (`cut_streams()`), at once or
  after a while, cleanly, as a proxy with a short timeout or an API
  server that restarts does;
- it freezes every connection open at that moment (`freeze()`): no byte
  more either way, no FIN, no RST, as a NAT entry or a load balancer
  that forgot the connection; connections made afterwards work;
- it can show a certificate signed by a CA of the caller's (`sign`),
  for a CA the machine trusts but the kubeconfig does not name;
- it can write every answer's header lines as HTTP allows but few
  servers do (`mangle`): names in any case, no blank or several blanks
  and tabs around values, so that a client reads them whatever their
  spacing or case.

Requests are relayed as they come: answers read whole, streams (chunked
bodies: watches, logs followed) chunk by chunk, upgrades (exec's
WebSocket) byte by byte both ways. Every request is recorded in `seen`
as (method, path with query, status) when its answer's head comes.

    with lossy.Proxy(server, ca, pki_dir, lose=[("POST", r"/jobs$")]) as p:
        p.url, p.crt, p.lost, p.seen, p.cut_streams(), p.freeze()

With clock_s, the answers' Date says the server's clock is that many
seconds ahead: as if that much time had passed since the objects there
were made. With ca and d None, plain HTTP on both sides (slurmrestd's,
tests/slurm/).
"""
import email.utils
import os
import re
import select
import socket
import socketserver
import ssl
import subprocess
import threading
import time
import urllib.parse

HOP = {"connection", "keep-alive", "transfer-encoding", "host",
       "content-length", "upgrade", "proxy-connection"}


def make_cert(d, sign=None):
    """A serving certificate for IP:127.0.0.1 in d: self-signed, or
    signed by sign = (ca.crt, ca.key)."""
    key, crt = os.path.join(d, "proxy.key"), os.path.join(d, "proxy.crt")
    subj = ["-subj", "/CN=paictl-test-proxy"]
    ext = os.path.join(d, "proxy.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    if not sign:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                        "-nodes", "-days", "1", "-keyout", key, "-out", crt,
                        *subj, "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        return crt, key
    csr = os.path.join(d, "proxy.csr")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", key, "-out", csr, *subj],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", sign[0],
                    "-CAkey", sign[1], "-CAcreateserial", "-out", crt,
                    "-days", "1", "-extfile", ext],
                   check=True, capture_output=True)
    return crt, key


def make_ca(d, name):
    """A CA (crt, key) in d."""
    crt, key = os.path.join(d, name + ".crt"), os.path.join(d, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "1", "-keyout", key, "-out", crt,
                    "-subj", "/CN=" + name], check=True, capture_output=True)
    return crt, key


def pending(sock):
    """Bytes a TLS socket has read and not handed over yet (select does
    not see them); none for a plain one."""
    return sock.pending() if isinstance(sock, ssl.SSLSocket) else 0


def is_stream(path):
    """A watch or a log followed: its answer comes as it happens."""
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
    return q.get("watch", [""])[0] in ("1", "true") or \
        q.get("follow", [""])[0] == "true"


def mangled(i, line):
    """Header line i as HTTP allows but few servers write it: the name
    in upper, lower or alternating case, the value after no blank or
    after several blanks and tabs, and blanks after it."""
    name, _, value = line.partition(": ")
    name = (name.upper(), name.lower(),
            "".join(ch.upper() if j % 2 else ch.lower()
                    for j, ch in enumerate(name)))[i % 3]
    return name + ":" + ("", " \t  ", "\t")[i % 3] + value + \
        ("", "  ", " \t")[(i + 1) % 3]


class Gone(Exception):
    """The connection is frozen, closed, or the proxy stops."""


def read_head(sock, buf):
    """(head bytes, rest) of the next message on sock, buf holding what
    came already; raises Gone at the end."""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(65536)
        if not data:
            raise Gone()
        buf += data
    i = buf.index(b"\r\n\r\n") + 4
    return buf[:i], buf[i:]


def parse_head(head):
    """(first line, [(name, value)]) of a head."""
    lines = head.decode("latin-1").split("\r\n")
    hdrs = []
    for ln in lines[1:]:
        if ":" in ln:
            k, _, v = ln.partition(":")
            hdrs.append((k.strip(), v.strip()))
    return lines[0], hdrs


def header(hdrs, name):
    for k, v in hdrs:
        if k.lower() == name:
            return v
    return None


class Proxy:
    def __init__(self, server, ca, d, lose=(), clock_s=0, sign=None,
                 slow=(), refuse=(), mangle=False):
        self.server, self.ca, self.lose = server, ca, list(lose)
        self.clock_s = clock_s
        self.mangle = mangle
        self.tls = d is not None
        # (method, path regex, seconds): such requests wait that long
        # before they go on, as behind a slow admission webhook
        self.slow = list(slow)
        # (method, path regex): answered 429 with Retry-After: 1, once
        # each, without going on
        self.refuse = list(refuse)
        # (method, path, start, end, 429 or None) of each request
        self.spans = []
        if self.tls:
            self.crt, self.key = make_cert(d, sign)
        self.lost, self.seen = [], []
        self.lock = threading.Lock()
        self.conns = 0          # connections accepted so far
        self.frozen_below = 0   # connections before this one are frozen
        self.cut_after = None   # streams end this many s after their head
        self.cut_gen = 0        # streams older than a cut_streams() end
        self.stopping = False
        u = urllib.parse.urlsplit(server)
        self.up_host, self.up_port = u.hostname, u.port
        if self.tls:
            self.up_ctx = ssl.create_default_context(cafile=ca)
            self.up_ctx.set_alpn_protocols(["http/1.1"])

    # ---- what the tests call --------------------------------------------

    def freeze(self):
        """Every connection open now relays nothing more, either way."""
        with self.lock:
            self.frozen_below = self.conns

    def cut_streams(self, after=0.0):
        """Every watch and follow stream open now ends, and each one
        opened from now on ends `after` seconds after its head."""
        with self.lock:
            self.cut_after = after
            self.cut_gen += 1

    def stop_cutting(self):
        with self.lock:
            self.cut_after = None

    def count(self, pattern):
        """How many requests so far had a path (query included) that
        pattern matches."""
        with self.lock:
            return sum(1 for s in self.seen if re.search(pattern, s[1]))

    # ---- the server ---------------------------------------------------------

    def __enter__(self):
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                with proxy.lock:
                    n = proxy.conns
                    proxy.conns += 1
                try:
                    proxy.serve(self.request, n)
                except (Gone, OSError, ssl.SSLError):
                    pass

        class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.srv = Server(("127.0.0.1", 0), Handler)
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.crt, self.key)
            ctx.set_alpn_protocols(["http/1.1"])
            self.srv.socket = ctx.wrap_socket(
                self.srv.socket, server_side=True,
                do_handshake_on_connect=False)
        self.url = "%s://127.0.0.1:%d" % ("https" if self.tls else "http",
                                          self.srv.server_address[1])
        self.thread = threading.Thread(target=self.srv.serve_forever,
                                       daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping = True
        self.srv.shutdown()
        self.srv.server_close()

    def frozen(self, n):
        return n < self.frozen_below or self.stopping

    def wait_while_frozen(self, n):
        """A frozen connection's thread: holds it, silent, until the
        proxy stops."""
        while not self.stopping:
            time.sleep(0.2)
        raise Gone()

    def in_flight(self, method, pattern):
        """The most requests of method whose path matches pattern that
        were under way at once."""
        with self.lock:
            mine = [(t0, t1) for m, p, t0, t1, _ in self.spans
                    if m == method and re.search(pattern, p.split("?")[0])]
        ev = sorted([(t0, 1) for t0, _ in mine] + [(t1, -1) for _, t1 in mine])
        most = n = 0
        for _, d in ev:
            n += d
            most = max(most, n)
        return most

    def match(self, rules, method, path, take):
        with self.lock:
            for i, r in enumerate(rules):
                if r[0] == method and re.search(r[1], path.split("?")[0]):
                    if take:
                        del rules[i]
                    return r
        return None

    def to_lose(self, method, path):
        with self.lock:
            for i, (m, rx) in enumerate(self.lose):
                if m == method and re.search(rx, path.split("?")[0]):
                    del self.lose[i]
                    return True
        return False

    def serve(self, cs, n):
        if self.tls:
            cs.do_handshake()
        buf = b""
        while True:
            if self.frozen(n):
                self.wait_while_frozen(n)
            head, buf = read_head(cs, buf)
            if self.frozen(n):
                self.wait_while_frozen(n)
            line, hdrs = parse_head(head)
            method, path, _ = line.split(" ", 2)
            clen = int(header(hdrs, "content-length") or 0)
            while len(buf) < clen:
                data = cs.recv(65536)
                if not data:
                    raise Gone()
                buf += data
            body, buf = buf[:clen], buf[clen:]
            if not self.relay(cs, n, method, path, hdrs, body, buf):
                return

    def upstream(self):
        s = socket.create_connection((self.up_host, self.up_port),
                                     timeout=30)
        if not self.tls:
            return s
        return self.up_ctx.wrap_socket(s, server_hostname=self.up_host)

    def relay(self, cs, n, method, path, hdrs, body, rest):
        """One request: False when the connection is done after it."""
        t0 = time.time()
        if self.match(self.refuse, method, path, True):
            msg = b"Too many requests, please try again later.\n"
            cs.sendall(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1"
                       b"\r\nContent-Type: text/plain\r\nContent-Length: "
                       b"%d\r\n\r\n%s" % (len(msg), msg))
            with self.lock:
                self.seen.append((method, path, 429))
                self.spans.append((method, path, t0, time.time(), 429))
            return True
        slow = self.match(self.slow, method, path, False)
        if slow:
            time.sleep(slow[2])
        ok = self.relay_on(cs, n, method, path, hdrs, body, rest)
        with self.lock:
            self.spans.append((method, path, t0, time.time(), None))
        return ok

    def relay_on(self, cs, n, method, path, hdrs, body, rest):
        upgrade = (header(hdrs, "upgrade") or "").lower() == "websocket"
        us = self.upstream()
        out = ["%s %s HTTP/1.1" % (method, path),
               "Host: %s:%d" % (self.up_host, self.up_port)]
        for k, v in hdrs:
            if k.lower() not in HOP or (upgrade and k.lower() in
                                        ("upgrade", "connection")):
                out.append("%s: %s" % (k, v))
        if body:
            out.append("Content-Length: %d" % len(body))
        us.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body)
        uhead, ubuf = read_head(us, b"")
        status_line, uhdrs = parse_head(uhead)
        status = int(status_line.split(" ")[1])
        with self.lock:
            self.seen.append((method, path, status))
        if upgrade and status == 101:
            cs.sendall(uhead + ubuf)
            self.pump(cs, us, n, rest)
            return False
        chunked = "chunked" in (header(uhdrs, "transfer-encoding") or "")
        if chunked and is_stream(path):
            self.stream(cs, us, n, status_line, uhdrs, ubuf)
            us.close()
            return True
        data = (self.dechunk(us, ubuf) if chunked
                else self.whole(us, uhdrs, ubuf))
        us.close()
        if self.to_lose(method, path):
            with self.lock:
                self.lost.append((method, path, status))
            # the server did it; the client hears nothing
            cs.shutdown(socket.SHUT_RDWR)
            return False
        cs.sendall(self.head(status_line, uhdrs,
                             "Content-Length: %d" % len(data)) + data)
        return True

    def head(self, status_line, uhdrs, framing):
        out = [status_line]
        for k, v in uhdrs:
            if k.lower() == "date" and self.clock_s:
                v = email.utils.formatdate(time.time() + self.clock_s,
                                           usegmt=True)
            if k.lower() not in HOP:
                out.append("%s: %s" % (k, v))
        out.append(framing)
        if self.mangle:
            out[1:] = [mangled(i, ln) for i, ln in enumerate(out[1:])]
        return ("\r\n".join(out) + "\r\n\r\n").encode("latin-1")

    def whole(self, us, uhdrs, buf):
        clen = header(uhdrs, "content-length")
        while clen is None or len(buf) < int(clen):
            data = us.recv(65536)
            if not data:
                break
            buf += data
        return buf if clen is None else buf[:int(clen)]

    def dechunk(self, us, buf):
        """A chunked body read whole."""
        out = b""
        while True:
            while b"\r\n" not in buf:
                data = us.recv(65536)
                if not data:
                    return out
                buf += data
            size_line = buf[:buf.index(b"\r\n")]
            size = int(size_line.split(b";")[0], 16)
            need = len(size_line) + 2 + size + 2
            while len(buf) < need:
                data = us.recv(65536)
                if not data:
                    return out
                buf += data
            out += buf[len(size_line) + 2:len(size_line) + 2 + size]
            buf = buf[need:]
            if size == 0:
                return out

    def stream(self, cs, us, n, status_line, uhdrs, buf):
        """A chunked body, chunk by chunk; ended cleanly (a last empty
        chunk) when the streams are cut."""
        cs.sendall(self.head(status_line, uhdrs, "Transfer-Encoding: chunked"))
        with self.lock:
            gen, after = self.cut_gen, self.cut_after
        end = None if after is None else time.time() + after
        us.setblocking(False)
        while True:
            if self.frozen(n):
                self.wait_while_frozen(n)
            with self.lock:
                if self.cut_gen != gen:
                    end = time.time()
            if end is not None and time.time() >= end:
                cs.sendall(b"0\r\n\r\n")
                return
            while b"\r\n" in buf:
                size_line = buf[:buf.index(b"\r\n")]
                size = int(size_line.split(b";")[0], 16)
                if len(buf) < len(size_line) + 2 + size + 2:
                    break
                chunk = buf[:len(size_line) + 2 + size + 2]
                buf = buf[len(chunk):]
                cs.sendall(chunk)
                if size == 0:
                    return
            r, _, _ = select.select([us], [], [], 0.1)
            if r or pending(us):
                try:
                    data = us.recv(65536)
                except ssl.SSLWantReadError:
                    continue
                if not data:
                    return
                buf += data

    def pump(self, cs, us, n, rest):
        """An upgraded connection, both ways, until either end closes."""
        if rest:
            us.sendall(rest)
        for s in (cs, us):
            s.setblocking(False)
        while True:
            if self.frozen(n):
                self.wait_while_frozen(n)
            r, _, _ = select.select([cs, us], [], [], 0.1)
            for s in set(r) | {s for s in (cs, us) if pending(s)}:
                other = us if s is cs else cs
                try:
                    data = s.recv(65536)
                except ssl.SSLWantReadError:
                    continue
                if not data:
                    return
                other.setblocking(True)
                other.sendall(data)
                other.setblocking(False)
