#!/bin/sh
# bench/kube.sh - paictl on a Kubernetes cluster against kubectl, on one
# real kube-apiserver 1.20.2 with the stand-in (tests/kube/cluster.py):
#
#   - `paictl status JOB` (the Job and its pods, as paictl shows them)
#     against `kubectl get vcjob JOB -o json` (the Job alone);
#   - 100 jobs in one `paictl submit` (a ConfigMap, the Job and the
#     ConfigMap's owner each; several in flight) against 100 `kubectl
#     create -f` of the same objects (paictl convert's), one process
#     each, and against 100 `paictl submit` of one file each: with a
#     Volcano-like admission webhook in the path (tests/kube/webhook.py,
#     registered with the API server: each Job's create waits on its
#     mutating and validating reviews, 50 ms each, as on a cluster).
#
# usage: sh bench/kube.sh       (make bench sets PAICTL; kubectl parts
# are skipped with a line without kubectl; builds kube-apiserver when
# missing, as make kube-test does)
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
	why=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1])
import cluster; print(cluster.why_not() or "")' "$top/tests/kube")
	if [ -n "$why" ]; then
		echo "bench kube: skipped: $why"
		exit 0
	fi
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
have_kubectl=1
command -v "$KUBECTL" >/dev/null 2>&1 || have_kubectl=0
python3 -c 'import os, sys; sys.path.insert(0, sys.argv[1]); import kapi
kapi.Client(os.environ["PAI_KUBE_SERVER"], os.environ["PAI_KUBE_TOKEN"],
            os.environ["PAI_KUBE_CA"]).create("/api/v1/namespaces", {
    "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": sys.argv[2]}})
' "$top/tests/kube" "$ns" || die "cannot make namespace"
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
if [ "$have_kubectl" = 1 ]; then
	printf '%-44s %16s\n' "kubectl get vcjob hello-distributed -o json" \
		"$(time_ms "$KUBECTL -n $ns get vcjob hello-distributed -o json")"
else
	echo "(kubectl get skipped: no kubectl on this machine)"
fi

# The webhook in the path from here on: each Job's create waits on it
python3 "$top/tests/kube/webhook.py" --delay 0.05 --dir "$out/webhook" \
	>"$out/webhook.out" 2>"$out/webhook.err" &
hook=$!
i=0
until grep -q '^ready' "$out/webhook.out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 100 ] && kill -0 "$hook" 2>/dev/null ||
		die "the webhook did not start: $(cat "$out/webhook.err")"
	sleep 0.1
done
trap 'kill "$hook" 2>/dev/null' EXIT

# $jobs jobs that wait for a node that has not 1000 CPUs: nothing runs,
# the API server's (and the webhook's) work is all there is to measure
i=0
while [ "$i" -lt "$jobs" ]; do
	for p in p s k; do
		printf '{"jobName":"%s%d","image":"debian","taskRoles":[{"name":"main","taskNumber":2,"cpuNumber":1000,"memoryMB":100,"gpuNumber":0,"command":"true"}]}\n' \
			"$p" "$i" >"$out/$p$i.json"
	done
	"$PAICTL" convert -q "$out/k$i.json" >"$out/k$i.yaml" 2>/dev/null ||
		die "cannot convert"
	i=$((i + 1))
done
files=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$out/p$i.json"; i=$((i + 1)); done)
singles=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$PAICTL submit -q $out/s$i.json &&"; i=$((i + 1)); done)
creates=$(i=0; while [ "$i" -lt "$jobs" ]; do echo "$KUBECTL create -f $out/k$i.yaml &&"; i=$((i + 1)); done)
printf '\n%-44s %16s\n' "$jobs jobs (ConfigMap + Job each), webhook" ms
# shellcheck disable=SC2086 # the file names have no blanks
batch=$(once_ms "$PAICTL submit -q $(echo $files)") || die "submit failed"
printf '%-44s %16s\n' "paictl submit (one process, $jobs files)" "$batch"
single=$(once_ms "$(echo $singles) true") || die "submit failed"
printf '%-44s %16s\n' "paictl submit, $jobs processes" "$single"
if [ "$have_kubectl" = 1 ]; then
	create=$(once_ms "$(echo $creates) true") || die "kubectl failed"
	printf '%-44s %16s\n' "kubectl create -f, $jobs processes" "$create"
	awk -v a="$batch" -v b="$create" 'BEGIN {
		printf "(paictl submit / kubectl create: %.3fx; the goal is at most 0.1x)\n", a / b }'
else
	echo "(kubectl create skipped: no kubectl on this machine)"
fi
n=$("$PAICTL" list -o json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)))')
echo "($n jobs in the namespace; $((2 * jobs + 1 + have_kubectl * jobs)) expected)"
