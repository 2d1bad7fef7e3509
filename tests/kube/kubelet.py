"""tests/kube/kubelet.py - the stand-in's kubelet: a Node, and each pod
bound to it run as local processes with the environment the kubelet gives
a container, its status written through the API server.

A pod gets its own loopback address (127.1.x.y: pods have their own IPs,
so two servers of a job can both listen on port 10000) and, when
`unshare` works, its own mount and UTS namespaces: /etc/hosts there is a
file the stand-in keeps with the DNS names cluster DNS would answer
(<pod>.<subdomain> of headless Services, Services' names) and the hostname
is the pod's. Nothing else of a container is emulated: same filesystem,
same user, no cgroups (resources are not enforced), no volumes.

Test markers (documented in tests/kube/README.md):
  image containing "paictl.test/pull-fails"  ErrImagePull / ImagePullBackOff
  a container process killed by SIGKILL       terminated reason OOMKilled
  requests beyond the Node's allocatable      Unschedulable (scheduler)
"""
import hashlib
import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time

import kapi
from kapi import log, now_rfc3339

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "k8s"))
import check  # noqa: E402  tests/k8s/check.py: the kubelet's env rules

PULL_FAILS = "paictl.test/pull-fails"
# What a Debian image's ENV gives before the pod's env (the runtime adds
# HOSTNAME and HOME); service links (KUBERNETES_SERVICE_HOST...) are left
# out: there is no ServiceAccount token to go with them.
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MAX_GRACE = 5.0  # seconds; a pod's terminationGracePeriodSeconds, capped
RESTART_DELAY = 1.0  # CrashLoopBackOff, shortened from 10 s doubling


def now_nano():
    """RFC 3339 with 9 fractional digits in UTC, as the kubelet prints."""
    ns = time.time_ns()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + \
        ".%09dZ" % (ns % 10**9)


# ---- addresses and names ---------------------------------------------------

class Network:
    """Pod IPs and the /etc/hosts each namespace's pods see."""

    def __init__(self, state):
        self.dir = os.path.join(state, "dns")
        os.makedirs(self.dir, exist_ok=True)
        self.lock = threading.Lock()
        self.next = 1
        self.pods = {}  # uid -> (namespace, hostname, subdomain, ip, labels)
        self.services = {}  # (ns, name) -> selector of a headless Service
        self.isolate = can_isolate()

    def allocate(self, pod):
        with self.lock:
            n = self.next
            self.next += 1
        ip = "127.1.%d.%d" % (n // 254, n % 254 + 1)
        spec, md = pod["spec"], pod["metadata"]
        with self.lock:
            self.pods[md["uid"]] = (md["namespace"],
                                    spec.get("hostname") or md["name"],
                                    spec.get("subdomain"), ip,
                                    md.get("labels") or {})
        self.refresh()
        return ip

    def release(self, uid):
        with self.lock:
            self.pods.pop(uid, None)
        self.refresh()

    def set_services(self, services):
        sel = {}
        for s in services:
            spec = s.get("spec", {})
            if spec.get("clusterIP") == "None" and spec.get("selector"):
                md = s["metadata"]
                sel[(md["namespace"], md["name"])] = spec["selector"]
        with self.lock:
            changed = sel != self.services
            self.services = sel
        if changed:
            self.refresh()

    def hosts_file(self, ns):
        return os.path.join(self.dir, ns + ".hosts")

    def entries(self, ns):
        """(ip, name) lines for pods of namespace ns, in allocation order
        so that a rewrite mostly appends (readers may read mid-write)."""
        out = []
        for pns, host, sub, ip, labels in self.pods.values():
            names = [host] if pns == ns else []
            if sub and (pns, sub) in self.services:
                names += dns_forms(host + "." + sub, pns, ns)
            for (sns, sname), sel in self.services.items():
                if sns == pns and all(labels.get(k) == v
                                      for k, v in sel.items()):
                    names += dns_forms(sname, pns, ns)
            out += [(ip, n) for n in names]
        return out

    def refresh(self):
        with self.lock:
            namespaces = {p[0] for p in self.pods.values()}
            for ns in namespaces:
                text = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost " \
                       "ip6-loopback\n" + "".join(
                           "%s\t%s\n" % e for e in self.entries(ns))
                write_in_place(self.hosts_file(ns), text)

    def wrap(self, pod, argv):
        """argv run inside the pod's own mount/UTS namespaces."""
        if not self.isolate:
            return argv
        md, spec = pod["metadata"], pod["spec"]
        hosts = self.hosts_file(md["namespace"])
        if not os.path.exists(hosts):
            write_in_place(hosts, "127.0.0.1\tlocalhost\n")
        return self.isolate + [
            "/bin/sh", "-c", 'h=$1 n=$2; shift 2; /bin/mount --bind "$h" '
            '/etc/hosts && /bin/hostname "$n" && exec "$@"', "sh", hosts,
            spec.get("hostname") or md["name"]] + argv


