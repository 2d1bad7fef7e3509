# with PAICTL_PASSWORD (cron), a refused stored token means one login by
# itself, then the call again; the new token is kept
run: PAICTL_PASSWORD=secret paictl -c tcp submit job.json && grep -c expired "$HOME/.local/state/paictl/tokens/tcp@alice"
exit: 1
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
=== stdout
job
0
=== stderr
paictl: submit: logged in to 'tcp' as alice again ($PAICTL_PASSWORD)
