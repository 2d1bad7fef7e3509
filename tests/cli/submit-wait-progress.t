# --wait without a terminal: timestamped lines on stderr as the state
# changes, the name alone on stdout; the last line says how it ended
run: paictl -u alice submit --wait hello.json 2>err; st=$?; tail -n 1 err | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} /TIME /' >&2; exit $st
=== setup
paictl serve --background --no-ssh >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo hello"}]}
=== stdout
hello
=== stderr
TIME hello SUCCEEDED, 1 task: 1 succeeded
