"""tests/kube/volcano.py - Volcano v1.15.1's job controller, stood in:
pkg/controllers/job (job_controller_handler.go, job_controller_actions.go,
job_controller_util.go, state/*.go) and the svc and env plugins
(plugins/svc/svc.go, plugins/env/env.go), followed step by step.

Requests are made from the same informer events as Volcano's (a Job
added or changed, pods added/updated/deleted, PodGroup phase changes,
Commands) and run one at a time through the state machine of
kubernetes-api.md section 8. Faithful: pod names, labels, annotations and
owner references; policies (event/exitCode -> action, task before job);
the phases Pending, Running, Restarting, Aborting/Aborted,
Completing/Completed, Terminating/Terminated, Failed; retryCount and
maxRetry; minAvailable/minSuccess; status counts, taskStatusCount,
conditions, version (bumped by every kill, as 1.15.1 does, which also
leaves retained pods out of the counts after a kill); the PodGroup
<job>-<uid> (deleted by every kill, recreated on resume); Commands (deleted
first, event CommandIssued, then the action); the svc plugin's ConfigMap
<job>-svc, headless Service and NetworkPolicy (deleted by a kill) and
env; the events CommandIssued, ExecuteAction, PodGroupPending.

Simplified or absent: no admission webhooks (so the defaults the mutating
webhook writes are applied when read, not stored: queue "default",
maxRetry 3, minAvailable = sum of the tasks' minAvailable or replicas);
no delayed actions (policy timeouts) nor PodPending timeouts; no
dependsOn, partitions, network topology, job forwarding; the ssh plugin
and the distributed-framework plugins (tensorflow, pytorch, mpi...) do
nothing; PodGroup minResources are not computed.
"""
import copy
import os
import queue
import threading

import kapi
from kapi import log, now_rfc3339

JOB = ("batch.volcano.sh/v1alpha1", "Job")
PG = ("scheduling.volcano.sh/v1beta1", "PodGroup")
CMD = ("bus.volcano.sh/v1alpha1", "Command")
QUEUE = ("scheduling.volcano.sh/v1beta1", "Queue")
SOFT = {"Succeeded", "Failed"}  # state.PodRetainPhaseSoft
NONE = set()  # state.PodRetainPhaseNone
OUT_OF_SYNC = "volcano.sh/controller-out-of-sync"
INTERNAL = {"OutOfSync", "CommandIssued", "PodRunning"}
DEBUG = os.environ.get("PAI_STANDIN_DEBUG") == "1"
COUNTS = ("pending", "running", "succeeded", "failed", "terminating",
          "unknown")


class Request:
    def __init__(self, ns, job, event, action=None, task=None, pod=None,
                 exit_code=0, version=0, job_uid=None):
        self.ns, self.job, self.event, self.action = ns, job, event, action
        self.task, self.pod, self.exit_code = task, pod, exit_code
        self.version, self.job_uid = version, job_uid


def controller_ref(job):
    md = job["metadata"]
    return {"apiVersion": JOB[0], "kind": JOB[1], "name": md["name"],
            "uid": md["uid"], "controller": True,
            "blockOwnerDeletion": True}


def controlled_by(obj, kind="Job"):
    for r in obj["metadata"].get("ownerReferences") or []:
        if r.get("controller") and r["kind"] == kind:
            return r
    return None


def spec_of(job):
    """The spec as Volcano's mutating webhook would have stored it."""
    s = copy.deepcopy(job["spec"])
    s["queue"] = s.get("queue") or "default"
    s["maxRetry"] = s.get("maxRetry") or 3
    for t in s["tasks"]:
        t.setdefault("minAvailable", t.get("replicas", 1))
        t["maxRetry"] = t.get("maxRetry") or 3
    if s.get("minAvailable") is None:
        s["minAvailable"] = sum(t["minAvailable"] for t in s["tasks"])
    return s


def status_of(job):
    st = copy.deepcopy(job.get("status") or {})
    st.setdefault("state", {})
    return st


def compact(st):
    """omitempty, as Go serialises JobStatus: compare like with like."""
    out = {}
    for k, v in st.items():
        if v in (0, None, "", {}, []):
            continue
        out[k] = compact(v) if isinstance(v, dict) and k != "state" else v
    return out


def phase_of(st):
    return (st.get("state") or {}).get("phase", "")


