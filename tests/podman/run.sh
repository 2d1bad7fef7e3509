#!/bin/sh
# tests/podman/run.sh - the local cluster runs each task in its image with
# podman (`paictl serve --runtime podman`). It builds a small image
# offline (a rootfs of Debian's busybox-static, imported) and runs jobs in
# it: the task sees the image's files and not the host's, its $PAI_*
# values and ports as `paictl expand` and `paictl status` say them, no
# warning that it does not run in its image; `paictl ssh` lands inside;
# stop ends the container; an image podman cannot pull fails the task
# with podman's words; two jobs at once; a restart with a container
# running, and with its monitor killed meanwhile (the orphan removed).
# Without podman (or busybox-static) it says so in one line and passes.
#
# usage: sh tests/podman/run.sh     (PAICTL: the binary, default build/paictl)
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${PAICTL:=$here/../../build/paictl}"
if ! command -v podman >/dev/null 2>&1 ||
	! podman version >/dev/null 2>&1; then
	echo "podman: skipped: podman is not installed or does not answer" \
		"(make test-deps installs it)"
	exit 0
fi
if ! dpkg -L busybox-static 2>/dev/null | grep -q '/bin/busybox$'; then
	echo "podman: skipped: no busybox-static to build the test image" \
		"(make test-deps installs it)"
	exit 0
fi

tmp=$(mktemp -d /tmp/paictl-podman.XXXXXX)
image=localhost/paictl-test:$$
# the case's environment is its own: no profile, token or server of the
# user's; the runtime asked for by name
for v in $(env | sed -n 's/^\(PAICTL_[A-Za-z0-9_]*\|XDG_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
export HOME="$tmp/home" LC_ALL=C TZ=UTC
mkdir -p "$HOME"
state=$HOME/.local/state/paictl/local
failed=0
passed=0

paictl() { "$PAICTL" "$@"; }

cleanup() {
	paictl serve --stop -q >/dev/null 2>&1
	# what a failed check left: the containers of this run's jobs
	[ -f "$tmp/names" ] && while IFS= read -r c; do
		podman rm -f -t 0 --ignore "$c" >/dev/null 2>&1
	done <"$tmp/names"
	podman rmi -f "$image" >/dev/null 2>&1
	[ -f "$tmp/images" ] && while IFS= read -r i; do
		podman rmi -f "$i" >/dev/null 2>&1
	done <"$tmp/images"
	if [ "${KEEP:-}" = 1 ]; then echo "podman: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

ok() {
	passed=$((passed + 1))
	echo "ok   $1"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL $1"
	shift
	for l in "$@"; do echo "    $l"; done
}
# same NAME WANT GOT: passes when they are equal
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		fail "$1" "want: $(printf %s "$2" | head -c 2000)" \
			"got:  $(printf %s "$3" | head -c 2000)"
	fi
}
# containers of a job: their names
containers() {
	podman ps -a --format '{{.Names}}' | grep -- "-root_$1-" || :
}
# the task's line of `paictl status JOB`: its ssh port
ssh_port() {
	paictl status "$1" | awk -v r="$2" -v i="$3" \
		'$1 == r && $2 == i { for (f = 1; f <= NF; f++) if ($f ~ /^ssh:/) { sub("ssh:", "", $f); print $f } }'
}

# ---- the image (tests/podman/image.sh)
if ! sh "$here/image.sh" "$image"; then
	fail "podman import of the test image"
	exit 1
fi

sshd=
nossh=--no-ssh
if command -v sshd >/dev/null || [ -x /usr/sbin/sshd ]; then
	sshd=yes
	nossh=
fi
start() {
	# shellcheck disable=SC2086 # $nossh: one option or none
	paictl serve --background --runtime podman $nossh "$@" \
		>/dev/null 2>"$tmp/serve.err" ||
		fail "serve --runtime podman" "$(cat "$tmp/serve.err")"
}
start

# ---- the image's files, its environment as expand says, no warning
cat >"$tmp/files.json" <<EOF
{"jobName":"files","image":"$image","jobEnvs":{"QUOTED":"a b \$x \"q\" 'y'"},
 "taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":200,"gpuNumber":0,
   "command":"cat /paictl-image-marker; grep ^ID= /etc/os-release; sed -n s/^VERSION_ID=//p /etc/os-release; test -e $PAICTL && echo host files || echo no host files; pwd; env | grep -E '^(PAI_|QUOTED=)' | sort >pai.env"},
  {"name":"worker","taskNumber":2,"cpuNumber":1,"memoryMB":200,"gpuNumber":0,"command":"env | grep -E '^(PAI_|QUOTED=)' | sort >pai.env"}]}
