# one invalid file among several: exit 3, the diagnostics, and nothing
# reaches the cluster (not even the valid file)
run: paictl -u alice submit good.json bad.json; echo "exit $?"; paictl -u alice list -o json
=== setup
paictl serve --background --no-ssh >/dev/null
=== file good.json
{"jobName":"good","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file bad.json
{"jobName":"bad","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":64,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 3
[]
=== stderr
bad.json:1:103: error: taskRoles[0].memoryMB: must be at least 100, got 64 [min-memory]
     1 | {"jobName":"bad","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":64,"gpuNumber":0,"command":"true"}]}
       |                                                                                                       ^
bad.json: 1 error, 0 warnings
paictl: submit: nothing submitted
