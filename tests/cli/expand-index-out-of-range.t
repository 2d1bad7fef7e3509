# an index past the role's tasks: exit 4
run: paictl expand tensorflow-distributed.json worker 2
exit: 4
copy: examples/tensorflow-distributed.json
=== stdout
=== stderr
paictl: expand: role 'worker' has 2 tasks; there is no index 2
