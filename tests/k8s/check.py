#!/usr/bin/env python3
"""tests/k8s/check.py - `paictl convert --to KIND`, checked, for each
KIND of volcano, paddlejob, jobset, pytorchjob, trainjob and mpijob.

    check.py [--kinds volcano,paddlejob,jobset,pytorchjob,...] FILE|DIR...

For every job config and kind:
  * convert; exit 0 with YAML, or exit 3 with no YAML and an error
    diagnostic on stderr (nothing else is allowed);
  * each object written must pass the CRD's schema in
    shared/reference/kubernetes read as the API server reads a structural
    schema (no unknown fields unless x-kubernetes-preserve-unknown-fields,
    int-or-string, quantities), the ConfigMap the core rules, and the
    Volcano webhook's, PaddleJob's, the JobSet webhook's, the
    PyTorchJob webhook's, Kubeflow Trainer's and the MPI Operator's rules
    (reference/kubernetes.md, README-trainer-mpijob.md, their sources);
  * environment equivalence: for pods of every role, the environment is
    built as the kubelet does (envFrom, then env with $(VAR) against what
    came before, fieldRefs, then the plugins' or the controller's
    variables), the preamble of
    the command run by bash, and the result compared with
    `paictl expand --target KIND` for that task; that in turn is compared
    with plain `paictl expand`, each placeholder standing for the same
    DNS name, pod name or port wherever it appears;
  * the command after the preamble is the config's, byte for byte.

Environment: PAICTL (default build/paictl), PAI_K8S_CRDS (default
../shared/reference/kubernetes). Prints one line per failure and a
summary; exit 1 on any failure, 2 when it cannot run.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PAICTL = os.environ.get("PAICTL", os.path.join(TOP, "build", "paictl"))
CRDS = os.environ.get("PAI_K8S_CRDS",
                      os.path.join(TOP, "..", "shared", "reference",
                                   "kubernetes"))
MARK = "# the job's command, as written:\n"
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUB = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
CM_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
VOLCANO_PLUGINS = {"svc", "env", "ssh", "tensorflow", "pytorch", "mpi",
                   "hcclrank", "ray"}
EVENTS = {"*", "PodFailed", "PodEvicted", "PodPending", "Unknown",
          "TaskCompleted", "TaskFailed", "JobUpdated"}
ACTIONS = {"AbortJob", "RestartJob", "RestartTask", "RestartPod",
           "TerminateJob", "CompleteJob", "ResumeJob"}
UNKNOWN_ON_K8S = ("<default-fs>", "<user>", "<md5:", "<framework-",
                  "<configmap-uid>", "<task-role-uid:", "<task-uid:",
                  "<task-attempt-id:", "<gpus:")

failures = []


def fail(where, what):
    failures.append("%s: %s" % (where, what))  # list.append is atomic


# ---- schemas --------------------------------------------------------------

def structural(s):
    """A CRD schema as the API server applies it: unknown fields pruned
    (here: refused), int-or-string, preserve-unknown-fields."""
    if isinstance(s, list):
        return [structural(x) for x in s]
    if not isinstance(s, dict):
        return s
    s = {k: structural(v) for k, v in s.items()}
    if s.get("x-kubernetes-int-or-string") and "anyOf" not in s:
        s["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        s.pop("type", None)
    if (s.get("type") == "object" and "properties" in s
            and "additionalProperties" not in s
            and not s.get("x-kubernetes-preserve-unknown-fields")):
        s["additionalProperties"] = False
    if s.get("nullable"):
        t = s.get("type")
        if t:
            s["type"] = [t, "null"]
    return s


def load_crd(path):
    with open(path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    spec = crd["spec"]
    out = {}
    for v in spec["versions"]:
        key = (spec["group"] + "/" + v["name"], spec["names"]["kind"])
        out[key] = jsonschema.Draft7Validator(
            structural(v["schema"]["openAPIV3Schema"]))
    return out


def schemas():
    """(apiVersion, kind) -> the validators of every copy of its CRD:
    PaddleJob has PaddleCloud's and the standalone operator's."""
    out = {}
    for name in ("batch.volcano.sh_jobs.yaml",
                 "batch.paddlepaddle.org_paddlejobs.yaml",
                 "jobset.x-k8s.io_jobsets.yaml",
                 "kubeflow.org_pytorchjobs.yaml",
                 "trainer.kubeflow.org_trainjobs.yaml",
                 "kubeflow.org_mpijobs.yaml",
                 "alternatives/"
                 "batch.paddlepaddle.org_paddlejobs.paddle-operator-v0.3.5.yaml"):
        path = os.path.join(CRDS, name)
        if os.path.exists(path):
            for k, v in load_crd(path).items():
                out.setdefault(k, []).append(v)
    return out


def self_test(crds):
    """The checker on Volcano's own examples: the valid ones pass, the
    ones its webhook denies (invalid_jobs__*) fail."""
    global failures
    d = os.path.join(CRDS, "examples", "volcano")
    if not os.path.isdir(d):
        return 0
    names = sorted(os.listdir(d))
    for name in names:
        saved, failures = failures, []
        with open(os.path.join(d, name), encoding="utf-8") as f:
            validate(name, [x for x in yaml.safe_load_all(f) if x], crds)
        found, failures = failures, saved
        if name.startswith("invalid_jobs__") and not found:
            fail(name, "Volcano denies this job; the checker passed it")
        elif not name.startswith("invalid_jobs__") and found:
            fail(name, "a valid Volcano example failed: %s" % found[0])
    return len(names)


def check_meta(where, m, label_rule):
    name = m.get("name", "")
    if not label_rule.match(name) or len(name) > 63:
        fail(where, "metadata.name %r is not a valid name" % name)
    for k, v in (m.get("annotations") or {}).items():
        if not isinstance(v, str):
            fail(where, "annotation %s is not a string" % k)
    ns = m.get("namespace")
    if ns is not None and not DNS1123_LABEL.match(ns):
        fail(where, "namespace %r" % ns)


def check_config_map(where, d):
    if set(d) - {"apiVersion", "kind", "metadata", "data"}:
        fail(where, "ConfigMap has unknown fields %s" % sorted(d))
    name = d["metadata"]["name"]
    if not DNS1123_SUB.match(name) or len(name) > 253:
        fail(where, "ConfigMap name %r" % name)
    size = 0
    for k, v in d.get("data", {}).items():
        size += len(k) + len(v.encode())
        if not CM_KEY.match(k) or not isinstance(v, str):
            fail(where, "ConfigMap key %r or its value" % k)
    if size > 1024 * 1024:
        fail(where, "ConfigMap over 1 MiB")


def check_policies(where, pols):
    events = [p.get("event") for p in pols or [] if p.get("event")]
    for p in pols or []:
        events += p.get("events") or []
        ev = [k for k in ("event", "events", "exitCode") if k in p]
        if len(ev) != 1:
            fail(where, "policy %r: one of event, events, exitCode" % p)
        if p.get("event") and p["event"] not in EVENTS:
            fail(where, "unknown event %r" % p["event"])
        if p.get("action") not in ACTIONS:
            fail(where, "unknown action %r" % p.get("action"))
    if len(set(events)) != len(events):
        fail(where, "an event in two policies: %s" % events)


def check_volcano(where, d):
    check_meta(where, d["metadata"], DNS1035_LABEL)
    spec, job = d["spec"], d["metadata"]["name"]
    tasks = spec.get("tasks") or []
    if not tasks:
        fail(where, "no tasks")
    names = [t["name"] for t in tasks]
    if len(set(names)) != len(names):
        fail(where, "duplicate task names %s" % names)
    total = sum(t.get("replicas", 0) for t in tasks)
    if spec.get("minAvailable", 0) > total:
        fail(where, "minAvailable %s above %d replicas"
             % (spec["minAvailable"], total))
    if spec.get("maxRetry", 3) < 1:
        fail(where, "maxRetry below 1 becomes 3")
    for p in spec.get("plugins", {}):
        if p not in VOLCANO_PLUGINS:
            fail(where, "unknown plugin %s" % p)
    check_policies(where, spec.get("policies"))
    for t in tasks:
        if not DNS1123_LABEL.match(t["name"]) or len(t["name"]) > 63:
            fail(where, "task name %r" % t["name"])
        pod = "%s-%s-%d" % (job, t["name"], t["replicas"] - 1)
        if len(pod) > 63 or not DNS1123_LABEL.match(pod):
            fail(where, "pod name %r" % pod)
        if t.get("minAvailable", 0) > t["replicas"]:
            fail(where, "task minAvailable above replicas")
        check_policies(where, t.get("policies"))


def check_paddle(where, d):
    check_meta(where, d["metadata"], DNS1035_LABEL)
    spec, name = d["spec"], d["metadata"]["name"]
    if "ps" in spec and "worker" not in spec:
        fail(where, "ps without worker")
    for typ in ("ps", "worker", "heter"):
        if typ in spec:
            pod = "%s-%s-%d" % (name, typ, spec[typ]["replicas"] - 1)
            if len(pod) > 63 or not DNS1035_LABEL.match(pod):
                fail(where, "service name %r" % pod)
            t = spec[typ]["template"]["spec"]
            if t.get("restartPolicy") != "Never":
                fail(where, "%s restartPolicy is not Never" % typ)


def check_jobset(where, d):
    """The JobSet webhook's ValidateCreate (jobset v0.8.2) and the Job's
    own rules for what paictl writes."""
    check_meta(where, d["metadata"], DNS1035_LABEL)
    spec, name = d["spec"], d["metadata"]["name"]
    rjobs = spec.get("replicatedJobs") or []
    names = [r["name"] for r in rjobs]
    if not rjobs or len(set(names)) != len(names):
        fail(where, "replicated jobs %s" % names)
    for t in (spec.get("successPolicy") or {}).get(
            "targetReplicatedJobs") or []:
        if t not in names:
            fail(where, "success policy target %r" % t)
    if not (spec.get("network") or {}).get("enableDNSHostnames"):
        fail(where, "no stable DNS names (network.enableDNSHostnames)")
    for r in rjobs:
        js = r["template"]["spec"]
        job = "%s-%s-%d" % (name, r["name"], r.get("replicas", 1) - 1)
        if len(job) > 63 or not DNS1035_LABEL.match(job):
            fail(where, "job name %r" % job)
        if js.get("completionMode") != "Indexed" or \
                js.get("parallelism") != js.get("completions"):
            fail(where, "%s: not an Indexed Job of all its pods" % job)
        pod = "%s-%d-abcde" % (job, js.get("completions", 1) - 1)
        if len(pod) > 63 or not DNS1035_LABEL.match(pod):
            fail(where, "pod name %r" % pod)
        if js["template"]["spec"].get("restartPolicy") not in (
                "Never", "OnFailure"):
            fail(where, "%s: a Job's pods restart Never or OnFailure" % job)


def check_pytorch(where, d):
    """The PyTorchJob webhook's validatePyTorchJob (training-operator
    v1.9.0)."""
    check_meta(where, d["metadata"], DNS1035_LABEL)
    spec, name = d["spec"], d["metadata"]["name"]
    reps = spec.get("pytorchReplicaSpecs") or {}
    if set(reps) - {"Master", "Worker"} or not reps:
        fail(where, "replica types %s" % sorted(reps))
    for rt, r in reps.items():
        cs = r["template"]["spec"]["containers"]
        if "pytorch" not in [c["name"] for c in cs] or not all(
                c.get("image") for c in cs):
            fail(where, "%s: a container named pytorch, images" % rt)
        if rt == "Master" and r.get("replicas") != 1:
            fail(where, "Master replicas must be 1")
        # the operator's Service per pod takes the pytorch container's
        # ports by name: a Service of several ports names each, once
        names = [p.get("name") for c in cs if c["name"] == "pytorch"
                 for p in c.get("ports") or []]
        if len(names) > 0 and (None in names or
                               len(set(names)) != len(names) or
                               not all(len(n) <= 15 for n in names)):
            fail(where, "%s: unnamed or repeated port names %s"
                 % (rt, names))
        svc = "%s-%s-%d" % (name, rt.lower(), r.get("replicas", 1) - 1)
        if len(svc) > 63 or not DNS1035_LABEL.match(svc):
            fail(where, "service name %r" % svc)


TORCH_ENV = {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
             "PET_MASTER_ADDR", "PET_MASTER_PORT"}


def check_trainjob(where, d):
    """Kubeflow Trainer v2.3.0's TrainJob validation (its webhook and the
    CEL rules the 1.20 CRD lost): a DNS-1035 name of at most 63, a
    runtime, at least one node, no trainer env of the torch plugin's
    names; and the names its JobSet's pods get."""
    md, spec = d["metadata"], d["spec"]
    check_meta(where, md, DNS1035_LABEL)
    if not (spec.get("runtimeRef") or {}).get("name"):
        fail(where, "no runtimeRef.name")
    tr = spec.get("trainer") or {}
    if tr.get("numNodes", 1) < 1:
        fail(where, "numNodes %r" % tr.get("numNodes"))
    bad = sorted({e["name"] for e in tr.get("env") or []} & TORCH_ENV)
    if bad:
        fail(where, "trainer env the torch plugin sets: %s" % bad)
    pod = "%s-node-0-%d-abcde" % (md["name"], tr.get("numNodes", 1) - 1)
    if len(pod) > 63 or not DNS1035_LABEL.match(pod):
        fail(where, "pod name %r" % pod)


