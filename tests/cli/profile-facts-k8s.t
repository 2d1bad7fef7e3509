# on a Kubernetes cluster's profile validate judges a config as submit
# would (what the conversion refuses too), expand shows each task as
# its pod with the profile's default file system, and --scheduler is
# one option whose values every command takes
run: paictl cluster add k --kubernetes --kubeconfig kc --default-fs hdfs://nn:9000 && paictl validate job.json && paictl -c k validate job.json; echo "exit $?"; paictl -c k expand ok.json main 1 | grep -E '^PAI_(DEFAULT_FS_URI|TASK_ROLE_main_HOST_LIST)='; paictl -c k convert ok.json --scheduler default | grep schedulerName; paictl validate --scheduler volcano ok.json; paictl cluster add h --kubernetes --kubeconfig kc --scheduler hived; echo "exit $?"
=== file kc
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:9"}
users:
- name: u
  user: {token: abc}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: team}
current-context: x
=== file job.json
{"jobName": "j", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 2, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
 "minFailedTaskCount": 2, "command": "true"}]}
=== file ok.json
{"jobName": "j", "image": "debian", "taskRoles": [{"name": "main",
 "taskNumber": 2, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0,
 "command": "echo $PAI_DATA_DIR"}]}
=== stdout
job.json: ok
exit 3
PAI_DEFAULT_FS_URI=hdfs://nn:9000
PAI_TASK_ROLE_main_HOST_LIST=j-main-0.j:10000,j-main-1.j:10000
  schedulerName: default-scheduler
ok.json: ok
exit 2
=== stderr
job.json:3:2: error: taskRoles[0].minFailedTaskCount: minimum failed tasks above 1: a Volcano Job fails at its first failed pod, or fails at the end when any pod failed; it cannot count failures [k8s-min-failed]
     3 |  "minFailedTaskCount": 2, "command": "true"}]}
       |  ^
job.json: 1 error, 0 warnings
paictl: cluster: hived is OpenPAI's scheduler; a Kubernetes cluster's is volcano or default
