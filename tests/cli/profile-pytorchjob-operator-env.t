# on a PyTorchJob profile the operator's variables are defined: validate
# says nothing of $RANK; judged for OpenPAI (no profile, or convert
# --to v2, whatever the profile's engine) they are unknown again
run: paictl cluster add k --kubernetes --kubeconfig kc --engine pytorchjob && paictl -c k validate ddp.json && paictl validate ddp.json && paictl -c k convert --to v2 ddp.json >/dev/null
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
=== file ddp.json
{"jobName": "ddp", "image": "pytorch/pytorch", "taskRoles": [
 {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "echo $RANK"},
 {"name": "worker", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "true"}]}
=== stdout
ddp.json: ok
ddp.json: ok (with warnings)
=== stderr
ddp.json:2:104: warning: taskRoles[0].command: $RANK is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
     2 |  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "echo $RANK"},
       |                                                                                                        ^
ddp.json:2:104: warning: taskRoles[0].command: $RANK is set by neither the cluster, jobEnvs nor the command: only the image could provide it [unknown-variable]
     2 |  {"name": "master", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "echo $RANK"},
       |                                                                                                        ^
