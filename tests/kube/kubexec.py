"""tests/kube/kubexec.py - one exec session of the stand-in kubelet: the
command runs as a local process in the container's environment, working
directory, /etc/hosts and hostname (a pty when tty=1), its exit status
reported as the 1.20 kubelet reports it. ExecBase is the process side;
WsExec carries it over WebSocket channels (kubews.py), spdy.SpdyExec
over SPDY/3.1 streams.
"""
import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import termios
import threading

import kubews
from kubews import Closed


def flag(q, name):
    v = q.get(name, [""])[0]
    return v not in ("", "0", "false", "False")


class ExecBase:
    """Subclasses give begin(), send(channel, data), pump_in(), status()
    and end(); channels are numbered as in kubernetes-api.md section 7."""

    def __init__(self, worker, inst, q):
        self.worker, self.inst = worker, inst
        self.argv = q.get("command", [])
        self.stdin, self.stdout = flag(q, "input"), flag(q, "output")
        self.stderr, self.tty = flag(q, "error"), flag(q, "tty")
        if self.tty:
            self.stderr = False  # merged into stdout
        self.proc, self.master = None, None

    def spawn(self):
        argv = self.worker.kubelet.net.wrap(self.worker.pod, self.argv)
        env, cwd = self.inst.env, self.inst.workdir
        if self.tty:
            self.master, slave = pty.openpty()
            p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=slave,
                                 stdout=slave, stderr=slave,
                                 start_new_session=True,
                                 preexec_fn=lambda: fcntl.ioctl(
                                     0, termios.TIOCSCTTY, 0))
            os.close(slave)
            return p
        pipe = lambda on: subprocess.PIPE if on else subprocess.DEVNULL  # noqa
        return subprocess.Popen(argv, env=env, cwd=cwd,
                                stdin=pipe(self.stdin),
                                stdout=pipe(self.stdout),
                                stderr=pipe(self.stderr),
                                start_new_session=True)

    def outputs(self):
        if self.tty:
            return [(self.master, 1)]
        return [(f.fileno(), ch) for f, ch in ((self.proc.stdout, 1),
                                               (self.proc.stderr, 2)) if f]

    def pump_out(self, fd, ch):
        while True:
            try:
                data = os.read(fd, 32768)
            except OSError:  # EIO: the pty's other side is closed
                data = b""
            if not data:
                return
            try:
                self.send(ch, data)
            except OSError:
                return

    # -- input, called by the transports --
    def write_stdin(self, data):
        if self.stdin and data:
            os.write(self.master if self.tty else self.proc.stdin.fileno(),
                     data)

    def close_stdin(self):
        if self.tty:
            os.write(self.master, b"\x04")  # ^D: what a terminal sends
        elif self.proc.stdin:
            self.proc.stdin.close()

    def resize(self, data):
        if self.tty:
            sz = json.loads(data)
            fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack(
                "HHHH", sz.get("Height", 24), sz.get("Width", 80), 0, 0))

    def abort(self):
        """The client went away: what is left of the command goes too."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)

    def run(self):
        try:
            if not self.begin():
                return
            try:
                self.proc = self.spawn()
            except OSError as e:
                return self.status(kubews.internal_error_json(str(e)))
            ts = [threading.Thread(target=self.pump_out, args=o, daemon=True)
                  for o in self.outputs()]
            for t in ts:
                t.start()
            threading.Thread(target=self.pump_in, daemon=True).start()
            code = self.proc.wait()
            for t in ts:
                t.join(2)
            code = code if code >= 0 else 128 - code
            self.status(kubews.exit_status_json(code, self.argv))
        except (OSError, Closed):
            pass
        finally:
            self.abort()
            self.end()


class WsExec(ExecBase):
    def __init__(self, sock, proto, worker, inst, q):
        super().__init__(worker, inst, q)
        self.ws = kubews.Conn(sock, server=True, protocol=proto)
        self.v4 = proto.startswith("v4.")

    def begin(self):
        """An empty frame on the first open output channel."""
        self.ws.sock.settimeout(None)
        self.send(1 if self.stdout else 2 if self.stderr else 3, b"")
        return True

    def send(self, ch, data):
        self.ws.send_channel(ch, data)

    def pump_in(self):
        """stdin (0) and resize (4) until the client closes: v4 has no
        way to close stdin alone."""
        try:
            while True:
                ch, data = self.ws.recv_channel()
                if ch == 0:
                    self.write_stdin(data)
                elif ch == 4 and data:
                    self.resize(data)
        except (Closed, OSError, ValueError):
            self.abort()

    def status(self, st):
        """Channel 3: a JSON Status (v4) or, with the older protocols,
        the error text and nothing on success."""
        if self.v4:
            self.send(3, json.dumps(st).encode())
        elif st["status"] != "Success":
            self.send(3, st["message"].encode())

    def end(self):
        self.ws.close(1000)
        try:
            self.ws.sock.close()
        except OSError:
            pass
