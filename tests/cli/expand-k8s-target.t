# expand --target: a task as the converted pod sees it, DNS names for
# IPs, fixed ports, no $PAI_DEFAULT_FS_URI (no HDFS on Kubernetes)
run: paictl --user alice expand --target paddlejob job.json worker 1 | grep -E '^PAI_(TASK_ROLE_ps_HOST_LIST|CONTAINER_HOST_IP|CONTAINER_ID|TASK_INDEX|DEFAULT_FS_URI|USER_NAME)='
=== file job.json
{"jobName": "wd", "image": "paddle", "taskRoles": [
 {"name": "ps", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0, "command": "true"},
 {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0, "command": "true"}]}
=== stdout
PAI_USER_NAME=alice
PAI_TASK_INDEX=1
PAI_CONTAINER_ID=wd-worker-1
PAI_CONTAINER_HOST_IP=wd-worker-1
PAI_TASK_ROLE_ps_HOST_LIST=wd-ps-0:10000,wd-ps-1:10000
