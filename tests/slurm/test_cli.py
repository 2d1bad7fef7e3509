#!/usr/bin/env python3
"""tests/slurm/test_cli.py - paictl's commands on Slurm profiles, against
a REAL Slurm: Debian 12's 22.05 (slurm_cluster.py: slurmctld, four slurmd,
slurmrestd with JWT, munge, and an sshd as the nodes'), or with SUITE=trixie
Debian 13's 24.11, SUITE=sid Debian unstable's newest (next_cluster.py: the
same in a Debian root of that suite, built once into ~/.cache/paictl, with
slurmdbd + MariaDB unless ACCOUNTING=0), text and JSON, as a user of issues
28 and 36 runs them.

    test_cli.py [-v] [-k PATTERN]      (PAICTL, default build/paictl;
                                        SUITE, ACCOUNTING)

PAICTL_WRAPPER, a command to run paictl under (valgrind -q ...), as
tests/cli/run.sh takes it.

One cluster serves every case (a HOME and profile each); the last case
makes slurmctld forget finished jobs (MinJobAge). One line per check,
`ok` or `FAIL`, and a summary; exit 1 on a failure. Loopback only; every
process started is stopped (stop.sh).
"""
import glob
import json
import os
import re
import shutil
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
import slurm_cluster  # noqa: E402
import next_cluster  # noqa: E402
import lossy  # noqa: E402  (tests/kube's, plain HTTP here)
from tap import check, results  # noqa: E402

TOP = os.path.dirname(os.path.dirname(HERE))
PAICTL = os.environ.get("PAICTL", os.path.join(TOP, "build", "paictl"))
VERBOSE = "-v" in sys.argv
ONLY = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
WRAPPER = os.environ.get("PAICTL_WRAPPER", "").split()
ENV_CMD = "env | grep -E '^(PAI_|LR=)' | sort"
SUITE = os.environ.get("SUITE", "bookworm")
ACCOUNTING = os.environ.get("ACCOUNTING", "1") != "0"


class Case:
    """A HOME with a profile `hpc` on the cluster (or url) for one case."""

    def __init__(self, c, name, url=None, extra=(), work=None):
        self.c, self.name = c, name
        self.dir = tempfile.mkdtemp(prefix="paictl-st-")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PAICTL_", "XDG_", "SLURM"))}
        self.env.update(HOME=self.dir, LC_ALL="C", TZ="UTC", USER="root")
        self.env.pop("SSH_AUTH_SOCK", None)
        self.token = self.file("token", "SLURM_JWT=%s\n" % c.token, 0o600)
        os.makedirs(os.path.join(self.dir, ".ssh"), mode=0o700)
        shutil.copy(c.ssh_key, os.path.join(self.dir, ".ssh", "id_ed25519"))
        r = self.run("cluster", "add", "hpc", "--slurm", url or c.url,
                     "--token-file", self.token, "--workdir", work or c.work,
                     "--ssh-port", str(c.ssh_port), *extra)
        if r.returncode:
            raise AssertionError("cluster add: " + r.stderr)
        self.run("cluster", "use", "hpc")

    def file(self, name, text, mode=0o644):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))
        os.chmod(path, mode)
        return path

    def run(self, *args, timeout=120, env=None, pre=()):
        if VERBOSE:
            print("# paictl " + " ".join(args))
        r = subprocess.run(list(pre) + WRAPPER + [PAICTL] + list(args),
                           cwd=self.dir,
                           env=env or self.env, capture_output=True,
                           text=True, timeout=timeout)
        if VERBOSE:
            print("# exit %d\n# stdout: %s\n# stderr: %s" % (
                r.returncode, r.stdout[:3000], r.stderr[:3000]))
        return r

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def job(name, roles, **extra):
    """A v1 config: roles is [(name, count, command, cpus)]."""
    cfg = {"jobName": name, "image": "debian", "taskRoles": []}
    for rname, n, cmd, cpus in roles:
        cfg["taskRoles"].append({
            "name": rname, "taskNumber": n, "cpuNumber": cpus,
            "memoryMB": 100, "gpuNumber": 0, "command": cmd})
    cfg.update(extra)
    return cfg


def squeue_names(c):
    r = c.slurm("squeue", "-h", "-a", "-t", "all", "-o", "%j")
    return r.stdout.split()


def lines_of(out):
    return [json.loads(x) for x in out.splitlines() if x.strip()]


# ---- a two-role job of different cpus to SUCCEEDED, $PAI_* in every task ---

def task_env(logs_json):
    """role-index -> {NAME: value} from `logs -o json` lines (stdout's)."""
    out = {}
    for ln in logs_json:
        if ln["stream"] != "stdout":
            continue
        n, _, v = ln["line"].partition("=")
        out.setdefault("%s-%d" % (ln["role"], ln["index"]), {})[n] = v
    return out


def placed(name, value):
    """expand's placeholders stand for what only a run has."""
    return "<" in value


