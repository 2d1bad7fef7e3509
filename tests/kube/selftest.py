#!/usr/bin/env python3
"""tests/kube/selftest.py - proves the Kubernetes test harness works,
without paictl's Kubernetes client (only `paictl convert`): a real
kube-apiserver (cluster.py) with the stand-in (standin.py), driven with
kubectl, and a raw WebSocket client for exec as paictl's C client will do
it (kubectl 1.32 offers only WebSocket v5, which a 1.20 kubelet refuses,
and falls back to SPDY: the stand-in serves both).

    selftest.py [-v]        (PAICTL, default build/paictl)

One line per check, `ok` or `FAIL`, and a summary; exit 1 on a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import cluster  # noqa: E402
import kapi  # noqa: E402
from tap import check, results  # noqa: E402
import kubews  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))
PAICTL = os.environ.get("PAICTL", os.path.join(TOP, "build", "paictl"))
# PAI_KUBECTL= (empty) runs without kubectl, as on a machine that has none
KUBECTL = os.environ.get("PAI_KUBECTL", shutil.which("kubectl"))
JOB = ("batch.volcano.sh/v1alpha1", "Job")
CMD = ("bus.volcano.sh/v1alpha1", "Command")
PDJ = ("batch.paddlepaddle.org/v1", "PaddleJob")
VERBOSE = "-v" in sys.argv


def wait(what, test, timeout=30.0):
    """test() until truthy (its value) or the timeout (None, a FAIL)."""
    deadline, last = time.time() + timeout, None
    while time.time() < deadline:
        try:
            v = test()
            if v:
                check(what, True)
                return v
        except (kapi.ApiError, KeyError, IndexError, TypeError) as e:
            last = e
        time.sleep(0.2)
    check(what, False, "timed out after %.0f s%s" % (
        timeout, "; last error: %s" % last if last else ""))
    return None


class Harness:
    def __init__(self, c):
        self.c, self.api, self.env = c, c.client, dict(os.environ, **c.env)

    def run(self, argv, input=None):
        r = subprocess.run(argv, input=input, capture_output=True,
                           env=self.env, timeout=60)
        if VERBOSE:
            print("$ %s -> %d\n%s%s" % (" ".join(argv), r.returncode,
                                        r.stdout.decode(), r.stderr.decode()))
        return r

    def kubectl(self, *args, input=None):
        return self.run([KUBECTL] + list(args), input)

    def namespace(self, name):
        self.api.create("/api/v1/namespaces", {
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name}})
        return name

    def convert(self, kind, path):
        r = self.run([PAICTL, "convert", "--to", kind, path])
        if r.returncode:
            raise RuntimeError("paictl convert: " + r.stderr.decode())
        return r.stdout

    def apply(self, ns, manifest):
        """kubectl apply when there is a kubectl, else POSTs."""
        if KUBECTL:
            r = self.kubectl("apply", "-n", ns, "-f", "-", input=manifest)
            return check("kubectl apply", r.returncode == 0, r.stderr)
        import yaml
        for doc in yaml.safe_load_all(manifest):
            self.api.create(kapi.path_of(doc["apiVersion"], doc["kind"], ns),
                            doc)
        return True

    def pods(self, ns, selector=""):
        q = {"labelSelector": selector} if selector else {}
        return self.api.get("/api/v1/namespaces/%s/pods" % ns, **q)["items"]

    def job(self, ns, name, api=JOB):
        return self.api.maybe_get(kapi.path_of(*api, ns, name))

    def phase(self, ns, name):
        j = self.job(ns, name)
        return ((j or {}).get("status") or {}).get("state", {}).get("phase")

    def wait_phase(self, ns, name, phase, timeout=30):
        return wait("job %s/%s reaches %s" % (ns, name, phase),
                    lambda: self.phase(ns, name) == phase, timeout)

    def log(self, ns, pod, **q):
        st, _, body = self.api.raw("GET", "/api/v1/namespaces/%s/pods/%s/log"
                                   % (ns, pod), query=q or None)
        return st, body.decode()

    def events(self, ns, name):
        return self.api.get("/api/v1/namespaces/%s/events" % ns,
                            fieldSelector="involvedObject.name=" + name
                            )["items"]


def write_config(d, name, config):
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def role(name, n, command, **kw):
    r = {"name": name, "taskNumber": n, "cpuNumber": 1, "memoryMB": 100,
         "gpuNumber": 0, "command": command}
    r.update(kw)
    return r


# ---- scenarios ------------------------------------------------------------

def hello_distributed(h):
    """The README's job: 2 servers, 2 clients finding them by DNS name."""
    ns = h.namespace("selftest-hello")
    h.apply(ns, h.convert("volcano", os.path.join(
        TOP, "examples", "hello-distributed.json")))
    if not h.wait_phase(ns, "hello-distributed", "Completed"):
        return
    pods = {p["metadata"]["name"]: p for p in h.pods(
        ns, "volcano.sh/job-name=hello-distributed")}
    check("4 pods named <job>-<task>-<index>", sorted(pods) == [
        "hello-distributed-client-0", "hello-distributed-client-1",
        "hello-distributed-server-0", "hello-distributed-server-1"],
        sorted(pods))
    p = pods.get("hello-distributed-client-1")
    if p:
        pod_shape(h, ns, p)
    job = h.job(ns, "hello-distributed")
    conds = [c["status"] for c in job["status"].get("conditions", [])]
    check("Job conditions Pending, Running, Completed",
          conds == ["Pending", "Running", "Completed"], conds)
    for i in (0, 1):
        st, out = h.log(ns, "hello-distributed-client-%d" % i)
        check("client-%d's log: both servers answered by DNS name" % i,
              st == 200 and "hello from server-0" in out and
              "hello from server-1" in out, (st, out))
    logs_options(h, ns)
    if KUBECTL:
        r = h.kubectl("logs", "-n", ns, "hello-distributed-server-0")
        check("kubectl logs", r.stdout == b"served 2 clients\n", r)


