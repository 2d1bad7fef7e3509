"""tests/kube/pytorch.py - Kubeflow's training operator v1.9.0 for
PyTorchJobs (pkg/controller.v1/pytorch, common/job.go, common/pod.go,
common/service.go; pkg/core; the defaults of pytorch_defaults.go applied
when a job is read, as Reconcile does), stood in.

Faithful: the condition Created at the first pass; pods
<job>-<master|worker>-<i> (a missing index made, one out of range
deleted) with the labels operator-name, job-name, replica-type,
replica-index (and job-role=master), a controller ownerReference, the
replica spec's restartPolicy, and in every container PYTHONUNBUFFERED,
MASTER_PORT and PET_MASTER_PORT (the pytorch container's pytorchjob-port,
23456 by default), MASTER_ADDR and PET_MASTER_ADDR (<job>-master-0),
WORLD_SIZE, RANK and PET_NODE_RANK (a worker's index + 1),
PET_NPROC_PER_NODE and PET_NNODES, appended after the template's; a
headless Service per pod, named like it, of the pytorch container's
named ports; replicaStatuses (active, succeeded, failed, selector); the
conditions Running (the master running), Succeeded (the master
succeeded), Failed (a replica failed under restartPolicy Never),
Restarting (a failed pod deleted, to be made again, under OnFailure,
Always, or ExitCode with a retryable code); cleanPodPolicy (None,
Running, All) once it ended; runPolicy.suspend (pods and Services
deleted, Running False, Suspended True) and its resume (Suspended False,
startTime again); startTime, completionTime; the events of these.

Absent: the init container that waits for the master's name (its image
would not run here; the names are in the pods' /etc/hosts from the
start), gang scheduling (PodGroups), elastic policy and HPA,
backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished, managedBy,
the ExitedWithCode event of every pass.
"""
import copy

import kapi
import reconciler
from kapi import now_rfc3339

PTJ = ("kubeflow.org/v1", "PyTorchJob")
L = "training.kubeflow.org/"
OPERATOR = "pytorchjob-controller"
PORT_NAME, PORT = "pytorchjob-port", 23456


