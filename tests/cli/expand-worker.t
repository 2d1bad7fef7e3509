# one task of the distributed example: environment and command
run: paictl expand tensorflow-distributed.json worker 1 --user alice --default-fs hdfs://nn:9000
exit: 0
copy: examples/tensorflow-distributed.json
=== stdout
jobName: tensorflow-distributed-jobguid
user: alice
authFile:
dataDir: hdfs://nn:9000/path/tensorflow-distributed-jobguid/data
outputDir: hdfs://nn:9000/path/tensorflow-distributed-jobguid/output
codeDir: hdfs://nn:9000/path/tensorflow-distributed-jobguid/code

== worker-1 (role worker, index 1 of 2)
PAI_JOB_NAME=tensorflow-distributed-jobguid
PAI_USER_NAME=alice
PAI_USERNAME=alice
PAI_DEFAULT_FS_URI=hdfs://nn:9000
PAI_DATA_DIR=hdfs://nn:9000/path/tensorflow-distributed-jobguid/data
PAI_OUTPUT_DIR=hdfs://nn:9000/path/tensorflow-distributed-jobguid/output
PAI_CODE_DIR=hdfs://nn:9000/path/tensorflow-distributed-jobguid/code
PAI_JOB_VC_NAME=your_virtual_cluster
PAI_JOB_TASK_COUNT=4
PAI_TASKS_NUM=4
PAI_JOB_TASK_ROLE_COUNT=2
PAI_TASK_ROLE_COUNT=2
PAI_TASK_ROLES_NUM=2
PAI_JOB_TASK_ROLE_LIST=ps_server,worker
PAI_TASK_ROLE_LIST=ps_server,worker
PAI_WORK_DIR=<work-dir:worker-1>
PAI_CURRENT_TASK_ROLE_NAME=worker
PAI_TASK_ROLE_NAME=worker
PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1
PAI_TASK_INDEX=1
PAI_TASK_ROLE_INDEX=1
PAI_CURRENT_TASK_ROLE_TASK_COUNT=2
PAI_TASK_ROLE_NUM=2
PAI_CURRENT_TASK_ROLE_CPU_COUNT=2
PAI_TASK_CPU_NUM=2
PAI_CURRENT_TASK_ROLE_MEM_MB=16384
PAI_TASK_MEM_MB=16384
PAI_CURRENT_TASK_ROLE_SHM_MB=64
PAI_CURRENT_TASK_ROLE_GPU_COUNT=4
PAI_TASK_GPU_NUM=4
PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT=1
PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT=2
PAI_RESOURCE=4,2,16384,64
PAI_CONTAINER_ID=<container-id:worker-1>
PAI_CONTAINER_HOST_IP=<ip:worker-1>
PAI_CURRENT_CONTAINER_IP=<ip:worker-1>
PAI_CONTAINER_HOST_PORT=<port:worker-1:http>
PAI_CURRENT_CONTAINER_PORT=<port:worker-1:http>
PAI_CONTAINER_SSH_PORT=<port:worker-1:ssh>
PAI_CONTAINER_HOST_PORT_LIST=http:<port:worker-1:http>;ssh:<port:worker-1:ssh>
PAI_CONTAINER_HOST_http_PORT_LIST=<port:worker-1:http>
PAI_CONTAINER_HOST_ssh_PORT_LIST=<port:worker-1:ssh>
PAI_TASK_ROLE_TASK_COUNT_ps_server=2
PAI_MIN_FAILED_TASK_COUNT_ps_server=1
PAI_MIN_SUCCEEDED_TASK_COUNT_ps_server=
PAI_TASK_ROLE_ps_server_HOST_LIST=<ip:ps_server-0>:<port:ps_server-0:http>,<ip:ps_server-1>:<port:ps_server-1:http>
PAI_TASK_ROLE_TASK_COUNT_worker=2
PAI_MIN_FAILED_TASK_COUNT_worker=1
PAI_MIN_SUCCEEDED_TASK_COUNT_worker=2
PAI_TASK_ROLE_worker_HOST_LIST=<ip:worker-0>:<port:worker-0:http>,<ip:worker-1>:<port:worker-1:http>
PAI_HOST_IP_ps_server_0=<ip:ps_server-0>
PAI_PORT_LIST_ps_server_0_http=<port:ps_server-0:http>
PAI_ps_server_0_http_PORT=<port:ps_server-0:http>
PAI_PORT_LIST_ps_server_0_ssh=<port:ps_server-0:ssh>
PAI_ps_server_0_ssh_PORT=<port:ps_server-0:ssh>
PAI_HOST_IP_ps_server_1=<ip:ps_server-1>
PAI_PORT_LIST_ps_server_1_http=<port:ps_server-1:http>
PAI_ps_server_1_http_PORT=<port:ps_server-1:http>
PAI_PORT_LIST_ps_server_1_ssh=<port:ps_server-1:ssh>
PAI_ps_server_1_ssh_PORT=<port:ps_server-1:ssh>
PAI_HOST_IP_worker_0=<ip:worker-0>
PAI_PORT_LIST_worker_0_http=<port:worker-0:http>
PAI_worker_0_http_PORT=<port:worker-0:http>
PAI_PORT_LIST_worker_0_ssh=<port:worker-0:ssh>
PAI_worker_0_ssh_PORT=<port:worker-0:ssh>
PAI_HOST_IP_worker_1=<ip:worker-1>
PAI_PORT_LIST_worker_1_http=<port:worker-1:http>
PAI_worker_1_http_PORT=<port:worker-1:http>
PAI_PORT_LIST_worker_1_ssh=<port:worker-1:ssh>
PAI_worker_1_ssh_PORT=<port:worker-1:ssh>
batch_size=32
job_model=resnet20
command:
  pip --quiet install scipy && python code/tf_cnn_benchmarks.py --local_parameter_device=cpu --batch_size=32 --model=resnet20 --variable_update=parameter_server --data_dir=hdfs://nn:9000/path/tensorflow-distributed-jobguid/data --data_name=cifar10 --train_dir=hdfs://nn:9000/path/tensorflow-distributed-jobguid/output --ps_hosts=<ip:ps_server-0>:<port:ps_server-0:http>,<ip:ps_server-1>:<port:ps_server-1:http> --worker_hosts=<ip:worker-0>:<port:worker-0:http>,<ip:worker-1>:<port:worker-1:http> --job_name=worker --task_index=1
=== stderr
