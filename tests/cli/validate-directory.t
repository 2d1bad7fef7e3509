# a directory is not a config: exit 4
run: paictl validate conf.d
exit: 4
=== setup
mkdir conf.d
=== stderr
paictl: validate: cannot read 'conf.d': Is a directory
