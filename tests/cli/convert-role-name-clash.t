# two v1 roles that v1.x, under protocol v2, would make one task role
run: paictl convert job.json --to v2
exit: 3
=== file job.json
{"jobName": "clash", "image": "ubuntu", "taskRoles": [
 {"name": "ps_server", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0, "command": "echo a"},
 {"name": "psserver", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0, "command": "echo b"}]}
=== stderr
job.json:3:11: error: taskRoles[1]: roles 'ps_server' and 'psserver' would both be the task role of an OpenPAI v1.x cluster that protocol v2 runs on: rename one [convert-no-v2-equivalent]
     3 |  {"name": "psserver", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0, "command": "echo b"}]}
       |           ^