def dns_forms(name, name_ns, from_ns):
    """The names cluster DNS answers for a Service-ish name in name_ns,
    seen from a pod in from_ns (search path ns.svc.cluster.local ...)."""
    forms = [name + "." + name_ns, name + "." + name_ns + ".svc",
             name + "." + name_ns + ".svc.cluster.local"]
    return ([name] if name_ns == from_ns else []) + forms


def write_in_place(path, text):
    """Rewrite without replacing the inode: pods bind-mount this file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
        os.ftruncate(fd, len(text.encode()))
    finally:
        os.close(fd)


def can_isolate():
    """The unshare prefix that gives a pod its own /etc/hosts and
    hostname, or None (then names do not resolve; warned once)."""
    unshare = shutil.which("unshare")
    if unshare and os.path.exists("/bin/mount"):
        argv = [unshare, "--mount", "--uts", "--propagation", "private"]
        if os.geteuid() != 0:
            argv.insert(1, "--map-root-user")
        if subprocess.run(argv + ["/bin/true"],
                          stderr=subprocess.DEVNULL).returncode == 0:
            return argv
    log("warning: cannot unshare mount/UTS namespaces: pods get the "
        "machine's /etc/hosts and hostname (pod DNS names do not resolve)")
    return None


# ---- one run of a container -------------------------------------------------

class Instance:
    """One start of a container: its process, log file (the CRI format:
    `<time> stdout|stderr F|P <line>`), status."""

    def __init__(self, runner, n):
        self.runner, self.n = runner, n
        self.log_path = os.path.join(runner.dir, "%d.log" % n)
        # the container's own files (its working directory here): a
        # restarted container starts afresh, exec sessions share them
        self.workdir = os.path.join(runner.dir, "%d.root" % n)
        os.makedirs(self.workdir, exist_ok=True)
        self.id = "containerd://" + hashlib.sha256(
            ("%s/%s/%d" % (runner.pod_uid, runner.name, n)).encode()
        ).hexdigest()
        self.proc, self.started, self.finished = None, None, None
        self.exit_code, self.reason, self.message = None, None, None
        self.env, self.argv = None, None
        self.running = False
        self.output_done = threading.Event()
        self.wlock = threading.Lock()
        open(self.log_path, "ab").close()

    def write_log(self, stream, line, partial):
        entry = "%s %s %s " % (now_nano(), stream, "P" if partial else "F")
        with self.wlock, open(self.log_path, "ab") as f:
            f.write(entry.encode() + line + b"\n")

    def pump(self, pipe, stream):
        """Copy a pipe into the log, one entry per line; a line longer
        than 16 KiB is split into partial entries, as containerd does."""
        buf = b""
        while True:
            chunk = pipe.read1(65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf or len(buf) >= 16384:
                i = buf.find(b"\n")
                if i < 0 or i >= 16384:
                    self.write_log(stream, buf[:16384], True)
                    buf = buf[16384:]
                else:
                    self.write_log(stream, buf[:i], False)
                    buf = buf[i + 1:]
        if buf:  # a last line with no newline: containerd writes it full
            self.write_log(stream, buf, False)
        pipe.close()

    def start(self, argv, env, cwd, wrap):
        self.env, self.argv = env, argv
        self.proc = subprocess.Popen(
            wrap(argv), env=env, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        self.started, self.running = now_rfc3339(), True
        ts = [threading.Thread(target=self.pump, args=(p, s), daemon=True)
              for p, s in ((self.proc.stdout, "stdout"),
                           (self.proc.stderr, "stderr"))]
        for t in ts:
            t.start()
        threading.Thread(target=lambda: ([t.join() for t in ts],
                                         self.output_done.set()),
                         daemon=True).start()

    def kill_group(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def finish(self, code, killed_by_us):
        """Record the end; the rest of the container's processes die with
        it, as when a container's PID 1 exits."""
        self.kill_group(signal.SIGKILL)
        self.output_done.wait(2)
        self.exit_code = code if code >= 0 else 128 - code
        if code == 0:
            self.reason = "Completed"
        elif code == -signal.SIGKILL and not killed_by_us:
            self.reason = "OOMKilled"
        else:
            self.reason = "Error"
        self.finished, self.running = now_rfc3339(), False

    def terminated(self):
        t = {"exitCode": self.exit_code, "reason": self.reason,
             "startedAt": self.started, "finishedAt": self.finished,
             "containerID": self.id}
        if self.message:
            t["message"] = self.message
        return t