class Volcano:
    def __init__(self, client, jobs, pods, podgroups, stop):
        self.client, self.jobs, self.pods = client, jobs, pods
        self.pgs, self.stop = podgroups, stop
        self.q = queue.Queue()

    # ---- informer handlers (job_controller_handler.go) ----
    def on_job(self, kind, old, new):
        if kind == "add" or (kind == "update" and (
                old["spec"] != new["spec"] or
                phase_of(old.get("status") or {}) !=
                phase_of(new.get("status") or {}))):
            md = new["metadata"]
            self.q.put(Request(md["namespace"], md["name"], "OutOfSync"))

    def on_pod(self, kind, old, new):
        pod = new or old
        ref = controlled_by(pod)
        ann = pod["metadata"].get("annotations") or {}
        if ref is None or "volcano.sh/job-version" not in ann:
            return
        req = Request(pod["metadata"]["namespace"],
                      ann.get("volcano.sh/job-name"), None,
                      task=ann.get("volcano.sh/task-spec"),
                      pod=pod["metadata"]["name"],
                      version=int(ann["volcano.sh/job-version"]),
                      job_uid=ref["uid"])
        if kind == "add":
            req.event = "PodPending"
        elif kind == "delete":
            req.event = "PodEvicted"
        else:
            req.event, req.exit_code = self.pod_event(old, new)
        if OUT_OF_SYNC in ann:
            req.event = "OutOfSync"
        self.q.put(req)

    def pod_event(self, old, new):
        """updatePod(): which event a pod's change is."""
        ph = (new.get("status") or {}).get("phase")
        oph = (old.get("status") or {}).get("phase")
        task = (new["metadata"].get("annotations") or {}).get(
            "volcano.sh/task-spec")
        if ph == "Failed" and oph != "Failed":
            cs = (new.get("status") or {}).get("containerStatuses") or []
            term = cs[0]["state"].get("terminated") if cs else None
            return "PodFailed", term["exitCode"] if term else 0
        if ph == "Succeeded" and oph != "Succeeded" and \
                self.task_completed(new, task):
            return "TaskCompleted", 0
        event = "OutOfSync"
        if ph in ("Running", "Pending") and self.task_failed(new, task):
            event = "TaskFailed"
        if ph == "Running" and oph != "Running":
            event = "PodRunning"
        if ph == "Pending" and oph != "Pending":
            event = "PodPending"
        return event, 0

    def task_pods(self, pod, task):
        uid = controlled_by(pod)["uid"]
        return [p for p in self.pods.items()
                if (controlled_by(p) or {}).get("uid") == uid and
                (p["metadata"].get("annotations") or {}).get(
                    "volcano.sh/task-spec") == task]

    def task_spec(self, pod, task):
        uid = controlled_by(pod)["uid"]
        for j in self.jobs.items():
            if j["metadata"]["uid"] == uid:
                for t in spec_of(j)["tasks"]:
                    if t["name"] == task:
                        return t
        return None

    def task_completed(self, pod, task):
        t = self.task_spec(pod, task)
        done = sum(1 for p in self.task_pods(pod, task)
                   if (p.get("status") or {}).get("phase") == "Succeeded")
        return t is not None and t["replicas"] > 0 and done >= t["replicas"]

    def task_failed(self, pod, task):
        t = self.task_spec(pod, task)
        if t is None or t.get("maxRetry") == -1:
            return False
        retried = sum(c.get("restartCount", 0)
                      for p in self.task_pods(pod, task)
                      if (p.get("status") or {}).get("phase") in
                      ("Running", "Pending")
                      for c in (p["status"].get("containerStatuses") or []) +
                      (p["status"].get("initContainerStatuses") or []))
        return retried >= t["maxRetry"]

    def on_podgroup(self, kind, old, new):
        if kind != "update":
            return
        if (old.get("status") or {}).get("phase") != \
                (new.get("status") or {}).get("phase"):
            ref = controlled_by(new)
            name = ref["name"] if ref else new["metadata"]["name"]
            self.q.put(Request(new["metadata"]["namespace"], name,
                               "OutOfSync"))

    def on_command(self, kind, old, new):
        """processNextCommand(): delete the Command first, then the
        event CommandIssued on the Job, then the action."""
        if kind != "add":
            return
        t = new.get("target") or {}
        if t.get("apiVersion") != JOB[0] or t.get("kind") != "Job":
            return
        md = new["metadata"]
        if not self.client.delete(kapi.path_of(*CMD, md["namespace"],
                                               md["name"])):
            return
        job = self.client.maybe_get(kapi.path_of(*JOB, md["namespace"],
                                                 t["name"]))
        if job:
            self.event(job, "Normal", "CommandIssued",
                       "Start to execute command %s, and clean it up to "
                       "make sure executed not more than once."
                       % new.get("action"))
        self.q.put(Request(md["namespace"], t["name"], "CommandIssued",
                           action=new.get("action")))

    # ---- the worker (processNextReq) ----
    def run(self):
        while not self.stop.is_set():
            try:
                req = self.q.get(timeout=0.5)
            except queue.Empty:
                continue
            try:
                self.attempt(req)
            finally:
                self.q.task_done()

    def idle(self):
        """No request queued or being processed."""
        return self.q.unfinished_tasks == 0

    def attempt(self, req):
        """process(), again on a 409 Conflict (a stale resourceVersion)."""
        for attempt in range(5):
            try:
                return self.process(req)
            except kapi.ApiError as e:
                if e.code != 409 or attempt == 4:
                    return log("volcano: %s/%s: %s" % (req.ns, req.job, e))
            except Exception as e:
                return log("volcano: %s/%s: %r" % (req.ns, req.job, e))

    def start(self):
        threading.Thread(target=self.run, name="volcano",
                         daemon=True).start()

    def process(self, req):
        job = self.client.maybe_get(kapi.path_of(*JOB, req.ns, req.job))
        if job is None:
            return
        job.setdefault("apiVersion", JOB[0])
        job.setdefault("kind", JOB[1])
        action = self.apply_policies(job, req)
        if DEBUG:
            log("volcano: %s/%s %s (pod %s, exit %s, version %s) -> %s in %s"
                % (req.ns, req.job, req.event, req.pod, req.exit_code,
                   req.version, action, phase_of(status_of(job)) or "-"))
        if action != "SyncJob":
            self.event(job, "Normal", "ExecuteAction",
                       "Start to execute action %s " % action)
        self.execute(job, action, req)

    def apply_policies(self, job, req):
        if req.action:
            return req.action
        if req.event in INTERNAL:
            return "SyncJob"
        if req.job_uid and req.job_uid != job["metadata"]["uid"]:
            return "SyncJob"
        if req.version < status_of(job).get("version", 0):
            return "SyncJob"
        spec = spec_of(job)
        if req.task:
            for t in spec["tasks"]:
                if t["name"] == req.task:
                    a = self.match(t.get("policies") or [], req)
                    if a:
                        return a
                    break
        return self.match(spec.get("policies") or [], req) or "SyncJob"

    @staticmethod
    def match(policies, req):
        for p in policies:
            events = list(p.get("events") or []) + (
                [p["event"]] if p.get("event") else [])
            if events and req.event and (req.event in events or
                                         "*" in events):
                if req.event != "PodPending" or p.get("timeout"):
                    return p["action"]
            if p.get("exitCode") is not None and \
                    p["exitCode"] == req.exit_code:
                return p["action"]
        return None

    def ttl_collect(self):
        """Volcano's garbagecollector: a finished Job is deleted (Foreground)
        ttlSecondsAfterFinished after it finished."""
        import time as _t
        for j in self.jobs.items():
            ttl, md = j["spec"].get("ttlSecondsAfterFinished"), j["metadata"]
            end = finished_at(j)
            if ttl is None or end is None or md.get("deletionTimestamp"):
                continue
            if end + ttl <= _t.time():
                self.client.delete(kapi.path_of(*JOB, md["namespace"],
                                                md["name"]), "Foreground",
                                   uid=md["uid"])

    # ---- the state machine (state/*.go) ----
    def execute(self, job, action, req):
        ph = phase_of(status_of(job)) or "Pending"
        spec = spec_of(job)

        def to(phase, retry=False):
            def f(st):
                if retry:
                    st["retryCount"] = st.get("retryCount", 0) + 1
                st["state"]["phase"] = phase
                return True
            return f

        def when_idle(phase):
            def f(st):
                if any(st.get(k) for k in ("terminating", "pending",
                                           "running")):
                    return False
                st["state"]["phase"] = phase
                return True
            return f

        if ph in ("Pending", "Running"):
            if action == "RestartJob":
                return self.kill_job(job, NONE, to("Restarting", True))
            if action in ("RestartTask", "RestartPod"):
                return self.kill_target(job, req, action,
                                        to("Restarting", True))
            simple = {"AbortJob": "Aborting", "CompleteJob": "Completing",
                      "TerminateJob": "Terminating"}
            if action in simple:
                return self.kill_job(job, SOFT, to(simple[action]))
            fn = self.pending_update(spec) if ph == "Pending" else \
                self.running_update(spec)
            return self.sync_job(job, fn)
        if ph == "Restarting":
            fn = self.restarting_update(spec)
            if action == "SyncJob":
                return self.sync_job(job, fn)
            if action in ("RestartTask", "RestartPod"):
                return self.kill_target(job, req, action, fn)
            return self.kill_job(job, NONE, fn)
        if ph in ("Aborting", "Aborted"):
            if action == "ResumeJob":
                return self.kill_job(job, SOFT, to("Restarting", True))
            return self.kill_job(job, SOFT, when_idle("Aborted")
                                 if ph == "Aborting" else None)
        if ph == "Completing":
            return self.kill_job(job, SOFT, when_idle("Completed"))
        if ph == "Terminating":
            return self.kill_job(job, SOFT, when_idle("Terminated"))
        return self.kill_job(job, SOFT, None)  # Completed, Failed, ...

    @staticmethod
    def pending_update(spec):
        def f(st):
            if spec["minAvailable"] <= st.get("running", 0) + \
                    st.get("succeeded", 0) + st.get("failed", 0):
                st["state"]["phase"] = "Running"
                return True
            return False
        return f

    @staticmethod
    def running_update(spec):
        def f(st):
            total = sum(t["replicas"] for t in spec["tasks"])
            if total == 0:
                return False
            ok, bad = st.get("succeeded", 0), st.get("failed", 0)
            min_success = spec.get("minSuccess")
            if min_success is not None and ok >= min_success:
                st["state"]["phase"] = "Completed"
                return True
            if ok + bad == total:
                st["state"]["phase"] = Volcano.final_phase(spec, st)
                return True
            if st.get("pending", 0) > total - spec["minAvailable"]:
                st["state"]["phase"] = "Pending"
                return True
            return False
        return f

    @staticmethod
    def final_phase(spec, st):
        """Every pod ended: Completed or Failed (running.go)."""
        task_min = sum(t["minAvailable"] for t in spec["tasks"])
        if spec["minAvailable"] >= task_min:
            for t in spec["tasks"]:
                counts = (st.get("taskStatusCount") or {}).get(t["name"])
                if counts and counts["phase"].get("Succeeded", 0) < \
                        t["minAvailable"]:
                    return "Failed"
        min_success = spec.get("minSuccess")
        if min_success is not None and st.get("succeeded", 0) < min_success:
            return "Failed"
        if st.get("succeeded", 0) >= spec["minAvailable"]:
            return "Completed"
        return "Failed"

    @staticmethod
    def restarting_update(spec):
        def f(st):
            if st.get("retryCount", 0) >= spec["maxRetry"]:
                st["state"]["phase"] = "Failed"
                return True
            total = sum(t["replicas"] for t in spec["tasks"])
            if total - st.get("terminating", 0) >= st.get("minAvailable", 0):
                st["state"]["phase"] = "Pending"
                return True
            return False
        return f

    # ---- actions (job_controller_actions.go) ----
    def job_pods(self, job):
        """{task: {pod name: pod}} of the pods this Job controls."""
        uid, out = job["metadata"]["uid"], {}
        for p in self.pods.items():
            if (controlled_by(p) or {}).get("uid") == uid:
                task = (p["metadata"].get("annotations") or {}).get(
                    "volcano.sh/task-spec", "default")
                out.setdefault(task, {})[p["metadata"]["name"]] = p
        return out

    def kill_job(self, job, retain, update):
        """killPods() for the whole job: bump the version, delete every
        pod not retained (Succeeded/Failed kept with SOFT, and at the last
        retry), write the status, run the plugins' OnJobDelete, delete the
        PodGroup."""
        if job["metadata"].get("deletionTimestamp"):
            return
        spec, st = spec_of(job), status_of(job)
        st["version"] = st.get("version", 0) + 1
        last = st.get("retryCount", 0) >= spec["maxRetry"] - 1
        counts = dict.fromkeys(COUNTS, 0)
        tsc = {}
        kill = []
        for pods in self.job_pods(job).values():
            for p in pods.values():
                if p["metadata"].get("deletionTimestamp"):
                    counts["terminating"] += 1
                elif (p.get("status") or {}).get("phase") not in \
                        (SOFT if last else retain):
                    kill.append(p)
        for p in kill:
            if self.delete_pod(p, out_of_sync=True):
                counts["terminating"] += 1
            else:
                classify(p, counts, tsc)
        self.finish_kill(job, st, counts, tsc, update)

    def kill_target(self, job, req, action, update):
        """RestartTask / RestartPod: kill the task's pods or the pod."""
        pods = self.job_pods(job).get(req.task, {})
        if action == "RestartPod":
            pods = {k: v for k, v in pods.items() if k == req.pod}
        st = status_of(job)
        counts, tsc = dict.fromkeys(COUNTS, 0), {}
        for p in pods.values():
            if p["metadata"].get("deletionTimestamp") or \
                    self.delete_pod(p, out_of_sync=True):
                counts["terminating"] += 1
            else:
                classify(p, counts, tsc)
        self.finish_kill(job, st, counts, tsc, update)

    def finish_kill(self, job, st, counts, tsc, update):
        st.update(counts)
        st["taskStatusCount"] = tsc
        if update and update(st):
            self.transition(st)
        created = job["metadata"]["creationTimestamp"]
        st["runningDuration"] = duration(created, st["state"].get(
            "lastTransitionTime") or now_rfc3339())
        self.plugins_on_job_delete(job, st)
        self.update_status(job, st)
        md = job["metadata"]
        self.client.delete(kapi.path_of(*PG, md["namespace"],
                                        self.pg_name(job)))

    def delete_pod(self, pod, out_of_sync):
        md = pod["metadata"]
        path = kapi.path_of("v1", "Pod", md["namespace"], md["name"])
        if out_of_sync:
            try:
                self.client.json_patch(path, [{
                    "op": "add", "path": "/metadata/annotations/" +
                    OUT_OF_SYNC.replace("~", "~0").replace("/", "~1"),
                    "value": "true"}])
            except kapi.ApiError as e:
                if e.code != 404:
                    return False
        try:
            self.client.delete(path, propagation="Background")
            return True
        except kapi.ApiError:
            return False

    def transition(self, st):
        now = now_rfc3339()
        st["state"]["lastTransitionTime"] = now
        ph = st["state"]["phase"]
        st["conditions"] = [c for c in st.get("conditions") or []
                            if c["status"] != ph] + [
            {"status": ph, "lastTransitionTime": now}]

    def update_status(self, job, st):
        md = job["metadata"]
        new = dict(job, status=compact(st))
        out = self.client.put(kapi.path_of(*JOB, md["namespace"],
                                           md["name"], "status"), new)
        job.update(out)

    def event(self, job, etype, reason, msg):
        self.client.event(job, etype, reason, msg, "vc-controller-manager")

    def pg_name(self, job):
        return "%s-%s" % (job["metadata"]["name"], job["metadata"]["uid"])

    # ---- syncJob ----
    def sync_job(self, job, update):
        if job["metadata"].get("deletionTimestamp"):
            return
        spec = spec_of(job)
        q = self.client.maybe_get(kapi.path_of(*QUEUE, name=spec["queue"]))
        if q is None:
            log("volcano: %s: queue %s not found" % (
                job["metadata"]["name"], spec["queue"]))
            return
        st = status_of(job)
        if phase_of(st) in ("", "Pending"):
            st = self.initiate(job, st)
        else:
            self.plugins_on_job_update(job)
            self.create_podgroup(job)
        pg = self.client.maybe_get(kapi.path_of(
            *PG, job["metadata"]["namespace"], self.pg_name(job)))
        if pg:
            self.pg_event(job, pg)
        if not pg or (pg.get("status") or {}).get("phase", "Pending") in \
                ("", "Pending"):
            old = copy.deepcopy(st)
            if update:
                update(st)
            if compact(st) == compact(old):
                return
            self.transition(st)
            return self.update_status(job, st)
        counts, tsc = self.sync_pods(job, spec, st)
        new = {"state": st["state"], "version": st.get("version", 0),
               "minAvailable": spec["minAvailable"], "taskStatusCount": tsc,
               "controlledResources": st.get("controlledResources") or {},
               "conditions": st.get("conditions") or [],
               "retryCount": st.get("retryCount", 0)}
        new.update(counts)
        new = copy.deepcopy(new)
        if update:
            update(new)
        if compact(new) == compact(st):
            return
        self.transition(new)
        self.update_status(job, new)

    def initiate(self, job, st):
        """initiateJob(): status Pending (once), plugins' OnJobAdd, the
        PodGroup."""
        if not phase_of(st):
            st["state"]["phase"] = "Pending"
            st["minAvailable"] = spec_of(job)["minAvailable"]
            self.transition(st)
            self.update_status(job, st)
            st = status_of(job)
        self.plugins_on_job_add(job, st)
        self.create_podgroup(job)
        return st

    def sync_pods(self, job, spec, st):
        """Create the missing pods, delete the out-of-sync ones and those
        beyond the replicas; count the rest."""
        pods = self.job_pods(job)
        counts, tsc = dict.fromkeys(COUNTS, 0), {}
        job = dict(job, status=st)
        for t in spec["tasks"]:
            have = dict(pods.get(t["name"], {}))
            for i in range(t["replicas"]):
                name = "%s-%s-%d" % (job["metadata"]["name"], t["name"], i)
                p = have.pop(name, None)
                if p is None:
                    created = self.create_pod(job, t, i)
                    if created:
                        classify(created, counts, tsc)
                    continue
                if p["metadata"].get("deletionTimestamp"):
                    counts["terminating"] += 1
                    continue
                if OUT_OF_SYNC in (p["metadata"].get("annotations") or {}):
                    if self.delete_pod(p, False):
                        counts["terminating"] += 1
                classify(p, counts, tsc)
            for p in have.values():
                if self.delete_pod(p, False):
                    counts["terminating"] += 1
        return counts, tsc

    def create_pod(self, job, task, i):
        pod = make_pod(job, task, i)
        for name in sorted(job["spec"].get("plugins") or {}):
            plugin_on_pod_create(name, job["spec"]["plugins"][name], pod,
                                 job)
        md = pod["metadata"]
        try:
            return self.client.create(kapi.path_of("v1", "Pod",
                                                   md["namespace"]), pod)
        except kapi.ApiError as e:
            if e.code != 409:
                self.event(job, "Warning", "FailedCreatePodReason",
                           "Error creating pods: %s" % e.message)
            return None

    def create_podgroup(self, job):
        md, spec = job["metadata"], spec_of(job)
        pg = {"apiVersion": PG[0], "kind": PG[1],
              "metadata": {"name": self.pg_name(job),
                           "namespace": md["namespace"],
                           "annotations": md.get("annotations") or {},
                           "labels": md.get("labels") or {},
                           "ownerReferences": [controller_ref(job)]},
              "spec": {"minMember": spec["minAvailable"],
                       "minTaskMember": {t["name"]: t["minAvailable"]
                                         for t in spec["tasks"]},
                       "queue": spec["queue"]},
              "status": {"phase": "Pending"}}
        if spec.get("priorityClassName"):
            pg["spec"]["priorityClassName"] = spec["priorityClassName"]
        try:
            self.client.create(kapi.path_of(*PG, md["namespace"]), pg)
        except kapi.ApiError as e:
            if e.code != 409:
                raise

    def pg_event(self, job, pg):
        """recordPodGroupEvent(): the PodGroup's newest true condition,
        if it is not Scheduled, as a Warning on the Job."""
        conds = [c for c in (pg.get("status") or {}).get("conditions") or []
                 if c.get("status") == "True"]
        if not conds:
            return
        latest = max(conds, key=lambda c: c.get("lastTransitionTime", ""))
        if latest["type"] != "Scheduled":
            md = job["metadata"]
            self.event(job, "Warning", "PodGroupPending",
                       "PodGroup %s:%s %s, reason: %s" % (
                           md["namespace"], md["name"],
                           latest["type"].lower(), latest.get("message", "")))

    # ---- plugins ----
    def plugins_on_job_add(self, job, st):
        res = st.setdefault("controlledResources", {})
        if "svc" in (job["spec"].get("plugins") or {}) and \
                res.get("plugin-svc") != "svc":
            args = job["spec"]["plugins"]["svc"] or []
            self.svc_configmap(job)
            self.svc_service(job, "--publish-not-ready-addresses" in args)
            if "--disable-network-policy" not in args:
                self.svc_network_policy(job)
            res["plugin-svc"] = "svc"

    def plugins_on_job_update(self, job):
        if "svc" in (job["spec"].get("plugins") or {}):
            self.svc_configmap(job)

    def plugins_on_job_delete(self, job, st):
        res = st.get("controlledResources") or {}
        if res.get("plugin-svc") != "svc":
            return
        md = job["metadata"]
        ns, name = md["namespace"], md["name"]
        self.client.delete(kapi.path_of("v1", "ConfigMap", ns,
                                        name + "-svc"))
        self.client.delete(kapi.path_of("v1", "Service", ns, name))
        res.pop("plugin-svc", None)
        args = job["spec"]["plugins"].get("svc") or []
        if "--disable-network-policy" not in args:
            self.client.delete(kapi.path_of(
                "networking.k8s.io/v1", "NetworkPolicy", ns, name))

    def svc_configmap(self, job):
        md = job["metadata"]
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": md["name"] + "-svc",
                           "namespace": md["namespace"],
                           "ownerReferences": [controller_ref(job)]},
              "data": generate_hosts(job)}
        path = kapi.path_of("v1", "ConfigMap", md["namespace"])
        old = self.client.maybe_get(path + "/" + md["name"] + "-svc")
        if old is None:
            self.client.create(path, cm)
        elif old.get("data") != cm["data"]:
            old["data"] = cm["data"]
            self.client.put(path + "/" + md["name"] + "-svc", old)

    def svc_service(self, job, publish_not_ready):
        md = job["metadata"]
        sel = {"volcano.sh/job-name": md["name"],
               "volcano.sh/job-namespace": md["namespace"]}
        self.create_if_absent("v1", "Service", job, {
            "clusterIP": "None", "selector": sel,
            "publishNotReadyAddresses": publish_not_ready})

    def svc_network_policy(self, job):
        md = job["metadata"]
        sel = {"matchLabels": {"volcano.sh/job-name": md["name"],
                               "volcano.sh/job-namespace": md["namespace"]}}
        self.create_if_absent("networking.k8s.io/v1", "NetworkPolicy", job, {
            "podSelector": sel, "ingress": [{"from": [{"podSelector": sel}]}],
            "policyTypes": ["Ingress"]})

    def create_if_absent(self, api, kind, job, spec):
        md = job["metadata"]
        try:
            self.client.create(kapi.path_of(api, kind, md["namespace"]), {
                "apiVersion": api, "kind": kind,
                "metadata": {"name": md["name"],
                             "ownerReferences": [controller_ref(job)]},
                "spec": spec})
        except kapi.ApiError as e:
            if e.code != 409:
                raise


