"""tests/kube/paddle.py - the PaddleJob operator of PaddlePaddle/PaddleCloud
b4f3a91b (pkg/paddlejob/paddlejob_controller.go Reconcile,
paddlejob_helper.go), stood in, as run without --scheduling=volcano and
without an init image (no coord-paddle init container): one change per
reconcile, as the operator makes them.

Faithful: the finalizer finalizers.paddlepaddle.org (added first, removed
on deletion); pods <name>-<ps|worker|heter>-<i> with labels paddle-res-name
(the pod's name) and paddle-res-type, annotation paddle-resource, hostname
and subdomain the pod's name, POD_IP / PADDLE_TRAINER_ID / TRAINING_ROLE /
PADDLE_TRAINING_ROLE appended to containers[0] and envFrom the ConfigMap
<name>, restartPolicy defaults; with intranet Service a headless Service
per pod (ports 2379-2398); the ConfigMap <name> once every pod has an IP
(PADDLE_PORT 2379, PaddleCloud's value); status (phase computed from the
previous per-role counts, as the operator does; per-role counts and refs;
mode; startTime, completionTime); cleanPodPolicy; Created/Deleted events.

Absent: elastic mode (etcd), the Volcano PodGroup (--scheduling=volcano),
intranet Host (host ports), sampleSetRef.
"""
import kapi
import reconciler
from kapi import now_rfc3339

PDJ = ("batch.paddlepaddle.org/v1", "PaddleJob")
FINALIZER = "finalizers.paddlepaddle.org"
ROLES = ("ps", "worker", "heter")
TRAINING_ROLE = {"ps": "PSERVER", "worker": "TRAINER", "heter": "HETER"}
PADDLE_PORT, HOST_PORT_NUM = 2379, 20


