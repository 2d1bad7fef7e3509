#!/bin/bash
# start.sh DIR -- start a throw-away one-host cluster of a NEWER Slurm (Debian trixie's
# 24.11 by default; SUITE=sid for Debian unstable's) from a cached Debian root file system
# (built by build.sh on first use): munged, MariaDB + slurmdbd (accounting), slurmctld,
# NNODES x slurmd, slurmrestd with JWT, and an sshd as the cluster's login node.  Every
# daemon runs chroot'ed in that root, inside a private mount namespace (so nothing is
# mounted on the host); every file of the cluster lives under DIR.
# Prints, when ready:
#   SLURMRESTD http://127.0.0.1:PORT
#   SLURM_JWT=<token for root>
#   SSH root@127.0.0.1:PORT key DIR/ssh/id_ed25519
# and writes DIR/env (sourceable: SLURMRESTD_URL, SLURMRESTD_JWT, SLURM_SSH, ...) and
# DIR/inroot (runs a command inside the cluster's root: DIR/inroot sacct -j 5 --json).
# Tunables (env): SUITE=trixie  CACHE_DIR=~/.cache/paictl/slurm  ROOT=$CACHE_DIR/$SUITE
#                 RESTD_PORT=6920 CTLD_PORT=16917 SLURMD_PORT_BASE=17101 DBD_PORT=16918
#                 SSHD_PORT=2222 (SSHD=0: no sshd)  ACCOUNTING=1 (0: no slurmdbd/MariaDB)
#                 NNODES=4 CPUS=4 JWT_LIFESPAN=86400 START_TIMEOUT=60 MIN_JOB_AGE=300
# Needs: root, util-linux (unshare, nsenter), mmdebstrap for the first build.
# Stop with: stop.sh DIR
set -u
DIR=${1:?usage: start.sh DIR}
SUITE=${SUITE:-trixie}
RESTD_PORT=${RESTD_PORT:-6920}
CTLD_PORT=${CTLD_PORT:-16917}
SLURMD_PORT_BASE=${SLURMD_PORT_BASE:-17101}
DBD_PORT=${DBD_PORT:-16918}
SSHD_PORT=${SSHD_PORT:-2222}
SSHD=${SSHD:-1}
ACCOUNTING=${ACCOUNTING:-1}
NNODES=${NNODES:-4}
CPUS=${CPUS:-4}
JWT_LIFESPAN=${JWT_LIFESPAN:-86400}
START_TIMEOUT=${START_TIMEOUT:-60}
MIN_JOB_AGE=${MIN_JOB_AGE:-300}
HERE=$(cd "$(dirname "$0")" && pwd)
export SUITE

t_start=$(date +%s.%N)
[ "$(id -u)" = 0 ] || { echo "start.sh: needs root" >&2; exit 1; }
ROOT=$("$HERE/build.sh") || { echo "start.sh: FAILED: build.sh" >&2; exit 1; }
ROOT=$(cd "$ROOT" && pwd -P)
mkdir -p "$DIR" || exit 1
DIR=$(cd "$DIR" && pwd -P)
if [ -e "$DIR/run/slurmctld.pid" ] || [ -e "$DIR/run/ns.pid" ]; then
  echo "start.sh: $DIR seems in use (run/*.pid exists); use a fresh dir or stop.sh first" >&2
  exit 1
fi
mkdir -p "$DIR"/{etc,state,log,run,munge,work,ssh} || exit 1
chmod 0755 "$DIR" "$DIR/munge"   # munged: socket dir must be world-executable
HOST=$(hostname -s)
LAST=$((NNODES))
PORT_LAST=$((SLURMD_PORT_BASE + NNODES - 1))
SLURM_CONF="$DIR/etc/slurm.conf"

