#!/bin/sh
# bench/kube.sh - paictl on a Kubernetes cluster against kubectl, on one
# real kube-apiserver 1.20.2 with the stand-in (tests/kube/cluster.py):
#
#   - `paictl status JOB` (the Job and its pods, as paictl shows them)
#     against `kubectl get vcjob JOB -o json` (the Job alone);
#   - 100 jobs in one `paictl submit` (a ConfigMap, the Job and the
#     ConfigMap's owner each) against 100 `kubectl create -f` of the same
#     objects (paictl convert's), one process each.
#
# usage: sh bench/kube.sh       (make bench sets PAICTL; needs kubectl,
# and builds kube-apiserver when missing, as make kube-test does)
# Prints a table; the exit status is 0 unless something cannot run
# (timings on a shared machine are noisy).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
out=${BENCH_DIR:-$top/build/bench}/kube
runs=${BENCH_RUNS:-20}
jobs=${BENCH_JOBS:-100}
KUBECTL=${KUBECTL:-kubectl}

die() {
	echo "bench kube: $*" >&2
	exit 1
}

if [ "${PAI_KUBE_SERVER:-}" = "" ]; then
	[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
	command -v "$KUBECTL" >/dev/null 2>&1 || {
		echo "bench kube: skipped: no kubectl"
		exit 0
	}
	bash "$top/tests/kube/build-apiserver.sh" >/dev/null ||
		die "cannot build kube-apiserver"
	exec python3 "$top/tests/kube/cluster.py" run --standin -- \
		sh "$0" "$@"
fi

rm -rf "$out"
mkdir -p "$out/home" || die "cannot create $out"
export HOME="$out/home" XDG_CONFIG_HOME="$out/home/.config"
export XDG_STATE_HOME="$out/home/.state"
ns=bench
$KUBECTL create namespace "$ns" >/dev/null || die "cannot make namespace"
"$PAICTL" cluster add k --kubernetes --namespace "$ns" >/dev/null &&
	"$PAICTL" cluster use k || die "cannot add the profile"

. "$top/bench/lib.sh"

# A two-role job that ran, to read the status of
cp "$top/examples/hello-distributed.json" "$out/"
"$PAICTL" submit -q --wait "$out/hello-distributed.json" >/dev/null ||
	die "the job did not succeed"

printf '%-44s %16s\n' "status of a 4-task job (mean of $runs)" ms
printf '%-44s %16s\n' "paictl status hello-distributed" \
	"$(time_ms "$PAICTL status hello-distributed")"
printf '%-44s %16s\n' "paictl -o json status hello-distributed" \
	"$(time_ms "$PAICTL -o json status hello-distributed")"
printf '%-44s %16s\n' "kubectl get vcjob hello-distributed -o json" \
	"$(time_ms "$KUBECTL -n $ns get vcjob hello-distributed -o json")"

# $jobs jobs that wait for a node that has not 1000 CPUs: nothing runs,
# the API server's work is all there is to measure
i=0
while [ "$i" -lt "$jobs" ]; do
	printf '{"jobName":"p%d","image":"debian","taskRoles":[{"name":"main","taskNumber":2,"cpuNumber":1000,"memoryMB":100,"gpuNumber":0,"command":"true"}]}\n' \
		"$i" >"$out/p$i.json"
	sed 's/"p\([0-9]*\)"/"k\1"/' "$out/p$i.json" >"$out/k$i.json"
	"$PAICTL" convert -q "$out/k$i.json" >"$out/k$i.yaml" 2>/dev/null ||
		die "cannot convert"
	i=$((i + 1))
done
files=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$out/p$i.json"; i=$((i + 1)); done)
creates=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$KUBECTL create -f $out/k$i.yaml &&"; i=$((i + 1)); done)
printf '\n%-44s %16s\n' "$jobs jobs (ConfigMap + Job each), once" ms
# shellcheck disable=SC2086 # the file names have no blanks
printf '%-44s %16s\n' "paictl submit (one process, $jobs files)" \
	"$(once_ms "$PAICTL submit -q $(echo $files)")"
printf '%-44s %16s\n' "kubectl create -f, $jobs processes" \
	"$(once_ms "$(echo $creates) true")"
n=$($KUBECTL -n "$ns" get vcjob -o name | wc -l)
echo "($n Volcano Jobs in the namespace; $((2 * jobs + 1)) expected)"
