# a task that writes 3 MiB without a newline and goes on running (a
# progress bar redrawn after \r): logs -f holds at most 1 MiB of the
# line back, and prints what would grow it further as it is, every byte
# in order, rather than hold the line whole until its newline comes
run: timeout --preserve-status -s INT 4 paictl -u alice logs -f long >out; echo "exit $?"; n=$(wc -c <out); test "$n" -ge 2097152 && test "$n" -le 3145728 && echo "printed 2 to 3 MiB"; tr -d x <out | wc -c
timeout: 20
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
i=0; until paictl -u alice status -o json long | grep -q '"taskState": "RUNNING"' || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done; sleep 1
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"head -c 3145728 /dev/zero | tr '\\0' x; exec sleep 60"}]}
=== stdout
exit 130
printed 2 to 3 MiB
0
=== stderr
paictl: logs: interrupted
=== teardown
paictl -u alice stop --wait -q long
