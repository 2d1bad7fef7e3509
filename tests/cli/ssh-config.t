# ssh-config: one OpenSSH block per task, with paictl's key, known_hosts
# file and host key names, so that plain ssh gets in and trusts what
# paictl ssh recorded (and the other way round); -o json: the blocks as
# objects, OpenSSH's keywords as keys
run: export PAICTL_USER=alice; paictl ssh-config job >cfg || exit; sed -E "s|$HOME|HOME|g; s/Port [0-9]+/Port PORT/; s/User .*/User USER/" cfg; ssh -F cfg -o BatchMode=yes -o LogLevel=ERROR job-main-0 'echo $PAI_CURRENT_TASK_ROLE_NAME'; paictl ssh job -- 'echo again' && cut -d' ' -f1 $HOME/.local/state/paictl/known_hosts/local; paictl ssh-config -o json job | jq -c '.[] | {Host, role, index, HostName, HostKeyAlias, StrictHostKeyChecking}' 
timeout: 30
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== stdout
Host job-main-0
    HostName 127.0.0.1
    Port PORT
    User USER
    IdentityFile HOME/.local/state/paictl/keys/local/alice~job
    IdentitiesOnly yes
    UserKnownHostsFile HOME/.local/state/paictl/known_hosts/local
    HostKeyAlias alice~job-0-main-0
    StrictHostKeyChecking accept-new
main
again
alice~job-0-main-0
{"Host":"job-main-0","role":"main","index":0,"HostName":"127.0.0.1","HostKeyAlias":"alice~job-0-main-0","StrictHostKeyChecking":"accept-new"}
=== teardown
paictl -u alice stop --wait -q job
