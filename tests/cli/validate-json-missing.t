# -o json with a file that cannot be read: an empty array, the reason on stderr
run: paictl validate -o json nope.json
exit: 4
=== stdout
[]
=== stderr
paictl: validate: cannot read 'nope.json': No such file or directory
