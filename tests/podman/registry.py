#!/usr/bin/env python3
"""tests/podman/registry.py - a registry on 127.0.0.1 for the podman tests:
the Docker Registry HTTP API v2's read side (GET and HEAD of /v2/, of
manifests and of blobs) serving one image that `podman push IMAGE dir:DIR`
wrote, every repository name and tag answering with it. With --user and
--password, every request wants HTTP basic auth with them (401 and
WWW-Authenticate otherwise, as a registry answers) but those for
repositories under library/ (Docker Hub's official images), open to
anyone. With --delay S, each blob is answered S seconds late (a pull
that takes a while, to watch its progress). Each request's method,
path and whether its credentials were right go to --log.

usage: registry.py --dir DIR --port-file FILE --log FILE [--user U --password P]
                   [--delay S]
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--delay", type=float, default=0)
    a = ap.parse_args()
    with open(os.path.join(a.dir, "manifest.json"), "rb") as f:
        manifest = f.read()
    mtype = json.loads(manifest)["mediaType"]
    mdigest = "sha256:" + hashlib.sha256(manifest).hexdigest()
    want = None
    if a.user is not None:
        want = "Basic " + base64.b64encode(
            ("%s:%s" % (a.user, a.password)).encode()).decode()
    log = open(a.log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, code, body=b"", ctype="application/json", extra=()):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Docker-Distribution-API-Version", "registry/2.0")
            for k, v in extra:
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def answer(self):
            auth = self.headers.get("Authorization")
            ok = (want is None or auth == want or
                  self.path.startswith("/v2/library/"))
            log.write("%s %s %s\n" % (
                self.command, self.path,
                "auth-ok" if auth and ok else "auth-bad" if auth else "no-auth"))
            if not ok:
                return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}',
                                  extra=[("WWW-Authenticate",
                                          'Basic realm="paictl-test"')])
            parts = self.path.split("?")[0].rstrip("/").split("/")
            if parts == ["", "v2"]:
                return self.reply(200, b"{}")
            if len(parts) >= 5 and parts[-2] == "manifests":
                return self.reply(200, manifest, mtype,
                                  [("Docker-Content-Digest", mdigest)])
            if len(parts) >= 5 and parts[-2] == "blobs":
                if self.command == "GET":
                    time.sleep(a.delay)
                path = os.path.join(a.dir, parts[-1].split(":")[-1])
                if os.path.isfile(path):
                    with open(path, "rb") as f:
                        return self.reply(200, f.read(),
                                          "application/octet-stream",
                                          [("Docker-Content-Digest", parts[-1])])
            self.reply(404, b'{"errors":[{"code":"NOT_FOUND"}]}')

        do_GET = answer
        do_HEAD = answer

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
