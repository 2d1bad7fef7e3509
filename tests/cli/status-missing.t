# a job that does not exist: exit 4 with the server's message
run: paictl -u alice status nope
exit: 4
=== setup
paictl serve --background --no-ssh >/dev/null
=== stderr
paictl: status: cannot get job 'nope': Job nope is not found
