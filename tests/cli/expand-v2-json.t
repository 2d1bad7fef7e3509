# protocol v2 as JSON: the v1.x header, parameters rendered, a secret
# masked (its value printed nowhere), warnings for what nothing defines
run: paictl expand sec.yaml --user bob -o json --scheduler default
exit: 0
=== file sec.yaml
protocolVersion: 2
name: train_job
type: job
parameters:
  lr: 0.01
  epochs: 3
secrets:
  token: do-not-print-me
prerequisites:
  - {name: img, type: dockerimage, uri: pytorch/pytorch}
defaults: {virtualCluster: gpu_vc}
taskRoles:
  ps_server:
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - python ps.py --lr <% $parameters.lr %> --token <% $secrets.token %>
      - echo $PAI_HOST_IP_ps_server_0 $PAI_TASK_ROLE_wroker_HOST_LIST <% $parameters.nope %>
=== stdout
{
  "jobName": "train_job",
  "user": "bob",
  "virtualCluster": "gpu_vc",
  "parameters": {
    "lr": 0.01,
    "epochs": 3
  },
  "tasks": [
    {
      "role": "ps_server",
      "index": 0,
      "env": {
        "FC_FRAMEWORK_NAMESPACE": "default",
        "FC_FRAMEWORK_NAME": "9c279c894d0311eff61b05bad869a324",
        "FC_TASKROLE_NAME": "psserver",
        "FC_TASK_INDEX": "0",
        "FC_CONFIGMAP_NAME": "9c279c894d0311eff61b05bad869a324-attempt",
        "FC_POD_NAME": "9c279c894d0311eff61b05bad869a324-psserver-0",
        "FC_FRAMEWORK_UID": "<framework-uid>",
        "FC_FRAMEWORK_ATTEMPT_ID": "<framework-attempt-id>",
        "FC_FRAMEWORK_ATTEMPT_INSTANCE_UID": "<framework-attempt-id>_<configmap-uid>",
        "FC_CONFIGMAP_UID": "<configmap-uid>",
        "FC_TASKROLE_UID": "<task-role-uid:ps_server>",
        "FC_TASK_UID": "<task-uid:ps_server-0>",
        "FC_TASK_ATTEMPT_ID": "<task-attempt-id:ps_server-0>",
        "FC_POD_UID": "<container-id:ps_server-0>",
        "FC_TASK_ATTEMPT_INSTANCE_UID": "<task-attempt-id:ps_server-0>_<container-id:ps_server-0>",
        "PAI_FRAMEWORK_NAME": "9c279c894d0311eff61b05bad869a324",
        "PAI_JOB_NAME": "bob~train_job",
        "PAI_USER_NAME": "bob",
        "PAI_DEFAULT_FS_URI": "",
        "PAI_TASK_ROLE_COUNT": "1",
        "PAI_TASK_ROLE_LIST": "ps_server",
        "PAI_VIRTUAL_CLUSTER": "gpu_vc",
        "PAI_TASK_ROLE_TASK_COUNT_ps_server": "1",
        "PAI_RESOURCE_ps_server": "0,1,1024,0",
        "PAI_MIN_FAILED_TASK_COUNT_ps_server": "1",
        "PAI_MIN_SUCCEEDED_TASK_COUNT_ps_server": "1",
        "PAI_USERNAME": "bob",
        "PAI_TASKS_NUM": "1",
        "PAI_JOB_TASK_COUNT": "1",
        "PAI_TASK_ROLES_NUM": "1",
        "PAI_JOB_TASK_ROLE_COUNT": "1",
        "PAI_JOB_TASK_ROLE_LIST": "ps_server",
        "PAI_CURRENT_TASK_ROLE_NAME": "ps_server",
        "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": "0",
        "PAI_TASK_INDEX": "0",
        "NVIDIA_VISIBLE_DEVICES": "none",
        "PAI_WORK_DIR": "<work-dir:ps_server-0>",
        "PAI_PORT_LIST_psserver_0_ssh": "<port:ps_server-0:ssh>",
        "PAI_psserver_0_ssh_PORT": "<port:ps_server-0:ssh>",
        "PAI_PORT_LIST_psserver_0_http": "<port:ps_server-0:http>",
        "PAI_psserver_0_http_PORT": "<port:ps_server-0:http>",
        "PAI_HOST_IP_psserver_0": "<ip:ps_server-0>",
        "PAI_CURRENT_CONTAINER_IP": "<ip:ps_server-0>",
        "PAI_CURRENT_CONTAINER_PORT": "<port:ps_server-0:http>",
        "PAI_CONTAINER_HOST_IP": "<ip:ps_server-0>",
        "PAI_CONTAINER_HOST_PORT": "<port:ps_server-0:http>",
        "PAI_CONTAINER_SSH_PORT": "<port:ps_server-0:ssh>",
        "PAI_CONTAINER_HOST_ssh_PORT_LIST": "<port:ps_server-0:ssh>",
        "PAI_CONTAINER_HOST_http_PORT_LIST": "<port:ps_server-0:http>",
        "PAI_CONTAINER_HOST_PORT_LIST": "ssh:<port:ps_server-0:ssh>;http:<port:ps_server-0:http>;",
        "PAI_TASK_ROLE_psserver_HOST_LIST": "<ip:ps_server-0>:<port:ps_server-0:http>",
        "PAI_TASK_ROLE_INSTANCES": "psserver:0"
      },
      "command": "python ps.py --lr 0.01 --token <secret:$secrets.token>\necho $PAI_HOST_IP_ps_server_0 $PAI_TASK_ROLE_wroker_HOST_LIST"
    }
  ]
}
=== stderr
sec.yaml:18:14: warning: taskRoles.ps_server.commands[1]: $PAI_HOST_IP_ps_server_0 is not in the environment of the tasks of role 'ps_server' on OpenPAI v1.x (v1.x's runtime names role 'ps_server' 'psserver' here, lower case and alphanumerics only) [unknown-pai-variable]
    18 |       - echo $PAI_HOST_IP_ps_server_0 $PAI_TASK_ROLE_wroker_HOST_LIST <% $parameters.nope %>
       |              ^
sec.yaml:18:39: warning: taskRoles.ps_server.commands[1]: $PAI_TASK_ROLE_wroker_HOST_LIST is not in the environment of the tasks of role 'ps_server' on OpenPAI v1.x [unknown-pai-variable]
    18 |       - echo $PAI_HOST_IP_ps_server_0 $PAI_TASK_ROLE_wroker_HOST_LIST <% $parameters.nope %>
       |                                       ^
sec.yaml:18:71: warning: taskRoles.ps_server.commands[1]: '<% $parameters.nope %>' names nothing the server defines; the runtime renders it as an empty string [unknown-template-reference]
    18 |       - echo $PAI_HOST_IP_ps_server_0 $PAI_TASK_ROLE_wroker_HOST_LIST <% $parameters.nope %>
       |                                                                       ^
