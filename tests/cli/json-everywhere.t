# -o json is implemented or refused (exit 2; ssh: 255), never ignored:
# --version; stop without --wait (no state yet); serve --status's keys
# camelCase; serve --background says whether it started the server;
# convert, ssh and a foreground serve refuse it
run: paictl -o json --version | jq -c .; paictl --version -o json | jq -r .version | grep -c .; paictl -o json serve --background --no-ssh | jq -c '{started, socket: (.socket | type)}'; paictl -o json serve --background --no-ssh | jq -c '{started}'; paictl -u alice submit -q long.json >/dev/null && paictl -u alice -o json stop long | jq -c .; paictl -o json serve --status | jq -c '{running, stateDir: (.stateDir | type)}'; paictl -o json convert --to v2 long.json; echo "exit $?"; paictl -o json ssh long; echo "exit $?"; paictl -o json serve; echo "exit $?"
=== file long.json
{"jobName":"long","image":"debian","taskRoles":[{"name":"main","taskNumber":1,"cpuNumber":1,"memoryMB":100,"gpuNumber":0,"command":"exec sleep 60"}]}
=== stdout
{"version":"0.1.0"}
1
{"started":true,"socket":"string"}
{"started":false}
{"name":"long","user":"alice","state":null}
{"running":true,"stateDir":"string"}
exit 2
exit 255
exit 2
=== stderr
paictl: convert: -o json is not one of convert's outputs: it writes the format --to names (--to v1 is JSON)
paictl: ssh: -o json is not for ssh: what it prints is the task's
paictl: serve: -o json is for --status, --stop and --background: in the foreground the server prints only its log, on standard error
=== teardown
paictl -u alice stop --wait -q long
