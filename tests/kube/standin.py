#!/usr/bin/env python3
"""tests/kube/standin.py - what a real cluster's other parts would do,
against a real kube-apiserver that has no kubelet, scheduler or
controllers (started by cluster.py --standin; see tests/kube/README.md):

  kubelet.py, kubelet_server.py   a Node; pods run as local processes;
                                  /containerLogs and /exec for the API
                                  server to proxy to; test hooks
  kubews.py                       WebSocket framing, channel protocols
  scheduler.py                    Volcano's gang scheduler and the default
                                  scheduler (binding)
  volcano.py                      Volcano v1.15.1's job controller
  paddle.py                       PaddleCloud's PaddleJob operator
  jobset.py, batchjob.py          JobSet v0.8.2's controller, and the
                                  Job controller of its Jobs
  pytorch.py                      Kubeflow's training operator v1.9.0
                                  (PyTorchJob)
  trainjob.py                     Kubeflow Trainer v2.3.0's TrainJob
                                  controller (its JobSet run by the two
                                  above)
  mpijob.py                       the MPI Operator v0.8.0 (MPIJob; its
                                  launcher Job run by batchjob.py)
  reconciler.py                   the work queue of those operators
  garbage.py                      garbage collector, namespace controller

    standin.py --server URL --token T --ca FILE --state DIR
               [--namespaces NS,...] [--ready-file F] [--node NAME]
               [--exec-protocols P,...] [--capacity cpu=64,memory=256Gi,...]

Ends on SIGTERM or SIGINT: every pod's processes are killed (the API
objects are left as they are: the API server is usually stopping too).
Python's standard library only (plus tests/k8s/check.py).
"""
import argparse
import json
import os
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import batchjob  # noqa: E402
import garbage  # noqa: E402
import jobset  # noqa: E402
import kapi  # noqa: E402
import kubelet  # noqa: E402
import kubelet_server  # noqa: E402
import paddle  # noqa: E402
import pytorch  # noqa: E402
import scheduler  # noqa: E402
import volcano  # noqa: E402
import kubews  # noqa: E402
import mpijob  # noqa: E402
import trainjob  # noqa: E402
from kapi import log  # noqa: E402

DEFAULT_CAPACITY = "cpu=64,memory=256Gi,pods=110,nvidia.com/gpu=8," \
                   "ephemeral-storage=100Gi"


