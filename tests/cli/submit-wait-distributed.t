# README's first command: two roles that talk over their ports, submitted to the
# local cluster and waited for; then the clients' logs, each line prefixed
run: paictl -u alice submit --wait -q hello-distributed.json && paictl -u alice logs hello-distributed client
copy: examples/hello-distributed.json
timeout: 30
=== setup
paictl serve --background --no-ssh >/dev/null
=== stdout
hello-distributed
client-0 | client-0 got: hello from server-0
client-0 | client-0 got: hello from server-1
client-1 | client-1 got: hello from server-0
client-1 | client-1 got: hello from server-1