# ---- a container across restarts -----------------------------------------------

class ContainerRunner:
    def __init__(self, worker, spec, init=False):
        self.worker, self.spec, self.init = worker, spec, init
        self.name, self.pod_uid = spec["name"], worker.uid
        self.dir = os.path.join(worker.dir, self.name)
        os.makedirs(self.dir, exist_ok=True)
        self.instances = []
        self.waiting = ("ContainerCreating", None)
        self.restarts = 0
        self.done = False  # no further start will happen

    def current(self):
        return self.instances[-1] if self.instances else None

    def status(self):
        cur = self.current()
        st = {"name": self.name, "image": self.spec.get("image", ""),
              "imageID": "", "restartCount": self.restarts,
              "ready": bool(cur and cur.running), "started": bool(
                  cur and cur.running), "state": {}, "lastState": {}}
        if cur and cur.running:
            st["state"]["running"] = {"startedAt": cur.started}
            st["containerID"] = cur.id
        elif cur and cur.finished and (self.done or self.waiting is None):
            st["state"]["terminated"] = cur.terminated()
            st["containerID"] = cur.id
        else:
            reason, msg = self.waiting or ("ContainerCreating", None)
            st["state"]["waiting"] = {"reason": reason}
            if msg:
                st["state"]["waiting"]["message"] = msg
        prev = self.instances[-2] if len(self.instances) > 1 else None
        if cur and not cur.running and not self.done and self.waiting:
            prev = cur  # between restarts: the last run is lastState
        if prev and prev.finished:
            st["lastState"]["terminated"] = prev.terminated()
        return st

    def set_waiting(self, reason, msg=None):
        if self.waiting != (reason, msg):
            self.waiting = (reason, msg)
            self.worker.write_status()

    def environment(self):
        """The kubelet's: image defaults, then envFrom and env
        (check.container_env); MissingConfig when a ConfigMap is absent."""
        cms = self.worker.configmaps(self.spec)
        env = check.container_env(self.spec, cms, self.worker.field)
        base = {"PATH": IMAGE_PATH, "HOSTNAME": self.worker.hostname(),
                "HOME": pwd.getpwuid(os.getuid()).pw_dir}
        base.update(env)
        return base

    def argv(self, env):
        cmd = [check.kubelet(x, env) for x in self.spec.get("command", [])]
        args = [check.kubelet(x, env) for x in self.spec.get("args", [])]
        return cmd + args

    def start_once(self):
        """Start one instance; None when it could not start (state set)."""
        try:
            env = self.environment()
        except check.MissingConfig as e:
            self.set_waiting("CreateContainerConfigError", str(e))
            return None
        inst = Instance(self, len(self.instances))
        argv = self.argv(env)
        exe = argv and shutil.which(argv[0], path=env.get("PATH", ""))
        if not argv or not exe:
            inst.started = now_rfc3339()
            inst.message = ('exec: "%s": executable file not found in $PATH'
                            % argv[0] if argv else
                            "stand-in: no command (the image's entrypoint "
                            "is unknown here)")
            self.instances.append(inst)
            inst.finish(128, True)
            inst.reason = "ContainerCannotRun"
            return inst
        self.instances.append(inst)
        inst.start(argv, env, inst.workdir,
                   lambda a: self.worker.kubelet.net.wrap(self.worker.pod, a))
        self.waiting = None
        return inst

    def wait(self, inst):
        """Wait for the instance's end or the pod's deletion."""
        killed = False
        while inst.proc and inst.proc.poll() is None:
            if self.worker.deleting.is_set() and not killed:
                killed = True
                inst.kill_group(signal.SIGTERM)
                threading.Timer(self.worker.grace(), inst.kill_group,
                                (signal.SIGKILL,)).start()
            time.sleep(0.1)
        if inst.proc:
            inst.finish(inst.proc.returncode, killed)

    def restart_wanted(self, inst):
        policy = self.worker.pod["spec"].get("restartPolicy", "Always")
        if self.worker.deleting.is_set():
            return False
        if self.init:
            return inst.exit_code != 0 and policy != "Never"
        return policy == "Always" or (policy == "OnFailure"
                                      and inst.exit_code != 0)

    def run(self):
        """Start, wait, restart per restartPolicy; returns the last exit
        code (None if it never started before the pod was deleted)."""
        while not self.worker.deleting.is_set():
            inst = self.start_once()
            if inst is None:
                self.worker.deleting.wait(1.0)
                continue
            self.worker.write_status()
            self.wait(inst)
            if not self.restart_wanted(inst):
                break
            self.restarts += 1
            self.set_waiting("CrashLoopBackOff",
                             "back-off %ds restarting failed container=%s "
                             "pod=%s" % (RESTART_DELAY, self.name,
                                         self.worker.name))
            self.worker.deleting.wait(RESTART_DELAY)
        self.done = True
        self.worker.write_status()
        cur = self.current()
        return cur.exit_code if cur and cur.finished else None


