# wait: the final state on stdout; 0 for SUCCEEDED, 9 for FAILED
run: export PAICTL_USER=alice; paictl wait -q hello; echo "exit $?"; paictl wait -q -o json fail
exit: 9
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q hello.json fail.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exit 7"}]}
=== stdout
SUCCEEDED
exit 0
{
  "name": "fail",
  "user": "alice",
  "state": "FAILED",
  "exitCode": 7
}