def owner_ref(pdj):
    md = pdj["metadata"]
    return {"apiVersion": PDJ[0], "kind": PDJ[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def owned(obj, pdj):
    return any(r.get("controller") and r["uid"] == pdj["metadata"]["uid"]
               for r in obj["metadata"].get("ownerReferences") or [])


class Paddle(reconciler.Reconciler):
    name = "paddle"

    def __init__(self, client, jobs, pods, stop):
        super().__init__(client, stop)
        self.jobs, self.pods = jobs, pods

    def on_owned(self, kind, old, new):
        self.mark_owner(new or old, PDJ)

    def event(self, pdj, etype, reason, msg):
        self.client.event(pdj, etype, reason, msg, "paddlejob-controller")

    # ---- Reconcile ----
    def reconcile(self, ns, name):
        """One pass; the delay before the next one (None: wait for an
        event)."""
        pdj = self.client.maybe_get(kapi.path_of(*PDJ, ns, name))
        if pdj is None:
            return None
        if self.finalize(pdj):
            return 1.0
        pods = [p for p in self.pods.items()
                if p["metadata"]["namespace"] == ns and owned(p, pdj)]
        if self.sync_status(pdj, pods):
            return 0.0
        specs = {r: pdj["spec"].get(r) for r in ROLES}
        for p in pods:
            role, idx = name_index(p["metadata"]["name"])
            if specs.get(role) and idx >= specs[role]["replicas"]:
                self.delete(pdj, "Pod", p)
                return 0.0
        if pdj["spec"].get("intranet") == "Service" and \
                self.ensure_services(pdj, pods):
            return None
        if self.clean(pdj, pods):
            return None
        if self.create_pods(pdj, specs):
            return None
        if pods and all_ready(pdj, pods):
            self.ensure_configmap(pdj, pods)
        return None

    def finalize(self, pdj):
        md = pdj["metadata"]
        fins = md.get("finalizers") or []
        path = kapi.path_of(*PDJ, md["namespace"], md["name"])
        if not md.get("deletionTimestamp"):
            if FINALIZER in fins:
                return False
            md["finalizers"] = fins + [FINALIZER]
        elif FINALIZER in fins:
            md["finalizers"] = [f for f in fins if f != FINALIZER]
        else:
            return False
        try:
            self.client.put(path, pdj)
        except kapi.ApiError as e:
            if e.code not in (404, 409):
                raise
        return True

    def sync_status(self, pdj, pods):
        """syncCurrentStatus(); True when the status was written."""
        old = pdj.get("status") or {}
        new = {"phase": job_phase(pdj), "mode": job_mode(pdj)}
        start = old.get("startTime")
        if not start and new["phase"] == "Running":
            start = now_rfc3339()
        done = old.get("completionTime")
        if not done and new["phase"] in ("Completed", "Failed"):
            done = now_rfc3339()
        if start:
            new["startTime"] = start
        if done:
            new["completionTime"] = done
        created = pdj["metadata"]["creationTimestamp"]
        for p in pods:
            if p["metadata"]["creationTimestamp"] < created:
                continue
            role = (p["metadata"].get("annotations") or {}).get(
                "paddle-resource")
            add_pod_status(new.setdefault(role, {}), p)
        if new == old:
            return False
        md = pdj["metadata"]
        try:
            self.client.put(kapi.path_of(*PDJ, md["namespace"], md["name"],
                                         "status"), dict(pdj, status=new))
        except kapi.ApiError as e:
            if e.code != 409:
                raise
        return True

    def ensure_services(self, pdj, pods):
        """One headless Service per pod; True when one was created."""
        for p in pods:
            name = p["metadata"]["name"]
            path = kapi.path_of("v1", "Service", p["metadata"]["namespace"])
            if self.client.maybe_get(path + "/" + name) is not None:
                continue
            svc = {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": name, "labels": {},
                                "ownerReferences": [owner_ref(pdj)]},
                   "spec": {"clusterIP": "None",
                            "selector": {"paddle-res-name": name},
                            "ports": [{"name": "p-%d" % i,
                                       "port": PADDLE_PORT + i}
                                      for i in range(HOST_PORT_NUM)]}}
            self.create(pdj, "Service", path, svc)
            return True
        return False

    def clean(self, pdj, pods):
        """cleanPodPolicy: after the end, delete one pod per pass."""
        phase = (pdj.get("status") or {}).get("phase")
        policy = pdj["spec"].get("cleanPodPolicy", "")
        if (phase == "Failed" and policy in ("Always", "OnFailure")) or (
                phase == "Completed" and policy in ("", "Always",
                                                    "OnCompletion")):
            for p in pods:
                if not p["metadata"].get("deletionTimestamp"):
                    self.delete(pdj, "Pod", p)
                    return True
            return True
        return False

    def create_pods(self, pdj, specs):
        """One missing pod per pass, roles in the operator's order."""
        st = pdj.get("status") or {}
        for role in ROLES:
            spec = specs[role]
            if not spec or len((st.get(role) or {}).get("refs") or []) == \
                    spec["replicas"]:
                continue
            for i in range(spec["replicas"]):
                pod = make_pod(pdj, role, i)
                path = kapi.path_of("v1", "Pod", pdj["metadata"]["namespace"])
                if self.client.maybe_get(path + "/" + pod["metadata"][
                        "name"]) is not None:
                    continue
                self.create(pdj, "Pod", path, pod)
                return True
        return False

    def ensure_configmap(self, pdj, pods):
        md = pdj["metadata"]
        path = kapi.path_of("v1", "ConfigMap", md["namespace"])
        if self.client.maybe_get(path + "/" + md["name"]) is not None:
            return
        cm = make_configmap(pdj, pods)
        if cm:
            self.create(pdj, "ConfigMap", path, cm)

    def create(self, pdj, kind, path, obj):
        """createResource(): the event names the object's TypeMeta kind,
        which is empty on the operator's freshly built objects."""
        md = pdj["metadata"]
        # Owns(Pod, Service, ConfigMap): the new object's watch event
        # brings the next reconcile
        self.mark(md["namespace"], md["name"], 0.1)
        try:
            self.client.create(path, obj)
        except kapi.ApiError as e:
            self.event(pdj, "Warning", "Create", "create failed  %s"
                       % obj["metadata"]["name"])
            if e.code != 409:
                raise
            return
        self.event(pdj, "Normal", "Created", "created  %s"
                   % obj["metadata"]["name"])

    def delete(self, pdj, kind, obj):
        md = obj["metadata"]
        if md.get("deletionTimestamp"):
            return
        self.mark(md["namespace"], pdj["metadata"]["name"], 0.1)
        if self.client.delete(kapi.path_of("v1", kind, md["namespace"],
                                           md["name"]), "Background"):
            self.event(pdj, "Normal", "Deleted", "deleted %s %s"
                       % (kind, md["name"]))


def name_index(name):
    """extractNameIndex(): ("worker", 1) from "job-worker-1"."""
    s = name.split("-")
    try:
        return s[-2], int(s[-1])
    except (ValueError, IndexError):
        return "", 0


def add_pod_status(ss, pod):
    """syncStatusByPod(): count the pod by phase, add its reference."""
    st = pod.get("status") or {}
    ph = st.get("phase")
    if ph == "Pending":
        key = "pending"
    elif ph == "Running":
        real = all(c.get("ready") and "running" in (c.get("state") or {})
                   for c in st.get("containerStatuses") or []) and all(
            c.get("ready") for c in st.get("initContainerStatuses") or [])
        key = "running" if real else "starting"
    else:
        key = {"Failed": "failed", "Succeeded": "succeeded"}.get(ph)
    if key:
        ss[key] = ss.get(key, 0) + 1
    md = pod["metadata"]
    ss.setdefault("refs", []).append({
        "kind": "Pod", "namespace": md["namespace"], "name": md["name"],
        "uid": md["uid"], "apiVersion": "v1",
        "resourceVersion": md["resourceVersion"]})


def job_phase(pdj):
    """getPaddleJobPhase(), from the status as it was."""
    st = pdj.get("status") or {}
    if st.get("phase") in ("Completed", "Failed"):
        return st["phase"]
    roles = [r for r in ROLES if st.get(r) is not None]
    for r in roles:
        if st[r].get("failed", 0) > 0:
            return "Failed"
        if st[r].get("starting", 0) > 0:
            return "Starting"
        if st[r].get("pending", 0) > 0:
            return "Pending"

    def every(key):
        return all(not pdj["spec"].get(r) or (
            st.get(r) is not None and
            pdj["spec"][r]["replicas"] == st[r].get(key, 0)) for r in ROLES)
    if every("running"):
        return "Running"
    if every("succeeded"):
        return "Completed"
    return st.get("phase") or "Pending"


def job_mode(pdj):
    s = pdj["spec"]
    if s.get("ps"):
        return "PS"
    if s.get("worker") and s["worker"].get("replicas", 0) > 1:
        return "Collective"
    return "Single"


def all_ready(pdj, pods):
    st = pdj.get("status") or {}
    created = all(not pdj["spec"].get(r) or len((st.get(r) or {}).get(
        "refs") or []) == pdj["spec"][r]["replicas"] for r in ROLES)
    return created and all((p.get("status") or {}).get("podIP")
                           for p in pods)


def make_pod(pdj, role, idx):
    """constructPod()."""
    import copy
    md = pdj["metadata"]
    name = "%s-%s-%d" % (md["name"], role, idx)
    tmpl = copy.deepcopy(pdj["spec"][role]["template"])
    meta = tmpl.get("metadata") or {}
    meta.setdefault("labels", {}).update({"paddle-res-name": name,
                                          "paddle-res-type": role})
    meta.setdefault("annotations", {})["paddle-resource"] = role
    meta.update({"name": name, "namespace": md["namespace"],
                 "ownerReferences": [owner_ref(pdj)]})
    spec = tmpl["spec"]
    spec["hostname"] = spec["subdomain"] = name
    service = pdj["spec"].get("intranet") == "Service"
    c0 = spec["containers"][0]
    c0.setdefault("env", []).extend([
        {"name": "POD_IP", "value": name} if service else
        {"name": "POD_IP", "valueFrom": {"fieldRef": {
            "fieldPath": "status.podIP"}}},
        {"name": "PADDLE_TRAINER_ID", "value": str(idx)},
        {"name": "TRAINING_ROLE", "value": TRAINING_ROLE[role]},
        {"name": "PADDLE_TRAINING_ROLE", "value": TRAINING_ROLE[role]}])
    c0.setdefault("envFrom", []).append({"configMapRef": {
        "name": md["name"]}})
    if service:
        c0.setdefault("ports", []).append({"containerPort": PADDLE_PORT})
    elif pdj["spec"].get("intranet") == "Host":
        spec["hostNetwork"] = True
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "OnFailure" if (
            role == "worker" and service) else "Never"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": spec}


def make_configmap(pdj, pods):
    """constructConfigMap(); None while a pod has no IPv4 address."""
    spec = pdj["spec"]
    eps = {r: [""] * spec[r]["replicas"] for r in ROLES if spec.get(r)}
    for p in pods:
        ip = (p.get("status") or {}).get("podIP", "")
        if len(ip.split(".")) != 4:
            return None
        role, idx = name_index(p["metadata"]["name"])
        host = p["metadata"]["name"] if spec.get("intranet") == "Service" \
            else ip
        if role in eps and idx < len(eps[role]):
            eps[role][idx] = "%s:%d" % (host, PADDLE_PORT)
    data = {"TRAINER_PORTS_NUM": str(HOST_PORT_NUM),
            "PADDLE_PORT": str(PADDLE_PORT)}
    if spec.get("ps"):
        data["PADDLE_PSERVERS_IP_PORT_LIST"] = ",".join(eps["ps"])
    if spec.get("worker"):
        data["PADDLE_TRAINER_ENDPOINTS"] = ",".join(eps["worker"])
        data["PADDLE_TRAINERS"] = ",".join(e.split(":")[0]
                                           for e in eps["worker"])
        data["PADDLE_TRAINERS_NUM"] = str(spec["worker"]["replicas"])
    if spec.get("heter"):
        data["PADDLE_HETER_ENDPOINTS"] = ",".join(eps["heter"])
    gloo = spec.get("withGloo")
    if gloo and gloo > 0 and eps.get("ps"):
        data["PADDLE_WITH_GLOO"] = str(gloo)
        data["PADDLE_GLOO_RENDEZVOUS"] = "3"
        data["PADDLE_GLOO_HTTP_ENDPOINT"] = eps["ps"][0].replace(
            ":%d" % PADDLE_PORT, ":%d" % (PADDLE_PORT + HOST_PORT_NUM - 2), 1)
    md = pdj["metadata"]
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": md["name"], "namespace": md["namespace"],
                         "labels": {"paddle-res-name": md["name"]},
                         "annotations": {},
                         "ownerReferences": [owner_ref(pdj)]},
            "data": data}