def check_mpijob(where, d):
    """The MPI Operator v0.8.0's ValidateMPIJob (pkg/apis/kubeflow/
    validation): a DNS-1035 name, a Launcher of one replica and a Worker,
    each with an image, slotsPerWorker at least 1, the cleanPodPolicy and
    restart policies it knows; and the names of its pods."""
    md, spec = d["metadata"], d["spec"]
    check_meta(where, md, DNS1035_LABEL)
    reps = spec.get("mpiReplicaSpecs") or {}
    if set(reps) - {"Launcher", "Worker"} or "Launcher" not in reps:
        fail(where, "replica types %s" % sorted(reps))
    if (reps.get("Launcher") or {}).get("replicas", 1) != 1:
        fail(where, "Launcher replicas must be 1")
    if spec.get("slotsPerWorker", 1) < 1:
        fail(where, "slotsPerWorker %r" % spec.get("slotsPerWorker"))
    if (spec.get("runPolicy") or {}).get("cleanPodPolicy", "None") not in (
            "None", "Running", "All"):
        fail(where, "cleanPodPolicy")
    for rt, r in reps.items():
        cs = r["template"]["spec"]["containers"]
        if not cs or not all(c.get("image") for c in cs):
            fail(where, "%s: containers with images" % rt)
        if r.get("restartPolicy", "Never") not in ("Never", "OnFailure",
                                                   "Always", "ExitCode"):
            fail(where, "%s restartPolicy" % rt)
    n = (reps.get("Worker") or {}).get("replicas", 0)
    for pod in ("%s-launcher-abcde" % md["name"],
                "%s-worker-%d" % (md["name"], max(n - 1, 0))):
        if len(pod) > 63 or not DNS1035_LABEL.match(pod):
            fail(where, "pod name %r" % pod)


