# a task that writes, in one write right after a newline, a line four
# times longer than the line the merged log keeps back (16 KiB of y
# after "x\n"): the job SUCCEEDS with every byte, in order, in its
# merged log as in its stdout, and no other process of the user is
# touched (the line once ran over the monitor's 4 KiB buffer onto its
# pids, and the monitor signalled where the output said)
run: sleep 60 & s=$!; paictl -u alice submit -q --wait big.json >/dev/null; echo "exit $?"; { echo x; printf '%16384s' '' | tr ' ' y; } >want; paictl -u alice logs big main 0 >all; paictl -u alice logs big main 0 --stream stdout >out; cmp want all && cmp want out && echo "every byte"; kill -0 $s && echo "the other process untouched"; kill $s
timeout: 30
=== setup
paictl serve --background --no-ssh >/dev/null
=== file big.json
{"jobName":"big","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"{ echo x; printf '%16384s' '' | tr ' ' y; } >line && dd if=line bs=65536 count=1 status=none"}]}
=== stdout
exit 0
every byte
the other process untouched
