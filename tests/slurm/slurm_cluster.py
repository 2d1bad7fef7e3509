"""tests/slurm/slurm_cluster.py - a real Slurm 22.05 cluster for the tests, in a
temporary directory: munged, slurmctld, four slurmd (nodes n1-n4 on
this host), slurmrestd with JWT (start.sh, stop.sh beside this file, from
shared/reference/slurm/), on free loopback ports so that several runs
share the machine. Also an sshd on a free port (the nodes' SSH) that
lets in a key made here.

    with cluster.Cluster() as c:
        c.url, c.token, c.env (SLURM_CONF for scontrol/sbatch), c.dir
        c.ssh_port, c.ssh_key
"""
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def port_free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        return True
    except OSError:
        return False
    finally:
        s.close()


def free_run(n):
    """n consecutive free ports (the slurmd's Port=[a-b] wants a run)."""
    for _ in range(200):
        base = random.randrange(30000, 59000)
        if all(port_free(base + i) for i in range(n)):
            return base
    raise RuntimeError("no %d free consecutive ports" % n)


class Cluster:
    def __init__(self, min_job_age=300, nodes=4):
        self.min_job_age, self.nodes = min_job_age, nodes
        self.sshd = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="paictl-slurm-")
        os.chmod(self.dir, 0o755)  # munged's socket directory and above
        base = free_run(self.nodes + 2)
        env = dict(os.environ, RESTD_PORT=str(base),
                   CTLD_PORT=str(base + 1),
                   SLURMD_PORT_BASE=str(base + 2), NNODES=str(self.nodes),
                   MIN_JOB_AGE=str(self.min_job_age))
        env.pop("SLURM_JWT", None)
        r = subprocess.run(["bash", os.path.join(HERE, "start.sh"),
                            os.path.join(self.dir, "c")], env=env,
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("start.sh: " + r.stderr[-3000:])
        for line in r.stdout.splitlines():
            if line.startswith("SLURMRESTD "):
                self.url = line.split()[1]
            elif line.startswith("SLURM_JWT="):
                self.token = line[len("SLURM_JWT="):]
        self.conf = os.path.join(self.dir, "c", "etc", "slurm.conf")
        self.env = {"SLURM_CONF": self.conf}
        self.work = os.path.join(self.dir, "work")
        os.mkdir(self.work)
        os.chmod(self.work, 0o755)
        self.start_sshd()
        return self

    def start_sshd(self):
        """An sshd as the nodes' (root may log in with the key made
        here), on a free port."""
        d = os.path.join(self.dir, "ssh")
        os.mkdir(d, 0o700)
        self.ssh_key = os.path.join(d, "id_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                        "-f", self.ssh_key], check=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                        "-f", os.path.join(d, "host")], check=True)
        shutil.copy(self.ssh_key + ".pub", os.path.join(d, "authorized"))
        self.ssh_port = free_run(1)
        cfg = os.path.join(d, "sshd_config")
        with open(cfg, "w") as f:
            f.write("Port %d\nListenAddress 127.0.0.1\nHostKey %s\n"
                    "AuthorizedKeysFile %s\nPermitRootLogin yes\n"
                    "PasswordAuthentication no\nUsePAM no\n"
                    "StrictModes no\nPidFile %s/sshd.pid\n"
                    "Subsystem sftp internal-sftp\n"
                    % (self.ssh_port, os.path.join(d, "host"),
                       os.path.join(d, "authorized"), d))
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        os.makedirs("/run/sshd", exist_ok=True)
        self.sshd = subprocess.Popen([sshd, "-D", "-e", "-f", cfg],
                                     stderr=subprocess.DEVNULL)
        for _ in range(100):
            if not port_free(self.ssh_port):
                return
            time.sleep(0.05)
        raise RuntimeError("sshd did not listen")

    def slurm(self, *args):
        """A Slurm command (scontrol, squeue, sbatch) on this cluster."""
        return subprocess.run(list(args), env=dict(os.environ, **self.env),
                              capture_output=True, text=True, timeout=60)

    def forget_after(self, seconds):
        """slurmctld forgets finished jobs after seconds from now on."""
        with open(self.conf) as f:
            text = f.read()
        lines = [ln for ln in text.splitlines()
                 if not ln.startswith("MinJobAge=")]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines + ["MinJobAge=%d" % seconds]) + "\n")
        self.slurm("scontrol", "reconfigure")

    def __exit__(self, *exc):
        if self.sshd:
            self.sshd.terminate()
            self.sshd.wait(timeout=10)
        subprocess.run(["bash", os.path.join(HERE, "stop.sh"),
                        os.path.join(self.dir, "c")],
                       capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


def main(argv):
    """slurm_cluster.py run -- COMMAND [ARG...]: a cluster for COMMAND
    (its environment: PAI_SLURM_URL, PAI_SLURM_TOKEN, PAI_SLURM_WORK,
    SLURM_CONF), then everything stopped; COMMAND's exit status."""
    if len(argv) < 3 or argv[0] != "run" or argv[1] != "--":
        print("usage: slurm_cluster.py run -- COMMAND [ARG...]")
        return 2
    with Cluster() as c:
        env = dict(os.environ, PAI_SLURM_URL=c.url,
                   PAI_SLURM_TOKEN=c.token, PAI_SLURM_WORK=c.work, **c.env)
        return subprocess.run(argv[2:], env=env).returncode


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