def owner_ref(job):
    md = job["metadata"]
    return {"apiVersion": PTJ[0], "kind": PTJ[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def owned(obj, job):
    return any(r.get("controller") and r["uid"] == job["metadata"]["uid"]
               for r in obj["metadata"].get("ownerReferences") or [])


def defaulted(job):
    """SetDefaults_PyTorchJob()."""
    job = copy.deepcopy(job)
    spec = job["spec"]
    run = spec.setdefault("runPolicy", {})
    run.setdefault("cleanPodPolicy", "None")
    for r in spec.get("pytorchReplicaSpecs", {}).values():
        r.setdefault("replicas", 1)
        r.setdefault("restartPolicy", "OnFailure")
        for c in r["template"]["spec"]["containers"]:
            if c["name"] == "pytorch" and not any(
                    p.get("name") == PORT_NAME for p in c.get("ports", [])):
                c.setdefault("ports", []).append(
                    {"name": PORT_NAME, "containerPort": PORT})
    if not spec.get("elasticPolicy"):
        spec.setdefault("nprocPerNode", "auto")
    return job


def cond_true(st, ctype):
    return any(c["type"] == ctype and c["status"] == "True"
               for c in st.get("conditions") or [])


def set_condition(st, ctype, status, reason, msg):
    """commonutil.UpdateJobConditions(): nothing once Failed; a
    condition replaced, Running and Restarting exclusive, Running False
    at the end."""
    if cond_true(st, "Failed"):
        return
    conds = st.get("conditions") or []
    cur = [c for c in conds if c["type"] == ctype]
    if cur and cur[0]["status"] == status and cur[0]["reason"] == reason:
        return
    now = now_rfc3339()
    new = {"type": ctype, "status": status, "reason": reason,
           "message": msg, "lastUpdateTime": now, "lastTransitionTime":
           cur[0]["lastTransitionTime"] if cur and cur[0]["status"] ==
           status else now}
    out = []
    for c in conds:
        if c["type"] == ctype or {ctype, c["type"]} == {"Running",
                                                        "Restarting"}:
            continue
        if ctype in ("Failed", "Succeeded") and c["type"] == "Running":
            c = dict(c, status="False")
        out.append(c)
    st["conditions"] = out + [new]


def pod_port(spec):
    for c in spec["template"]["spec"]["containers"]:
        if c["name"] == "pytorch":
            for p in c.get("ports", []):
                if p.get("name") == PORT_NAME:
                    return p["containerPort"]
    return None


class PyTorchController(reconciler.Reconciler):
    name = "pytorchjob"

    def __init__(self, client, jobs, pods, services, stop):
        super().__init__(client, stop)
        self.jobs, self.pods, self.services = jobs, pods, services

    def on_owned(self, kind, old, new):
        self.mark_owner(new or old, PTJ)

    def event(self, job, etype, reason, msg):
        self.client.event(job, etype, reason, msg, OPERATOR)

    def owned(self, inf, job):
        ns = job["metadata"]["namespace"]
        return [o for o in inf.items()
                if o["metadata"]["namespace"] == ns and owned(o, job) and
                (o["metadata"].get("labels") or {}).get(L + "job-name") ==
                job["metadata"]["name"]]

    # ---- Reconcile, ReconcileJobs ----
    def reconcile(self, ns, name):
        job = self.client.maybe_get(kapi.path_of(*PTJ, ns, name))
        if job is None or job["metadata"].get("deletionTimestamp"):
            return None
        old = job.get("status") or {}
        job = defaulted(job)
        st = copy.deepcopy(old)
        if not st.get("conditions"):  # onOwnerCreateFunc
            set_condition(st, "Created", "True", "PyTorchJobCreated",
                          "PyTorchJob %s is created." % name)
        pods = self.owned(self.pods, job)
        run = job["spec"]["runPolicy"]
        if cond_true(st, "Succeeded") or cond_true(st, "Failed"):
            self.clean(job, pods)
            if cond_true(st, "Succeeded"):
                for rs in (st.get("replicaStatuses") or {}).values():
                    rs["succeeded"] = rs.get("succeeded", 0) + \
                        rs.pop("active", 0)
        elif run.get("suspend"):
            self.suspend(job, st, pods)
        else:
            if cond_true(st, "Suspended"):
                msg = "PyTorchJob %s is resumed." % name
                set_condition(st, "Suspended", "False",
                              "PyTorchJobResumed", msg)
                st["startTime"] = now_rfc3339()
                self.event(job, "Normal", "PyTorchJobResumed", msg)
            st.setdefault("startTime", now_rfc3339())
            for rtype, spec in job["spec"]["pytorchReplicaSpecs"].items():
                self.reconcile_pods(job, st, pods, rtype, spec)
                self.reconcile_services(job, rtype, spec)
            self.update_status(job, st)
        if st != old:
            self.write(job, st)
        return None

    def clean(self, job, pods):
        """DeletePodsAndServices() of an ended job, by cleanPodPolicy."""
        policy = job["spec"]["runPolicy"]["cleanPodPolicy"]
        if policy == "None":
            return
        for p in pods:
            if policy == "Running" and (p.get("status") or {}).get(
                    "phase") not in ("Running", "Pending"):
                continue
            self.delete("Pod", p)
            self.delete("Service", p)

    def suspend(self, job, st, pods):
        kind, name = PTJ[1], job["metadata"]["name"]
        for p in pods:
            self.delete("Pod", p)
            self.delete("Service", p)
        for rs in (st.get("replicaStatuses") or {}).values():
            rs["active"] = 0
        msg = "%s %s is suspended." % (kind, name)
        if cond_true(st, "Running"):
            set_condition(st, "Running", "False", kind + "Suspended", msg)
        if not cond_true(st, "Suspended"):
            set_condition(st, "Suspended", "True", kind + "Suspended", msg)
        self.event(job, "Normal", kind + "Suspended", msg)

    def reconcile_pods(self, job, st, pods, rtype, spec):
        rt = rtype.lower()
        mine = [p for p in pods
                if (p["metadata"].get("labels") or {}).get(
                    L + "replica-type") == rt]
        st.setdefault("replicaStatuses", {})[rtype] = {}
        n = spec["replicas"]
        slices = {}
        for p in mine:
            i = int(p["metadata"]["labels"].get(L + "replica-index", "-1"))
            slices.setdefault(i, []).append(p)
        for i in range(max([n] + [k + 1 for k in slices])):
            if not slices.get(i):
                self.create_pod(job, rtype, spec, i)
                continue
            pod = slices[i][0]
            if i >= n:
                self.delete("Pod", pod)
            self.pod_failure(job, st, rtype, spec, pod)
            self.count(st["replicaStatuses"][rtype], pod)

    def pod_failure(self, job, st, rtype, spec, pod):
        if (pod.get("status") or {}).get("phase") != "Failed":
            return
        code = None
        for cs in pod["status"].get("containerStatuses") or []:
            term = (cs.get("state") or {}).get("terminated")
            if cs.get("name") == "pytorch" and term:
                code = term.get("exitCode")
        policy, kind = spec["restartPolicy"], PTJ[1]
        name = job["metadata"]["name"]
        if policy in ("OnFailure", "Always") or (
                policy == "ExitCode" and code is not None and code >= 128):
            self.delete("Pod", pod)
            msg = "job %s is restarting because %s replica(s) failed." % (
                name, rtype)
            self.event(job, "Warning", kind + "Restarting", msg)
            set_condition(st, "Restarting", "True", kind + "Restarting",
                          msg)
        elif policy == "ExitCode":
            msg = 'job "%s" is failing because "%s" replica(s) failed.' % (
                name, rtype)
            self.event(job, "Warning", kind + "Failed", msg)
            set_condition(st, "Failed", "True", kind + "Failed", msg)

    @staticmethod
    def count(rs, pod):
        """updateJobReplicaStatuses()."""
        ph = (pod.get("status") or {}).get("phase")
        if ph == "Running":
            key = "failed" if pod["metadata"].get("deletionTimestamp") \
                else "active"
        else:
            key = {"Succeeded": "succeeded", "Failed": "failed"}.get(ph)
        if key:
            rs[key] = rs.get(key, 0) + 1

    def labels(self, job, rt, i):
        return {L + "operator-name": OPERATOR,
                L + "job-name": job["metadata"]["name"],
                L + "replica-type": rt, L + "replica-index": str(i)}

    def create_pod(self, job, rtype, spec, i):
        """createNewPod() with setPodEnv()."""
        md, rt = job["metadata"], rtype.lower()
        specs = job["spec"]["pytorchReplicaSpecs"]
        tmpl = copy.deepcopy(spec["template"])
        meta = tmpl.setdefault("metadata", {})
        meta.setdefault("labels", {}).update(self.labels(job, rt, i))
        if rtype == "Master":
            meta["labels"][L + "job-role"] = "master"
        total = sum(r["replicas"] for r in specs.values())
        rank = i + 1 if rt == "worker" else i
        env = [("PYTHONUNBUFFERED", "1")]
        if "Master" in specs:
            master = "%s-master-0" % md["name"]
            port = str(pod_port(specs["Master"]))
            env += [("MASTER_PORT", port), ("PET_MASTER_PORT", port),
                    ("MASTER_ADDR", master), ("PET_MASTER_ADDR", master),
                    ("WORLD_SIZE", str(total)), ("RANK", str(rank)),
                    ("PET_NODE_RANK", str(rank))]
        env += [("PET_NPROC_PER_NODE", job["spec"]["nprocPerNode"]),
                ("PET_NNODES", str(total))]
        for c in tmpl["spec"]["containers"]:
            c.setdefault("env", []).extend(
                {"name": k, "value": v} for k, v in env)
        if tmpl["spec"].get("restartPolicy"):
            self.event(job, "Warning", "SetPodTemplateRestartPolicy",
                       "Restart policy in pod template will be overwritten "
                       "by restart policy in replica spec")
        tmpl["spec"]["restartPolicy"] = "Never" if \
            spec["restartPolicy"] == "ExitCode" else spec["restartPolicy"]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": dict(meta, name="%s-%s-%d" % (md["name"], rt, i),
                                namespace=md["namespace"],
                                ownerReferences=[owner_ref(job)]),
               "spec": tmpl["spec"]}
        self.create(job, "Pod", pod)

    def reconcile_services(self, job, rtype, spec):
        """A headless Service per pod, of the pytorch container's named
        ports (GetPortsFromJob)."""
        rt, md = rtype.lower(), job["metadata"]
        ports = {}
        for c in spec["template"]["spec"]["containers"]:
            if c["name"] == "pytorch":
                for p in c.get("ports", []):
                    ports[p.get("name", "")] = p["containerPort"]
        for i in range(spec["replicas"]):
            name = "%s-%s-%d" % (md["name"], rt, i)
            if self.client.maybe_get(kapi.path_of(
                    "v1", "Service", md["namespace"], name)) is not None:
                continue
            sel = self.labels(job, rt, i)
            self.create(job, "Service", {
                "apiVersion": "v1", "kind": "Service",
                "metadata": {"name": name, "namespace": md["namespace"],
                             "labels": sel,
                             "ownerReferences": [owner_ref(job)]},
                "spec": {"clusterIP": "None", "selector": sel,
                         "ports": [{"name": k, "port": v}
                                   for k, v in ports.items()]}})

    def update_status(self, job, st):
        """UpdateJobStatus() of PyTorchJob (a Master: it decides)."""
        name, kind = job["metadata"]["name"], PTJ[1]
        specs = job["spec"]["pytorchReplicaSpecs"]
        for rtype, spec in specs.items():
            rs = st["replicaStatuses"][rtype]
            rs["selector"] = ",".join("%s=%s" % kv for kv in sorted(dict(
                self.labels(job, rtype.lower(), 0),
                **{L + "replica-index": None}).items()) if kv[1])
            expected = spec["replicas"] - rs.get("succeeded", 0)
            if rtype == "Master" or "Master" not in specs:
                if rs.get("active", 0) > 0:
                    set_condition(st, "Running", "True", kind + "Running",
                                  "PyTorchJob %s is running." % name)
                if expected == 0:
                    msg = "PyTorchJob %s is successfully completed." % name
                    self.event(job, "Normal", kind + "Succeeded", msg)
                    st.setdefault("completionTime", now_rfc3339())
                    set_condition(st, "Succeeded", "True",
                                  kind + "Succeeded", msg)
                    return
            failed = rs.get("failed", 0)
            if failed > 0 and spec["replicas"] > rs.get("succeeded", 0) + \
                    rs.get("active", 0) and spec["restartPolicy"] == "Never":
                msg = "PyTorchJob %s is failed because %d %s replica(s) " \
                      "failed." % (name, failed, rtype)
                self.event(job, "Normal", kind + "Failed", msg)
                st.setdefault("completionTime", now_rfc3339())
                set_condition(st, "Failed", "True", kind + "Failed", msg)

    # ---- the API ----
    def create(self, job, kind, obj):
        md = job["metadata"]
        self.mark(md["namespace"], md["name"], 0.1)
        try:
            self.client.create(kapi.path_of("v1", kind, md["namespace"]),
                               obj)
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            return
        self.event(job, "Normal", "SuccessfulCreate" + kind,
                   "Created %s: %s" % (kind.lower(), obj["metadata"]["name"]))

    def delete(self, kind, pod):
        md = pod["metadata"]
        if kind == "Pod" and md.get("deletionTimestamp"):
            return
        self.client.delete(kapi.path_of("v1", kind, md["namespace"],
                                        md["name"]), "Background")

    def write(self, job, st):
        md = job["metadata"]
        try:
            self.client.put(kapi.path_of(*PTJ, md["namespace"], md["name"],
                                         "status"), dict(job, status=st))
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            self.mark(md["namespace"], md["name"], 0.1)
