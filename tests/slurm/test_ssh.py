#!/usr/bin/env python3
"""tests/slurm/test_ssh.py - paictl's commands on a Slurm cluster reached
through SSH to its login node (ssh://user@host:port, issue 37), with no
use of slurmrestd, against the REAL Slurm 24.11 of Debian 13
(next_cluster.py: its sshd is the login node; sbatch, squeue, sacct,
scontrol and scancel run there). A working directory with spaces, quotes
and $() in its name, a partition that is none, a refused key, a host key
that changed, a login key of the profile's own (--identity), a Slurm
before 21.08 (no --json: --format), an answer lost when the connection
dies after sbatch ran.

    test_ssh.py [-v] [-k PATTERN]      (PAICTL, default build/paictl;
                                        SUITE, default trixie)

One line per check, `ok` or `FAIL`, and a summary; exit 1 on a failure.
Loopback only; every process started is stopped (stop.sh).
"""
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "kube"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import next_cluster  # noqa: E402
from tap import check, results  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))
PAICTL = os.environ.get("PAICTL", os.path.join(TOP, "build", "paictl"))
VERBOSE = "-v" in sys.argv
ONLY = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
SUITE = os.environ.get("SUITE", "trixie")
# a directory name the remote shell would expand, split or choke on
ODD = "wd it's \"q\" $(touch PWNED) `touch PWNED2` ;x"