def pod_shape(h, ns, p):
    md, st = p["metadata"], p["status"]
    lab, ann = md.get("labels", {}), md.get("annotations", {})
    want_l = {"volcano.sh/job-name": "hello-distributed",
              "volcano.sh/job-namespace": ns,
              "volcano.sh/task-spec": "client", "volcano.sh/task-index": "1",
              "volcano.sh/queue-name": "default"}
    check("Volcano's pod labels", all(lab.get(k) == v for k, v in
                                      want_l.items()), lab)
    job = h.job(ns, "hello-distributed")
    want_a = {"volcano.sh/task-spec": "client", "volcano.sh/task-index": "1",
              "volcano.sh/job-name": "hello-distributed",
              "volcano.sh/queue-name": "default",
              "volcano.sh/job-version": "0",
              "scheduling.k8s.io/group-name": "hello-distributed-" +
              job["metadata"]["uid"], "paictl/task-role": "client"}
    check("Volcano's pod annotations (template's kept)",
          all(ann.get(k) == v for k, v in want_a.items()), ann)
    ref = md["ownerReferences"][0]
    check("controller ownerReference to the Job",
          ref["uid"] == job["metadata"]["uid"] and ref["controller"] and
          ref["blockOwnerDeletion"] and ref["kind"] == "Job", ref)
    cs = st["containerStatuses"][0]
    check("pod Succeeded, terminated Completed exit 0, on the Node",
          st["phase"] == "Succeeded" and cs["state"]["terminated"][
              "reason"] == "Completed" and cs["state"]["terminated"][
              "exitCode"] == 0 and p["spec"]["nodeName"] ==
          h.env["PAI_KUBE_NODE"] and st["podIP"].startswith("127.1."),
          st)
    env = {e["name"] for e in p["spec"]["containers"][0]["env"]}
    check("svc and env plugins' variables appended",
          {"VC_SERVER_HOSTS", "VC_CLIENT_NUM", "VC_TASK_INDEX",
           "VK_TASK_INDEX"} <= env and p["spec"].get("hostname") ==
          md["name"] and p["spec"].get("subdomain") == "hello-distributed",
          env)


