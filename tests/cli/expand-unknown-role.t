# a role the job does not have: exit 4, naming the roles it has
run: paictl expand tensorflow-distributed.json wroker
exit: 4
copy: examples/tensorflow-distributed.json
=== stdout
=== stderr
paictl: expand: no task role 'wroker' in 'tensorflow-distributed.json'; its roles: ps_server, worker
