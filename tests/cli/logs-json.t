# logs -o json: one object per line, for scripts (both streams, the
# default)
run: paictl -u alice logs -o json one
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait one.json >/dev/null
=== file one.json
{"jobName":"one","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo out; sleep 0.1; echo err >&2; sleep 0.1; printf 'tab\\there \\\\ \"quoted\"'"}]}
=== stdout
{"role":"main","index":0,"stream":"all","line":"out"}
{"role":"main","index":0,"stream":"all","line":"err"}
{"role":"main","index":0,"stream":"all","line":"tab\there \\ \"quoted\""}