# the webhooks' rules by kind; and, where the CRDs are not there to say
# which versions are served, the version convert must write
WEBHOOKS = {"Job": check_volcano, "PaddleJob": check_paddle,
            "JobSet": check_jobset, "PyTorchJob": check_pytorch,
            "TrainJob": check_trainjob, "MPIJob": check_mpijob}
VERSIONS = {("batch.volcano.sh/v1alpha1", "Job"),
            ("batch.paddlepaddle.org/v1", "PaddleJob"),
            ("jobset.x-k8s.io/v1alpha2", "JobSet"),
            ("kubeflow.org/v1", "PyTorchJob"),
            ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
            ("kubeflow.org/v2beta1", "MPIJob")}


def validate(where, docs, crds):
    """Each object against its CRD's schemas (crds None: none to check
    against) and its webhook's rules."""
    for d in docs:
        key = (d.get("apiVersion"), d.get("kind"))
        if key == ("v1", "ConfigMap"):
            check_config_map(where, d)
            continue
        if key not in (VERSIONS if crds is None else crds):
            fail(where, "no CRD for %s" % (key,))
            continue
        for v in (crds or {}).get(key, []):
            for e in v.iter_errors(d):
                fail(where, "schema: %s at %s" % (
                    e.message[:200], "/".join(map(str, e.path))))
        WEBHOOKS[key[1]](where, d)


