"""tests/kube/kubelet_server.py - the HTTPS endpoints of the stand-in
kubelet that the API server proxies to (kubernetes-api.md sections 6, 7):

  GET /containerLogs/NS/POD/CONTAINER?follow&previous&timestamps&tailLines
      &limitBytes&sinceTime&sinceSeconds       as the 1.20 kubelet reads
                                               CRI log files
  GET /exec/NS/POD/CONTAINER?command=..&input=1&output=1&error=1&tty=1
      WebSocket, v4.channel.k8s.io (and v4.base64, channel.k8s.io,
      base64.channel.k8s.io, as a 1.20 kubelet)

and, for tests only (never proxied by the API server; curl -k them):

  POST /standin/cut-logs?namespace=NS&pod=P&container=C&afterBytes=N&count=K
      the next K (default 1) follow streams of that container (any
      omitted field matches anything) are cut after N more bytes (default
      0): the connection is closed with no end chunk, as when a kubelet
      or proxy dies. Streams already open are cut too when N is 0.
  GET  /standin/pods      the pods run here, their IPs and processes (JSON)
  GET  /healthz           ok
"""
import datetime
import http.server
import json
import os
import re
import socketserver
import ssl
import subprocess
import threading
import time
import traceback
import urllib.parse

import kubews
import kubexec
import spdy
from kapi import log

TIME_OUT = "%Y-%m-%dT%H:%M:%S"


def parse_time(s):
    """RFC 3339 (the API server sends whole seconds) -> epoch ns."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?"
                     r"(Z|[+-]\d\d:\d\d)", s)
    if not m:
        raise ValueError("bad time %r" % s)
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    dt = datetime.datetime.fromisoformat(m.group(1) + tz)
    return int(dt.timestamp()) * 10**9 + int(((m.group(2) or "") +
                                              "000000000")[:9])


class LogEntry:
    __slots__ = ("ts", "raw_ts", "stream", "data")

    def __init__(self, line):
        ts, stream, tag, content = line.split(b" ", 3)
        self.raw_ts, self.stream = ts, stream
        self.ts = parse_time(ts.decode())
        # a full entry ends its line; a partial one does not
        self.data = content[:-1] if tag == b"P" else content

    def render(self, timestamps):
        if not timestamps:
            return self.data
        secs, frac = divmod(self.ts, 10**9)
        return (time.strftime(TIME_OUT, time.gmtime(secs)) +
                ".%09dZ " % frac).encode() + self.data


class Cuts:
    """Armed cuts of follow streams (the test hook)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.armed = []  # [selector dict, afterBytes, count]
        self.streams = set()

    def arm(self, sel, after, count):
        with self.lock:
            self.armed.append([sel, after, count])
            if after == 0:
                for s in self.streams:
                    if matches(sel, s.key):
                        s.cut_at = s.sent
        return {"armed": True}

    def take(self, key):
        """The byte budget for a new stream with this key, or None."""
        with self.lock:
            for a in self.armed:
                if matches(a[0], key) and a[2] > 0:
                    a[2] -= 1
                    if a[2] == 0:
                        self.armed.remove(a)
                    return a[1]
        return None


def matches(sel, key):
    return all(not sel.get(k) or sel[k] == v for k, v in key.items())


