# logs of a job whose tasks have not started: nothing on stdout, a note
run: paictl -u alice logs queued
=== setup
paictl serve --background --no-ssh --capacity cpus=1,memory=1000,gpus=0 >/dev/null
# one after the other: a batch's submissions reach the cluster together
paictl -u alice submit -q blocker.json >/dev/null
paictl -u alice submit -q queued.json >/dev/null
=== file blocker.json
{"jobName":"blocker","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== file queued.json
{"jobName":"queued","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: logs: no logs yet: job 'queued' is WAITING; '-f' waits for them
=== teardown
paictl -u alice stop --wait -q queued
paictl -u alice stop --wait -q blocker
