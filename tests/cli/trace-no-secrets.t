# -vv never shows a secret body: not the job's private key that ssh-key
# and ssh download, not the token login is answered with, not the
# password (the bodies' sizes are said instead)
run: paictl -vv -u alice ssh-key job >/dev/null 2>t1; rm -r "$HOME/.local/state/paictl/keys"; paictl -vv -u alice ssh job -- echo in 2>t2; url=$(jq -r .url tcp/server.json); echo pw-s3cret-9 | paictl -vv --uri "$url" -u alice login -q --password-stdin 2>t3; paictl -vv --uri "$url" -u alice list >/dev/null 2>t4; tok=$(cat "$HOME"/.local/state/paictl/tokens/*); test ${#tok} -ge 32 && cat t1 t2 t3 t4 | grep -c -e 'PRIVATE KEY' -e pw-s3cret-9 -e "$tok"; grep -h 'secret body' t1 t2 t3 | sed -E 's/[0-9]+ bytes/N bytes/'
timeout: 30
=== setup
command -v sshd >/dev/null || test -x /usr/sbin/sshd
printf 'alice:pw-s3cret-9\n' >"$HOME/users"
chmod 600 "$HOME/users"
paictl serve --background >/dev/null
paictl serve --background --no-ssh --state-dir "$PWD/tcp" --listen 127.0.0.1:0 --users "$HOME/users" >/dev/null
paictl -u alice submit -q job.json >/dev/null
i=0; until paictl -u alice status -o json job | grep -q '"taskState": "RUNNING"' || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done; sleep 0.5
=== file job.json
{"jobName":"job","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
in
0
< [N bytes of secret body not shown]
< [N bytes of secret body not shown]
< [N bytes of secret body not shown]
=== teardown
paictl -u alice stop --wait -q job
