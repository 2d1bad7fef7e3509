# Ctrl-C in submit --wait: exit 130, and the job goes on, as it is told
# with the command that stops it
run: timeout --preserve-status -s INT 1.5 paictl -u alice submit --wait long.json 2>err; echo "exit $?"; grep -v '^[0-9]\|warning: job' err; paictl -u alice status -o json long | jq -r .jobStatus.state
=== setup
paictl serve --background --no-ssh >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
long
exit 130
paictl: submit: interrupted
paictl: submit: job 'long' goes on; 'paictl -u alice stop long' stops it
RUNNING
=== teardown
paictl -u alice stop --wait -q long
