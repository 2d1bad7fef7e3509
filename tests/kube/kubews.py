"""tests/kube/kubews.py - RFC 6455 framing for the stand-in kubelet's
exec endpoint (server side) and for selftest.py's exec client, with the
Kubernetes channel protocols (kubernetes-api.md section 7).

The server side behaves as the 1.20 kubelet's (golang.org/x/net/websocket):
client frames must be masked, continuation frames are reassembled, pings
answered, a close echoed.
"""
import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import threading

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BIN, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10

# What a 1.20 kubelet accepts, in its order of preference does not matter:
# the first of the client's list that is supported wins.
KUBELET_120 = ("v4.channel.k8s.io", "v4.base64.channel.k8s.io",
               "channel.k8s.io", "base64.channel.k8s.io")


def accept_key(key):
    return base64.b64encode(hashlib.sha1(
        (key + GUID).encode()).digest()).decode()


def choose_protocol(offered_header, supported=KUBELET_120):
    """The subprotocol the kubelet picks: the first offered that it
    supports; "channel.k8s.io" when none is offered; None to refuse."""
    offered = [p.strip() for p in (offered_header or "").split(",")
               if p.strip()]
    if not offered:
        return "channel.k8s.io"
    for p in offered:
        if p in supported:
            return p
    return None


class Closed(Exception):
    pass


def xor_mask(data, key):
    """data XOR key[i % 4] (RFC 6455 5.3), as one big-integer XOR: a
    byte at a time, the stand-in took 512 MiB of stdin at ~15 MB/s."""
    n = len(data)
    pad = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^
            int.from_bytes(pad, "little")).to_bytes(n, "little")


class Conn:
    """One WebSocket connection over a socket (plain or TLS).
    server=True: expects masked frames and sends unmasked ones."""

    def __init__(self, sock, server, protocol="v4.channel.k8s.io"):
        self.sock, self.server, self.protocol = sock, server, protocol
        self.base64 = "base64" in protocol
        self.wlock = threading.Lock()
        self.buf = b""
        self.closed = False

    # -- raw frames --
    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self):
        b0, b1 = self._read(2)
        fin, op, masked, n = b0 & 0x80, b0 & 0x0F, b1 & 0x80, b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._read(8))[0]
        if bool(masked) != self.server:
            raise Closed("protocol error: frame masking")
        key = self._read(4) if masked else None
        data = self._read(n)
        if key:
            data = xor_mask(data, key)
        return bool(fin), op, data

    def send_frame(self, op, data):
        hdr = bytes([0x80 | op])
        mask = 0 if self.server else 0x80
        n = len(data)
        if n < 126:
            hdr += bytes([mask | n])
        elif n < 65536:
            hdr += bytes([mask | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([mask | 127]) + struct.pack(">Q", n)
        if not self.server:
            key = os.urandom(4)
            data = xor_mask(data, key)
            hdr += key
        with self.wlock:
            self.sock.sendall(hdr + data)

    def recv_message(self):
        """(opcode, payload) of the next data message; answers pings;
        raises Closed on a close frame (after echoing it) or EOF."""
        msg, first = b"", None
        while True:
            fin, op, data = self._frame()
            if op == OP_PING:
                self.send_frame(OP_PONG, data)
                continue
            if op == OP_PONG:
                continue
            if op == OP_CLOSE:
                if not self.closed:
                    self.closed = True
                    try:
                        self.send_frame(OP_CLOSE, data[:2])
                    except OSError:
                        pass
                raise Closed("close frame %r" % data[:2])
            if op != OP_CONT:
                first = op
            msg += data
            if fin:
                return first, msg

    def close(self, code=1000):
        if not self.closed:
            self.closed = True
            try:
                self.send_frame(OP_CLOSE, struct.pack(">H", code))
            except OSError:
                pass

    # -- Kubernetes channels --
    def send_channel(self, ch, data):
        if self.base64:
            self.send_frame(OP_TEXT, (str(ch) + base64.b64encode(
                data).decode()).encode())
        else:
            self.send_frame(OP_BIN, bytes([ch]) + data)

    def recv_channel(self):
        """(channel, payload); payloads of length 0 included."""
        op, msg = self.recv_message()
        if not msg:
            return None, b""
        if self.base64:
            return msg[0] - ord("0"), base64.b64decode(msg[1:])
        return msg[0], msg[1:]


def exit_status_json(code, argv):
    """What a 1.20 kubelet (containerd's streaming server behind it)
    writes on channel 3 (v4) at the end of exec."""
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    return {"metadata": {}, "status": "Failure",
            "message": "command terminated with non-zero exit code: "
                       "error executing command [%s], exit code %d"
                       % (" ".join(argv), code),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode",
                                    "message": str(code)}]}}


def internal_error_json(msg):
    return {"metadata": {}, "status": "Failure",
            "message": "Internal error occurred: error executing command "
                       "in container: " + msg,
            "reason": "InternalError",
            "details": {"causes": [{"message": msg}]}, "code": 500}


# ---- client (selftest.py) -------------------------------------------------

def client_connect(server, path, token, ca, protocols):
    """Open a WebSocket to the API server (HTTP/1.1 over TLS), as a C
    client would: returns (Conn, status line, headers) - Conn is None when
    the answer is not 101, with the body in headers["_body"]."""
    import urllib.parse
    u = urllib.parse.urlsplit(server)
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["http/1.1"])
    s = ctx.wrap_socket(socket.create_connection((u.hostname, u.port)),
                        server_hostname=u.hostname)
    key = base64.b64encode(os.urandom(16)).decode()
    req = ("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
           "Connection: Upgrade\r\nUpgrade: websocket\r\n"
           "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n"
           "Sec-WebSocket-Protocol: %s\r\n\r\n"
           % (path, u.netloc, token, key, ", ".join(protocols)))
    s.sendall(req.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0]
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    if " 101 " not in status + " ":
        s.settimeout(5)
        body = b""
        try:
            while True:
                c = s.recv(65536)
                if not c:
                    break
                body += c
        except (socket.timeout, OSError):
            pass
        headers["_body"] = body
        s.close()
        return None, status, headers
    if headers.get("sec-websocket-accept") != accept_key(key):
        raise Closed("bad Sec-WebSocket-Accept")
    conn = Conn(s, server=False,
                protocol=headers.get("sec-websocket-protocol", ""))
    return conn, status, headers


def run_exec(conn, stdin_data=b""):
    """Collect (stdout, stderr, status dict or None) of an exec session."""
    out, err, status = b"", b"", None
    if stdin_data:
        conn.send_channel(0, stdin_data)
    try:
        while True:
            ch, data = conn.recv_channel()
            if ch == 1:
                out += data
            elif ch == 2:
                err += data
            elif ch == 3 and data:
                # v4: a JSON Status; channel.k8s.io: the error's text
                status = json.loads(data) if conn.protocol.startswith(
                    "v4.") else data.decode()
    except (Closed, OSError):
        pass
    return out, err, status
