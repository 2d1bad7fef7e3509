"""tests/kube/reconciler.py - the work queue of a controller-runtime
controller, for the stand-in operators (paddle.py, jobset.py, pytorch.py,
batchjob.py): objects marked by namespace and name (now, or after a
delay, as RequeueAfter), reconciled one at a time on a thread of their
own; a reconcile that fails is tried again a second later. idle() says
when nothing is due, for the kubelet's settle()."""
import threading
import time

import kapi
from kapi import log


class Reconciler:
    """Subclasses give name and reconcile(ns, name), which returns the
    delay before the next pass (None: wait for an event)."""

    name = "reconciler"

    def __init__(self, client, stop):
        self.client, self.stop = client, stop
        self.dirty = {}  # (ns, name) -> time to reconcile at
        self.lock = threading.Lock()
        self.kick = threading.Event()
        self.busy = False

    def mark(self, ns, name, delay=0.0):
        with self.lock:
            t = time.time() + delay
            self.dirty[(ns, name)] = min(self.dirty.get((ns, name), t), t)
        self.kick.set()

    def idle(self):
        """No reconcile due now, none running."""
        with self.lock:
            return not self.busy and all(t > time.time() for t in
                                         self.dirty.values())

    def on_object(self, kind, old, new):
        """An informer's event on an object of the controller's kind: the
        object marked."""
        md = (new or old)["metadata"]
        self.mark(md["namespace"], md["name"])

    def mark_owner(self, obj, api_kind):
        """The owner of api_kind ((apiVersion, kind)) that controls obj,
        if any, marked."""
        for r in obj["metadata"].get("ownerReferences") or []:
            if r.get("controller") and (r.get("apiVersion"), r["kind"]) == \
                    api_kind:
                self.mark(obj["metadata"]["namespace"], r["name"])

    def run(self):
        while not self.stop.is_set():
            with self.lock:
                nxt = min(self.dirty.values(), default=None)
            wait = 0.5 if nxt is None else min(0.5, nxt - time.time())
            if wait > 0:
                self.kick.wait(wait)
            self.kick.clear()
            now = time.time()
            with self.lock:
                due = [k for k, t in self.dirty.items() if t <= now]
                for k in due:
                    del self.dirty[k]
                self.busy = bool(due)
            for ns, name in due:
                self.pass_(ns, name)
            self.busy = False

    def pass_(self, ns, name):
        try:
            requeue = self.reconcile(ns, name)
        except kapi.ApiError as e:
            log("%s: %s/%s: %s" % (self.name, ns, name, e))
            requeue = 1.0
        except Exception as e:
            log("%s: %s/%s: %r" % (self.name, ns, name, e))
            requeue = 1.0
        if requeue is not None:
            self.mark(ns, name, requeue)

    def start(self):
        threading.Thread(target=self.run, name=self.name,
                         daemon=True).start()

    def reconcile(self, ns, name):
        raise NotImplementedError
