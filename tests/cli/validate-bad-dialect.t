# an unknown dialect is a usage error
run: paictl validate --dialect yarn job.json
exit: 2
=== stdout
=== stderr
paictl: validate: unknown dialect 'yarn' (use openpai or scm)
