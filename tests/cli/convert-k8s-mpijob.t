# a job as an MPIJob: the replica specs Launcher and Worker, never
# restarted (the launcher's Job has no retries), what runs when the
# launcher succeeded stopped, the slots the worker's GPUs, the launcher
# reached by its Job's name; the operator's OMPI_MCA_* are its own (a
# jobEnv of those names dropped, and said); a role neither launcher nor
# worker: exit 3, its rule
run: paictl convert m.json --to mpijob > out.yaml; sed -n -e "/^kind: MPIJob/,/^      template:/p" -e "/HOST_LIST/p" out.yaml; echo "OMPI_MCA_ set by paictl: $(grep -c "name: OMPI_MCA\|^  OMPI_MCA" out.yaml)"; paictl convert bad.json --to mpijob; echo "exit $?"
=== file m.json
{"jobName": "hvd", "image": "horovod/horovod", "jobEnvs": {"OMPI_MCA_plm_rsh_args": "x"},
 "taskRoles": [
  {"name": "launcher", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
   "command": "mpirun -np 4 --hostfile $OMPI_MCA_orte_default_hostfile python train.py"},
  {"name": "worker", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 1024, "gpuNumber": 2,
   "command": "sleep infinity"}]}
=== file bad.json
{"jobName": "hvd", "image": "horovod/horovod", "taskRoles": [
  {"name": "launcher", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"},
  {"name": "ps", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
=== stdout
  PAI_TASK_ROLE_launcher_HOST_LIST: "hvd-launcher.hvd:10000"
  PAI_TASK_ROLE_worker_HOST_LIST: "hvd-worker-0.hvd:10000,hvd-worker-1.hvd:10000"
kind: MPIJob
metadata:
  name: hvd
  labels:
    app.kubernetes.io/managed-by: paictl
  annotations:
    paictl/job-name: hvd
spec:
  slotsPerWorker: 2
  runPolicy:
    cleanPodPolicy: Running
    backoffLimit: 0
    schedulingPolicy:
      minAvailable: 3
      queue: default
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: Never
      template:
OMPI_MCA_ set by paictl: 0
exit 3
=== stderr
m.json:1:60: warning: jobEnvs.OMPI_MCA_plm_rsh_args: dropped: the MPI Operator sets this variable in the pods itself (K_MPI_JOB_ROLE, OMPI_MCA_*...), and its value is the one the pods see [k8s-dropped]
     1 | {"jobName": "hvd", "image": "horovod/horovod", "jobEnvs": {"OMPI_MCA_plm_rsh_args": "x"},
       |                                                            ^
bad.json:3:4: error: taskRoles[1].name: an MPIJob has the replica types launcher and worker: role 'ps' is none of them [k8s-mpijob-role]
     3 |   {"name": "ps", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "true"}]}
       |    ^
