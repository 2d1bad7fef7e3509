# the protocol-v2 example on a v1.x cluster: one client's environment
# (the runtime's names, FC_*, no v0.x dirs) and its rendered command
run: paictl expand hello-distributed.yaml client 1 --user alice --scheduler default
exit: 0
copy: examples/hello-distributed.yaml
=== stdout
jobName: hello-distributed
user: alice
virtualCluster: default
parameters:
  GREETING: hello

== client-1 (role client, index 1 of 2)
FC_FRAMEWORK_NAMESPACE=default
FC_FRAMEWORK_NAME=f22bdd8456b8d906e766f85ccc1db6d8
FC_TASKROLE_NAME=client
FC_TASK_INDEX=1
FC_CONFIGMAP_NAME=f22bdd8456b8d906e766f85ccc1db6d8-attempt
FC_POD_NAME=f22bdd8456b8d906e766f85ccc1db6d8-client-1
FC_FRAMEWORK_UID=<framework-uid>
FC_FRAMEWORK_ATTEMPT_ID=<framework-attempt-id>
FC_FRAMEWORK_ATTEMPT_INSTANCE_UID=<framework-attempt-id>_<configmap-uid>
FC_CONFIGMAP_UID=<configmap-uid>
FC_TASKROLE_UID=<task-role-uid:client>
FC_TASK_UID=<task-uid:client-1>
FC_TASK_ATTEMPT_ID=<task-attempt-id:client-1>
FC_POD_UID=<container-id:client-1>
FC_TASK_ATTEMPT_INSTANCE_UID=<task-attempt-id:client-1>_<container-id:client-1>
PAI_FRAMEWORK_NAME=f22bdd8456b8d906e766f85ccc1db6d8
PAI_JOB_NAME=alice~hello-distributed
PAI_USER_NAME=alice
PAI_DEFAULT_FS_URI=
PAI_TASK_ROLE_COUNT=2
PAI_TASK_ROLE_LIST=server,client
PAI_VIRTUAL_CLUSTER=default
PAI_TASK_ROLE_TASK_COUNT_server=2
PAI_RESOURCE_server=0,1,100,0
PAI_MIN_FAILED_TASK_COUNT_server=1
PAI_MIN_SUCCEEDED_TASK_COUNT_server=2
PAI_TASK_ROLE_TASK_COUNT_client=2
PAI_RESOURCE_client=0,1,100,0
PAI_MIN_FAILED_TASK_COUNT_client=1
PAI_MIN_SUCCEEDED_TASK_COUNT_client=2
PAI_USERNAME=alice
PAI_TASKS_NUM=4
PAI_JOB_TASK_COUNT=4
PAI_TASK_ROLES_NUM=2
PAI_JOB_TASK_ROLE_COUNT=2
PAI_JOB_TASK_ROLE_LIST=server,client
PAI_CURRENT_TASK_ROLE_NAME=client
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
PAI_TASK_INDEX=1
NVIDIA_VISIBLE_DEVICES=none
PAI_WORK_DIR=<work-dir:client-1>
PAI_PORT_LIST_server_0_ssh=<port:server-0:ssh>
PAI_server_0_ssh_PORT=<port:server-0:ssh>
PAI_PORT_LIST_server_0_http=<port:server-0:http>
PAI_server_0_http_PORT=<port:server-0:http>
PAI_HOST_IP_server_0=<ip:server-0>
PAI_PORT_LIST_server_1_ssh=<port:server-1:ssh>
PAI_server_1_ssh_PORT=<port:server-1:ssh>
PAI_PORT_LIST_server_1_http=<port:server-1:http>
PAI_server_1_http_PORT=<port:server-1:http>
PAI_HOST_IP_server_1=<ip:server-1>
PAI_TASK_ROLE_server_HOST_LIST=<ip:server-0>:<port:server-0:http>,<ip:server-1>:<port:server-1:http>
PAI_PORT_LIST_client_0_ssh=<port:client-0:ssh>
PAI_client_0_ssh_PORT=<port:client-0:ssh>
PAI_PORT_LIST_client_0_http=<port:client-0:http>
PAI_client_0_http_PORT=<port:client-0:http>
PAI_HOST_IP_client_0=<ip:client-0>
PAI_PORT_LIST_client_1_ssh=<port:client-1:ssh>
PAI_client_1_ssh_PORT=<port:client-1:ssh>
PAI_PORT_LIST_client_1_http=<port:client-1:http>
PAI_client_1_http_PORT=<port:client-1:http>
PAI_HOST_IP_client_1=<ip:client-1>
PAI_CURRENT_CONTAINER_IP=<ip:client-1>
PAI_CURRENT_CONTAINER_PORT=<port:client-1:http>
PAI_CONTAINER_HOST_IP=<ip:client-1>
PAI_CONTAINER_HOST_PORT=<port:client-1:http>
PAI_CONTAINER_SSH_PORT=<port:client-1:ssh>
PAI_CONTAINER_HOST_ssh_PORT_LIST=<port:client-1:ssh>
PAI_CONTAINER_HOST_http_PORT_LIST=<port:client-1:http>
PAI_CONTAINER_HOST_PORT_LIST=ssh:<port:client-1:ssh>;http:<port:client-1:http>;
PAI_TASK_ROLE_client_HOST_LIST=<ip:client-0>:<port:client-0:http>,<ip:client-1>:<port:client-1:http>
PAI_TASK_ROLE_INSTANCES=server:0,server:1,client:0,client:1
command:
  export GREETING=hello
  for addr in ${PAI_TASK_ROLE_server_HOST_LIST//,/ }; do for try in $(seq 100); do if { exec 3<>/dev/tcp/${addr%:*}/${addr#*:}; } 2>/dev/null; then break; fi; sleep 0.1; done; read -r line <&3 || exit 1; echo "client-1 got: $line"; exec 3<&-; done