EOF
out=$(timeout 120 "$PAICTL" submit --wait "$tmp/files.json" 2>"$tmp/files.err")
st=$?
same "a job in its image: SUCCEEDED" "0 files" "$st $out"
same "no warning that it does not run in its image" "0" \
	"$(grep -c 'not in the image' "$tmp/files.err")"
work=$state/jobs/root~files/attempt-0
same "the task sees the image's files, not the host's" \
	"main-0 | only in the image
main-0 | ID=paictl-test
main-0 | $$
main-0 | no host files
main-0 | $work/main-0/work" "$(paictl logs files 2>&1)"
# every variable expand shows for worker-1, with its value (the
# placeholders of placement matching what the cluster gave)
paictl expand "$tmp/files.json" worker 1 2>/dev/null | grep -E '^(PAI_|QUOTED=)' |
	sort >"$tmp/expand.env"
got=$(cut -d= -f1 "$work/worker-1/work/pai.env" | tr '\n' ' ')
same "the container's \$PAI_* names are expand's" \
	"$(cut -d= -f1 "$tmp/expand.env" | tr '\n' ' ')" "$got"
bad=
while IFS= read -r line; do
	name=${line%%=*}
	pat=$(printf '%s' "${line#*=}" | sed 's/<[^>]*>/*/g')
	val=$(grep "^$name=" "$work/worker-1/work/pai.env" | head -n 1)
	val=${val#*=}
	# shellcheck disable=SC2254 # the pattern is meant as one
	case $val in
	$pat) ;;
	*) bad="$bad $name=$val (expand: ${line#*=})" ;;
	esac
done <"$tmp/expand.env"
same "the container's \$PAI_* values are expand's" "" "$bad"
same "the ports the cluster gave, as \$PAI_* says them" \
	"PAI_CONTAINER_SSH_PORT=$(ssh_port files worker 1)" \
	"$(grep '^PAI_CONTAINER_SSH_PORT=' "$work/worker-1/work/pai.env")"
same "jobEnvs as given, quotes and all" "QUOTED=a b \$x \"q\" 'y'" \
	"$(grep '^QUOTED=' "$work/worker-1/work/pai.env")"

# ---- ssh lands inside; stop ends the container
cat >"$tmp/long.json" <<EOF
{"jobName":"long","image":"$image","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":200,"gpuNumber":0,"command":"echo started; sleep 300"}]}
EOF
paictl submit -q "$tmp/long.json" >/dev/null
i=0
until [ -n "$(containers long)" ] ||
	[ $i -gt 200 ]; do sleep 0.1; i=$((i + 1)); done
containers long >"$tmp/names"
same "logs -f follows the container's output" "started" \
	"$(timeout 3 "$PAICTL" logs -f long 2>/dev/null)"
same "a container named for job, attempt, role and index" \
	"paictl-" "$(cut -c1-7 "$tmp/names")"
case $(cat "$tmp/names") in
*-root_long-0-main-0) ok "its name ends with the job, attempt, role and index" ;;
*) fail "its name ends with the job, attempt, role and index" "$(cat "$tmp/names")" ;;
esac
if [ -n "$sshd" ]; then
	sleep 0.3
	# shellcheck disable=SC2016 # expanded by the task's shell
	got=$(echo hello | timeout 60 "$PAICTL" ssh long -- \
		'cat /paictl-image-marker; echo $PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX; pwd; tr a-z A-Z; echo err >&2; exit 42' 2>"$tmp/ssh.err")
	rc=$?
	same "ssh: inside the container, its environment and directory, stdin, exit status" \
		"only in the image