def t_two_roles(c):
    k = Case(c, "two")
    try:
        cfg = job("two", [("server", 2, ENV_CMD, 1),
                          ("worker", 1, ENV_CMD + "; echo err >&2", 2)],
                  jobEnvs={"LR": "0.01 $x 'q'"})
        path = k.file("two.json", cfg)
        r = k.run("submit", "--wait", path)
        check("two roles: submit --wait exits 0 (SUCCEEDED)",
              r.returncode == 0, r.stderr)
        check("two roles: stdout is the job's name", r.stdout == "two\n",
              r.stdout)
        check("two roles: the image is said to be unused",
              "slurm-image" in r.stderr, r.stderr)
        st = json.loads(k.run("status", "two", "-o", "json").stdout)
        tasks = [t for role in st["taskRoles"].values()
                 for t in role["taskStatuses"]]
        check("two roles: status SUCCEEDED, 3 tasks each SUCCEEDED exit 0",
              st["jobStatus"]["state"] == "SUCCEEDED" and len(tasks) == 3
              and all(t["taskState"] == "SUCCEEDED" and
                      t["containerExitCode"] == 0 for t in tasks), st)
        check("two roles: every task has its node",
              all(t.get("containerNodeName", "").startswith("n")
                  for t in tasks), tasks)
        shown = c.slurm("scontrol", "show", "job", "-o").stdout
        comps = sorted(re.search(r"NumTasks=(\d+) CPUs/Task=(\d+)",
                                 ln).groups()
                       for ln in shown.splitlines() if "JobName=two " in ln)
        check("two roles: a heterogeneous job, one component per role "
              "with its tasks and cpus", comps == [("1", "2"), ("2", "1")],
              comps)
        env = task_env(lines_of(k.run("logs", "two", "-o", "json").stdout))
        check("two roles: every task's log read", sorted(env) ==
              ["server-0", "server-1", "worker-0"], sorted(env))
        bad, compared = [], 0
        for key, got in env.items():
            role, idx = key.rsplit("-", 1)
            want = json.loads(k.run("expand", path, role, idx, "--target",
                                    "slurm", "-o",
                                    "json").stdout)["tasks"][0]["env"]
            want = {e["name"]: e["value"] for e in want} \
                if isinstance(want, list) else want
            for n, v in want.items():
                if not (n.startswith("PAI_") or n == "LR"):
                    continue
                if n not in got:
                    bad.append((key, n, "missing"))
                elif not placed(n, v):
                    compared += 1
                    if got[n] != v:
                        bad.append((key, n, got[n], v))
        check("two roles: each task's $PAI_* and jobEnvs are expand "
              "--target slurm's", not bad and compared > 100,
              (compared, bad[:10]))
        hosts = env["worker-0"].get("PAI_TASK_ROLE_server_HOST_LIST", "")
        ports = [env["server-%d" % i].get("PAI_CONTAINER_HOST_PORT")
                 for i in range(2)]
        check("two roles: the host list is host:port by index",
              hosts == "127.0.0.1:%s,127.0.0.1:%s" % tuple(ports), hosts)
        allports = [v for e in env.values() for n, v in e.items()
                    if n == "PAI_CONTAINER_HOST_PORT_LIST"]
        nums = re.findall(r"\d+", ",".join(allports))
        check("two roles: no two tasks take one port", len(nums) ==
              len(set(nums)) == 6, allports)
        r = k.run("logs", "two", "worker", "0", "--stream", "stderr")
        check("two roles: logs --stream stderr", r.stdout == "err\n",
              r.stdout)
        r = k.run("logs", "two", "worker", "0")
        check("two roles: logs shows both files, stderr's lines marked",
              r.returncode == 0 and
              r.stdout.splitlines()[-1:] == ["stderr | err"] and
              "PAI_TASK_INDEX=0" in r.stdout.splitlines(), r.stdout)
        r = k.run("logs", "two", "worker", "0", "-o", "json")
        check("two roles: logs -o json names each line's stream",
              [(x["stream"], x["line"]) for x in lines_of(r.stdout)
               if x["stream"] == "stderr"] == [("stderr", "err")], r.stdout)
        r = k.run("status", "two")
        check("two roles: status in text", r.returncode == 0 and
              re.search(r"state:\s+SUCCEEDED", r.stdout) and
              "worker  0" in r.stdout, r.stdout)
        r = k.run("list", "-o", "json")
        check("two roles: list has the job", r.returncode == 0 and any(
            j.get("name") == "two" for j in json.loads(r.stdout)), r.stdout)
    finally:
        k.close()


def t_failing_task(c):
    k = Case(c, "fail")
    try:
        path = k.file("f.json", job("fail9", [
            ("main", 2, "[ $PAI_TASK_INDEX = 1 ] && exit 9; sleep 30", 1)],
            retryCount=2))
        t0 = time.time()
        r = k.run("submit", "--wait", path)
        check("failing task: submit --wait exits 9 (FAILED)",
              r.returncode == 9, (r.returncode, r.stderr))
        check("failing task: retryCount kept, no warning",
              "slurm-retry" not in r.stderr, r.stderr)
        check("failing task: the others are not waited for",
              time.time() - t0 < 25, time.time() - t0)
        st = json.loads(k.run("status", "fail9", "-o", "json").stdout)
        t1 = st["taskRoles"]["main"]["taskStatuses"][1]
        check("failing task: job FAILED, exit code 9",
              st["jobStatus"]["state"] == "FAILED" and
              st["jobStatus"].get("appExitCode") == 9, st["jobStatus"])
        check("failing task: task main-1 FAILED with its code 9",
              t1["taskState"] == "FAILED" and t1["containerExitCode"] == 9,
              t1)
        t0 = st["taskRoles"]["main"]["taskStatuses"][0]
        check("failing task: main-0, ended by the job's end, STOPPED",
              t0["taskState"] == "STOPPED", t0)
        check("failing task: retryCount 2: run 3 times, retries: 2, each "
              "earlier attempt's exit code kept",
              st["jobStatus"].get("retries") == 2 and
              [a.get("containerExitCode") for a in t1.get("attempts", [])]
              == [9, 9], (st["jobStatus"], t1))
        r = k.run("status", "fail9")
        check("failing task: status says retries: 2",
              re.search(r"retries:\s+2", r.stdout), r.stdout)
    finally:
        k.close()


