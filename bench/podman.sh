#!/bin/sh
# bench/podman.sh - what running a task in its image costs on the local
# cluster (issue 38): a trivial job (`true`, one task) submitted and
# waited for (`paictl submit --wait`) on a server with --runtime podman,
# the same on one with --runtime process, and the same command by
# `podman run --rm` by hand, with the options this machine needs (those
# the server's log names: its OCI runtime, limits), RUNS times each,
# interleaved (each round in the other order than the last), medians
# reported, and the median of each round's ratio. Goal: the job in its
# image within 1.2x of podman run by hand. The image is built offline
# (tests/podman/image.sh). Without podman it says so and exits 0.
#
#   PAICTL=build/paictl RUNS=10 sh bench/podman.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
case $PAICTL in /*) ;; *) PAICTL=$(pwd)/$PAICTL ;; esac
RUNS=${RUNS:-10}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v podman >/dev/null 2>&1 || ! podman version >/dev/null 2>&1; then
	echo "bench/podman: skipped: podman is not installed or does not answer"
	exit 0
fi
tmp=$(mktemp -d /tmp/paictl-bench-podman.XXXXXX)
image=localhost/paictl-bench:$$
cleanup() {
	for d in podman process; do
		XDG_STATE_HOME=$tmp/$d "$PAICTL" serve --stop -q >/dev/null 2>&1 || :
	done
	podman rmi -f "$image" >/dev/null 2>&1 || :
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
sh "$here/../tests/podman/image.sh" "$image" || {
	echo "bench/podman: skipped: no busybox-static for the image"
	exit 0
}

for d in podman process; do
	XDG_STATE_HOME=$tmp/$d "$PAICTL" serve --background --no-ssh \
		--runtime $d >/dev/null
done
printf '{"jobName":"b","image":"%s","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}\n' \
	"$image" >"$tmp/job.json"

# by hand: what this machine needs, as the server found it (its log)
needs=$(sed -n 's/.*what this machine needs: \([^;]*\);.*/\1/p' \
	"$tmp/podman/paictl/local/server.log" | head -n 1)
[ "$needs" != nothing ] || needs=
case $needs in --runtime\ *) rt="${needs%% --ulimit*}" needs=${needs#"$rt"} ;; *) rt= ;; esac
hand="podman $rt run --rm --network=host$needs $image sh -c true"

# interleaved, one of each in turn, and medians: a machine whose load
# drifts (CI's, shared) weighs on all three alike. The ratio to podman
# run by hand is also the median of each round's own (the job and the
# hand run side by side, under the same load): on a shared machine whose
# load swings by 2x within a minute, the ratio of medians of the whole
# run does too
run() {
	case $1 in
	hand) $hand >/dev/null ;;
	*) XDG_STATE_HOME=$tmp/$1 "$PAICTL" submit --wait -q --unique \
		"$tmp/job.json" >/dev/null 2>&1 ;;
	esac || { echo "bench/podman: $1 failed" >&2; exit 1; }
}
for k in hand podman process; do run $k; done # warm-up
i=0
while [ $i -lt "$RUNS" ]; do
	# every other round the other way round: neither goes first always
	order="hand podman process"
	[ $((i % 2)) -eq 0 ] || order="process podman hand"
	for k in $order; do
		t0=$(date +%s%N)
		run $k
		echo "$k $((($(date +%s%N) - t0) / 1000)) $i" >>"$tmp/times"
	done
	i=$((i + 1))
done
awk '
function median(k,   n, i, j, t, v) {
	n = 0
	for (i = 1; i <= cnt; i++) if (key[i] == k) v[++n] = us[i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
		t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ key[++cnt] = $1; us[cnt] = $2; round[$1, $3] = $2; rounds = $3 + 1 }
END {
	for (i = 0; i < rounds; i++) {
		key[++cnt] = "paired"; us[cnt] = 1000 * round["podman", i] / round["hand", i]
	}
	h = median("hand"); p = median("podman"); q = median("process")
	r = median("paired") / 1000
	printf "bench/podman: %d runs each, interleaved, medians:\n", rounds
	printf "bench/podman:   podman run by hand                    %7.1f ms\n", h / 1000
	printf "bench/podman:   job in its image (--runtime podman)   %7.1f ms\n", p / 1000
	printf "bench/podman:   job as a process (--runtime process)  %7.1f ms\n", q / 1000
	printf "bench/podman: job in its image / podman run by hand: %.2fx (medians), %.2fx (median of each round\047s) (goal: within 1.2x) %s\n", \
		p / h, r, r <= 1.2 ? "met" : "NOT met"
	printf "bench/podman: job in its image / job as a process: %.1fx\n", p / q
}' "$tmp/times"