# ---- the pods ----------------------------------------------------------------

def kubelet(s, env):
    """$(NAME) replaced when NAME is defined, $$ -> $, other $ kept."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "$" and i + 1 < len(s):
            if s[i + 1] == "$":
                out.append("$")
                i += 2
                continue
            if s[i + 1] == "(":
                j = s.find(")", i + 2)
                if j > 0 and s[i + 2:j] in env:
                    out.append(env[s[i + 2:j]])
                    i = j + 1
                    continue
        out.append(s[i])
        i += 1
    return "".join(out)


JOBSET_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
PYTORCH_INDEX = "metadata.labels['training.kubeflow.org/replica-index']"


def volcano_pods(job):
    """(task, count, template, pod and DNS name of i, the fields of pod
    i, the plugins' variables of pod i: those appended to its env, those
    under it)."""
    name = job["metadata"]["name"]
    tasks = [(t["name"], t["replicas"], t["template"])
             for t in job["spec"]["tasks"]]
    hosts = {}
    for t, n, _ in tasks:
        k = t.replace("-", "_").upper()
        hosts["VC_%s_HOSTS" % k] = ",".join(
            "%s-%s-%d.%s" % (name, t, i, name) for i in range(n))
        hosts["VC_%s_NUM" % k] = str(n)
    for t, n, tmpl in tasks:
        def pod(i, t=t):
            p = "%s-%s-%d" % (name, t, i)
            return p, "%s.%s" % (p, name), {
                "metadata.labels['volcano.sh/task-index']": str(i)}, dict(
                    hosts, VC_TASK_INDEX=str(i), VK_TASK_INDEX=str(i)), {}
        yield t, n, tmpl, pod


def paddle_configmap(job):
    """The operator's ConfigMap (constructConfigMap) with intranet
    Service: each type's endpoints at PADDLE_PORT, PaddleCloud's 2379."""
    name, spec = job["metadata"]["name"], job["spec"]

    def hosts(t, tail):
        return ",".join("%s-%s-%d%s" % (name, t, i, tail)
                        for i in range(spec[t]["replicas"]))
    data = {"TRAINER_PORTS_NUM": "20", "PADDLE_PORT": "2379"}
    if "ps" in spec:
        data["PADDLE_PSERVERS_IP_PORT_LIST"] = hosts("ps", ":2379")
    if "worker" in spec:
        data["PADDLE_TRAINER_ENDPOINTS"] = hosts("worker", ":2379")
        data["PADDLE_TRAINERS"] = hosts("worker", "")
        data["PADDLE_TRAINERS_NUM"] = str(spec["worker"]["replicas"])
    if "heter" in spec:
        data["PADDLE_HETER_ENDPOINTS"] = hosts("heter", ":2379")
    return data


def paddle_pods(job):
    name = job["metadata"]["name"]
    for t in ("ps", "worker", "heter"):
        if t not in job["spec"]:
            continue

        def pod(i, t=t):
            p = "%s-%s-%d" % (name, t, i)
            role = {"ps": "PSERVER", "worker": "TRAINER", "heter": "HETER"}[t]
            return p, p, {}, {
                "POD_IP": p, "PADDLE_TRAINER_ID": str(i),
                "TRAINING_ROLE": role, "PADDLE_TRAINING_ROLE": role}, \
                paddle_configmap(job)
        yield t, job["spec"][t]["replicas"], \
            job["spec"][t]["template"], pod


def jobset_pods(job):
    """The Job controller's pods of each replicated Job (replicas 1): a
    generated name, the hostname <job>-<index> under the JobSet's
    subdomain, the completion index annotation and JOB_COMPLETION_INDEX
    unless the container has it (k8s pkg/controller/job
    indexed_job_utils.go)."""
    name = job["metadata"]["name"]
    for r in job["spec"]["replicatedJobs"]:
        js = r["template"]["spec"]

        def pod(i, t=r["name"]):
            host = "%s-%s-0-%d" % (name, t, i)
            return host + "-x7k2q", "%s.%s" % (host, name), \
                {JOBSET_INDEX: str(i)}, {}, {"JOB_COMPLETION_INDEX": str(i)}
        yield r["name"], js["completions"], js["template"], pod


def pytorch_pods(job):
    """The training operator's pods (pytorch/envvar.go setPodEnv): what it
    appends to the env of each container."""
    name = job["metadata"]["name"]
    reps = job["spec"]["pytorchReplicaSpecs"]
    total = sum(r["replicas"] for r in reps.values())
    for rt in ("Master", "Worker"):
        if rt not in reps:
            continue

        def pod(i, t=rt.lower()):
            p = "%s-%s-%d" % (name, t, i)
            rank = str(i + 1 if t == "worker" else i)
            master = "%s-master-0" % name
            return p, p, {PYTORCH_INDEX: str(i)}, {
                "PYTHONUNBUFFERED": "1", "MASTER_PORT": "23456",
                "PET_MASTER_PORT": "23456", "MASTER_ADDR": master,
                "PET_MASTER_ADDR": master, "WORLD_SIZE": str(total),
                "RANK": rank, "PET_NODE_RANK": rank,
                "PET_NPROC_PER_NODE": "auto", "PET_NNODES": str(total)}, {}
        yield rt.lower(), reps[rt]["replicas"], reps[rt]["template"], pod


def trainjob_pods(job):
    """The pods of the JobSet a TrainJob becomes on torch-distributed
    (Trainer v2.3.0's torch plugin, then the Job controller's index): the
    trainer's env, then PET_*; its pods named as a JobSet's Job's."""
    name, tr = job["metadata"]["name"], job["spec"]["trainer"]
    n = tr.get("numNodes", 1)
    res = tr.get("resourcesPerNode") or {}
    lim = dict(res.get("requests") or {}, **(res.get("limits") or {}))
    nproc = "auto" if any("gpu" in k for k in lim) else \
        str(max(1, int(lim.get("cpu", "0"))))
    # what the status reads of the role rides on the TrainJob itself
    tmpl = {"metadata": job["metadata"],
            "spec": {"containers": [{"env": tr.get("env") or [],
                                     "args": tr["args"]}]}}

    def pod(i):
        host = "%s-node-0-%d" % (name, i)
        return host + "-x7k2q", "%s.%s" % (host, name), \
            {JOBSET_INDEX: str(i)}, {
                "PET_NNODES": str(n), "PET_NPROC_PER_NODE": nproc,
                "PET_NODE_RANK": str(i),
                "PET_MASTER_ADDR": "%s-node-0-0.%s" % (name, name),
                "PET_MASTER_PORT": "29500"}, {"JOB_COMPLETION_INDEX": str(i)}
    yield "node", n, tmpl, pod


