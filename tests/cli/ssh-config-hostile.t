# ssh-config: a cluster that answers a task's address with a newline in
# it (a ProxyCommand on the next line) gets nothing written, as text or
# JSON: exit 1, the value and where it came from named; the file users
# Include in ~/.ssh/config stays empty
run: paictl submit -q --no-ssh-key job.yaml >/dev/null && paictl status job >/dev/null; paictl ssh-config -i key job >cfg; echo "exit $?"; paictl -o json ssh-config -i key job; echo "exit $?"; wc -c <cfg
timeout: 20
=== setup
fake-v1x --port-file port --container-ip "$(printf '10.0.0.5\n    ProxyCommand touch pwned')" >/dev/null 2>&1 &
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
    commands: ["sleep 1"]
=== teardown
kill "$(cat fake.pid)"
=== stdout
exit 1
exit 1
0
=== stderr
paictl: ssh-config: job 'job': the cluster's address of task main-0 holds a control character ("10.0.0.5\n    ProxyCommand touch pwned"): not written as its HostName
paictl: ssh-config: job 'job': the cluster's address of task main-0 holds a control character ("10.0.0.5\n    ProxyCommand touch pwned"): not written as its HostName