def logs_options(h, ns):
    pod = "hello-distributed-client-0"
    st, out = h.log(ns, pod, timestamps="true")
    lines = out.splitlines()
    check("log timestamps: RFC 3339, 9 fractional digits", st == 200 and
          len(lines) == 2 and all(len(x.split(" ")[0]) == 30 and
                                  x.split(" ")[0].endswith("Z")
                                  for x in lines), out)
    st, out = h.log(ns, pod, tailLines="1")
    check("log tailLines=1", out.count("\n") == 1 and "server-1" in out, out)
    st, out = h.log(ns, pod, limitBytes="5")
    check("log limitBytes=5", out == "clien", out)
    st, out = h.log(ns, pod, previous="true")
    check("log previous without one: 400", st == 400 and
          "previous terminated container" in out, (st, out))


def sleeper_config(d, n=2):
    """retryCount 2: maxRetry 3, so that a resume (which spends a retry)
    does not fail the job."""
    return write_config(d, "sleeper", {
        "jobName": "sleeper", "image": "debian:stable", "retryCount": 2,
        "taskRoles": [role("main", n, "echo start $PAI_TASK_INDEX; "
                           "for i in $(seq 10000); do echo tick $i; "
                           "sleep 0.1; done")]})


def submit_owned(h, ns, manifest):
    """As paictl will (kubernetes-api.md section 4, A): ConfigMap, Job,
    then the ConfigMap owned by the Job."""
    h.apply(ns, manifest)
    job = h.job(ns, "sleeper")
    cm = "sleeper-pai-env"
    h.api.merge_patch(kapi.path_of("v1", "ConfigMap", ns, cm), {
        "metadata": {"ownerReferences": [{
            "apiVersion": JOB[0], "kind": "Job", "name": "sleeper",
            "uid": job["metadata"]["uid"]}]}})
    return job


def running_job(h, d):
    """Exec, follow and its cut, abort, resume, delete and GC."""
    ns = h.namespace("selftest-run")
    job = submit_owned(h, ns, h.convert("volcano", sleeper_config(d)))
    if not h.wait_phase(ns, "sleeper", "Running"):
        return
    wait("pod sleeper-main-0 Running", lambda: h.api.get(
        kapi.path_of("v1", "Pod", ns, "sleeper-main-0"))["status"][
        "phase"] == "Running")
    exec_checks(h, ns, "sleeper-main-0", "main")
    follow_cut(h, ns, "sleeper-main-1", "main")
    abort_resume(h, ns)
    delete_gc(h, ns, job)


def exec_path(ns, pod, container, argv, **flags):
    q = [("command", a) for a in argv] + [("container", container)] + [
        (k, "true") for k, v in flags.items() if v]
    return "/api/v1/namespaces/%s/pods/%s/exec?%s" % (
        ns, pod, urllib.parse.urlencode(q))


def ws_exec(h, ns, pod, container, argv, protocols=("v5.channel.k8s.io",
                                                   "v4.channel.k8s.io"),
            send=b"", close_after=None, resize=None, **flags):
    conn, status, hdr = kubews.client_connect(
        h.env["PAI_KUBE_SERVER"], exec_path(ns, pod, container, argv,
                                            **flags),
        h.env["PAI_KUBE_TOKEN"], h.env["PAI_KUBE_CA"], list(protocols))
    if conn is None:
        return status, hdr, (b"", hdr.get("_body", b""), None)
    if resize:
        conn.send_channel(4, json.dumps({"Width": resize[0],
                                         "Height": resize[1]}).encode())
    if close_after:
        threading.Timer(close_after, conn.close).start()
    return status, conn.protocol, kubews.run_exec(conn, send)