def mpijob_pods(job):
    """The MPI Operator's pods (newWorker, newLauncherPodTemplate): the
    workers by index, the launcher its Job's one pod, without an index;
    what it appends to the first container's env."""
    name, spec = job["metadata"]["name"], job["spec"]
    reps = spec["mpiReplicaSpecs"]
    for rt in ("Launcher", "Worker"):
        if rt not in reps:
            continue

        def pod(i, t=rt.lower()):
            if t == "launcher":
                host = "%s-launcher" % name
                return host + "-x7k2q", "%s.%s" % (host, name), {}, {
                    "K_MPI_JOB_ROLE": "launcher",
                    "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
                    "OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
                    "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10",
                    "OMPI_MCA_orte_set_default_slots":
                        str(spec.get("slotsPerWorker", 1)),
                    "NVIDIA_VISIBLE_DEVICES": "",
                    "NVIDIA_DRIVER_CAPABILITIES": ""}, {}
            p = "%s-worker-%d" % (name, i)
            return p, "%s.%s" % (p, name), {PYTORCH_INDEX: str(i)}, {
                "K_MPI_JOB_ROLE": "worker"}, {}
        yield rt.lower(), reps[rt]["replicas"], reps[rt]["template"], pod


def pods(docs):
    """(role, task or type, index, pod name, dns name, template spec,
    the fields the downward API gives, the plugins' or the controller's
    variables appended to the env and those under it, the ConfigMaps) of
    every pod worth checking: the first two and the last of each role."""
    cm = {}
    for d in docs:
        if d["kind"] == "ConfigMap":
            cm[d["metadata"]["name"]] = d["data"]
    job = [d for d in docs if d["kind"] != "ConfigMap"][0]
    each = {"Job": volcano_pods, "PaddleJob": paddle_pods,
            "JobSet": jobset_pods, "PyTorchJob": pytorch_pods,
            "TrainJob": trainjob_pods, "MPIJob": mpijob_pods}[job["kind"]]
    for t, n, tmpl, pod in each(job):
        role = tmpl["metadata"]["annotations"]["paictl/task-role"]
        for i in sorted({0, min(1, n - 1), n - 1}):
            name, dns, fields, plug, under = pod(i)
            yield role, t, i, name, dns, tmpl, fields, plug, under, cm


