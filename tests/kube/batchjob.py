"""tests/kube/batchjob.py - kube-controller-manager's Job controller
(pkg/controller/job: job_controller.go, indexed_job_utils.go), stood in
for the Jobs a JobSet makes, as a current cluster runs them.

The API server here is 1.20, whose batch/v1 Job has no completionMode
and no suspend (1.21) and whose JobStatus has no ready (1.23): it drops
them. jobset.py, which makes the Jobs, carries the first two in the
annotations ANN_MODE and ANN_SUSPEND; this controller writes the third
in ANN_READY (reference/kubernetes/README-jobset-pytorchjob.md).

Faithful, for Indexed Jobs: a pod per index not yet succeeded, at most
parallelism at once, generateName <job>-<index>-, hostname
<job>-<index>, the annotation batch.kubernetes.io/job-completion-index
and JOB_COMPLETION_INDEX (fieldRef on it) in every container, a
controller ownerReference; status active, succeeded, failed,
completedIndexes, startTime, completionTime, the conditions Complete,
Failed (BackoffLimitExceeded: more failures than backoffLimit; the
active pods deleted) and Suspended (the active pods deleted, resumed:
startTime again); a pod of restartPolicy OnFailure counts its restarts
as failures. The selector and the pods' controller-uid and job-name
labels are the API server's (1.20 sets them on create).

NonIndexed Jobs of one completion (an MPIJob's launcher, mpijob.py):
generateName <job>-, no index, no JOB_COMPLETION_INDEX; complete when a
pod succeeded.

Absent: NonIndexed Jobs of more completions, the job-tracking finalizer,
podFailurePolicy,
backoffLimitPerIndex, activeDeadlineSeconds, ttlSecondsAfterFinished,
the exponential back-off between pods.
"""
import copy
import time

import kapi
import reconciler
from kapi import now_rfc3339

JOB = ("batch/v1", "Job")
INDEX = "batch.kubernetes.io/job-completion-index"
ANN_MODE = "paictl.test/completion-mode"
ANN_SUSPEND = "paictl.test/suspend"
ANN_READY = "paictl.test/ready"