def classify(pod, counts, tsc):
    """classifyAndAddUpPodBaseOnPhase() and calcPodStatus()."""
    ph = (pod.get("status") or {}).get("phase") or ""
    key = {"Pending": "pending", "Running": "running",
           "Succeeded": "succeeded", "Failed": "failed"}.get(ph, "unknown")
    counts[key] += 1
    task = (pod["metadata"].get("annotations") or {}).get(
        "volcano.sh/task-spec")
    if task is None:
        return
    phases = tsc.setdefault(task, {"phase": {}})["phase"]
    ph = ph if key != "unknown" else "Unknown"
    phases[ph] = phases.get(ph, 0) + 1


def duration(t0, t1):
    """metav1.Duration as Go prints it, from two RFC 3339 times."""
    import calendar
    import time as _t
    a = calendar.timegm(_t.strptime(t0, "%Y-%m-%dT%H:%M:%SZ"))
    b = calendar.timegm(_t.strptime(t1, "%Y-%m-%dT%H:%M:%SZ"))
    s = max(0, b - a)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return ("%dh%dm%ds" % (h, m, s) if h else "%dm%ds" % (m, s) if m
            else "%ds" % s)


def make_pod(job, task, i):
    """createJobPod()."""
    md, spec, st = job["metadata"], spec_of(job), job.get("status") or {}
    tmpl = copy.deepcopy(task["template"])
    tmd = tmpl.get("metadata") or {}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "%s-%s-%d" % (md["name"], task["name"], i),
                        "namespace": md["namespace"],
                        "ownerReferences": [controller_ref(job)],
                        "labels": dict(tmd.get("labels") or {}),
                        "annotations": dict(tmd.get("annotations") or {})},
           "spec": tmpl["spec"]}
    ps = pod["spec"]
    if not ps.get("schedulerName") and job["spec"].get("schedulerName"):
        ps["schedulerName"] = job["spec"]["schedulerName"]
    if not ps.get("priorityClassName") and spec.get("priorityClassName"):
        ps["priorityClassName"] = spec["priorityClassName"]
    ann, lab = pod["metadata"]["annotations"], pod["metadata"]["labels"]
    ann.update({"volcano.sh/task-index": str(i),
                "volcano.sh/task-spec": task["name"],
                "scheduling.k8s.io/group-name": "%s-%s" % (md["name"],
                                                           md["uid"]),
                "volcano.sh/job-name": md["name"],
                "volcano.sh/queue-name": spec["queue"],
                "volcano.sh/job-version": str(st.get("version", 0)),
                "volcano.sh/template-uid": "%s-%s" % (md["name"],
                                                      task["name"]),
                "volcano.sh/job-retry-count": str(st.get("retryCount", 0))})
    lab.update({"volcano.sh/task-index": str(i),
                "volcano.sh/job-name": md["name"],
                "volcano.sh/task-spec": task["name"],
                "volcano.sh/job-namespace": md["namespace"],
                "volcano.sh/queue-name": spec["queue"]})
    return pod


