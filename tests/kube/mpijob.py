"""tests/kube/mpijob.py - the MPI Operator v0.8.0's MPIJob controller
(pkg/controller/mpi_job_controller.go, the v2beta1 defaults of
pkg/apis/kubeflow/v2beta1/default.go applied when a job is read), stood
in. The launcher's Job is run by batchjob.py (NonIndexed), as on a
cluster.

Faithful: the defaults (slotsPerWorker 1, cleanPodPolicy None, the
Launcher's restartPolicy OnFailure, the Worker's Never, OpenMPI,
sshAuthMountPath /root/.ssh); the condition Created (MPIJobCreated) at
once; every object labelled app=<job> and owned by the MPIJob
(controller): the headless Service <job> (selector operator-name
mpi-operator and job-name), the ConfigMap <job>-config (hostfile: a line
per worker "<job>-worker-<i>.<job>.<ns>.svc slots=<slots>";
discover_hosts.sh: the Running workers), the Secret <job>-ssh
(kubernetes.io/ssh-auth: an ECDSA P-521 key, PEM, and its public key);
worker pods <job>-worker-<i> (plain pods: labels operator-name, job-name,
job-role=worker, replica-index; hostname the pod's name, subdomain
<job>; command /usr/sbin/sshd -De when none; K_MPI_JOB_ROLE=worker
appended to the first container's env; the ssh-auth volume); the
launcher, a batch/v1 Job <job>-launcher made with the workers (its pod's
hostname <job>-launcher, subdomain <job>, labels job-role=launcher and
no replica index; K_MPI_JOB_ROLE=launcher, OMPI_MCA_orte_keep_fqdn_
hostnames, OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile,
OMPI_MCA_plm_rsh_args, OMPI_MCA_orte_set_default_slots and empty
NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES appended; the
volumes ssh-auth and mpi-job-config at /etc/mpi; backoffLimit from
runPolicy); replicaStatuses Launcher and Worker (active, succeeded,
failed; zeros omitted); Running (MPIJobRunning) once the launcher and
every worker run; Succeeded (MPIJobSucceeded, Running False) when the
launcher's Job completes, Failed with its reason and message when it
fails: the workers' exits decide nothing; startTime, completionTime;
after the end cleanPodPolicy (Running, All: the workers deleted; None:
left); runPolicy.suspend (workers deleted, the launcher Job suspended,
Suspended True and Running False, MPIJobSuspended) and its resume
(Suspended False, MPIJobResumed, startTime again).

Where 1.20 differs: the launcher Job's suspend (1.21) is dropped by the
API server; as jobset.py does, it is written also in batchjob.py's
annotation ANN_SUSPEND (and the completion mode in ANN_MODE).

Absent: Intel MPI and MPICH, launcherCreationPolicy WaitForWorkersReady,
runLauncherAsWorker, gang scheduling (PodGroups), MPIJobEvicted, the
volumes themselves (the kubelet stand-in mounts none: /etc/mpi and
/root/.ssh are not in the pods, their variables are), the
ttlSecondsAfterFinished and activeDeadlineSeconds of the launcher Job.
"""
import copy
import os
import subprocess
import tempfile

import batchjob
import kapi
import reconciler
from kapi import now_rfc3339
# what the training operator's common code and the MPI Operator share
from pytorch import cond_true, owned  # noqa: F401

MPJ = ("kubeflow.org/v2beta1", "MPIJob")
L = "training.kubeflow.org/"
OPERATOR = "mpi-operator"
ROLE, INDEX = L + "job-role", L + "replica-index"


