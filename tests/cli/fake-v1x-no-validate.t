# --no-validate leaves a YAML config's checks to a v1.x cluster: its 400
# InvalidProtocolError is an invalid config, exit 3, ajv's error list
# said in one line; sent once, never looked up as a lost answer
run: paictl submit --no-validate --no-ssh-key -q job.yaml; echo "exit $?"; grep -c '^POST /rest-server/api/v2/jobs ' req.log; grep -c 'config' req.log || true
=== setup
fake-v1x --port-file port --log req.log >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice --api v2
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== file job.yaml
protocolVersion: 2
name: job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  ps-server:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["true"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 3
1
0
=== stderr
paictl: submit: cannot submit 'job.yaml' as 'job': taskRoles["ps-server"]: a task role name is a letter or '_', then letters, digits and '_'
