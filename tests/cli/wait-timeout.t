# wait --timeout: exit 8 while the job still runs
run: paictl -u alice wait -q --timeout 1 long
exit: 8
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stderr
paictl: wait: timed out after 1s; job 'long' is RUNNING
=== teardown
paictl -u alice stop --wait -q long
