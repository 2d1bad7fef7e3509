# a log location's token expires (here after one read): paictl asks for
# new locations and goes on from the same offset, printing nothing twice
run: paictl submit --no-ssh-key job.yaml >/dev/null && paictl logs -f job 2>/dev/null; grep -c 'attempts/0/logs 200' req.log | sed 's/^[2-9][0-9]*$/more than one/'; grep -c ' 403$' req.log | sed 's/^[1-9][0-9]*$/some/'
timeout: 30
=== setup
fake-v1x --port-file port --log req.log --scenario log-expire >/dev/null 2>&1 &
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
line 1 of psserver-0
line 2 of psserver-0
line 3 of psserver-0
line 4 of psserver-0
more than one
some
=== stderr