fail() {
  echo "start.sh: FAILED: $*" >&2
  for f in "$DIR"/log/*.log "$DIR"/log/*.out "$DIR"/munge/munged.log; do
    [ -s "$f" ] && { echo "== $f" >&2; tail -n 5 "$f" >&2; }
  done
  [ "${KEEP_ON_FAIL:-0}" = 1 ] || "$HERE/stop.sh" "$DIR" >&2
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

# ---- the mount namespace: root's /proc /dev /sys /tmp, a private /run, DIR ----
# A holder process keeps the namespace (and so its mounts) alive; its command line
# names DIR, so stop.sh can find and end it.  Everything else enters with nsenter.
rm -f "$DIR/run/ns.ready"
setsid unshare --mount --propagation private -- bash -c '
  R=$1 D=$2
  set -e
  mount --rbind /proc "$R/proc"
  mount --rbind /sys  "$R/sys"
  mount --rbind /dev  "$R/dev"
  mount --bind  /tmp  "$R/tmp"
  mount -t tmpfs -o mode=0755,size=64m slurm-judge-run "$R/run"
  mkdir -p "$R/run/sshd" "$R/run/mysqld" "$R/run/munge"
  ln -s mysqld "$R/run/mariadbd"   # the client library default socket dir in sid
  [ -e "$R/etc/hosts" ] || echo "127.0.0.1 localhost" > "$R/etc/hosts"   # mmdebstrap leaves none
  mount --bind /etc/hosts "$R/etc/hosts"
  if [ "$(stat -c %d:%i "$D")" != "$(stat -L -c %d:%i "$R$D" 2>/dev/null)" ]; then
    mkdir -p "$R$D"
    mount --bind "$D" "$R$D"
  fi
  set +e
  echo ok > "$D/run/ns.ready"
  exec -a "slurm-judge-ns $D" sleep infinity
' ns "$ROOT" "$DIR" >"$DIR/log/ns.out" 2>&1 </dev/null &
NS=$!
echo "$NS" > "$DIR/run/ns.pid"
wait_for 10 test -s "$DIR/run/ns.ready" || fail "mount namespace: $(cat "$DIR/log/ns.out")"

# run a command chroot'ed in ROOT inside the namespace, with a clean environment
cat > "$DIR/inroot" <<EOF
#!/bin/sh
# run a command inside the Slurm cluster of $DIR (its mount namespace + chroot)
exec nsenter -t $NS -m -- chroot $ROOT env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  HOME=/root LANG=C.UTF-8 SLURM_CONF=$SLURM_CONF "\$@"
EOF
chmod 0755 "$DIR/inroot"
inroot() { "$DIR/inroot" "$@"; }
SLURM_VERSION=$(inroot slurmctld -V | awk '{print $2}')

# ---- keys ---------------------------------------------------------------
inroot mungekey -c -k "$DIR/munge.key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
chmod 0400 "$DIR/munge.key"
dd if=/dev/urandom of="$DIR/jwt_hs256.key" bs=32 count=1 status=none
chmod 0600 "$DIR/jwt_hs256.key"

# ---- slurm.conf -----------------------------------------------------------
if [ "$ACCOUNTING" = 1 ]; then
  ACCT="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30"
else
  ACCT="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
fi
cat > "$SLURM_CONF" <<EOF
ClusterName=lab
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
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
$ACCT
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
EnforcePartLimits=ALL
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=$MIN_JOB_AGE
SlurmdParameters=config_overrides
NodeName=n[1-$LAST] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=[$SLURMD_PORT_BASE-$PORT_LAST] CPUs=$CPUS RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
for i in $(seq 1 "$NNODES"); do mkdir -p "$DIR/spool/n$i"; done
cd "$DIR" || exit 1

# ---- munged (daemonizes itself; returns once the socket is ready) --------
# Its socket is at the default path, in the namespace's own /run: every Slurm
# program (sacctmgr towards slurmdbd ignores AuthInfo=socket=) and ssh session finds it.
inroot munged --key-file="$DIR/munge.key" --socket=/run/munge/munge.socket.2 \
       --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" \
       --seed-file="$DIR/munge/munged.seed" || fail "munged"
cp "$DIR/munge/munged.pid" "$DIR/run/munged.pid"
inroot sh -c "munge -n | unmunge" >/dev/null \
  || fail "munge self-test"

# ---- accounting: MariaDB (socket only, in the namespace's own /run) + slurmdbd ----
if [ "$ACCOUNTING" = 1 ]; then
  # the datadir starts as a copy of the one build.sh initialised in ROOT
  inroot cp -a /var/lib/slurm-judge/mysql "$DIR/mysql" || fail "copy MariaDB datadir"
  setsid "$DIR/inroot" mariadbd --no-defaults --user=root --datadir="$DIR/mysql" \
    --socket=/run/mysqld/mysqld.sock --skip-networking --pid-file="$DIR/mysql/mariadbd.pid" \
    --log-error="$DIR/log/mariadb.log" --innodb-buffer-pool-size=32M \
    --performance-schema=OFF --skip-log-bin --innodb-flush-log-at-trx-commit=0 \
    --innodb-doublewrite=0 --innodb-snapshot-isolation=OFF --skip-name-resolve \
    </dev/null >"$DIR/log/mariadb.out" 2>&1 &
  echo $! > "$DIR/run/mariadbd.pid"
  wait_for "$START_TIMEOUT" inroot mariadb-admin --socket=/run/mysqld/mysqld.sock ping \
    || fail "MariaDB did not answer"
  # create the database first: when slurmdbd has to create it, it retries the connect
  # on the same handle, and trixie's libmariadb (11.8.9) then fails every query with
  # "5027 Number of columns in result (=1) set execeeds maxmimum allowed number of
  # columns (=0)" (the retry loses the handle's column limit)
  inroot mariadb --socket=/run/mysqld/mysqld.sock -e 'create database if not exists slurm_acct_db' \
    || fail "MariaDB: create database"
  cat > "$DIR/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$DIR/jwt_hs256.key
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$DIR/run/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
  chmod 0600 "$DIR/etc/slurmdbd.conf"
  setsid "$DIR/inroot" slurmdbd -D </dev/null >"$DIR/log/slurmdbd.out" 2>&1 &
  echo $! > "$DIR/run/slurmdbd.pid"
  wait_for "$START_TIMEOUT" inroot sacctmgr -n list cluster || fail "slurmdbd did not answer"
  inroot sacctmgr -i add cluster lab >/dev/null 2>&1
fi

# ---- slurmctld -------------------------------------------------------------
setsid "$DIR/inroot" slurmctld -D -f "$SLURM_CONF" >"$DIR/log/slurmctld.out" 2>&1 </dev/null &
echo $! > "$DIR/run/slurmctld.pid"
wait_for "$START_TIMEOUT" sh -c "'$DIR/inroot' scontrol ping | grep -q UP" || fail "slurmctld did not answer"

# ---- slurmd x NNODES (Debian builds with --enable-multiple-slurmd) ----------
for i in $(seq 1 "$NNODES"); do
  setsid "$DIR/inroot" slurmd -D -N "n$i" -f "$SLURM_CONF" >"$DIR/log/slurmd-n$i.out" 2>&1 </dev/null &
  echo $! > "$DIR/run/slurmd-n$i.pid"
done
all_idle() { [ "$(inroot sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$NNODES" ]; }
wait_for "$START_TIMEOUT" all_idle || fail "nodes not idle: $(inroot sinfo -h -N -o '%N %T' | tr '\n' ' ')"

# ---- token + slurmrestd ----------------------------------------------------
TOKEN=$(inroot scontrol token username=root lifespan="$JWT_LIFESPAN" | sed -n 's/^SLURM_JWT=//p')
[ -n "$TOKEN" ] || fail "scontrol token"
# slurmrestd refuses uid/gid 0 and SlurmUser (here root): drop to nobody with -u/-g.
# SLURM_JWT=daemon makes it use auth/jwt (instead of munge) towards slurmctld/slurmdbd.
# -s: openapi/slurmdbd only with accounting (fatal without slurmdbd).
PLUGINS=openapi/slurmctld
[ "$ACCOUNTING" = 1 ] && PLUGINS=openapi/slurmctld,openapi/slurmdbd
# -u/-g numeric: Slurm 26.05's slurmrestd fails "Unable to resolve user: nobody".
NOBODY_UID=$(inroot id -u nobody) && NOBODY_GID=$(inroot id -g nobody) || fail "no user nobody in the root"
setsid "$DIR/inroot" env SLURM_JWT=daemon slurmrestd -u "$NOBODY_UID" -g "$NOBODY_GID" -a rest_auth/jwt -s "$PLUGINS" \
  "127.0.0.1:$RESTD_PORT" >"$DIR/log/slurmrestd.log" 2>&1 </dev/null &
echo $! > "$DIR/run/slurmrestd.pid"
spec_ok() {
  curl -sf -o "$DIR/run/openapi.json" -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOKEN" \
       "http://127.0.0.1:$RESTD_PORT/openapi/v3"
}
wait_for "$START_TIMEOUT" spec_ok || fail "slurmrestd: no /openapi/v3"
# the spec escapes slashes: "\/slurm\/v0.0.42\/ping"
VERSIONS=$(grep -o '"[\\]*/slurm[\\]*/v0\.0\.[0-9]*[\\]*/' "$DIR/run/openapi.json" | grep -o 'v0\.0\.[0-9]*' | sort -uV | tr '\n' ' ')
LATEST=$(echo $VERSIONS | tr ' ' '\n' | tail -n1)
ping_ok() {
  curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOKEN" \
       "http://127.0.0.1:$RESTD_PORT/slurm/$LATEST/ping" | grep -qE '"UP"|"responding": *true'
}   # v0.0.42: "pinged": "UP"; v0.0.45: "responding": true
wait_for "$START_TIMEOUT" ping_ok || fail "slurmrestd ping ($LATEST)"

# ---- sshd: the login node (root's key in DIR/ssh; SLURM_CONF set for sessions) ----
SSH_LINE=""
if [ "$SSHD" = 1 ]; then
  rm -f "$DIR"/ssh/id_ed25519* "$DIR"/ssh/ssh_host_ed25519_key*
  inroot ssh-keygen -q -t ed25519 -N '' -C "root@slurm-judge" -f "$DIR/ssh/id_ed25519" || fail "ssh-keygen"
  inroot ssh-keygen -q -t ed25519 -N '' -C "" -f "$DIR/ssh/ssh_host_ed25519_key" || fail "ssh-keygen host"
  cp "$DIR/ssh/id_ed25519.pub" "$DIR/ssh/authorized_keys"
  echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1-2 "$DIR/ssh/ssh_host_ed25519_key.pub")" > "$DIR/ssh/known_hosts"
  cat > "$DIR/ssh/sshd_config" <<EOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $DIR/ssh/ssh_host_ed25519_key
