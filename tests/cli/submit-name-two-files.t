# --name names one job
run: paictl submit --name x a.json a.json
exit: 2
=== stderr
paictl: submit: --name names one job, but 2 files were given
