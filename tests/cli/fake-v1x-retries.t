# rate limits and a proxy's page: a submission and a GET refused with
# 429 are sent again after Retry-After (the limiter refuses before the
# job is made: one job, no conflict), each saying once that it waits,
# the job list behind a 502 page too
run: paictl submit --no-ssh-key job.yaml >/dev/null && paictl status job | sed -n 3p && paictl list >/dev/null && grep -E ' (202|409|429|502)' req.log
timeout: 20
=== setup
fake-v1x --port-file port --log req.log --scenario rate-limit --scenario html-502 >/dev/null 2>&1 &
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
state:      WAITING
POST /rest-server/api/v2/jobs 429
POST /rest-server/api/v2/jobs 202
GET /rest-server/api/v2/jobs/alice~job 429
GET /rest-server/api/v2/jobs?username=alice 502
=== stderr
paictl: submit: waiting 1 s for the cluster's rate limit (HTTP 429)
paictl: status: waiting 1 s for the cluster's rate limit (HTTP 429)