def t_retry(c):
    """retryCount: a failed attempt run again in the same allocation,
    each attempt's logs its own (logs --attempt K), the latest by
    default; a stopped job is not run again."""
    k = Case(c, "retry")
    try:
        cmd = ("if [ -e ../tried ]; then echo second; else touch ../tried; "
               "echo first; exit 4; fi")
        path = k.file("r.json", job("retry1", [("a", 1, cmd, 1)],
                                    retryCount=3))
        r = k.run("submit", "--wait", path)
        check("retry: a failed attempt run again: SUCCEEDED, exit 0",
              r.returncode == 0, (r.returncode, r.stderr))
        st = json.loads(k.run("status", "retry1", "-o", "json").stdout)
        t = st["taskRoles"]["a"]["taskStatuses"][0]
        check("retry: retries 1, the first attempt's exit code 4",
              st["jobStatus"].get("retries") == 1 and
              [a.get("containerExitCode") for a in t.get("attempts", [])]
              == [4] and t.get("containerExitCode") == 0,
              (st["jobStatus"], t))
        r = k.run("logs", "retry1")
        check("retry: logs shows the latest attempt", r.stdout == "second\n",
              (r.stdout, r.stderr))
        r = k.run("logs", "--attempt", "0", "retry1")
        check("retry: logs --attempt 0 the first", r.stdout == "first\n",
              (r.stdout, r.stderr))
        r = k.run("logs", "--attempt", "1", "retry1")
        check("retry: logs --attempt 1 the latest", r.stdout == "second\n",
              (r.stdout, r.stderr))
        r = k.run("logs", "--attempt", "5", "retry1")
        check("retry: no attempt 5: exit 4, in words",
              r.returncode == 4 and "no attempt 5" in r.stderr,
              (r.returncode, r.stderr))
        path = k.file("s.json", job("retry2", [("a", 1, "sleep 60", 1)],
                                    retryCount=3))
        k.run("submit", path)
        for _ in range(100):
            st = json.loads(k.run("status", "retry2", "-o", "json").stdout)
            if st["taskRoles"]["a"]["taskStatuses"][0]["taskState"] == \
                    "RUNNING":
                break
            time.sleep(0.2)
        r = k.run("stop", "--wait", "retry2")
        st = json.loads(k.run("status", "retry2", "-o", "json").stdout)
        check("retry: a stopped job is not run again",
              st["jobStatus"]["state"] == "STOPPED" and
              st["jobStatus"].get("retries") == 0, st["jobStatus"])
    finally:
        k.close()


def t_min_succeeded(c):
    """A parameter server runs until its workers succeed
    (minSucceededTaskCount): the job then SUCCEEDED, the server
    stopped; a role with minFailedTaskCount null fails no job."""
    k = Case(c, "minsucc")
    try:
        cfg = job("psworker", [("ps", 1, "sleep 60", 1),
                               ("worker", 2, "exit $PAI_TASK_INDEX", 1)])
        cfg["taskRoles"][1]["minSucceededTaskCount"] = 1
        cfg["taskRoles"][1]["minFailedTaskCount"] = None
        t0 = time.time()
        r = k.run("submit", "--wait", k.file("j.json", cfg))
        check("minSucceededTaskCount: the job SUCCEEDED once a worker did",
              r.returncode == 0 and time.time() - t0 < 30,
              (r.returncode, r.stderr, time.time() - t0))
        st = json.loads(k.run("status", "psworker", "-o", "json").stdout)
        ps = st["taskRoles"]["ps"]["taskStatuses"][0]
        check("minSucceededTaskCount: the parameter server STOPPED",
              ps["taskState"] == "STOPPED", ps)
    finally:
        k.close()


V2 = """protocolVersion: 2
name: yamljob
type: job
prerequisites:
  - {type: dockerimage, uri: debian, name: img}
parameters: {LR: '0.5'}
taskRoles:
  learner:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands:
      - echo learner $PAI_TASK_INDEX of $PAI_TASK_ROLE_TASK_COUNT_learner
"""


def t_v2_yaml(c):
    k = Case(c, "v2")
    try:
        path = k.file("job.yaml", V2)
        r = k.run("submit", "--wait", path)
        check("protocol-v2: submit --wait exits 0", r.returncode == 0,
              r.stderr)
        r = k.run("logs", "yamljob", "learner", "1")
        check("protocol-v2: the task ran its command with its environment",
              r.stdout == "learner 1 of 2\n", (r.stdout, r.stderr))
    finally:
        k.close()


def t_name_in_use(c):
    k = Case(c, "inuse")
    try:
        path = k.file("j.json", job("inuse", [("a", 1, "sleep 60", 1)]))
        r1 = k.run("submit", path)
        r2 = k.run("submit", path)
        check("name in use: the second submission exits 7",
              r1.returncode == 0 and r2.returncode == 7,
              (r1.stderr, r2.returncode, r2.stderr))
        check("name in use: said in words", "exists already" in r2.stderr,
              r2.stderr)
        check("name in use: one job in Slurm",
              squeue_names(c).count("inuse") == 1, squeue_names(c))
        r = k.run("stop", "--wait", "inuse")
        check("stop --wait: exits 0 with STOPPED", r.returncode == 0 and
              "STOPPED" in r.stderr, (r.returncode, r.stderr))
        st = json.loads(k.run("status", "inuse", "-o", "json").stdout)
        check("stop: status STOPPED (CANCELLED)",
              st["jobStatus"]["state"] == "STOPPED" and
              st["jobStatus"]["subState"] == "CANCELLED", st["jobStatus"])
        r = k.run("delete", "inuse")
        check("delete: refused in words: the name frees itself",
              r.returncode == 1 and "MinJobAge" in r.stderr,
              (r.returncode, r.stderr))
    finally:
        k.close()


