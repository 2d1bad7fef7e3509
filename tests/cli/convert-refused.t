# what v2 cannot say: exit 3 and a diagnostic each
run: paictl convert job.json --to v2
exit: 3
=== file job.json
{"jobName": "hi", "image": "debian", "taskRoles": [{"name": "ma.in",
 "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
 "command": "echo <% x %>"}]}
=== stderr
job.json:1:61: error: taskRoles[0]: task role name 'ma.in' is not a protocol-v2 role name (letters, digits and _, not starting with a digit); rename it, and every $PAI_* name and host name built from it [convert-no-v2-equivalent]
     1 | {"jobName": "hi", "image": "debian", "taskRoles": [{"name": "ma.in",
       |                                                             ^
job.json:3:19: error: taskRoles[0]: the command holds "<%", which OpenPAI v1.x reads as the start of a template tag; write it differently (e.g. "<""%" in bash) [convert-template]
     3 |  "command": "echo <% x %>"}]}
       |                   ^
