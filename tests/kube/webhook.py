#!/usr/bin/env python3
"""tests/kube/webhook.py - a Volcano-like admission webhook of the tests'
own, registered with the API server, so that a Job's create waits on it
as it does on a real cluster (bench/kube.sh measures submissions with it
in the path). Like Volcano v1.15.1's (pkg/webhooks/admission/jobs), for
Volcano Jobs' CREATE:

- /jobs/mutate: the defaults (queue "default", maxRetry 3, minAvailable
  the sum of the tasks' replicas, a task's name "default<index>" when it
  has none), as a JSON patch;
- /jobs/validate: a Job with no task, a task's negative replicas, two
  tasks of one name, minAvailable above the replicas or negative, or a
  negative maxRetry is denied, with Volcano's messages.

Each review answers after `delay` seconds (the webhook's own work and
its network); reviews are answered concurrently.

    webhook.py [--delay 0.05] [--dir DIR]   (PAI_KUBE_SERVER, _TOKEN, _CA)

prints "ready URL" once registered; SIGTERM unregisters and ends it.
"""
import argparse
import base64
import http.server
import json
import os
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import kapi  # noqa: E402

NAME = "paictl-test-volcano"
RULE = {"apiGroups": ["batch.volcano.sh"], "apiVersions": ["v1alpha1"],
        "operations": ["CREATE"], "resources": ["jobs"]}


def mutate(job):
    """Volcano's defaults, as a JSON patch."""
    spec = job.get("spec") or {}
    patch = []
    if not spec.get("queue"):
        patch.append({"op": "add", "path": "/spec/queue", "value": "default"})
    if not spec.get("maxRetry"):
        patch.append({"op": "add", "path": "/spec/maxRetry", "value": 3})
    tasks = spec.get("tasks") or []
    if not spec.get("minAvailable"):
        patch.append({"op": "add", "path": "/spec/minAvailable",
                      "value": sum(t.get("replicas", 0) for t in tasks)})
    for i, t in enumerate(tasks):
        if not t.get("name"):
            patch.append({"op": "add", "path": "/spec/tasks/%d/name" % i,
                          "value": "default%d" % i})
    return patch


def validate(job):
    """Volcano's denials, or None."""
    spec = job.get("spec") or {}
    tasks = spec.get("tasks") or []
    if not tasks:
        return "No task specified in job spec"
    names, total = set(), 0
    for t in tasks:
        if t.get("replicas", 0) < 0:
            return "'replicas' < 0 in task: %s" % t.get("name")
        if t.get("name") in names:
            return "duplicated task name %s" % t.get("name")
        names.add(t.get("name"))
        total += t.get("replicas", 0)
    if spec.get("minAvailable", 0) < 0:
        return "job 'minAvailable' must be >= 0."
    if spec.get("maxRetry", 0) < 0:
        return "'maxRetry' cannot be less than zero."
    if spec.get("minAvailable", 0) > total:
        return "job 'minAvailable' should not be greater than total " \
               "replicas in tasks"
    return None


def review(path, req):
    """The AdmissionReview's response."""
    obj = req.get("object") or {}
    resp = {"uid": req.get("uid"), "allowed": True}
    if path == "/jobs/mutate":
        patch = mutate(obj)
        if patch:
            resp["patchType"] = "JSONPatch"
            resp["patch"] = base64.b64encode(
                json.dumps(patch).encode()).decode()
    else:
        why = validate(obj)
        if why:
            resp["allowed"] = False
            resp["status"] = {"message": why}
    return resp


def serve(delay, d):
    crt, key = os.path.join(d, "webhook.crt"), os.path.join(d, "webhook.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "1", "-keyout", key, "-out", crt,
                    "-subj", "/CN=paictl-test-webhook",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            ar = json.loads(self.rfile.read(n))
            time.sleep(delay)
            body = json.dumps({"apiVersion": "admission.k8s.io/v1",
                               "kind": "AdmissionReview",
                               "response": review(self.path,
                                                  ar.get("request") or {})
                               }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "https://127.0.0.1:%d" % srv.server_address[1], crt


def config(kind, url, ca):
    hook = {"name": "%s.paictl.test" % kind.split("Webhook")[0].lower(),
            "clientConfig": {"url": url, "caBundle": ca},
            "rules": [RULE], "failurePolicy": "Fail",
            "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 10}
    return {"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind + "Configuration", "metadata": {"name": NAME},
            "webhooks": [hook]}


def register(client, url, crt):
    ca = base64.b64encode(open(crt, "rb").read()).decode()
    base = "/apis/admissionregistration.k8s.io/v1/"
    client.create(base + "mutatingwebhookconfigurations",
                  config("MutatingWebhook", url + "/jobs/mutate", ca))
    client.create(base + "validatingwebhookconfigurations",
                  config("ValidatingWebhook", url + "/jobs/validate", ca))


def unregister(client):
    base = "/apis/admissionregistration.k8s.io/v1/"
    for kind in ("mutatingwebhookconfigurations",
                 "validatingwebhookconfigurations"):
        client.delete(base + kind + "/" + NAME)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--dir")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="paictl-webhook-")
    os.makedirs(d, exist_ok=True)
    client = kapi.Client(os.environ["PAI_KUBE_SERVER"],
                         os.environ["PAI_KUBE_TOKEN"],
                         os.environ["PAI_KUBE_CA"])
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    srv, url, crt = serve(a.delay, d)
    register(client, url, crt)
    print("ready " + url, flush=True)
    while not stop.wait(0.5):
        pass
    unregister(client)
    srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
