# -r/--role and -i/--index are the old spellings of the operands ROLE
# and INDEX: the same task; -i alone still picks that index of every
# role; an operand and its old spelling together are refused
run: paictl expand tensorflow-distributed.json --role worker --index 1 >old && paictl expand tensorflow-distributed.json worker 1 >new && cmp old new && paictl expand -r worker -i 1 tensorflow-distributed.json | cmp - new && paictl expand tensorflow-distributed.json -i 1 | grep '^=='; paictl expand tensorflow-distributed.json worker -r ps_server; echo "exit $?"; paictl expand tensorflow-distributed.json worker 1 -i 0; echo "exit $?"; paictl expand tensorflow-distributed.json worker x; echo "exit $?"
copy: examples/tensorflow-distributed.json
=== stdout
== ps_server-1 (role ps_server, index 1 of 2)
== worker-1 (role worker, index 1 of 2)
exit 2
exit 2
exit 2
=== stderr
paictl: expand: the role is given twice: 'worker' and -r 'ps_server'
paictl: expand: the index is given twice: '1' and -i 0
paictl: expand: invalid task index 'x' (0, 1, ...)
