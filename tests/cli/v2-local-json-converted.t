# a v0.x JSON config on a v1.x cluster: converted first (jobEnvs become
# parameters, the command keeps reading them), then run; -o json submit
run: paictl -o json submit --no-ssh-key --wait --env WHO=there job.json 2>/dev/null && paictl logs job
timeout: 30
=== setup
printf 'alice:secret123\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/srv" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add v2 "$(jq -r .url srv/server.json)" --user alice --api v2
paictl cluster use v2 >/dev/null
echo secret123 | paictl login --password-stdin 2>/dev/null
=== file job.json
{"jobName":"job","image":"debian","jobEnvs":{"WHO":"nobody"},"taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo hi $WHO"}]}
=== stdout
[
  {
    "file": "job.json",
    "name": "job",
    "user": "alice",
    "submitted": true,
    "existing": false,
    "state": "SUCCEEDED"
  }
]
hi there
=== stderr