def flag(q, name):
    v = q.get(name, [""])[0]
    return v not in ("", "0", "false", "False")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "paictl-standin-kubelet"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, body, ctype="text/plain; charset=utf-8"):
        body = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        parts = [urllib.parse.unquote(p) for p in u.path.split("/")[1:]]
        return parts, q

    def do_GET(self):
        parts, q = self.route()
        try:
            if parts[0] == "containerLogs" and len(parts) == 4:
                return self.logs(parts[1], parts[2], parts[3], q)
            if parts[0] == "exec" and len(parts) == 4:
                return self.exec_(parts[1], parts[2], parts[3], q)
            if parts == ["healthz"]:
                return self.reply(200, "ok")
            if parts == ["standin", "pods"]:
                return self.reply(200, json.dumps(self.server.pods_info(),
                                                  indent=1),
                                  "application/json")
            self.reply(404, "404 page not found\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass
        except Exception:
            log("kubelet: %s: %s" % (self.path, traceback.format_exc()))
            self.close_connection = True

    def do_POST(self):
        """The control hooks; anything else as a GET (SPDY clients POST
        /exec)."""
        parts, q = self.route()
        if parts == ["standin", "cut-logs"]:
            sel = {k: q.get(k, [""])[0] for k in
                   ("namespace", "pod", "container")}
            return self.reply(200, json.dumps(self.server.cuts.arm(
                sel, int(q.get("afterBytes", ["0"])[0]),
                int(q.get("count", ["1"])[0]))), "application/json")
        self.do_GET()

    # -- logs --
    def find(self, ns, pod, container):
        w = self.server.kubelet.find(ns, pod)
        if w is None:
            self.reply(404, 'pod "%s" does not exist' % pod)
            return None, None
        r = w.runner(container)
        if r is None:
            self.reply(404, 'container "%s" not found in pod "%s"'
                       % (container, pod))
            return None, None
        return w, r

    def log_instance(self, w, r, previous):
        """validateContainerLogStatus(): the instance to read, or an
        error text (400)."""
        st = r.status()
        state, last = st["state"], st["lastState"]
        c, p = r.name, w.name
        if previous:
            if "terminated" not in last:
                return None, ('previous terminated container "%s" in pod '
                              '"%s" not found' % (c, p))
            cur = r.current()
            between = not cur.running and not r.done and r.waiting
            return cur if between else r.instances[-2], None
        if "running" in state or "terminated" in state:
            return r.current(), None
        if "terminated" in last:
            return r.current(), None
        reason = state.get("waiting", {}).get("reason", "")
        text = {"ErrImagePull": "image can't be pulled",
                "ImagePullBackOff": "trying and failing to pull image"
                }.get(reason, reason)
        return None, 'container "%s" in pod "%s" is waiting to start: %s' \
            % (c, p, text)

    def logs(self, ns, pod, container, q):
        w, r = self.find(ns, pod, container)
        if w is None:
            return
        inst, err = self.log_instance(w, r, flag(q, "previous"))
        if err:
            return self.reply(400, err)
        opts = LogOptions(q)
        key = {"namespace": ns, "pod": pod, "container": container}
        stream = Stream(self, key, self.server.cuts)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.server.cuts.streams.add(stream)
        try:
            if stream.send_log(inst, opts):
                stream.end()
        finally:
            self.server.cuts.streams.discard(stream)

    # -- exec --
    def exec_(self, ns, pod, container, q):
        w, r = self.find(ns, pod, container)
        if w is None:
            return
        inst = r.current()
        if inst is None or not inst.running:
            return self.reply(500, 'container not found ("%s")' % container)
        upgrade = self.headers.get("Upgrade", "").lower()
        if upgrade == "spdy/3.1":
            return self.exec_spdy(w, inst, q)
        if upgrade != "websocket":
            return self.reply(400, "Upgrade request required")
        proto = kubews.choose_protocol(
            self.headers.get("Sec-WebSocket-Protocol"),
            self.server.protocols)
        if proto is None:
            return self.reply(403, "")
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", kubews.accept_key(
            self.headers.get("Sec-WebSocket-Key", "")))
        self.send_header("Sec-WebSocket-Protocol", proto)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        kubexec.WsExec(self.connection, proto, w, inst, q).run()

    def exec_spdy(self, w, inst, q):
        """SPDY/3.1, as kubectl falls back to when WebSocket v5 is
        refused: the protocol negotiated as httpstream.Handshake() does."""
        offered = [p.strip() for v in self.headers.get_all(
            "X-Stream-Protocol-Version") or [] for p in v.split(",")]
        if not offered:
            return self.reply(400, "unable to upgrade: "
                              "X-Stream-Protocol-Version is required")
        proto = next((p for p in offered if p in spdy.PROTOCOLS), None)
        if proto is None:
            return self.reply(403, "unable to upgrade: unable to negotiate "
                              "protocol: client supports %s, server accepts "
                              "%s" % (offered, list(spdy.PROTOCOLS)))
        self.send_response(101)
        self.send_header("Connection", "Upgrade")
        self.send_header("Upgrade", "SPDY/3.1")
        self.send_header("X-Stream-Protocol-Version", proto)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        spdy.SpdyExec(self.connection, proto, w, inst, q).run()


class LogOptions:
    def __init__(self, q):
        self.follow = flag(q, "follow")
        self.timestamps = flag(q, "timestamps")
        tail = q.get("tailLines", [""])[0]
        self.tail = int(tail) if tail else None
        lb = q.get("limitBytes", [""])[0]
        self.limit = int(lb) if lb else None
        self.since = 0
        if q.get("sinceTime", [""])[0]:
            self.since = parse_time(q["sinceTime"][0])
        elif q.get("sinceSeconds", [""])[0]:
            self.since = time.time_ns() - int(q["sinceSeconds"][0]) * 10**9


