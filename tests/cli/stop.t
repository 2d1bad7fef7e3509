# stop --wait: STOPPED is what was asked for (exit 0); wait then says 9
run: export PAICTL_USER=alice; paictl stop -q --wait long; echo "exit $?"; paictl stop -q -o json --wait long; paictl wait -q long
exit: 9
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
STOPPED
exit 0
{
  "name": "long",
  "user": "alice",
  "state": "STOPPED"
}
STOPPED
