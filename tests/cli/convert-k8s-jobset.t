# a job as a JobSet: a replicated Job per role (one Indexed Job of all
# its tasks, failing at its first failed pod), retries as maxRestarts,
# a role whose tasks must succeed a target of the success policy (all
# of them: said on stderr), Kueue's queue as a label, the pods' stable
# names under the JobSet's subdomain, the index from the Job
# controller's annotation
run: paictl convert job.json --to jobset --namespace team-a --queue team-a-lq | sed -n -e '/^kind: JobSet/,/^        template:/p' -e '/HOST_LIST/p' -e '/fieldPath: "metadata.annotations/{p;q}'
=== file job.json
{"jobName": "Demo_Set", "image": "debian", "retryCount": 2,
 "jobEnvs": {"LR": "0.1"},
 "taskRoles": [
  {"name": "server", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
   "minSucceededTaskCount": 1,
   "command": "echo $$ $PAI_TASK_INDEX"},
  {"name": "client", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
   "command": "echo $PAI_TASK_ROLE_server_HOST_LIST"}]}
=== stdout
  PAI_TASK_ROLE_server_HOST_LIST: "demo-set-server-0-0.demo-set:10000,demo-set-server-0-1.demo-set:10000"
  PAI_TASK_ROLE_client_HOST_LIST: "demo-set-client-0-0.demo-set:10000"
kind: JobSet
metadata:
  name: demo-set
  namespace: team-a
  labels:
    app.kubernetes.io/managed-by: paictl
    paictl/job-name: Demo_Set
    kueue.x-k8s.io/queue-name: team-a-lq
  annotations:
    paictl/job-name: Demo_Set
spec:
  failurePolicy:
    maxRestarts: 2
  successPolicy:
    operator: Any
    targetReplicatedJobs:
    - server
  network:
    enableDNSHostnames: true
    publishNotReadyAddresses: true
  replicatedJobs:
  - name: server
    replicas: 1
    template:
      spec:
        parallelism: 2
        completions: 2
        completionMode: Indexed
        backoffLimit: 0
        template:
                    fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"
=== stderr
job.json:1:2: warning: jobName: the job is named 'demo-set' on Kubernetes ('Demo_Set' is not a DNS label of at most 63 characters with its pods' names); PAI_JOB_NAME and the annotation paictl/job-name keep 'Demo_Set' [k8s-name]
     1 | {"jobName": "Demo_Set", "image": "debian", "retryCount": 2,
       |  ^
job.json:5:4: warning: taskRoles[0].minSucceededTaskCount: a JobSet counts a role as succeeded when its Job did, all its tasks: role 'server' succeeds when all 2 of its tasks did, not 1 [k8s-min-succeeded]
     5 |    "minSucceededTaskCount": 1,
       |    ^
