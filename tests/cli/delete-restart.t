# a deleted job stays deleted across a restart of the local cluster
# (its records leave records.log before delete answers), and a new job
# of its name is a new job
run: paictl delete -q one && grep -c '"name":"one"' "$HOME/.local/state/paictl/local/records.log"; paictl serve --stop -q && paictl serve --background --no-ssh >/dev/null && paictl list -o json | jq -r '.[].name'; paictl submit -q --wait one.json >/dev/null && paictl serve --stop -q && paictl serve --background --no-ssh >/dev/null && paictl -o json status one | jq -r '.jobStatus.state, .jobStatus.retries'
=== setup
paictl serve --background --no-ssh >/dev/null
paictl submit -q --wait one.json >/dev/null
paictl submit -q --wait two.json >/dev/null
=== file one.json
{"jobName":"one","image":"debian","retryCount":1,"taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file two.json
{"jobName":"two","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
0
two
SUCCEEDED
0
