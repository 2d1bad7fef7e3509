# --wait on a job that fails: exit 9; -o json says how it ended
run: paictl -u alice submit --wait -q -o json fail.json
exit: 9
=== setup
paictl serve --background --no-ssh >/dev/null
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo oops >&2; exit 3"}]}
=== stdout
[
  {
    "file": "fail.json",
    "name": "fail",
    "user": "alice",
    "submitted": true,
    "existing": false,
    "state": "FAILED"
  }
]
