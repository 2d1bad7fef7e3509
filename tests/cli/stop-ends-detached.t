# stop --wait ends every process a task started, however it detached
# (setsid, a double fork under nohup), and a task that ends takes what
# it left behind with it too: with a cgroup a task where the machine
# gives one (as this one does), then without (serve --no-cgroup: the
# monitor's descendants, orphans coming back to it as their subreaper)
run: M=$$; echo $M >mark; sed "s/MARK/$M/g" job.in >j.json; sed "s/MARK/$M/g" quick.in >q.json; check() { paictl submit -q j.json >/dev/null && until [ "$(pgrep -cf "sleep [12]9$M")" = 2 ]; do sleep 0.1; done; echo "running: $(pgrep -cf "sleep [12]9$M")"; paictl stop --wait -q j >/dev/null; echo "after stop: $(pgrep -cf "sleep [12]9$M")"; paictl submit -q --wait q.json >/dev/null; echo "after its end: $(pgrep -cf "sleep 39$M")"; }; check; paictl delete -q j q && paictl serve --stop -q && paictl serve --background --no-ssh --no-cgroup >/dev/null && check
timeout: 40
=== setup
paictl serve --background --no-ssh >/dev/null
=== file job.in
{"jobName":"j","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"setsid sleep 19MARK & (nohup sleep 29MARK >/dev/null 2>&1 &); exec sleep 60"}]}
=== file quick.in
{"jobName":"q","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"setsid sleep 39MARK >/dev/null 2>&1 & sleep 0.5"}]}
=== stdout
running: 2
after stop: 0
after its end: 0
running: 2
after stop: 0
after its end: 0
=== teardown
paictl stop --wait -q j
pkill -f "sleep [123]9$(cat mark)" 2>/dev/null
