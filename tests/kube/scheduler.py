"""tests/kube/scheduler.py - the stand-in's schedulers: Volcano's (gang
scheduling through PodGroups: Pending -> Inqueue -> Running) for pods with
schedulerName "volcano", and the default scheduler's for the others. One
Node: a pod fits when its requests fit the Node's allocatable and its
nodeSelector matches the Node's labels. Simplified: pods already bound do
not use capacity up (tests run many small jobs at once), no affinity,
taints, priorities or preemption.
"""
import re
import threading

import kapi
from kapi import log, now_rfc3339

PG = ("scheduling.volcano.sh/v1beta1", "PodGroup")
QUEUE = ("scheduling.volcano.sh/v1beta1", "Queue")
GROUP_KEY = "scheduling.k8s.io/group-name"
SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
          "P": 1e15, "E": 1e18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30,
          "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity(s):
    """A resource.Quantity string as a number ("500m" -> 0.5)."""
    m = re.fullmatch(r"([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)",
                     str(s).strip())
    if not m or m.group(2) not in SUFFIX:
        raise ValueError("bad quantity %r" % s)
    return float(m.group(1)) * SUFFIX[m.group(2)]


def requests(pod):
    """The pod's requests: the sum over containers (a limit stands for a
    missing request), as the scheduler computes them (init containers'
    maximum ignored)."""
    total = {}
    for c in pod["spec"]["containers"]:
        res = c.get("resources") or {}
        req = dict(res.get("limits") or {}, **(res.get("requests") or {}))
        for k, v in req.items():
            total[k] = total.get(k, 0) + quantity(v)
    return total


def misfit(pod, node_labels, allocatable):
    """Why the pod does not fit the node ("" if it does), worded as the
    schedulers' fit errors."""
    sel = pod["spec"].get("nodeSelector") or {}
    if any(node_labels.get(k) != v for k, v in sel.items()):
        return "node(s) didn't match node selector"
    short = [k for k, v in sorted(requests(pod).items())
             if v > quantity(allocatable.get(k, "0"))]
    return ", ".join("Insufficient " + k for k in short)


