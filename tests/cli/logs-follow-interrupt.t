# Ctrl-C while following: what was read is printed, then exit 130
run: timeout --preserve-status -s INT 2 paictl -u alice logs -f long; echo "exit $?"
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo started; exec sleep 60"}]}
=== stdout
started
exit 130
=== stderr
paictl: logs: interrupted
=== teardown
paictl -u alice stop --wait -q long
