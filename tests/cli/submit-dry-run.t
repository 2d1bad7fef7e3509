# --dry-run: the exact request, --name and --env applied; nothing sent and
# no local cluster started
run: paictl -u alice submit --dry-run --name other --env 'GREETING=hi there' --env N=2 hello.json | sed 's|paictl/[0-9.]*|paictl/VERSION|'; test -e "$HOME/.local/state/paictl/local/server.json" && echo started; exit 0
=== file hello.json
// comments are stripped before sending
{"jobName":"hello","image":"debian","jobEnvs":{"N":1},"taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":"100","gpuNumber":0,"command":"echo $GREETING"}]}
=== stdout
POST http://localhost/api/v1/user/alice/jobs
User-Agent: paictl/VERSION
Content-Type: application/json
Content-Length: 193

{"jobName":"other","image":"debian","jobEnvs":{"N":"2","GREETING":"hi there"},"taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"echo $GREETING"}]}
=== stderr
hello.json:2:123: warning: taskRoles[0].memoryMB: a number written as a string: "100" is sent as 100 [numeric-string]
     2 | ...es":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":"100","gpuNumber":0,"command":"echo $GREETING"}]}
       |                                                                ^