def t_at_once(c):
    """Two clients submit one name at the same moment: one job."""
    k = Case(c, "once")
    try:
        path = k.file("j.json", job("atonce", [("a", 1, "sleep 30", 1)]))
        out = []
        ts = [threading.Thread(target=lambda: out.append(
            k.run("submit", path))) for _ in range(3)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        codes = sorted(r.returncode for r in out)
        time.sleep(0.5)
        alive = c.slurm("squeue", "-h", "-n", "atonce", "-t",
                        "PD,R", "-o", "%i").stdout.split()
        check("at once: one submission succeeds, the others exit 7",
              codes == [0, 7, 7], [(r.returncode, r.stderr) for r in out])
        check("at once: one job of the name left", len(alive) == 1, alive)
        k.run("stop", "atonce")
    finally:
        k.close()


def t_batch(c):
    """Many jobs in one submit: Slurm's queue read once for the batch
    (not once per job), each job posted once, a name in use (an earlier
    job's, or twice in the batch) refused with exit 7 and not posted."""
    k = Case(c, "batch")
    try:
        k.run("submit", k.file("pre.json", job("bpre", [("a", 1, "sleep 30",
                                                          1)])))
        paths = [k.file("b%d.json" % i, job("b%d" % i, [("a", 1, "true", 1)]))
                 for i in range(5)]
        paths.append(k.file("again.json", job("b2", [("a", 1, "true", 1)])))
        paths.append(k.file("pre2.json", job("bpre", [("a", 1, "true", 1)])))
        r = k.run("-vv", "submit", *paths)
        lists = re.findall(r"^> GET /slurm/v[0-9.]+/jobs/? ", r.stderr, re.M)
        posts = re.findall(r"^> POST /slurm/v[0-9.]+/job/submit ", r.stderr,
                           re.M)
        check("batch: the queue read once for 7 jobs, 5 posted",
              len(lists) == 1 and len(posts) == 5,
              (len(lists), len(posts), r.stderr[-1500:]))
        check("batch: the names in use exit 7, in words",
              r.returncode == 7 and
              r.stderr.count("exists already") == 2, r.stderr[-1500:])
        names = squeue_names(c)
        check("batch: one job of each name in Slurm",
              all(names.count(n) == 1 for n in
                  ("b0", "b1", "b2", "b3", "b4", "bpre")), names)
        # one name 8 times in a batch: its submissions, however many go
        # at once, wait for the one under way, then see its job
        same = [k.file("same%d.json" % i, job("bsame", [("a", 1, "true", 1)]))
                for i in range(8)]
        r = k.run("-vv", "submit", *same)
        posts = re.findall(r"^> POST /slurm/v[0-9.]+/job/submit ", r.stderr,
                           re.M)
        check("batch of one name 8 times: posted once, 7 refused (exit 7)",
              r.returncode == 7 and len(posts) == 1 and
              r.stderr.count("exists already") == 7 and
              r.stdout == "bsame\n", (len(posts), r.stdout, r.stderr[-800:]))
        check("batch of one name: one job of it in Slurm",
              squeue_names(c).count("bsame") == 1, squeue_names(c))
        k.run("stop", "bpre")
    finally:
        k.close()


def t_odd_workdir(c):
    """A working directory of blanks, quotes, '%' and $(): jobs run there,
    their logs' URLs percent-encoded and read here and over SFTP (no
    shell on the way runs the $()), and a retried job's retries told
    where the directory is reachable only over SFTP."""
    odd = os.path.join(c.work, "sp ace'q\"$(touch pwned)%41 #?")
    os.makedirs(odd, exist_ok=True)
    os.chmod(odd, 0o777)
    k = Case(c, "odd", extra=("--ssh-host", "127.0.0.1"), work=odd)
    hide = ["unshare", "-m", "sh", "-c",
            'mount -t tmpfs none "$0" && exec "$@"', c.work]
    try:
        cmd = ("if [ -e ../tried ]; then echo second; else touch ../tried; "
               "echo first; exit 4; fi")
        r = k.run("submit", "--wait", k.file("o.json", job(
            "oddjob", [("a", 1, cmd, 1)], retryCount=2)))
        check("odd workdir: the job ran there, retried once: exit 0",
              r.returncode == 0 and glob.glob(os.path.join(
                  glob.escape(odd), "oddjob", "*", "a-0")),
              (r.returncode, r.stderr))
        st = json.loads(k.run("status", "oddjob", "-o", "json").stdout)
        t = st["taskRoles"]["a"]["taskStatuses"][0]
        log = t.get("containerLog") or ""
        check("odd workdir: the log's URL percent-encoded",
              log.startswith("file://") and
              "sp%20ace%27q%22%24%28touch%20pwned%29%2541%20%23%3F" in log
              and not re.search(r"[ '\"$()#?]", log[7:]), log)
        r = k.run("logs", "oddjob")
        check("odd workdir: logs read here", r.returncode == 0 and
              r.stdout == "second\n", (r.returncode, r.stdout, r.stderr))
        if not shutil.which("unshare"):
            check("odd workdir over SFTP: skipped (no unshare)", True)
            return
        r = k.run("status", "oddjob", "-o", "json", pre=hide)
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        t = (st.get("taskRoles", {}).get("a", {})
             .get("taskStatuses", [{}]))[0]
        check("elsewhere: retries 1 read over SFTP, each attempt's exit",
              st.get("jobStatus", {}).get("retries") == 1 and
              t.get("containerExitCode") == 0 and
              [a.get("containerExitCode") for a in t.get("attempts", [])]
              == [4] and (t.get("containerLog") or "").startswith("sftp://"),
              (r.returncode, r.stderr, st.get("jobStatus"), t))
        r = k.run("status", "oddjob", pre=hide)
        check("elsewhere: status says retries: 1",
              re.search(r"retries:\s+1", r.stdout), (r.stdout, r.stderr))
        r = k.run("logs", "oddjob", pre=hide)
        check("elsewhere: the odd directory's log read over SFTP",
              r.returncode == 0 and r.stdout == "second\n",
              (r.returncode, r.stdout, r.stderr))
        r = k.run("logs", "--attempt", "0", "oddjob", pre=hide)
        check("elsewhere: logs --attempt 0 over SFTP", r.returncode == 0 and
              r.stdout == "first\n", (r.returncode, r.stdout, r.stderr))
        pwned = glob.glob(os.path.join(glob.escape(c.work), "**", "pwned"),
                          recursive=True) + glob.glob(
            os.path.join(k.dir, "**", "pwned"), recursive=True)
        check("odd workdir: no shell ran its $()", not pwned, pwned)
    finally:
        k.close()


def t_list_since(c):
    """list --since TIME: the jobs created at TIME or later; -n N the
    newest N; a TIME that is none: exit 2."""
    k = Case(c, "since")
    try:
        k.run("submit", k.file("a.json", job("since1", [("a", 1, "true",
                                                         1)])))
        time.sleep(1.2)
        t = int(time.time()) + 1
        time.sleep(2.2)
        k.run("submit", k.file("b.json", job("since2", [("a", 1, "true",
                                                         1)])))

        def names(*args):
            r = k.run("list", "-o", "json", *args)
            return [j["name"] for j in json.loads(r.stdout)] \
                if r.returncode == 0 else r.stderr
        got = names("--since", "@%d" % t)
        check("list --since: only the job created since", "since2" in got
              and "since1" not in got, got)
        got = names("--since", "1h")
        check("list --since 1h: both", "since1" in got and "since2" in got,
              got)
        got = names("--since", time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                             time.gmtime(t)))
        check("list --since an ISO time (UTC): only the later job",
              "since2" in got and "since1" not in got, got)
        got = names("-n", "1")
        check("list -n 1: the newest alone", got == ["since2"], got)
        r = k.run("list", "--since", "yesterday")
        check("list --since that is no time: exit 2, in words",
              r.returncode == 2 and "invalid --since" in r.stderr,
              (r.returncode, r.stderr))
    finally:
        k.close()


