# expand -o json --target pytorchjob: the operator's variables in
# "controllerEnv", not in "env" (the pod's own), worker 1's values
run: paictl -o json expand --target pytorchjob ddp.json worker 1 | sed -n '/"command"/,$p'
=== file ddp.json
{"jobName": "ddp", "image": "pytorch/pytorch",
 "taskRoles": [
  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "true"},
  {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
   "command": "echo $RANK/$WORLD_SIZE $MASTER_ADDR:$MASTER_PORT"}]}
=== stdout
      "command": "echo 2/3 ddp-master-0:23456",
      "controllerEnv": {
        "PYTHONUNBUFFERED": "1",
        "MASTER_PORT": "23456",
        "PET_MASTER_PORT": "23456",
        "MASTER_ADDR": "ddp-master-0",
        "PET_MASTER_ADDR": "ddp-master-0",
        "WORLD_SIZE": "3",
        "RANK": "2",
        "PET_NODE_RANK": "2",
        "PET_NPROC_PER_NODE": "auto",
        "PET_NNODES": "3"
      }
    }
  ]
}
