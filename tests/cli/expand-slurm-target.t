# expand --target slurm: a task as paictl's Slurm batch job gives it:
# its directory under the work directory, placeholders for the node's
# address and the ports (chosen at submission), no $PAI_DEFAULT_FS_URI
run: paictl --user alice expand --target slurm job.json worker 1 | grep -E '^PAI_(TASK_ROLE_ps_HOST_LIST|CONTAINER_HOST_IP|WORK_DIR|TASK_INDEX|DEFAULT_FS_URI|USER_NAME)='
=== file job.json
{"jobName": "wd", "image": "paddle", "taskRoles": [
 {"name": "ps", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0, "command": "true"},
 {"name": "worker", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 512, "gpuNumber": 0, "command": "true"}]}
=== stdout
PAI_USER_NAME=alice
PAI_WORK_DIR=<workdir>/wd/<submission>/worker-1
PAI_TASK_INDEX=1
PAI_CONTAINER_HOST_IP=<ip:worker-1>
PAI_TASK_ROLE_ps_HOST_LIST=<ip:ps-0>:<port:ps-0:http>,<ip:ps-1>:<port:ps-1:http>