def exec_checks(h, ns, pod, c):
    st, proto, (out, err, status) = ws_exec(
        h, ns, pod, c, ["sh", "-c", "echo $PAI_TASK_ROLE_NAME $(hostname); "
                        "echo oops >&2; exit 3"], stdout=1, stderr=1)
    check("exec over WebSocket: v4 chosen from v5,v4", "101" in st and
          proto == "v4.channel.k8s.io", (st, proto, err))
    check("exec: stdout in the task's environment and hostname",
          out == b"main %s\n" % pod.encode(), out)
    check("exec: stderr on channel 2", err == b"oops\n", err)
    check("exec: exit status 3 on channel 3", status and
          status["reason"] == "NonZeroExitCode" and
          status["details"]["causes"][0] == {"reason": "ExitCode",
                                             "message": "3"}, status)
    st, proto, (out, err, status) = ws_exec(
        h, ns, pod, c, ["sh", "-c", "read x; echo got $x"], send=b"hi\n",
        stdin=1, stdout=1, stderr=1)
    check("exec: stdin on channel 0", out == b"got hi\n" and
          status == {"metadata": {}, "status": "Success"}, (out, status))
    st, proto, (out, err, status) = ws_exec(
        h, ns, pod, c, ["tty"], protocols=["v4.base64.channel.k8s.io"],
        stdin=1, stdout=1, tty=1)
    check("exec: tty=true gives a terminal (base64 protocol)",
          proto == "v4.base64.channel.k8s.io" and out.startswith(b"/dev/pts/")
          and status["status"] == "Success", (proto, out, status))
    st, proto, (out, err, status) = ws_exec(
        h, ns, pod, c, ["sh", "-c", "sleep 0.5; stty size"], resize=(
            100, 30), protocols=["v4.channel.k8s.io"], stdin=1, stdout=1,
        tty=1)
    check("exec: a resize on channel 4 sets the terminal's size",
          out == b"30 100\r\n", out)
    st, proto, (out, err, status) = ws_exec(
        h, ns, pod, c, ["sh", "-c", "exit 4"],
        protocols=["channel.k8s.io"], stdout=1)
    check("exec: channel.k8s.io (v1) gives the error as text",
          proto == "channel.k8s.io" and isinstance(status, str) and
          status.endswith("exit code 4"), (proto, status))
    st, hdr, (_, body, _) = ws_exec(h, ns, pod, c, ["true"],
                                    protocols=["v5.channel.k8s.io"], stdout=1)
    check("exec: v5 alone refused as a 1.20 kubelet does (403, empty)",
          "403" in st and body == b"", (st, hdr))
    if KUBECTL:
        kubectl_exec(h, ns, pod)


def kubectl_exec(h, ns, pod):
    """kubectl 1.32 offers WebSocket v5, is refused, falls back to SPDY."""
    r = h.kubectl("exec", "-n", ns, pod, "--", "sh", "-c",
                  "echo $PAI_TASK_ROLE_NAME; echo e >&2; exit 3")
    check("kubectl exec (SPDY): output, and the exit status passed on",
          r.stdout == b"main\n" and b"e\n" in r.stderr and
          r.returncode == 3, r)
    r = h.kubectl("exec", "-i", "-n", ns, pod, "--", "sh", "-c",
                  "wc -c; echo done", input=b"12345")
    check("kubectl exec -i (SPDY): stdin closed at its end",
          r.stdout.split() == [b"5", b"done"] and r.returncode == 0, r)


def follow_cut(h, ns, pod, c):
    """The test hook: cut a follow stream, then resume with sinceTime."""
    kubelet = kapi.Client(h.env["PAI_KUBE_KUBELET"], None, None)
    kubelet.ctx.check_hostname = False
    kubelet.ctx.verify_mode = 0
    st, _, body = kubelet.raw("POST", "/standin/cut-logs", query={
        "namespace": ns, "pod": pod, "afterBytes": "200"})
    check("cut-logs hook armed", st == 200, body)
    t0 = time.time()
    st, _, body = h.api.raw("GET", "/api/v1/namespaces/%s/pods/%s/log" % (
        ns, pod), query={"follow": "true", "timestamps": "true"})
    lines = body.decode().splitlines()
    check("follow cut after ~200 bytes while the pod runs",
          st == 200 and time.time() - t0 < 10 and 100 < len(body) <= 200,
          (st, len(body)))
    last = lines[-2].split(" ")[0] if len(lines) > 1 else ""
    st, body = h.log(ns, pod, sinceTime=last, timestamps="true",
                     limitBytes="4000")
    check("resume with sinceTime (whole seconds) repeats the last second",
          st == 200 and last[:19] in body.splitlines()[0] and
          lines[-2] in body, (last, body[:200]))


