# a cluster named only by --uri: the hint to log in names it the same way,
# and the token kept then is found again
run: url=$(jq -r .url tcp/server.json); paictl --uri "$url" -u alice submit job.json 2>&1 | sed "s|$url|URL|"; echo secret | paictl --uri "$url" -u alice login -q --password-stdin && paictl --uri "$url" -u alice submit job.json
=== setup
printf 'alice:secret\n' >users
chmod 600 users
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$PWD/users" >/dev/null
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"true"}]}
=== stdout
paictl: submit: cannot submit 'job.json' as 'job': Guest is not allowed to do this operation
paictl: submit: not logged in; log in with 'paictl login --uri URL -u alice' (or give --token-file)
job
