# a file that is not there: exit 4, and the reason
run: paictl validate nope.json
exit: 4
=== stderr
paictl: validate: cannot read 'nope.json': No such file or directory
