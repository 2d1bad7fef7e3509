"""tests/kube/kapi.py - a small client of the Kubernetes API for the test
harness (cluster.py, standin.py, selftest.py): JSON over HTTPS with a bearer
token and a CA file, list + watch, and an informer-like cache.

Python's standard library only: the harness must run where paictl's own
dependencies are installed, nothing more.
"""
import http.client
import json
import ssl
import threading
import time
import urllib.parse

# Kinds the harness knows: kind -> (API path prefix, plural, namespaced).
# Used to find an owner from an ownerReference and to build paths.
RESOURCES = {
    ("v1", "Pod"): ("/api/v1", "pods", True),
    ("v1", "ConfigMap"): ("/api/v1", "configmaps", True),
    ("v1", "Service"): ("/api/v1", "services", True),
    ("v1", "Secret"): ("/api/v1", "secrets", True),
    ("v1", "Event"): ("/api/v1", "events", True),
    ("v1", "Node"): ("/api/v1", "nodes", False),
    ("v1", "Namespace"): ("/api/v1", "namespaces", False),
    ("networking.k8s.io/v1", "NetworkPolicy"):
        ("/apis/networking.k8s.io/v1", "networkpolicies", True),
    ("batch.volcano.sh/v1alpha1", "Job"):
        ("/apis/batch.volcano.sh/v1alpha1", "jobs", True),
    ("bus.volcano.sh/v1alpha1", "Command"):
        ("/apis/bus.volcano.sh/v1alpha1", "commands", True),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"):
        ("/apis/scheduling.volcano.sh/v1beta1", "podgroups", True),
    ("scheduling.volcano.sh/v1beta1", "Queue"):
        ("/apis/scheduling.volcano.sh/v1beta1", "queues", False),
    ("batch.paddlepaddle.org/v1", "PaddleJob"):
        ("/apis/batch.paddlepaddle.org/v1", "paddlejobs", True),
    ("batch/v1", "Job"): ("/apis/batch/v1", "jobs", True),
    ("jobset.x-k8s.io/v1alpha2", "JobSet"):
        ("/apis/jobset.x-k8s.io/v1alpha2", "jobsets", True),
    ("kubeflow.org/v1", "PyTorchJob"):
        ("/apis/kubeflow.org/v1", "pytorchjobs", True),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"):
        ("/apis/trainer.kubeflow.org/v1alpha1", "trainjobs", True),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"):
        ("/apis/trainer.kubeflow.org/v1alpha1", "clustertrainingruntimes",
         False),
    ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"):
        ("/apis/trainer.kubeflow.org/v1alpha1", "trainingruntimes", True),
    ("kubeflow.org/v2beta1", "MPIJob"):
        ("/apis/kubeflow.org/v2beta1", "mpijobs", True),
}


class ApiError(Exception):
    """A non-2xx answer: .code, .reason, .message (from a Status if any)."""

    def __init__(self, code, body):
        self.code, self.body = code, body
        self.reason, self.message = "", body.decode("utf-8", "replace")
        try:
            st = json.loads(body)
            self.reason = st.get("reason", "")
            self.message = st.get("message", self.message)
        except ValueError:
            pass
        super().__init__("HTTP %d %s: %s" % (code, self.reason, self.message))


def path_of(api_version, kind, namespace=None, name=None, sub=None):
    """The REST path of a kind (a collection when name is None)."""
    prefix, plural, namespaced = RESOURCES[(api_version, kind)]
    p = prefix
    if namespaced and namespace:
        p += "/namespaces/" + namespace
    p += "/" + plural
    if name:
        p += "/" + name
    if sub:
        p += "/" + sub
    return p


