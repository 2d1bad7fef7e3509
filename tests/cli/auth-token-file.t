# --token-file: refused when others may read it (5); a good one works;
# a bad one in PAICTL_TOKEN is refused by the cluster (5)
run: echo secret | paictl -c tcp login -q --password-stdin; cp "$HOME/.local/state/paictl/tokens/tcp@alice" tok; chmod 644 tok; paictl -c tcp --token-file tok stop job; echo "exit $?"; chmod 600 tok; paictl -c tcp --token-file tok submit job.json; PAICTL_TOKEN=nope paictl -c tcp stop job
exit: 5
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
exit 5
job
=== stderr
paictl: stop: token file 'tok' is accessible by others (mode 644); refusing it: chmod 600 'tok'
paictl: stop: cannot stop job 'job': Guest is not allowed to do this operation
paictl: stop: the token in $PAICTL_TOKEN was refused (expired?)
