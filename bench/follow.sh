#!/bin/sh
# bench/follow.sh - what following and waiting cost, and how soon they
# see the end (issue 21).
#
#  - `paictl submit --wait` of a job running `sleep 0.5` on a fresh local
#    cluster, next to `sh -c 'sleep 0.5'`: the floor (target: within
#    1.2x of it);
#  - requests a second of `paictl logs -f` on a chatty job (two tasks
#    printing a line every 10 ms), on the local cluster (counted from
#    paictl's -vv trace) and on the fake v1.x cluster (from its request
#    log: the rest-server's, which rate-limits, and the log-managers').
# Timing on a shared machine is noisy: this reports, it does not fail.
#
#   PAICTL=build/paictl FAKE_V1X=build/tests/fake-v1x sh bench/follow.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
FAKE_V1X=${FAKE_V1X:-$(dirname "$PAICTL")/tests/fake-v1x}
FOLLOW_S=${FOLLOW_S:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paictl-bench-follow-XXXXXX")
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; wait "$p" 2>/dev/null || :; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

command -v hyperfine >/dev/null || { echo "bench/follow: hyperfine not found (make deps)"; exit 0; }
now_ms() { date +%s%3N; }
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.1f", n * 1000 / ms }'; }

mkdir -m 700 "$tmp/state"
"$PAICTL" serve --state-dir "$tmp/state" --no-ssh -q 2>"$tmp/server.log" &
pids="$pids $!"
sock=$tmp/state/api.sock
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$sock" ] || { echo "bench/follow: the local cluster did not start"; exit 1; }
export PAICTL_URI="unix:$sock" PAICTL_USER="bench"
XDG_CONFIG_HOME=$tmp/cfg XDG_STATE_HOME=$tmp/xdg
export XDG_CONFIG_HOME XDG_STATE_HOME

job() { # job NAME TASKS COMMAND -> a v1 config on stdout
	printf '{"jobName": "%s", "image": "none", "taskRoles": [{"name": "main", "taskNumber": %s, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "%s"}]}\n' "$1" "$2" "$3"
}

echo "== submit --wait of 'sleep 0.5' on the local cluster vs sh -c 'sleep 0.5'"
job sleeper 1 "sleep 0.5" >"$tmp/sleeper.json"
hyperfine -N -w 2 -r 10 --export-json "$tmp/wait.json" \
	"$PAICTL submit -q --wait --unique $tmp/sleeper.json" \
	"sh -c 'sleep 0.5'" >"$tmp/wait.txt" 2>&1 || cat "$tmp/wait.txt"
python3 - "$tmp/wait.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
p, s = r[0]["mean"] * 1000, r[1]["mean"] * 1000
print(f"submit --wait: paictl {p:.0f} ms, sh -c {s:.0f} ms: {p / s:.2f}x "
      f"({'ok' if p <= 1.2 * s else 'SLOWER than the 1.2x target'})")
PY

echo "== logs -f of a chatty job (2 tasks, a line every 10 ms, ${FOLLOW_S} s)"
lines=$((FOLLOW_S * 100))
job chatty 2 "for i in \$(seq $lines); do echo line \$i; sleep 0.01; done" >"$tmp/chatty.json"
"$PAICTL" submit -q "$tmp/chatty.json" >/dev/null
t0=$(now_ms)
"$PAICTL" -vv logs -f chatty >"$tmp/local.out" 2>"$tmp/local.trace"
t1=$(now_ms)
n=$(grep -c '^> GET ' "$tmp/local.trace" || :)
echo "local: $n requests in $((t1 - t0)) ms: $(rate "$n" $((t1 - t0))) a second ($(wc -l <"$tmp/local.out") lines)"

[ -x "$FAKE_V1X" ] || { echo "bench/follow: no $FAKE_V1X (make cli-test builds it)"; exit 0; }
"$FAKE_V1X" --port-file "$tmp/port" --log "$tmp/req.log" --scenario chatty >/dev/null 2>&1 &
pids="$pids $!"
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
unset PAICTL_URI PAICTL_USER
"$PAICTL" cluster add pai "http://127.0.0.1:$(cat "$tmp/port")/rest-server" --user alice >/dev/null
"$PAICTL" cluster use pai >/dev/null
echo secret123 | "$PAICTL" login --password-stdin >/dev/null 2>&1
printf 'protocolVersion: 2\nname: chatty\ntype: job\nprerequisites:\n  - {name: img, type: dockerimage, uri: debian}\ntaskRoles:\n  worker:\n    instances: 2\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}\n    commands: ["python train.py"]\n' >"$tmp/chatty.yaml"
"$PAICTL" submit -q --no-ssh-key "$tmp/chatty.yaml" >/dev/null
: >"$tmp/req.log"
t0=$(now_ms)
"$PAICTL" logs -f chatty >"$tmp/v1x.out" 2>"$tmp/v1x.err" &
follower=$!
sleep "$FOLLOW_S"
t1=$(now_ms)
rest=$(grep -c '^[A-Z]* /rest-server/' "$tmp/req.log" || :)
logs=$(grep -c '^GET /log-manager/' "$tmp/req.log" || :)
limited=$(grep -c ' 429$' "$tmp/req.log" || :)
"$PAICTL" stop chatty >/dev/null 2>&1 || :
# a follower the rate limit locked out never sees the STOP go through
i=0
while kill -0 "$follower" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
kill "$follower" 2>/dev/null && echo "v1.x fake: logs -f did not end after the STOP (killed)"
wait "$follower" 2>/dev/null || :
ms=$((t1 - t0))
echo "v1.x fake: in $ms ms, $rest rest-server requests ($(rate "$rest" $ms) a second), $logs log reads ($(rate "$logs" $ms) a second), $limited refused with 429"