class MissingConfig(Exception):
    """A ConfigMap or key a container's environment needs is absent: the
    kubelet's CreateContainerConfigError."""


def env_from(src, configmaps):
    """The variables of one envFrom entry (configMapRef only)."""
    ref = src.get("configMapRef")
    if ref is None:
        raise MissingConfig("envFrom: only configMapRef is supported")
    data = configmaps.get(ref["name"])
    if data is None:
        if ref.get("optional"):
            return {}
        raise MissingConfig('configmap "%s" not found' % ref["name"])
    return {src.get("prefix", "") + k: v for k, v in data.items()}


def container_env(c, configmaps, field):
    """A container's environment as the kubelet builds it: envFrom in
    order, then env in order, a value's $(NAME) seeing only what came
    before; valueFrom: field(fieldPath) for a fieldRef, configMapKeyRef
    from configmaps (name -> data). Also used by tests/kube/standin.py."""
    env = {}
    for src in c.get("envFrom", []):
        env.update(env_from(src, configmaps))
    for e in c.get("env", []):
        vf = e.get("valueFrom")
        if vf is None:
            env[e["name"]] = kubelet(e.get("value", ""), env)
        elif "fieldRef" in vf:
            env[e["name"]] = field(vf["fieldRef"]["fieldPath"])
        elif "configMapKeyRef" in vf:
            ref = vf["configMapKeyRef"]
            data = configmaps.get(ref["name"])
            if data is not None and ref["key"] in data:
                env[e["name"]] = data[ref["key"]]
            elif not ref.get("optional"):
                raise MissingConfig(
                    'couldn\'t find key %s in ConfigMap %s' % (
                        ref["key"], ref["name"]) if data is not None else
                    'configmap "%s" not found' % ref["name"])
        else:
            raise MissingConfig("env %s: unsupported valueFrom" % e["name"])
    return env


