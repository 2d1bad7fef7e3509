# protocol v2 under HiveD (the default scheduler option): GPU envs from
# the pod's cell isolation, no --user (placeholders), a v0.x variable
run: env -u PAICTL_USER -u USER paictl expand hived.yaml trainer 1
exit: 0
=== file hived.yaml
protocolVersion: 2
name: gpu
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: ubuntu}
taskRoles:
  trainer:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 4, memoryMB: 8192, gpu: 1, ports: {tb: 1}}
    commands:
      - 'echo $PAI_JOB_NAME $PAI_RESOURCE_trainer $PAI_PORT_LIST_trainer_1_tb $PAI_DATA_DIR'
=== stdout
jobName: gpu
user: <user>
virtualCluster: default
parameters:

== trainer-1 (role trainer, index 1 of 2)
FC_FRAMEWORK_NAMESPACE=default
FC_FRAMEWORK_NAME=<md5:<user>~gpu>
FC_TASKROLE_NAME=trainer
FC_TASK_INDEX=1
FC_CONFIGMAP_NAME=<md5:<user>~gpu>-attempt
FC_POD_NAME=<md5:<user>~gpu>-trainer-1
FC_FRAMEWORK_UID=<framework-uid>
FC_FRAMEWORK_ATTEMPT_ID=<framework-attempt-id>
FC_FRAMEWORK_ATTEMPT_INSTANCE_UID=<framework-attempt-id>_<configmap-uid>
FC_CONFIGMAP_UID=<configmap-uid>
FC_TASKROLE_UID=<task-role-uid:trainer>
FC_TASK_UID=<task-uid:trainer-1>
FC_TASK_ATTEMPT_ID=<task-attempt-id:trainer-1>
FC_POD_UID=<container-id:trainer-1>
FC_TASK_ATTEMPT_INSTANCE_UID=<task-attempt-id:trainer-1>_<container-id:trainer-1>
PAI_FRAMEWORK_NAME=<md5:<user>~gpu>
PAI_JOB_NAME=<user>~gpu
PAI_USER_NAME=<user>
PAI_DEFAULT_FS_URI=
PAI_TASK_ROLE_COUNT=1
PAI_TASK_ROLE_LIST=trainer
PAI_VIRTUAL_CLUSTER=default
PAI_TASK_ROLE_TASK_COUNT_trainer=2
PAI_RESOURCE_trainer=1,4,8192,0
PAI_MIN_FAILED_TASK_COUNT_trainer=1
PAI_MIN_SUCCEEDED_TASK_COUNT_trainer=2
PAI_USERNAME=<user>
PAI_TASKS_NUM=2
PAI_JOB_TASK_COUNT=2
PAI_TASK_ROLES_NUM=1
PAI_JOB_TASK_ROLE_COUNT=1
PAI_JOB_TASK_ROLE_LIST=trainer
PAI_CURRENT_TASK_ROLE_NAME=trainer
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
PAI_TASK_INDEX=1
NVIDIA_VISIBLE_DEVICES=<gpus:trainer-1>
HIVED_VISIBLE_DEVICES=<gpus:trainer-1>
PAI_WORK_DIR=<work-dir:trainer-1>
PAI_PORT_LIST_trainer_0_tb=<port:trainer-0:tb>
PAI_trainer_0_tb_PORT=<port:trainer-0:tb>
PAI_PORT_LIST_trainer_0_ssh=<port:trainer-0:ssh>
PAI_trainer_0_ssh_PORT=<port:trainer-0:ssh>
PAI_PORT_LIST_trainer_0_http=<port:trainer-0:http>
PAI_trainer_0_http_PORT=<port:trainer-0:http>
PAI_HOST_IP_trainer_0=<ip:trainer-0>
PAI_PORT_LIST_trainer_1_tb=<port:trainer-1:tb>
PAI_trainer_1_tb_PORT=<port:trainer-1:tb>
PAI_PORT_LIST_trainer_1_ssh=<port:trainer-1:ssh>
PAI_trainer_1_ssh_PORT=<port:trainer-1:ssh>
PAI_PORT_LIST_trainer_1_http=<port:trainer-1:http>
PAI_trainer_1_http_PORT=<port:trainer-1:http>
PAI_HOST_IP_trainer_1=<ip:trainer-1>
PAI_CURRENT_CONTAINER_IP=<ip:trainer-1>
PAI_CURRENT_CONTAINER_PORT=<port:trainer-1:http>
PAI_CONTAINER_HOST_IP=<ip:trainer-1>
PAI_CONTAINER_HOST_PORT=<port:trainer-1:http>
PAI_CONTAINER_SSH_PORT=<port:trainer-1:ssh>
PAI_CONTAINER_HOST_tb_PORT_LIST=<port:trainer-1:tb>
PAI_CONTAINER_HOST_ssh_PORT_LIST=<port:trainer-1:ssh>
PAI_CONTAINER_HOST_http_PORT_LIST=<port:trainer-1:http>
PAI_CONTAINER_HOST_PORT_LIST=tb:<port:trainer-1:tb>;ssh:<port:trainer-1:ssh>;http:<port:trainer-1:http>;
PAI_TASK_ROLE_trainer_HOST_LIST=<ip:trainer-0>:<port:trainer-0:http>,<ip:trainer-1>:<port:trainer-1:http>
PAI_TASK_ROLE_INSTANCES=trainer:0,trainer:1
command:
  echo <user>~gpu 1,4,8192,0 <port:trainer-1:tb> $PAI_DATA_DIR
=== stderr
hived.yaml:12:79: warning: taskRoles.trainer.commands[0]: $PAI_DATA_DIR is not in the environment of the tasks of role 'trainer' on OpenPAI v1.x (a v0.x variable; v1.x has none) [unknown-pai-variable]
    12 |       - 'echo $PAI_JOB_NAME $PAI_RESOURCE_trainer $PAI_PORT_LIST_trainer_1_tb $PAI_DATA_DIR'
       |                                                                               ^
