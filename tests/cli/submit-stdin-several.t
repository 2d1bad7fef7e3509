# standard input and a file over one connection; the names, in order
run: paictl -u alice submit --wait -q - b.json && paictl -u alice list -o json | jq -r '.[].name' | sort
=== setup
paictl serve --background --no-ssh >/dev/null
=== stdin
{"jobName":"a","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file b.json
{"jobName":"b","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
a
b
a
b
