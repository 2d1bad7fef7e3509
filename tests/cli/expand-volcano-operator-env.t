# the PyTorchJob operator's variables are no Volcano pod's: with
# --target volcano their references stay unknown (warnings, exit 0),
# while Volcano's own (the env plugin's VC_TASK_INDEX, the svc plugin's
# VC_<TASK>_HOSTS) are known and shown apart
run: paictl expand --target volcano ddp.json worker 1 | sed -n '/^set by/,$p'
=== file ddp.json
{"jobName": "ddp", "image": "pytorch/pytorch",
 "taskRoles": [
  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "echo $MASTER_ADDR"},
  {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "echo $RANK/$WORLD_SIZE $VC_TASK_INDEX $VC_MASTER_HOSTS"}]}
=== stdout
set by the volcano controller:
  VK_TASK_INDEX=1
  VC_TASK_INDEX=1
  VC_MASTER_HOSTS=ddp-master-0.ddp
  VC_MASTER_NUM=1
  VC_WORKER_HOSTS=ddp-worker-0.ddp,ddp-worker-1.ddp
  VC_WORKER_NUM=2
command:
  echo $RANK/$WORLD_SIZE 1 ddp-master-0.ddp
=== stderr
ddp.json:4:21: warning: taskRoles[0].command: $MASTER_ADDR is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
     4 |    "command": "echo $MASTER_ADDR"},
       |                     ^
ddp.json:6:21: warning: taskRoles[1].command: $RANK is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
     6 |    "command": "echo $RANK/$WORLD_SIZE $VC_TASK_INDEX $VC_MASTER_HOSTS"}]}
       |                     ^
ddp.json:6:27: warning: taskRoles[1].command: $WORLD_SIZE is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
     6 |    "command": "echo $RANK/$WORLD_SIZE $VC_TASK_INDEX $VC_MASTER_HOSTS"}]}
       |                           ^