def abort_resume(h, ns):
    job = h.job(ns, "sleeper")
    ref = {"apiVersion": JOB[0], "kind": "Job", "name": "sleeper",
           "uid": job["metadata"]["uid"], "controller": True,
           "blockOwnerDeletion": True}
    for action, want in (("AbortJob", "Aborted"), ("ResumeJob", "Running")):
        cmd = h.api.create(kapi.path_of(*CMD, ns), {
            "apiVersion": CMD[0], "kind": "Command",
            "metadata": {"generateName": "sleeper-%s-" % action.lower(),
                         "ownerReferences": [ref]},
            "action": action, "target": ref})
        name = cmd["metadata"]["name"]
        wait("%s Command deleted by the controller" % action,
             lambda: h.api.maybe_get(kapi.path_of(*CMD, ns, name)) is None)
        if not h.wait_phase(ns, "sleeper", want):
            return
        reasons = [e["reason"] for e in h.events(ns, "sleeper")]
        check("%s: event CommandIssued on the Job" % action,
              "CommandIssued" in reasons, reasons)
        if action == "AbortJob":
            conds = [c["status"] for c in h.job(ns, "sleeper")["status"][
                "conditions"]]
            check("Aborting before Aborted", conds[-2:] == ["Aborting",
                                                           "Aborted"], conds)
            check("Aborted: the running pods deleted",
                  h.pods(ns, "volcano.sh/job-name=sleeper") == [])
    st = h.job(ns, "sleeper")["status"]
    check("resume spent a retry (retryCount 1)", st.get("retryCount") == 1,
          st)


def delete_gc(h, ns, job):
    h.api.delete(kapi.path_of(*JOB, ns, "sleeper"))
    wait("the Job's ConfigMap garbage-collected", lambda: h.api.maybe_get(
        kapi.path_of("v1", "ConfigMap", ns, "sleeper-pai-env")) is None)
    wait("the Job's pods garbage-collected (and killed)", lambda: not
         h.pods(ns, "volcano.sh/job-name=sleeper"), 20)
    wait("the svc plugin's ConfigMap and Service gone", lambda: not [
        x for x in ("configmaps/sleeper-svc", "services/sleeper")
        if h.api.maybe_get("/api/v1/namespaces/%s/%s" % (ns, x))])


def failures(h, d):
    """Markers: pull failure, unschedulable, exit code, OOMKilled;
    RestartJob until maxRetry, then Failed."""
    ns = h.namespace("selftest-fail")
    cfg = write_config(d, "fails", {
        "jobName": "fails", "image": "debian:stable", "retryCount": 1,
        "taskRoles": [role("main", 1, "echo failing; exit 7")]})
    h.apply(ns, h.convert("volcano", cfg))
    if h.wait_phase(ns, "fails", "Failed", 40):
        st = h.job(ns, "fails")["status"]
        conds = [c["status"] for c in st["conditions"]]
        check("exit 7 with PodFailed -> RestartJob, maxRetry 2: "
              "Restarting, then Failed", "Restarting" in conds and
              st.get("retryCount") == 2, st)
    pod_marker(h, ns, "pull", {"image": "paictl.test/pull-fails:1",
                               "command": ["true"]},
               lambda p: wait_reason(p, ("ErrImagePull",
                                         "ImagePullBackOff")))
    st, out = h.log(ns, "pull")
    check("logs of a pod that cannot pull: 400, waiting to start",
          st == 400 and "is waiting to start" in out, (st, out))
    # $$$$: the kubelet turns $$ into $ in commands
    pod_marker(h, ns, "oom", {"image": "debian", "command": [
        "sh", "-c", "kill -9 $$$$"]}, lambda p: terminated(p, "OOMKilled",
                                                         137))
    pod_marker(h, ns, "exit2", {"image": "debian", "command": [
        "sh", "-c", "exit 2"]}, lambda p: terminated(p, "Error", 2))
    unschedulable(h, ns)