PidFile $DIR/run/sshd.pidfile
AuthorizedKeysFile $DIR/ssh/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
SetEnv SLURM_CONF=$SLURM_CONF
Subsystem sftp internal-sftp
EOF
  chmod 0600 "$DIR/ssh/sshd_config"
  setsid "$DIR/inroot" /usr/sbin/sshd -D -f "$DIR/ssh/sshd_config" -E "$DIR/log/sshd.log" \
    </dev/null >"$DIR/log/sshd.out" 2>&1 &
  echo $! > "$DIR/run/sshd.pid"
  ssh_ok() {
    inroot ssh -n -i "$DIR/ssh/id_ed25519" -o BatchMode=yes -o UserKnownHostsFile="$DIR/ssh/known_hosts" \
      -o StrictHostKeyChecking=yes -p "$SSHD_PORT" root@127.0.0.1 squeue -h
  }
  wait_for "$START_TIMEOUT" ssh_ok || fail "sshd: ssh root@127.0.0.1 -p $SSHD_PORT squeue"
  SSH_LINE="SSH root@127.0.0.1:$SSHD_PORT key $DIR/ssh/id_ed25519"
fi

# NB: not exported as SLURM_JWT: with SLURM_JWT in the environment Slurm's own
# CLI switches to auth/jwt; squeue/sbatch still work but srun breaks.
# SLURM_CONF is the path inside the root (the same path as on the host): use it
# through DIR/inroot or over ssh.
cat > "$DIR/env" <<EOF
export SLURM_CONF=$SLURM_CONF
export SLURMRESTD_URL=http://127.0.0.1:$RESTD_PORT
export SLURMRESTD_JWT=$TOKEN
export SLURMRESTD_VERSIONS="${VERSIONS% }"
export SLURMRESTD_LATEST=$LATEST
export SLURM_VERSION=$SLURM_VERSION
export SLURM_ACCOUNTING=$ACCOUNTING
export SLURM_INROOT=$DIR/inroot
EOF
if [ "$SSHD" = 1 ]; then
  cat >> "$DIR/env" <<EOF
export SLURM_SSH_HOST=127.0.0.1
export SLURM_SSH_PORT=$SSHD_PORT
export SLURM_SSH_USER=root
export SLURM_SSH_KEY=$DIR/ssh/id_ed25519
export SLURM_SSH_KNOWN_HOSTS=$DIR/ssh/known_hosts
EOF
fi
t_end=$(date +%s.%N)
echo "start.sh: Slurm $SLURM_VERSION ($SUITE), openapi ${VERSIONS% }, accounting=$ACCOUNTING; ready in $(awk -v a="$t_start" -v b="$t_end" 'BEGIN{printf "%.2f", b-a}') s" >&2
echo "SLURMRESTD http://127.0.0.1:$RESTD_PORT"
echo "SLURM_JWT=$TOKEN"
[ -n "$SSH_LINE" ] && echo "$SSH_LINE"
exit 0
