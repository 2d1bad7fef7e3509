# --no-validate sends what paictl would refuse; the cluster's own
# validator answers 400 InvalidParametersError: exit 3
run: paictl -u alice submit -q --no-validate typo.json
exit: 3
=== setup
paictl serve --background --no-ssh >/dev/null
=== file typo.json
{"jobName":"typo","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"memoryMb":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: submit: cannot submit 'typo.json' as 'typo': invalid job config: 1 error; first at line 1, column 108: unknown field "memoryMb" in a task role; did you mean "memoryMB"? [unknown-field]
