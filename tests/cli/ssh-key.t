# ssh-key: the job's key saved 0400 under the state directory, one ssh
# line per task (matched by containerId) that really gets in; asking
# again is fine, a different key at --out FILE is replaced only with
# --force (else exit 7); -O and the old --output-file are --out
run: export PAICTL_USER=alice; paictl ssh-key job >out || exit; key=$(head -n 1 out); sed -E "s|$HOME|HOME|g; s/-p [0-9]+/-p PORT/; s/ [a-z0-9_-]+@127/ USER@127/" out; stat -c %a "$key"; cmd=$(sed -n 's/  #.*//p' out | head -n 1); $cmd -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR 'echo $PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX'; paictl ssh-key job >/dev/null && echo again; echo other >other.key; paictl ssh-key --out other.key job; echo "exit $?"; paictl ssh-key --force --out other.key job >/dev/null; echo "forced $?"; stat -c %a other.key; paictl ssh-key --output-file other.key job >/dev/null && echo same; paictl ssh-key -o json -O copy.key job | jq -c '{key, tasks: [.tasks[] | {role, index, ip}]}'
timeout: 30
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
# wait until the task runs (its sshd listens from its start)
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== stdout
HOME/.local/state/paictl/keys/local/alice~job
ssh -i HOME/.local/state/paictl/keys/local/alice~job -p PORT USER@127.0.0.1  # main-0
400
main-0
again
exit 7
forced 0
400
same
{"key":"copy.key","tasks":[{"role":"main","index":0,"ip":"127.0.0.1"}]}
=== stderr
paictl: ssh-key: 'other.key' holds a different key; not replacing it (give --force, or --out FILE)
=== teardown
paictl -u alice stop --wait -q job
