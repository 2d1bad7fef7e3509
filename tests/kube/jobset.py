"""tests/kube/jobset.py - the JobSet controller of kubernetes-sigs/jobset
v0.8.2 (pkg/controllers/jobset_controller.go, failure_policy.go,
success_policy.go), stood in, with its webhook's defaults
(pkg/webhooks/jobset_webhook.go Default) applied when a JobSet is read.

Faithful: the child Jobs <jobset>-<replicatedJob>-<index>, owned by the
JobSet (controller), with its labels and annotations (jobset-name,
replicatedjob-name, restart-attempt, replicatedjob-replicas,
global-replicas, job-index, job-key, job-global-index) on the Job and its
pod template, the subdomain on the pods; the headless Service named
after the subdomain (publishNotReadyAddresses); replicatedJobsStatus
(ready, succeeded, failed, active, suspended); the end: a failed Job
fails the JobSet (FailedJobs) or, with a failurePolicy, restarts it
(restarts and restartsCountTowardsMax +1, the Jobs of the run before
deleted, Foreground) until maxRestarts (ReachedMaxRestarts); the
successPolicy (All, Any, targetReplicatedJobs) completes it
(AllJobsCompleted), and a finished JobSet's active Jobs are deleted;
terminalState; suspend (the Jobs suspended, the condition Suspended
with SuspendedJobs) and resume (ResumeJobs); its events.

The 1.20 API server drops a Job's completionMode and suspend:
batchjob.py reads them from the annotations written beside them, and
gives the ready count it cannot store in the annotation ANN_READY.

Absent: failurePolicy rules (no rule matches: the default action,
RestartJobSet, as with none), the BlockingRecreate strategy, startup
policy InOrder and dependsOn, coordinator, exclusive placement,
managedBy, ttlSecondsAfterFinished.
"""
import copy
import hashlib

import batchjob
import kapi
import reconciler
from kapi import now_rfc3339

JS = ("jobset.x-k8s.io/v1alpha2", "JobSet")
K = "jobset.sigs.k8s.io/"
NAME, RJOB, ATTEMPT = K + "jobset-name", K + "replicatedjob-name", \
    K + "restart-attempt"


def owner_ref(js):
    md = js["metadata"]
    return {"apiVersion": JS[0], "kind": JS[1], "name": md["name"],
            "uid": md["uid"], "controller": True, "blockOwnerDeletion": True}


def defaulted(js):
    """The webhook's Default()."""
    js = copy.deepcopy(js)
    spec = js["spec"]
    spec.setdefault("successPolicy", {"operator": "All"})
    spec.setdefault("startupPolicy", {"startupPolicyOrder": "AnyOrder"})
    for r in spec.get("replicatedJobs", []):
        js_spec = r["template"].setdefault("spec", {})
        js_spec.setdefault("completionMode", "Indexed")
        pod = js_spec["template"].setdefault("spec", {})
        pod.setdefault("restartPolicy", "OnFailure")
    net = spec.setdefault("network", {})
    net.setdefault("enableDNSHostnames", True)
    net.setdefault("publishNotReadyAddresses", True)
    return js


def subdomain(js):
    return js["spec"]["network"].get("subdomain") or js["metadata"]["name"]


def suspended(js):
    return bool(js["spec"].get("suspend"))


def cond_true(st, ctype):
    return any(c["type"] == ctype and c["status"] == "True"
               for c in st.get("conditions") or [])


def job_suspended(job):
    ann = job["metadata"].get("annotations") or {}
    return ann.get(batchjob.ANN_SUSPEND) == "true"


