# ssh: paictl's own failures exit 255 with one line saying which: no such
# task (naming the roles there are), no such job, a refused key, a changed host key (named by
# file:line; accepted with --accept-new-host-key, then known), a task
# that is not running, a usage error
run: export PAICTL_USER=alice; exec 3>&2 2>e; kh=$HOME/.local/state/paictl/known_hosts/local; key=$HOME/.local/state/paictl/keys/local/alice~job; paictl ssh job main 3 -- true; echo "exit $?"; paictl ssh job mian -- true; echo "exit $?"; paictl ssh nojob -- true; echo "exit $?"; paictl ssh job -- true && echo first; mv $key good.key; cp other $key; chmod 400 $key; paictl ssh job -- true; echo "exit $?"; rm -f $key; mv good.key $key; sed -i "s| ssh-ed25519 [^ ]*| $(cut -d' ' -f1,2 other.pub)|" $kh; paictl ssh job -- true; echo "exit $?"; paictl ssh --accept-new-host-key job -- true && echo accepted; paictl ssh job -- true && echo known; paictl ssh job main x -- true; echo "exit $?"; paictl ssh job main 0 extra; echo "exit $?"; paictl ssh done -- true; echo "exit $?"; sed -E "s|$HOME|HOME|g; s/port [0-9]+/port PORT/g; s/user '[^']*'/user 'USER'/; s/SHA256:[^;]*/SHA256:FP/" e >&3
timeout: 40
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
ssh-keygen -q -t ed25519 -N '' -C other -f other
paictl serve --background >/dev/null
paictl -u alice submit -q done.json >/dev/null
paictl -u alice wait -q done >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== file done.json
{"jobName":"done","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 255
exit 255
exit 255
first
exit 255
exit 255
accepted
known
exit 255
exit 255
exit 255
=== stderr
paictl: ssh: job 'job' has no task main-3; role 'main' has 1 task
paictl: ssh: job 'job' has no task role 'mian'; its roles: main
paictl: ssh: cannot reach job 'nojob': Job nojob is not found
paictl: ssh: 127.0.0.1 port PORT refused key 'HOME/.local/state/paictl/keys/local/alice~job' for user 'USER' (saved earlier: remove it to fetch the job's key again)
paictl: ssh: the host key of 'alice~job-0-main-0' (127.0.0.1 port PORT) is not the one recorded at HOME/.local/state/paictl/known_hosts/local:1; now ssh-ed25519 SHA256:FP; refused (if the container was recreated, give --accept-new-host-key)
paictl: ssh: warning: replaced the host key of task main-0 in 'HOME/.local/state/paictl/known_hosts/local'
paictl: ssh: INDEX must be a task index, not 'x'
paictl: ssh: unexpected argument 'extra'; give the command after '--'
paictl: ssh: task main-0 of job 'done' is SUCCEEDED, not running
=== teardown
paictl -u alice stop --wait -q job
