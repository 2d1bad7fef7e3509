run: paictl validate - -
exit: 2
=== stderr
paictl: validate: standard input ('-') can be read only once
