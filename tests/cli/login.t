# login: the token kept 0600 per cluster and user, then used; -o json
# says where, never the token
run: echo secret | paictl -c tcp login --password-stdin && stat -c '%a %n' "$HOME/.local/state/paictl/tokens/tcp@alice" | sed "s|$HOME|HOME|" && paictl -c tcp submit job.json && echo secret | paictl -c tcp -o json login --password-stdin | jq -c 'del(.uri)'
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
600 HOME/.local/state/paictl/tokens/tcp@alice
job
{"cluster":"tcp","user":"alice"}
=== stderr
paictl: login: logged in to 'tcp' as alice
