#!/bin/sh
# bench/slurm_ssh.sh - paictl on a Slurm cluster through SSH to its login
# node (ssh://, no slurmrestd), on Debian 13's Slurm 24.11
# (tests/slurm/next_cluster.py: its sshd is the login node):
#
#   - `paictl status JOB` against `ssh login squeue --json -j ID` (one
#     connection, one command each; the issue asks <= 1.0x);
#   - 100 jobs in one `paictl submit` against 100 `ssh login sbatch`
#     (a connection each; the issue asks <= 0.2x).
#
# usage: sh bench/slurm_ssh.sh       (make bench sets PAICTL; SUITE)
# Prints a table; the exit status is 0 unless something cannot run
# (timings on a shared machine are noisy).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
SUITE=${SUITE:-trixie}
out=${BENCH_DIR:-$top/build/bench}/slurm-ssh
runs=${BENCH_RUNS:-20}
jobs=${BENCH_JOBS:-100}

die() {
	echo "bench slurm-ssh: $*" >&2
	exit 1
}

if [ "${PAI_SLURM_SSH_PORT:-}" = "" ]; then
	[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
	exec python3 "$top/tests/slurm/next_cluster.py" "$SUITE" run -- \
		sh "$0" "$@"
fi
echo "Slurm ${PAI_SLURM_RELEASE:-?} through its login node's sshd"

rm -rf "$out"
mkdir -p "$out/home/.ssh" || die "cannot create $out"
export HOME="$out/home" XDG_CONFIG_HOME="$out/home/.config"
export XDG_STATE_HOME="$out/home/.state" USER=root
unset SSH_AUTH_SOCK
cp "$PAI_SLURM_SSH_KEY" "$out/home/.ssh/id_ed25519" || die "no key"
login="ssh -q -i $PAI_SLURM_SSH_KEY -p $PAI_SLURM_SSH_PORT -o BatchMode=yes"
login="$login -o UserKnownHostsFile=$out/known_hosts"
login="$login -o StrictHostKeyChecking=accept-new root@127.0.0.1"
"$PAICTL" cluster add hpc --slurm "ssh://root@127.0.0.1:$PAI_SLURM_SSH_PORT" \
	--workdir "$PAI_SLURM_WORK" >/dev/null 2>&1 &&
	"$PAICTL" cluster use hpc || die "cannot add the profile"

. "$top/bench/lib.sh"

cp "$top/examples/hello-distributed.json" "$out/"
"$PAICTL" submit -q --wait "$out/hello-distributed.json" >/dev/null ||
	die "the job did not succeed"
id=$($login squeue -h -t all -n hello-distributed -o %i | head -n 1)

printf '%-44s %16s\n' "status of a 4-task job (mean of $runs)" ms
printf '%-44s %16s\n' "paictl status hello-distributed" \
	"$(time_ms "$PAICTL status hello-distributed")"
printf '%-44s %16s\n' "ssh login squeue --json -j ID" \
	"$(time_ms "$login squeue --json -j $id")"

i=0
while [ "$i" -lt "$jobs" ]; do
	printf '{"jobName":"p%d","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}\n' \
		"$i" >"$out/p$i.json"
	i=$((i + 1))
done
files=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$out/p$i.json"; i=$((i + 1)); done)
sbatches=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$login sbatch -Q -J s$i -o /dev/null -n 1 -c 1 --mem=100 --wrap true &&"; i=$((i + 1)); done)
printf '\n%-44s %16s\n' "$jobs jobs, once" ms
# shellcheck disable=SC2086 # the file names have no blanks
printf '%-44s %16s\n' "paictl submit (one process, $jobs files)" \
	"$(once_ms "$PAICTL submit -q $(echo $files)")"
# shellcheck disable=SC2086 # one command line of ssh calls
printf '%-44s %16s\n' "ssh login sbatch, $jobs connections" \
	"$(once_ms "$(echo $sbatches) true")"
n=$($login squeue -h -t all -o %j | grep -c '^p[0-9]')
echo "($n of paictl's jobs in Slurm; $jobs expected)"
