# serve --status says whether a local cluster runs (exit 0) or not (6);
# serve --stop stops it and waits until it has, while its running task
# goes on and the next server adopts it; --status names the runtime
run: paictl serve --status | sed 's|/.*/paictl/local|STATE|; s/pid [0-9]*/pid N/'; paictl serve --stop 2>&1 | sed 's/pid [0-9]*/pid N/'; paictl serve --status | sed 's|/.*/paictl/local|STATE|'; paictl serve --stop 2>&1 | sed 's|/.*/paictl/local|STATE|'; paictl serve --background --no-ssh >/dev/null && paictl status sleeper | grep '^state'; paictl -o json serve --status | jq -c '{running, pid: (.pid | type), runtime}'; paictl serve --stop -q; paictl serve --status >/dev/null; echo "exit $?"
timeout: 60
=== setup
paictl serve --background --no-ssh >/dev/null
paictl submit -q sleeper.json
=== teardown
paictl stop sleeper >/dev/null 2>&1
paictl serve --stop -q
=== file sleeper.json
{"jobName": "sleeper", "image": "x", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "gpuNumber": 0, "command": "sleep 30"}]}
=== stdout
running: pid N, socket STATE/api.sock, runtime process
paictl: serve: stopped the local cluster (pid N)
not running (STATE)
paictl: serve: no local cluster runs in 'STATE'
state:      RUNNING
{"running":true,"pid":"number","runtime":"process"}
exit 6