class Client:
    """One API server, one identity. Thread-safe: a connection per thread,
    kept alive (TLS handshakes are the slow part on loopback)."""

    def __init__(self, server, token=None, ca=None, cert=None, key=None,
                 user_agent="paictl-test-harness"):
        u = urllib.parse.urlsplit(server)
        self.host, self.port = u.hostname, u.port or 443
        self.token, self.user_agent = token, user_agent
        self.ctx = ssl.create_default_context(cafile=ca)
        if cert:
            self.ctx.load_cert_chain(cert, key)
        self.local = threading.local()

    def _conn(self, fresh=False, timeout=30):
        c = getattr(self.local, "conn", None)
        if c is None or fresh:
            if c is not None:
                c.close()
            c = http.client.HTTPSConnection(self.host, self.port,
                                            context=self.ctx, timeout=timeout)
            self.local.conn = c
        return c

    def headers(self, ctype=None):
        h = {"Accept": "application/json", "User-Agent": self.user_agent}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        if ctype:
            h["Content-Type"] = ctype
        return h

    def raw(self, method, path, body=None, ctype="application/json",
            query=None):
        """(status, headers, body bytes); retried once on a dropped
        keep-alive connection."""
        if query:
            path += "?" + urllib.parse.urlencode(query, doseq=True)
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
        for attempt in (0, 1):
            c = self._conn(fresh=attempt > 0)
            try:
                c.request(method, path, body=body,
                          headers=self.headers(ctype if body else None))
                r = c.getresponse()
                return r.status, r.headers, r.read()
            except (http.client.HTTPException, ConnectionError, OSError):
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def call(self, method, path, body=None, ctype="application/json",
             query=None):
        """The decoded JSON answer, or ApiError."""
        status, _, data = self.raw(method, path, body, ctype, query)
        if status // 100 != 2:
            raise ApiError(status, data)
        return json.loads(data) if data else None

    def get(self, path, **q):
        return self.call("GET", path, query=q or None)

    def maybe_get(self, path):
        """The object, or None on 404."""
        try:
            return self.get(path)
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def create(self, path, obj):
        return self.call("POST", path, obj)

    def put(self, path, obj):
        return self.call("PUT", path, obj)

    def merge_patch(self, path, patch):
        return self.call("PATCH", path, patch,
                         "application/merge-patch+json")

    def json_patch(self, path, ops):
        return self.call("PATCH", path, ops, "application/json-patch+json")

    def delete(self, path, propagation="Background", grace=None,
               uid=None):
        """Delete; True if deleted (or being deleted), False on 404."""
        opts = {"kind": "DeleteOptions", "apiVersion": "v1",
                "propagationPolicy": propagation}
        if grace is not None:
            opts["gracePeriodSeconds"] = grace
        if uid:
            opts["preconditions"] = {"uid": uid}
        try:
            self.call("DELETE", path, opts)
            return True
        except ApiError as e:
            if e.code in (404, 409):
                return False
            raise

    def event(self, obj, etype, reason, message, component):
        """Record an Event on obj, as client-go's recorder does (without
        its aggregation: each call is a new Event, count 1)."""
        md = obj["metadata"]
        now = now_rfc3339()
        ev = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": md["name"] + ".",
                         "namespace": md.get("namespace", "default")},
            "involvedObject": {
                "apiVersion": obj["apiVersion"], "kind": obj["kind"],
                "name": md["name"], "namespace": md.get("namespace", ""),
                "uid": md["uid"],
                "resourceVersion": md.get("resourceVersion", "")},
            "type": etype, "reason": reason, "message": message,
            "source": {"component": component},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1,
        }
        try:
            self.create("/api/v1/namespaces/%s/events"
                        % ev["metadata"]["namespace"], ev)
        except ApiError:
            pass  # events are best effort, as in client-go

    def watch_lines(self, path, query, stop):
        """Yield watch events (dicts) until the server ends the stream
        (timeoutSeconds) or stop is set. Blocking reads on a dedicated
        connection: http.client cannot resume a read after a timeout, and
        the watchers are daemon threads that die with the process."""
        q = dict(query, watch="1")
        c = http.client.HTTPSConnection(self.host, self.port,
                                        context=self.ctx, timeout=30)
        try:
            c.request("GET", path + "?" + urllib.parse.urlencode(q),
                      headers=self.headers())
            r = c.getresponse()
            if r.status != 200:
                raise ApiError(r.status, r.read())
            c.sock.settimeout(None)
            buf = b""
            while not stop.is_set():
                chunk = r.read1(65536)
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        yield json.loads(line)
        finally:
            c.close()


def now_rfc3339(t=None):
    """Seconds precision, as metav1.Time serialises."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class Informer:
    """List, then watch, of one resource across all namespaces (or one
    label selection); keeps a cache by uid and calls handler(kind, old,
    new) for ADDED ("add", None, obj), MODIFIED ("update", old, new) and
    DELETED ("delete", obj, None). Relists on 410 or a broken stream, as
    client-go's reflector does; a relist reports the differences."""

    def __init__(self, client, path, handlers, stop, namespaces=None,
                 name=""):
        self.client, self.path, self.handlers = client, path, handlers
        self.stop, self.namespaces, self.name = stop, namespaces, name
        self.cache = {}
        self.lock = threading.Lock()
        self.synced = threading.Event()

    def items(self):
        with self.lock:
            return list(self.cache.values())

    def _wanted(self, obj):
        ns = obj["metadata"].get("namespace")
        return not self.namespaces or ns is None or ns in self.namespaces

    def _emit(self, kind, old, new):
        for h in self.handlers:
            try:
                h(kind, old, new)
            except Exception as e:  # a handler bug must not kill the watch
                log("informer %s: handler failed: %r" % (self.name, e))

    def _apply(self, etype, obj):
        if not self._wanted(obj):
            return
        uid = obj["metadata"]["uid"]
        with self.lock:
            old = self.cache.get(uid)
            if etype == "DELETED":
                self.cache.pop(uid, None)
            else:
                self.cache[uid] = obj
        if etype == "DELETED":
            self._emit("delete", old or obj, None)
        elif old is None:
            self._emit("add", None, obj)
        elif old["metadata"]["resourceVersion"] != \
                obj["metadata"]["resourceVersion"]:
            self._emit("update", old, obj)

    def _relist(self):
        lst = self.client.get(self.path)
        seen = set()
        for obj in lst["items"]:
            obj.setdefault("apiVersion", lst.get("apiVersion", "v1"))
            obj.setdefault("kind", lst.get("kind", "List")[:-4])
            seen.add(obj["metadata"]["uid"])
            self._apply("MODIFIED", obj)
        with self.lock:
            gone = [o for u, o in self.cache.items() if u not in seen]
        for obj in gone:
            self._apply("DELETED", obj)
        return lst["metadata"]["resourceVersion"]

    def run(self):
        rv = None
        while not self.stop.is_set():
            try:
                if rv is None:
                    rv = self._relist()
                    self.synced.set()
                for ev in self.client.watch_lines(
                        self.path, {"resourceVersion": rv,
                                    "allowWatchBookmarks": "true",
                                    "timeoutSeconds": "300"}, self.stop):
                    obj = ev["object"]
                    if ev["type"] == "ERROR":
                        rv = None  # 410 Expired or worse: relist
                        break
                    rv = obj["metadata"]["resourceVersion"]
                    if ev["type"] != "BOOKMARK":
                        self._apply(ev["type"], obj)
            except Exception as e:
                if self.stop.is_set():
                    return
                log("informer %s: %r; relisting" % (self.name, e))
                rv = None
                self.stop.wait(0.5)

    def start(self):
        t = threading.Thread(target=self.run, name="informer-" + self.name,
                             daemon=True)
        t.start()
        return t


def log(msg):
    import sys
    sys.stderr.write("%s standin: %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()
