"""tests/kube/garbage.py - what kube-controller-manager's garbage collector and
namespace controller do, for the objects tests make:

  * an object whose every ownerReference names an owner that does not
    exist (with that uid) is deleted (Background); dangling references
    beside live ones are removed;
  * Foreground deletion: an owner with the finalizer foregroundDeletion
    keeps it until its dependents are gone (they are deleted first);
    Orphan: the finalizer orphan is removed after the dependents' references
    to the owner are;
  * a Terminating namespace is emptied (every namespaced resource found by
    discovery, deletecollection) and then finalized.

Polls every second rather than watching everything: owners and dependents
of every kind the harness knows (kapi.RESOURCES); owners of other kinds are
looked up through discovery.
"""
import threading

import kapi
from kapi import log

DEPENDENT_KINDS = [("v1", "Pod"), ("v1", "ConfigMap"), ("v1", "Service"),
                   ("v1", "Secret"),
                   ("networking.k8s.io/v1", "NetworkPolicy"),
                   ("scheduling.volcano.sh/v1beta1", "PodGroup"),
                   ("bus.volcano.sh/v1alpha1", "Command"),
                   ("batch.volcano.sh/v1alpha1", "Job"),
                   ("batch.paddlepaddle.org/v1", "PaddleJob"),
                   ("batch/v1", "Job"),
                   ("jobset.x-k8s.io/v1alpha2", "JobSet"),
                   ("kubeflow.org/v1", "PyTorchJob"),
                   ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
                   ("kubeflow.org/v2beta1", "MPIJob")]


class GarbageCollector:
    def __init__(self, client, namespaces, stop, period=1.0):
        self.client, self.namespaces, self.stop = client, namespaces, stop
        self.period = period
        self.hooks = []  # more periodic work (Volcano's TTL collector)

    def run(self):
        while not self.stop.wait(self.period):
            try:
                self.cycle()
                for h in self.hooks:
                    h()
            except kapi.ApiError as e:
                log("gc: %s" % e)
            except Exception as e:
                log("gc: %r" % e)

    def start(self):
        threading.Thread(target=self.run, name="gc", daemon=True).start()

    def wanted(self, obj):
        ns = obj["metadata"].get("namespace")
        return not self.namespaces or ns in self.namespaces

    def list_all(self):
        """Every object of the dependent kinds, with kind and apiVersion."""
        out = []
        for api, kind in DEPENDENT_KINDS:
            try:
                lst = self.client.get(kapi.path_of(api, kind))
            except kapi.ApiError:
                continue  # a CRD not installed
            for o in lst["items"]:
                o["apiVersion"], o["kind"] = api, kind
                if self.wanted(o):
                    out.append(o)
        return out

    def cycle(self):
        objs = self.list_all()
        uids = {o["metadata"]["uid"] for o in objs}
        for o in objs:
            refs = o["metadata"].get("ownerReferences") or []
            if refs and not o["metadata"].get("deletionTimestamp"):
                self.check_owners(o, refs, uids)
        for o in objs:
            fins = o["metadata"].get("finalizers") or []
            if o["metadata"].get("deletionTimestamp") and (
                    "foregroundDeletion" in fins or "orphan" in fins):
                self.finish_owner(o, objs)
        self.namespaces_cycle()

    def owner_exists(self, ns, ref, uids):
        if ref["uid"] in uids:
            return True
        key = (ref["apiVersion"], ref["kind"])
        if key not in kapi.RESOURCES:
            return True  # unknown kind: never delete on a guess
        owner = self.client.maybe_get(kapi.path_of(*key, ns, ref["name"]))
        return owner is not None and owner["metadata"]["uid"] == ref["uid"]

    def check_owners(self, obj, refs, uids):
        md = obj["metadata"]
        live = [r for r in refs if self.owner_exists(md.get("namespace"), r,
                                                     uids)]
        path = kapi.path_of(obj["apiVersion"], obj["kind"],
                            md.get("namespace"), md["name"])
        if not live:
            self.client.delete(path, "Background", uid=md["uid"])
        elif len(live) < len(refs):
            self.client.merge_patch(path, {"metadata": {
                "uid": md["uid"], "ownerReferences": live}})

    def finish_owner(self, owner, objs):
        """Foreground: delete the dependents, then drop the finalizer.
        Orphan: drop the dependents' references, then the finalizer."""
        uid = owner["metadata"]["uid"]
        fins = owner["metadata"]["finalizers"]
        deps = [o for o in objs if any(
            r["uid"] == uid for r in o["metadata"].get("ownerReferences")
            or [])]
        for d in deps:
            dm = d["metadata"]
            path = kapi.path_of(d["apiVersion"], d["kind"],
                                dm.get("namespace"), dm["name"])
            if "orphan" in fins:
                self.client.merge_patch(path, {"metadata": {
                    "uid": dm["uid"], "ownerReferences": [
                        r for r in dm["ownerReferences"]
                        if r["uid"] != uid]}})
            elif not dm.get("deletionTimestamp"):
                self.client.delete(path, "Foreground", uid=dm["uid"])
        if deps and "orphan" not in fins:
            return
        md = owner["metadata"]
        left = [f for f in fins if f not in ("foregroundDeletion",
                                             "orphan")]
        try:
            self.client.merge_patch(kapi.path_of(
                owner["apiVersion"], owner["kind"], md.get("namespace"),
                md["name"]), {"metadata": {"uid": md["uid"],
                                           "finalizers": left or None}})
        except kapi.ApiError as e:
            if e.code not in (404, 409):
                raise

    # ---- the namespace controller ----
    def namespaces_cycle(self):
        for ns in self.client.get("/api/v1/namespaces")["items"]:
            if ns["metadata"].get("deletionTimestamp") and "kubernetes" in (
                    ns.get("spec", {}).get("finalizers") or []):
                self.empty_namespace(ns)

    def namespaced_resources(self):
        """Every namespaced resource that can be listed and deleted."""
        paths = ["/api/v1"]
        for g in self.client.get("/apis")["groups"]:
            paths.append("/apis/" + g["preferredVersion"]["groupVersion"])
        out = []
        for p in paths:
            try:
                rl = self.client.get(p)
            except kapi.ApiError:
                continue
            for r in rl["resources"]:
                if r["namespaced"] and "/" not in r["name"] and \
                        {"list", "deletecollection"} <= set(r["verbs"]):
                    out.append((p, r["name"]))
        return out

    def empty_namespace(self, ns):
        name = ns["metadata"]["name"]
        left = 0
        for prefix, res in self.namespaced_resources():
            path = "%s/namespaces/%s/%s" % (prefix, name, res)
            try:
                if not self.client.get(path)["items"]:
                    continue
                left += 1
                self.client.call("DELETE", path)
            except kapi.ApiError:
                continue
        if left == 0:
            ns["spec"]["finalizers"] = []
            self.client.put("/api/v1/namespaces/%s/finalize" % name, ns)
