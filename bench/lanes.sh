#!/bin/sh
# bench/lanes.sh - a batch's lanes (issue 39): N configs (40) in one
# `paictl submit` to an OpenPAI v0.x stand-in (bench/lanes_server.py),
# next to one `curl` process sending the same N over one keep-alive
# connection (--next), side by side, on two servers:
#  - serial: one request at a time, 5 ms each; goal: paictl within 1.2x
#    of the one connection;
#  - overlap: 100 ms each, all at once; goal: paictl at least 4x faster
#    than the one connection;
#  - crowd: 5 ms alone, slower the more are under way (5 ms x n^2), as
#    a server that slows under many connections; goal: paictl within
#    1.5x of the one connection.
# Each figure is the median of RUNS runs (5) of whole processes.
# Timing on a shared machine is noisy: this reports, it does not fail.
#
#   PAICTL=build/paictl N=40 RUNS=5 sh bench/lanes.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
N=${N:-40}
RUNS=${RUNS:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paictl-bench-lanes-XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "bench/lanes: $tool not found (make deps)"; exit 0; }
done

XDG_CONFIG_HOME=$tmp/cfg XDG_STATE_HOME=$tmp/xdg HOME=$tmp PAICTL_TOKEN=bench
export XDG_CONFIG_HOME XDG_STATE_HOME HOME PAICTL_TOKEN

job() { # job NAME -> a config on stdout
	printf '{"jobName": "%s", "image": "none", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "true"}]}\n' "$1"
}

# configs DIR PREFIX: N configs PREFIX-1.. into DIR
configs() {
	mkdir -p "$1"
	i=1
	while [ $i -le "$N" ]; do
		job "$2-$i" >"$1/$i.json"
		i=$((i + 1))
	done
}

ms_of() { # ms_of CMD...: the milliseconds it took
	a=$(date +%s%N)
	"$@" >/dev/null 2>&1 || echo "bench/lanes: $1 failed" >&2
	b=$(date +%s%N)
	echo $(((b - a) / 1000000))
}

median() { # median N...
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# curl_next URL DIR: one curl, every config of DIR over one connection
curl_next() {
	set -- "$1" "$2"
	url=$1 dir=$2
	set --
	for f in "$dir"/*.json; do
		[ $# -gt 0 ] && set -- "$@" --next
		set -- "$@" -s -o /dev/null -H "Authorization: Bearer $PAICTL_TOKEN" \
			-H 'Content-Type: application/json' --data-binary "@$f" "$url"
	done
	curl "$@"
}

# one MODE GOAL: the figures of one server
one() {
	mode=$1
	rm -f "$tmp/port"
	python3 "$top/bench/lanes_server.py" "$mode" "$tmp/port" 2>"$tmp/server.log" &
	pid=$!
	i=0
	while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$tmp/port" ] || { echo "bench/lanes: the $mode server did not start"; cat "$tmp/server.log"; exit 1; }
	port=$(cat "$tmp/port")
	url="http://127.0.0.1:$port/api/v1/user/bench/jobs"
	"$PAICTL" cluster add "$mode" "http://127.0.0.1:$port" --api v1 -u bench >/dev/null
	r=1 p='' c=''
	while [ $r -le "$RUNS" ]; do
		configs "$tmp/$mode-p$r" "p$r"
		configs "$tmp/$mode-c$r" "c$r"
		p="$p $(ms_of "$PAICTL" -c "$mode" submit "$tmp/$mode-p$r"/*.json)"
		c="$c $(ms_of curl_next "$url" "$tmp/$mode-c$r")"
		r=$((r + 1))
	done
	kill "$pid" 2>/dev/null || :
	wait "$pid" 2>/dev/null || :
	pid=
	# shellcheck disable=SC2086 # a list of numbers
	pm=$(median $p)
	# shellcheck disable=SC2086
	cm=$(median $c)
	echo "$mode $pm $cm"
}

echo "== $N configs in one paictl submit vs one curl over one keep-alive connection (median of $RUNS)"
# shellcheck disable=SC2046 # three words each
set -- $(one serial) $(one overlap) $(one crowd)
awk -v sp="$2" -v sc="$3" -v op="$5" -v oc="$6" -v cp="$8" -v cc="$9" 'BEGIN {
	s = sc > 0 ? sp / sc : 0; o = op > 0 ? oc / op : 0; c = cc > 0 ? cp / cc : 0
	printf "serial server (one at a time, 5 ms each): paictl %d ms, one connection %d ms: %.2fx of it; goal: at most 1.2x: %s\n",
		sp, sc, s, (s <= 1.2 ? "met" : "NOT met")
	printf "overlapping server (100 ms each, all at once): paictl %d ms, one connection %d ms: %.2fx faster; goal: at least 4x: %s\n",
		op, oc, o, (o >= 4 ? "met" : "NOT met")
	printf "crowded server (5 ms alone, 5 ms x n^2 with n under way): paictl %d ms, one connection %d ms: %.2fx of it; goal: at most 1.5x: %s\n",
		cp, cc, c, (c <= 1.5 ? "met" : "NOT met")
}'