class Scheduler:
    def __init__(self, client, pods, podgroups, node, stop):
        self.client, self.pods, self.pgs = client, pods, podgroups
        self.node, self.stop = node, stop
        self.labels = node["metadata"]["labels"]
        self.alloc = node["status"]["allocatable"]
        self.kick = threading.Event()
        self.reported = {}  # pod uid -> last unschedulable message

    def on_event(self, *_):
        self.kick.set()

    def run(self):
        while not self.stop.is_set():
            self.kick.wait(1.0)
            self.kick.clear()
            try:
                self.cycle()
            except Exception as e:
                log("scheduler: %r" % e)

    def start(self):
        threading.Thread(target=self.run, name="scheduler",
                         daemon=True).start()

    def cycle(self):
        pods = self.pods.items()
        pending = [p for p in pods if not p["spec"].get("nodeName")
                   and not p["metadata"].get("deletionTimestamp")
                   and p.get("status", {}).get("phase", "Pending")
                   == "Pending"]
        gangs = {}
        for p in pending:
            group = (p["metadata"].get("annotations") or {}).get(GROUP_KEY)
            if p["spec"].get("schedulerName") == "volcano" and group:
                gangs.setdefault((p["metadata"]["namespace"], group),
                                 []).append(p)
            else:
                self.schedule_one(p)
        for pg in self.pgs.items():
            self.sync_podgroup(pg, gangs.get(
                (pg["metadata"]["namespace"], pg["metadata"]["name"]), []),
                pods)

    # -- the default scheduler --
    def schedule_one(self, pod):
        why = misfit(pod, self.labels, self.alloc)
        if why:
            return self.unschedulable(
                pod, "0/1 nodes are available: 1 %s." % why,
                "default-scheduler")
        self.bind(pod, "default-scheduler")

    def bind(self, pod, component):
        md = pod["metadata"]
        try:
            self.client.create(kapi.path_of("v1", "Pod", md["namespace"],
                                            md["name"], "binding"), {
                "apiVersion": "v1", "kind": "Binding",
                "metadata": {"name": md["name"], "uid": md["uid"]},
                "target": {"apiVersion": "v1", "kind": "Node",
                           "name": self.node["metadata"]["name"]}})
        except kapi.ApiError as e:
            if e.code not in (404, 409):
                log("bind %s/%s: %s" % (md["namespace"], md["name"], e))
            return
        self.client.event(dict(pod, apiVersion="v1", kind="Pod"), "Normal",
                          "Scheduled", "Successfully assigned %s/%s to %s"
                          % (md["namespace"], md["name"],
                             self.node["metadata"]["name"]), component)

    def unschedulable(self, pod, msg, component):
        """PodScheduled False/Unschedulable and a FailedScheduling event,
        once per distinct message."""
        md = pod["metadata"]
        if self.reported.get(md["uid"]) == msg:
            return
        self.reported[md["uid"]] = msg
        cond = {"type": "PodScheduled", "status": "False",
                "reason": "Unschedulable", "message": msg,
                "lastProbeTime": None, "lastTransitionTime": now_rfc3339()}
        try:
            self.client.merge_patch(kapi.path_of(
                "v1", "Pod", md["namespace"], md["name"], "status"),
                {"metadata": {"uid": md["uid"]},
                 "status": {"phase": "Pending", "conditions": [cond]}})
        except kapi.ApiError:
            return
        self.client.event(dict(pod, apiVersion="v1", kind="Pod"), "Warning",
                          "FailedScheduling", msg, component)

    # -- Volcano's scheduler --
    def queue_open(self, name):
        q = self.client.maybe_get(kapi.path_of(*QUEUE, name=name or
                                                "default"))
        return q is not None and (q.get("status") or {}).get(
            "state", "Open") == "Open"

    def sync_podgroup(self, pg, waiting, pods):
        """Enqueue (Pending -> Inqueue when its queue is Open), then bind
        the gang once minMember pods fit, else report why not."""
        st = dict(pg.get("status") or {})
        phase = st.get("phase") or "Pending"
        if phase == "Pending" and self.queue_open(pg["spec"].get("queue")):
            phase = "Inqueue"
        md = pg["metadata"]
        members = [p for p in pods if p["metadata"]["namespace"] ==
                   md["namespace"] and (p["metadata"].get("annotations") or
                                        {}).get(GROUP_KEY) == md["name"]]
        bound = [p for p in members if p["spec"].get("nodeName")]
        min_member = pg["spec"].get("minMember", 1)
        cond = None
        if phase in ("Inqueue", "Running") and waiting and \
                len(members) >= min_member:  # else the controller is
            # still creating the gang's pods: nothing to report yet
            misfits = {p["metadata"]["uid"]: misfit(p, self.labels,
                                                    self.alloc)
                       for p in waiting}
            fit = [p for p in waiting if not misfits[p["metadata"]["uid"]]]
            if len(bound) + len(fit) >= min_member:
                for p in fit:
                    self.bind(p, "volcano")
                bound += fit
            else:
                cond = self.gang_unschedulable(pg, waiting, misfits,
                                               len(members))
        if len(bound) >= min_member:
            phase = "Running"
            cond = {"type": "Scheduled", "status": "True",
                    "reason": "tasks in gang are ready to be scheduled",
                    "message": ""}
        self.write_podgroup(pg, phase, cond, members)

    def gang_unschedulable(self, pg, waiting, misfits, total):
        reasons = sorted({m for m in misfits.values() if m})
        fit_err = ("0/1 nodes are unavailable: 1 %s." % ", ".join(reasons)
                   if reasons else "pod group is not ready, %d Pending, "
                   "%d minAvailable" % (len(waiting),
                                        pg["spec"].get("minMember", 1)))
        for p in waiting:
            self.unschedulable(p, fit_err, "volcano")
        msg = "%d/%d tasks in gang unschedulable: %s" % (
            len(waiting), total, fit_err)
        return {"type": "Unschedulable", "status": "True",
                "reason": "NotEnoughResources", "message": msg}

    def write_podgroup(self, pg, phase, cond, members):
        st = dict(pg.get("status") or {})
        counts = {"running": 0, "succeeded": 0, "failed": 0}
        for p in members:
            ph = (p.get("status") or {}).get("phase", "")
            key = {"Running": "running", "Succeeded": "succeeded",
                   "Failed": "failed"}.get(ph)
            if key:
                counts[key] += 1
        new = {k: v for k, v in st.items() if k not in counts}
        new.update({k: v for k, v in counts.items() if v})
        new["phase"] = phase
        if cond:
            conds = [c for c in st.get("conditions") or []
                     if c["type"] != cond["type"]]
            old = [c for c in st.get("conditions") or []
                   if c["type"] == cond["type"]]
            if old and old[0].get("message") == cond["message"]:
                cond = old[0]
            else:
                cond = dict(cond, lastTransitionTime=now_rfc3339(),
                            transitionID="")
                if cond["type"] == "Unschedulable":
                    self.client.event(dict(pg, apiVersion=PG[0],
                                           kind=PG[1]), "Warning",
                                      "Unschedulable", cond["message"],
                                      "volcano")
            new["conditions"] = conds + [cond]
        if new == st:
            return
        md = pg["metadata"]
        try:
            self.client.put(kapi.path_of(*PG, md["namespace"], md["name"]),
                            dict(pg, status=new))
        except kapi.ApiError as e:
            if e.code not in (404, 409):
                log("podgroup %s/%s: %s" % (md["namespace"], md["name"], e))