main-0
$state/jobs/root~long/attempt-0/main-0/work
HELLO
42
err" "$got
$rc
$(cat "$tmp/ssh.err")"
	paictl ssh-config long >"$tmp/ssh.cfg"
	# shellcheck disable=SC2016 # expanded by the task's shell
	same "ssh-config and plain ssh: inside the container too" \
		"only in the image main" \
		"$(timeout 60 ssh -F "$tmp/ssh.cfg" -o BatchMode=yes -o LogLevel=ERROR \
			long-main-0 'echo $(cat /paictl-image-marker) $PAI_CURRENT_TASK_ROLE_NAME' 2>&1)"
else
	echo "podman: ssh checks skipped: no sshd (make test-deps installs openssh-server)"
fi
# stop_timed JOB WHAT: stops JOB; STOPPED, its container gone, and
# sooner than the 10 s grace
stop_timed() {
	start_ms=$(date +%s%N)
	timeout 60 "$PAICTL" stop --wait -q "$1" >/dev/null 2>&1
	ms=$((($(date +%s%N) - start_ms) / 1000000))
	same "$2: STOPPED, no container" "STOPPED " \
		"$(paictl status "$1" | sed -n 's/^state: *//p') $(containers "$1")"
	if [ "$ms" -lt 8000 ]; then ok "$2: within the grace ($ms ms)"; else
		fail "$2: within the grace" "$ms ms"
	fi
}
# SIGTERM reaches the task through the image's init
stop_timed long "stop"

# ---- an image that cannot be pulled: the task fails with podman's words
cat >"$tmp/missing.json" <<EOF
{"jobName":"missing","image":"localhost/paictl-test-missing:$$","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":200,"gpuNumber":0,"command":"true"}]}
EOF
timeout 120 "$PAICTL" submit --wait -q "$tmp/missing.json" >/dev/null 2>&1
st=$?
reason=$(paictl status missing | sed -n 's/^reason: *//p')
case "$st $reason" in
"9 "*"exited with 125: podman: "*"localhost/paictl-test-missing:$$"*)
	ok "a missing image fails the task with podman's words" ;;
*) fail "a missing image fails the task with podman's words" "exit $st" "$reason" ;;
esac

# ---- retries: each attempt in a container of its own, none left after
printf '%s\n' "{\"jobName\":\"retry\",\"image\":\"$image\",\"retryCount\":1,\"taskRoles\":[{\"name\":\"main\",\"taskNumber\":1,\"cpuNumber\":1,\"memoryMB\":100,\"gpuNumber\":0,\"command\":\"echo attempt \$PAI_TASK_INDEX; exit 3\"}]}" \
	>"$tmp/retry.json"
timeout 120 "$PAICTL" submit --wait -q "$tmp/retry.json" >/dev/null 2>&1
st=$?
same "retries: FAILED after its second attempt (state, retries, exit code), no container" \
	"9 FAILED 1 3 " \
	"$st $(paictl status retry | sed -n 's/^\(state\|retries\|exit code\): *//p' | tr '\n' ' ')$(containers retry)"

# ---- two jobs at once, each in its own container
for n in 1 2; do
	sed "s/\"files\"/\"two$n\"/; s/\"taskNumber\":2/\"taskNumber\":1/" \
		"$tmp/files.json" >"$tmp/two$n.json"
	timeout 120 "$PAICTL" submit --wait -q "$tmp/two$n.json" \
		>"$tmp/two$n.out" 2>&1 &
done
wait
same "two jobs at once: both SUCCEEDED" "SUCCEEDED SUCCEEDED" \
	"$(paictl status two1 | sed -n 's/^state: *//p') $(paictl status two2 | sed -n 's/^state: *//p')"

# ---- a restart with a container running: adopted, then stopped
# submit_long NAME: long.json as NAME, once its container runs
submit_long() {
	paictl submit -q --name "$1" "$tmp/long.json" >/dev/null
	i=0
	until [ -n "$(containers "$1")" ] &&
		[ -s "$state/jobs/root~$1/attempt-0/main-0/status" ] ||
		[ $i -gt 200 ]; do sleep 0.1; i=$((i + 1)); done
	containers "$1" >>"$tmp/names"
}
submit_long long2
# and a container of this state directory that no task has (its label
# copied): an orphan the restart removes
id=$(podman inspect --format '{{index .Config.Labels "io.paictl.local"}}' \
	"$(containers long2)")
