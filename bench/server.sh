#!/bin/sh
# bench/server.sh - what the local cluster costs per job (issue 3).
#
# Submits N jobs (1000) whose command is CMD (`true`) to a fresh
# `paictl serve` over its Unix socket, waits until every one has
# SUCCEEDED, and reports jobs/s, p50/p99 submission latency and the
# server's peak memory, next to the physical floor: fork+exec+wait of
# `bash -c true`, N times, measured right after in the same run.
# Goals (issue 39): all N jobs done within 1.5x of that floor; server
# memory under 20 MB with N finished jobs stored.
#
# The server's state goes where the local cluster keeps it by default,
# under $XDG_STATE_HOME/paictl (in a directory of its own, removed
# afterwards); BENCH_STATE=DIR puts it elsewhere. Past the tasks, the
# cost is mostly the file system's: creating and syncing files per job.
# On ext4 without a journal, each new file skips every inode of its
# group deleted in the last minute (six while the inode table is not
# written back: the kernel's recently_deleted), one lookup each: a run
# right after another's 7,000 deletions (or a test suite's) took half
# as much CPU again here. Measure apart from those, or on a file
# system of its own (BENCH_STATE).
#
#   PAICTL=build/paictl N=1000 SERVE_ARGS=--no-ssh PARALLEL=1 sh bench/server.sh
set -eu

