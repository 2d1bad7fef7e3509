# --skip-existing: an existing job is a success, said on stderr (cron)
run: paictl -u alice submit -q hello.json >/dev/null && paictl -u alice submit --skip-existing -o json hello.json
=== setup
paictl serve --background --no-ssh >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
[
  {
    "file": "hello.json",
    "name": "hello",
    "user": "alice",
    "submitted": false,
    "existing": true
  }
]
=== stderr
paictl: submit: job 'hello' exists already; not submitted again (--skip-existing)
