"""tests/kube/trainjob.py - Kubeflow Trainer v2.3.0's TrainJob controller
(pkg/controller/trainjob_controller.go; pkg/runtime/core's
ClusterTrainingRuntime and TrainingRuntime; the torch plugin,
pkg/runtime/framework/plugins/torch), stood in. The JobSet it makes is
run by jobset.py and batchjob.py, as on a cluster.

Faithful: runtimeRef (apiGroup trainer.kubeflow.org, kind
ClusterTrainingRuntime by default or TrainingRuntime of the TrainJob's
namespace; another kind: Failed with TrainingRuntimeNotSupported); a
missing runtime is a Warning event TrainJobResourcesCreationFailed and a
retry, no condition; the snapshot ConfigMap <trainjob>-runtime-snapshot
(key runtime, owned), read in later passes instead of the live runtime;
one JobSet named as the TrainJob (controller ownerReference, the
runtime's template labels and annotations) whose spec is the runtime's,
the replicatedJob labelled trainjob-ancestor-step=trainer given replicas
1, parallelism = completions = numNodes (the TrainJob's, else
mlPolicy.numNodes) and its container "node" the trainer's image,
command, args, env, resources and port 29500, then the torch plugin's
PET_NNODES, PET_NPROC_PER_NODE (numProcPerNode, else "auto": the CPUs of
resourcesPerNode, at least 1, where no GPU is asked), PET_NODE_RANK (the
completion index), PET_MASTER_ADDR (<trainjob>-node-0-0.<trainjob>) and
PET_MASTER_PORT 29500, a trainer variable of those names replaced in
place; the JobSet built once, re-applied only while the TrainJob or the
JobSet is suspended; the conditions Complete and Failed copied from the
JobSet's Completed and Failed, Suspended (True, Suspended; resumed:
False, Resumed); jobsStatus from the JobSet's replicatedJobsStatus (Jobs,
not pods, zeros kept); spec.suspend passed to the JobSet.

Absent: the initializers (dataset, model), runtimePatches, podGroup
policies (coscheduling, Volcano), the other plugins (mpi, jax, xgboost,
plainml), activeDeadlineSeconds, managedBy, the validating webhook (it
would refuse the PET_* names in trainer.env).
"""
import copy
import json

import jobset
import kapi
import reconciler
from kapi import now_rfc3339

TJ = ("trainer.kubeflow.org/v1alpha1", "TrainJob")
CTR = ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
TR = ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime")
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
NODE, PORT = "node", 29500
INDEX_REF = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
CONTROLLER = "trainjob-controller"