class Case:
    """A HOME with a profile `hpc` on the login node, for one case."""

    def __init__(self, c, name, user="root", extra=(), add=True):
        self.c, self.name = c, name
        self.dir = tempfile.mkdtemp(prefix="paictl-ssh-")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PAICTL_", "XDG_", "SLURM"))}
        self.env.update(HOME=self.dir, LC_ALL="C", TZ="UTC", USER="root")
        self.env.pop("SSH_AUTH_SOCK", None)
        os.makedirs(os.path.join(self.dir, ".ssh"), mode=0o700)
        shutil.copy(c.ssh_key, os.path.join(self.dir, ".ssh", "id_ed25519"))
        self.url = "ssh://%s@127.0.0.1:%d" % (user, c.ssh_port)
        self.work = os.path.join(c.work, ODD)
        os.makedirs(self.work, exist_ok=True)
        if add:
            # the nodes' sshd: here the login node's too
            self.added = self.run("cluster", "add", "hpc", "--slurm",
                                  self.url, "--workdir", self.work,
                                  "--ssh-port", str(c.ssh_port), *extra)
            self.run("cluster", "use", "hpc")

    def file(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))
        return path

    def run(self, *args, timeout=120):
        if VERBOSE:
            print("# paictl " + " ".join(args))
        r = subprocess.run([PAICTL] + list(args), cwd=self.dir, env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        if VERBOSE:
            print("# exit %d\n# stdout: %s\n# stderr: %s" % (
                r.returncode, r.stdout[:3000], r.stderr[:3000]))
        return r

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def job(name, roles, cpus=(1, 1)):
    """A v1 config: roles is [(name, count, command)], role i of cpus[i]
    (roles of different cpus: a heterogeneous job)."""
    return {"jobName": name, "image": "debian", "taskRoles": [
        {"name": r, "taskNumber": n, "cpuNumber": cpus[i], "memoryMB": 100,
         "gpuNumber": 0, "command": cmd}
        for i, (r, n, cmd) in enumerate(roles)]}


def squeue_names(c):
    r = c.slurm("squeue", "-h", "-a", "-t", "all", "-o", "%j")
    return r.stdout.split()


def no_pwned(c):
    found = glob.glob(os.path.join(c.work, "**", "PWNED*"), recursive=True)
    found += glob.glob("/PWNED*") + glob.glob(os.path.join(c.work, "PWNED*"))
    return found


# ---- the whole of a job's life over SSH --------------------------------------

def t_job(c):
    k = Case(c, "job")
    try:
        check("cluster add: says the Slurm that answered",
              k.added.returncode == 0 and
              ("Slurm %s answered" % c.version) in k.added.stdout,
              (k.added.returncode, k.added.stdout, k.added.stderr))
        check("cluster add: the login node's key learned, said as OpenSSH "
              "says it", "permanently added '[127.0.0.1]:%d' (ssh-ed25519)"
              % c.ssh_port in k.added.stderr, k.added.stderr)
        path = k.file("j.json", job("sshjob", [
            ("a", 1, "echo A-$PAI_TASK_INDEX; pwd"),
            ("b", 2, "echo B-$PAI_TASK_INDEX")], cpus=(1, 2)))
        r = k.run("submit", path)
        check("submit over SSH: exits 0", r.returncode == 0,
              (r.returncode, r.stderr))
        r = k.run("wait", "sshjob", timeout=180)
        check("wait: SUCCEEDED", r.returncode == 0 and
              "SUCCEEDED" in r.stdout + r.stderr,
              (r.returncode, r.stdout, r.stderr))
        st = json.loads(k.run("status", "sshjob", "-o", "json").stdout)
        check("status -o json: three tasks, each SUCCEEDED", [
            t["taskState"] for role in st["taskRoles"].values()
            for t in role["taskStatuses"]] == ["SUCCEEDED"] * 3,
            st.get("taskRoles"))
        r = k.run("logs", "sshjob", "a", "0")
        check("logs: the task's output, in the odd working directory",
              r.returncode == 0 and "A-0" in r.stdout and ODD in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        r = k.run("logs", "sshjob", "b", "1")
        check("logs: the second component's task (a heterogeneous job)",
              r.returncode == 0 and r.stdout.strip() == "B-1",
              (r.returncode, r.stdout, r.stderr))
        r = k.run("list")
        check("list: the job", r.returncode == 0 and "sshjob" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        scripts = glob.glob(os.path.join(k.work, "sshjob", "*", "job.sh"))
        check("the batch script went over SFTP into --workdir",
              len(scripts) == 1, scripts)
        check("no word reached the shell unquoted", not no_pwned(c),
              no_pwned(c))
        before = squeue_names(c).count("sshjob")
        r = k.run("submit", path)
        check("name in use: exit 7, in words, no job made",
              r.returncode == 7 and "exists already" in r.stderr and
              squeue_names(c).count("sshjob") == before == 2,
              (r.returncode, r.stderr, before, squeue_names(c)))
    finally:
        k.close()


def t_stop(c):
    k = Case(c, "stop")
    try:
        path = k.file("j.json", job("sshstop", [("a", 1, "sleep 300")]))
        r = k.run("submit", path)
        check("stop: submitted", r.returncode == 0, r.stderr)
        for _ in range(60):
            st = json.loads(k.run("status", "sshstop", "-o", "json").stdout)
            tasks = st.get("taskRoles", {}).get("a", {}).get(
                "taskStatuses", [])
            if tasks and tasks[0]["taskState"] == "RUNNING":
                break
            time.sleep(1)
        r = k.run("ssh", "sshstop", "a", "0", "--",
                  "echo idx=$PAI_TASK_INDEX; exit 3")
        check("ssh to the running task: its environment, its exit status",
              r.returncode == 3 and "idx=0" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        r = k.run("ssh-config", "sshstop")
        check("ssh-config: the nodes through the login node (ProxyJump)",
              r.returncode == 0 and "ProxyJump paictl-hpc-login\n" in
              r.stdout and "Port %d\n" % c.ssh_port in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        # plain OpenSSH through that jump (the jump host's key and
        # known_hosts given for it in the same file; here the login node
        # and the nodes are one address: named apart, or ssh sees a loop)
        cfg = k.file("ssh_config", r.stdout.replace(
            "ProxyJump root@127.0.0.1:", "ProxyJump root@localhost:") + (
            "\nHost localhost\n    HostName 127.0.0.1\n"
            "    IdentityFile %s\n"
            "    UserKnownHostsFile %s\n"
            "    StrictHostKeyChecking accept-new\n" % (
                c.ssh_key, os.path.join(k.dir, "jump_known"))))
        host = r.stdout.split()[1] if r.stdout.startswith("Host ") else "?"
        r = subprocess.run(["ssh", "-F", cfg, "-o", "BatchMode=yes", host,
                            "echo through-the-jump"], capture_output=True,
                           text=True, timeout=60)
        check("ssh-config: plain ssh gets in through the login node",
              r.returncode == 0 and "through-the-jump" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        r = k.run("stop", "--wait", "sshstop", timeout=120)
        check("stop --wait over SSH: scancel, STOPPED",
              r.returncode == 0 and "STOPPED" in r.stderr,
              (r.returncode, r.stderr))
        st = json.loads(k.run("status", "sshstop", "-o", "json").stdout)
        check("status: STOPPED (CANCELLED)",
              st["jobStatus"]["state"] == "STOPPED" and
              st["jobStatus"]["subState"] == "CANCELLED", st["jobStatus"])
    finally:
        k.close()


def t_partition(c):
    """A partition with a blank and $(): one word to sbatch, refused by
    Slurm in its own words."""
    k = Case(c, "part", extra=("--partition", "no-such"))
    try:
        path = k.file("j.json", job("sshpart", [("a", 1, "true")]))
        r = k.run("submit", path)
        check("a partition that is none: sbatch's refusal said",
              r.returncode != 0 and "invalid partition" in r.stderr.lower(),
              (r.returncode, r.stderr))
        check("a partition that is none: no job", "sshpart" not in
              squeue_names(c), squeue_names(c))
    finally:
        k.close()


def t_refused_key(c):
    k = Case(c, "refused", user="nobody")
    try:
        check("cluster add: a refused key exits 5, said, not kept",
              k.added.returncode == 5 and "refused" in k.added.stderr and
              "hpc" not in k.run("cluster", "list").stdout.split(),
              (k.added.returncode, k.added.stderr))
    finally:
        k.close()


def t_identity(c):
    """--identity: a key that is not the default one logs in to the
    login node; kept in the profile (made absolute), used by every
    command; another key, or none, refused."""
    k = Case(c, "identity", add=False)
    auth = os.path.join(os.path.dirname(c.ssh_key), "authorized_keys")
    before = open(auth).read()
    try:
        os.unlink(os.path.join(k.dir, ".ssh", "id_ed25519"))
        os.makedirs(os.path.join(k.dir, "keys"))
        for name in ("hpc key", "other"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                            "-f", os.path.join(k.dir, "keys", name)],
                           check=True)
        with open(auth, "a") as f:
            f.write(open(os.path.join(k.dir, "keys", "hpc key.pub")).read())
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work)
        check("identity: without it (no default key, no agent) refused, "
              "not kept", r.returncode != 0 and
              "hpc" not in k.run("cluster", "list").stdout.split(),
              (r.returncode, r.stderr))
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work, "--identity", "keys/other")
        check("identity: a key the login node refuses: exit 5, not kept",
              r.returncode == 5 and
              "hpc" not in k.run("cluster", "list").stdout.split(),
              (r.returncode, r.stderr))
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work, "--identity", "keys/hpc key")
        check("identity: cluster add logs in with it",
              r.returncode == 0 and "answered on the login node" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        r = k.run("cluster", "list", "-o", "json")
        prof = [p for p in json.loads(r.stdout) if p["name"] == "hpc"] \
            if r.returncode == 0 else []
        want = os.path.join(k.dir, "keys", "hpc key")
        check("identity: kept in the profile, absolute",
              len(prof) == 1 and
              prof[0].get("slurm", {}).get("identityFile") == want,
              (r.stdout, r.stderr))
        r = k.run("-c", "hpc", "list")
        check("identity: a later command logs in with it",
              r.returncode == 0, (r.returncode, r.stderr))
        t_identity_nodes(c, k, want)
        r = k.run("cluster", "add", "rest", "--slurm", "https://x.test",
                  "--identity", "keys/hpc key")
        check("identity: not with slurmrestd (exit 2)", r.returncode == 2,
              (r.returncode, r.stderr))
    finally:
        with open(auth, "w") as f:
            f.write(before)
        k.close()


def t_identity_nodes(c, k, key):
    """The profile's identity (no default key, no agent here) also
    reaches the task's node through the login node, and ssh-config's
    login block names it."""
    r = k.run("cluster", "add", "hpcn", "--slurm", k.url, "--workdir",
              k.work, "--identity", key, "--ssh-port", str(c.ssh_port))
    check("identity: a profile with the nodes' port", r.returncode == 0,
          r.stderr)
    k.run("cluster", "use", "hpcn")
    path = k.file("i.json", job("sshid", [("a", 1, "sleep 300")]))
    r = k.run("submit", path)
    check("identity: submitted", r.returncode == 0, r.stderr)
    check("identity: the task runs", running(k, "sshid"))
    r = ssh_in(k, ["sshid", "a", "0", "--", "echo via-identity"])
    check("identity: paictl ssh to the node logs in with it",
          r.returncode == 0 and b"via-identity" in r.stdout,
          (r.returncode, r.stdout, r.stderr))
    r = k.run("ssh-config", "sshid")
    check("identity: ssh-config's login block names it",
          r.returncode == 0 and
          ('IdentityFile "%s"' % key in r.stdout or
           "IdentityFile %s" % key in r.stdout), (r.stdout, r.stderr))
    k.run("stop", "sshid")
    k.run("cluster", "use", "hpc")


# A login node's Slurm before 21.08: squeue and sacct know no --json. The
# key's forced command puts wrappers first on PATH that refuse --json as
# those did (and count it), else run the real command; SFTP as ever.
GATE = """#!/bin/sh
case "$SSH_ORIGINAL_COMMAND" in
internal-sftp) exec /usr/lib/openssh/sftp-server ;;
esac
PATH=%s:$PATH
export PATH
exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"
"""
OLD = """#!/bin/sh
for a in "$@"; do
  case "$a" in --json*)
    echo "%(prog)s: unrecognized option '--json'" >&2
    echo "Try \\"%(prog)s --help\\" for more information." >&2
    echo %(prog)s >> %(log)s
    exit 1 ;;
  esac
done
exec /usr/bin/%(prog)s "$@"
"""


def gated_login(c, k, tag, progs):
    """Key keys/<tag> in k's HOME, let in to the login node with progs
    ({name: script}, in <work>/<tag>bin, given {"prog", "log"}) first on
    PATH; (the authorized_keys as they were, the wrappers' log)."""
    bindir = os.path.join(c.work, tag + "bin")
    log = os.path.join(bindir, "log")
    os.makedirs(bindir, exist_ok=True)
    for prog, text in progs.items():
        with open(os.path.join(bindir, prog), "w") as f:
            f.write(text % {"prog": prog, "log": log})
        os.chmod(os.path.join(bindir, prog), 0o755)
    with open(os.path.join(bindir, "gate"), "w") as f:
        f.write(GATE % bindir)
    os.chmod(os.path.join(bindir, "gate"), 0o755)
    os.makedirs(os.path.join(k.dir, "keys"), exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    os.path.join(k.dir, "keys", tag)], check=True)
    auth = os.path.join(os.path.dirname(c.ssh_key), "authorized_keys")
    before = open(auth).read()
    with open(auth, "a") as f:
        f.write('command="%s" %s' % (
            os.path.join(bindir, "gate"),
            open(os.path.join(k.dir, "keys", tag + ".pub")).read()))
    return before, log


def old_login(c, k):
    """A login node of a Slurm before 21.08 (as gated_login())."""
    return gated_login(c, k, "old", {"squeue": OLD, "sacct": OLD})


# sbatch that makes the job, then (the first time) cuts the SSH
# connection it came on (its sshd-session processes) before its answer
# goes back: a lost answer.
LOST = """#!/bin/sh
[ "$1" = --version ] && exec /usr/bin/sbatch --version
first=yes
[ -s %(log)s ] && first=
/usr/bin/sbatch "$@" >/dev/null 2>&1
echo sbatch >> %(log)s
[ "$first" ] || exec /usr/bin/sbatch --version >/dev/null
p=$$
while [ "$p" -gt 1 ]; do
  up=$(cut -d' ' -f4 /proc/$p/stat)
  [ "$(cat /proc/$p/comm)" = sshd-session ] && kill -9 "$p"
  p=$up
done
sleep 10
"""


def t_lost_answer(c):
    """The connection dies after sbatch made the job, before its answer
    is read: submit finds the job by its submission id (in --comment)
    on a new connection, and makes no second one."""
    k = Case(c, "lost", add=False)
    before, log = gated_login(c, k, "lost", {"sbatch": LOST})
    auth = os.path.join(os.path.dirname(c.ssh_key), "authorized_keys")
    try:
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work, "--identity", "keys/lost")
        check("lost answer: cluster add", r.returncode == 0, r.stderr)
        path = k.file("j.json", job("sshlost", [("a", 1, "sleep 2")]))
        r = k.run("-c", "hpc", "submit", path, timeout=180)
        runs = refusals(log)
        check("lost answer: sbatch ran once, its connection cut",
              runs == ["sbatch"], runs)
        check("lost answer: submit succeeds, the job found, said so",
              r.returncode == 0 and "was lost, but the job is there" in
              r.stderr, (r.returncode, r.stdout, r.stderr))
        names = squeue_names(c)
        check("lost answer: one job, not two",
              names.count("sshlost") == 1, names)
        r = k.run("-c", "hpc", "wait", "sshlost", timeout=180)
        check("lost answer: the job found runs to its end",
              r.returncode == 0, (r.returncode, r.stderr))
    finally:
        with open(auth, "w") as f:
            f.write(before)
        k.close()


def refusals(log):
    try:
        return open(log).read().split()
    except OSError:
        return []


def t_old_slurm(c):
    """squeue refusing --json: status, list and wait read its --format
    columns, asking --json once a command."""
    k = Case(c, "old", add=False)
    before, log = old_login(c, k)
    auth = os.path.join(os.path.dirname(c.ssh_key), "authorized_keys")
    try:
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work, "--identity", "keys/old")
        check("old Slurm: cluster add", r.returncode == 0, r.stderr)
        path = k.file("j.json", job("sshold", [
            ("a", 2, "echo old-$PAI_TASK_INDEX")]))
        r = k.run("-c", "hpc", "submit", path)
        check("old Slurm: submit", r.returncode == 0, r.stderr)
        r = k.run("-c", "hpc", "wait", "sshold", timeout=180)
        check("old Slurm: wait SUCCEEDED (squeue --format)",
              r.returncode == 0, (r.returncode, r.stderr))
        n = len(refusals(log))
        r = k.run("-c", "hpc", "status", "sshold", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        ts = st.get("taskRoles", {}).get("a", {}).get("taskStatuses", [])
        check("old Slurm: status SUCCEEDED, both tasks, their exit codes",
              st.get("jobStatus", {}).get("state") == "SUCCEEDED" and
              len(ts) == 2 and
              all(t.get("containerExitCode") == 0 for t in ts),
              (r.returncode, r.stderr, st.get("jobStatus")))
        check("old Slurm: --json refused once in that command, then "
              "--format", refusals(log)[n:] == ["squeue"],
              refusals(log)[n:])
        r = k.run("-c", "hpc", "list")
        check("old Slurm: list", r.returncode == 0 and "sshold" in
              r.stdout, (r.returncode, r.stdout, r.stderr))
        r = k.run("-c", "hpc", "logs", "sshold", "a", "1")
        check("old Slurm: logs", r.returncode == 0 and
              r.stdout.strip() == "old-1", (r.returncode, r.stdout,
                                             r.stderr))
    finally:
        with open(auth, "w") as f:
            f.write(before)
        k.close()


def t_host_key_changed(c):
    k = Case(c, "hostkey")
    try:
        known = [os.path.join(d, f) for d, _, fs in os.walk(k.dir)
                 for f in fs if d.endswith("known_hosts") and
                 not f.endswith(".lock")]
        check("the login node's key is recorded", len(known) == 1, known)
        if not known:
            return
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                        os.path.join(k.dir, "other")], check=True)
        other = open(os.path.join(k.dir, "other.pub")).read().split()
        lines = []
        for ln in open(known[0]).read().splitlines():
            w = ln.split()
            lines.append(" ".join([w[0]] + other[:2]) if len(w) >= 3 else ln)
        with open(known[0], "w") as f:
            f.write("\n".join(lines) + "\n")
        r = k.run("list")
        check("a login node whose key changed: refused, said",
              r.returncode != 0 and "not the one recorded" in r.stderr,
              (r.returncode, r.stderr))
    finally:
        k.close()


