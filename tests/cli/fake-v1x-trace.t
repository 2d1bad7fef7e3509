# -vv on a v1.x cluster shows every request and answer, and no secret:
# not the password, not the JWT, not the job's secrets in its YAML, not
# a log location's token=
run: echo secret123 | paictl -vv login --password-stdin >trace 2>&1; paictl -vv submit --no-ssh-key job.yaml >>trace 2>&1; paictl wait job >/dev/null 2>&1; paictl -vv logs job >>trace 2>&1; grep -c 'secret123\|eyJhbGciOiJIUzI1NiJ9\|hunter2-value\|eyJsb2cifQ' trace; grep -c '^> POST /rest-server/api/v2/jobs' trace; grep -o 'token=[^&" ]*' trace | sort -u; grep -A1 '^> secrets:' trace | sed -n 1p
timeout: 20
=== setup
fake-v1x --port-file port --log req.log >/dev/null 2>&1 &
echo $! >fake.pid
i=0; while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
paictl cluster add pai "http://127.0.0.1:$(cat port)/rest-server" --user alice --api v2
paictl cluster use pai >/dev/null
=== file job.yaml
protocolVersion: 2
name: job
type: job
secrets:
  password: hunter2-value
prerequisites:
  - {name: img, type: dockerimage, uri: debian}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}
    commands: ["echo <% $secrets.password %> | login"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
0
1
token=***
> secrets: ***
=== stderr
