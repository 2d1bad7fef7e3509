#!/bin/sh
# bench/client.sh - what the client costs (issue 4).
#
# Against a fresh local cluster on its Unix socket:
#  - whole-process time of `paictl status JOB` next to `curl -s` of the same
#    URL, the floor for one request (target: within 1.5x of curl);
#  - submitting N configs (100) in one `paictl submit` next to N separate
#    `curl` POSTs of the same configs (target: the batch is faster).
# Timing on a shared machine is noisy: this reports, it does not fail.
#
#   PAICTL=build/paictl N=100 sh bench/client.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
N=${N:-100}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paictl-bench-client-XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

for tool in curl hyperfine; do
	command -v "$tool" >/dev/null || { echo "bench/client: $tool not found (make deps)"; exit 0; }
done

mkdir -m 700 "$tmp/state"
"$PAICTL" serve --state-dir "$tmp/state" --no-ssh -q 2>"$tmp/server.log" &
pid=$!
sock=$tmp/state/api.sock
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$sock" ] || { echo "bench/client: the local cluster did not start"; cat "$tmp/server.log"; exit 1; }

user=$(id -un)
export PAICTL_URI="unix:$sock" PAICTL_USER="$user"
XDG_CONFIG_HOME=$tmp/cfg XDG_STATE_HOME=$tmp/xdg
export XDG_CONFIG_HOME XDG_STATE_HOME

job() { # job NAME COMMAND -> a config on stdout
	printf '{"jobName": "%s", "image": "none", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "%s"}]}\n' "$1" "$2"
}

job bench-status true >"$tmp/status.json"
"$PAICTL" submit --wait "$tmp/status.json" >/dev/null 2>&1
url="http://localhost/api/v1/user/$user/jobs/bench-status"

echo "== status of one job: paictl status vs curl (the floor for one request)"
hyperfine -N -w 5 -r 100 --export-json "$tmp/status.hf.json" \
	"$PAICTL status bench-status" \
	"curl -s --unix-socket $sock $url" >"$tmp/status.hf.txt" 2>&1 || cat "$tmp/status.hf.txt"

mkdir "$tmp/a" "$tmp/b"
n=1
while [ $n -le "$N" ]; do
	job "bench-a-$n" true >"$tmp/a/$n.json"
	job "bench-b-$n" true >"$tmp/b/$n.json"
	n=$((n + 1))
done

echo "== $N configs: one paictl submit vs $N curl POSTs"
t0=$(date +%s%N)
"$PAICTL" submit "$tmp"/a/*.json >/dev/null
t1=$(date +%s%N)
for f in "$tmp"/b/*.json; do
	curl -s -o /dev/null --unix-socket "$sock" -H 'Content-Type: application/json' \
		--data-binary @"$f" "http://localhost/api/v1/user/$user/jobs"
done
t2=$(date +%s%N)

python3 - "$tmp/status.hf.json" "$(( (t1 - t0) / 1000000 ))" "$(( (t2 - t1) / 1000000 ))" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
p, c = r[0]["mean"] * 1000, r[1]["mean"] * 1000
print(f"status: paictl {p:.2f} ms, curl {c:.2f} ms: {p / c:.2f}x curl "
      f"({'ok' if p <= 1.5 * c else 'SLOWER than the 1.5x target'})")
batch, curls, n = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"submit {n}: paictl one batch {batch} ms, {n} curls {curls} ms "
      f"({'ok' if batch < curls else 'SLOWER than the curls'})")
PY
