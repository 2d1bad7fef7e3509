# the same name twice: exit 7 with the server's message
run: paictl -u alice submit hello.json && paictl -u alice submit hello.json
exit: 7
=== setup
paictl serve --background --no-ssh >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
hello
=== stderr
paictl: submit: cannot submit 'hello.json' as 'hello': Job name hello already exists
