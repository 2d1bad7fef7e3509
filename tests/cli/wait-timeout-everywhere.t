# --timeout is wait's, submit --wait's and stop --wait's: exit 8 when
# the time runs out (submit's job going on), and a usage error without
# --wait
run: paictl submit --wait --timeout 1 long.json 2>err; echo "exit $?"; grep -v '^[0-9]\|warning: job' err; paictl stop --wait --timeout 0.5 long 2>err; echo "exit $?"; grep -v '^[0-9]' err; paictl submit --timeout 5 long.json; echo "exit $?"; paictl stop --timeout 5 long; echo "exit $?"
timeout: 20
=== setup
paictl serve --background --no-ssh --grace 5 >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"trap '' TERM; sleep 60"}]}
=== stdout
long
exit 8
paictl: submit: timed out after 1s; job 'long' is RUNNING
paictl: submit: job 'long' goes on; 'paictl stop long' stops it
exit 8
paictl: stop: timed out after 0.5s; job 'long' is RUNNING
exit 2
exit 2
=== stderr
paictl: submit: --timeout goes with --wait
paictl: stop: --timeout goes with --wait
=== teardown
paictl stop --wait -q long
