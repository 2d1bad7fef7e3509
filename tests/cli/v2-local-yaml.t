# the local cluster in v2 mode (a profile with --api v2, over TCP with a
# token, as a v1.x cluster): a YAML job runs, its role "ps_server" is
# reported by its framework name and found by either name, in completions too
run: paictl submit --no-ssh-key --wait job.yaml 2>/dev/null && paictl status job | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/TIME/; /^(ROLE|ps)/s/ +/ /g; s/:[0-9]+/:PORT/g; /^warnings:/d' && paictl logs job ps_server 0 && paictl logs job psserver && paictl -o json status job >status.json; jq -c '[(.taskRoles | keys), (.taskRoles.psserver.taskStatuses[0].containerPorts | map_values(type)), .taskRoles.psserver.taskStatuses[0].containerLog]' status.json; paictl __complete logs job ''; paictl __complete logs job ps_server ''
timeout: 30
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
parameters:
  WHO: world
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  ps_server:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands:
      - echo hello <% $parameters.WHO %> from $PAI_JOB_NAME
=== stdout
job
name:       job
user:       alice
state:      SUCCEEDED
vc:         default
created:    TIME
completed:  TIME
retries:    0
exit code:  0

ROLE INDEX STATE IP PORTS EXIT
psserver 0 SUCCEEDED 127.0.0.1 ssh:PORT http:PORT 0
hello world from alice~job
hello world from alice~job
[["psserver"],{"ssh":"string","http":"string"},"/api/v2/jobs/alice~job/attempts/0/taskRoles/psserver/taskIndex/0/attempts/0/logs"]
psserver
0
=== stderr
