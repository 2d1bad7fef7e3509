#!/usr/bin/env python3
"""bench/lanes_server.py - an OpenPAI v0.x stand-in for bench/lanes.sh:
the one call a batch makes, POST /api/v1/user/USER/jobs (and the
legacy /api/v1/jobs), answered 202, over HTTP/1.1 keep-alive, each
connection in a thread of its own.

    lanes_server.py serial  PORTFILE   one request at a time, 5 ms each
    lanes_server.py overlap PORTFILE   100 ms each, all at once
    lanes_server.py crowd   PORTFILE   5 ms alone, slower with company:
                                       5 ms x n^2 with n under way

It listens on a free port of 127.0.0.1, writes the port to PORTFILE,
and serves until killed. Every other request is a 404 in the server's
words. The job names it made are counted: a name made twice is a 409,
as the real server refuses a second job of the same name.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
ONE_AT_A_TIME = threading.Lock()
UNDER_WAY = [0]
UNDER_WAY_LOCK = threading.Lock()
MADE = set()
MADE_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # the headers and the body go in two writes: without this, Nagle's
    # algorithm and the client's delayed ACK hold the body 40 ms on a
    # kept-alive connection
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(404, {"code": "NotFoundError", "message": "no such page"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n)
        if not self.path.startswith("/api/v1/") or not self.path.endswith("/jobs"):
            self.reply(404, {"code": "NotFoundError", "message": "no such page"})
            return
        try:
            name = json.loads(data)["jobName"]
        except (ValueError, KeyError, TypeError):
            self.reply(400, {"code": "InvalidParametersError", "message": "no jobName"})
            return
        if MODE == "serial":
            with ONE_AT_A_TIME:
                time.sleep(0.005)
        elif MODE == "crowd":
            with UNDER_WAY_LOCK:
                UNDER_WAY[0] += 1
                n = UNDER_WAY[0]
            time.sleep(0.005 * n * n)
            with UNDER_WAY_LOCK:
                UNDER_WAY[0] -= 1
        else:
            time.sleep(0.1)
        with MADE_LOCK:
            twice = name in MADE
            MADE.add(name)
        if twice:
            self.reply(409, {"code": "ConflictJobError",
                             "message": "Job name %s already exists." % name})
        else:
            self.reply(202, {"message": "update job %s successfully" % name})


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    srv.serve_forever()


if __name__ == "__main__":
    main()
