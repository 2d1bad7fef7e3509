# logs JOB ROLE INDEX: one task, no prefix, its text as it is; --stream
# stdout or stderr for one stream (--stderr and --all, the old
# spellings, still work); --tail counts a last line without newline as
# a line
run: export PAICTL_USER=alice; paictl logs two w 1; echo; paictl logs two w --stream stderr; paictl logs two w 0 --tail 2; echo; paictl logs two w 1 --stream stdout; echo; paictl logs two w 0 --stderr; paictl logs two w 0 --all >a; paictl logs two w 0 >b; cmp a b && echo same; paictl logs two w 0 --stream stdout --stderr; echo "exit $?"
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait two.json >/dev/null
=== file two.json
{"jobName":"two","image":"debian","taskRoles":[{"name":"w","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"for i in 1 2 3; do echo line $i of $PAI_TASK_INDEX; done; echo err $PAI_TASK_INDEX >&2; printf 'no newline %s' $PAI_TASK_INDEX"}]}
=== stdout
line 1 of 1
line 2 of 1
line 3 of 1
err 1
no newline 1
w-0 | err 0
w-1 | err 1
err 0
no newline 0
line 1 of 1
line 2 of 1
line 3 of 1
no newline 1
err 0
same
exit 2
=== stderr
paictl: logs: one log at a time: --stream stdout or --stream stderr, not both
