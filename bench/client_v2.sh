#!/bin/sh
# bench/client_v2.sh - what the client costs on the v2 API (OpenPAI v1.x),
# against the local cluster's v2 routes over TCP (a token on every call,
# as a v1.x cluster demands):
#  - whole-process time of `paictl status JOB` next to `curl -s` of the
#    same URL with the same token (target: within 1.5x of curl);
#  - N protocol-v2 YAML configs (100) in one `paictl submit` next to N
#    separate `curl` POSTs of text/yaml (target: the batch is faster).
# Timing on a shared machine is noisy: this reports, it does not fail.
#
#   PAICTL=build/paictl N=100 sh bench/client_v2.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
N=${N:-100}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paictl-bench-v2-XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

for tool in curl hyperfine python3; do
	command -v "$tool" >/dev/null || { echo "bench/client_v2: $tool not found (make deps)"; exit 0; }
done

mkdir -m 700 "$tmp/state"
printf 'bench:bench-password\n' >"$tmp/users"
chmod 600 "$tmp/users"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PAICTL" serve --state-dir "$tmp/state" --no-ssh -q --listen "127.0.0.1:$port" \
	--users "$tmp/users" 2>"$tmp/server.log" &
pid=$!
i=0
until curl -sf "http://127.0.0.1:$port/api/v2/info" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "bench/client_v2: the local cluster did not start"; cat "$tmp/server.log"; exit 1; }
	sleep 0.05
done

XDG_CONFIG_HOME=$tmp/cfg XDG_STATE_HOME=$tmp/xdg HOME=$tmp
export XDG_CONFIG_HOME XDG_STATE_HOME HOME
"$PAICTL" cluster add v2 "http://127.0.0.1:$port" --api v2 -u bench
"$PAICTL" cluster use v2 >/dev/null
PAICTL_PASSWORD=bench-password "$PAICTL" login >/dev/null
token=$(curl -s -H 'Content-Type: application/json' \
	-d '{"username":"bench","password":"bench-password"}' \
	"http://127.0.0.1:$port/api/v2/authn/basic/login" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

job() { # job NAME -> a protocol-v2 config on stdout
	printf 'protocolVersion: 2\nname: %s\ntype: job\nprerequisites:\n  - name: img\n    type: dockerimage\n    uri: none\ntaskRoles:\n  main:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}\n    commands:\n      - "true"\n' "$1"
}

job bench-status >"$tmp/status.yaml"
"$PAICTL" submit --no-ssh-key --wait "$tmp/status.yaml" >/dev/null 2>&1
url="http://127.0.0.1:$port/api/v2/jobs/bench~bench-status"

echo "== status of one job (v2): paictl status vs curl (the floor for one request)"
hyperfine -N -w 5 -r 100 --export-json "$tmp/status.hf.json" \
	"$PAICTL status bench-status" \
	"curl -s -H 'Authorization: Bearer $token' $url" >"$tmp/status.hf.txt" 2>&1 ||
	cat "$tmp/status.hf.txt"

mkdir "$tmp/a" "$tmp/b"
n=1
while [ $n -le "$N" ]; do
	job "bench-a-$n" >"$tmp/a/$n.yaml"
	job "bench-b-$n" >"$tmp/b/$n.yaml"
	n=$((n + 1))
done

echo "== $N YAML configs (v2): one paictl submit vs $N curl POSTs"
t0=$(date +%s%N)
"$PAICTL" submit --no-ssh-key "$tmp"/a/*.yaml >/dev/null
t1=$(date +%s%N)
for f in "$tmp"/b/*.yaml; do
	curl -s -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: text/yaml' \
		--data-binary @"$f" "http://127.0.0.1:$port/api/v2/jobs"
done
t2=$(date +%s%N)

python3 - "$tmp/status.hf.json" "$(( (t1 - t0) / 1000000 ))" "$(( (t2 - t1) / 1000000 ))" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
p, c = r[0]["mean"] * 1000, r[1]["mean"] * 1000
print(f"v2 status: paictl {p:.2f} ms, curl {c:.2f} ms: {p / c:.2f}x curl "
      f"({'ok' if p <= 1.5 * c else 'SLOWER than the 1.5x target'})")
batch, curls, n = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"v2 submit {n}: paictl one batch {batch} ms, {n} curls {curls} ms "
      f"({'ok' if batch < curls else 'SLOWER than the curls'})")
PY
