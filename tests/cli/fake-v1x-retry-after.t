# a 429 with Retry-After: 3 on a job's status: no request goes out in
# those 3 s (the fake's request log, with times, shows it), paictl says
# once that it waits for the rate limit, then the status comes
run: paictl status job | sed -n 3p; awk '/ 429 / { t = substr($NF, 2); next } t != "" { d = substr($NF, 2) - t; print (d >= 2900 ? "nothing sent for 3 s" : "sent after " d " ms"); exit }' req.log
timeout: 30
=== setup
fake-v1x --port-file port --log req.log --log-times --scenario limit-status --retry-after 3 >/dev/null 2>&1 &
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
state:      WAITING
nothing sent for 3 s
=== stderr
paictl: status: waiting 3 s for the cluster's rate limit (HTTP 429)
