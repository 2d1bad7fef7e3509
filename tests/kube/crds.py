"""tests/kube/crds.py - the CRDs the cluster installs: the full ones of
../shared/reference/kubernetes where they are (their schemas prune and
refuse as a real cluster's do), else minimal ones of our own, so that a
plain clone runs every engine's tests too. A minimal CRD has the real
one's group, names, scope, served version and subresources, and a schema
that keeps every field (x-kubernetes-preserve-unknown-fields): what
the objects hold is then what the client and the stand-in wrote, never
pruned nor refused."""
import os

# file, group, version, kind, plural, scope, status subresource
KINDS = [
    ("batch.volcano.sh_jobs.yaml", "batch.volcano.sh", "v1alpha1", "Job",
     "jobs", "Namespaced", True),
    ("bus.volcano.sh_commands.yaml", "bus.volcano.sh", "v1alpha1",
     "Command", "commands", "Namespaced", False),
    ("scheduling.volcano.sh_podgroups.yaml", "scheduling.volcano.sh",
     "v1beta1", "PodGroup", "podgroups", "Namespaced", False),
    ("scheduling.volcano.sh_queues.yaml", "scheduling.volcano.sh",
     "v1beta1", "Queue", "queues", "Cluster", True),
    ("batch.paddlepaddle.org_paddlejobs.yaml", "batch.paddlepaddle.org",
     "v1", "PaddleJob", "paddlejobs", "Namespaced", True),
    ("jobset.x-k8s.io_jobsets.yaml", "jobset.x-k8s.io", "v1alpha2",
     "JobSet", "jobsets", "Namespaced", True),
    ("kubeflow.org_pytorchjobs.yaml", "kubeflow.org", "v1", "PyTorchJob",
     "pytorchjobs", "Namespaced", True),
    ("trainer.kubeflow.org_trainjobs.yaml", "trainer.kubeflow.org",
     "v1alpha1", "TrainJob", "trainjobs", "Namespaced", True),
    ("trainer.kubeflow.org_clustertrainingruntimes.yaml",
     "trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime",
     "clustertrainingruntimes", "Cluster", False),
    ("trainer.kubeflow.org_trainingruntimes.yaml", "trainer.kubeflow.org",
     "v1alpha1", "TrainingRuntime", "trainingruntimes", "Namespaced", False),
    ("kubeflow.org_mpijobs.yaml", "kubeflow.org", "v2beta1", "MPIJob",
     "mpijobs", "Namespaced", True),
]
FILES = [k[0] for k in KINDS]

# Kubeflow Trainer v2.3.0's manifests/base/runtimes/torch_distributed.yaml
# (Apache-2.0), what it says that the TrainJob controller reads.
TORCH_DISTRIBUTED = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "torch-distributed",
                 "labels": {"trainer.kubeflow.org/framework": "torch"}},
    "spec": {
        "mlPolicy": {"numNodes": 1, "torch": {}},
        "template": {"spec": {"replicatedJobs": [{
            "name": "node",
            "template": {
                "metadata": {"labels": {
                    "trainer.kubeflow.org/trainjob-ancestor-step":
                        "trainer"}},
                "spec": {"template": {"spec": {"containers": [{
                    "name": "node",
                    "image":
                        "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"}]
                }}}}}]}}}}


def minimal(row):
    """A CRD of row's names that keeps every field."""
    _, group, version, kind, plural, scope, status = row
    v = {"name": version, "served": True, "storage": True,
         "schema": {"openAPIV3Schema": {
             "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    if status:
        v["subresources"] = {"status": {}}
    return {"apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "%s.%s" % (plural, group)},
            "spec": {"group": group, "scope": scope, "versions": [v],
                     "names": {"kind": kind, "listKind": kind + "List",
                               "plural": plural,
                               "singular": kind.lower()}}}


def full(d):
    """Whether d has every full CRD."""
    return bool(d) and all(os.path.isfile(os.path.join(d, f)) for f in FILES)


def load(d):
    """The CRDs to install: d's when it has them all, else minimal ones;
    and whether they are the full ones."""
    if not full(d):
        return [minimal(k) for k in KINDS], False
    import yaml
    out = []
    for f in FILES:
        with open(os.path.join(d, f)) as fh:
            out.append(yaml.safe_load(fh))
    return out, True


def torch_distributed(d):
    """The torch-distributed ClusterTrainingRuntime: d's example, else
    ours."""
    p = os.path.join(d or "", "examples", "torch-distributed-runtime.yaml")
    if not os.path.isfile(p):
        return TORCH_DISTRIBUTED
    import yaml
    with open(p) as fh:
        return yaml.safe_load(fh)
