# references no task has: warnings on stderr, expansion on stdout
run: paictl expand warn.json worker 1 --user carol
exit: 0
copy: tests/cli/data/warn.json
=== stdout
jobName: warnings-only
user: carol
authFile:
dataDir:
outputDir: <default-fs>/Output/carol/warnings-only
codeDir:

== worker-1 (role worker, index 1 of 2)
PAI_JOB_NAME=warnings-only
PAI_USER_NAME=carol
PAI_USERNAME=carol
PAI_DEFAULT_FS_URI=<default-fs>
PAI_DATA_DIR=
PAI_OUTPUT_DIR=<default-fs>/Output/carol/warnings-only
PAI_CODE_DIR=
PAI_JOB_VC_NAME=default
PAI_JOB_TASK_COUNT=2
PAI_TASKS_NUM=2
PAI_JOB_TASK_ROLE_COUNT=1
PAI_TASK_ROLE_COUNT=1
PAI_TASK_ROLES_NUM=1
PAI_JOB_TASK_ROLE_LIST=worker
PAI_TASK_ROLE_LIST=worker
PAI_WORK_DIR=<work-dir:worker-1>
PAI_CURRENT_TASK_ROLE_NAME=worker
PAI_TASK_ROLE_NAME=worker
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
PAI_TASK_INDEX=1
PAI_TASK_ROLE_INDEX=1
PAI_CURRENT_TASK_ROLE_TASK_COUNT=2
PAI_TASK_ROLE_NUM=2
PAI_CURRENT_TASK_ROLE_CPU_COUNT=1
PAI_TASK_CPU_NUM=1
PAI_CURRENT_TASK_ROLE_MEM_MB=1024
PAI_TASK_MEM_MB=1024
PAI_CURRENT_TASK_ROLE_SHM_MB=64
PAI_CURRENT_TASK_ROLE_GPU_COUNT=0
PAI_TASK_GPU_NUM=0
PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT=1
PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT=
PAI_RESOURCE=0,1,1024,64
PAI_CONTAINER_ID=<container-id:worker-1>
PAI_CONTAINER_HOST_IP=<ip:worker-1>
PAI_CURRENT_CONTAINER_IP=<ip:worker-1>
PAI_CONTAINER_HOST_PORT=<port:worker-1:http>
PAI_CURRENT_CONTAINER_PORT=<port:worker-1:http>
PAI_CONTAINER_SSH_PORT=<port:worker-1:ssh>
PAI_CONTAINER_HOST_PORT_LIST=http:<port:worker-1:http>;ssh:<port:worker-1:ssh>
PAI_CONTAINER_HOST_http_PORT_LIST=<port:worker-1:http>
PAI_CONTAINER_HOST_ssh_PORT_LIST=<port:worker-1:ssh>
PAI_TASK_ROLE_TASK_COUNT_worker=2
PAI_MIN_FAILED_TASK_COUNT_worker=1
PAI_MIN_SUCCEEDED_TASK_COUNT_worker=
PAI_TASK_ROLE_worker_HOST_LIST=<ip:worker-0>:<port:worker-0:http>,<ip:worker-1>:<port:worker-1:http>
PAI_HOST_IP_worker_0=<ip:worker-0>
PAI_PORT_LIST_worker_0_http=<port:worker-0:http>
PAI_worker_0_http_PORT=<port:worker-0:http>
PAI_PORT_LIST_worker_0_ssh=<port:worker-0:ssh>
PAI_worker_0_ssh_PORT=<port:worker-0:ssh>
PAI_HOST_IP_worker_1=<ip:worker-1>
PAI_PORT_LIST_worker_1_http=<port:worker-1:http>
PAI_worker_1_http_PORT=<port:worker-1:http>
PAI_PORT_LIST_worker_1_ssh=<port:worker-1:ssh>
PAI_worker_1_ssh_PORT=<port:worker-1:ssh>
command:
  echo $PAI_TASK_ROLE_wroker_HOST_LIST $undefined_thing
=== stderr
warn.json:4:17: warning: retryCount: -1 is accepted by the server, but the documented minimum is 0 [negative-retry-count]
     4 |   "retryCount": -1,
       |                 ^
warn.json:12:24: warning: taskRoles[0].command: $PAI_TASK_ROLE_wroker_HOST_LIST is not in the environment of the tasks of role 'worker' (did you mean $PAI_TASK_ROLE_worker_HOST_LIST?) [unknown-pai-variable]
    12 |       "command": "echo $PAI_TASK_ROLE_wroker_HOST_LIST $undefined_thing"
       |                        ^
warn.json:12:56: warning: taskRoles[0].command: $undefined_thing is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
    12 |       "command": "echo $PAI_TASK_ROLE_wroker_HOST_LIST $undefined_thing"
       |                                                        ^
