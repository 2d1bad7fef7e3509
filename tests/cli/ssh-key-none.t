# a cluster without SSH for the job: exit 4
run: paictl -u alice ssh-key hello
exit: 4
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q hello.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: ssh-key: no SSH access to job 'hello': SSH info of job hello is not found
