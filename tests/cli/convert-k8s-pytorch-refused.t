# a PyTorchJob is a master of one task and workers: another shape is
# refused at its line, exit 3, nothing written
run: paictl convert --to pytorchjob job.json; echo "exit $?"; paictl convert --to pytorchjob one.json; echo "exit $?"
=== file job.json
{"jobName": "ddp", "image": "pytorch/pytorch:2",
 "taskRoles": [
  {"name": "master", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"},
  {"name": "chief", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
=== file one.json
{"jobName": "ddp", "image": "pytorch/pytorch:2", "retryCount": 1,
 "taskRoles": [
  {"name": "master", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
=== stdout
exit 3
exit 3
=== stderr
job.json:4:4: error: taskRoles[1].name: a PyTorchJob has the replica types master and worker: role 'chief' is none of them [k8s-pytorch-role]
     4 |   {"name": "chief", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
       |    ^
one.json:1:50: error: retryCount: a PyTorchJob restarts a failed pod in place, never the whole job: the retry count must be 0 (or convert --to jobset or volcano) [k8s-retry-count]
     1 | {"jobName": "ddp", "image": "pytorch/pytorch:2", "retryCount": 1,
       |                                                  ^
one.json:2:2: error: taskRoles: a PyTorchJob has a master role of one task and a worker role: the worker is missing [k8s-pytorch-role]
     2 |  "taskRoles": [
       |  ^
one.json:3:22: error: taskRoles[0].taskNumber: a PyTorchJob's master is one task, not 2 (more go into the worker role) [k8s-pytorch-role]
     3 |   {"name": "master", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
       |                      ^