# ---- a pod -----------------------------------------------------------------------

class PodWorker(threading.Thread):
    def __init__(self, kubelet, pod):
        super().__init__(daemon=True, name="pod-" + pod["metadata"]["name"])
        self.kubelet, self.pod = kubelet, pod
        md = pod["metadata"]
        self.uid, self.ns, self.name = md["uid"], md["namespace"], md["name"]
        self.dir = os.path.join(kubelet.state, "pods", "%s_%s_%s" % (
            self.ns, self.name, self.uid))
        os.makedirs(self.dir, exist_ok=True)
        self.deleting, self.gone = threading.Event(), threading.Event()
        self.slock = threading.Lock()
        self.ip, self.started, self.phase = None, None, "Pending"
        self.conds = {}
        self.inits = [ContainerRunner(self, c, True)
                      for c in pod["spec"].get("initContainers", [])]
        self.mains = [ContainerRunner(self, c)
                      for c in pod["spec"]["containers"]]
        self.initialized = not self.inits

    def update(self, pod):
        self.pod = pod
        if pod["metadata"].get("deletionTimestamp"):
            self.deleting.set()

    def removed(self):
        """The API object is gone (deleted with grace 0, or terminal)."""
        self.gone.set()
        self.deleting.set()

    def grace(self):
        md, spec = self.pod["metadata"], self.pod["spec"]
        g = md.get("deletionGracePeriodSeconds",
                   spec.get("terminationGracePeriodSeconds", 30))
        return min(float(g), MAX_GRACE)

    def hostname(self):
        return self.pod["spec"].get("hostname") or self.name

    def runner(self, name):
        for r in self.mains + self.inits:
            if r.name == name:
                return r
        return None

    def field(self, path):
        """A fieldRef's value, as the kubelet resolves it."""
        md, spec = self.pod["metadata"], self.pod["spec"]
        simple = {"metadata.name": self.name, "metadata.namespace": self.ns,
                  "metadata.uid": self.uid,
                  "spec.nodeName": spec.get("nodeName", ""),
                  "spec.serviceAccountName":
                      spec.get("serviceAccountName", ""),
                  "status.hostIP": "127.0.0.1", "status.podIP": self.ip,
                  "status.podIPs": self.ip}
        if path in simple:
            return simple[path]
        for prefix, d in (("metadata.labels", md.get("labels") or {}),
                          ("metadata.annotations",
                           md.get("annotations") or {})):
            if path.startswith(prefix + "['") and path.endswith("']"):
                return d.get(path[len(prefix) + 2:-2], "")
        raise check.MissingConfig("unsupported fieldPath %s" % path)

    def configmaps(self, c):
        """The ConfigMaps a container's env refers to, read now."""
        names = {s["configMapRef"]["name"] for s in c.get("envFrom", [])
                 if "configMapRef" in s}
        names |= {e["valueFrom"]["configMapKeyRef"]["name"]
                  for e in c.get("env", []) if "configMapKeyRef" in
                  (e.get("valueFrom") or {})}
        out = {}
        for n in names:
            cm = self.kubelet.client.maybe_get(kapi.path_of(
                "v1", "ConfigMap", self.ns, n))
            if cm is not None:
                out[n] = cm.get("data") or {}
        return out

    # -- status --
    def cond(self, ctype, ok, reason=None):
        status = "True" if ok else "False"
        old = self.conds.get(ctype)
        if not old or old["status"] != status:
            self.conds[ctype] = {"type": ctype, "status": status,
                                 "lastProbeTime": None,
                                 "lastTransitionTime": now_rfc3339()}
            if reason:
                self.conds[ctype]["reason"] = reason

    def compute_phase(self):
        """The kubelet's getPhase() over the current statuses; a terminal
        phase is final."""
        if self.phase in ("Succeeded", "Failed"):
            return self.phase
        policy = self.pod["spec"].get("restartPolicy", "Always")
        pending_init = failed_init = 0
        for s in (r.status() for r in self.inits):
            st, last = s["state"], s["lastState"]
            if "terminated" in st:
                failed_init += st["terminated"]["exitCode"] != 0
            elif "waiting" in st and "terminated" in last:
                failed_init += last["terminated"]["exitCode"] != 0
            else:
                pending_init += 1
        running = waiting = stopped = succeeded = 0
        for s in (r.status() for r in self.mains):
            st, last = s["state"], s["lastState"]
            if "running" in st:
                running += 1
            elif "terminated" in st:
                stopped += 1
                succeeded += st["terminated"]["exitCode"] == 0
            elif "terminated" in last:
                stopped += 1
            else:
                waiting += 1
        if failed_init and policy == "Never":
            return "Failed"
        if pending_init or waiting:
            return "Pending"
        if running:
            return "Running"
        if policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        return "Failed" if policy == "Never" else "Running"

    def status(self):
        self.phase = self.compute_phase()
        mains = [r.status() for r in self.mains]
        ready = all(s["ready"] for s in mains)
        self.cond("Initialized", self.initialized)
        self.cond("Ready", ready, None if ready else "ContainersNotReady")
        self.cond("ContainersReady", ready,
                  None if ready else "ContainersNotReady")
        self.cond("PodScheduled", True)
        st = {"phase": self.phase, "hostIP": "127.0.0.1",
              "startTime": self.started, "qosClass": "Burstable",
              "conditions": [self.conds[t] for t in (
                  "Initialized", "Ready", "ContainersReady",
                  "PodScheduled")],
              "containerStatuses": mains}
        if self.inits:
            st["initContainerStatuses"] = [r.status() for r in self.inits]
        if self.ip:
            st["podIP"], st["podIPs"] = self.ip, [{"ip": self.ip}]
        return st

    def write_status(self):
        if self.gone.is_set():
            return
        with self.slock:
            try:
                out = self.kubelet.client.merge_patch(kapi.path_of(
                    "v1", "Pod", self.ns, self.name, "status"),
                    {"metadata": {"uid": self.uid},
                     "status": self.status()})
            except kapi.ApiError as e:
                if e.code not in (404, 409):
                    log("pod %s/%s: status: %s" % (self.ns, self.name, e))
                return
            self.kubelet.settle(self.uid, out["metadata"]["resourceVersion"])

    # -- lifecycle --
    def pull_images(self):
        """The marker image never pulls: ErrImagePull, then
        ImagePullBackOff, alternating as the kubelet's back-off does."""
        bad = [r for r in self.inits + self.mains
               if PULL_FAILS in r.spec.get("image", "")]
        n = 0
        while bad and not self.deleting.is_set():
            for r in bad:
                img = r.spec["image"]
                if n % 2 == 0:
                    r.set_waiting("ErrImagePull", 'rpc error: code = Unknown '
                                  'desc = failed to pull and unpack image '
                                  '"%s": not found' % img)
                else:
                    r.set_waiting("ImagePullBackOff",
                                  'Back-off pulling image "%s"' % img)
            if n == 0:
                self.kubelet.client.event(
                    with_kind(self.pod), "Warning", "Failed",
                    'Failed to pull image "%s": not found'
                    % bad[0].spec["image"], "kubelet")
            n += 1
            self.deleting.wait(2.0)
        return not bad

    def run_inits(self):
        for r in self.inits:
            if r.run() != 0:
                return False
        self.initialized = True
        return True

    def run_mains(self):
        ts = [threading.Thread(target=r.run, daemon=True)
              for r in self.mains]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    def run(self):
        try:
            self.started = now_rfc3339()
            self.ip = self.kubelet.net.allocate(self.pod)
            self.write_status()
            if self.pull_images() and self.run_inits():
                self.run_mains()
            for r in self.inits + self.mains:
                r.done = True
            self.write_status()
            self.deleting.wait()
        except Exception as e:
            log("pod %s/%s: %r" % (self.ns, self.name, e))
        finally:
            self.stop_all()
            self.kubelet.net.release(self.uid)
            if not self.gone.is_set():
                # the kubelet's part of a graceful deletion
                self.kubelet.client.delete(kapi.path_of(
                    "v1", "Pod", self.ns, self.name), grace=0, uid=self.uid)
            self.kubelet.forget(self)

    def stop_all(self):
        self.deleting.set()
        for r in self.inits + self.mains:
            for inst in r.instances:
                if inst.proc and inst.proc.poll() is None:
                    inst.kill_group(signal.SIGKILL)


