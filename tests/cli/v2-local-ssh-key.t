# ssh-key where jobs have no keys of their own (v1.x): it says which key
# to use, and ssh-config names the user's key, the agent's keys allowed
run: paictl submit job.yaml >/dev/null && paictl wait --timeout 20 --state running job >/dev/null 2>&1; paictl ssh-key job 2>&1 | sed -E 's/-p [0-9]+/-p PORT/; s|'"$HOME"'|HOME|g'; paictl ssh-config job | sed -E 's/Port [0-9]+/Port PORT/; s|'"$HOME"'|HOME|'; paictl stop job >/dev/null
timeout: 30
=== setup
printf 'alice:secret123\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
mkdir -p "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N '' -C me@here -f "$HOME/.ssh/id_ed25519"
=== file job.yaml
protocolVersion: 2
name: job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["sleep 60"]
=== stdout
paictl: ssh-key: job 'job' has no key of its own: its tasks let in your SSH key, HOME/.ssh/id_ed25519 (added by 'paictl submit')
HOME/.ssh/id_ed25519
ssh -i HOME/.ssh/id_ed25519 -p PORT root@127.0.0.1  # main-0
Host job-main-0
    HostName 127.0.0.1
    Port PORT
    User root
    IdentityFile HOME/.ssh/id_ed25519
    UserKnownHostsFile HOME/.local/state/paictl/known_hosts/v2
    HostKeyAlias alice~job-0-main-0
    StrictHostKeyChecking accept-new
=== stderr
