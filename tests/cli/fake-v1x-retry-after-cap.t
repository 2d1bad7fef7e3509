# a 429 whose Retry-After is longer than paictl waits (an hour, as a
# v1.x cluster's submission limit asks): exit 1 at once, one line that
# names both, and nothing sent again
run: paictl status job 2>err; echo "exit $?"; sed 's/127\.0\.0\.1:[0-9]*/HOST/' err; grep -c 'alice~job ' req.log
timeout: 30
=== setup
fake-v1x --port-file port --log req.log --scenario limit-status --retry-after 3600 >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice
paictl cluster use pai >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
paictl submit --no-ssh-key job.yaml >/dev/null
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
    commands: ["python train.py"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 1
paictl: status: cannot get job 'job': HTTP 429 Too Many Requests from HOST: the cluster has a rate limit and asks to wait 60 min before the next request, longer than the client waits (60 s)
1
