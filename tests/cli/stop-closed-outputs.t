# a task that closed its stdout and stderr (as daemons and many launch
# scripts do) still stops: its monitor keeps passing signals on after
# both streams ended (it once waited for the task and heard no more),
# SIGTERM at once, and SIGKILL after the grace time (here 1 s) to one
# that ignores SIGTERM, both within 5 s; nothing of either is left
run: M=$$; echo $M >mark; for j in term kill; do sed "s|MARK|$M|g" $j.in >$j.json; paictl submit -q $j.json >/dev/null; done; until [ "$(pgrep -cf "sleep 6[01]\\.$M")" = 2 ]; do sleep 0.1; done; echo "running: 2"; t0=$(date +%s); paictl stop --wait -q term && paictl stop --wait -q kill; echo "stop: $?"; t1=$(date +%s); [ $((t1 - t0)) -le 5 ] && echo "in time"; for j in term kill; do echo "$j: $(paictl status $j | awk '$1 == "main" {print $NF}')"; done; echo "left: $(pgrep -cf "sleep 6[01]\\.$M")"
timeout: 20
=== setup
paictl serve --background --no-ssh --grace 1 >/dev/null
=== file term.in
{"jobName":"term","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec >/dev/null 2>&1; sleep 60.MARK"}]}
=== file kill.in
{"jobName":"kill","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"trap '' TERM; exec >/dev/null 2>&1; sleep 61.MARK"}]}
=== stdout
running: 2
STOPPED
STOPPED
stop: 0
in time
term: 143
kill: 137
left: 0
=== teardown
paictl stop --wait -q term
paictl stop --wait -q kill
