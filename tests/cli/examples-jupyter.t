# examples/jupyter.json on the local cluster: status shows the jupyter
# port, and the service answers at the task's IP and that port
run: paictl submit -q jupyter.json >/dev/null || exit 1; for i in $(seq 50); do url=$(paictl status jupyter -o json | jq -r '.taskRoles.notebook.taskStatuses[0] | "http://\(.containerIp):\(.containerPorts.jupyter)/"'); curl -fso /dev/null "$url" && break; sleep 0.2; done; paictl status jupyter | grep -o 'jupyter:[0-9]*' | sed 's/[0-9]*$/PORT/'; curl -fs "$url" | grep -o -m1 'Directory listing for /'
timeout: 30
copy: examples/jupyter.json
=== setup
paictl serve --background --no-ssh >/dev/null
=== teardown
paictl stop jupyter >/dev/null 2>&1
=== stdout
jupyter:PORT
Directory listing for /