stray=paictl-$id-stray-$$
echo "$stray" >>"$tmp/names"
# with what this machine needs of podman, as the server's log says
needs=$(sed -n 's/.*what this machine needs: \([^;]*\);.*/\1/p' \
	"$state/server.log" | head -n 1 | sed 's/^nothing$//')
case $needs in --runtime\ *) rt=${needs%% --ulimit*} needs=${needs#"$rt"} ;; *) rt= ;; esac
# shellcheck disable=SC2086 # $rt and $needs: options, split
podman $rt run -d --name "$stray" --label "io.paictl.local=$id" \
	--network=host $needs "$image" sleep 300 >/dev/null
same "a stray container of the state directory runs" "$stray" \
	"$(podman ps --format '{{.Names}}' | grep -- "$stray")"
paictl serve --stop -q
same "the server stopped, the container runs on" "1" \
	"$(podman ps --format '{{.Names}}' | grep -c -- -root_long2-)"
start
same "restarted: the task RUNNING again" "RUNNING" \
	"$(paictl status long2 | sed -n 's/^state: *//p')"
same "restarted: the container no task has removed" "" \
	"$(podman ps -a --format '{{.Names}}' | grep -- "$stray")"
timeout 60 "$PAICTL" stop --wait -q long2 >/dev/null 2>&1
same "stopped after the restart: the container gone" "STOPPED " \
	"$(paictl status long2 | sed -n 's/^state: *//p') $(containers long2)"

# ---- its monitor killed while the server was down: the orphan removed
submit_long long3
paictl serve --stop -q
mon=$(cut -d' ' -f2 "$state/jobs/root~long3/attempt-0/main-0/status" | head -n 1)
kill -KILL "$mon"
start
i=0
until [ -z "$(containers long3)" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
same "a container whose monitor was lost is removed at the restart" "FAILED " \
	"$(paictl status long3 | sed -n 's/^state: *//p') $(containers long3)"

# ---- pulls from a registry on 127.0.0.1 (tests/podman/registry.py), which
# podman reaches as registries.conf says (CONTAINERS_REGISTRIES_CONF,
# passed on to podman): protocol v2's auth, a private image refused
# without it, a name without a registry as Docker Hub's
paictl serve --stop -q
reg=$tmp/registry
if ! podman push -q --compress --format v2s2 "$image" "dir:$reg" >/dev/null 2>&1; then
	fail "podman push of the test image to a directory"
else
	password='s3cr:et "x'
	python3 "$here/registry.py" --dir "$reg" --port-file "$tmp/reg.port" \
		--log "$tmp/reg.log" --user alice --password "$password" &
	regpid=$!
	i=0
	until [ -s "$tmp/reg.port" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$tmp/reg.port")
	printf '%s\n' "unqualified-search-registries = []" \
		"[[registry]]" "location = \"127.0.0.1:$port\"" "insecure = true" \
		"[[registry]]" "prefix = \"docker.io\"" \
		"location = \"127.0.0.1:$port\"" "insecure = true" \
		>"$tmp/registries.conf"
	CONTAINERS_REGISTRIES_CONF=$tmp/registries.conf start
	priv=127.0.0.1:$port/paictl/private-$$:1
	echo "$priv" >>"$tmp/images"
	printf '%s\n' "protocolVersion: 2" "name: auth" "type: job" \
		"prerequisites:" "  - name: img" "    type: dockerimage" \
		"    uri: '$priv'" \
		"    auth: {username: alice, password: '$password', registryuri: '127.0.0.1:$port'}" \
		"taskRoles:" "  main:" "    instances: 1" "    dockerImage: img" \
		"    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}" \
		"    commands: [cat /paictl-image-marker]" >"$tmp/auth.yaml"
	timeout 120 "$PAICTL" submit --wait -q "$tmp/auth.yaml" >/dev/null 2>&1
	st=$?
	paictl logs auth >"$tmp/auth.log" 2>&1
	same "protocol v2's auth: the private image pulled, the task run in it" \
		"0 only in the image" "$st $(tail -n 1 "$tmp/auth.log")"
	same "podman's pull progress in the task's log" \
		"Trying to pull $priv..." "$(head -n 1 "$tmp/auth.log")"
	same "the registry saw the credentials" "yes" \
		"$(grep -q "^GET /v2/paictl/private-$$/manifests/1 auth-ok" "$tmp/reg.log" && echo yes)"
	b64=$(printf 'alice:%s' "$password" | base64 -w0)
	same "the password written nowhere in the state directory" "" \
		"$(grep -rlF -e "$password" -e "$b64" "$HOME" 2>/dev/null)"
	other=127.0.0.1:$port/paictl/other-$$:1
	echo "$other" >>"$tmp/images"
	sed "s|'$priv'|'$other'|; /auth:/d; s/^name: auth/name: noauth/" \
		"$tmp/auth.yaml" >"$tmp/noauth.yaml"
	timeout 120 "$PAICTL" submit --wait -q "$tmp/noauth.yaml" >/dev/null 2>&1
	st=$?
	reason=$(paictl status noauth | sed -n 's/^reason: *//p')
	case "$st $reason" in
	"9 "*"podman: "*unauthorized*) ok "no auth: refused, in podman's words" ;;
	*) fail "no auth: refused, in podman's words" "exit $st" "$reason" ;;
	esac
	short=paictl-short-$$
	echo "docker.io/library/$short:1" >>"$tmp/images"
	sed "s|\"$image\"|\"$short:1\"|; s/\"files\"/\"short\"/" "$tmp/files.json" \
		>"$tmp/short.json"
	timeout 120 "$PAICTL" submit --wait -q "$tmp/short.json" >/dev/null 2>&1
	st=$?
	same "a name without a registry is Docker Hub's (its library/)" "0 yes" \
		"$st $(grep -q "^GET /v2/library/$short/manifests/1 " "$tmp/reg.log" && echo yes)"
	kill "$regpid"
fi

# ---- a registry that never answers: a stop ends the pull; a pull that
# takes longer than --pull-timeout fails the task, never a hang
paictl serve --stop -q
python3 -c '
import os, socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)' "$tmp/hang.port" &
hangpid=$!
i=0
until [ -s "$tmp/hang.port" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
hport=$(cat "$tmp/hang.port")
printf '%s\n' "[[registry]]" "location = \"127.0.0.1:$hport\"" "insecure = true" \
	>"$tmp/hang.conf"
CONTAINERS_REGISTRIES_CONF=$tmp/hang.conf start --pull-timeout 4
sed "s|\"$image\"|\"127.0.0.1:$hport/paictl/hang:1\"|; s/\"long\"/\"hang\"/" \
	"$tmp/long.json" >"$tmp/hang.json"
paictl submit -q "$tmp/hang.json" >/dev/null
sleep 1
same "podman's progress in the task's status while it pulls" \
	"preparing: Trying to pull 127.0.0.1:$hport/paictl/hang:1..." \
	"$(paictl status -o json hang | jq -r '.taskRoles.main.taskStatuses[0].containerDiagnostics')"
stop_timed hang "a stop while podman pulls"
sed 's/"hang"/"hang2"/' "$tmp/hang.json" >"$tmp/hang2.json"
# on a terminal (script(1)'s), whose line the status rewrites each second
timeout 60 script -qec "$PAICTL submit --wait $tmp/hang2.json" /dev/null \
	>"$tmp/hang2.tty" 2>&1
st=$?
tr '\r' '\n' <"$tmp/hang2.tty" | sed 's/\x1b\[K//; s/ ([0-9:]*)$//' >"$tmp/hang2.err"
same "and in submit --wait's status line" \
	"hang2 RUNNING, 1 task: 1 running; main-0: preparing: Trying to pull 127.0.0.1:$hport/paictl/hang:1..." \
	"$(grep -m1 'preparing' "$tmp/hang2.err")"
reason=$(paictl status hang2 | sed -n 's/^reason: *//p')
case "$st $reason" in
"9 "*"podman: the task's image was not there after 4 s"*) ok "a pull longer than --pull-timeout fails the task" ;;
*) fail "a pull longer than --pull-timeout fails the task" "exit $st" "$reason" ;;
esac
kill "$hangpid"

echo "podman: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
