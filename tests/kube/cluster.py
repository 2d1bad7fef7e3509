#!/usr/bin/env python3
"""tests/kube/cluster.py - a real kube-apiserver v1.20.2 with etcd on
loopback, for tests of paictl's Kubernetes backend.

    cluster.py run [--standin] [OPTIONS] -- COMMAND [ARG...]
        start, run COMMAND with the environment below, stop; exit with
        COMMAND's status (like dbus-run-session)
    cluster.py start [--standin] [OPTIONS]
        start in the background; print the environment as shell
        assignments (also in $PAI_KUBE_DIR/env); stop with `cluster.py
        stop DIR`
    cluster.py stop DIR

OPTIONS: --standin also starts standin.py (scheduler, kubelet and Volcano
and Paddle controllers stood in); --namespaces NS,... what the stand-in
watches (default: all); --throttle starts the API server with APF off and
one request in flight per user outside system:masters, so that a second
concurrent request gets a real 429 (see hold_seat()); --timeout S bounds
the start (default 120).

Why Python rather than shell: free ports, bounded waits, JSON checks of
/openapi/v2, kubeconfig files and clean process supervision (a subreaper,
so that nothing started here can outlive it) are short here and long in sh;
and selftest.py and later tests can use the Cluster class directly.

The environment given to COMMAND (and printed by `start`):
  PAI_KUBE_SERVER        https://127.0.0.1:PORT
  PAI_KUBE_CA            the API server's (self-signed) certificate
  PAI_KUBE_TOKEN         the admin's bearer token (group system:masters)
  KUBECONFIG, PAI_KUBE_KUBECONFIG   the admin's kubeconfig (token)
  PAI_KUBE_KUBECONFIG_CERT   a user authenticated by client certificate
                         (CN paictl-cert-user, O system:masters)
  PAI_KUBE_CLIENT_CERT, PAI_KUBE_CLIENT_KEY, PAI_KUBE_CLIENT_CA  its files
  PAI_KUBE_KUBECONFIG_LIMITED, PAI_KUBE_LIMITED_TOKEN  user "limited":
                         Role paictl-limited in namespace PAI_KUBE_LIMITED_NS
                         only (no pods/exec, for 403 tests)
  PAI_KUBE_LIMITED_NS    that namespace ("limited")
  PAI_KUBE_KUBELET       https://127.0.0.1:PORT of the stand-in kubelet
                         (with --standin; its /standin/ control endpoints)
  PAI_KUBE_NODE          the stand-in's Node name (with --standin)
  PAI_KUBE_DIR           the temporary directory (logs: *.log there)
"""
import argparse
import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import crds  # noqa: E402
import kapi  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))


def find_crds():
    """$PAI_K8S_CRDS, else shared/reference/kubernetes next to the
    repository or to any directory above it (git worktrees live deeper)."""
    if os.environ.get("PAI_K8S_CRDS"):
        return os.environ["PAI_K8S_CRDS"]
    d = TOP
    while os.path.dirname(d) != d:
        c = os.path.join(d, "shared", "reference", "kubernetes")
        if os.path.isdir(c):
            return c
        d = os.path.dirname(d)
    return os.path.join(os.path.dirname(TOP), "shared", "reference",
                        "kubernetes")


CRDS = find_crds()


def why_not():
    """Why no cluster can be made here, or None: the CRDs are ../shared's
    where they are, else our own minimal ones (crds.py), so a plain clone
    runs too."""
    return None


CRDS_FULL = crds.full(CRDS)
LIMITED_NS = "limited"
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


class StartError(Exception):
    pass


def say(msg):
    sys.stderr.write("cluster: %s\n" % msg)
    sys.stderr.flush()


# ---- processes ----------------------------------------------------------

def _libc():
    return ctypes.CDLL(None, use_errno=True)


def die_with_parent():
    """preexec_fn: the child gets SIGTERM when we die, even by SIGKILL."""
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def become_subreaper():
    """Orphans of our children are re-parented to us, so that stop() can
    find and end every process started under us."""
    _libc().prctl(PR_SET_CHILD_SUBREAPER, 1)


def descendants(pid):
    """Pids of every live process under pid (from /proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def kill_descendants():
    """SIGTERM, then SIGKILL after 3 s, everything under this process."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 2.0)):
        pids = descendants(os.getpid())
        for p in pids:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + wait
        while pids and time.time() < deadline:
            reap()
            pids = [p for p in pids if os.path.exists("/proc/%d" % p)
                    and not zombie(p)]
            time.sleep(0.05)
    reap()


def zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def reap():
    """Collect exited children (re-parented orphans included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(argv, logfile):
    with open(logfile, "ab") as log:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=log, preexec_fn=die_with_parent)


# ---- certificates and credentials ------------------------------------------

def openssl(*args):
    r = subprocess.run(["openssl"] + list(args), capture_output=True)
    if r.returncode:
        raise StartError("openssl %s: %s" % (args[0], r.stderr.decode()))


def make_pki(d):
    """Serving certificate (self-signed, IP:127.0.0.1), client CA and a
    client certificate, service-account key pair."""
    os.makedirs(d, mode=0o700)
    p = lambda f: os.path.join(d, f)  # noqa: E731
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", p("server.key"), "-out", p("server.crt"),
            "-subj", "/CN=paictl-test-apiserver",
            "-addext", "subjectAltName=IP:127.0.0.1")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", p("client-ca.key"), "-out", p("client-ca.crt"),
            "-subj", "/CN=paictl-test-client-ca")
    openssl("req", "-new", "-newkey", "rsa:2048", "-nodes",
            "-keyout", p("client.key"), "-out", p("client.csr"),
            "-subj", "/O=system:masters/CN=paictl-cert-user")
    with open(p("client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    openssl("x509", "-req", "-in", p("client.csr"), "-days", "2",
            "-CA", p("client-ca.crt"), "-CAkey", p("client-ca.key"),
            "-CAcreateserial", "-extfile", p("client.ext"),
            "-out", p("client.crt"))
    openssl("genrsa", "-out", p("sa.key"), "2048")
    openssl("rsa", "-in", p("sa.key"), "-pubout", "-out", p("sa.pub"))


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def kubeconfig(path, server, ca, user, namespace="default"):
    """A kubeconfig (JSON is YAML) with one cluster, user and context."""
    cfg = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": "paictl-test", "cluster": {
               "server": server, "certificate-authority": ca}}],
           "users": [{"name": "paictl-test-user", "user": user}],
           "contexts": [{"name": "paictl-test", "context": {
               "cluster": "paictl-test", "user": "paictl-test-user",
               "namespace": namespace}}],
           "current-context": "paictl-test"}
    write_private(path, json.dumps(cfg, indent=2) + "\n")


# ---- the cluster ---------------------------------------------------------

class Cluster:
    """with Cluster(standin=True) as c: ... c.env, c.client ..."""

    def __init__(self, standin=False, namespaces=None, throttle=False,
                 timeout=120.0, apiserver=None):
        self.standin, self.namespaces = standin, namespaces
        self.throttle, self.timeout = throttle, timeout
        self.apiserver = apiserver
        self.procs, self.env, self.dir = [], {}, None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def left(self):
        return self.deadline - time.time()

    def start(self):
        t0 = time.time()
        self.deadline = t0 + self.timeout
        become_subreaper()
        self.apiserver = self.apiserver or find_apiserver()
        self.dir = tempfile.mkdtemp(prefix="paictl-kube-")
        steps = [("certificates", lambda: make_pki(self.path("pki"))),
                 ("etcd", self.start_etcd),
                 ("kube-apiserver", lambda: (self.start_apiserver(),
                                             self.wait_ready())),
                 ("CRDs", self.install_crds),
                 ("objects", lambda: (self.setup_objects(),
                                      self.write_env()))]
        if self.standin:
            steps.append(("stand-in", self.start_standin))
        took = []
        for name, step in steps:
            t = time.time()
            step()
            took.append("%s %.1f" % (name, time.time() - t))
        say("ready in %.1f s (%s): %s (dir %s)" % (
            time.time() - t0, ", ".join(took), self.server, self.dir))

    def start_etcd(self):
        cport, pport = free_port(), free_port()
        self.etcd_url = "http://127.0.0.1:%d" % cport
        peer = "http://127.0.0.1:%d" % pport
        self.procs.append(spawn([
            "etcd", "--name", "t", "--data-dir", self.path("etcd"),
            "--listen-client-urls", self.etcd_url,
            "--advertise-client-urls", self.etcd_url,
            "--listen-peer-urls", peer,
            "--initial-advertise-peer-urls", peer,
            "--initial-cluster", "t=" + peer,
            "--logger", "zap", "--log-level", "warn"],
            self.path("etcd.log")))

    def start_apiserver(self):
        port = free_port()
        self.server = "https://127.0.0.1:%d" % port
        self.token = secrets.token_hex(16)
        self.limited_token = secrets.token_hex(16)
        write_private(self.path("tokens.csv"),
                      '%s,admin,admin,"system:masters"\n%s,limited,limited\n'
                      % (self.token, self.limited_token))
        pki = lambda f: self.path("pki", f)  # noqa: E731
        argv = [self.apiserver, "--etcd-servers", self.etcd_url,
                "--bind-address", "127.0.0.1",
                "--advertise-address", "127.0.0.1",
                "--secure-port", str(port), "--insecure-port", "0",
                "--tls-cert-file", pki("server.crt"),
                "--tls-private-key-file", pki("server.key"),
                "--client-ca-file", pki("client-ca.crt"),
                "--token-auth-file", self.path("tokens.csv"),
                "--authorization-mode", "RBAC",
                "--service-account-issuer", "https://kubernetes.default.svc",
                "--service-account-key-file", pki("sa.pub"),
                "--service-account-signing-key-file", pki("sa.key"),
                "--service-cluster-ip-range", "10.96.0.0/24",
                "--disable-admission-plugins", "ServiceAccount",
                # the stand-in's Node has a Hostname address too: dial IPs
                "--kubelet-preferred-address-types", "InternalIP",
                "--profiling=false", "--cert-dir", self.path("pki")]
        if self.throttle:
            argv += ["--enable-priority-and-fairness=false",
                     "--max-requests-inflight", "1",
                     "--max-mutating-requests-inflight", "1"]
        self.procs.append(spawn(argv, self.path("kube-apiserver.log")))
        self.client = kapi.Client(self.server, self.token,
                                  self.path("pki", "server.crt"))

    def check_alive(self):
        for p, name in zip(self.procs, ("etcd", "kube-apiserver",
                                         "standin")):
            if p.poll() is not None:
                raise StartError("%s exited with status %s; the end of %s:"
                                 "\n%s" % (name, p.returncode, name + ".log",
                                           self.log_tail(name + ".log")))

    def log_tail(self, name, n=15):
        """The last lines of a log (the directory goes when we stop)."""
        try:
            with open(self.path(name), errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def wait_for(self, what, test):
        """Poll test() until it is true; StartError at the deadline."""
        while True:
            self.check_alive()
            try:
                if test():
                    return
            except (OSError, kapi.ApiError, ssl.SSLError, ValueError):
                pass
            if self.left() <= 0:
                raise StartError("timed out after %.0f s waiting for %s; "
                                 "the end of kube-apiserver.log:\n%s" % (
                                     self.timeout, what,
                                     self.log_tail("kube-apiserver.log")))
            time.sleep(0.2)

    def wait_ready(self):
        def ready():
            st, _, body = self.client.raw("GET", "/readyz")
            return st == 200 and body == b"ok"
        self.wait_for("kube-apiserver's /readyz", ready)

    def install_crds(self):
        kinds = []
        for crd in crds.load(CRDS)[0]:
            self.client.create(
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                crd)
            kinds.append((crd["metadata"]["name"], openapi_name(crd)))
        for name, _ in kinds:
            self.wait_for("CRD %s Established" % name,
                          lambda: crd_established(self.client, name))
        # kubectl's client-side checks read /openapi/v2: the kinds arrive
        # there a few seconds after Established
        self.wait_for("the CRDs in /openapi/v2", lambda: self.in_openapi(
            [n for _, n in kinds]))

    def in_openapi(self, names):
        """Whether /openapi/v2 defines every name (a substring test: the
        document is 4 MB)."""
        st, _, body = self.client.raw("GET", "/openapi/v2")
        return st == 200 and all(b'"%s":' % n.encode() in body
                                 for n in names)

    def setup_objects(self):
        c = self.client
        # Volcano's installation makes the queue "default" (Open)
        q = c.create(kapi.path_of("scheduling.volcano.sh/v1beta1", "Queue"),
                     {"apiVersion": "scheduling.volcano.sh/v1beta1",
                      "kind": "Queue", "metadata": {"name": "default"},
                      "spec": {"reclaimable": True, "weight": 1}})
        q["status"] = {"state": "Open"}
        c.put(kapi.path_of("scheduling.volcano.sh/v1beta1", "Queue",
                           name="default", sub="status"), q)
        # Kubeflow Trainer's installation makes the runtimes: the one the
        # TrainJobs here run on
        c.create(kapi.path_of("trainer.kubeflow.org/v1alpha1",
                              "ClusterTrainingRuntime"),
                 crds.torch_distributed(CRDS))
        c.create("/api/v1/namespaces", {"apiVersion": "v1",
                                        "kind": "Namespace",
                                        "metadata": {"name": LIMITED_NS}})
        rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/" % LIMITED_NS
        c.create(rbac + "roles", limited_role())
        c.create(rbac + "rolebindings", {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "paictl-limited"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                        "kind": "Role", "name": "paictl-limited"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io",
                          "kind": "User", "name": "limited"}]})

    def write_env(self):
        pki = lambda f: self.path("pki", f)  # noqa: E731
        ca = pki("server.crt")
        kubeconfig(self.path("kubeconfig"), self.server, ca,
                   {"token": self.token})
        kubeconfig(self.path("kubeconfig-cert"), self.server, ca,
                   {"client-certificate": pki("client.crt"),
                    "client-key": pki("client.key")})
        kubeconfig(self.path("kubeconfig-limited"), self.server, ca,
                   {"token": self.limited_token}, LIMITED_NS)
        self.env = {
            "PAI_KUBE_SERVER": self.server, "PAI_KUBE_CA": ca,
            "PAI_KUBE_TOKEN": self.token,
            "KUBECONFIG": self.path("kubeconfig"),
            "PAI_KUBE_KUBECONFIG": self.path("kubeconfig"),
            "PAI_KUBE_KUBECONFIG_CERT": self.path("kubeconfig-cert"),
            "PAI_KUBE_CLIENT_CERT": pki("client.crt"),
            "PAI_KUBE_CLIENT_KEY": pki("client.key"),
            "PAI_KUBE_CLIENT_CA": pki("client-ca.crt"),
            "PAI_KUBE_KUBECONFIG_LIMITED": self.path("kubeconfig-limited"),
            "PAI_KUBE_LIMITED_TOKEN": self.limited_token,
            "PAI_KUBE_LIMITED_NS": LIMITED_NS,
            "PAI_KUBE_DIR": self.dir}

    def start_standin(self):
        ready = self.path("standin.ready")
        argv = [sys.executable, os.path.join(HERE, "standin.py"),
                "--server", self.server, "--token", self.token,
                "--ca", self.env["PAI_KUBE_CA"],
                "--state", self.path("standin"), "--ready-file", ready]
        if self.namespaces:
            argv += ["--namespaces", ",".join(self.namespaces)]
        self.procs.append(spawn(argv, self.path("standin.log")))
        self.wait_for("the stand-in", lambda: os.path.exists(ready))
        with open(ready) as f:
            info = json.load(f)
        self.env["PAI_KUBE_KUBELET"] = info["kubelet"]
        self.env["PAI_KUBE_NODE"] = info["node"]
        self.write_env_file()

    def write_env_file(self):
        with open(self.path("env"), "w") as f:
            for k, v in sorted(self.env.items()):
                f.write("%s=%s; export %s\n" % (k, shquote(v), k))

    def stop(self):
        """SIGTERM in reverse order of start (the API server shuts down
        gracefully in ~3 s), then anything left, then the directory."""
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        kill_descendants()
        if self.dir and os.environ.get("PAI_KUBE_KEEP") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)
        elif self.dir:
            say("kept %s (PAI_KUBE_KEEP=1)" % self.dir)
        self.dir = None


def limited_role():
    """Enough to run jobs in one namespace, but not exec into pods."""
    rw = ["get", "list", "watch", "create", "update", "patch", "delete"]
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "paictl-limited"},
            "rules": [
                {"apiGroups": [""], "verbs": rw,
                 "resources": ["configmaps", "pods", "events"]},
                {"apiGroups": [""], "verbs": ["get"],
                 "resources": ["pods/log"]},
                {"apiGroups": ["batch.volcano.sh"], "verbs": rw,
                 "resources": ["jobs"]},
                {"apiGroups": ["bus.volcano.sh"], "verbs": rw,
                 "resources": ["commands"]},
                {"apiGroups": ["batch.paddlepaddle.org"], "verbs": rw,
                 "resources": ["paddlejobs"]},
                {"apiGroups": ["jobset.x-k8s.io"], "verbs": rw,
                 "resources": ["jobsets"]},
                {"apiGroups": ["kubeflow.org"], "verbs": rw,
                 "resources": ["pytorchjobs", "mpijobs"]},
                {"apiGroups": ["trainer.kubeflow.org"], "verbs": rw,
                 "resources": ["trainjobs"]}]}


def openapi_name(crd):
    """How /openapi/v2 names a CRD's kind: the group reversed."""
    g = ".".join(reversed(crd["spec"]["group"].split(".")))
    v = [x["name"] for x in crd["spec"]["versions"] if x.get("served")][0]
    return "%s.%s.%s" % (g, v, crd["spec"]["names"]["kind"])