def parse(argv):
    ap = argparse.ArgumentParser(prog="standin.py")
    ap.add_argument("--server", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--namespaces", default="")
    ap.add_argument("--ready-file")
    ap.add_argument("--node", default="paictl-standin")
    ap.add_argument("--capacity", default=DEFAULT_CAPACITY)
    ap.add_argument("--exec-protocols", default=",".join(
        kubews.KUBELET_120))
    return ap.parse_args(argv)


class StandIn:
    def __init__(self, a):
        self.a, self.stop = a, threading.Event()
        self.client = kapi.Client(a.server, a.token, a.ca,
                                  user_agent="paictl-standin")
        self.namespaces = set(x for x in a.namespaces.split(",") if x)
        os.makedirs(a.state, exist_ok=True)
        cap = dict(kv.split("=", 1) for kv in a.capacity.split(","))
        self.kubelet = kubelet.Kubelet(self.client, a.state, a.node, cap,
                                       self.stop)
        cert, key = kubelet_server.make_cert(a.state)
        self.https = kubelet_server.Server(self.kubelet, cert, key,
                                           a.exec_protocols.split(","))

    def informer(self, api_kind, handlers, name):
        path = kapi.path_of(*api_kind)
        inf = kapi.Informer(self.client, path, handlers, self.stop,
                            self.namespaces or None, name)
        return inf

    def start(self):
        port = self.https.start()
        self.kubelet.register(port)
        node = self.client.get(kapi.path_of("v1", "Node",
                                            name=self.a.node))
        pods = self.informer(("v1", "Pod"), [], "pods")
        pgs = self.informer(volcano.PG, [], "podgroups")
        jobs = self.informer(volcano.JOB, [], "vcjobs")
        pdjs = self.informer(paddle.PDJ, [], "paddlejobs")
        cmds = self.informer(volcano.CMD, [], "commands")
        svcs = self.informer(("v1", "Service"), [], "services")
        bjobs = self.informer(batchjob.JOB, [], "jobs")
        jss = self.informer(jobset.JS, [], "jobsets")
        ptjs = self.informer(pytorch.PTJ, [], "pytorchjobs")
        tjs = self.informer(trainjob.TJ, [], "trainjobs")
        mpjs = self.informer(mpijob.MPJ, [], "mpijobs")
        sch = scheduler.Scheduler(self.client, pods, pgs, node, self.stop)
        vc = volcano.Volcano(self.client, jobs, pods, pgs, self.stop)
        pd = paddle.Paddle(self.client, pdjs, pods, self.stop)
        jc = batchjob.JobController(self.client, bjobs, pods, self.stop)
        js = jobset.JobSetController(self.client, jss, bjobs, self.stop)
        pt = pytorch.PyTorchController(self.client, ptjs, pods, svcs,
                                       self.stop)
        tj = trainjob.TrainJobController(self.client, tjs, jss, self.stop)
        mp = mpijob.MPIJobController(self.client, mpjs, pods, bjobs,
                                     self.stop)
        pods.handlers += [self.kubelet.on_pod, sch.on_event, vc.on_pod,
                          pd.on_owned, jc.on_pod, pt.on_owned, mp.on_pod]
        pgs.handlers += [sch.on_event, vc.on_podgroup]
        jobs.handlers += [vc.on_job]
        pdjs.handlers += [pd.on_object]
        cmds.handlers += [vc.on_command]
        bjobs.handlers += [jc.on_object, js.on_owned, mp.on_owned]
        jss.handlers += [js.on_object, tj.on_owned]
        ptjs.handlers += [pt.on_object]
        tjs.handlers += [tj.on_object]
        mpjs.handlers += [mp.on_object]
        svcs.handlers += [pd.on_owned, js.on_owned, pt.on_owned, lambda *_:
                          self.kubelet.net.set_services(svcs.items())]
        infs = (pods, pgs, jobs, pdjs, cmds, svcs, bjobs, jss, ptjs, tjs,
                mpjs)
        for inf in infs:
            inf.start()
        for inf in infs:
            inf.synced.wait(30)
        parts = [vc, pd, jc, js, pt, tj, mp]
        for part in [sch] + parts:
            part.start()
        self.kubelet.settle = lambda uid, rv: self.settle(pods, parts,
                                                          uid, rv)
        gc = garbage.GarbageCollector(self.client, self.namespaces,
                                        self.stop)
        gc.hooks.append(lambda: vc.ttl_collect())
        gc.start()
        return port

    @staticmethod
    def settle(pods, controllers, uid, rv, limit=2.0):
        """Let the controllers catch up with a pod status the kubelet has
        just written, before it writes the next (at most `limit` s).

        A real kubelet notices a container's start or end up to a second
        later (PLEG relist) and the controllers act within milliseconds;
        run at full speed, a pod that fails at once could be judged by a
        SyncJob that sees the Failed pod before its PodFailed event is
        handled, which a real cluster practically never shows."""
        deadline = time.time() + limit
        while time.time() < deadline:
            with pods.lock:
                seen = pods.cache.get(uid)
            if seen is None or int(seen["metadata"]["resourceVersion"]) >= \
                    int(rv):
                break
            time.sleep(0.01)
        # idle for a while: a controller's own writes come back through
        # other watches (a Job's status) a few milliseconds later
        quiet = None
        while time.time() < deadline:
            if not all(c.idle() for c in controllers):
                quiet = None
            elif quiet is None:
                quiet = time.time()
            elif time.time() - quiet >= 0.1:
                break
            time.sleep(0.01)

    def ready(self, port):
        info = {"kubelet": "https://127.0.0.1:%d" % port,
                "node": self.a.node, "pid": os.getpid(),
                "isolation": bool(self.kubelet.net.isolate)}
        if self.a.ready_file:
            tmp = self.a.ready_file + ".tmp"
            with open(tmp, "w") as f:
                json.dump(info, f)
            os.rename(tmp, self.a.ready_file)
        log("ready: node %s, kubelet %s" % (self.a.node, info["kubelet"]))

    def shutdown(self):
        self.stop.set()
        self.kubelet.shutdown()
        self.https.shutdown()


def main(argv):
    a = parse(argv)
    s = StandIn(a)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: s.stop.set())
    try:
        port = s.start()
        s.ready(port)
        while not s.stop.wait(1.0):
            pass
    finally:
        s.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
