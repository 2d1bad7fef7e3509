# --timeout takes seconds
run: paictl wait --timeout soon job
exit: 2
=== stderr
paictl: wait: invalid --timeout 'soon' (seconds, 0 or more)