def owner_ref(job):
    md = job["metadata"]
    return {"apiVersion": JOB[0], "kind": JOB[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def owned(obj, job):
    return any(r.get("controller") and r["uid"] == job["metadata"]["uid"]
               for r in obj["metadata"].get("ownerReferences") or [])


def index_of(pod):
    try:
        return int((pod["metadata"].get("annotations") or {})[INDEX])
    except (KeyError, ValueError):
        return -1


def finished(pod):
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def ready(pod):
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def condition(job, ctype):
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype and c.get("status") == "True":
            return c
    return None


def set_condition(st, ctype, status, reason, msg):
    """The condition ctype in st, changed only when its status is."""
    conds = st.setdefault("conditions", [])
    for c in conds:
        if c["type"] == ctype:
            if c["status"] != status:
                c.update(status=status, reason=reason, message=msg,
                         lastProbeTime=now_rfc3339(),
                         lastTransitionTime=now_rfc3339())
            return
    if status == "True":
        conds.append({"type": ctype, "status": status, "reason": reason,
                      "message": msg, "lastProbeTime": now_rfc3339(),
                      "lastTransitionTime": now_rfc3339()})


def ranges(indexes):
    """completedIndexes: "0-2,5"."""
    out, run = [], []
    for i in sorted(indexes):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else
                       "%d-%d" % (run[0], run[-1]))
        run = [i]
    if run:
        out.append(str(run[0]) if len(run) == 1 else
                   "%d-%d" % (run[0], run[-1]))
    return ",".join(out)


class JobController(reconciler.Reconciler):
    name = "job-controller"

    def __init__(self, client, jobs, pods, stop):
        super().__init__(client, stop)
        self.jobs, self.pods = jobs, pods

    def on_pod(self, kind, old, new):
        self.mark_owner(new or old, JOB)

    def reconcile(self, ns, name):
        job = self.client.maybe_get(kapi.path_of(*JOB, ns, name))
        if job is None or job["metadata"].get("deletionTimestamp"):
            return None
        ann = job["metadata"].get("annotations") or {}
        if ann.get(ANN_MODE) not in ("Indexed", "NonIndexed"):
            return None  # Jobs no stand-in made: not stood in
        pods = [p for p in self.pods.items()
                if p["metadata"]["namespace"] == ns and owned(p, job)]
        active = [p for p in pods if not finished(p) and
                  not p["metadata"].get("deletionTimestamp")]
        st = copy.deepcopy(job.get("status") or {})
        if condition(job, "Complete") or condition(job, "Failed"):
            return None
        if ann.get(ANN_SUSPEND) == "true":
            self.delete_all(active)
            active = []
            set_condition(st, "Suspended", "True", "JobSuspended",
                          "Job suspended")
            st.pop("startTime", None)
        else:
            if condition(job, "Suspended"):
                set_condition(st, "Suspended", "False", "JobResumed",
                              "Job resumed")
            st.setdefault("startTime", now_rfc3339())
            active = self.sync_pods(job, pods, active, st)
        self.write(job, st, active)
        return None

    def sync_pods(self, job, pods, active, st):
        """The Job's end, or the pods of the indexes still to run; the
        pods still active."""
        spec = job["spec"]
        completions = spec.get("completions") or 1
        parallelism = spec.get("parallelism", 1)
        phases = [((p.get("status") or {}).get("phase"), p) for p in pods]
        # a NonIndexed pod's index is -1: one succeeded completes it
        done = {index_of(p) for ph, p in phases if ph == "Succeeded"}
        failed = len([p for ph, p in phases if ph == "Failed"]) + sum(
            c.get("restartCount", 0) for p in active
            if p["spec"].get("restartPolicy") == "OnFailure"
            for c in (p.get("status") or {}).get("containerStatuses")
            or [])
        st["succeeded"] = len(done)
        st["failed"] = max(st.get("failed", 0), failed)
        if (job["metadata"].get("annotations") or {}).get(ANN_MODE) == \
                "Indexed":
            st["completedIndexes"] = ranges(done)
        if st["failed"] > spec.get("backoffLimit", 6):
            self.delete_all(active)
            set_condition(st, "Failed", "True", "BackoffLimitExceeded",
                          "Job has reached the specified backoff limit")
            st["completionTime"] = now_rfc3339()
            return []
        if len(done) >= completions:
            set_condition(st, "Complete", "True", "CompletionsReached",
                          "Reached expected number of succeeded pods")
            st["completionTime"] = now_rfc3339()
            return active
        running = {index_of(p) for p in active}
        made = []
        for i in range(completions):
            if len(running) >= parallelism:
                break
            if i not in done and i not in running:
                made.append(self.create_pod(job, i))
                running.add(i)
        self.observe(made)
        return active + made

    def observe(self, made):
        """Waits (2 s at most) until the informer has the pods just made,
        as the controller's expectations do: the next pass must not make
        an index's pod again."""
        names = {p["metadata"]["name"] for p in made}
        deadline = time.time() + 2
        while names and time.time() < deadline:
            names -= {p["metadata"]["name"] for p in self.pods.items()}
            time.sleep(0.01)

    def create_pod(self, job, index):
        """The pod of index, as the Job controller makes it."""
        md = job["metadata"]
        tmpl = copy.deepcopy(job["spec"]["template"])
        meta = tmpl.get("metadata") or {}
        spec = tmpl["spec"]
        meta.update(namespace=md["namespace"],
                    ownerReferences=[owner_ref(job)])
        if (md.get("annotations") or {}).get(ANN_MODE) != "Indexed":
            meta["generateName"] = md["name"] + "-"
            return self.made(job, meta, spec)
        meta.setdefault("annotations", {})[INDEX] = str(index)
        meta["generateName"] = "%s-%d-" % (md["name"], index)
        spec.setdefault("hostname", "%s-%d" % (md["name"], index))
        for c in spec.get("containers", []) + spec.get("initContainers",
                                                       []):
            env = c.setdefault("env", [])
            if not any(e["name"] == "JOB_COMPLETION_INDEX" for e in env):
                env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {
                    "fieldRef": {"fieldPath":
                                 "metadata.annotations['%s']" % INDEX}}})
        return self.made(job, meta, spec)

    def made(self, job, meta, spec):
        md = job["metadata"]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
               "spec": spec}
        made = self.client.create(kapi.path_of("v1", "Pod", md["namespace"]),
                                  pod)
        self.client.event(job, "Normal", "SuccessfulCreate",
                          "Created pod: %s" % made["metadata"]["name"],
                          "job-controller")
        return made

    def delete_all(self, pods):
        for p in pods:
            md = p["metadata"]
            self.client.delete(kapi.path_of("v1", "Pod", md["namespace"],
                                            md["name"]), "Background")

    def write(self, job, st, active):
        """The status, and the ready count where 1.20 keeps none."""
        md = job["metadata"]
        st["active"] = len(active)
        path = kapi.path_of(*JOB, md["namespace"], md["name"])
        if st != (job.get("status") or {}):
            try:
                self.client.put(path + "/status", dict(job, status=st))
            except kapi.ApiError as e:
                if e.code != 409:
                    raise
                self.mark(md["namespace"], md["name"], 0.1)
        n = str(len([p for p in active if ready(p)]))
        if (md.get("annotations") or {}).get(ANN_READY) != n:
            self.client.merge_patch(path, {"metadata": {
                "annotations": {ANN_READY: n}}})