def t_remote_dir(c):
    """A working directory only the cluster sees (its private /run): the
    script goes and the logs come over SFTP on the login connection."""
    work = "/run/" + ODD
    r = c.slurm("mkdir", "-p", work)
    k = Case(c, "remote", add=False)
    try:
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  work)
        check("remote dir: cluster add", r.returncode == 0, r.stderr)
        check("remote dir: not seen here", not os.path.exists(work), work)
        path = k.file("j.json", job("sshremote", [
            ("a", 2, "echo R-$PAI_TASK_INDEX")]))
        r = k.run("-c", "hpc", "submit", path)
        check("remote dir: submit", r.returncode == 0, r.stderr)
        r = k.run("-c", "hpc", "wait", "sshremote", timeout=180)
        check("remote dir: SUCCEEDED", r.returncode == 0,
              (r.returncode, r.stderr))
        r = k.run("-c", "hpc", "status", "sshremote", "-o", "json")
        ts = json.loads(r.stdout)["taskRoles"]["a"]["taskStatuses"] \
            if r.returncode == 0 else []
        check("remote dir: status has each task's record (node, address, "
              "ports, exit code) over the login connection",
              len(ts) == 2 and all(
                  t.get("containerExitCode") == 0 and t.get("containerIp")
                  and t.get("containerPorts") for t in ts),
              (r.returncode, r.stderr, ts))
        r = k.run("-c", "hpc", "logs", "sshremote", "a", "1")
        check("remote dir: logs over the login connection",
              r.returncode == 0 and r.stdout.strip() == "R-1",
              (r.returncode, r.stdout, r.stderr))
        r = k.run("-c", "hpc", "logs", "-f", "sshremote", "a", "0")
        check("remote dir: logs -f of an ended job ends",
              r.returncode == 0 and "R-0" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
    finally:
        k.close()


class Counter:
    """A TCP relay in front of the login node's sshd that counts the
    connections made through it (count) and the bytes it carries back
    from the login node (down)."""

    def __init__(self, port):
        self.port, self.count, self.down = port, 0, 0
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(16)
        self.srv.settimeout(0.2)
        self.me = self.srv.getsockname()[1]
        self.stop = False
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        while not self.stop:
            try:
                a, _ = self.srv.accept()
            except OSError:
                continue
            self.count += 1
            b = socket.create_connection(("127.0.0.1", self.port))
            for x, y, back in ((a, b, False), (b, a, True)):
                threading.Thread(target=self.pipe, args=(x, y, back),
                                 daemon=True).start()

    def pipe(self, x, y, back):
        try:
            while True:
                d = x.recv(65536)
                if not d:
                    break
                if back:
                    self.down += len(d)
                y.sendall(d)
        except OSError:
            pass
        for s in (x, y):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.t.join()
        self.srv.close()


def t_one_connection(c):
    """Each command: one SSH connection to the login node, whatever it
    asks there (squeue, sacct, SFTP, sbatch), a wait's polls included."""
    relay = Counter(c.ssh_port)
    k = Case(c, "oneconn", add=False)
    work = "/run/one " + ODD  # only the cluster sees it: SFTP for logs
    c.slurm("mkdir", "-p", work)
    try:
        k.url = "ssh://root@127.0.0.1:%d" % relay.me
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  work)
        check("one connection: cluster add", r.returncode == 0, r.stderr)
        path = k.file("j.json", job("sshone", [
            ("a", 1, "echo one"), ("b", 2, "echo two")], cpus=(1, 2)))
        for args in (("submit", path), ("wait", "sshone"),
                     ("status", "sshone"), ("logs", "sshone", "b", "1"),
                     ("list",)):
            before = relay.count
            r = k.run("-c", "hpc", *args, timeout=180)
            check("one connection: %s" % args[0],
                  r.returncode == 0 and relay.count - before == 1,
                  (r.returncode, relay.count - before, r.stderr))
    finally:
        k.close()
        relay.close()


