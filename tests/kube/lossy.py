"""tests/kube/lossy.py - an HTTPS proxy in front of the API server that
loses answers on purpose (test_cli.py): the request goes through and the
server acts on it, but the client gets no answer, as when a connection
dies after the request was sent. Requests that are not to be lost pass
through unchanged (HTTP/1.1, answers read whole: no watch or log
streams).

    with lossy.Proxy(server, ca, pki_dir, lose=[("POST", r"/jobs$")]) as p:
        p.url, p.ca, p.lost, p.seen

With clock_s, the answers' Date says the server's clock is that many
seconds ahead: as if that much time had passed since the objects there
were made. With ca and d None, plain HTTP on both sides (slurmrestd's,
tests/slurm/).
"""
import email.utils
import http.client
import http.server
import os
import re
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse

HOP = {"connection", "keep-alive", "transfer-encoding", "host",
       "content-length", "upgrade"}


def make_cert(d):
    """A self-signed serving certificate for IP:127.0.0.1 in d."""
    key, crt = os.path.join(d, "proxy.key"), os.path.join(d, "proxy.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "1", "-keyout", key, "-out", crt,
                    "-subj", "/CN=paictl-test-proxy",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return crt, key


class Proxy:
    def __init__(self, server, ca, d, lose, clock_s=0):
        self.server, self.ca, self.lose = server, ca, list(lose)
        self.clock_s = clock_s
        self.tls = d is not None
        if self.tls:
            self.crt, self.key = make_cert(d)
        self.lost, self.seen = [], []
        self.lock = threading.Lock()

    def __enter__(self):
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def forward(self):
                proxy.relay(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     Handler)
        self.httpd.daemon_threads = True
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.crt, self.key)
            ctx.set_alpn_protocols(["http/1.1"])
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                                server_side=True)
        self.url = "%s://127.0.0.1:%d" % ("https" if self.tls else "http",
                                          self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def to_lose(self, method, path):
        with self.lock:
            for i, (m, rx) in enumerate(self.lose):
                if m == method and re.search(rx, path.split("?")[0]):
                    del self.lose[i]
                    return True
        return False

    def relay(self, h):
        n = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(n) if n else None
        u = urllib.parse.urlsplit(self.server)
        if self.tls:
            ctx = ssl.create_default_context(cafile=self.ca)
            up = http.client.HTTPSConnection(u.hostname, u.port,
                                             context=ctx, timeout=30)
        else:
            up = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        hdrs = {k: v for k, v in h.headers.items() if k.lower() not in HOP}
        up.request(h.command, h.path, body=body, headers=hdrs)
        r = up.getresponse()
        data = r.read()
        up.close()
        with self.lock:
            self.seen.append((h.command, h.path, r.status))
        if self.to_lose(h.command, h.path):
            with self.lock:
                self.lost.append((h.command, h.path, r.status))
            # the server did it; the client hears nothing
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        h.send_response_only(r.status)
        for k, v in r.getheaders():
            if k.lower() == "date" and self.clock_s:
                v = email.utils.formatdate(time.time() + self.clock_s,
                                           usegmt=True)
            if k.lower() not in HOP:
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
