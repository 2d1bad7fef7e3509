# list --since: the jobs created at that time or later, on the local
# cluster as on any (the filter is the command's); -n: --limit
run: export PAICTL_USER=alice; paictl list -o json --since @$(($(cat mid) + 1)) | jq -r '.[].name'; paictl list -o json --since 1h | jq -r '.[].name'; paictl list -o json -n 1 | jq -r '.[].name'; paictl list -o json --since @4000000000 | jq length
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait hello.json >/dev/null
sleep 1.2
date +%s >mid
sleep 1.2
paictl -u alice submit -q --wait fail.json >/dev/null || true
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exit 1"}]}
=== stdout
fail
fail
hello
fail
0
