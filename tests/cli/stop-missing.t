# stop a job that does not exist: exit 4, said plainly; v0.17 answers a
# 404 UnknownError carrying the launcher's raw JSON, shown only with -v
run: paictl -u alice stop nope; echo "exit $?"; paictl -v -u alice stop nope
exit: 4
=== setup
paictl serve --background --no-ssh >/dev/null
=== stdout
exit 4
=== stderr
paictl: stop: job 'nope' not found
paictl: stop: job 'nope' not found
paictl: stop: the cluster said: {"code":"NotFoundException","message":"Framework alice~nope does not exist"}
