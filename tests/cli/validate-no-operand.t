# nothing to validate: exit 2, and how to give it something
run: paictl validate
exit: 2
=== stderr
paictl: validate: no job config given; try 'paictl validate job.json' ('-' reads standard input)
