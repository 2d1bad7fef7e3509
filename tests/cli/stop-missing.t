# stop a job that does not exist: exit 4
run: paictl -u alice stop nope
exit: 4
=== setup
paictl serve --background --no-ssh >/dev/null
=== stderr
paictl: stop: cannot stop job 'nope': Job nope is not found