class JobSetController(reconciler.Reconciler):
    name = "jobset"

    def __init__(self, client, jobsets, jobs, stop):
        super().__init__(client, stop)
        self.jobsets, self.jobs = jobsets, jobs

    def on_owned(self, kind, old, new):
        self.mark_owner(new or old, JS)

    # ---- Reconcile ----
    def reconcile(self, ns, name):
        js = self.client.maybe_get(kapi.path_of(*JS, ns, name))
        if js is None or js["metadata"].get("deletionTimestamp"):
            return None
        js = defaulted(js)
        st = copy.deepcopy(js.get("status") or {})
        events = []
        jobs = self.child_jobs(js, st)
        st["replicatedJobsStatus"] = self.rjob_statuses(js, jobs)
        if cond_true(st, "Completed") or cond_true(st, "Failed"):
            self.delete_jobs(jobs["active"])
        else:
            self.delete_jobs(jobs["previous"])
            self.step(js, st, jobs, events)
        self.write(js, st, events)
        return None

    def step(self, js, st, jobs, events):
        """After the child Jobs are read: the failure or success policy,
        or the Jobs made, suspended or resumed."""
        if jobs["failed"]:
            self.failure_policy(js, st, jobs["failed"], events)
            return
        if jobs["successful"] and self.succeeded(js, jobs["successful"]):
            self.set_condition(st, events, "Completed", "True", "Normal",
                               "AllJobsCompleted",
                               "jobset completed successfully")
            st["terminalState"] = "Completed"
            return
        if js["spec"]["network"].get("enableDNSHostnames"):
            self.headless_service(js)
        self.create_jobs(js, st, jobs)
        if suspended(js):
            for job in jobs["active"]:
                self.set_job_suspend(job, True)
            self.set_condition(st, events, "Suspended", "True", "Normal",
                               "SuspendedJobs", "jobset is suspended")
        else:
            for job in jobs["active"]:
                if job_suspended(job):
                    self.set_job_suspend(job, False)
            self.set_condition(st, events, "Suspended", "False", "Normal",
                               "ResumeJobs", "jobset is resumed")

    def child_jobs(self, js, st):
        """getChildJobs(): previous (of a run before a restart), active,
        successful, failed."""
        out = {"previous": [], "active": [], "successful": [], "failed": []}
        uid = js["metadata"]["uid"]
        for job in self.jobs.items():
            md = job["metadata"]
            if md["namespace"] != js["metadata"]["namespace"] or not any(
                    r.get("controller") and r["uid"] == uid
                    for r in md.get("ownerReferences") or []):
                continue
            if int((md.get("labels") or {}).get(ATTEMPT, "0")) < \
                    st.get("restarts", 0):
                out["previous"].append(job)
            elif batchjob.condition(job, "Failed"):
                out["failed"].append(job)
            elif batchjob.condition(job, "Complete"):
                out["successful"].append(job)
            else:
                out["active"].append(job)
        return out

    def rjob_statuses(self, js, jobs):
        """calculateReplicatedJobStatuses(), in the spec's order."""
        counts = {r["name"]: dict(name=r["name"], ready=0, succeeded=0,
                                  failed=0, active=0, suspended=0)
                  for r in js["spec"]["replicatedJobs"]}
        for job in jobs["active"]:
            c = counts.get((job["metadata"].get("labels") or {}).get(RJOB))
            if c is None:
                continue
            jst, spec = job.get("status") or {}, job["spec"]
            pods = min(spec.get("parallelism", 1),
                       spec.get("completions") or spec.get("parallelism", 1))
            ready = int((job["metadata"].get("annotations") or {}).get(
                batchjob.ANN_READY, "0"))
            c["ready"] += jst.get("succeeded", 0) + ready >= pods
            c["active"] += jst.get("active", 0) > 0
            c["suspended"] += job_suspended(job)
        for key, jl in (("succeeded", jobs["successful"]),
                        ("failed", jobs["failed"])):
            for job in jl:
                c = counts.get((job["metadata"].get("labels") or {}).get(
                    RJOB))
                if c is not None:
                    c[key] += 1
        return [counts[r["name"]] for r in js["spec"]["replicatedJobs"]]

    def failure_policy(self, js, st, failed, events):
        """executeFailurePolicy(): no policy fails the JobSet; a policy
        without a matching rule restarts it (RestartJobSet) until
        maxRestarts."""
        first = min(failed, key=lambda j: batchjob.condition(
            j, "Failed").get("lastTransitionTime", ""))["metadata"]["name"]
        fp = js["spec"].get("failurePolicy")
        if fp is None:
            self.fail(st, events, "FailedJobs",
                      "jobset failed due to one or more job failures", first)
        elif st.get("restartsCountTowardsMax", 0) >= fp.get("maxRestarts",
                                                              0):
            self.fail(st, events, "ReachedMaxRestarts",
                      "jobset failed due to reaching max number of "
                      "restarts", first)
        else:
            st["restarts"] = st.get("restarts", 0) + 1
            st["restartsCountTowardsMax"] = \
                st.get("restartsCountTowardsMax", 0) + 1
            events.append(("Warning", "RestartJobSetFailurePolicyAction",
                           "applying RestartJobSet failure policy action "
                           "(first failed job: %s)" % first))

    def fail(self, st, events, reason, msg, first):
        self.set_condition(st, events, "Failed", "True", "Warning", reason,
                           "%s (first failed job: %s)" % (msg, first))
        st["terminalState"] = "Failed"

    @staticmethod
    def succeeded(js, jobs):
        """executeSuccessPolicy()'s test."""
        sp = js["spec"]["successPolicy"]
        targets = sp.get("targetReplicatedJobs") or []
        n = len([j for j in jobs if not targets or (
            j["metadata"].get("labels") or {}).get(RJOB) in targets])
        if sp.get("operator") == "Any":
            return n >= 1
        return n >= sum(r.get("replicas", 1)
                        for r in js["spec"]["replicatedJobs"]
                        if not targets or r["name"] in targets)

    @staticmethod
    def set_condition(st, events, ctype, status, etype, reason, msg):
        """setCondition(): a change of status only (and its event); a
        False condition not there is not added."""
        conds = st.get("conditions") or []
        for c in conds:
            if c["type"] == ctype:
                if c["status"] == status:
                    return
                c.update(status=status, reason=reason, message=msg,
                         lastTransitionTime=now_rfc3339())
                events.append((etype, reason, msg))
                return
        if status == "True":
            st["conditions"] = conds + [{
                "type": ctype, "status": status, "reason": reason,
                "message": msg, "lastTransitionTime": now_rfc3339()}]
            events.append((etype, reason, msg))

    # ---- the objects ----
    def headless_service(self, js):
        md = js["metadata"]
        path = kapi.path_of("v1", "Service", md["namespace"])
        if self.client.maybe_get(path + "/" + subdomain(js)) is not None:
            return
        try:
            self.client.create(path, {
                "apiVersion": "v1", "kind": "Service",
                "metadata": {"name": subdomain(js),
                             "namespace": md["namespace"],
                             "ownerReferences": [owner_ref(js)]},
                "spec": {"clusterIP": "None",
                         "selector": {NAME: md["name"]},
                         "publishNotReadyAddresses":
                             js["spec"]["network"].get(
                                 "publishNotReadyAddresses", True)}})
        except kapi.ApiError as e:
            if e.code != 409:
                raise

    def create_jobs(self, js, st, jobs):
        """constructJobsFromTemplate() and createJobs(): each Job not
        there, of any run."""
        have = {j["metadata"]["name"] for jl in jobs.values() for j in jl}
        md = js["metadata"]
        for r in js["spec"]["replicatedJobs"]:
            for i in range(r.get("replicas", 1)):
                job = self.construct_job(js, st, r, i)
                if job["metadata"]["name"] in have:
                    continue
                try:
                    self.client.create(kapi.path_of(*batchjob.JOB,
                                                    md["namespace"]), job)
                except kapi.ApiError as e:
                    if e.code != 409:
                        raise

    def construct_job(self, js, st, rjob, idx):
        md = js["metadata"]
        tmpl = rjob["template"]
        tmeta = tmpl.get("metadata") or {}
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"labels": dict(tmeta.get("labels") or {}),
                            "annotations": dict(tmeta.get("annotations")
                                                or {}),
                            "name": "%s-%s-%d" % (md["name"], rjob["name"],
                                                  idx),
                            "namespace": md["namespace"],
                            "ownerReferences": [owner_ref(js)]},
               "spec": copy.deepcopy(tmpl["spec"])}
        pod = job["spec"]["template"]
        for meta in (job["metadata"], pod.setdefault("metadata", {})):
            self.label(meta, js, st, rjob, idx)
        if js["spec"]["network"].get("enableDNSHostnames"):
            pod.setdefault("spec", {})["subdomain"] = subdomain(js)
        job["spec"]["suspend"] = suspended(js)
        # what the 1.20 API server drops, for batchjob.py
        job["metadata"]["annotations"].update({
            batchjob.ANN_MODE: job["spec"].get("completionMode", ""),
            batchjob.ANN_SUSPEND: "true" if suspended(js) else "false"})
        return job

    @staticmethod
    def label(meta, js, st, rjob, idx):
        """labelAndAnnotateObject()."""
        md, specs = js["metadata"], js["spec"]["replicatedJobs"]
        name = "%s-%s-%d" % (md["name"], rjob["name"], idx)
        glob = 0
        for r in specs:
            if r["name"] == rjob["name"]:
                break
            glob += r.get("replicas", 1)
        values = {
            NAME: md["name"], RJOB: rjob["name"],
            ATTEMPT: str(st.get("restarts", 0)),
            K + "replicatedjob-replicas": str(rjob.get("replicas", 1)),
            K + "global-replicas": str(sum(r.get("replicas", 1)
                                           for r in specs)),
            K + "job-index": str(idx),
            K + "job-key": hashlib.sha1(("%s/%s" % (
                md["namespace"], name)).encode()).hexdigest(),
            K + "job-global-index": str(glob + idx)}
        meta.setdefault("labels", {}).update(values)
        meta.setdefault("annotations", {}).update(values)

    def set_job_suspend(self, job, on):
        md = job["metadata"]
        path = kapi.path_of(*batchjob.JOB, md["namespace"], md["name"])
        if not on and (job.get("status") or {}).get("startTime"):
            st = dict(job["status"])
            st.pop("startTime")
            job = self.client.put(path + "/status", dict(job, status=st))
        job = copy.deepcopy(job)
        job["spec"]["suspend"] = on
        job["metadata"].setdefault("annotations", {})[
            batchjob.ANN_SUSPEND] = "true" if on else "false"
        self.client.put(path, job)

    def delete_jobs(self, jobs):
        for job in jobs:
            md = job["metadata"]
            if not md.get("deletionTimestamp"):
                self.client.delete(kapi.path_of(*batchjob.JOB,
                                                md["namespace"], md["name"]),
                                   "Foreground")

    def write(self, js, st, events):
        """updateJobSetStatus(): the status, then its events."""
        if st == (js.get("status") or {}):
            return
        md = js["metadata"]
        try:
            self.client.put(kapi.path_of(*JS, md["namespace"], md["name"],
                                         "status"), dict(js, status=st))
        except kapi.ApiError as e:
            if e.code != 409:
                raise
            self.mark(md["namespace"], md["name"], 0.1)
            return
        for etype, reason, msg in events:
            self.client.event(js, etype, reason, msg, "jobset")
