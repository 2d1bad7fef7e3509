# the built-in profile starts the local cluster on first use, once
run: paictl -u alice list 2>err; echo "exit $?"; sed "s|$HOME|HOME|" err >&2; paictl -u alice list; test -S "$HOME/.local/state/paictl/local/api.sock" && echo socket
=== stdout
exit 0
socket
=== stderr
paictl: list: started the local cluster (log: HOME/.local/state/paictl/local/server.log)
