# ssh with a command: the task's environment, the remote exit status,
# stdout and stderr apart, stdin forwarded (10 MB back byte for byte),
# one argument a command line for the remote shell, several quoted one
# by one; ROLE and INDEX pick the task
run: export PAICTL_USER=alice; paictl ssh job -- 'echo $PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX'; paictl ssh job worker 1 -- 'echo $PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX'; paictl ssh job -- 'exit 42'; echo "exit $?"; paictl ssh job -- false; echo "exit $?"; paictl ssh job -- 'echo out; echo err >&2' 2>err; echo "stderr: $(cat err)"; paictl ssh job -- printf '[%s]\n' 'a b' '$HOME' "it's"; echo hello | paictl ssh job main 0 -- tr a-z A-Z; paictl ssh job -- cat <big | cmp - big && echo "10 MB back"; stat -c %a $HOME/.local/state/paictl/keys/local/alice~job $HOME/.local/state/paictl/known_hosts/local; cut -d" " -f1,2,4 $HOME/.local/state/paictl/known_hosts/local | sort
timeout: 60
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
head -c 10485760 /dev/urandom >big
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until [ "$(paictl -u alice status -o json job | grep -c '"taskState": "RUNNING"')" = 3 ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"},{"name":"worker","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== stdout
main-0
worker-1
exit 42
exit 1
out
stderr: err
[a b]
[$HOME]
[it's]
HELLO
10 MB back
400
600
alice~job-0-main-0 ssh-ed25519 paictl
alice~job-0-worker-1 ssh-ed25519 paictl
=== teardown
paictl -u alice stop --wait -q job
