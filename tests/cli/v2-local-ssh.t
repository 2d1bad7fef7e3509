# ssh into a v1.x job (the local cluster in v2 mode, a real sshd): no
# job key; submit put the user's key in the job's ssh plugin, and ssh
# logs in with it, role as written (ps_server) or as reported; without
# that key (--no-ssh-key) the task refuses it, said plainly
run: paictl ssh job ps_server 0 -- 'echo in $PAI_JOB_NAME'; paictl ssh job psserver 0 -- 'exit 3'; echo "exit $?"; paictl ssh nokey -- true 2>&1 | sed -E 's/port [0-9]+/port PORT/; s|'"$HOME"'|HOME|g'; ls "$HOME/.local/state/paictl/keys" 2>/dev/null | wc -l
timeout: 60
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
printf 'alice:secret123\n' >users
chmod 600 users
mkdir -p "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N '' -C me@here -f "$HOME/.ssh/id_ed25519"
paictl serve --background --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
paictl submit -q job.yaml >/dev/null
sed 's/^name: job/name: nokey/' job.yaml >nokey.yaml
paictl submit -q --no-ssh-key nokey.yaml >/dev/null
i=0; until [ "$(paictl -o json status job | grep -c '"taskState": "RUNNING"')" = 1 ] && [ "$(paictl -o json status nokey | grep -c '"taskState": "RUNNING"')" = 1 ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.yaml
protocolVersion: 2
name: job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  ps_server:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["exec sleep 600"]
=== teardown
paictl stop job >/dev/null 2>&1
paictl stop nokey >/dev/null 2>&1
=== stdout
in alice~job
exit 3
paictl: ssh: 127.0.0.1 port PORT refused key 'HOME/.ssh/id_ed25519' for user 'root' (the job lets in the keys of its ssh plugin: submit it with this key, or give -i FILE)
0
=== stderr