def owner_ref(job):
    md = job["metadata"]
    return {"apiVersion": MPJ[0], "kind": MPJ[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def defaulted(job):
    """SetDefaults_MPIJob()."""
    job = copy.deepcopy(job)
    spec = job["spec"]
    spec.setdefault("slotsPerWorker", 1)
    spec.setdefault("runPolicy", {}).setdefault("cleanPodPolicy", "None")
    spec.setdefault("sshAuthMountPath", "/root/.ssh")
    spec.setdefault("mpiImplementation", "OpenMPI")
    spec.setdefault("launcherCreationPolicy", "AtStartup")
    for rtype, policy in (("Launcher", "OnFailure"), ("Worker", "Never")):
        r = spec["mpiReplicaSpecs"].get(rtype)
        if r is not None:
            r.setdefault("replicas", 1)
            r.setdefault("restartPolicy", policy)
    return job


def set_condition(st, ctype, status, reason, msg):
    """updateMPIJobConditions(): a condition replaced, its transition
    time kept while its status is."""
    conds = st.get("conditions") or []
    cur = [c for c in conds if c["type"] == ctype]
    if cur and cur[0]["status"] == status and cur[0]["reason"] == reason:
        return
    now = now_rfc3339()
    new = {"type": ctype, "status": status, "reason": reason,
           "message": msg, "lastUpdateTime": now, "lastTransitionTime":
           cur[0]["lastTransitionTime"] if cur and cur[0]["status"] ==
           status else now}
    st["conditions"] = [c for c in conds if c["type"] != ctype] + [new]


def ssh_keys():
    """An ECDSA P-521 key in PEM and its public key, as the operator's
    newSSHAuthSecret makes them."""
    d = tempfile.mkdtemp(prefix="mpi-ssh-")
    try:
        key = os.path.join(d, "k")
        subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521",
                        "-m", "PEM", "-N", "", "-C", "", "-f", key],
                       check=True, stdin=subprocess.DEVNULL)
        with open(key) as f, open(key + ".pub") as g:
            return f.read(), g.read().strip()
    finally:
        for n in os.listdir(d):
            os.unlink(os.path.join(d, n))
        os.rmdir(d)


def phase(pod):
    return (pod.get("status") or {}).get("phase")


