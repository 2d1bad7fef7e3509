# status -o json: the server's detail; JOB may name another user's job
run: paictl -u bob status -o json alice~hello | jq -c '{name, user: .jobStatus.username, state: .jobStatus.state, tasks: [.taskRoles.main.taskStatuses[] | {taskIndex, taskState, containerExitCode}]}'
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q --wait hello.json >/dev/null
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
{"name":"hello","user":"alice","state":"SUCCEEDED","tasks":[{"taskIndex":0,"taskState":"SUCCEEDED","containerExitCode":0}]}
