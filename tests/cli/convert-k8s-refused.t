# what Kubernetes cannot say: exit 3, nothing on stdout, each field named
# with its place and a k8s-* rule
run: paictl convert job.json --to volcano; echo "exit $?"; paictl convert job.json --to paddlejob 2>&1 | grep -c 'error:.*\[k8s-'
=== file job.json
{"jobName": "refused", "image": "debian", "retryCount": -1,
 "authFile": "hdfs://x/auth",
 "taskRoles": [
  {"name": "a_b", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "minFailedTaskCount": 2, "command": "cat $PAI_OUTPUT_DIR/x"},
  {"name": "main", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "minSucceededTaskCount": 1, "command": "true"}]}
=== stdout
exit 3
1
=== stderr
job.json:1:43: error: retryCount: unlimited retries (a negative count) cannot be said: a Volcano Job's maxRetry is a number [k8s-retry-count]
     1 | {"jobName": "refused", "image": "debian", "retryCount": -1,
       |                                           ^
job.json:1:57: warning: retryCount: -1 is accepted by the server, but the documented minimum is 0 [negative-retry-count]
     1 | {"jobName": "refused", "image": "debian", "retryCount": -1,
       |                                                         ^
job.json:2:2: error: authFile: a registry's credentials are an imagePullSecret on Kubernetes: create one and add it to the pods; remove authFile to convert [k8s-auth-file]
     2 |  "authFile": "hdfs://x/auth",
       |  ^
job.json:4:4: warning: taskRoles[0].name: role 'a_b' is the task 'a-b' on Kubernetes (the annotation paictl/task-role keeps its name) [k8s-name]
     4 |   {"name": "a_b", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
       |    ^
job.json:5:4: error: taskRoles[0].minFailedTaskCount: minimum failed tasks above 1: a Volcano Job fails at its first failed pod, or fails at the end when any pod failed; it cannot count failures [k8s-min-failed]
     5 |    "minFailedTaskCount": 2, "command": "cat $PAI_OUTPUT_DIR/x"},
       |    ^
job.json:5:45: error: taskRoles[0].command: $PAI_OUTPUT_DIR has no value on Kubernetes without a default file system: give its URI (--default-fs, or 'cluster add --default-fs') [k8s-variable]
     5 |    "minFailedTaskCount": 2, "command": "cat $PAI_OUTPUT_DIR/x"},
       |                                             ^
job.json:7:4: error: taskRoles[1].minSucceededTaskCount: a Volcano Job ends after some of its pods succeeded (minSuccess) only counting the pods of all roles; below the task number it needs a job of one role [k8s-min-succeeded]
     7 |    "minSucceededTaskCount": 1, "command": "true"}]}
       |    ^
