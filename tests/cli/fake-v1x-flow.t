# an OpenPAI v1.8 cluster (the fake): the API found once and kept in the
# profile; a submission starts in the mock state; wait sees it through;
# the role written ps_server is reported as psserver and found by both
# names; logs through the log-manager's locations; stop on an ended job
run: paictl submit --no-ssh-key job.yaml && paictl -o json cluster list | jq -r '.[] | select(.name == "pai") | .api' && paictl status job | sed -n '3p' && paictl wait job 2>/dev/null; echo "exit $?"; paictl logs job ps_server 0; paictl -o json status job | jq -c '[.jobStatus.state, .jobStatus.appExitCode, (.taskRoles | keys), .taskRoles.psserver.taskStatuses[0].containerPorts.ssh]'; paictl list | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/TIME/g'; grep -c '^POST /rest-server/api/v2/jobs ' req.log
timeout: 20
=== setup
fake-v1x --port-file port --log req.log >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
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
    commands: ["python train.py"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
job
v2
state:      WAITING
SUCCEEDED
exit 0
line 1 of psserver-0
line 2 of psserver-0
line 3 of psserver-0
line 4 of psserver-0
["SUCCEEDED",0,["psserver"],"23456"]
NAME  STATE      CREATED              COMPLETED
job   SUCCEEDED  TIME  TIME
1
=== stderr
