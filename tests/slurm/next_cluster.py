"""tests/slurm/next_cluster.py - a real Slurm of a newer Debian for the
tests: trixie's 24.11 (slurmrestd v0.0.40-42) or, with suite "sid",
unstable's newest (26.05: v0.0.42-45), from a Debian root built once
into ~/.cache/paictl/slurm (next/build.sh, mmdebstrap) and run chroot'ed
in a private mount namespace (next/start.sh, stop.sh): munged, slurmctld,
four slurmd, slurmrestd with JWT, slurmdbd + MariaDB when accounting, and
an sshd as the nodes' and login node's, on free loopback ports. Slurm's
commands run inside the root (c.slurm).

    with next_cluster.Cluster("trixie", accounting=True) as c:
        c.url, c.token, c.work, c.ssh_port, c.ssh_key, c.slurm(...),
        c.forget_after(s), c.version, c.versions

Cluster.available(suite) says why a suite cannot run here (no root,
no mmdebstrap, the mirror unreachable), or None; building the root is
that call's (once, cached).
"""
import os
import shutil
import subprocess
import tempfile

import slurm_cluster
from slurm_cluster import free_run, port_free

HERE = os.path.dirname(os.path.abspath(__file__))
NEXT = os.path.join(HERE, "next")


def build(suite):
    """The suite's root, built when missing: None, or why not."""
    if os.geteuid() != 0:
        return "needs root (chroot, mount namespaces)"
    r = subprocess.run(["bash", os.path.join(NEXT, "build.sh")],
                       env=dict(os.environ, SUITE=suite),
                       capture_output=True, text=True, timeout=1800)
    if r.returncode:
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        return "no %s root (%s)" % (suite, last)
    return None


class Cluster:
    def __init__(self, suite="trixie", accounting=True, min_job_age=300,
                 nodes=4):
        self.suite, self.accounting = suite, accounting
        self.min_job_age, self.nodes = min_job_age, nodes

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="paictl-slurm-%s-" % self.suite)
        os.chmod(self.dir, 0o755)
        d = os.path.join(self.dir, "c")
        base = free_run(self.nodes + 3)
        ssh = free_run(1)
        env = dict(os.environ, SUITE=self.suite, RESTD_PORT=str(base),
                   CTLD_PORT=str(base + 1), DBD_PORT=str(base + 2),
                   SLURMD_PORT_BASE=str(base + 3), SSHD_PORT=str(ssh),
                   NNODES=str(self.nodes), MIN_JOB_AGE=str(self.min_job_age),
                   ACCOUNTING="1" if self.accounting else "0")
        env.pop("SLURM_JWT", None)
        r = subprocess.run(["bash", os.path.join(NEXT, "start.sh"), d],
                           env=env, capture_output=True, text=True,
                           timeout=300)
        if r.returncode:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("start.sh: " + r.stderr[-3000:])
        facts = {}
        with open(os.path.join(d, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                facts[k.replace("export ", "")] = v.strip('"')
        self.url = facts["SLURMRESTD_URL"]
        self.token = facts["SLURMRESTD_JWT"]
        self.version = facts.get("SLURM_VERSION", "?")
        self.versions = facts.get("SLURMRESTD_VERSIONS", "").split()
        self.ssh_port = int(facts["SLURM_SSH_PORT"])
        self.ssh_key = facts["SLURM_SSH_KEY"]
        self.inroot = facts["SLURM_INROOT"]
        self.conf = facts["SLURM_CONF"]
        self.work = os.path.join(d, "work")
        self.env = {}
        return self

    def slurm(self, *args):
        """A Slurm command (scontrol, squeue, sbatch) inside the root."""
        return subprocess.run([self.inroot] + list(args),
                              capture_output=True, text=True, timeout=60)

    # slurmctld forgets finished jobs after seconds from now on: as on
    # 22.05 (self.conf, self.slurm)
    forget_after = slurm_cluster.Cluster.forget_after

    def __exit__(self, *exc):
        subprocess.run(["bash", os.path.join(NEXT, "stop.sh"),
                        os.path.join(self.dir, "c")],
                       capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


def main(argv):
    """next_cluster.py SUITE run -- COMMAND [ARG...]: a cluster of SUITE
    for COMMAND (its environment: PAI_SLURM_URL, PAI_SLURM_TOKEN,
    PAI_SLURM_WORK, PAI_SLURM_OPENAPI the newest version it serves,
    PAI_SLURM_INROOT a command that runs Slurm's commands inside the
    root, PAI_SLURM_SSH_PORT and PAI_SLURM_SSH_KEY its login node's sshd
    and root's key there), then everything stopped; COMMAND's exit status. Exit 0 with
    one line where the suite cannot run here."""
    if len(argv) < 4 or argv[1] != "run" or argv[2] != "--":
        print("usage: next_cluster.py SUITE run -- COMMAND [ARG...]")
        return 2
    why = build(argv[0])
    if why:
        print("skipped: Slurm of %s: %s" % (argv[0], why))
        return 0
    with Cluster(argv[0]) as c:
        env = dict(os.environ, PAI_SLURM_URL=c.url, PAI_SLURM_TOKEN=c.token,
                   PAI_SLURM_WORK=c.work, PAI_SLURM_OPENAPI=c.versions[-1],
                   PAI_SLURM_INROOT=c.inroot,
                   PAI_SLURM_SSH_PORT=str(c.ssh_port),
                   PAI_SLURM_SSH_KEY=c.ssh_key,
                   PAI_SLURM_RELEASE="%s (%s)" % (c.version, argv[0]))
        return subprocess.run(argv[3:], env=env).returncode


__all__ = ["Cluster", "build", "port_free"]

if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