def with_kind(pod):
    return dict(pod, apiVersion="v1", kind="Pod")


# ---- the kubelet ------------------------------------------------------------------

class Kubelet:
    def __init__(self, client, state, node, capacity, stop):
        self.client, self.state, self.node = client, state, node
        self.capacity, self.stop = capacity, stop
        self.net = Network(state)
        self.lock = threading.Lock()
        self.workers = {}  # uid -> PodWorker
        self.port = None
        # called after each pod status write; standin.py makes it wait
        # until the controllers have seen it (see StandIn.settle)
        self.settle = lambda uid, rv: None

    def register(self, port):
        """Create (or refresh) the Node: Ready, its InternalIP 127.0.0.1,
        our HTTPS port as the kubelet endpoint the API server dials."""
        self.port = port
        node = node_object(self.node, port, self.capacity)
        path = kapi.path_of("v1", "Node", name=self.node)
        old = self.client.maybe_get(path)
        if old is None:
            old = self.client.create(kapi.path_of("v1", "Node"), node)
        old["status"] = node["status"]
        self.client.put(path + "/status", old)

    def on_pod(self, kind, old, new):
        pod = new or old
        if pod["spec"].get("nodeName") != self.node:
            return
        uid = pod["metadata"]["uid"]
        with self.lock:
            w = self.workers.get(uid)
            if w is None and kind != "delete":
                w = self.workers[uid] = PodWorker(self, pod)
                w.start()
        if w is None:
            return
        if kind == "delete":
            w.removed()
        else:
            w.update(new)

    def forget(self, worker):
        with self.lock:
            self.workers.pop(worker.uid, None)

    def find(self, ns, name):
        with self.lock:
            for w in self.workers.values():
                if w.ns == ns and w.name == name and not w.gone.is_set():
                    return w
        return None

    def shutdown(self):
        with self.lock:
            ws = list(self.workers.values())
        for w in ws:
            w.gone.set()  # the API server may be gone too: no calls
            w.stop_all()


