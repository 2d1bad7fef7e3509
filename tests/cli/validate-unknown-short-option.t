run: paictl validate -z job.json
exit: 2
=== stderr
paictl: validate: unknown option '-z'; see 'paictl validate --help'
