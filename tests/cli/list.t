# list: newest first, a table with the times
run: paictl -u alice list | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/TIME/g'
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait hello.json >/dev/null
paictl -u alice submit -q --wait fail.json >/dev/null || true
paictl -u bob submit -q hello.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file fail.json
{"jobName":"fail","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exit 1"}]}
=== stdout
NAME   STATE      CREATED              COMPLETED
fail   FAILED     TIME  TIME
hello  SUCCEEDED  TIME  TIME
