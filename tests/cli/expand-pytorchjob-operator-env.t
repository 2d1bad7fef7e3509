# expand --target pytorchjob: the operator's MASTER_ADDR, MASTER_PORT,
# WORLD_SIZE, RANK and PET_* apart, under a line that says who sets
# them, the master's and worker 1's as training-operator v1.9 sets
# them (the master's Service name, its default port 23456, rank 0 and
# index + 1); the commands read them, with no unknown-variable warning
run: paictl expand --target pytorchjob ddp.json master 0 | sed -n '/^== /,$p' | grep -v '^PAI_' && paictl expand --target pytorchjob ddp.json worker 1 | sed -n '/^== /,$p' | grep -v '^PAI_'
=== file ddp.json
{"jobName": "ddp", "image": "pytorch/pytorch", "jobEnvs": {"LR": "0.1"},
 "taskRoles": [
  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "echo master $RANK/$WORLD_SIZE $MASTER_ADDR:$MASTER_PORT $LR"},
  {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "torchrun --nnodes=$PET_NNODES --node-rank=$PET_NODE_RANK --master-addr=$PET_MASTER_ADDR --master-port=$PET_MASTER_PORT train.py; echo $RANK/$WORLD_SIZE"}]}
=== stdout
== master-0 (role master, index 0 of 1)
LR=0.1
set by the pytorchjob controller:
  PYTHONUNBUFFERED=1
  MASTER_PORT=23456
  PET_MASTER_PORT=23456
  MASTER_ADDR=ddp-master-0
  PET_MASTER_ADDR=ddp-master-0
  WORLD_SIZE=3
  RANK=0
  PET_NODE_RANK=0
  PET_NPROC_PER_NODE=auto
  PET_NNODES=3
command:
  echo master 0/3 ddp-master-0:23456 0.1
== worker-1 (role worker, index 1 of 2)
LR=0.1
set by the pytorchjob controller:
  PYTHONUNBUFFERED=1
  MASTER_PORT=23456
  PET_MASTER_PORT=23456
  MASTER_ADDR=ddp-master-0
  PET_MASTER_ADDR=ddp-master-0
  WORLD_SIZE=3
  RANK=2
  PET_NODE_RANK=2
  PET_NPROC_PER_NODE=auto
  PET_NNODES=3
command:
  torchrun --nnodes=3 --node-rank=2 --master-addr=ddp-master-0 --master-port=23456 train.py; echo 2/3