def owner_ref(tj):
    md = tj["metadata"]
    return {"apiVersion": TJ[0], "kind": TJ[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def cond(st, ctype):
    for c in st.get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def set_condition(st, ctype, status, reason, msg):
    """meta.SetStatusCondition(): the transition time moves with the
    status only."""
    c = cond(st, ctype)
    if c is None:
        st.setdefault("conditions", []).append({
            "type": ctype, "status": status, "reason": reason,
            "message": msg, "lastTransitionTime": now_rfc3339()})
        return
    if c["status"] != status:
        c["lastTransitionTime"] = now_rfc3339()
    c.update(status=status, reason=reason, message=msg)


def cpus(q):
    """A quantity of CPUs, whole ones."""
    q = str(q)
    try:
        return int(q[:-1]) // 1000 if q.endswith("m") else int(float(q))
    except ValueError:
        return 0


def nproc(trainer):
    """The torch plugin's numProcPerNode: given, else "auto", which
    becomes the CPUs of resourcesPerNode (at least 1) where no GPU is
    asked."""
    if trainer.get("numProcPerNode") is not None:
        return str(trainer["numProcPerNode"])
    res = trainer.get("resourcesPerNode") or {}
    lim = dict(res.get("requests") or {}, **(res.get("limits") or {}))
    if any("gpu" in k for k in lim):
        return "auto"
    return str(max(1, cpus(lim.get("cpu", 0))))


def merge_env(env, extra):
    """extra into env: a name there replaced in place, else appended."""
    for e in extra:
        for i, x in enumerate(env):
            if x["name"] == e["name"]:
                env[i] = e
                break
        else:
            env.append(e)


class TrainJobController(reconciler.Reconciler):
    name = "trainjob"

    def __init__(self, client, trainjobs, jobsets, stop):
        super().__init__(client, stop)
        self.trainjobs, self.jobsets = trainjobs, jobsets

    def on_owned(self, kind, old, new):
        self.mark_owner(new or old, TJ)

    def event(self, tj, etype, reason, msg):
        self.client.event(tj, etype, reason, msg, CONTROLLER)

    def reconcile(self, ns, name):
        tj = self.client.maybe_get(kapi.path_of(*TJ, ns, name))
        if tj is None or tj["metadata"].get("deletionTimestamp"):
            return None
        old = tj.get("status") or {}
        st = copy.deepcopy(old)
        ref = tj["spec"].get("runtimeRef") or {}
        kind = ref.get("kind", CTR[1])
        if ref.get("apiGroup", "trainer.kubeflow.org") != \
                "trainer.kubeflow.org" or kind not in (CTR[1], TR[1]):
            set_condition(st, "Failed", "True",
                          "TrainingRuntimeNotSupported",
                          "Specified runtime is not supported: %s/%s" % (
                              ref.get("apiGroup", ""), kind))
            return self.write(tj, old, st)
        runtime = self.runtime(tj, kind, ref.get("name", ""))
        if runtime is None:
            self.event(tj, "Warning", "TrainJobResourcesCreationFailed",
                       "%s %s not found" % (kind, ref.get("name", "")))
            return 2.0
        js = self.client.maybe_get(kapi.path_of(*jobset.JS, ns, name))
        want = self.build(tj, runtime)
        if js is None:
            self.client.create(kapi.path_of(*jobset.JS, ns), want)
        elif tj["spec"].get("suspend") or js["spec"].get("suspend"):
            js = copy.deepcopy(js)
            js["spec"] = dict(want["spec"])
            self.client.put(kapi.path_of(*jobset.JS, ns, name), js)
        self.status(tj, st, js)
        return self.write(tj, old, st)

    def runtime(self, tj, kind, rname):
        """The snapshot's runtime, else the live one, snapshotted."""
        md = tj["metadata"]
        snap = "%s-runtime-snapshot" % md["name"]
        cm = self.client.maybe_get(kapi.path_of("v1", "ConfigMap",
                                                md["namespace"], snap))
        if cm is not None:
            return json.loads(cm["data"]["runtime"])
        path = kapi.path_of(*CTR, name=rname) if kind == CTR[1] else \
            kapi.path_of(*TR, md["namespace"], rname)
        rt = self.client.maybe_get(path)
        if rt is None:
            return None
        try:
            self.client.create(kapi.path_of("v1", "ConfigMap",
                                            md["namespace"]), {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": snap, "namespace": md["namespace"],
                             "ownerReferences": [owner_ref(tj)]},
                # YAML is a superset of JSON: JSON stands in for the YAML
                "data": {"runtime": json.dumps(rt)}})
        except kapi.ApiError as e:
            if e.code != 409:
                raise
        return rt

    def build(self, tj, runtime):
        """The JobSet of tj on runtime, with the torch plugin's env."""
        md, tr = tj["metadata"], tj["spec"].get("trainer") or {}
        tmpl = copy.deepcopy(runtime["spec"]["template"])
        spec = tmpl.get("spec") or {}
        nodes = tr.get("numNodes") or \
            (runtime["spec"].get("mlPolicy") or {}).get("numNodes", 1)
        torch = "torch" in (runtime["spec"].get("mlPolicy") or {})
        for rj in spec.get("replicatedJobs") or []:
            labels = (rj["template"].get("metadata") or {}).get("labels") \
                or {}
            if labels.get(ANCESTOR) != "trainer":
                continue
            rj["replicas"] = 1
            jspec = rj["template"].setdefault("spec", {})
            jspec["parallelism"] = jspec["completions"] = nodes
            for c in jspec["template"]["spec"]["containers"]:
                if c["name"] != NODE:
                    continue
                self.trainer_container(c, tj, tr, nodes, rj["name"], torch)
        spec["suspend"] = bool(tj["spec"].get("suspend"))
        meta = tmpl.get("metadata") or {}
        return {"apiVersion": jobset.JS[0], "kind": jobset.JS[1],
                "metadata": {"name": md["name"],
                             "namespace": md["namespace"],
                             "labels": dict(meta.get("labels") or {}),
                             "annotations": dict(meta.get("annotations")
                                                 or {}),
                             "ownerReferences": [owner_ref(tj)]},
                "spec": spec}

    @staticmethod
    def trainer_container(c, tj, tr, nodes, rjob, torch):
        for key in ("image", "command", "args"):
            if tr.get(key) is not None:
                c[key] = tr[key]
        env = c.setdefault("env", [])
        merge_env(env, tr.get("env") or [])
        res = tr.get("resourcesPerNode")
        if res:
            cur = c.setdefault("resources", {})
            for k in ("requests", "limits"):
                if res.get(k):
                    cur.setdefault(k, {}).update(res[k])
        c["ports"] = [{"containerPort": PORT}]
        if not torch:
            return
        name = tj["metadata"]["name"]
        merge_env(env, [
            {"name": "PET_NNODES", "value": str(nodes)},
            {"name": "PET_NPROC_PER_NODE", "value": nproc(tr)},
            {"name": "PET_NODE_RANK", "valueFrom": {
                "fieldRef": {"fieldPath": INDEX_REF}}},
            {"name": "PET_MASTER_ADDR",
             "value": "%s-%s-0-0.%s" % (name, rjob, name)},
            {"name": "PET_MASTER_PORT", "value": str(PORT)}])

    @staticmethod
    def status(tj, st, js):
        """The JobSet's end copied, suspension said, jobsStatus."""
        jst = (js or {}).get("status") or {}
        for src, dst in (("Completed", "Complete"), ("Failed", "Failed")):
            c = jobset.cond_true(jst, src) and cond(jst, src)
            if c and not cond(st, dst):
                set_condition(st, dst, "True", c.get("reason", ""),
                              c.get("message", ""))
        if tj["spec"].get("suspend"):
            set_condition(st, "Suspended", "True", "Suspended",
                          "TrainJob is suspended")
        elif cond(st, "Suspended"):
            set_condition(st, "Suspended", "False", "Resumed",
                          "TrainJob is resumed")
        st["jobsStatus"] = [
            {k: r.get(k, 0) if k != "name" else r["name"]
             for k in ("name", "ready", "succeeded", "failed", "active",
                       "suspended")}
            for r in jst.get("replicatedJobsStatus") or []]

    def write(self, tj, old, st):
        if st == old:
            return None
        md = tj["metadata"]
        try:
            self.client.put(kapi.path_of(*TJ, md["namespace"], md["name"],
                                         "status"), dict(tj, status=st))
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            return 0.1
        return None
