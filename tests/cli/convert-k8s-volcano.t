# a job as a Volcano Job: the ConfigMap the pods share, one task per
# role with its index, name and IP from the downward API, every '$' of
# the command doubled for the kubelet, retries as maxRetry = retryCount
# + 1, a derived name said on stderr
run: paictl convert job.json --to volcano --namespace team-a --queue gpu
=== file job.json
{"jobName": "Tiny_Job", "image": "debian", "retryCount": 2,
 "jobEnvs": {"LR": "0.1"},
 "taskRoles": [{"name": "main", "taskNumber": 2, "cpuNumber": 2,
   "memoryMB": 1024, "gpuNumber": 1, "shmMB": 256,
   "minSucceededTaskCount": 2,
   "portList": [{"label": "tb", "beginAt": 6006, "portNumber": 1}],
   "command": "echo $$ $(hostname) $PAI_TASK_INDEX"}]}
=== stdout
apiVersion: v1
kind: ConfigMap
metadata:
  name: tiny-job-pai-env
  namespace: team-a
  labels:
    app.kubernetes.io/managed-by: paictl
    paictl/job-name: Tiny_Job
  annotations:
    paictl/job-name: Tiny_Job
data:
  PAI_JOB_NAME: Tiny_Job
  PAI_DATA_DIR: ""
  PAI_CODE_DIR: ""
  PAI_JOB_VC_NAME: default
  PAI_JOB_TASK_COUNT: "2"
  PAI_TASKS_NUM: "2"
  PAI_JOB_TASK_ROLE_COUNT: "1"
  PAI_TASK_ROLE_COUNT: "1"
  PAI_TASK_ROLES_NUM: "1"
  PAI_JOB_TASK_ROLE_LIST: main
  PAI_TASK_ROLE_LIST: main
  PAI_TASK_ROLE_TASK_COUNT_main: "2"
  PAI_MIN_FAILED_TASK_COUNT_main: "1"
  PAI_MIN_SUCCEEDED_TASK_COUNT_main: "2"
  PAI_TASK_ROLE_main_HOST_LIST: "tiny-job-main-0.tiny-job:10000,tiny-job-main-1.tiny-job:10000"
  PAI_HOST_IP_main_0: tiny-job-main-0.tiny-job
  PAI_PORT_LIST_main_0_tb: "6006"
  PAI_main_0_tb_PORT: "6006"
  PAI_PORT_LIST_main_0_http: "10000"
  PAI_main_0_http_PORT: "10000"
  PAI_PORT_LIST_main_0_ssh: "10001"
  PAI_main_0_ssh_PORT: "10001"
  PAI_HOST_IP_main_1: tiny-job-main-1.tiny-job
  PAI_PORT_LIST_main_1_tb: "6006"
  PAI_main_1_tb_PORT: "6006"
  PAI_PORT_LIST_main_1_http: "10000"
  PAI_main_1_http_PORT: "10000"
  PAI_PORT_LIST_main_1_ssh: "10001"
  PAI_main_1_ssh_PORT: "10001"
  LR: "0.1"
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: tiny-job
  namespace: team-a
  labels:
    app.kubernetes.io/managed-by: paictl
    paictl/job-name: Tiny_Job
  annotations:
    paictl/job-name: Tiny_Job
spec:
  schedulerName: volcano
  minAvailable: 2
  maxRetry: 3
  queue: gpu
  plugins:
    svc:
    - "--publish-not-ready-addresses"
    env: []
  tasks:
  - name: main
    replicas: 2
    policies:
    - event: PodFailed
      action: RestartJob
    - event: PodEvicted
      action: RestartJob
    - event: TaskCompleted
      action: CompleteJob
    template:
      metadata:
        labels:
          paictl/job: tiny-job
        annotations:
          paictl/task-role: main
          paictl/ports: "tb:6006;http:10000;ssh:10001"
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: debian
          command:
          - bash
          - "-c"
          args:
          - |-
            export PAI_WORK_DIR="$$PWD"
            # the job's command, as written:
            echo $$$$ $$(hostname) $$PAI_TASK_INDEX
          envFrom:
          - configMapRef:
              name: tiny-job-pai-env
          env:
          - name: PAI_CURRENT_TASK_ROLE_NAME
            value: main
          - name: PAI_TASK_ROLE_NAME
            value: main
          - name: PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX
            valueFrom:
              fieldRef:
                fieldPath: "metadata.labels['volcano.sh/task-index']"
          - name: PAI_TASK_INDEX
            valueFrom:
              fieldRef:
                fieldPath: "metadata.labels['volcano.sh/task-index']"
          - name: PAI_TASK_ROLE_INDEX
            valueFrom:
              fieldRef:
                fieldPath: "metadata.labels['volcano.sh/task-index']"
          - name: PAI_CURRENT_TASK_ROLE_TASK_COUNT
            value: "2"
          - name: PAI_TASK_ROLE_NUM
            value: "2"
          - name: PAI_CURRENT_TASK_ROLE_CPU_COUNT
            value: "2"
          - name: PAI_TASK_CPU_NUM
            value: "2"
          - name: PAI_CURRENT_TASK_ROLE_MEM_MB
            value: "1024"
          - name: PAI_TASK_MEM_MB
            value: "1024"
          - name: PAI_CURRENT_TASK_ROLE_SHM_MB
            value: "256"
          - name: PAI_CURRENT_TASK_ROLE_GPU_COUNT
            value: "1"
          - name: PAI_TASK_GPU_NUM
            value: "1"
          - name: PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT
            value: "1"
          - name: PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT
            value: "2"
          - name: PAI_RESOURCE
            value: "1,2,1024,256"
          - name: PAI_CONTAINER_ID
            valueFrom:
              fieldRef:
                fieldPath: metadata.name
          - name: PAI_CONTAINER_HOST_IP
            valueFrom:
              fieldRef:
                fieldPath: status.podIP
          - name: PAI_CURRENT_CONTAINER_IP
            valueFrom:
              fieldRef:
                fieldPath: status.podIP
          - name: PAI_CONTAINER_HOST_PORT
            value: "10000"
          - name: PAI_CURRENT_CONTAINER_PORT
            value: "10000"
          - name: PAI_CONTAINER_SSH_PORT
            value: "10001"
          - name: PAI_CONTAINER_HOST_PORT_LIST
            value: "tb:6006;http:10000;ssh:10001"
          - name: PAI_CONTAINER_HOST_tb_PORT_LIST
            value: "6006"
          - name: PAI_CONTAINER_HOST_http_PORT_LIST
            value: "10000"
          - name: PAI_CONTAINER_HOST_ssh_PORT_LIST
            value: "10001"
          ports:
          - containerPort: 6006
            protocol: TCP
          - containerPort: 10000
            protocol: TCP
          - containerPort: 10001
            protocol: TCP
          resources:
            requests:
              cpu: "2"
              memory: "1024Mi"
              nvidia.com/gpu: "1"
            limits:
              cpu: "2"
              memory: "1024Mi"
              nvidia.com/gpu: "1"
          volumeMounts:
          - name: dshm
            mountPath: /dev/shm
        volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: "256Mi"
=== stderr
job.json:1:2: warning: jobName: the job is named 'tiny-job' on Kubernetes ('Tiny_Job' is not a DNS label of at most 63 characters with its pods' names); PAI_JOB_NAME and the annotation paictl/job-name keep 'Tiny_Job' [k8s-name]
     1 | {"jobName": "Tiny_Job", "image": "debian", "retryCount": 2,
       |  ^
