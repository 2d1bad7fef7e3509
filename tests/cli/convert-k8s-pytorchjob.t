# a job as a PyTorchJob: the replica specs Master and Worker, never
# restarted, what runs when the master succeeded stopped, the container
# the operator gives MASTER_ADDR and RANK named pytorch, the index from
# the operator's label, Volcano's queue in the run policy; a jobEnv the
# operator sets is not given to the pods, and that is said
run: paictl convert pt.json --to pytorchjob --queue gpu > out.yaml; sed -n -e '/^kind: PyTorchJob/,/^        spec:/p' -e '/^    Worker:/,/^      template:/p' -e '/HOST_LIST/p' out.yaml; grep -c -e '- name: pytorch$' out.yaml; grep -m1 replica-index out.yaml; echo "MASTER_PORT in the objects: $(grep -c MASTER_PORT out.yaml)"
=== file pt.json
{"jobName": "ddp", "image": "pytorch/pytorch:2", "jobEnvs": {"MASTER_PORT": "1"},
 "taskRoles": [
  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
   "command": "python train.py"},
  {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
   "command": "python train.py --peers $PAI_TASK_ROLE_master_HOST_LIST"}]}
=== stdout
  PAI_TASK_ROLE_master_HOST_LIST: "ddp-master-0:10000"
  PAI_TASK_ROLE_worker_HOST_LIST: "ddp-worker-0:10000,ddp-worker-1:10000"
kind: PyTorchJob
metadata:
  name: ddp
  labels:
    app.kubernetes.io/managed-by: paictl
  annotations:
    paictl/job-name: ddp
spec:
  runPolicy:
    cleanPodPolicy: Running
    schedulingPolicy:
      minAvailable: 3
      queue: gpu
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata:
          labels:
            paictl/job: ddp
          annotations:
            paictl/task-role: master
            paictl/ports: "http:10000;ssh:10001"
        spec:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
              python train.py --peers $$PAI_TASK_ROLE_master_HOST_LIST
2
                  fieldPath: "metadata.labels['training.kubeflow.org/replica-index']"
MASTER_PORT in the objects: 0
=== stderr
pt.json:1:62: warning: jobEnvs.MASTER_PORT: dropped: the PyTorchJob operator sets this variable in every pod itself (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK...), and its value is the one the pods see [k8s-dropped]
     1 | {"jobName": "ddp", "image": "pytorch/pytorch:2", "jobEnvs": {"MASTER_PORT": "1"},
       |                                                              ^
