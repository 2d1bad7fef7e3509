# every rule broken at once: all reported, in order, exit 3
run: paictl validate job.json
exit: 3
copy: tests/cli/data/job.json
=== stdout
=== stderr
job.json:3:14: error: jobName: '~' is not allowed in a job name (the server joins user and job name with '~'); the name must match ^[A-Za-z0-9\-._]+$ [job-name]
     3 |   "jobName": "nightly~1",
       |              ^
job.json:4:12: error: image: must not be empty [empty]
     4 |   "image": "",
       |            ^
job.json:5:14: error: dataDir: must be a string, got null [type]
     5 |   "dataDir": null,
       |              ^
job.json:7:5: error: taskRoles[0].memoryMB: missing required field "memoryMB" in a task role [required]
     7 |     {
       |     ^
job.json:8:15: error: taskRoles[0].name: '-' is not allowed in a task role name (the server rejects "g2p-train"; use '_') [role-name]
     8 |       "name": "g2p-train",
       |               ^
job.json:9:21: warning: taskRoles[0].taskNumber: a number written as a string: "2" is sent as 2 [numeric-string]
     9 |       "taskNumber": "2",
       |                     ^
job.json:10:20: error: taskRoles[0].cpuNumber: must be at least 1, got 0 [min-cpu-number]
    10 |       "cpuNumber": 0,
       |                    ^
job.json:11:7: error: taskRoles[0].memoryMb: unknown field "memoryMb" in a task role; did you mean "memoryMB"? [unknown-field]
    11 |       "memoryMb": 64,
       |       ^
job.json:12:20: error: taskRoles[0].gpuNumber: must be an integer, got 1.5 [type]
    12 |       "gpuNumber": 1.5,
       |                    ^
job.json:15:20: error: taskRoles[0].portList[1].label: label "http" is already used by taskRoles[0].portList[0] [duplicate-port-label]
    15 |         { "label": "http", "beginAt": 0, "portNumber": 1 }
       |                    ^
job.json:18:29: error: taskRoles[0].minFailedTaskCount: must be at most taskNumber (2), got 3 [max-failed-task-count]
    18 |       "minFailedTaskCount": 3
       |                             ^
job.json:21:16: warning: jobEnvs["batch-size"]: "batch-size" is not a valid shell variable name (^[A-Za-z_][A-Za-z0-9_]*$): the task cannot see it as $batch-size [job-env-name]
    21 |   "jobEnvs": { "batch-size": 32 }
       |                ^
job.json: 10 errors, 2 warnings
