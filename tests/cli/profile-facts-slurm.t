# on a Slurm cluster's profile expand shows each task as the batch job
# submit makes gives it, under the profile's work directory, as
# --target slurm does; --target still says otherwise
run: export PAICTL_CONFIG=$PWD/c.json; paictl cluster add hpc --slurm http://127.0.0.1:9 --workdir /scratch/jobs -u alice && paictl -c hpc expand job.json worker 1 | grep -E '^PAI_(WORK_DIR|CONTAINER_HOST_IP|USER_NAME)='; paictl -c hpc expand --target volcano job.json worker 1 | grep -E '^PAI_CONTAINER_HOST_IP='
=== file job.json
{"jobName": "wd", "image": "paddle", "taskRoles": [
 {"name": "worker", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 512, "gpuNumber": 0, "command": "true"}]}
=== stdout
PAI_USER_NAME=alice
PAI_WORK_DIR=/scratch/jobs/wd/<submission>/worker-1
PAI_CONTAINER_HOST_IP=<ip:worker-1>
PAI_CONTAINER_HOST_IP=wd-worker-1.wd