def t_forgotten(c):
    """Run last: slurmctld forgets ended jobs from now on; status and
    list read them from accounting, sacct --json on the login node."""
    k = Case(c, "forgotten")
    old = Case(c, "forgotten-old", add=False)
    before, log = old_login(c, old)
    auth = os.path.join(os.path.dirname(c.ssh_key), "authorized_keys")
    try:
        c.forget_after(2)
        path = k.file("j.json", job("sshforgot", [("a", 2, "exit 0")]))
        r = k.run("submit", "--wait", path, timeout=180)
        check("forgotten: ran", r.returncode == 0, r.stderr)
        gone = False
        for _ in range(90):
            if "sshforgot" not in squeue_names(c):
                gone = True
                break
            time.sleep(1)
        check("forgotten: slurmctld no longer knows the job", gone)
        r = k.run("status", "sshforgot", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check("forgotten: status SUCCEEDED from accounting (sacct --json)",
              st.get("jobStatus", {}).get("state") == "SUCCEEDED" and
              st.get("slurm", {}).get("accounting") is True,
              (r.returncode, r.stderr, st.get("slurm")))
        r = k.run("list")
        check("forgotten: list shows it from accounting",
              r.returncode == 0 and "sshforgot" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        # a Slurm before 21.08: sacct's --format columns
        r = old.run("cluster", "add", "hpc", "--slurm", old.url,
                    "--workdir", k.work, "--identity", "keys/old")
        n = len(refusals(log))
        r = old.run("-c", "hpc", "status", "sshforgot", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check("forgotten, old Slurm: status SUCCEEDED from sacct "
              "--format",
              st.get("jobStatus", {}).get("state") == "SUCCEEDED" and
              st.get("slurm", {}).get("accounting") is True and
              refusals(log)[n:] == ["squeue"],
              (r.returncode, r.stderr, st.get("slurm"), refusals(log)[n:]))
        r = old.run("-c", "hpc", "list")
        check("forgotten, old Slurm: list shows it from sacct --format",
              r.returncode == 0 and "sshforgot" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
    finally:
        with open(auth, "w") as f:
            f.write(before)
        old.close()
        k.close()


# ---- paictl ssh to a task's node through the login node (j37b) -------------

def running(k, name, role="a"):
    """Waits (60 s at most) for task 0 of role to run: True when it
    does."""
    for _ in range(60):
        r = k.run("status", name, "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        tasks = st.get("taskRoles", {}).get(role, {}).get(
            "taskStatuses", [])
        if tasks and tasks[0]["taskState"] == "RUNNING":
            return True
        time.sleep(1)
    return False


def ssh_in(k, args, data=None, timeout=120):
    """paictl ssh with bytes for its input; the result in bytes."""
    return subprocess.run([PAICTL, "ssh"] + list(args), cwd=k.dir,
                          env=k.env, input=data, capture_output=True,
                          timeout=timeout)


def shell_in_pty(k, args, keys, timeout=60):
    """paictl ssh ARGS on a terminal of its own, keys typed into it:
    its exit status and what the terminal showed."""
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(k.dir)
        os.execve(PAICTL, [PAICTL, "ssh"] + list(args), k.env)
    out, sent, end = b"", False, time.time() + timeout
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not sent and (ready or out):
            time.sleep(0.5)  # the remote shell's prompt
            os.write(fd, keys)
            sent = True
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
    else:
        os.kill(pid, 9)
    _, st = os.waitpid(pid, 0)
    os.close(fd)
    return (os.WEXITSTATUS(st) if os.WIFEXITED(st) else -1), out


def t_jump(c):
    """paictl ssh JOB ROLE INDEX: to the task's node through the login
    node, on the command's one connection to it (a relay in front of
    the login node counts connections and the bytes it carries)."""
    import hashlib
    relay = Counter(c.ssh_port)
    k = Case(c, "jump", add=False)
    try:
        k.url = "ssh://root@127.0.0.1:%d" % relay.me
        r = k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
                  k.work, "--ssh-port", str(c.ssh_port))
        check("jump: cluster add", r.returncode == 0, r.stderr)
        k.run("cluster", "use", "hpc")
        path = k.file("j.json", job("sshjump", [("a", 1, "sleep 300")]))
        r = k.run("submit", path)
        check("jump: submitted", r.returncode == 0, r.stderr)
        check("jump: the task runs", running(k, "sshjump"))
        before, bytes_before = relay.count, relay.down
        r = ssh_in(k, ["sshjump", "a", "0", "--",
                       "echo idx=$PAI_TASK_INDEX; pwd; echo to-err >&2; "
                       "head -c 3000000 /dev/zero | wc -c; cat; exit 3"],
                   b"from-stdin\n")
        out = r.stdout.decode(errors="replace")
        check("jump: the task's environment, directory, stdin, stdout, "
              "stderr and exit status",
              r.returncode == 3 and "idx=0" in out and
              out.rstrip().endswith("from-stdin") and
              os.path.join(k.work, "sshjump") in out and
              "/a-0" in out and b"to-err" in r.stderr,
              (r.returncode, out, r.stderr))
        check("jump: one connection to the login node for the whole "
              "command", relay.count - before == 1,
              relay.count - before)
        r = ssh_in(k, ["sshjump", "a", "0", "--",
                       "head -c 3000000 /dev/zero"])
        check("jump: the node's session crossed the login connection "
              "(3 MB out through the login node's relay)",
              r.returncode == 0 and len(r.stdout) == 3000000 and
              relay.down - bytes_before > 3000000,
              (r.returncode, len(r.stdout), relay.down - bytes_before))
        data = os.urandom(1 << 20)
        r = ssh_in(k, ["sshjump", "a", "0", "--", "sha256sum"], data)
        check("jump: 1 MiB of input, every byte through",
              r.returncode == 0 and r.stdout.decode().split()[:1] ==
              [hashlib.sha256(data).hexdigest()],
              (r.returncode, r.stdout[:100], r.stderr))
        r = ssh_in(k, ["-t", "sshjump", "a", "0", "--", "tty"])
        check("jump: -t gives the command a terminal",
              r.returncode == 0 and b"/dev/pts/" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
        r = ssh_in(k, ["sshjump", "a", "0", "--", "exit 0"])
        check("jump: exit 0", r.returncode == 0, (r.returncode, r.stderr))
        status, out = shell_in_pty(k, ["sshjump", "a", "0"],
                                   b"echo $PAI_TASK_INDEX-in-a-shell; "
                                   b"tty; exit 5\r")
        check("jump: no command on a terminal: a shell on a terminal of "
              "the node's, in the task's environment, its status",
              status == 5 and b"0-in-a-shell" in out and b"/dev/pts/" in out,
              (status, out[-600:]))
        jump_config(k, c, relay)
        # the node's key, recorded under its own name, changed
        known = [os.path.join(d, f) for d, _, fs in os.walk(k.dir)
                 for f in fs if d.endswith("known_hosts") and
                 not f.endswith(".lock")]
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                        os.path.join(k.dir, "other")], check=True)
        other = open(os.path.join(k.dir, "other.pub")).read().split()
        text = open(known[0]).read().splitlines() if known else []
        node = [ln for ln in text if ln.startswith("a-0@")]
        check("jump: the node's key recorded apart from the login node's",
              len(node) == 1 and any(ln.startswith("[127.0.0.1]:%d " %
                                                   relay.me) for ln in text),
              text)
        with open(known[0], "w") as f:
            f.write("\n".join(
                " ".join(ln.split()[:1] + other[:2])
                if ln.startswith("a-0@") else ln for ln in text) + "\n")
        r = ssh_in(k, ["sshjump", "a", "0", "--", "echo in"])
        check("jump: a node whose key changed is refused, 255, said",
              r.returncode == 255 and b"not the one recorded" in r.stderr
              and b"in" not in r.stdout, (r.returncode, r.stderr))
        k.run("stop", "sshjump")
    finally:
        k.close()
        relay.close()


def jump_config(k, c, relay):
    """ssh-config: the login node's block, which the node's names as its
    ProxyJump; plain OpenSSH through it with the file as written, both
    hosts' keys checked in paictl's known_hosts."""
    r = k.run("ssh-config", "sshjump")
    blocks = r.stdout.split("\n\n")
    login = [b for b in blocks if b.startswith("Host paictl-hpc-login\n")]
    check("ssh-config: the task's block names the login node's block",
          r.returncode == 0 and blocks[0].startswith("Host sshjump-a-0\n")
          and "    ProxyJump paictl-hpc-login\n" in blocks[0] + "\n",
          (r.returncode, r.stdout, r.stderr))
    check("ssh-config: the login node's block: its address, port, user, "
          "key and paictl's known_hosts",
          len(login) == 1 and all(x in login[0] for x in (
              "HostName 127.0.0.1\n", "Port %d\n" % relay.me, "User root\n",
              "IdentityFile %s/.ssh/id_ed25519\n" % k.dir,
              "StrictHostKeyChecking accept-new")) and
          "UserKnownHostsFile" in login[0], (r.stdout, r.stderr))
    cfg = k.file("ssh_config", r.stdout)
    before = relay.count
    r = subprocess.run(["ssh", "-F", cfg, "-o", "BatchMode=yes",
                        "sshjump-a-0", "echo through-$PAI_TASK_INDEX"],
                       capture_output=True, text=True, timeout=60)
    check("ssh-config: plain ssh through the login node, the file as "
          "written", r.returncode == 0 and "through-" in r.stdout and
          relay.count - before == 1, (r.returncode, r.stdout, r.stderr,
                                      relay.count - before))
    j = k.run("ssh-config", "sshjump", "-o", "json")
    arr = json.loads(j.stdout) if j.returncode == 0 else []
    check("ssh-config -o json: the task's block and the login node's",
          [b.get("Host") for b in arr] == ["sshjump-a-0",
                                           "paictl-hpc-login"] and
          arr[0].get("ProxyJump") == "paictl-hpc-login",
          (j.returncode, j.stdout, j.stderr))


def t_jump_unreachable(c):
    """A node the login node cannot reach: said, 255, the login
    connection fine."""
    k = Case(c, "jumpno", add=False)
    try:
        k.run("cluster", "add", "hpc", "--slurm", k.url, "--workdir",
              k.work, "--ssh-port", str(slurm_port_free()))
        k.run("cluster", "use", "hpc")
        path = k.file("j.json", job("sshjumpno", [("a", 1, "sleep 300")]))
        r = k.run("submit", path)
        check("unreachable node: submitted", r.returncode == 0, r.stderr)
        check("unreachable node: the task runs", running(k, "sshjumpno"))
        r = ssh_in(k, ["sshjumpno", "a", "0", "--", "true"])
        check("unreachable node: 255, the login node's word said",
              r.returncode == 255 and b"cannot be reached from 127.0.0.1"
              in r.stderr, (r.returncode, r.stderr))
        k.run("stop", "sshjumpno")
    finally:
        k.close()


def slurm_port_free():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


CASES = [t_job, t_one_connection, t_remote_dir, t_stop, t_partition,
         t_refused_key, t_identity, t_old_slurm, t_lost_answer,
         t_host_key_changed, t_jump, t_jump_unreachable, t_forgotten]


def main():
    t0 = time.time()
    why = next_cluster.build(SUITE)
    if why:
        print("# slurm over ssh (%s): skipped: %s" % (SUITE, why))
        return 0
    with next_cluster.Cluster(SUITE, accounting=True, nodes=2) as c:
        print("# Slurm %s (%s) through its login node's sshd" % (
            c.version, SUITE))
        for case in CASES:
            if ONLY and ONLY not in case.__name__:
                continue
            try:
                case(c)
            except Exception:
                check(case.__name__ + " ran to its end", False,
                      traceback.format_exc())
    print("%d passed, %d failed (%.0f s)" % (
        results["ok"], results["fail"], time.time() - t0))
    return 1 if results["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
