# the same name twice: exit 7 with the server's message and the ways
# forward; 'paictl delete' frees the name of a job that has ended, not
# of one that runs, and after it the name can be used again
run: paictl -u alice submit -q hello.json && paictl -u alice submit -q hello.json; echo "exit $?"; paictl -u alice delete long; echo "exit $?"; paictl -u alice wait -q hello >/dev/null && paictl -u alice delete hello && paictl -u alice list -o json | jq -r '.[].name' && paictl -u alice submit --wait -q hello.json && paictl -u alice delete -o json hello; paictl -u alice delete hello; echo "exit $?"; test -z "$(ls -A "$HOME/.local/state/paictl/local/jobs" | grep hello)" && echo gone
=== setup
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q long.json >/dev/null
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== file hello.json
{"jobName":"hello","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
hello
exit 7
exit 7
long
hello
[
  {
    "name": "hello",
    "user": "alice"
  }
]
exit 4
gone
=== stderr
paictl: submit: cannot submit 'hello.json' as 'hello': Job name hello already exists
paictl: submit: a job's name is used once: --unique adds a suffix to it, --skip-existing takes the job there for this one, 'paictl delete hello' frees the name once the job has ended (where the cluster can delete jobs)
paictl: delete: cannot delete job 'long': job 'long' is RUNNING: stop it first
paictl: delete: deleted job 'hello'
paictl: delete: cannot delete job 'hello': Job hello is not found
=== teardown
paictl -u alice stop --wait -q long
