# logs -f from the submission on, on a task that writes 100,000 lines:
# every line exactly once, in order
run: paictl -u alice submit -q big.json >/dev/null && paictl -u alice logs -f big >out && seq 100000 | cmp - out && wc -l <out
timeout: 60
=== setup
paictl serve --background --no-ssh >/dev/null
=== file big.json
{"jobName":"big","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"seq 100000"}]}
=== stdout
100000