def node_object(name, port, cap):
    conds = [("Ready", "True", "KubeletReady",
              "kubelet is posting ready status")] + [
        (t, "False", "Kubelet" + r, "kubelet has " + m) for t, r, m in (
            ("MemoryPressure", "HasSufficientMemory",
             "sufficient memory available"),
            ("DiskPressure", "HasNoDiskPressure", "no disk pressure"),
            ("PIDPressure", "HasSufficientPID", "sufficient PID available"))]
    now = now_rfc3339()
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64", "paictl.test/standin": "true"}},
        "spec": {},
        "status": {
            "capacity": cap, "allocatable": cap,
            "conditions": [{"type": t, "status": s, "reason": r,
                            "message": m, "lastHeartbeatTime": now,
                            "lastTransitionTime": now}
                           for t, s, r, m in conds],
            "addresses": [{"type": "InternalIP", "address": "127.0.0.1"},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": port}},
            "nodeInfo": {"machineID": "", "systemUUID": "", "bootID": "",
                         "kernelVersion": os.uname().release,
                         "osImage": "paictl stand-in",
                         "containerRuntimeVersion": "standin://1",
                         "kubeletVersion": "v1.20.2",
                         "kubeProxyVersion": "v1.20.2",
                         "operatingSystem": "linux",
                         "architecture": "amd64"}}}
