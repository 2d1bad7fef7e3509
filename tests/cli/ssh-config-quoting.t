# ssh-config: a task's address with blanks, quotes, a backslash and a
# '%' (odd, but no control character) is written quoted as
# ssh_config(5) reads it: OpenSSH reads back the cluster's value, one
# argument, no %-token expanded
run: paictl submit -q --no-ssh-key job.yaml >/dev/null && paictl status job >/dev/null; paictl ssh-config -i key job >cfg || exit; grep HostName cfg; ssh -G -F cfg job-main-0 2>/dev/null | grep '^hostname '
timeout: 20
=== setup
command -v ssh >/dev/null
fake-v1x --port-file port --container-ip 'odd host "%h" \x'\''y#z' >/dev/null 2>&1 &
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
    HostName "odd host \"%%h\" \\x'y#z"
hostname odd host "%h" \x'y#z
