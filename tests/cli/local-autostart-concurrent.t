# four first commands at once: one local cluster, started by one of
# them, and only that one says it started it
run: for i in 1 2 3 4; do paictl -u alice list 2>err$i & done; wait; cat err1 err2 err3 err4 | grep -c 'started the local cluster'; paictl serve --status >/dev/null && echo running
=== stdout
1
running
