# logs: every task, each line prefixed role-index, standard output and
# error as the task wrote them (a line never cut by the other stream's);
# a last line without its newline still gets one of its own
run: paictl -u alice logs two
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait two.json >/dev/null
=== file two.json
{"jobName":"two","image":"debian","taskRoles":[{"name":"w","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"for i in 1 2 3; do echo line $i of $PAI_TASK_INDEX; done; echo err $PAI_TASK_INDEX >&2; printf 'no newline %s' $PAI_TASK_INDEX"}]}
=== stdout
w-0 | line 1 of 0
w-0 | line 2 of 0
w-0 | line 3 of 0
w-0 | err 0
w-0 | no newline 0
w-1 | line 1 of 1
w-1 | line 2 of 1
w-1 | line 3 of 1
w-1 | err 1
w-1 | no newline 1