PAICTL=${PAICTL:-build/paictl}
N=${N:-1000}
CMD=${CMD:-true}
SERVE_ARGS=${SERVE_ARGS:-}
PARALLEL=${PARALLEL:-8}
# tasks as processes (make exports this too): the floor is fork+exec,
# and the job's image "x" exists nowhere
PAICTL_SERVE_RUNTIME=${PAICTL_SERVE_RUNTIME:-process}
export PAICTL_SERVE_RUNTIME
BENCH_STATE=${BENCH_STATE:-${XDG_STATE_HOME:-$HOME/.local/state}/paictl}
mkdir -p -m 700 "$BENCH_STATE"
tmp=$(mktemp -d "$BENCH_STATE/bench-XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || :; wait "$pid" 2>/dev/null || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }

mkdir -m 700 "$tmp/state"
# shellcheck disable=SC2086 # SERVE_ARGS is a list of options
"$PAICTL" serve --state-dir "$tmp/state" -q $SERVE_ARGS 2>"$tmp/server.log" &
pid=$!
sock=$tmp/state/api.sock
i=0
until curl -sf --unix-socket "$sock" http://localhost/api/v1 >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "bench: the server did not start" >&2; cat "$tmp/server.log" >&2; exit 1; }
	sleep 0.05
done

# The bodies go inline in curl's config: files of our own would add to
# what the file system has to do, and to what is measured. CMD is
# escaped twice: for JSON, then for curl's config.
qcmd=$(printf '%s' "$CMD" | sed 's/[\\"]/\\&/g; s/[\\"]/\\&/g')
i=1
while [ $i -le "$N" ]; do
	[ $i -eq 1 ] || echo next
	printf 'url = "http://localhost/api/v1/user/bench/jobs"\nunix-socket = "%s"\nheader = "Content-Type: application/json"\noutput = "/dev/null"\nwrite-out = "%%{http_code} %%{time_total} %%{errormsg}\\n"\n' "$sock"
	printf 'data-binary = "{\\"jobName\\":\\"b%d\\",\\"image\\":\\"x\\",\\"taskRoles\\":[{\\"name\\":\\"main\\",\\"taskNumber\\":1,\\"cpuNumber\\":1,\\"memoryMB\\":100,\\"gpuNumber\\":0,\\"command\\":\\"%s\\"}]}"\n' $i "$qcmd"
	i=$((i + 1))
done >"$tmp/curl.cfg"

t0=$(now)
# PARALLEL=K: K submissions in flight at once (curl -Z), as many
# clients would send them: issue 39's "submitted at once", 8 by default;
# 1: one after another, each waiting for its answer, which waits for
# its record's sync
if [ "$PARALLEL" -gt 1 ]; then
	curl -s --no-progress-meter -Z --parallel-max "$PARALLEL" -K "$tmp/curl.cfg" \
	    >"$tmp/lat.txt"
else
	curl -s -K "$tmp/curl.cfg" >"$tmp/lat.txt"
fi
t1=$(now)
# The end is learnt as a client should learn it, from the long-poll
# (server/wait.c: a status held until its ETag changes), not by asking
# for all N jobs again and again: the last job submitted, followed to
# its end, then the list once (again, 20 ms apart, for any job still
# running then: the tasks run at once, and end in any order).
etag=none
while :; do
	hdr=$(curl -s -D - -o "$tmp/last.json" --unix-socket "$sock" \
	    "http://localhost/api/v1/user/bench/jobs/b$N?wait=30000&since=$etag")
	grep -q '"state":"\(SUCCEEDED\|FAILED\|STOPPED\)"' "$tmp/last.json" && break
	etag=$(printf '%s\n' "$hdr" | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | tr -d '\r' |
	    sed 's|/|%2F|g; s|"|%22|g')
	[ -n "$etag" ] || { echo "bench: job b$N: no status" >&2; exit 1; }
	if [ "$(echo "$(now) - $t0 > 600" | bc)" = 1 ]; then
		echo "bench: job b$N did not end in 600 s" >&2
		exit 1
	fi
done
while :; do
	list=$(curl -s --unix-socket "$sock" http://localhost/api/v1/user/bench/jobs)
	done_=$(printf '%s' "$list" | grep -o '"state":"SUCCEEDED"' | wc -l)
	[ "$done_" -ge "$N" ] && break
	# a job that failed never succeeds: no use waiting for it
	if printf '%s' "$list" | grep -q '"state":"FAILED"'; then
		echo "bench: a job FAILED (PAICTL_SERVE_RUNTIME=$PAICTL_SERVE_RUNTIME)" >&2
		exit 1
	fi
	if [ "$(echo "$(now) - $t0 > 600" | bc)" = 1 ]; then
		echo "bench: only $done_ of $N jobs succeeded in 600 s" >&2
		exit 1
	fi
	sleep 0.02
done
t2=$(now)
# v0.17 answers a submission 201 (openpai-rest-api-v1.md), its docs 202
accepted=$(grep -c '^20[12] ' "$tmp/lat.txt" || :)
grep -v '^20[12] ' "$tmp/lat.txt" | sort | uniq -c | sed 's/^/bench: not accepted: /' >&2 || :
peak=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")

f0=$(now)
i=0
while [ $i -lt "$N" ]; do bash -c true; i=$((i + 1)); done
f1=$(now)

fs=$(df --output=fstype "$tmp" 2>/dev/null | tail -n 1)
echo "server: state in $tmp ($fs); command: $CMD"
sort -n -k2 "$tmp/lat.txt" | awk -v n="$accepted" -v N="$N" \
	-v t0="$t0" -v t1="$t1" -v t2="$t2" -v f0="$f0" -v f1="$f1" \
	-v peak="$peak" -v rss="$rss" '
	{ lat[NR] = $2 }
	END {
		p50 = lat[int(NR * 0.50) > 0 ? int(NR * 0.50) : 1]
		p99 = lat[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
		e2e = t2 - t0; floor = (f1 - f0) / N
		printf "server: %d jobs accepted of %d; all SUCCEEDED in %.2f s (submitting took %.2f s)\n", n, N, e2e, t1 - t0
		printf "server: %.0f jobs/s; %.2f ms per job end to end\n", N / e2e, e2e * 1000 / N
		printf "server: submit latency p50 %.2f ms, p99 %.2f ms\n", p50 * 1000, p99 * 1000
		r = e2e / N / floor
		printf "server: floor (fork+exec+wait of bash -c true) %.2f ms per job; ratio %.2fx (goal <= 1.5x: %s)\n", floor * 1000, r, r <= 1.5 ? "met" : "NOT met"
		printf "server: peak memory %.1f MB, %.1f MB with %d finished jobs (goal < 20 MB: %s)\n", peak / 1024, rss / 1024, N, peak < 20 * 1024 ? "met" : "NOT met"
	}'