def t_invalid(c):
    k = Case(c, "invalid")
    try:
        bad = job("invalidjob", [("a", 1, "true", 1)])
        bad["taskRoles"][0]["memoryMB"] = 10
        r = k.run("submit", k.file("bad.json", bad))
        check("invalid config: exit 3 with the rule at its place",
              r.returncode == 3 and "bad.json:" in r.stderr and
              "min-memory" in r.stderr, (r.returncode, r.stderr))
        check("invalid config: nothing submitted",
              "invalidjob" not in squeue_names(c), squeue_names(c))
    finally:
        k.close()


def t_logs_follow(c):
    k = Case(c, "follow")
    try:
        cmd = "for i in 1 2 3 4 5; do echo line $i; sleep 0.4; done"
        path = k.file("j.json", job("follow", [("w", 2, cmd, 1)]))
        r = k.run("submit", path)
        check("logs -f: submitted", r.returncode == 0, r.stderr)
        d = os.path.join(c.work, "follow")
        check("submit: the job's directory made before the job runs, so "
              "that logs -f waits for the logs in it",
              os.path.isdir(d) and len(os.listdir(d)) == 1,
              os.listdir(c.work))
        r = k.run("logs", "-f", "follow", "w", "1", timeout=60)
        check("logs -f: every line once, to the end", r.returncode == 0 and
              r.stdout == "".join("line %d\n" % i for i in range(1, 6)),
              (r.returncode, r.stdout, r.stderr))
        r = k.run("logs", "-f", "follow", timeout=60)
        check("logs -f of every task: prefixed, each once",
              sorted(r.stdout.splitlines()) == sorted(
                  "w-%d | line %d" % (t, i) for t in (0, 1)
                  for i in range(1, 6)), r.stdout)
        r = k.run("logs", "--tail", "2", "follow", "w", "0")
        check("logs --tail 2", r.stdout == "line 4\nline 5\n", r.stdout)
    finally:
        k.close()


def t_ssh(c):
    k = Case(c, "ssh")
    try:
        path = k.file("j.json", job("sshjob", [("w", 2, "sleep 60", 1)]))
        k.run("submit", path)
        for _ in range(100):
            st = json.loads(k.run("status", "sshjob", "-o", "json").stdout)
            if all(t["taskState"] == "RUNNING" for t in
                   st["taskRoles"]["w"]["taskStatuses"]):
                break
            time.sleep(0.2)
        r = k.run("ssh", "sshjob", "w", "1", "--",
                  "echo $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX $(pwd); "
                  "exit 3")
        check("ssh: the remote exit status comes back", r.returncode == 3,
              (r.returncode, r.stderr))
        check("ssh: in the task's directory with its $PAI_* environment",
              re.match(r"1 %s/sshjob/[^/]+/w-1\n$" % re.escape(c.work),
                       r.stdout), r.stdout)
        k.run("stop", "--wait", "sshjob")
    finally:
        k.close()


def t_lost_answer(c):
    with lossy.Proxy(c.url, None, None,
                     lose=[("POST", r"/job/submit$")]) as p:
        k = Case(c, "lost", url=p.url)
        try:
            path = k.file("j.json", job("lostjob", [("a", 1, "true", 1)]))
            r = k.run("submit", path)
            check("lost answer: the answer was lost", len(p.lost) == 1,
                  p.lost)
            check("lost answer: submit succeeds, finding its job",
                  r.returncode == 0 and r.stdout == "lostjob\n",
                  (r.returncode, r.stderr))
            posts = [s for s in p.seen if s[0] == "POST"]
            check("lost answer: posted once; one job",
                  len(posts) == 1 and
                  squeue_names(c).count("lostjob") == 1,
                  (posts, squeue_names(c)))
        finally:
            k.close()


