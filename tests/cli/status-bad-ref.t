# JOB is NAME or USER~NAME
run: paictl -u alice status '~nope'
exit: 2
=== setup
paictl serve --background --no-ssh >/dev/null
=== stderr
paictl: status: invalid job '~nope' (use NAME or USER~NAME)