def crd_established(client, name):
    crd = client.get("/apis/apiextensions.k8s.io/v1/"
                     "customresourcedefinitions/" + name)
    return any(c["type"] == "Established" and c["status"] == "True"
               for c in (crd.get("status") or {}).get("conditions") or [])


def find_apiserver():
    """The binary build-apiserver.sh made (building it if missing)."""
    r = subprocess.run(["bash", os.path.join(HERE, "build-apiserver.sh")],
                       stdout=subprocess.PIPE)
    if r.returncode:
        raise StartError("no kube-apiserver (build-apiserver.sh failed)")
    return r.stdout.decode().strip()


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def hold_seat(server, ca, token, mutating=True):
    """With --throttle: occupy the one in-flight seat (of mutating
    requests, or of read-only ones) so that the next request of that kind
    by a user outside system:masters gets the API server's own 429.
    Mutating: a POST whose body is never sent. Read-only: a GET of
    /openapi/v2 (4 MB) whose answer is not read, so the handler blocks
    writing it. Returns the socket; close it to free the seat."""
    import urllib.parse
    u = urllib.parse.urlsplit(server)
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["http/1.1"])
    s = socket.create_connection((u.hostname, u.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s = ctx.wrap_socket(s, server_hostname=u.hostname)
    if mutating:
        req = ("POST /api/v1/namespaces/%s/configmaps HTTP/1.1\r\n"
               "Content-Type: application/json\r\nContent-Length: 1000\r\n"
               % LIMITED_NS)
    else:
        req = "GET /openapi/v2 HTTP/1.1\r\n"
    s.sendall(("%sHost: %s\r\nAuthorization: Bearer %s\r\n\r\n"
               % (req, u.netloc, token)).encode())
    return s


# ---- command line --------------------------------------------------------

def parse(argv):
    ap = argparse.ArgumentParser(prog="cluster.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "start"):
        p = sub.add_parser(name)
        p.add_argument("--standin", action="store_true")
        p.add_argument("--namespaces", default="")
        p.add_argument("--throttle", action="store_true")
        p.add_argument("--timeout", type=float, default=float(
            os.environ.get("PAI_KUBE_START_TIMEOUT", "120")))
        if name == "run":
            p.add_argument("command", nargs=argparse.REMAINDER)
    p = sub.add_parser("stop")
    p.add_argument("dir")
    return ap.parse_args(argv)


def make_cluster(a):
    ns = [x for x in a.namespaces.split(",") if x] or None
    return Cluster(standin=a.standin, namespaces=ns, throttle=a.throttle,
                   timeout=a.timeout)


def cmd_run(a):
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        say("run: no command")
        return 2
    with make_cluster(a) as c:
        env = dict(os.environ, **c.env)
        p = subprocess.Popen(cmd, env=env)
        # the command gets the terminal's signals; we wait for it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda *_: p.terminate())
        return p.wait()


def cmd_start(a):
    """Fork a supervisor that owns the cluster until `stop`."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid:
        os.close(wfd)
        with os.fdopen(rfd) as r:
            msg = r.read()
        if not msg.startswith("PAI_KUBE_DIR="):
            say(msg.strip() or "start failed")
            return 1
        sys.stdout.write(msg)
        return 0
    os.close(rfd)
    os.setsid()
    w = os.fdopen(wfd, "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    c = make_cluster(a)
    try:
        c.start()
        c.write_env_file()
        with open(c.path("supervisor.pid"), "w") as f:
            f.write("%d\n" % os.getpid())
        w.write("PAI_KUBE_DIR=%s; export PAI_KUBE_DIR\n" % c.dir)
        with open(c.path("env")) as f:
            w.write(f.read())
        w.close()
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        while not stopping:
            time.sleep(1)  # SIGTERM's handler cuts this short
            reap()
    except BaseException as e:
        if not w.closed:
            w.write("%s\n" % e)
            w.close()
    finally:
        c.stop()
        os._exit(0)


def cmd_stop(a):
    try:
        with open(os.path.join(a.dir, "supervisor.pid")) as f:
            pid = int(f.read())
    except (OSError, ValueError) as e:
        say("stop: %s: %s" % (a.dir, e))
        return 1
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 30
    while os.path.exists("/proc/%d" % pid) and time.time() < deadline:
        time.sleep(0.1)
    if os.path.exists("/proc/%d" % pid):
        say("stop: supervisor %d still running after 30 s" % pid)
        return 1
    return 0


def main(argv):
    a = parse(argv)
    try:
        return {"run": cmd_run, "start": cmd_start, "stop": cmd_stop}[
            a.cmd](a)
    except StartError as e:
        say("error: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
