# --env needs KEY=VALUE with a word character in KEY: usage error
run: paictl submit --dry-run --env '=x' a.json
exit: 2
=== file a.json
{"jobName":"batch","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: submit: invalid --env '=x' (use KEY=VALUE; KEY needs a letter, digit or '_')