def t_unchecked(c):
    """The check for an older job of the name, after the post, cannot be
    made (the jobs made since the client's listing cannot be read): the
    job just made is cancelled and the submission fails in words, exit 5,
    never a job of a name submitted blind."""
    with lossy.Proxy(c.url, None, None,
                     slow=[("POST", r"/job/submit$", 3)]) as p:
        k = Case(c, "unchecked", url=p.url)
        try:
            path = k.file("j.json", job("uncheck", [("a", 1, "sleep 30", 1)]))
            proc = subprocess.Popen(
                WRAPPER + [PAICTL, "submit", path], cwd=k.dir, env=k.env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(200):
                if any(m == "GET" and re.search(r"/jobs$", u) and st == 200
                       for m, u, st in p.seen):
                    break
                time.sleep(0.05)
            # a job made between the client's listing and its post, whose
            # reading then fails (every answer lost)
            gap = c.slurm("sbatch", "--parsable", "-o", "/dev/null",
                          "-D", c.work, "--wrap", "true")
            with p.lock:
                p.lose += [("GET", r"/job/\d+$")] * 12 + \
                    [("GET", r"/jobs$")] * 12
            out, err = proc.communicate(timeout=180)
            check("unchecked: a job made meanwhile", gap.returncode == 0,
                  gap.stderr)
            check("unchecked: the submission fails, exit 5, in words",
                  proc.returncode == 5 and "cannot be checked" in err and
                  "is cancelled" in err, (proc.returncode, err))
            alive = c.slurm("squeue", "-h", "-n", "uncheck", "-t", "PD,R",
                            "-o", "%i").stdout.split()
            check("unchecked: the job just made is cancelled, none left",
                  alive == [] and out == "", (alive, out))
        finally:
            k.close()


def t_ports_full(c):
    """No free port range after 256 tries: refused in words, never two
    jobs on one range. Run first: no other job's range in the way of
    the first 25000."""
    k = Case(c, "ports")
    try:
        many = [{"label": "p", "beginAt": 0, "portNumber": 25000}]
        a = job("portsa", [("a", 1, "sleep 30", 1)])
        a["taskRoles"][0]["portList"] = many
        b = job("portsb", [("a", 1, "sleep 30", 1)])
        b["taskRoles"][0]["portList"] = many
        r = k.run("submit", k.file("a.json", a))
        check("ports: a job holding 25000 ports submitted", r.returncode == 0,
              r.stderr)
        r = k.run("submit", k.file("b.json", b))
        check("ports: another of 25000 refused in words, exit 1",
              r.returncode == 1 and "no free range" in r.stderr,
              (r.returncode, r.stderr))
        check("ports: nothing submitted", "portsb" not in squeue_names(c),
              squeue_names(c))
        k.run("stop", "portsa")
    finally:
        k.close()


def t_version(c):
    """The slurmrestd version: found once (/openapi/v3, or 22.05's
    /openapi) and kept for the next runs; a version kept that the server
    no longer serves is found again."""
    with lossy.Proxy(c.url, None, None) as p:
        k = Case(c, "version", url=p.url)
        try:
            def asked():
                return len([u for m, u, _ in p.seen if "/openapi" in u])
            r = k.run("list")
            first = asked()
            check("version: the first run lists, asking the server's "
                  "OpenAPI document at most once",
                  r.returncode == 0 and first <= 1, (r.stderr, p.seen))
            r = k.run("list")
            check("version: the next run asks it not again",
                  r.returncode == 0 and asked() == first, p.seen)
            kept = os.path.join(k.dir, ".local/state/paictl/slurm/hpc.openapi")
            v = open(kept).read().split()[0]
            check("version: the version spoken kept (%s)" % v,
                  re.match(r"v0\.0\.\d+$", v) and
                  any("/slurm/%s/" % v in u for _, u, _ in p.seen), v)
            k.file(kept, "v0.0.39 %d\n" % time.time(), 0o600)
            r = k.run("list")
            check("version: one kept that is not served found again",
                  r.returncode == 0 and open(kept).read().split()[0] == v,
                  (r.stderr, open(kept).read()))
        finally:
            k.close()


class Newer:
    """A slurmrestd of a version newer than paictl knows, standing in
    for one that cannot run here: the real server's newest version
    (newest) served as v0.0.46 alone, its OpenAPI document's paths
    renamed so, every request passed on renamed back."""

    def __init__(self, url, newest):
        import http.server
        import urllib.request
        up, new = "/%s/" % newest, "/v0.0.46/"

        class H(http.server.BaseHTTPRequestHandler):
            def relay(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                if self.path.startswith("/slurm") and new not in self.path:
                    data = b"Unable find requested URL."
                    self.send_response(404)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                path = self.path.replace(new, up)
                rq = urllib.request.Request(url + path, data=body,
                                            method=self.command)
                for k in ("X-SLURM-USER-NAME", "X-SLURM-USER-TOKEN",
                          "Content-Type"):
                    if self.headers.get(k):
                        rq.add_header(k, self.headers[k])
                try:
                    with urllib.request.urlopen(rq, timeout=60) as r:
                        code, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    code, data = e.code, e.read()
                if self.path.startswith("/openapi") and code == 200:
                    doc = json.loads(data)
                    doc["paths"] = {k.replace(up, new): v
                                    for k, v in doc["paths"].items()
                                    if up in k}
                    data = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = relay

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def t_newer(c):
    """A slurmrestd that serves only a version newer than paictl knows:
    spoken as the newest paictl knows, said once with -v."""
    if SUITE == "bookworm":
        return  # 22.05's shapes are not the newest's
    n = Newer(c.url, c.versions[-1])
    k = Case(c, "newer", url=n.url)
    try:
        r = k.run("-v", "submit", "--wait", k.file("j.json", job(
            "newerjob", [("a", 1, "echo hi", 1)])))
        said = r.stderr.count("newer than paictl knows")
        check("newer: submit --wait through it succeeds, said once in -v",
              r.returncode == 0 and said == 1 and
              "openapi/v0.0.46" in r.stderr, (r.returncode, r.stderr))
        r = k.run("status", "newerjob", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check("newer: status read", st.get("jobStatus", {}).get("state") ==
              "SUCCEEDED", (r.stderr, st.get("jobStatus")))
        r = k.run("list")
        check("newer: without -v nothing said", r.returncode == 0 and
              "newer" not in r.stderr, r.stderr)
    finally:
        k.close()
        n.close()


def t_bad_token(c):
    k = Case(c, "token")
    try:
        k.file("token", "SLURM_JWT=" + c.token[:-4] + "AAAA\n", 0o600)
        r = k.run("status", "whatever")
        check("bad token: exit 5, in words", r.returncode == 5 and
              "token" in r.stderr and "scontrol token" in r.stderr,
              (r.returncode, r.stderr))
        # an expired token: said with the time its payload names
        r = c.slurm("scontrol", "token", "lifespan=1")
        short = r.stdout.strip().split("=", 1)[-1]
        time.sleep(2.5)
        k.file("token", "SLURM_JWT=%s\n" % short, 0o600)
        r = k.run("status", "whatever")
        check("expired token: exit 5, says when it expired",
              r.returncode == 5 and
              re.search(r"token expired at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC",
                        r.stderr) is not None,
              (r.returncode, r.stderr))
        os.chmod(k.token, 0o644)
        r = k.run("list")
        check("token file others can read: refused, exit 5",
              r.returncode == 5 and "chmod 600" in r.stderr, r.stderr)
        os.chmod(k.token, 0o600)
        k.file("token", "SLURM_JWT=%s\n" % c.token, 0o600)
        r = k.run("-vv", "list")
        check("-vv traces the requests, never the token",
              "X-SLURM-USER-TOKEN: ***" in r.stderr and
              c.token not in r.stderr and c.token[-20:] not in r.stderr,
              r.stderr[-2000:])
    finally:
        k.close()


def t_refused(c):
    k = Case(c, "refused", extra=("--partition", "nosuch"))
    try:
        path = k.file("j.json", job("refusedjob", [("a", 1, "true", 1)]))
        r = k.run("submit", path)
        check("unknown partition: refused in words, exit 1",
              r.returncode == 1 and "Invalid partition" in r.stderr,
              (r.returncode, r.stderr))
        check("unknown partition: no job directory left behind",
              not os.path.exists(os.path.join(c.work, "refusedjob")),
              os.listdir(c.work))
    finally:
        k.close()


def t_sftp_logs(c):
    """A client that does not see the job's directory reads the logs over
    SFTP from the profile's SSH host (its own mount namespace hides the
    directory)."""
    if not shutil.which("unshare"):
        check("sftp logs: skipped (no unshare)", True)
        return
    k = Case(c, "sftp", extra=("--ssh-host", "127.0.0.1"))
    try:
        path = k.file("j.json", job("sftpjob", [("a", 1, "seq 3", 1)]))
        r = k.run("submit", "--wait", path)
        hide = ["unshare", "-m", "sh", "-c",
                'mount -t tmpfs none "$0" && exec "$@"', c.work]
        r = k.run("logs", "sftpjob", pre=hide)
        check("sftp logs: read over SFTP where the directory is not seen",
              r.returncode == 0 and r.stdout == "1\n2\n3\n",
              (r.returncode, r.stdout, r.stderr))
        check("sftp logs: the new host's key said learned, as OpenSSH",
              "permanently added '[127.0.0.1]:%d'" % c.ssh_port in r.stderr,
              r.stderr)
        kh = os.path.join(k.dir, ".local/state/paictl/known_hosts/hpc")
        check("sftp logs: the host key recorded",
              os.path.exists(kh) and "127.0.0.1" in open(kh).read(),
              kh)
        r = k.run("logs", "sftpjob", pre=hide)
        check("sftp logs: a known host's key said nothing of",
              r.returncode == 0 and "permanently" not in r.stderr, r.stderr)
        strict = Case(c, "strict", extra=("--ssh-host", "127.0.0.1"))
        r = strict.run("logs", "--strict-host-keys", "sftpjob", pre=hide)
        skh = os.path.join(strict.dir, ".local/state/paictl/known_hosts/hpc")
        check("sftp logs: --strict-host-keys refuses an unknown host",
              r.returncode == 1 and "strict host key" in r.stderr and
              r.stdout == "" and (not os.path.exists(skh) or
                                  "127.0.0.1" not in open(skh).read()),
              (r.returncode, r.stdout, r.stderr))
        os.makedirs(os.path.dirname(skh), exist_ok=True)
        with open(skh, "w") as f:
            f.write("[127.0.0.1]:%d ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH"
                    "dEsPuzzwcJgOWMAz1T3lmzsYnFBhQhFhCMt4sg7mFP\n"
                    % c.ssh_port)
        r = strict.run("logs", "sftpjob", pre=hide)
        check("sftp logs: a changed host key refused, the file kept",
              r.returncode == 1 and "host key differs" in r.stderr and
              open(skh).read().count("\n") == 1,
              (r.returncode, r.stderr))
        strict.close()
        cfg = job("remote", [("a", 1, "sleep 60", 1), ("b", 1, "sleep 60", 2)])
        k.run("submit", k.file("r.json", cfg))
        for _ in range(100):
            r = k.run("status", "remote", "-o", "json", pre=hide)
            st = json.loads(r.stdout) if r.returncode == 0 else {}
            ts = [t for role in st.get("taskRoles", {}).values()
                  for t in role["taskStatuses"]]
            if ts and all(t["taskState"] == "RUNNING" for t in ts):
                break
            time.sleep(0.2)
        check("elsewhere: each task RUNNING on its node, from Slurm alone",
              ts and all(t.get("containerNodeName", "").startswith("n")
                         for t in ts), ts)
        # Slurm says RUNNING once the batch script runs; the task's own
        # directory comes with its step, a moment later
        for _ in range(100):
            if glob.glob(os.path.join(c.work, "remote", "*", "b-0")):
                break
            time.sleep(0.1)
        r = k.run("ssh", "remote", "b", "0", "--", "exit 4", pre=hide)
        check("elsewhere: ssh to the task's node", r.returncode == 4,
              (r.returncode, r.stderr))
        k.run("stop", "remote")
        plain = Case(c, "nosftp")
        r = plain.run("logs", "sftpjob", pre=hide)
        check("elsewhere, no --ssh-host: logs say where the files are not",
              r.returncode == 1 and "--ssh-host" in r.stderr,
              (r.returncode, r.stderr))
        plain.close()
    finally:
        k.close()


def t_forgotten(c):
    """Run last: slurmctld forgets finished jobs from now on. With
    accounting, their status and the list come from it (the job's
    comment kept: AccountingStoreFlags=job_comment), also where the job's
    directory is not seen; without, from the job's records."""
    k = Case(c, "forgotten")
    try:
        c.forget_after(2)
        path = k.file("j.json", job("forgot", [("a", 2, "exit 0", 1)]))
        r = k.run("submit", "--wait", path)
        bad = job("forgotbad", [("a", 1, "exit 3", 1), ("b", 1, "true", 2)])
        k.run("submit", "--wait", k.file("bad.json", bad))
        # a job of the user's, not paictl's, in the same directory
        c.slurm("sbatch", "-J", "notours", "-D", c.work, "-o", "/dev/null",
                "--wrap", "true")
        gone = False
        for _ in range(90):
            names = squeue_names(c)
            if "forgot" not in names and "forgotbad" not in names:
                gone = True
                break
            time.sleep(1)
        check("forgotten: slurmctld no longer knows the jobs", gone)
        r = k.run("status", "forgot", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check("forgotten: status SUCCEEDED, its tasks' exit codes",
              st.get("jobStatus", {}).get("state") ==
              "SUCCEEDED" and all(t["containerExitCode"] == 0 for t in
                                  st["taskRoles"]["a"]["taskStatuses"]),
              (r.returncode, r.stderr, st))
        acct = SUITE != "bookworm" and ACCOUNTING
        check("forgotten: read from accounting %s" % (
              "where it is" if acct else "(none here: from the records)"),
              st.get("slurm", {}).get("accounting", False) == acct and
              (not acct or st["jobStatus"].get("subState") == "COMPLETED"),
              st.get("slurm"))
        r = k.run("status", "forgotbad", "-o", "json")
        st = json.loads(r.stdout) if r.returncode == 0 else {}
        check("forgotten: a failed one FAILED, exit 3",
              st.get("jobStatus", {}).get("state") == "FAILED" and
              st["jobStatus"].get("appExitCode") == 3,
              (r.returncode, r.stderr, st.get("jobStatus")))
        r = k.run("list", "-o", "json")
        got = {j["name"]: j["state"]
               for j in (json.loads(r.stdout) if r.returncode == 0 else [])}
        if acct:
            check("forgotten: list shows them from accounting, and no job "
                  "that is not paictl's",
                  got.get("forgot") == "SUCCEEDED" and
                  got.get("forgotbad") == "FAILED" and "notours" not in got,
                  (r.stderr, got))
        if acct:
            t = int(time.time()) - 3600
            r = k.run("-vv", "list", "--since", "@%d" % t, "-o", "json")
            got = [j["name"] for j in
                   (json.loads(r.stdout) if r.returncode == 0 else [])]
            check("forgotten: list --since reads accounting from that time "
                  "on, the forgotten jobs among what it lists",
                  re.search(r"^> GET /slurmdb/v[0-9.]+/jobs\?\S*start_time=%d"
                            % t, r.stderr, re.M) and "forgot" in got and
                  "forgotbad" in got, (got, r.stderr[-1500:]))
            r = k.run("list", "--since", "@%d" % (int(time.time()) + 60),
                      "-o", "json")
            check("forgotten: list --since a later time: none",
                  r.returncode == 0 and json.loads(r.stdout) == [],
                  (r.returncode, r.stdout, r.stderr))
        if acct and shutil.which("unshare"):
            hide = ["unshare", "-m", "sh", "-c",
                    'mount -t tmpfs none "$0" && exec "$@"', c.work]
            r = k.run("status", "forgot", "-o", "json", pre=hide)
            st = json.loads(r.stdout) if r.returncode == 0 else {}
            check("forgotten, its directory not seen: from accounting "
                  "alone, its tasks from the comment",
                  st.get("jobStatus", {}).get("state") == "SUCCEEDED" and
                  len(st["taskRoles"]["a"]["taskStatuses"]) == 2,
                  (r.returncode, r.stderr, st))
    finally:
        k.close()


CASES = [t_ports_full, t_two_roles, t_failing_task, t_retry, t_min_succeeded, t_v2_yaml, t_name_in_use, t_at_once, t_batch,
         t_odd_workdir, t_list_since,
         t_invalid, t_logs_follow, t_ssh, t_lost_answer, t_unchecked,
         t_version, t_newer, t_bad_token,
         t_refused, t_sftp_logs, t_forgotten]


def cluster():
    """The suite's cluster, or None (said) when it cannot run here."""
    if SUITE == "bookworm":
        return slurm_cluster.Cluster()
    why = next_cluster.build(SUITE)
    if why:
        print("# slurm %s: skipped: %s" % (SUITE, why))
        return None
    return next_cluster.Cluster(SUITE, accounting=ACCOUNTING)


def main():
    t0 = time.time()
    c = cluster()
    if not c:
        return 0
    with c:
        if SUITE != "bookworm":
            print("# Slurm %s (%s), openapi %s, accounting %s" % (
                c.version, SUITE, " ".join(c.versions),
                "on" if ACCOUNTING else "off"))
        for case in CASES:
            if ONLY and not any(o in case.__name__ for o in ONLY.split(",")):
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
