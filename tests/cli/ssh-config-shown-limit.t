# ssh-config refusing a task's address with a control character shows
# the address in its message in at most 95 bytes, escapes counted: one
# of 95 bytes shown (10.0.0.5, "\n", 85 x) whole, one of 96 cut after
# a whole character, with "..." after it
run: for c in at past; do paictl -c $c ssh-config -i key job; echo "exit $?"; done
timeout: 20
=== setup
x=$(head -c 85 /dev/zero | tr '\0' x)
for c in at past; do
  fake-v1x --port-file port.$c --container-ip "$(printf '10.0.0.5\n%s' "$x")" >/dev/null 2>&1 &
  echo $! >>fake.pid
  x=${x}x
done
for c in at past; do
  i=0; while [ ! -s port.$c ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  paictl cluster add $c "http://127.0.0.1:$(cat port.$c)/rest-server" --user alice
  echo secret123 | paictl -c $c login --password-stdin 2>/dev/null
  paictl -c $c submit -q --no-ssh-key job.yaml >/dev/null
  paictl -c $c status job >/dev/null
done
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
kill $(cat fake.pid)
=== stdout
exit 1
exit 1
=== stderr
paictl: ssh-config: job 'job': the cluster's address of task main-0 holds a control character ("10.0.0.5\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"): not written as its HostName
paictl: ssh-config: job 'job': the cluster's address of task main-0 holds a control character ("10.0.0.5\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."): not written as its HostName
