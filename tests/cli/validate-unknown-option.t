# an unknown option: exit 2, and where to look
run: paictl validate --frobnicate job.json
exit: 2
=== stderr
paictl: validate: unknown option '--frobnicate'; see 'paictl validate --help'
