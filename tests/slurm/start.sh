#!/bin/bash
# start.sh DIR -- start a throw-away one-host Slurm 22.05 cluster (munged,
# slurmctld, NNODES x slurmd, slurmrestd with JWT) whose every file lives under DIR.
# (shared/reference/slurm/start.sh, as the tests use it: cluster.py gives
# it free ports, so that several runs share this machine.)
# Prints, when ready:
#   SLURMRESTD http://127.0.0.1:PORT
#   SLURM_JWT=<token for root>
# and writes DIR/env (sourceable: SLURM_CONF, SLURMRESTD_URL, SLURMRESTD_JWT).
# Tunables (env): RESTD_PORT=6820 CTLD_PORT=16817 SLURMD_PORT_BASE=17001
#                 NNODES=4 CPUS=4 JWT_LIFESPAN=86400 START_TIMEOUT=30
#                 MIN_JOB_AGE=300 (seconds slurmctld keeps a finished job; no accounting here)
# Needs: root, Debian 12 packages slurmctld slurmd slurm-client slurmrestd
#        slurm-wlm-jwt-plugin munge curl.  Stop with: stop.sh DIR
set -u
DIR=${1:?usage: start.sh DIR}
RESTD_PORT=${RESTD_PORT:-6820}
CTLD_PORT=${CTLD_PORT:-16817}
SLURMD_PORT_BASE=${SLURMD_PORT_BASE:-17001}
NNODES=${NNODES:-4}
CPUS=${CPUS:-4}
JWT_LIFESPAN=${JWT_LIFESPAN:-86400}
START_TIMEOUT=${START_TIMEOUT:-30}
MIN_JOB_AGE=${MIN_JOB_AGE:-300}
HERE=$(cd "$(dirname "$0")" && pwd)

t_start=$(date +%s.%N)
mkdir -p "$DIR" || exit 1
DIR=$(cd "$DIR" && pwd)
if [ -e "$DIR/run/slurmctld.pid" ]; then
  echo "start.sh: $DIR seems in use (run/slurmctld.pid exists); use a fresh dir or stop.sh first" >&2
  exit 1
fi
mkdir -p "$DIR"/{etc,state,log,run,munge,work} || exit 1
chmod 0755 "$DIR" "$DIR/munge"   # munged: socket dir must be world-executable
HOST=$(hostname -s)
LAST=$((NNODES))
PORT_LAST=$((SLURMD_PORT_BASE + NNODES - 1))

fail() {
  echo "start.sh: FAILED: $*" >&2
  for f in "$DIR"/log/*.log "$DIR"/log/*.out "$DIR"/munge/munged.log; do
    [ -s "$f" ] && { echo "== $f" >&2; tail -n 5 "$f" >&2; }
  done
  "$HERE/stop.sh" "$DIR" >&2
  exit 1
}
# wait_for SECONDS CMD... : poll CMD every 0.1 s
wait_for() {
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}

# ---- keys ---------------------------------------------------------------
mungekey -c -k "$DIR/munge.key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
chmod 0400 "$DIR/munge.key"
dd if=/dev/urandom of="$DIR/jwt_hs256.key" bs=32 count=1 status=none
chmod 0600 "$DIR/jwt_hs256.key"

# ---- slurm.conf -----------------------------------------------------------
cat > "$DIR/etc/slurm.conf" <<EOF
ClusterName=lab
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$DIR/jwt_hs256.key
SlurmctldPort=$CTLD_PORT
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
EnforcePartLimits=ALL
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
MinJobAge=$MIN_JOB_AGE
SlurmdParameters=config_overrides
NodeName=n[1-$LAST] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=[$SLURMD_PORT_BASE-$PORT_LAST] CPUs=$CPUS RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
for i in $(seq 1 "$NNODES"); do mkdir -p "$DIR/spool/n$i"; done

export SLURM_CONF="$DIR/etc/slurm.conf"
unset SLURM_JWT
cd "$DIR" || exit 1

# ---- munged (daemonizes itself; returns once the socket is ready) --------
munged --key-file="$DIR/munge.key" --socket="$DIR/munge/munge.socket" \
       --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" \
       --seed-file="$DIR/munge/munged.seed" || fail "munged"
cp "$DIR/munge/munged.pid" "$DIR/run/munged.pid"
munge -n -S "$DIR/munge/munge.socket" | unmunge -S "$DIR/munge/munge.socket" >/dev/null \
  || fail "munge self-test"

# ---- slurmctld -------------------------------------------------------------
setsid slurmctld -D -f "$SLURM_CONF" >"$DIR/log/slurmctld.out" 2>&1 </dev/null &
echo $! > "$DIR/run/slurmctld.pid"
wait_for "$START_TIMEOUT" sh -c 'scontrol ping | grep -q UP' || fail "slurmctld did not answer"

# ---- slurmd x NNODES (Debian builds with --enable-multiple-slurmd) ----------
for i in $(seq 1 "$NNODES"); do
  setsid slurmd -D -N "n$i" -f "$SLURM_CONF" >"$DIR/log/slurmd-n$i.out" 2>&1 </dev/null &
  echo $! > "$DIR/run/slurmd-n$i.pid"
done
all_idle() { [ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$NNODES" ]; }
wait_for "$START_TIMEOUT" all_idle || fail "nodes not idle: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"

# ---- token + slurmrestd ----------------------------------------------------
TOKEN=$(scontrol token username=root lifespan="$JWT_LIFESPAN" | sed -n 's/^SLURM_JWT=//p')
[ -n "$TOKEN" ] || fail "scontrol token"
# slurmrestd refuses uid/gid 0 and SlurmUser (here root): drop to nobody with -u.
# SLURM_JWT=daemon makes it use auth/jwt (instead of munge) towards slurmctld.
# -s: the default plugin set includes openapi/dbv0.0.3x, which is fatal without slurmdbd.
SLURM_JWT=daemon setsid slurmrestd -u nobody -a rest_auth/jwt \
  -s openapi/v0.0.36,openapi/v0.0.37,openapi/v0.0.38 \
  "127.0.0.1:$RESTD_PORT" >"$DIR/log/slurmrestd.log" 2>&1 </dev/null &
echo $! > "$DIR/run/slurmrestd.pid"
ping_ok() {
  curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOKEN" \
       "http://127.0.0.1:$RESTD_PORT/slurm/v0.0.38/ping" | grep -q '"UP"'
}
wait_for "$START_TIMEOUT" ping_ok || fail "slurmrestd ping"

# NB: not exported as SLURM_JWT: with SLURM_JWT in the environment Slurm's own
# CLI switches to auth/jwt; squeue/sbatch still work but srun breaks.
cat > "$DIR/env" <<EOF
export SLURM_CONF=$SLURM_CONF
export SLURMRESTD_URL=http://127.0.0.1:$RESTD_PORT
export SLURMRESTD_JWT=$TOKEN
EOF
t_end=$(date +%s.%N)
echo "start.sh: ready in $(awk -v a="$t_start" -v b="$t_end" 'BEGIN{printf "%.2f", b-a}') s" >&2
echo "SLURMRESTD http://127.0.0.1:$RESTD_PORT"
echo "SLURM_JWT=$TOKEN"