def generate_hosts(job):
    """svc plugin's GenerateHosts(): <task>.host, VC_<TASK>_HOSTS/NUM."""
    data, name = {}, job["metadata"]["name"]
    for t in job["spec"]["tasks"]:
        ts = t["template"].get("spec") or {}
        hosts = []
        for i in range(t.get("replicas", 1)):
            hosts.append("%s.%s" % (ts.get("hostname") or "%s-%s-%d" % (
                name, t["name"], i), ts.get("subdomain") or name))
            if ts.get("hostname"):
                break
        key = t["name"].replace("-", "_")
        data[key + ".host"] = "\n".join(hosts)
        data["VC_%s_HOSTS" % key.upper()] = ",".join(hosts)
        data["VC_%s_NUM" % key.upper()] = str(len(hosts))
    return data


def plugin_on_pod_create(name, args, pod, job):
    """The svc and env plugins' OnPodCreate()."""
    ps = pod["spec"]
    containers = ps["containers"] + ps.get("initContainers", [])
    if name == "env":
        idx = pod["metadata"]["name"].split("-")[-1]
        for c in containers:
            c.setdefault("env", []).extend([
                {"name": "VK_TASK_INDEX", "value": idx},
                {"name": "VC_TASK_INDEX", "value": idx}])
    elif name == "svc":
        jname = job["metadata"]["name"]
        ps.setdefault("hostname", pod["metadata"]["name"])
        ps.setdefault("subdomain", jname)
        cm = jname + "-svc"
        env = []
        for t in job["spec"]["tasks"]:
            k = t["name"].replace("-", "_").upper()
            for n in ("VC_%s_HOSTS" % k, "VC_%s_NUM" % k):
                env.append({"name": n, "valueFrom": {"configMapKeyRef": {
                    "name": cm, "key": n}}})
        for c in containers:
            c.setdefault("env", []).extend(copy.deepcopy(env))
            c.setdefault("volumeMounts", []).append(
                {"name": cm, "mountPath": "/etc/volcano"})
        ps.setdefault("volumes", []).append(
            {"name": cm, "configMap": {"name": cm}})


def finished_at(job):
    """When a Completed/Failed/Terminated job finished (epoch s), or None."""
    import calendar
    import time as _t
    st = job.get("status") or {}
    if phase_of(st) not in ("Completed", "Failed", "Terminated"):
        return None
    t = (st.get("state") or {}).get("lastTransitionTime")
    return calendar.timegm(_t.strptime(t, "%Y-%m-%dT%H:%M:%SZ")) if t \
        else None
