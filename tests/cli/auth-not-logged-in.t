# a mutating call without a token: exit 5, and how to log in
run: paictl -c tcp submit job.json
exit: 5
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
paictl cluster add tcp "$(jq -r .url tcp/server.json)" --user alice
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stderr
paictl: submit: cannot submit 'job.json' as 'job': Guest is not allowed to do this operation
paictl: submit: not logged in; log in with 'paictl login -c tcp' (or give --token-file)
