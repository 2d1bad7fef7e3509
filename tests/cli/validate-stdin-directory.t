# standard input that is a directory
run: paictl validate - <.
exit: 4
=== stderr
paictl: validate: cannot read '-': Is a directory
