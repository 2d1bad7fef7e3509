# stop on a v1.x cluster: STOPPING is not an end, --wait sees STOPPED;
# the job then shows STOPPED in the list, -o json too
run: paictl submit --no-ssh-key job.yaml >/dev/null && paictl wait --timeout 20 --state running job >/dev/null 2>&1; paictl stop --wait job 2>/dev/null; echo "exit $?"; paictl -o json list --state stopped | jq -r '.[].name'; paictl -o json list | jq -r '.[].state'
timeout: 40
=== setup
printf 'alice:secret123\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
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
STOPPED
exit 0
job
STOPPED
=== stderr
