# a stored token the cluster refuses (expired): exit 5, how to log in again
run: paictl -c tcp submit job.json
exit: 5
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
mkdir -p "$HOME/.local/state/paictl/tokens"
echo expired >"$HOME/.local/state/paictl/tokens/tcp@alice"
chmod 600 "$HOME/.local/state/paictl/tokens/tcp@alice"
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: submit: cannot submit 'job.json' as 'job': Guest is not allowed to do this operation
paictl: submit: the stored token for alice at 'tcp' was refused (expired?); log in again with 'paictl login -c tcp'
