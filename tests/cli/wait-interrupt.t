# Ctrl-C: a clean stop with exit 130, the job untouched
run: timeout --preserve-status -s INT 1.5 paictl -u alice wait -q long; echo "exit $?"; paictl -u alice status -o json long | jq -r .jobStatus.state
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
exit 130
RUNNING
=== stderr
paictl: wait: interrupted
=== teardown
paictl -u alice stop --wait -q long