class Stream:
    """One chunked log response; cut on request by the test hook."""

    def __init__(self, handler, key, cuts):
        self.h, self.key = handler, key
        self.sent = 0
        budget = cuts.take(key)
        self.cut_at = None if budget is None else budget

    def write(self, data):
        if self.cut_at is not None and self.sent + len(data) > self.cut_at:
            data = data[:max(0, self.cut_at - self.sent)]
            self.chunk(data)
            raise Cut()
        self.chunk(data)

    def chunk(self, data):
        if data:
            self.h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.h.wfile.flush()
            self.sent += len(data)

    def end(self):
        self.h.wfile.write(b"0\r\n\r\n")
        self.h.wfile.flush()

    def cut(self):
        """Drop the connection mid-body: no final chunk."""
        self.h.close_connection = True
        try:
            self.h.connection.shutdown(2)
        except OSError:
            pass

    def send_log(self, inst, opts):
        """ReadLogs(): tail, since, timestamps, limitBytes, follow until
        the container is no longer running. False when cut."""
        try:
            with open(inst.log_path, "rb") as f:
                lines = f.readlines()
                if opts.tail is not None:
                    lines = lines[len(lines) - opts.tail:] if opts.tail \
                        else []
                remain = [opts.limit]
                for line in lines:
                    if not self.emit(line, opts, remain):
                        return True
                while opts.follow:
                    line = f.readline()
                    if line.endswith(b"\n"):
                        if not self.emit(line, opts, remain):
                            return True
                        continue
                    f.seek(-len(line), 1)
                    if not inst.running and inst.output_done.is_set():
                        rest = f.read()
                        for x in rest.splitlines(keepends=True):
                            if not self.emit(x, opts, remain):
                                break
                        return True
                    if self.cut_at is not None and self.sent >= self.cut_at:
                        raise Cut()
                    time.sleep(0.05)
            return True
        except Cut:
            self.cut()
            return False

    def emit(self, line, opts, remain):
        e = LogEntry(line)
        if e.ts < opts.since:
            return True
        data = e.render(opts.timestamps)
        if remain[0] is not None:
            data = data[:remain[0]]
            remain[0] -= len(data)
        self.write(data)
        return remain[0] is None or remain[0] > 0


class Cut(Exception):
    pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the API server opens many at once

    def __init__(self, kubelet, certfile, keyfile, protocols):
        super().__init__(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certfile, keyfile)
        ctx.set_alpn_protocols(["http/1.1"])
        # the handshake happens in the handler's thread, not in accept()
        self.socket = ctx.wrap_socket(self.socket, server_side=True,
                                      do_handshake_on_connect=False)
        self.kubelet, self.protocols = kubelet, protocols
        self.cuts = Cuts()

    def finish_request(self, request, client_address):
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError):
            return
        super().finish_request(request, client_address)

    def pods_info(self):
        out = []
        with self.kubelet.lock:
            ws = list(self.kubelet.workers.values())
        for w in ws:
            out.append({"namespace": w.ns, "name": w.name, "uid": w.uid,
                        "ip": w.ip, "phase": w.phase, "containers": [
                            {"name": r.name, "restarts": r.restarts,
                             "pid": r.current().proc.pid if r.current()
                             and r.current().proc else None,
                             "running": bool(r.current()
                                             and r.current().running)}
                            for r in w.inits + w.mains]})
        return out

    def start(self):
        t = threading.Thread(target=self.serve_forever, name="kubelet-https",
                             daemon=True)
        t.start()
        return self.server_address[1]


def make_cert(d):
    """The kubelet's serving certificate (the API server does not check
    it without --kubelet-certificate-authority)."""
    cert, key = os.path.join(d, "kubelet.crt"), os.path.join(d, "kubelet.key")
    if not os.path.exists(cert):
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                            "-nodes", "-days", "2", "-keyout", key, "-out",
                            cert, "-subj", "/CN=paictl-standin-kubelet",
                            "-addext", "subjectAltName=IP:127.0.0.1"],
                           capture_output=True)
        if r.returncode:
            raise RuntimeError("openssl: " + r.stderr.decode())
    return cert, key

