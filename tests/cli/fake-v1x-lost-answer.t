# the answer to a submission is lost after the job was created (the
# fake drops the connection): the job is looked up, its stored config
# (secrets masked) is the one sent, so it is ours; one POST only
run: paictl submit --no-ssh-key job.yaml; echo "exit $?"; grep -c '^POST /rest-server/api/v2/jobs ' req.log; grep -c 'GET /rest-server/api/v2/jobs/alice~job/config 200' req.log
timeout: 20
=== setup
fake-v1x --port-file port --log req.log --scenario drop-post >/dev/null 2>&1 &
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
exit 0
1
1
=== stderr
paictl: submit: the cluster's answer for 'job' was lost, but the job is there with this config: submitted