def pod_env(tmpl, pod, dns, fields, plug, under, cm):
    fields = dict(fields, **{"metadata.name": pod, "status.podIP": dns})

    def field(path):
        # a label or annotation the pod has not is "" to the kubelet
        if path.startswith(("metadata.labels[", "metadata.annotations[")):
            return fields.get(path, "")
        return fields[path]
    env = dict(under)
    env.update(container_env(tmpl["spec"]["containers"][0], cm, field))
    env.update(plug)
    return env


def same_value(got, want):
    """want as expand --target shows it: '?'s stand for the letters a
    controller adds to a pod's name."""
    if got is None or "?" not in want:
        return got == want
    return re.fullmatch(re.escape(want).replace(r"\?", "[a-z0-9]"),
                        got) is not None


def run_preamble(script, env):
    """The environment after the preamble, as bash leaves it."""
    pre = script[:script.index(MARK)]
    with tempfile.TemporaryDirectory() as wd:
        full = dict(env, PATH=os.environ.get("PATH", "/usr/bin:/bin"))
        out = subprocess.run(["bash", "-c", pre + "env -0"], env=full,
                             cwd=wd, capture_output=True, check=True).stdout
        got = dict(x.split("=", 1) for x in out.decode().split("\0") if x)
        return got, os.path.realpath(wd)


def placeholder_regex(v):
    parts = re.split(r"(<[a-z-]+(?::[^<>]*)?>)", v)
    rx, names = "", []
    for p in parts:
        if re.fullmatch(r"<[a-z-]+(?::[^<>]*)?>", p):
            rx += "(.+?)"
            names.append(p)
        else:
            rx += re.escape(p)
    return re.compile("^" + rx + "$"), names


def compare_plain(where, target, plain, binding):
    for k, pv in plain.items():
        if k not in target:
            if k.startswith("PAI_") and not any(
                    m in pv for m in UNKNOWN_ON_K8S):
                fail(where, "%s=%r is missing on Kubernetes" % (k, pv))
            continue
        rx, names = placeholder_regex(pv)
        m = rx.match(target[k])
        if not m:
            fail(where, "%s: %r is not %r" % (k, target[k], pv))
            continue
        for ph, val in zip(names, m.groups()):
            if ph.startswith("<work-dir:"):
                continue
            if binding.setdefault(ph, val) != val:
                fail(where, "%s stands for %r and %r" %
                     (ph, binding[ph], val))


def expand(paictl_args, path):
    p = subprocess.run([PAICTL, "-o", "json", "expand"] + paictl_args +
                       [path], capture_output=True)
    if p.returncode:
        return None
    return {(t["role"], t["index"]): t for t in json.loads(p.stdout)["tasks"]}


def check_own(at, task, got, *set_by):
    """expand --target's controllerEnv: what the pod's controller sets,
    each as the pod has it, and all of it (set_by: lists of names)."""
    own = task.get("controllerEnv")
    if own is None:
        fail(at, "expand --target shows no controllerEnv")
        return
    for k, v in own.items():
        if got.get(k) != v:
            fail(at, "%s is %r in the pod, %r in expand's controllerEnv"
                 % (k, got.get(k), v))
        if k in task["env"]:
            fail(at, "%s both in env and in controllerEnv" % k)
    missing = sorted({k for names in set_by for k in names} - set(own))
    if missing:
        fail(at, "set by the controller, not in controllerEnv: %s"
             % missing[:5])


