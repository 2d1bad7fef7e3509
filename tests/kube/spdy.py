"""tests/kube/spdy.py - exec over SPDY/3.1, the stand-in kubelet's side,
as a 1.20 kubelet serves it (k8s.io/apimachinery/pkg/util/httpstream/spdy,
github.com/docker/spdystream, pkg/kubelet/cri/streaming/remotecommand).

kubectl 1.32 first offers WebSocket v5.channel.k8s.io, which a 1.20
kubelet refuses; it then falls back to SPDY with v4..v2.channel.k8s.io.
Supporting this makes `kubectl exec` work against the harness as against a
real 1.20 cluster.

The client opens one stream per channel, named by the header
`streamtype` (error, stdin, stdout, stderr, resize); the server answers
each SYN_STREAM with a SYN_REPLY, and starts the command once all the
expected streams exist. Unlike WebSocket v4, stdin can be half-closed.
At the end: the status on the error stream (v4: a JSON Status; v2/v3: the
error text, nothing on success), FIN on every stream, GOAWAY.
Flow control (WINDOW_UPDATE) is ignored, as spdystream ignores it.
"""
import hashlib
import json
import struct
import threading
import zlib

from kubews import Closed
import kubexec

PROTOCOLS = ("v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io")
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS = 1, 2, 3, 4
PING, GOAWAY, HEADERS, WINDOW_UPDATE = 6, 7, 8, 9
FLAG_FIN = 1

# The SPDY/3 header compression dictionary (draft-mbelshe-httpbis-spdy-00
# section 2.6.10.1): these words ("200 OK" is one), each after its 32-bit
# length, then TAIL.
WORDS = (
    "options head post put delete trace accept accept-charset "
    "accept-encoding accept-language accept-ranges age allow authorization "
    "cache-control connection content-base content-encoding "
    "content-language content-length content-location content-md5 "
    "content-range content-type date etag expect expires from host "
    "if-match if-modified-since if-none-match if-range if-unmodified-since "
    "last-modified location max-forwards pragma proxy-authenticate "
    "proxy-authorization range referer retry-after server te trailer "
    "transfer-encoding upgrade user-agent vary via warning "
    "www-authenticate method get status 200_OK version HTTP/1.1 url public "
    "set-cookie keep-alive origin").split()
WORDS = [w.replace("_", " ") for w in WORDS]
TAIL = (
    b'100101201202205206300302303304305306307402405406407408409410411412'
    b'413414415416417502504505203 Non-Authoritative Information204 No Co'
    b'ntent301 Moved Permanently400 Bad Request401 Unauthorized403 Forbi'
    b'dden404 Not Found500 Internal Server Error501 Not Implemented503 S'
    b'ervice UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec'
    b' 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,'
    b'image/png,image/jpg,image/gif,application/xml,application/xhtml+xm'
    b'l,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdc'
    b'hcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.')
DICTIONARY = b"".join(struct.pack(">I", len(w)) + w.encode()
                      for w in WORDS) + TAIL
# spdystream's headerDictionary, byte for byte
assert hashlib.sha256(DICTIONARY).hexdigest() == \
    "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02"


class Framer:
    """SPDY/3 frames on a socket; header blocks through one zlib stream
    per direction, as the protocol wants."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""
        self.wlock = threading.Lock()
        self.inflate = zlib.decompressobj(zdict=DICTIONARY)
        self.deflate = zlib.compressobj(zdict=DICTIONARY)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read(self):
        """("control", type, flags, payload) or ("data", stream, flags,
        payload)."""
        w1, w2 = struct.unpack(">II", self._read(8))
        flags, length = w2 >> 24, w2 & 0xFFFFFF
        payload = self._read(length)
        if w1 & 0x80000000:
            return "control", w1 & 0xFFFF, flags, payload
        return "data", w1 & 0x7FFFFFFF, flags, payload

    def headers(self, block):
        raw = self.inflate.decompress(block)
        n, = struct.unpack(">I", raw[:4])
        pos, out = 4, {}
        for _ in range(n):
            k, pos = self._string(raw, pos)
            v, pos = self._string(raw, pos)
            out[k.decode().lower()] = v.decode()
        return out

    @staticmethod
    def _string(raw, pos):
        n, = struct.unpack(">I", raw[pos:pos + 4])
        return raw[pos + 4:pos + 4 + n], pos + 4 + n

    def _send(self, data):
        with self.wlock:
            self.sock.sendall(data)

    def control(self, ftype, flags, payload):
        self._send(struct.pack(">II", 0x80030000 | ftype,
                               flags << 24 | len(payload)) + payload)

    def data(self, stream, data, fin=False):
        self._send(struct.pack(">II", stream & 0x7FFFFFFF,
                               (FLAG_FIN if fin else 0) << 24 | len(data)) +
                   data)

    def reply(self, stream):
        """SYN_REPLY with no headers, as spdystream's SendReply."""
        with self.wlock:  # the zlib stream's order is the frames' order
            block = self.deflate.compress(struct.pack(">I", 0)) + \
                self.deflate.flush(zlib.Z_SYNC_FLUSH)
            payload = struct.pack(">I", stream) + block
            self.sock.sendall(struct.pack(">II", 0x80030000 | SYN_REPLY,
                                          len(payload)) + payload)


