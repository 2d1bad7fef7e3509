# a TrainJob profile: its runtime (--runtime, --runtime-namespaced) kept
# in the profile and written in runtimeRef, convert --runtime over it;
# the runtime options only with --engine trainjob, a runtime that is no
# Kubernetes name refused: exit 2
run: export XDG_CONFIG_HOME=$PWD/cfg; paictl cluster add k --kubernetes --kubeconfig kc --engine trainjob --runtime my-rt --runtime-namespaced && paictl cluster list -o json | jq -c '.[] | select(.name == "k") | .kubernetes' | sed "s|$PWD|.|"; paictl -c k convert t.json 2>/dev/null | sed -n '/^  runtimeRef:/,/^    numNodes:/p'; paictl -c k convert t.json --runtime other 2>/dev/null | grep -A3 '^  runtimeRef:'; paictl cluster add m --kubernetes --kubeconfig kc --engine mpijob --runtime x; echo "exit $?"; paictl cluster add n --kubernetes --kubeconfig kc --engine trainjob --runtime-namespaced; echo "exit $?"; paictl cluster add o --kubernetes --kubeconfig kc --engine trainjob --runtime Bad_Name; echo "exit $?"
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
=== file t.json
{"jobName": "train", "image": "pytorch/pytorch:2", "taskRoles": [
 {"name": "trainer", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 256, "gpuNumber": 1, "command": "torchrun --nnodes=$PET_NNODES train.py"}]}
=== stdout
{"kubeconfig":"./kc","context":null,"namespace":null,"engine":"trainjob","queue":null,"scheduler":"volcano","defaultFs":null,"runtime":"my-rt","runtimeNamespaced":true}
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: TrainingRuntime
    name: my-rt
  trainer:
    image: "pytorch/pytorch:2"
    command:
    - bash
    - "-c"
    args:
    - |-
      export PAI_WORK_DIR="$$PWD"
      # the job's command, as written:
      torchrun --nnodes=$$PET_NNODES train.py
    numNodes: 2
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: ClusterTrainingRuntime
    name: other
exit 2
exit 2
exit 2
=== stderr
paictl: cluster: --runtime and --runtime-namespaced go with --engine trainjob
paictl: cluster: --runtime-namespaced names no runtime: give --runtime NAME (a TrainingRuntime of the namespace)
paictl: cluster: invalid cluster name 'o', --namespace, --queue (Kubernetes names: lower-case letters, digits, '-'; a queue and a --runtime also '.') or --default-fs (a URI: hdfs://host:port)