def check_pods(where, path, kind, docs, source_cmds, args):
    target = expand(args + ["--target", kind], path)
    plain = expand(args, path)
    if target is None or plain is None:
        fail(where, "expand failed")
        return 0
    binding, n = {}, 0
    for role, task, i, pod, dns, tmpl, fields, plug, under, cm in \
            pods(docs):
        at = "%s %s-%d" % (where, role, i)
        binding["<ip:%s-%d>" % (role, i)] = dns
        binding["<container-id:%s-%d>" % (role, i)] = \
            target[(role, i)]["env"].get("PAI_CONTAINER_ID", pod)
        env = pod_env(tmpl, pod, dns, fields, plug, under, cm)
        script = kubelet(tmpl["spec"]["containers"][0]["args"][0], env)
        got, wd = run_preamble(script, env)
        want = target[(role, i)]["env"]
        for k, v in want.items():
            if v.startswith("<work-dir:"):
                v = wd
            if not same_value(got.get(k), v):
                fail(at, "%s is %r in the pod, %r in expand --target"
                     % (k, got.get(k), v))
        extra = [k for k in got if k.startswith("PAI_") and k not in want]
        if extra:
            fail(at, "variables only in the pod: %s" % extra[:5])
        check_own(at, target[(role, i)], got, plug,
                  [k for k in under if k not in want])
        cmd = script[script.index(MARK) + len(MARK):]
        if role in source_cmds and source_cmds[role] != cmd:
            fail(at, "the command is not the config's byte for byte")
        compare_plain(at, want, plain[(role, i)]["env"], binding)
        n += 1
    return n


# ---- the configs' own commands ----------------------------------------------

def strip_comments(text):
    """JSON with // and /* */ comments, as paictl reads it, without them."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_commands(path):
    """role -> command as written, where the config says it plainly."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        if path.endswith((".yaml", ".yml")):
            d = yaml.safe_load(text)
            if d.get("deployments") or "<%" in text:
                return {}
            roles = d.get("taskRoles") or {}
            return {k: "\n".join(v.get("commands", []))
                    for k, v in roles.items() if isinstance(v, dict)}
        d = json.loads(strip_comments(text))
        return {r["name"]: r["command"] for r in d.get("taskRoles", [])
                if isinstance(r.get("command"), str)}
    except (ValueError, AttributeError, TypeError, KeyError,
            yaml.YAMLError):
        return {}


def dialect_args(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return ["--dialect", "scm"] if '"tmp"' in text or "storageGB" in text \
        else []


def main(argv):
    kinds = ["volcano", "paddlejob", "jobset", "pytorchjob", "trainjob",
             "mpijob"]
    if len(argv) > 2 and argv[1] == "--kinds":
        kinds = argv[2].split(",")
        argv = argv[2:]
    crds, judged = None, 0
    if not os.path.isdir(CRDS):
        print("k8s: skipped: the convert --to %s checks against the CRDs' "
              "schemas, and the checker's on Volcano's examples (%s is not "
              "there: ../shared is absent, as beside a plain clone)"
              % ("/".join(kinds), CRDS))
    else:
        crds = schemas()
        judged = self_test(crds)
    stats = {"converted": 0, "refused": 0, "pods": 0}
    lock = threading.Lock()

    def count(key, n=1):
        with lock:
            stats[key] += n

    def one(path, kind):
        where = "%s --to %s" % (os.path.basename(path), kind)
        args = dialect_args(path)
        p = subprocess.run([PAICTL, "convert", "--to", kind] + args +
                           [path], capture_output=True)
        if p.returncode == 3:
            count("refused")
            if p.stdout or b": error: " not in p.stderr:
                fail(where, "exit 3 without an error, or with output")
            return
        if p.returncode:
            fail(where, "exit %d: %s" % (p.returncode,
                                         p.stderr.decode()[-300:]))
            return
        count("converted")
        docs = list(yaml.safe_load_all(p.stdout))
        validate(where, docs, crds)
        count("pods", check_pods(where, path, kind, docs,
                                 source_commands(path), args))

    paths = []
    for a in argv[1:]:
        if os.path.isdir(a):
            paths += sorted(os.path.join(a, f) for f in os.listdir(a)
                            if f.endswith((".json", ".yaml", ".yml")))
        elif os.path.exists(a):
            paths.append(a)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for f in [ex.submit(one, path, kind) for path in paths
                  for kind in kinds]:
            f.result()
    for f in failures[:50]:
        print("FAIL " + f)
    print("k8s: %d converted, %d refused, %d pods compared, %d of Volcano's "
          "examples judged as Volcano does, %d failures"
          % (stats["converted"], stats["refused"], stats["pods"], judged,
             len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