def restarts(h, d):
    """restartPolicy OnFailure: a second run, previous logs."""
    ns = h.namespace("selftest-restart")
    mark = os.path.join(d, "ran-once")
    h.api.create(kapi.path_of("v1", "Pod", ns), {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "again"},
        "spec": {"restartPolicy": "OnFailure", "containers": [{
            "name": "c", "image": "debian", "command": [
                "sh", "-c", "if [ -e %s ]; then echo second; else : > %s; "
                "echo first; exit 1; fi" % (mark, mark)]}]}})
    p = wait("OnFailure: the pod succeeds on its second run", lambda: (
        lambda p: p if p["status"]["phase"] == "Succeeded" else None)(
        h.api.get(kapi.path_of("v1", "Pod", ns, "again"))))
    if not p:
        return
    cs = p["status"]["containerStatuses"][0]
    check("restartCount 1, lastState terminated exit 1", cs[
        "restartCount"] == 1 and cs["lastState"]["terminated"][
        "exitCode"] == 1, cs)
    st, out = h.log(ns, "again", previous="true")
    check("log previous=true: the first run's", out == "first\n", out)
    st, out = h.log(ns, "again")
    check("log: the current run's", out == "second\n", out)


def throttled():
    """The API server's own 429 (cluster.py --throttle, hold_seat())."""
    with cluster.Cluster(throttle=True) as c:
        env = c.env
        lim = kapi.Client(env["PAI_KUBE_SERVER"],
                          env["PAI_KUBE_LIMITED_TOKEN"], env["PAI_KUBE_CA"])
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"generateName": "t-"}}
        path = "/api/v1/namespaces/limited/configmaps"
        for mutating, call in ((True, lambda: lim.raw("POST", path, cm)),
                               (False, lambda: lim.raw("GET", path))):
            kind = "mutating" if mutating else "read-only"
            seat = cluster.hold_seat(env["PAI_KUBE_SERVER"], env[
                "PAI_KUBE_CA"], env["PAI_KUBE_LIMITED_TOKEN"], mutating)
            time.sleep(1)
            st, hdr, body = call()
            check("--throttle, %s seat held: 429, Retry-After 1, plain "
                  "text" % kind, st == 429 and hdr.get("Retry-After") == "1"
                  and body.startswith(b"Too many requests"), (st, body))
            st, _, _ = c.client.raw("GET", path)
            check("--throttle: system:masters is not limited", st == 200)
            seat.close()
            time.sleep(1)
            st, _, _ = call()
            check("--throttle, %s seat freed: 2xx again" % kind,
                  st // 100 == 2, st)


def pod_marker(h, ns, name, container, test):
    container = dict(container, name="c")
    h.api.create(kapi.path_of("v1", "Pod", ns), {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"restartPolicy": "Never", "containers": [container]}})
    wait("pod %s: %s" % (name, test.__doc__ or "expected state"), lambda:
         test(h.api.get(kapi.path_of("v1", "Pod", ns, name))))
    check("pod %s in the expected state" % name, test(h.api.get(
        kapi.path_of("v1", "Pod", ns, name))))


def wait_reason(p, reasons):
    cs = (p.get("status") or {}).get("containerStatuses") or []
    return cs and cs[0]["state"].get("waiting", {}).get("reason") in reasons


def terminated(p, reason, code):
    cs = (p.get("status") or {}).get("containerStatuses") or []
    t = cs and cs[0]["state"].get("terminated")
    return t and t["reason"] == reason and t["exitCode"] == code and \
        p["status"]["phase"] == "Failed"


def unschedulable(h, ns):
    h.api.create(kapi.path_of("v1", "Pod", ns), {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge"},
        "spec": {"containers": [{"name": "c", "image": "debian",
                                 "command": ["true"], "resources": {
                                     "requests": {"cpu": "1000"}}}]}})

    def cond():
        p = h.api.get(kapi.path_of("v1", "Pod", ns, "huge"))
        c = [x for x in p["status"].get("conditions", [])
             if x["type"] == "PodScheduled"]
        return c and c[0]["status"] == "False" and \
            c[0]["reason"] == "Unschedulable"
    wait("unschedulable pod: PodScheduled False, Unschedulable", cond)
    # the scheduler writes the condition, then the event: wait for both
    wait("unschedulable pod: event FailedScheduling, Insufficient cpu",
         lambda: [e for e in h.events(ns, "huge")
                  if e["reason"] == "FailedScheduling" and
                  "Insufficient cpu" in e["message"]])
    st, out = h.log(ns, "huge")
    check("logs of a pod with no node: 204", st == 204 and out == "",
          (st, out))


