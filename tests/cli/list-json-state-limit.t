# list -o json: the server's entries; --state (several) and --limit
run: export PAICTL_USER=alice; paictl list -o json | jq -c '[.[] | {name, username, state}]'; paictl list -o json --state succeeded,FAILED --limit 1 | jq -r '.[].name'; paictl list --state running
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait hello.json >/dev/null
paictl -u alice submit -q --wait fail.json >/dev/null || true
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exit 1"}]}
=== stdout
[{"name":"fail","username":"alice","state":"FAILED"},{"name":"hello","username":"alice","state":"SUCCEEDED"}]
fail
