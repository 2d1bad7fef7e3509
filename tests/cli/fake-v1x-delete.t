# an OpenPAI v1.8 cluster has no request that deletes a job: delete
# says so, sends nothing but the API's question, and names the way
# forward; the job is still there
run: paictl submit -q --no-ssh-key job.yaml >/dev/null && paictl wait -q job >/dev/null; paictl delete job; echo "exit $?"; paictl status job | sed -n '3p'; grep -c DELETE req.log; true
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
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["true"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 1
state:      SUCCEEDED
0
=== stderr
paictl: delete: cannot delete job 'job': the cluster's API (v2) has no request that deletes a job: a name stays taken there
paictl: delete: 'submit --unique' gives each run a name of its own
