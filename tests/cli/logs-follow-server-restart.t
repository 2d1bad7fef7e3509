# logs -f rides out the cluster going away (SIGKILL) and coming back: it
# resumes from its offset, no line twice, none lost. Whether a poll falls
# in the second the cluster is down is timing: the warning it gives then
# is allowed, nothing else on stderr is.
run: paictl -u alice submit -q tick.json >/dev/null; paictl -u alice logs -f tick >out 2>err & sleep 1; kill -9 $(jq .pid "$HOME/.local/state/paictl/local/server.json"); sleep 1; paictl serve --background --no-ssh >/dev/null; wait $!; echo "exit $?"; seq 60 | cmp - out && echo same; grep -v '^paictl: logs: warning: lost the cluster (.*); trying again$' err || :
timeout: 30
=== setup
paictl serve --background --no-ssh >/dev/null
=== file tick.json
{"jobName":"tick","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"for i in $(seq 60); do echo $i; sleep 0.05; done"}]}
=== stdout
exit 0
same