def paddlejob(h):
    ns = h.namespace("selftest-paddle")
    h.apply(ns, h.convert("paddlejob", os.path.join(
        TOP, "examples", "wide-and-deep.json")))
    done = wait("PaddleJob Completed", lambda: (
        (h.job(ns, "wide-and-deep", PDJ) or {}).get("status") or {}).get(
        "phase") == "Completed", 40)
    if not done:
        return
    pdj = h.job(ns, "wide-and-deep", PDJ)
    st = pdj["status"]
    check("PaddleJob status: PS mode, per-role succeeded counts",
          st.get("mode") == "PS" and st["ps"].get("succeeded") == 2 and
          st["worker"].get("succeeded") == 2 and len(st["ps"]["refs"]) == 2,
          st)
    check("PaddleJob finalizer added by the operator",
          "finalizers.paddlepaddle.org" in pdj["metadata"]["finalizers"])
    p = h.api.get(kapi.path_of("v1", "Pod", ns, "wide-and-deep-worker-1"))
    md = p["metadata"]
    check("Paddle pod labels and annotation", md["labels"].get(
        "paddle-res-name") == "wide-and-deep-worker-1" and md["labels"].get(
        "paddle-res-type") == "worker" and md["annotations"].get(
        "paddle-resource") == "worker", md)
    cm = h.api.get(kapi.path_of("v1", "ConfigMap", ns, "wide-and-deep"))
    check("operator's ConfigMap with the endpoints", cm["data"].get(
        "PADDLE_TRAINER_ENDPOINTS") == "wide-and-deep-worker-0:2379,"
        "wide-and-deep-worker-1:2379", cm["data"])
    st, out = h.log(ns, "wide-and-deep-worker-1")
    check("worker-1's log: its index from PADDLE_TRAINER_ID", st == 200 and
          out.startswith("worker-1: servers wide-and-deep-ps-0:"), out)
    h.api.delete(kapi.path_of(*PDJ, ns, "wide-and-deep"))
    wait("PaddleJob deleted (finalizer removed), pods collected", lambda:
         h.job(ns, "wide-and-deep", PDJ) is None and not h.pods(ns))


def access(h):
    lim = kapi.Client(h.env["PAI_KUBE_SERVER"], h.env[
        "PAI_KUBE_LIMITED_TOKEN"], h.env["PAI_KUBE_CA"])
    st, _, body = lim.raw("GET", "/api/v1/namespaces/default/pods")
    check("limited user: 403 outside its namespace", st == 403 and
          b'User \\"limited\\" cannot list' in body, body[:200])
    st, _, _ = lim.raw("GET", "/api/v1/namespaces/limited/pods")
    check("limited user: 200 in namespace limited", st == 200)
    cert = kapi.Client(h.env["PAI_KUBE_SERVER"], None, h.env["PAI_KUBE_CA"],
                       cert=h.env["PAI_KUBE_CLIENT_CERT"],
                       key=h.env["PAI_KUBE_CLIENT_KEY"])
    st, _, _ = cert.raw("GET", "/apis/batch.volcano.sh/v1alpha1")
    check("client-certificate user authenticated", st == 200, st)


def namespace_delete(h):
    h.api.delete("/api/v1/namespaces/selftest-hello")
    wait("a deleted namespace is emptied and finalized", lambda:
         h.api.maybe_get("/api/v1/namespaces/selftest-hello") is None, 30)


def guarded(name, fn, *args):
    """A scenario's exception is one failed check, not the end."""
    try:
        fn(*args)
    except Exception:
        check("scenario %s" % name, False, traceback.format_exc())


def main():
    if cluster.why_not():
        print("kube selftest: skipped: %s" % cluster.why_not())
        return 0
    t0 = time.time()
    with cluster.Cluster(standin=True) as c, \
            tempfile.TemporaryDirectory() as d:
        print("# cluster ready in %.1f s" % (time.time() - t0))
        h = Harness(c)
        guarded("access", access, h)
        guarded("hello_distributed", hello_distributed, h)
        guarded("running_job", running_job, h, d)
        guarded("failures", failures, h, d)
        guarded("restarts", restarts, h, d)
        guarded("paddlejob", paddlejob, h)
        guarded("namespace_delete", namespace_delete, h)
    guarded("throttled", throttled)
    print("# selftest: %d ok, %d failed, %.0f s" % (
        results["ok"], results["fail"], time.time() - t0))
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