class MPIJobController(reconciler.Reconciler):
    name = "mpijob"

    def __init__(self, client, mpijobs, pods, jobs, stop):
        super().__init__(client, stop)
        self.mpijobs, self.pods, self.jobs = mpijobs, pods, jobs

    def on_owned(self, kind, old, new):
        self.mark_owner(new or old, MPJ)

    def on_pod(self, kind, old, new):
        """A worker is the MPIJob's; the launcher's pod is its Job's."""
        pod = new or old
        labels = pod["metadata"].get("labels") or {}
        if labels.get(L + "operator-name") == OPERATOR:
            self.mark(pod["metadata"]["namespace"],
                      labels.get(L + "job-name", ""))

    def event(self, job, etype, reason, msg):
        self.client.event(job, etype, reason, msg, OPERATOR)

    def reconcile(self, ns, name):
        job = self.client.maybe_get(kapi.path_of(*MPJ, ns, name))
        if job is None or job["metadata"].get("deletionTimestamp"):
            return None
        old = job.get("status") or {}
        job = defaulted(job)
        st = copy.deepcopy(old)
        if not st.get("conditions"):
            set_condition(st, "Created", "True", "MPIJobCreated",
                          "MPIJob %s/%s is created." % (ns, name))
        workers = self.workers(job)
        launcher = self.client.maybe_get(kapi.path_of(
            *batchjob.JOB, ns, name + "-launcher"))
        if cond_true(st, "Succeeded") or cond_true(st, "Failed"):
            self.clean(job, workers)
        else:
            st.setdefault("startTime", now_rfc3339())
            self.service(job)
            self.config(job, workers)
            self.secret(job)
            suspend = bool(job["spec"]["runPolicy"].get("suspend"))
            if suspend:
                for p in workers:
                    self.delete_pod(p)
                workers = []
            else:
                workers = self.make_workers(job, workers)
            if launcher is None:
                launcher = self.make_launcher(job)
            self.suspend_launcher(launcher, suspend)
            self.update_status(job, st, launcher, workers, suspend)
        if st != old:
            self.write(job, st)
        return None

    def workers(self, job):
        ns, name = job["metadata"]["namespace"], job["metadata"]["name"]
        return [p for p in self.pods.items()
                if p["metadata"]["namespace"] == ns and owned(p, job) and
                (p["metadata"].get("labels") or {}).get(ROLE) == "worker" and
                (p["metadata"].get("labels") or {}).get(L + "job-name") ==
                name]

    def launcher_pods(self, launcher):
        if launcher is None:
            return []
        ns = launcher["metadata"]["namespace"]
        return [p for p in self.pods.items()
                if p["metadata"]["namespace"] == ns and
                batchjob.owned(p, launcher)]

    def labels(self, job, role):
        return {L + "operator-name": OPERATOR,
                L + "job-name": job["metadata"]["name"], ROLE: role}

    def meta(self, job, name):
        md = job["metadata"]
        return {"name": name, "namespace": md["namespace"],
                "labels": {"app": md["name"]},
                "ownerReferences": [owner_ref(job)]}

    # ---- the objects ----
    def create(self, kind, obj, api=("v1",)):
        try:
            return self.client.create(kapi.path_of(
                *(api + (kind,)), obj["metadata"]["namespace"]), obj)
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            return None

    def service(self, job):
        md = job["metadata"]
        if self.client.maybe_get(kapi.path_of(
                "v1", "Service", md["namespace"], md["name"])) is not None:
            return
        sel = self.labels(job, "worker")
        del sel[ROLE]
        self.create("Service", {
            "apiVersion": "v1", "kind": "Service",
            "metadata": self.meta(job, md["name"]),
            "spec": {"clusterIP": "None", "selector": sel,
                     "publishNotReadyAddresses": True}})

    def config(self, job, workers):
        """The hostfile and discover_hosts.sh (its Running workers)."""
        md, spec = job["metadata"], job["spec"]
        n = spec["mpiReplicaSpecs"].get("Worker", {}).get("replicas", 0)
        svc = "%s.%s.svc" % (md["name"], md["namespace"])
        hosts = "".join("%s-worker-%d.%s slots=%d\n" % (
            md["name"], i, svc, spec["slotsPerWorker"]) for i in range(n))
        disc = "#!/bin/sh\n" + "".join(
            "echo %s.%s\n" % (p["metadata"]["name"], svc)
            for p in sorted(workers, key=lambda p: p["metadata"]["name"])
            if phase(p) == "Running")
        data = {"hostfile": hosts, "discover_hosts.sh": disc}
        path = kapi.path_of("v1", "ConfigMap", md["namespace"],
                            md["name"] + "-config")
        cm = self.client.maybe_get(path)
        if cm is None:
            self.create("ConfigMap", {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": self.meta(job, md["name"] + "-config"),
                "data": data})
        elif cm.get("data") != data:
            self.client.put(path, dict(cm, data=data))

    def secret(self, job):
        md = job["metadata"]
        name = md["name"] + "-ssh"
        if self.client.maybe_get(kapi.path_of(
                "v1", "Secret", md["namespace"], name)) is not None:
            return
        key, pub = ssh_keys()
        self.create("Secret", {
            "apiVersion": "v1", "kind": "Secret",
            "metadata": self.meta(job, name),
            "type": "kubernetes.io/ssh-auth",
            "stringData": {"ssh-privatekey": key, "ssh-publickey": pub}})

    def ssh_volume(self, job, spec, launcher):
        items = [{"key": "ssh-privatekey", "path": "id_rsa"},
                 {"key": "ssh-publickey", "path": "id_rsa.pub"},
                 {"key": "ssh-publickey", "path": "authorized_keys"}]
        spec.setdefault("volumes", []).append({
            "name": "ssh-auth", "secret": {
                "secretName": job["metadata"]["name"] + "-ssh",
                "defaultMode": 0o600, "items": items}})
        spec["containers"][0].setdefault("volumeMounts", []).append({
            "name": "ssh-auth", "mountPath": job["spec"]["sshAuthMountPath"]})
        if launcher:
            spec["volumes"].append({"name": "mpi-job-config", "configMap": {
                "name": job["metadata"]["name"] + "-config",
                "items": [{"key": "hostfile", "path": "hostfile"},
                          {"key": "discover_hosts.sh",
                           "path": "discover_hosts.sh", "mode": 0o555}]}})
            spec["containers"][0]["volumeMounts"].append({
                "name": "mpi-job-config", "mountPath": "/etc/mpi"})

    def make_workers(self, job, workers):
        """newWorker() for each index not there; one out of range
        deleted."""
        md, spec = job["metadata"], job["spec"]
        rs = spec["mpiReplicaSpecs"].get("Worker")
        n = rs["replicas"] if rs else 0
        have = {p["metadata"]["name"]: p for p in workers}
        out = []
        for p in workers:
            if int(p["metadata"]["labels"].get(INDEX, "0")) >= n:
                self.delete_pod(p)
            else:
                out.append(p)
        for i in range(n):
            name = "%s-worker-%d" % (md["name"], i)
            if name in have:
                continue
            tmpl = copy.deepcopy(rs["template"])
            meta = tmpl.setdefault("metadata", {})
            meta.setdefault("labels", {}).update(self.labels(job, "worker"))
            meta["labels"][INDEX] = str(i)
            pspec = tmpl["spec"]
            pspec.update(hostname=name, subdomain=md["name"],
                         restartPolicy=rs["restartPolicy"])
            c = pspec["containers"][0]
            if not c.get("command") and not c.get("args"):
                c["command"] = ["/usr/sbin/sshd", "-De"]
            c.setdefault("env", []).append({"name": "K_MPI_JOB_ROLE",
                                            "value": "worker"})
            self.ssh_volume(job, pspec, False)
            made = self.create("Pod", {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": dict(meta, name=name, namespace=md["namespace"],
                                 ownerReferences=[owner_ref(job)]),
                "spec": pspec})
            if made:
                out.append(made)
                self.event(job, "Normal", "SuccessfulCreatePod",
                           "Created pod: %s" % name)
        return out

    def make_launcher(self, job):
        """newLauncherJob() with newLauncherPodTemplate()."""
        md, spec = job["metadata"], job["spec"]
        rs = spec["mpiReplicaSpecs"]["Launcher"]
        name = md["name"] + "-launcher"
        tmpl = copy.deepcopy(rs["template"])
        meta = tmpl.setdefault("metadata", {})
        meta.setdefault("labels", {}).update(self.labels(job, "launcher"))
        pspec = tmpl["spec"]
        pspec.update(hostname=name, subdomain=md["name"])
        c = pspec["containers"][0]
        c.setdefault("env", []).extend([
            {"name": "K_MPI_JOB_ROLE", "value": "launcher"},
            {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
            {"name": "OMPI_MCA_orte_default_hostfile",
             "value": "/etc/mpi/hostfile"},
            {"name": "OMPI_MCA_plm_rsh_args",
             "value": "-o ConnectionAttempts=10"},
            {"name": "OMPI_MCA_orte_set_default_slots",
             "value": str(spec["slotsPerWorker"])},
            {"name": "NVIDIA_VISIBLE_DEVICES"},
            {"name": "NVIDIA_DRIVER_CAPABILITIES"}])
        if pspec.get("restartPolicy"):
            self.event(job, "Warning", "SetPodTemplateRestartPolicy",
                       "Restart policy in pod template overridden by "
                       "restart policy in replica spec")
        pspec["restartPolicy"] = rs["restartPolicy"]
        self.ssh_volume(job, pspec, True)
        run = spec["runPolicy"]
        suspend = bool(run.get("suspend"))
        jspec = {"template": tmpl}
        if run.get("backoffLimit") is not None:
            jspec["backoffLimit"] = run["backoffLimit"]
        made = self.create("Job", {
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": dict(self.meta(job, name), annotations={
                batchjob.ANN_MODE: "NonIndexed",
                batchjob.ANN_SUSPEND: "true" if suspend else "false"}),
            "spec": dict(jspec, suspend=suspend)}, api=("batch/v1",))
        if made:
            self.event(job, "Normal", "SuccessfulCreateJob",
                       "Created job: %s" % name)
        return made

    def suspend_launcher(self, launcher, on):
        if launcher is None:
            return
        ann = launcher["metadata"].get("annotations") or {}
        want = "true" if on else "false"
        if ann.get(batchjob.ANN_SUSPEND) == want:
            return
        md = launcher["metadata"]
        self.client.merge_patch(
            kapi.path_of(*batchjob.JOB, md["namespace"], md["name"]),
            {"metadata": {"annotations": {batchjob.ANN_SUSPEND: want}},
             "spec": {"suspend": on}})

    # ---- the status ----
    @staticmethod
    def counts(pods):
        out = {}
        for p in pods:
            key = {"Running": "active", "Pending": "active",
                   "Succeeded": "succeeded", "Failed": "failed"}.get(
                       phase(p))
            if key and not (key == "active" and
                            p["metadata"].get("deletionTimestamp")):
                out[key] = out.get(key, 0) + 1
        return out

    def update_status(self, job, st, launcher, workers, suspend):
        md = job["metadata"]
        ns, name = md["namespace"], md["name"]
        lpods = self.launcher_pods(launcher)
        st["replicaStatuses"] = {"Launcher": self.counts(lpods),
                                 "Worker": self.counts(workers)}
        if suspend:
            msg = "MPIJob suspended"
            if not cond_true(st, "Suspended"):
                set_condition(st, "Suspended", "True", "MPIJobSuspended",
                              msg)
                self.event(job, "Normal", "MPIJobSuspended", msg)
            if cond_true(st, "Running"):
                set_condition(st, "Running", "False", "MPIJobSuspended",
                              msg)
            return
        if cond_true(st, "Suspended"):
            set_condition(st, "Suspended", "False", "MPIJobResumed",
                          "MPIJob resumed")
            st["startTime"] = now_rfc3339()
            self.event(job, "Normal", "MPIJobResumed", "MPIJob resumed")
        done = batchjob.condition(launcher or {}, "Complete")
        failed = batchjob.condition(launcher or {}, "Failed")
        if done:
            msg = "MPIJob %s/%s successfully completed." % (ns, name)
            set_condition(st, "Succeeded", "True", "MPIJobSucceeded", msg)
            if cond_true(st, "Running"):
                set_condition(st, "Running", "False", "MPIJobSucceeded",
                              msg)
            st["completionTime"] = (launcher.get("status") or {}).get(
                "completionTime") or now_rfc3339()
            self.event(job, "Normal", "MPIJobSucceeded", msg)
            self.clean(job, workers)
        elif failed:
            reason = failed.get("reason") or "MPIJobFailed"
            set_condition(st, "Failed", "True", reason,
                          failed.get("message", ""))
            if cond_true(st, "Running"):
                set_condition(st, "Running", "False", reason,
                              failed.get("message", ""))
            st["completionTime"] = now_rfc3339()
            self.event(job, "Warning", reason, failed.get("message", ""))
            self.clean(job, workers)
        else:
            n = job["spec"]["mpiReplicaSpecs"].get("Worker", {}).get(
                "replicas", 0)
            running = [p for p in workers if phase(p) == "Running"]
            if any(phase(p) == "Running" for p in lpods) and \
                    len(running) == n:
                set_condition(st, "Running", "True", "MPIJobRunning",
                              "MPIJob %s/%s is running." % (ns, name))

    def clean(self, job, workers):
        """cleanPodPolicy of an ended job: Running (those still running
        or pending) or All; None leaves them."""
        policy = job["spec"]["runPolicy"]["cleanPodPolicy"]
        for p in workers:
            if policy == "All" or (policy == "Running" and phase(p) in (
                    "Running", "Pending")):
                self.delete_pod(p)

    def delete_pod(self, pod):
        md = pod["metadata"]
        if md.get("deletionTimestamp"):
            return
        self.client.delete(kapi.path_of("v1", "Pod", md["namespace"],
                                        md["name"]), "Background")

    def write(self, job, st):
        md = job["metadata"]
        try:
            self.client.put(kapi.path_of(*MPJ, md["namespace"], md["name"],
                                         "status"), dict(job, status=st))
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            self.mark(md["namespace"], md["name"], 0.1)
