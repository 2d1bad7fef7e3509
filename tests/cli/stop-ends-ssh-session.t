# an interrupted paictl ssh into a task (killed: its connection cut)
# leaves its command running once its sshd has gone, orphaned; stopping
# the task ends it with the task all the same (the sleep itself is
# counted, by its command line's start: the ssh client's and any
# shell's hold the same words)
run: M=$$; echo $M >mark; export PAICTL_USER=alice; paictl ssh job -- "sleep 49$M" & p=$!; i=0; until pgrep -f "^sleep 49$M" >/dev/null || [ $i -gt 400 ]; do sleep 0.1; i=$((i+1)); done; s=$(pgrep -f "^sleep 49$M"); pp=$(ps -o ppid= -p $s); kill -9 $p; wait $p 2>/dev/null; i=0; until [ "$(ps -o ppid= -p $s)" != "$pp" ] || [ $i -gt 400 ]; do sleep 0.1; i=$((i+1)); done; echo "after the interruption: $(pgrep -cf "^sleep 49$M")"; paictl stop --wait -q job >/dev/null; echo "after stop: $(pgrep -cf "^sleep 49$M")"
timeout: 60
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
paictl serve --background >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 300 ]; do sleep 0.1; i=$((i+1)); done
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 600"}]}
=== stdout
after the interruption: 1
after stop: 0
=== teardown
paictl -u alice stop --wait -q job
pkill -f "sleep 49$(cat mark)" 2>/dev/null
