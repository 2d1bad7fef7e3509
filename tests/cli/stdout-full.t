# a stdout that cannot be written (full disk): exit 1, said on stderr
run: paictl -u alice list -o json >/dev/full
exit: 1
=== setup
paictl serve --background --no-ssh >/dev/null
=== stderr
paictl: list: error writing standard output: No space left on device
