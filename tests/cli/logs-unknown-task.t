# logs of a role or task the job does not have: exit 4; a bad index: 2
run: export PAICTL_USER=alice; paictl logs one nope; echo "exit $?"; paictl logs one main 3; echo "exit $?"; paictl logs one main x
exit: 2
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q one.json >/dev/null
=== file one.json
{"jobName":"one","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 4
exit 4
=== stderr
paictl: logs: job 'one' has no task role 'nope'
paictl: logs: job 'one' has no task main-3
paictl: logs: invalid task index 'x' (0, 1, ...)
