# --wait on a terminal: one line rewritten in place (carriage return,
# erase line) with the state, the tasks and the time so far, ending in a
# newline once the job ended
run: export TERM=xterm; script -qec 'paictl -u alice submit --wait hello.json' /dev/null | tr -d '\n' | tr '\r' '\n' | cat -v | sed -E 's/\([0-9]+:[0-9]{2}\)/(M:SS)/' | grep -v '^$' | tail -n 1
timeout: 20
=== setup
paictl serve --background --no-ssh >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":2,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
^[[Khello SUCCEEDED, 2 tasks: 2 succeeded (M:SS)
