#!/bin/sh
# bench/slurm.sh - paictl on a Slurm cluster, on one real Slurm 22.05
# (tests/slurm/slurm_cluster.py: slurmctld, four slurmd, slurmrestd), or
# with SUITE=trixie Debian 13's 24.11 (SUITE=sid unstable's; with
# slurmdbd; tests/slurm/next_cluster.py, its commands run inside its
# root, the 100 sbatch in one shell there):
#
#   - `paictl status JOB` against curl of the same slurmrestd URL
#     (GET .../jobs, what paictl asks) and, for information,
#     `scontrol show job`, which skips slurmrestd;
#   - 100 jobs in one `paictl submit` against 100 `sbatch` calls of the
#     same one-task job, one process each: twice, in the order paictl,
#     sbatch, sbatch, paictl, each once the jobs before it have ended,
#     so that neither pays for the other's jobs running or for a longer
#     queue (slurmctld's submissions slow as it grows); the sums
#     compared.
#
# usage: sh bench/slurm.sh       (make bench sets PAICTL)
# Prints a table; the exit status is 0 unless something cannot run
# (timings on a shared machine are noisy).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
out=${BENCH_DIR:-$top/build/bench}/slurm
runs=${BENCH_RUNS:-20}
jobs=${BENCH_JOBS:-100}

die() {
	echo "bench slurm: $*" >&2
	exit 1
}

if [ "${PAI_SLURM_URL:-}" = "" ] && [ -n "${SUITE:-}" ]; then
	[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
	exec python3 "$top/tests/slurm/next_cluster.py" "$SUITE" run -- \
		sh "$0" "$@"
fi
if [ "${PAI_SLURM_URL:-}" = "" ]; then
	[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
	command -v slurmctld >/dev/null 2>&1 || {
		echo "bench slurm: skipped: no slurmctld (make test-deps)"
		exit 0
	}
	exec python3 "$top/tests/slurm/slurm_cluster.py" run -- sh "$0" "$@"
fi

# Slurm's commands: here, or inside the cluster's root
in_slurm() { ${PAI_SLURM_INROOT:+"$PAI_SLURM_INROOT"} "$@"; }
api=${PAI_SLURM_OPENAPI:-v0.0.38}
[ -n "${SUITE:-}" ] && out=$out-$SUITE
echo "Slurm ${PAI_SLURM_RELEASE:-22.05 (bookworm)}, slurmrestd openapi/$api"

rm -rf "$out"
mkdir -p "$out/home" || die "cannot create $out"
export HOME="$out/home" XDG_CONFIG_HOME="$out/home/.config"
export XDG_STATE_HOME="$out/home/.state" USER=root
(umask 077 && echo "$PAI_SLURM_TOKEN" >"$out/home/token")
"$PAICTL" cluster add hpc --slurm "$PAI_SLURM_URL" --token-file \
	"$out/home/token" --workdir "$PAI_SLURM_WORK" >/dev/null &&
	"$PAICTL" cluster use hpc || die "cannot add the profile"

. "$top/bench/lib.sh"

# A two-role job that ran, to read the status of
cp "$top/examples/hello-distributed.json" "$out/"
"$PAICTL" submit -q --wait "$out/hello-distributed.json" >/dev/null ||
	die "the job did not succeed"
"$PAICTL" status hello-distributed >/dev/null # the version found, kept
id=$(in_slurm squeue -h -t all -n hello-distributed -o %i | head -n 1)
hdr="-H X-SLURM-USER-NAME:root -H X-SLURM-USER-TOKEN:$PAI_SLURM_TOKEN"

printf '%-44s %16s\n' "status of a 4-task job (mean of $runs)" ms
printf '%-44s %16s\n' "paictl status hello-distributed" \
	"$(time_ms "$PAICTL status hello-distributed")"
printf '%-44s %16s\n' "paictl -o json status hello-distributed" \
	"$(time_ms "$PAICTL -o json status hello-distributed")"
printf '%-44s %16s\n' "curl GET /slurm/$api/jobs" \
	"$(time_ms "curl -sf $hdr $PAI_SLURM_URL/slurm/$api/jobs")"
printf '%-44s %16s\n' "scontrol show job (no slurmrestd)" \
	"$(time_ms "${PAI_SLURM_INROOT:+$PAI_SLURM_INROOT }scontrol show job $id")"

# Until no job runs or waits (at most 3 minutes): what one side's jobs
# cost the cluster is not charged to the other
drain() {
	k=0
	while [ "$k" -lt 900 ] &&
		[ -n "$(in_slurm squeue -h -t PD,R,CG,CF -o %i | head -n 1)" ]; do
		sleep 0.2
		k=$((k + 1))
	done
}

# $jobs one-task jobs named PREFIX0.., through paictl in one process
paictl_jobs() {
	i=0
	while [ "$i" -lt "$jobs" ]; do
		printf '{"jobName":"%s%d","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}\n' \
			"$1" "$i" >"$out/$1$i.json"
		i=$((i + 1))
	done
	files=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$out/$1$i.json"; i=$((i + 1)); done)
	drain
	# shellcheck disable=SC2086 # the file names have no blanks
	once_ms "$PAICTL submit -q $(echo $files)"
}

# ... and through sbatch, one process each (inside the root: in one
# shell there)
sbatch_jobs() {
	sbatches=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "sbatch -Q -J $1$i -o /dev/null -n 1 -c 1 --mem=100 --wrap true &&"; i=$((i + 1)); done)
	drain
	if [ -n "${PAI_SLURM_INROOT:-}" ]; then
		# shellcheck disable=SC2086
		once_ms "$PAI_SLURM_INROOT sh -c '$(echo $sbatches) true'"
	else
		# shellcheck disable=SC2086
		once_ms "$(echo $sbatches) true"
	fi
}

printf '\n%-44s %16s\n' "$jobs jobs, once (paictl, sbatch, sbatch, paictl)" ms
p1=$(paictl_jobs p) || die "paictl submit failed"
s1=$(sbatch_jobs s) || die "sbatch failed"
s2=$(sbatch_jobs t) || die "sbatch failed"
p2=$(paictl_jobs q) || die "paictl submit failed"
printf '%-44s %16s\n' "paictl submit (one process, $jobs files)" "$p1 + $p2"
printf '%-44s %16s\n' "sbatch, $jobs processes" "$s1 + $s2"
printf '%-44s %16s\n' "paictl / sbatch" \
	"$(awk "BEGIN { printf \"%.2fx\", ($p1 + $p2) / ($s1 + $s2) }")"
n=$(in_slurm squeue -h -t all -o %j | grep -c '^[pq][0-9]')
echo "($n of paictl's jobs in Slurm; $((2 * jobs)) expected)"