class SpdyExec(kubexec.ExecBase):
    def __init__(self, sock, proto, worker, inst, q):
        super().__init__(worker, inst, q)
        self.sock, self.proto = sock, proto
        self.f = Framer(sock)
        self.streams = {}  # streamtype -> stream id
        self.last_id = 0
        self.expected = 1 + self.stdin + self.stdout + self.stderr + (
            1 if self.tty else 0)
        self.started, self.failed = threading.Event(), False
        self.lock = threading.Lock()
        self.pending = []  # input that came before the process started
        self.reader_thread = None

    def begin(self):
        """Wait (30 s, the kubelet's streamCreationTimeout) for the
        streams the request asked for; frames read on a reader thread."""
        self.sock.settimeout(None)
        self.reader_thread = threading.Thread(target=self.reader,
                                              daemon=True)
        self.reader_thread.start()
        return self.started.wait(30) and not self.failed

    def reader(self):
        try:
            while True:
                self.frame(*self.f.read())
        except (Closed, OSError, ValueError, zlib.error, struct.error):
            self.failed = True
            self.abort()
            self.started.set()  # unblock begin()

    def frame(self, kind, ftype, flags, payload):
        if kind == "data":
            return self.on_data(ftype, flags, payload)
        if ftype == SYN_STREAM:
            sid, = struct.unpack(">I", payload[:4])
            hdrs = self.f.headers(payload[10:])
            self.streams[hdrs.get("streamtype", "")] = sid
            self.last_id = max(self.last_id, sid)
            self.f.reply(sid)
            if len(self.streams) >= self.expected:
                self.started.set()
        elif ftype == PING:
            self.f.control(PING, 0, payload)
        elif ftype == GOAWAY:
            raise Closed("goaway")

    def on_data(self, sid, flags, payload):
        acts = []
        if sid == self.streams.get("stdin"):
            acts.append(lambda: self.write_stdin(payload))
            if flags & FLAG_FIN:  # SPDY can close stdin alone
                acts.append(self.close_stdin)
        elif sid == self.streams.get("resize"):
            dec = json.JSONDecoder()
            text, pos = payload.decode(), 0
            while pos < len(text):  # a stream of JSON objects
                obj, pos = dec.raw_decode(text, pos)
                acts.append(lambda o=obj: self.resize(json.dumps(o)))
                while pos < len(text) and text[pos].isspace():
                    pos += 1
        with self.lock:
            if self.pending is not None:
                self.pending += acts
                return
        for a in acts:
            a()

    def pump_in(self):
        """The process exists now: what came before it goes in first;
        the reader thread does the rest."""
        with self.lock:
            acts, self.pending = self.pending, None
        for a in acts:
            a()

    def send(self, ch, data):
        name = {1: "stdout", 2: "stderr", 3: "error"}[ch]
        if name in self.streams:
            self.f.data(self.streams[name], data)

    def status(self, st):
        if self.proto == "v4.channel.k8s.io":
            self.send(3, json.dumps(st).encode())
        elif st["status"] != "Success":
            self.send(3, st["message"].encode())

    def end(self):
        """FIN on our side of every stream, GOAWAY, then close once the
        client has (2 s at most)."""
        try:
            for sid in self.streams.values():
                self.f.data(sid, b"", fin=True)
            self.f.control(GOAWAY, 0, struct.pack(">II", self.last_id, 0))
        except OSError:
            pass
        if self.reader_thread:
            self.reader_thread.join(2)
        try:
            self.sock.close()
        except OSError:
            pass
