# which cluster: -c > PAICTL_CLUSTER > 'cluster use' > the built-in local;
# --uri / PAICTL_URI name one without a profile
run: export PAICTL_USER=alice; paictl list -o json | jq -r '.[].name'; paictl cluster use tcp; paictl list -o json | jq -r '.[].name'; PAICTL_CLUSTER=local paictl list -o json | jq -r '.[].name'; PAICTL_CLUSTER=local paictl -c tcp list -o json | jq -r '.[].name'; PAICTL_URI=unix:$PWD/tcp/api.sock paictl list -o json | jq -r '.[].name'
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
paictl serve --background --no-ssh >/dev/null
paictl -u alice submit -q on-local.json >/dev/null
paictl -u alice submit -q --uri "unix:$PWD/tcp/api.sock" on-tcp.json >/dev/null
=== file on-local.json
{"jobName":"on-local","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== file on-tcp.json
{"jobName":"on-tcp","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
on-local
on-tcp
on-local
on-tcp
on-tcp
