#!/bin/sh
# bench/ssh.sh - whole-process time of `paictl ssh JOB -- true` next to
# OpenSSH's `ssh -i KEY -p PORT -o BatchMode=yes USER@127.0.0.1 true`,
# against the same sshd of a task of the local cluster, with the key
# and the host key already recorded (the first paictl ssh does both).
#
# usage: sh bench/ssh.sh        (make bench sets PAICTL)
#
# Environment: PAICTL (default build/paictl), BENCH_DIR (default
# build/bench), BENCH_RUNS (timed runs per command, default 30). The
# target is paictl within 1.2x of OpenSSH; the verdict says so, and the
# exit status is 0 either way (timings on a shared machine are noisy):
# only missing tools or a cluster that does not start make it fail.
#
# Everything happens under a HOME of its own in BENCH_DIR, so that the
# user's clusters, keys and known_hosts are never touched. OpenSSH gets
# paictl's known_hosts file and the container's HostKeyAlias (what
# `paictl ssh-config` gives it) so that both check the host key.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PAICTL=${PAICTL:-$top/build/paictl}
out=${BENCH_DIR:-$top/build/bench}/ssh
runs=${BENCH_RUNS:-30}

die() {
	echo "bench: ssh: $*" >&2
	exit 1
}

[ -x "$PAICTL" ] || die "$PAICTL is not an executable; run make first"
[ -x /usr/sbin/sshd ] || command -v sshd >/dev/null 2>&1 ||
	die "sshd is needed (Debian package openssh-server)"
command -v ssh >/dev/null 2>&1 || die "ssh is needed (openssh-client)"
command -v jq >/dev/null 2>&1 || die "jq is needed (Debian package jq)"

rm -rf "$out" && mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
HOME=$out/home
mkdir -m 700 "$HOME" || die "cannot create $HOME"
export HOME
unset XDG_STATE_HOME XDG_CONFIG_HOME PAICTL_CLUSTER PAICTL_URI PAICTL_USER \
	PAICTL_TOKEN PAICTL_CONFIG PAICTL_PASSWORD
state=$HOME/.local/state/paictl

stop() {
	"$PAICTL" stop -q job >/dev/null 2>&1
	pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' \
		"$state/local/server.json" 2>/dev/null)
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
}
trap stop EXIT

cat >"$out/job.json" <<'JOB'
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,
 "cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 3600"}]}
JOB
"$PAICTL" serve --background >/dev/null || die "the local cluster did not start"
"$PAICTL" submit -q "$out/job.json" >/dev/null || die "cannot submit"
i=0
until "$PAICTL" status -o json job | grep -q '"taskState": "RUNNING"'; do
	[ $i -gt 100 ] && die "the task does not run"
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
# records the key and the host key: every timed run finds them
"$PAICTL" ssh job -- true || die "paictl ssh job -- true failed"
info=$("$PAICTL" ssh-key -o json job) || die "ssh-key failed"
key=$(echo "$info" | jq -r .key)
port=$(echo "$info" | jq -r '.tasks[0].port')
user=$(echo "$info" | jq -r '.tasks[0].user')
alias=$(cut -d' ' -f1 "$state/known_hosts/local")
ssh_cmd="ssh -i $key -p $port -o BatchMode=yes -o IdentitiesOnly=yes \
-o UserKnownHostsFile=$state/known_hosts/local -o HostKeyAlias=$alias \
$user@127.0.0.1 true"
pai_cmd="$PAICTL ssh job -- true"
$ssh_cmd || die "OpenSSH cannot log in: $ssh_cmd"

# ms: the mean milliseconds of the command
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 3 --runs "$runs" --export-json "$out/times.json" \
		"$pai_cmd" "$ssh_cmd" >"$out/hyperfine.txt" 2>&1 ||
		die "hyperfine failed: see $out/hyperfine.txt"
	pai=$(jq '.results[0].mean * 1000' "$out/times.json")
	oss=$(jq '.results[1].mean * 1000' "$out/times.json")
	pai_sd=$(jq '.results[0].stddev * 1000' "$out/times.json")
	oss_sd=$(jq '.results[1].stddev * 1000' "$out/times.json")
else
	echo "note: hyperfine not installed: times are the mean of $runs runs timed with date"
	loop() {
		t0=$(date +%s%N)
		n=0
		while [ $n -lt "$runs" ]; do
			$1 >/dev/null || die "failed: $1"
			n=$((n + 1))
		done
		echo $((($(date +%s%N) - t0) / runs / 1000)) | awk '{print $1/1000}'
	}
	pai=$(loop "$pai_cmd")
	oss=$(loop "$ssh_cmd")
	pai_sd=0
	oss_sd=0
fi
awk -v p="$pai" -v o="$oss" -v ps="$pai_sd" -v os="$oss_sd" 'BEGIN {
	printf "paictl ssh JOB -- true  %8.2f ms ± %.2f\n", p, ps
	printf "ssh ... true (OpenSSH)  %8.2f ms ± %.2f\n", o, os
	printf "bench: ssh: paictl/OpenSSH %.2fx: %s\n", p / o,
		p <= 1.2 * o ? "ok, within 1.2x" : "SLOWER than 1.2x OpenSSH"
}'
