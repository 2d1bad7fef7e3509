# a v1 config that names its job "name", as protocol v2 does: the hint
# says "jobName"
run: paictl validate n.json
exit: 3
=== file n.json
{"name": "hi", "image": "debian",
 "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1,
   "memoryMB": 100, "gpuNumber": 0, "command": "true"}]}
=== stderr
n.json:1:1: error: jobName: missing required field "jobName" in the job [required]
     1 | {"name": "hi", "image": "debian",
       | ^
n.json:1:2: error: name: unknown field "name" in the job; did you mean "jobName"? (a v1 config names its job "jobName", a protocol-v2 one "name") [unknown-field]
     1 | {"name": "hi", "image": "debian",
       |  ^
n.json: 2 errors, 0 warnings
