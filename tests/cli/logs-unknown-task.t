# logs of a role or task the job does not have: exit 4, naming the
# roles it has, or how many tasks the role has; a bad index: 2
run: export PAICTL_USER=alice; paictl logs one wroker; echo "exit $?"; paictl logs one main 3; echo "exit $?"; paictl logs one main x
exit: 2
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q one.json >/dev/null
=== file one.json
{"jobName":"one","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"},{"name":"worker","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 4
exit 4
=== stderr
paictl: logs: job 'one' has no task role 'wroker'; its roles: main, worker
paictl: logs: job 'one' has no task main-3; role 'main' has 1 task
paictl: logs: invalid task index 'x' (0, 1, ...)
